import { describe, expect, it } from 'vitest';
import { CHECK_CHAR_CONFIDENCE, mrzCheckPositions, readSurely } from '../../../server/src/validators/confidence.ts';
import { parseMrz } from '../../../server/src/validators/mrz.ts';

const ZONES: Record<string, string[]> = {
  TD1: ['IDESPBAA000589599999999R<<<<<<', '8001014F2501017ESP<<<<<<<<<<<6', 'ESPANOLA<ESPANOLA<<CARMEN<<<<<'],
  'TD1 long number': ['I<NLDXI85935F86999999990<<<<<<', '7208148F1108268NLD<<<<<<<<<<<4', 'VAN<DER<STEEN<<MARIANNE<LOUISE'],
  TD2: ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6'],
  TD3: ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'],
  MRVA: ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8988901C4XXX4009078F96121096ZE184226B<<<<<<'],
};

describe('mrzCheckPositions', () => {
  for (const [name, lines] of Object.entries(ZONES)) {
    it(`${name}: the positions of each check are its input and its digit, in the zone joined by \\n`, () => {
      const joined = lines.join('\n');
      const parsed = parseMrz(lines);
      expect(parsed.checks.length).toBeGreaterThan(0);
      for (const c of parsed.checks) {
        const at = mrzCheckPositions(lines, c.name);
        const read = at.map((i) => joined[i]).join('');
        // every input character and the digit, nothing else (the long TD1 number keeps its `<` digit slot)
        expect([...read].sort().join(''), `${name} ${c.name}`).toBe([...(c.input + c.found + (c.variant === 'long_icao' ? '<' : ''))].sort().join(''));
        expect(at.every((i) => joined[i] !== '\n')).toBe(true);
      }
    });
  }
  it('is empty for a check the format does not have', () => {
    expect(mrzCheckPositions(ZONES.MRVA, 'composite')).toEqual([]);
    expect(mrzCheckPositions(['garbage'], 'birth_date')).toEqual([]);
  });
});

describe('readSurely', () => {
  it('is true only when every character given is at least the threshold', () => {
    expect(readSurely([0.99, 0.97, 1], 0.5)).toBe(true);
    expect(readSurely([0.99, CHECK_CHAR_CONFIDENCE - 0.01, 1], 0.99)).toBe(false);
    expect(readSurely([0.99, 0.1, 1], 0.99, [0, 2])).toBe(true);
  });
  it("falls back to the field's confidence without per-character confidences", () => {
    expect(readSurely(undefined, 0.95)).toBe(true);
    expect(readSurely(undefined, 0.3)).toBe(false);
  });
});
