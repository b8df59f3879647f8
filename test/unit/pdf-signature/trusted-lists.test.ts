// EU trusted lists: a LOTL and a national list written and signed here (RSA and ECDSA P-256), never
// fetched. Verification against pinned signers, refusals, status history and the at-signing-time rule.
import { webcrypto } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateChain } from '../../../server/src/validators/pdf-signature/chain.ts';
import { parseCertificates, verifyPdfSignatures, type TrustStore } from '../../../server/src/validators/pdf-signature/index.ts';
import {
  CA_QC,
  grantedAt,
  listedLabel,
  loadTrustedLists,
  readTrustList,
  TrustListError,
  TSA_QTST,
} from '../../../server/src/validators/pdf-signature/trusted-lists.ts';
import { ACCREDITED, EC, GRANTED, listXml, party, pointer, RSA, service, sign, tsp, WITHDRAWN, type Party } from '../../support/trusted-lists.ts';

let lotlSigner: Party; // RSA, pinned by the operator
let esSigner: Party; // ECDSA P-256, announced by the LOTL for ES
let stranger: Party;
let caGranted: Party; // granted since 2016
let caWithdrawn: Party; // accredited 2012, granted 2016, withdrawn 2024-06-01
let caOther: Party; // not CA/QC
let lotl: string;
let esBody: string;
let es: string;

beforeAll(async () => {
  [lotlSigner, esSigner, stranger] = await Promise.all([party('LOTL signer', RSA), party('ES TL signer', EC), party('Stranger', EC)]);
  [caGranted, caWithdrawn, caOther] = await Promise.all([party('ES Granted CA', EC), party('ES Withdrawn CA', RSA), party('ES TSA', EC)]);
  lotl = sign(listXml('EU', { pointers: pointer('EU', lotlSigner) + pointer('ES', esSigner) }), lotlSigner);
  esBody = listXml('ES', {
    tsps: tsp(
      'Example TSP',
      service('Granted CA service', caGranted, GRANTED, '2016-07-01T00:00:00Z') +
        service('Withdrawn CA service', caWithdrawn, WITHDRAWN, '2024-06-01T00:00:00Z', [
          [GRANTED, '2016-07-01T00:00:00Z'],
          [ACCREDITED, '2012-03-01T00:00:00Z'],
        ]) +
        service('Time-stamping', caOther, GRANTED, '2016-07-01T00:00:00Z', [], 'http://uri.etsi.org/TrstSvc/Svctype/TSA/QTST'),
    ),
  });
  es = sign(esBody, esSigner);
}, 60_000);

