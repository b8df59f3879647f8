// PAdES / PDF signature verification. Pure: no network, no database, no clock.
// The trust store and the validation time are arguments; loadTrustStore is the only I/O.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { analyzeChanges } from './changes.ts';
import { evaluateChain } from './chain.ts';
import { certName, parseCms, verifySigner, verifyTimestampToken, digest, type ParsedCms, type SignerCheck, type TimestampCheck } from './cms.ts';
import {
  PdfDocument,
  type PdfDict,
  type PdfValue,
  dictOf,
  isDict,
  isName,
  isRef,
  isString,
  isStream,
  latin1,
  parsePdfDate,
  textOf,
} from './pdf.ts';
import { parseCertificates } from './certificates.ts';
import { detectEditor } from './editors.ts';
import { checkRevocation, cmsRevocationEvidence, type RevocationEvidence, type RevocationOptions, type RevocationReport } from './revocation.ts';
import { CA_QC, TSA_QTST, grantedAt, listedLabel, type ListedAnchor } from './trusted-lists.ts';

export interface TrustStore {
  /** Trusted root (or explicitly trusted) certificates. */
  roots: pkijs.Certificate[];
  /** Where the roots came from (directory path or a label). */
  source: string;
  /** Anchors from EU trusted lists: each applies only when the signing time falls in a granted period. */
  listed?: ListedAnchor[];
  /**
   * Trust data older than this (the refresh interval) is named with its date in `trust_anchor` (`listedLabel`),
   * judged at `now`; absent (or no `now`): labels as they are.
   */
  listedStaleAfterMs?: number;
}

export type PdfSignatureStatus = 'valid' | 'invalid' | 'missing' | 'untrusted' | 'modified';

export interface PdfSignatureDetail {
  field_name: string | null;
  byte_range: number[] | null;
  /** ByteRange starts at 0, excludes exactly this dictionary's /Contents hex string and ends at an %%EOF. */
  covers_whole_revision: boolean;
  /** messageDigest (or time-stamp imprint) equals the digest of the ByteRange bytes. */
  digest_ok: boolean;
  /** The signer's signature verifies with the signer certificate's public key. */
  signature_ok: boolean;
  /** A certification path was built and every certificate is valid at the validation time. */
  chain_ok: boolean;
  /** chain_ok and the path ends at a root of the trust store. */
  trusted: boolean;
  signer: string | null;
  issuer: string | null;
  signed_at: string | null;
  /** Where signed_at comes from: RFC 3161 time-stamp, CMS signing-time attribute or the dictionary's /M. */
  signed_at_source: 'timestamp' | 'signing_time' | 'pdf_m' | null;
  /**
   * A time proven by a trusted RFC 3161 time-stamp (verified, TSA chaining to a root or to a TSA/QTST service
   * granted at its genTime): the signature existed then. Null when no trusted time-stamp covers it.
   */
  proof_time: string | null;
  /** Where proof_time comes from: the signature's own time-stamp, or a document time-stamp (a later one; for a document time-stamp, itself). */
  proof_source: 'signature_timestamp' | 'document_timestamp' | null;
  /** Revocation of the signer's path (trusted approval signatures only; null when not checked). */
  revocation: RevocationReport | null;
  trust_anchor: string | null;
  /** Disallowed changes were appended after the signed revision. */
  modified_after: boolean;
  sub_filter: string | null;
  /** 'signature' (approval/certification) or 'document_timestamp' (ETSI.RFC3161). */
  kind: 'signature' | 'document_timestamp';
  status: Exclude<PdfSignatureStatus, 'missing'>;
  errors: string[];
  /** Permitted changes after signing (annotations, form fill, later signatures, DSS, time-stamps). */
  changes_permitted: string[];
}

export interface PdfSignatureResult {
  status: PdfSignatureStatus;
  reasons: string[];
  signer: string | null;
  issuer: string | null;
  signed_at: string | null;
  trust_anchor: string | null;
  trusted: boolean;
  signatures: number;
  edited_suspected: boolean;
  edited_reasons: string[];
  details: PdfSignatureDetail[];
}

// ---------------------------------------------------------------------------
// Trust store

export { parseCertificates };

