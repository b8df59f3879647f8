/**
 * National identifier checks (id_number_checksum, id_number_format, id_number_matches_birth_date).
 * Each `check*` function is pure and returns an IdCheck; `validateIdNumber` in index.ts turns
 * it into ValidatorResults. Rules and sources are listed in docs/validators.md.
 */
import { isIsoDate, isoDate } from './types.ts';

export interface IdCheck {
  /** Overall verdict: format and (when the scheme has one) checksum. */
  valid: boolean;
  format_ok: boolean;
  /** null when the scheme has no check digit (format-only). */
  checksum_ok: boolean | null;
  normalized: string;
  reason: string;
  expected?: string | null;
  found?: string | null;
  kind?: string;
  /** Data encoded in the number, for id_number_matches_birth_date. */
  encoded?: { birth_year?: number; birth_year_2?: string; birth_month?: number; birth_day?: number; birth_date?: string | null; sex?: 'M' | 'F' };
  details?: Record<string, unknown>;
}

export function compact(value: string, extra = ''): string {
  const re = new RegExp(`[\\s.\\-‐-―/${extra}]`, 'g');
  return String(value ?? '').toUpperCase().replace(re, '');
}

export function formatFail(normalized: string, reason = 'invalid_format', details?: Record<string, unknown>): IdCheck {
  return { valid: false, format_ok: false, checksum_ok: null, normalized, reason, details };
}

