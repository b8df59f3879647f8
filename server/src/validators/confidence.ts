/**
 * Characters read unsure (issue #27): a check-digit validator that fails on characters the reader was not sure of
 * proves a misreading as much as a forgery, so that failure is a `low_confidence` warning (verdict `review`), not an
 * error. Pure: no I/O.
 */
import { detectMrzFormat, normaliseMrzLines, type MrzCheckName } from './mrz.ts';

/**
 * Per-character confidence (ReadField.chars) below which a character counts as read unsure. Measured on the local
 * MRZ reader in bench/results/check-confidence.md (`node bench/check-confidence.ts`, 32 PassportEye specimens + the
 * documents-dev tune split): the genuine check failures that are the reader's fail on characters read at 0.56 (a
 * thumb-covered check digit) and 0.68 (the least sure character of Malta_BAD's composite check, which fails since the
 * reader's check-digit repair no longer takes the 3 % `D` of its optional data), while a glyph a forger pastes into the zone is read at 0.995 or more. No false
 * rejection from 0.7 up; 0.8 keeps a margin of 0.12 above the genuine failures and calls 155 of the 167 broken copies
 * an error (none is read as a valid zone; the other 12 become `review`: another character of the forged field, mostly
 * an O/0, is itself unsure). A failing check is an error when every character it covers
 * (mrzCheckPositions; for a NIF, its characters) is at least this sure.
 */
export const CHECK_CHAR_CONFIDENCE = 0.8;

/**
 * Every character given is read at least `threshold` sure: a failure on them is evidence, not a misreading.
 * `chars` absent (a reader that gives no per-character confidences): the field's `confidence` stands for each.
 */
export function readSurely(chars: number[] | undefined, fieldConfidence: number, at?: number[], threshold = CHECK_CHAR_CONFIDENCE): boolean {
  if (!chars) return fieldConfidence >= threshold;
  const picked = at ? at.map((i) => chars[i] ?? fieldConfidence) : chars;
  return picked.every((c) => c >= threshold);
}

/**
 * The characters one MRZ check digit covers (the field and the digit itself), as indices into the zone's lines joined
 * by `\n` (the `mrz` field's value, so that they index its `chars`). Empty for a check the format does not have.
 * Mirrors validators/mrz.ts parseMrz, including the long document number of TD1/TD2 (continued in the optional data).
 */
export function mrzCheckPositions(input: string | string[], check: MrzCheckName): number[] {
  const lines = normaliseMrzLines(input);
  const format = detectMrzFormat(lines);
  const offset = (l: number) => lines.slice(0, l).reduce((t, x) => t + x.length + 1, 0);
  const span = (l: number, from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, k) => offset(l) + from + k);
  const at = (l: number, i: number) => [offset(l) + i];
  /** Document number [from, to) on line l, its check digit at cd, optional data (for the long form) from opt. */
  const docNumber = (l: number, from: number, to: number, cd: number, opt: number) => {
    if (lines[l][cd] !== '<') return [...span(l, from, to), ...at(l, cd)];
    const ext = /^[0-9A-Z]*/.exec(lines[l].slice(opt))![0].length;
    return [...span(l, from, to), ...at(l, cd), ...span(l, opt, opt + ext)];
  };
  switch (format) {
    case 'TD1':
      return {
        document_number: docNumber(0, 5, 14, 14, 15),
        birth_date: [...span(1, 0, 7)],
        expiry_date: [...span(1, 8, 15)],
        personal_number: [],
        composite: [...span(0, 5, 30), ...span(1, 0, 7), ...span(1, 8, 15), ...span(1, 18, 30)],
      }[check];
    case 'TD2':
    case 'MRVB':
      return {
        document_number: format === 'TD2' ? docNumber(1, 0, 9, 9, 28) : span(1, 0, 10),
        birth_date: span(1, 13, 20),
        expiry_date: span(1, 21, 28),
        personal_number: [],
        composite: format === 'TD2' ? [...span(1, 0, 10), ...span(1, 13, 20), ...span(1, 21, 36)] : [],
      }[check];
    case 'TD3':
    case 'MRVA':
      return {
        document_number: span(1, 0, 10),
        birth_date: span(1, 13, 20),
        expiry_date: span(1, 21, 28),
        personal_number: format === 'TD3' ? span(1, 28, 43) : [],
        composite: format === 'TD3' ? [...span(1, 0, 10), ...span(1, 13, 20), ...span(1, 21, 44)] : [],
      }[check];
    case 'FRENCH_NATIONAL_ID':
      return {
        document_number: span(1, 0, 13),
        birth_date: span(1, 27, 34),
        expiry_date: [],
        personal_number: [],
        composite: [...span(0, 0, 36), ...span(1, 0, 36)],
      }[check];
    default:
      return [];
  }
}
