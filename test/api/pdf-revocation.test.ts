// Revocation through the real app: a PDF signed by a certificate revoked before the signing time, with the CRL
// that says so embedded in its CMS (a verdict needs `expect`) (COTEJO_REVOCATION_CHECK=embedded: no network), comes back invalid.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';
import { crl, party, signedPdf } from '../support/pades.ts';

type Reason = { code: string; severity: string; message: string };

describe.each(DATABASES)('PAdES revocation through the API on %s', (kind) => {
  let app: TestApp;
  let trustDir: string;
  let revoked: Uint8Array;
  let good: Uint8Array;

  beforeAll(async () => {
    const root = await party('API Root CA');
    const inter = await party('API Intermediate CA', { issuer: root, ca: true, crlUrl: 'http://crl.invalid/root.crl' });
    const signer = await party('API Revoked Signer', { issuer: inter, crlUrl: 'http://crl.invalid/int.crl' });
    const fine = await party('API Good Signer', { issuer: inter, crlUrl: 'http://crl.invalid/int.crl' });
    const later = new Date('2026-01-10T00:00:00Z');
    const rootCrl = await crl(root, { thisUpdate: later });
    const intCrl = await crl(inter, { thisUpdate: later, revoked: [{ serial: signer.serial, at: new Date('2025-03-01T00:00:00Z'), reason: 1 }] });
    const signingTime = new Date('2025-06-01T10:00:00Z');
    revoked = await signedPdf({ signer, chain: [inter], signingTime, archival: { crls: [intCrl, rootCrl] } });
    good = await signedPdf({ signer: fine, chain: [inter], signingTime, archival: { crls: [intCrl, rootCrl] } });
    trustDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-trust-'));
    fs.writeFileSync(path.join(trustDir, 'root.pem'), root.pem);
    app = await startTestApp(kind, { config: { trustDir, revocationCheck: 'embedded' } });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    fs.rmSync(trustDir, { recursive: true, force: true });
  });

  const analyze = (bytes: Uint8Array, options: Record<string, unknown> = {}) =>
    app.request('POST', '/v1/analyze', { body: form({ bytes, name: 'invoice.pdf', type: 'application/pdf' }, [['options', JSON.stringify({ expect: 'invoice', ...options })]]) });

  it('a signer revoked before signing: verdict invalid with signature_invalid and revoked', async () => {
    const res = await analyze(revoked, { language: 'en' });
    expect(res.status).toBe(200);
    expect(res.body.signature).toMatchObject({ status: 'invalid', reasons: ['signature_invalid', 'revoked'], signer: 'API Revoked Signer', trusted: false });
    const reasons = res.body.verdict.reasons as Reason[];
    expect(reasons.filter((r) => r.code === 'signature_invalid' || r.code === 'revoked')).toEqual([
      { code: 'signature_invalid', severity: 'error', message: "The PDF's electronic signature is not valid." },
      { code: 'revoked', severity: 'error', message: 'A certificate of the signature was revoked when it was signed.' },
    ]);
    expect(res.body.verdict.status).toBe('invalid');
  });

  it('a signer not revoked: signature_valid, no revocation reason', async () => {
    const res = await analyze(good);
    expect(res.body.signature).toMatchObject({ status: 'valid', reasons: ['signature_valid'], trust_anchor: 'API Root CA' });
    const codes = (res.body.verdict.reasons as Reason[]).map((r) => r.code);
    expect(codes).toContain('signature_valid');
    expect(codes).not.toContain('revoked');
    expect(codes).not.toContain('revocation_unknown');
  });
});