export function checksumResult(normalized: string, expected: string, found: string, extra: Partial<IdCheck> = {}): IdCheck {
  const ok = expected === found;
  return { valid: ok, format_ok: true, checksum_ok: ok, normalized, reason: ok ? 'ok' : 'invalid_checksum', expected, found, ...extra };
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let dbl = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

export function luhnCheckDigit(body: string): string {
  for (let c = 0; c <= 9; c++) if (luhnValid(body + c)) return String(c);
  return '0';
}

/** Big-number modulo for digit strings. */
export function modString(digits: string, m: number): number {
  let r = 0;
  for (const ch of digits) r = (r * 10 + Number(ch)) % m;
  return r;
}

// ---------------------------------------------------------------- Portugal

export function ptNifCheckDigit(first8: string): string {
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(first8[i]) * (9 - i);
  const c = 11 - (sum % 11);
  return String(c >= 10 ? 0 : c);
}

/** Portuguese NIF (NIPC): 9 digits, mod-11 check digit. `PT` prefix accepted. */
export function checkPtNif(value: string): IdCheck {
  let v = compact(value);
  if (/^PT\d{9}$/.test(v)) v = v.slice(2);
  if (!/^\d{9}$/.test(v)) return formatFail(v);
  if (!/^[1235689]|^4[5]|^7[0-9]/.test(v)) return formatFail(v, 'invalid_prefix');
  return checksumResult(v, ptNifCheckDigit(v.slice(0, 8)), v[8]);
}

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Luhn-style check over an alphanumeric string (A=10 ... Z=35), as used by the Cartão de Cidadão. */
function ccSum(s: string): number {
  let sum = 0;
  let dbl = false;
  for (let i = s.length - 1; i >= 0; i--) {
    let d = ALNUM.indexOf(s[i]);
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum;
}

/**
 * Portuguese Cartão de Cidadão document number: 8-digit civil id number, its check digit,
 * 2 version characters and a final check digit (Luhn over the alphanumeric string, A=10..Z=35).
 */
export function checkPtCc(value: string): IdCheck {
  const v = compact(value);
  if (!/^\d{9}[A-Z0-9]{2}\d$/.test(v)) return formatFail(v);
  const body = v.slice(0, 11);
  let expected = '?';
  for (let c = 0; c <= 9; c++) if (ccSum(body + c) % 10 === 0) expected = String(c);
  return checksumResult(v, expected, v[11], { details: { civil_id: v.slice(0, 8), civil_id_check: v[8], version: v.slice(9, 11) } });
}

// ---------------------------------------------------------------- France

const NIR_SEX = '1278';

/** NIR control key: 97 - (N mod 97), with Corsica 2A -> 19 and 2B -> 18 in the number. */
export function nirKey(first13: string): string {
  let n = first13;
  if (n.slice(5, 7) === '2A') n = n.slice(0, 5) + '19' + n.slice(7);
  else if (n.slice(5, 7) === '2B') n = n.slice(0, 5) + '18' + n.slice(7);
  return String(97 - modString(n, 97)).padStart(2, '0');
}

/**
 * French NIR (numéro de sécurité sociale): sex (1/2, 7/8 provisional), YY, MM (01-12, or
 * 20-42 / 50-99 when unknown), department (01-95, 2A/2B, 97x, 99), commune, order, key (optional).
 */
export function checkFrNir(value: string): IdCheck {
  const v = compact(value);
  if (!/^\d{5}(\d{2}|2A|2B)\d{6}(\d{2})?$/.test(v)) return formatFail(v);
  const sex = v[0];
  const yy = v.slice(1, 3);
  const mm = Number(v.slice(3, 5));
  const dep = v.slice(5, 7);
  if (!NIR_SEX.includes(sex)) return formatFail(v, 'invalid_sex');
  if (!((mm >= 1 && mm <= 12) || (mm >= 20 && mm <= 42) || (mm >= 50 && mm <= 99))) return formatFail(v, 'invalid_month');
  if (dep === '00' || dep === '96' || dep === '98') return formatFail(v, 'invalid_department');
  if (dep === '97' && !/^[1-8]$/.test(v[7])) return formatFail(v, 'invalid_department');
  const encoded: IdCheck['encoded'] = { birth_year_2: yy, sex: sex === '1' || sex === '7' ? 'M' : 'F' };
  if (mm >= 1 && mm <= 12) encoded.birth_month = mm;
  const key = nirKey(v.slice(0, 13));
  if (v.length === 13) {
    return { valid: true, format_ok: true, checksum_ok: null, normalized: v, reason: 'ok_without_key', expected: key, found: null, encoded, details: { department: dep } };
  }
  return checksumResult(v, key, v.slice(13), { encoded, details: { department: dep } });
}

// ---------------------------------------------------------------- Italy

const CF_ODD: Record<string, number> = {
  '0': 1, '1': 0, '2': 5, '3': 7, '4': 9, '5': 13, '6': 15, '7': 17, '8': 19, '9': 21,
  A: 1, B: 0, C: 5, D: 7, E: 9, F: 13, G: 15, H: 17, I: 19, J: 21, K: 2, L: 4, M: 18,
  N: 20, O: 11, P: 3, Q: 6, R: 8, S: 12, T: 14, U: 16, V: 10, W: 22, X: 25, Y: 24, Z: 23,
};
const CF_MONTHS = 'ABCDEHLMPRST';
/** Omocodia substitution letters for digits 0-9. */
const CF_OMOCODE = 'LMNPQRSTUV';
const CF_OMOCODE_POS = [6, 7, 9, 10, 12, 13, 14];

export function itCfCheckChar(first15: string): string {
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const c = first15[i];
    if (i % 2 === 0) sum += CF_ODD[c];
    else sum += /\d/.test(c) ? Number(c) : c.charCodeAt(0) - 65;
  }
  return String.fromCharCode(65 + (sum % 26));
}

/** Replace omocodia letters by their digits. */
export function itCfDecodeOmocode(cf: string): string {
  const chars = cf.split('');
  for (const p of CF_OMOCODE_POS) {
    const idx = CF_OMOCODE.indexOf(chars[p]);
    if (idx >= 0) chars[p] = String(idx);
  }
  return chars.join('');
}

/**
 * Italian codice fiscale: 16-character personal code (check character, birth date and sex
 * coding, omocodia) or 11-digit numeric code of legal persons (Luhn, like the Partita IVA).
 * `referenceDate` (YYYY-MM-DD) resolves the century of the birth year (the latest year not after it).
 */
export function checkItCf(value: string, referenceDate?: string): IdCheck {
  const v = compact(value);
  if (/^\d{11}$/.test(v)) {
    return checksumResult(v, luhnCheckDigit(v.slice(0, 10)), v[10], { kind: 'legal_person' });
  }
  const re = /^[A-Z]{6}[0-9LMNPQRSTUV]{2}[ABCDEHLMPRST][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]$/;
  if (!re.test(v)) return formatFail(v);
  const d = itCfDecodeOmocode(v);
  const yy = Number(d.slice(6, 8));
  const month = CF_MONTHS.indexOf(d[8]) + 1;
  let day = Number(d.slice(9, 11));
  let sex: 'M' | 'F' = 'M';
  if (day > 40) {
    day -= 40;
    sex = 'F';
  }
  if (day < 1 || day > 31) return formatFail(v, 'invalid_birth_date');
  const refYear = referenceDate && isIsoDate(referenceDate) ? Number(referenceDate.slice(0, 4)) : undefined;
  // Try the latest century first; the date must exist in the chosen year (29 February).
  const candidates = [2000 + yy, 1900 + yy, 1800 + yy].filter((y) => refYear === undefined || y <= refYear);
  const birth = candidates.map((y) => isoDate(y, month, day)).find((x) => x !== null) ?? null;
  if (!birth && ![2000 + yy, 1900 + yy, 1800 + yy].some((y) => isoDate(y, month, day))) return formatFail(v, 'invalid_birth_date');
  const encoded = { birth_year_2: d.slice(6, 8), birth_month: month, birth_day: day, birth_date: birth, sex };
  return checksumResult(v, itCfCheckChar(v.slice(0, 15)), v[15], {
    kind: 'person',
    encoded,
    details: { omocode: d !== v, decoded: d, place_code: d.slice(11, 15) },
  });
}

// ---------------------------------------------------------------- Brazil

function mod11Dv(values: number[], weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i] * weights[i];
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

export function cpfCheckDigits(first9: string): string {
  const d = first9.split('').map(Number);
  const dv1 = mod11Dv(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
  const dv2 = mod11Dv([...d, dv1], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]);
  return `${dv1}${dv2}`;
}

/** Brazilian CPF: 11 digits (mask 000.000.000-00), two mod-11 check digits, repeated digits rejected. */
export function checkBrCpf(value: string): IdCheck {
  const v = compact(value);
  if (!/^\d{11}$/.test(v)) return formatFail(v);
  if (/^(\d)\1{10}$/.test(v)) return formatFail(v, 'repeated_digits');
  return checksumResult(v, cpfCheckDigits(v.slice(0, 9)), v.slice(9));
}

export function cnpjCheckDigits(first12: string): string {
  const vals = first12.split('').map((c) => c.charCodeAt(0) - 48);
  const w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const w2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const dv1 = mod11Dv(vals, w1);
  const dv2 = mod11Dv([...vals, dv1], w2);
  return `${dv1}${dv2}`;
}

/**
 * Brazilian CNPJ: 14 characters (mask 00.000.000/0000-00); since July 2026 the first 12 may be
 * alphanumeric (value = char code - 48), the last 2 are mod-11 check digits.
 */
export function checkBrCnpj(value: string): IdCheck {
  const v = compact(value);
  if (!/^[0-9A-Z]{12}\d{2}$/.test(v)) return formatFail(v);
  if (/^(\d)\1{13}$/.test(v)) return formatFail(v, 'repeated_digits');
  return checksumResult(v, cnpjCheckDigits(v.slice(0, 12)), v.slice(12), { kind: /[A-Z]/.test(v) ? 'alphanumeric' : 'numeric' });
}

// ---------------------------------------------------------------- United States

/** Numbers the SSA states were never valid (advertising, Woolworth wallet card). */
const SSN_BLOCKLIST = new Set(['078051120', '219099999']);

/**
 * US SSN (format rules only, no check digit): AAA-GG-SSSS or 9 digits; area not 000, 666 or
 * 900-999; group not 00; serial not 0000; known advertising numbers rejected.
 */
export function checkUsSsn(value: string): IdCheck {
  const raw = String(value ?? '').trim();
  if (!/^\d{9}$/.test(raw) && !/^\d{3}[- ]\d{2}[- ]\d{4}$/.test(raw)) return formatFail(raw.replace(/\D/g, ''));
  const v = raw.replace(/\D/g, '');
  const area = v.slice(0, 3);
  const group = v.slice(3, 5);
  const serial = v.slice(5);
  const bad = (reason: string): IdCheck => ({ valid: false, format_ok: false, checksum_ok: null, normalized: v, reason });
  if (area === '000' || area === '666' || area[0] === '9') return bad('invalid_area');
  if (group === '00') return bad('invalid_group');
  if (serial === '0000') return bad('invalid_serial');
  if (SSN_BLOCKLIST.has(v)) return bad('blocklisted');
  return { valid: true, format_ok: true, checksum_ok: null, normalized: v, reason: 'ok' };
}

/** US ZIP code: 5 digits or ZIP+4 (9 digits, dash optional). */
export function checkUsZip(value: string): IdCheck {
  const raw = String(value ?? '').trim();
  const m = /^(\d{5})(?:[- ]?(\d{4}))?$/.exec(raw);
  if (!m) return formatFail(raw);
  return { valid: true, format_ok: true, checksum_ok: null, normalized: m[2] ? `${m[1]}-${m[2]}` : m[1], reason: 'ok' };
}

// ---------------------------------------------------------------- Spain (other than NIF)

/** CCC (código cuenta cliente) check digits: two mod-11 digits over bank+branch and account. */
export function cccCheckDigits(bank8: string, account10: string): string {
  const w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6];
  const dc = (s: string) => {
    let sum = 0;
    for (let i = 0; i < 10; i++) sum += Number(s[i]) * w[i];
    const c = 11 - (sum % 11);
    return c === 11 ? 0 : c === 10 ? 1 : c;
  };
  return `${dc('00' + bank8)}${dc(account10)}`;
}

/** Spanish CCC: 20 digits (4 bank, 4 branch, 2 control, 10 account). */
export function checkEsCcc(value: string): IdCheck {
  const v = compact(value);
  if (!/^\d{20}$/.test(v)) return formatFail(v, /^\d*$/.test(v) ? 'invalid_length' : 'invalid_format');
  return checksumResult(v, cccCheckDigits(v.slice(0, 8), v.slice(10)), v.slice(8, 10));
}

/**
 * Spanish Seguridad Social affiliation number (NSS / NAF): 12 digits = province (2) + number (8)
 * + control (2); control = (province * 10^8 + number) mod 97, where numbers below 10^7 are
 * taken as province * 10^7 + number (the historical 7-digit series).
 */
export function checkEsNss(value: string): IdCheck {
  const v = compact(value);
  if (!/^\d{12}$/.test(v)) return formatFail(v);
  const prov = Number(v.slice(0, 2));
  const num = Number(v.slice(2, 10));
  const base = num < 10_000_000 ? prov * 10_000_000 + num : Number(v.slice(0, 10));
  const expected = String(base % 97).padStart(2, '0');
  return checksumResult(v, expected, v.slice(10), { details: { province: v.slice(0, 2) } });
}
