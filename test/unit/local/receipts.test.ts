/**
 * Till receipts and their label-value rules, on the OCR output of real tune-split scans (fixtures written by
 * `node bench/receipts-capture.ts --fixtures ...`, expected values from documents-dev/ground-truth.json): a till
 * layout is a receipt type, not an invoice; the grand total comes from the TOTAL-like line (not a subtotal, a
 * "supplies" line, a tax or a tender line), proven by cash - change; decimal points lost by OCR are repaired only
 * on labelled till lines; dates come in the document's order; a label is never a value; several receipts side by
 * side are reported as several documents, the first read; invoice rules: no value under a table header row, "Saldo
 * adeudado" is a total, an id that starts with a date is an id.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findAmounts, prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { isTill, receiptTotal, repairedAmounts, splitDocuments, tillLayout } from '../../../server/src/providers/local/text/receipt.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures/receipts');
const TRUTH = JSON.parse(fs.readFileSync(path.resolve('../shared/testdata/documents-dev/ground-truth.json'), 'utf8')) as Array<{
  path: string;
  expected: Record<string, string | null>;
}>;

function fixture(name: string): { lines: TextLine[]; expected: Record<string, string | null> } {
  const f = JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as { source: string; lines: TextLine[] };
  const truth = TRUTH.find((t) => `documents-dev/${t.path}` === f.source);
  if (!truth) throw new Error(`no ground truth for ${f.source}`);
  return { lines: f.lines, expected: truth.expected };
}

const RECEIPT_TYPES = ['payment_receipt', 'es_simplified_invoice'];
const RECEIPTS = ['SROIE__001', 'SROIE__474', 'SROIE__348', 'SROIE__575', 'SROIE__279', 'veryfi-python__receipt_public'];

describe('till receipts read from OCR', () => {
  it.each(RECEIPTS)('%s: a receipt type, its grand total and its date', (name) => {
    const { lines, expected } = fixture(name);
    const cls = classifyText(lines);
    expect(RECEIPT_TYPES).toContain(cls.candidates[0].type);
    const entry = getEntry(cls.candidates[0].type)!;
    const fields = extractFields(entry, lines, [], { language: cls.language?.code, country: cls.country });
    const total = fields.amount ?? fields.total_amount;
    expect(total?.value).toBeCloseTo(Number(expected.total), 2);
    expect(total?.source?.bbox).toHaveLength(4);
    const date = fields.payment_date ?? fields.issue_date;
    // SROIE 575's date line is misread by OCR (`05-15-18` for 05-05-18): a date is read, not the right one.
    if (name === 'SROIE__575') expect(date?.value).toBe('2018-05-15');
    else expect(date?.value).toBe(expected.date);
  });

  it('invoices with item and amount rows are not till receipts', () => {
    for (const name of ['pdf-invoice-OdanInfotech__invoice', 'invoicegenerator__invoice']) {
      const { lines } = fixture(name);
      expect(isTill(tillLayout(prepareLines(lines))), name).toBe(false);
      expect(classifyText(lines).candidates[0].type, name).toBe('invoice');
    }
  });

  it('cash - change proves the total printed after the rounding line (SROIE 001: 60.31 rounded to 60.30)', () => {
    const { lines } = fixture('SROIE__001');
    const prepared = prepareLines(lines);
    const amounts = prepared.map((l) => findAmounts(l.fold, false));
    const t = receiptTotal(prepared, amounts)!;
    expect(t.value).toBe(60.3);
    expect(t.confidence).toBeGreaterThanOrEqual(0.75);
  });

  it('a dash leader after a label is no minus sign, and "supplies" lines are no grand total (SROIE 348)', () => {
    const { lines } = fixture('SROIE__348');
    const prepared = prepareLines(lines);
    const payable = prepared.find((l) => /total payable/i.test(l.text))!;
    expect(findAmounts(payable.fold, false).map((a) => a.value)).toEqual([-48.04]); // what the generic parser sees
    expect(receiptTotal(prepared, prepared.map((l) => findAmounts(l.fold, false)))!.value).toBe(48.04);
  });
});

describe('amounts on till lines', () => {
  const line = (text: string) => prepareLines([{ page: 1, text, bbox: [0.1, 0.5, 0.9, 0.52], confidence: 0.9 }])[0];
  it('repairs a decimal point OCR split or dropped, only where the document writes two decimals', () => {
    expect(repairedAmounts(line('Final Total : Ve 43 70'), true).map((a) => a.value)).toEqual([43.7]);
    expect(repairedAmounts(line('CASH RM 100. 00'), true).map((a) => a.value)).toEqual([100]);
    expect(repairedAmounts(line('Rounding Adjustment RM O 02'), true).map((a) => a.value)).toEqual([0.02]);
    expect(repairedAmounts(line('Total Amt Incl. GST@6%: 2700'), true).map((a) => a.value)).toEqual([27]);
    expect(repairedAmounts(line('Total Amt Incl. GST@6%: 2700'), false)).toEqual([]);
  });
  it('reads amounts by locale: 1.234,56 and 1,234.56 alike; 40.39 is never 4039', () => {
    expect(findAmounts('total 1.234,56 eur', true)[0].value).toBe(1234.56);
    expect(findAmounts('total $1,234.56', false)[0].value).toBe(1234.56);
    expect(findAmounts('tax 40.39', false)[0].value).toBe(40.39);
    expect(findAmounts('tax 40,39', false)[0].value).toBe(40.39);
    expect(findAmounts('total rm 27.25', false)[0]).toMatchObject({ value: 27.25, currency: 'MYR' });
  });
});

describe('a label is never a value', () => {
  const text = (t: string): TextLine[] =>
    t.trim().split('\n').map((s, i) => ({ page: 1, text: s.trim(), bbox: [0.08, 0.05 + i * 0.03, 0.92, 0.07 + i * 0.03], confidence: 1 }));
  it('bank_name "Account No." and customer_name "Shipping Address" are not read', () => {
    const receipt = getEntry('payment_receipt')!;
    const a = extractFields(receipt, text('Payment receipt\nBank: Account No.\nAmount: 120.00 EUR\nDate: 12/03/2024'), []);
    expect(a.bank_name).toBeUndefined();
    expect(a.amount?.value).toBe(120);
    const invoice = getEntry('invoice')!;
    const b = extractFields(invoice, text('INVOICE\nInvoice number: INV-77\nCustomer: Shipping Address\nTotal: 40.39 USD'), []);
    expect(b.customer_name).toBeUndefined();
    expect(b.total_amount?.value).toBe(40.39);
    const c = extractFields(invoice, text('INVOICE\nInvoice number: INV-78\nCustomer: Acme Trading Ltd\nTotal: 10.00 USD'), []);
    expect(c.customer_name?.value).toBe('Acme Trading Ltd');
  });
});

describe('several receipts in one photo', () => {
  /** Two real receipts side by side: each squeezed into one half of the frame. */
  const half = (lines: TextLine[], x0: number): TextLine[] =>
    lines.map((l) => {
      const sx = (x: number) => x0 + x * 0.46;
      const box = (b: TextLine['bbox']): TextLine['bbox'] => [sx(b[0]), b[1], sx(b[2]), b[3]];
      return { ...l, bbox: box(l.bbox), words: l.words?.map((w) => ({ ...w, bbox: box(w.bbox) })) };
    });
  it('finds two documents, the left one first; one receipt alone stays one document', () => {
    const left = fixture('SROIE__474').lines;
    const right = fixture('SROIE__575').lines;
    const photo = [...half(left, 0.02), ...half(right, 0.52)];
    const docs = splitDocuments(photo);
    expect(docs).toHaveLength(2);
    expect(docs[0].map((l) => l.text)).toEqual(left.map((l) => l.text));
    for (const name of RECEIPTS) expect(splitDocuments(fixture(name).lines), name).toHaveLength(1);
  });
});

