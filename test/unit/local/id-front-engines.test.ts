/**
 * An ID front read by two OCR engines (issue #28): PP-OCR's glued words cut (unglueWords), the two readings
 * combined field by field (combineIdFrontFields: agreement surer, dispute unsure, dates judged by plausibility), on
 * synthetic line sets and on both engines' captured readings of the tune files (test/fixtures/id-fronts/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyIdFrontBoth, combineIdFrontFields, readIdFrontFieldsBoth, unglueWords } from '../../../server/src/providers/local/text/id-front.ts';
import type { ReadField } from '../../../server/src/providers/types.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/id-fronts');
const ocr = (name: string): TextLine[] => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')).lines;

/** One line of words, each word a box of its own (as an engine gives them). */
function words(y: number, ...ws: string[]): TextLine {
  let x = 0.1;
  const out = ws.map((w) => {
    const bbox: [number, number, number, number] = [x, y, x + w.length * 0.01, y + 0.03];
    x += w.length * 0.01 + 0.01;
    return { text: w, bbox, confidence: 0.98 };
  });
  return { page: 1, text: ws.join(' '), bbox: [0.1, y, x, y + 0.03], confidence: 0.98, words: out };
}
const field = (value: string, confidence: number): ReadField => ({ value, confidence, source: { page: 1, bbox: [0.1, 0.1, 0.2, 0.12] }, origin: 'ocr' });

describe('PP-OCR glued words', () => {
  it('cuts labels from values, a state from its ZIP and its city, a house number from its street; each part inside the word box', () => {
    const [a, b, c, d, e] = unglueWords([
      words(0.1, 'SEXF', 'CLASSD', 'EYESBLU', 'DOB06/03/1981'),
      words(0.2, '4dDLN', '1PUBLIC'),
      words(0.3, '11970WBROAD', 'ST'),
      words(0.4, 'COLUMBUS.OH', '43223', 'HI96820', 'NASHMLLE.TN37210'),
      words(0.5, 'TL545786', 'JANEO', 'CLASSEN', 'D2H6862M2', '11970WBROAD'),
    ]);
    expect(a.text).toBe('SEX F CLASS D EYES BLU DOB 06/03/1981');
    expect(b.text).toBe('4d DLN 1 PUBLIC');
    expect(c.text).toBe('11970 WBROAD ST');
    expect(d.text).toBe('COLUMBUS, OH 43223 HI 96820 NASHMLLE, TN 37210');
    // Numbers, names and a house number off a street line stay whole: nothing tells their parts.
    expect(e.text).toBe('TL545786 JANEO CLASSEN D2H6862M2 11970WBROAD');
    const src = words(0.1, 'SEXF').words![0].bbox;
    for (const w of a.words!.slice(0, 2)) {
      expect(w.bbox[0]).toBeGreaterThanOrEqual(src[0]);
      expect(w.bbox[2]).toBeLessThanOrEqual(src[2] + 1e-9);
      expect(w.bbox[2]).toBeGreaterThan(w.bbox[0]);
    }
  });
});

