// Revocation of the certificates of a signer's path (RFC 6960 OCSP, RFC 5280 CRL). Pure: evidence
// embedded in the PDF (DSS, CMS) is evaluated here; online answers come through an injected `fetch`
// (server/src/domain/trust/revocation-fetcher.ts), so no network is reached from this module.
// Decoding: pkijs/asn1js; signature checks: node:crypto through `verifyWithCert`.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { certName, verifyWithCert, type ParsedCms } from './cms.ts';

export const REVOCATION_OID = {
  adbeRevocationInfoArchival: '1.2.840.113583.1.1.8',
  riOcspResponse: '1.3.6.1.5.5.7.16.2',
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5',
  adOcsp: '1.3.6.1.5.5.7.48.1',
  kpOcspSigning: '1.3.6.1.5.5.7.3.9',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  crlDistributionPoints: '2.5.29.31',
  issuingDistributionPoint: '2.5.29.28',
  deltaCrlIndicator: '2.5.29.27',
  crlReason: '2.5.29.21',
  extKeyUsage: '2.5.29.37',
  basicConstraints: '2.5.29.19',
};

export type RevocationMode = 'online' | 'embedded' | 'off';

/** DER revocation data: OCSPResponse and CertificateList structures. */
export interface RevocationEvidence {
  ocsps: Uint8Array[];
  crls: Uint8Array[];
}

/** What the online part is asked for one certificate; it answers with DER evidence, never throws. */
export interface RevocationRequest {
  cert: pkijs.Certificate;
  issuer: pkijs.Certificate;
  ocspUrls: string[];
  crlUrls: string[];
}
export type RevocationFetch = (req: RevocationRequest) => Promise<RevocationEvidence & { errors: string[] }>;

export interface RevocationOptions {
  mode: RevocationMode;
  /** Online look-ups (mode `online`); absent: embedded evidence only. */
  fetch?: RevocationFetch;
}

export interface CertRevocation {
  subject: string | null;
  serial: string;
  status: 'good' | 'revoked' | 'unknown' | 'not_checkable';
  /** Where the answer came from. */
  source: 'ocsp' | 'crl' | null;
  origin: 'embedded' | 'online' | null;
  this_update: string | null;
  next_update: string | null;
  revoked_at: string | null;
  /** CRLReason name (keyCompromise, ...), when given. */
  reason: string | null;
  /** Why no usable answer, or what was set aside (stale, forged...). */
  notes: string[];
}

export interface RevocationReport {
  /** The time T answers are judged at. */
  time: string;
  time_source: 'proof' | 'claimed';
  /**
   * good: every checkable certificate good; revoked: revoked at or before T; revoked_after_claimed_time: revoked
   * after a claimed (not proven) T; revoked_after_proven_time: revoked after a proven T (long-term validation: fine);
   * unknown: a certificate names a source and no usable answer was found; not_checkable: no certificate names a source.
   */
  outcome: 'good' | 'revoked' | 'revoked_after_claimed_time' | 'revoked_after_proven_time' | 'unknown' | 'not_checkable';
  certificates: CertRevocation[];
}

// ---------------------------------------------------------------------------
// Collecting embedded evidence

