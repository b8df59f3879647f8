import { describe, it, expect } from 'vitest';
import {
  VALIDATORS, FIELD_SCHEMES, CHECK_CODES, validateCsv, checkCsv, dateConsistency, notExpired, issueAgeDays, ageYears,
  normaliseName, fuzzyNameMatch, validateNif, validateIdNumber, mrzMatchesVisual, parseMrz, validateMrzChecksums, aamvaMatchesVisual,
  unescapeAamva, validateIban, checkIdNumber, mrzCheckDigit,
} from '../../../server/src/validators/index.ts';
import { readJson } from './testdata.ts';

describe('registry', () => {
  it('has one entry per CheckResult code and the field schemes', () => {
    expect(Object.keys(VALIDATORS).sort()).toEqual([...CHECK_CODES].sort());
    expect(FIELD_SCHEMES).toContain('us_dl');
    for (const s of FIELD_SCHEMES) expect(checkIdNumber(s, 'x').reason).not.toBe('unknown_scheme');
  });
});

// invoice_totals: test/unit/validators/invoice-totals.test.ts (rules) and test/unit/local/invoice-totals-xml.test.ts (e-invoices).

describe('csv_format', () => {
  it('recognises the documented formats', () => {
    expect(checkCsv('ABCD1234EFGH5678').format).toBe('aeat');
    expect(checkCsv('abcd 1234 efgh 5678').format).toBe('seg_social');
    expect(checkCsv('A1B2-C3D4-E5F6-G7H8').format).toBe('seg_social');
    expect(checkCsv('ES-GE-0A1B2C3D4E5F').format).toBe('admin_prefixed');
    expect(checkCsv('123456789012345678').format).toBe('seg_social');
    expect(checkCsv('CSV: GEN-5a4b-3c2d-1e0f-9a8b').valid).toBe(true);
  });
  it('rejects malformed codes', () => {
    for (const v of ['', 'ABC123', 'ABCD_1234_EFGH_5678', 'ÁBCD1234EFGH5678', 'ABCDEFGHIJKLMNOP']) expect(checkCsv(v).valid, v).toBe(false);
    const r = validateCsv('ABCD1234EFGH5678', { expectedFormat: 'seg_social' });
    expect(r.passed).toBe(false);
    expect(r.evidence.external_lookup).toBe(false);
  });
});

