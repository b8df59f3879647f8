/**
 * Invoices and receipts read by layout (issue #28), on small hand-built TextLines with word boxes: the seller's VAT
 * id by party blocks and national formats, the invoice number by label-value layout in several languages (a value
 * is never a label), amounts parsed by locale without scale errors, a receipt's paid total with tips and rounding,
 * a misread year repaired, receipt vs invoice from structure, the issue date by label and in the document's order.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText, isInvoiceType } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields, repairYear } from '../../../server/src/providers/local/text/extract.ts';
import { findTaxIds } from '../../../server/src/providers/local/text/ids.ts';
import { findAmounts, prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { isTill, receiptTotal, tillLayout } from '../../../server/src/providers/local/text/receipt.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { left, page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const receipt = getEntry('payment_receipt')!;
const read = (lines: TextLine[], entry = invoice) => extractFields(entry, lines, []);
const value = (lines: TextLine[], field: string, entry = invoice) => read(lines, entry)[field]?.value ?? null;

describe('tax ids by national format', () => {
  it('finds a Polish NIP and an Italian partita IVA after their labels, checked by their check digits', () => {
    expect(findTaxIds('NIP: 526-587-76-35').map((m) => [m.kind, m.value])).toEqual([['pl_nip', '5265877635']]);
    expect(findTaxIds('NIP: 5265877636')).toEqual([]); // wrong check digit, no label-only fallback for bare digits
    expect(findTaxIds('P.IVA 00743110157').map((m) => [m.kind, m.value])).toEqual([['it_piva', '00743110157']]);
  });
  it('reads the EU OSS number and EU VAT numbers with their prefix', () => {
    expect(findTaxIds('EU OSS VAT EU372041333').map((m) => m.value)).toEqual(['EU372041333']);
    expect(findTaxIds('USt-IdNr: DE136695976').map((m) => [m.kind, m.value])).toEqual([['eu_vat', 'DE136695976']]);
  });
  it('keeps a labelled VAT-shaped token whose check fails as unchecked, never an unlabelled one', () => {
    const [m] = findTaxIds('UID: ATU00000000');
    expect(m).toMatchObject({ value: 'ATU00000000', kind: 'labelled', checked: false, country: 'AUT' });
    expect(findTaxIds('Ref ATU00000000')).toEqual([]);
    expect(findTaxIds('VAT No GB123456789')[0]).toMatchObject({ value: 'GB123456789', checked: false });
  });
  it('checks British VAT numbers (HMRC mod 97) and keeps a labelled number printed without its prefix as unchecked', () => {
    expect(findTaxIds('VAT Reg No: GB 980 7806 84').map((m) => [m.kind, m.value])).toEqual([['gb_vat', 'GB980780684']]);
    expect(findTaxIds('VAT Registration No. 123 4567 89')[0]).toMatchObject({ value: '123456789', checked: false });
    expect(findTaxIds('VAT 20% 1234.56')).toEqual([]);
    expect(findTaxIds('Total VAT 123456789.00')).toEqual([]);
  });
});

describe("the seller's VAT id", () => {
  it('is the id outside the "Bill to" column, not the customer id printed higher in it', () => {
    const lines = page([
      [[0.05, 'Invoice']],
      [[0.05, 'Invoice number 2E9958F3-0010']],
      [[0.05, 'OpenAI, LLC'], [0.45, 'Bill to']],
      [[0.05, '548 Market Street'], [0.45, '3Qcode Sp. z o.o.']],
      [[0.05, 'San Francisco, California'], [0.45, 'PL VAT PL5213938224']],
      [[0.05, 'EU OSS VAT EU372041333']],
    ]);
    const f = read(lines);
    expect(f.issuer_tax_id?.value).toBe('EU372041333');
    expect(f.customer_tax_id?.value).toBe('PL5213938224');
  });
  it('follows the headings of two columns (Sprzedawca / Nabywca) on one line', () => {
    const lines = page([
      [[0.6, 'Numer Faktury:']],
      [[0.6, 'FA/123/2025']],
      [[0.05, 'Sprzedawca'], [0.55, 'Nabywca']],
      [[0.05, 'NIP: 5265877635'], [0.55, 'NIP: 6808208874']],
      [[0.05, 'Nazwa: Firma A'], [0.55, 'Nazwa: Firma B']],
    ]);
    const f = read(lines);
    expect(f.issuer_tax_id?.value).toBe('5265877635');
    expect(f.customer_tax_id?.value).toBe('6808208874');
    expect(f.invoice_number?.value).toBe('FA/123/2025');
  });
  it("takes a VAT-shaped token alone in the issuer's column as unchecked, with a confidence that keeps it unsure", () => {
    const lines = page([
      [[0.45, 'Invoice']],
      [[0.4, 'Invoice ID: 2024-001']],
      [[0.1, 'Recipient'], [0.55, 'Biller']],
      [[0.1, 'John Doe'], [0.55, 'ACME Corporation']],
      [[0.1, 'London W1U 6TJ'], [0.55, 'London NW8 0AE']],
      [[0.1, 'GB987654321'], [0.55, 'GB123456789']],
    ]);
    const f = read(lines);
    expect(f.issuer_tax_id?.value).toBe('GB123456789');
    expect(f.issuer_tax_id!.confidence).toBeLessThan(0.8);
  });
  it("a lone customer heading's column stops at half the page: the seller's id on the other half stays the seller's", () => {
    const lines = page([
      [[0.05, 'INVOICE']],
      [[0.05, 'Bill to:']],
      [[0.05, 'Acme Ltd'], [0.6, 'Seller GmbH']],
      [[0.05, 'VAT NL810433941B01'], [0.6, 'USt-IdNr: DE136695976']],
      [[0.05, 'Invoice No: 2024-5']],
    ]);
    const f = read(lines);
    expect(f.issuer_tax_id?.value).toBe('DE136695976');
    expect(f.customer_tax_id?.value).toBe('NL810433941B01');
  });
  it('prefers a checksum-valid id to an unchecked one', () => {
    const lines = left(['Rechnung', 'UID: ATU00000000', 'USt-IdNr: DE136695976', 'Rechnungsnummer: 2024-023']);
    expect(value(lines, 'issuer_tax_id')).toBe('DE136695976');
  });
});

describe('the invoice number by label-value layout', () => {
  it('reads the value right of the label in seven languages', () => {
    const cases: Array<[string, string]> = [
      ['Invoice No.: INV-2024-001', 'INV-2024-001'],
      ['Nº factura: F2024/0042', 'F2024/0042'],
      ['Facture n° 2024-17', '2024-17'],
      ['Rechnungsnummer: RE-5531', 'RE-5531'],
      ['Fatura n.º FT 2024/12', 'FT 2024/12'],
      ['Numer faktury: FV/7/2025', 'FV/7/2025'],
      ['Fattura n. 118/A', '118/A'],
    ];
    for (const [text, want] of cases) {
      expect(value(left(['INVOICE', text, 'Total 100.00']), 'invoice_number'), text).toBe(want);
    }
  });
  it('reads the value below its label in the same column, a `#` printed with it kept', () => {
    const lines = page([[[0.1, 'Invoice']], [[0.1, 'Invoice Number:']], [[0.1, '#1']], [[0.1, 'Total Due']], [[0.1, '65.33']]]);
    expect(value(lines, 'invoice_number')).toBe('#1');
  });
  it('reads the id below a title word alone (FACTURA)', () => {
    const lines = page([[[0.1, 'FACTURA']], [[0.1, 'INV/2024/00005']], [[0.1, 'TECNATIVA']], [[0.6, 'Saldo adeudado 1721.00']]]);
    expect(value(lines, 'invoice_number', getEntry('es_invoice')!)).toBe('INV/2024/00005');
  });
  it('takes a bare number label (Referencia) only when nothing more specific exists and the line is about nothing else', () => {
    const ref = page([[[0.7, 'FACTURA']], [[0.7, 'Referencia: #1721']], [[0.7, 'Fecha: 25/12/2023']], [[0.6, 'Total £774.70']]]);
    expect(value(ref, 'invoice_number')).toBe('#1721');
    const phone = page([[[0.7, 'INVOICE']], [[0.1, 'Tel. No. 55512345']], [[0.1, 'Account No. 12345678']], [[0.6, 'Total 10.00']]]);
    expect(value(phone, 'invoice_number')).toBeNull();
  });
  it('leaves out a full stop that ends the sentence', () => {
    expect(value(left(['Invoice', 'Please quote invoice no. 2024-77. Thank you', 'Total 10.00']), 'invoice_number')).toBe('2024-77');
  });
  it('never takes a label for the value', () => {
    const lines = page([[[0.1, 'Invoice No.:'], [0.5, 'Date:']], [[0.1, 'Invoice Date'], [0.5, '2024-01-02']]]);
    expect(value(lines, 'invoice_number')).toBeNull();
  });
});

describe('amounts by locale', () => {
  const one = (s: string, comma: boolean) => findAmounts(s, comma).filter((a) => !a.percent).map((a) => a.value);
  it('parses 40.39, 40,39, 1.234,56, 1 234,56, 1,234.56 and currency signs before or after, never at another scale', () => {
    expect(one('40.39', false)).toEqual([40.39]);
    expect(one('40,39', true)).toEqual([40.39]);
    expect(one('40,39', false)).toEqual([40.39]);
    expect(one('40.39', true)).toEqual([40.39]);
    expect(one('1.234,56', true)).toEqual([1234.56]);
    expect(one('1 234,56 €', true)).toEqual([1234.56]);
    expect(one('kwota: 33 569,50 zł', true)).toEqual([33569.5]);
    expect(one('1,234.56', false)).toEqual([1234.56]);
    expect(one('$1,234.56', false)).toEqual([1234.56]);
    expect(one('€ 12,50', true)).toEqual([12.5]);
  });
  it('does not glue a quantity to a price in a point-decimal document', () => {
    expect(one('Design Sprint 2 400.00 € 800.00 €', false)).toEqual([2, 400, 800]);
  });
  it('repairs a decimal point lost in a tax amount when only the hundredth closes base + tax = total', () => {
    const lines = left(['INVOICE', 'Invoice No: A-1', 'Subtotal 100.00', 'VAT 21% 2100', 'Total 121.00']);
    const f = read(lines);
    expect(f.tax_amount?.value).toBe(21);
    expect(f.total_amount?.value).toBe(121);
  });
  it('reads an amount below its label when its currency code stands in the cell before it (a QR-bill)', () => {
    const lines = page([[[0.05, 'QR-bill for invoice INV/2020/0005']], [[0.03, 'Currency'], [0.1, 'Amount']], [[0.03, 'CHF'], [0.1, '1.00']]]);
    expect(value(lines, 'total_amount')).toBe(1);
    expect(value(lines, 'invoice_number')).toBe('INV/2020/0005');
  });
  it('reads a Polish total after its label, space-grouped', () => {
    expect(value(left(['Faktura VAT', 'Numer faktury: FV/1/2025', 'Kwota należności ogółem: 33 569,50 PLN']), 'total_amount')).toBe(33569.5);
  });
});

describe('receipts: the amount paid', () => {
  const till = (rows: string[]) => prepareLines(page(rows.map((r) => [[0.1, r]]), { step: 0.02 }));
  const totalOf = (rows: string[]) => {
    const lines = till(rows);
    return receiptTotal(lines, lines.map((l) => findAmounts(l.fold, false)))?.value ?? null;
  };
  it('counts a tip into the total printed after it', () => {
    expect(totalOf(['CAFE LUNA', 'Latte 4.50', 'Bagel 3.50', 'Amount due 8.00', 'Tip 1.60', 'Total 9.60', 'VISA **** 1234'])).toBe(9.6);
    expect(totalOf(['BAR CENTRAL', 'Cerveza 3.00', 'Tapas 9.00', 'Total a pagar 12.00', 'Propina 2.00', 'TOTAL 14.00'])).toBe(14);
  });
  it('keeps the printed total when no total follows the tip (a blank tip line)', () => {
    expect(totalOf(['DINER', 'Burger 12.00', 'Fries 3.00', 'Total 15.00', 'Tip 0.00'])).toBe(15);
  });
  it('adds a rounding adjustment printed after the total when no total follows it', () => {
    expect(totalOf(['SHOP', 'ITEM A 30.00', 'ITEM B 34.13', 'Total Sales (Incl GST 6%) 64.13', 'Rounding Adjustment 0.02', 'CASH 100.00'])).toBe(64.15);
    expect(totalOf(['SHOP', 'ITEM A 50.00', 'Total 101.76', 'Rounding -0.01', 'Total Rounded 101.75', 'CASH 110.00', 'CHANGE 8.25'])).toBe(101.75);
  });
  it('repairs a misread year when one confusable digit gives the only recent year', () => {
    expect(repairYear(2078, 2027)).toBe(2018);
    expect(repairYear(2718, 2027)).toBe(2018);
    expect(repairYear(2076, 2027)).toBeNull(); // 2016 and 2026 are both one digit away: no guess
    const rows = ['KHE TRADING', 'Doc No CS0001 Date: 22/03/2078 10:18', 'ITEM 95.00', 'TOTAL 101.75', 'CASH 104.75', 'CHANGE 3.00', 'THANK YOU'];
    const f = read(page(rows.map((r) => [[0.1, r]])), receipt);
    expect(f.issue_date?.value ?? f.payment_date?.value).toBe('2018-03-22');
  });
});

describe('receipt or invoice, from structure', () => {
  it('a till layout in lower case, with a time and a price column, is a receipt', () => {
    const rows = page(
      [
        [[0.1, 'Corner Deli']], [[0.1, '12 Main St']], [[0.1, '03/14/2024'], [0.5, '12:41']],
        [[0.1, 'coffee'], [0.62, '2.50']], [[0.1, 'muffin'], [0.62, '3.25']], [[0.1, 'juice'], [0.62, '4.00']],
        [[0.1, 'subtotal'], [0.62, '9.75']], [[0.1, 'tax'], [0.62, '0.78']], [[0.1, 'total'], [0.6, '10.53']],
        [[0.1, 'visa'], [0.6, '10.53']],
      ],
      { step: 0.02 },
    );
    const layout = tillLayout(prepareLines(rows));
    expect(isTill(layout)).toBe(true);
    expect(classifyText(rows).candidates[0].type).toBe('payment_receipt');
  });
  it('an invoice with a buyer block, a number and a due date is an invoice, not a receipt', () => {
    const rows = left(['INVOICE', 'Invoice No: 2024-118', 'Bill to: Acme Ltd', 'Due date: 2024-05-01', 'Description Qty Price Amount', 'Consulting 10 50.00 500.00', 'Subtotal 500.00', 'VAT 20% 100.00', 'Total 600.00']);
    expect(isTill(tillLayout(prepareLines(rows)))).toBe(false);
    expect(isInvoiceType(classifyText(rows).candidates[0].type)).toBe(true);
  });
  it('a Spanish till receipt is a payment receipt; the tique type only when it prints "factura simplificada"', () => {
    const rows = ['CAFETERIA SOL', 'CIF B12345674', 'C/ Mayor 1, Madrid', 'Mesa 4', '1 Cafe con leche 1,80', '1 Tostada 2,50', 'TOTAL 4,30', 'Efectivo 5,00', 'Cambio 0,70', '14/03/2024 09:15', 'Gracias por su visita'];
    expect(classifyText(left(rows, { step: 0.02 })).candidates[0].type).toBe('payment_receipt');
    const simplified = [rows[0], 'FACTURA SIMPLIFICADA', ...rows.slice(1)];
    expect(classifyText(left(simplified, { step: 0.02 })).candidates[0].type).toBe('es_simplified_invoice');
  });
  it('a restaurant receipt with a tip is a receipt, its total the one after the tip', () => {
    const rows = ['THE GOLDEN FORK', '123 Main Street', 'Server: Anna Table 12', 'Check #4512', '03/14/2024 7:42 PM', '1 Burger 14.50', '1 Salad 11.00', 'Subtotal 25.50', 'Tax 2.17', 'Total 27.67', 'Tip 5.00', 'Total 32.67', 'VISA XXXX1234', 'Thank you!'];
    const lines = left(rows, { step: 0.02 });
    const c = classifyText(lines);
    expect(c.candidates[0].type).toBe('payment_receipt');
    const f = read(lines, receipt);
    expect(f.amount?.value).toBe(32.67);
    expect(f.payment_date?.value).toBe('2024-03-14');
  });
  it('a Polish invoice (Faktura) is an invoice in Polish', () => {
    const c = classifyText(left(['Faktura VAT', 'Numer faktury: FV/1/2025', 'Data wystawienia: 31.10.2025', 'Sprzedawca', 'NIP: 5265877635', 'Nabywca', 'Kwota należności ogółem: 1 230,00 PLN']));
    expect(isInvoiceType(c.candidates[0].type)).toBe(true);
    expect(c.language?.code).toBe('pl');
  });
});

describe('dates', () => {
  it('prefers the issue date to due and delivery dates by label, whatever comes first', () => {
    const lines = left(['INVOICE', 'Due date: 2024-04-30', 'Delivery date: 2024-03-28', 'Invoice date: 2024-03-31', 'Total 10.00']);
    expect(value(lines, 'issue_date')).toBe('2024-03-31');
    expect(value(lines, 'due_date')).toBe('2024-04-30');
  });
  it('reads a labelled date further on its line (Data wystawienia, z zastrzeżeniem ...: 31.10.2025)', () => {
    const lines = left(['Faktura', 'Numer faktury: FV/1/2025', 'Data wystawienia, z zastrzeżeniem art. 106na ust. 1 ustawy: 31.10.2025', 'Data dostawy:', '03.10.2025']);
    expect(value(lines, 'issue_date')).toBe('2025-10-31');
  });
  it('reads Polish month names (nominative and genitive, ł and ś folded)', () => {
    expect(value(left(['Faktura', 'Numer faktury: FV/2/2025', 'Data wystawienia: 31 października 2025', 'Razem 10,00 zł']), 'issue_date')).toBe('2025-10-31');
  });
  it('reads day and month in the order of the document language and country', () => {
    const fr = left(['Facture', 'Facture n° 2024-17', 'Date de facture : 03/04/2024', 'Total TTC 120,00 €']);
    expect(value(fr, 'issue_date')).toBe('2024-04-03');
    const us = extractFields(invoice, left(['Invoice', 'Invoice No: 77', 'Invoice date: 03/04/2024', 'Total $120.00']), [], { language: 'en', country: 'USA' });
    expect(us.issue_date?.value).toBe('2024-03-04');
  });
});

/** A line as PP-OCR gives it: words at their x with one band `y0..y1`, boxes grown around the text (taller than it). */
const ocrLine = (y0: number, y1: number, words: Array<[number, string]>): TextLine => {
  const ws = words.map(([x, text]) => ({ text, bbox: [x, y0, x + 0.0075 * text.length, y1] as [number, number, number, number], confidence: 0.95 }));
  return { page: 1, text: ws.map((w) => w.text).join(' '), bbox: [ws[0].bbox[0], y0, ws[ws.length - 1].bbox[2], y1], words: ws, confidence: 0.95 };
};

