/**
 * Live mode reads till receipts through HTTP, on both databases: a scanned Malaysian receipt from the `tune` split of
 * documents-dev (SROIE) and a phone photo of a long thermal receipt (`tune` split too) are receipt types (not
 * invoices), with their grand totals (after rounding, proven by cash - change) and dates as ground-truth.json gives
 * them, read by the local readers only; and a landscape photo of a Chinese VAT invoice (tune too) is an invoice with
 * its number, date, total and seller id, a receipt photographed sideways is read turned upright, and two receipts
 * photographed side by side warn `multiple_documents` with the left one read (#28).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../server/src/domain/accounts.ts';
import { newLiveAccount } from '../support/live-account.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';

const DEV = path.resolve(import.meta.dirname, '../../../shared/testdata/documents-dev');
const RECEIPT = 'receipts/SROIE__001.jpg';
const PHOTO = 'receipts/veryfi-python__receipt_public.jpg';
const TRUTH = JSON.parse(fs.readFileSync(path.join(DEV, 'ground-truth.json'), 'utf8')) as Array<{ path: string; split: string; capture: string; expected: Record<string, string> }>;
const truth = TRUTH.find((t) => t.path === RECEIPT)!;
const photoTruth = TRUTH.find((t) => t.path === PHOTO)!;
const FAPIAO = 'invoices/zerox__0015.png';
const fapiaoTruth = TRUTH.find((t) => t.path === FAPIAO)!;
const SIDEWAYS = 'receipts/receipt-parser-legacy__IMG0001.jpg';
const sidewaysTruth = TRUTH.find((t) => t.path === SIDEWAYS)!;
const RIGHT = 'receipts/SROIE__038.jpg';

/** Two slips side by side on a desk, each turned its own way a little, the right one lower: one JPEG photo. */
async function sideBySide(left: Buffer, right: Buffer): Promise<Buffer> {
  const turn = async (x: Buffer, deg: number) => sharp(await sharp(x).removeAlpha().resize({ height: 1400 }).png().toBuffer()).rotate(deg, { background: '#5a4a3a' }).png().toBuffer();
  const [a, b] = [await turn(left, 2), await turn(right, -3)];
  const [ma, mb] = [await sharp(a).metadata(), await sharp(b).metadata()];
  return sharp({ create: { width: ma.width! + mb.width! + 150, height: Math.max(ma.height!, mb.height! + 30) + 100, channels: 3, background: '#5a4a3a' } })
    .composite([{ input: a, left: 50, top: 50 }, { input: b, left: ma.width! + 100, top: 80 }])
    .jpeg({ quality: 80 })
    .toBuffer();
}