/** Reads *.pem, *.crt, *.cer (PEM or DER) from a directory (not recursive). Missing directory => empty store. */
export async function loadTrustStore(dir: string): Promise<TrustStore> {
  let names: string[] = [];
  try {
    names = (await readdir(dir)).filter((n) => /\.(pem|crt|cer)$/i.test(n)).sort();
  } catch {
    names = [];
  }
  const roots: pkijs.Certificate[] = [];
  const seen = new Set<string>();
  for (const n of names) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readFile(join(dir, n)));
    } catch {
      continue;
    }
    for (const c of parseCertificates(bytes)) {
      const key = Buffer.from(c.toSchema().toBER(false)).toString('base64');
      if (seen.has(key)) continue;
      seen.add(key);
      roots.push(c);
    }
  }
  return { roots, source: dir };
}

// ---------------------------------------------------------------------------
// Locating signature dictionaries

interface SigCandidate {
  objNum: number;
  objOffset: number;
  index: number; // index of the ByteRange dictionary inside the object
  dict: PdfDict;
}

function collectSigDicts(v: PdfValue, out: PdfDict[], depth = 0): void {
  if (depth > 20) return;
  if (Array.isArray(v)) {
    for (const x of v) collectSigDicts(x, out, depth + 1);
    return;
  }
  const d = dictOf(v);
  if (!d) return;
  if (d.m.has('ByteRange') && d.m.has('Contents')) out.push(d);
  for (const x of d.m.values()) collectSigDicts(x, out, depth + 1);
}

function findCandidates(doc: PdfDocument): SigCandidate[] {
  const B = Buffer.from(doc.buf.buffer, doc.buf.byteOffset, doc.buf.length);
  const hits: number[] = [];
  for (let i = B.indexOf('/ByteRange'); i >= 0; i = B.indexOf('/ByteRange', i + 10)) hits.push(i);
  if (!hits.length) return [];
  const headers = doc.headers().map((h) => h.at);
  const out: SigCandidate[] = [];
  const done = new Set<number>();
  let h = 0;
  for (const hit of hits) {
    while (h + 1 < headers.length && headers[h + 1] < hit) h++;
    const off = headers[h];
    if (off === undefined || off > hit || done.has(off)) continue;
    done.add(off);
    try {
      const { num, value } = doc.readIndirectAt(off);
      const dicts: PdfDict[] = [];
      collectSigDicts(value, dicts);
      dicts.forEach((d, index) => out.push({ objNum: num, objOffset: off, index, dict: d }));
    } catch {
      /* not a parsable object: ignore this occurrence */
    }
  }
  return out;
}

/** Field names (fully qualified) of signature values, keyed by object number of the /V or of the field. */
function fieldNames(doc: PdfDocument): Map<number, string> {
  const names = new Map<number, string>();
  try {
    const st = doc.stateAt(doc.buf.length);
    const root = dictOf(doc.resolve(st.trailer?.m.get('Root'), st));
    const af = dictOf(doc.resolve(root?.m.get('AcroForm'), st));
    const fields = doc.resolve(af?.m.get('Fields'), st);
    const seen = new Set<number>();
    const walk = (ref: PdfValue, prefix: string, depth: number) => {
      if (depth > 30) return;
      const num = isRef(ref) ? ref.num : -1;
      if (num >= 0) {
        if (seen.has(num)) return;
        seen.add(num);
      }
      const d = dictOf(doc.resolve(ref, st));
      if (!d) return;
      const t = textOf(d.m.get('T'));
      const name = t === null ? prefix : prefix ? `${prefix}.${t}` : t;
      const v = d.m.get('V');
      if (isRef(v)) names.set(v.num, name);
      else if (isDict(v) && num >= 0) names.set(num, name);
      const kids = doc.resolve(d.m.get('Kids'), st);
      if (Array.isArray(kids)) for (const k of kids) walk(k, name, depth + 1);
    };
    if (Array.isArray(fields)) for (const f of fields) walk(f, '', 0);
  } catch {
    /* best effort */
  }
  return names;
}

// ---------------------------------------------------------------------------
// Verification of one signature dictionary

