/**
 * Rules learnt from invoices outside the development set (issue #28, study set in bench/results/invoices-receipts.md):
 * the document's name qualified or compounded before its number sign (`Facture Nr`, `Factura fiscală Nr`,
 * `Korrekturrechnung Nr`), a number printed as `Invoice #2015-11-04` (an id, not the issue date), and invoice words
 * that are no receipt's (`Due on receipt`). Synthetic layouts, hand-built with word boxes.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { tillLayout } from '../../../server/src/providers/local/text/receipt.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { left, page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const value = (lines: TextLine[], name: string) => extractFields(invoice, lines, [])[name]?.value ?? null;

/** Seller and buyer side by side, a reference on the buyer's side above the number line (the layout that lost it). */
const layout = (numberLine: string, title = 'INVOICE', buyer = 'Buyer Org', terms = 'Terms: 30 days', pay = 'IBAN: DE89370400440532013000') =>
  page([
    [[0.08, 'Acme Services GmbH'], [0.7, title]],
    [[0.08, 'Hauptstraße 1'], [0.54, buyer]],
    [[0.08, pay], [0.54, 'Ref: PO-2024-112']],
    [[0.08, `${numberLine} Date: 2024-10-19 Due: 2024-11-18`]],
    [[0.08, 'Pos Description Qty Unit Price Total']],
    [[0.08, '1 Consulting 10 H 100.00 1000.00']],
    [[0.08, 'Subtotal: 1000.00']],
    [[0.08, 'Tax: 190.00']],
    [[0.08, 'TOTAL: 1190.00']],
    [[0.08, terms]],
  ]);

describe('the document name then its number sign, qualified or compounded', () => {
  const cases: Array<[string, string]> = [
    ['Facture Nr: FA-2024-005', 'FA-2024-005'],
    ['Factura fiscala Nr: RO-2024-009', 'RO-2024-009'],
    ['Factura fiscală Nr: RO-2024-010', 'RO-2024-010'],
    ['Korrekturrechnung Nr: KR-2024-020', 'KR-2024-020'],
    ['Schlussrechnung Nr. SR-2024-035', 'SR-2024-035'],
    ['Abschlagsrechnung Nummer AR-77', 'AR-77'],
    ['Gutschrift Nr: GS-2024-018', 'GS-2024-018'],
    ['Nota di credito (TD04) Nr: NC-2024-019', 'NC-2024-019'],
    ['Creditnota nr 2024-3', '2024-3'],
    ['Factuur Nr: NL-2024-008', 'NL-2024-008'],
    ['Fattura Nr: FT-2024-006', 'FT-2024-006'],
    ['Faktura VAT Nr: FV/2024/10/007', 'FV/2024/10/007'],
  ];
  for (const [text, want] of cases) {
    it(`reads ${JSON.stringify(text)} and not the reference above it`, () => {
      expect(value(layout(text), 'invoice_number')).toBe(want);
    });
  }
  it('takes no label word for a number: `Rechnung Nr: Datum` has none', () => {
    const lines = left(['Acme GmbH', 'Korrekturrechnung Nr: Datum', 'Total 10.00']);
    expect(value(lines, 'invoice_number')).toBeNull();
  });
});

describe('an invoice whose words a till receipt also prints', () => {
  it('`Facture Nr` with an IBAN is an invoice even when the customer is `Le Bon Goût` (a till word)', () => {
    const lines = layout('Facture Nr: FA-2024-005', 'FACTURE', 'Restaurant Le Bon Goût', 'Terms: 45 jours fin de mois');
    expect(classifyText(lines).candidates[0].type).toMatch(/invoice/);
  });
  it('`Terms: Due on receipt` is an invoice term, not a receipt title', () => {
    const lines = layout('Invoice Nr: INV-2024-033', 'INVOICE', 'Web Agency', 'Terms: Due on receipt', 'PayPal: pierre@example.fr');
    expect(classifyText(lines).candidates[0].type).toMatch(/invoice/);
    // The words themselves weigh nothing for a till: the same invoice with other terms scores the same.
    const other = layout('Invoice Nr: INV-2024-033', 'INVOICE', 'Web Agency', 'Terms: 30 days', 'PayPal: pierre@example.fr');
    expect(tillLayout(prepareLines(lines)).score).toBe(tillLayout(prepareLines(other)).score);
    const titled = layout('Invoice Nr: INV-2024-033', 'INVOICE', 'Web Agency', 'Receipt', 'PayPal: pierre@example.fr');
    expect(tillLayout(prepareLines(titled)).score).toBeGreaterThan(tillLayout(prepareLines(other)).score);
  });
});

