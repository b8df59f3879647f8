// The scoring rules of bench/dev-reading.ts (issue #28's development-set benchmark): how amounts, dates, names and
// identifiers are normalised before comparison, and how a miss is classed.
import { describe, expect, it } from 'vitest';
import {
  amountMissClass, dateMissClass, invoiceChecks, isoToYymmdd, looksLikeLabel, mrzMissClass, normaliseAmount, normaliseDate, normaliseId, normaliseName,
  sameAmount, sameVatId, textMissClass, typeMissClass,
} from '../../../bench/lib/dev-scoring.ts';

describe('amounts', () => {
  it('reads the last separator followed by one or two digits as the decimal point', () => {
    expect(normaliseAmount('60.30')).toBe(60.3);
    expect(normaliseAmount('1.234,50 €')).toBe(1234.5);
    expect(normaliseAmount('1,234.50')).toBe(1234.5);
    expect(normaliseAmount('RM 17.2')).toBe(17.2);
    expect(normaliseAmount('1 325')).toBe(1325);
    expect(normaliseAmount('1.325')).toBe(1325);
    expect(normaliseAmount(144.02)).toBe(144.02);
  });
  it('keeps the sign of a credit note', () => {
    expect(normaliseAmount('-12,00')).toBe(-12);
    expect(normaliseAmount('(12.00)')).toBe(-12);
    expect(sameAmount(-12, '-12.00')).toBe(true);
    expect(sameAmount(12, '-12.00')).toBe(false);
  });
  it('has no amount without a digit, and compares to the cent', () => {
    expect(normaliseAmount('total')).toBeNull();
    expect(normaliseAmount(null)).toBeNull();
    expect(sameAmount(5749.99, '5749.99')).toBe(true);
    expect(sameAmount(5749.98, '5749.99')).toBe(false);
    expect(sameAmount(null, '0.00')).toBe(false);
  });
  it('classes a wrong amount', () => {
    expect(amountMissClass(null, '60.30')).toBe('field not found');
    expect(amountMissClass(3.41, '60.30', { tax: '3.41' })).toBe('tax taken as total');
    expect(amountMissClass(6030, '60.30')).toBe('amount parsed wrong');
    expect(amountMissClass(-60.3, '60.30')).toBe('amount parsed wrong');
    expect(amountMissClass(68.3, '60.30')).toBe('character misread');
    expect(amountMissClass(12.5, '60.30')).toBe('other amount taken');
  });
});

describe('dates', () => {
  it('keeps ISO dates and turns them into MRZ YYMMDD', () => {
    expect(normaliseDate('2018-10-19')).toBe('2018-10-19');
    expect(normaliseDate('2018-10-19T00:00:00Z')).toBe('2018-10-19');
    expect(normaliseDate('19/10/2018')).toBeNull();
    expect(isoToYymmdd('1973-09-25')).toBe('730925');
    expect(isoToYymmdd('2073-09-25')).toBe('730925');
    expect(isoToYymmdd(null)).toBeNull();
  });
  it('classes a wrong date', () => {
    expect(dateMissClass(null, '2022-01-05')).toBe('field not found');
    expect(dateMissClass('2022-05-01', '2022-01-05')).toBe('day and month swapped');
    expect(dateMissClass('1922-01-05', '2022-01-05')).toBe('century wrong');
    expect(dateMissClass('2022-01-06', '2022-01-05')).toBe('character misread');
    expect(dateMissClass('2021-07-30', '2022-01-05')).toBe('other date taken');
    expect(dateMissClass('05/01/2022', '2022-01-05')).toBe('date parsed wrong');
  });
});

