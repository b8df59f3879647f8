/**
 * Document-number format priors per issuing state (decode.ts NUMBER_PRIORS, synthetic class probabilities): where a
 * national rule excludes one of OCR-B's twins (the Netherlands never print the letter O, Canadian passport numbers are
 * two letters and six digits, German serial numbers have no vowels, B, D, Q or S), the twin the glyph model hesitated
 * on is settled before the check digit and read sure; a zone whose check digit fails still fails; a rule that would make
 * a passing number fail is dropped for that zone.
 */
import { describe, expect, it } from 'vitest';
import { decode } from '../../../server/src/providers/local/mrz/decode.ts';
import { mrzCheckDigit } from '../../../server/src/validators/mrz.ts';
import { probsFor } from './support-mrz.ts';

/** A TD3 zone with its check digits computed; `badNumberDigit` prints a wrong document-number check digit. */
function td3(state: string, number: string, badNumberDigit = false): string[] {
  const s = state.padEnd(3, '<');
  const l1 = ('P<' + s + 'ERIKSSON<<ANNA<MARIA').padEnd(44, '<');
  const nd = mrzCheckDigit(number)!;
  const digit = badNumberDigit ? String((Number(nd) + 1) % 10) : nd;
  const head = number + digit + s + '7408122F1204159';
  const personal = '<'.repeat(14);
  const body = head + personal + '<';
  const composite = mrzCheckDigit(body.slice(0, 10) + body.slice(13, 20) + body.slice(21, 43))!;
  return [l1, body + composite];
}

// cells 3 and 4 of the number (weights 7 and 3: O for 0 in both adds 240, so the check digit cannot tell): 0 or O
const HESITANT = { '1:3': { '0': 0.5, O: 0.45 }, '1:4': { '0': 0.5, O: 0.45 } };
const minConf = (d: ReturnType<typeof decode>, from: number, to: number) => Math.min(...d.conf[1].slice(from, to));

describe('document-number priors settle O/0 where the state rule says', () => {
  it('Netherlands (no letter O): `00` read half O is a sure `00`; the same cells for a state with no rule stay unsure', () => {
    const nld = td3('NLD', 'NXK00D471');
    const d = decode('TD3', probsFor(nld, HESITANT));
    expect(d.lines).toEqual(nld);
    expect(d.valid).toBe(true);
    expect(minConf(d, 0, 10)).toBeGreaterThan(0.9);
    const uto = td3('UTO', 'NXK00D471');
    const u = decode('TD3', probsFor(uto, HESITANT));
    expect(minConf(u, 3, 5)).toBeLessThan(0.8);
  });

  it('Canada passport (2 letters, 6 digits): a `0` read as O and a B read as 8 go to their type, sure', () => {
    const can = td3('CAN', 'GB000123<');
    const d = decode('TD3', probsFor(can, { ...HESITANT, '1:2': { O: 0.6, '0': 0.35 }, '1:1': { '8': 0.6, B: 0.35 } }));
    expect(d.lines).toEqual(can);
    expect(d.valid).toBe(true);
    expect(minConf(d, 0, 10)).toBeGreaterThan(0.9);
  });

  it('Germany (no vowels, B, D, Q, S): an O between consonants is the digit 0', () => {
    const deu = td3('D', 'CFH0LTNR7');
    const d = decode('TD3', probsFor(deu, { '1:3': { O: 0.6, '0': 0.35 } }));
    expect(d.lines).toEqual(deu);
    expect(d.valid).toBe(true);
    expect(d.conf[1][3]).toBeGreaterThan(0.9);
  });
});

describe('what a prior never does', () => {
  it('a Canadian number whose printed check digit fails still fails, its characters read sure', () => {
    const can = td3('CAN', 'GB000123<', true);
    const d = decode('TD3', probsFor(can, HESITANT));
    expect(d.valid).toBe(false);
    expect(d.passed).toBeLessThan(3);
  });

  it('a Dutch number printed with a letter O (against the rule) that passes as read is kept, not made to fail', () => {
    const nld = td3('NLD', 'NXO0K4D71');
    const d = decode('TD3', probsFor(nld, { '1:2': { O: 0.9, '0': 0.07 } }));
    expect(d.lines).toEqual(nld);
    expect(d.valid).toBe(true);
  });

  it('a state with no rule is decoded as before', () => {
    const uto = td3('UTO', 'L898902C3');
    expect(decode('TD3', probsFor(uto)).lines).toEqual(uto);
  });
});

describe('a run of letters O in a document number (issue #28, a public specimen study)', () => {
  it('`K0000000E` read with every zero an O is read with zeros, its zeros left unsure when the glyph model was sure of O', () => {
    const sgp = td3('SGP', 'K0000000E');
    const allO = Object.fromEntries(Array.from({ length: 7 }, (_, k) => [`1:${k + 1}`, { O: 0.9, '0': 0.08 }]));
    const d = decode('TD3', probsFor(sgp, allO));
    expect(d.lines).toEqual(sgp);
    expect(minConf(d, 1, 8)).toBeLessThan(0.8);
  });
  it('a single O stays a letter; a run that would change the check outcome stays as read', () => {
    const one = td3('UTO', 'ABCODEF12');
    expect(decode('TD3', probsFor(one, { '1:3': { O: 0.9, '0': 0.08 } })).lines).toEqual(one);
    // `OO` in cells weighted 1 and 7: the zeros would change the sum by 192, so the printed check digit decides
    const two = td3('UTO', 'ABOOC1234');
    expect(decode('TD3', probsFor(two, { '1:2': { O: 0.9, '0': 0.08 }, '1:3': { O: 0.9, '0': 0.08 } })).lines).toEqual(two);
  });
});
