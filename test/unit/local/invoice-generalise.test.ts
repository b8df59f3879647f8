/**
 * Invoice rules that generalise beyond the development set (issue #28): forms seen on public invoices of many
 * generators and languages, each rebuilt here as a made-up layout (no copy of a studied file): a VAT id followed by
 * another footer column, dotted German VAT labels, Finnish and Swedish invoices, a sequence number over its year
 * after the title word, labels a generator wrote without spaces, and the seller's id in a footer under its name.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findTaxIds } from '../../../server/src/providers/local/text/ids.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { left, page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const fields = (lines: TextLine[]) => extractFields(invoice, lines, []);

describe('VAT ids in footers and dotted labels', () => {
  it('cuts a spaced VAT id where its checksum holds when the next footer column follows on the line', () => {
    const ids = findTaxIds('Web: www.example-shop.de USt-ID DE 112 254 546 BIC GENODEF1XYZ');
    expect(ids.map((i) => [i.value, i.kind])).toEqual([['DE112254546', 'eu_vat']]);
    // The id's span ends at its last digit, not at the word that followed it.
    const text = 'USt-ID DE 112 254 546 SWIFT ABCDEFGH';
    expect(text.slice(ids.length ? findTaxIds(text)[0].start : 0, findTaxIds(text)[0].end)).toBe('DE 112 254 546');
  });
  it('keeps rejecting a VAT-shaped token whose no prefix passes the checksum', () => {
    expect(findTaxIds('Ref DE 111 111 111 ABC').filter((i) => i.kind === 'eu_vat')).toEqual([]);
  });
  it('reads a VAT id after `USt.-Id.-Nr.` (points and hyphens between the parts of the label)', () => {
    expect(findTaxIds('USt.-Id.-Nr. : DE999999990').map((i) => i.value)).toEqual(['DE999999990']);
  });
});

describe('Finnish and Scandinavian invoices', () => {
  it('classifies and reads a Finnish invoice (lasku)', () => {
    const lines = page([
      [[0.05, 'Esimerkki Oy'], [0.7, 'LASKU']],
      [[0.05, 'Asiakas Ky'], [0.5, 'Laskun nro: 8812'], [0.75, 'Maksettava: 310,00 e']],
      [[0.05, 'Katu 3'], [0.5, 'Päivämäärä: 04.02.2023'], [0.75, 'Eräpäivä: 18.02.2023']],
      [[0.05, 'Tuote'], [0.4, 'Veroton'], [0.55, 'ALV-%'], [0.7, 'Verollinen']],
      [[0.05, 'Palvelu'], [0.4, '250,00'], [0.55, '24,00'], [0.7, '310,00']],
      [[0.05, 'Yhteensä'], [0.4, '250,00'], [0.7, '310,00']],
      [[0.05, 'Y-tunnus: 1238125-0'], [0.4, 'VAT: FI12381250']],
    ]);
    expect(classifyText(lines).candidates[0].type).toMatch(/invoice/);
    const f = fields(lines);
    expect(f.invoice_number?.value).toBe('8812');
    expect(f.issue_date?.value).toBe('2023-02-04');
    expect(f.due_date?.value).toBe('2023-02-18');
    expect(f.total_amount?.value).toBe(310);
    expect(f.issuer_tax_id?.value).toBe('FI12381250');
  });
  it('reads a Swedish invoice: Fakturanummer, Fakturadatum, Förfallodag, Att betala', () => {
    const lines = left([
      'Exempel AB',
      'Faktura',
      'Fakturanummer: 20451',
      'Fakturadatum: 2024-05-02',
      'Förfallodag: 2024-06-01',
      'Konsulttimmar 10 1 000,00',
      'Moms 25% 250,00',
      'Att betala: 1 250,00 kr',
      'Momsreg.nr SE111115281301',
    ]);
    expect(classifyText(lines).candidates[0].type).toMatch(/invoice/);
    const f = fields(lines);
    expect(f.invoice_number?.value).toBe('20451');
    expect(f.issue_date?.value).toBe('2024-05-02');
    expect(f.total_amount?.value).toBe(1250);
    expect(f.issuer_tax_id?.value).toBe('SE111115281301');
  });
});

describe('numbers and totals in generated layouts', () => {
  it('reads a sequence number over its year printed with spaces after the title word', () => {
    const lines = left(['Studio Esempio', 'Fattura 15 / 2024 Data 03/05/2024', 'Imponibile € 100,00', 'IVA € 22,00', 'Totale € 122,00']);
    expect(fields(lines).invoice_number?.value).toBe('15/2024');
  });
  it('does not take a date after the title word for a sequence number over its year', () => {
    const lines = left(['Studio Esempio', 'Invoice 03/2024/17', 'Invoice No: 5521', 'Total 10.00']);
    expect(fields(lines).invoice_number?.value).toBe('5521');
  });
  it('reads totals and dates whose labels a generator wrote without spaces (`TotalAmount`, `GrandTotal`)', () => {
    expect(fields(left(['Invoice Number: A-7', 'Invoice Date: 2024-01-05', 'Subtotal 500.0', 'Discount 50.0', 'TotalAmount 450.0'])).total_amount?.value).toBe(450);
    expect(fields(left(['Invoice Number: A-8', 'InvoiceDate: 2024-01-06', 'Subtotal 80.00', 'GrandTotal 96.00'])).total_amount?.value).toBe(96);
    expect(fields(left(['Invoice Number: A-8', 'InvoiceDate: 2024-01-06', 'Subtotal 80.00', 'GrandTotal 96.00'])).issue_date?.value).toBe('2024-01-06');
  });
});

describe('whose VAT id', () => {
  it("takes the id under the letterhead's name repeated in the footer, not the customer's printed first", () => {
    const lines = left([
      'Beispiel Handel GmbH',
      'Hauptplatz 1, 8010 Graz',
      'Kundenfirma AG',
      'Ringstraße 9',
      '1010 Wien',
      'UID-Nr: ATU99988877',
      'Rechnung Nr. 41',
      'Rechnungsdatum: 2024-03-01',
      'Gesamtbetrag Brutto: 1.200,00 €',
      'Beispiel Handel GmbH',
      'Hauptplatz 1, 8010 Graz',
      'UID-Nr: ATU11122233',
    ]);
    expect(fields(lines).issuer_tax_id?.value).toBe('ATU11122233');
  });
});

describe('currencies glued to their amounts', () => {
  it('reads a total printed with a koruna, krona or Singapore-dollar sign glued to it', () => {
    expect(fields(left(['Invoice num.: 77', 'Item 2 Kč10.00 Kč20.00', 'Total: Kč20.00'])).total_amount?.value).toBe(20);
    expect(fields(left(['Faktura', 'Fakturanummer: 12', 'Summa att betala 300,00 SEK'])).total_amount?.value).toBe(300);
    expect(fields(left(['Tax Invoice No: 5', 'Total S$12.50'])).total_amount?.value).toBe(12.5);
  });
});
