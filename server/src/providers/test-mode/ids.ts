/**
 * Valid identifiers for simulated readings. Every check digit comes from the validators' own helpers, so a
 * simulated value passes exactly the rule the pipeline applies; `corruptCheck` breaks one on purpose.
 */
import { checkIdNumber, dniLetter, cifControl, ibanCheckDigits, checkIban } from '../../validators/index.ts';
import { cccCheckDigits, cpfCheckDigits, cnpjCheckDigits, nirKey, itCfCheckChar, ptNifCheckDigit, luhnCheckDigit } from '../../validators/id-numbers.ts';
import { US_DL_FORMATS } from '../../validators/us-dl.ts';
import type { Rng } from './prng.ts';
import { UPPER } from './prng.ts';
import type { Bank } from './pools.ts';

// ------------------------------------------------------------------ Spain

export function dni(rng: Rng): string {
  const n = String(rng.int(10_000_000, 79_999_999));
  return n + dniLetter(n);
}

/** A DNI from its digits (or a DNI with a wrong letter): the letter is recomputed. */
export function dniFromDigits(digits: string): string {
  const n = digits.replace(/\D/g, '').padStart(8, '0').slice(-8);
  return n + dniLetter(n);
}

export function nie(rng: Rng): string {
  const first = rng.pick(['X', 'Y', 'Y', 'Z']);
  const body = rng.digits(7);
  return first + body + dniLetter('XYZ'.indexOf(first) + body);
}

export function nieFrom(value: string): string {
  const v = value.toUpperCase().replace(/[^0-9A-Z]/g, '');
  const first = v[0];
  const body = v.slice(1, 8);
  return first + body + dniLetter('XYZ'.indexOf(first) + body);
}

/** Company NIF (former CIF), entity letter B (limited company) by default; control digit. */
export function cif(rng: Rng, entity = 'B'): string {
  const body = entity + rng.digits(7);
  const { digit, letter } = cifControl(body);
  return body + ('NPQRSW'.includes(entity) ? letter : digit);
}

/** Spanish Social Security number `PP/NNNNNNNN/CC` (province from the postal code). */
export function esNss(rng: Rng, province: string): string {
  const prov = province.padStart(2, '0').slice(0, 2);
  const num = String(rng.int(10_000_000, 99_999_999));
  const control = String(Number(prov + num) % 97).padStart(2, '0');
  return `${prov}/${num}/${control}`;
}

export interface Account {
  iban: string;
  /** Printed IBAN, in groups of four. */
  ibanPrinted: string;
  national: string;
  bank: Bank;
  bic: string;
}

function group4(s: string): string {
  return s.replace(/(.{4})/g, '$1 ').trim();
}

function finishIban(country: string, bban: string, bank: Bank, national: string): Account {
  const iban = country + ibanCheckDigits(country, bban) + bban;
  return { iban, ibanPrinted: group4(iban), national, bank, bic: bank.bic };
}

/** Tries the national check digits at `pos` (length `len`) until ibantools accepts the IBAN. */
function withNationalCheck(country: string, build: (check: string) => string, len: number): string {
  const max = 10 ** len;
  for (let c = 0; c < max; c++) {
    const bban = build(String(c).padStart(len, '0'));
    const iban = country + ibanCheckDigits(country, bban) + bban;
    if (checkIban(iban).valid) return bban;
  }
  throw new Error(`test-mode: no national check digits for ${country}`);
}

export function account(rng: Rng, country: string, banks: readonly Bank[]): Account {
  const bank = rng.pick(banks);
  switch (country) {
    case 'ES': {
      const branch = rng.digits(4);
      const acc = rng.digits(10);
      const dc = cccCheckDigits(bank.code + branch, acc);
      const bban = bank.code + branch + dc + acc;
      return finishIban('ES', bban, bank, `${bank.code} ${branch} ${dc} ${acc}`);
    }
    case 'PT': {
      const branch = rng.digits(4);
      const acc = rng.digits(11);
      const bban = withNationalCheck('PT', (c) => bank.code + branch + acc + c, 2);
      return finishIban('PT', bban, bank, bban.slice(0, 4) + ' ' + bban.slice(4, 8) + ' ' + bban.slice(8, 19) + ' ' + bban.slice(19));
    }
    case 'FR': {
      const guichet = rng.digits(5);
      const acc = rng.digits(11);
      const bban = withNationalCheck('FR', (c) => bank.code + guichet + acc + c, 2);
      return finishIban('FR', bban, bank, `${bban.slice(0, 5)} ${bban.slice(5, 10)} ${bban.slice(10, 21)} ${bban.slice(21)}`);
    }
    case 'IT': {
      const cab = rng.digits(5);
      const acc = rng.digits(12);
      const bban = rng.pick(UPPER.split('')) + bank.code + cab + acc;
      return finishIban('IT', bban, bank, bban);
    }
    case 'DE': {
      const bban = bank.code + rng.digits(10);
      return finishIban('DE', bban, bank, bban.slice(8));
    }
    case 'BE': {
      const body = bank.code + rng.digits(7);
      const c = Number(body) % 97 || 97;
      const bban = body + String(c).padStart(2, '0');
      return finishIban('BE', bban, bank, `${bban.slice(0, 3)}-${bban.slice(3, 10)}-${bban.slice(10)}`);
    }
    case 'NL': {
      const bban = bank.code + rng.digits(10);
      return finishIban('NL', bban, bank, bban.slice(4));
    }
    case 'AT': {
      const bban = bank.code + rng.digits(11);
      return finishIban('AT', bban, bank, bban.slice(5));
    }
    default:
      throw new Error(`test-mode: no IBAN generator for ${country}`);
  }
}

