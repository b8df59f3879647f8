/**
 * Bodies a client controls (issue #12), each refused with 422 and its param before anything is stored:
 * - file names, bounded at 255 characters in the contract, so a test key cannot have a 2 MB name parsed, stored and
 *   echoed back;
 * - nesting, bounded at MAX_JSON_DEPTH levels for any JSON body or multipart `options` field, so a JSON Schema
 *   nested 5,000 deep in `extract` no longer overflows the stack (500) and 8 MB of `[[[` is not built at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../server/src/input/json-depth.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';

describe.each(DATABASES)('client-supplied file names on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  const b64 = () => fixtures.jpeg().toString('base64');
  const count = async () => Number((await app.services.db.selectFrom('analyses').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('a name of 255 characters is read (and its scenario words still count); one of 256 is 422 filename, nothing stored', async () => {
    const ok = await app.request('POST', '/v1/analyze', { json: { file_base64: b64(), filename: `dni_expired_${'x'.repeat(255 - 16)}.jpg`, expect: 'es_dni' } });
    expect(ok.status).toBe(200);
    expect(ok.body.document.type).toBe('es_dni');
    expect(ok.body.verdict.reasons.find((r: { code: string }) => r.code === 'not_expired')?.severity).toBe('error');

    const before = await count();
    for (const filename of [`dni_${'x'.repeat(256 - 8)}.jpg`, `dni_${'zz_'.repeat(700_000)}.jpg`]) {
      const res = await app.request('POST', '/v1/analyze', { json: { file_base64: b64(), filename } });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'filename' });
      expect(res.text.length).toBeLessThan(2_000); // the name is not echoed back
    }
    expect(await count()).toBe(before);
  });

  it('the same bound on classify and on batch items (param names the item)', async () => {
    const long = `passport_${'y'.repeat(300)}.jpg`;
    const classify = await app.request('POST', '/v1/classify', { json: { file_base64: b64(), filename: long } });
    expect(classify.status).toBe(422);
    expect(classify.body.error).toMatchObject({ code: 'invalid_parameter', param: 'filename' });
    const batch = await app.request('POST', '/v1/batches', { json: { items: [{ file_base64: b64(), filename: 'dni.jpg' }, { file_base64: b64(), filename: long }] } });
    expect(batch.status).toBe(422);
    expect(batch.body.error).toMatchObject({ code: 'invalid_parameter', param: 'items.1.filename' });
  });

  /** A JSON Schema whose properties nest `levels` objects deep (2 JSON levels each). */
  const deepSchema = (levels: number): Record<string, unknown> => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { inner: schema } };
    return schema;
  };

  it('an extract schema nested 5,000 deep is 422 options.extract (with or without an Idempotency-Key), nothing stored', async () => {
    const before = await count();
    // Written as text: the test's own JSON.stringify would overflow on it, as the server's did.
    const extract = '{"type":"object","properties":{"inner":'.repeat(2_500) + '{"type":"string"}' + '}}'.repeat(2_500);
    const file = `"file_base64":"${b64()}","filename":"passport.jpg"`;
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      app.request('POST', path, { body, headers: { 'Content-Type': 'application/json', ...headers } });
    for (const headers of [{}, { 'Idempotency-Key': 'deep-1' }] as Array<Record<string, string>>) {
      const nested = await post('/v1/analyze', `{${file},"options":{"extract":${extract}}}`, headers);
      expect(nested.status).toBe(422);
      expect(nested.body.error).toMatchObject({ code: 'invalid_parameter', param: 'options.extract' });
    }
    const root = await post('/v1/analyze', `{${file},"extract":${extract}}`);
    expect(root.body.error).toMatchObject({ code: 'invalid_parameter', param: 'extract' });
    const batch = await post('/v1/batches', `{"items":[{${file},"options":{"extract":${extract}}}]}`);
    expect(batch.status).toBe(422);
    expect(batch.body.error).toMatchObject({ code: 'invalid_parameter', param: 'items.0.options.extract' });
    const fd = new FormData();
    fd.append('file', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'passport.jpg');
    fd.append('options', `{"extract":${extract}}`);
    const multipart = await app.request('POST', '/v1/analyze', { body: fd });
    expect(multipart.status).toBe(422);
    expect(multipart.body.error).toMatchObject({ code: 'invalid_parameter', param: 'options.extract' });
    expect(await count()).toBe(before);
  });

  it('a schema as deep as a real one still reads (the limit is far from honest use)', async () => {
    // options (2) + extract: 14 nested objects of 2 levels each = 30 levels, within the limit.
    expect(2 + 2 * 14).toBeLessThanOrEqual(MAX_JSON_DEPTH);
    const res = await app.request('POST', '/v1/analyze', { json: { file_base64: b64(), filename: 'passport.jpg', options: { extract: deepSchema(14) } } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.fields)).toEqual(['inner']);
  });

  it('8 MB of nested brackets is refused without being built: 422, and the server answers the next request', async () => {
    const body = '['.repeat(4_000_000) + ']'.repeat(4_000_000);
    const res = await app.request('POST', '/v1/analyze', { body, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('invalid_parameter');
    const webhooks = await app.request('POST', '/v1/webhook-endpoints', { body: '{"url":' + '{"a":'.repeat(100) + '1' + '}'.repeat(100) + '}', headers: { 'Content-Type': 'application/json' } });
    expect(webhooks.status).toBe(422);
    expect(webhooks.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    expect((await app.request('GET', '/v1/document-types/es_dni')).status).toBe(200);
  });
});

describe.each(DATABASES)('JSON bodies over the 30 MB cap on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  // A real JPEG padded to 12 MiB (bytes after its end are ignored): two of them are 32 MiB of base64.
  const padded = (name: string) => {
    const bytes = new Uint8Array(12 * 1024 * 1024);
    bytes.set(fixtures.jpeg());
    return { bytes, name };
  };
  const count = async () => Number((await app.services.db.selectFrom('analyses').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('a JSON batch whose documents add up past it: 413 request_too_large pointing at multipart; the same files as multipart pass', async () => {
    const files = [padded('dni_valid.jpg'), padded('passport.jpg')];
    const before = await count();
    const json = await app.request('POST', '/v1/batches', { json: { items: files.map((f) => ({ file_base64: Buffer.from(f.bytes).toString('base64'), filename: f.name })) } });
    expect(json.status).toBe(413);
    expect(json.body.error.code).toBe('request_too_large');
    expect(json.body.error.message).toMatch(/multipart/);
    expect(await count()).toBe(before);

    const fd = new FormData();
    for (const f of files) fd.append('files[]', new Blob([f.bytes]), f.name);
    const multipart = await app.request('POST', '/v1/batches', { body: fd });
    expect(multipart.status).toBe(202);
    expect(multipart.body.total).toBe(2);
  });

  it('one document past it on analyze is the file that is too large (param file_base64); other routes say the request is', async () => {
    const huge = Buffer.alloc(31 * 1024 * 1024, 0x41).toString('latin1');
    const analyze = await app.request('POST', '/v1/analyze', { json: { file_base64: huge, filename: 'dni.jpg' } });
    expect(analyze.status).toBe(413);
    expect(analyze.body.error).toMatchObject({ code: 'file_too_large', param: 'file_base64' });
    const endpoint = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'https://hooks.example/x', events: ['*'], description: huge } });
    expect(endpoint.status).toBe(413);
    expect(endpoint.body.error.code).toBe('request_too_large');
  });
});