describe('scans read by PP-OCR: grown boxes, values set apart from their labels', () => {
  it('takes the row under a header row whose grown boxes overlap it a little as the line below (Dutch header-row values)', () => {
    const lines = [
      ocrLine(0.307, 0.331, [[0.085, 'Kopie'], [0.13, 'factuur']]),
      ocrLine(0.329, 0.353, [[0.084, 'Klant'], [0.248, 'Order'], [0.529, 'Factuur'], [0.585, 'datum'], [0.722, 'Factuur'], [0.836, 'Vervaldatum']]),
      ocrLine(0.3437, 0.367, [[0.082, 'SCONL0303006280999'], [0.247, 'SCONL000000444'], [0.565, '8-9-2022'], [0.683, 'VF1005193039'], [0.854, '22-9-2022']]),
      ocrLine(0.437, 0.46, [[0.079, 'Prijzen'], [0.13, 'inclusief'], [0.2, 'BTW'], [0.55, 'Factuur'], [0.61, 'totaal'], [0.67, 'EUR'], [0.86, '49,99']]),
    ];
    const f = read(lines);
    expect(f.invoice_number?.value).toBe('VF1005193039');
    expect(f.issue_date?.value).toBe('2022-09-08');
    expect(f.due_date?.value).toBe('2022-09-22');
  });
  it('reads a value boxed as a line of its own beside the label that ends its line, set a little lower (Beleg-Nr)', () => {
    const lines = [
      ocrLine(0.0718, 0.0888, [[0.08, 'Lieferant'], [0.36, 'Kaufer']]),
      ocrLine(0.0938, 0.1187, [[0.079, 'MUSTERLIEFERANT'], [0.2, 'GMBH'], [0.36, 'MUSTER-KUNDE'], [0.46, 'GMBH'], [0.62, 'Beleg-Nr']]),
      ocrLine(0.1051, 0.1198, [[0.769, '：R87654321012345']]),
      ocrLine(0.1148, 0.1345, [[0.078, 'BAHNHOFSTRASSE'], [0.19, '99'], [0.62, 'Beleg-Datum'], [0.71, '：06.08.2013']]),
      ocrLine(0.1594, 0.1792, [[0.078, 'USt-IdNr'], [0.14, '：DE123456789']]),
    ];
    const f = read(lines);
    expect(f.invoice_number?.value).toBe('R87654321012345');
    expect(f.issue_date?.value).toBe('2013-08-06');
    // `Kaufer` (buyer) beside `Lieferant` (supplier) is the next label, not the supplier's name.
    expect(f.issuer_name?.value).toBe('MUSTERLIEFERANT GMBH');
  });
  it('never takes a party label as a name, nor the end of a hyphenated column title as a party label', () => {
    const roles = left(['Rechnung', 'Rechnungsempfanger Warenempfanger', 'Afleveradres', 'Summe 10,00 EUR']);
    expect(value(roles, 'customer_name')).toBeNull();
    const header = [
      ocrLine(0.3188, 0.342, [[0.077, 'GTIN'], [0.2, 'Art-Nr-Lieferant'], [0.45, 'Menge']]),
      ocrLine(0.3301, 0.3499, [[0.075, 'Art-Nr-Kunde'], [0.19, 'Artikelbezeichnung']]),
      ocrLine(0.3499, 0.3759, [[0.076, 'Wichtige'], [0.19, 'Information:'], [0.3, 'Bei'], [0.33, 'Bestellungen']]),
    ];
    expect(value(header, 'issuer_name')).toBeNull();
  });
});

