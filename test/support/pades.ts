// A small PKI and PAdES signing kit made in the tests (no fetched data): certificates with AIA/CRL DP
// extensions (@peculiar/x509), CRLs, OCSP responses and RFC 3161 time-stamp tokens (pkijs), and PDFs signed
// with a detached CMS (adbe.pkcs7.detached), optionally with a DSS, adbe-revocationInfoArchival, SignedData
// crls, a signature time-stamp, or a later document time-stamp.
import 'reflect-metadata'; // @peculiar/x509 (tsyringe) needs the Reflect metadata polyfill
import { createHash, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);
pkijs.setEngine('cotejo-test', new pkijs.CryptoEngine({ name: 'cotejo-test', crypto: webcrypto as unknown as Crypto }));

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const SHA256 = '2.16.840.1.101.3.4.2.1';
const SHA1 = '1.3.14.3.2.26';
type Bytes = Uint8Array<ArrayBuffer>;
const bytes = (b: ArrayBuffer | Uint8Array): Bytes => new Uint8Array(b) as Bytes;

export interface Party {
  name: string;
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  der: Uint8Array;
  pkix: pkijs.Certificate;
  serial: string;
  pem: string;
}

export interface PartyOptions {
  issuer?: Party;
  ca?: boolean;
  notBefore?: Date;
  notAfter?: Date;
  ocspUrl?: string;
  crlUrl?: string;
  /** Extended key usages (OIDs), e.g. id-kp-OCSPSigning 1.3.6.1.5.5.7.3.9 or id-kp-timeStamping 1.3.6.1.5.5.7.3.8. */
  eku?: string[];
}

let serialCounter = 0x1000;

export async function party(name: string, o: PartyOptions = {}): Promise<Party> {
  const ca = o.ca ?? !o.issuer;
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const serial = (++serialCounter).toString(16).padStart(8, '1');
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(ca, undefined, true),
    new x509.KeyUsagesExtension(ca ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation, true),
  ];
  if (o.ocspUrl) extensions.push(new x509.AuthorityInfoAccessExtension({ ocsp: o.ocspUrl }));
  if (o.crlUrl) extensions.push(new x509.CRLDistributionPointsExtension([o.crlUrl]));
  if (o.eku) extensions.push(new x509.ExtendedKeyUsageExtension(o.eku, true));
  const common = {
    serialNumber: serial,
    notBefore: o.notBefore ?? new Date('2010-01-01T00:00:00Z'),
    notAfter: o.notAfter ?? new Date('2040-01-01T00:00:00Z'),
    signingAlgorithm: EC,
    extensions,
  };
  const cert = o.issuer
    ? await x509.X509CertificateGenerator.create({ ...common, subject: `CN=${name}`, issuer: o.issuer.cert.subject, publicKey: keys.publicKey, signingKey: o.issuer.keys.privateKey })
    : await x509.X509CertificateGenerator.createSelfSigned({ ...common, name: `CN=${name}`, keys });
  const der = new Uint8Array(cert.rawData);
  return { name, cert, keys, der, pkix: pkijs.Certificate.fromBER(bytes(der)), serial, pem: cert.toString('pem') };
}

export interface Revoked {
  serial: string;
  at: Date;
  reason?: x509.X509CrlReason;
}

export async function crl(issuer: Party, o: { thisUpdate: Date; nextUpdate?: Date; revoked?: Revoked[] }): Promise<Uint8Array> {
  const c = await x509.X509CrlGenerator.create({
    issuer: issuer.cert.subject,
    thisUpdate: o.thisUpdate,
    nextUpdate: o.nextUpdate,
    signingAlgorithm: EC,
    signingKey: issuer.keys.privateKey,
    entries: (o.revoked ?? []).map((r) => ({ serialNumber: r.serial, revocationDate: r.at, reason: r.reason })),
  });
  return new Uint8Array(c.rawData);
}

