/** ICAO 9303 machine readable zones (TD1, TD2, TD3, MRV-A) built from the visual fields, with real check digits. */
import { mrzCheckDigit } from '../../validators/index.ts';
import { yymmdd } from './dates.ts';

const TRANSLIT: Array<[RegExp, string]> = [
  [/[ÄÆ]/g, 'AE'], [/[ÖØŒ]/g, 'OE'], [/Ü/g, 'UE'], [/Å/g, 'AA'], [/ß/g, 'SS'], [/Ł/g, 'L'], [/Đ/g, 'D'], [/Þ/g, 'TH'],
];

/** Upper case, ICAO transliteration (Ñ -> N as Spain prints it), separators as `<`, anything else dropped. */
export function mrzText(s: string): string {
  let t = s.toUpperCase();
  for (const [re, rep] of TRANSLIT) t = t.replace(re, rep);
  return t
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/['’`]/g, '')
    .replace(/[\s\-,.]+/g, '<')
    .replace(/[^A-Z0-9<]/g, '');
}

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const cd = (s: string) => mrzCheckDigit(s)!;

/** Alpha-3 as written in an MRZ (Germany is `D`). */
export function mrzState(alpha3: string): string {
  return alpha3 === 'DEU' ? 'D' : alpha3;
}

export interface MrzData {
  /** Document code, e.g. `ID`, `IR`, `P<`, `V<`. */
  code: string;
  state: string;
  number: string;
  nationality: string;
  birth: string;
  sex: 'M' | 'F' | 'X';
  expiry: string;
  surnames: string;
  given: string;
  /** TD1 line 1 optional data / TD3 personal number / MRV optional data. */
  optional1?: string;
  /** TD1 line 2 optional data. */
  optional2?: string;
}

function name(d: MrzData, n: number): string {
  const s = mrzText(d.surnames).replace(/<+/g, '<').replace(/^<|<$/g, '');
  const g = mrzText(d.given).replace(/<+/g, '<').replace(/^<|<$/g, '');
  return pad(`${s}<<${g}`, n);
}

const sexChar = (s: MrzData['sex']) => (s === 'X' ? '<' : s);

/** Document number part: `number<9> + check`, or the ICAO long-number form (first 9, `<`, rest + check in the optional data). */
function numberPart(num: string, optional: string, optLen: number): { head: string; optional: string } {
  const n = mrzText(num).replace(/</g, '');
  if (n.length <= 9) return { head: pad(n, 9) + cd(pad(n, 9)), optional: pad(mrzText(optional), optLen) };
  const opt = mrzText(optional);
  return { head: n.slice(0, 9) + '<', optional: pad(n.slice(9) + cd(n) + (opt ? '<' + opt : ''), optLen) };
}

export function td1(d: MrzData): string[] {
  const np = numberPart(d.number, d.optional1 ?? '', 15);
  const l1 = pad(d.code, 2) + pad(mrzState(d.state), 3) + np.head + np.optional;
  const b = yymmdd(d.birth);
  const e = yymmdd(d.expiry);
  const l2a = b + cd(b) + sexChar(d.sex) + e + cd(e) + pad(mrzState(d.nationality), 3) + pad(mrzText(d.optional2 ?? ''), 11);
  const composite = cd(l1.slice(5, 30) + l2a.slice(0, 7) + l2a.slice(8, 15) + l2a.slice(18, 29));
  return [l1, l2a + composite, name(d, 30)];
}

export function td2(d: MrzData): string[] {
  const np = numberPart(d.number, d.optional1 ?? '', 7);
  const l1 = pad(d.code, 2) + pad(mrzState(d.state), 3) + name(d, 31);
  const b = yymmdd(d.birth);
  const e = yymmdd(d.expiry);
  const l2a = np.head + pad(mrzState(d.nationality), 3) + b + cd(b) + sexChar(d.sex) + e + cd(e) + np.optional;
  return [l1, l2a + cd(l2a.slice(0, 10) + l2a.slice(13, 20) + l2a.slice(21, 35))];
}

export function td3(d: MrzData): string[] {
  const num = pad(mrzText(d.number).replace(/</g, '').slice(0, 9), 9);
  const l1 = pad(d.code, 2) + pad(mrzState(d.state), 3) + name(d, 39);
  const b = yymmdd(d.birth);
  const e = yymmdd(d.expiry);
  const pn = pad(mrzText(d.optional1 ?? ''), 14);
  const l2a = num + cd(num) + pad(mrzState(d.nationality), 3) + b + cd(b) + sexChar(d.sex) + e + cd(e) + pn + cd(pn);
  return [l1, l2a + cd(l2a.slice(0, 10) + l2a.slice(13, 20) + l2a.slice(21, 43))];
}

/** Machine readable visa, format A (2 x 44). */
export function mrva(d: MrzData): string[] {
  const num = pad(mrzText(d.number).replace(/</g, '').slice(0, 9), 9);
  const l1 = pad(d.code, 2) + pad(mrzState(d.state), 3) + name(d, 39);
  const b = yymmdd(d.birth);
  const e = yymmdd(d.expiry);
  return [l1, num + cd(num) + pad(mrzState(d.nationality), 3) + b + cd(b) + sexChar(d.sex) + e + cd(e) + pad(mrzText(d.optional1 ?? ''), 16)];
}

/** Position of the birth-date check digit (line index, column), used to break a check digit on purpose. */
export function birthCheckPosition(lines: string[]): [number, number] {
  if (lines.length === 3) return [1, 6];
  return [1, 19];
}
