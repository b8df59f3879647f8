// EU trusted lists (ETSI TS 119 612): verify a LOTL and the national lists it announces, and turn
// their CA/QC services into trust anchors that carry the periods in which they were granted.
// Trust comes only from pinned certificates: the operator's LOTL signers, then the signers the
// verified LOTL announces per territory. KeyInfo is never trusted on its own.
import { createHash, createPrivateKey, createPublicKey, createSign, createVerify, KeyObject, X509Certificate, type KeyLike, type BinaryLike } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Element as XElement } from '@xmldom/xmldom';
import type * as Xmldom from '@xmldom/xmldom';
import type * as XmlCrypto from 'xml-crypto';
import type * as pkijs from 'pkijs';
import { parseCertificates } from './certificates.ts';

const TSL = 'http://uri.etsi.org/02231/v2#';
/** The MIME type of a trusted list in XML (TS 119 612 annex), as a LOTL pointer's `AdditionalInformation` gives it. */
export const TSL_XML_MIME = 'application/vnd.etsi.tsl+xml';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
/**
 * The XML parser and XML-DSig verifier, loaded when the first list is read: a server without trusted lists never pays
 * for them at start (#13: what only some requests need loads on first use).
 */
const require = createRequire(import.meta.url);
let xmlLibs: { DOMParser: typeof Xmldom.DOMParser; SignedXml: typeof XmlCrypto.SignedXml } | undefined;
function xmlLib(): NonNullable<typeof xmlLibs> {
  xmlLibs ??= { DOMParser: (require('@xmldom/xmldom') as typeof Xmldom).DOMParser, SignedXml: (require('xml-crypto') as typeof XmlCrypto).SignedXml };
  return xmlLibs;
}

export const CA_QC = 'http://uri.etsi.org/TrstSvc/Svctype/CA/QC';
/** Qualified time-stamping services: their certificates anchor the TSAs of signature and document time-stamps. */
export const TSA_QTST = 'http://uri.etsi.org/TrstSvc/Svctype/TSA/QTST';

/**
 * Statuses under which a CA/QC service's certificates may anchor a qualified signature: granted
 * (TS 119 612 v2, since 2016-07-01) and the earlier accredited / undersupervision /
 * supervisionincessation. recognisedatnationallevel is left out: it is not a qualified status.
 */
const GRANTED = new Set([
  'http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted',
  'http://uri.etsi.org/TrstSvc/Svcstatus/accredited',
  'http://uri.etsi.org/TrstSvc/Svcstatus/undersupervision',
  'http://uri.etsi.org/TrstSvc/Svcstatus/supervisionincessation',
]);

// XML-DSig ECDSA signature values are r||s (IEEE P1363), not DER; xml-crypto has no ECDSA class.
function ecdsa(uri: string, hash: string) {
  return class {
    getSignature(signedInfo: BinaryLike, privateKey: KeyLike): string {
      return createSign(hash).update(signedInfo).sign({ key: privateKey instanceof KeyObject ? privateKey : createPrivateKey(privateKey), dsaEncoding: 'ieee-p1363' }, 'base64');
    }
    verifySignature(material: string, key: KeyLike, signatureValue: string): boolean {
      return createVerify(hash).update(material).verify({ key: key instanceof KeyObject ? key : createPublicKey(key), dsaEncoding: 'ieee-p1363' }, signatureValue, 'base64');
    }
    getAlgorithmName(): string {
      return uri;
    }
  };
}
export const ECDSA_ALGORITHMS: Record<string, ReturnType<typeof ecdsa>> = {
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256': ecdsa('http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256', 'sha256'),
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384': ecdsa('http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384', 'sha384'),
  'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512': ecdsa('http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512', 'sha512'),
};

export interface StatusPeriod {
  status: string;
  from: Date;
  /** Start of the next status, or null for the current one. */
  to: Date | null;
}

export interface ListedService {
  territory: string;
  name: string;
  type: string;
  /** DER certificates of ServiceDigitalIdentity. */
  certs: Uint8Array[];
  /** Oldest first; the last one is the current status. */
  history: StatusPeriod[];
}

