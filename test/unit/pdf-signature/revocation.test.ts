// Revocation (OCSP/CRL, embedded and online) and trusted time-stamps of PAdES signatures. A root →
// intermediate → signer PKI made here; its AIA/CRL DP name a node:http server on 127.0.0.1 that answers OCSP and
// serves CRLs (and can fail, hang or forge). No fetched data, no internet.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../server/src/clock.ts';
import { RevocationFetcher } from '../../../server/src/domain/trust/revocation-fetcher.ts';
import { loadTrustStore, verifyPdfSignatures, type PdfSignatureResult, type TrustStore } from '../../../server/src/validators/pdf-signature/index.ts';
import { fitsTime, type RevocationOptions } from '../../../server/src/validators/pdf-signature/revocation.ts';
import { CA_QC, TSA_QTST } from '../../../server/src/validators/pdf-signature/trusted-lists.ts';
import { certId, crl, ocspResponse, party, signedPdf, withDocTimestamp, type Party } from '../../support/pades.ts';

type Behaviour = 'good' | 'down' | 'ocsp-down' | 'hang' | 'forged' | { revokedAt: Date; reason?: number };

let server: http.Server;
let base: string;
const hits: Record<string, number> = {};
const behaviour = new Map<string, Behaviour>(); // by tag (the last path segment the certificate names)
const leafByTag = new Map<string, Party>();
let root: Party;
let inter: Party;
let stranger: Party;
let tsaRoot: Party;
let tsa: Party;
let rogueTsa: Party;
let rootCrl: Uint8Array;
let store: TrustStore;

const T_SIGN = new Date('2025-06-01T10:00:00Z');
const LATER = new Date('2026-01-10T00:00:00Z');
const hanging: http.ServerResponse[] = [];

async function answer(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
  const url = new URL(req.url ?? '/', base);
  const parts = url.pathname.split('/').filter(Boolean);
  const key = parts.slice(0, 2).join('/');
  hits[key] = (hits[key] ?? 0) + 1;
  hits.total = (hits.total ?? 0) + 1;
  if (parts[0] === 'crl' && parts[1] === 'root.crl') return void res.end(Buffer.from(rootCrl));
  const tag = parts[parts.length - 1].replace(/\.crl$/, '');
  const b = behaviour.get(tag) ?? 'good';
  const leaf = leafByTag.get(tag);
  if (b === 'hang') return void hanging.push(res);
  if (b === 'down' || !leaf || (b === 'ocsp-down' && parts[0] === 'ocsp')) {
    res.statusCode = 503;
    return void res.end('down');
  }
  if (parts[0] === 'ocsp') {
    // the request's CertID is echoed, as responders do
    const reqCert = pkijs.OCSPRequest.fromBER(new Uint8Array(body) as Uint8Array<ArrayBuffer>).tbsRequest.requestList[0].reqCert;
    const signer = b === 'forged' ? stranger : inter;
    const o = typeof b === 'object' ? { status: 'revoked' as const, revokedAt: b.revokedAt, reason: b.reason } : { status: 'good' as const };
    res.setHeader('content-type', 'application/ocsp-response');
    return void res.end(Buffer.from(await ocspResponse(signer, leaf, inter, { ...o, id: reqCert, thisUpdate: LATER, nextUpdate: new Date(LATER.getTime() + 7 * 86400_000), include: b === 'forged' ? stranger : undefined })));
  }
  const revoked = typeof b === 'object' ? [{ serial: leaf.serial, at: b.revokedAt, reason: b.reason }] : [];
  res.end(Buffer.from(await crl(inter, { thisUpdate: LATER, nextUpdate: new Date(LATER.getTime() + 7 * 86400_000), revoked })));
}

