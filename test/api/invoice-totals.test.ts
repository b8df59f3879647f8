/**
 * invoice_totals through HTTP in live mode with the local readers, on real documents: a genuine Factur-X invoice
 * whose document-level allowances and charge take part in its arithmetic passes the check and the
 * verdict has no error; a text-layer invoice whose reading gives a total and nothing to add it up from gets no failed
 * invoice_totals check and no invoice_totals reason (nothing was proved either way).
 */
import fs from 'node:fs';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../server/src/domain/accounts.ts';
import { newLiveAccount } from '../support/live-account.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/testdata/documents');
const file = (rel: string) => fs.readFileSync(path.join(DOCS, rel));
// Factur-X EXTENDED: 457.20 of lines at 19 % and 7 %, four document allowances (11.21) and a logistics charge (3.00).
// (Facture_F20180027.pdf has an allowance and a charge too, but its sample IBAN fails its checksum: an error of its own.)
const FACTURX = 'invoices/mustang-zugferd/zugferd_2p1_EXTENDED_PDFA-3A.pdf';
const TOTAL_ONLY = 'invoices/invoice2data/AmazonWebServices.pdf';
const OPTIONS = { expect: 'invoice', checks: { not_expired: false } };

interface Check { code: string; passed: boolean }

/** A text-layer invoice: one line, base 100,00, VAT 21 % 21,00 and a printed `total` (bench/false-rejections.ts's). */
function textInvoice(total: string): Promise<Buffer> {
  return new Promise((ok) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50 });
    const parts: Buffer[] = [];
    doc.on('data', (d: Buffer) => parts.push(d));
    doc.on('end', () => ok(Buffer.concat(parts)));
    doc.fontSize(18).text('FACTURA');
    doc.fontSize(11).moveDown();
    doc.text('Número de factura: F-2026-0042');
    doc.text('Fecha de factura: 15/01/2026');
    doc.text('Emisor: Talleres Ebro S.L.  NIF: B12345674');
    doc.text('Cliente: Ana Martín López');
    doc.moveDown();
    doc.text('Reparación de persiana          2 x 50,00          100,00 €');
    doc.moveDown();
    doc.text('Base imponible: 100,00 €');
    doc.text('IVA 21%: 21,00 €');
    doc.text(`Total factura: ${total} €`);
    doc.end();
  });
}
interface Reason { code: string; severity: string; message: string }

describe.each(DATABASES)('invoice_totals in live mode with the local readers on %s', (kind) => {
  let app: TestApp;
  let acc: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp(kind);
    acc = await newLiveAccount(app, 10);
  }, 60_000);
  afterAll(() => app?.close());

  const analyze = (rel: string) =>
    app.request('POST', '/v1/analyze', { key: acc.keys.live, body: form({ bytes: file(rel), name: path.basename(rel) }, [['options', JSON.stringify(OPTIONS)]]) });

  it('a Factur-X invoice with a document allowance and charge adds up: the check passes, no error in the verdict', async () => {
    const res = await analyze(FACTURX);
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const a = res.body;
    expect(a.status).toBe('completed');
    expect(a.processing.providers.map((p: { name: string }) => p.name)).toContain('local-invoice-xml');
    // The amounts the check added up: 457.20 of lines - 11.21 + 3.00 = 448.99, + 70.00 of VAT = 518.99.
    expect(a.fields.tax_base.value).toBe(448.99);
    expect(a.fields.total_amount.value).toBe(518.99);
    expect(a.checks as Check[]).toContainEqual(expect.objectContaining({ code: 'invoice_totals', passed: true }));
    const errors = (a.verdict.reasons as Reason[]).filter((r) => r.severity === 'error');
    expect(errors, JSON.stringify(errors)).toEqual([]);
    expect((a.verdict.reasons as Reason[]).map((r) => r.code)).not.toContain('invoice_totals');
    expect(a.fields.total_amount.validated).toBe(true);
    // A genuine e-invoice, read exactly, with its right type expected: valid.
    expect(a.verdict.status, JSON.stringify(a.verdict.reasons)).toBe('valid');
  });

  it('printed amounts that do not add up are never `valid`, even when one of them was read unsure: review', async () => {
    const res = await app.request('POST', '/v1/analyze', { key: acc.keys.live, body: form({ bytes: await textInvoice('131,00'), name: 'factura.pdf' }, [['options', JSON.stringify(OPTIONS)]]) });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const a = res.body;
    expect(a.fields.total_amount.value).toBe(131);
    expect(a.fields.tax_base.value).toBe(100);
    expect((a.checks as Check[]).filter((c) => c.code === 'invoice_totals' && !c.passed)).toEqual([]);
    const warnings = (a.verdict.reasons as Reason[]).filter((r) => r.severity === 'warning' && (r.code === 'invoice_totals' || r.code === 'low_confidence'));
    expect(warnings.length, JSON.stringify(a.verdict.reasons)).toBeGreaterThan(0);
    expect(a.verdict.status).toBe('review');
  });

  it('a text-layer invoice whose reading has a total and nothing to add up: no failed check, no reason', async () => {
    const res = await analyze(TOTAL_ONLY);
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const a = res.body;
    expect(a.status).toBe('completed');
    expect(a.document.type).toMatch(/invoice/);
    // What the reading holds: the total, and no base or lines it could be added up from.
    expect(a.fields.total_amount.value).toBe(4.11);
    expect(a.fields.tax_base.value).toBeNull();
    expect(a.fields.line_items.value ?? []).toEqual([]);
    expect((a.checks as Check[]).filter((c) => c.code === 'invoice_totals' && !c.passed)).toEqual([]);
    expect((a.verdict.reasons as Reason[]).map((r) => r.code)).not.toContain('invoice_totals');
  });
});