export interface TrustList {
  territory: string;
  sequence: number | null;
  issued: Date | null;
  nextUpdate: Date | null;
  services: ListedService[];
  /** For a LOTL: the pointed lists' signer certificates (DER) by territory. */
  pointers: Map<string, Uint8Array[]>;
  /**
   * For a LOTL: where each territory's list is, as XML (the `TSLLocation` of the `OtherTSLPointer` whose
   * `AdditionalInformation` says MimeType `application/vnd.etsi.tsl+xml`; the PDF copies are left out).
   */
  locations: Map<string, string>;
  /** SHA-256 (hex) of the DER certificate whose key verified the list's signature. */
  signedBy: string;
  warnings: string[];
}

export class TrustListError extends Error {}

/** Whether the service's status at `at` is one of the granted ones. */
export function grantedAt(service: Pick<ListedService, 'history'>, at: Date): boolean {
  const t = at.getTime();
  return service.history.some((p) => GRANTED.has(p.status) && p.from.getTime() <= t && (p.to === null || t < p.to.getTime()));
}

const children = (el: XElement, local: string): XElement[] =>
  Array.from(el.childNodes).filter((n): n is XElement => n.nodeType === 1 && (n as XElement).localName === local && (n as XElement).namespaceURI === TSL);
const child = (el: XElement | undefined, local: string): XElement | undefined => (el ? children(el, local)[0] : undefined);
const text = (el: XElement | undefined): string => (el?.textContent ?? '').trim();
const date = (el: XElement | undefined): Date | null => {
  const d = el ? new Date(text(el)) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
};
const certsOf = (sdis: XElement[]): Uint8Array[] =>
  sdis.flatMap((sdi) =>
    children(sdi, 'DigitalId')
      .flatMap((d) => children(d, 'X509Certificate'))
      .map((c) => new Uint8Array(Buffer.from(text(c).replace(/\s+/g, ''), 'base64'))),
  );
const derHash = (der: Uint8Array): string => createHash('sha256').update(der).digest('hex');
const firstName = (el: XElement | undefined): string => text(child(el, 'Name'));

/**
 * Verifies the enveloped signature of `xml` against `signers` (DER) and parses the list from the
 * verified document. Throws TrustListError when it must not be trusted.
 */
