// CMS SignedData verification (RFC 5652) for PDF signatures and RFC 3161 time-stamp tokens.
// ASN.1 decoding is done by asn1js/pkijs; the primitive signature checks use node:crypto
// (RSA PKCS#1 v1.5, RSA-PSS, ECDSA, DSA, Ed25519, Ed448).
import { createHash, createPublicKey, verify as cryptoVerify, constants, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

export const OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
  subjectKeyIdentifier: '2.5.29.14',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
};

export interface HashSpec {
  name: string; // node:crypto hash name
  outputLength?: number; // for SHAKE
}

const HASHES: Record<string, HashSpec> = {
  '1.3.14.3.2.26': { name: 'sha1' },
  '2.16.840.1.101.3.4.2.4': { name: 'sha224' },
  '2.16.840.1.101.3.4.2.1': { name: 'sha256' },
  '2.16.840.1.101.3.4.2.2': { name: 'sha384' },
  '2.16.840.1.101.3.4.2.3': { name: 'sha512' },
  '2.16.840.1.101.3.4.2.8': { name: 'sha3-256' },
  '2.16.840.1.101.3.4.2.9': { name: 'sha3-384' },
  '2.16.840.1.101.3.4.2.10': { name: 'sha3-512' },
  '2.16.840.1.101.3.4.2.12': { name: 'shake256', outputLength: 64 }, // id-shake256 (RFC 8419: 512-bit output)
  '1.3.6.1.5.5.7.6.33': { name: 'shake256', outputLength: 64 }, // id-shake256-len (length parameter read below)
};

export function hashFromAlgorithm(alg: pkijs.AlgorithmIdentifier): HashSpec | null {
  const spec = HASHES[alg.algorithmId];
  if (!spec) return null;
  if (alg.algorithmId === '1.3.6.1.5.5.7.6.33' && alg.algorithmParams instanceof asn1js.Integer) {
    const bits = alg.algorithmParams.valueBlock.valueDec;
    if (bits > 0 && bits % 8 === 0) return { name: 'shake256', outputLength: bits / 8 };
  }
  return spec;
}

export function digest(spec: HashSpec, chunks: Uint8Array[]): Uint8Array {
  const h = spec.outputLength ? createHash(spec.name, { outputLength: spec.outputLength }) : createHash(spec.name);
  for (const c of chunks) h.update(c);
  return new Uint8Array(h.digest());
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
}

/** Bytes of a (possibly constructed, BER) OCTET STRING. */
export function octets(v: asn1js.OctetString): Uint8Array {
  if (v.valueBlock.isConstructed) {
    const parts = (v.valueBlock.value as asn1js.OctetString[]).map((p) => octets(p));
    return new Uint8Array(Buffer.concat(parts.map((p) => Buffer.from(p))));
  }
  return new Uint8Array(v.valueBlock.valueHexView);
}

const HASH_OF_SIG: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.14': 'sha224',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '2.16.840.1.101.3.4.3.13': 'sha3-224',
  '2.16.840.1.101.3.4.3.14': 'sha3-256',
  '2.16.840.1.101.3.4.3.15': 'sha3-384',
  '2.16.840.1.101.3.4.3.16': 'sha3-512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.1': 'sha224',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '2.16.840.1.101.3.4.3.10': 'sha3-256', // ecdsa-with-SHA3-256
  '2.16.840.1.101.3.4.3.11': 'sha3-384',
  '2.16.840.1.101.3.4.3.12': 'sha3-512',
  '1.2.840.10040.4.3': 'sha1', // dsa-with-sha1
  '2.16.840.1.101.3.4.3.2': 'sha256', // dsa-with-sha256
};

const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const RSA_PSS = '1.2.840.113549.1.1.10';
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const DSA = '1.2.840.10040.4.1';
const ED25519 = '1.3.101.112';
const ED448 = '1.3.101.113';

export function publicKeyOf(cert: pkijs.Certificate): KeyObject {
  const spki = new Uint8Array(cert.subjectPublicKeyInfo.toSchema().toBER(false));
  return createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
}

