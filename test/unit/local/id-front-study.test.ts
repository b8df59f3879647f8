/**
 * Rules learnt from a study set of 20 public ID-card fronts outside the development set (issue #28, session 22: US
 * state specimens of 15 states and DC, German, Swiss and French cards; list in bench/results/id-fronts.md). Small
 * hand-made layouts, one per rule.
 */
import { describe, expect, it } from 'vitest';
import { classifyIdFront, unglueWords } from '../../../server/src/providers/local/text/id-front.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { fields } from './support-id-front.ts';
import { line } from './support-text.ts';

/** A US licence's frame around its name lines: title, number, the name lines, the address, the dates. */
const licence = (names: TextLine[], more: TextLine[] = []) => [
  line(0.05, [0.05, 'WISCONSIN']), line(0.1, [0.05, 'DRIVER LICENSE USA']), line(0.22, [0.35, '4d DLN S123-4567-6501-00']),
  ...names,
  line(0.42, [0.35, '4802 SHEBOYGAN AVE']), line(0.47, [0.35, 'MADISON, WI 53705']),
  line(0.6, [0.35, '3 DOB 02/11/1974'], [0.6, '4b EXP 02/11/2023']),
  ...more,
];

describe("AAMVA's numbered name lines without a label word", () => {
  it('reads `1SAMPLE` over `2DEREK THOMAS` (the numbers glued to the names)', () => {
    const v = fields(licence([line(0.3, [0.35, '1SAMPLE']), line(0.35, [0.35, '2DEREK THOMAS'])]));
    expect(v).toMatchObject({ last_name: 'SAMPLE', first_name: 'DEREK THOMAS' });
  });
  it('reads `1 SAMPLE` over `2 NICK`, and a family name whose `1` the OCR lost', () => {
    expect(fields(licence([line(0.3, [0.35, '1 SAMPLE']), line(0.35, [0.35, '2 NICK'])]))).toMatchObject({ last_name: 'SAMPLE', first_name: 'NICK' });
    expect(fields(licence([line(0.3, [0.35, 'SAMPLE']), line(0.35, [0.35, '2AVERY JOSEPH'])]))).toMatchObject({ last_name: 'SAMPLE', first_name: 'AVERY JOSEPH' });
  });
  it('reads the given names of `2 JANICE` under a family name read by its label (`1.SAMPLE`)', () => {
    const v = fields(licence([line(0.3, [0.35, '1. SAMPLE']), line(0.35, [0.35, '2 JANICE'])]));
    expect(v).toMatchObject({ last_name: 'SAMPLE', first_name: 'JANICE' });
  });
  it('reads the given names first when the card prints them so (`2 IMA GEORGIA` over `1 SAMPLE`), not a line above', () => {
    const v = fields(licence([line(0.25, [0.5, 'TRANSPORTATION']), line(0.3, [0.35, '2IMA GEORGIA']), line(0.35, [0.35, '1SAMPLE'])]));
    expect(v).toMatchObject({ last_name: 'SAMPLE', first_name: 'IMA GEORGIA' });
  });
  it('takes no `2` line that is no name (`2 400 LBS`), nor a name line far above it', () => {
    const v = fields(licence([line(0.3, [0.35, '2 400 LBS'])]));
    expect(v.first_name).toBeUndefined();
  });
});

