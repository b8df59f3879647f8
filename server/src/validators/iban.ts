/**
 * iban_checksum: ISO 13616 IBAN. Wraps `ibantools` (country length, BBAN structure, mod-97 and
 * the national check digits it knows: BA BE CZ EE ES FR HR HU MC ME MK NO PL PT RS SI SK), with
 * stricter SWIFT-registry BBAN patterns for a few countries where ibantools is lenient, and the
 * Spanish CCC "dígitos de control" reported explicitly in the evidence.
 * Normalisation: upper case; spaces, dashes and dots removed; an `IBAN` prefix removed.
 */
import * as ibantools from 'ibantools';
import { cccCheckDigits, modString } from './id-numbers.ts';
import { makeResult, type ValidatorResult } from './types.ts';

/** SWIFT IBAN registry BBAN formats where ibantools accepts a wider alphabet. */
const REGISTRY_BBAN_OVERRIDES: Record<string, RegExp> = {
  IE: /^[A-Z]{4}\d{14}$/,
  VG: /^[A-Z]{4}\d{16}$/,
  PS: /^[A-Z]{4}[A-Z0-9]{21}$/,
};

export interface IbanOptions {
  /** Check the national BBAN check digits (ES CCC etc.). Default true. */
  national_check?: boolean;
  /** Require this country (ISO alpha-2). */
  country?: string;
  /** Caller policy: only these countries are accepted. */
  allowed_countries?: string[];
  /** Caller policy: these countries are rejected. */
  denied_countries?: string[];
  field?: string;
}

export interface IbanCheck {
  valid: boolean;
  reason: string;
  normalized: string;
  country: string | null;
  expected_length: number | null;
  check_digits: { expected: string | null; found: string | null };
  national?: { scheme: string; expected: string | null; found: string | null; valid: boolean | null };
}

export function normaliseIban(value: string): string {
  return String(value ?? '')
    .toUpperCase()
    .replace(/^IBAN[:\s]*/, '')
    .replace(/[\s.\-‐-―]/g, '');
}

/** ISO 7064 MOD 97-10 check digits of an IBAN (country + "00" + BBAN rearranged). */
export function ibanCheckDigits(country: string, bban: string): string {
  const s = (bban + country + '00')
    .split('')
    .map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55)))
    .join('');
  return String(98 - modString(s, 97)).padStart(2, '0');
}

export function checkIban(value: string, opts: IbanOptions = {}): IbanCheck {
  const v = normaliseIban(value);
  const country = /^[A-Z]{2}/.test(v) ? v.slice(0, 2) : null;
  const spec = country ? ibantools.countrySpecs[country] : undefined;
  const base: IbanCheck = {
    valid: false,
    reason: 'ok',
    normalized: v,
    country,
    expected_length: spec?.chars ?? null,
    check_digits: { expected: null, found: v.slice(2, 4) || null },
  };
  const fail = (reason: string): IbanCheck => ({ ...base, valid: false, reason });
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(v)) return fail(v.length < 5 ? 'too_short' : 'invalid_characters');
  if (!spec || !spec.chars) return fail('unknown_country');
  if (opts.country && opts.country.toUpperCase() !== country) return fail('unexpected_country');
  if (opts.allowed_countries && !opts.allowed_countries.map((c) => c.toUpperCase()).includes(country!)) return fail('country_not_allowed');
  if (opts.denied_countries && opts.denied_countries.map((c) => c.toUpperCase()).includes(country!)) return fail('country_not_allowed');
  const bban = v.slice(4);
  base.check_digits.expected = ibanCheckDigits(country!, bban);
  if (v.length !== spec.chars) return fail('invalid_length');
  const override = REGISTRY_BBAN_OVERRIDES[country!];
  if (override ? !override.test(bban) : !!spec.bban_regexp && !new RegExp(spec.bban_regexp).test(bban)) {
    return fail('invalid_bban_format');
  }
  if (base.check_digits.expected !== base.check_digits.found) return fail('invalid_check_digits');
  if (country === 'ES') {
    const expected = cccCheckDigits(bban.slice(0, 8), bban.slice(10));
    const found = bban.slice(8, 10);
    base.national = { scheme: 'es_ccc', expected, found, valid: expected === found };
  }
  if (opts.national_check !== false) {
    const errors = ibantools.validateIBAN(v, { allowQRIBAN: true }).errorCodes;
    const nationalFail = errors.includes(ibantools.ValidationErrorsIBAN.WrongAccountBankBranchChecksum) || base.national?.valid === false;
    if (!base.national && spec.bban_validation_func) base.national = { scheme: `${country!.toLowerCase()}_national`, expected: null, found: null, valid: !nationalFail };
    if (nationalFail) return fail('invalid_national_check_digits');
  }
  return { ...base, valid: true, reason: 'ok' };
}

export function validateIban(value: string, opts: IbanOptions = {}): ValidatorResult {
  const c = checkIban(value, opts);
  const params: Record<string, string> = {};
  if (c.country) params.country = c.country;
  if (!c.valid && c.check_digits.expected) params.expected = c.check_digits.expected;
  return makeResult('iban_checksum', c.valid, c.reason, { input: value, ...c }, { params, fields: [opts.field ?? 'iban'] });
}

/** BIC / SWIFT code (ISO 9362): 4 letters bank, ISO country, 2 location, optional 3 branch. */
export function checkBic(value: string): { valid: boolean; normalized: string; reason: string; country: string | null } {
  const v = String(value ?? '').toUpperCase().replace(/\s/g, '');
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(v)) return { valid: false, normalized: v, reason: 'invalid_format', country: null };
  const ok = ibantools.isValidBIC(v);
  return { valid: ok, normalized: v, reason: ok ? 'ok' : 'unknown_country', country: v.slice(4, 6) };
}
