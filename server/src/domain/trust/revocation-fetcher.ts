/**
 * Online revocation look-ups for PAdES verification (docs/pdf-signatures.md, "Revocation"): an OCSP request
 * (RFC 6960, HTTP POST application/ocsp-request, SHA-1 CertID) to the certificate's AIA OCSP URL, else the CRL of its
 * http(s) distribution point. What comes back is only handed to validators/pdf-signature/revocation.ts, which
 * verifies it; nothing here is trusted.
 *
 * Guarded like file_url downloads and webhook deliveries: http(s) only, no userinfo, no redirects, every address
 * a host resolves to must be public (guardedLookup) and the connected address is checked again; a time-out per
 * request (5 s), a budget per analysis (10 s, `forAnalysis()`), size caps (OCSP 64 KB, CRL 20 MB).
 *
 * Cache: per process, in memory, bounded, keyed by URL (+ CertID for OCSP), kept until the answer's nextUpdate
 * (at least 5 minutes, at most 24 hours). Safe to lose: a miss only costs a request.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { Clock } from '../../clock.ts';
import { judgeAddress } from '../intake/address-policy.ts';
import { watchConnectedAddress } from '../intake/file-url.ts';
import { defaultResolver, guardedLookup, type HostResolver } from '../intake/guarded-lookup.ts';
import { parseBasicOcsp, type RevocationEvidence, type RevocationFetch, type RevocationRequest } from '../../validators/pdf-signature/revocation.ts';

export const REVOCATION_LIMITS = {
  requestTimeoutMs: 5_000,
  budgetMs: 10_000,
  ocspMaxBytes: 64 * 1024,
  crlMaxBytes: 20 * 1024 * 1024,
  minTtlMs: 5 * 60_000,
  maxTtlMs: 24 * 3600_000,
  cacheEntries: 2_000,
} as const;

export interface RevocationFetcherOptions {
  /** COTEJO_ALLOW_PRIVATE_URLS: allow loopback/private targets (development and tests only). */
  allowPrivate: boolean;
  clock: Clock;
  resolver?: HostResolver;
  requestTimeoutMs?: number;
  budgetMs?: number;
}

interface CacheEntry {
  expires: number;
  der: Uint8Array;
}

const USER_AGENT = 'Cotejo-Revocation/1.0';
const SHA1 = '1.3.14.3.2.26';

/** DER OCSPRequest for one certificate, CertID with SHA-1 (what every responder understands). */
export function ocspRequest(cert: pkijs.Certificate, issuer: pkijs.Certificate): Uint8Array {
  const sha1 = (b: ArrayBuffer | Uint8Array) => new Uint8Array(createHash('sha1').update(new Uint8Array(b)).digest()) as Uint8Array<ArrayBuffer>;
  const certId = new pkijs.CertID({
    hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA1, algorithmParams: new asn1js.Null() }),
    issuerNameHash: new asn1js.OctetString({ valueHex: sha1(issuer.subject.toSchema().toBER(false)) }),
    issuerKeyHash: new asn1js.OctetString({ valueHex: sha1(issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView) }),
    serialNumber: cert.serialNumber,
  });
  const req = new pkijs.OCSPRequest({ tbsRequest: new pkijs.TBSRequest({ requestList: [new pkijs.Request({ reqCert: certId })] }) });
  return new Uint8Array(req.toSchema(true).toBER(false));
}

class FetchError extends Error {}

export class RevocationFetcher {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly opts: Required<Omit<RevocationFetcherOptions, 'resolver'>> & { resolver: HostResolver };

  constructor(opts: RevocationFetcherOptions) {
    this.opts = {
      resolver: opts.resolver ?? defaultResolver,
      requestTimeoutMs: opts.requestTimeoutMs ?? REVOCATION_LIMITS.requestTimeoutMs,
      budgetMs: opts.budgetMs ?? REVOCATION_LIMITS.budgetMs,
      allowPrivate: opts.allowPrivate,
      clock: opts.clock,
    };
  }

  /** A look-up function for one analysis: shares this process's cache, and stops after the analysis's time budget. */
  forAnalysis(): RevocationFetch {
    let deadline: number | null = null;
    return async (req) => {
      deadline ??= Date.now() + this.opts.budgetMs;
      return this.lookup(req, deadline);
    };
  }

  private async lookup(req: RevocationRequest, deadline: number): Promise<RevocationEvidence & { errors: string[] }> {
    const out = { ocsps: [] as Uint8Array[], crls: [] as Uint8Array[], errors: [] as string[] };
    const body = ocspRequest(req.cert, req.issuer);
    const certKey = createHash('sha256').update(body).digest('hex');
    for (const url of req.ocspUrls) {
      try {
        const der = await this.cached(`ocsp ${url} ${certKey}`, deadline, url, REVOCATION_LIMITS.ocspMaxBytes, body, (d) => ocspNextUpdate(d));
        out.ocsps.push(der);
        return out;
      } catch (e) {
        out.errors.push(`OCSP ${url}: ${(e as Error).message}`);
      }
    }
    for (const url of req.crlUrls) {
      try {
        const der = await this.cached(`crl ${url}`, deadline, url, REVOCATION_LIMITS.crlMaxBytes, null, (d) => crlNextUpdate(d));
        out.crls.push(der);
        return out;
      } catch (e) {
        out.errors.push(`CRL ${url}: ${(e as Error).message}`);
      }
    }
    return out;
  }

