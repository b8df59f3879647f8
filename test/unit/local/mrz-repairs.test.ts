/**
 * Code lists and check digits as repairs, and honest confidences where nothing can repair (decode.ts, synthetic
 * class probabilities): a state code on no list is repaired to a listed one only when the glyph model gives the
 * change a real probability, and is marked unsure otherwise; a letter of an alphanumeric field becomes its OCR-B
 * digit twin when the check digit says so (never a digit a letter); an unsure name letter lowers the name's confidence.
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../../server/src/providers/local/mrz/decode.ts';
import { readingFromMrz } from '../../../server/src/providers/local/id-documents.ts';
import { mrzCheckDigit } from '../../../server/src/validators/mrz.ts';
import { probsFor } from './support-mrz.ts';

/**
 * A TD1 zone of identity card `I<`: the state, the document number and its check digit on line 1, line 2's first 29
 * characters as given (birth, sex, expiry, nationality, optional data) and its composite check digit, the names padded.
 */
function td1Zone(state: string, number: string, line2Head: string, names: string): string[] {
  const l1 = ('I<' + state + number + mrzCheckDigit(number)).padEnd(30, '<');
  const l2 = line2Head + mrzCheckDigit(l1.slice(5, 30) + line2Head.slice(0, 7) + line2Head.slice(8, 15) + line2Head.slice(18, 29));
  return [l1, l2, names.padEnd(30, '<')];
}

const REF = '2026-11-24';
// the ICAO example, issued by Malaysia (state codes are covered by no check digit: the zone stays valid)
const MYS = ['P<MYSERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36MYS7408122F1204159ZE184226B<<<<<10'];

describe('state codes: the ICAO list repairs, when the glyph model allows it', () => {
  it('UYS with the M at 30 % in both codes becomes MYS, sure since no other listed code is near', () => {
    const d = decode('TD3', probsFor(MYS, { '0:2': { U: 0.6, M: 0.3 }, '1:10': { U: 0.6, M: 0.3 } }));
    expect(d.lines).toEqual(MYS);
    expect(d.conf[0][2]).toBeGreaterThan(0.9);
    expect(d.conf[1][10]).toBeGreaterThan(0.9);
  });

  it('with the M at 2 % the code stays as read, and its characters are not trusted', () => {
    const d = decode('TD3', probsFor(MYS, { '0:2': { U: 0.9, M: 0.02 }, '1:10': { U: 0.9, M: 0.02 } }));
    expect(d.lines[0].slice(2, 5)).toBe('UYS');
    expect(d.conf[0][2]).toBeLessThanOrEqual(0.5);
    expect(d.conf[1][10]).toBeLessThanOrEqual(0.5);
    const r = readingFromMrz({ lines: d.lines, charConfidence: d.conf, page: 1 }, { expect: null, referenceDate: REF })!;
    expect(r.fields.nationality.confidence).toBeLessThanOrEqual(0.5);
  });

  it('a listed code read clearly keeps its confidence', () => {
    const d = decode('TD3', probsFor(MYS));
    expect(Math.min(...d.conf[0].slice(2, 5), ...d.conf[1].slice(10, 13))).toBeGreaterThan(0.95);
  });
});

describe('check digits decide O/0, I/1, S/5, B/8 in alphanumeric fields', () => {
  // TD1 document number ABCD0EFGH: the 0 between letters, which the letter/digit context alone would read O
  const l2head = '7408122F1204159UTO' + '<'.repeat(11);
  const td1 = td1Zone('UTO', 'ABCD0EFGH', l2head, 'ERIKSSON<<ANNA<MARIA');
  const l2 = td1[1];

  it('reads the 0 the check digit asks for, though letters surround it', () => {
    const d = decode('TD1', probsFor(td1, { '0:9': { O: 0.55, '0': 0.4 } }));
    expect(d.lines).toEqual(td1);
    expect(d.valid).toBe(true);
  });

  it('never makes a digit a letter: a printed O read as 0 between digits stays 0 and fails', () => {
    const n2 = '12340567A';
    const a = 'I<UTO' + n2 + mrzCheckDigit('1234O567A') + '<'.repeat(15);
    const zone = [a, l2, td1[2]];
    const d = decode('TD1', probsFor(zone, { '0:9': { '0': 0.55, O: 0.4 } }));
    expect(d.lines[0].slice(5, 14)).toBe(n2);
    expect(d.passed).toBeLessThan(3);
  });
});

