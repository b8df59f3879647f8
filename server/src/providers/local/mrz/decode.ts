/**
 * From per-cell class probabilities to MRZ text: each position is read within its class (digits in dates and check
 * digits, letters or fillers in names and state codes, a few letters for the document code), state codes prefer a
 * known code, and a field whose check digit fails is repaired by the most likely substitution(s) that make it pass,
 * only when that substitution is more likely than a misread check digit, and only to characters the glyph model gives
 * at least REPAIR_MIN_P, never making a digit a letter (a forged digit must fail its check digit, not be compensated
 * by a change elsewhere in the field). A check digit itself is never changed.
 * A plausibility gate (dates, sex, state codes, names, check digits that pass as read, confidence) keeps garbage out.
 */
import { states } from 'mrz';
import { CHECK_CHAR_CONFIDENCE } from '../../../validators/confidence.ts';
import { mrzCheckDigit, parseMrz } from '../../../validators/mrz.ts';
import { ALPHABET } from './features.ts';

export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB' | 'FRENCH_NATIONAL_ID';

const DIGITS = '0123456789';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const CLASS: Record<string, string> = {
  a: LETTERS + '<', // names, state codes
  N: DIGITS, // dates
  c: DIGITS, // check digits
  C: DIGITS + '<', // check digit that may be a filler
  S: 'MFX<', // sex
  x: ALPHABET, // document number, optional data, second letter of the document code
};

/**
 * Position classes per format and line; the first character (document code) is given separately (`?`), its second
 * is any character (ICAO 9303 says a letter or filler, but the US permanent resident card prints `C1`), and `=`
 * positions take the format's fixed prefix (the French 1988-2021 identity card always starts `IDFRA`).
 */
const LAYOUT: Record<MrzFormat, { first: string; prefix?: string; lines: string[] }> = {
  TD1: { first: 'IAC', lines: ['?xaaa' + 'x'.repeat(9) + 'C' + 'x'.repeat(15), 'NNNNNNcSNNNNNNcaaa' + 'x'.repeat(11) + 'c', 'a'.repeat(30)] },
  TD2: { first: 'IAC', lines: ['?xaaa' + 'a'.repeat(31), 'x'.repeat(9) + 'CaaaNNNNNNcSNNNNNNc' + 'x'.repeat(7) + 'c'] },
  MRVB: { first: 'V', lines: ['?xaaa' + 'a'.repeat(31), 'x'.repeat(9) + 'caaaNNNNNNcSNNNNNNc' + 'x'.repeat(8)] },
  TD3: { first: 'P', lines: ['?xaaa' + 'a'.repeat(39), 'x'.repeat(9) + 'caaaNNNNNNcSNNNNNNc' + 'x'.repeat(14) + 'Cc'] },
  MRVA: { first: 'V', lines: ['?xaaa' + 'a'.repeat(39), 'x'.repeat(9) + 'caaaNNNNNNcSNNNNNNc' + 'x'.repeat(16)] },
  // French identity card 1988-2021 (2 x 36, not ICAO): IDFRA, surname (25), administrative code (department and
  // office, 6); card number = issue YYMM, department (3, `2A`/`2B` in Corsica), sequence (5), its check digit, given
  // names (14), birth date and its check digit, sex, composite check digit over both lines (validators/mrz.ts)
  FRENCH_NATIONAL_ID: { first: 'I', prefix: 'IDFRA', lines: ['=====' + 'a'.repeat(25) + 'x'.repeat(6), 'NNNNxxxNNNNNc' + 'a'.repeat(14) + 'NNNNNNcSc'] },
};

/** The characters each position of a format may hold, per line. */
function classesOf(format: MrzFormat): string[][] {
  const layout = LAYOUT[format];
  return layout.lines.map((classes) => Array.from(classes, (k, i) => (k === '?' ? layout.first : k === '=' ? layout.prefix![i] : CLASS[k])));
}

/** A position: [line, index]. */
export type Pos = [number, number];
export interface CheckDef {
  name: string;
  field: Pos[];
  digit: Pos;
  /** Positions that only this check covers may be repaired through it. */
  repairable: Pos[];
}

const span = (line: number, a: number, b: number): Pos[] => Array.from({ length: b - a + 1 }, (_, i) => [line, a + i] as Pos);

