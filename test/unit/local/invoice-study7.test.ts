/**
 * Rules learnt from the seventh study set of invoices outside the development set (issue #28, session 24; list in
 * bench/results/invoices-receipts.md): invoice images — scanned Indian GST invoices, photographed bills, French,
 * Romanian and German-freelancer layouts. Synthetic layouts, hand-built with word boxes.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { extractFields, wordsToNumber } from '../../../server/src/providers/local/text/extract.ts';
import { findAmounts, parseNumber } from '../../../server/src/providers/local/text/normalize.ts';
import { page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const value = (rows: Array<Array<[number, string]>>, name: string) => extractFields(invoice, page(rows), [])[name]?.value ?? null;

describe('Indian digit grouping (lakh, crore)', () => {
  it('reads `96,32,000.00` and `1,00,000` as one amount each', () => {
    expect(parseNumber('96,32,000.00', false)).toBe(9632000);
    expect(parseNumber('5,16,000.00', false)).toBe(516000);
    expect(parseNumber('1,00,000', false)).toBe(100000);
    expect(findAmounts('total 1,300 nos ₹ 96,32,000.00', false).map((a) => a.value)).toEqual([1300, 9632000]);
  });
  it('takes a Tally-style total row in lakhs, not its quantity', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.4, 'Tax Invoice']],
      [[0.05, 'Ace Mobile Manufacturer Pvt Ltd'], [0.5, 'Invoice No.'], [0.75, 'Dated']],
      [[0.5, 'ACMPL/01/2019-20'], [0.75, '18-Apr-2019']],
      [[0.05, '1 Ace A1-Smartphone 8517 500 Nos 6,000.00 Nos'], [0.8, '30,00,000.00']],
      [[0.05, 'Output CGST'], [0.8, '5,16,000.00']],
      [[0.05, 'Output SGST'], [0.8, '5,16,000.00']],
      [[0.05, 'Total'], [0.5, '1,300 Nos'], [0.8, '₹ 96,32,000.00']],
    ];
    expect(value(rows, 'total_amount')).toBe(9632000);
  });
});

describe('total labels with words after `total`', () => {
  it('reads a French `TOTAL DE LA FACTURE`', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.05, 'Jean-Luc Dagobert']],
      [[0.05, 'Facturé à'], [0.35, 'Envoyé à'], [0.6, 'Facture n°'], [0.85, 'FR-001']],
      [[0.05, 'Cendrillon Ayot'], [0.35, 'Cendrillon Ayot'], [0.6, 'Date'], [0.85, '29/01/2019']],
      [[0.05, 'QTE DESIGNATION'], [0.6, 'PRIX UNIT. HT'], [0.8, 'MONTANT HT']],
      [[0.05, '1 Affiche 100x180cm'], [0.6, '100.00'], [0.8, '145.00']],
      [[0.6, 'Total HT'], [0.8, '145.00']],
      [[0.6, 'TVA 20.0%'], [0.8, '29.00']],
      [[0.45, 'TOTAL DE LA FACTURE'], [0.8, '174.00 €']],
    ];
    expect(value(rows, 'total_amount')).toBe(174);
  });
  it('reads an English `Total price` under the items', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.05, 'Recipient Name'], [0.6, 'Invoice ID:'], [0.85, '4736']],
      [[0.05, 'Another Avenue 18'], [0.6, 'Issue date:'], [0.8, 'August 9, 2019']],
      [[0.05, 'Item Amount Description'], [0.6, 'Price per unit'], [0.8, 'Total price']],
      [[0.05, '#4 1 Shipping'], [0.6, '9.99 €'], [0.8, '9.99 €']],
      [[0.6, 'Sum'], [0.8, '7,438.24 €']],
      [[0.6, 'Total price'], [0.8, '7,438.24 €']],
    ];
    expect(value(rows, 'total_amount')).toBe(7438.24);
  });
  it('reads a Romanian `Total de plata` over the table`s TOTAL row', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.05, 'Furnizor : S.C. HELP MULTISERVICES S.R.L.'], [0.4, 'FACTURA']],
      [[0.4, 'Data : 4.05.2015']],
      [[0.05, '1 servicii curatenie'], [0.5, '250.00'], [0.65, '250.00'], [0.8, '60.00']],
      [[0.5, 'TOTAL'], [0.65, '250.00'], [0.8, '60.00']],
      [[0.5, 'Total de plata'], [0.8, '310.00']],
    ];
    expect(value(rows, 'total_amount')).toBe(310);
  });
  it('reads an Indian `TOTAL INVOICE VALUE (INR) :` with its amount at the right margin', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.4, 'TAX INVOICE']],
      [[0.05, 'Carrier Airconditioning & Refrigeration Limited'], [0.5, 'Invoice No.'], [0.65, ': 6021114921']],
      [[0.05, 'TAXABLE VALUE (INR)'], [0.85, '175,000.00']],
      [[0.05, 'IGST : 28.00 % ON 100.00 % OF TAXABLE VALUE'], [0.65, '175,000.00'], [0.85, '49,000.00']],
      [[0.05, 'TOTAL INVOICE VALUE (INR) :'], [0.85, '224,000.00']],
    ];
    expect(value(rows, 'total_amount')).toBe(224000);
  });
});

describe("a number's label paired with the date's", () => {
  it('reads `Invoice No. / Date : 6021114921 / 18.10.2021` as the number and the date', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.4, 'TAX INVOICE']],
      [[0.05, 'Carrier Airconditioning & Refrigeration Limited'], [0.5, 'Invoice No. / Date'], [0.65, ': 6021114921 / 18.10.2021']],
      [[0.05, 'C/o FIT 3PL Warehousing'], [0.5, 'Order No. / Date'], [0.65, ': 936158 / 08.10.2021']],
    ];
    expect(value(rows, 'invoice_number')).toBe('6021114921');
    expect(value(rows, 'issue_date')).toBe('2021-10-18');
  });
  it('takes no id when the value after ` / ` is no date', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.4, 'TAX INVOICE']],
      [[0.05, 'Carrier Airconditioning'], [0.5, 'Invoice No. / Date'], [0.65, ': 6021114921 / pending']],
    ];
    expect(value(rows, 'invoice_number')).not.toBe('6021114921');
  });
});

describe("India's e-invoice print: a header row of totals over its values", () => {
  it('reads `Total Inv. Amt` at the end of the row, its value below', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.05, '29AAFCA3725N1ZC ALTRUIST TECHNOLOGIES']],
      [[0.05, 'Supply Type Code : B2B'], [0.35, 'Document No : KK-22-23-01']],
      [[0.05, 'Document Type : Tax Invoice'], [0.35, 'Document Date : 14-04-2022']],
      [[0.05, 'SlNo Item Description HSN Code Quantity Unit Unit Price(Rs) Taxable Amount(Rs)'], [0.92, 'Total']],
      [[0.05, '1 Towards Charges 998593 135 OTH 41750 5636250'], [0.92, '6650775']],
      [[0.05, "Tax'ble Amt"], [0.15, 'CGST Amt'], [0.25, 'SGST Amt'], [0.35, 'IGST Amt'], [0.45, 'CESS Amt'], [0.7, 'Discount'], [0.86, 'Round off Amt'], [0.93, 'Total Inv. Amt']],
      [[0.05, '6112250'], [0.15, '0'], [0.25, '0'], [0.35, '1100205'], [0.45, '0'], [0.7, '0'], [0.86, '0'], [0.93, '7212455']],
    ];
    expect(value(rows, 'total_amount')).toBe(7212455);
  });
});

describe('the amount in words (Indian invoices)', () => {
  it('reads English number words with lakhs and crores', () => {
    expect(wordsToNumber('Ninety Six Lakh Thirty Two Thousand')).toBe(9632000);
    expect(wordsToNumber('Eleven Thousand Eight Hundred Ninety Five')).toBe(11895);
    expect(wordsToNumber('Two Crore Five Lakh')).toBe(20500000);
    expect(wordsToNumber('Total Invoice')).toBeNull();
  });
  it('corrects a total whose one digit OCR misread, with a confidence to review', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.4, 'TAX INVOICE']],
      [[0.5, 'Invoice Date: 08-03-2022']],
      [[0.05, 'Total:'], [0.5, '10081.00 0.00 10081.00'], [0.7, '907.00 907.00'], [0.9, '11695.00']],
      [[0.05, 'Total Invoice Value (In figure):'], [0.9, '₹ 11695.00']],
      [[0.05, 'Total Invoice Value (In Words):'], [0.35, 'Rupees Eleven Thousand Eight Hundred Ninety Five Only']],
    ];
    const f = extractFields(invoice, page(rows), []);
    expect(f.total_amount?.value).toBe(11895);
    expect(f.total_amount!.confidence).toBeLessThan(0.7);
  });
  it('finds the total the words spell when no label gave one', () => {
    const rows: Array<Array<[number, string]>> = [
      [[0.4, 'Tax Invoice']],
      [[0.05, "Tax'ble Amt"], [0.5, 'IGST'], [0.9, 'Grand']],
      [[0.05, '6112250'], [0.5, '1100205'], [0.9, '7212455']],
      [[0.05, 'Rupees Seventy Two Lakh Twelve Thousand Four Hundred Fifty Five Only']],
    ];
    expect(value(rows, 'total_amount')).toBe(7212455);
  });
  it("reads the paise, and leaves the tax's words and a total they do not match by one digit alone", () => {
    const paise: Array<Array<[number, string]>> = [
      [[0.4, 'TAX INVOICE']],
      [[0.7, 'Grand Total'], [0.9, '13,781.42']],
      [[0.3, 'Rupees Thirteen Thousand Seven Hundred Thirty One And Forty Two Paise Only']],
    ];
    expect(value(paise, 'total_amount')).toBe(13731.42);
    const tax: Array<Array<[number, string]>> = [
      [[0.4, 'Tax Invoice']],
      [[0.05, 'Total'], [0.9, 'INR 5,900.00']],
      [[0.05, 'Tax Amount (in words) : Rs. Nine Hundred Only']],
      [[0.05, 'Rs. Five Thousand Eight Hundred Only']],
    ];
    expect(value(tax, 'total_amount')).toBe(5800);
    const far: Array<Array<[number, string]>> = [
      [[0.4, 'Tax Invoice']],
      [[0.05, 'Total'], [0.9, 'INR 5,900.00']],
      [[0.05, 'Rs. Four Thousand Two Hundred Only']],
    ];
    expect(value(far, 'total_amount')).toBe(5900);
  });
});
