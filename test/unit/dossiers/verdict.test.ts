import { describe, expect, it } from 'vitest';
import { defaultKey } from '../../../server/src/domain/dossiers/service.ts';
import { computeVerdict, type MemberDocument, type Requirement, personalNumbersOf } from '../../../server/src/domain/dossiers/verdict.ts';

/** The pure rules behind the HTTP tests of test/api/dossiers.test.ts: edge cases cheaper to state here. */
const doc = (key: string, type: string | null, fields: Record<string, unknown> = {}, o: Partial<MemberDocument> = {}): MemberDocument => ({
  key, status: 'completed', type, fields, verdictStatus: 'valid', reviewPending: false, ...o,
});
const req = (key: string, expect: string[], checks: Requirement['checks'] = {}): Requirement => ({ key, label: null, expect, checks });
const judge = (requirements: Requirement[], documents: MemberDocument[]) => computeVerdict({ requirements, documents, language: 'en', today: '2026-03-15' });
const I9 = [req('us_passport', ['us_passport']), req('us_drivers_license', ['us_drivers_license']), req('us_social_security_card', ['us_social_security_card'])];

describe('dossier verdict rules', () => {
  it('status precedence: invalid > incomplete > review > complete_valid', () => {
    const r = [req('a', ['es_dni']), req('b', ['passport'])];
    expect(judge(r, [doc('a', 'es_dni', {}, { verdictStatus: 'invalid' })]).verdict.status).toBe('invalid');
    expect(judge(r, [doc('a', 'es_dni', {}, { verdictStatus: 'review' })]).verdict.status).toBe('incomplete');
    expect(judge(r, [doc('a', 'es_dni', {}, { verdictStatus: 'review' }), doc('b', 'passport')]).verdict.status).toBe('review');
    expect(judge(r, [doc('a', 'es_dni'), doc('b', 'passport')]).verdict.status).toBe('complete_valid');
    // A pending human review counts as review even on a valid verdict.
    expect(judge(r, [doc('a', 'es_dni', {}, { reviewPending: true }), doc('b', 'passport')]).verdict.status).toBe('review');
  });

  it('same holder: names folded and reordered match; numbers compare within one numbering only', () => {
    const dni = doc('id', 'es_dni', { first_name: 'MARÍA JOSÉ', last_name: 'GARCÍA', second_last_name: 'LÓPEZ', document_number: '12345678Z', birth_date: '1988-07-21' });
    const payslip = doc('p', 'es_payslip', { full_name: 'Garcia Lopez, Maria Jose', id_number: '12345678-z', employer_tax_id: 'B12345674' });
    const { checks, verdict } = judge([], [dni, payslip]);
    expect(checks).toEqual([{ code: 'same_holder', passed: true, message: 'Every document belongs to the same holder.' }]);
    expect(verdict.status).toBe('complete_valid');
    // A passport number is not a personal number: not compared with the DNI's.
    expect([...personalNumbersOf('passport', { document_number: 'PAA000000' })]).toEqual([]);
    expect([...personalNumbersOf('es_tie', { id_number: 'X1234567L', document_number: 'E00000000' })]).toEqual([['es_nif', 'X1234567L']]);
    const other = doc('p', 'es_payslip', { full_name: 'María José García López', id_number: '87654321X' });
    expect(judge([], [dni, other]).verdict.reasons.map((r) => r.message)).toContain('The identification number on "p" does not match the one on "id".');
  });

  it('Form I-9: a type on lists B and C counts as either, never as both', () => {
    expect(judge(I9, [doc('t', 'us_tribal_document')]).verdict.status).toBe('incomplete');
    expect(judge(I9, [doc('t', 'us_tribal_document'), doc('us_social_security_card', 'us_social_security_card')]).verdict.status).toBe('complete_valid');
    expect(judge(I9, [doc('t', 'us_tribal_document'), doc('us_drivers_license', 'us_drivers_license')]).verdict.status).toBe('complete_valid');
    // A running document does not count yet.
    expect(judge(I9, [doc('us_passport', null, {}, { status: 'processing', verdictStatus: null })]).verdict.status).toBe('incomplete');
  });

  it('payslips: a period that cannot be read asks for review', () => {
    const v = judge([], [doc('a', 'es_payslip', { full_name: 'A B' }), doc('b', 'es_payslip', { full_name: 'A B', period_start_date: '2026-02-01' })]);
    expect(v.verdict.reasons).toContainEqual({ code: 'payslips_consecutive', severity: 'warning', message: 'The period of a payslip could not be read.' });
    expect(v.verdict.status).toBe('review');
  });

  it('default keys: an empty requirement accepting the type, else the type suffixed', () => {
    const r = [req('id', ['es_dni', 'es_tie'])];
    expect(defaultKey(r, new Set(), 'es_tie')).toBe('id');
    expect(defaultKey(r, new Set(['id']), 'es_tie')).toBe('es_tie');
    expect(defaultKey(r, new Set(['id', 'es_tie', 'es_tie_2']), 'es_tie')).toBe('es_tie_3');
    expect(defaultKey(r, new Set(), null)).toBeNull();
  });
});