// ------------------------------------------------------------------ Portugal

/** NIF (persons: 1/2, companies: 5). */
export function ptNif(rng: Rng, first: '1' | '2' | '5' = '2'): string {
  const body = first + rng.digits(7);
  return body + ptNifCheckDigit(body);
}

/** Cartão de Cidadão number `NNNNNNNN C VVC` (civil id, its check digit, version, final check digit). */
export function ptCc(rng: Rng): string {
  const civil = String(rng.int(10_000_000, 39_999_999));
  const civilCheck = ptNifCheckDigit(civil);
  const version = rng.pick(['ZZ', 'ZY', 'ZX']);
  for (let c = 0; c <= 9; c++) {
    const v = `${civil}${civilCheck}${version}${c}`;
    if (checkIdNumber('pt_cc', v).valid) return `${civil} ${civilCheck} ${version}${c}`;
  }
  throw new Error('test-mode: pt_cc');
}

// ------------------------------------------------------------------ France

/** NIR (numéro de sécurité sociale) with its key, printed `S YY MM DD CCC OOO KK`. */
export function frNir(rng: Rng, sex: 'M' | 'F', birth: string, insee: string): string {
  const body = (sex === 'M' ? '1' : '2') + birth.slice(2, 4) + birth.slice(5, 7) + insee.slice(0, 5) + String(rng.int(1, 999)).padStart(3, '0');
  const key = nirKey(body);
  return `${body[0]} ${body.slice(1, 3)} ${body.slice(3, 5)} ${body.slice(5, 7)} ${body.slice(7, 10)} ${body.slice(10, 13)} ${key}`;
}

/** SIREN (9 digits, Luhn). */
export function siren(rng: Rng): string {
  const body = String(rng.int(30_000_000, 99_999_999));
  return body + luhnCheckDigit(body);
}

/** SIRET = SIREN + NIC (5 digits), Luhn over the 14 digits. */
export function siret(sirenValue: string, rng: Rng): string {
  const body = sirenValue + '0' + rng.digits(3);
  return body + luhnCheckDigit(body);
}

// ------------------------------------------------------------------ Italy

const VOWELS = 'AEIOU';
function letters(s: string): string {
  return s.normalize('NFD').replace(/\p{M}+/gu, '').toUpperCase().replace(/[^A-Z]/g, '');
}
function cons(s: string): string {
  return letters(s).split('').filter((c) => !VOWELS.includes(c)).join('');
}
function vows(s: string): string {
  return letters(s).split('').filter((c) => VOWELS.includes(c)).join('');
}

/** Codice fiscale of a person (surname, name, birth date, sex, cadastral code of the birth place). */
export function itCf(surname: string, given: string, birth: string, sex: 'M' | 'F', placeCode: string): string {
  const sc = (cons(surname) + vows(surname) + 'XXX').slice(0, 3);
  const gc0 = cons(given);
  const gc = gc0.length >= 4 ? gc0[0] + gc0[2] + gc0[3] : (gc0 + vows(given) + 'XXX').slice(0, 3);
  const month = 'ABCDEHLMPRST'[Number(birth.slice(5, 7)) - 1];
  const day = Number(birth.slice(8, 10)) + (sex === 'F' ? 40 : 0);
  const body = sc + gc + birth.slice(2, 4) + month + String(day).padStart(2, '0') + placeCode;
  return body + itCfCheckChar(body);
}

