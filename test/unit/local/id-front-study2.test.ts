/**
 * Rules learnt from a second study set of public ID fronts outside the development set (issue #28, session 23:
 * European and Latin American cards and driving licences: Croatian, Czech and French identity cards, UK and French
 * licences of the EU model, a Russian licence, Peruvian DNIs, a Brazilian CNH; list in bench/results/id-fronts.md).
 * Small hand-made layouts, one per rule.
 */
import { describe, expect, it } from 'vitest';
import { classifyIdFront, classifyIdFrontBoth, unglueWords } from '../../../server/src/providers/local/text/id-front.ts';
import { fields } from './support-id-front.ts';
import { line } from './support-text.ts';

const croatian = (sex: string) => [
  line(0.05, [0.3, 'REPUBLIKA HRVATSKA'], [0.62, 'OSOBNA ISKAZNICA']),
  line(0.1, [0.3, 'REPUBLIC OF CROATIA'], [0.62, 'IDENTITY CARD']),
  line(0.2, [0.3, 'Prezime/Surname']), line(0.25, [0.3, 'HORVAT']),
  line(0.32, [0.3, 'Ime/Name']), line(0.37, [0.3, 'IVAN']),
  line(0.45, [0.3, 'Spol/Sex'], [0.45, sex]),
  line(0.52, [0.3, 'Datum rođenja'], [0.45, '18.03.1990.']),
];

describe('sex printed as a word or in two languages', () => {
  it('reads `M/M` and `Ž/F` (Croatian then English letter)', () => {
    expect(fields(croatian('M/M')).sex).toBe('M');
    expect(fields(croatian('Ž/F')).sex).toBe('F');
  });
  it('reads FEMENINO and MASCULINO (Spanish words)', () => {
    expect(fields(croatian('FEMENINO')).sex).toBe('F');
    expect(fields(croatian('MASCULINO')).sex).toBe('M');
  });
});

/** A Peruvian DNI's face: the title read glued, two family-name labels, `Prenombres`, dates without separators. */
const peru = [
  line(0.03, [0.1, 'REPUBLICA DEL PERU']),
  line(0.08, [0.1, 'DOCUMENTONACIONALDEIDENTIDAD'], [0.75, '40000000-1']),
  line(0.17, [0.35, 'Primer Apellido']), line(0.22, [0.35, 'ROBOTICSLABPE']),
  line(0.32, [0.35, 'Segundo Apellido']), line(0.37, [0.35, 'NFMROBOTICS']),
  line(0.47, [0.35, 'Prenombres']), line(0.52, [0.35, 'NICOLAS']),
  line(0.62, [0.35, 'Sexo'], [0.6, 'Fecha de Nacimiento']), line(0.67, [0.35, 'M'], [0.6, '28062000']),
  line(0.74, [0.6, 'Fecha de Emision']), line(0.79, [0.6, '28012020']),
  line(0.86, [0.6, 'Fecha de Caducidad']), line(0.91, [0.6, '28012028']),
];

describe('Spanish-language labels of Latin American cards', () => {
  it('types a DNI whose title is read without its spaces', () => {
    const c = classifyIdFront(peru)!;
    expect(c).toMatchObject({ type: 'national_id_card', country: 'PER' });
  });
  it('joins the second family name (`Segundo Apellido`) to the first, reads `Prenombres` and `Fecha de Emision`', () => {
    expect(fields(peru)).toMatchObject({ last_name: 'ROBOTICSLABPE NFMROBOTICS', first_name: 'NICOLAS', sex: 'M', birth_date: '2000-06-28', issue_date: '2020-01-28', expiry_date: '2028-01-28' });
  });
});

/** A Brazilian CNH: its title read with a letter lost and no spaces, labels without `de`, `Nº REGISTRO`. */
const cnh = [
  line(0.03, [0.2, 'REPUBLICA FEDERATIVA DO BRASIL']),
  line(0.08, [0.2, 'CARTEIRANACIONALDEHABILIAC']),
  line(0.14, [0.2, 'NOME']), line(0.18, [0.2, 'RODRIGO SILVA']),
  line(0.25, [0.45, 'CPF'], [0.7, 'DATANASCIMENTO']), line(0.29, [0.45, '155.895.068-08'], [0.7, '10/10/1990']),
  line(0.4, [0.2, 'N REGISTRO'], [0.45, 'VALIDADE']), line(0.44, [0.2, '75968596920'], [0.45, '01/01/2021']),
  line(0.7, [0.2, 'LOCAL'], [0.6, 'DATA EMISSAO']), line(0.74, [0.2, 'SAO PAULO, SP'], [0.6, '19/01/2018']),
];