describe('two readings combined', () => {
  const today = '2026-11-28';
  it('alike: surer than either, in the first engine\'s spelling; one engine alone: its value, the second discounted', () => {
    const out = combineIdFrontFields(
      { first_name: field('Maélis-Gaélle, Marie', 0.7), document_number: field('TL545786', 0.09), last_name: field('SAMPLE', 0.8) },
      { first_name: field('Maelis-Gaelle,Marie', 0.95), document_number: field('TL545786', 0.99), sex: field('M', 0.95) },
      { today },
    );
    expect(out.first_name.value).toBe('Maélis-Gaélle, Marie');
    expect(out.first_name.confidence).toBeGreaterThan(0.95);
    expect(out.document_number.confidence).toBeGreaterThanOrEqual(0.95);
    expect(out.document_number.confidence).toBeLessThanOrEqual(0.97);
    expect(out.last_name).toEqual(field('SAMPLE', 0.8));
    expect(out.sex.value).toBe('M');
    expect(out.sex.confidence).toBeLessThan(0.95);
  });

  it('disputed: the stronger evidence wins and is unsure (below 0.8); an implausible date loses whatever its confidence', () => {
    const out = combineIdFrontFields(
      { birth_date: field('1982-07-09', 0.9), expiry_date: field('2012-07-09', 0.9), issue_date: field('2009-04-01', 0.9) },
      // 2009-07-09 is after the issue date: no birth date of this card
      { birth_date: field('2009-07-09', 0.99), expiry_date: field('2012-07-09', 0.99), issue_date: field('2009-04-01', 0.99) },
      { today },
    );
    expect(out.birth_date.value).toBe('1982-07-09');
    expect(out.birth_date.confidence).toBeLessThanOrEqual(0.6);
    expect(out.expiry_date.confidence).toBeGreaterThanOrEqual(0.95);
    // Both plausible: the surer reading, unsure.
    const two = combineIdFrontFields({ birth_date: field('1982-07-09', 0.64) }, { birth_date: field('1962-07-09', 0.71) }, { today });
    expect(two.birth_date.value).toBe('1962-07-09');
    expect(two.birth_date.confidence).toBeLessThan(0.8);
    // A holder of 5 at issue is no holder: the date is implausible.
    const young = combineIdFrontFields({ birth_date: field('2004-07-09', 0.95), issue_date: field('2009-04-01', 0.95) }, { birth_date: field('1964-07-09', 0.5), issue_date: field('2009-04-01', 0.95) }, { today });
    expect(young.birth_date.value).toBe('1964-07-09');
  });

  it('disputed: a value the other engine\'s text shows too beats a surer one it does not', () => {
    const out = combineIdFrontFields({ document_number: field('TL545786', 0.09) }, { document_number: field('11970', 0.66) }, {
      today,
      firstLines: [words(0.5, 'TL', '545786')],
      secondLines: [words(0.4, '11970', 'WBROAD', 'ST'), words(0.5, 'TL545786', '07-09-1962')],
    });
    expect(out.document_number.value).toBe('TL545786');
    expect(out.document_number.confidence).toBeLessThan(0.8);
  });

  it('dates kept that contradict each other are unsure unless both engines read them alike', () => {
    const out = combineIdFrontFields({ birth_date: field('1990-01-01', 0.9), expiry_date: field('1985-01-01', 0.9) }, { expiry_date: field('1985-01-01', 0.9) }, { today });
    expect(out.birth_date.confidence).toBeLessThanOrEqual(0.6);
    expect(out.expiry_date.confidence).toBeGreaterThan(0.9);
  });
});

describe('both engines on the tune files', () => {
  function both(name: string) {
    const first = ocr(`${name}.json`);
    const second = ocr(`${name}.paddle.json`);
    const c = classifyIdFrontBoth(first, second)!;
    const entry = getEntry(c.type)!;
    return { c, fields: readIdFrontFieldsBoth(first, second, entry, entry.fields, { country: c.country, region: c.region }) };
  }

  it('the Ohio licence: its title and state read by PP-OCR; birth disputed (1982 / 1962) kept unsure; names above the street', () => {
    const { c, fields } = both('zerox__0022');
    expect(c).toMatchObject({ type: 'us_drivers_license', country: 'USA', region: { value: 'OH' } });
    expect(c.confidence).toBeGreaterThanOrEqual(0.8);
    expect(fields.birth_date.value).toBe('1962-07-09');
    expect(fields.birth_date.confidence).toBeLessThan(0.8);
    expect(fields.document_number.value).toBe('TL545786');
    expect(fields.last_name.value).toBe('PUBLIC');
    expect(fields.expiry_date).toMatchObject({ value: '2012-07-09' });
    expect(fields.expiry_date.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('the Hawaii licence: the birth date under DOB from PP-OCR against tesseract\'s 1984, unsure; the sex read', () => {
    const { fields } = both('veryfi-nodejs__driver_license');
    expect(fields.birth_date.value).toBe('1981-06-03');
    expect(fields.birth_date.confidence).toBeLessThan(0.8);
    expect(fields.sex.value).toBe('M');
    expect(fields.document_number.value).toBe('01-47-87441');
  });

  it('every tune file: the fields both engines agree on are sure and right where tesseract alone already read them', () => {
    for (const name of ['SIDTD__fake_ir_alb00', 'kby-ai__3', 'zerox__0023']) {
      const { fields } = both(name);
      for (const [k, f] of Object.entries(fields)) {
        expect(f.confidence, `${name} ${k}`).toBeGreaterThan(0);
        expect(f.confidence, `${name} ${k}`).toBeLessThanOrEqual(0.97);
      }
    }
    expect(both('kby-ai__3').fields.first_name.value).toBe('Maélis-Gaélle, Marie');
    expect(both('SIDTD__fake_ir_alb00').fields.issue_date.value).toBe('2019-04-13');
    expect(both('zerox__0023').fields).toMatchObject({ issue_date: { value: '2019-02-11' }, sex: { value: 'F' }, region: { value: 'TN' } });
  });
});