interface Ctx {
  dssCerts: pkijs.Certificate[];
  /** OCSP responses and CRLs of the DSS (and its VRI entries). */
  dssEvidence: RevocationEvidence;
  doc: PdfDocument;
  trustStore: TrustStore;
  at?: Date;
  now?: Date;
  revocation: RevocationOptions;
  /** Trusted document time-stamps seen so far: each proves every revision that ends before its /Contents. */
  docTimestamps: { gapStart: number; time: Date }[];
}

/**
 * The genTime of a verified RFC 3161 token whose TSA certificate chains (valid at genTime) to a root of the
 * trust store or to a listed TSA/QTST service granted at genTime; else null. Only such a time is proven.
 */
function trustedTimestampTime(ctx: Ctx, ts: TimestampCheck | null): Date | null {
  if (!ts?.ok || !ts.tsaCert || !isTimeStampingCert(ts.tsaCert)) return null;
  const chain = evaluateChain(ts.tsaCert, [...ts.cms.certs, ...ctx.dssCerts], tsaAnchors(ctx.trustStore, ts.genTime), ts.genTime);
  return chain.trusted ? ts.genTime : null;
}

const ID_KP_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';
/** RFC 3161 2.3: a TSA signs with a key reserved for it, its certificate's extended key usage naming id-kp-timeStamping. */
function isTimeStampingCert(cert: pkijs.Certificate): boolean {
  const ext = cert.extensions?.find((e) => e.extnID === '2.5.29.37');
  if (!ext) return false;
  try {
    const eku = ext.parsedValue instanceof pkijs.ExtKeyUsage ? ext.parsedValue : new pkijs.ExtKeyUsage({ schema: asn1js.fromBER(ext.extnValue.valueBlock.valueHexView).result });
    return eku.keyPurposes.includes(ID_KP_TIME_STAMPING);
  } catch {
    return false;
  }
}

/**
 * The proven time of a signature: its own trusted time-stamp (for a document time-stamp, itself), else the
 * earliest trusted document time-stamp added later whose signed revision contains it (`signedEnd`: the end of
 * its revision when its ByteRange is sound, else null).
 */
function provenTime(ctx: Ctx, ts: TimestampCheck | null, isDocTs: boolean, signedEnd: number | null): { time: Date; source: NonNullable<PdfSignatureDetail['proof_source']> } | null {
  const own = trustedTimestampTime(ctx, ts);
  if (own) return { time: own, source: isDocTs ? 'document_timestamp' : 'signature_timestamp' };
  if (signedEnd === null) return null;
  const later = ctx.docTimestamps.filter((t) => t.gapStart >= signedEnd).sort((a, b) => +a.time - +b.time)[0];
  return later ? { time: later.time, source: 'document_timestamp' } : null;
}

/**
 * Anchors for a chain judged at T: the roots, plus the listed CA/QC services granted at T (even if withdrawn
 * since; without T a listed anchor cannot apply); for a document time-stamp, the listed TSA/QTST services instead.
 */
function signerAnchors(store: TrustStore, isDocTs: boolean, t: Date | null): pkijs.Certificate[] {
  if (!t) return store.roots;
  if (isDocTs) return tsaAnchors(store, t);
  return [...store.roots, ...(store.listed ?? []).filter((a) => a.service.type === CA_QC && grantedAt(a.service, t)).map((a) => a.cert)];
}

function revocationErrors(report: RevocationReport): string[] {
  return report.certificates
    .filter((c) => c.status === 'revoked')
    .map((c) => `revocation: certificate "${c.subject ?? c.serial}" revoked at ${c.revoked_at}${c.reason ? ` (${c.reason})` : ''} via ${c.origin} ${c.source?.toUpperCase()}; T = ${report.time} (${report.time_source})`);
}

function tsaAnchors(store: TrustStore, at: Date): pkijs.Certificate[] {
  return [...store.roots, ...(store.listed ?? []).filter((a) => a.service.type === TSA_QTST && grantedAt(a.service, at)).map((a) => a.cert)];
}

const mergeEvidence = (...all: RevocationEvidence[]): RevocationEvidence => ({ ocsps: all.flatMap((e) => e.ocsps), crls: all.flatMap((e) => e.crls) });

function numbersOf(v: PdfValue | undefined): number[] | null {
  if (!Array.isArray(v)) return null;
  if (!v.every((x) => typeof x === 'number')) return null;
  return v as number[];
}