describe('readTrustList', () => {
  it('reads a valid LOTL (RSA) and the ES list (ECDSA) it announces: services and their status history', () => {
    const l = readTrustList(lotl, [lotlSigner.der]);
    expect(l.territory).toBe('EU');
    expect(l.sequence).toBe(42);
    expect(l.warnings).toEqual([]);
    expect(Buffer.from(l.pointers.get('ES')![0]).equals(Buffer.from(esSigner.der))).toBe(true);

    const tl = readTrustList(es, l.pointers.get('ES')!);
    expect(tl.territory).toBe('ES');
    expect(tl.services.map((s) => [s.name, s.type])).toEqual([
      ['Granted CA service', CA_QC],
      ['Withdrawn CA service', CA_QC],
      ['Time-stamping', 'http://uri.etsi.org/TrstSvc/Svctype/TSA/QTST'],
    ]);
    const w = tl.services[1];
    expect(w.history.map((h) => [h.status, h.from.toISOString(), h.to?.toISOString() ?? null])).toEqual([
      [ACCREDITED, '2012-03-01T00:00:00.000Z', '2016-07-01T00:00:00.000Z'],
      [GRANTED, '2016-07-01T00:00:00.000Z', '2024-06-01T00:00:00.000Z'],
      [WITHDRAWN, '2024-06-01T00:00:00.000Z', null],
    ]);
    expect(Buffer.from(w.certs[0]).equals(Buffer.from(caWithdrawn.der))).toBe(true);
  });

  it('granted periods: before, during and after', () => {
    const w = readTrustList(es, [esSigner.der]).services[1];
    expect(grantedAt(w, new Date('2011-01-01T00:00:00Z'))).toBe(false);
    expect(grantedAt(w, new Date('2013-01-01T00:00:00Z'))).toBe(true); // accredited
    expect(grantedAt(w, new Date('2024-05-31T23:59:59Z'))).toBe(true);
    expect(grantedAt(w, new Date('2024-06-01T00:00:00Z'))).toBe(false);
    expect(grantedAt(w, new Date('2026-01-01T00:00:00Z'))).toBe(false);
  });

  it('accepts a BOM', () => {
    expect(readTrustList(`\uFEFF${es}`, [esSigner.der]).services).toHaveLength(3);
    expect(readTrustList(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(es)]), [esSigner.der]).territory).toBe('ES');
  });

  it('refuses a list changed after signing', () => {
    const tampered = es.replace(WITHDRAWN, GRANTED);
    expect(tampered).not.toBe(es);
    expect(() => readTrustList(tampered, [esSigner.der])).toThrow(/^signature/);
  });

  it('refuses a list signed by a key the LOTL does not announce for it', () => {
    const bySomeoneElse = sign(esBody, stranger);
    expect(() => readTrustList(bySomeoneElse, [esSigner.der])).toThrow(/KeyInfo carries a certificate that is not a pinned signer/);
    const l = readTrustList(lotl, [lotlSigner.der]);
    expect(() => readTrustList(bySomeoneElse, l.pointers.get('ES')!)).toThrow(TrustListError);
    expect(() => readTrustList(es, [])).toThrow(/no pinned signer/);
  });

  it('refuses KeyInfo naming another certificate than the pinned one, even if the key signed', () => {
    // Signed by the pinned key, but KeyInfo names the stranger's certificate.
    const mixed = sign(esBody, esSigner, stranger);
    expect(() => readTrustList(mixed, [esSigner.der])).toThrow(/not a pinned signer/);
    // Signed by the stranger, KeyInfo names the pinned certificate: the key does not match.
    const forged = sign(esBody, stranger, esSigner);
    expect(() => readTrustList(forged, [esSigner.der])).toThrow(/^signature/);
  });

  it('refuses two signatures and a DOCTYPE', () => {
    const twice = sign(es, esSigner);
    expect(() => readTrustList(twice, [esSigner.der])).toThrow(/exactly one signature, found 2/);
    const doctype = es.replace('<tsl:TrustServiceStatusList', '<!DOCTYPE x [<!ENTITY e "x">]><tsl:TrustServiceStatusList');
    expect(() => readTrustList(doctype, [esSigner.der])).toThrow(/DOCTYPE/);
  });

  it('refuses a list issued when its signer certificate was not valid', () => {
    const late = sign(esBody.replace('<tsl:ListIssueDateTime>2026-01-01T00:00:00Z', '<tsl:ListIssueDateTime>2045-01-01T00:00:00Z'), esSigner);
    expect(() => readTrustList(late, [esSigner.der])).toThrow(/signer certificate not valid at ListIssueDateTime 2045/);
  });

  it('warns, without refusing, when NextUpdate has passed', () => {
    const stale = sign(listXml('ES', { nextUpdate: '2020-01-01T00:00:00Z', tsps: tsp('T', service('S', caGranted, GRANTED, '2016-07-01T00:00:00Z')) }), esSigner);
    const tl = readTrustList(stale, [esSigner.der]);
    expect(tl.services).toHaveLength(1);
    expect(tl.warnings).toEqual(['ES: NextUpdate 2020-01-01T00:00:00.000Z has passed']);
  });
});