/**
 * Verifies `signature` over `data` with the public key of `cert`.
 * `sigAlg` is the signature algorithm identifier, `digestAlg` the CMS digest algorithm
 * (used when the signature algorithm does not name a hash, e.g. rsaEncryption).
 * Returns null when verified, else an error string.
 */
export function verifyWithCert(
  cert: pkijs.Certificate,
  sigAlg: pkijs.AlgorithmIdentifier,
  digestAlg: pkijs.AlgorithmIdentifier | null,
  data: Uint8Array,
  signature: Uint8Array,
): string | null {
  let key: KeyObject;
  try {
    key = publicKeyOf(cert);
  } catch (e) {
    return `unsupported public key: ${(e as Error).message}`;
  }
  const oid = sigAlg.algorithmId;
  const dig = digestAlg ? hashFromAlgorithm(digestAlg) : null;
  try {
    let ok: boolean;
    if (oid === ED25519 || oid === ED448) {
      // RFC 8419: Ed25519 with SHA-512, Ed448 with SHAKE256 (512-bit) in CMS.
      if (dig) {
        if (oid === ED25519 && dig.name !== 'sha512') return `digest ${dig.name} not allowed with Ed25519 (RFC 8419)`;
        if (oid === ED448 && !(dig.name === 'shake256' && dig.outputLength === 64)) return `digest ${dig.name} not allowed with Ed448 (RFC 8419)`;
      }
      ok = cryptoVerify(null, data, key, signature);
    } else if (oid === RSA_PSS) {
      const params = sigAlg.algorithmParams
        ? new pkijs.RSASSAPSSParams({ schema: sigAlg.algorithmParams })
        : new pkijs.RSASSAPSSParams();
      const h = HASHES[params.hashAlgorithm.algorithmId];
      if (!h) return `unsupported RSA-PSS hash ${params.hashAlgorithm.algorithmId}`;
      ok = cryptoVerify(h.name, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength }, signature);
    } else if (HASH_OF_SIG[oid]) {
      ok = cryptoVerify(HASH_OF_SIG[oid], data, key, signature);
    } else if (oid === RSA_ENCRYPTION || oid === EC_PUBLIC_KEY || oid === DSA) {
      if (!dig || dig.outputLength) return 'no usable digest algorithm for signature';
      ok = cryptoVerify(dig.name, data, key, signature);
    } else return `unsupported signature algorithm ${oid}`;
    return ok ? null : 'signature does not verify with the signer certificate key';
  } catch (e) {
    return `signature verification error: ${(e as Error).message}`;
  }
}

export function certName(cert: pkijs.Certificate | null, which: 'subject' | 'issuer'): string | null {
  if (!cert) return null;
  const rdn = which === 'subject' ? cert.subject : cert.issuer;
  const get = (oid: string) => {
    const tv = rdn.typesAndValues.find((t) => t.type === oid);
    if (!tv) return null;
    const v = tv.value as unknown as { valueBlock?: { value?: unknown } };
    const s = v?.valueBlock?.value;
    return typeof s === 'string' ? s : null;
  };
  return get(OID.commonName) ?? get(OID.organization) ?? null;
}

function skiOf(cert: pkijs.Certificate): Uint8Array | null {
  const ext = cert.extensions?.find((e) => e.extnID === OID.subjectKeyIdentifier);
  if (ext) {
    const p = ext.parsedValue;
    if (p instanceof asn1js.OctetString) return new Uint8Array(p.valueBlock.valueHexView);
    try {
      const a = asn1js.fromBER(ext.extnValue.valueBlock.valueHexView);
      if (a.result instanceof asn1js.OctetString) return new Uint8Array(a.result.valueBlock.valueHexView);
    } catch {
      /* ignore */
    }
  }
  return null;
}