function isPlaceholder(d: PdfDict): boolean {
  const c = d.m.get('Contents');
  if (!isString(c)) return true;
  return c.v.every((b) => b === 0);
}

/** A detail that has proved nothing yet: `invalid` until each check passes. */
function blankDetail(
  field: string | null,
  byteRange: number[] | null,
  subFilter: string | null,
  kind: PdfSignatureDetail['kind'],
  errors: string[],
): PdfSignatureDetail {
  return {
    field_name: field,
    byte_range: byteRange,
    covers_whole_revision: false,
    digest_ok: false,
    signature_ok: false,
    chain_ok: false,
    trusted: false,
    signer: null,
    issuer: null,
    signed_at: null,
    signed_at_source: null,
    proof_time: null,
    proof_source: null,
    revocation: null,
    trust_anchor: null,
    modified_after: false,
    sub_filter: subFilter,
    kind,
    status: 'invalid',
    errors,
    changes_permitted: [],
  };
}

/** Contents located exactly in the ByteRange gap. */
function contentsInGap(d: PdfDict, br: number[] | null): boolean {
  const c = d.m.get('Contents');
  return !!br && br.length === 4 && isString(c) && c.hex && c.start === br[1] && c.end === br[2];
}

async function verifyOne(ctx: Ctx, cand: SigCandidate, field: string | null): Promise<PdfSignatureDetail> {
  const { doc } = ctx;
  const d = cand.dict;
  const fileLen = doc.buf.length;
  const errors: string[] = [];
  const subFilterV = d.m.get('SubFilter');
  const subFilter = isName(subFilterV) ? subFilterV.v : null;
  const isDocTs = subFilter === 'ETSI.RFC3161' || isName(d.m.get('Type'), 'DocTimeStamp');
  const br = numbersOf(d.m.get('ByteRange'));
  const detail = blankDetail(field, br, subFilter, isDocTs ? 'document_timestamp' : 'signature', errors);

  // --- ByteRange coverage
  let chunks: Uint8Array[] | null = null;
  let signedEnd = -1;
  if (!br || br.length % 2 !== 0 || br.length === 0) errors.push('ByteRange is not an array of offset/length pairs');
  else if (br.some((x) => !Number.isInteger(x) || x < 0)) errors.push('ByteRange holds negative or non-integer values');
  else {
    const within = br.every((_, i) => i % 2 === 1 || br[i] + br[i + 1] <= fileLen);
    if (!within) errors.push(`ByteRange extends past the end of the file (${fileLen} bytes)`);
    else {
      chunks = [];
      for (let i = 0; i < br.length; i += 2) chunks.push(doc.buf.subarray(br[i], br[i] + br[i + 1]));
    }
    signedEnd = br[br.length - 2] + br[br.length - 1];
    const coverage: string[] = [];
    if (br.length !== 4) coverage.push(`ByteRange has ${br.length} entries instead of 4`);
    else {
      if (br[0] !== 0) coverage.push('ByteRange does not start at offset 0');
      if (br[0] + br[1] > br[2]) coverage.push('ByteRange ranges overlap');
      if (!contentsInGap(d, br)) coverage.push('the gap between the ranges is not exactly this signature\'s /Contents hex string');
    }
    if (within && !doc.isRevisionEnd(signedEnd)) coverage.push('ByteRange does not end at the end of a revision (%%EOF)');
    errors.push(...coverage);
    detail.covers_whole_revision = within && coverage.length === 0;
  }

  // --- CMS
  const contents = d.m.get('Contents');
  let check: SignerCheck | null = null;
  let pool: pkijs.Certificate[] = [];
  let signingTime: Date | null = null;
  let signedAtSource: PdfSignatureDetail['signed_at_source'] = null;
  let timestamp: TimestampCheck | null = null; // the signature's time-stamp, or the document time-stamp itself
  const cmsList: ParsedCms[] = [];
  if (!isString(contents)) errors.push('/Contents is not a string');
  else if (chunks) {
    try {
      if (isDocTs) {
        const ts = verifyTimestampToken(contents.v, chunks);
        detail.digest_ok = !ts.errors.some((e) => e.includes('imprint')) && !!ts.signer?.digestOk;
        detail.signature_ok = !!ts.signer?.signatureOk;
        errors.push(...ts.errors);
        check = ts.signer;
        timestamp = ts;
        cmsList.push(ts.cms);
        pool = ts.cms.certs;
        signingTime = ts.genTime;
        signedAtSource = 'timestamp';
      } else {
        const cms = parseCms(contents.v);
        cmsList.push(cms);
        pool = cms.certs;
        const sis = cms.signedData.signerInfos;
        if (!sis.length) throw new Error('CMS has no SignerInfo');
        let content: Uint8Array[] = chunks;
        if (subFilter === 'adbe.pkcs7.sha1') {
          if (!cms.eContent) throw new Error('adbe.pkcs7.sha1 signature without encapsulated digest');
          const sha1 = digest({ name: 'sha1' }, chunks);
          if (Buffer.compare(Buffer.from(sha1), Buffer.from(cms.eContent)) !== 0) errors.push('encapsulated SHA-1 digest does not match the signed bytes');
          content = [cms.eContent];
        } else if (cms.eContent !== null) {
          throw new Error('detached signature (SubFilter ' + (subFilter ?? 'none') + ') carries encapsulated content');
        }
        const checks = sis.map((si) => verifySigner(cms, si, content));
        check = checks[0];
        // several SignerInfos: the PDF signature is the first one; any other must verify too
        checks.slice(1).forEach((c, i) => {
          if (!(c.digestOk && c.signatureOk)) errors.push(`additional SignerInfo #${i + 2} does not verify: ${c.errors.join('; ')}`);
        });
        detail.digest_ok = check.digestOk && !errors.some((e) => e.startsWith('encapsulated'));
        detail.signature_ok = checks.every((c) => c.signatureOk && c.digestOk) && check.signatureOk;
        errors.push(...check.errors);
        if (check.timestamp) {
          cmsList.push(check.timestamp.cms);
          if (check.timestamp.ok) {
            timestamp = check.timestamp;
            signingTime = check.timestamp.genTime;
            signedAtSource = 'timestamp';
          } else errors.push(...check.timestamp.errors.map((e) => `signature time-stamp ignored: ${e}`));
        }
        if (!signingTime && check.signingTime) {
          signingTime = check.signingTime;
          signedAtSource = 'signing_time';
        }
      }
    } catch (e) {
      errors.push(`CMS: ${(e as Error).message}`);
    }
  }
  if (!signingTime) {
    const m = parsePdfDate(textOf(d.m.get('M')));
    if (m) {
      signingTime = m;
      signedAtSource = 'pdf_m';
    }
  }
  detail.signed_at = signingTime ? signingTime.toISOString() : null;
  detail.signed_at_source = detail.signed_at ? signedAtSource : null;

  // --- proven time (docs/pdf-signatures.md, "Time-stamps")
  const proven = provenTime(ctx, timestamp, isDocTs, detail.covers_whole_revision ? signedEnd : null);
  const proof = proven?.time ?? null;
  detail.proof_time = proof ? proof.toISOString() : null;
  detail.proof_source = proven?.source ?? null;

  // --- certificate chain
  const signerCert = check?.signerCert ?? null;
  pool = [...pool, ...ctx.dssCerts];
  detail.signer = certName(signerCert, 'subject');
  detail.issuer = certName(signerCert, 'issuer');
  const cryptoOk = () => detail.covers_whole_revision && detail.digest_ok && detail.signature_ok;
  let revokedAtT = false;
  if (signerCert) {
    // Certificate validity: forced `at`, else the proven time, else `now` (the analysis time), else the signing time.
    const at = ctx.at ?? proof ?? ctx.now ?? signingTime;
    // Trust-list status and revocation are judged at T: the proven time, else the claimed signing time.
    const t = proof ?? signingTime;
    const chain = evaluateChain(signerCert, pool, signerAnchors(ctx.trustStore, isDocTs, t), at);
    detail.chain_ok = chain.chainOk;
    detail.trusted = chain.trusted;
    const listedAnchor = (ctx.trustStore.listed ?? []).find((a) => a.cert === chain.anchor);
    const staleAfter = ctx.trustStore.listedStaleAfterMs;
    const label = (a: ListedAnchor) => (ctx.now && staleAfter !== undefined ? listedLabel(a, ctx.now, staleAfter) : a.label);
    if (chain.trusted && chain.anchor) detail.trust_anchor = listedAnchor ? label(listedAnchor) : certName(chain.anchor, 'subject');
    errors.push(...chain.errors.map((e) => `chain: ${e}`));

    // --- revocation, for trusted approval signatures only (never any look-up for an untrusted chain)
    if (chain.trusted && t && !isDocTs && cryptoOk() && ctx.revocation.mode !== 'off') {
      const evidence = mergeEvidence(ctx.dssEvidence, ...cmsList.map(cmsRevocationEvidence));
      const report = await checkRevocation({ path: chain.path, evidence, time: t, proven: proof !== null, options: ctx.revocation });
      detail.revocation = report;
      errors.push(...revocationErrors(report));
      if (report.outcome === 'revoked') revokedAtT = true;
      else if (report.outcome === 'revoked_after_claimed_time') {
        // A stolen key can back-date a claimed time: not trusted without a proven time.
        detail.trusted = false;
        detail.trust_anchor = null;
      }
    }
  }

  // --- later changes
  if (detail.covers_whole_revision && signedEnd < fileLen) {
    const tail = latin1(doc.buf, signedEnd, fileLen);
    if (/\S/.test(tail)) {
      try {
        const rep = analyzeChanges(doc, signedEnd, fileLen);
        detail.changes_permitted = rep.permitted;
        if (rep.disallowed.length) {
          detail.modified_after = true;
          errors.push(...rep.disallowed.map((x) => `modified after signing: ${x}`));
        }
      } catch (e) {
        detail.modified_after = true;
        errors.push(`modified after signing: later revisions could not be analysed (${(e as Error).message})`);
      }
    }
  }

  detail.status = !cryptoOk() || revokedAtT ? 'invalid' : detail.modified_after ? 'modified' : !detail.trusted ? 'untrusted' : 'valid';
  return detail;
}