describe('name labels and name lines over the address', () => {
  it('knows the labels read glued (`1.FAMILYNAME`, `2.GIVENNAMES`): no label is a value', () => {
    const v = fields([
      line(0.05, [0.05, 'DISTRICT OF COLUMBIA']), line(0.1, [0.05, 'DRIVER LICENSE']), line(0.2, [0.32, '4d.DLN 1234567']),
      line(0.27, [0.32, '1.FAMILYNAME']), line(0.31, [0.32, 'SAMPLECARD']), line(0.36, [0.32, '2.GIVENNAMES']), line(0.4, [0.32, 'THOMAS']), line(0.44, [0.32, 'ALEXANDER']),
      line(0.53, [0.32, '1234 COMMODORE DRIVE']), line(0.58, [0.32, 'WASHINGTON, DC 20001']),
    ]);
    expect(v.last_name).toBe('SAMPLECARD');
    expect(v.first_name).toMatch(/^THOMAS/);
  });
  it('reads three name lines over the address as the family name and two lines of given names', () => {
    const v = fields([
      line(0.05, [0.05, 'DISTRICT OF COLUMBIA']), line(0.1, [0.05, 'DRIVER LICENSE']), line(0.2, [0.32, '1234567 02/21/2021']),
      line(0.3, [0.32, 'SAMPLECARD']), line(0.37, [0.32, 'THOMAS']), line(0.41, [0.32, 'ALEXANDER']),
      line(0.5, [0.32, '1234 COMMODORE DRIVE']), line(0.55, [0.32, 'WASHINGTON, DC 20001']),
    ]);
    expect(v).toMatchObject({ last_name: 'SAMPLECARD', first_name: 'THOMAS ALEXANDER' });
  });
  it("never takes a card's title line as a third name line", () => {
    const v = fields([
      line(0.05, [0.05, 'TENNESSEE']), line(0.31, [0.32, 'USA DRIVER LICENSE']), line(0.37, [0.32, 'SAMPLE']), line(0.41, [0.32, 'JANE']),
      line(0.5, [0.32, '123 MAIN STREET']), line(0.55, [0.32, 'NASHVILLE, TN 37210']),
    ]);
    expect(v).toMatchObject({ last_name: 'SAMPLE', first_name: 'JANE' });
  });
});

describe('dates of a US card', () => {
  it("takes neither a replacement's date (`REPLACED: 08-16-2003`) nor the design's revision (`REV 10/16/2018`) as the issue", () => {
    const v = fields(licence([], [line(0.7, [0.35, 'EXPIRES 02/11/2023']), line(0.75, [0.35, '08/16/2013']), line(0.8, [0.35, '—REPLACED: 08-16-2003']), line(0.85, [0.35, 'REV 10/16/2018'])]));
    expect(v.issue_date).toBe('2013-08-16');
  });
  it('reads a date with the next label glued to its year (`ISSUED: 02-01-2013HGT: 5-08`)', () => {
    const v = fields(licence([], [line(0.7, [0.35, 'ISSUED: 02-01-2013HGT: 5-08'])]));
    expect(v.issue_date).toBe('2013-02-01');
  });
});

describe('titles and marks read glued', () => {
  it("names the country of a title read with its spaces lost (`BUNDESREPUBLIKDEUTSCHLAND`): the German card's own type", () => {
    const lines = [
      line(0.04, [0.19, 'BUNDESREPUBLIKDEUTSCHLAND']), line(0.08, [0.19, 'PERSONALAUSWEIS']), line(0.12, [0.19, 'IDENTITYCARDICARTED\'IDENTITE']),
      line(0.2, [0.44, '[a]Name/Surname/Nom']), line(0.26, [0.44, '[a]MUSTERMANN']), line(0.38, [0.44, 'Vornamen/Given names/Prenoms']), line(0.42, [0.44, 'ERIKA']),
    ];
    const c = classifyIdFront(lines)!;
    expect(c).toMatchObject({ type: 'de_id_card', country: 'DEU' });
    const v = fields(lines);
    expect(v).toMatchObject({ last_name: 'MUSTERMANN', first_name: 'ERIKA' });
  });
  it('types a `NONDRIVERIDENTIFICATION CARD` (read glued) a state id, and its number stops before the next numbered field', () => {
    const lines = [
      line(0.07, [0.08, 'VERMONT']), line(0.17, [0.27, 'NONDRIVERIDENTIFICATION CARD']),
      line(0.29, [0.33, '4dIDNUMBER 12345678 3 DQB01/06/1958']), line(0.51, [0.35, '123 STREET ADDRESS']), line(0.56, [0.36, 'MONTPELIER, VT 05602']),
    ];
    expect(classifyIdFront(lines)).toMatchObject({ type: 'us_state_id', region: { value: 'VT' } });
    expect(fields(lines).document_number).toBe('12345678');
  });
});