describe('names: an unsure letter is not read as sure', () => {
  it('lowers the surname confidence and its chars where the letter was unsure', () => {
    const td3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
    // the second S of ERIKSSON hesitates with an unlisted letter (no check digit covers names: nothing repairs it)
    const d = decode('TD3', probsFor(td3, { '0:10': { S: 0.55, B: 0.4 } }));
    expect(d.lines).toEqual(td3);
    const r = readingFromMrz({ lines: d.lines, charConfidence: d.conf, page: 1 }, { expect: null, referenceDate: REF })!;
    expect(r.fields.last_name.value).toBe('ERIKSSON');
    expect(r.fields.last_name.confidence).toBeLessThanOrEqual(0.6);
    expect(r.fields.last_name.chars![5]).toBeLessThanOrEqual(0.6);
    expect(r.fields.first_name.confidence).toBeGreaterThan(0.9);
  });
});

describe("a letter the letter/digit context made a digit: the check digit may give it back, never compensate elsewhere", () => {
  // a small web copy of a passport whose number starts with two letters (SD9990322): the D read 66 % D, 26 % 9 between
  // the S and the digits, where the context prefers a digit; the 0 and the last 2 hesitate with O and Z. Before, the
  // repair kept the context's 9 and changed the S into an E read 16 % (S9 and E9 weigh alike): "E99990322", valid.
  const num = 'SD9990322';
  const l2head = num + mrzCheckDigit(num) + 'UTO9004137F3107014' + '<'.repeat(14) + '0';
  const l2 = l2head + mrzCheckDigit(l2head.slice(0, 10) + l2head.slice(13, 20) + l2head.slice(21, 43));
  const zone = ['P<UTOSAMPLE<<LANA'.padEnd(44, '<'), l2];
  const hesitant = { '1:0': { S: 0.796, E: 0.156, I: 0.039 }, '1:1': { D: 0.656, '9': 0.258, B: 0.05 }, '1:2': { '9': 0.91, B: 0.063 }, '1:3': { '9': 0.979, R: 0.018 }, '1:5': { O: 0.427, '0': 0.419, G: 0.077 }, '1:7': { '2': 0.775, Z: 0.221 }, '1:8': { Z: 0.708, '2': 0.288 } };

  it('reads SD9990322, the number the glyph model and the check digit agree on', () => {
    const d = decode('TD3', probsFor(zone, hesitant));
    expect(d.lines).toEqual(zone);
    expect(d.valid).toBe(true);
  });

  it('a digit the glyph model read first stays a digit (a forged digit is not compensated by a letter)', () => {
    // the same cell read 66 % 9, 26 % D: the check digit fails with the 9 and no letter is put back
    const d = decode('TD3', probsFor(zone, { ...hesitant, '1:1': { '9': 0.656, D: 0.258, B: 0.05 } }));
    expect(d.lines[1].slice(0, 9)).not.toBe(num);
    expect(d.lines[1][1]).toBe('9');
  });
});

describe('a letter is given back only where the context chose between a letter and a digit', () => {
  it('a 0 read O first between digits stays a 0 (beside a Q read for another 0: Q and O weigh 26 and 24, both times 7)', () => {
    const zone = td1Zone('MCO', '029067<<<', '9901018F0903248MCO' + '<'.repeat(11), 'SPECIMEN<<SPECIMEN');
    // an ultraviolet-like capture: the first 0 read Q first, the fourth O first, the digits close behind
    const d = decode('TD1', probsFor(zone, { '0:5': { Q: 0.5, '0': 0.3, O: 0.1 }, '0:8': { O: 0.5, '0': 0.4 } }));
    expect(d.lines[0].slice(5, 14)).not.toBe('Q29O67<<<');
  });
});
