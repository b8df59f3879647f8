/**
 * MRZ and AAMVA evidence to catalogue types and fields (server/src/providers/local/id-documents.ts).
 *
 * The zones come from test mode's generator, which builds every MRZ-bearing catalogue type's zone from its visual
 * fields with real check digits: reading the zone back must give the same type (with `expect` naming it, which is
 * how a caller disambiguates equally plausible types) and the same values for every field the zone carries.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { readingFromAamva, readingFromMrz, splitSurnames, typesForMrz } from '../../../server/src/providers/local/id-documents.ts';
import { mrzText } from '../../../server/src/providers/test-mode/mrz.ts';
import { parseMrz } from '../../../server/src/validators/mrz.ts';
import { ENTRIES, read, REF, schemaErrors, values } from '../test-mode/helpers.ts';
import { readJson } from '../validators/testdata.ts';

const MRZ_FIELDS = ['document_number', 'support_number', 'id_number', 'last_name', 'second_last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'expiry_date', 'mrz'];
const linesOf = (mrz: unknown) => String(mrz).split('\n');

describe('readingFromMrz on every MRZ type of the catalogue', () => {
  const mrzTypes = ENTRIES.filter((e) => e.mrz !== null);
  it('covers the MRZ types', () => expect(mrzTypes.length).toBeGreaterThanOrEqual(40));

  for (const entry of mrzTypes) {
    it(`${entry.type}: its zone reads back as ${entry.type} with the same values`, () => {
      const sim = read(`${entry.type}.jpg`);
      const v = values(sim);
      const r = readingFromMrz({ lines: linesOf(v.mrz), page: 1 }, { expect: [entry.type], referenceDate: REF })!;
      expect(r, 'a reading').not.toBeNull();
      expect(r.document.type).toBe(entry.type);
      expect(r.document.confidence).toBeGreaterThanOrEqual(0.5);
      for (const name of MRZ_FIELDS) {
        if (!(name in r.fields)) continue;
        const got = r.fields[name].value;
        if (name === 'last_name' || name === 'first_name' || name === 'second_last_name') {
          // The zone transliterates (Ö is OE), drops accents and apostrophes, and writes spaces as fillers.
          expect(got, name).toBe(mrzText(String(v[name])).replace(/</g, ' ').trim());
        } else if (name === 'document_number' || name === 'support_number' || name === 'id_number') {
          // Printed numbers may carry separators (340-7806096-59); the zone has only the characters.
          expect(got, name).toBe(String(v[name]).replace(/[^0-9A-Z]/gi, '').toUpperCase());
        } else expect(got, name).toEqual(v[name]);
        expect(r.fields[name].origin).toBe('mrz');
      }
      // Only the type's own fields, every one valid against its schema.
      for (const name of Object.keys(r.fields)) expect(entry.fields).toContain(name);
      const filled = Object.fromEntries(entry.fields.map((f) => [f, r.fields[f]?.value ?? v[f]]));
      expect(schemaErrors(entry, filled)).toEqual([]);
    });
  }

  it('without expect, a national type of the issuing state beats the universal one', () => {
    const cases: Array<[string, string]> = [
      ['de_passport', 'de_passport'],
      ['es_passport', 'es_passport'],
      ['fr_cni', 'fr_cni'],
      ['es_dni', 'es_dni'], // the DNI over its back: the more general of two equally plausible types
      ['es_tie', 'es_tie'],
      ['us_permanent_resident_card', 'us_permanent_resident_card'],
      ['us_passport_card', 'us_passport_card'],
    ];
    for (const [type, want] of cases) {
      const v = values(read(`${type}.jpg`));
      expect(readingFromMrz({ lines: linesOf(v.mrz), page: 1 }, { expect: null, referenceDate: REF })!.document.type, type).toBe(want);
    }
  });

  it('ICAO specimens: Utopia documents are universal types with no ISO country', () => {
    const passport = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
    const r = readingFromMrz({ lines: passport, page: 1 }, { expect: null, referenceDate: REF })!;
    expect(r.document).toMatchObject({ type: 'passport', country: null });
    expect(r.fields.document_number.value).toBe('L898902C3');
    expect(r.fields.birth_date.value).toBe('1974-08-12');
    expect(r.fields.expiry_date.value).toBe('2012-04-15');
    expect(r.fields.personal_number.value).toBe('ZE184226B');
    const td1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
    expect(readingFromMrz({ lines: td1, page: 1 }, { expect: null, referenceDate: REF })!.document.type).toBe('national_id_card');
    const visa = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8988901C4XXX4009078F96121096ZE184226B<<<<<<'];
    expect(readingFromMrz({ lines: visa, page: 1 }, { expect: null, referenceDate: REF })!.document.type).toBe('visa');
  });

  it('a card held by a foreigner is a residence document, with less confidence than a coded one', () => {
    const parsed = parseMrz(['IDESPBAA000589599999999R<<<<<<', '8001014F2501017FRA<<<<<<<<<<<2', 'ESPANOLA<ESPANOLA<<CARMEN<<<<<'], { referenceDate: REF });
    const [top] = typesForMrz(parsed, null);
    expect(getEntry(top.type)!.category).toBe('residence');
    expect(top.confidence).toBeLessThan(0.9);
  });

  it('failing check digits lower the confidence of every field and of the type', () => {
    const v = values(read('passport.jpg'));
    const lines = linesOf(v.mrz);
    const broken = [lines[0], lines[1].slice(0, 9) + ((Number(lines[1][9]) + 1) % 10) + lines[1].slice(10)];
    const ok = readingFromMrz({ lines, page: 1 }, { expect: null, referenceDate: REF })!;
    const bad = readingFromMrz({ lines: broken, page: 1 }, { expect: null, referenceDate: REF })!;
    expect(bad.document.confidence).toBeLessThan(ok.document.confidence);
    expect(bad.fields.document_number.confidence).toBeLessThan(ok.fields.document_number.confidence);
  });

  it('fields get the part of their line as a box, and the character confidences', () => {
    const lines = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
    const conf = [Array(44).fill(0.99), Array(44).fill(0.99)];
    conf[1][3] = 0.6;
    const r = readingFromMrz({ lines, page: 2, charConfidence: conf, lineBoxes: [[0.1, 0.8, 0.9, 0.85], [0.1, 0.86, 0.9, 0.91]] }, { expect: null, referenceDate: REF })!;
    expect(r.fields.document_number.source).toEqual({ page: 2, bbox: [0.1, 0.86, 0.1 + (0.8 * 9) / 44, 0.91].map((x) => Math.round(x * 1000) / 1000) });
    expect(r.fields.document_number.confidence).toBe(0.6);
    expect(r.fields.mrz.source).toEqual({ page: 2, bbox: [0.1, 0.8, 0.9, 0.91] });
  });

  it('splits Spanish double surnames keeping their particles', () => {
    expect(splitSurnames('ESPANOLA ESPANOLA')).toEqual(['ESPANOLA', 'ESPANOLA']);
    expect(splitSurnames('DE LA FUENTE GARCIA')).toEqual(['DE LA FUENTE', 'GARCIA']);
    expect(splitSurnames('GARCIA')).toEqual(['GARCIA', null]);
    expect(splitSurnames('PEREZ DEL RIO')).toEqual(['PEREZ', 'DEL RIO']);
  });
});

describe('readingFromAamva', () => {
  const samples = readJson<Array<{ id: string; valid: boolean; raw: string }>>('aamva/aamva-standard-samples.json');

  it('a driving licence payload is a US driving licence with the payload fields', () => {
    const v10 = samples.find((s) => s.id === 'aamva-v10-sample')!;
    const r = readingFromAamva(v10.raw, { page: 1, bbox: [0.1, 0.5, 0.9, 0.9] }, { expect: null })!;
    expect(r.document.type).toBe('us_drivers_license');
    expect(r.document.side).toBe('back');
    expect(r.fields.barcode_data.value).toBe(v10.raw);
    expect(r.fields.document_number.value).toMatch(/\S/);
    expect(r.fields.birth_date.value).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const f of Object.values(r.fields)) expect(f.origin).toBe('barcode');
    const entry = getEntry('us_drivers_license')!;
    for (const name of Object.keys(r.fields)) expect(entry.fields).toContain(name);
  });

  it('not AAMVA: null', () => {
    expect(readingFromAamva('hello world, not a licence', { page: 1, bbox: null }, { expect: null })).toBeNull();
  });
});