describe('an unlabelled document number', () => {
  it('is never joined across a label (`D123456789 Class D`), nor taken from a numbered field glued to its label', () => {
    const v = fields([
      line(0.08, [0.2, 'NEW YORK STATE USA']), line(0.15, [0.3, 'DRIVER LICENSE']),
      line(0.23, [0.34, 'D123456789 Class D']), line(0.3, [0.34, 'MOTORIST SAMPLE']),
      line(0.4, [0.35, '2345 ANYWHERE STREET']), line(0.44, [0.35, 'YOUR CITY, NY 12345']),
    ]);
    expect(v.document_number).toBe('D123456789');
    const w = fields([
      line(0.08, [0.2, 'MINNESOTA']), line(0.15, [0.3, 'DRIVER LICENSE']), line(0.3, [0.34, '15SEXME17150 16HGT54107']),
      line(0.4, [0.35, '3456 BLOOMINGTON AVE']), line(0.44, [0.35, 'MINNEAPOLIS, MN 55417']),
    ]);
    expect(w.document_number).toBeUndefined();
  });
});

describe('labels of a few states', () => {
  it("cuts PP-OCR's `15Sex:` and `4dLic#` (a numbered label in small letters) from their numbers", () => {
    const [l] = unglueWords([line(0.4, [0.34, '4dLic# 787878787 15Sex: F'])]);
    expect(l.words!.map((w) => w.text)).toEqual(['4d', 'Lic#', '787878787', '15', 'Sex:', 'F']);
  });
  it("reads Maryland's `Customer identifier` as the licence number, below its label", () => {
    const v = fields([
      line(0.07, [0.16, 'MARYLAND']), line(0.14, [0.14, "Driver's License"]),
      line(0.24, [0.32, 'Customer identifier'], [0.75, '07/07/1985']), line(0.29, [0.32, 'S-000-000-000-000']),
      line(0.38, [0.32, 'Family name']), line(0.42, [0.32, 'SAMPLE']), line(0.62, [0.32, '123 ANY STREET']), line(0.66, [0.32, 'GLEN BURNIE MD 21062']),
    ]);
    expect(v.document_number).toBe('S-000-000-000-000');
  });
});

describe('titles read glued by PP-OCR', () => {
  it('types a licence, a green card and a passport card whose titles lost their spaces', () => {
    const base = [line(0.5, [0.35, '123 MAIN STREET']), line(0.55, [0.35, 'TALLAHASSEE, FL 32317'])];
    expect(classifyIdFront([line(0.06, [0.36, 'Florida']), line(0.17, [0.39, 'DRIVERLICENSECLASSE']), ...base])).toMatchObject({ type: 'us_drivers_license', region: { value: 'FL' } });
    expect(classifyIdFront([line(0.06, [0.1, 'UNITEDSTATESOFAMERICA']), line(0.12, [0.1, 'PERMANENTRESIDENT']), line(0.3, [0.4, 'USCIS# 000-000-000'])])).toMatchObject({ type: 'us_permanent_resident_card' });
    expect(classifyIdFront([line(0.06, [0.1, 'UNITEDSTATESOFAMERICA']), line(0.12, [0.1, 'PASSPORTCARD']), line(0.3, [0.4, 'C03005988'])])).toMatchObject({ type: 'us_passport_card' });
    // Indiana's title: an `OPERATOR LICENSE`
    expect(classifyIdFront([line(0.05, [0.1, 'INDIANA OPERATOR LICENSE']), ...base.slice(0, 1), line(0.55, [0.35, 'INDIANAPOLIS, IN 46204'])])).toMatchObject({ type: 'us_drivers_license', region: { value: 'IN' } });
  });
});
