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
  const num = 'ABCD0EFGH';
  const l1 = 'I<UTO' + num + mrzCheckDigit(num) + '<'.repeat(15);
  const l2head = '7408122F1204159UTO' + '<'.repeat(11);
  const l2 = l2head + mrzCheckDigit(l1.slice(5, 30) + l2head.slice(0, 7) + l2head.slice(8, 15) + l2head.slice(18, 29));
  const td1 = [l1, l2, 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];

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