const u8 = (v: ArrayBuffer | Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(v) as Uint8Array<ArrayBuffer>;

/** adbe-revocationInfoArchival, the SignedData `crls` field (CRLs and id-ri-ocsp-response) of a CMS. */
export function cmsRevocationEvidence(cms: ParsedCms): RevocationEvidence {
  const out: RevocationEvidence = { ocsps: [], crls: [] };
  for (const c of cms.signedData.crls ?? []) {
    try {
      if (c instanceof pkijs.CertificateRevocationList) out.crls.push(u8(c.toSchema().toBER(false)));
      else if (c instanceof pkijs.OtherRevocationInfoFormat && c.otherRevInfoFormat === REVOCATION_OID.riOcspResponse) {
        out.ocsps.push(u8((c.otherRevInfo as asn1js.BaseBlock).toBER(false)));
      }
    } catch {
      /* skip */
    }
  }
  for (const si of cms.signedData.signerInfos) {
    const a = si.signedAttrs?.attributes.find((x) => x.type === REVOCATION_OID.adbeRevocationInfoArchival);
    const seq = a?.values[0];
    if (!(seq instanceof asn1js.Sequence)) continue;
    for (const item of seq.valueBlock.value) {
      if (item.idBlock.tagClass !== 3 || !(item instanceof asn1js.Constructed)) continue;
      const inner = item.valueBlock.value[0];
      if (!(inner instanceof asn1js.Sequence)) continue;
      const list = item.idBlock.tagNumber === 0 ? out.crls : item.idBlock.tagNumber === 1 ? out.ocsps : null;
      if (list) for (const x of inner.valueBlock.value) list.push(u8(x.toBER(false)));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Certificates: sources, flags

function extension(cert: pkijs.Certificate, oid: string): pkijs.Extension | undefined {
  return cert.extensions?.find((e) => e.extnID === oid);
}

/** OCSP URLs (AIA id-ad-ocsp) and http(s) CRL distribution points (fullName URIs) a certificate names. */
export function revocationSources(cert: pkijs.Certificate): { ocsp: string[]; crl: string[] } {
  const ocsp: string[] = [];
  const crl: string[] = [];
  const aia = extension(cert, REVOCATION_OID.authorityInfoAccess)?.parsedValue;
  if (aia instanceof pkijs.InfoAccess) {
    for (const d of aia.accessDescriptions) {
      if (d.accessMethod === REVOCATION_OID.adOcsp && d.accessLocation.type === 6 && typeof d.accessLocation.value === 'string') ocsp.push(d.accessLocation.value);
    }
  }
  const dps = extension(cert, REVOCATION_OID.crlDistributionPoints)?.parsedValue;
  if (dps instanceof pkijs.CRLDistributionPoints) {
    for (const dp of dps.distributionPoints) {
      if (dp.cRLIssuer) continue; // indirect CRL: not supported
      const names = Array.isArray(dp.distributionPoint) ? dp.distributionPoint : [];
      for (const n of names) if (n.type === 6 && typeof n.value === 'string') crl.push(n.value);
    }
  }
  return { ocsp, crl };
}

function isCaCert(c: pkijs.Certificate): boolean {
  const p = extension(c, REVOCATION_OID.basicConstraints)?.parsedValue;
  return p instanceof pkijs.BasicConstraints && !!p.cA;
}

const serialHex = (c: pkijs.Certificate) => Buffer.from(c.serialNumber.valueBlock.valueHexView).toString('hex');

function issuedBy(cert: pkijs.Certificate, issuer: pkijs.Certificate): boolean {
  return (
    cert.issuer.isEqual(issuer.subject) &&
    verifyWithCert(issuer, cert.signatureAlgorithm, null, u8(cert.tbsView), u8(cert.signatureValue.valueBlock.valueHexView)) === null
  );
}

// ---------------------------------------------------------------------------
// Answers

interface Answer {
  status: 'good' | 'revoked';
  source: 'ocsp' | 'crl';
  origin: 'embedded' | 'online';
  thisUpdate: Date;
  nextUpdate: Date | null;
  revokedAt: Date | null;
  reason: string | null;
}

const REASONS = ['unspecified', 'keyCompromise', 'cACompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'certificateHold', '', 'removeFromCRL', 'privilegeWithdrawn', 'aACompromise'];
const reasonName = (n: number | null) => (n === null ? null : REASONS[n] || `reason ${n}`);

const CERTID_HASHES: Record<string, string> = { '1.3.14.3.2.26': 'sha1', '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };

function certIdMatches(id: pkijs.CertID, cert: pkijs.Certificate, issuer: pkijs.Certificate): boolean {
  const h = CERTID_HASHES[id.hashAlgorithm.algorithmId];
  if (!h) return false;
  const nameHash = createHash(h).update(u8(issuer.subject.toSchema().toBER(false))).digest();
  const keyHash = createHash(h).update(u8(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)).digest();
  return (
    nameHash.equals(Buffer.from(id.issuerNameHash.valueBlock.valueHexView)) &&
    keyHash.equals(Buffer.from(id.issuerKeyHash.valueBlock.valueHexView)) &&
    id.serialNumber.isEqual(cert.serialNumber)
  );
}

// Each piece of evidence is decoded once per analysis (the DSS's are shared by every signature and certificate).
const parsedOcsp = new WeakMap<Uint8Array, pkijs.BasicOCSPResponse | null>();
const parsedCrl = new WeakMap<Uint8Array, pkijs.CertificateRevocationList | null>();

/** A DER OCSPResponse, successful and basic, or null. */
export function parseBasicOcsp(der: Uint8Array): pkijs.BasicOCSPResponse | null {
  if (parsedOcsp.has(der)) return parsedOcsp.get(der)!;
  let out: pkijs.BasicOCSPResponse | null = null;
  try {
    const resp = pkijs.OCSPResponse.fromBER(u8(der));
    if (resp.responseStatus.valueBlock.valueDec === 0 && resp.responseBytes?.responseType === REVOCATION_OID.ocspBasic) {
      out = pkijs.BasicOCSPResponse.fromBER(u8(resp.responseBytes.response.valueBlock.valueHexView));
    }
  } catch {
    out = null;
  }
  parsedOcsp.set(der, out);
  return out;
}

function parseCrl(der: Uint8Array): pkijs.CertificateRevocationList | null {
  if (parsedCrl.has(der)) return parsedCrl.get(der)!;
  let out: pkijs.CertificateRevocationList | null = null;
  try {
    out = pkijs.CertificateRevocationList.fromBER(u8(der));
  } catch {
    out = null;
  }
  parsedCrl.set(der, out);
  return out;
}

/** The responder that signed `basic` if it is authorised for `issuer`: the issuer itself, or a certificate it issued with id-kp-OCSPSigning. */
function ocspSignerOk(basic: pkijs.BasicOCSPResponse, issuer: pkijs.Certificate): string | null {
  const tbs = u8(basic.tbsResponseData.tbsView);
  const sig = u8(basic.signature.valueBlock.valueHexView);
  if (verifyWithCert(issuer, basic.signatureAlgorithm, null, tbs, sig) === null) return null;
  for (const c of basic.certs ?? []) {
    if (!(c instanceof pkijs.Certificate)) continue;
    if (verifyWithCert(c, basic.signatureAlgorithm, null, tbs, sig) !== null) continue;
    const eku = extension(c, REVOCATION_OID.extKeyUsage)?.parsedValue;
    if (!(eku instanceof pkijs.ExtKeyUsage) || !eku.keyPurposes.includes(REVOCATION_OID.kpOcspSigning)) return 'OCSP responder certificate lacks id-kp-OCSPSigning';
    if (!issuedBy(c, issuer)) return 'OCSP responder certificate not issued by the certificate\'s issuer';
    const at = basic.tbsResponseData.producedAt;
    if (at < c.notBefore.value || at > c.notAfter.value) return 'OCSP responder certificate not valid when the response was produced';
    return null;
  }
  return 'OCSP response not signed by the issuer or an authorised responder';
}

function ocspAnswers(der: Uint8Array, cert: pkijs.Certificate, issuer: pkijs.Certificate, origin: Answer['origin'], notes: string[]): Answer[] {
  const basic = parseBasicOcsp(der);
  if (!basic) return [];
  const singles = basic.tbsResponseData.responses.filter((r) => certIdMatches(r.certID, cert, issuer));
  if (!singles.length) return [];
  const err = ocspSignerOk(basic, issuer);
  if (err) {
    notes.push(`${origin} OCSP response ignored: ${err}`);
    return [];
  }
  const out: Answer[] = [];
  for (const r of singles) {
    const st = r.certStatus as asn1js.BaseBlock;
    const tag = st.idBlock.tagNumber;
    const base = { source: 'ocsp' as const, origin, thisUpdate: r.thisUpdate, nextUpdate: r.nextUpdate ?? null };
    if (tag === 0) out.push({ ...base, status: 'good', revokedAt: null, reason: null });
    else if (tag === 1 && st instanceof asn1js.Constructed) {
      const t = st.valueBlock.value[0];
      const when = t instanceof asn1js.GeneralizedTime ? t.toDate() : null;
      const rs = st.valueBlock.value[1];
      let reason: number | null = null;
      if (rs instanceof asn1js.Constructed && rs.valueBlock.value[0] instanceof asn1js.Enumerated) reason = rs.valueBlock.value[0].valueBlock.valueDec;
      if (when) out.push({ ...base, status: 'revoked', revokedAt: when, reason: reasonName(reason) });
    } else notes.push(`${origin} OCSP response says unknown`);
  }
  return out;
}

function crlAnswer(der: Uint8Array, cert: pkijs.Certificate, issuer: pkijs.Certificate, origin: Answer['origin'], notes: string[]): Answer | null {
  const crl = parseCrl(der);
  if (!crl || !crl.issuer.isEqual(cert.issuer)) return null;
  const sigErr = verifyWithCert(issuer, crl.signatureAlgorithm, null, u8(crl.tbsView), u8(crl.signatureValue.valueBlock.valueHexView));
  if (sigErr) {
    notes.push(`${origin} CRL ignored: not signed by the issuer`);
    return null;
  }
  const exts = crl.crlExtensions?.extensions ?? [];
  if (exts.some((e) => e.extnID === REVOCATION_OID.deltaCrlIndicator)) return null;
  const idp = exts.find((e) => e.extnID === REVOCATION_OID.issuingDistributionPoint)?.parsedValue;
  if (idp instanceof pkijs.IssuingDistributionPoint) {
    const ca = isCaCert(cert);
    if (idp.indirectCRL || idp.onlyContainsAttributeCerts || idp.onlySomeReasons !== undefined) return null;
    if ((idp.onlyContainsUserCerts && ca) || (idp.onlyContainsCACerts && !ca)) return null;
  }
  const base = { source: 'crl' as const, origin, thisUpdate: crl.thisUpdate.value, nextUpdate: crl.nextUpdate?.value ?? null };
  const entry = crl.revokedCertificates?.find((r) => r.userCertificate.isEqual(cert.serialNumber));
  if (!entry) return { ...base, status: 'good', revokedAt: null, reason: null };
  const re = entry.crlEntryExtensions?.extensions.find((e) => e.extnID === REVOCATION_OID.crlReason);
  let reason: number | null = null;
  if (re) {
    try {
      const v = asn1js.fromBER(re.extnValue.valueBlock.valueHexView).result;
      if (v instanceof asn1js.Enumerated) reason = v.valueBlock.valueDec;
    } catch {
      reason = null;
    }
  }
  if (reason === 8) return { ...base, status: 'good', revokedAt: null, reason: null }; // removeFromCRL (delta CRLs only)
  return { ...base, status: 'revoked', revokedAt: entry.revocationDate.value, reason: reasonName(reason) };
}

/** A good answer counts for T when issued at or after T, or when T lies in [thisUpdate, nextUpdate]. */
export function fitsTime(a: Pick<Answer, 'thisUpdate' | 'nextUpdate'>, t: Date): boolean {
  return a.thisUpdate >= t || (a.nextUpdate !== null && a.thisUpdate <= t && t <= a.nextUpdate);
}

/** At most this many OCSP responses and as many CRLs are read per signature (a hostile file may carry thousands). */
const MAX_EVIDENCE = 500;

function judge(evidence: RevocationEvidence, cert: pkijs.Certificate, issuer: pkijs.Certificate, origin: Answer['origin'], t: Date, notes: string[]): Answer | null {
  const answers: Answer[] = [];
  for (const o of evidence.ocsps.slice(0, MAX_EVIDENCE)) answers.push(...ocspAnswers(o, cert, issuer, origin, notes));
  for (const c of evidence.crls.slice(0, MAX_EVIDENCE)) {
    const a = crlAnswer(c, cert, issuer, origin, notes);
    if (a) answers.push(a);
  }
  const revoked = answers.filter((a) => a.status === 'revoked').sort((a, b) => +a.revokedAt! - +b.revokedAt!);
  if (revoked.length) return revoked[0];
  const good = answers.filter((a) => fitsTime(a, t)).sort((a, b) => +b.thisUpdate - +a.thisUpdate);
  if (good.length) return good[0];
  if (answers.length) notes.push(`${origin} ${answers.length === 1 ? 'answer' : 'answers'} stale for ${t.toISOString()} (latest thisUpdate ${new Date(Math.max(...answers.map((a) => +a.thisUpdate))).toISOString()})`);
  return null;
}

// ---------------------------------------------------------------------------
// Entry point

export interface RevocationInput {
  /** The signer's path, leaf first, ending at the trust anchor (not checked). */
  path: pkijs.Certificate[];
  evidence: RevocationEvidence;
  /** T: the proven time when there is one, else the claimed signing time. */
  time: Date;
  proven: boolean;
  options: RevocationOptions;
}

const hasNoCheck = (c: pkijs.Certificate) => !!extension(c, REVOCATION_OID.ocspNoCheck);

/** Checks every certificate of `path` but the anchor; online only for those without a usable embedded answer. */
export async function checkRevocation(input: RevocationInput): Promise<RevocationReport> {
  const { path, evidence, time: t, proven, options } = input;
  const certificates: CertRevocation[] = [];
  for (let i = 0; i + 1 < path.length; i++) {
    const cert = path[i];
    const issuer = path[i + 1];
    const notes: string[] = [];
    const sources = hasNoCheck(cert) ? { ocsp: [], crl: [] } : revocationSources(cert);
    let answer = judge(evidence, cert, issuer, 'embedded', t, notes);
    const checkable = sources.ocsp.length + sources.crl.length > 0;
    // Online: OCSP first, then the CRL, each judged here (a forged or stale OCSP answer falls back to the CRL).
    for (const urls of [{ ocspUrls: sources.ocsp, crlUrls: [] }, { ocspUrls: [], crlUrls: sources.crl }]) {
      if (answer || !options.fetch || options.mode !== 'online' || urls.ocspUrls.length + urls.crlUrls.length === 0) continue;
      const got = await options.fetch({ cert, issuer, ...urls });
      notes.push(...got.errors);
      answer = judge(got, cert, issuer, 'online', t, notes);
    }
    if (!answer && checkable && options.mode !== 'online') notes.push('no online look-up (COTEJO_REVOCATION_CHECK=embedded)');
    certificates.push({
      subject: certName(cert, 'subject'),
      serial: serialHex(cert),
      status: answer ? answer.status : checkable ? 'unknown' : 'not_checkable',
      source: answer?.source ?? null,
      origin: answer?.origin ?? null,
      this_update: answer?.thisUpdate.toISOString() ?? null,
      next_update: answer?.nextUpdate?.toISOString() ?? null,
      revoked_at: answer?.revokedAt?.toISOString() ?? null,
      reason: answer?.reason ?? null,
      notes,
    });
  }
  const revoked = certificates.filter((c) => c.status === 'revoked');
  let outcome: RevocationReport['outcome'];
  if (revoked.some((c) => new Date(c.revoked_at!) <= t)) outcome = 'revoked';
  else if (revoked.length) outcome = proven ? 'revoked_after_proven_time' : 'revoked_after_claimed_time';
  else if (certificates.some((c) => c.status === 'unknown')) outcome = 'unknown';
  else if (certificates.some((c) => c.status === 'good')) outcome = 'good';
  else outcome = 'not_checkable';
  return { time: t.toISOString(), time_source: proven ? 'proof' : 'claimed', outcome, certificates };
}
