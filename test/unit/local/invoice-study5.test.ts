/**
 * Rules learnt from the fifth study set of invoices outside the development set (issue #28, session 22; list in
 * bench/results/invoices-receipts.md): text-layer invoices of many generators in Dutch, German, Romanian, Swedish and
 * French. Synthetic layouts, hand-built with word boxes.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findAmounts, prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const value = (lines: ReturnType<typeof page>, name: string) => extractFields(invoice, lines, [])[name]?.value ?? null;

describe('amounts grouped by spaces with their currency after them', () => {
  it('reads `124 500 kr` and `15 000 €` as one amount each', () => {
    expect(findAmounts('summa att betala 124 500 kr', true).map((a) => a.value)).toEqual([124500]);
    expect(findAmounts('total 15 000 €', true).map((a) => a.value)).toEqual([15000]);
    expect(findAmounts('celkem 12 500 kc', true).map((a) => a.value)).toEqual([12500]);
  });
  it('keeps a one-digit quantity and a price apart (`2 400 kr`), and spaced digits with no currency', () => {
    expect(findAmounts('2 400 kr', true).map((a) => a.value)).toEqual([2, 400]);
    expect(findAmounts('artikel 12 500 300', true).map((a) => a.value)).toEqual([12, 500, 300]);
  });
  it('reads a Swedish invoice total written in whole kronor', () => {
    const lines = page([
      [[0.05, 'Faktura'], [0.6, 'Fakturanummer: 2024-17']],
      [[0.05, 'Exempel AB'], [0.6, 'Fakturadatum: 2024-05-02']],
      [[0.05, 'Konsulttjänster 100 h'], [0.7, '99 600 kr']],
      [[0.55, 'Moms totalt'], [0.75, '24 900 kr']],
      [[0.5, 'Summa att betala'], [0.75, '124 500 kr']],
    ]);
    expect(value(lines, 'total_amount')).toBe(124500);
  });
});

describe('labels of totals and numbers', () => {
  it('takes `Factuurtotaal` (Dutch) over the VAT line above it', () => {
    const lines = page([
      [[0.05, 'Factuur'], [0.6, 'Factuurnummer : 24-0815']],
      [[0.05, 'BTW 21,00 % over 319,03 Eur'], [0.8, '67,00']],
      [[0.05, 'Factuurtotaal Eur'], [0.8, '386,03']],
    ]);
    expect(value(lines, 'total_amount')).toBe(386.03);
  });
  it("takes a German final invoice's `Verbleibende Restforderung`, not the gross before the advance payments", () => {
    const lines = page([
      [[0.05, 'Schlussrechnung Nr. 2024-113']],
      [[0.05, 'Summe Schlussrechnung brutto'], [0.8, '9.045,26 EUR']],
      [[0.05, 'Summe geleisteter Zahlungen brutto'], [0.8, '4.522,64 EUR']],
      [[0.05, 'Gesamtbetrag netto'], [0.8, '3.768,86 EUR']],
      [[0.05, 'Verbleibende Restforderung brutto'], [0.8, '4.522,62 EUR']],
    ]);
    expect(value(lines, 'total_amount')).toBe(4522.62);
  });
  it('reads a Romanian `Nr. facturii`', () => {
    const lines = page([
      [[0.05, 'FACTURA'], [0.65, 'Nr. facturii: 54']],
      [[0.05, 'Furnizor: Exemplu SRL'], [0.65, 'Data facturii: 2024-10-31']],
      [[0.05, 'Total de plata'], [0.8, '1.190,00 RON']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('54');
  });
  it('reads a French `Facture Reference:`', () => {
    const lines = page([
      [[0.15, 'Facture Reference: REF-1736996951745']],
      [[0.15, 'Date: 16/01/2025']],
      [[0.15, 'Total: 20000.00 MAD']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('REF-1736996951745');
  });
});

describe('a title printed letter-spaced', () => {
  it('joins `I N V O I C E` into one word', () => {
    const [line] = prepareLines(page([[[0.1, 'LARC'], [0.3, 'I N V O I C E #1']]]));
    expect(line.text).toBe('LARC INVOICE #1');
  });
  it('joins letters read as one text item with spaces inside', () => {
    const lines = page([[[0.1, 'x']]]);
    lines[0].words = [{ text: 'R E C H N U N G', bbox: [0.1, 0.05, 0.4, 0.064], confidence: 1 }, { text: 'Nr.', bbox: [0.42, 0.05, 0.46, 0.064], confidence: 1 }];
    lines[0].text = 'R E C H N U N G Nr.';
    expect(prepareLines(lines)[0].text).toBe('RECHNUNG Nr.');
  });
  it('leaves short runs of capitals alone (`A B C`, a class `D M`)', () => {
    expect(prepareLines(page([[[0.1, 'Classes A B C']]]))[0].text).toBe('Classes A B C');
  });
  it('classifies a letter-spaced `I N V O I C E` with a paid line as an invoice', () => {
    const lines = page([
      [[0.1, 'LARC'], [0.3, 'I N V O I C E #1']],
      [[0.7, 'May 7, 2020']],
      [[0.1, 'Bill to: Example University']],
      [[0.1, 'Description'], [0.6, 'Hours'], [0.8, 'Amount']],
      [[0.1, 'Research consulting'], [0.6, '5.5'], [0.8, '$550.00']],
      [[0.7, 'Total $550.00']],
      [[0.7, 'Paid $0.00']],
      [[0.7, 'Balance Due $550.00']],
    ]);
    expect(classifyText(lines).candidates[0].type).toBe('invoice');
    expect(value(lines, 'total_amount')).toBe(550);
  });
});

describe("a document's decimal separator", () => {
  it('is not taken from the dots of its dates (`26.12.2024`): a Swedish total in whole kronor', () => {
    const lines = page([
      [[0.05, 'Faktura']],
      [[0.05, 'Fakturanummer Kundnummer Fakturadatum Förfallodag']],
      [[0.05, '12345 Client_1 26.12.2024 25.01.2025']],
      [[0.05, 'Arbete 166 h'], [0.6, '600 kr'], [0.8, '99 600 kr']],
      [[0.6, 'Moms totalt'], [0.8, '24 900 kr']],
      [[0.6, 'Summa att betala'], [0.8, '124 500 kr']],
    ]);
    expect(value(lines, 'total_amount')).toBe(124500);
  });
});

describe('a number label in an address', () => {
  it("takes `Nr. 1023, Maputo` for a house number and reads the number under the header row's `Número:`", () => {
    const lines = page([
      [[0.1, 'FATURA']],
      [[0.33, 'Nr. 1023, Maputo rui@example.com']],
      [[0.1, 'Número:'], [0.35, 'Data:'], [0.55, 'Vencimento:']],
      [[0.1, 'FAT309203'], [0.35, '26/11/2025'], [0.55, '26/12/2025']],
      [[0.6, 'Total a pagar'], [0.8, '1.250,00 MZN']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('FAT309203');
  });
});

describe('a Japanese invoice (請求書)', () => {
  it('is an invoice; its number, date of issue and total with tax are read by their labels', () => {
    const lines = page([
      [[0.05, '御請求書（見本）']],
      [[0.05, '100-1234 東京都港区新橋１−２−３'], [0.7, '請求書番号: 20240210-SAMPLE']],
      [[0.05, 'hi@example.com'], [0.7, '請求書発行日: 2024/02/10']],
      [[0.05, '請求先'], [0.7, '概要']],
      [[0.75, '金額: 500000 JPY']],
      [[0.75, '消費税 (JCT): 50000 JPY']],
      [[0.75, '合計 (税込): 550000 JPY']],
    ]);
    expect(classifyText(lines).candidates[0].type).toBe('invoice');
    expect(value(lines, 'invoice_number')).toBe('20240210-SAMPLE');
    expect(value(lines, 'issue_date')).toBe('2024-02-10');
    expect(value(lines, 'total_amount')).toBe(550000);
  });
});

describe("an items table's Date column", () => {
  it("gives no issue date: the invoice's own date, unlabelled at the top, is read", () => {
    const lines = page([
      [[0.12, 'LARC'], [0.3, 'I N V O I C E #1']],
      [[0.73, 'May 7, 2020']],
      [[0.14, 'Client Some Client'], [0.6, 'Payable To Lowland Research']],
      [[0.2, 'due May 15, 2020']],
      [[0.12, 'Date'], [0.25, 'Project Description'], [0.6, 'Hours'], [0.7, 'Rate'], [0.85, 'Amount']],
      [[0.1, '2020/04/01'], [0.25, 'Some individual activity'], [0.6, '1'], [0.7, '$50'], [0.85, '$50.00']],
      [[0.78, 'Total $550.00']],
    ]);
    expect(value(lines, 'issue_date')).toBe('2020-05-07');
  });
});

describe('a currency code glued to its amount', () => {
  it('reads `Total: MAD20000.0` as a total of 20000', () => {
    const lines = page([
      [[0.16, 'Facture Reference: REF-1736996951745']],
      [[0.16, 'Client: Exemple SARL']],
      [[0.16, 'Total: MAD20000.0']],
    ]);
    expect(value(lines, 'total_amount')).toBe(20000);
    expect(prepareLines(lines)[2].text).toBe('Total: MAD 20000.0');
  });
  it('leaves a currency-like code before a number with no separator whole (`PEN2024001`, a reference)', () => {
    expect(prepareLines(page([[[0.1, 'Ref PEN2024001 EUR12']]]))[0].text).toBe('Ref PEN2024001 EUR12');
  });
});

describe("a Guatemalan FEL invoice (Documento Tributario Electrónico)", () => {
  it('is an invoice; its date is the emission date and time, its total the last amount of `Totales`', () => {
    const lines = page([
      [[0.84, 'Régimen FEL']],
      [[0.44, 'FACTURA']],
      [[0.69, 'Documento Tributario Electrónico']],
      [[0.06, 'Emisor'], [0.6, 'Serie: 36fd6556dsf8dsf645']],
      [[0.06, 'INTELAF S.A.'], [0.6, 'Número: 3366445588']],
      [[0.56, 'Número de Autorización: 25B2A7F5-E9E8-503E-9EEA-']],
      [[0.06, 'Telefono: 11223344'], [0.5, 'Fecha y hora emisión: 01/01/2024 20:20:20']],
      [[0.06, 'www.example.com'], [0.5, 'Fecha y hora certificación: 01/01/2024 20:20:20']],
      [[0.06, 'Receptor']],
      [[0.06, 'NIT: 12345678-9']],
      [[0.07, 'No Cantidad Descripción'], [0.55, 'IVA (Q)'], [0.7, 'Descuento (Q)'], [0.85, 'Total (Q)']],
      [[0.07, '1 2 Portátil 15.6'], [0.55, '954.0'], [0.85, '12680']],
      [[0.32, 'Totales'], [0.55, '954.00'], [0.85, '12680.00']],
    ]);
    expect(classifyText(lines).candidates[0].type).toMatch(/invoice/);
    expect(value(lines, 'issue_date')).toBe('2024-01-01');
    expect(value(lines, 'total_amount')).toBe(12680);
  });
});
