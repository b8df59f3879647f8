/**
 * nif_check_digit: Spanish tax identifiers.
 * - DNI: 8 digits + letter, letter = TRWAGMYFPDXBNJZSQVHLCKE[n mod 23].
 * - NIE: X/Y/Z (= 0/1/2) + 7 digits + letter, same mod-23 letter.
 * - K/L/M NIF (natural persons without DNI): letter + 7 digits + mod-23 letter of the 7 digits.
 * - CIF / NIF of legal persons: entity letter + 7 digits + control (digit or letter by entity type).
 * Normalisation: case, spaces, dashes and dots are ignored; an `ES` VAT prefix is accepted.
 */
import { makeResult, type ValidatorResult } from './types.ts';

export const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
const CIF_LETTERS = 'JABCDEFGHI';
/** Entity letters whose control character is always a letter. */
const CIF_LETTER_CONTROL = 'NPQRSW';
/** Entity letters whose control character is always a digit. */
const CIF_DIGIT_CONTROL = 'ABEH';
const CIF_ENTITY = 'ABCDEFGHJNPQRSUVW';

export type NifKind = 'dni' | 'nie' | 'nif_klm' | 'cif';

export interface NifCheck {
  valid: boolean;
  format_ok: boolean;
  kind: NifKind | null;
  normalized: string;
  expected: string | null;
  found: string | null;
  reason: 'ok' | 'invalid_format' | 'invalid_letter' | 'invalid_control' | 'invalid_control_type';
}

export function normaliseNif(value: string): string {
  let v = String(value ?? '')
    .toUpperCase()
    .replace(/[\s.\-‐-―]/g, '');
  if (/^ES[0-9A-Z]\d{7}[0-9A-Z]$/.test(v)) v = v.slice(2);
  return v;
}

export function dniLetter(digits: string | number): string {
  return DNI_LETTERS[Number(digits) % 23];
}

/** Both control characters (digit, letter) of a CIF body (entity letter + 7 digits). */
export function cifControl(body: string): { digit: string; letter: string } {
  const digits = body.slice(1, 8);
  let sum = 0;
  for (let i = 0; i < 7; i++) {
    const d = Number(digits[i]);
    if (i % 2 === 1) sum += d;
    else {
      const x = d * 2;
      sum += Math.floor(x / 10) + (x % 10);
    }
  }
  const c = (10 - (sum % 10)) % 10;
  return { digit: String(c), letter: CIF_LETTERS[c] };
}

function fail(kind: NifKind | null, normalized: string, reason: NifCheck['reason'], expected: string | null = null, found: string | null = null): NifCheck {
  return { valid: false, format_ok: reason !== 'invalid_format', kind, normalized, expected, found, reason };
}

export function checkDni(value: string): NifCheck {
  const v = normaliseNif(value);
  if (!/^\d{8}[A-Z]$/.test(v)) return fail(null, v, 'invalid_format');
  const expected = dniLetter(v.slice(0, 8));
  const found = v[8];
  return expected === found
    ? { valid: true, format_ok: true, kind: 'dni', normalized: v, expected, found, reason: 'ok' }
    : fail('dni', v, 'invalid_letter', expected, found);
}

export function checkNie(value: string): NifCheck {
  const v = normaliseNif(value);
  if (!/^[XYZ]\d{7}[A-Z]$/.test(v)) return fail(null, v, 'invalid_format');
  const expected = dniLetter('XYZ'.indexOf(v[0]) + v.slice(1, 8));
  const found = v[8];
  return expected === found
    ? { valid: true, format_ok: true, kind: 'nie', normalized: v, expected, found, reason: 'ok' }
    : fail('nie', v, 'invalid_letter', expected, found);
}

export function checkKlm(value: string): NifCheck {
  const v = normaliseNif(value);
  if (!/^[KLM]\d{7}[A-Z]$/.test(v)) return fail(null, v, 'invalid_format');
  const expected = dniLetter(v.slice(1, 8));
  const found = v[8];
  return expected === found
    ? { valid: true, format_ok: true, kind: 'nif_klm', normalized: v, expected, found, reason: 'ok' }
    : fail('nif_klm', v, 'invalid_letter', expected, found);
}

export function checkCif(value: string): NifCheck {
  const v = normaliseNif(value);
  if (!new RegExp(`^[${CIF_ENTITY}]\\d{7}[0-9A-J]$`).test(v)) return fail(null, v, 'invalid_format');
  const { digit, letter } = cifControl(v);
  const found = v[8];
  const entity = v[0];
  const allowed = CIF_LETTER_CONTROL.includes(entity) ? [letter] : CIF_DIGIT_CONTROL.includes(entity) ? [digit] : [digit, letter];
  if (allowed.includes(found)) return { valid: true, format_ok: true, kind: 'cif', normalized: v, expected: found, found, reason: 'ok' };
  const reason = found === digit || found === letter ? 'invalid_control_type' : 'invalid_control';
  return fail('cif', v, reason, allowed.join('|'), found);
}

/** Any Spanish NIF: DNI, NIE, K/L/M or CIF (dispatch on the first character). */
export function checkNif(value: string): NifCheck {
  const v = normaliseNif(value);
  if (/^\d/.test(v)) return checkDni(v);
  if (/^[XYZ]/.test(v)) return checkNie(v);
  if (/^[KLM]/.test(v)) return checkKlm(v);
  return checkCif(v);
}

export type NifScheme = 'es_dni' | 'es_nie' | 'es_nif' | 'es_cif';

/** nif_check_digit validator. `scheme` restricts the accepted kinds (default: any NIF). */
export function validateNif(value: string, opts: { scheme?: NifScheme; field?: string } = {}): ValidatorResult {
  const scheme = opts.scheme ?? 'es_nif';
  const fn = scheme === 'es_dni' ? checkDni : scheme === 'es_nie' ? checkNie : scheme === 'es_cif' ? checkCif : checkNif;
  const c = fn(value);
  const evidence = { scheme, input: value, normalized: c.normalized, kind: c.kind, expected: c.expected, found: c.found };
  const params: Record<string, string> = {};
  if (c.expected) params.expected = c.expected;
  if (c.found) params.found = c.found;
  return makeResult('nif_check_digit', c.valid, c.reason, evidence, { params, fields: opts.field ? [opts.field] : undefined });
}