/** The check digits of a format: which positions each covers and where its digit is (also used by bench/lib/forge-mrz.ts). */
export function checkDefs(format: MrzFormat): { individual: CheckDef[]; composite: CheckDef | null } {
  const ind = (name: string, field: Pos[], digit: Pos): CheckDef => ({ name, field, digit, repairable: field });
  switch (format) {
    case 'TD1': {
      const field = [...span(0, 5, 29), ...span(1, 0, 6), ...span(1, 8, 14), ...span(1, 18, 28)];
      return {
        individual: [ind('document_number', span(0, 5, 13), [0, 14]), ind('birth_date', span(1, 0, 5), [1, 6]), ind('expiry_date', span(1, 8, 13), [1, 14])],
        composite: { name: 'composite', field, digit: [1, 29], repairable: [...span(0, 15, 29), ...span(1, 18, 28)] },
      };
    }
    case 'TD2':
      return {
        individual: [ind('document_number', span(1, 0, 8), [1, 9]), ind('birth_date', span(1, 13, 18), [1, 19]), ind('expiry_date', span(1, 21, 26), [1, 27])],
        composite: { name: 'composite', field: [...span(1, 0, 9), ...span(1, 13, 19), ...span(1, 21, 34)], digit: [1, 35], repairable: span(1, 28, 34) },
      };
    case 'TD3':
      return {
        individual: [
          ind('document_number', span(1, 0, 8), [1, 9]),
          ind('birth_date', span(1, 13, 18), [1, 19]),
          ind('expiry_date', span(1, 21, 26), [1, 27]),
          ind('personal_number', span(1, 28, 41), [1, 42]),
        ],
        composite: { name: 'composite', field: [...span(1, 0, 9), ...span(1, 13, 19), ...span(1, 21, 42)], digit: [1, 43], repairable: [] },
      };
    case 'MRVA':
    case 'MRVB':
      return {
        individual: [ind('document_number', span(1, 0, 8), [1, 9]), ind('birth_date', span(1, 13, 18), [1, 19]), ind('expiry_date', span(1, 21, 26), [1, 27])],
        composite: null,
      };
    case 'FRENCH_NATIONAL_ID':
      // the composite covers both lines, names included; only the administrative code is repaired through it (names
      // are never repaired: one digit over 71 characters does not say which letter was misread)
      return {
        individual: [ind('document_number', span(1, 0, 11), [1, 12]), ind('birth_date', span(1, 27, 32), [1, 33])],
        composite: { name: 'composite', field: [...span(0, 0, 35), ...span(1, 0, 34)], digit: [1, 35], repairable: span(0, 30, 35) },
      };
  }
}

const CHECKED = new Map<MrzFormat, { positions: Pos[]; keys: Set<string> }>();

function coverage(format: MrzFormat): { positions: Pos[]; keys: Set<string> } {
  let c = CHECKED.get(format);
  if (!c) {
    const defs = checkDefs(format);
    const keys = new Set<string>();
    const positions: Pos[] = [];
    for (const d of [...defs.individual, ...(defs.composite ? [defs.composite] : [])]) {
      for (const p of [...d.field, d.digit]) {
        const k = `${p[0]}:${p[1]}`;
        if (!keys.has(k)) positions.push(p);
        keys.add(k);
      }
    }
    c = { positions, keys };
    CHECKED.set(format, c);
  }
  return c;
}

/** Every position some check digit covers (its fields and the digits themselves), once each (also bench/mrz-study.ts). */
export const checkedPositions = (format: MrzFormat): readonly Pos[] => coverage(format).positions;
const checkedKeys = (format: MrzFormat): ReadonlySet<string> => coverage(format).keys;

/**
 * State codes of ICAO 9303-3 (issuing states and nationalities): the `mrz` package's list (ICAO Doc 9303 part 3,
 * with the codes for organisations and British nationality classes), plus the ICAO specimen state and the codes for
 * stateless persons and refugees it lacks. A code list is a repair (see the state codes in decode).
 */
const KNOWN_STATES = new Set<string>([...Object.keys(states), 'UTO', 'XOM', 'XXA', 'XXB', 'XXC', 'XXX'].map((s) => s.padEnd(3, '<')));

export interface Decoded {
  format: MrzFormat;
  lines: string[];
  /** Every check digit passes (validators/mrz.ts parseMrz, incl. long document numbers). */
  valid: boolean;
  /** Characters that differ from the unconstrained best guess of the classifier. */
  repaired: number;
  /** Per line, per character: how sure the final character is (0..1; see the comment where it is computed). */
  conf: number[][];
  /** Individual check digits (document number, birth, expiry) that pass as read, and after repair. */
  passedRaw: number;
  passed: number;
  gate: boolean;
  gateReasons: string[];
  meanConf: number;
  score: number;
}

function ln(p: number): number {
  return Math.log(Math.max(p, 1e-9));
}

function checkPasses(lines: string[][], c: CheckDef): boolean {
  const s = c.field.map(([l, i]) => lines[l][i]).join('');
  const d = lines[c.digit[0]][c.digit[1]];
  const e = mrzCheckDigit(s);
  if (e === d) return true;
  // an empty optional field may carry a filler as its check digit
  return d === '<' && /^<*$/.test(s);
}

/**
 * The least probability the glyph model must give a character for a check-digit repair to put it there. A forger who
 * pastes one digit leaves the check digit read surely, so the check digit no longer argues against a repair: without
 * this floor the repair took any alternative the classifier gave 0.1 % or more, and turned forged zones valid by
 * changing another character (15 of 55 document-number forgeries of PassportEye + the tune set, bench/check-confidence.ts).
 * Measured there, the characters such repairs put in had 0.2 %-3.0 % when not a digit made a letter (`T`->`I`,
 * `O`->`Q`, `E`->`C`, `1`->`3`...), and 9.4 % where a pasted `8`, read unsure on a badly printed cell, was "repaired"
 * back to the `0` printed before the forgery (77_card-cmw); the repair that fixes a genuine misreading had 13 % (the same
 * cell of 77_card-cmw, an `O` for the printed `0`). 10 % sits between: a thin margin, measured, not a law. The other
 * genuine repair seen, a `0`->`D` at 2.9 % in Malta_BAD's optional data, looks exactly like a forgery's `0`->`D` at 2.9 %
 * (100_id-mac) and is given up. A digit is never made a letter by a repair: `0`->`O` was most of the forgeries'
 * compensations, with the `O` at up to 45 % (OCR-B prints them nearly alike, so their probabilities cannot tell a
 * forgery from a misreading); numbers are mostly digits, and no genuine repair measured needs it. A letter read where
 * a digit is printed is still repaired.
 */