/** Partita IVA (11 digits, Luhn). */
export function partitaIva(rng: Rng): string {
  const body = rng.digits(7) + String(rng.int(1, 100)).padStart(3, '0');
  return body + luhnCheckDigit(body);
}

// ------------------------------------------------------------------ Brazil

export function cpf(rng: Rng): string {
  let body = rng.digits(9);
  if (/^(\d)\1{8}$/.test(body)) body = '1' + body.slice(1, 8) + '2';
  const v = body + cpfCheckDigits(body);
  return `${v.slice(0, 3)}.${v.slice(3, 6)}.${v.slice(6, 9)}-${v.slice(9)}`;
}

export function cpfFrom(value: string): string {
  const body = value.replace(/\D/g, '').slice(0, 9).padStart(9, '0');
  const v = body + cpfCheckDigits(body);
  return `${v.slice(0, 3)}.${v.slice(3, 6)}.${v.slice(6, 9)}-${v.slice(9)}`;
}

export function cnpj(rng: Rng): string {
  const body = rng.digits(8) + '0001';
  const v = body + cnpjCheckDigits(body);
  return `${v.slice(0, 2)}.${v.slice(2, 5)}.${v.slice(5, 8)}/${v.slice(8, 12)}-${v.slice(12)}`;
}

// ------------------------------------------------------------------ United States

export function ssn(rng: Rng): string {
  let area = rng.int(1, 899);
  if (area === 666) area = 667;
  return `${String(area).padStart(3, '0')}-${String(rng.int(1, 99)).padStart(2, '0')}-${String(rng.int(1, 9999)).padStart(4, '0')}`;
}

/** Driver licence / state ID number in the state's format (one of the formats the us_dl validator accepts). */
export function usDl(rng: Rng, state: string): string {
  const L = () => rng.pick(UPPER.split(''));
  switch (state) {
    case 'CA': return L() + rng.digits(7);
    case 'NY': return rng.digits(9);
    case 'TX': return String(rng.int(10_000_000, 49_999_999));
    case 'FL': return L() + rng.digits(12);
    case 'IL': return L() + rng.digits(11);
    case 'WA': return 'WDL' + rng.chars(9, UPPER + '0123456789');
    case 'PA': return rng.digits(8);
    case 'OH': return L() + L() + rng.digits(6);
    case 'GA': return rng.digits(9);
    case 'NJ': return L() + rng.digits(14);
    default: return L() + rng.digits(8);
  }
}

export function usDlValid(value: string, state: string): boolean {
  const v = value.toUpperCase().replace(/[\s-]/g, '');
  return (US_DL_FORMATS[state] ?? []).some((re) => re.test(v));
}

export function ein(rng: Rng): string {
  return `${rng.int(10, 99)}-${rng.digits(7)}`;
}

// ------------------------------------------------------------------ other national numbers (MRZ personal numbers)

/** Polish PESEL. */
export function pesel(rng: Rng, birth: string, sex: 'M' | 'F'): string {
  const y = Number(birth.slice(0, 4));
  const m = Number(birth.slice(5, 7)) + (y >= 2000 ? 20 : 0);
  let serial = rng.digits(3);
  const sexDigit = sex === 'M' ? rng.pick(['1', '3', '5', '7', '9']) : rng.pick(['0', '2', '4', '6', '8']);
  const body = birth.slice(2, 4) + String(m).padStart(2, '0') + birth.slice(8, 10) + serial + sexDigit;
  const w = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];
  const sum = body.split('').reduce((a, d, i) => a + Number(d) * w[i], 0);
  serial = String((10 - (sum % 10)) % 10);
  return body + serial;
}

/** Romanian CNP. */
export function cnp(rng: Rng, birth: string, sex: 'M' | 'F'): string {
  const y = Number(birth.slice(0, 4));
  const s = y >= 2000 ? (sex === 'M' ? '5' : '6') : sex === 'M' ? '1' : '2';
  const body = s + birth.slice(2, 4) + birth.slice(5, 7) + birth.slice(8, 10) + String(rng.int(1, 46)).padStart(2, '0') + String(rng.int(1, 999)).padStart(3, '0');
  const w = '279146358279';
  const sum = body.split('').reduce((a, d, i) => a + Number(d) * Number(w[i]), 0);
  const c = sum % 11 === 10 ? 1 : sum % 11;
  return body + c;
}

/** Dutch BSN (eleven test). */
export function bsn(rng: Rng): string {
  for (;;) {
    const body = String(rng.int(10_000_000, 99_999_999));
    const sum = body.split('').reduce((a, d, i) => a + Number(d) * (9 - i), 0);
    const last = sum % 11;
    if (last <= 9) return body + last;
  }
}

