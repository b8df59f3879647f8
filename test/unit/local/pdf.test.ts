/**
 * The local PDF reader on real files of the shared test data: text layer lines and boxes, embedded CII/UBL
 * invoices (values compared with the XML itself), Order-X, a PDF without text layer rendered to pixels, and the
 * guards (decompression bomb in an attachment, XML entity expansion).
 */
import fs from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_ATTACHMENT_BYTES, readPdf, renderPdfPage, warmPdf } from '../../../server/src/providers/local/pdf.ts';
import { parseInvoiceXml, readEmbeddedInvoice } from '../../../server/src/providers/local/text/embedded.ts';

const DOCS = path.resolve('../shared/testdata/documents/invoices');
const file = (p: string) => new Uint8Array(fs.readFileSync(path.join(DOCS, p)));
const inBox = (inner: number[], outer: number[]) =>
  inner[0] >= outer[0] - 1e-3 && inner[1] >= outer[1] - 1e-3 && inner[2] <= outer[2] + 1e-3 && inner[3] <= outer[3] + 1e-3;

beforeAll(async () => {
  await warmPdf();
}, 30_000);

describe('readPdf: text layer', () => {
  it('reads the lines of a real invoice with normalised boxes, top to bottom, and word boxes inside them', async () => {
    const content = await readPdf(file('invoice2data/AmazonWebServices.pdf'));
    expect(content.numPages).toBe(1);
    const [page] = content.pages;
    expect(page.hasText).toBe(true);
    expect(page.width).toBeCloseTo(612, 0);
    const expected = JSON.parse(fs.readFileSync(path.join(DOCS, 'invoice2data/AmazonWebServices.json'), 'utf8'))[0];
    const numberLine = page.lines.find((l) => l.text.includes(expected.invoice_number));
    expect(numberLine?.text).toMatch(/Invoice Number:/);
    for (const l of page.lines) {
      const [x0, y0, x1, y1] = l.bbox;
      expect(0 <= x0 && x0 < x1 && x1 <= 1 && 0 <= y0 && y0 < y1 && y1 <= 1, l.text).toBe(true);
      expect(l.confidence).toBe(1);
      for (const w of l.words ?? []) expect(inBox(w.bbox, l.bbox), `${w.text} in ${l.text}`).toBe(true);
    }
    const tops = page.lines.map((l) => l.bbox[1]);
    expect([...tops].sort((a, b) => a - b)).toEqual(tops);
    // The invoice number's own word box sits at the right of its label, on the same baseline.
    const word = numberLine!.words!.find((w) => w.text === expected.invoice_number)!;
    const label = numberLine!.words!.find((w) => w.text === 'Number:')!;
    expect(word.bbox[0]).toBeGreaterThan(label.bbox[2]);
    expect(Math.abs(word.bbox[3] - label.bbox[3])).toBeLessThan(0.01);
    // The research measured this line's box: [0.4199, 0.1492, 0.933, 0.1584].
    expect(numberLine!.bbox[0]).toBeCloseTo(0.42, 2);
    expect(numberLine!.bbox[1]).toBeCloseTo(0.149, 2);
  });

  it('honours maxPages', async () => {
    const content = await readPdf(file('invoice2data/QualityHosting.pdf'), { maxPages: 1 });
    expect(content.numPages).toBe(2);
    expect(content.pages).toHaveLength(1);
  });

  it('throws on bytes that are not a PDF', async () => {
    await expect(readPdf(new TextEncoder().encode('not a pdf at all'))).rejects.toThrow();
  });
});