describe('dates', () => {
  it('notExpired: expiry day itself is still valid', () => {
    expect(notExpired('2026-05-10', '2026-05-10')).toBe(true);
    expect(notExpired('2026-05-09', '2026-05-10')).toBe(false);
    expect(() => notExpired('2026-02-30', '2026-05-10')).toThrow(RangeError);
  });
  it('issueAgeDays across leap years', () => {
    expect(issueAgeDays('2024-02-28', '2024-03-01')).toBe(2);
    expect(issueAgeDays('2023-02-28', '2023-03-01')).toBe(1);
    expect(issueAgeDays('2026-01-02', '2026-01-01')).toBe(-1);
  });
  it('ageYears with the 29 February rule', () => {
    expect(ageYears('2008-02-29', '2026-02-28')).toBe(17);
    expect(ageYears('2008-02-29', '2026-03-01')).toBe(18);
    expect(ageYears('2008-02-29', '2028-02-28')).toBe(19);
    expect(ageYears('2008-02-29', '2028-02-29')).toBe(20);
    expect(ageYears('2000-06-15', '2018-06-14')).toBe(17);
    expect(ageYears('2000-06-15', '2018-06-15')).toBe(18);
  });
  it('date_consistency: order of dates', () => {
    expect(dateConsistency({ birth_date: '1990-01-01', issue_date: '2020-01-01', expiry_date: '2030-01-01', family: 'passport' }).passed).toBe(true);
    expect(dateConsistency({ issue_date: '2030-01-01', expiry_date: '2020-01-01' }).message_key).toBe('date_consistency.issue_not_before_expiry');
    expect(dateConsistency({ birth_date: '2021-01-01', issue_date: '2020-01-01' }).message_key).toBe('date_consistency.birth_after_issue');
    expect(dateConsistency({ birth_date: '2021-02-30' }).message_key).toBe('date_consistency.invalid_birth_date');
  });
  it('date_consistency: validity periods per family', () => {
    const dni = (birth: string, issue: string, expiry: string) => dateConsistency({ birth_date: birth, issue_date: issue, expiry_date: expiry, family: 'national_id', country: 'ESP' });
    expect(dni('1990-03-10', '2021-03-10', '2031-03-10').passed).toBe(true); // 31 -> 10 years
    expect(dni('2000-03-10', '2021-03-10', '2026-03-10').passed).toBe(true); // 21 -> 5 years
    expect(dni('2000-03-10', '2021-03-10', '2031-03-10').message_key).toBe('date_consistency.implausible_validity_period');
    expect(dni('1950-03-10', '2021-03-10', '9999-12-31').passed).toBe(true); // permanent from 70
    expect(dni('1990-03-10', '2021-03-10', '9999-12-31').message_key).toBe('date_consistency.permanent_validity_before_70');
    expect(dateConsistency({ issue_date: '2020-01-01', expiry_date: '2035-01-01', family: 'passport' }).passed).toBe(false);
    expect(dateConsistency({ issue_date: '2020-01-01', expiry_date: '2035-01-01', family: 'driving_licence' }).passed).toBe(true);
    expect(dateConsistency({ issue_date: '2020-01-01', expiry_date: '2036-06-01', family: 'driving_licence' }).passed).toBe(false);
  });
});

describe('names', () => {
  it('normaliseName folds accents, case, punctuation and spaces', () => {
    expect(normaliseName('  José-María  ÑÚÑEZ <<GARCÍA ')).toBe('jose maria nunez garcia');
    expect(normaliseName('Müller, Ørsted')).toBe('muller orsted');
  });
  it('fuzzyNameMatch: order, missing second surname, small typos', () => {
    expect(fuzzyNameMatch('García López, Juan', 'JUAN GARCIA LOPEZ').match).toBe(true);
    expect(fuzzyNameMatch('Juan García', 'JUAN GARCIA LOPEZ').match).toBe(true);
    expect(fuzzyNameMatch('Juan Garcia Lopes', 'JUAN GARCIA LOPEZ').match).toBe(true);
    expect(fuzzyNameMatch('María de la Cruz', 'MARIA DELACRUZ').match).toBe(true);
    expect(fuzzyNameMatch('Jaun Garcia', 'Juan Garcia').match).toBe(true); // transposition
    expect(fuzzyNameMatch('Pedro Sanchez', 'Juan Garcia').match).toBe(false);
    expect(fuzzyNameMatch('Juan', 'Juan Garcia Lopez').match).toBe(false); // one token is too weak
    expect(fuzzyNameMatch('Ana', 'Ama').match).toBe(false); // no typo tolerance under 4 characters
  });
});