// ---------------------------------------------------------------------------
// Entry point

const RANK: Record<PdfSignatureDetail['status'], number> = { valid: 0, untrusted: 1, modified: 2, invalid: 3 };

function emptyResult(): PdfSignatureResult {
  return {
    status: 'missing',
    reasons: ['signature_missing'],
    signer: null,
    issuer: null,
    signed_at: null,
    trust_anchor: null,
    trusted: false,
    signatures: 0,
    edited_suspected: false,
    edited_reasons: [],
    details: [],
  };
}

export interface VerifyOptions {
  trustStore: TrustStore;
  /** Forced validation time for certificate validity (overrides everything below). */
  at?: Date;
  /** The current time (e.g. the analysis time): certificate validity for signatures without a proven time. */
  now?: Date;
  /** Revocation checks (docs/pdf-signatures.md, "Revocation"); absent: not checked (`off`), as before. */
  revocation?: RevocationOptions;
}

/**
 * Verifies every signature dictionary of a PDF. Never throws for malformed PDFs.
 * Certificate validity time: `at` when given; else the proven time (trusted time-stamp); else `now` when
 * given; else the signing time (time-stamp genTime, else signing-time attribute, else /M).
 */
export async function verifyPdfSignatures(pdf: Uint8Array, opts: VerifyOptions): Promise<PdfSignatureResult> {
  const result = emptyResult();
  let doc: PdfDocument;
  try {
    doc = new PdfDocument(pdf);
  } catch (e) {
    return { ...result, status: 'invalid', reasons: ['signature_invalid'], details: [] };
  }
  const dss = readDss(doc);
  const ctx: Ctx = {
    doc,
    trustStore: opts.trustStore,
    at: opts.at,
    now: opts.now,
    revocation: opts.revocation ?? { mode: 'off' },
    dssCerts: dss.certs,
    dssEvidence: dss.evidence,
    docTimestamps: [],
  };
  let candidates: SigCandidate[] = [];
  try {
    candidates = findCandidates(doc).filter((c) => !isPlaceholder(c.dict));
  } catch {
    candidates = [];
  }

  // One signature per (object, index): prefer the current definition when it is self-consistent,
  // else the newest earlier definition whose /Contents sits in its ByteRange gap (a signature
  // dictionary redefined after signing: the change analysis flags the redefinition).
  let finalEntries: Map<number, unknown> | null = null;
  try {
    finalEntries = doc.stateAt(pdf.length).entries;
  } catch {
    finalEntries = null;
  }
  const groups = new Map<string, SigCandidate[]>();
  for (const c of candidates) {
    const k = `${c.objNum}#${c.index}`;
    const g = groups.get(k) ?? [];
    g.push(c);
    groups.set(k, g);
  }
  const chosen: SigCandidate[] = [];
  for (const g of groups.values()) {
    g.sort((a, b) => a.objOffset - b.objOffset);
    const entry = finalEntries?.get(g[0].objNum) as { type: number; offset?: number } | undefined;
    const current = g.find((c) => entry && entry.type === 1 && entry.offset === c.objOffset) ?? g[g.length - 1];
    const consistent = (c: SigCandidate) => contentsInGap(c.dict, numbersOf(c.dict.m.get('ByteRange')));
    if (consistent(current)) chosen.push(current);
    else {
      const older = g.filter((c) => c.objOffset < current.objOffset && consistent(c)).pop();
      chosen.push(older ?? current);
    }
  }
  chosen.sort((a, b) => a.objOffset - b.objOffset);

  const names = fieldNames(doc);
  // Document time-stamps first, newest first: a trusted one proves the time of every revision it covers.
  const isDocTsDict = (c: SigCandidate) => isName(c.dict.m.get('SubFilter'), 'ETSI.RFC3161') || isName(c.dict.m.get('Type'), 'DocTimeStamp');
  const ordered = [...chosen.filter(isDocTsDict).reverse(), ...chosen.filter((c) => !isDocTsDict(c))];
  for (const c of ordered) {
    let detail: PdfSignatureDetail;
    try {
      detail = await verifyOne(ctx, c, names.get(c.objNum) ?? null);
    } catch (e) {
      detail = blankDetail(names.get(c.objNum) ?? null, numbersOf(c.dict.m.get('ByteRange')), null, 'signature', [`internal error: ${(e as Error).message}`]);
    }
    if (detail.kind === 'document_timestamp' && detail.proof_time && detail.proof_source === 'document_timestamp' && detail.byte_range && detail.covers_whole_revision && detail.digest_ok && detail.signature_ok) {
      ctx.docTimestamps.push({ gapStart: detail.byte_range[1], time: new Date(detail.proof_time) });
    }
    result.details.push(detail);
  }
  // order by the end of the signed revision (signing order)
  const endOf = (x: PdfSignatureDetail) => (x.byte_range && x.byte_range.length >= 2 ? x.byte_range[x.byte_range.length - 2] + x.byte_range[x.byte_range.length - 1] : 0);
  result.details.sort((a, b) => endOf(a) - endOf(b));

  const editors = safeEditorCheck(doc);
  result.edited_reasons = editors;
  if (result.details.length === 0) {
    result.edited_suspected = editors.length > 0;
    return result;
  }

  result.signatures = result.details.length;
  // A document time-stamp must be intact and must not hide disallowed changes, but the trust
  // of its TSA does not downgrade a document that carries approval signatures.
  const hasApproval = result.details.some((x) => x.kind === 'signature');
  const effective = (x: PdfSignatureDetail): PdfSignatureDetail['status'] =>
    hasApproval && x.kind === 'document_timestamp' && x.status === 'untrusted' ? 'valid' : x.status;
  const counted = result.details.map(effective);
  const worst = counted.reduce((w, s) => (RANK[s] > RANK[w] ? s : w), 'valid' as PdfSignatureDetail['status']);
  result.status = worst;
  const reasons: string[] = [];
  if (counted.includes('invalid')) reasons.push('signature_invalid');
  if (counted.includes('modified')) reasons.push('document_modified_after_signing');
  if (counted.includes('untrusted') || result.details.some((x, i) => counted[i] === 'modified' && !x.trusted && (!hasApproval || x.kind === 'signature'))) reasons.push('untrusted_signer');
  if (worst === 'valid') reasons.push('signature_valid');
  // Revocation (approval signatures that are trusted; see docs/pdf-signatures.md, "Revocation").
  const outcomes = result.details.map((x) => x.revocation?.outcome);
  if (outcomes.includes('revoked') || outcomes.includes('revoked_after_claimed_time')) reasons.push('revoked');
  if (outcomes.includes('unknown')) reasons.push('revocation_unknown');
  result.reasons = reasons;
  const sigs = result.details.filter((x) => x.kind === 'signature');
  const shown = (sigs.length ? sigs : result.details)[(sigs.length ? sigs : result.details).length - 1];
  result.signer = shown.signer;
  result.issuer = shown.issuer;
  result.signed_at = shown.signed_at;
  result.trust_anchor = shown.trust_anchor;
  // The document's `trusted`: each approval signature chains to an anchor AND is not invalid (a signature that fails its
  // cryptographic checks, or whose signer was revoked at signing time, proves nothing about who signed).
  result.trusted = result.details.filter((x) => !hasApproval || x.kind === 'signature').every((x) => x.trusted && x.status !== 'invalid');
  if (result.details.some((x) => x.modified_after)) editors.push('document modified after signing');
  result.edited_suspected = editors.length > 0;
  return result;
}