const REPAIR_MIN_P = 0.1;

/** Try substitutions in the field; apply the cheapest that passes if it beats a misread check digit. Returns the positions changed. */
/** `split`: cells the letter/digit context made digits between a letter and a digit though the glyph model read a letter first. */
function repairCheck(lines: string[][], probs: Float32Array[][], allowed: string[][], classes: string[][], c: CheckDef, split: ReadonlySet<string>): Pos[] {
  if (checkPasses(lines, c)) return [];
  const [dl, di] = c.digit;
  const cd = lines[dl][di];
  if (cd === '<') return []; // long document number or empty field: parseMrz decides
  const fieldStr = () => c.field.map(([l, i]) => lines[l][i]).join('');
  const expected = mrzCheckDigit(fieldStr());
  const pd = probs[dl][di];
  const costCheckDigit = expected === null ? Infinity : ln(pd[ALPHABET.indexOf(cd)]) - ln(pd[ALPHABET.indexOf(expected)]);
  type Alt = { pos: Pos; ch: string; cost: number };
  const alts: Alt[] = [];
  for (const pos of c.repairable) {
    const [l, i] = pos;
    const p = probs[l][i];
    const cur = lines[l][i];
    const pc = p[ALPHABET.indexOf(cur)];
    // a character read sure is never changed: a failing check digit that rests on it is evidence (the validators' rule,
    // validators/confidence.ts), which a repair elsewhere in the field must not turn into a pass
    if (pc >= CHECK_CHAR_CONFIDENCE) continue;
    // a letter of an alphanumeric field (document number, optional data) whose OCR-B digit twin the letter/digit
    // context ruled out may still become that digit when the check digit decides so (O->0, I->1, S->5, B->8...);
    // never the other way round (see REPAIR_MIN_P)
    const twin = typeOf(cur) === 'l' ? Array.from(TWINS[cur] ?? '').filter((x) => typeOf(x) === 'd' && classes[l][i].includes(x) && !allowed[l][i].includes(x)) : [];
    // a digit that only the context's digit prior chose between a letter and a digit (the glyph model read a letter
    // first: `SD999` read `S9999`, the D at 66 %, the 9 at 26 %) may go back to that letter when the check digit decides
    // so: it is the reading, not a compensation. Not where digits stand on both sides (a 0 read 50 % O between digits
    // stays a 0: given back, it passed beside a Q read for another 0, 26 and 24 times 7), and a digit the glyph model
    // read first is never made a letter
    const first = ALPHABET[p.reduce((b, v, k) => (v > p[b] ? k : b), 0)];
    const own = split.has(`${l}:${i}`) && typeOf(cur) === 'd' && typeOf(first) === 'l' && classes[l][i].includes(first) && !allowed[l][i].includes(first) ? [first] : [];
    for (const ch of [...allowed[l][i], ...twin, ...own]) {
      if (ch === cur) continue;
      const q = p[ALPHABET.indexOf(ch)];
      // what a forger's compensation looks like (see REPAIR_MIN_P): a negligible alternative, or a digit made a letter
      if (q < REPAIR_MIN_P || (typeOf(cur) === 'd' && typeOf(ch) === 'l' && ch !== first)) continue;
      alts.push({ pos, ch, cost: ln(pc) - ln(q) });
    }
  }
  alts.sort((a, b) => a.cost - b.cost);
  let best: { subs: Alt[]; cost: number } | null = null;
  const tryFix = (subs: Alt[]) => {
    const saved = subs.map((s) => lines[s.pos[0]][s.pos[1]]);
    for (const s of subs) lines[s.pos[0]][s.pos[1]] = s.ch;
    const ok = checkPasses(lines, c);
    subs.forEach((s, k) => (lines[s.pos[0]][s.pos[1]] = saved[k]));
    const cost = subs.reduce((t, s) => t + s.cost, 0);
    if (ok && (!best || cost < best.cost)) best = { subs, cost };
  };
  for (const a of alts) tryFix([a]);
  const top = alts.slice(0, 12);
  for (let i = 0; i < top.length; i++) {
    for (let j = i + 1; j < top.length; j++) {
      if (top[i].pos === top[j].pos) continue;
      if (top[i].cost + top[j].cost > 7) continue;
      tryFix([top[i], top[j]]);
    }
  }
  const b = best as { subs: Alt[]; cost: number } | null;
  if (!b || b.cost >= costCheckDigit) return [];
  for (const s of b.subs) lines[s.pos[0]][s.pos[1]] = s.ch;
  return b.subs.map((s) => s.pos);
}

/** Highest confidence of a character of a state code that is on no list (read so, and no listed code is plausible). */
const UNKNOWN_CODE_CONFIDENCE = 0.5;