describe.each(DATABASES)('live mode reads a till receipt photo on %s', (kind) => {
  let app: TestApp;
  let acc: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp(kind);
    acc = await newLiveAccount(app, 5);
  }, 60_000);
  afterAll(() => app?.close());

  /**
   * Analyzes a file and returns the finished analysis: 200 with it, or 202 when the reading outlasts the synchronous
   * wait (a busy machine), after which the request's own work finishes it in this process.
   */
  const analyze = async (rel: string, bytes: Buffer = fs.readFileSync(path.join(DEV, rel)), options: Record<string, unknown> = {}) => {
    const res = await app.request('POST', '/v1/analyze', {
      key: acc.keys.live,
      body: form({ bytes, name: path.basename(rel) }, [['options', JSON.stringify(options)]]),
    });
    expect([200, 202], JSON.stringify(res.body).slice(0, 400)).toContain(res.status);
    if (res.status === 200) return res.body;
    await Promise.allSettled([...app.services.inflight]);
    const done = (await app.request('GET', `/v1/analyses/${res.body.id}`, { key: acc.keys.live })).body;
    expect(done.status, JSON.stringify(done).slice(0, 600)).toBe('completed');
    return done;
  };
  /** What to show when no type came out (on a starved machine the page OCR can run past its budget). */
  const why = (a: { warnings: unknown; processing: unknown; verdict: unknown }) => JSON.stringify({ warnings: a.warnings, verdict: a.verdict, processing: a.processing }).slice(0, 600);

  it('a receipt type with its total and date, from the local readers', async () => {
    expect(truth.split).toBe('tune');
    const a = await analyze(RECEIPT);
    expect(a.document, why(a)).not.toBeNull();
    expect(a.status).toBe('completed');
    expect(['payment_receipt', 'es_simplified_invoice']).toContain(a.document.type);
    expect(a.document.confidence).toBeGreaterThanOrEqual(0.5);
    expect(a.fields.amount.value).toBeCloseTo(Number(truth.expected.total), 2);
    expect(a.fields.amount.source.bbox).toHaveLength(4);
    expect(a.fields.payment_date.value).toBe(truth.expected.date);
    expect(a.warnings).not.toContain('multiple_documents');
    for (const p of a.processing.providers) expect(p).toMatchObject({ region: 'local', role: 'local' });
    expect(a.processing.providers.map((p: { name: string }) => p.name)).toContain('local-ocr');
  }, 90_000);

  it('a phone photo of a long till receipt: a receipt type with its total and date', async () => {
    expect(photoTruth.split).toBe('tune');
    expect(photoTruth.capture).toMatch(/phone photo/);
    const a = await analyze(PHOTO);
    expect(a.document, why(a)).not.toBeNull();
    expect(a.status).toBe('completed');
    expect(['payment_receipt', 'es_simplified_invoice']).toContain(a.document.type);
    expect(a.fields.amount.value).toBeCloseTo(Number(photoTruth.expected.total), 2);
    expect(a.fields.amount.source.bbox).toHaveLength(4);
    expect(a.fields.payment_date.value).toBe(photoTruth.expected.date);
    for (const p of a.processing.providers) expect(p).toMatchObject({ region: 'local', role: 'local' });
  }, 90_000);

  it('a landscape photo of a Chinese VAT invoice: tesseract reads nothing sure, PP-OCR reads it again (an invoice, its number, date, total and seller id)', async () => {
    expect(fapiaoTruth.split).toBe('tune');
    const a = await analyze(FAPIAO);
    expect(a.document, why(a)).not.toBeNull();
    expect(a.document.type).toMatch(/invoice/);
    const x = fapiaoTruth.expected;
    expect(a.fields.invoice_number.value).toBe(x.number);
    expect(a.fields.issue_date.value).toBe(x.issue_date);
    expect(a.fields.total_amount.value).toBeCloseTo(Number(x.total), 2);
    expect(a.fields.issuer_tax_id.value).toBe(x.seller_vat_id);
    expect(a.processing.providers.find((p: { name: string }) => p.name === 'local-ocr')?.model).toMatch(/PP-OCR/);
  }, 120_000);
  it('a till receipt photographed sideways: read turned upright, its total and date, the total box back on the photo', async () => {
    expect(sidewaysTruth.split).toBe('tune');
    const a = await analyze(SIDEWAYS);
    expect(a.document, why(a)).not.toBeNull();
    expect(['payment_receipt', 'es_simplified_invoice']).toContain(a.document.type);
    expect(a.fields.amount.value).toBeCloseTo(Number(sidewaysTruth.expected.total), 2);
    expect(a.fields.payment_date.value).toBe(sidewaysTruth.expected.date);
    // The photo is landscape, the receipt's lines run down it: the total's box is taller than wide on the photo.
    const [x0, y0, x1, y1] = a.fields.amount.source.bbox;
    expect(y1 - y0).toBeGreaterThan(x1 - x0);
  }, 150_000);

  it('two till receipts photographed side by side: `multiple_documents`, the left one read (its total, its date, its box on the left)', async () => {
    expect(TRUTH.find((t) => t.path === RIGHT)!.split).toBe('tune');
    const photo = await sideBySide(fs.readFileSync(path.join(DEV, RECEIPT)), fs.readFileSync(path.join(DEV, RIGHT)));
    const a = await analyze('two-receipts.jpg', photo, { expect: 'payment_receipt' });
    expect(a.document, why(a)).not.toBeNull();
    expect(a.warnings).toContain('multiple_documents');
    expect(['payment_receipt', 'es_simplified_invoice']).toContain(a.document.type);
    expect(a.fields.amount.value).toBeCloseTo(Number(truth.expected.total), 2);
    expect(a.fields.payment_date.value).toBe(truth.expected.date);
    expect(a.fields.amount.source.bbox[2]).toBeLessThan(0.5);
    // A hint, not proof: the verdict asks for a person, it never rejects the document for it.
    expect(a.verdict.status).toBe('review');
    expect(a.verdict.reasons).toContainEqual(expect.objectContaining({ code: 'low_quality', severity: 'warning' }));
  }, 150_000);
});
