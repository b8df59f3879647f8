import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEntries } from '../../server/src/catalogue/index.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

describe.each(DATABASES)('POST /v1/analyze in test mode on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  const analyze = (name: string, fields: Array<[string, string]> = [], bytes: Uint8Array = fixtures.jpeg()) =>
    app.request('POST', '/v1/analyze', { body: form({ bytes, name }, fields) });
  const events = (type: string) => app.services.db.selectFrom('events').selectAll().where('type', '=', type).execute();

  it('reads dni_valid.jpg as a valid Spanish DNI, with real checks on the simulated reading', async () => {
    const res = await analyze('dni_valid.jpg', [['options', JSON.stringify({ expect: 'es_dni', language: 'en' })]]);
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a).toMatchObject({ object: 'analysis', status: 'completed', livemode: false, usage: { credits: 0, pages: 1 } });
    expect(a.id).toMatch(/^an_/);
    expect(a.document).toMatchObject({ type: 'es_dni', country: 'ESP' });
    expect(a.verdict).toMatchObject({ expected: ['es_dni'], match: true, status: 'valid', final_status: null });
    expect(a.verdict.reasons[0]).toMatchObject({ code: 'type_match', severity: 'info' });
    expect(a.verdict.reasons[0].message).toMatch(/expected type/);
    expect(a.checks.find((c: { code: string }) => c.code === 'nif_check_digit')).toMatchObject({ passed: true });
    expect(a.fields.document_number.validated).toBe(true);
    expect(a.processing.providers).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'mock', region: 'local' })]));
    expect(a.file).toEqual({ name: 'dni_valid.jpg', mime_type: 'image/jpeg', pages: 1, size_bytes: fixtures.jpeg().length });
    expect((await events('analysis.completed')).map((e) => (e.payload as any).data.id)).toContain(a.id);
  });

  it('gives the same reading for the same file name', async () => {
    const a = await analyze('passport.jpg');
    const b = await analyze('passport.jpg');
    expect(b.body.fields).toEqual(a.body.fields);
    expect(a.body.verdict).toBeNull(); // no expect, no verdict
  });

  it('dni_expired.jpg is invalid because it expired', async () => {
    const res = await analyze('dni_expired.jpg', [['expect', 'es_dni']]);
    expect(res.body.verdict.status).toBe('invalid');
    expect(res.body.verdict.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'not_expired', severity: 'error' })]));
  });

  it('blurry.jpg asks for review and records analysis.review_required', async () => {
    const res = await analyze('blurry.jpg', [['expect', 'es_dni']]);
    expect(res.body.verdict.status).toBe('review');
    expect(res.body.warnings).toContain('blurry');
    expect((await events('analysis.review_required')).map((e) => (e.payload as any).data.id)).toContain(res.body.id);
  });

  it('type_mismatch when the document is not of an expected type', async () => {
    const res = await analyze('passport.jpg', [['expect', 'es_dni'], ['expect', 'es_tie']]);
    expect(res.body.verdict).toMatchObject({ match: false, status: 'invalid', expected: ['es_dni', 'es_tie'] });
    expect(res.body.verdict.reasons[0].code).toBe('type_mismatch');
  });

  it('ignores the expect shortcut when options are sent', async () => {
    const res = await analyze('passport.jpg', [['expect', 'es_dni'], ['options', '{}']]);
    expect(res.body.verdict).toBeNull();
  });

  it('accepts file_base64 (with a data: prefix) and filename in JSON, options at the root or nested', async () => {
    const b64 = `data:image/jpeg;base64,${fixtures.jpeg().toString('base64')}`;
    const root = await app.request('POST', '/v1/analyze', { json: { file_base64: b64, filename: 'nie.jpg', expect: 'es_tie', metadata: { customer: 'c-1' } } });
    expect(root.status).toBe(200);
    expect(root.body.metadata).toEqual({ customer: 'c-1' });
    const nested = await app.request('POST', '/v1/analyze', { json: { file_base64: fixtures.jpeg().toString('base64'), filename: 'passport.jpg', options: { expect: ['passport'] } } });
    expect(nested.body.verdict.match).toBe(true);
  });

  it('answers every bad input with its documented code and param', async () => {
    const cases: Array<[Promise<{ status: number; body: any }>, number, string, string | undefined]> = [
      [app.request('POST', '/v1/analyze', { body: form(null, [['expect', 'es_dni']]) }), 400, 'missing_file', 'file'],
      [app.request('POST', '/v1/analyze', { json: { expect: 'es_dni' } }), 400, 'missing_file', 'file'],
      [analyze('empty.jpg', [], new Uint8Array(0)), 400, 'empty_file', 'file'],
      [analyze('notes.jpg', [], new TextEncoder().encode('just some text, not an image')), 415, 'unsupported_file_type', 'file'],
      [analyze('broken.jpg', [], fixtures.jpeg().subarray(0, 600)), 422, 'unreadable_image', undefined],
      [analyze('broken.pdf', [], new TextEncoder().encode('%PDF-1.7\n1 0 obj <<>> garbage')), 422, 'unreadable_pdf', undefined],
      [analyze('dni.jpg', [['options', '{not json']]), 400, 'invalid_options', 'options'],
      [analyze('dni.jpg', [['options', JSON.stringify({ colour: 'red' })]]), 422, 'invalid_parameter', 'options.colour'],
      [analyze('dni.jpg', [['options', JSON.stringify({ expect: 'xx_unicorn' })]]), 422, 'invalid_parameter', 'options.expect'],
      [analyze('dni.jpg', [['options', JSON.stringify({ expect: ['es_dni', 'xx_unicorn'] })]]), 422, 'invalid_parameter', 'options.expect.1'],
      [analyze('dni.jpg', [['options', JSON.stringify({ ttl_hours: 721 })]]), 422, 'invalid_parameter', 'options.ttl_hours'],
      [analyze('dni.jpg', [['options', JSON.stringify({ checks: { max_age_days: -1 } })]]), 422, 'invalid_parameter', 'options.checks.max_age_days'],
      [analyze('dni.jpg', [['options', JSON.stringify({ checks: { shoe_size: 42 } })]]), 422, 'invalid_parameter', 'options.checks.shoe_size'],
      [analyze('dni.jpg', [['options', JSON.stringify({ template: 'tpl_01JC0000000000000000000000' })]]), 422, 'template_not_found', 'options.template'],
      [app.request('POST', '/v1/analyze', { json: { file_base64: '***not base64***', filename: 'dni.jpg' } }), 400, 'invalid_base64', 'file_base64'],
      [app.request('POST', '/v1/analyze', { json: { file_url: 'http://example.com/dni.jpg' } }), 400, 'invalid_file_url', 'file_url'],
      [app.request('POST', '/v1/analyze', { json: { file_url: 'https://127.0.0.1/dni.jpg' } }), 400, 'invalid_file_url', 'file_url'],
      [app.request('POST', '/v1/analyze', { json: { file_url: 'https://x.example/a.jpg', file_base64: 'AAAA' } }), 422, 'invalid_parameter', 'file_base64'],
      [app.request('POST', '/v1/analyze', { body: 'x', headers: { 'Content-Type': 'text/plain' } }), 415, 'unsupported_content_type', 'Content-Type'],
    ];
    for (const [p, status, code, param] of cases) {
      const res = await p;
      expect(res.status, `${code}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.error.code).toBe(code);
      if (param !== undefined) expect(res.body.error.param).toBe(param);
    }
    // Nothing was half-written: no analysis for any of them.
    const rows = await app.services.db.selectFrom('analyses').select('file_name').execute();
    for (const name of ['empty.jpg', 'notes.jpg', 'broken.jpg', 'broken.pdf']) expect(rows.map((r) => r.file_name)).not.toContain(name);
  });

  it('marks _failed readings failed, not charged, with analysis.failed', async () => {
    const res = await analyze('es_dni_failed.jpg', [['expect', 'es_dni']]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', usage: { credits: 0 }, error: { code: 'processing_failed' } });
    expect((await events('analysis.failed')).map((e) => (e.payload as any).data.id)).toContain(res.body.id);
  });

  it('keep_results: false returns the data once; later it is 404 and not listed', async () => {
    const res = await analyze('dni_valid.jpg', [['options', JSON.stringify({ keep_results: false, expect: 'es_dni' })]]);
    expect(res.body.verdict.status).toBe('valid');
    const later = await app.request('GET', `/v1/analyses/${res.body.id}`);
    expect(later.status).toBe(404);
    expect(later.body.error.code).toBe('resource_missing');
    const list = await app.request('GET', '/v1/analyses?limit=100');
    expect(list.body.data.map((a: { id: string }) => a.id)).not.toContain(res.body.id);
  });

  it('keep_results: false with an Idempotency-Key replays the answer, yet nothing readable of it is stored', async () => {
    // An app of its own: the scan below must see only this request's traces.
    const own = await startTestApp(kind);
    try {
      const headers = { 'Idempotency-Key': `keep-false-${kind}` };
      const options = JSON.stringify({ keep_results: false, expect: 'es_dni' });
      const send = (bytes: Uint8Array) => own.request('POST', '/v1/analyze', { body: form({ bytes, name: 'dni_valid.jpg' }, [['options', options]]), headers });
      const first = await send(fixtures.jpeg());
      expect(first.status).toBe(200);
      const number = first.body.fields.document_number.value as string;
      const name = first.body.fields.first_name.value as string;
      expect(number).toMatch(/\w{6,}/);
      // No table holds the document's data in a readable form (the replay copy is sealed under the request's own key).
      // Its own schema's tables only: on PostgreSQL other suites' schemas (perhaps of other migrations) are listed too.
      const ownSchema = own.services.database.schema ?? 'public';
      for (const t of (await own.services.db.introspection.getTables()).filter((x) => x.schema === ownSchema)) {
        const dump = JSON.stringify(await own.services.db.selectFrom(t.name as never).selectAll().execute());
        expect(dump, `table ${t.name}`).not.toContain(number);
        expect(dump, `table ${t.name}`).not.toContain(name);
      }
      // A retry with the same document opens it: the same answer, marked replayed, not run twice.
      const again = await send(fixtures.jpeg());
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      // Another document under the same key is another request.
      const other = await send(fixtures.png());
      expect(other.status).toBe(422);
      expect(other.body.error.code).toBe('idempotency_key_reused');
    } finally {
      await own.close();
    }
  });

  it('verifies the PAdES signature of a signed PDF, and never lets a photo pass require_valid_signature', async () => {
    const pdf = await analyze('invoice.pdf', [], fixtures.signedPdf());
    expect(pdf.body.file).toMatchObject({ mime_type: 'application/pdf' });
    expect(pdf.body.signature).toMatchObject({ status: 'untrusted', signatures: 1, trusted: false });
    const photo = await analyze('invoice.jpg', [['options', JSON.stringify({ expect: 'invoice', checks: { require_valid_signature: true } })]]);
    expect(photo.body.signature).toBeNull();
    expect(photo.body.verdict.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'signature_missing', severity: 'error' })]));
    expect(photo.body.verdict.status).toBe('invalid');
  });

  it('runs the holder, age and require_fields checks', async () => {
    const holder = { full_name: 'María José García López', birth_date: '1990-04-12' };
    const ok = await analyze('dni_valid.jpg', [['options', JSON.stringify({ expect: 'es_dni', checks: { holder, min_age_years: 18, require_fields: ['address'] } })]]);
    expect(ok.body.verdict.status).toBe('valid');
    const codes = ok.body.verdict.reasons.map((r: { code: string }) => r.code);
    expect(codes).toEqual(expect.arrayContaining(['holder', 'min_age_years']));
    const other = await analyze('dni_mismatch_holder.jpg', [['options', JSON.stringify({ expect: 'es_dni', checks: { holder } })]]);
    expect(other.body.verdict.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'holder', severity: 'error' })]));
    const young = await analyze('dni_underage.jpg', [['options', JSON.stringify({ expect: 'es_dni', checks: { min_age_years: 18 } })]]);
    expect(young.body.verdict.reasons).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'min_age_years', severity: 'error' })]));
  });

  it('makes every failing validator a reason: _bad_checksum', async () => {
    const res = await analyze('dni_bad_checksum.jpg', [['expect', 'es_dni']]);
    expect(res.body.verdict.status).toBe('invalid');
    expect(res.body.checks.some((c: { passed: boolean }) => !c.passed)).toBe(true);
    // The reason names the evidence: the number read and the check letter it should have.
    const failed = res.body.verdict.reasons.find((r: { severity: string }) => r.severity === 'error');
    expect(failed.message).toMatch(/^El NIF \d{8}[A-Z] termina en [A-Z]; su letra o dígito de control debería ser [A-Z]\.$/);
  });

  it('a deliberate failure read with low confidence is not proof: _bad_checksum_low_confidence is review with low_confidence', async () => {
    const res = await analyze('dni_bad_checksum_low_confidence.jpg', [['options', JSON.stringify({ expect: 'es_dni', language: 'en' })]]);
    expect(res.body.verdict.status).toBe('review');
    expect(res.body.checks.filter((c: { passed: boolean }) => !c.passed)).toEqual([]);
    const codes = res.body.verdict.reasons.map((r: { code: string; severity: string }) => `${r.code}:${r.severity}`);
    expect(codes).toContain('low_confidence:warning');
    expect(codes.filter((c: string) => c.endsWith(':error'))).toEqual([]);
    expect(res.body.verdict.reasons.find((r: { code: string; message: string }) => r.code === 'low_confidence' && r.message.startsWith('Could not check the NIF'))).toBeTruthy();
  });
});

describe.each(DATABASES)('every catalogue type in test mode on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('reads <type>.jpg as that type, passes every check, and validates against the spec', async () => {
    const problems: string[] = [];
    for (const entry of allEntries()) {
      const res = await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name: `${entry.type}.jpg` }, [['expect', entry.type]]) });
      const a = res.body;
      if (res.status !== 200 || a.status !== 'completed') { problems.push(`${entry.type}: ${res.status} ${a.status}`); continue; }
      if (a.document?.type !== entry.type) problems.push(`${entry.type}: detected ${a.document?.type}`);
      const failing = a.checks.filter((c: { passed: boolean }) => !c.passed).map((c: { code: string }) => c.code);
      if (failing.length) problems.push(`${entry.type}: failing checks ${failing.join(',')}`);
      const expected = entry.generic ? 'review' : 'valid';
      if (a.verdict.status !== expected) problems.push(`${entry.type}: verdict ${a.verdict.status} (${a.verdict.reasons.filter((r: { severity: string }) => r.severity !== 'info').map((r: { code: string }) => r.code).join(',')})`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
