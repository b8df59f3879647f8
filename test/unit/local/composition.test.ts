/**
 * The live composition of the local readers (server/src/providers/local/index.ts), on real and generated documents:
 * what each kind of evidence gives, the `extract` schema rule, a reader's failure and budget, and a reading no reader
 * could make.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prepareZXingModule as prepareWriter, writeBarcode } from 'zxing-wasm/writer';
import { ApiError } from '../../../server/src/errors.ts';
import { createLogger } from '../../../server/src/logger.ts';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { attempt, createLocalProvider, languageMismatch, type LocalProviderOptions } from '../../../server/src/providers/local/index.ts';
import { terminateOcr } from '../../../server/src/providers/local/ocr.ts';
import type { ReadInput, Reading } from '../../../server/src/providers/types.ts';
import { readJson } from '../validators/testdata.ts';

const DOCS = path.resolve(import.meta.dirname, '../../../../shared/testdata/documents');
const ALL: LocalProviderOptions = { readers: new Set(['mrz', 'pdf417', 'text', 'ocr'] as const), ocrLanguages: ['eng'], concurrency: 2, logger: createLogger('silent') };
const provider = createLocalProvider(ALL)!;

function input(bytes: Uint8Array, over: Partial<ReadInput> = {}): ReadInput {
  return {
    bytes, filename: 'x', mime: 'image/jpeg', pages: 1, kind: 'analysis', expect: null, extract: true, language: 'en', holder: null,
    referenceDate: '2026-11-24', precise_bboxes: false, ...over,
  };
}
const getEntryOrThrow = (type: string) => getEntry(type)!;
const passport = () => new Uint8Array(fs.readFileSync(path.join(DOCS, 'id-images/PassportEye/tests-data/passport-td3.jpg')));

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const wasm = fs.readFileSync(require.resolve('zxing-wasm/writer/zxing_writer.wasm'));
  await prepareWriter({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer }, fireImmediately: true });
});
afterAll(() => terminateOcr());

describe('the local provider', () => {
  it('is null when every reader is switched off (live mode is then 503)', () => {
    expect(createLocalProvider({ ...ALL, readers: new Set() })).toBeNull();
  });

  it('reads a passport photo turned 90 degrees as well as upright', async () => {
    const turned = new Uint8Array(await sharp(passport()).rotate(90).jpeg({ quality: 92 }).toBuffer());
    const r = await provider.read(input(turned));
    expect(r.failure).toBeNull();
    expect(r.document?.type).toBe('passport');
    expect(r.fields.document_number.value).toBe('L898902C3');
    expect(r.providers.map((p) => p.name)).toEqual(['local-mrz']);
    expect(r.mode).toBe('ocr+llm');
  }, 60_000);

  it('reads the PDF417 barcode of a US licence: its type, side, fields and the warning for the missing front', async () => {
    const sample = readJson<Array<{ id: string; raw: string }>>('aamva/aamva-standard-samples.json').find((s) => s.id === 'aamva-v10-sample')!.raw;
    const res = await writeBarcode(sample, { format: 'PDF417', scale: 3 });
    const png = Buffer.from(await res.image!.arrayBuffer());
    const meta = await sharp(png).metadata();
    // The barcode on a grey card, photographed as a JPEG.
    const card = await sharp({ create: { width: meta.width! + 300, height: meta.height! + 240, channels: 3, background: { r: 205, g: 200, b: 190 } } })
      .composite([{ input: png, left: 150, top: 120 }])
      .jpeg({ quality: 88 })
      .toBuffer();
    const r = await provider.read(input(new Uint8Array(card), { expect: ['us_drivers_license'] }));
    expect(r.document).toMatchObject({ type: 'us_drivers_license', side: 'back', country: 'USA' });
    expect(r.fields.document_number.value).toBe('T64235789');
    expect(r.fields.last_name.value).toBe('SAMPLE');
    expect(r.fields.barcode_data.value).toBe(sample);
    expect(r.fields.barcode_data.source?.bbox).toHaveLength(4);
    expect(r.warnings).toContain('side_missing');
    expect(r.providers.map((p) => p.name)).toContain('local-pdf417');
  }, 60_000);

  it('extract as a JSON Schema: named catalogue fields are filled when read, the others are null', async () => {
    const r = await provider.read(input(passport(), { extract: { type: 'object', properties: { document_number: { type: 'string' }, favourite_colour: { type: 'string', description: 'the holder\u2019s favourite colour' } } } }));
    expect(Object.keys(r.fields)).toEqual(['document_number', 'favourite_colour']);
    expect(r.fields.document_number.value).toBe('L898902C3');
    expect(r.fields.favourite_colour).toEqual({ value: null, confidence: 0, source: null });
  }, 60_000);

  it('classification reads no fields', async () => {
    const r = await provider.read(input(passport(), { kind: 'classification', extract: false }));
    expect(r.document?.type).toBe('passport');
    expect(r.fields).toEqual({});
    expect(r.candidates[0].type).toBe('passport');
  }, 60_000);

  it('a HEIC photo is decoded and read (a gradient: nothing to find, nothing invented)', async () => {
    const heic = new Uint8Array(fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/intake/sample.heic')));
    const r = await provider.read(input(heic, { mime: 'image/heic', expect: ['passport'] }));
    expect(r.failure).toBeNull();
    expect(r.document === null || r.document.confidence < 0.5).toBe(true);
    for (const f of Object.values(r.fields)) expect(f.value).toBeNull();
  }, 60_000);

  it('when no enabled reader can look at the file, the reading fails (processing_failed, not charged)', async () => {
    const textOnly = createLocalProvider({ ...ALL, readers: new Set(['text'] as const) })!;
    const r = await textOnly.read(input(passport()));
    expect(r.failure).toMatchObject({ code: 'processing_failed' });
    expect(r.document).toBeNull();
  });
});

describe('a reader under its budget', () => {
  const log = createLogger('silent');

  it('a reader that throws is left out, and said so in the log', async () => {
    const warn = vi.spyOn(log, 'warn');
    expect(await attempt(log, 'mrz', 1000, async () => { throw new Error('engine crashed'); })).toBeNull();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ reader: 'mrz' }), expect.stringContaining('reading goes on without it'));
  });

  it('a reader past its budget is left out; one within it gives its result', async () => {
    const t0 = performance.now();
    expect(await attempt(log, 'ocr', 50, () => new Promise((r) => setTimeout(() => r('late'), 2000)))).toBeNull();
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(await attempt(log, 'ocr', 1000, async () => 'read')).toBe('read');
  });

  it('a file the decoder refuses (intake accepted it) is a reader that could not look, not a failed job', async () => {
    expect(await attempt(log, 'decode', 1000, async () => { throw new ApiError(422, 'unreadable_image', 'x'); })).toBeNull();
  });
});


describe('text documents through the composition', () => {
  /** A one-page text PDF, as a billing system would produce it. */
  async function textPdf(lines: string[]): Promise<Uint8Array> {
    const PDFDocument = (await import('pdfkit')).default;
    const doc = new PDFDocument({ size: 'A4', margin: 50 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise<void>((r) => doc.on('end', () => r()));
    doc.fontSize(11);
    for (const l of lines) doc.text(l);
    doc.end();
    await done;
    return new Uint8Array(Buffer.concat(chunks));
  }

  it('a Spanish invoice PDF: a Spanish invoice type, its totals, date and tax id with boxes, from the text layer', async () => {
    const pdf = await textPdf([
      'FACTURA', 'Número de factura: F-2026-0042', 'Fecha de emisión: 15/03/2026', 'Emisor: Talleres Ebro S.L.  NIF: B12345674',
      'Cliente: María López García  NIF: 12345678Z', 'Concepto: Reparación', 'Base imponible: 1.000,00 €', 'IVA 21%: 210,00 €', 'Total factura: 1.210,00 €',
      'IBAN: ES91 2100 0418 4502 0005 1332',
    ]);
    const r = await provider.read(input(pdf, { mime: 'application/pdf' }));
    expect(r.failure).toBeNull();
    expect(r.document?.type).toMatch(/invoice/);
    expect(r.document!.confidence).toBeGreaterThanOrEqual(0.5);
    expect(r.document!.country).toBe('ESP');
    expect(r.fields.total_amount.value).toBe(1210);
    expect(r.fields.tax_amount?.value).toBe(210);
    expect(r.fields.issue_date.value).toBe('2026-03-15');
    expect(r.fields.total_amount.source?.page).toBe(1);
    expect(r.fields.total_amount.source?.bbox?.[1]).toBeGreaterThan(0);
    expect(r.providers.map((p) => p.name)).toEqual(['local-pdf-text', 'local-rules']);
    expect(r.warnings).not.toContain('language_mismatch');
  }, 60_000);

  it('an invoice whose buyer is labelled with an identity document and whose footer has a capital UNA stays an invoice', async () => {
    // A Paraguayan e-invoice's wording: the buyer's `RUC/documento de identidad` names a kind of ID card and the
    // footer's `ES UNA` an ICAO code (UNA); the ID-front rules' 0.8 must not outrank the text rules' sure invoice.
    const pdf = await textPdf([
      'FACTURA ELECTRÓNICA', 'Timbrado N°: 12345678', 'Factura N°: 001-001-0000123', 'Fecha y hora de emisión: 10/02/2026 10:15:00',
      'RUC/documento de identidad: 80001890-7  Nombre o razón social: Fenix SA', 'Condición de venta: Contado',
      'Cant. Descripción Precio unitario Valor de venta', '1 Servicio de consultoría 1.500.000 1.500.000',
      'Subtotal: 1.500.000', 'Total a pagar: 1.500.000', 'Liquidación IVA 10%: 136.364',
      'ESTE DOCUMENTO ES UNA REPRESENTACIÓN GRÁFICA DE UN DOCUMENTO ELECTRÓNICO',
    ]);
    const r = await provider.read(input(pdf, { mime: 'application/pdf' }));
    expect(r.failure).toBeNull();
    expect(r.document?.type).toMatch(/invoice/);
    expect(r.fields.total_amount?.value).toBe(1_500_000);
  }, 60_000);

  it('a text PDF is not queued behind page-OCR readings: PDFs have their own lane', async () => {
    const one = createLocalProvider({ ...ALL, concurrency: 1 })!;
    const pdf = await textPdf(['INVOICE', 'Invoice number: INV-7', 'Date: 2026-03-15', 'Total: 42.00 EUR']);
    await one.read(input(pdf, { mime: 'application/pdf' })); // pdf.js loaded
    const page = new Uint8Array(fs.readFileSync(path.join(DOCS, 'invoices/invoice2data/AmazonWebServices.png')));
    // Time spent waiting for a lane: from the call to the answer, less the reading's own time (Reading.latencyMs is
    // measured inside the lane). Waiting, not finishing order: on a loaded machine the PDF's own work may well end
    // after a page reading that had the CPU, and that says nothing about queues.
    const t0 = performance.now();
    const waited = (r: Reading) => ({ r, waited: performance.now() - t0 - r.latencyMs });
    // Two page-OCR readings take the one page-lane slot in turn; the text PDF, sent after them, does not wait.
    const [a, b, c] = await Promise.all([
      one.read(input(page, { mime: 'image/png' })).then(waited),
      one.read(input(page, { mime: 'image/png' })).then(waited),
      one.read(input(pdf, { mime: 'application/pdf' })).then(waited),
    ]);
    expect([a.r.failure, b.r.failure, c.r.failure]).toEqual([null, null, null]);
    expect(c.r.providers.map((p) => p.name)).not.toContain('local-ocr');
    // The second page waited for the first's whole reading; the PDF waited for neither.
    expect(b.waited).toBeGreaterThan(a.r.latencyMs * 0.9);
    expect(c.waited).toBeLessThan(Math.min(1_000, a.r.latencyMs / 2));
  }, 120_000);

  it('a scanned PDF (no text layer) still has its page read by the image readers, under a page-lane slot', async () => {
    const one = createLocalProvider({ ...ALL, concurrency: 1 })!;
    const PDFDocument = (await import('pdfkit')).default;
    const doc = new PDFDocument({ size: 'A4', margin: 0 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise<void>((r) => doc.on('end', () => r()));
    doc.image(path.join(DOCS, 'invoices/invoice2data/AmazonWebServices.png'), 0, 0, { fit: [595, 842] });
    doc.end();
    await done;
    const pdf = new Uint8Array(Buffer.concat(chunks));
    const page = new Uint8Array(fs.readFileSync(path.join(DOCS, 'invoices/invoice2data/AmazonWebServices.png')));
    const [image, scanned] = await Promise.all([one.read(input(page, { mime: 'image/png' })), one.read(input(pdf, { mime: 'application/pdf' }))]);
    expect(image.failure).toBeNull();
    expect(scanned.failure).toBeNull();
    expect(scanned.providers.map((p) => p.name)).toContain('local-ocr');
    expect(image.document?.type).toMatch(/invoice/);
    expect(scanned.document?.type).toBe(image.document?.type);
  }, 120_000);
});

describe('language_mismatch', () => {
  const es = getEntryOrThrow('es_invoice');
  const universal = getEntryOrThrow('invoice');
  const text = (code: string, share: number) => ({ candidates: [], country: null, language: { code, share } });

  it('a national document whose text is clearly in a language of none of its countries', () => {
    expect(languageMismatch(es, text('de', 0.9))).toBe(true);
    expect(languageMismatch(es, text('es', 0.9))).toBe(false);
    expect(languageMismatch(es, text('en', 0.9))).toBe(false); // Spanish documents are often bilingual
  });

  it('never for universal types, an unsure language guess, or no text', () => {
    expect(languageMismatch(universal, text('de', 0.9))).toBe(false);
    expect(languageMismatch(es, text('de', 0.4))).toBe(false);
    expect(languageMismatch(es, null)).toBe(false);
  });
});
