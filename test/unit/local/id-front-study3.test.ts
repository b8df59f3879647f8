/**
 * Rules learnt from a third study set of public ID fronts outside the development set (issue #28, session 24:
 * photographed US licences of a state not studied before, a US test licence, a Colombian cédula, a Spanish DNI
 * template; list in bench/results/id-fronts.md). Small hand-made layouts, one per rule.
 */
import { describe, expect, it } from 'vitest';
import { classifyIdFront, unglueWords } from '../../../server/src/providers/local/text/id-front.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { fields, readFront } from './support-id-front.ts';
import { line } from './support-text.ts';

/** A US licence's top: the state's name, the title, the labelled dates and number at the right. */
const usTop = [
  line(0.05, [0.1, 'COLORADO']),
  line(0.12, [0.3, 'DRIVER LICENSE']),
  line(0.2, [0.7, 'DOB: 02/02/1981']),
  line(0.26, [0.7, 'DL#: 96-176-1217']),
  line(0.32, [0.7, 'EXP: 02/02/2026']),
];

describe('US name lines without their numbers', () => {
  it('`NONE` (no restriction; `12 NONE` read `1: NONE`) is no family name', () => {
    const f = fields([
      ...usTop,
      line(0.45, [0.3, 'GEL EL']), line(0.5, [0.3, 'RATHREE NEE']),
      line(0.56, [0.3, '3456 W 35TH AVE']), line(0.61, [0.3, 'DENVER, CO 80211']),
      line(0.85, [0.3, 'Class:R'], [0.45, '1: NONE'], [0.75, 'ISS: 07/30/2021']),
    ]);
    expect(f.last_name).toBe('GEL EL');
    expect(f.first_name).toBe('RATHREE NEE');
  });

  it('a line over the name that holds a date is no name line (`D.O.B.` read `DOE.` beside the birth date)', () => {
    const f = fields([
      line(0.1, [0.35, 'DRIVER LICENSE']),
      line(0.3, [0.35, 'NO. 123456789'], [0.7, 'CLASS D']),
      line(0.36, [0.35, 'DOE. 2/28/1975'], [0.7, 'EXP 2/21/2025']),
      line(0.44, [0.35, 'JOHN A. SMITH']),
      line(0.5, [0.35, '222333 PEACHTREE STREET']), line(0.56, [0.35, 'ATLANTA GA 30318-1234']),
    ]);
    expect(f.last_name).toBe('SMITH');
    expect(f.first_name).toBe('JOHN A.');
    // One line of names, given names first: less sure than two lines.
    expect(readFront([
      line(0.1, [0.35, 'DRIVER LICENSE']), line(0.36, [0.35, 'DOE. 2/28/1975']), line(0.44, [0.35, 'JOHN A. SMITH']),
      line(0.5, [0.35, '222333 PEACHTREE STREET']), line(0.56, [0.35, 'ATLANTA GA 30318-1234']),
    ]).last_name.confidence).toBeLessThan(0.7);
  });

  it('finds the street line whose house number is read glued to its direction, after a stray mark (`：3456W 35TH AVE`)', () => {
    const f = fields([...usTop, line(0.45, [0.3, 'GEL EL']), line(0.5, [0.3, 'RATHREE NEE']), line(0.56, [0.28, '：3456W 35TH AVE']), line(0.61, [0.3, 'DENVER, CO 80211'])]);
    expect(f).toMatchObject({ last_name: 'GEL EL', first_name: 'RATHREE NEE', address: '3456W 35TH AVE' });
  });

  it('reads the name lines over the city line when no street line is printed or read (less sure)', () => {
    const lines = [...usTop, line(0.45, [0.3, 'ARLES']), line(0.5, [0.3, 'MICHI CHARI']), line(0.56, [0.3, 'DENVER, CO 80221'])];
    const r = readFront(lines);
    expect(r.last_name.value).toBe('ARLES');
    expect(r.first_name.value).toBe('MICHI CHARI');
    expect(r.last_name.confidence).toBeLessThan(0.8);
    // The lines over the city hold the dates: no name.
    expect(fields([...usTop, line(0.4, [0.3, 'DENVER, CO 80221'])]).last_name).toBeUndefined();
  });

  it('reads a city line whose comma is read as a dot (`DENVER. CO 80221`)', () => {
    const f = fields([...usTop, line(0.45, [0.3, 'ARLES']), line(0.5, [0.3, 'MICHI CHARI']), line(0.56, [0.3, 'DENVER. CO 80221'])]);
    expect(f).toMatchObject({ last_name: 'ARLES', first_name: 'MICHI CHARI', city: 'DENVER', postal_code: '80221' });
  });
});

