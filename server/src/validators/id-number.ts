/**
 * Field-scheme dispatcher: validateIdNumber(scheme, value, context) -> ValidatorResult[].
 * The first result is the number's own check (code by scheme family); when the scheme encodes a
 * birth date / sex and `context.birth_date` (or `sex`) is given, an `id_number_matches_birth_date`
 * result follows.
 */
import { checkNif, checkDni, checkNie, checkCif } from './nif.ts';
import {
  checkPtNif, checkPtCc, checkFrNir, checkItCf, checkBrCpf, checkBrCnpj, checkUsSsn, checkUsZip,
  checkEsCcc, checkEsNss, type IdCheck,
} from './id-numbers.ts';
import { checkEuVat } from './eu-vat.ts';
import { checkUsDl } from './us-dl.ts';
import { checkIban, checkBic } from './iban.ts';
import { checkCsv } from './csv.ts';
import { makeResult, isIsoDate, type CheckCode, type ValidatorResult } from './types.ts';

export const FIELD_SCHEMES = [
  'es_dni', 'es_nie', 'es_nif', 'es_cif', 'es_csv', 'es_ccc', 'es_nss',
  'pt_nif', 'pt_cc', 'fr_nir', 'it_cf', 'br_cpf', 'br_cnpj', 'us_ssn', 'us_dl', 'us_zip',
  'iban', 'bic', 'eu_vat',
] as const;
export type FieldScheme = (typeof FIELD_SCHEMES)[number];

export interface IdNumberContext {
  /** Document field name the value comes from (goes to `fields`). */
  field?: string;
  /** Holder birth date YYYY-MM-DD, for id_number_matches_birth_date. */
  birth_date?: string;
  /** Holder sex 'M' | 'F' (also accepts male/female, H/V for Spanish documents). */
  sex?: string;
  /** Issuing state/country: USPS state for us_dl, ISO alpha-2 for eu_vat without prefix. */
  state?: string;
  country?: string;
  /** Reference date (YYYY-MM-DD) for century inference. */
  reference_date?: string;
}

/** Which CheckResult code a scheme reports: checksum schemes vs format-only schemes. */
export const SCHEME_CODE: Record<FieldScheme, CheckCode> = {
  es_dni: 'nif_check_digit', es_nie: 'nif_check_digit', es_nif: 'nif_check_digit', es_cif: 'nif_check_digit',
  es_csv: 'csv_format', es_ccc: 'id_number_checksum', es_nss: 'id_number_checksum',
  pt_nif: 'id_number_checksum', pt_cc: 'id_number_checksum', fr_nir: 'id_number_checksum', it_cf: 'id_number_checksum',
  br_cpf: 'id_number_checksum', br_cnpj: 'id_number_checksum', us_ssn: 'id_number_format', us_dl: 'id_number_format',
  us_zip: 'id_number_format', iban: 'iban_checksum', bic: 'id_number_format', eu_vat: 'id_number_checksum',
};

function fromNif(c: ReturnType<typeof checkNif>): IdCheck {
  return { valid: c.valid, format_ok: c.format_ok, checksum_ok: c.format_ok ? c.valid : null, normalized: c.normalized, reason: c.reason, expected: c.expected, found: c.found, kind: c.kind ?? undefined };
}