/**
 * How sure each character of a listed state code is, given that the code is on the list: the marginal of the
 * position over every listed code, each weighted by the glyph model's probability of its characters. `UYS` read with
 * the M at 30 % is a sure `MYS` when no other listed code is near; `AUT` against `AUS` stays as unsure as its T.
 */
function codePosterior(probs: Float32Array[][], sp: Pos[], code: string): number[] {
  const ps = sp.map(([l, i]) => probs[l][i]);
  let total = 0;
  const same = sp.map(() => 0);
  for (const c of KNOWN_STATES) {
    let w = 1;
    for (let k = 0; k < sp.length && w > 0; k++) w *= ps[k][ALPHABET.indexOf(c[k])];
    total += w;
    for (let k = 0; k < sp.length; k++) if (c[k] === code[k]) same[k] += w;
  }
  return same.map((x) => (total > 0 ? Math.min(1, x / total) : 0));
}

/** OCR-B letters and digits that a low-resolution read confuses (numberContext), both ways. */
const TWINS: Record<string, string> = { '0': 'OQD', O: '0', Q: '0', D: '0', '1': 'I', I: '1', '5': 'S', S: '5', '8': 'B', B: '8', '2': 'Z', Z: '2', '6': 'G', G: '6' };

/** ICAO 9303 value of an MRZ character (`<` = 0, A-Z = 10-35). */
const charValue = (ch: string): number => (ch === '<' ? 0 : ALPHABET.indexOf(ch));

/**
 * How sure each character of a field whose check digit passes is (a character changed by a check-digit repair
 * included), by position (`line:index`, the digit's too): the probability of the final character given the cells of
 * the check's field and its digit and that they agree (a genuine zone's digit matches its field), i.e. its marginal over
 * every assignment of the field and the digit that passes, each position within its class. Exact, by the distribution
 * of the weighted sum mod 10 of the other positions (from those before and after it). The check digit, read confidently on a field read confidently but
 * for one cell, makes that cell sure (the classifier alone gives a repaired character less than the character it
 * preferred); a digit that passes on a field of several unsure cells does not (one digit passes one misreading in ten,
 * and more often among the hypotheses the reader chooses from): each cell stays about as unsure as it was read.
 */
function checkedConfidence(probs: Float32Array[][], classes: string[][], c: CheckDef, lines: string[][]): Map<string, number> {
  const W = [7, 3, 1];
  // a cell's distribution within its class: the mass the classifier put on an OCR-B twin the class does not hold goes
  // to the twin (a date's `O` is its `0`, as in the per-character confidence); the rest of the mass outside the class
  // (ink over the cell) is spread evenly over the class, not in proportion (a half-covered 0 read 50 %, 45 % on
  // letters is not a 97 % sure 0 by its class alone; only a check digit read surely can settle it)
  const within = (l: number, i: number, set: string) => {
    const p = probs[l][i];
    const q = Array.from(set, (x) => p[ALPHABET.indexOf(x)]);
    let all = 0;
    let spread = 0;
    ALPHABET.split('').forEach((y, k) => {
      all += p[k];
      if (set.includes(y)) return;
      const twins = Array.from(TWINS[y] ?? '').filter((x) => set.includes(x));
      if (twins.length === 0) spread += p[k];
      else for (const x of twins) q[set.indexOf(x)] += p[k] / twins.length;
    });
    return Array.from(set, (x, j) => [charValue(x), all > 0 ? (q[j] + spread / set.length) / all : 0] as const);
  };
  const mod = (x: number) => ((x % 10) + 10) % 10;
  // the terms of (weighted sum of the field - check digit) mod 10, which is 0 when the digit agrees
  const terms = [
    ...c.field.map((pos, k) => ({ pos, w: W[k % 3], vals: within(pos[0], pos[1], classes[pos[0]][pos[1]]) })),
    { pos: c.digit, w: -1, vals: within(c.digit[0], c.digit[1], DIGITS) },
  ];
  const residues = terms.map((t) => {
    const d = new Float64Array(10);
    for (const [v, q] of t.vals) d[mod(t.w * v)] += q;
    return d;
  });
  const conv = (a: Float64Array, b: Float64Array) => {
    const out = new Float64Array(10);
    for (let r = 0; r < 10; r++) if (a[r] !== 0) for (let s = 0; s < 10; s++) out[(r + s) % 10] += a[r] * b[s];
    return out;
  };
  const unit = new Float64Array(10);
  unit[0] = 1;
  // residue distributions of the terms before and after each one: the others' distribution is their convolution
  const before = [unit];
  for (const d of residues) before.push(conv(before[before.length - 1], d));
  const after = new Array<Float64Array>(terms.length + 1);
  after[terms.length] = unit;
  for (let j = terms.length - 1; j >= 0; j--) after[j] = conv(residues[j], after[j + 1]);
  const out = new Map<string, number>();
  terms.forEach((t, j) => {
    const others = conv(before[j], after[j + 1]);
    const ch = charValue(lines[t.pos[0]][t.pos[1]]);
    let num = 0;
    let den = 0;
    for (const [v, q] of t.vals) {
      const x = q * others[mod(-t.w * v)];
      den += x;
      if (v === ch) num += x;
    }
    out.set(`${t.pos[0]}:${t.pos[1]}`, den > 0 ? num / den : 0);
  });
  return out;
}

