/**
 * The local text readers: classification of real invoices and of synthetic documents in es/fr/pt/de, a nonsense
 * text staying below 0.5, rule-based extraction on real invoices (expected values from invoice2data's JSON) and
 * locale-aware amounts and dates.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { readPdf, warmPdf } from '../../../server/src/providers/local/pdf.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { classifyText, isInvoiceType } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findAmounts, findDates, foldKeep, parseNumber } from '../../../server/src/providers/local/text/normalize.ts';

const DOCS = path.resolve('../shared/testdata/documents/invoices/invoice2data');
const lines: Record<string, TextLine[]> = {};
const expected = (name: string) => JSON.parse(fs.readFileSync(path.join(DOCS, `${name}.json`), 'utf8'))[0];

beforeAll(async () => {
  await warmPdf();
  for (const name of ['coolblue2', 'NetpresseInvoice', 'QualityHosting', 'AmazonWebServices', 'free_fiber', 'saeco']) {
    const content = await readPdf(new Uint8Array(fs.readFileSync(path.join(DOCS, `${name}.pdf`))));
    lines[name] = content.pages.flatMap((p) => p.lines);
  }
}, 30_000);

/** Synthetic lines (no word boxes, as some readers give). */
const text = (t: string): TextLine[] =>
  t
    .trim()
    .split('\n')
    .map((s, i) => ({ page: 1, text: s.trim(), bbox: [0.08, 0.05 + i * 0.03, 0.92, 0.07 + i * 0.03], confidence: 1 }));

const PAYSLIP_ES = `RECIBO INDIVIDUAL JUSTIFICATIVO DEL PAGO DE SALARIOS
Empresa: Construcciones Levante S.L. CIF: B12345674
Trabajador: María García López DNI: 12345678Z
Categoría: Oficial de primera
Nómina de marzo de 2024
Total devengado 2.345,67
Total a deducir 455,55
Líquido a percibir 1.890,12`;

const ATTESTATION_FR = `ATTESTATION EMPLOYEUR
Je soussigné, Jean Dupont, directeur des ressources humaines de la société Boulangerie Martin SAS,
atteste que Madame Claire Petit est employée dans notre entreprise depuis le 01/09/2019
en qualité de vendeuse, en contrat à durée indéterminée.
Fait à Lyon, le 12/03/2024 pour servir et valoir ce que de droit.`;

const BANK_ES = `CERTIFICADO DE TITULARIDAD BANCARIA
Banco Ejemplo, S.A. certifica que D. Juan Pérez Martín, con DNI 12345678Z,
es titular de la cuenta corriente con IBAN ES91 2100 0418 4502 0005 1332
BIC: CAIXESBBXXX
Y para que conste, se expide el presente certificado en Madrid, a 3 de marzo de 2024.`;

const PAYSLIP_PT = `RECIBO DE VENCIMENTO
Entidade empregadora: Exemplo Lda NIF 503123404
Nome: João Silva
Vencimento base 1.200,00
Total ilíquido 1.350,00
Valor líquido 1.012,50`;

const INVOICE_DE = `Rechnung
Rechnungsnummer: 2024-0042
Rechnungsdatum: 15.03.2024
Nettobetrag 100,00 EUR
MwSt. 19% 19,00 EUR
Gesamtbetrag 119,00 EUR
USt-IdNr: DE136695976`;