describe('a number shaped like a date', () => {
  const letter = (numberLine: string) =>
    left(['Max Mustermann • Musterstraße 37 • 12345 Musterstadt', 'Erika Mustermann', 'Musterstadt, November 2, 2015', numberLine, 'Pos. Description Prices in EUR', '1 Service 320,00', 'Total: 320,00']);
  it('`Invoice #2015-11-04` is the number, and the issue date is the letter\'s own date', () => {
    const lines = letter('Invoice #2015-11-04');
    expect(value(lines, 'invoice_number')).toBe('2015-11-04');
    expect(value(lines, 'issue_date')).toBe('2015-11-02');
  });
  it('without a number sign a date after the document name stays a date', () => {
    const lines = left(['Acme Ltd', 'Invoice 2015-11-04', 'Total: 320.00']);
    expect(value(lines, 'invoice_number')).toBeNull();
    expect(value(lines, 'issue_date')).toBe('2015-11-04');
  });
});

describe('Czech and Brazilian invoices', () => {
  const czech = page([
    [[0.08, 'Faktura - daňový doklad'], [0.85, '2022001']],
    [[0.08, 'Dodavatel'], [0.55, 'Odběratel']],
    [[0.08, 'Příklad s.r.o.'], [0.55, 'Protipříklad s.r.o.']],
    [[0.55, 'Datum vystavení:'], [0.83, '2022-11-24']],
    [[0.55, 'Datum splatnosti:'], [0.83, '2022-12-08']],
    [[0.08, 'Auto'], [0.4, '20000'], [0.55, '21.00 Kč'], [0.83, '428,400.00 Kč']],
    [[0.8, 'CELKEM S DPH']],
    [[0.77, '712,246.00 Kč']],
  ]);
  it('reads the number after `daňový doklad`, the issue date, and the total below `Celkem s DPH`', () => {
    expect(value(czech, 'invoice_number')).toBe('2022001');
    expect(value(czech, 'issue_date')).toBe('2022-11-24');
    expect(value(czech, 'total_amount')).toBe(712246);
  });
  it('a Brazilian bill with `Nota Fiscal`, `Data Emissão` and `Valor a Pagar` is an invoice, its values read below their labels', () => {
    const lines = page([
      [[0.05, 'AMAZONAS ENERGIA']],
      [[0.05, 'CNPJ: 02.341.467/0001-20']],
      [[0.05, 'JOSE DA SILVA'], [0.4, 'Código Único'], [0.55, 'Mês Faturado'], [0.7, 'Nota Fiscal'], [0.83, 'Data Emissão']],
      [[0.05, 'R. SIENA, 130'], [0.41, '0002130-0'], [0.57, '02/2026'], [0.7, '112612898'], [0.84, '12/02/2026']],
      [[0.05, 'Consumo 651 kWh'], [0.8, '548,81']],
      [[0.05, 'Contribuição de Iluminação Pública'], [0.8, '53,33']],
      [[0.51, 'Vencimento'], [0.78, 'Valor a Pagar']],
      [[0.49, '02/03/2026'], [0.77, 'R$ 612,72']],
    ]);
    expect(classifyText(lines).candidates[0].type).toMatch(/invoice/);
    expect(value(lines, 'invoice_number')).toBe('112612898');
    expect(value(lines, 'issue_date')).toBe('2026-02-12');
    expect(value(lines, 'total_amount')).toBe(612.72);
  });
});

