/**
 * Live mode reads till receipts through HTTP, on both databases: a scanned Malaysian receipt from the `tune` split of
 * documents-dev (SROIE) and a phone photo of a long thermal receipt (`tune` split too) are receipt types (not
 * invoices), with their grand totals (after rounding, proven by cash - change) and dates as ground-truth.json gives
 * them, read by the local readers only; and a landscape photo of a Chinese VAT invoice (tune too) is an invoice with
 * its number, date, total and seller id, and a receipt photographed sideways is read turned upright (#28).
 */
import fs from 'node:fs';
import path from 'node:path';
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
  const analyze = async (rel: string) => {
    const res = await app.request('POST', '/v1/analyze', {
      key: acc.keys.live,
      body: form({ bytes: fs.readFileSync(path.join(DEV, rel)), name: path.basename(rel) }, [['options', JSON.stringify({})]]),
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
});