/** A signer issued by the intermediate, whose AIA and CRL DP name `tag` on the test server (or `host`). */
async function leaf(tag: string, o: { host?: string; notAfter?: Date; sources?: boolean } = {}): Promise<Party> {
  const at = o.host ?? base;
  const p = await party(`Signer ${tag}`, {
    issuer: inter,
    notAfter: o.notAfter,
    ...(o.sources === false ? {} : { ocspUrl: `${at}/ocsp/${tag}`, crlUrl: `${at}/crl/int/${tag}.crl` }),
  });
  leafByTag.set(tag, p);
  return p;
}

const embedded: RevocationOptions = { mode: 'embedded' };
const detail = (r: PdfSignatureResult) => r.details[0];
const statuses = (r: PdfSignatureResult) => detail(r).revocation?.certificates.map((c) => [c.subject, c.status, c.source, c.origin]);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      answer(req, res, Buffer.concat(chunks)).catch((e) => {
        res.statusCode = 500;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  root = await party('Test Root CA');
  inter = await party('Test Intermediate CA', { issuer: root, ca: true, crlUrl: `${base}/crl/root.crl` });
  stranger = await party('Stranger', { eku: ['1.3.6.1.5.5.7.3.9'] });
  tsaRoot = await party('TSA Root');
  tsa = await party('Test TSA', { issuer: tsaRoot, eku: ['1.3.6.1.5.5.7.3.8'] });
  const rogueRoot = await party('Rogue TSA Root');
  rogueTsa = await party('Rogue TSA', { issuer: rogueRoot, eku: ['1.3.6.1.5.5.7.3.8'] });
  rootCrl = await crl(root, { thisUpdate: LATER, nextUpdate: new Date(LATER.getTime() + 30 * 86400_000) });
  store = { roots: [root.pkix, tsaRoot.pkix], source: 'test' };
}, 60_000);