describe('a totals header row over its amounts (TOTAL HT | TOTAL TVA | TOTAL TTC)', () => {
  // A French invoice scanned: a left column of payment terms runs beside the totals, so the amounts are not the line
  // right below the header; the title alone was weak beside the company ids (SIREN) of a Kbis extract.
  const lines = [
    ocrLine(0.0418, 0.0667, [[0.108, 'LOGO'], [0.2, 'Vendeur'], [0.6, 'FACTURE'], [0.67, 'N°:'], [0.7, 'F20180027']]),
    ocrLine(0.0622, 0.0814, [[0.508, 'Date:'], [0.56, '31/12/2018']]),
    ocrLine(0.1594, 0.1803, [[0.09, 'SIREN/SIRET:'], [0.2, '12345678900014'], [0.5, 'SIREN/SIRET:'], [0.6, '98765432100029']]),
    ocrLine(0.7761, 0.801, [[0.08, 'Toutre'], [0.5, 'TOTALHT'], [0.64, 'TOTAL'], [0.69, 'TVA'], [0.78, 'TOTAL'], [0.83, 'TTC']]),
    ocrLine(0.7863, 0.8061, [[0.08, 'detroisfo'], [0.2, 'ifi']]),
    ocrLine(0.7982, 0.8123, [[0.08, 'paiement:'], [0.13, '40E']]),
    ocrLine(0.8061, 0.8248, [[0.078, 'Lesreglemntreu'], [0.52, '100,00'], [0.66, '10,00'], [0.8, '110,00']]),
  ];
  it('is an invoice\'s cue, its amounts adding up', () => {
    const c = classifyText(lines).candidates[0];
    expect(c.type).toBe('invoice');
    expect(c.confidence).toBeGreaterThanOrEqual(0.5);
  });
  it('gives the total under its label, the next column\'s `TOTAL TVA` no reason to exclude it', () => {
    const f = read(lines);
    expect(f.total_amount?.value).toBe(110);
    expect(f.tax_amount?.value).toBe(10);
  });
});