describe('PP-OCR glued words', () => {
  const words = (t: string) => unglueWords([line(0.5, [0.3, t])])[0].words!.map((w) => w.text);
  it('cuts the sex label kept in small letters from its value (`SexM`)', () => {
    expect(words('SexM Hgt5-09')).toEqual(['Sex', 'M', 'Hgt5-09']);
    const f = fields(unglueWords([...usTop, line(0.5, [0.3, 'ARLES']), line(0.55, [0.3, '3456 W 35TH AVE']), line(0.6, [0.3, 'DENVER, CO 80211']), line(0.8, [0.3, 'SexM'])]));
    expect(f.sex).toBe('M');
  });
  it('cuts a field number read short from its label (`4EXP:` for `4b EXP:`): the label reads the date', () => {
    expect(words('4EXP: 02/02/2026')).toEqual(['4', 'EXP:', '02/02/2026']);
    const lines = unglueWords([usTop[0], usTop[1], usTop[2], usTop[3], line(0.32, [0.7, '4EXP: 02/02/2026']), line(0.9, [0.7, 'ISS 02/02/2030'])]);
    // By its label, not by position (the latest date, 2030, would be taken for the expiry).
    expect(fields(lines).expiry_date).toBe('2026-02-02');
  });
  it('cuts an initial glued to the family name (`JOHN A.SMITH`)', () => {
    expect(words('JOHN A.SMITH')).toEqual(['JOHN', 'A.', 'SMITH']);
    expect(words('D.O.B')).toEqual(['D.O.B']);
  });
});

/** A Colombian cédula's face: each name printed over its label, the number with thousands dots. */
const cedula = (last: string[]) => [
  line(0.05, [0.1, 'REPUBLICA DE COLOMBIA']),
  line(0.1, [0.1, 'IDENTIFICACION PERSONAL']),
  line(0.15, [0.15, 'CEDULA DE CIUDADANIA']),
  line(0.25, [0.05, 'NUMERO'], [0.2, '1.234.567.890']),
  line(0.32, [0.07, 'RODRIGUEZ LOPEZ']),
  line(0.37, [0.05, 'APELLIDOS']),
  line(0.42, [0.07, 'MARTIN FRANCISCO']),
  line(0.47, [0.05, 'NOMBRES']),
  ...last.map((t, i) => line(0.52 + i * 0.05, [0.05, t])),
];

describe('names printed over their labels', () => {
  it('reads each name from the line above its label when the given names\' label closes the block (Colombia)', () => {
    const r = readFront(cedula([]));
    expect(r.last_name.value).toBe('RODRIGUEZ LOPEZ');
    expect(r.first_name.value).toBe('MARTIN FRANCISCO');
    expect(r.last_name.confidence).toBeLessThan(0.9);
  });
  it('keeps the usual layout (value under its label) when something follows the last label', () => {
    expect(fields(cedula(['PEREZ']))).toMatchObject({ last_name: 'MARTIN FRANCISCO', first_name: 'PEREZ' });
  });
});

