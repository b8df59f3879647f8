/**
 * Hostile files through the real app (issue #12): decompression-bomb images and PDFs, truncated multipart, files
 * over the limit, deep JSON. Each must get its documented 4xx within 2 s, with nothing stored, while the event loop
 * keeps serving other requests (a request that freezes the others fails even when its own answer is right) and the
 * process's memory stays bounded.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../server/src/input/json-depth.ts';
import { DATABASES, startTestApp, type TestApp, type TestResponse } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import { deflatedZeros, pdfWith } from '../support/pdf-bombs.ts';
import { hugePng } from '../unit/intake/helpers.ts';

const MiB = 1024 * 1024;
/** Answer time of the hostile request, and the longest the event loop may stall meanwhile. */
const ANSWER_MS = 2_000;
const STALL_MS = 500;
/** The other client's slowest answer meanwhile: its own work plus a loaded machine's share, not a freeze. */
const OTHER_MS = 1_500;
/** RSS growth allowed while one case runs (the app, PGlite and the test share this process). */
const RSS_MIB = 200;

describe.each(DATABASES)('hostile files on %s', (kind) => {
  let app: TestApp;
  let pdfBomb: Uint8Array;
  beforeAll(async () => {
    app = await startTestApp(kind);
    pdfBomb = pdfWith(deflateSync(Buffer.from('<x/>')), [], { content: await deflatedZeros(512 * MiB) });
    // Warm: what the first requests load once (lazy modules, compiled validators, the database's first plans) is a
    // cold start, not what a hostile file does; the watch below is for the latter.
    expect((await app.request('GET', '/v1/analyses?limit=1')).status).toBe(200);
    expect((await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }) })).status).toBe(200);
    expect((await app.request('POST', '/v1/classify', { json: { file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg' } })).status).toBe(200);
    expect((await app.request('POST', '/v1/analyze', { body: form({ bytes: hugePng(100, 100), name: 'dni.png' }) })).status).toBe(422);
  }, 60_000);
  afterAll(() => app?.close());

  const analyses = async () => (await app.services.db.selectFrom('analyses').select('id').execute()).length;

  /**
   * Sends the hostile request while another client keeps asking for the catalogue, and checks the answer time, that
   * the other client was served throughout, the event loop and memory, and that nothing was stored.
   */
  async function hostile(send: () => Promise<TestResponse>): Promise<TestResponse> {
    const before = await analyses();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    loop.enable();
    let stop = false;
    const served: number[] = [];
    const statuses = new Set<number>();
    const other = (async () => {
      while (!stop) {
        const t = performance.now();
        statuses.add((await app.request('GET', '/v1/analyses?limit=1')).status);
        served.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const t0 = performance.now();
    let res: TestResponse;
    try {
      res = await send();
    } finally {
      stop = true;
      await other;
      loop.disable();
      clearInterval(sampler);
    }
    const ms = performance.now() - t0;
    expect(ms, 'answer time').toBeLessThan(ANSWER_MS);
    expect(loop.max / 1e6, 'longest event-loop stall (ms)').toBeLessThan(STALL_MS);
    expect([...statuses], 'the other client').toEqual([200]);
    expect(Math.max(...served), 'slowest answer to the other client (ms)').toBeLessThan(OTHER_MS);
    expect((peak - rss0) / MiB, 'RSS growth (MiB)').toBeLessThan(RSS_MIB);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(await analyses()).toBe(before);
    return res;
  }

  it('a PNG declaring 100000 × 100000 pixels: 422 unreadable_image from its header, never decoded', async () => {
    const res = await hostile(() => app.request('POST', '/v1/analyze', { body: form({ bytes: hugePng(100_000, 100_000), name: 'dni.png' }) }));
    expect(res.body.error).toMatchObject({ code: 'unreadable_image', param: 'file' });
  });

  it('a 1.4 MiB PDF whose page inflates to 512 MiB: 422 unreadable_pdf (multipart, base64, batch item)', async () => {
    expect(pdfBomb.length).toBeLessThan(1.5 * MiB);
    const multipart = await hostile(() => app.request('POST', '/v1/analyze', { body: form({ bytes: pdfBomb, name: 'invoice.pdf' }) }));
    expect(multipart.body.error).toMatchObject({ code: 'unreadable_pdf', param: 'file' });
    const b64 = Buffer.from(pdfBomb).toString('base64');
    const json = await hostile(() => app.request('POST', '/v1/classify', { json: { file_base64: b64, filename: 'invoice.pdf' } }));
    expect(json.body.error).toMatchObject({ code: 'unreadable_pdf', param: 'file_base64' });
    const batch = await hostile(() => app.request('POST', '/v1/batches', { json: { items: [{ file_base64: fixtures.jpeg().toString('base64'), filename: 'dni.jpg' }, { file_base64: b64, filename: 'a.pdf' }] } }));
    expect(batch.body.error).toMatchObject({ code: 'unreadable_pdf', param: 'items.1.file_base64' });
  }, 30_000);

  it('truncated multipart (no closing boundary, a part cut mid-file): 400 invalid_multipart', async () => {
    const boundary = 'x-cotejo-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="dni.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
    const body = Buffer.concat([Buffer.from(head), fixtures.jpeg().subarray(0, 50_000)]);
    const res = await hostile(() => app.request('POST', '/v1/analyze', { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }));
    expect(res.body.error.code).toBe('invalid_multipart');
  });

  it('files over 20 MB: 413 file_too_large as multipart, base64 and batch part, read no further than the limit', async () => {
    const big = new Uint8Array(20 * MiB + 1);
    big.set(fixtures.jpeg().subarray(0, 1024));
    const multipart = await hostile(() => app.request('POST', '/v1/analyze', { body: form({ bytes: big, name: 'big.jpg' }) }));
    expect(multipart.body.error).toMatchObject({ code: 'file_too_large', param: 'file' });
    // The 28 MB JSON body is written before the watch: encoding it is the client's work, not the server's stall.
    const jsonBody = JSON.stringify({ file_base64: Buffer.from(big).toString('base64'), filename: 'big.jpg' });
    const json = await hostile(() => app.request('POST', '/v1/analyze', { body: jsonBody, headers: { 'content-type': 'application/json' } }));
    expect(json.body.error).toMatchObject({ code: 'file_too_large', param: 'file_base64' });
    const fd = new FormData();
    fd.append('files[]', new Blob([fixtures.jpeg()]), 'dni.jpg');
    fd.append('files[]', new Blob([big]), 'big.jpg');
    const batch = await hostile(() => app.request('POST', '/v1/batches', { body: fd }));
    expect(batch.body.error).toMatchObject({ code: 'file_too_large', param: 'files[]' });
  }, 30_000);

  it('JSON nested far past the limit (8 MB of [[[ and a deep options.extract): 422 with its param', async () => {
    const brackets = await hostile(() => app.request('POST', '/v1/analyze', { body: '['.repeat(8 * 1024 * 1024), headers: { 'content-type': 'application/json' } }));
    expect(brackets.body.error.code).toBe('invalid_parameter');
    // A JSON Schema nested 5,000 deep in options.extract, written as text (JSON.stringify itself would overflow).
    const extract = `${'{"type":"object","properties":{"a":'.repeat(5_000)}{"type":"string"}${'}}'.repeat(5_000)}`;
    const body = `{"file_base64":"${fixtures.jpeg().toString('base64')}","filename":"dni.jpg","options":{"extract":${extract}}}`;
    const deep = await hostile(() => app.request('POST', '/v1/analyze', { body, headers: { 'content-type': 'application/json' } }));
    expect(deep.body.error).toMatchObject({ code: 'invalid_parameter', param: expect.stringMatching(/^options\.extract/) });
    expect(MAX_JSON_DEPTH).toBeLessThan(5_000);
  }, 30_000);
});