describe("Brazil's CNH", () => {
  it('is typed by its title read glued and cut short', () => {
    expect(classifyIdFront(cnh)).toMatchObject({ type: 'br_cnh', country: 'BRA' });
  });
  it('reads its number by `N REGISTRO` and its dates by `DATA NASCIMENTO` and `DATA EMISSAO` (without `de`)', () => {
    expect(fields(cnh)).toMatchObject({ document_number: '75968596920', birth_date: '1990-10-10', issue_date: '2018-01-19', expiry_date: '2021-01-01' });
  });
  it('takes its country from the other engine when the one that read the title read none', () => {
    const first = [line(0.03, [0.2, 'REPUBLICA FEDERATIVA DO BRASIL']), line(0.08, [0.2, 'CARTEIRA NACIONAL DETINBILITACAO'])];
    const second = [line(0.03, [0.2, 'REPUBLI FEDERA']), line(0.08, [0.2, 'CARTEIRANACIONALDEHABILIAC'])];
    expect(classifyIdFrontBoth(first, second)).toMatchObject({ type: 'br_cnh', country: 'BRA' });
  });
});

describe('EU licence numbered fields', () => {
  it('cuts a numbered label glued to a value that starts with a digit, and a date glued to the next word', () => {
    const [l] = unglueWords([line(0.5, [0.3, '5.13AA00002'])]);
    expect(l.words!.map((w) => w.text)).toEqual(['5.', '13AA00002']);
    const [d] = unglueWords([line(0.5, [0.3, '4b.01.01.2014'])]);
    expect(d.words!.map((w) => w.text)).toEqual(['4b.', '01.01.2014']);
    const [b] = unglueWords([line(0.5, [0.3, '3.29.111992Paris075)'])]);
    expect(b.words!.map((w) => w.text)).toEqual(['3.', '29.111992', 'Paris075)']);
  });
  const french = (one: string) => [
    line(0.05, [0.3, 'PERMIS DE CONDUIRE'], [0.65, 'REPUBLIQUE FRANCAISE']),
    line(0.2, [0.3, one]), line(0.26, [0.3, '2. Johanna']), line(0.32, [0.3, '3. 29.11.1992 (Paris 075)']),
    line(0.38, [0.3, '4a. 16.09.2013'], [0.55, '4c. 75000 Paris']), line(0.44, [0.3, '4b. 01.01.2024']), line(0.5, [0.3, '5. 13AA00002']),
  ];
  it('reads the family name on the line above `2.` when the OCR lost its `1.`', () => {
    expect(fields(french('RICHARD'))).toMatchObject({ last_name: 'RICHARD', first_name: 'Johanna' });
    expect(fields(french('1. RICHARD')).last_name).toBe('RICHARD');
  });
  it('reads numbered labels closed by a parenthesis (`4a)`), and types a licence by its 4a/4b dates without a title', () => {
    const rus = [
      line(0.05, [0.1, 'RUS'], [0.3, 'BOANTEIbCKOE YAOCTOBEPEHNE']),
      line(0.2, [0.35, 'SURGUTSKII']),
      line(0.4, [0.3, '4a) 15.12.2019'], [0.6, '4b) 15.12.2029']), line(0.45, [0.3, '4c) GIBDD 4484']),
      line(0.52, [0.3, '5. 1801123456']),
    ];
    const c = classifyIdFront(rus)!;
    expect(c).toMatchObject({ type: 'driving_license', country: 'RUS' });
    expect(c.confidence).toBeLessThan(0.8);
    expect(fields(rus)).toMatchObject({ issue_date: '2019-12-15', expiry_date: '2029-12-15', document_number: '1801123456' });
  });
  it('types no licence from a form whose lines 4a and 4b hold amounts', () => {
    const form = [line(0.1, [0.1, 'Total income']), line(0.2, [0.1, '4a) 1,234.00'], [0.5, '4b) 567.00']), line(0.3, [0.1, '5. 1801123456'])];
    expect(classifyIdFront(form)).toBeNull();
  });
  it("reads the UK driver number (16 characters) without its issue number, apart or glued", () => {
    const uk = (five: string) => [
      line(0.05, [0.1, 'UK'], [0.3, 'DRIVING LICENCE']),
      line(0.15, [0.3, '1. MORGAN']), line(0.2, [0.3, '2. SARAH']),
      line(0.3, [0.3, '3. 11.03.1976 UNITED KINGDOM']), line(0.36, [0.3, '4a. 19.01.2013'], [0.55, '4c. DVLA']), line(0.42, [0.3, '4b. 18.01.2023']),
      line(0.48, [0.3, five]),
    ];
    expect(fields(uk('5. MORGA753116SM9IJ 35')).document_number).toBe('MORGA753116SM9IJ');
    expect(fields(uk('5. MORGA753116SM9IJ35')).document_number).toBe('MORGA753116SM9IJ');
  });
  it('reads a numbered field whose value is indented a wide gap after its number (`5.` then the driver number)', () => {
    const uk = [
      line(0.05, [0.1, 'UK'], [0.3, 'DRIVING LICENCE']), line(0.15, [0.3, '1. MORGAN']), line(0.2, [0.3, '2. SARAH']),
      line(0.48, [0.3, '5.'], [0.39, 'MORGA753116SM9IJ35']),
      line(0.6, [0.3, '7.']), line(0.7, [0.05, '18.01.2023']),
    ];
    expect(fields(uk).document_number).toBe('MORGA753116SM9IJ');
  });
});

