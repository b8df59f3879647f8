// @cotejo/sdk against the real server in test mode (PGlite, background worker on): every resource the server
// implements, and typed errors (the 501 mapping, now that no operation answers it, is tested against the mock and a
// scripted transport: test/sdk/prism.test.ts, transport.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';
import {
  Cotejo,
  NotFoundError,
  UnprocessableEntityError,
  type Analysis,
} from '../../sdk/src/index.ts';

let app: TestApp;
let cotejo: Cotejo;
let tmp: string;

beforeAll(async () => {
  app = await startTestApp('pglite', { worker: true });
  cotejo = new Cotejo({ apiKey: app.account.keys.test, baseURL: app.baseUrl, maxRetries: 0 });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-sdk-'));
});

afterAll(async () => {
  await app?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function expectValidDni(a: Analysis) {
  expect(a).toMatchObject({ object: 'analysis', status: 'completed', livemode: false });
  expect(a.document?.type).toBe('es_dni');
  expect(a.verdict?.status).toBe('valid');
}

describe('analyses', () => {
  const created: string[] = [];

  it('create from a path (its base name is the file name)', async () => {
    const file = path.join(tmp, 'dni_valid.jpg');
    fs.writeFileSync(file, fixtures.jpeg());
    const a = await cotejo.analyses.create({ file, expect: 'es_dni' });
    expectValidDni(a);
    expect(a.file.name).toBe('dni_valid.jpg');
    created.push(a.id);
  });

  it('create from a Buffer, a Blob and a Node stream with filename', async () => {
    const fromBuffer = await cotejo.analyses.create({ file: fixtures.jpeg(), filename: 'dni_valid.jpg', expect: 'es_dni' });
    const blob = new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' });
    const fromBlob = await cotejo.analyses.create({ file: blob, filename: 'dni_valid.jpg', expect: 'es_dni' });
    const fromFile = await cotejo.analyses.create({ file: new File([blob], 'dni_valid.jpg'), expect: 'es_dni' });
    const stream = Readable.from([fixtures.jpeg()]);
    const fromStream = await cotejo.analyses.create({ file: stream, filename: 'dni_valid.jpg', expect: 'es_dni' });
    for (const a of [fromBuffer, fromBlob, fromFile, fromStream]) {
      expectValidDni(a);
      created.push(a.id);
    }
  });

  it('create from base64 (JSON)', async () => {
    const a = await cotejo.analyses.create({
      file: { base64: fixtures.jpeg().toString('base64') },
      filename: 'dni_expired.jpg',
      expect: 'es_dni',
    });
    expect(a.verdict?.status).toBe('invalid');
    created.push(a.id);
  });

  it('retrieve, file, export, del', async () => {
    const a = await cotejo.analyses.create({ file: fixtures.jpeg(), filename: 'dni_valid.jpg', expect: 'es_dni', storage: 'temporary' });
    expect((await cotejo.analyses.retrieve(a.id)).id).toBe(a.id);

    const original = await cotejo.analyses.file(a.id);
    expect(original.headers.get('content-type')).toBe('image/jpeg');
    expect(new Uint8Array(await original.arrayBuffer())).toEqual(new Uint8Array(fixtures.jpeg()));

    const csv = await cotejo.analyses.export(a.id, { format: 'csv' });
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(await csv.text()).toContain('es_dni');
    const json = await cotejo.analyses.export(a.id);
    expect(JSON.parse(await json.text())).toMatchObject({ id: a.id });

    await expect(cotejo.analyses.del(a.id)).resolves.toMatchObject({ id: a.id, deleted: true });
    const err = await cotejo.analyses.retrieve(a.id).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'resource_missing', type: 'not_found' });
    expect(err.requestId).toMatch(/^req_/);
    expect(err.headers.get('x-request-id')).toBe(err.requestId);
  });

  it('list: first page when awaited, every analysis with for await (auto-pagination)', async () => {
    const page = await cotejo.analyses.list({ limit: 2 });
    expect(page.object).toBe('list');
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    expect(page.hasNextPage()).toBe(true);
    const second = await page.getNextPage();
    expect(second.data[0].id).not.toBe(page.data[0].id);

    const seen: string[] = [];
    for await (const a of cotejo.analyses.list({ limit: 2 })) seen.push(a.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(created));
    expect(seen.length).toBeGreaterThanOrEqual(created.length);
  });

  it('createAndPoll with async: true waits for the worker', async () => {
    const a = await cotejo.analyses.createAndPoll(
      { file: fixtures.jpeg(), filename: 'dni_valid.jpg', expect: 'es_dni', async: true },
      { pollIntervalMs: 50, maxWaitMs: 20_000 },
    );
    expectValidDni(a);
  });

  it('422 carries param', async () => {
    const err = await cotejo.analyses.create({ file: fixtures.jpeg(), filename: 'dni_valid.jpg', expect: 'es_dnii' }).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err).toMatchObject({ status: 422, code: 'invalid_parameter', param: 'options.expect' });
  });
});

