import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { standInLiveProvider } from '../support/live-provider.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

/**
 * Dossiers through the real app: the five routes and their errors, the global verdict and its transitions, every
 * cross-document rule (test mode's holder simulation gives the same person or another), every Form I-9
 * combination, `dossier.verdict_changed` once per change, and tenancy (other account, other mode: 404, never listed).
 */
const HOLDER = { full_name: 'María José García López', birth_date: '1988-07-21', document_number: '12345678Z' };
const OTHER = { full_name: 'Pedro Sánchez Ruiz', birth_date: '1979-02-03', document_number: '87654321X' };

describe.each(DATABASES)('dossiers on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  const jpeg = () => fixtures.jpeg();
  const create = (json: unknown, key?: string) => app.request('POST', '/v1/dossiers', { json, ...(key ? { key } : {}) });
  const addFile = (id: string, name: string, o: { key?: string; options?: Record<string, unknown>; apiKey?: string } = {}) => {
    const fields: Array<[string, string]> = [];
    if (o.key !== undefined) fields.push(['key', o.key]);
    if (o.options !== undefined) fields.push(['options', JSON.stringify(o.options)]);
    return app.request('POST', `/v1/dossiers/${id}/documents`, { body: form({ bytes: jpeg(), name, type: 'image/jpeg' }, fields), ...(o.apiKey ? { key: o.apiKey } : {}) });
  };
  const addAnalysis = (id: string, analysis_id: string, key?: string, apiKey?: string) =>
    app.request('POST', `/v1/dossiers/${id}/documents`, { json: { analysis_id, ...(key ? { key } : {}) }, ...(apiKey ? { key: apiKey } : {}) });
  const analyze = async (name: string, options: Record<string, unknown> = {}, apiKey?: string) => {
    const res = await app.request('POST', '/v1/analyze', { body: form({ bytes: jpeg(), name, type: 'image/jpeg' }, [['options', JSON.stringify(options)]]), ...(apiKey ? { key: apiKey } : {}) });
    expect(res.status).toBe(200);
    return res.body;
  };
  const get = (id: string, apiKey?: string) => app.request('GET', `/v1/dossiers/${id}`, apiKey ? { key: apiKey } : {});
  const changes = async (id: string) =>
    (await app.services.db.selectFrom('events').selectAll().where('type', '=', 'dossier.verdict_changed').orderBy('id').execute())
      .map((e) => e.payload as any)
      .filter((p) => p.data.id === id);
  const drain = async () => {
    while (await runOneAnalysisJob(app.services));
  };
  const codes = (d: any) => d.verdict.reasons.map((r: any) => `${r.code}:${r.severity}`);

  describe('create, list, retrieve, delete', () => {
    it('creates an empty dossier: no requirements, incomplete until it holds something', async () => {
      const res = await create({});
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'dossier', livemode: false, reference: null, template: null, requirements: [], language: 'es',
        verification_link_id: null, documents: [], checks: [], metadata: {},
        verdict: { status: 'incomplete', reasons: [{ code: 'no_documents', severity: 'warning' }] },
      });
      expect(res.body.id).toMatch(/^dos_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(await changes(res.body.id)).toEqual([]);
    });

    it('takes requirements from `documents` (types resolved, one type as a list) or from the `expect` shorthand', async () => {
      const a = await create({
        reference: 'EXP-1', language: 'en', metadata: { case: '1' },
        documents: [{ key: 'id', label: 'ID card', expect: 'dni' }, { key: 'payslip', expect: ['nomina'], checks: { max_age_days: 60 } }],
      });
      expect(a.status).toBe(201);
      expect(a.body.requirements).toEqual([
        { key: 'id', label: 'ID card', expect: ['es_dni'], checks: {} },
        { key: 'payslip', label: null, expect: ['es_payslip'], checks: { max_age_days: 60 } },
      ]);
      expect(a.body.verdict.status).toBe('incomplete');
      expect(a.body.verdict.reasons.map((r: any) => r.message)).toEqual(['The document "ID card" is missing.', 'The document "Spanish payslip (nómina)" is missing.']);
      const b = await create({ expect: ['dni', 'passport'] });
      expect(b.body.requirements.map((r: any) => [r.key, r.expect])).toEqual([['es_dni', ['es_dni']], ['passport', ['passport']]]);
    });

    it('refuses bad bodies with their codes', async () => {
      const cases: Array<[unknown, number, string, string]> = [
        [{ documents: [{ key: 'a', expect: 'dni' }], expect: 'dni' }, 422, 'invalid_parameter', 'expect'],
        [{ documents: [{ key: 'a', expect: 'dni' }, { key: 'a', expect: 'passport' }] }, 422, 'invalid_parameter', 'documents.1.key'],
        [{ documents: [{ key: 'a', expect: ['dni', 'xx_unicorn'] }] }, 422, 'invalid_parameter', 'documents.0.expect.1'],
        [{ expect: 'xx_unicorn' }, 422, 'invalid_parameter', 'expect'],
        [{ colour: 'red' }, 422, 'invalid_parameter', 'colour'],
        [{ documents: [] }, 422, 'invalid_parameter', 'documents'],
        [{ template: 'tpl_01JC0000000000000000000000' }, 422, 'template_not_found', 'template'],
      ];
      for (const [json, status, code, param] of cases) {
        const res = await create(json);
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        expect(res.body.error).toMatchObject({ code, param });
      }
      const wrongType = await app.request('POST', '/v1/dossiers', { body: 'x', headers: { 'Content-Type': 'text/plain' } });
      expect(wrongType.status).toBe(415);
    });

    it('is for secret keys only', async () => {
      expect((await app.request('GET', '/v1/dossiers', { key: null })).status).toBe(401);
      const pk = await app.request('POST', '/v1/dossiers', { json: {}, key: app.account.keys.test_publishable });
      expect(pk.status).toBe(403);
      expect(pk.body.error.code).toBe('publishable_key_not_allowed');
    });

    it('replays a create with the same Idempotency-Key', async () => {
      const first = await app.request('POST', '/v1/dossiers', { json: { reference: 'IDEM' }, headers: { 'Idempotency-Key': `dos-${kind}` } });
      const again = await app.request('POST', '/v1/dossiers', { json: { reference: 'IDEM' }, headers: { 'Idempotency-Key': `dos-${kind}` } });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(first.body.id);
      const other = await app.request('POST', '/v1/dossiers', { json: { reference: 'IDEM-2' }, headers: { 'Idempotency-Key': `dos-${kind}` } });
      expect(other.status).toBe(422);
      expect(other.body.error.code).toBe('idempotency_key_reused');
    });

    it('lists newest first with cursor pagination and an exact reference filter; never another account or mode', async () => {
      const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
      const ids: string[] = [];
      for (const ref of ['L-1', 'L-2', 'L-3']) ids.push((await create({ reference: ref }, acc.keys.test)).body.id);
      await create({ reference: 'L-live' }, acc.keys.live);
      await create({ reference: 'L-1' }); // another account
      const page1 = await app.request('GET', '/v1/dossiers?limit=2', { key: acc.keys.test });
      expect(page1.body).toMatchObject({ object: 'list', url: '/v1/dossiers', has_more: true });
      expect(page1.body.data.map((d: any) => d.id)).toEqual([ids[2], ids[1]]);
      const page2 = await app.request('GET', `/v1/dossiers?limit=2&starting_after=${ids[1]}`, { key: acc.keys.test });
      expect(page2.body.data.map((d: any) => d.id)).toEqual([ids[0]]);
      expect(page2.body.has_more).toBe(false);
      const byRef = await app.request('GET', '/v1/dossiers?reference=L-1', { key: acc.keys.test });
      expect(byRef.body.data.map((d: any) => d.id)).toEqual([ids[0]]);
      const live = await app.request('GET', '/v1/dossiers', { key: acc.keys.live });
      expect(live.body.data.map((d: any) => d.reference)).toEqual(['L-live']);
      expect(live.body.data[0].livemode).toBe(true);
      const bad = await app.request('GET', '/v1/dossiers?limit=0', { key: acc.keys.test });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    });

    it('answers 404 for another account, the other mode and unknown ids on every route', async () => {
      const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
      const mine = (await create({ reference: 'T' })).body.id;
      const analysis = await analyze('dni_valid.jpg', { expect: 'es_dni' });
      for (const key of [acc.keys.test, app.account.keys.live]) {
        expect((await get(mine, key)).status).toBe(404);
        expect((await addAnalysis(mine, analysis.id, undefined, key)).status).toBe(404);
        expect((await addFile(mine, 'dni_valid.jpg', { apiKey: key })).status).toBe(404);
        expect((await app.request('DELETE', `/v1/dossiers/${mine}`, { key })).status).toBe(404);
      }
      const missing = await get('dos_01JC0000000000000000000000');
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
      // Another account's dossier cannot take my analysis either, nor can mine take theirs.
      const theirs = (await create({}, acc.keys.test)).body.id;
      const stolen = await addAnalysis(theirs, analysis.id, undefined, acc.keys.test);
      expect(stolen.status).toBe(404);
      expect(stolen.body.error).toMatchObject({ code: 'resource_missing', param: 'analysis_id' });
      // The other mode's analysis: a live dossier of my own account does not see a test analysis.
      const liveDossier = (await create({}, app.account.keys.live)).body.id;
      expect((await addAnalysis(liveDossier, analysis.id, undefined, app.account.keys.live)).status).toBe(404);
      expect((await get(mine)).status).toBe(200);
    });

    it('deletes a dossier and keeps its analyses', async () => {
      const d = (await create({ expect: 'dni' })).body;
      const added = await addFile(d.id, 'dni_valid.jpg');
      expect(added.status).toBe(200);
      const del = await app.request('DELETE', `/v1/dossiers/${d.id}`);
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ id: d.id, object: 'dossier', deleted: true });
      expect((await get(d.id)).status).toBe(404);
      expect((await app.request('DELETE', `/v1/dossiers/${d.id}`)).status).toBe(404);
      expect((await app.request('GET', `/v1/analyses/${added.body.documents[0].analysis_id}`)).status).toBe(200);
    });
  });

  describe('adding documents', () => {
    it('by file (multipart and JSON): the requirement fills, the verdict moves and each change is sent once', async () => {
      const d = (await create({ documents: [{ key: 'id', expect: 'es_dni', checks: { holder: HOLDER } }, { key: 'payslip', expect: 'es_payslip' }] })).body;
      const one = await addFile(d.id, 'dni_valid.jpg', { key: 'id' });
      expect(one.status).toBe(200);
      expect(one.body.documents).toEqual([
        { key: 'id', analysis_id: expect.stringMatching(/^an_/), type: 'es_dni', status: 'completed', verdict_status: 'valid', added_at: expect.any(String) },
      ]);
      expect(one.body.verdict.status).toBe('incomplete');
      expect(codes(one.body)).toEqual(['document_missing:warning', 'document_valid:info']);
      // The requirement's checks applied to the new analysis (holder), and the dossier's language.
      const a = (await app.request('GET', `/v1/analyses/${one.body.documents[0].analysis_id}`)).body;
      expect(a.verdict.reasons.map((r: any) => r.code)).toContain('holder');
      expect(a.verdict.expected).toEqual(['es_dni']);

      const b64 = fixtures.jpeg().toString('base64');
      const two = await app.request('POST', `/v1/dossiers/${d.id}/documents`, { json: { file_base64: b64, filename: 'es_payslip.pdf', options: { checks: { holder: HOLDER } } } });
      expect(two.status).toBe(200);
      // No key: the empty requirement that accepts the detected type.
      expect(two.body.documents.map((x: any) => [x.key, x.type])).toEqual([['id', 'es_dni'], ['payslip', 'es_payslip']]);
      expect(two.body.verdict.status).toBe('complete_valid');
      expect(two.body.checks.map((c: any) => [c.code, c.passed])).toEqual([['same_holder', true], ['consistent_dates', true]]);

      // Reading it again changes nothing and sends nothing.
      expect((await get(d.id)).body.verdict).toEqual(two.body.verdict);
      const sent = await changes(d.id);
      expect(sent.map((e) => e.data.verdict.status)).toEqual(['incomplete', 'complete_valid']);
      expect(sent[1].data).toEqual((await get(d.id)).body);
    });

    it('invalid when a document is invalid; review when one needs review', async () => {
      const inv = (await create({ expect: 'dni' })).body;
      const r1 = await addFile(inv.id, 'dni_expired.jpg');
      expect(r1.body.verdict.status).toBe('invalid');
      expect(r1.body.documents[0]).toMatchObject({ key: 'es_dni', verdict_status: 'invalid' });
      expect(codes(r1.body)).toContain('document_invalid:error');
      const rev = (await create({ expect: 'dni' })).body;
      const r2 = await addFile(rev.id, 'blurry.jpg');
      expect(r2.body.verdict.status).toBe('review');
      expect(codes(r2.body)).toEqual(['document_review:warning']);
      // A wrong type in a slot is invalid, and replacing the document under the same key fixes it.
      const wrong = await addFile(rev.id, 'passport.jpg', { key: 'es_dni' });
      expect(wrong.body.verdict.status).toBe('invalid');
      expect(codes(wrong.body)).toContain('type_mismatch:error');
      const fixed = await addFile(rev.id, 'dni_valid.jpg', { key: 'es_dni' });
      expect(fixed.body.documents).toHaveLength(1);
      expect(fixed.body.verdict.status).toBe('complete_valid');
      expect((await changes(rev.id)).map((e) => e.data.verdict.status)).toEqual(['review', 'invalid', 'complete_valid']);
    });

    it('a running analysis answers 202, holds its slot under its id, and the verdict follows when it finishes', async () => {
      const d = (await create({ expect: 'dni' })).body;
      const res = await addFile(d.id, 'dni_valid.jpg', { options: { async: true } });
      expect(res.status).toBe(202);
      const id = res.body.documents[0].analysis_id;
      expect(res.body.documents[0]).toMatchObject({ key: id, status: 'queued', type: null, verdict_status: null });
      expect(res.body.verdict.status).toBe('incomplete');
      expect(codes(res.body)).toEqual(['document_missing:warning', 'document_processing:info']);
      await drain();
      const after = (await get(d.id)).body;
      expect(after.documents[0]).toMatchObject({ key: 'es_dni', analysis_id: id, status: 'completed', verdict_status: 'valid' });
      expect(after.verdict.status).toBe('complete_valid');
      // The change was sent by the worker that finished the analysis, not by this read.
      expect((await changes(d.id)).map((e) => e.data.verdict.status)).toEqual(['incomplete', 'complete_valid']);
    });

    it('two members finishing at once: every change sent once, the last one is the verdict', async () => {
      const d = (await create({ expect: ['dni', 'passport'] })).body;
      expect((await addFile(d.id, 'dni_valid.jpg', { options: { async: true, checks: { holder: HOLDER } } })).status).toBe(202);
      expect((await addFile(d.id, 'passport.jpg', { options: { async: true, checks: { holder: HOLDER } } })).status).toBe(202);
      // Two workers, each finishing one of them.
      await Promise.all([runOneAnalysisJob(app.services), runOneAnalysisJob(app.services)]);
      await drain();
      const final = (await get(d.id)).body;
      expect(final.documents.map((x: any) => x.key).sort()).toEqual(['es_dni', 'passport']);
      expect(final.verdict.status).toBe('complete_valid');
      const sent = await changes(d.id);
      // No event repeats the verdict before it, and the last one is the verdict as it stands.
      for (let i = 1; i < sent.length; i++) expect(sent[i].data.verdict).not.toEqual(sent[i - 1].data.verdict);
      expect(sent[sent.length - 1].data.verdict).toEqual(final.verdict);
    });

    it('a failed analysis leaves the dossier incomplete', async () => {
      const d = (await create({ expect: 'dni' })).body;
      const res = await addFile(d.id, 'dni_failed.jpg');
      expect(res.status).toBe(200);
      expect(res.body.documents[0]).toMatchObject({ status: 'failed', verdict_status: null });
      expect(res.body.verdict.status).toBe('incomplete');
      expect(codes(res.body)).toContain('document_failed:warning');
    });

    it('by analysis_id: 200, default key by type (suffixed when taken), an existing key replaced', async () => {
      const d = (await create({})).body;
      const a1 = await analyze('dni_valid.jpg', { expect: 'es_dni' });
      const a2 = await analyze('dni_valid_2.jpg', { expect: 'es_dni' });
      const a3 = await analyze('passport.jpg', { expect: 'passport' });
      expect((await addAnalysis(d.id, a1.id)).body.documents.map((x: any) => x.key)).toEqual(['es_dni']);
      const two = await addAnalysis(d.id, a2.id);
      expect(two.status).toBe(200);
      expect(two.body.documents.map((x: any) => x.key)).toEqual(['es_dni', 'es_dni_2']);
      const replaced = await addAnalysis(d.id, a3.id, 'es_dni');
      expect(replaced.body.documents.map((x: any) => [x.key, x.analysis_id])).toEqual([['es_dni_2', a2.id], ['es_dni', a3.id]]);
      // Two people in one dossier: the holder check fails.
      expect(replaced.body.verdict.status).toBe('invalid');
      // An analysis without expect has no verdict: a human must look.
      const plain = await analyze('dni_valid.jpg');
      const d2 = (await create({})).body;
      const r = await addAnalysis(d2.id, plain.id, 'id');
      expect(r.body.documents[0].verdict_status).toBeNull();
      expect(r.body.verdict.status).toBe('review');
      expect(codes(r.body)).toEqual(['document_unverified:warning']);
    });

    it('answers every bad input with its documented code and param', async () => {
      const d = (await create({ expect: 'dni' })).body;
      const url = `/v1/dossiers/${d.id}/documents`;
      const cases: Array<[Promise<{ status: number; body: any }>, number, string, string | undefined]> = [
        [app.request('POST', url, { json: {} }), 400, 'missing_file', 'file'],
        [app.request('POST', url, { body: form(null, [['key', 'id']]) }), 400, 'missing_file', 'file'],
        [app.request('POST', url, { json: { analysis_id: 'an_01JC0000000000000000000000' } }), 404, 'resource_missing', 'analysis_id'],
        [app.request('POST', url, { json: { analysis_id: 'an_01JC0000000000000000000000', file_url: 'https://x.example/a.jpg' } }), 422, 'invalid_parameter', 'analysis_id'],
        [app.request('POST', url, { json: { analysis_id: 'an_01JC0000000000000000000000', options: {} } }), 422, 'invalid_parameter', 'options'],
        [app.request('POST', url, { json: { file_url: 'https://x.example/a.jpg', file_base64: 'AAAA' } }), 422, 'invalid_parameter', 'file_base64'],
        [app.request('POST', url, { json: { file_base64: 'AAAA', key: 'bad key!' } }), 422, 'invalid_parameter', 'key'],
        [app.request('POST', url, { json: { file_base64: '***', filename: 'dni.jpg' } }), 400, 'invalid_base64', 'file_base64'],
        [app.request('POST', url, { json: { file_url: 'http://example.com/dni.jpg' } }), 400, 'invalid_file_url', 'file_url'],
        [app.request('POST', url, { body: form({ bytes: jpeg(), name: 'dni.jpg' }, [['key', 'bad key!']]) }), 422, 'invalid_parameter', 'key'],
        [app.request('POST', url, { body: form({ bytes: jpeg(), name: 'dni.jpg' }, [['colour', 'red']]) }), 422, 'invalid_parameter', 'colour'],
        [app.request('POST', url, { body: form({ bytes: jpeg(), name: 'dni.jpg' }, [['options', '{not json']]) }), 400, 'invalid_options', 'options'],
        [app.request('POST', url, { body: form({ bytes: jpeg(), name: 'dni.jpg' }, [['options', JSON.stringify({ keep_results: false })]]) }), 422, 'invalid_parameter', 'options.keep_results'],
        [app.request('POST', url, { body: form({ bytes: jpeg(), name: 'dni.jpg' }, [['options', JSON.stringify({ expect: 'xx_unicorn' })]]) }), 422, 'invalid_parameter', 'options.expect'],
        [app.request('POST', url, { body: form({ bytes: jpeg(), name: 'dni.jpg' }, [['options', JSON.stringify({ template: 'tpl_01JC0000000000000000000000' })]]) }), 422, 'invalid_parameter', 'options.template'],
        // The request's own errors come before the lookup of the dossier.
        [app.request('POST', '/v1/dossiers/dos_01JC0000000000000000000000/documents', { body: form({ bytes: jpeg(), name: 'dni.jpg' }, [['options', JSON.stringify({ expect: 'es_dnii' })]]) }), 422, 'invalid_parameter', 'options.expect'],
        [app.request('POST', '/v1/dossiers/dos_01JC0000000000000000000000/documents', { body: form({ bytes: jpeg(), name: 'dni.jpg' }) }), 404, 'resource_missing', 'id'],
        [app.request('POST', url, { body: form({ bytes: new TextEncoder().encode('just text'), name: 'notes.jpg' }) }), 415, 'unsupported_file_type', 'file'],
        [app.request('POST', url, { body: form({ bytes: new Uint8Array(21 * 1024 * 1024), name: 'huge.jpg' }) }), 413, 'file_too_large', 'file'],
        [app.request('POST', url, { body: 'x', headers: { 'Content-Type': 'text/plain' } }), 415, 'unsupported_content_type', 'Content-Type'],
      ];
      for (const [p, status, code, param] of cases) {
        const res = await p;
        expect(res.status, `${code}: ${JSON.stringify(res.body)}`).toBe(status);
        expect(res.body.error.code).toBe(code);
        if (param !== undefined) expect(res.body.error.param).toBe(param);
      }
      // Nothing was added by any of them.
      expect((await get(d.id)).body.documents).toEqual([]);
    });

    it('replays an add with the same Idempotency-Key (one analysis, one document)', async () => {
      const d = (await create({ expect: 'dni' })).body;
      const b64 = fixtures.jpeg().toString('base64');
      const send = () => app.request('POST', `/v1/dossiers/${d.id}/documents`, { json: { file_base64: b64, filename: 'dni_valid.jpg' }, headers: { 'Idempotency-Key': `add-${d.id}` } });
      const first = await send();
      const again = await send();
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.documents[0].analysis_id).toBe(first.body.documents[0].analysis_id);
      expect((await get(d.id)).body.documents).toHaveLength(1);
    });

    it('reasons in the dossier language', async () => {
      for (const [language, text] of [['en', 'The document "es_dni" is valid.'], ['pt', 'O documento «es_dni» é válido.'], ['fr', 'Le document « es_dni » est valide.'], ['es', 'El documento «es_dni» es válido.']] as const) {
        const d = (await create({ expect: 'dni', language })).body;
        const res = await addFile(d.id, 'dni_valid.jpg');
        expect(res.body.verdict.reasons[0].message).toBe(text);
        // The new analysis speaks the dossier's language too.
        const a = (await app.request('GET', `/v1/analyses/${res.body.documents[0].analysis_id}`)).body;
        expect(a.verdict.reasons[0].code).toBe('type_match');
        if (language === 'en') expect(a.verdict.reasons[0].message).toMatch(/^The document is of the expected type/);
      }
    });
  });

  describe('cross-document checks', () => {
    it('same holder: name, birth date and personal number agree; another person fails each', async () => {
      const same = (await create({ documents: [{ key: 'id', expect: 'es_dni' }, { key: 'census', expect: 'es_census_certificate' }] })).body;
      await addFile(same.id, 'dni_valid.jpg', { key: 'id', options: { checks: { holder: HOLDER } } });
      const ok = await addFile(same.id, 'padron.pdf', { key: 'census', options: { checks: { holder: HOLDER } } });
      expect(ok.body.verdict.status).toBe('complete_valid');
      expect(ok.body.checks).toContainEqual({ code: 'same_holder', passed: true, message: 'Todos los documentos son del mismo titular.' });

      const other = (await create({ documents: [{ key: 'id', expect: 'es_dni' }, { key: 'census', expect: 'es_census_certificate' }] })).body;
      await addFile(other.id, 'dni_valid.jpg', { key: 'id', options: { checks: { holder: HOLDER } } });
      const bad = await addFile(other.id, 'padron.pdf', { key: 'census', options: { checks: { holder: OTHER } } });
      expect(bad.body.verdict.status).toBe('invalid');
      expect(bad.body.checks).toContainEqual({ code: 'same_holder', passed: false, message: 'No todos los documentos son del mismo titular.' });
      const holderReasons = bad.body.verdict.reasons.filter((r: any) => r.code === 'same_holder').map((r: any) => r.message);
      expect(holderReasons).toEqual([
        'El nombre del titular de «census» no coincide con el de «id».',
        'La fecha de nacimiento de «census» no coincide con la de «id».',
        'El número de identificación de «census» no coincide con el de «id».',
      ]);
      // Each document is valid on its own: only the dossier sees two people.
      expect(bad.body.documents.map((x: any) => x.verdict_status)).toEqual(['valid', 'valid']);
    });

    it('same holder: only the birth date differs', async () => {
      const d = (await create({ expect: ['dni', 'passport'] })).body;
      await addFile(d.id, 'dni_valid.jpg', { options: { checks: { holder: HOLDER } } });
      const res = await addFile(d.id, 'passport.jpg', { options: { checks: { holder: { ...HOLDER, birth_date: '1990-01-01' } } } });
      expect(res.body.verdict.reasons.filter((r: any) => r.code === 'same_holder').map((r: any) => r.message)).toEqual(['La fecha de nacimiento de «passport» no coincide con la de «es_dni».']);
      expect(res.body.verdict.status).toBe('invalid');
    });

    it('consistent dates: a document issued after the identity document expired', async () => {
      const d = (await create({ expect: ['dni', 'es_payslip'] })).body;
      await addFile(d.id, 'dni_expired.jpg', { options: { checks: { holder: HOLDER, reference_date: '2026-03-15' } } });
      const res = await addFile(d.id, 'es_payslip.pdf', { options: { checks: { holder: HOLDER, reference_date: '2026-03-15' } } });
      const reason = res.body.verdict.reasons.find((r: any) => r.code === 'issued_after_expiry');
      expect(reason).toMatchObject({ severity: 'warning' });
      expect(reason.message).toMatch(/^«es_payslip» se emitió el 2026-02-28, después de que caducara «es_dni» \(20\d\d-\d\d-\d\d\)\.$/);
      expect(res.body.checks).toContainEqual(expect.objectContaining({ code: 'consistent_dates', passed: false }));
    });

    it('consistent dates: several payslips must be of consecutive months, none repeated', async () => {
      const payslips = async (refs: string[]) => {
        const d = (await create({ documents: refs.map((_, i) => ({ key: `payslip_${i + 1}`, expect: 'es_payslip' })) })).body;
        let last: any;
        for (const [i, ref] of refs.entries()) {
          last = await addFile(d.id, 'es_payslip.pdf', { key: `payslip_${i + 1}`, options: { checks: { holder: HOLDER, reference_date: ref } } });
        }
        return last.body;
      };
      const ok = await payslips(['2026-03-15', '2026-04-15', '2026-02-15']);
      expect(ok.verdict.status).toBe('complete_valid');
      expect(ok.verdict.reasons).toContainEqual({ code: 'payslips_consecutive', severity: 'info', message: 'Las nóminas son de meses consecutivos (2026-01, 2026-02, 2026-03).' });
      const gap = await payslips(['2026-03-15', '2026-05-15']);
      expect(gap.verdict.status).toBe('invalid');
      expect(gap.verdict.reasons).toContainEqual({ code: 'payslips_consecutive', severity: 'error', message: 'Las nóminas no son de meses consecutivos (2026-02, 2026-04).' });
      const twice = await payslips(['2026-03-15', '2026-03-20']);
      expect(twice.verdict.status).toBe('invalid');
      expect(twice.checks).toContainEqual(expect.objectContaining({ code: 'consistent_dates', passed: false }));
    });

    it('consistent dates: the window a requirement states (checks.max_age_days), also for an analysis added by id', async () => {
      const d = (await create({ documents: [{ key: 'address', label: 'Proof of address', expect: 'es_census_certificate', checks: { max_age_days: 90 } }] })).body;
      // Analysed without the window: valid on its own; the dossier applies its requirement's window.
      const old = await analyze('padron_old.pdf', { expect: 'es_census_certificate' });
      expect(old.verdict.status).toBe('valid');
      const res = await addAnalysis(d.id, old.id, 'address');
      expect(res.body.verdict.status).toBe('invalid');
      expect(res.body.verdict.reasons).toContainEqual(expect.objectContaining({ code: 'document_too_old', severity: 'error' }));
      const recent = await analyze('padron.pdf', { expect: 'es_census_certificate' });
      const ok = await addAnalysis(d.id, recent.id, 'address');
      expect(ok.body.verdict.status).toBe('complete_valid');
      expect(ok.body.verdict.reasons).toContainEqual(expect.objectContaining({ code: 'document_too_old', severity: 'info' }));
    });
  });

  describe('US Form I-9', () => {
    const I9 = ['us_passport', 'us_drivers_license', 'us_social_security_card'];
    const JOSHUA = { full_name: 'Joshua Jackson', birth_date: '1984-04-19' };
    const i9 = async (files: string[]) => {
      const d = (await create({ expect: I9, language: 'en' })).body;
      let last: any = { body: d };
      for (const f of files) last = await addFile(d.id, f, { options: { checks: { holder: JOSHUA } } });
      return last.body;
    };

    it('one List A document completes it', async () => {
      const d = await i9(['us_passport.jpg']);
      expect(d.verdict.status).toBe('complete_valid');
      expect(d.verdict.reasons).toContainEqual({ code: 'i9_list', severity: 'info', message: '"us_passport": Form I-9 List A document.' });
      expect(d.verdict.reasons).toContainEqual({ code: 'i9_documents', severity: 'info', message: 'Form I-9: a List A document is present.' });
      expect(d.checks).toContainEqual({ code: 'i9_documents', passed: true, message: 'Form I-9: a List A document is present.' });
      // The analysis itself carries the specification's `i9_list` reason.
      const a = (await app.request('GET', `/v1/analyses/${d.documents[0].analysis_id}`)).body;
      expect(a.verdict.reasons).toContainEqual(expect.objectContaining({ code: 'i9_list', severity: 'info' }));
    });

    it('List B plus List C completes it', async () => {
      const d = await i9(['us_drivers_license.jpg', 'ssn.jpg']);
      expect(d.verdict.status).toBe('complete_valid');
      expect(d.verdict.reasons).toContainEqual({ code: 'i9_documents', severity: 'info', message: 'Form I-9: a List B and a List C document are present.' });
    });

    it('List B alone, or List C alone, is incomplete; nothing yet too', async () => {
      const b = await i9(['us_drivers_license.jpg']);
      expect(b.verdict.status).toBe('incomplete');
      expect(b.verdict.reasons).toContainEqual({ code: 'i9_documents', severity: 'warning', message: 'Form I-9: a List C document (or a List A document) is missing.' });
      const c = await i9(['ssn.jpg']);
      expect(c.verdict.status).toBe('incomplete');
      expect(c.verdict.reasons).toContainEqual({ code: 'i9_documents', severity: 'warning', message: 'Form I-9: a List B document (or a List A document) is missing.' });
      const none = await i9([]);
      expect(none.verdict).toEqual({ status: 'incomplete', reasons: [{ code: 'i9_documents', severity: 'warning', message: 'Form I-9: one List A document, or one List B and one List C document, is missing.' }] });
      expect(none.checks).toEqual([{ code: 'i9_documents', passed: false, message: 'Form I-9: one List A document, or one List B and one List C document, is missing.' }]);
    });

    it('an invalid List A document makes it invalid', async () => {
      const d = await i9(['us_passport_expired.jpg']);
      expect(d.verdict.status).toBe('invalid');
    });
  });

  describe('with a template', () => {
    it("takes the template's documents, language and analyze options; a request's documents win", async () => {
      const tpl = await app.request('POST', '/v1/templates', {
        json: { name: 'Onboarding', language: 'en', checks: { holder: HOLDER }, documents: [{ key: 'id', label: 'ID', expect: 'dni' }, { key: 'census', expect: 'es_census_certificate', checks: { max_age_days: 90 } }] },
      });
      expect(tpl.status).toBe(201);
      const d = (await create({ template: tpl.body.id, reference: 'TPL' })).body;
      expect(d).toMatchObject({ template: tpl.body.id, language: 'en' });
      expect(d.requirements).toEqual([
        { key: 'id', label: 'ID', expect: ['es_dni'], checks: {} },
        { key: 'census', label: null, expect: ['es_census_certificate'], checks: { max_age_days: 90 } },
      ]);
      // The template's checks (holder) and the requirement's (max_age_days) apply to the new analysis.
      const res = await addFile(d.id, 'padron.pdf', { key: 'census' });
      const a = (await app.request('GET', `/v1/analyses/${res.body.documents[0].analysis_id}`)).body;
      expect(a.verdict.reasons.map((r: any) => r.code)).toEqual(expect.arrayContaining(['holder', 'max_age_days']));
      expect(a.verdict.reasons.find((r: any) => r.code === 'holder').message).toBe("The holder's details match.");
      const own = (await create({ template: tpl.body.id, expect: 'passport', language: 'fr' })).body;
      expect(own.requirements.map((r: any) => r.key)).toEqual(['passport']);
      expect(own.language).toBe('fr');
    });

    it("without documents, the template's expect is one requirement `document`; a deleted template stops applying", async () => {
      const tpl = (await app.request('POST', '/v1/templates', { json: { name: 'Passport only', expect: ['passport'] } })).body;
      const d = (await create({ template: tpl.id })).body;
      expect(d.requirements).toEqual([{ key: 'document', label: null, expect: ['passport'], checks: {} }]);
      expect((await app.request('DELETE', `/v1/templates/${tpl.id}`)).status).toBe(200);
      const res = await addFile(d.id, 'passport.jpg');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ template: tpl.id, verdict: { status: 'complete_valid' } });
      expect(res.body.documents[0].key).toBe('document');
      // Another account's template is not found.
      const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
      const theirs = await create({ template: tpl.id }, acc.keys.test);
      expect(theirs.status).toBe(422);
      expect(theirs.body.error).toMatchObject({ code: 'template_not_found', param: 'template' });
    });
  });

  describe('human review and removed analyses', () => {
    it('a review decision flips the dossier verdict (final_status wins), once per change', async () => {
      const d = (await create({ expect: 'dni' })).body;
      const res = await addFile(d.id, 'blurry.jpg');
      expect(res.body.verdict.status).toBe('review');
      const id = res.body.documents[0].analysis_id;
      const approve = await app.request('POST', `/v1/analyses/${id}/review`, { json: { decision: 'approve' } });
      expect(approve.status).toBe(200);
      const after = (await get(d.id)).body;
      expect(after.documents[0].verdict_status).toBe('valid');
      expect(after.verdict.status).toBe('complete_valid');
      // The same decision again changes nothing.
      expect((await app.request('POST', `/v1/analyses/${id}/review`, { json: { decision: 'approve' } })).status).toBe(200);
      expect((await changes(d.id)).map((e) => e.data.verdict.status)).toEqual(['review', 'complete_valid']);

      const d2 = (await create({ expect: 'dni' })).body;
      const id2 = (await addFile(d2.id, 'blurry_2.jpg')).body.documents[0].analysis_id;
      await app.request('POST', `/v1/analyses/${id2}/review`, { json: { decision: 'reject', reason: 'not legible' } });
      const rejected = (await get(d2.id)).body;
      expect(rejected.documents[0].verdict_status).toBe('invalid');
      expect(rejected.verdict.status).toBe('invalid');
    });

    it("a valid document whose review is pending (the template does not auto-approve) counts as review until decided", async () => {
      const tpl = (await app.request('POST', '/v1/templates', { json: { name: 'Four eyes', expect: 'dni', human_review: { auto_approve_valid: false } } })).body;
      const d = (await create({ template: tpl.id })).body;
      const res = await addFile(d.id, 'dni_valid.jpg');
      const id = res.body.documents[0].analysis_id;
      expect((await app.request('GET', `/v1/analyses/${id}`)).body.review).toMatchObject({ status: 'pending' });
      expect(res.body.documents[0].verdict_status).toBe('valid');
      expect(res.body.verdict.status).toBe('review');
      expect(codes(res.body)).toEqual(['document_review:warning']);
      await app.request('POST', `/v1/analyses/${id}/review`, { json: { decision: 'approve' } });
      expect((await get(d.id)).body.verdict.status).toBe('complete_valid');
    });

    it('a deleted member analysis empties its slot', async () => {
      const d = (await create({ expect: 'dni' })).body;
      const res = await addFile(d.id, 'dni_valid.jpg');
      expect(res.body.verdict.status).toBe('complete_valid');
      expect((await app.request('DELETE', `/v1/analyses/${res.body.documents[0].analysis_id}`)).status).toBe(200);
      const after = (await get(d.id)).body;
      expect(after.documents).toEqual([]);
      expect(after.verdict.status).toBe('incomplete');
      expect((await changes(d.id)).map((e) => e.data.verdict.status)).toEqual(['complete_valid', 'incomplete']);
    });
  });

  it('queues dossier.verdict_changed for subscribed endpoints (delivered and signed by the common webhook machinery)', async () => {
    const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const ep = await app.request('POST', '/v1/webhook-endpoints', { key: acc.keys.test, json: { url: 'https://hooks.example/dossiers', events: ['dossier.verdict_changed'] } });
    expect(ep.status).toBe(201);
    const d = (await create({ expect: 'dni' }, acc.keys.test)).body;
    await addFile(d.id, 'dni_valid.jpg', { apiKey: acc.keys.test });
    const deliveries = await app.services.db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', acc.account).execute();
    expect(deliveries.map((x) => x.event_type)).toEqual(['dossier.verdict_changed']);
    const body = JSON.parse(deliveries[0].payload);
    expect(body).toMatchObject({ type: 'dossier.verdict_changed', data: { id: d.id, object: 'dossier', verdict: { status: 'complete_valid' } } });
  });
});

describe.each(DATABASES)('dossiers in live mode on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { liveProvider: standInLiveProvider });
  });
  afterAll(() => app?.close());

  it('a document by file is charged like analyze: 402 when it cannot be paid, and nothing is added', async () => {
    const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const d = (await app.request('POST', '/v1/dossiers', { key: acc.keys.live, json: { expect: 'dni' } })).body;
    expect(d.livemode).toBe(true);
    const res = await app.request('POST', `/v1/dossiers/${d.id}/documents`, { key: acc.keys.live, body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }) });
    expect(res.status).toBe(402);
    expect(res.body.error.type).toBe('insufficient_credits');
    expect((await app.request('GET', `/v1/dossiers/${d.id}`, { key: acc.keys.live })).body.documents).toEqual([]);
  });
});