afterAll(async () => {
  for (const r of hanging) r.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('embedded revocation evidence', () => {
  it('good by an OCSP response in the DSS (and the intermediate by the root CRL)', async () => {
    const s = await leaf('dss-ocsp');
    const ocsp = await ocspResponse(inter, s, inter, { status: 'good', thisUpdate: new Date('2025-06-01T10:05:00Z') });
    const before = hits.total ?? 0;
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { ocsps: [ocsp], crls: [rootCrl] } }), { trustStore: store, revocation: embedded });
    expect(r.status).toBe('valid');
    expect(r.reasons).toEqual(['signature_valid']);
    expect(detail(r).revocation).toMatchObject({ outcome: 'good', time: T_SIGN.toISOString(), time_source: 'claimed' });
    expect(statuses(r)).toEqual([
      ['Signer dss-ocsp', 'good', 'ocsp', 'embedded'],
      ['Test Intermediate CA', 'good', 'crl', 'embedded'],
    ]);
    expect(hits.total ?? 0).toBe(before); // embedded mode: no request
  });

  it('good by CRLs in adbe-revocationInfoArchival; an OCSP response with a SHA-256 CertID in SignedData crls also counts', async () => {
    const s = await leaf('archival-crl');
    const intCrl = await crl(inter, { thisUpdate: new Date('2025-06-01T09:00:00Z'), nextUpdate: new Date('2025-06-08T09:00:00Z') });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, archival: { crls: [intCrl, rootCrl] } }), { trustStore: store, revocation: embedded });
    expect(r.status).toBe('valid');
    expect(statuses(r)).toEqual([
      ['Signer archival-crl', 'good', 'crl', 'embedded'],
      ['Test Intermediate CA', 'good', 'crl', 'embedded'],
    ]);

    const ocsp = await ocspResponse(inter, s, inter, { status: 'good', thisUpdate: LATER, id: certId(s, inter, 'sha256') });
    const r2 = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, cmsOcsps: [ocsp], cmsCrls: [rootCrl] }), { trustStore: store, revocation: embedded });
    expect(statuses(r2)?.[0]).toEqual(['Signer archival-crl', 'good', 'ocsp', 'embedded']);
    expect(r2.status).toBe('valid');
  });

  it('revoked before the signing time: invalid, with signature_invalid and revoked', async () => {
    const s = await leaf('revoked-before');
    const intCrl = await crl(inter, { thisUpdate: LATER, revoked: [{ serial: s.serial, at: new Date('2025-03-01T00:00:00Z'), reason: 1 }] });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, cmsCrls: [intCrl, rootCrl] }), { trustStore: store, revocation: embedded });
    expect(r.status).toBe('invalid');
    expect(r.reasons).toEqual(['signature_invalid', 'revoked']);
    expect(detail(r).revocation?.outcome).toBe('revoked');
    expect(detail(r).revocation?.certificates[0]).toMatchObject({ status: 'revoked', revoked_at: '2025-03-01T00:00:00.000Z', reason: 'keyCompromise', source: 'crl' });
    expect(detail(r).errors.join('\n')).toMatch(/revocation: certificate "Signer revoked-before" revoked at 2025-03-01/);
  });

  it('revoked after a claimed signing time: untrusted (untrusted_signer and revoked), a stolen key can back-date', async () => {
    const s = await leaf('revoked-after-claim');
    const ocsp = await ocspResponse(inter, s, inter, { status: 'revoked', revokedAt: new Date('2025-09-01T00:00:00Z'), reason: 1, thisUpdate: LATER });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { ocsps: [ocsp], crls: [rootCrl] } }), { trustStore: store, revocation: embedded });
    expect(r.status).toBe('untrusted');
    expect(r.reasons).toEqual(['untrusted_signer', 'revoked']);
    expect(r.trusted).toBe(false);
    expect(detail(r)).toMatchObject({ chain_ok: true, trusted: false, proof_time: null });
    expect(detail(r).revocation?.outcome).toBe('revoked_after_claimed_time');
  });

  it('revoked after a trusted signature time-stamp: valid (long-term validation), noted in details', async () => {
    const s = await leaf('revoked-after-proof');
    const ocsp = await ocspResponse(inter, s, inter, { status: 'revoked', revokedAt: new Date('2025-09-01T00:00:00Z'), thisUpdate: LATER });
    const pdf = await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { ocsps: [ocsp], crls: [rootCrl] }, timestamp: { tsa, chain: [tsaRoot], genTime: new Date('2025-06-01T10:00:05Z') } });
    const r = await verifyPdfSignatures(pdf, { trustStore: store, revocation: embedded });
    expect(r.status).toBe('valid');
    expect(r.reasons).toEqual(['signature_valid']);
    expect(detail(r)).toMatchObject({ proof_time: '2025-06-01T10:00:05.000Z', proof_source: 'signature_timestamp', signed_at_source: 'timestamp' });
    expect(detail(r).revocation).toMatchObject({ outcome: 'revoked_after_proven_time', time_source: 'proof' });
  });

  it('a forged OCSP response (signed by a stranger) is ignored: unknown', async () => {
    const s = await leaf('forged-embedded');
    const forged = await ocspResponse(stranger, s, inter, { status: 'good', thisUpdate: LATER, include: stranger });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { ocsps: [forged], crls: [rootCrl] } }), { trustStore: store, revocation: embedded });
    expect(r.status).toBe('valid');
    expect(r.reasons).toEqual(['signature_valid', 'revocation_unknown']);
    const c = detail(r).revocation!.certificates[0];
    expect(c.status).toBe('unknown');
    expect(c.notes.join('\n')).toMatch(/embedded OCSP response ignored: OCSP responder certificate not issued by the certificate's issuer/);
  });

  it('a delegated responder (issued by the issuer, id-kp-OCSPSigning) counts', async () => {
    const s = await leaf('delegated');
    const responder = await party('Delegated OCSP', { issuer: inter, eku: ['1.3.6.1.5.5.7.3.9'] });
    const ocsp = await ocspResponse(responder, s, inter, { status: 'good', thisUpdate: LATER, include: responder });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { ocsps: [ocsp], crls: [rootCrl] } }), { trustStore: store, revocation: embedded });
    expect(r.reasons).toEqual(['signature_valid']);
    expect(statuses(r)?.[0]).toEqual(['Signer delegated', 'good', 'ocsp', 'embedded']);
  });

  it('a stale answer (its window ends before the signing time) is ignored: unknown', async () => {
    const s = await leaf('stale');
    const ocsp = await ocspResponse(inter, s, inter, { status: 'good', thisUpdate: new Date('2025-01-01T00:00:00Z'), nextUpdate: new Date('2025-01-08T00:00:00Z') });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { ocsps: [ocsp], crls: [rootCrl] } }), { trustStore: store, revocation: embedded });
    expect(r.reasons).toEqual(['signature_valid', 'revocation_unknown']);
    expect(detail(r).revocation!.certificates[0].notes.join('\n')).toMatch(/embedded answer stale for 2025-06-01T10:00:00.000Z/);
    expect(fitsTime({ thisUpdate: new Date('2025-01-01'), nextUpdate: new Date('2025-07-01') }, T_SIGN)).toBe(true);
    expect(fitsTime({ thisUpdate: new Date('2025-07-01'), nextUpdate: null }, T_SIGN)).toBe(true);
    expect(fitsTime({ thisUpdate: new Date('2025-01-01'), nextUpdate: null }, T_SIGN)).toBe(false);
  });

  it('certificates that name no source are not checkable: no reason (as Adobe Reader)', async () => {
    const s = await leaf('no-sources', { sources: false });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { crls: [rootCrl] } }), { trustStore: store, revocation: embedded });
    expect(r.reasons).toEqual(['signature_valid']);
    expect(detail(r).revocation?.outcome).toBe('good');
    expect(statuses(r)?.[0]).toEqual(['Signer no-sources', 'not_checkable', null, null]);
  });

  it('embedded mode makes no request; off mode checks nothing and gives no reason', async () => {
    const s = await leaf('modes');
    const pdf = await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN });
    const before = hits.total ?? 0;
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock });
    const e = await verifyPdfSignatures(pdf, { trustStore: store, revocation: { mode: 'embedded', fetch: fetcher.forAnalysis() } });
    expect(e.reasons).toEqual(['signature_valid', 'revocation_unknown']);
    expect(detail(e).revocation!.certificates[0].notes).toContain('no online look-up (COTEJO_REVOCATION_CHECK=embedded)');
    const off = await verifyPdfSignatures(pdf, { trustStore: store, revocation: { mode: 'off', fetch: fetcher.forAnalysis() } });
    expect(off.reasons).toEqual(['signature_valid']);
    expect(detail(off).revocation).toBeNull();
    expect(hits.total ?? 0).toBe(before);
  });

  it('untrusted chains are not checked (no look-up of URLs from certificates that chain to no anchor)', async () => {
    const s = await leaf('untrusted-chain');
    const before = hits.total ?? 0;
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN }), { trustStore: { roots: [], source: 'empty' }, revocation: { mode: 'online', fetch: fetcher.forAnalysis() } });
    expect(r.reasons).toEqual(['untrusted_signer']);
    expect(detail(r).revocation).toBeNull();
    expect(hits.total ?? 0).toBe(before);
  });
});