describe('classifications', () => {
  it('create and retrieve', async () => {
    const c = await cotejo.classifications.create({ file: fixtures.jpeg(), filename: 'passport.jpg' });
    expect(c).toMatchObject({ object: 'classification', status: 'completed' });
    expect((await cotejo.classifications.retrieve(c.id)).id).toBe(c.id);
  });
});

describe('batches', () => {
  it('create (multipart files[]) and poll until completed', async () => {
    const b = await cotejo.batches.create({
      files: [
        { file: fixtures.jpeg(), filename: 'dni_valid.jpg' },
        { file: new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>]), filename: 'passport.jpg' },
      ],
      options: { expect: ['es_dni', 'passport'] },
    });
    expect(b).toMatchObject({ object: 'batch', total: 2 });
    const done = await cotejo.batches.poll(b.id, { pollIntervalMs: 50, maxWaitMs: 20_000 });
    expect(done.status).toBe('completed');
    expect(done.counts.completed).toBe(2);
  });
});

describe('document types', () => {
  it('list (paginated by type id) and retrieve', async () => {
    const page = await cotejo.documentTypes.list({ country: 'ESP', strict: true, limit: 5, language: 'en' });
    expect(page.data).toHaveLength(5);
    expect(page.total).toBeGreaterThan(5);
    let n = 0;
    for await (const t of cotejo.documentTypes.list({ country: 'ESP', strict: true, limit: 5 })) {
      expect(t.object).toBe('document_type');
      n++;
    }
    expect(n).toBe(page.total);
    const dni = await cotejo.documentTypes.retrieve('es_dni', { language: 'en' });
    expect(dni).toMatchObject({ object: 'document_type', type: 'es_dni' });
    await expect(cotejo.documentTypes.retrieve('nope_nope')).rejects.toMatchObject({ status: 404, code: 'resource_missing' });
  });
});

describe('webhook endpoints', () => {
  it('create, list, retrieve, del', async () => {
    const we = await cotejo.webhookEndpoints.create({ url: 'https://hooks.example/cotejo', events: ['analysis.completed'] });
    expect(we.secret).toMatch(/^whsec_/);
    const list = await cotejo.webhookEndpoints.list();
    expect(list.data.map((w) => w.id)).toContain(we.id);
    expect((await cotejo.webhookEndpoints.retrieve(we.id)).url).toBe('https://hooks.example/cotejo');
    await expect(cotejo.webhookEndpoints.del(we.id)).resolves.toMatchObject({ id: we.id, deleted: true });
    await expect(cotejo.webhookEndpoints.del(we.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a caller idempotency key replays the original (same secret)', async () => {
    const body: Parameters<Cotejo['webhookEndpoints']['create']>[0] = { url: 'https://hooks.example/replay', events: ['*'] };
    const a = await cotejo.webhookEndpoints.create(body, { idempotencyKey: 'sdk-test-replay-1' });
    const b = await cotejo.webhookEndpoints.create(body, { idempotencyKey: 'sdk-test-replay-1' });
    expect(b).toEqual(a);
  });
});

describe('balance, usage', () => {
  it('retrieve', async () => {
    await expect(cotejo.balance.retrieve()).resolves.toMatchObject({ object: 'balance' });
    await expect(cotejo.usage.retrieve()).resolves.toMatchObject({ object: 'usage' });
  });
});

describe('webhooks.verify', () => {
  it('is the @cotejo/webhooks verifier', async () => {
    const { sign } = await import('../../sdk/src/index.ts');
    const secret = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
    const body = JSON.stringify({ id: 'evt_1', type: 'analysis.completed' });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = await sign(secret, { id: 'msg_1', timestamp, body });
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    await expect(cotejo.webhooks.verify(secret, headers, body)).resolves.toMatchObject({ type: 'analysis.completed' });
  });
});