describe('names and identifiers', () => {
  it('folds names: diacritics, case, fillers and punctuation', () => {
    expect(normaliseName('Española Española')).toBe('ESPANOLA ESPANOLA');
    expect(normaliseName('ESPANOLA<ESPANOLA')).toBe('ESPANOLA ESPANOLA');
    expect(normaliseName('Müller-Lüdenscheidt,  Hans')).toBe('MULLER LUDENSCHEIDT HANS');
    expect(normaliseName('Straße')).toBe('STRASSE');
    expect(normaliseName('Østergaard')).toBe('OSTERGAARD');
    expect(normaliseName('  ')).toBeNull();
    expect(normaliseName(42)).toBeNull();
  });
  it('compares identifiers without spaces or fillers, other signs kept', () => {
    expect(normaliseId('pa 999 2921<')).toBe('PA9992921');
    expect(normaliseId('BILL/2022/0002')).toBe('BILL/2022/0002');
    expect(normaliseId('#BLR_1')).not.toBe(normaliseId('BLR_1'));
  });
  it('compares VAT ids on letters and digits, with or without the country prefix', () => {
    expect(sameVatId('FR 40 303 265 045', 'FR40303265045')).toBe(true);
    expect(sameVatId('40303265045', 'FR40303265045')).toBe(true);
    expect(sameVatId('DE123456789', 'FR40303265045')).toBe(false);
    expect(sameVatId(null, 'FR40303265045')).toBe(false);
  });
  it('classes a wrong text value', () => {
    expect(textMissClass(null, 'AGANI', 'name')).toBe('field not found');
    expect(textMissClass('SURNAME', 'AGANI', 'name')).toBe('label taken as value');
    expect(textMissClass('LN', 'SAMPLE', 'name')).toBe('label taken as value');
    expect(textMissClass('AGAN', 'AGANI', 'name')).toBe('read in part');
    expect(textMissClass('AGANI ADNAN', 'AGANI', 'name')).toBe('read with extra text');
    expect(textMissClass('AGENI', 'AGANI', 'name')).toBe('character misread');
    expect(textMissClass('TIRANA', 'AGANI', 'name')).toBe('other text taken');
    expect(looksLikeLabel('D0B')).toBe(false);
  });
});

describe('MRZ and type misses', () => {
  const truth = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
  it('classes a zone by its shape, then its characters', () => {
    expect(mrzMissClass(null, truth)).toBe('zone not found');
    expect(mrzMissClass(truth[1], truth)).toBe('zone misread (wrong format or line length)');
    expect(mrzMissClass(`${truth[0]}\n${truth[1].replace('Z', '2')}`, truth)).toBe('character misread (1 character)');
    expect(mrzMissClass(`${truth[0].replace('<<ANNA', '<KANNA')}\n${truth[1]}`, truth)).toBe('character misread (1 character, 1 at a filler)');
  });
  it('classes a wrong type', () => {
    const family = (t: string) => (/passport/.test(t) ? 'identity' : /invoice/.test(t) ? 'invoice' : 'other');
    expect(typeMissClass(null, ['de_passport'], family)).toBe('no type');
    expect(typeMissClass('unknown_document', ['de_passport'], family)).toBe('no type');
    expect(typeMissClass('passport', ['de_passport'], family)).toBe('wrong type (generic where a national type exists)');
    expect(typeMissClass('invoice', ['de_passport'], family)).toBe('wrong type (invoice instead of identity)');
  });
});

describe('invoice studies', () => {
  it('scores total, date, number and VAT id with the dev bench\'s comparisons, the fallback fields, and skips what the truth leaves out', () => {
    const r = { fields: { total_amount: { value: null }, amount: { value: '1.234,50 €' }, issue_date: { value: '2024-03-10' }, invoice_number: { value: 'INV-7' }, issuer_tax_id: undefined } };
    expect(invoiceChecks(r, { total: '1234.50', issue_date: '2024-03-10', number: 'INV-7', seller_vat_id: null })).toEqual([
      { check: 'total', ok: true, got: '1.234,50 €', want: '1234.50' },
      { check: 'date', ok: true, got: '2024-03-10', want: '2024-03-10' },
      { check: 'number', ok: true, got: 'INV-7', want: 'INV-7' },
    ]);
    expect(invoiceChecks(r, { seller_vat_id: 'DE123' })).toEqual([{ check: 'vat', ok: false, got: null, want: 'DE123' }]);
  });
});

