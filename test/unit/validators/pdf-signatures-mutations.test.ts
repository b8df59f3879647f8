// Each test breaks exactly one thing in an otherwise valid signed PDF and checks the status.
// Base: pyHanko's pades-with-old-style-signing-cert-attr.pdf, valid and trusted at 2020-11-01
// with the pyHanko testing root (read from the shared corpus at test time).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadTrustStore, verifyPdfSignatures, type TrustStore } from '../../../server/src/validators/pdf-signature/index.ts';
import { appendUpdate } from '../../support/pdf-update.ts';

const DATA = join(import.meta.dirname, '../../../../shared/testdata/pdf-signatures');
const AT = new Date('2020-11-01T00:00:00Z');
const base = new Uint8Array(readFileSync(join(DATA, 'pyhanko/pades-with-old-style-signing-cert-attr.pdf')));
const SIGNED_END = 11905 + 450; // ByteRange of the base file: [0 1253 11905 450]

let roots: TrustStore;
let unrelated: TrustStore;
beforeAll(async () => {
  roots = await loadTrustStore(join(DATA, 'roots'));
  unrelated = await loadTrustStore(join(DATA, 'dss')); // only the Costa Rica root of doc-firmado
});


const stream = (content: string) => `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;

describe('PAdES verification: one defect at a time', () => {
  it('baseline: the untouched file is valid and trusted', async () => {
    const r = await verifyPdfSignatures(base, { trustStore: roots, at: AT });
    expect(r).toMatchObject({ status: 'valid', reasons: ['signature_valid'], trusted: true, signatures: 1, signer: 'Alice' });
  });

  it('a flipped byte inside the signed range => invalid', async () => {
    const pdf = base.slice();
    const at = Buffer.from(pdf).indexOf('Hello World');
    pdf[at] ^= 0x01; // "Hello" -> "Iello", inside ByteRange [0, 1253)
    const r = await verifyPdfSignatures(pdf, { trustStore: roots, at: AT });
    expect(r.status).toBe('invalid');
    expect(r.reasons).toEqual(['signature_invalid']);
    expect(r.details[0]).toMatchObject({ covers_whole_revision: true, digest_ok: false });
  });

  it('an incremental update that changes the page content => modified', async () => {
    const pdf = appendUpdate(base, { 4: stream('BT /F1 18 Tf 0 0 Td (Pay 1000 EUR) Tj ET') });
    const r = await verifyPdfSignatures(pdf, { trustStore: roots, at: AT });
    expect(r.status).toBe('modified');
    expect(r.reasons).toContain('document_modified_after_signing');
    expect(r.edited_suspected).toBe(true);
    expect(r.details[0]).toMatchObject({ digest_ok: true, signature_ok: true, modified_after: true });
  });

  it('an incremental update that adds a new page => modified', async () => {
    const pdf = appendUpdate(base, {
      2: '<< /Type /Pages /Kids [3 0 R 9 0 R] /Count 2 /MediaBox [0 0 300 144] >>',
      9: '<< /Type /Page /Parent 2 0 R /Contents 10 0 R >>',
      10: stream('BT /F1 18 Tf 0 0 Td (extra page) Tj ET'),
    });
    expect((await verifyPdfSignatures(pdf, { trustStore: roots, at: AT })).status).toBe('modified');
  });

  it('control: an incremental update that only adds an annotation stays valid', async () => {
    const page = '<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Times-Roman >> >> >> /Contents 4 0 R /Annots [ 7 0 R 9 0 R ] >>';
    const pdf = appendUpdate(base, {
      3: page,
      9: '<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (reviewed) /P 3 0 R >>',
    });
    const r = await verifyPdfSignatures(pdf, { trustStore: roots, at: AT });
    expect(r.status).toBe('valid');
    expect(r.details[0].changes_permitted.length).toBeGreaterThan(0);
  });

  it('a signer chaining to an unknown root => untrusted', async () => {
    const r = await verifyPdfSignatures(base, { trustStore: unrelated, at: AT });
    expect(r).toMatchObject({ status: 'untrusted', reasons: ['untrusted_signer'], trusted: false, trust_anchor: null });
  });

  it('a validation time after the signer certificate expired => untrusted', async () => {
    const r = await verifyPdfSignatures(base, { trustStore: roots, at: new Date('2023-01-01T00:00:00Z') });
    expect(r.status).toBe('untrusted');
    expect(r.details[0].errors.join(' ')).toMatch(/not valid at/);
  });

  it('an unsigned PDF => missing', async () => {
    const pdf = new Uint8Array(readFileSync(join(DATA, 'pyhanko/minimal.pdf')));
    const r = await verifyPdfSignatures(pdf, { trustStore: roots, at: AT });
    expect(r).toMatchObject({ status: 'missing', reasons: ['signature_missing'], signatures: 0, details: [] });
  });

  it('bytes after the signed revision without an update (truncated %%EOF) are reported', async () => {
    const pdf = base.slice(0, SIGNED_END - 3); // cut inside the signed range
    const r = await verifyPdfSignatures(pdf, { trustStore: roots, at: AT });
    expect(r.status).toBe('invalid');
    expect(r.details[0].errors.join(' ')).toMatch(/past the end of the file/);
  });

  it('never throws on garbage', async () => {
    for (const junk of [new Uint8Array(0), new Uint8Array(1000).fill(0x41), Buffer.from('%PDF-1.7\n1 0 obj << /ByteRange [0 5 10 5] /Contents <3082> >> endobj\n')]) {
      const r = await verifyPdfSignatures(new Uint8Array(junk), { trustStore: roots });
      expect(['missing', 'invalid']).toContain(r.status);
    }
  });
});