export function findSignerCert(si: pkijs.SignerInfo, certs: pkijs.Certificate[]): pkijs.Certificate | null {
  const sid = si.sid as unknown;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return certs.find((c) => c.issuer.isEqual(sid.issuer) && c.serialNumber.isEqual(sid.serialNumber)) ?? null;
  }
  // [0] SubjectKeyIdentifier
  const s = sid as asn1js.BaseBlock;
  const raw = (s as unknown as { valueBlock?: { valueHexView?: Uint8Array } }).valueBlock?.valueHexView;
  if (raw) {
    const ski = new Uint8Array(raw);
    for (const c of certs) {
      const k = skiOf(c);
      if (k && equalBytes(k, ski)) return c;
      const spkBits = new Uint8Array(c.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
      if (equalBytes(digest({ name: 'sha1' }, [spkBits]), ski)) return c;
    }
  }
  return null;
}

export interface SignerCheck {
  digestOk: boolean;
  signatureOk: boolean;
  signerCert: pkijs.Certificate | null;
  signingTime: Date | null;
  timestamp: TimestampCheck | null;
  errors: string[];
}

export interface ParsedCms {
  signedData: pkijs.SignedData;
  certs: pkijs.Certificate[];
  eContentType: string;
  eContent: Uint8Array | null;
}

/** Parses a DER/BER ContentInfo(SignedData). Trailing padding (zeros) is ignored. Throws on malformed input. */
/** Finds INTEGERs that are not minimally encoded (a DER violation strict decoders reject). */
function nonMinimalInteger(b: asn1js.AsnType, depth = 0): boolean {
  if (depth > 64) return false;
  if (b instanceof asn1js.Integer) {
    const v = b.valueBlock.valueHexView;
    return v.length > 1 && ((v[0] === 0x00 && v[1] < 0x80) || (v[0] === 0xff && v[1] >= 0x80));
  }
  const inner = (b as unknown as { valueBlock?: { value?: unknown } }).valueBlock?.value;
  if (Array.isArray(inner)) return inner.some((x) => nonMinimalInteger(x as asn1js.AsnType, depth + 1));
  return false;
}