/**
 * The Document Security Store (PAdES LTV): certificates (path-building candidates only) and the OCSP
 * responses and CRLs of `/OCSPs`, `/CRLs` and every `/VRI` entry (each is verified before it counts).
 */
function readDss(doc: PdfDocument): { certs: pkijs.Certificate[]; evidence: RevocationEvidence } {
  const certs: pkijs.Certificate[] = [];
  const evidence: RevocationEvidence = { ocsps: [], crls: [] };
  try {
    const st = doc.stateAt(doc.buf.length);
    const root = dictOf(doc.resolve(st.trailer?.m.get('Root'), st));
    const dss = dictOf(doc.resolve(root?.m.get('DSS'), st));
    if (!dss) return { certs, evidence };
    const seen = new Set<string>();
    const streams = (v: PdfValue | undefined): Uint8Array[] => {
      const arr = doc.resolve(v, st);
      if (!Array.isArray(arr)) return [];
      const out: Uint8Array[] = [];
      for (const x of arr.slice(0, 500)) {
        const key = isRef(x) ? `${x.num} ${x.gen}` : null;
        if (key && seen.has(key)) continue;
        if (key) seen.add(key);
        const s = doc.resolve(x, st);
        if (!isStream(s)) continue;
        try {
          out.push(new Uint8Array(doc.streamData(s, st)));
        } catch {
          /* skip */
        }
      }
      return out;
    };
    for (const der of streams(dss.m.get('Certs'))) {
      try {
        certs.push(pkijs.Certificate.fromBER(der as Uint8Array<ArrayBuffer>));
      } catch {
        /* skip */
      }
    }
    evidence.ocsps.push(...streams(dss.m.get('OCSPs')));
    evidence.crls.push(...streams(dss.m.get('CRLs')));
    const vri = dictOf(doc.resolve(dss.m.get('VRI'), st));
    for (const entry of [...(vri?.m.values() ?? [])].slice(0, 200)) {
      const e = dictOf(doc.resolve(entry, st));
      if (!e) continue;
      evidence.ocsps.push(...streams(e.m.get('OCSP')));
      evidence.crls.push(...streams(e.m.get('CRL')));
    }
  } catch {
    /* no DSS */
  }
  return { certs, evidence };
}

function safeEditorCheck(doc: PdfDocument): string[] {
  try {
    const st = doc.stateAt(doc.buf.length);
    const info = dictOf(doc.resolve(st.trailer?.m.get('Info'), st));
    const get = (k: string) => (info ? textOf(doc.resolve(info.m.get(k), st)) : null);
    let xmp: string | null = null;
    const root = dictOf(doc.resolve(st.trailer?.m.get('Root'), st));
    const md = doc.resolve(root?.m.get('Metadata'), st);
    if (isStream(md)) {
      try {
        xmp = Buffer.from(doc.streamData(md, st)).toString('utf8');
      } catch {
        xmp = null;
      }
    }
    return detectEditor({
      producer: get('Producer'),
      creator: get('Creator'),
      creationDate: parsePdfDate(get('CreationDate')),
      modDate: parsePdfDate(get('ModDate')),
      xmp,
    });
  } catch {
    return [];
  }
}

