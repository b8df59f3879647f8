/**
 * The ID-front rules (providers/local/text/id-front.ts) on the OCR output of the tune files of
 * ../shared/testdata/documents-dev/id-fronts/, captured by test/fixtures/id-fronts/capture.ts (lines with word
 * boxes, as live mode's page OCR gives them), and on small hand-made layouts for the rules themselves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyIdFront, parseDate, readIdFrontFields, stateOfZip } from '../../../server/src/providers/local/text/id-front.ts';
import type { Box, TextLine } from '../../../server/src/providers/local/types.ts';
import { line } from './support-text.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/id-fronts');
const ocr = (name: string): TextLine[] => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')).lines;

function read(name: string) {
  const lines = ocr(name);
  const c = classifyIdFront(lines);
  expect(c).not.toBeNull();
  const entry = getEntry(c!.type)!;
  return { c: c!, fields: readIdFrontFields(lines, entry, entry.fields, { country: c!.country, region: c!.region }) };
}

const inside = (inner: Box, outer: Box) => inner[0] >= outer[0] - 0.01 && inner[1] >= outer[1] - 0.01 && inner[2] <= outer[2] + 0.01 && inner[3] <= outer[3] + 0.01;

describe('ID fronts read from their OCR (tune files)', () => {
  it('a Tennessee licence: its type, country and state (TH misread, told by its ZIP), number, names, dates (month first)', () => {
    const { c, fields } = read('zerox__0023.json');
    expect(c).toMatchObject({ type: 'us_drivers_license', country: 'USA', region: { value: 'TN' } });
    expect(c.confidence).toBeGreaterThanOrEqual(0.7);
    expect(fields.document_number.value).toBe('123456789');
    expect(fields.last_name.value).toBe('SAMPLE');
    expect(fields.first_name.value).toBe('JANICE');
    expect(fields.birth_date.value).toBe('1974-02-11');
    expect(fields.expiry_date.value).toBe('2026-02-11');
    expect(fields.region.value).toBe('TN');
    expect(fields.postal_code.value).toBe('37210');
    // The state was not printed right: its confidence says so.
    expect(fields.region.confidence).toBeLessThan(0.6);
  });

  it('a Hawaii licence: hyphenated number, issue date under its label, the address block, one name line', () => {
    const { c, fields } = read('veryfi-nodejs__driver_license.json');
    expect(c).toMatchObject({ type: 'us_drivers_license', country: 'USA', region: { value: 'HI' } });
    expect(fields.document_number.value).toBe('01-47-87441');
    expect(fields.issue_date.value).toBe('1998-06-18');
    expect(fields.expiry_date.value).toBe('2008-06-03');
    expect(fields.last_name.value).toBe('McLOVIN');
    expect(fields.first_name).toBeUndefined();
    expect(fields.address.value).toBe('892 MOMONA ST');
    expect(fields.city.value).toBe('HONOLULU');
  });

  it('an Ohio licence whose title the OCR lost: a US licence by its labels, with a low confidence', () => {
    const { c, fields } = read('zerox__0022.json');
    expect(c.type).toBe('us_drivers_license');
    expect(c.confidence).toBeLessThan(0.5);
    expect(fields.expiry_date.value).toBe('2012-07-09');
    expect(fields.issue_date.value).toBe('2009-04-01');
    expect(fields.document_number.value).toBe('TL545786');
    // Read from words the OCR was unsure of: it says so.
    expect(fields.document_number.confidence).toBeLessThan(0.3);
  });

  it('a French CNI 2021: bilingual labels, values below them in their columns, dates day first', () => {
    const { c, fields } = read('kby-ai__3.json');
    expect(c).toMatchObject({ type: 'fr_cni', country: 'FRA', region: null });
    expect(c.confidence).toBeGreaterThanOrEqual(0.85);
    expect(fields.document_number.value).toBe('D2H6862M2');
    expect(fields.last_name.value).toBe('MARTIN'); // the SPECIMEN watermark is no name
    expect(fields.first_name.value).toBe('Maélis-Gaélle, Marie');
    expect(fields.birth_date.value).toBe('1990-07-13');
    expect(fields.expiry_date.value).toBe('2030-02-11');
    expect(fields.sex.value).toBe('F');
    expect(fields.nationality.value).toBe('FRA');
    expect(fields.birth_place.value).toBe('PARIS');
  });

  it('an Albanian card: a national ID card of ALB; the label columns keep issue and expiry apart', () => {
    const { c, fields } = read('SIDTD__fake_ir_alb00.json');
    expect(c).toMatchObject({ type: 'national_id_card', country: 'ALB' });
    expect(fields.document_number.value).toBe('367253746');
    expect(fields.personal_number.value).toBe('J11120296E');
    expect(fields.last_name.value).toBe('Agani');
    expect(fields.first_name.value).toBe('Adnan');
    expect(fields.birth_date.value).toBe('1991-11-20');
    expect(fields.expiry_date.value).toBe('2029-04-13');
    // The issue date is printed unreadably (8304-2019): nothing is invented.
    expect(fields.issue_date).toBeUndefined();
  });

  it('every field has a box inside its line and a confidence from its words; no value is a label', () => {
    for (const name of fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.endsWith('.paddle.json'))) {
      const lines = ocr(name);
      const { fields } = read(name);
      for (const [k, f] of Object.entries(fields)) {
        expect(f.confidence, `${name} ${k}`).toBeGreaterThan(0);
        expect(f.confidence).toBeLessThanOrEqual(0.95);
        if (k === 'issuing_country') continue;
        expect(f.source?.bbox, `${name} ${k}`).toBeTruthy();
        const extent = (l: TextLine): Box => [Math.min(l.bbox[0], ...l.words!.map((w) => w.bbox[0])), Math.min(l.bbox[1], ...l.words!.map((w) => w.bbox[1])), Math.max(l.bbox[2], ...l.words!.map((w) => w.bbox[2])), Math.max(l.bbox[3], ...l.words!.map((w) => w.bbox[3]))];
        expect(lines.some((l) => inside(f.source!.bbox!, extent(l))), `${name} ${k}`).toBe(true);
        expect(String(f.value)).not.toMatch(/\b(surname|given names?|date of birth|expiry|sex|nationality|document no)\b/i);
      }
    }
  });
});

describe('the rules', () => {
  it('US titles and states: a state id, a passport card, a green card; a state named in full', () => {
    const id = classifyIdFront([line(0.05, [0.1, 'PENNSYLVANIA']), line(0.1, [0.1, 'IDENTIFICATION CARD']), line(0.5, [0.4, 'DOB 01/07/1973'])]);
    expect(id).toMatchObject({ type: 'us_state_id', country: 'USA', region: { value: 'PA' }, confidence: 0.9 });
    expect(classifyIdFront([line(0.05, [0.1, 'UNITED STATES OF AMERICA']), line(0.1, [0.1, 'PASSPORT CARD'])])?.type).toBe('us_passport_card');
    expect(classifyIdFront([line(0.05, [0.1, 'UNITED STATES OF AMERICA']), line(0.1, [0.1, 'PERMANENT RESIDENT'])])?.type).toBe('us_permanent_resident_card');
    // A passport card is not the Irish one without Ireland.
    expect(classifyIdFront([line(0.1, [0.1, 'PASSPORT CARD']), line(0.5, [0.1, 'USA'])])?.type).toBe('us_passport_card');
  });

  it('text that is no ID card gives nothing', () => {
    expect(classifyIdFront([line(0.1, [0.1, 'INVOICE 2024-001']), line(0.2, [0.1, 'Total 12.50 EUR'])])).toBeNull();
    // A US address is no card; nor is a long text that names one (a report about licences).
    expect(classifyIdFront([line(0.1, [0.1, 'ACME STORE']), line(0.2, [0.1, 'COLUMBUS, OH 43223']), line(0.3, [0.1, 'TOTAL 12.50'])])).toBeNull();
    expect(classifyIdFront(Array.from({ length: 201 }, (_, i) => line(i / 201, [0.1, 'DRIVER LICENSE CALIFORNIA'])))).toBeNull();
  });

  it('dates by the country order; ZIP prefixes to states', () => {
    expect(parseDate('02/11/1974', true)?.value).toBe('1974-02-11');
    expect(parseDate('02/11/1974', false)?.value).toBe('1974-11-02');
    expect(parseDate('13 07 1990', false)?.value).toBe('1990-07-13');
    expect(parseDate('11022030', false)).toEqual({ value: '2030-02-11', compact: true });
    expect(parseDate('13/02/2000', true)).toBeNull(); // no 13th month in the US order
    expect([stateOfZip('96820'), stateOfZip('37210'), stateOfZip('43223'), stateOfZip('17101')]).toEqual(['HI', 'TN', 'OH', 'PA']);
  });

  it('a label on the same line gives its value; a value below a label in another column is not taken', () => {
    const lines = [
      line(0.05, [0.1, 'CALIFORNIA']), line(0.1, [0.1, 'DRIVER LICENSE']),
      line(0.3, [0.4, 'DL I1234568']), line(0.4, [0.4, 'EXP 08/31/2014']),
      line(0.5, [0.4, 'LN CARDHOLDER']), line(0.55, [0.4, 'FN IMA']),
      line(0.6, [0.4, 'DOB 08/31/1977']), line(0.7, [0.4, 'SEX F']),
    ];
    const c = classifyIdFront(lines)!;
    expect(c).toMatchObject({ type: 'us_drivers_license', region: { value: 'CA' } });
    const f = readIdFrontFields(lines, getEntry(c.type)!, getEntry(c.type)!.fields, { country: c.country, region: c.region });
    expect(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v.value]))).toMatchObject({
      document_number: 'I1234568', expiry_date: '2014-08-31', last_name: 'CARDHOLDER', first_name: 'IMA', birth_date: '1977-08-31', sex: 'F', region: 'CA',
    });
  });
});

describe('label-value layout (#28): labels of many languages, values of one cell, names on two lines', () => {
  const values = (lines: TextLine[], type = 'national_id_card', country: string | null = null) => {
    const f = readIdFrontFields(lines, getEntry(type)!, getEntry(type)!.fields, { country });
    return { f, v: Object.fromEntries(Object.entries(f).map(([k, x]) => [k, x.value])) };
  };

  it('an ICAO 9303 data page: bilingual labels, values below them, dates with the month in letters and two-digit years', () => {
    const { f, v } = values([
      line(0.1, [0.3, 'Type/ Type'], [0.5, 'Code/ Code'], [0.7, 'Passport No./ N° de passeport']),
      line(0.15, [0.3, 'P'], [0.5, 'UTO'], [0.7, 'L898902C3']),
      line(0.22, [0.3, 'Surname/ Nom']), line(0.27, [0.3, 'ERIKSSON']),
      line(0.34, [0.3, 'Given names/ Prénoms']), line(0.39, [0.3, 'ANNA MARIA']),
      line(0.46, [0.3, 'Date of birth/ Date de naissance']), line(0.51, [0.3, '12 AUG/AOUT 74']),
      line(0.58, [0.3, 'Date of expiry/ Date d\'expiration'], [0.75, 'Authority/ Autorité']), line(0.63, [0.3, '15 APR/AVR 12'], [0.75, 'PASSPORT OFFICE']),
    ], 'passport');
    expect(v).toMatchObject({ document_number: 'L898902C3', last_name: 'ERIKSSON', first_name: 'ANNA MARIA', birth_date: '1974-08-12', expiry_date: '2012-04-15' });
    // A two-digit year's century is assumed: less sure than a full date.
    expect(f.birth_date.confidence).toBeLessThan(0.9 * 0.95);
  });

  it("ICAO's own terms (primary / secondary identifier); a number is not glued to a name or a state code before it", () => {
    const { v } = values([
      line(0.1, [0.3, 'Primary identifier/ Identifiant primaire']), line(0.15, [0.3, 'ERIKSSON']),
      line(0.22, [0.3, 'Secondary identifier/'], [0.6, 'Document No.']), line(0.27, [0.3, 'ANNA MARIA D23145890']),
    ]);
    expect(v).toMatchObject({ last_name: 'ERIKSSON', first_name: 'ANNA MARIA', document_number: 'D23145890' });
    expect(values([line(0.1, [0.1, 'PASSPORT'], [0.5, 'LUX S998527'])], 'passport').v.document_number).toBe('S998527');
  });

  it('a family name on two lines is one value; the line after a label line is not taken into it', () => {
    const { f, v } = values([
      line(0.1, [0.1, 'APELLIDOS']), line(0.15, [0.1, 'ESPAÑOLA']), line(0.19, [0.1, 'ESPAÑOLA']),
      line(0.26, [0.1, 'NOMBRE']), line(0.31, [0.1, 'CARMEN']),
      line(0.38, [0.1, 'DNI 99999999R']),
    ]);
    expect(v).toMatchObject({ last_name: 'ESPAÑOLA ESPAÑOLA', first_name: 'CARMEN', document_number: '99999999R' });
    expect(f.last_name.confidence).toBeLessThan(0.9);
    const box = f.last_name.source!.bbox!;
    expect(box[1]).toBeLessThanOrEqual(0.15 + 1e-9);
    expect(box[3]).toBeGreaterThanOrEqual(0.22 - 1e-9);
    // Surname then its label-less neighbour under another label: not one value.
    const two = values([line(0.1, [0.1, 'NAZWISKO / SURNAME']), line(0.15, [0.1, 'KOWALSKA']), line(0.2, [0.1, 'IMIONA / GIVEN NAMES']), line(0.25, [0.1, 'JOANNA'])]).v;
    expect(two).toMatchObject({ last_name: 'KOWALSKA', first_name: 'JOANNA' });
  });

  it('`Name` beside another label of the family name is that label; words that open the next label are not a value', () => {
    const { v } = values([
      line(0.1, [0.1, 'Name/Surname/Nom'], [0.6, 'Registration Number']),
      line(0.15, [0.1, 'MUSTERMANN'], [0.6, '00000473']),
    ], 'de_id_card', 'DEU');
    expect(v.last_name).toBe('MUSTERMANN');
    const right = values([line(0.1, [0.1, 'Surname'], [0.4, 'Registration Number']), line(0.15, [0.1, 'TRAVELER'], [0.4, '00000473'])]).v;
    expect(right.last_name).toBe('TRAVELER');
    // A US card's NAME names no field by itself: its value is not a family name.
    expect(values([line(0.1, [0.1, 'NAME JOHN DOE'])], 'us_drivers_license', 'USA').v.last_name).toBeUndefined();
  });

  it('a same-line value is the cell after its label; the rest of the line is another column', () => {
    const { f, v } = values([line(0.1, [0.1, 'SURNAME MARTIN'], [0.6, 'UTO']), line(0.2, [0.1, 'GIVEN NAMES SARAH JANE'], [0.6, 'F'])]);
    expect(v).toMatchObject({ last_name: 'MARTIN', first_name: 'SARAH JANE' });
    expect(f.last_name.source!.bbox![2]).toBeLessThan(0.6);
  });
});

describe('numbered fields of driving licences (EU Directive 2006/126/EC, AAMVA card design)', () => {
  it('an EU licence: 1. surname, 2. given names, 3. birth date and place, 4a./4b. dates, 5. number', () => {
    const lines = [
      line(0.05, [0.3, 'FÜHRERSCHEIN']), line(0.1, [0.3, 'BUNDESREPUBLIK DEUTSCHLAND']),
      line(0.2, [0.35, '1. MUSTERMANN']), line(0.27, [0.35, '2. ERIKA']), line(0.34, [0.35, '3. 12.08.1964 BERLIN']),
      line(0.41, [0.35, '4a. 19.01.2013'], [0.6, '4c. Landratsamt Musterhausen']), line(0.48, [0.35, '4b. 18.01.2028']),
      line(0.55, [0.35, '5. B072RRE2I55']), line(0.7, [0.35, '9. AM/B1/B/L']),
    ];
    const c = classifyIdFront(lines)!;
    expect(c).toMatchObject({ kind: 'driving', country: 'DEU' });
    const entry = getEntry(c.type)!;
    const v = Object.fromEntries(Object.entries(readIdFrontFields(lines, entry, entry.fields, { country: c.country })).map(([k, x]) => [k, x.value]));
    expect(v).toMatchObject({ last_name: 'MUSTERMANN', first_name: 'ERIKA', birth_date: '1964-08-12', issue_date: '2013-01-19', expiry_date: '2028-01-18', document_number: 'B072RRE2I55' });
  });

  it('a number is a label only with its dot or letter, and not beside a printed label', () => {
    const lines = [line(0.05, [0.1, 'CALIFORNIA']), line(0.1, [0.1, 'DRIVER LICENSE']), line(0.3, [0.4, '4d DLN I1234568']), line(0.4, [0.4, '1 CARDHOLDER']), line(0.5, [0.4, '4b EXP 08/31/2014'])];
    const c = classifyIdFront(lines)!;
    const f = readIdFrontFields(lines, getEntry(c.type)!, getEntry(c.type)!.fields, { country: c.country, region: c.region });
    expect(f.document_number.value).toBe('I1234568');
    expect(f.expiry_date.value).toBe('2014-08-31');
    expect(f.last_name).toBeUndefined();
  });
});