export function readTrustList(xml: string | Uint8Array, signers: Uint8Array[], now = new Date()): TrustList {
  let s = typeof xml === 'string' ? xml : Buffer.from(xml).toString('utf8');
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  if (/<!DOCTYPE/i.test(s)) throw new TrustListError('DOCTYPE is not allowed in a trusted list');
  if (signers.length === 0) throw new TrustListError('no pinned signer certificate for this list');
  const doc = new (xmlLib().DOMParser)({ onError: (level, msg) => { if (level !== 'warning') throw new TrustListError(`not well-formed XML: ${msg}`); } }).parseFromString(s, 'text/xml');
  const fileRoot = doc.documentElement;
  if (!fileRoot || fileRoot.localName !== 'TrustServiceStatusList' || fileRoot.namespaceURI !== TSL) throw new TrustListError('not a TrustServiceStatusList');
  const sigs = Array.from(doc.getElementsByTagNameNS(DS, 'Signature'));
  if (sigs.length !== 1) throw new TrustListError(`expected exactly one signature, found ${sigs.length}`);
  const sigEl = sigs[0];
  if (sigEl.parentNode !== fileRoot) throw new TrustListError('the signature is not a child of the list root');
  const refs = Array.from(sigEl.getElementsByTagNameNS(DS, 'Reference'));
  const docRefs = refs.filter((r) => !(r.parentNode as XElement | null)?.localName?.includes('Manifest'));
  if (!docRefs.some((r) => r.getAttribute('URI') === '' || r.getAttribute('URI') === `#${fileRoot.getAttribute('Id')}`)) {
    throw new TrustListError('the signature does not cover the whole list');
  }

  // KeyInfo may name a certificate, but it must be one of the pinned ones.
  const pinned = new Set(signers.map(derHash));
  const keyInfoCerts = Array.from(sigEl.getElementsByTagNameNS(DS, 'X509Certificate')).map((c) => new Uint8Array(Buffer.from(text(c as XElement).replace(/\s+/g, ''), 'base64')));
  for (const c of keyInfoCerts) if (!pinned.has(derHash(c))) throw new TrustListError('KeyInfo carries a certificate that is not a pinned signer');

  let signed: string | null = null;
  let signedBy: X509Certificate | null = null;
  let signedByHash = '';
  let lastError = 'signature does not verify with any pinned signer';
  for (const der of signers) {
    const sx = new (xmlLib().SignedXml)({ publicCert: new X509Certificate(der).publicKey, getCertFromKeyInfo: () => null });
    Object.assign(sx.SignatureAlgorithms, ECDSA_ALGORITHMS);
    try {
      sx.loadSignature(sigEl.toString());
      if (sx.checkSignature(s) && sx.getSignedReferences().length === 1) {
        signed = sx.getSignedReferences()[0];
        signedBy = new X509Certificate(der);
        signedByHash = derHash(der);
        break;
      }
    } catch (e) {
      lastError = `signature: ${(e as Error).message}`;
    }
  }
  if (signed === null) throw new TrustListError(lastError);
  // Read the data from what xml-crypto verified (its canonical form of the referenced list), not from
  // our own parse of the file: two parsers (xmldom 0.8 inside xml-crypto, 0.9 here) must not disagree.
  const root = new (xmlLib().DOMParser)({ onError: (level, msg) => { if (level !== 'warning') throw new TrustListError(`signed list not well-formed: ${msg}`); } }).parseFromString(signed, 'text/xml').documentElement;
  if (!root || root.localName !== 'TrustServiceStatusList' || root.namespaceURI !== TSL) throw new TrustListError('the signed reference is not the list');

  const info = child(root, 'SchemeInformation');
  const territory = text(child(info, 'SchemeTerritory')).toUpperCase();
  const nextUpdate = date(child(child(info, 'NextUpdate'), 'dateTime'));
  const warnings: string[] = [];
  if (!nextUpdate) warnings.push(`${territory}: no NextUpdate (closed list)`);
  else if (nextUpdate.getTime() < now.getTime()) warnings.push(`${territory}: NextUpdate ${nextUpdate.toISOString()} has passed`);

  const pointers = new Map<string, Uint8Array[]>();
  const locations = new Map<string, string>();
  for (const p of children(child(info, 'PointersToOtherTSL') ?? root, 'OtherTSLPointer')) {
    const t = Array.from(p.getElementsByTagNameNS(TSL, 'SchemeTerritory'))[0];
    const terr = text(t as XElement | undefined).toUpperCase();
    if (!terr) continue;
    const certs = certsOf(children(child(p, 'ServiceDigitalIdentities') ?? p, 'ServiceDigitalIdentity'));
    pointers.set(terr, [...(pointers.get(terr) ?? []), ...certs]);
    // MimeType lives in the additionaltypes namespace (any prefix); only the XML pointer names the list we can read.
    const additional = child(p, 'AdditionalInformation');
    const mimes = additional ? Array.from(additional.getElementsByTagNameNS('*', 'MimeType')).map((m) => text(m as XElement)) : [];
    const location = text(child(p, 'TSLLocation'));
    if (location && mimes.includes(TSL_XML_MIME) && !locations.has(terr)) locations.set(terr, location);
  }

  const services: ListedService[] = [];
  for (const tsp of children(child(root, 'TrustServiceProviderList') ?? root, 'TrustServiceProvider')) {
    for (const svc of children(child(tsp, 'TSPServices') ?? tsp, 'TSPService')) {
      const si = child(svc, 'ServiceInformation');
      const type = text(child(si, 'ServiceTypeIdentifier'));
      const entries: { status: string; from: Date }[] = [];
      const push = (el: XElement | undefined) => {
        const from = date(child(el, 'StatusStartingTime'));
        const status = text(child(el, 'ServiceStatus'));
        if (from && status) entries.push({ status, from });
      };
      push(si);
      for (const h of children(child(svc, 'ServiceHistory') ?? svc, 'ServiceHistoryInstance')) push(h);
      entries.sort((a, b) => a.from.getTime() - b.from.getTime());
      const history = entries.map((e, i) => ({ ...e, to: entries[i + 1]?.from ?? null }));
      services.push({
        territory,
        name: firstName(child(si, 'ServiceName')) || firstName(child(child(tsp, 'TSPInformation'), 'TSPName')),
        type,
        certs: certsOf(children(child(si, 'ServiceDigitalIdentity') ? si! : svc, 'ServiceDigitalIdentity')),
        history,
      });
    }
  }
  // The signer certificate must have been valid when the list was issued (not "now": old lists stay readable).
  const issued = date(child(info, 'ListIssueDateTime'));
  if (!issued) throw new TrustListError('no ListIssueDateTime');
  if (signedBy && (issued < new Date(signedBy.validFrom) || issued > new Date(signedBy.validTo))) {
    throw new TrustListError(`signer certificate not valid at ListIssueDateTime ${issued.toISOString()}`);
  }
  const seq = Number(text(child(info, 'TSLSequenceNumber')));
  return { territory, sequence: Number.isFinite(seq) && seq > 0 ? seq : null, issued, nextUpdate, services, pointers, locations, signedBy: signedByHash, warnings };
}