describe('party headings that a photo split onto two lines', () => {
  it('bound each other\'s columns: the biller\'s bare VAT id is the issuer\'s, the recipient\'s is not', () => {
    const lines = [
      ocrLine(0.0865, 0.1109, [[0.4269, 'Invoice']]),
      ocrLine(0.1378, 0.1631, [[0.4127, 'Invoice'], [0.48, 'ID:'], [0.51, 'A-17']]),
      ocrLine(0.2219, 0.2406, [[0.5205, 'Biller']]),
      ocrLine(0.2316, 0.2504, [[0.1646, 'Recipient']]),
      ocrLine(0.2439, 0.2626, [[0.5164, 'ACME'], [0.56, 'Corporation']]),
      ocrLine(0.2553, 0.2781, [[0.1616, 'John'], [0.2, 'Doe'], [0.52, 'United'], [0.58, 'Kingdom']]),
      ocrLine(0.3002, 0.3254, [[0.1638, 'Baker'], [0.21, 'Street'], [0.52, 'GB123456789']]),
      ocrLine(0.3132, 0.3344, [[0.1668, 'GB987654321']]),
      ocrLine(0.5131, 0.5343, [[0.7237, 'Total:'], [0.77, '1.19']]),
    ];
    expect(value(lines, 'issuer_tax_id')).toBe('GB123456789');
  });
});

