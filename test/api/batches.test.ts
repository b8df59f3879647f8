import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPLOAD_MEMORY_BUDGET_BYTES, uploadsDir } from '../../server/src/http/body.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';
import { startHttpsFiles, type HttpsFiles } from '../support/https-files.ts';

function batchForm(names: string[], options?: Record<string, unknown>): FormData {
  const fd = new FormData();
  for (const name of names) fd.append('files[]', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), name);
  if (options) fd.append('options', JSON.stringify(options));
  return fd;
}

describe.each(DATABASES)('batches on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());
  const drain = async () => {
    while (await runOneAnalysisJob(app.services));
  };
  const events = async (type: string) => (await app.services.db.selectFrom('events').selectAll().where('type', '=', type).execute()).map((e) => e.payload as any);

  it('multipart: 202 processing, members carry batch_id, counts follow, batch.completed at the end with csv and xlsx exports', async () => {
    const res = await app.request('POST', '/v1/batches', { body: batchForm(['dni_valid.jpg', 'blurry.jpg', 'es_dni_failed.jpg'], { expect: 'es_dni', metadata: { case: 'EXP-1' } }) });
    expect(res.status).toBe(202);
    const b = res.body;
    expect(b).toMatchObject({ object: 'batch', status: 'processing', total: 3, livemode: false, metadata: { case: 'EXP-1' }, exports: {}, completed_at: null });
    expect(b.id).toMatch(/^bat_/);
    expect(b.analyses).toHaveLength(3);
    expect(b.counts).toMatchObject({ queued: 3 });
    const member = await app.request('GET', `/v1/analyses/${b.analyses[0]}`);
    expect(member.body).toMatchObject({ batch_id: b.id, status: 'queued' });

    await drain();
    const done = await app.request('GET', `/v1/batches/${b.id}`);
    expect(done.body).toMatchObject({ status: 'completed', counts: { completed: 2, failed: 1, queued: 0, processing: 0 } });
    expect(done.body.completed_at).not.toBeNull();
    expect(Object.keys(done.body.exports).sort()).toEqual(['csv', 'xlsx']);
    const csv = await app.request('GET', new URL(done.body.exports.csv).pathname, { key: null });
    expect(csv.status).toBe(200);
    for (const id of b.analyses) expect(csv.text).toContain(id);

    // Members emit review_required and failed, but not analysis.completed; the batch emits batch.completed once.
    const completedIds = (await events('analysis.completed')).map((e) => e.data.id);
    for (const id of b.analyses) expect(completedIds).not.toContain(id);
    expect((await events('analysis.review_required')).map((e) => e.data.id)).toContain(b.analyses[1]);
    expect((await events('analysis.failed')).map((e) => e.data.id)).toContain(b.analyses[2]);
    expect((await events('batch.completed')).filter((e) => e.data.id === b.id)).toHaveLength(1);
  });

  it('JSON items with their own options merged over the common ones', async () => {
    const res = await app.request('POST', '/v1/batches', {
      json: {
        options: { expect: 'es_dni', metadata: { case: 'EXP-2' } },
        items: [
          { file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg' },
          { file_base64: fixtures.jpeg().toString('base64'), filename: 'passport.jpg', options: { expect: 'passport', metadata: { side: 'x' } } },
        ],
      },
    });
    expect(res.status).toBe(202);
    await drain();
    const second = await app.request('GET', `/v1/analyses/${res.body.analyses[1]}`);
    expect(second.body.verdict).toMatchObject({ expected: ['passport'], status: 'valid' });
    expect(second.body.metadata).toEqual({ case: 'EXP-2', side: 'x' });
  });

  it('refuses empty, oversized and incomplete batches, and bad files, creating nothing', async () => {
    const before = await app.services.db.selectFrom('analyses').select('id').execute();
    const storedFiles = () => (fs.readdirSync(path.join(app.services.config.dataDir, 'files'), { recursive: true }) as string[]).filter((f) => f.endsWith('original')).length;
    const filesBefore = storedFiles();
    const badSecond = batchForm(['dni_valid.jpg']);
    badSecond.append('files[]', new Blob([Buffer.from('not an image at all')]), 'notes.jpg');
    // Past the request's memory budget: the last part is spooled to disk before the second is refused.
    for (const name of ['zeros-1.jpg', 'zeros-2.jpg']) badSecond.append('files[]', new Blob([new Uint8Array(UPLOAD_MEMORY_BUDGET_BYTES / 2 + 1)]), name);
    const cases: Array<[Promise<{ status: number; body: any }>, number, string, string]> = [
      [app.request('POST', '/v1/batches', { json: { items: [] } }), 400, 'empty_batch', 'items'],
      [app.request('POST', '/v1/batches', { json: { items: Array.from({ length: 101 }, () => ({ file_base64: 'AAAA', filename: 'a.jpg' })) } }), 400, 'batch_too_large', 'items'],
      [app.request('POST', '/v1/batches', { body: batchForm(Array.from({ length: 101 }, (_, i) => `d${i}.jpg`)) }), 400, 'batch_too_large', 'items'],
      [app.request('POST', '/v1/batches', { json: { items: [{ file_base64: fixtures.jpeg().toString('base64'), filename: 'dni.jpg' }, { filename: 'nothing.jpg' }] } }), 400, 'missing_file', 'items.1'],
      [app.request('POST', '/v1/batches', { json: { items: [{ file_base64: fixtures.jpeg().toString('base64'), filename: 'dni.jpg' }, { file_base64: 'bm90IGFuIGltYWdl', filename: 'x.jpg' }] } }), 415, 'unsupported_file_type', 'items.1.file_base64'],
      [app.request('POST', '/v1/batches', { json: { items: [{ file_base64: fixtures.jpeg().toString('base64'), filename: 'dni.jpg', options: { expect: 'xx_nope' } }] } }), 422, 'invalid_parameter', 'items.0.options.expect'],
      [app.request('POST', '/v1/batches', { body: badSecond }), 415, 'unsupported_file_type', 'files[].1'],
    ];
    for (const [p, status, code, param] of cases) {
      const res = await p;
      expect(res.status, `${code} ${JSON.stringify(res.body).slice(0, 200)}`).toBe(status);
      expect(res.body.error.code).toBe(code);
      if (param) expect(res.body.error.param).toBe(param);
    }
    const after = await app.services.db.selectFrom('analyses').select('id').execute();
    expect(after.length).toBe(before.length);
    // The first document was stored before the second was refused: it is gone again, and no spooled upload is left.
    expect(storedFiles()).toBe(filesBefore);
    expect(fs.existsSync(uploadsDir(app.services.config.dataDir)), 'a part was spooled').toBe(true);
    expect(fs.readdirSync(uploadsDir(app.services.config.dataDir))).toEqual([]);
    expect((await app.services.db.selectFrom('batches').select('id').execute()).length).toBe(2);
  });

  it('404 for another account or mode, and an Idempotency-Key replays the batch', async () => {
    const res = await app.request('POST', '/v1/batches', { body: batchForm(['dni_valid.jpg']), headers: { 'Idempotency-Key': 'batch-1' } });
    const again = await app.request('POST', '/v1/batches', { body: batchForm(['dni_valid.jpg']), headers: { 'Idempotency-Key': 'batch-1' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(res.body.id);
    expect((await app.request('GET', `/v1/batches/${res.body.id}`, { key: app.account.keys.live })).status).toBe(404);
    const other = await app.newAccount({ rateLimitPerSecond: 1000 });
    expect((await app.request('GET', `/v1/batches/${res.body.id}`, { key: other.keys.test })).status).toBe(404);
    await drain();
  });
});

describe.each(DATABASES)('batch file_url items on %s', (kind) => {
  let app: TestApp;
  let files: HttpsFiles | undefined;
  let base = '';
  const served: string[] = [];
  beforeAll(async () => {
    files = await startHttpsFiles((req, res) => {
      served.push(req.url ?? '');
      if (req.url === '/docs/dni_valid.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(fixtures.jpeg());
      else if (req.url === '/docs/notes.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end('not an image at all');
      else res.writeHead(404).end();
    });
    base = files.base;
    app = await startTestApp(kind, { config: { allowPrivateUrls: true }, fileUrlCa: files.cert });
  });
  afterAll(async () => {
    await app?.close();
    await files?.close();
  });

  it('are downloaded by the worker, not in the request: one that fails fails alone, with its intake code, not charged', async () => {
    const items = [
      { file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg' },
      { file_url: `${base}/docs/dni_valid.jpg` },
      { file_url: `${base}/docs/missing.jpg` },
      { file_url: `${base}/docs/notes.jpg`, filename: 'notes.jpg' },
    ];
    const res = await app.request('POST', '/v1/batches', { json: { items, options: { expect: 'es_dni' } } });
    expect(res.status).toBe(202);
    expect(served).toEqual([]); // intake checked the addresses only
    const pending = (await app.request('GET', `/v1/analyses/${res.body.analyses[1]}`)).body;
    expect(pending).toMatchObject({ status: 'queued', batch_id: res.body.id, file: { name: 'dni_valid.jpg', mime_type: null, pages: 0, size_bytes: 0 } });

    while (await runOneAnalysisJob(app.services));
    expect(served.sort()).toEqual(['/docs/dni_valid.jpg', '/docs/missing.jpg', '/docs/notes.jpg']);
    const [fromBase64, fromUrl, missing, notImage] = await Promise.all(res.body.analyses.map(async (id: string) => (await app.request('GET', `/v1/analyses/${id}`)).body));
    expect(fromUrl).toMatchObject({ status: 'completed', file: { name: 'dni_valid.jpg', mime_type: 'image/jpeg', pages: 1, size_bytes: fixtures.jpeg().length } });
    expect(fromUrl.verdict.status).toBe(fromBase64.verdict.status);
    expect(missing).toMatchObject({ status: 'failed', usage: { credits: 0 }, error: { code: 'file_url_unreachable' }, file: { name: 'missing.jpg', mime_type: null } });
    expect(notImage).toMatchObject({ status: 'failed', error: { code: 'unsupported_file_type' }, file: { name: 'notes.jpg' } });
    const rows = await app.services.db.selectFrom('analyses').select(['id', 'source_url']).where('batch_id', '=', res.body.id).execute();
    expect(rows.map((r) => r.source_url)).toEqual([null, null, null, null]); // the URL is not kept once used
    const batch = (await app.request('GET', `/v1/batches/${res.body.id}`)).body;
    expect(batch).toMatchObject({ status: 'completed', total: 4, counts: { completed: 2, failed: 2 } });
  });

  it('refuses a bad address at intake, naming the item, and creates nothing', async () => {
    const before = await app.services.db.selectFrom('analyses').select('id').execute();
    const items = [{ file_url: `${base}/docs/dni_valid.jpg` }, { file_url: 'http://example.com/dni.jpg' }];
    const res = await app.request('POST', '/v1/batches', { json: { items } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_file_url', param: 'items.1.file_url' });
    expect(await app.services.db.selectFrom('analyses').select('id').execute()).toHaveLength(before.length);
  });
});
