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
import { backgroundBetween } from '../../../server/src/providers/local/image.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findAmounts, prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { isTill, receiptTotal, repairedAmounts, splitDocuments, tillLayout } from '../../../server/src/providers/local/text/receipt.ts';
import type { PageImage, TextLine } from '../../../server/src/providers/local/types.ts';

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

  /**
   * What an OCR engine makes of such a photo: a row of text across both slips is one line (its words from both).
   * Each left line is joined with the right line nearest its height; a word of desk texture may bridge the gap.
   */
  const joined = (left: TextLine[], right: TextLine[]): TextLine[] => {
    const l = half(left, 0.02);
    const r = half(right, 0.52);
    return l.map((a, i) => {
      const b = r[i];
      if (!b) return a;
      const words = [...(a.words ?? []), ...(b.words ?? [])];
      return { ...a, text: `${a.text} ${b.text}`, bbox: [a.bbox[0], Math.min(a.bbox[1], b.bbox[1]), b.bbox[2], Math.max(a.bbox[3], b.bbox[3])] as TextLine['bbox'], words };
    }).concat(r.slice(l.length));
  };
  it('cuts lines that run across both slips at the gap between them; the left slip is read as if alone', () => {
    const left = fixture('SROIE__001');
    const right = fixture('SROIE__575').lines;
    expect(left.lines.every((l) => (l.words?.length ?? 0) > 0)).toBe(true);
    const photo = joined(left.lines, right);
    expect(photo.some((l) => l.bbox[0] < 0.4 && l.bbox[2] > 0.6)).toBe(true);
    const docs = splitDocuments(photo);
    expect(docs).toHaveLength(2);
    expect(docs[0].map((l) => l.text)).toEqual(half(left.lines, 0.02).map((l) => l.words!.map((w) => w.text).join(' ')));
    for (const l of docs[0]) expect(l.bbox[2]).toBeLessThan(0.5);
    const prepared = prepareLines(docs[0]);
    const total = receiptTotal(prepared, prepared.map((l) => findAmounts(l.fold, false)));
    expect(total?.value).toBeCloseTo(Number(left.expected.total), 2);
    // One smear across the gap (a word of desk read on one line in forty) does not join them again.
    const smeared = photo.map((l, i) => (i === 5 ? { ...l, words: [...l.words!, { text: '~~', bbox: [0.45, l.bbox[1], 0.55, l.bbox[3]] as TextLine['bbox'], confidence: 0.2 }] } : l));
    expect(splitDocuments(smeared)).toHaveLength(2);
  });
  /** A 1000 x 700 page: white paper with grey text rows in two columns, `between` painted into the gap. */
  const page = (between: (x: number) => number | null): PageImage => {
    const [W, H] = [1000, 700];
    const grey = Buffer.alloc(W * H, 235);
    for (let y = 50; y < 650; y++) {
      for (let x = 0; x < W; x++) {
        const text = (x >= 60 && x < 430) || (x >= 570 && x < 940);
        if (text && y % 20 < 6 && x % 7 < 4) grey[y * W + x] = 40;
        const g = x >= 430 && x < 570 ? between(x) : null;
        if (g !== null) grey[y * W + x] = g;
      }
    }
    const rgb = Buffer.alloc(W * H * 3);
    for (let i = 0; i < W * H; i++) rgb.fill(grey[i], i * 3, i * 3 + 3);
    return { page: 1, width: W, height: H, grey, rgb, scale: 1, originalWidth: W, originalHeight: H };
  };
  const [leftBox, rightBox]: TextLine['bbox'][] = [[0.06, 0.07, 0.43, 0.93], [0.57, 0.07, 0.94, 0.93]];
  it('tells the desk between two slips from the paper between two columns of one page', () => {
    // The desk shows between the slips (their own margins of paper either side of it).
    expect(backgroundBetween(page((x) => (x >= 470 && x < 530 ? 90 : null)), leftBox, rightBox)).toBe(true);
    // Paper, or paper with a ruled line down the gap (a table's column rule): one page.
    expect(backgroundBetween(page(() => null), leftBox, rightBox)).toBe(false);
    expect(backgroundBetween(page((x) => (x >= 499 && x < 502 ? 30 : null)), leftBox, rightBox)).toBe(false);
    // A desk nearly as light as the paper is not told from it: no warning rather than a false one.
    expect(backgroundBetween(page((x) => (x >= 470 && x < 530 ? 200 : null)), leftBox, rightBox)).toBe(false);
  });
  it('one slip whose amounts stand in a column apart is one document (the amounts have no labels of their own)', () => {
    const { lines } = fixture('SROIE__474');
    // Every amount moved far right: a band of the page no line crosses, between the labels and the amounts.
    const apart = lines.map((l) => {
      const words = (l.words ?? []).map((w) => (/\d[.,]\d{2}$/.test(w.text) ? { ...w, bbox: [0.85, w.bbox[1], 0.95, w.bbox[3]] as TextLine['bbox'] } : { ...w, bbox: [w.bbox[0] * 0.6, w.bbox[1], w.bbox[2] * 0.6, w.bbox[3]] as TextLine['bbox'] }));
      return { ...l, words };
    });
    expect(splitDocuments(apart)).toHaveLength(1);
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