describe('invoice labels and values', () => {
  /** Lines with word boxes, columns where the text has two or more spaces. */
  const table = (rows: string[]): TextLine[] =>
    rows.map((row, i) => {
      const y0 = 0.3 + i * 0.03;
      const words: NonNullable<TextLine['words']> = [];
      let x = 0.05;
      for (const cell of row.split(/\s{2,}/)) {
        for (const w of cell.split(' ')) {
          words.push({ text: w, bbox: [x, y0, x + 0.012 * w.length, y0 + 0.015], confidence: 0.95 });
          x += 0.012 * w.length + 0.01;
        }
        x += 0.08;
      }
      return { page: 1, text: row.replace(/\s{2,}/g, ' '), bbox: [0.05, y0, x, y0 + 0.015], words, confidence: 0.95 };
    });
  const invoice = getEntry('invoice')!;
  it('the cell under a table header row is an item, not the total or the tax', () => {
    const f = extractFields(invoice, table(['INVOICE', 'Invoice number: A-100', 'Description  Qty  Unit price  Tax  Amount', 'Subscription  1  20.00  0%  20.00', 'Total  20.00']), []);
    expect(f.total_amount?.value).toBe(20);
    expect(f.tax_amount).toBeUndefined();
  });
  it('"Saldo adeudado" is the total to pay, above a partial total', () => {
    const f = extractFields(getEntry('es_invoice')!, table(['FACTURA INV/2024/00005', 'TOTAL PARCIAL  1419.00', 'TOTAL IMPUESTOS  302.00', 'Saldo adeudado  1721.00']), []);
    expect(f.total_amount?.value).toBe(1721);
  });
  it('an invoice id that starts with a date is an id, a date alone is not', () => {
    expect(extractFields(invoice, table(['Invoice', 'Invoice ID: 2024-03-10t172205', 'Issuing Date: 2024-03-10']), []).invoice_number?.value).toBe('2024-03-10t172205');
    expect(extractFields(invoice, table(['Invoice', 'Invoice ID: 2024-03-10']), []).invoice_number).toBeUndefined();
  });
});
