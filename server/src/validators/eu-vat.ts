/**
 * eu_vat: EU VAT identification numbers (VIES prefixes, `EL` for Greece, `XI` Northern Ireland,
 * `EU` non-union OSS). Format per country, and the national check digit where it is well known
 * (all the member states below; see docs/validators.md). A country prefix is required unless
 * `country` is given; the prefix must appear once.
 */
import { checkNif } from './nif.ts';
import { checkPtNif, luhnValid, modString, formatFail, type IdCheck } from './id-numbers.ts';

const dig = (s: string) => s.split('').map(Number);
const wsum = (d: number[], w: number[]) => w.reduce((a, x, i) => a + x * d[i], 0);

function res(v: string, ok: boolean, checksum: boolean | null = true): IdCheck {
  if (!ok) return { valid: false, format_ok: true, checksum_ok: false, normalized: v, reason: 'invalid_checksum' };
  return { valid: true, format_ok: true, checksum_ok: checksum, normalized: v, reason: 'ok' };
}

type Rule = (n: string) => IdCheck;

function iso7064Mod11_10(s: string): boolean {
  let p = 10;
  for (let i = 0; i < s.length - 1; i++) {
    let t = (Number(s[i]) + p) % 10;
    if (t === 0) t = 10;
    p = (2 * t) % 11;
  }
  return (11 - p) % 10 === Number(s[s.length - 1]);
}

function bgEgn(n: string): boolean {
  const d = dig(n);
  let y = Number(n.slice(0, 2));
  let m = Number(n.slice(2, 4));
  const day = Number(n.slice(4, 6));
  if (m > 40) { y += 2000; m -= 40; } else if (m > 20) { y += 1800; m -= 20; } else y += 1900;
  if (m < 1 || m > 12 || day < 1 || day > 31) return false;
  return (wsum(d, [2, 4, 8, 5, 10, 9, 7, 3, 6]) % 11) % 10 === d[9];
}

function czBirthNumber(n: string): boolean {
  // Rodné číslo (9 digits before 1954, 10 digits after, divisible by 11).
  let yy = Number(n.slice(0, 2));
  let mm = Number(n.slice(2, 4));
  const dd = Number(n.slice(4, 6));
  if (mm > 70) mm -= 70; else if (mm > 50) mm -= 50; else if (mm > 20) mm -= 20;
  if (mm < 1 || mm > 12 || dd < 1 || dd > 31) return false;
  if (n.length === 9) return yy < 54;
  yy += yy < 54 ? 2000 : 1900;
  const base = Number(n.slice(0, 9)) % 11;
  return Number(n) % 11 === 0 || (base === 10 && n[9] === '0');
}