describe('French CNI (2021): labels read with a dot for a space, a number of few digits', () => {
  const cni = [
    line(0.05, [0.3, 'REPUBLIQUE FRANCAISE']), line(0.1, [0.3, "CARTE NATIONALE D'IDENTITE / IDENTITY CARD"]),
    line(0.2, [0.4, 'NOM / Surname']), line(0.24, [0.4, 'MARTIN']),
    line(0.32, [0.4, 'Prenoms /Given.names']), line(0.36, [0.4, 'Marie']),
    line(0.7, [0.4, 'N DU DOCUMENT/ Document No.'], [0.75, "DATE D'EXPIR./ Expiry date"]),
    line(0.74, [0.4, 'X4RTBPFW4'], [0.75, '11 02 2030']),
    line(0.85, [0.6, '384213']),
  ];
  it('never takes `Given.names` for the given names', () => {
    expect(fields(cni).first_name).toBe('Marie');
  });
  it('reads the document number `X4RTBPFW4` under its label (two digits only), not the card access number', () => {
    expect(fields(cni).document_number).toBe('X4RTBPFW4');
  });
});

describe("Peru's CUI", () => {
  it('is the document number, read without its check digit, before the card number (`N° de Tarjeta`)', () => {
    const dni = [
      line(0.03, [0.1, 'REPUBLICA DEL PERU'], [0.75, 'CUI']),
      line(0.08, [0.1, 'DOCUMENTO NACIONAL DE IDENTIDAD'], [0.75, '40000000-1']),
      line(0.17, [0.35, 'Primer Apellido']), line(0.22, [0.35, 'ROBOTICSLABPE']),
      line(0.85, [0.55, 'N° de Tarjeta']), line(0.9, [0.55, '0200011111']),
    ];
    expect(fields(dni).document_number).toBe('40000000');
  });
});

describe('a country code printed on the card', () => {
  it('is a word of its own read with some confidence, never three capitals out of a misread word', () => {
    const card = (code: string, confidence = 0.9) => {
      const lines = [line(0.05, [0.3, 'DRIVING LICENCE']), line(0.2, [0.05, code], [0.3, '1. SURGUTSKII']), line(0.3, [0.3, '4a. 15.12.2019'])];
      lines[1].words![0].confidence = confidence;
      return classifyIdFront(lines)!.country;
    };
    expect(card('RUS')).toBe('RUS');
    expect(card('rANTo')).toBeNull();
    expect(card('ANT', 0.2)).toBeNull();
  });
});

describe('Croatian labels', () => {
  it('reads the given names by `Ime/Name` (the English `Name` beside a label of the given names is that label)', () => {
    expect(fields(croatian('M/M'))).toMatchObject({ last_name: 'HORVAT', first_name: 'IVAN' });
  });
});

describe('country names the cards print', () => {
  it('knows `CZECH REPUBLIC` (Czechia in the ICAO list)', () => {
    const cz = [line(0.05, [0.1, 'CESKA REPUBLIKA'], [0.45, 'CZECH REPUBLIC IDENTIFICATION CARD']), line(0.12, [0.1, 'OBCANSKY PRUKAZ'])];
    expect(classifyIdFront(cz)).toMatchObject({ type: 'national_id_card', country: 'CZE' });
  });
});

describe('an unlabelled document number', () => {
  it("is never the value of another field's numbered label (`4c) 6 4484`, the issuing authority)", () => {
    const rus = [
      line(0.05, [0.1, 'RUS'], [0.3, 'BOANTEIbCKOE YAOCTOBEPEHNE']),
      line(0.4, [0.3, '4a) 15.12.2019'], [0.6, '4b) 15.12.2029']), line(0.45, [0.3, '4c) 6 4484']),
      line(0.52, [0.35, '1801123456']),
    ];
    expect(fields(rus).document_number).toBe('1801123456');
  });
});

describe('a country code is a word of its own, not a word of a sentence in capitals', () => {
  it("an e-invoice's `ES UNA REPRESENTACIÓN` footer names no country; `NACIONALIDAD PER` does", () => {
    const bill = [line(0.2, [0.05, 'RUC/documento de identidad: 80001890-7']), line(0.85, [0.2, 'ESTE DOCUMENTO ES UNA REPRESENTACIÓN GRÁFICA DE UN DOCUMENTO ELECTRÓNICO'])];
    expect(classifyIdFront(bill)?.country ?? null).not.toBe('UNA');
    const card = [line(0.05, [0.1, 'DOCUMENTO NACIONAL DE IDENTIDAD']), line(0.5, [0.4, 'NACIONALIDAD PER'])];
    expect(classifyIdFront(card)?.country).toBe('PER');
    // a row of cells is no sentence: the code between two labels of other cells still counts
    const row = [line(0.05, [0.1, 'DOCUMENTO NACIONAL DE IDENTIDAD']), line(0.5, [0.1, 'NACIONALIDAD'], [0.4, 'PER'], [0.7, 'SEXO'])];
    expect(classifyIdFront(row)?.country).toBe('PER');
  });
});