describe('nif_check_digit and field schemes', () => {
  it('returns evidence with expected and found letter', () => {
    const r = validateNif('12.345.678-a');
    expect(r.passed).toBe(false);
    expect(r.message_key).toBe('nif_check_digit.invalid_letter');
    expect(r.evidence).toMatchObject({ normalized: '12345678A', expected: 'Z', found: 'A', kind: 'dni' });
    expect(validateNif('x1234567l').passed).toBe(true);
    expect(validateNif('B25162520').evidence.kind).toBe('cif');
    expect(validateNif('P0000000J', { scheme: 'es_cif' }).passed).toBe(true);
    expect(validateNif('P00000000', { scheme: 'es_cif' }).message_key).toBe('nif_check_digit.invalid_control_type');
  });
  it('id_number_matches_birth_date for NIR and codice fiscale', () => {
    const [, nir] = validateIdNumber('fr_nir', '2 99 05 75 202 818 97', { birth_date: '1999-05-20', sex: 'F', field: 'ssn' });
    expect(nir.code).toBe('id_number_matches_birth_date');
    expect(nir.passed).toBe(true);
    const [, nirBad] = validateIdNumber('fr_nir', '2 99 05 75 202 818 97', { birth_date: '1998-05-20' });
    expect(nirBad.passed).toBe(false);
    const [cf, cfBirth] = validateIdNumber('it_cf', 'RSSMRAQRCMNFNLRG', { birth_date: '1945-03-12', sex: 'M', reference_date: '2026-01-01' });
    expect(cf.passed).toBe(true);
    expect(cf.evidence.encoded).toMatchObject({ birth_date: '1945-03-12' });
    expect(cfBirth.passed).toBe(true);
    expect(validateIdNumber('it_cf', 'MRSMSR81D60Z611H', { birth_date: '1981-04-20', sex: 'F' })[1].passed).toBe(true);
  });
  it('format-only schemes report id_number_format', () => {
    expect(validateIdNumber('us_ssn', '536-90-4399')[0]).toMatchObject({ code: 'id_number_format', passed: true });
    expect(validateIdNumber('us_ssn', '900-12-3456')[0].message_key).toBe('id_number_format.invalid_area');
    expect(validateIdNumber('us_zip', '12345-6789')[0].passed).toBe(true);
    expect(validateIdNumber('us_zip', '1234')[0].passed).toBe(false);
    expect(validateIdNumber('us_dl', 'J641720820450', { state: 'FL' })[0].passed).toBe(true);
    expect(validateIdNumber('us_dl', '12345', { state: 'FL' })[0].passed).toBe(false);
    expect(validateIdNumber('es_nss', '28 12345678 40')[0].code).toBe('id_number_checksum');
    expect(validateIdNumber('bic', 'INGDDEFFXXX')[0].passed).toBe(true);
    expect(validateIdNumber('es_csv', 'ABCD1234EFGH5678')[0].code).toBe('csv_format');
  });
  it('es_nss: mod 97 of province + number', () => {
    // 28/01234567/?? : base = 28 * 10^7 + 1234567 = 281234567; 281234567 mod 97 = 42
    expect(checkIdNumber('es_nss', '280123456742').valid).toBe(true);
    expect(checkIdNumber('es_nss', '280123456743').valid).toBe(false);
  });
});