/** CertID of `cert` (SHA-1 by default, as OCSP requests use). */
export function certId(cert: Party, issuer: Party, hash: 'sha1' | 'sha256' = 'sha1'): pkijs.CertID {
  const h = (b: ArrayBuffer | Uint8Array) => bytes(createHash(hash).update(new Uint8Array(b)).digest());
  return new pkijs.CertID({
    hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: hash === 'sha1' ? SHA1 : SHA256, algorithmParams: new asn1js.Null() }),
    issuerNameHash: new asn1js.OctetString({ valueHex: h(issuer.pkix.subject.toSchema().toBER(false)) }),
    issuerKeyHash: new asn1js.OctetString({ valueHex: h(issuer.pkix.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView) }),
    serialNumber: cert.pkix.serialNumber,
  });
}

export interface OcspOptions {
  status: 'good' | 'revoked' | 'unknown';
  revokedAt?: Date;
  reason?: number;
  thisUpdate: Date;
  nextUpdate?: Date;
  /** The responder's certificate, included in the response (a delegated responder or a forger). */
  include?: Party;
  id?: pkijs.CertID;
}

/** A successful basic OCSP response about `cert`, signed by `signer`. */
export async function ocspResponse(signer: Party, cert: Party, issuer: Party, o: OcspOptions): Promise<Uint8Array> {
  const certStatus =
    o.status === 'good'
      ? new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } })
      : o.status === 'unknown'
        ? new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 2 } })
        : new asn1js.Constructed({
            idBlock: { tagClass: 3, tagNumber: 1 },
            value: [
              new asn1js.GeneralizedTime({ valueDate: o.revokedAt! }),
              ...(o.reason !== undefined ? [new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [new asn1js.Enumerated({ value: o.reason })] })] : []),
            ],
          });
  const basic = new pkijs.BasicOCSPResponse({
    tbsResponseData: new pkijs.ResponseData({
      responderID: signer.pkix.subject,
      producedAt: o.thisUpdate,
      responses: [new pkijs.SingleResponse({ certID: o.id ?? certId(cert, issuer), certStatus, thisUpdate: o.thisUpdate, nextUpdate: o.nextUpdate })],
    }),
    ...(o.include ? { certs: [o.include.pkix] } : {}),
  });
  await basic.sign(signer.keys.privateKey, 'SHA-256');
  return new Uint8Array(
    new pkijs.OCSPResponse({
      responseStatus: new asn1js.Enumerated({ value: 0 }),
      responseBytes: new pkijs.ResponseBytes({ responseType: '1.3.6.1.5.5.7.48.1.1', response: new asn1js.OctetString({ valueHex: bytes(basic.toSchema().toBER(false)) }) }),
    })
      .toSchema()
      .toBER(false),
  );
}

const attr = (type: string, value: asn1js.BaseBlock) => new pkijs.Attribute({ type, values: [value] });

/** An RFC 3161 TimeStampToken (ContentInfo DER) over `imprinted`, by `tsa` with `chain`. */
export async function timestampToken(tsa: Party, chain: Party[], imprinted: Uint8Array, genTime: Date): Promise<Uint8Array> {
  const tst = new pkijs.TSTInfo({
    version: 1,
    policy: '1.2.3.4.1',
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: bytes(createHash('sha256').update(imprinted).digest()) }),
    }),
    serialNumber: new asn1js.Integer({ value: ++serialCounter }),
    genTime,
  });
  const content = bytes(tst.toSchema().toBER(false));
  const sd = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.9.16.1.4', eContent: new asn1js.OctetString({ valueHex: content }) }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: tsa.pkix.issuer, serialNumber: tsa.pkix.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            attr('1.2.840.113549.1.9.3', new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.9.16.1.4' })),
            attr('1.2.840.113549.1.9.4', new asn1js.OctetString({ valueHex: bytes(createHash('sha256').update(content).digest()) })),
          ],
        }),
      }),
    ],
    certificates: [tsa, ...chain].map((p) => p.pkix),
  });
  await sd.sign(tsa.keys.privateKey, 0, 'SHA-256');
  return new Uint8Array(new pkijs.ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: sd.toSchema(true) }).toSchema().toBER(false));
}