  /** From the cache, else fetched; `nextUpdate` reads the answer (null: not a usable answer, not cached, an error). */
  private async cached(key: string, deadline: number, url: string, maxBytes: number, post: Uint8Array | null, nextUpdate: (der: Uint8Array) => Date | null | undefined): Promise<Uint8Array> {
    const now = this.opts.clock.now().getTime();
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) return hit.der;
    if (hit) this.cache.delete(key);
    const left = deadline - Date.now();
    if (left <= 0) throw new FetchError('time budget of the analysis spent');
    const der = await this.request(url, post, maxBytes, Math.min(this.opts.requestTimeoutMs, left));
    const next = nextUpdate(der);
    if (next === undefined) throw new FetchError(post ? 'not a successful OCSP response' : 'not a CRL');
    const ttl = Math.min(REVOCATION_LIMITS.maxTtlMs, Math.max(REVOCATION_LIMITS.minTtlMs, next ? next.getTime() - now : 0));
    if (this.cache.size >= REVOCATION_LIMITS.cacheEntries) {
      for (const [k, v] of this.cache) if (v.expires <= now) this.cache.delete(k);
      if (this.cache.size >= REVOCATION_LIMITS.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, { expires: now + ttl, der });
    return der;
  }

  private request(raw: string, post: Uint8Array | null, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return Promise.reject(new FetchError('not a URL'));
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new FetchError(`${url.protocol} URLs are not fetched`));
    if (url.username || url.password) return Promise.reject(new FetchError('URL with user information'));
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const name = host.toLowerCase().replace(/\.$/, '');
    if (!this.opts.allowPrivate && ((isIP(host) !== 0 && !judgeAddress(host).allowed) || name === 'localhost' || name.endsWith('.localhost'))) {
      return Promise.reject(new FetchError('refused: a private or reserved address'));
    }
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise<Uint8Array>((resolve, reject) => {
      let settled = false;
      let response: IncomingMessage | undefined;
      const finish = (err: Error | null, value?: Uint8Array) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          response?.destroy();
          req.destroy();
          reject(err instanceof FetchError ? err : new FetchError(err.message));
        } else resolve(value!);
      };
      const timer = setTimeout(() => finish(new FetchError(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const req = lib.request({
        protocol: url.protocol,
        host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: post ? 'POST' : 'GET',
        headers: {
          'user-agent': USER_AGENT,
          accept: post ? 'application/ocsp-response' : '*/*',
          'accept-encoding': 'identity',
          ...(post ? { 'content-type': 'application/ocsp-request', 'content-length': String(post.length) } : {}),
        },
        agent: false,
        lookup: guardedLookup(this.opts.resolver, this.opts.allowPrivate),
      });
      req.on('socket', (socket: Socket) => {
        watchConnectedAddress(socket, (address) => {
          if (this.opts.allowPrivate || judgeAddress(address).allowed) return true;
          finish(new FetchError('refused: a private or reserved address'));
          return false;
        });
      });
      req.on('error', (err) => finish(err));
      req.on('response', (res) => {
        response = res;
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) return finish(new FetchError(`HTTP ${status}`));
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) return finish(new FetchError(`answer larger than ${maxBytes} bytes`));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) return finish(new FetchError(`answer larger than ${maxBytes} bytes`));
          chunks.push(chunk);
        });
        res.on('error', (err) => finish(err));
        res.on('end', () => (res.complete ? finish(null, new Uint8Array(Buffer.concat(chunks, size))) : finish(new FetchError('transfer interrupted'))));
      });
      req.end(post ? Buffer.from(post) : undefined);
    });
  }
}

/** undefined: not a successful basic OCSP response; null: no nextUpdate; else the earliest nextUpdate. */
function ocspNextUpdate(der: Uint8Array): Date | null | undefined {
  const basic = parseBasicOcsp(der);
  if (!basic) return undefined;
  const times = basic.tbsResponseData.responses.map((r) => r.nextUpdate).filter((d): d is Date => d instanceof Date);
  return times.length ? new Date(Math.min(...times.map((d) => d.getTime()))) : null;
}

function crlNextUpdate(der: Uint8Array): Date | null | undefined {
  try {
    const crl = pkijs.CertificateRevocationList.fromBER(new Uint8Array(der) as Uint8Array<ArrayBuffer>);
    return crl.nextUpdate?.value ?? null;
  } catch {
    return undefined;
  }
}