/** A trust anchor from a trusted list: trusted only while one of its periods is granted. */
export interface ListedAnchor {
  cert: pkijs.Certificate;
  /** e.g. "EU trusted list ES: <service name>". */
  label: string;
  service: ListedService;
  /** ListIssueDateTime of the list the anchor comes from (how fresh the trust data is). */
  listIssued: Date | null;
  /**
   * When this list was last fetched from its official URL (the same list fetched again counts: it was still the
   * current one then); null for a list that only came from a seed directory.
   */
  fetchedAt: Date | null;
}

/**
 * CA/QC and TSA/QTST service certificates of verified lists, as anchors (`service.type` tells them apart).
 * `fetchedAt` gives, per territory, when its list was last fetched (absent: never, a seed's list).
 */
export function anchorsFromLists(lists: TrustList[], fetchedAt: ReadonlyMap<string, Date> = new Map()): ListedAnchor[] {
  const out: ListedAnchor[] = [];
  for (const l of lists) {
    for (const s of l.services) {
      if (s.type !== CA_QC && s.type !== TSA_QTST) continue;
      for (const der of s.certs) {
        for (const cert of parseCertificates(der)) {
          out.push({ cert, label: `EU trusted list ${l.territory}: ${s.name}`, service: s, listIssued: l.issued, fetchedAt: fetchedAt.get(l.territory) ?? null });
        }
      }
    }
  }
  return out;
}

const day = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * The anchor's label for `signature.trust_anchor`: `EU trusted list ES: <service name>`, and, when the trust data is
 * older than `staleAfterMs` (the refresh interval), its date: `... (list of 2026-08-21, older than the refresh
 * interval)` for a list from a seed directory (its ListIssueDateTime), `... (list fetched 2026-11-02, older than the
 * refresh interval)` for one fetched from its URL that has not been fetched again since (refresh failing or off).
 * The age is counted from the last fetch, not from the issue date: lists are reissued every few weeks or months, so a
 * list issued in August and fetched an hour ago is the current one, not stale data.
 */
export function listedLabel(anchor: Pick<ListedAnchor, 'label' | 'listIssued' | 'fetchedAt'>, now: Date, staleAfterMs: number): string {
  const asOf = anchor.fetchedAt ?? anchor.listIssued;
  if (!asOf || now.getTime() - asOf.getTime() <= staleAfterMs) return anchor.label;
  return anchor.fetchedAt
    ? `${anchor.label} (list fetched ${day(anchor.fetchedAt)}, older than the refresh interval)`
    : `${anchor.label} (list of ${day(asOf)}, older than the refresh interval)`;
}

/** The pinned LOTL signer certificates (DER) of a trusted-lists directory: `<dir>/lotl-signers/*.pem|crt|cer`. */
export async function readLotlSigners(dir: string): Promise<Uint8Array[]> {
  const signers: Uint8Array[] = [];
  const signerDir = join(dir, 'lotl-signers');
  for (const n of (await readdir(signerDir).catch(() => [] as string[])).filter((f) => /\.(pem|crt|cer)$/i.test(f)).sort()) {
    for (const c of parseCertificates(new Uint8Array(await readFile(join(signerDir, n))))) signers.push(new Uint8Array(c.toSchema().toBER(false)));
  }
  return signers;
}

/** The file a territory's list has in a trusted-lists directory: `ES.xml`; Greece (EL) may also be `GR.xml`. */
export function territoryOfFile(name: string): string | null {
  if (!/^[A-Za-z]{2}\.xml$/.test(name)) return null;
  const t = name.slice(0, 2).toUpperCase();
  return t === 'GR' ? 'EL' : t;
}