describe('LOTL locations', () => {
  it('records, per territory, the TSLLocation of the XML pointer only (not the PDF copy, not a pointer without MimeType)', () => {
    const withPdf = sign(
      listXml('EU', {
        pointers:
          pointer('ES', esSigner, 'https://tl.example/ES.pdf', 'application/pdf') +
          pointer('ES', esSigner, 'https://tl.example/ES.xml') +
          pointer('FR', stranger, 'https://tl.example/FR.xml', '') +
          pointer('EU', lotlSigner, 'https://tl.example/eu-lotl.xml'),
      }),
      lotlSigner,
    );
    const l = readTrustList(withPdf, [lotlSigner.der]);
    expect([...l.locations]).toEqual([
      ['ES', 'https://tl.example/ES.xml'],
      ['EU', 'https://tl.example/eu-lotl.xml'],
    ]);
    expect(l.pointers.get('ES')).toHaveLength(2); // both ES pointers name the signer
    expect(l.signedBy).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('listedLabel', () => {
  const DAY = 86_400_000;
  const anchor = { label: 'EU trusted list ES: Granted CA service', listIssued: new Date('2026-08-21T09:00:00Z'), fetchedAt: null as Date | null };

  it('a seed list (never fetched) older than the interval carries its issue date', () => {
    expect(listedLabel(anchor, new Date('2026-08-21T20:00:00Z'), DAY)).toBe('EU trusted list ES: Granted CA service');
    expect(listedLabel(anchor, new Date('2026-08-22T09:00:01Z'), DAY)).toBe('EU trusted list ES: Granted CA service (list of 2026-08-21, older than the refresh interval)');
  });

  it('a fetched list is as fresh as its last fetch, however old its issue date', () => {
    const fetched = { ...anchor, fetchedAt: new Date('2026-11-24T06:00:00Z') };
    expect(listedLabel(fetched, new Date('2026-11-24T18:00:00Z'), DAY)).toBe('EU trusted list ES: Granted CA service');
    expect(listedLabel(fetched, new Date('2026-11-26T18:00:00Z'), DAY)).toBe('EU trusted list ES: Granted CA service (list fetched 2026-11-24, older than the refresh interval)');
    expect(listedLabel(fetched, new Date('2026-11-26T18:00:00Z'), 7 * DAY)).toBe('EU trusted list ES: Granted CA service');
  });

  it('no date known: the label alone', () => {
    expect(listedLabel({ ...anchor, listIssued: null }, new Date('2030-01-01T00:00:00Z'), DAY)).toBe('EU trusted list ES: Granted CA service');
  });
});

describe('loadTrustedLists', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cotejo-tl-'));
    await mkdir(join(dir, 'lotl-signers'));
    await writeFile(join(dir, 'lotl.xml'), lotl);
    await writeFile(join(dir, 'lotl-signers', 'oj.pem'), lotlSigner.pem);
    await writeFile(join(dir, 'ES.xml'), es);
    await writeFile(join(dir, 'FR.xml'), sign(listXml('FR', { tsps: tsp('T', service('FR CA', caOther, GRANTED, '2016-07-01T00:00:00Z')) }), stranger));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps the CA/QC services of verified lists as anchors and skips a failing list with one warning', async () => {
    const warnings: string[] = [];
    const anchors = await loadTrustedLists(dir, (m) => warnings.push(m));
    // CA/QC services anchor signer chains; TSA/QTST ones are kept for time-stamp authorities (index.ts tells them apart).
    expect(anchors.map((a) => [a.label, a.service.type])).toEqual([
      ['EU trusted list ES: Granted CA service', CA_QC],
      ['EU trusted list ES: Withdrawn CA service', CA_QC],
      ['EU trusted list ES: Time-stamping', TSA_QTST],
    ]);
    expect(anchors.every((a) => a.listIssued?.toISOString() === '2026-01-01T00:00:00.000Z' && a.fetchedAt === null)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^trusted lists: FR\.xml skipped: /);
  });

  it('a withdrawn CA anchors a chain signed before the withdrawal, not one signed after', async () => {
    const anchors = await loadTrustedLists(dir, () => {});
    const leaf = await party('Signer', EC, caWithdrawn, false);
    const [leafCert] = parseCertificates(leaf.der);
    const rootsAt = (t: Date) => anchors.filter((a) => a.service.type === CA_QC && grantedAt(a.service, t)).map((a) => a.cert);
    const before = new Date('2020-01-01T00:00:00Z');
    const after = new Date('2025-01-01T00:00:00Z');
    expect(evaluateChain(leafCert, [], rootsAt(before), before).trusted).toBe(true);
    expect(evaluateChain(leafCert, [], rootsAt(after), after).trusted).toBe(false);
    expect(rootsAt(after)).toHaveLength(1); // the granted CA only
  });

  it('a refused LOTL gives no anchors', async () => {
    const warnings: string[] = [];
    const other = await mkdtemp(join(tmpdir(), 'cotejo-tl-'));
    try {
      await writeFile(join(other, 'lotl.xml'), lotl); // no lotl-signers: nothing pinned
      await writeFile(join(other, 'ES.xml'), es);
      expect(await loadTrustedLists(other, (m) => warnings.push(m))).toEqual([]);
      expect(warnings).toEqual(['trusted lists: lotl.xml skipped: no pinned signer certificate for this list']);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

// A one-page PDF with a detached CMS signature (signed attributes: contentType, messageDigest,
// signingTime) made here with pkijs; written by hand so the ByteRange offsets are known.
async function signedPdf(signer: Party, chain: Party[], signingTime: Date): Promise<Uint8Array> {
  const HOLE = 8192;
  const parts = [
    '%PDF-1.7\n',
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >> >>\nendobj\n',
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n',
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>\nendobj\n',
    '4 0 obj\n<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 0 0] /P 3 0 R /V 5 0 R >>\nendobj\n',
    `5 0 obj\n<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 0000000000 0000000000 0000000000] /Contents <${'0'.repeat(HOLE)}> >>\nendobj\n`,
  ];
  const offsets: number[] = [];
  let body = '';
  for (const p of parts) {
    if (p.startsWith('%')) body += p;
    else {
      offsets.push(body.length);
      body += p;
    }
  }
  const xref = body.length;
  body += `xref\n0 6\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  const a = body.indexOf('/Contents <') + '/Contents '.length;
  const b = a + HOLE + 2;
  const pad = (n: number) => String(n).padStart(10, '0');
  body = body.replace('[0 0000000000 0000000000 0000000000]', `[0 ${pad(a)} ${pad(b)} ${pad(body.length - b)}]`);
  const buf = Buffer.from(body, 'latin1');
  const signed = Buffer.concat([buf.subarray(0, a), buf.subarray(b)]);

  const asn1js = await import('asn1js');
  const pkijs = await import('pkijs');
  pkijs.setEngine('cotejo-test', new pkijs.CryptoEngine({ name: 'cotejo-test', crypto: webcrypto as unknown as Crypto }));
  const certs = [signer, ...chain].map((p) => parseCertificates(p.der)[0]);
  const digest = new Uint8Array(await webcrypto.subtle.digest('SHA-256', signed));
  const sd = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.7.1' }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: certs[0].issuer, serialNumber: certs[0].serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({ type: '1.2.840.113549.1.9.3', values: [new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })] }),
            new pkijs.Attribute({ type: '1.2.840.113549.1.9.4', values: [new asn1js.OctetString({ valueHex: digest })] }),
            new pkijs.Attribute({ type: '1.2.840.113549.1.9.5', values: [new asn1js.UTCTime({ valueDate: signingTime })] }),
          ],
        }),
      }),
    ],
    certificates: certs,
  });
  await sd.sign(signer.keys.privateKey, 0, 'SHA-256');
  const cms = new pkijs.ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: sd.toSchema(true) }).toSchema().toBER(false);
  const hex = Buffer.from(cms).toString('hex').padEnd(HOLE, '0');
  buf.write(hex, a + 1, 'latin1');
  return new Uint8Array(buf);
}

describe('verifyPdfSignatures with trusted-list anchors', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cotejo-tl-'));
    await mkdir(join(dir, 'lotl-signers'));
    await writeFile(join(dir, 'lotl.xml'), lotl);
    await writeFile(join(dir, 'lotl-signers', 'oj.pem'), lotlSigner.pem);
    await writeFile(join(dir, 'ES.xml'), es);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('trusted when signed while the CA was granted (withdrawn since); untrusted when signed after the withdrawal', async () => {
    const trustStore: TrustStore = { roots: [], source: 'test', listed: await loadTrustedLists(dir, () => {}) };
    const leaf = await party('Ana Signer', EC, caWithdrawn, false);
    const before = await verifyPdfSignatures(await signedPdf(leaf, [caWithdrawn], new Date('2020-03-01T10:00:00Z')), { trustStore });
    expect(before.details[0]).toMatchObject({ digest_ok: true, signature_ok: true, chain_ok: true, trusted: true, trust_anchor: 'EU trusted list ES: Withdrawn CA service' });
    expect(before.status).toBe('valid');

    const after = await verifyPdfSignatures(await signedPdf(leaf, [caWithdrawn], new Date('2025-03-01T10:00:00Z')), { trustStore });
    expect(after.details[0]).toMatchObject({ digest_ok: true, signature_ok: true, chain_ok: true, trusted: false, trust_anchor: null });
    expect(after.status).toBe('untrusted');

    // Without the lists, the same signature is untrusted: the anchor came from the list.
    const none = await verifyPdfSignatures(await signedPdf(leaf, [caWithdrawn], new Date('2020-03-01T10:00:00Z')), { trustStore: { roots: [], source: 'empty' } });
    expect(none.status).toBe('untrusted');
  });

  it('trust_anchor names the list date when the trust data is older than the refresh interval (judged at now)', async () => {
    const listed = await loadTrustedLists(dir, () => {});
    const issued = listed[0].listIssued!;
    const trustStore: TrustStore = { roots: [], source: 'test', listed, listedStaleAfterMs: 24 * 3_600_000 };
    const leaf = await party('Ana Signer', EC, caWithdrawn, false);
    const pdf = await signedPdf(leaf, [caWithdrawn], new Date('2020-03-01T10:00:00Z'));
    const at = new Date('2020-03-01T10:00:00Z');
    const fresh = await verifyPdfSignatures(pdf, { trustStore, at, now: new Date(issued.getTime() + 3_600_000) });
    expect(fresh.trust_anchor).toBe('EU trusted list ES: Withdrawn CA service');
    const stale = await verifyPdfSignatures(pdf, { trustStore, at, now: new Date(issued.getTime() + 3 * 24 * 3_600_000) });
    expect(stale.trust_anchor).toBe(`EU trusted list ES: Withdrawn CA service (list of ${issued.toISOString().slice(0, 10)}, older than the refresh interval)`);
    expect(stale.status).toBe('valid');
    // Without a `now` the library has no clock: the label as it is.
    expect((await verifyPdfSignatures(pdf, { trustStore, at })).trust_anchor).toBe('EU trusted list ES: Withdrawn CA service');
  });
});