describe('mrz', () => {
  const td3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
  it('parses TD3 with century inference from the reference date', () => {
    const p = parseMrz(td3, { referenceDate: '2026-01-01' });
    expect(p.fields).toMatchObject({ surname: 'ERIKSSON', given_names: 'ANNA MARIA', birth_date: '1974-08-12', expiry_date: '2012-04-15', sex: 'F', nationality: 'UTO', document_number: 'L898902C3' });
    expect(parseMrz(['I<UTOD23145890<7349<<<<<<<<<<<', '3407127M9507122UTO<<<<<<<<<<<2', 'STEVENSON<<PETER<JOHN<<<<<<<<<'], { referenceDate: '2026-01-01' }).fields?.birth_date).toBe('1934-07-12');
  });
  it('a birth century that would put the birth after the expiry is the century before (two-digit years)', () => {
    // Born 12-12-12, expired 2011-06-29: born 1912, not 2012 (a date_consistency warning on a genuine zone otherwise).
    const number = 'L898902C3' + mrzCheckDigit('L898902C3');
    const birth = '121212' + mrzCheckDigit('121212');
    const expiry = '110629' + mrzCheckDigit('110629');
    const optional = 'ZE184226B<<<<<';
    const composite = mrzCheckDigit(number + birth + expiry + optional + mrzCheckDigit(optional));
    const line2 = `${number}UTO${birth}F${expiry}${optional}${mrzCheckDigit(optional)}${composite}`;
    const p = parseMrz([td3[0], line2], { referenceDate: '2026-01-01' });
    expect(p.valid).toBe(true);
    expect(p.fields).toMatchObject({ birth_date: '1912-12-12', expiry_date: '2011-06-29' });
    // A birth before the expiry keeps the latest century not after the reference date.
    expect(parseMrz(td3, { referenceDate: '2026-01-01' }).fields?.birth_date).toBe('1974-08-12');
  });
  it('validates MRV-A and MRV-B (no composite digit)', () => {
    const mrva = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8988901C4XXX4009078F96121096ZE184226B<<<<<<'];
    const a = parseMrz(mrva, { referenceDate: '2026-01-01' });
    expect(a.format).toBe('MRVA');
    expect(a.checks.map((c) => c.name)).toEqual(['document_number', 'birth_date', 'expiry_date']);
    expect(a.valid).toBe(true);
    const mrvb = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'];
    const b = parseMrz(mrvb, { referenceDate: '2026-01-01' });
    expect(b.format).toBe('MRVB');
    expect(b.valid).toBe(true);
  });
  it('mrz_checksums result names the failing check digit', () => {
    const r = validateMrzChecksums(['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204158ZE184226B<<<<<10']);
    expect(r.passed).toBe(false);
    expect(r.params?.failed).toContain('expiry_date');
  });
  it('mrz_matches_visual: folded names, truncation, dates, number, sex, nationality', () => {
    const ok = mrzMatchesVisual(td3, { surname: 'Eriksson', given_names: 'Anna María', birth_date: '1974-08-12', expiry_date: '2012-04-15', document_number: 'L898902C3', sex: 'F', nationality: 'UTO' }, { referenceDate: '2026-01-01' });
    expect(ok.passed, JSON.stringify(ok.evidence)).toBe(true);
    const trunc = mrzMatchesVisual(['I<PRT007777779<ZZ92<<<<<<<<<<<', '8303143M3405282PRT<<<<<<<<<<<2', 'CACADOR<DE<ARAUJO<<ANDRE<ESTEV'], { surname: 'Caçador de Araújo', given_names: 'André Estevão', sex: 'M', nationality: 'PT' }, { referenceDate: '2026-01-01' });
    expect(trunc.passed, JSON.stringify(trunc.evidence)).toBe(true);
    const bad = mrzMatchesVisual(td3, { surname: 'Svensson', birth_date: '1974-08-13' }, { referenceDate: '2026-01-01' });
    expect(bad.passed).toBe(false);
    expect(bad.params?.fields).toBe('surname,birth_date');
  });
});

describe('aamva_matches_visual', () => {
  const v10 = unescapeAamva(readJson<any[]>('aamva/aamva-standard-samples.json').find((r) => r.id === 'aamva-v10-sample').raw_escaped);
  it('matches the printed fields of the AAMVA 2020 sample', () => {
    const r = aamvaMatchesVisual(v10, { document_number: 'T64235789', surname: 'Sample', first_name: 'Michael', birth_date: '1986-06-06', expiry_date: '2024-12-10', sex: 'M', state: 'VA', postal_code: '23269' });
    expect(r.passed, JSON.stringify(r.evidence)).toBe(true);
    const bad = aamvaMatchesVisual(v10, { document_number: 'T64235780', birth_date: '1986-06-07' });
    expect(bad.passed).toBe(false);
    expect(bad.params?.fields).toBe('birth_date,document_number');
  });
});

describe('iban_checksum', () => {
  it('reports the Spanish CCC control digits', () => {
    const r = validateIban('ES15 1234-1234-17 1234567890');
    expect(r.passed).toBe(false);
    expect(r.evidence.national).toMatchObject({ scheme: 'es_ccc', expected: '16', found: '17' });
    expect(validateIban('ES77 1234-1234-16 1234567890').passed).toBe(true);
  });
});