describe('classifyText', () => {
  it('puts an invoice type first for real invoices in nl, fr, de and en, with language and country', () => {
    const nl = classifyText(lines.coolblue2);
    expect(isInvoiceType(nl.candidates[0].type)).toBe(true);
    expect(nl.candidates[0].confidence).toBeGreaterThanOrEqual(0.5);
    expect(nl.language?.code).toBe('nl');
    expect(nl.country).toBe('NLD'); // BTW number, IBAN, KvK
    const fr = classifyText(lines.NetpresseInvoice);
    expect(isInvoiceType(fr.candidates[0].type)).toBe(true);
    expect(fr.language?.code).toBe('fr');
    expect(fr.country).toBe('FRA'); // SIRET, RCS
    const de = classifyText(lines.QualityHosting);
    expect(isInvoiceType(de.candidates[0].type)).toBe(true);
    expect(de.language?.code).toBe('de');
    const en = classifyText(lines.AmazonWebServices);
    expect(en.candidates[0].type).toBe('invoice');
    expect(en.language?.code).toBe('en');
  });

  it('classifies synthetic documents in es, fr, pt and de', () => {
    const payslip = classifyText(text(PAYSLIP_ES));
    expect(payslip.candidates[0]).toMatchObject({ type: 'es_payslip' });
    expect(payslip.candidates[0].confidence).toBeGreaterThanOrEqual(0.5);
    expect(payslip.country).toBe('ESP');
    expect(payslip.language?.code).toBe('es');

    const bank = classifyText(text(BANK_ES));
    expect(bank.candidates[0].type).toBe('es_bank_account_certificate');
    expect(bank.candidates[0].confidence).toBeGreaterThanOrEqual(0.5);
    expect(bank.candidates.map((c) => c.type)).toContain('bank_account_certificate');

    const pt = classifyText(text(PAYSLIP_PT));
    expect(pt.candidates[0].type).toBe('pt_payslip');
    expect(pt.country).toBe('PRT');

    const de = classifyText(text(INVOICE_DE));
    expect(de.candidates[0].type).toBe('invoice');
    expect(de.candidates[0].confidence).toBeGreaterThanOrEqual(0.5);
    expect(de.country).toBe('DEU');

    // A French employer's attestation: the right family, but a weak match stays under 0.5.
    const fr = classifyText(text(ATTESTATION_FR));
    expect(fr.candidates[0].type).toBe('employment_certificate');
    expect(fr.language?.code).toBe('fr');
  });

  it('keeps nonsense below 0.5 and never throws on odd text', () => {
    const nonsense = classifyText(text('lorem ipsum dolor sit amet\nqwerty zxcv asdf 1234\nthe quick brown fox'));
    expect(nonsense.candidates[0].confidence).toBeLessThan(0.5);
    expect(classifyText([]).candidates[0].confidence).toBeLessThan(0.5);
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { maxLength: 8 }), (strings) => {
        const r = classifyText(text(strings.join('\n') || ' '));
        for (const c of r.candidates) expect(c.confidence >= 0 && c.confidence <= 1).toBe(true);
        for (let i = 1; i < r.candidates.length; i++) expect(r.candidates[i].confidence).toBeLessThanOrEqual(r.candidates[i - 1].confidence);
      }),
      { numRuns: 60 },
    );
  });
});

describe('extractFields on real invoices', () => {
  const invoice = getEntry('invoice')!;

  it('reads total, date and number of a Dutch invoice (4.904,94) with the boxes of the words', () => {
    const exp = expected('coolblue2');
    const f = extractFields(invoice, lines.coolblue2, []);
    expect(f.total_amount.value).toBe(exp.amount);
    expect(f.tax_base.value).toBe(exp.amount_untaxed);
    expect(f.issue_date.value).toBe(exp.date);
    expect(f.invoice_number.value).toBe(exp.invoice_number);
    expect(f.iban.value).toBe(exp.iban);
    expect(f.currency.value).toBe(exp.currency);
    // base + tax = total: the cross-check raises the confidence.
    expect(f.total_amount.confidence).toBeGreaterThanOrEqual(0.9);
    // The box lies on one of the two `Totaal € 4.904,94` lines, around the amount's words only.
    const box = f.total_amount.source!.bbox!;
    expect(f.total_amount.source!.page).toBe(1);
    const totalLine = lines.coolblue2.find(
      (l) => l.text.startsWith('Totaal') && box[0] >= l.bbox[0] - 1e-3 && box[2] <= l.bbox[2] + 1e-3 && box[1] >= l.bbox[1] - 1e-3 && box[3] <= l.bbox[3] + 1e-3,
    );
    expect(totalLine?.text).toContain('4.904,94');
    expect(box[2] - box[0]).toBeLessThan(totalLine!.bbox[2] - totalLine!.bbox[0]); // the words, not the whole line
  });

  it('reads French (56,02 €, 02 Juillet 2015), German (7. Mai 2014), English (August 3 , 2014) and Dutch (8-9-2022) invoices', () => {
    for (const name of ['NetpresseInvoice', 'free_fiber', 'QualityHosting', 'AmazonWebServices', 'saeco']) {
      const exp = expected(name);
      const f = extractFields(invoice, lines[name], ['total_amount', 'issue_date', 'currency']);
      expect(f.total_amount?.value, name).toBe(exp.amount);
      expect(f.issue_date?.value, name).toBe(exp.date);
      expect(f.currency?.value, name).toBe(exp.currency);
      expect(Object.keys(f).sort()).toEqual(['currency', 'issue_date', 'total_amount']);
    }
  });
});