describe('online revocation', () => {
  const online = (f: RevocationFetcher): RevocationOptions => ({ mode: 'online', fetch: f.forAnalysis() });

  it('asks the OCSP responder and the root CRL once, then answers from the cache', async () => {
    const s = await leaf('online-good');
    const pdf = await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN });
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock });
    const before = { ocsp: hits['ocsp/online-good'] ?? 0, root: hits['crl/root.crl'] ?? 0 };
    const r = await verifyPdfSignatures(pdf, { trustStore: store, revocation: online(fetcher) });
    expect(r.reasons).toEqual(['signature_valid']);
    expect(statuses(r)).toEqual([
      ['Signer online-good', 'good', 'ocsp', 'online'],
      ['Test Intermediate CA', 'good', 'crl', 'online'],
    ]);
    const again = await verifyPdfSignatures(pdf, { trustStore: store, revocation: online(fetcher) });
    expect(again.reasons).toEqual(['signature_valid']);
    expect(hits['ocsp/online-good'] - before.ocsp).toBe(1);
    expect(hits['crl/root.crl'] - before.root).toBe(1);
  });

  it('revoked before signing, answered online by OCSP: invalid', async () => {
    const s = await leaf('online-revoked');
    behaviour.set('online-revoked', { revokedAt: new Date('2025-02-01T00:00:00Z'), reason: 1 });
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN }), { trustStore: store, revocation: online(fetcher) });
    expect(r.status).toBe('invalid');
    expect(r.reasons).toEqual(['signature_invalid', 'revoked']);
    expect(detail(r).revocation?.certificates[0]).toMatchObject({ status: 'revoked', origin: 'online', source: 'ocsp', reason: 'keyCompromise' });
  });

  it('falls back to the CRL when the OCSP responder answers with an error', async () => {
    const s = await leaf('ocsp-down-crl-up');
    behaviour.set('ocsp-down-crl-up', 'ocsp-down');
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock });
    const pdf = await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN });
    const r = await verifyPdfSignatures(pdf, { trustStore: store, revocation: online(fetcher) });
    expect(r.reasons).toEqual(['signature_valid']);
    expect(statuses(r)?.[0]).toEqual(['Signer ocsp-down-crl-up', 'good', 'crl', 'online']);
  });

  it('responder and CRL down: revocation_unknown, the signature stays valid', async () => {
    const s = await leaf('down');
    behaviour.set('down', 'down');
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN }), { trustStore: store, revocation: online(fetcher) });
    expect(r.status).toBe('valid');
    expect(r.reasons).toEqual(['signature_valid', 'revocation_unknown']);
    const notes = detail(r).revocation!.certificates[0].notes.join('\n');
    expect(notes).toMatch(/OCSP http:\/\/127\.0\.0\.1:\d+\/ocsp\/down: HTTP 503/);
    expect(notes).toMatch(/CRL http:\/\/127\.0\.0\.1:\d+\/crl\/int\/down\.crl: HTTP 503/);
  });

  it('a responder that does not answer in time: revocation_unknown', async () => {
    const s = await leaf('hang');
    behaviour.set('hang', 'hang');
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock, requestTimeoutMs: 300 });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN }), { trustStore: store, revocation: online(fetcher) });
    expect(r.reasons).toEqual(['signature_valid', 'revocation_unknown']);
    expect(detail(r).revocation!.certificates[0].notes.join('\n')).toMatch(/no answer within 300 ms/);
  }, 30_000);

  it('a forged online OCSP answer is ignored and the CRL answers instead', async () => {
    const s = await leaf('forged-online');
    behaviour.set('forged-online', 'forged');
    const fetcher = new RevocationFetcher({ allowPrivate: true, clock: systemClock });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN }), { trustStore: store, revocation: online(fetcher) });
    expect(r.reasons).toEqual(['signature_valid']);
    const c = detail(r).revocation!.certificates[0];
    expect([c.status, c.source, c.origin]).toEqual(['good', 'crl', 'online']);
    expect(c.notes.join('\n')).toMatch(/online OCSP response ignored: OCSP responder certificate not issued by the certificate's issuer/);
  });

  it('SSRF: a certificate URL to a private address is refused when private URLs are not allowed', async () => {
    const before = hits.total ?? 0;
    const literal = await leaf('ssrf-literal');
    const named = await leaf('ssrf-named', { host: `http://revocation.example:${(server.address() as AddressInfo).port}` });
    const fetcher = new RevocationFetcher({ allowPrivate: false, clock: systemClock, resolver: async () => [{ address: '127.0.0.1', family: 4 }] });
    for (const s of [literal, named]) {
      const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, dss: { crls: [rootCrl] } }), { trustStore: store, revocation: online(fetcher) });
      expect(r.reasons).toEqual(['signature_valid', 'revocation_unknown']);
      expect(detail(r).revocation!.certificates[0].notes.join('\n')).toMatch(/private or reserved address|not a public address/);
    }
    expect(hits.total ?? 0).toBe(before);
  });
});

