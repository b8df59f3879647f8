import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { checkDni, checkNie, dniLetter } from '../../../server/src/validators/nif.ts';
import { checkIban, ibanCheckDigits } from '../../../server/src/validators/iban.ts';
import { mrzCheckDigit } from '../../../server/src/validators/mrz.ts';
import { checkBrCpf, cpfCheckDigits } from '../../../server/src/validators/id-numbers.ts';

const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((a) => a.join(''));
const changeOneDigit = (s: string, pos: number, delta: number) => s.slice(0, pos) + String((Number(s[pos]) + delta) % 10) + s.slice(pos + 1);

describe('property: DNI / NIE', () => {
  it('any 8 digits plus the computed letter is a valid DNI; changing one digit invalidates it', () => {
    fc.assert(fc.property(digits(8), fc.integer({ min: 0, max: 7 }), fc.integer({ min: 1, max: 9 }), (d, pos, delta) => {
      expect(checkDni(d + dniLetter(d)).valid).toBe(true);
      const m = changeOneDigit(d, pos, delta);
      // A single-digit change alters n mod 23 (23 does not divide k * 10^p for 1 <= k <= 9).
      expect(checkDni(m + dniLetter(d)).valid).toBe(false);
    }));
  });
  it('any X/Y/Z + 7 digits plus the computed letter is a valid NIE; changing one digit invalidates it', () => {
    fc.assert(fc.property(fc.constantFrom('X', 'Y', 'Z'), digits(7), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 9 }), (p, d, pos, delta) => {
      const letter = dniLetter('XYZ'.indexOf(p) + d);
      expect(checkNie(p + d + letter).valid).toBe(true);
      expect(checkNie(p + changeOneDigit(d, pos, delta) + letter).valid).toBe(false);
    }));
  });
});

describe('property: IBAN', () => {
  // Countries with purely numeric BBANs and no national check digits in ibantools.
  const specs: Array<[string, number]> = [['DE', 18], ['AT', 16], ['CH', 17], ['LU', 16], ['GR', 23], ['IL', 19]];
  it('generated BBAN + computed check digits is valid; mutating one character invalidates it', () => {
    fc.assert(fc.property(fc.constantFrom(...specs), fc.nat(), fc.integer({ min: 1, max: 9 }), ([cc, n], seed, delta) => {
      let bban = '';
      let x = seed;
      for (let i = 0; i < n; i++) {
        x = (x * 1103515245 + 12345) % 2147483648;
        bban += String(x % 10);
      }
      if (cc === 'CH') bban = '0' + bban.slice(1); // avoid the QR-IID range (not relevant here)
      const iban = cc + ibanCheckDigits(cc, bban) + bban;
      expect(checkIban(iban).valid).toBe(true);
      const pos = 4 + (seed % n);
      const mutated = iban.slice(0, pos) + String((Number(iban[pos]) + delta) % 10) + iban.slice(pos + 1);
      // mod-97 detects every single-character substitution.
      expect(checkIban(mutated).valid).toBe(false);
    }));
  });
});

describe('property: MRZ check digit', () => {
  const mrzChar = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<'.split(''));
  it('the computed digit validates; one changed numeric character fails', () => {
    fc.assert(fc.property(fc.array(mrzChar, { minLength: 1, maxLength: 39 }).map((a) => a.join('')), digits(6), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 9 }), (field, date, pos, delta) => {
      const cd = mrzCheckDigit(field)!;
      expect(cd).toMatch(/^\d$/);
      // Dates and numeric fields: weights 7/3/1 are coprime with 10, so any single-digit change is detected.
      const d = mrzCheckDigit(date)!;
      expect(mrzCheckDigit(changeOneDigit(date, pos, delta))).not.toBe(d);
    }));
  });
  it('one changed character in an alphanumeric field changes the digit unless the values differ by a multiple of 10', () => {
    const V = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    fc.assert(fc.property(fc.array(mrzChar, { minLength: 1, maxLength: 30 }).map((a) => a.join('')), fc.nat(), mrzChar, (field, p, c) => {
      const pos = p % field.length;
      const val = (ch: string) => (ch === '<' ? 0 : V.indexOf(ch));
      fc.pre(c !== field[pos] && (val(c) - val(field[pos])) % 10 !== 0);
      const changed = field.slice(0, pos) + c + field.slice(pos + 1);
      expect(mrzCheckDigit(changed)).not.toBe(mrzCheckDigit(field));
    }));
  });
});

describe('property: CPF', () => {
  // Not every one-digit change is caught: remainders 0 and 1 both give check digit 0, and the second
  // digit's weight 11 on the first position vanishes mod 11. So the property is exact agreement with
  // the definition: a changed body keeps passing with the old check digits iff they are still its digits.
  it('9 digits plus computed check digits is valid; a changed body passes only if its digits are unchanged', () => {
    fc.assert(fc.property(digits(9), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 9 }), (d, pos, delta) => {
      fc.pre(!/^(\d)\1{8}$/.test(d));
      const cpf = d + cpfCheckDigits(d);
      expect(checkBrCpf(cpf).valid).toBe(true);
      const body = changeOneDigit(d, pos, delta);
      fc.pre(!/^(\d)\1{8}$/.test(body));
      expect(checkBrCpf(body + cpfCheckDigits(d)).valid).toBe(cpfCheckDigits(body) === cpfCheckDigits(d));
    }));
  });
  it('changing either check digit always invalidates', () => {
    fc.assert(fc.property(digits(9), fc.integer({ min: 9, max: 10 }), fc.integer({ min: 1, max: 9 }), (d, pos, delta) => {
      fc.pre(!/^(\d)\1{8}$/.test(d));
      const cpf = d + cpfCheckDigits(d);
      expect(checkBrCpf(changeOneDigit(cpf, pos, delta)).valid).toBe(false);
    }));
  });
  it('the known collision exists (so the first property is not vacuous)', () => {
    expect(cpfCheckDigits(changeOneDigit('498754122', 0, 1))).toBe(cpfCheckDigits('498754122'));
  });
});