function plausibleDate(s: string): boolean {
  if (!/^\d{6}$/.test(s)) return false;
  const m = Number(s.slice(2, 4));
  const d = Number(s.slice(4, 6));
  return m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

const typeOf = (ch: string): 'd' | 'l' | 'f' => (ch === '<' ? 'f' : ch <= '9' ? 'd' : 'l');

/**
 * A cell's type is torn when the classifier gives the other type (digit or letter) at least this share of its best
 * class. Where no check digit covers the cell, a digit read with a letter at 1-10 % is kept a digit whatever its
 * neighbours: before session 16 any 1 % made it follow them, and a 0 read at 94-97 % beside letters became an O (the
 * US visas' optional data `C000FD`, `ND00AMS`). 10 % is the share below which the decoder never takes an alternative
 * either (REPAIR_MIN_P).
 */
const AMBIGUOUS = 0.1;

/**
 * Document numbers and optional data mix letters and digits, and OCR-B's O/0, I/1, S/5, B/8, Z/2, G/6, D/0 pairs
 * are where a low-resolution read hesitates. A position whose best digit and best letter are both plausible takes
 * the type of its unambiguous neighbours within the field when both sides agree (IFLND??AMS, AAA1??001); between
 * a letter and a digit (S???2068, ZE??05?9) a digit unless the letter is 3x more likely; at the edge of a field
 * the classifier and the check digit decide. Unambiguous positions are restricted to their type, so that the
 * check-digit repair cannot turn a clear digit into a letter (a wrong number that happens to pass its check).
 */
function numberContext(format: MrzFormat, layoutLines: string[], probs: Float32Array[][], allowed: string[][]): Set<string> {
  const checked = checkedKeys(format);
  const split = new Set<string>();
  layoutLines.forEach((classes, l) => {
    let i = 0;
    while (i < classes.length) {
      if (classes[i] !== 'x' || (l === 0 && i === 1)) {
        i++;
        continue;
      }
      let e = i;
      while (e < classes.length && classes[e] === 'x') e++;
      const info: Array<{ type: 'd' | 'l' | 'f'; ambiguous: boolean; torn: boolean; filler: boolean }> = [];
      for (let k = i; k < e; k++) {
        const p = probs[l][k];
        let bd = 0;
        let bl = 0;
        for (let c = 0; c < 10; c++) bd = Math.max(bd, p[c]);
        for (let c = 10; c < 36; c++) bl = Math.max(bl, p[c]);
        const pf = p[36];
        const top = Math.max(bd, bl, pf);
        const type = top === pf ? 'f' : top === bd ? 'd' : 'l';
        const ambiguous = type !== 'f' && Math.min(bd, bl) >= 0.01 * top;
        info.push({ type, ambiguous, torn: Math.min(bd, bl) >= AMBIGUOUS * top, filler: pf >= 0.01 * top });
      }
      for (let k = i; k < e; k++) {
        const it = info[k - i];
        if (it.type === 'f') continue;
        let type = it.type;
        // where no check digit can arbitrate (a visa's optional data), a digit the classifier is sure of (a letter
        // under 10 %) stays a digit between letters; elsewhere, and for a letter so read between digits, the neighbours
        // decide as before (numbers are mostly digits, and a repair never makes a digit a letter)
        if (it.ambiguous && (it.torn || type === 'l' || checked.has(`${l}:${k}`))) {
          const side = (dir: number) => {
            for (let j = k + dir; j >= i && j < e; j += dir) {
              const o = info[j - i];
              if (o.type !== 'f' && !o.ambiguous) return o.type;
            }
            return null;
          };
          const a = side(-1);
          const b = side(1);
          if (a && a === b) type = a;
          else if (a && b) {
            // between a letter and a digit: the classifier decides, with a prior for digits (numbers are mostly digits)
            const p = probs[l][k];
            let bd = 0;
            let bl = 0;
            for (let c = 0; c < 10; c++) bd = Math.max(bd, p[c]);
            for (let c = 10; c < 36; c++) bl = Math.max(bl, p[c]);
            type = 3 * bd >= bl ? 'd' : 'l';
            if (type === 'd' && bl > bd) split.add(`${l}:${k}`);
          } else {
            // at the edge of the field: leave both types to the classifier and the check digit
            allowed[l][k] = DIGITS + LETTERS + (it.filler ? '<' : '');
            continue;
          }
        }
        allowed[l][k] = (type === 'd' ? DIGITS : LETTERS) + (it.filler ? '<' : '');
      }
      i = e;
    }
  });
  return split;
}

/**
 * Document-number format priors: national rules, public and certain, for the characters a document number may hold
 * (ICAO 9303 says only "alphanumeric"). They decide OCR-B's O/0, I/1, S/5, B/8 pairs before the check digit does, so
 * that a number whose check digit cannot tell `000` from `0OO` (O and 0 in two cells weighted 7 and 3 change the sum by
 * 240) is read sure when the issuing state's rule excludes one of them. Keyed by issuing state (line 1, positions 3-5)
 * and document code; `chars(i)` gives the characters position i (0-8) of the number may hold. A prior that would make
 * a document-number check digit fail which passes without it is dropped for that zone (decode): a rule that turned out
 * wrong for some series never makes a genuine document fail.
 */
interface NumberPrior {
  state: string;
  code: RegExp;
  chars: (i: number) => string;
}
const NOT = (set: string, out: string) => Array.from(set).filter((x) => !out.includes(x)).join('');
const NUMBER_PRIORS: NumberPrior[] = [
  // Netherlands, passports and identity cards: "De letter O komt niet voor in het documentnummer, het cijfer 0 wel"
  // (Rijksdienst voor Identiteitsgegevens, "Documentnummer paspoort en identiteitskaart"; numbers issued since 2014
  // and the earlier series alike)
  { state: 'NLD', code: /^[PI]/, chars: () => NOT(ALPHABET, 'O') },
  // Canada, passports: "two letters followed by six numbers" (Immigration, Refugees and Citizenship Canada, "Find
  // your passport number"); the ninth position of the MRZ field is a filler
  { state: 'CAN', code: /^P/, chars: (i) => (i < 2 ? LETTERS : i < 8 ? DIGITS : '<') },
  // Germany, identity cards (since 2010) and passports (since 2007): the serial number uses the digits and the
  // letters C F G H J K L M N P R T V W X Y Z only (no vowels, no B, D, Q, S: Personalausweisverordnung Anlage 1 and
  // Passverordnung Anlage, "Seriennummer"; BSI TR-03127)
  { state: 'D<<', code: /^(P|I|ID)/, chars: () => DIGITS + 'CFGHJKLMNPRTVWXYZ<' },
];

/**
 * A run of two letters O or more in a document number is read as zeros: serial numbers repeat the digit, never the
 * letter (`K0000000E` read `KOOOOOOOE` from a small scan), and a check digit cannot always tell them apart (O is 24,
 * and 24 times weights that sum to a multiple of 10 changes nothing: that number passed either way). Only where every
 * cell may hold a 0 and the number's check gives the same outcome with the zeros; the characters' confidences are
 * then the check's (a classifier sure of its O leaves the zero unsure, never a sure wrong number).
 */
function zerosNotOs(lines: string[][], classes: string[][], numberDef: CheckDef): void {
  const cells = numberDef.field;
  const before = checkPasses(lines, numberDef);
  for (let k = 0; k < cells.length; ) {
    let e = k;
    while (e < cells.length && lines[cells[e][0]][cells[e][1]] === 'O') e++;
    if (e - k >= 2 && cells.slice(k, e).every(([l, i]) => classes[l][i].includes('0'))) {
      const run = cells.slice(k, e);
      for (const [l, i] of run) lines[l][i] = '0';
      if (checkPasses(lines, numberDef) !== before) for (const [l, i] of run) lines[l][i] = 'O';
    }
    k = Math.max(e, k + 1);
  }
}

/** Decode the cells of one hypothesis (probabilities per line per cell) as the given format. */
export function decode(format: MrzFormat, probs: Float32Array[][]): Decoded {
  const withPrior = decodeWith(format, probs, true);
  if (!withPrior.prior) return withPrior.decoded;
  const without = decodeWith(format, probs, false);
  // a prior never makes the document number's check digit fail where the reading without it passes
  return withPrior.numberPasses || !without.numberPasses ? withPrior.decoded : without.decoded;
}

function decodeWith(format: MrzFormat, probs: Float32Array[][], usePrior: boolean): { decoded: Decoded; prior: boolean; numberPasses: boolean } {
  const layout = LAYOUT[format];
  const french = format === 'FRENCH_NATIONAL_ID';
  const allowed = classesOf(format);
  const split = numberContext(format, layout.lines, probs, allowed);
  const raw: string[][] = [];
  const lines: string[][] = [];
  let sumConf = 0;
  let count = 0;
  probs.forEach((line, l) => {
    raw.push([]);
    lines.push([]);
    line.forEach((p, i) => {
      let bestAll = 0;
      for (let c = 1; c < p.length; c++) if (p[c] > p[bestAll]) bestAll = c;
      raw[l].push(ALPHABET[bestAll]);
      sumConf += p[bestAll];
      count++;
      let best = '';
      let bp = -1;
      for (const ch of allowed[l][i]) {
        const q = p[ALPHABET.indexOf(ch)];
        if (q > bp) {
          bp = q;
          best = ch;
        }
      }
      lines[l].push(best);
    });
  });
  // state codes: prefer a known code when it is not much less likely than what was read
  const stateSpans: Pos[][] = [span(0, 2, 4)];
  if (format === 'TD1') stateSpans.push(span(1, 15, 17));
  else if (!french) stateSpans.push(span(1, 10, 12));
  let knownStates = 0;
  /** Positions of a state code that is on no list after all (a misreading the list could not repair). */
  const unknownCode = new Set<string>();
  for (const sp of stateSpans) {
    const read = sp.map(([l, i]) => lines[l][i]).join('');
    if (KNOWN_STATES.has(read)) {
      knownStates++;
      continue;
    }
    const rawCode = sp.map(([l, i]) => raw[l][i]).join('');
    if (KNOWN_STATES.has(rawCode) || rawCode === '<<<') {
      sp.forEach(([l, i], k) => (lines[l][i] = rawCode[k]));
      if (rawCode !== '<<<') knownStates++;
      continue;
    }
    if ((rawCode.match(/\d/g) ?? []).length >= 2) {
      // a field that clearly prints digits (seen on a Romanian card) is kept as printed; on no list, it is as unsure as
      // any unlisted code (ink over letters can read as digits too)
      sp.forEach(([l, i], k) => (lines[l][i] = rawCode[k]));
      for (const [l, i] of sp) unknownCode.add(`${l}:${i}`);
      continue;
    }
    const lp = (code: string) => sp.reduce((t, [l, i], k) => t + ln(probs[l][i][ALPHABET.indexOf(code[k])]), 0);
    const base = lp(read);
    let best: string | null = null;
    let bestLp = -Infinity;
    for (const code of KNOWN_STATES) {
      const v = lp(code);
      if (v > bestLp) {
        bestLp = v;
        best = code;
      }
    }
    // the code list repairs only to characters the glyph model gives a real probability (as REPAIR_MIN_P for check
    // digits): `UYS` becomes `MYS` when the M has 10 % or more; otherwise the code stays as read, marked unsure
    const real = best !== null && sp.every(([l, i], k) => lines[l][i] === best![k] || probs[l][i][ALPHABET.indexOf(best![k])] >= REPAIR_MIN_P);
    if (best && base - bestLp < 6 && real) {
      sp.forEach(([l, i], k) => (lines[l][i] = best![k]));
      knownStates++;
    } else for (const [l, i] of sp) unknownCode.add(`${l}:${i}`);
  }
  // issuing state and nationality are usually the same: one hesitant character is aligned with the other code
  const [sa, sb] = stateSpans;
  const diffs = sb ? [0, 1, 2].filter((k) => lines[sa[k][0]][sa[k][1]] !== lines[sb[k][0]][sb[k][1]]) : [];
  if (diffs.length === 1) {
    const k = diffs[0];
    const pa = probs[sa[k][0]][sa[k][1]];
    const pb = probs[sb[k][0]][sb[k][1]];
    const ca = lines[sa[k][0]][sa[k][1]];
    const cb = lines[sb[k][0]][sb[k][1]];
    const ia = ALPHABET.indexOf(ca);
    const ib = ALPHABET.indexOf(cb);
    if (Math.min(pa[ib], pb[ia]) >= 0.01 || Math.max(pa[ib], pb[ia]) >= 0.05) {
      const keepA = pa[ia] * pb[ia] >= pa[ib] * pb[ib];
      if (keepA && pb[ia] >= 0.01) lines[sb[k][0]][sb[k][1]] = ca;
      else if (!keepA && pa[ib] >= 0.01) lines[sa[k][0]][sa[k][1]] = cb;
    }
  }
  const defs = checkDefs(format);
  const classes = classesOf(format);
  const numberDef = defs.individual.find((c) => c.name === 'document_number')!;
  const prior = french ? undefined : NUMBER_PRIORS.find((r) => r.state === lines[0].slice(2, 5).join('') && r.code.test(lines[0].slice(0, 2).join('')));
  if (prior && usePrior) {
    numberDef.field.forEach(([l, i], k) => {
      const permitted = prior.chars(k);
      classes[l][i] = Array.from(classes[l][i]).filter((x) => permitted.includes(x)).join('');
      // what the letter/digit context allowed, and the OCR-B twins of it, within what the rule permits
      const ctx = Array.from(allowed[l][i]).flatMap((x) => [x, ...Array.from(TWINS[x] ?? '')]);
      const set = Array.from(classes[l][i]).filter((x) => ctx.includes(x)).join('');
      allowed[l][i] = set || classes[l][i];
      // the twins the rule rules out lend their probability to the character they look like
      const p = probs[l][i];
      const eff = (ch: string) => p[ALPHABET.indexOf(ch)] + Array.from(TWINS[ch] ?? '').reduce((t, x) => t + (classes[l][i].includes(x) ? 0 : p[ALPHABET.indexOf(x)]), 0);
      let best = lines[l][i];
      let bp = -1;
      for (const ch of allowed[l][i]) if (eff(ch) > bp) [bp, best] = [eff(ch), ch];
      lines[l][i] = best;
    });
  }
  const passedRaw = defs.individual.filter((c) => c.name !== 'personal_number' && checkPasses(lines, c)).length;
  const allChecks = [...defs.individual, ...(defs.composite ? [defs.composite] : [])];
  for (const c of allChecks) repairCheck(lines, probs, allowed, classes, c, split);
  zerosNotOs(lines, classes, numberDef);
  // the checks that pass in the end (repaired or as read), by the positions they cover (field and digit)
  const checked = new Map<string, number>();
  for (const c of allChecks) {
    if (lines[c.digit[0]][c.digit[1]] === '<' || !checkPasses(lines, c)) continue;
    for (const [k, q] of checkedConfidence(probs, classes, c, lines)) checked.set(k, Math.max(q, checked.get(k) ?? 0));
  }
  const passed = defs.individual.filter((c) => c.name !== 'personal_number' && checkPasses(lines, c)).length;
  const text = lines.map((l) => l.join(''));
  let repaired = 0;
  // Per-character confidence: how sure the character finally kept is. The classifier's probability of it, plus that
  // of its OCR-B twins that the position does not allow (a date holds digits: a cell read 70 % `O`, 22 % `0` is a
  // sure `0`); the rest of the mass is not redistributed (a half-covered digit read 56 % `7` and 40 % letters is not
  // a sure `7`); the letter/digit context of number fields is a heuristic and does not count. A character covered by a
  // check digit that passes (changed by a repair or read so): its probability given that the field agrees with its
  // digit (checkedConfidence; the surest of the passing checks that cover it), so that a digit passing on a field of
  // several unsure cells does not make them sure, and a field unsure in one cell that its digit settles is sure.
  const codeConf = new Map<string, number>();
  for (const sp of stateSpans) {
    const code = sp.map(([l, i]) => lines[l][i]).join('');
    if (KNOWN_STATES.has(code)) codePosterior(probs, sp, code).forEach((q, k) => codeConf.set(`${sp[k][0]}:${sp[k][1]}`, q));
  }
  const conf = lines.map((l, li) =>
    l.map((ch, i) => {
      if (ch !== raw[li][i]) repaired++;
      const settled = checked.get(`${li}:${i}`);
      if (settled !== undefined) return Number(settled.toFixed(4));
      const known = codeConf.get(`${li}:${i}`);
      if (known !== undefined) return Number(known.toFixed(4));
      const p = probs[li][i];
      let q = p[ALPHABET.indexOf(ch)];
      for (const x of TWINS[ch] ?? '') if (!classes[li][i].includes(x)) q += p[ALPHABET.indexOf(x)];
      // a state code on no list: its characters are not trusted beyond an even chance
      if (unknownCode.has(`${li}:${i}`)) q = Math.min(q, UNKNOWN_CODE_CONFIDENCE);
      return Number(Math.min(1, q).toFixed(4));
    }),
  );
  const parsed = parseMrz(text);
  const meanConf = sumConf / count;
  // plausibility gate
  const reasons: string[] = [];
  const l2 = text[1];
  const [birth, sex, expiry] = format === 'TD1' ? [l2.slice(0, 6), l2[7], l2.slice(8, 14)] : french ? [l2.slice(27, 33), l2[34], null] : [l2.slice(13, 19), l2[20], l2.slice(21, 27)];
  if (!plausibleDate(birth)) reasons.push('birth_date');
  if (expiry !== null && !plausibleDate(expiry)) reasons.push('expiry_date');
  // the French card has no expiry date; its number starts with the issue year and month
  if (french && !plausibleDate(l2.slice(0, 4) + '01')) reasons.push('issue_date');
  if (!(french ? 'MF' : 'MFX<').includes(sex)) reasons.push('sex');
  const names = format === 'TD1' ? text[2] : french ? text[0].slice(5, 30) + '<<' + text[1].slice(13, 27) : text[0].slice(5);
  if ((names.match(/[A-Z]/g) ?? []).length < 2 || !names.includes('<')) reasons.push('names');
  // two check digits that pass (one of them as read), or one for a confident read with a known state code (some
  // specimens and real cards are printed with wrong check digits)
  if (passedRaw < 1 || (passed < 2 && !(meanConf >= 0.75 && knownStates >= 1))) reasons.push('check_digits');
  if (meanConf < 0.5) reasons.push('confidence');
  // No state code on any list, one of them with digits in it, and check digits that do not all pass: lines of a page
  // that only look like a zone (a bill photographed sideways read `HHG` and `96J` with two digits passing by chance,
  // and was typed an identity card). A specimen's made-up state in letters (`CMW`) with a failing digit stays a zone.
  const codes = stateSpans.map((sp) => sp.map(([l, i]) => lines[l][i]).join(''));
  if (knownStates === 0 && !parsed.valid && codes.some((c) => /\d/.test(c))) reasons.push('state_codes');
  // the document code decides between formats of the same size (P for TD3, V for MRV): it must have been read so
  if (probs[0][0][ALPHABET.indexOf(text[0][0])] < 0.05) reasons.push('document_code');
  // a fixed prefix (IDFRA) must have been read so too: another 2 x 36 zone forced into it is not this format
  if (layout.prefix && Array.from(layout.prefix).some((ch, i) => probs[0][i][ALPHABET.indexOf(ch)] < 0.05)) reasons.push('document_code');
  const gate = reasons.length === 0;
  // likelihood of the final text (a format that forces an unlikely character, e.g. V for a P, pays for it)
  let sumLn = 0;
  lines.forEach((l, li) => l.forEach((ch, i) => (sumLn += ln(probs[li][i][ALPHABET.indexOf(ch)]))));
  const meanLn = sumLn / count;
  const score = (gate ? 100 : 0) + 10 * passed + (parsed.valid ? 10 : 0) + 2 * knownStates + 20 * meanLn - 0.5 * repaired;
  const decoded = { format, lines: text, valid: parsed.valid, repaired, conf, passedRaw, passed, gate, gateReasons: reasons, meanConf, score };
  return { decoded, prior: prior !== undefined, numberPasses: checkPasses(lines, numberDef) };
}