describe('two parties\' tax ids side by side under no heading', () => {
  const parties = (seller: string, buyer: string) =>
    page([
      [[0.08, 'Acme Trading GmbH'], [0.75, 'INVOICE']],
      [[0.08, 'Acme Trading GmbH'], [0.54, 'Buyer Holding B.V.']],
      [[0.08, 'Hauptstraße 1'], [0.54, 'Spui 21']],
      [[0.08, `VAT: ${seller}`], [0.54, `VAT: ${buyer}`]],
      [[0.08, 'Invoice Nr: INV-2024-015 Date: 2024-10-29']],
      [[0.08, 'TOTAL: 1190.00']],
    ]);
  it('the letterhead\'s column is the issuer\'s, the other the customer\'s (the buyer\'s name above speaks for its column only)', () => {
    const out = extractFields(invoice, parties('DE136695976', 'NL004495445B01'), []);
    expect(out.issuer_tax_id?.value).toBe('DE136695976');
    expect(out.customer_tax_id?.value).toBe('NL004495445B01');
  });
  it('an issuer id failing its check digits never hands the issuer\'s place to the customer\'s valid id', () => {
    const out = extractFields(invoice, parties('PL1234567890', 'NL004495445B01'), []);
    expect(out.issuer_tax_id?.value ?? null).not.toBe('NL004495445B01');
    expect(out.customer_tax_id?.value).toBe('NL004495445B01');
    // Printed as labelled but unproven: an unsure reading, never a sure one.
    if (out.issuer_tax_id?.value) expect(out.issuer_tax_id.confidence).toBeLessThanOrEqual(0.5);
  });
});

describe('the rounded total after the table\'s total', () => {
  it('`Total Amount After Tax ₹4,490.00` wins over the items table\'s unrounded `Total` row', () => {
    const lines = page([
      [[0.05, 'TAX INVOICE']],
      [[0.05, 'Invoice No. GST-3425-26'], [0.6, 'Invoice Date 23-Jul-2025']],
      [[0.05, '1 Tool Kit 8302 1 NOS'], [0.6, '2,535.00 18.00 456.30 2,991.30']],
      [[0.05, '2 Universal Tool Kit 8302 1 NOS'], [0.6, '1,270.00 18.00 228.60 1,498.60']],
      [[0.05, 'Total 2 NOS'], [0.6, '3,805.00 684.90 4,489.90']],
      [[0.55, 'Taxable Amount'], [0.85, '3,805.00']],
      [[0.55, 'Total Tax'], [0.85, '684.90']],
      [[0.55, 'Total Amount After Tax'], [0.85, '₹4,490.00']],
    ]);
    expect(value(lines, 'total_amount')).toBe(4490);
  });
});