describe('embedded invoices', () => {
  it('reads Factur-X and ZUGFeRD 1 XML from a Mustang PDF, values as in the XML', async () => {
    const content = await readPdf(file('mustang-zugferd/validV2PDF.pdf'));
    const names = content.attachments.map((a) => a.name).sort();
    expect(names).toEqual(['ZUGFeRD-invoice.xml', 'factur-x.xml']);
    const inv = readEmbeddedInvoice(content.attachments)!;
    expect(inv.syntax).toBe('CII');
    expect(inv.isInvoice).toBe(true);
    const xml = new TextDecoder().decode(content.attachments.find((a) => a.name === inv.source)!.bytes);
    const tag = (t: string) => new RegExp(`<ram:${t}[^>]*>([^<]+)</ram:${t}>`).exec(xml)![1];
    expect(inv.fields.invoice_number).toBe(/<rsm:(?:Header)?ExchangedDocument>\s*<ram:ID>([^<]+)</.exec(xml)![1]);
    expect(inv.fields.total_amount).toBe(Number(tag('GrandTotalAmount')));
    expect(inv.fields.tax_base).toBe(Number(tag('TaxBasisTotalAmount')));
    expect(inv.fields.tax_amount).toBe(Number(tag('TaxTotalAmount')));
    expect(inv.fields.currency).toBe(tag('InvoiceCurrencyCode'));
    expect(inv.fields.iban).toBe(tag('IBANID').replace(/\s/g, ''));
    const d = /<udt:DateTimeString format="102">(\d{8})</.exec(xml)![1];
    expect(inv.fields.issue_date).toBe(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`);
    expect(inv.fields.issuer_name).toBe(/<ram:SellerTradeParty>\s*<ram:Name>([^<]+)</.exec(xml)![1]);
    expect(inv.fields.customer_name).toBe(/<ram:BuyerTradeParty>\s*<ram:Name>([^<]+)</.exec(xml)![1]);
    const items = inv.fields.line_items as Array<Record<string, unknown>>;
    expect(items).toHaveLength((xml.match(/<ram:IncludedSupplyChainTradeLineItem>/g) ?? []).length);
    expect(items.every((i) => typeof i.amount === 'number' && typeof i.description === 'string')).toBe(true);
    // Both embedded files describe the same invoice.
    const zf1 = parseInvoiceXml(content.attachments.find((a) => a.name === 'ZUGFeRD-invoice.xml')!.bytes)!;
    expect(zf1.fields.total_amount).toBe(inv.fields.total_amount);
    expect(zf1.fields.invoice_number).toBe(inv.fields.invoice_number);
  });

  it('reads the UBL invoice embedded in an invoice2data PDF, matching the expected JSON', async () => {
    const content = await readPdf(file('invoice2data/AzureInterior.pdf'));
    const inv = readEmbeddedInvoice(content.attachments)!;
    const expected = JSON.parse(fs.readFileSync(path.join(DOCS, 'invoice2data/AzureInterior.json'), 'utf8'))[0];
    expect(inv.syntax).toBe('UBL');
    expect(inv.isInvoice).toBe(true);
    expect(inv.fields.invoice_number).toBe(expected.invoice_number);
    expect(inv.fields.issue_date).toBe(expected.date);
    expect(inv.fields.due_date).toBe(expected.date_due);
    expect(inv.fields.total_amount).toBe(expected.amount);
    expect(inv.fields.tax_amount).toBe(expected.amount_tax);
    expect(inv.fields.tax_base).toBe(expected.amount_untaxed);
    expect(inv.fields.currency).toBe(expected.currency);
  });

  it('reads the XML of a PDF that has no text layer, and a credit note with negative totals', async () => {
    const noText = await readPdf(file('mustang-zugferd/invalidPDF.pdf'));
    expect(noText.pages.every((p) => !p.hasText)).toBe(true);
    expect(readEmbeddedInvoice(noText.attachments)?.fields.total_amount).toBeGreaterThan(0);
    const avoir = readEmbeddedInvoice((await readPdf(file('mustang-zugferd/validAvoir_FR_type380_BASICWL.pdf'))).attachments)!;
    expect(avoir.fields.total_amount as number).toBeLessThan(0);
  });

  it('says an Order-X order is not an invoice', async () => {
    const content = await readPdf(file('mustang-zugferd/ORDER-X_EX01_ORDER_FULL_DATA-COMFORT.pdf'));
    const doc = readEmbeddedInvoice(content.attachments)!;
    expect(doc.syntax).toBe('CII');
    expect(doc.isInvoice).toBe(false);
    expect(doc.typeCode).toBe('220');
  });

  it('refuses XML with a DOCTYPE or entities (no entity expansion) and non-invoice XML', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
      <rsm:CrossIndustryInvoice xmlns:rsm="x" xmlns:ram="y"><rsm:ExchangedDocument><ram:ID>&lol2;</ram:ID></rsm:ExchangedDocument></rsm:CrossIndustryInvoice>`;
    expect(parseInvoiceXml(new TextEncoder().encode(bomb))).toBeNull();
    expect(parseInvoiceXml(new TextEncoder().encode('<html><body>hi</body></html>'))).toBeNull();
    expect(parseInvoiceXml(new TextEncoder().encode('not xml'))).toBeNull();
    expect(readEmbeddedInvoice([])).toBeNull();
  });
});

/** A minimal PDF with one embedded file whose stream is `data` (deflated). */
function pdfWithAttachment(name: string, data: Uint8Array): Uint8Array {
  const stream = deflateSync(data);
  const parts: Array<string | Uint8Array> = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (p: string | Uint8Array) => {
    const b = typeof p === 'string' ? Buffer.from(p, 'latin1') : p;
    parts.push(b);
    length += b.length;
  };
  push('%PDF-1.7\n');
  const obj = (n: number, body: string | Array<string | Uint8Array>) => {
    offsets[n] = length;
    push(`${n} 0 obj\n`);
    for (const b of Array.isArray(body) ? body : [body]) push(b);
    push('\nendobj\n');
  };
  obj(1, `<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(${name}) 5 0 R] >> >> >>`);
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>');
  obj(4, '<< /Length 0 >>\nstream\n\nendstream');
  obj(5, `<< /Type /Filespec /F (${name}) /UF (${name}) /EF << /F 6 0 R >> >>`);
  obj(6, [`<< /Type /EmbeddedFile /Filter /FlateDecode /Length ${stream.length} >>\nstream\n`, stream, '\nendstream']);
  const xref = length;
  push(`xref\n0 7\n0000000000 65535 f \n`);
  for (let n = 1; n <= 6; n++) push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts as Uint8Array[]));
}