describe('trusted time-stamps', () => {
  it('a trusted TSA gives proof_time, and the signature verifies after the signer certificate expired (LTV)', async () => {
    const s = await leaf('ltv', { notAfter: new Date('2025-12-31T00:00:00Z'), sources: false });
    const now = new Date('2026-11-24T12:00:00Z');
    const stamped = await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, timestamp: { tsa, chain: [tsaRoot], genTime: T_SIGN } });
    const r = await verifyPdfSignatures(stamped, { trustStore: store, now });
    expect(r.status).toBe('valid');
    expect(detail(r)).toMatchObject({ proof_time: T_SIGN.toISOString(), proof_source: 'signature_timestamp', signed_at: T_SIGN.toISOString(), trusted: true });
    // a forced validation time still wins
    expect((await verifyPdfSignatures(stamped, { trustStore: store, at: now })).status).toBe('untrusted');
    // without a time-stamp the claimed time proves nothing: validity at `now`, the certificate has expired
    const claimed = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN }), { trustStore: store, now });
    expect(claimed.status).toBe('untrusted');
    expect(detail(claimed).proof_time).toBeNull();
  });

  it('an untrusted TSA gives no proof_time (signed_at still shows its genTime)', async () => {
    const s = await leaf('rogue-ts', { notAfter: new Date('2025-12-31T00:00:00Z'), sources: false });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, timestamp: { tsa: rogueTsa, chain: [], genTime: T_SIGN } }), {
      trustStore: store,
      now: new Date('2026-11-24T12:00:00Z'),
    });
    expect(detail(r)).toMatchObject({ proof_time: null, proof_source: null, signed_at_source: 'timestamp' });
    expect(r.status).toBe('untrusted');
  });

  it('a TSA certificate without id-kp-timeStamping proves nothing, even under a trusted root (RFC 3161 2.3)', async () => {
    const s = await leaf('no-eku-ts', { notAfter: new Date('2025-12-31T00:00:00Z'), sources: false });
    const plain = await party('TSA without EKU', { issuer: tsaRoot });
    const r = await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN, timestamp: { tsa: plain, chain: [tsaRoot], genTime: T_SIGN } }), {
      trustStore: store,
      now: new Date('2026-11-24T12:00:00Z'),
    });
    expect(detail(r)).toMatchObject({ proof_time: null, signed_at_source: 'timestamp' });
    expect(r.status).toBe('untrusted');
  });

  it('a TSA listed as a TSA/QTST service proves its time only while the service was granted', async () => {
    const s = await leaf('listed-tsa', { notAfter: new Date('2025-12-31T00:00:00Z'), sources: false });
    const GRANTED = 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted';
    const WITHDRAWN = 'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/withdrawn';
    const service = (type: string) => ({
      territory: 'ES',
      name: 'QTSA',
      type,
      certs: [rogueTsa.der],
      history: [
        { status: GRANTED, from: new Date('2016-07-01T00:00:00Z'), to: new Date('2025-03-01T00:00:00Z') },
        { status: WITHDRAWN, from: new Date('2025-03-01T00:00:00Z'), to: null },
      ],
    });
    const listedStore = (type: string): TrustStore => ({ roots: [root.pkix], source: 'test', listed: [{ cert: rogueTsa.pkix, label: 'EU trusted list ES: QTSA', service: service(type), listIssued: null, fetchedAt: null }] });
    const now = new Date('2026-11-24T12:00:00Z');
    const at = async (genTime: Date, store: TrustStore) =>
      detail(await verifyPdfSignatures(await signedPdf({ signer: s, chain: [inter], signingTime: genTime, timestamp: { tsa: rogueTsa, chain: [], genTime } }), { trustStore: store, now }));
    const granted = await at(new Date('2025-01-15T00:00:00Z'), listedStore(TSA_QTST));
    expect(granted).toMatchObject({ proof_time: '2025-01-15T00:00:00.000Z', proof_source: 'signature_timestamp', status: 'valid' });
    const withdrawn = await at(T_SIGN, listedStore(TSA_QTST));
    expect(withdrawn).toMatchObject({ proof_time: null, status: 'untrusted' });
    // a CA/QC service does not vouch for a time-stamp
    expect((await at(new Date('2025-01-15T00:00:00Z'), listedStore(CA_QC))).proof_time).toBeNull();
  });

  it('a later trusted document time-stamp proves the time of the signature it covers', async () => {
    const s = await leaf('doc-ts', { notAfter: new Date('2025-12-31T00:00:00Z'), sources: false });
    const stampTime = new Date('2025-07-01T00:00:00Z');
    const pdf = await withDocTimestamp(await signedPdf({ signer: s, chain: [inter], signingTime: T_SIGN }), tsa, [tsaRoot], stampTime);
    const r = await verifyPdfSignatures(pdf, { trustStore: store, now: new Date('2026-11-24T12:00:00Z') });
    expect(r.details.map((d) => [d.kind, d.status, d.proof_time, d.proof_source])).toEqual([
      ['signature', 'valid', stampTime.toISOString(), 'document_timestamp'],
      ['document_timestamp', 'valid', stampTime.toISOString(), 'document_timestamp'],
    ]);
    expect(r.status).toBe('valid');
  });
});

