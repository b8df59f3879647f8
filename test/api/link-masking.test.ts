/**
 * `mask_fields` and the template's `face_verification` (#29 item 11), through the real app on both databases: set on
 * templates and links (links inherit the template's), refused when they name no catalogue field; applied to what a
 * link sends out (the analyses in `verification_link.completed`, the same body its callback gets, and the
 * `analysis.completed` events of the link's analyses), never to what the API returns to the key's owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptConsent, uploadByToken } from '../../server/src/domain/links/page.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';

const tokenOfUrl = (url: string): string => url.slice(url.lastIndexOf('/l/') + 3);

describe.each(DATABASES)('masked fields on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  const payloads = async (type: string) =>
    (await app.services.db.selectFrom('events').select(['payload']).where('type', '=', type).execute()).map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as { data: any });

  it('templates and links take mask_fields and face_verification; links inherit them; unknown fields are refused', async () => {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const key = acct.keys.test;
    const bad = await app.request('POST', '/v1/templates', { key, json: { name: 'x', expect: 'es_dni', mask_fields: ['document_number', 'shoe_size'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'mask_fields.1' });
    // The selfie module needs the account's addendum, on templates as on links.
    const refused = await app.request('POST', '/v1/templates', { key, json: { name: 'x', expect: 'es_dni', face_verification: { enabled: true } } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'face_verification_not_enabled', param: 'face_verification' });
    await app.services.db.updateTable('accounts').set({ face_verification_enabled: true }).where('id', '=', acct.account).execute();

    const tpl = await app.request('POST', '/v1/templates', { key, json: { name: 'Alta', expect: 'es_dni', mask_fields: ['document_number', 'birth_date', 'document_number'], face_verification: { enabled: true } } });
    expect(tpl.status, tpl.text).toBe(201);
    expect(tpl.body).toMatchObject({ mask_fields: ['document_number', 'birth_date'], face_verification: { enabled: true, required: false } });
    const plain = await app.request('POST', '/v1/templates', { key, json: { name: 'Plain', expect: 'es_dni' } });
    expect(plain.body).toMatchObject({ mask_fields: null, face_verification: null });

    const inherited = await app.request('POST', '/v1/verification-links', { key, json: { template: tpl.body.id } });
    expect(inherited.status, inherited.text).toBe(201);
    expect(inherited.body.mask_fields).toEqual(['document_number', 'birth_date']);
    expect(inherited.body.face_verification).toEqual({ enabled: true, required: false });
    const own = await app.request('POST', '/v1/verification-links', { key, json: { template: tpl.body.id, mask_fields: ['last_name'], face_verification: null } });
    expect(own.body.mask_fields).toEqual(['last_name']);
    expect(own.body.face_verification).toBeUndefined();
    const none = await app.request('POST', '/v1/verification-links', { key, json: { template: tpl.body.id, mask_fields: null } });
    expect(none.body.mask_fields).toEqual([]);
    expect((await app.request('POST', '/v1/verification-links', { key, json: { documents: [{ key: 'id' }] } })).body.mask_fields).toEqual([]);
    const unknown = await app.request('POST', '/v1/verification-links', { key, json: { documents: [{ key: 'id' }], mask_fields: ['nope'] } });
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'mask_fields.0' });

    // An update changes them; null resets them.
    const updated = await app.request('POST', `/v1/templates/${tpl.body.id}`, { key, json: { mask_fields: null, face_verification: null } });
    expect(updated.body).toMatchObject({ mask_fields: null, face_verification: null });
  });

  it("what the link sends out is masked (its event's results, its analyses' events); the API answers in full", async () => {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const key = acct.keys.test;
    const link = await app.request('POST', '/v1/verification-links', { key, json: { documents: [{ key: 'id', expect: 'es_dni' }], mask_fields: ['document_number', 'birth_date', 'last_name'] } });
    expect(link.status, link.text).toBe(201);
    const token = tokenOfUrl(link.body.url);
    await acceptConsent(app.services, token, '10.0.0.1');
    const out = await uploadByToken(app.services, token, 'id', { bytes: fixtures.jpeg(), filename: 'dni_bad_checksum.jpg' });
    expect(out.result).toBe('accepted');

    const done = (await payloads('verification_link.completed')).find((p) => p.data.id === link.body.id)!;
    expect(done.data.mask_fields).toEqual(['document_number', 'birth_date', 'last_name']);
    const sent = done.data.results[0].analysis;
    const full = (await app.request('GET', `/v1/analyses/${sent.id}`, { key })).body;
    // The API answers the owner in full.
    expect(full.fields.document_number.value).toMatch(/^\d{8}[A-Z]$/);
    const number = full.fields.document_number.value as string;
    // What went out: the first third kept, the rest starred; dates keep their dashes; the zone is masked too.
    expect(sent.fields.document_number.value).toBe(number.slice(0, 3) + '******');
    expect(sent.fields.birth_date.value).toBe(`${full.fields.birth_date.value.slice(0, 3)}*-**-**`);
    expect(sent.fields.last_name.value).toMatch(/^\S{1,4}[*]+/);
    expect(sent.fields.mrz.value).not.toContain(number);
    expect(sent.fields.first_name.value).toBe(full.fields.first_name.value);
    // The failed NIF check quotes the number: masked there too.
    expect(JSON.stringify(sent.verdict.reasons)).not.toContain(number);
    expect(JSON.stringify(sent.checks)).not.toContain(number);
    expect(JSON.stringify(full.verdict.reasons)).toContain(number);
    expect(sent.file_url).toBeUndefined();

    // The link's analysis's own webhook event is masked the same way.
    const event = (await payloads('analysis.completed')).find((p) => p.data.id === sent.id)!;
    expect(event.data.fields.document_number.value).toBe(sent.fields.document_number.value);
    expect(JSON.stringify(event.data)).not.toContain(number);
  });
});