describe('attachment size bound', () => {
  it('reads a small attachment and refuses one that inflates past the limit', async () => {
    const small = await readPdf(pdfWithAttachment('note.txt', new TextEncoder().encode('hello')));
    expect(small.attachments.map((a) => [a.name, new TextDecoder().decode(a.bytes)])).toEqual([['note.txt', 'hello']]);
    // 3x the limit of zeros deflates to a few KB: a decompression bomb in miniature.
    const bomb = pdfWithAttachment('factur-x.xml', new Uint8Array(MAX_ATTACHMENT_BYTES * 3));
    expect(bomb.length).toBeLessThan(100_000);
    const read = await readPdf(bomb);
    expect(read.attachments).toEqual([]);
    expect(read.refusedAttachments).toEqual(['factur-x.xml']);
  });
});

describe('renderPdfPage', () => {
  it('renders a page without text layer within the pixel bound', async () => {
    const bytes = file('mustang-zugferd/invalidPDF.pdf');
    const page = await renderPdfPage(bytes, 1, { maxSide: 600 });
    expect(Math.max(page.width, page.height)).toBeLessThanOrEqual(600);
    expect(Math.max(page.width, page.height)).toBeGreaterThan(500);
    expect(page.rgba.length).toBe(page.width * page.height * 4);
    // Something is drawn: not every pixel is white.
    let dark = 0;
    for (let i = 0; i < page.rgba.length; i += 4) if (page.rgba[i] < 128) dark++;
    expect(dark).toBeGreaterThan(100);
    await expect(renderPdfPage(bytes, 99, { maxSide: 600 })).rejects.toThrow(RangeError);
  }, 20_000);
});

describe('readPdf: text drawn over itself', () => {
  it('reads "fake bold" text (each word drawn twice, a fraction of a point apart) once', async () => {
    const { PDFDocument, StandardFonts } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    const page = doc.addPage([595, 842]);
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (const dx of [0, 0.4, 0.8]) page.drawText('TOTAL', { x: 72 + dx, y: 700, size: 12, font });
    page.drawText('EUR 118.00', { x: 400, y: 700, size: 12, font });
    // the same word twice on a line, far apart, is text, not overprint
    page.drawText('Net Net', { x: 72, y: 650, size: 12, font });
    page.drawText('Net', { x: 300, y: 650, size: 12, font });
    const content = await readPdf(await doc.save());
    const texts = content.pages[0].lines.map((l) => l.text);
    expect(texts).toEqual(['TOTAL EUR 118.00', 'Net Net Net']);
    const words = content.pages[0].lines[0].words!.map((w) => w.text);
    expect(words).toEqual(['TOTAL', 'EUR', '118.00']);
  });
});