describe('embedded revocation data of real files (shared corpus, read-only)', () => {
  const DATA = join(import.meta.dirname, '../../../../shared/testdata/pdf-signatures');
  let corpusStore: TrustStore;
  beforeAll(async () => {
    const [roots, pyca, anchor] = await Promise.all([loadTrustStore(join(DATA, 'roots')), loadTrustStore(join(DATA, 'pyhanko/ca')), loadTrustStore(join(DATA, 'dss'))]);
    corpusStore = { roots: [...roots.roots, ...pyca.roots.filter((c) => c.subject.isEqual(c.issuer)), ...anchor.roots], source: 'corpus' };
  });
  const check = (file: string) => verifyPdfSignatures(new Uint8Array(readFileSync(join(DATA, file))), { trustStore: corpusStore, revocation: embedded });

  it('pyHanko PAdES-B-LTA with a DSS: the signer good by OCSP, the intermediate good by CRL, at the time-stamp time', async () => {
    for (const file of ['pyhanko/pades-lta-dss-indirect-arrs-test.pdf', 'pyhanko/pades-lta-dss-indirect-arrs-test-2.pdf']) {
      const r = await check(file);
      expect(r.reasons).toEqual(['signature_valid']);
      const sig = r.details.find((d) => d.kind === 'signature')!;
      expect(sig).toMatchObject({ proof_time: '2020-11-01T00:00:00.000Z', proof_source: 'signature_timestamp' });
      expect(sig.revocation?.outcome).toBe('good');
      expect(sig.revocation?.certificates.map((c) => [c.subject, c.status, c.source, c.origin])).toEqual([
        ['Alice', 'good', 'ocsp', 'embedded'],
        ['Intermediate CA', 'good', 'crl', 'embedded'],
      ]);
    }
  });

  it('EU DSS doc-firmado.pdf: a three-certificate path good by its DSS (OCSP for the signer, CRLs for the CAs)', async () => {
    const r = await check('dss/doc-firmado.pdf');
    expect(r.reasons).toEqual(['signature_valid']);
    expect(r.details[0].revocation?.certificates.map((c) => [c.status, c.source])).toEqual([
      ['good', 'ocsp'],
      ['good', 'crl'],
      ['good', 'crl'],
    ]);
  });
});