describe('a value below its label that the OCR engine ran on into another column\'s text', () => {
  it('`Invoice Number` over `Address: New Delhi … 0001/25-26` boxed as one run: the words under the label are the number', () => {
    const lines = page([
      [[0.05, 'TAX INVOICE']],
      [[0.05, 'Company Name (Shop Name)'], [0.505, 'Invoice Number'], [0.73, 'Invoice Date']],
      [[0.05, 'Address: New Delhi, Delhi 110058, India., New Delhi 0001/25-26'], [0.73, '30-Jul-25']],
      [[0.05, 'Total'], [0.8, '30,180.00']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('0001/25-26');
    expect(value(lines, 'issue_date')).toBe('2025-07-30');
  });
  it('a long number right-aligned under a short label is one word reaching left of it: the whole of it is the number', () => {
    const lines = page([
      [[0.83, 'Numer Faktury:']],
      [[0.55, 'FV/ABCDEFGH-12345678901234/03/2026/K']],
      [[0.79, 'Faktura podstawowa']],
      [[0.05, 'Razem do zapłaty 100,00 PLN']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('FV/ABCDEFGH-12345678901234/03/2026/K');
  });
  it('a name below its label keeps its whole cell (text is not cut to the label\'s width)', () => {
    const lines = page([
      [[0.05, 'INVOICE']],
      [[0.3, 'Bill To:']],
      [[0.2, 'Northwind Traders International Ltd']],
      [[0.05, 'Invoice No: 12'], [0.6, 'Total 10.00']],
    ]);
    expect(value(lines, 'customer_name')).toBe('Northwind Traders International Ltd');
  });
});

describe('number and total labels of more languages', () => {
  const numbers: Array<[string, string]> = [
    ['Document Number: 88123', '88123'],
    ['Serie y número: A/88123', 'A/88123'],
    ['Fatura-Recibo nº FR 2024/88', 'FR 2024/88'],
    ['Numer: FV/88/2024', 'FV/88/2024'],
    ['Faktura č. 88123', '88123'],
    ['Faktúra č. 88124', '88124'],
    ['Számla sorszáma: 88125', '88125'],
    ['Számlaszám: 88126', '88126'],
    ['Arve nr 88127', '88127'],
    ['Sąskaitos Nr. 88128', '88128'],
    ['Invoice Serial No. 88129', '88129'],
    ['Invoice Nbr 88130', '88130'],
  ];
  for (const [text, want] of numbers) {
    it(`reads the number in ${JSON.stringify(text)}`, () => {
      expect(value(left(['Acme Ltd', text, 'Date: 02/03/2024', 'Total 100.00']), 'invoice_number')).toBe(want);
    });
  }
  it('takes no customer or order number for the invoice\'s (`Numer klienta`, `Numer zamówienia`)', () => {
    expect(value(left(['Acme Sp. z o.o.', 'Numer klienta: KL-7615', 'Numer zamówienia: 2024/77', 'Razem 100,00']), 'invoice_number')).toBeNull();
  });
  const totals = ['Net à payer 1 234,56', 'Netto a pagare 1.234,56', 'Total inkl. MwSt. 1.234,56', 'Fizetendő: 1 234,56', 'Összesen: 1 234,56', 'Kokku: 1234,56', 'Iš viso: 1234,56', 'Kopā apmaksai 1234,56', 'Totalt 1 234,56'];
  for (const text of totals) {
    it(`reads the total in ${JSON.stringify(text)} (not the net subtotal above it)`, () => {
      const lines = left(['Acme Ltd', 'Invoice No: 12', 'Date: 02/03/2024', 'Item 1 1.000,00', 'Netto 1.000,00', 'MwSt 234,56', text]);
      expect(value(lines, 'total_amount')).toBe(1234.56);
    });
  }
});

describe('the number in the title row\'s last cell', () => {
  const titleRow = (title: string, right: string) =>
    page([
      [[0.08, title], [0.8, right]],
      [[0.08, 'Acme Services Ltd'], [0.55, 'Customer Co']],
      [[0.08, 'Issued 2024-03-02']],
      [[0.08, 'Consulting'], [0.8, '100.00']],
      [[0.08, 'Total'], [0.8, '100.00']],
    ]);
  it('`Tax Invoice (Original)` with `INV-2024-77` alone at the right: the number', () => {
    expect(value(titleRow('Tax Invoice (Original)', 'INV-2024-77'), 'invoice_number')).toBe('INV-2024-77');
    expect(value(titleRow('Faktura - daňový doklad', '2022001'), 'invoice_number')).toBe('2022001');
  });
  it('a date, an amount or a page count at the right of the title is no number', () => {
    expect(value(titleRow('Tax Invoice', '02/03/2024'), 'invoice_number')).toBeNull();
    expect(value(titleRow('Tax Invoice', '$100.00'), 'invoice_number')).toBeNull();
    expect(value(titleRow('Invoice', 'Page 1 of 2'), 'invoice_number')).toBeNull();
  });
});