describe('a page photographed at a slant', () => {
  /** A line whose words climb to the right (each word's own box 0.017 high, the line's upright box much higher). */
  const slanted = (y0: number, words: Array<[number, string]>, slope = -0.045): TextLine => {
    const ws = words.map(([x, text]) => {
      const y = y0 + slope * x;
      return { text, bbox: [x, y, x + 0.0075 * text.length, y + 0.017] as [number, number, number, number], confidence: 0.95 };
    });
    const bbox: [number, number, number, number] = [ws[0].bbox[0], Math.min(...ws.map((w) => w.bbox[1])), ws.at(-1)!.bbox[2], Math.max(...ws.map((w) => w.bbox[3]))];
    return { page: 1, text: ws.map((w) => w.text).join(' '), bbox, words: ws, confidence: 0.95 };
  };
  it('still finds the values row under its header row, and the header row\'s cells, though their upright boxes overlap', () => {
    const lines = [
      slanted(0.3, [[0.13, 'Kopiefactuur']]),
      slanted(0.362, [[0.131, 'Klant'], [0.273, 'Order'], [0.516, 'Factuur'], [0.562, 'datum'], [0.68, 'Factuur'], [0.78, 'Vervaldatum']]),
      slanted(0.383, [[0.128, 'SCONL0303006280999'], [0.269, 'SCONL00000444'], [0.55, '8-9-2022'], [0.647, 'VF1005193039'], [0.793, '22-9-2022']]),
      slanted(0.46, [[0.654, 'Factuur'], [0.697, 'totaal'], [0.733, 'EUR'], [0.821, '49,99']]),
    ];
    const f = read(lines);
    expect(f.invoice_number?.value).toBe('VF1005193039');
    expect(f.issue_date?.value).toBe('2022-09-08');
    expect(f.due_date?.value).toBe('2022-09-22');
  });
});