describe('national ways of printing a value', () => {
  it('reads a number grouped by thousands with dots as one number (`1.234.567.890`), never a date', () => {
    expect(fields(cedula([])).document_number).toBe('1234567890');
    const dated = [line(0.05, [0.1, 'REPUBLICA DE COLOMBIA']), line(0.1, [0.1, 'CEDULA DE CIUDADANIA']), line(0.25, [0.05, 'NUMERO'], [0.2, '12.05.2020'])];
    expect(fields(dated).document_number).toBeUndefined();
  });
  it('reads `VALIDO HASTA` (Spain\'s DNI) and `Fecha de vencimiento` as the expiry, not the issue', () => {
    const dni = (label: string) => [
      line(0.05, [0.3, 'DOCUMENTO NACIONAL DE IDENTIDAD']), line(0.1, [0.05, 'ESPAÑA']),
      line(0.2, [0.3, 'FECHA DE NACIMIENTO']), line(0.25, [0.3, '01 05 1972']),
      line(0.35, [0.3, label]), line(0.4, [0.3, '01 01 2016']),
    ];
    for (const label of ['VALIDO HASTA', 'Fecha de vencimiento']) {
      const f = fields(dni(label));
      expect(f.expiry_date).toBe('2016-01-01');
      expect(f.issue_date).toBeUndefined();
    }
  });
});

describe('the country an identity document names', () => {
  it('types a passport card that names the United States as the US one, not the Irish one that shares its title', async () => {
    const { classifyText, namedCountry } = await import('../../../server/src/providers/local/text/classify.ts');
    const card = [
      line(0.1, [0.35, 'PASSPORT CARD']), line(0.3, [0.4, 'Surname']), line(0.35, [0.4, 'TRAVELER']),
      line(0.4, [0.4, 'Given Names']), line(0.45, [0.4, 'HAPPY']), line(0.6, [0.4, 'Authority']), line(0.65, [0.4, 'United States']),
      line(0.7, [0.4, 'Department of State']),
    ];
    expect(classifyText(card).candidates[0].type).toBe('us_passport_card');
    expect(namedCountry('United Kingdom of Great Britain and Northern Ireland')).toBe('GBR');
    expect(namedCountry('UNITED STATES OF AMERICA')).toBe('USA');
    expect(namedCountry('Ireland and Spain')).toBeNull();
  });
});

describe('a US card known by its labels', () => {
  it('counts AAMVA labels read glued to their field numbers (`4dDLN`, `4aISS`, `4bEXP`): a licence of the US', () => {
    const c = classifyIdFront([
      line(0.1, [0.3, 'DRIVER LICENSE']),
      line(0.3, [0.5, '4dDLN 123456789']), line(0.35, [0.5, '4aISS 01/02/2020']), line(0.4, [0.5, '4bEXP 01/02/2028']),
      line(0.5, [0.3, 'SAMPLE']),
    ])!;
    expect(c).toMatchObject({ type: 'us_drivers_license', country: 'USA' });
  });
});

describe('a number that may be longer than read', () => {
  it('is unsure when a group of digits is left beside it (`NUMERO 01101101 01100001`, too long together)', () => {
    const card = [line(0.05, [0.1, 'REPUBLICA DE COLOMBIA']), line(0.1, [0.1, 'CEDULA DE CIUDADANIA']), line(0.25, [0.05, 'NUMERO'], [0.2, '01101101 01100001'])];
    const n = readFront(card).document_number;
    expect(n.value).toBe('01101101');
    expect(n.confidence).toBeLessThan(0.7);
    const whole = [line(0.05, [0.1, 'REPUBLICA DE COLOMBIA']), line(0.1, [0.1, 'CEDULA DE CIUDADANIA']), line(0.25, [0.05, 'NUMERO'], [0.2, '1234 5678'])];
    expect(readFront(whole).document_number).toMatchObject({ value: '12345678' });
    expect(readFront(whole).document_number.confidence).toBeGreaterThan(0.8);
  });
});