/**
 * Reads `dir`: lotl.xml, lotl-signers/*.pem and <territory>.xml. A list that fails is skipped
 * with one warning (never trusted). A missing directory gives no anchors.
 */
export async function loadTrustedLists(dir: string, warn: (msg: string) => void, now = new Date()): Promise<ListedAnchor[]> {
  let lotlXml: Buffer;
  try {
    lotlXml = await readFile(join(dir, 'lotl.xml'));
  } catch {
    warn(`trusted lists: ${join(dir, 'lotl.xml')} not readable; no EU trusted list anchors`);
    return [];
  }
  const signers = await readLotlSigners(dir);
  let lotl: TrustList;
  try {
    lotl = readTrustList(lotlXml, signers, now);
  } catch (e) {
    warn(`trusted lists: lotl.xml skipped: ${(e as Error).message}`);
    return [];
  }
  lotl.warnings.forEach((w) => warn(`trusted lists: lotl.xml: ${w}`));
  const lists: TrustList[] = [];
  for (const n of (await readdir(dir)).filter((f) => /^[A-Za-z]{2}\.xml$/.test(f)).sort()) {
    const terr = n.slice(0, 2).toUpperCase();
    try {
      const tl = readTrustList(await readFile(join(dir, n)), lotl.pointers.get(terr === 'GR' ? 'EL' : terr) ?? lotl.pointers.get(terr) ?? [], now);
      if (tl.territory !== terr && !(terr === 'GR' && tl.territory === 'EL')) throw new TrustListError(`scheme territory is ${tl.territory}, not ${terr}`);
      tl.warnings.forEach((w) => warn(`trusted lists: ${n}: ${w}`));
      lists.push(tl);
    } catch (e) {
      warn(`trusted lists: ${n} skipped: ${(e as Error).message}`);
    }
  }
  return anchorsFromLists(lists);
}

/** A copy of a list from somewhere, not trusted until verified: a seed file, a database row or a download. */
export interface ListCopy {
  /** The territory it must be: `EU` for the LOTL, else the scheme territory (`EL` for Greece). */
  territory: string;
  bytes: Uint8Array;
  kind: 'seed' | 'database' | 'download';
  /** For messages: `ES.xml in /srv/tl`, `database`, the URL. */
  origin: string;
  /** When it was fetched from its official URL (null: a seed file). */
  fetchedAt: Date | null;
  /** The URL it was fetched from (null: a seed file). */
  url: string | null;
}

/** A verified copy. */
export interface HeldList extends ListCopy {
  list: TrustList;
  /** SHA-256 (hex) of `bytes`. */
  sha256: string;
}

/** The lists in use: the LOTL and, per territory, the national list it verified. */
export interface TrustedListSet {
  lotl: HeldList | null;
  lists: ReadonlyMap<string, HeldList>;
}

export const EMPTY_LIST_SET: TrustedListSet = { lotl: null, lists: new Map() };

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const seqOf = (h: { list: TrustList }): number => h.list.sequence ?? 0;
const time = (d: Date | null): number => d?.getTime() ?? -Infinity;

/**
 * Picks, among `held` (already verified) and `candidates` (verified here), the LOTL with the highest sequence number
 * that verifies with `pins`, then per territory the national list with the highest sequence number that verifies with
 * the certificates that LOTL announces for it. Never goes back: a candidate with a lower sequence number than the copy
 * held loses (a download that does says so in `warn`), and a candidate that does not verify is refused with one
 * `warn` line and the copy held stays. A held list whose signer the chosen LOTL no longer announces is dropped. The
 * same copy again (same bytes) only moves its `fetchedAt` forward. `territories` (null: all) limits the national lists.
 */
