// Certification path building and validation (no revocation: there is no network here).
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { OID, verifyWithCert } from './cms.ts';

export interface ChainResult {
  /** Path built and every link verified (signature, issuer is a CA, validity at `at`). */
  chainOk: boolean;
  /** chainOk and the path ends at a certificate of the trust store. */
  trusted: boolean;
  anchor: pkijs.Certificate | null;
  path: pkijs.Certificate[];
  errors: string[];
}

const derCache = new WeakMap<pkijs.Certificate, string>();
function spkiHex(c: pkijs.Certificate): string {
  let s = derCache.get(c);
  if (!s) {
    s = Buffer.from(c.subjectPublicKeyInfo.toSchema().toBER(false)).toString('hex');
    derCache.set(c, s);
  }
  return s;
}

function sameCert(a: pkijs.Certificate, b: pkijs.Certificate): boolean {
  return a === b || (a.subject.isEqual(b.subject) && spkiHex(a) === spkiHex(b));
}

function isCA(c: pkijs.Certificate): boolean | null {
  const ext = c.extensions?.find((e) => e.extnID === OID.basicConstraints);
  if (!ext) return c.version < 2 ? null : false; // v1/v2 certificates carry no extensions
  const p = ext.parsedValue;
  if (p instanceof pkijs.BasicConstraints) return !!p.cA;
  try {
    const bc = new pkijs.BasicConstraints({ schema: asn1js.fromBER(ext.extnValue.valueBlock.valueHexView).result });
    return !!bc.cA;
  } catch {
    return false;
  }
}

const sigCache = new WeakMap<pkijs.Certificate, Map<pkijs.Certificate, boolean>>();
function issuedBy(cert: pkijs.Certificate, issuer: pkijs.Certificate): boolean {
  if (!cert.issuer.isEqual(issuer.subject)) return false;
  let m = sigCache.get(cert);
  if (!m) {
    m = new Map();
    sigCache.set(cert, m);
  }
  const hit = m.get(issuer);
  if (hit !== undefined) return hit;
  const err = verifyWithCert(issuer, cert.signatureAlgorithm, null, new Uint8Array(cert.tbsView), new Uint8Array(cert.signatureValue.valueBlock.valueHexView));
  m.set(issuer, err === null);
  return err === null;
}

/**
 * Builds a path from `leaf` through `pool` (CMS certificates) to one of `roots`, depth-first,
 * and validates it at time `at`. The trust anchor's own constraints are taken on trust except
 * that it must be a CA when it issued another certificate and carries v3 extensions.
 */
export function evaluateChain(leaf: pkijs.Certificate, pool: pkijs.Certificate[], roots: pkijs.Certificate[], at: Date | null): ChainResult {
  const candidates = [...roots, ...pool];
  let best: { path: pkijs.Certificate[]; anchor: pkijs.Certificate | null } = { path: [leaf], anchor: null };

  const walk = (path: pkijs.Certificate[]): boolean => {
    const cur = path[path.length - 1];
    const anchor = roots.find((r) => sameCert(r, cur));
    if (anchor) {
      best = { path, anchor };
      return true;
    }
    if (path.length > best.path.length) best = { path, anchor: null };
    if (path.length >= 12) return false;
    for (const c of candidates) {
      if (path.some((p) => sameCert(p, c))) continue;
      if (!issuedBy(cur, c)) continue;
      if (walk([...path, c])) return true;
    }
    return false;
  };
  walk([leaf]);

  const errors: string[] = [];
  const { path, anchor } = best;
  const top = path[path.length - 1];
  const selfSigned = top.subject.isEqual(top.issuer) && issuedBy(top, top);
  if (!anchor) {
    if (selfSigned) errors.push(`chain ends at a self-signed certificate that is not in the trust store (${describe(top)})`);
    else errors.push(`issuer certificate not found for ${describe(top)}`);
  }
  for (let i = 1; i < path.length; i++) {
    const ca = isCA(path[i]);
    if (ca === false) errors.push(`issuer ${describe(path[i])} is not a CA certificate`);
  }
  if (!at) errors.push('no validation time: neither a time-stamp, a signing time nor opts.at');
  else {
    for (const c of path) {
      if (at < c.notBefore.value || at > c.notAfter.value) {
        errors.push(`certificate ${describe(c)} not valid at ${at.toISOString()} (valid ${c.notBefore.value.toISOString()} to ${c.notAfter.value.toISOString()})`);
      }
    }
  }
  const linksOk = anchor !== null || selfSigned;
  const chainOk = linksOk && errors.filter((e) => !e.startsWith('chain ends at a self-signed')).length === 0;
  return { chainOk, trusted: chainOk && anchor !== null, anchor, path, errors };
}

function describe(c: pkijs.Certificate): string {
  const cn = c.subject.typesAndValues.find((t) => t.type === OID.commonName) ?? c.subject.typesAndValues[0];
  const v = (cn?.value as unknown as { valueBlock?: { value?: unknown } })?.valueBlock?.value;
  return `"${typeof v === 'string' ? v : '?'}"`;
}