export function parseCms(bytes: Uint8Array): ParsedCms {
  const asn = asn1js.fromBER(bytes);
  if (asn.offset === -1 || asn.result.error) throw new Error(`malformed CMS: ${asn.result.error || 'BER decoding failed'}`);
  if (nonMinimalInteger(asn.result)) throw new Error('malformed CMS: INTEGER not minimally encoded (invalid DER in certificate or SignerInfo)');
  const ci = new pkijs.ContentInfo({ schema: asn.result });
  if (ci.contentType !== OID.signedData) throw new Error(`CMS content type ${ci.contentType} is not SignedData`);
  const sd = new pkijs.SignedData({ schema: ci.content });
  const certs = (sd.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const ec = sd.encapContentInfo;
  return {
    signedData: sd,
    certs,
    eContentType: ec.eContentType,
    eContent: ec.eContent ? octets(ec.eContent) : null,
  };
}

function attr(attrs: pkijs.SignedAndUnsignedAttributes | undefined, oid: string): pkijs.Attribute | undefined {
  return attrs?.attributes.find((a) => a.type === oid);
}

function timeOf(v: unknown): Date | null {
  if (v instanceof asn1js.UTCTime || v instanceof asn1js.GeneralizedTime) {
    const d = v.toDate();
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

/**
 * Verifies one SignerInfo over the detached or encapsulated `content`.
 * With signed attributes, messageDigest must equal digest(content) and the signature covers the
 * DER SET of signed attributes; without, the signature covers the content directly.
 */
export function verifySigner(cms: ParsedCms, si: pkijs.SignerInfo, content: Uint8Array[], depth = 0): SignerCheck {
  const errors: string[] = [];
  const res: SignerCheck = { digestOk: false, signatureOk: false, signerCert: null, signingTime: null, timestamp: null, errors };
  const dig = hashFromAlgorithm(si.digestAlgorithm);
  if (!dig) {
    errors.push(`unsupported digest algorithm ${si.digestAlgorithm.algorithmId}`);
    return res;
  }
  const signerCert = findSignerCert(si, cms.certs);
  res.signerCert = signerCert;
  const sigValue = new Uint8Array(si.signature.valueBlock.valueHexView);
  const computed = digest(dig, content);
  let signedBytes: Uint8Array;
  let altSignedBytes: Uint8Array | null = null;
  if (si.signedAttrs && si.signedAttrs.attributes.length > 0) {
    const md = attr(si.signedAttrs, OID.messageDigest);
    const mdv = md?.values[0];
    if (!(mdv instanceof asn1js.OctetString)) errors.push('signed attributes lack messageDigest');
    else if (!equalBytes(octets(mdv), computed)) errors.push('messageDigest does not match the digest of the signed bytes');
    else res.digestOk = true;
    const st = attr(si.signedAttrs, OID.signingTime);
    if (st) res.signingTime = timeOf(st.values[0]);
    signedBytes = new Uint8Array(si.signedAttrs.encodedValue); // pkijs already set the SET tag (0x31)
    try {
      altSignedBytes = new Uint8Array(new asn1js.Set({ value: si.signedAttrs.attributes.map((a) => a.toSchema()) }).toBER(false));
    } catch {
      altSignedBytes = null;
    }
  } else {
    // no signed attributes: the signature is over the content itself
    res.digestOk = true;
    signedBytes = new Uint8Array(Buffer.concat(content.map((c) => Buffer.from(c))));
  }
  if (!signerCert) {
    errors.push('signer certificate not found in the CMS');
  } else {
    let err = verifyWithCert(signerCert, si.signatureAlgorithm, si.digestAlgorithm, signedBytes, sigValue);
    if (err && altSignedBytes && !equalBytes(altSignedBytes, signedBytes)) {
      const err2 = verifyWithCert(signerCert, si.signatureAlgorithm, si.digestAlgorithm, altSignedBytes, sigValue);
      if (!err2) err = null;
    }
    if (err) errors.push(err);
    else res.signatureOk = true;
  }
  // signature time-stamp (unsigned attribute), RFC 3161 over the signature value
  const ts = attr(si.unsignedAttrs, OID.timeStampToken);
  if (ts && depth === 0) {
    try {
      const tok = verifyTimestampToken(new Uint8Array(ts.values[0].toBER(false)), [sigValue], depth + 1);
      res.timestamp = tok;
    } catch (e) {
      res.timestamp = null;
      errors.push(`signature timestamp unreadable: ${(e as Error).message}`);
    }
  }
  return res;
}

export interface TimestampCheck {
  genTime: Date;
  ok: boolean;
  errors: string[];
  tsaCert: pkijs.Certificate | null;
  cms: ParsedCms;
  signer: SignerCheck | null;
}

/** Verifies an RFC 3161 TimeStampToken whose imprint must be the digest of `imprinted`. */
export function verifyTimestampToken(token: Uint8Array, imprinted: Uint8Array[], depth = 1): TimestampCheck {
  const cms = parseCms(token);
  if (cms.eContentType !== OID.tstInfo || !cms.eContent) throw new Error('time-stamp token does not contain TSTInfo');
  const tst = pkijs.TSTInfo.fromBER(new Uint8Array(cms.eContent) as Uint8Array<ArrayBuffer>);
  const errors: string[] = [];
  const h = hashFromAlgorithm(tst.messageImprint.hashAlgorithm);
  let imprintOk = false;
  if (!h) errors.push('unsupported time-stamp imprint algorithm');
  else if (!equalBytes(digest(h, imprinted), new Uint8Array(tst.messageImprint.hashedMessage.valueBlock.valueHexView))) errors.push('time-stamp imprint does not match');
  else imprintOk = true;
  const si = cms.signedData.signerInfos[0];
  let signer: SignerCheck | null = null;
  if (!si) errors.push('time-stamp token has no signer');
  else {
    signer = verifySigner(cms, si, [cms.eContent], depth);
    errors.push(...signer.errors.map((e) => `time-stamp: ${e}`));
  }
  return {
    genTime: tst.genTime,
    ok: imprintOk && !!signer && signer.digestOk && signer.signatureOk,
    errors,
    tsaCert: signer?.signerCert ?? null,
    cms,
    signer,
  };
}