describe('extractFields on synthetic documents', () => {
  it('reads a Spanish payslip: amounts, names after labels, a valid DNI', () => {
    const f = extractFields(getEntry('es_payslip')!, text(PAYSLIP_ES), []);
    expect(f.gross_pay.value).toBe(2345.67);
    expect(f.net_pay.value).toBe(1890.12);
    expect(f.full_name.value).toBe('María García López');
    expect(f.employer_name.value).toBe('Construcciones Levante S.L.');
    expect(f.id_number.value).toBe('12345678Z');
    expect(f.employer_tax_id.value).toBe('B12345674');
    for (const v of Object.values(f)) expect(v.confidence > 0 && v.confidence <= 1).toBe(true);
  });

  it('reads an IBAN and a BIC of a bank certificate, and a German invoice cross-checked', () => {
    const bank = extractFields(getEntry('es_bank_account_certificate')!, text(BANK_ES), []);
    expect(bank.iban.value).toBe('ES9121000418450200051332');
    expect(bank.bic.value).toBe('CAIXESBBXXX');
    const de = extractFields(getEntry('invoice')!, text(INVOICE_DE), []);
    expect(de.total_amount.value).toBe(119);
    expect(de.tax_base.value).toBe(100);
    expect(de.tax_amount.value).toBe(19);
    expect(de.tax_rate.value).toBe(19);
    expect(de.issue_date.value).toBe('2024-03-15');
    expect(de.invoice_number.value).toBe('2024-0042');
    expect(de.issuer_tax_id.value).toBe('DE136695976');
    expect(de.total_amount.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it('invents nothing: a text without the fields gives no fields, values follow the schema', () => {
    expect(extractFields(getEntry('invoice')!, text('lorem ipsum dolor sit amet\nconsectetur adipiscing'), [])).toEqual({});
    const f = extractFields(getEntry('invoice')!, text(INVOICE_DE), []);
    const schema = getEntry('invoice')!.schema.properties;
    for (const [name, v] of Object.entries(f)) {
      if (schema[name].type === 'number') expect(typeof v.value).toBe('number');
      if (schema[name].format === 'date') expect(v.value).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });
});

describe('locale-aware amounts and dates', () => {
  it('parses amounts written in several locales', () => {
    const one = (s: string, commaDecimal: boolean) => findAmounts(foldKeep(s), commaDecimal).filter((a) => !a.percent);
    expect(one('Subtotaal € 4.904,94', true)[0]).toMatchObject({ value: 4904.94, currency: 'EUR' });
    expect(one('Total $1,234.56', false)[0]).toMatchObject({ value: 1234.56, currency: 'USD' });
    expect(one('Total TTC : 56,02 €', true)[0]).toMatchObject({ value: 56.02, currency: 'EUR' });
    expect(one('Grand Total Rs 1939', false)[0]).toMatchObject({ value: 1939, currency: 'INR' });
    expect(one('Afschrijvingskosten € -9,32', true)[0].value).toBe(-9.32);
    expect(parseNumber('1.234', true)).toBe(1234);
    expect(parseNumber('1,234', false)).toBe(1234);
    expect(parseNumber('12,5', true)).toBe(12.5);
    expect(parseNumber('1.2.3', true)).toBeNull();
  });

  it('parses dates, the language deciding day/month order when ambiguous', () => {
    const d = (s: string, dayFirst: boolean) => findDates(foldKeep(s), dayFirst).map((x) => x.value);
    expect(d('TOTAL AMOUNT DUE ON August 3 , 2014 $4.11', false)).toEqual(['2014-08-03']);
    expect(d('Factuur datum 8-9-2022', true)).toEqual(['2022-09-08']);
    expect(d('Date: 03/02/2021', true)).toEqual(['2021-02-03']);
    expect(d('Date: 03/02/2021', false)).toEqual(['2021-03-02']);
    expect(d('Invoice Date: 03/20/2023', true)).toEqual(['2023-03-20']); // unambiguous whatever the order
    expect(d('Rechnungsdatum 7. Mai 2014', true)).toEqual(['2014-05-07']);
    expect(d('Madrid, a 31 de enero de 2024', true)).toEqual(['2024-01-31']);
    expect(d('Facture du 02 Juillet 2015', true)).toEqual(['2015-07-02']);
    expect(d('31/02/2021', true)).toEqual([]); // not a calendar date
  });
});