const RULES: Record<string, { re: RegExp; check: Rule }> = {
  AT: { re: /^U\d{8}$/, check: (n) => {
    const d = dig(n.slice(1));
    let s = 0;
    for (let i = 0; i < 7; i++) {
      if (i % 2 === 0) s += d[i];
      else { const x = d[i] * 2; s += Math.floor(x / 10) + (x % 10); }
    }
    return res(n, (10 - ((s + 4) % 10)) % 10 === d[7]);
  } },
  BE: { re: /^[01]?\d{9}$/, check: (n) => {
    const v = n.length === 9 ? '0' + n : n;
    return res(v, 97 - (Number(v.slice(0, 8)) % 97) === Number(v.slice(8)));
  } },
  BG: { re: /^\d{9,10}$/, check: (n) => {
    const d = dig(n);
    if (n.length === 9) {
      let c = wsum(d, [1, 2, 3, 4, 5, 6, 7, 8]) % 11;
      if (c === 10) c = (wsum(d, [3, 4, 5, 6, 7, 8, 9, 10]) % 11) % 10;
      return res(n, c === d[8]);
    }
    if (bgEgn(n)) return res(n, true);
    if ((wsum(d, [21, 19, 17, 13, 11, 9, 7, 3, 1]) % 10) === d[9]) return res(n, true);
    const c = 11 - (wsum(d, [4, 3, 2, 7, 6, 5, 4, 3, 2]) % 11);
    return res(n, c !== 10 && (c === 11 ? 0 : c) === d[9]);
  } },
  CY: { re: /^[0-59]\d{7}[A-Z]$/, check: (n) => {
    if (n.startsWith('12')) return formatFail(n, 'invalid_prefix');
    const tr = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21];
    let s = 0;
    for (let i = 0; i < 8; i++) s += i % 2 === 0 ? tr[Number(n[i])] : Number(n[i]);
    return res(n, String.fromCharCode(65 + (s % 26)) === n[8]);
  } },
  CZ: { re: /^\d{8,10}$/, check: (n) => {
    const d = dig(n);
    if (n.length === 8) {
      if (n[0] === '9') return formatFail(n, 'invalid_prefix');
      const c = (11 - (wsum(d, [8, 7, 6, 5, 4, 3, 2]) % 11)) % 11;
      return res(n, (c === 0 ? 1 : c) % 10 === d[7]);
    }
    if (n.length === 9 && n[0] === '6') {
      const c = wsum(d.slice(1), [8, 7, 6, 5, 4, 3, 2]) % 11;
      return res(n, ((((8 - ((10 - c) % 11)) % 10) + 10) % 10) === d[8]);
    }
    return res(n, czBirthNumber(n));
  } },
  DE: { re: /^\d{9}$/, check: (n) => res(n, iso7064Mod11_10(n)) },
  DK: { re: /^[1-9]\d{7}$/, check: (n) => res(n, wsum(dig(n), [2, 7, 6, 5, 4, 3, 2, 1]) % 11 === 0) },
  EE: { re: /^10\d{7}$/, check: (n) => res(n, (10 - (wsum(dig(n), [3, 7, 1, 3, 7, 1, 3, 7]) % 10)) % 10 === Number(n[8])) },
  EL: { re: /^\d{8,9}$/, check: (n) => {
    const v = n.padStart(9, '0');
    const d = dig(v);
    let s = 0;
    for (let i = 0; i < 8; i++) s += d[i] * 2 ** (8 - i);
    return res(v, (s % 11) % 10 === d[8]);
  } },
  ES: { re: /^[0-9A-Z]\d{7}[0-9A-Z]$/, check: (n) => {
    const c = checkNif(n);
    return c.format_ok ? res(n, c.valid) : formatFail(n);
  } },
  FI: { re: /^\d{8}$/, check: (n) => {
    const c = 11 - (wsum(dig(n), [7, 9, 10, 5, 8, 4, 2]) % 11);
    return res(n, c !== 10 && (c === 11 ? 0 : c) === Number(n[7]));
  } },
  FR: { re: /^[0-9A-HJ-NP-Z]{2}\d{9}$/, check: (n) => {
    const siren = n.slice(2);
    if (siren.slice(0, 3) !== '000' && !luhnValid(siren)) return res(n, false);
    const A = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
    if (/^\d\d/.test(n)) return res(n, Number(n.slice(0, 2)) === modString(siren + '12', 97));
    const c = /^\d/.test(n) ? A.indexOf(n[0]) * 24 + A.indexOf(n[1]) - 10 : A.indexOf(n[0]) * 34 + A.indexOf(n[1]) - 100;
    return res(n, (Number(siren) + 1 + Math.floor(c / 11)) % 11 === c % 11);
  } },
  HR: { re: /^\d{11}$/, check: (n) => res(n, iso7064Mod11_10(n)) },
  HU: { re: /^\d{8}$/, check: (n) => res(n, wsum(dig(n), [9, 7, 3, 1, 9, 7, 3, 1]) % 10 === 0) },
  IE: { re: /^(\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/, check: (n) => {
    const A = 'WABCDEFGHIJKLMNOPQRSTUV';
    const calc = (s: string) => {
      const num = s.slice(0, 7).padStart(7, '0');
      const extra = s.slice(7);
      return A[(wsum(dig(num), [8, 7, 6, 5, 4, 3, 2]) + 9 * (extra ? A.indexOf(extra) : 0)) % 23];
    };
    if (/^\d{7}/.test(n)) return res(n, n[7] === calc(n.slice(0, 7) + n.slice(8)));
    return res(n, n[7] === calc(n.slice(2, 7) + n[0]));
  } },
  IT: { re: /^\d{11}$/, check: (n) => {
    if (n.slice(0, 7) === '0000000') return formatFail(n, 'invalid_format');
    const office = Number(n.slice(7, 10));
    if (!((office >= 1 && office <= 100) || [120, 121, 888, 999].includes(office))) return formatFail(n, 'invalid_office');
    return res(n, luhnValid(n));
  } },
  LT: { re: /^(\d{9}|\d{12})$/, check: (n) => {
    if (n[n.length - 2] !== '1') return formatFail(n, 'invalid_format');
    const d = dig(n.slice(0, -1));
    let c = d.reduce((a, x, i) => a + x * ((i % 9) + 1), 0) % 11;
    if (c === 10) c = (d.reduce((a, x, i) => a + x * (((i + 2) % 9) + 1), 0) % 11) % 10;
    return res(n, c === Number(n[n.length - 1]));
  } },
  LU: { re: /^\d{8}$/, check: (n) => res(n, Number(n.slice(0, 6)) % 89 === Number(n.slice(6))) },
  LV: { re: /^\d{11}$/, check: (n) => {
    const d = dig(n);
    if (d[0] > 3) return res(n, wsum(d, [9, 1, 4, 8, 3, 10, 2, 5, 7, 6, 1]) % 11 === 3);
    const day = Number(n.slice(0, 2));
    const mon = Number(n.slice(2, 4));
    if (day < 1 || day > 31 || mon < 1 || mon > 12) return formatFail(n, 'invalid_birth_date');
    const c = (1101 - wsum(d, [1, 6, 3, 7, 9, 10, 5, 8, 4, 2])) % 11;
    return res(n, c === d[10]);
  } },
  MT: { re: /^[1-9]\d{7}$/, check: (n) => res(n, wsum(dig(n), [3, 4, 6, 7, 8, 9, 10, 1]) % 37 === 0) },
  NL: { re: /^\d{7,9}B\d{2}$/, check: (n0) => {
    const n = n0.slice(0, -3).padStart(9, '0') + n0.slice(-3);
    if (n.endsWith('00')) return formatFail(n, 'invalid_format');
    const d = dig(n.slice(0, 9));
    const s = wsum(d, [9, 8, 7, 6, 5, 4, 3, 2]) - d[8];
    if (s % 11 === 0) return res(n, true);
    const conv = ('NL' + n).split('').map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55))).join('');
    return res(n, modString(conv, 97) === 1);
  } },
  PL: { re: /^\d{10}$/, check: (n) => res(n, wsum(dig(n), [6, 5, 7, 2, 3, 4, 5, 6, 7]) % 11 === Number(n[9])) },
  PT: { re: /^\d{9}$/, check: (n) => {
    const c = checkPtNif(n);
    return c.format_ok ? res(n, c.valid) : formatFail(n, c.reason);
  } },
  RO: { re: /^([1-9]\d{1,9}|[1-9]\d{12})$/, check: (n) => {
    if (n.length === 13) {
      // CNP (personal numeric code) of natural persons.
      const c = wsum(dig(n), [2, 7, 9, 1, 4, 6, 3, 5, 8, 2, 7, 9]) % 11;
      return res(n, (c === 10 ? 1 : c) === Number(n[12]));
    }
    const v = n.padStart(10, '0');
    const s = wsum(dig(v), [7, 5, 3, 2, 1, 7, 5, 3, 2]);
    return res(n, ((s * 10) % 11) % 10 === Number(v[9]));
  } },
  SE: { re: /^\d{10}01$/, check: (n) => res(n, luhnValid(n.slice(0, 10))) },
  SI: { re: /^[1-9]\d{7}$/, check: (n) => {
    const c = 11 - (wsum(dig(n), [8, 7, 6, 5, 4, 3, 2]) % 11);
    return res(n, c !== 11 && c % 10 === Number(n[7]));
  } },
  SK: { re: /^[1-9]\d[2-47-9]\d{7}$/, check: (n) => res(n, modString(n, 11) === 0) },
  XI: { re: /^(\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/, check: (n) => {
    if (/^(GD|HA)/.test(n)) return res(n, true, null);
    const d = dig(n.slice(0, 9));
    const s = wsum(d, [8, 7, 6, 5, 4, 3, 2]) + Number(n.slice(7, 9));
    return res(n, s % 97 === 0 || (s + 55) % 97 === 0);
  } },
  EU: { re: /^\d{9}$/, check: (n) => res(n, true, null) },
};

export const EU_VAT_COUNTRIES = Object.keys(RULES);

/** Check an EU VAT number. `country` (ISO alpha-2, GR accepted for EL) is used when the value has no prefix. */
export function checkEuVat(value: string, country?: string): IdCheck {
  const v = String(value ?? '').toUpperCase().replace(/[\s.\-‐-―/:()]/g, '');
  let cc = v.slice(0, 2);
  let n = v.slice(2);
  if (!RULES[cc] && cc !== 'GR') {
    if (!country) return formatFail(v, 'unknown_country');
    cc = country.toUpperCase();
    n = v;
  }
  if (cc === 'GR') cc = 'EL';
  const rule = RULES[cc];
  if (!rule) return formatFail(v, 'unknown_country');
  if (!rule.re.test(n)) return { ...formatFail(n), kind: cc };
  const r = rule.check(n);
  return { ...r, normalized: cc + r.normalized, kind: cc };
}