describe('a Chinese VAT invoice whose buyer label runs down the margin', () => {
  it('takes the id beside 买 (on the line below it, after a photo\'s rows were set along their slant) for the buyer\'s', () => {
    const lines = [
      ocrLine(0.0494, 0.1143, [[0.5496, '普通发票'], [0.7, '发票代码：042001700112']]),
      ocrLine(0.0686, 0.1216, [[0.7, '发票号码：07007198']]),
      ocrLine(0.1197, 0.1682, [[0.65, '开票日期：2018年03月23日']]),
      ocrLine(0.2139, 0.2504, [[0.0809, '名'], [0.1, '称：武汉市车城物流有限公司']]),
      ocrLine(0.2367, 0.2614, [[0.5762, '密']]),
      ocrLine(0.2496, 0.2879, [[0.0815, '纳税人'], [0.13, '识别'], [0.16, '号：914201007483062457']]),
      ocrLine(0.2697, 0.3007, [[0.0496, '买'], [0.58, '码']]),
      ocrLine(0.3108, 0.3419, [[0.0491, '方'], [0.58, '区']]),
      ocrLine(0.6974, 0.7303, [[0.0885, '价税合计（大写）'], [0.6, '（小写）'], [0.8, '￥294.82']]),
      ocrLine(0.745, 0.786, [[0.0809, '名'], [0.1, '称：湖北随岳南高速公路有限公司']]),
      ocrLine(0.7633, 0.7989, [[0.0496, '销'], [0.58, '备']]),
      ocrLine(0.778, 0.8189, [[0.0819, '纳税人识别号：91420000753416406R']]),
    ];
    const f = read(lines);
    expect(f.issuer_tax_id?.value).toBe('91420000753416406R');
    expect(f.customer_tax_id?.value).toBe('914201007483062457');
  });
});