export function chooseLists(
  pins: Uint8Array[],
  candidates: ListCopy[],
  held: TrustedListSet,
  opts: { now: Date; territories: ReadonlySet<string> | null; warn: (msg: string) => void },
): TrustedListSet {
  const { now, warn } = opts;
  const pick = (territory: string, prev: HeldList | null, copies: ListCopy[], signers: Uint8Array[]): HeldList | null => {
    // Fetched last first (a seed file last of all): among copies with the same sequence number, the first one wins.
    const ordered = copies
      .map((copy) => ({ copy, sha256: sha256Hex(copy.bytes) }))
      .sort((a, b) => time(b.copy.fetchedAt) - time(a.copy.fetchedAt));
    const verified: HeldList[] = [];
    for (const { copy, sha256 } of ordered) {
      if (prev && sha256 === prev.sha256) {
        if (time(copy.fetchedAt) > time(prev.fetchedAt)) prev = { ...prev, fetchedAt: copy.fetchedAt, url: copy.url ?? prev.url };
        continue;
      }
      try {
        const list = readTrustList(copy.bytes, signers, now);
        const got = list.territory === 'GR' ? 'EL' : list.territory;
        if (got !== territory) throw new TrustListError(`scheme territory is ${list.territory}, not ${territory}`);
        verified.push({ ...copy, list, sha256 });
      } catch (e) {
        warn(`trusted lists: ${territory} from ${copy.origin} refused: ${(e as Error).message}`);
      }
    }
    let best = prev;
    for (const v of verified.sort((a, b) => seqOf(b) - seqOf(a))) {
      if (best && seqOf(v) < seqOf(best)) {
        if (v.kind === 'download') warn(`trusted lists: ${territory} from ${v.origin} refused: sequence number ${seqOf(v)} is lower than the ${seqOf(best)} held`);
        continue;
      }
      if (!best || seqOf(v) > seqOf(best) || time(v.fetchedAt) >= time(best.fetchedAt)) best = v;
    }
    return best;
  };

  const lotl = pick('EU', held.lotl, candidates.filter((c) => c.territory === 'EU'), pins);
  if (!lotl) return EMPTY_LIST_SET;
  if (lotl.sha256 !== held.lotl?.sha256) lotl.list.warnings.forEach((w) => warn(`trusted lists: LOTL: ${w}`));
  const signersOf = (t: string) => lotl.list.pointers.get(t) ?? (t === 'EL' ? lotl.list.pointers.get('GR') : undefined) ?? [];
  const wanted = (t: string) => t !== 'EU' && (!opts.territories || opts.territories.has(t));
  const territories = new Set([...held.lists.keys(), ...candidates.map((c) => c.territory)].filter(wanted));
  const lists = new Map<string, HeldList>();
  for (const t of [...territories].sort()) {
    let prev = held.lists.get(t) ?? null;
    const signers = signersOf(t);
    if (prev && !signers.some((der) => derHash(der) === prev!.list.signedBy)) {
      warn(`trusted lists: ${t}: the LOTL no longer announces the certificate that signed the list held; dropped`);
      prev = null;
    }
    const chosen = pick(t, prev, candidates.filter((c) => c.territory === t), signers);
    if (chosen) {
      if (chosen.sha256 !== held.lists.get(t)?.sha256) chosen.list.warnings.forEach((w) => warn(`trusted lists: ${w}`));
      lists.set(t, chosen);
    }
  }
  return { lotl, lists };
}

/** The anchors of a set of lists (each carrying when its list was last fetched). */
export function anchorsOfSet(set: TrustedListSet): ListedAnchor[] {
  const lists = [...set.lists.values()];
  const fetched = new Map(lists.filter((h) => h.fetchedAt).map((h) => [h.list.territory, h.fetchedAt!]));
  return anchorsFromLists(lists.map((h) => h.list), fetched);
}

/**
 * The pivot LOTLs a LOTL names (ETSI TS 119 612 and the Commission's practice since 2019): the URIs of
 * `SchemeInformation/SchemeInformationURI` whose path ends in `.xml` (e.g. `.../eu-lotl-pivot-341.xml`); the other
 * URIs there (the Official Journal notice that published the signing certificates, an HTML page) are left out. In the
 * order listed: the Commission lists the newest pivot first, so the walk (`followPivots`) takes them reversed.
 * `xml` may be a candidate not verified yet: the URLs only say what to fetch, never what to trust.
 */
