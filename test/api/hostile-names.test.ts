/**
 * File names a client controls (issue #12): bounded at 255 characters in the contract, refused with 422 and the
 * param before anything is stored, so a test key cannot have a 2 MB name parsed, stored and echoed back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