describe('a totals table with a row per tax rate', () => {
  it('takes the row the others add up to under `Endbetrag`, not the first row', () => {
    const lines = page([
      [[0.08, 'Rechnung'], [0.6, 'Beleg-Nr: R87654321012345']],
      [[0.08, 'Warenwert'], [0.2, 'Zu-/Abschlag'], [0.4, 'Nettobetrag'], [0.55, 'MwSt-Betrag'], [0.7, 'MwSt-%'], [0.82, 'Endbetrag']],
      [[0.08, '326,50'], [0.2, '-8,10'], [0.4, '321,40'], [0.55, '61,07'], [0.7, '19,0'], [0.82, '382,47']],
      [[0.08, '130,70'], [0.2, '-3,11'], [0.4, '127,59'], [0.55, '8,93'], [0.7, '7,0'], [0.82, '136,52']],
      [[0.08, '457,20'], [0.2, '-11,21'], [0.4, '448,99'], [0.55, '70,00'], [0.7, 'EUR'], [0.82, '518,99']],
    ]);
    expect(value(lines, 'total_amount')).toBe(518.99);
  });
});

describe('an invoice-number label with a letter lost by OCR', () => {
  it('reads `Invice Number.`, `Invoce No.` and `Inoice #` as the label, never a word that only looks like it', () => {
    expect(value(left(['Amazon Web Services', 'Invice Number. 42183017', 'Total $4.11']), 'invoice_number')).toBe('42183017');
    expect(value(left(['ACME Ltd', 'Invoce No. A-1207', 'Total $4.11']), 'invoice_number')).toBe('A-1207');
    expect(value(left(['ACME Ltd', 'Inoice # 5531', 'Total $4.11']), 'invoice_number')).toBe('5531');
  });
});