export function lotlPivotUrls(xml: string | Uint8Array): string[] {
  let s = typeof xml === 'string' ? xml : Buffer.from(xml).toString('utf8');
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
  if (/<!DOCTYPE/i.test(s)) return [];
  let root: XElement | null;
  try {
    root = new (xmlLib().DOMParser)({ onError: (level, msg) => { if (level !== 'warning') throw new TrustListError(msg); } }).parseFromString(s, 'text/xml').documentElement;
  } catch {
    return [];
  }
  if (!root || root.localName !== 'TrustServiceStatusList' || root.namespaceURI !== TSL) return [];
  const urls: string[] = [];
  for (const u of children(child(child(root, 'SchemeInformation'), 'SchemeInformationURI') ?? root, 'URI')) {
    let url: URL;
    try {
      url = new URL(text(u));
    } catch {
      continue;
    }
    if ((url.protocol === 'https:' || url.protocol === 'http:') && /\.xml$/i.test(url.pathname) && !urls.includes(url.href)) urls.push(url.href);
  }
  return urls;
}

/** A pivot LOTL as fetched (or as stored), not trusted until `followPivots` verifies it. */
export interface PivotCopy {
  url: string;
  bytes: Uint8Array;
  /** When it was fetched (stored copies keep their date). */
  fetchedAt: Date;
}

/** A pivot the walk verified: the certificates it announces for the LOTL are trusted for the next step. */
export interface FollowedPivot extends PivotCopy {
  sha256: string;
  sequence: number | null;
  /** The LOTL signer certificates (DER) it announces (its own `EU` pointer). */
  announces: Uint8Array[];
}

export type PivotWalk =
  | {
      ok: true;
      /** The certificates to verify the current LOTL with: the pins when no pivot verified, else the last pivot's. */
      signers: Uint8Array[];
      /** The pivots verified, oldest first. */
      followed: FollowedPivot[];
      /** Pivots before the chain starts (older than the pins: none of the pins verifies them), with why. */
      skipped: { url: string; reason: string }[];
    }
  | { ok: false; pivot: string; reason: string };

/**
 * From the pinned LOTL signers (`pins`, those of an Official Journal notice) to the certificates that sign the current
 * LOTL, through its pivots, `pivots` oldest first. Each pivot is read with `readTrustList` (one enveloped signature,
 * a pinned signer only, no DOCTYPE, read from what was verified) against the certificates trusted at that step; the
 * certificates it announces for the LOTL itself (its `OtherTSLPointer` whose territory is `EU`) become the trusted
 * ones for the next step. Pivots none of the pins verifies before the chain has started are older than the pins and
 * skipped (said in `skipped`); once a pivot has verified, one that does not breaks the chain (a refusal naming it), as
 * does a pivot that is not a LOTL, announces no certificate or whose sequence number does not rise. Trust never comes
 * from a pivot's KeyInfo nor from the current LOTL: only from a verified path from the pins.
 */
export function followPivots(pins: Uint8Array[], pivots: PivotCopy[], now = new Date()): PivotWalk {
  let trusted = pins;
  const followed: FollowedPivot[] = [];
  const skipped: { url: string; reason: string }[] = [];
  for (const p of pivots) {
    let list: TrustList;
    try {
      list = readTrustList(p.bytes, trusted, now);
    } catch (e) {
      if (followed.length === 0) {
        skipped.push({ url: p.url, reason: (e as Error).message });
        continue;
      }
      return { ok: false, pivot: p.url, reason: `does not verify with the certificates the pivot before it announces: ${(e as Error).message}` };
    }
    if (list.territory !== 'EU') return { ok: false, pivot: p.url, reason: `scheme territory is ${list.territory}, not EU` };
    const seen = new Set<string>();
    const announces = (list.pointers.get('EU') ?? []).filter((der) => !seen.has(derHash(der)) && seen.add(derHash(der)));
    if (announces.length === 0) return { ok: false, pivot: p.url, reason: 'announces no LOTL signer certificate (no EU pointer)' };
    const prev = followed.at(-1);
    if (prev && (list.sequence ?? 0) <= (prev.sequence ?? 0)) {
      return { ok: false, pivot: p.url, reason: `sequence number ${list.sequence ?? '?'} is not above the ${prev.sequence ?? '?'} of the pivot before it` };
    }
    followed.push({ ...p, sha256: sha256Hex(p.bytes), sequence: list.sequence, announces });
    trusted = announces;
  }
  return { ok: true, signers: trusted, followed, skipped };
}