/** Belgian national register number `YY.MM.DD-SSS.CC`. */
export function rrn(rng: Rng, birth: string, sex: 'M' | 'F'): string {
  const seq = sex === 'M' ? rng.int(0, 498) * 2 + 1 : rng.int(1, 499) * 2;
  const body = birth.slice(2, 4) + birth.slice(5, 7) + birth.slice(8, 10) + String(seq).padStart(3, '0');
  const n = Number((Number(birth.slice(0, 4)) >= 2000 ? '2' : '') + body);
  const c = 97 - (n % 97);
  return `${body.slice(0, 2)}.${body.slice(2, 4)}.${body.slice(4, 6)}-${body.slice(6, 9)}.${String(c).padStart(2, '0')}`;
}

/** Swedish personnummer `YYMMDD-NNNC` (Luhn). */
export function personnummer(rng: Rng, birth: string, sex: 'M' | 'F'): string {
  const serial = rng.digits(2) + (sex === 'M' ? rng.pick(['1', '3', '5', '7', '9']) : rng.pick(['0', '2', '4', '6', '8']));
  const body = birth.slice(2, 4) + birth.slice(5, 7) + birth.slice(8, 10) + serial;
  return `${body.slice(0, 6)}-${body.slice(6)}${luhnCheckDigit(body)}`;
}

// ------------------------------------------------------------------ vehicles

const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
const VIN_VALUE: Record<string, number> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8, J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9, S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
};
const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

/** A 17-character VIN with a correct ISO 3779 / North American check digit in position 9. */
export function vin(rng: Rng, wmi: string): string {
  const chars = (wmi + rng.chars(5, VIN_CHARS) + '0' + rng.pick(['L', 'M', 'N', 'P', 'R', 'S']) + rng.chars(1, VIN_CHARS) + rng.digits(6)).split('');
  const sum = chars.reduce((a, c, i) => a + (/\d/.test(c) ? Number(c) : VIN_VALUE[c]) * VIN_WEIGHTS[i], 0);
  const r = sum % 11;
  chars[8] = r === 10 ? 'X' : String(r);
  return chars.join('');
}

// ------------------------------------------------------------------ Spanish secure verification codes

export function csvCode(rng: Rng, kind: 'aeat' | 'seg_social' | 'admin'): string {
  const A = UPPER + '0123456789';
  const ensure = (s: string) => (/[A-Z]/.test(s) && /\d/.test(s) ? s : 'A' + s.slice(1, -1) + '7');
  if (kind === 'aeat') return ensure(rng.chars(16, A));
  if (kind === 'seg_social') {
    const s = ensure(rng.chars(16, A));
    return s.match(/.{4}/g)!.join('-');
  }
  return `ES-${rng.pick(['GE', 'JUS', 'L01280796', 'A08003870'])}-${ensure(rng.chars(20, A))}`;
}

// ------------------------------------------------------------------ breaking a check digit on purpose

/**
 * The same value with its last check character changed so that the scheme's validator fails while the format stays
 * right (for format-only schemes, a value in the wrong format).
 */
export function corruptCheck(scheme: string, value: string, ctx: { state?: string } = {}): string {
  if (scheme === 'us_ssn') return '666' + value.slice(3);
  if (scheme === 'us_dl') {
    const bare = value.replace(/^[A-Z]+/, '');
    for (const v of ['XX' + value + 'XX', bare + 'XX', 'X' + bare + 'X', value + 'XXXXXXXXX']) {
      if (!checkIdNumber('us_dl', v, { state: ctx.state }).valid) return v;
    }
  }
  if (scheme === 'iban') {
    const m = /^([A-Z]{2})(\d{2})/.exec(value.replace(/\s/g, ''))!;
    const wrong = String((Number(m[2]) + 1) % 97 || 2).padStart(2, '0');
    return value.replace(/^([A-Z]{2})\d{2}/, `$1${wrong}`);
  }
  const idx = value.search(/[0-9A-Z][^0-9A-Z]*$/);
  const last = value[idx];
  const pool = /\d/.test(last) ? '0123456789' : UPPER;
  for (let k = 1; k < pool.length; k++) {
    const c = pool[(pool.indexOf(last) + k) % pool.length];
    const v = value.slice(0, idx) + c + value.slice(idx + 1);
    const r = checkIdNumber(scheme, v, { state: ctx.state });
    if (!r.valid && r.format_ok) return v;
  }
  return value.slice(0, idx) + (last === '0' ? '1' : '0') + value.slice(idx + 1);
}
