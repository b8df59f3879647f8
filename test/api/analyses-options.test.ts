import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

type Reason = { code: string; severity: string; message: string };

describe.each(DATABASES)('analyze options and checks on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  const analyze = (name: string, options: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify(options)]]), headers });
  const reason = (a: { verdict: { reasons: Reason[] } }, code: string) => a.verdict.reasons.find((r) => r.code === code);

  it('extract: false reads no fields; a JSON Schema extracts its own properties', async () => {
    const none = await analyze('dni_valid.jpg', { extract: false });
    expect(none.body.fields).toEqual({});
    const custom = await analyze('dni_valid.jpg', {
      extract: { type: 'object', properties: { nombre_completo: { type: 'string', description: 'Nombre completo del titular' }, fecha: { type: 'string', format: 'date' } } },
    });
    expect(Object.keys(custom.body.fields).sort()).toEqual(['fecha', 'nombre_completo']);
  });

  it('speaks the requested language in labels, reasons and checks', async () => {
    const texts: Record<string, string> = {};
    for (const language of ['es', 'en', 'pt', 'fr']) {
      const a = (await analyze('dni_valid.jpg', { expect: 'es_dni', language })).body;
      texts[language] = `${a.document.label}|${a.verdict.reasons[0].message}|${a.checks[0].message}`;
    }
    expect(new Set(Object.values(texts)).size).toBe(4);
    expect(texts.en).toContain('expected type');
  });

  it('records the processing profile and mode', async () => {
    const a = (await analyze('dni_valid.jpg', { processing: 'standard', precise_bboxes: true })).body;
    expect(a.processing).toMatchObject({ profile: 'standard', region: 'eu', mode: 'ocr+llm' });
    const b = (await analyze('dni_valid.jpg')).body;
    expect(b.processing).toMatchObject({ profile: 'sovereign', mode: 'vlm' });
  });

  it('not_expired is on by default for identity types, can be disabled, and follows reference_date', async () => {
    const expired = (await analyze('dni_expired.jpg', { expect: 'es_dni' })).body;
    expect(reason(expired, 'not_expired')?.severity).toBe('error');
    const off = (await analyze('dni_expired.jpg', { expect: 'es_dni', checks: { not_expired: false } })).body;
    expect(reason(off, 'not_expired')).toBeUndefined();
    expect(off.verdict.status).toBe('valid');
    // reference_date replaces today: test mode simulates a document valid (or expired) on that date.
    const future = (await analyze('dni_valid.jpg', { expect: 'es_dni', checks: { reference_date: '2031-06-30' } })).body;
    expect(reason(future, 'not_expired')?.severity).toBe('info');
    expect(future.fields.expiry_date.value > '2031-06-30').toBe(true);
    const past = (await analyze('dni_expired.jpg', { expect: 'es_dni', checks: { reference_date: '2031-06-30' } })).body;
    expect(past.fields.expiry_date.value < '2031-06-30').toBe(true);
    expect(reason(past, 'not_expired')?.message).toContain(past.fields.expiry_date.value);
  });

  it('max_age_days, min_age_years and max_age_years', async () => {
    const old = (await analyze('es_census_certificate_old.jpg', { expect: 'es_census_certificate', checks: { max_age_days: 90 } })).body;
    expect(reason(old, 'max_age_days')?.severity).toBe('error');
    const fresh = (await analyze('es_census_certificate.jpg', { expect: 'es_census_certificate', checks: { max_age_days: 36500 } })).body;
    expect(reason(fresh, 'max_age_days')?.severity).toBe('info');
    const adult = (await analyze('dni_valid.jpg', { expect: 'es_dni', checks: { max_age_years: 17, min_age_years: 0 } })).body;
    expect(reason(adult, 'max_age_years')?.severity).toBe('error');
    expect(reason(adult, 'min_age_years')?.severity).toBe('info');
  });

  it('require_fields, require_signature and require_stamp', async () => {
    const incomplete = (await analyze('dni_incomplete.jpg', { expect: 'es_dni', checks: { require_fields: ['document_number', 'mrz', 'can_number'] } })).body;
    const missing = incomplete.verdict.reasons.filter((r: Reason) => r.code === 'required_field_missing');
    expect(missing.length).toBeGreaterThan(0);
    expect(missing.every((r: Reason) => r.severity === 'error')).toBe(true);
    const unsigned = (await analyze('es_criminal_record_certificate_unsigned_unstamped.jpg', { expect: 'es_criminal_record_certificate', checks: { require_signature: true, require_stamp: true } })).body;
    expect(reason(unsigned, 'require_signature')?.severity).toBe('error');
    expect(reason(unsigned, 'require_stamp')?.severity).toBe('error');
    const signed = (await analyze('es_criminal_record_certificate.jpg', { expect: 'es_criminal_record_certificate', checks: { require_signature: true, require_stamp: true } })).body;
    expect(reason(signed, 'require_signature')?.severity).toBe('info');
  });

  it('expected_amount, expected_iban and expected_reference against what was read', async () => {
    const first = (await analyze('payment_receipt.jpg')).body;
    const amount = first.fields.amount.value as number;
    const iban = first.fields.iban.value as string;
    const ok = (await analyze('payment_receipt.jpg', { expect: 'payment_receipt', checks: { expected_amount: amount, expected_iban: iban.toLowerCase(), expected_reference: String(first.fields.reference.value) } })).body;
    for (const code of ['expected_amount', 'expected_iban', 'expected_reference']) expect(reason(ok, code)?.severity, code).toBe('info');
    const bad = (await analyze('payment_receipt.jpg', { expect: 'payment_receipt', checks: { expected_amount: amount + 1, expected_iban: 'ES9121000418450200051332', expected_reference: 'no-such-reference' } })).body;
    for (const code of ['expected_amount', 'expected_iban', 'expected_reference']) expect(reason(bad, code)?.severity, code).toBe('error');
    // A check applies only where the type has the field: a DNI has no amount.
    const dni = (await analyze('dni_valid.jpg', { expect: 'es_dni', checks: { expected_amount: 10 } })).body;
    expect(reason(dni, 'expected_amount')).toBeUndefined();
  });

  it('validates metadata and export bounds', async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    for (const [options, param] of [
      [{ metadata: tooMany }, 'options.metadata'],
      [{ metadata: { k: 'x'.repeat(501) } }, 'options.metadata.k'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'options.metadata'],
      [{ export: ['pdf', 'gif'] }, 'options.export.1'],
      [{ export: ['json', 'csv', 'xlsx', 'xml', 'vcard', 'pdf', 'json'] }, 'options.export'],
      [{ expect: [] }, 'options.expect'],
      [{ language: 'de' }, 'options.language'],
      [{ storage: 'forever' }, 'options.storage'],
    ] as const) {
      const res = await analyze('dni.jpg', options as Record<string, unknown>);
      expect(res.status, JSON.stringify(options).slice(0, 60)).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    }
  });

  it('413 file_too_large for a file over 20 MB, without storing anything', async () => {
    const big = new Uint8Array(20 * 1024 * 1024 + 1);
    big.set(fixtures.jpeg().subarray(0, 4));
    const res = await app.request('POST', '/v1/analyze', { body: form({ bytes: big, name: 'huge.jpg' }) });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'file_too_large' });
    const rows = await app.services.db.selectFrom('analyses').select('file_name').where('file_name', '=', 'huge.jpg').execute();
    expect(rows).toEqual([]);
  });

  it('replays an analysis with the same Idempotency-Key instead of analysing twice', async () => {
    const headers = { 'Idempotency-Key': 'analyze-once-1' };
    const a = await analyze('dni_valid.jpg', { expect: 'es_dni' }, headers);
    const b = await analyze('dni_valid.jpg', { expect: 'es_dni' }, headers);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.id).toBe(a.body.id);
    const count = await app.services.db.selectFrom('analyses').select('id').where('id', '=', a.body.id).execute();
    expect(count).toHaveLength(1);
    const other = await analyze('dni_expired.jpg', { expect: 'es_dni' }, headers);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });
});
