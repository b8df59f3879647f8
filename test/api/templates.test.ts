import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

type Reason = { code: string; severity: string; message: string };
type Res = { status: number; body: any; headers: Headers };

const FULL = {
  name: 'Alta de clientes',
  description: 'DNI o NIE en vigor de un titular mayor de edad.',
  expect: ['dni', 'es_tie', 'es_dni'],
  checks: { not_expired: true, min_age_years: 18 },
  extract: { type: 'object', properties: { numero: { type: 'string' } } },
  storage: 'review',
  ttl_hours: 48,
  language: 'en',
  processing: 'standard',
  precise_bboxes: true,
  human_review: { on_invalid: true },
  review_retention_hours_after_decision: 0,
  review_max_days: 90,
  documents: [
    { key: 'id_front', label: 'DNI', expect: 'dni', checks: { min_age_years: 21 } },
    { key: 'payslip-1', expect: ['es_payslip'] },
  ],
  metadata: { producto: 'cuenta-online' },
};

describe.each(DATABASES)('templates on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  const create = (json: unknown, opts: { key?: string; headers?: Record<string, string> } = {}): Promise<Res> => app.request('POST', '/v1/templates', { json, ...opts });
  const update = (id: string, json: unknown): Promise<Res> => app.request('POST', `/v1/templates/${id}`, { json });
  const analyze = (name: string, options: Record<string, unknown>, key?: string): Promise<Res> =>
    app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify(options)]]), key });
  const classify = (name: string, options: Record<string, unknown>): Promise<Res> =>
    app.request('POST', '/v1/classify', { body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify(options)]]) });
  const reason = (a: { verdict: { reasons: Reason[] } }, code: string) => a.verdict.reasons.find((r) => r.code === code);
  const drain = async () => {
    while (await runOneAnalysisJob(app.services));
  };
  const expectError = (res: Res, status: number, code: string, param?: string) => {
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
    expect(res.body.error.code).toBe(code);
    if (param !== undefined) expect(res.body.error.param).toBe(param);
  };

  describe('CRUD', () => {
    it('creates with defaults: every field shown, nulls for what it does not set', async () => {
      const res = await create({ name: 'Mínima' });
      expect(res.status).toBe(201);
      expect(res.body.id).toMatch(/^tpl_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(res.body).toEqual({
        id: res.body.id,
        object: 'template',
        livemode: false,
        name: 'Mínima',
        description: null,
        expect: null,
        checks: {},
        extract: true,
        storage: null,
        ttl_hours: null,
        language: null,
        processing: null,
        precise_bboxes: null,
        human_review: { on_invalid: false, auto_approve_valid: true },
        review_retention_hours_after_decision: null,
        review_max_days: null,
        documents: null,
        mask_fields: null,
        face_verification: null,
        metadata: {},
        created_at: res.body.created_at,
        updated_at: res.body.created_at,
      });
    });

    it('creates with every field: slugs resolved to type ids (deduplicated), documents normalised; GET returns the same', async () => {
      const res = await create(FULL);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        name: FULL.name,
        description: FULL.description,
        expect: ['es_dni', 'es_tie'],
        checks: FULL.checks,
        extract: FULL.extract,
        storage: 'review',
        ttl_hours: 48,
        language: 'en',
        processing: 'standard',
        precise_bboxes: true,
        human_review: { on_invalid: true, auto_approve_valid: true },
        review_retention_hours_after_decision: 0,
        review_max_days: 90,
        documents: [
          { key: 'id_front', label: 'DNI', expect: ['es_dni'], checks: { min_age_years: 21 } },
          { key: 'payslip-1', label: null, expect: ['es_payslip'], checks: {} },
        ],
        metadata: FULL.metadata,
      });
      const got = await app.request('GET', `/v1/templates/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    });

    it('live keys create live templates; each mode sees only its own', async () => {
      const live = await create({ name: 'Live' }, { key: app.account.keys.live });
      expect(live.body.livemode).toBe(true);
      const liveList = await app.request('GET', '/v1/templates?limit=100', { key: app.account.keys.live });
      expect(liveList.body.data.map((t: { id: string }) => t.id)).toEqual([live.body.id]);
      const testList = await app.request('GET', '/v1/templates?limit=100');
      expect(testList.body.data.map((t: { id: string }) => t.id)).not.toContain(live.body.id);
    });

    it('deletes: 200 DeletedTemplate, then 404 on GET, update and a second delete', async () => {
      const t = await create({ name: 'Borrar' });
      const del = await app.request('DELETE', `/v1/templates/${t.body.id}`);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ id: t.body.id, object: 'template', deleted: true });
      expectError(await app.request('GET', `/v1/templates/${t.body.id}`), 404, 'resource_missing', 'id');
      expectError(await update(t.body.id, { name: 'x' }), 404, 'resource_missing', 'id');
      expectError(await app.request('DELETE', `/v1/templates/${t.body.id}`), 404, 'resource_missing', 'id');
      expect(await app.services.db.selectFrom('templates').select('id').where('id', '=', t.body.id).executeTakeFirst()).toBeUndefined();
    });

    it('an Idempotency-Key replays the creation; another body with it is 422 idempotency_key_reused', async () => {
      const a = await create({ name: 'Idem' }, { headers: { 'Idempotency-Key': 'tpl-create-1' } });
      const b = await create({ name: 'Idem' }, { headers: { 'Idempotency-Key': 'tpl-create-1' } });
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(b.body).toEqual(a.body);
      const rows = await app.services.db.selectFrom('templates').select('id').where('name', '=', 'Idem').execute();
      expect(rows).toHaveLength(1);
      expectError(await create({ name: 'Otra' }, { headers: { 'Idempotency-Key': 'tpl-create-1' } }), 422, 'idempotency_key_reused', 'Idempotency-Key');
    });

    it('lists newest first with limit and starting_after; 422 for a limit out of range', async () => {
      const other = await app.newAccount({ rateLimitPerSecond: 1000 });
      const ids: string[] = [];
      for (const name of ['uno', 'dos', 'tres']) ids.push((await create({ name }, { key: other.keys.test })).body.id);
      const first = await app.request('GET', '/v1/templates?limit=2', { key: other.keys.test });
      expect(first.body).toMatchObject({ object: 'list', url: '/v1/templates', has_more: true });
      expect(first.body.data.map((t: { name: string }) => t.name)).toEqual(['tres', 'dos']);
      const next = await app.request('GET', `/v1/templates?limit=2&starting_after=${ids[1]}`, { key: other.keys.test });
      expect(next.body).toMatchObject({ has_more: false });
      expect(next.body.data.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
      const all = await app.request('GET', '/v1/templates', { key: other.keys.test });
      expect(all.body.data).toHaveLength(3);
      expect(all.body.has_more).toBe(false);
      expectError(await app.request('GET', '/v1/templates?limit=0', { key: other.keys.test }), 422, 'invalid_parameter', 'limit');
      expectError(await app.request('GET', '/v1/templates?limit=101', { key: other.keys.test }), 422, 'invalid_parameter', 'limit');
    });
  });

  describe('validation', () => {
    it('refuses every invalid create body with its param, and creates nothing', async () => {
      const before = (await app.services.db.selectFrom('templates').select('id').execute()).length;
      const metadata21 = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
      const cases: Array<[unknown, string]> = [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: 'x'.repeat(101) }, 'name'],
        [{ name: 'a', bogus: 1 }, 'bogus'],
        [{ name: 'a', description: 'x'.repeat(501) }, 'description'],
        [{ name: 'a', expect: 'nope' }, 'expect'],
        [{ name: 'a', expect: ['es_dni', 'nope'] }, 'expect.1'],
        [{ name: 'a', checks: { bogus: true } }, 'checks.bogus'],
        [{ name: 'a', checks: { min_age_years: 'x' } }, 'checks.min_age_years'],
        [{ name: 'a', storage: 'forever' }, 'storage'],
        [{ name: 'a', ttl_hours: 0 }, 'ttl_hours'],
        [{ name: 'a', ttl_hours: 721 }, 'ttl_hours'],
        [{ name: 'a', language: 'de' }, 'language'],
        [{ name: 'a', processing: 'fast' }, 'processing'],
        [{ name: 'a', human_review: { on_invalid: 'yes' } }, 'human_review.on_invalid'],
        [{ name: 'a', human_review: { always: true } }, 'human_review.always'],
        [{ name: 'a', review_retention_hours_after_decision: -1 }, 'review_retention_hours_after_decision'],
        [{ name: 'a', review_retention_hours_after_decision: 721 }, 'review_retention_hours_after_decision'],
        [{ name: 'a', review_max_days: 0 }, 'review_max_days'],
        [{ name: 'a', review_max_days: 91 }, 'review_max_days'],
        [{ name: 'a', documents: [] }, 'documents'],
        [{ name: 'a', documents: Array.from({ length: 11 }, (_, i) => ({ key: `d${i}`, expect: 'es_dni' })) }, 'documents'],
        [{ name: 'a', documents: [{ key: 'a b', expect: 'es_dni' }] }, 'documents.0.key'],
        [{ name: 'a', documents: [{ key: 'x'.repeat(41), expect: 'es_dni' }] }, 'documents.0.key'],
        [{ name: 'a', documents: [{ key: 'a' }] }, 'documents.0.expect'],
        [{ name: 'a', documents: [{ key: 'a', expect: 'es_dni', extra: 1 }] }, 'documents.0.extra'],
        [{ name: 'a', documents: [{ key: 'a', expect: 'es_dni' }, { key: 'b', expect: 'es_tie' }, { key: 'a', expect: 'es_tie' }] }, 'documents.2.key'],
        [{ name: 'a', documents: [{ key: 'a', expect: 'nope' }] }, 'documents.0.expect'],
        [{ name: 'a', documents: [{ key: 'a', expect: 'es_dni' }, { key: 'b', expect: ['es_dni', 'nope'] }] }, 'documents.1.expect.1'],
        [{ name: 'a', documents: [{ key: 'a', expect: 'es_dni', label: 'x'.repeat(121) }] }, 'documents.0.label'],
        [{ name: 'a', metadata: metadata21 }, 'metadata'],
        [{ name: 'a', metadata: { k: 'x'.repeat(501) } }, 'metadata.k'],
      ];
      for (const [body, param] of cases) expectError(await create(body), 422, 'invalid_parameter', param);
      expect((await app.services.db.selectFrom('templates').select('id').execute()).length).toBe(before);
    });

    it('secret keys only: publishable keys get 403 on every route', async () => {
      const t = await create({ name: 'pk' });
      const pk = app.account.keys.test_publishable;
      expectError(await create({ name: 'x' }, { key: pk }), 403, 'publishable_key_not_allowed');
      expectError(await app.request('GET', '/v1/templates', { key: pk }), 403, 'publishable_key_not_allowed');
      expectError(await app.request('GET', `/v1/templates/${t.body.id}`, { key: pk }), 403, 'publishable_key_not_allowed');
      expectError(await app.request('POST', `/v1/templates/${t.body.id}`, { key: pk, json: { name: 'y' } }), 403, 'publishable_key_not_allowed');
      expectError(await app.request('DELETE', `/v1/templates/${t.body.id}`, { key: pk }), 403, 'publishable_key_not_allowed');
    });

    it('tenancy: another account and the other mode get 404 on every route and 422 template_not_found on use', async () => {
      const t = await create({ name: 'Mía', expect: 'es_dni' });
      const other = await app.newAccount({ rateLimitPerSecond: 1000 });
      for (const key of [other.keys.test, app.account.keys.live]) {
        expectError(await app.request('GET', `/v1/templates/${t.body.id}`, { key }), 404, 'resource_missing', 'id');
        expectError(await app.request('POST', `/v1/templates/${t.body.id}`, { key, json: { name: 'robada' } }), 404, 'resource_missing', 'id');
        expectError(await app.request('DELETE', `/v1/templates/${t.body.id}`, { key }), 404, 'resource_missing', 'id');
        const list = await app.request('GET', '/v1/templates?limit=100', { key });
        expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(t.body.id);
        expectError(await analyze('dni_valid.jpg', { template: t.body.id }, key), 422, 'template_not_found', 'options.template');
      }
      // Untouched by the attempts.
      expect((await app.request('GET', `/v1/templates/${t.body.id}`)).body.name).toBe('Mía');
      // A malformed id is no different.
      expectError(await app.request('GET', '/v1/templates/tpl_nope'), 404, 'resource_missing', 'id');
      expectError(await analyze('dni_valid.jpg', { template: 'tpl_nope' }), 422, 'template_not_found', 'options.template');
    });
  });

  describe('update', () => {
    it('changes only the fields sent; null resets a field to its default; human_review per flag', async () => {
      const t = (await create(FULL)).body;
      await new Promise((r) => setTimeout(r, 5));
      const res = await update(t.id, { name: 'Renombrada', ttl_hours: null, expect: null, human_review: { auto_approve_valid: false } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...t,
        name: 'Renombrada',
        ttl_hours: null,
        expect: null,
        human_review: { on_invalid: true, auto_approve_valid: false },
        updated_at: res.body.updated_at,
      });
      expect(res.body.updated_at > t.updated_at).toBe(true);
      expect(res.body.created_at).toBe(t.created_at);

      const reset = await update(t.id, {
        description: null,
        storage: null,
        language: null,
        processing: null,
        precise_bboxes: null,
        review_retention_hours_after_decision: null,
        review_max_days: null,
        documents: null,
        checks: {},
        extract: true,
      });
      expect(reset.body).toMatchObject({
        description: null,
        storage: null,
        language: null,
        processing: null,
        precise_bboxes: null,
        review_retention_hours_after_decision: null,
        review_max_days: null,
        documents: null,
        checks: {},
        extract: true,
        name: 'Renombrada',
      });
      expect((await app.request('GET', `/v1/templates/${t.id}`)).body).toEqual(reset.body);
    });

    it('checks, expect and documents are replaced whole; slugs resolved; an empty body changes nothing', async () => {
      const t = (await create({ name: 'r', checks: { not_expired: true, min_age_years: 18 } })).body;
      const res = await update(t.id, { checks: { max_age_days: 30 }, expect: 'tie', documents: [{ key: 'doc', expect: ['dni'] }] });
      expect(res.body.checks).toEqual({ max_age_days: 30 });
      expect(res.body.expect).toEqual(['es_tie']);
      expect(res.body.documents).toEqual([{ key: 'doc', label: null, expect: ['es_dni'], checks: {} }]);
      const same = await update(t.id, {});
      expect(same.status).toBe(200);
      expect(same.body).toEqual(res.body);
    });

    it('metadata merges key by key; an empty value removes a key; more than 20 keys in all is 422', async () => {
      const t = (await create({ name: 'm', metadata: { a: '1', b: '2' } })).body;
      const res = await update(t.id, { metadata: { b: '', c: '3' } });
      expect(res.body.metadata).toEqual({ a: '1', c: '3' });
      const twenty = Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`k${i}`, 'v']));
      expectError(await update(t.id, { metadata: twenty }), 422, 'invalid_parameter', 'metadata');
      expect((await app.request('GET', `/v1/templates/${t.id}`)).body.metadata).toEqual({ a: '1', c: '3' });
    });

    it('concurrent updates of different fields and metadata keys all land (row lock)', async () => {
      const t = (await create({ name: 'c' })).body;
      await Promise.all([
        update(t.id, { metadata: { a: '1' } }),
        update(t.id, { metadata: { b: '2' } }),
        update(t.id, { human_review: { on_invalid: true } }),
        update(t.id, { human_review: { auto_approve_valid: false } }),
        update(t.id, { ttl_hours: 5 }),
      ]);
      const got = (await app.request('GET', `/v1/templates/${t.id}`)).body;
      expect(got).toMatchObject({ metadata: { a: '1', b: '2' }, human_review: { on_invalid: true, auto_approve_valid: false }, ttl_hours: 5 });
    });

    it('refuses invalid update bodies with their param and changes nothing', async () => {
      const t = (await create({ name: 'v' })).body;
      const cases: Array<[unknown, string]> = [
        [{ name: null }, 'name'],
        [{ name: '' }, 'name'],
        [{ checks: null }, 'checks'],
        [{ metadata: null }, 'metadata'],
        [{ human_review: null }, 'human_review'],
        [{ bogus: true }, 'bogus'],
        [{ expect: ['es_dni', 'xx'] }, 'expect.1'],
        [{ documents: [{ key: 'a', expect: 'es_dni' }, { key: 'a', expect: 'es_dni' }] }, 'documents.1.key'],
        [{ review_max_days: 91 }, 'review_max_days'],
      ];
      for (const [body, param] of cases) expectError(await update(t.id, body), 422, 'invalid_parameter', param);
      expect((await app.request('GET', `/v1/templates/${t.id}`)).body).toEqual(t);
    });
  });

  describe('use in analyze, classify and batches', () => {
    it("applies the template's expect and checks; the request's check wins per key", async () => {
      const t = (await create({ name: 'KYC', expect: ['dni', 'tie'], checks: { not_expired: true, min_age_years: 18 } })).body;
      // The template alone: an expired DNI fails not_expired, the age check runs.
      const expired = (await analyze('dni_expired.jpg', { template: t.id })).body;
      expect(expired.verdict.expected).toEqual(['es_dni', 'es_tie']);
      expect(reason(expired, 'not_expired')?.severity).toBe('error');
      expect(reason(expired, 'min_age_years')?.severity).toBe('info');
      expect(expired.verdict.status).toBe('invalid');
      // The request turns not_expired off; min_age_years still comes from the template.
      const merged = (await analyze('dni_expired.jpg', { template: t.id, checks: { not_expired: false } })).body;
      expect(reason(merged, 'not_expired')).toBeUndefined();
      expect(reason(merged, 'min_age_years')?.severity).toBe('info');
      expect(merged.verdict.status).toBe('valid');
      // The template's age check catches an underage holder.
      const minor = (await analyze('dni_underage.jpg', { template: t.id })).body;
      expect(reason(minor, 'min_age_years')?.severity).toBe('error');
      // The request's value for the same key wins.
      const lowered = (await analyze('dni_underage.jpg', { template: t.id, checks: { min_age_years: 16 } })).body;
      expect(reason(lowered, 'min_age_years')?.severity).toBe('info');
      // The request's expect replaces the template's.
      const passport = (await analyze('passport.jpg', { template: t.id, expect: 'passport' })).body;
      expect(passport.verdict.expected).toEqual(['passport']);
      expect(passport.verdict.match).toBe(true);
    });

    it('language, processing, extract, storage, ttl_hours and metadata from the template unless the request sends them', async () => {
      const t = (
        await create({
          name: 'Opciones',
          expect: 'es_dni',
          language: 'en',
          processing: 'standard',
          precise_bboxes: true,
          extract: false,
          storage: 'temporary',
          ttl_hours: 2,
          metadata: { producto: 'cuenta', canal: 'web' },
        })
      ).body;
      const a = (await analyze('dni_valid.jpg', { template: t.id, metadata: { canal: 'app', cliente: 'c1' } })).body;
      expect(a.verdict.reasons[0].message).toContain('expected type');
      expect(a.processing.profile).toBe('standard');
      expect(a.processing.mode).toBe('ocr+llm'); // the template's precise_bboxes
      expect(a.fields).toEqual({});
      expect(a.storage.mode).toBe('temporary');
      const kept = Date.parse(a.storage.expires_at) - Date.parse(a.completed_at);
      expect(Math.abs(kept - 2 * 3600_000)).toBeLessThan(60_000);
      expect(a.metadata).toEqual({ producto: 'cuenta', canal: 'app', cliente: 'c1' });

      const b = (await analyze('dni_valid.jpg', { template: t.id, language: 'fr', processing: 'sovereign', precise_bboxes: false, extract: true, storage: 'none' })).body;
      expect(b.processing.mode).toBe('vlm');
      expect(b.verdict.reasons[0].message).not.toContain('expected type');
      expect(b.processing.profile).toBe('sovereign');
      expect(Object.keys(b.fields).length).toBeGreaterThan(0);
      expect(b.storage.mode).toBe('none');
      expect(b.metadata).toEqual({ producto: 'cuenta', canal: 'web' });
    });

    it("a template's processing the mode's reader does not serve: 422 processing_unavailable at the template, unless the request names one", async () => {
      const t = (await create({ name: 'Estándar', expect: 'es_dni', processing: 'standard' })).body;
      const reader = app.services.providers.test;
      // The same reader, serving only the sovereign profile.
      app.services.providers.test = Object.assign(Object.create(reader), { profiles: ['sovereign'] });
      try {
        const res = await analyze('dni_valid.jpg', { template: t.id });
        expectError(res, 422, 'processing_unavailable', 'options.template');
        expect(res.body.error.message).toContain('plantilla');
        const own = await analyze('dni_valid.jpg', { template: t.id, processing: 'sovereign' });
        expect(own.status).toBe(200);
        expect(own.body.processing.profile).toBe('sovereign');
      } finally {
        app.services.providers.test = reader;
      }
    });

    it('stores the template id and its human-review policy with the analysis options', async () => {
      const t = (await create({ name: 'Revisión', expect: 'es_dni', human_review: { on_invalid: true, auto_approve_valid: false }, review_retention_hours_after_decision: 0, review_max_days: 7 })).body;
      const a = (await analyze('dni_valid.jpg', { template: t.id })).body;
      const row = await app.services.db.selectFrom('analyses').select('options').where('id', '=', a.id).executeTakeFirstOrThrow();
      expect(row.options).toMatchObject({ template: t.id, review: { on_invalid: true, auto_approve_valid: false, retention_hours_after_decision: 0, max_days: 7 } });
      const plain = (await analyze('dni_valid.jpg', { expect: 'es_dni' })).body;
      const plainRow = await app.services.db.selectFrom('analyses').select('options').where('id', '=', plain.id).executeTakeFirstOrThrow();
      expect(plainRow.options).toMatchObject({ template: null, review: { on_invalid: false, auto_approve_valid: true, retention_hours_after_decision: null, max_days: null } });
    });

    it("storage 'review' from a template is accepted and recorded as the analysis's storage mode", async () => {
      const t = (await create({ name: 'R', expect: 'es_dni', storage: 'review' })).body;
      const a = await analyze('blurry.jpg', { template: t.id });
      expect(a.status).toBe(200);
      expect(a.body.storage.mode).toBe('review');
    });

    it('a root-level template in a JSON body: param `template`; its metadata counts towards the 20 keys', async () => {
      const b64 = fixtures.jpeg().toString('base64');
      expectError(await app.request('POST', '/v1/analyze', { json: { file_base64: b64, filename: 'dni_valid.jpg', template: 'tpl_01JC0000000000000000000000' } }), 422, 'template_not_found', 'template');
      const t = (await create({ name: 'Raíz', expect: 'es_dni', metadata: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'])) })).body;
      const ok = await app.request('POST', '/v1/analyze', { json: { file_base64: b64, filename: 'dni_valid.jpg', template: t.id, metadata: { k0: 'w' } } });
      expect(ok.status).toBe(200);
      expect(ok.body.verdict.expected).toEqual(['es_dni']);
      expect(ok.body.metadata.k0).toBe('w');
      expectError(await app.request('POST', '/v1/analyze', { json: { file_base64: b64, filename: 'dni_valid.jpg', template: t.id, metadata: { extra: 'x' } } }), 422, 'invalid_parameter', 'metadata');
    });

    it("classify: the template's expect gives the verdict; its storage does not apply (a classification keeps nothing)", async () => {
      const t = (await create({ name: 'Clasificar', expect: 'es_dni', storage: 'temporary', language: 'en' })).body;
      const c = await classify('dni_valid.jpg', { template: t.id });
      expect(c.status).toBe(200);
      expect(c.body.object).toBe('classification');
      expect(c.body.verdict).toMatchObject({ expected: ['es_dni'], match: true, status: 'valid' });
      expect(c.body.verdict.reasons[0].message).toContain('expected type');
      const other = await classify('passport.jpg', { template: t.id, expect: 'passport' });
      expect(other.body.verdict).toMatchObject({ expected: ['passport'], match: true });
      // The request's own storage is still refused.
      expectError(await classify('dni_valid.jpg', { template: t.id, storage: 'temporary' }), 422, 'invalid_parameter', 'options.storage');
      expectError(await classify('dni_valid.jpg', { template: 'tpl_01JC0000000000000000000000' }), 422, 'template_not_found', 'options.template');
    });

    it('batches: the common template and an item template, request options over both; unknown ids refused with their param', async () => {
      const adults = (await create({ name: 'Adultos', expect: 'es_dni', checks: { min_age_years: 18 }, metadata: { origen: 'plantilla' } })).body;
      const passports = (await create({ name: 'Pasaportes', expect: 'passport' })).body;
      const b64 = fixtures.jpeg().toString('base64');
      const res = await app.request('POST', '/v1/batches', {
        json: {
          options: { template: adults.id, metadata: { lote: 'L1' } },
          items: [
            { file_base64: b64, filename: 'dni_underage.jpg' },
            { file_base64: b64, filename: 'dni_underage.jpg', options: { checks: { min_age_years: 16 } } },
            { file_base64: b64, filename: 'passport.jpg', options: { template: passports.id } },
          ],
        },
      });
      expect(res.status).toBe(202);
      expect(res.body.metadata).toEqual({ origen: 'plantilla', lote: 'L1' });
      await drain();
      const [a, b, c] = await Promise.all(res.body.analyses.map(async (id: string) => (await app.request('GET', `/v1/analyses/${id}`)).body));
      expect(a.verdict.expected).toEqual(['es_dni']);
      expect(reason(a, 'min_age_years')?.severity).toBe('error');
      expect(reason(b, 'min_age_years')?.severity).toBe('info');
      expect(c.verdict).toMatchObject({ expected: ['passport'], match: true });
      expect(reason(c, 'min_age_years')).toBeUndefined();
      expect(c.metadata).toEqual({ lote: 'L1' });

      const unknown = 'tpl_01JC0000000000000000000000';
      expectError(await app.request('POST', '/v1/batches', { json: { options: { template: unknown }, items: [{ file_base64: b64, filename: 'a.jpg' }] } }), 422, 'template_not_found', 'options.template');
      expectError(
        await app.request('POST', '/v1/batches', { json: { items: [{ file_base64: b64, filename: 'a.jpg' }, { file_base64: b64, filename: 'b.jpg', options: { template: unknown } }] } }),
        422,
        'template_not_found',
        'items.1.options.template',
      );
      const fd = new FormData();
      fd.append('files[]', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'dni_valid.jpg');
      fd.append('options', JSON.stringify({ template: unknown }));
      expectError(await app.request('POST', '/v1/batches', { body: fd }), 422, 'template_not_found', 'options.template');
      const fdOk = new FormData();
      fdOk.append('files[]', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'dni_valid.jpg');
      fdOk.append('options', JSON.stringify({ template: adults.id }));
      const multi = await app.request('POST', '/v1/batches', { body: fdOk });
      expect(multi.status).toBe(202);
      await drain();
      const m = (await app.request('GET', `/v1/analyses/${multi.body.analyses[0]}`)).body;
      expect(m.verdict).toMatchObject({ expected: ['es_dni'], status: 'valid' });
    });

    it('deleting a template leaves finished and queued work as it was; later use is 422 template_not_found', async () => {
      const t = (await create({ name: 'Efímera', expect: 'es_dni', checks: { min_age_years: 18 } })).body;
      const done = (await analyze('dni_underage.jpg', { template: t.id })).body;
      const queued = await analyze('dni_underage.jpg', { template: t.id, async: true });
      expect(queued.status).toBe(202);
      expect((await app.request('DELETE', `/v1/templates/${t.id}`)).status).toBe(200);

      expectError(await analyze('dni_valid.jpg', { template: t.id }), 422, 'template_not_found', 'options.template');
      expectError(await classify('dni_valid.jpg', { template: t.id }), 422, 'template_not_found', 'options.template');
      const after = (await app.request('GET', `/v1/analyses/${done.id}`)).body;
      expect(after.verdict).toEqual(done.verdict);
      // The queued analysis holds the options resolved at creation: the deleted template's checks still apply.
      await drain();
      const late = (await app.request('GET', `/v1/analyses/${queued.body.id}`)).body;
      expect(late.status).toBe('completed');
      expect(late.verdict.expected).toEqual(['es_dni']);
      expect(reason(late, 'min_age_years')?.severity).toBe('error');
    });
  });
});