export interface SignOptions {
  signer: Party;
  chain: Party[];
  signingTime: Date;
  /** adbe-revocationInfoArchival (signed attribute). */
  archival?: { crls?: Uint8Array[]; ocsps?: Uint8Array[] };
  /** SignedData `crls` field: CRLs, and OCSP responses as id-ri-ocsp-response. */
  cmsCrls?: Uint8Array[];
  cmsOcsps?: Uint8Array[];
  /** A DSS in the catalog (/OCSPs, /CRLs, /Certs). */
  dss?: { ocsps?: Uint8Array[]; crls?: Uint8Array[]; certs?: Uint8Array[] };
  /** A signature time-stamp (unsigned attribute) over the signature value. */
  timestamp?: { tsa: Party; chain: Party[]; genTime: Date };
}

const HOLE = 16384;
/** An object number and the object's full text (`n 0 obj ... endobj`). */
type PdfObject = [number, string | Buffer];

function streamObj(num: number, data: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${num} 0 obj\n<< /Length ${data.length} >>\nstream\n`, 'latin1'), Buffer.from(data), Buffer.from('\nendstream\nendobj\n', 'latin1')]);
}

/** Assembles objects into a PDF (or an incremental update of `prev`) with a signature placeholder, and fills it. */
async function assemble(prev: Buffer | null, objects: PdfObject[], size: number, fill: (signed: Uint8Array) => Promise<Uint8Array>): Promise<Uint8Array> {
  const chunks: Buffer[] = [prev ?? Buffer.from('%PDF-1.7\n', 'latin1')];
  let pos = chunks[0].length;
  const xrefRows: [number, number][] = [];
  for (const [num, body] of objects) {
    xrefRows.push([num, pos]);
    const b = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
    chunks.push(b);
    pos += b.length;
  }
  xrefRows.sort((a, b) => a[0] - b[0]);
  let xref = 'xref\n';
  if (!prev) xref += `0 1\n0000000000 65535 f \n`;
  for (const [num, off] of xrefRows) xref += `${num} 1\n${String(off).padStart(10, '0')} 00000 n \n`;
  const prevXref = prev ? Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(prev.toString('latin1'))![1]) : null;
  xref += `trailer\n<< /Size ${size} /Root 1 0 R${prevXref !== null ? ` /Prev ${prevXref}` : ''} >>\nstartxref\n${pos}\n%%EOF\n`;
  chunks.push(Buffer.from(xref, 'latin1'));
  const buf = Buffer.concat(chunks);
  const text = buf.toString('latin1');
  const a = text.lastIndexOf('/Contents <') + '/Contents '.length;
  const b = a + HOLE + 2;
  const pad = (n: number) => String(n).padStart(10, '0');
  const brAt = text.lastIndexOf('[0 0000000000 0000000000 0000000000]');
  buf.write(`[0 ${pad(a)} ${pad(b)} ${pad(buf.length - b)}]`, brAt, 'latin1');
  const cms = await fill(new Uint8Array(Buffer.concat([buf.subarray(0, a), buf.subarray(b)])));
  const hex = Buffer.from(cms).toString('hex');
  if (hex.length > HOLE) throw new Error('signature larger than its placeholder');
  buf.write(hex.padEnd(HOLE, '0'), a + 1, 'latin1');
  return new Uint8Array(buf);
}

const sigDict = (type: string, subFilter: string) =>
  `<< /Type /${type} /Filter /Adobe.PPKLite /SubFilter /${subFilter} /ByteRange [0 0000000000 0000000000 0000000000] /Contents <${'0'.repeat(HOLE)}> >>`;

/** A one-page PDF with one approval signature (detached CMS, signed attributes contentType, messageDigest, signingTime). */
export async function signedPdf(o: SignOptions): Promise<Uint8Array> {
  const extra: PdfObject[] = [];
  let dssRef = '';
  if (o.dss) {
    let n = 10;
    const refs = (list: Uint8Array[] = []) => list.map((d) => {
      extra.push([n, streamObj(n, d)]);
      return `${n++} 0 R`;
    }).join(' ');
    const ocsps = refs(o.dss.ocsps);
    const crls = refs(o.dss.crls);
    const certs = refs(o.dss.certs);
    extra.push([n, `${n} 0 obj\n<< /OCSPs [${ocsps}] /CRLs [${crls}] /Certs [${certs}] >>\nendobj\n`]);
    dssRef = ` /DSS ${n} 0 R`;
    n++;
  }
  const size = 10 + extra.length;
  const objects: PdfObject[] = [
    [1, `1 0 obj\n<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /SigFlags 3 >>${dssRef} >>\nendobj\n`],
    [2, '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n'],
    [3, '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>\nendobj\n'],
    [4, '4 0 obj\n<< /Type /Annot /Subtype /Widget /FT /Sig /T (Sig1) /Rect [0 0 0 0] /P 3 0 R /V 5 0 R >>\nendobj\n'],
    [5, `5 0 obj\n${sigDict('Sig', 'adbe.pkcs7.detached')}\nendobj\n`],
    ...extra,
  ];
  // one xref subsection per object: the unused numbers 6..9 are simply absent
  return assemble(null, objects, size, (signed) => signCms(o, signed));
}

async function signCms(o: SignOptions, signed: Uint8Array): Promise<Uint8Array> {
  const attributes = [
    attr('1.2.840.113549.1.9.3', new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })),
    attr('1.2.840.113549.1.9.4', new asn1js.OctetString({ valueHex: bytes(createHash('sha256').update(signed).digest()) })),
    attr('1.2.840.113549.1.9.5', new asn1js.UTCTime({ valueDate: o.signingTime })),
  ];
  if (o.archival) {
    const parse = (d: Uint8Array) => asn1js.fromBER(bytes(d)).result;
    const items: asn1js.BaseBlock[] = [];
    if (o.archival.crls?.length) items.push(new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [new asn1js.Sequence({ value: o.archival.crls.map(parse) })] }));
    if (o.archival.ocsps?.length) items.push(new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [new asn1js.Sequence({ value: o.archival.ocsps.map(parse) })] }));
    attributes.push(attr('1.2.840.113583.1.1.8', new asn1js.Sequence({ value: items })));
  }
  const crls: (pkijs.CertificateRevocationList | pkijs.OtherRevocationInfoFormat)[] = [
    ...(o.cmsCrls ?? []).map((d) => pkijs.CertificateRevocationList.fromBER(bytes(d))),
    ...(o.cmsOcsps ?? []).map((d) => new pkijs.OtherRevocationInfoFormat({ otherRevInfoFormat: '1.3.6.1.5.5.7.16.2', otherRevInfo: asn1js.fromBER(bytes(d)).result })),
  ];
  const sd = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: '1.2.840.113549.1.7.1' }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: o.signer.pkix.issuer, serialNumber: o.signer.pkix.serialNumber }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
      }),
    ],
    certificates: [o.signer, ...o.chain].map((p) => p.pkix),
    ...(crls.length ? { crls } : {}),
  });
  await sd.sign(o.signer.keys.privateKey, 0, 'SHA-256');
  if (o.timestamp) {
    const si = sd.signerInfos[0];
    const token = await timestampToken(o.timestamp.tsa, o.timestamp.chain, new Uint8Array(si.signature.valueBlock.valueHexView), o.timestamp.genTime);
    si.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: [attr('1.2.840.113549.1.9.16.2.14', asn1js.fromBER(bytes(token)).result)] });
  }
  return new Uint8Array(new pkijs.ContentInfo({ contentType: '1.2.840.113549.1.7.2', content: sd.toSchema(true) }).toSchema().toBER(false));
}

/** Appends a document time-stamp (ETSI.RFC3161) in an incremental update: a new signature field in the AcroForm. */
export async function withDocTimestamp(pdf: Uint8Array, tsa: Party, chain: Party[], genTime: Date): Promise<Uint8Array> {
  const prev = Buffer.from(pdf);
  const catalog = /1 0 obj\n([\s\S]*?)\nendobj/.exec(prev.toString('latin1'))![1].replace('/Fields [4 0 R]', '/Fields [4 0 R 31 0 R]');
  const objects: PdfObject[] = [
    [1, `1 0 obj\n${catalog}\nendobj\n`],
    [30, `30 0 obj\n${sigDict('DocTimeStamp', 'ETSI.RFC3161')}\nendobj\n`],
    [31, '31 0 obj\n<< /FT /Sig /T (DocTS) /V 30 0 R >>\nendobj\n'],
  ];
  return assemble(prev, objects, 32, (signed) => timestampToken(tsa, chain, signed, genTime));
}