/** Run the scheme's check and return the raw IdCheck. */
export function checkIdNumber(scheme: FieldScheme | string, value: string, context: IdNumberContext = {}): IdCheck {
  switch (scheme) {
    case 'es_dni': return fromNif(checkDni(value));
    case 'es_nie': return fromNif(checkNie(value));
    case 'es_nif': return fromNif(checkNif(value));
    case 'es_cif': return fromNif(checkCif(value));
    case 'es_csv': {
      const c = checkCsv(value);
      return { valid: c.valid, format_ok: c.valid, checksum_ok: null, normalized: c.normalized, reason: c.reason, kind: c.format ?? undefined };
    }
    case 'es_ccc': return checkEsCcc(value);
    case 'es_nss': return checkEsNss(value);
    case 'pt_nif': return checkPtNif(value);
    case 'pt_cc': return checkPtCc(value);
    case 'fr_nir': return checkFrNir(value);
    case 'it_cf': return checkItCf(value, context.reference_date);
    case 'br_cpf': return checkBrCpf(value);
    case 'br_cnpj': return checkBrCnpj(value);
    case 'us_ssn': return checkUsSsn(value);
    case 'us_dl': return checkUsDl(value, context.state);
    case 'us_zip': return checkUsZip(value);
    case 'iban': {
      const c = checkIban(value, { country: context.country });
      return { valid: c.valid, format_ok: !['invalid_characters', 'too_short', 'unknown_country', 'invalid_length', 'invalid_bban_format'].includes(c.reason), checksum_ok: c.valid, normalized: c.normalized, reason: c.reason, expected: c.check_digits.expected, found: c.check_digits.found, kind: c.country ?? undefined };
    }
    case 'bic': {
      const c = checkBic(value);
      return { valid: c.valid, format_ok: c.valid, checksum_ok: null, normalized: c.normalized, reason: c.reason, kind: c.country ?? undefined };
    }
    case 'eu_vat': return checkEuVat(value, context.country);
    default:
      return { valid: false, format_ok: false, checksum_ok: null, normalized: String(value ?? ''), reason: 'unknown_scheme' };
  }
}

function normSex(s: string | undefined): 'M' | 'F' | null {
  if (!s) return null;
  const x = s.trim().toUpperCase();
  if (['M', 'MALE', 'H', 'HOMBRE', 'MASCULINO', 'V', 'VARON', 'VARÓN', '1'].includes(x)) return 'M';
  if (['F', 'FEMALE', 'MUJER', 'FEMENINO', 'W', '2'].includes(x)) return 'F';
  return null;
}

/** Compare data encoded in an identifier (birth year/month/day, sex) with the holder's. */
export function matchEncodedBirthDate(c: IdCheck, birthDate?: string, sex?: string): { passed: boolean; compared: Record<string, { encoded: unknown; expected: unknown; ok: boolean }> } | null {
  const e = c.encoded;
  if (!e || !c.format_ok) return null;
  const compared: Record<string, { encoded: unknown; expected: unknown; ok: boolean }> = {};
  if (birthDate && isIsoDate(birthDate)) {
    const [y, m, d] = birthDate.split('-').map(Number);
    if (e.birth_year_2 !== undefined) compared.birth_year = { encoded: e.birth_year_2, expected: String(y % 100).padStart(2, '0'), ok: Number(e.birth_year_2) === y % 100 };
    if (e.birth_month !== undefined) compared.birth_month = { encoded: e.birth_month, expected: m, ok: e.birth_month === m };
    if (e.birth_day !== undefined) compared.birth_day = { encoded: e.birth_day, expected: d, ok: e.birth_day === d };
  }
  const s = normSex(sex);
  if (s && e.sex) compared.sex = { encoded: e.sex, expected: s, ok: e.sex === s };
  if (Object.keys(compared).length === 0) return null;
  return { passed: Object.values(compared).every((x) => x.ok), compared };
}

export function validateIdNumber(scheme: FieldScheme | string, value: string, context: IdNumberContext = {}): ValidatorResult[] {
  const c = checkIdNumber(scheme, value, context);
  const code: CheckCode = SCHEME_CODE[scheme as FieldScheme] ?? 'id_number_format';
  const fields = context.field ? [context.field] : undefined;
  const params: Record<string, string> = { scheme };
  if (c.expected) params.expected = c.expected;
  if (c.found) params.found = c.found;
  const out: ValidatorResult[] = [
    makeResult(code, c.valid, c.valid ? 'ok' : c.reason, { scheme, input: value, ...c }, { params, fields }),
  ];
  const m = matchEncodedBirthDate(c, context.birth_date, context.sex);
  if (m) {
    out.push(makeResult('id_number_matches_birth_date', m.passed, m.passed ? 'ok' : 'mismatch', { scheme, normalized: c.normalized, compared: m.compared }, {
      params: { scheme },
      fields: fields ? [...fields, 'birth_date'] : ['birth_date'],
    }));
  }
  return out;
}
