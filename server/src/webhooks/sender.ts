/**
 * One webhook POST, with the same SSRF hardening as `file_url` downloads (reusing the intake module's
 * address policy and its connected-address check):
 * - `https:` only, no userinfo;
 * - literal IP hosts, `localhost` names and every address a host name resolves to must be public
 *   unicast, checked inside the `lookup` the connection itself uses (no second resolution for DNS
 *   rebinding), and the socket's peer address is checked again on connect, before any byte is sent;
 *   unless `allowPrivate` (development and tests: COTEJO_ALLOW_PRIVATE_URLS);
 * - redirects are not followed (they fail); no proxy, no connection reuse (`agent: false`);
 * - one deadline (default 15 s) covering resolve, connect, TLS and the response status line.
 *
 * Never throws: every outcome is a `SendResult`.
 */
import { Buffer } from 'node:buffer';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { judgeAddress } from '../domain/intake/address-policy.ts';
import { watchConnectedAddress } from '../domain/intake/file-url.ts';
import { defaultResolver, ForbiddenAddressError, guardedLookup, type HostResolver } from '../domain/intake/guarded-lookup.ts';

/** Bytes of a response body kept as the attempt's excerpt (the dashboard's delivery history). */
const EXCERPT_BYTES = 512;

/** The excerpt as text: UTF-8 (a character cut at the end is dropped), control characters as spaces. */
function excerptOf(bytes: Buffer): string {
  return bytes.toString('utf8').replace(/\uFFFD$/, '').replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, ' ');
}

/** A delivery succeeds on a 2xx within this time. */
export const DELIVERY_TIMEOUT_MS = 15_000;

export interface SenderOptions {
  /** Allow loopback/private/link-local/metadata targets (COTEJO_ALLOW_PRIVATE_URLS; never in production). */
  allowPrivate: boolean;
  /**
   * Time allowed for resolve + connect + TLS + response headers. Default 15 000 ms (the specification's);
   * tests pass a shorter one to simulate a slow receiver without waiting 15 s.
   */
  timeoutMs?: number;
  /** Trusted CA (PEM) replacing the default roots: tests with a self-signed receiver. Otherwise Node's roots plus NODE_EXTRA_CA_CERTS. */
  ca?: string | Buffer;
  /** Host name resolver; default `dns.lookup(name, { all: true })`. Tests use it to map names to addresses. */
  lookup?: HostResolver;
}

export interface SendResult {
  ok: boolean;
  /** The response status, when one came. */
  statusCode: number | null;
  /** Why it failed (null on success). */
  error: string | null;
  durationMs: number;
  /** The start of the response body (the dashboard's delivery history), null when no response came. */
  responseExcerpt: string | null;
  /** True when nothing was sent because the target is not allowed (scheme, address). */
  refused: boolean;
}


/** Checks the URL's shape and, for literal IPs and `localhost` names, the address. Returns why it is refused, or null. */
export function refuseTarget(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the endpoint URL is not a valid URL';
  }
  if (url.protocol !== 'https:') return 'the endpoint URL is not https';
  if (url.username !== '' || url.password !== '') return 'the endpoint URL carries credentials';
  if (allowPrivate) return null;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    const verdict = judgeAddress(host);
    return verdict.allowed ? null : `${host} (${verdict.range}) is not a public address`;
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return `${host} is a loopback name`;
  return null;
}

const TLS_ERROR = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME|ALTNAME|EPROTO/;

function describeError(err: unknown): string {
  if (err instanceof ForbiddenAddressError) return `refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  const code = e?.code ?? '';
  if (TLS_ERROR.test(code)) return `TLS error: ${code}`;
  if (code) return `network error: ${code}`;
  return `network error: ${e?.message ?? String(err)}`;
}

/** POSTs `body` with `headers` to `url`. Success is a 2xx within the time-out; everything else fails. */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, opts: SenderOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const refusal = refuseTarget(url, opts.allowPrivate);
  if (refusal) return { ok: false, statusCode: null, error: `refused: ${refusal}`, durationMs: 0, refused: true, responseExcerpt: null };
  const target = new URL(url);
  const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const payload = Buffer.from(body, 'utf8');

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    // The response's verdict (its status) once its head came; the body is read for the excerpt until it ends, reaches
    // EXCERPT_BYTES or the time-out (then the verdict stands with what came: a slow body does not fail a 2xx).
    let answered: Omit<SendResult, 'durationMs' | 'refused' | 'responseExcerpt'> | null = null;
    const body: Buffer[] = [];
    let bodyBytes = 0;
    const excerpt = (): string | null => (answered ? excerptOf(Buffer.concat(body).subarray(0, EXCERPT_BYTES)) : null);
    const finish = (r: Omit<SendResult, 'durationMs' | 'refused' | 'responseExcerpt'> & { refused?: boolean }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ refused: false, ...r, durationMs: elapsed(), responseExcerpt: excerpt() });
    };
    const timer = setTimeout(() => finish(answered ?? { ok: false, statusCode: null, error: `timed out after ${timeoutMs} ms` }), timeoutMs);

    const req = https.request({
      protocol: 'https:',
      host,
      port: target.port === '' ? 443 : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: { ...headers, 'content-length': String(payload.length) },
      agent: false,
      ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
      // Literal IPs never go through `lookup`; refuseTarget judged them.
      lookup: guardedLookup(opts.lookup ?? defaultResolver, opts.allowPrivate),
    });

    req.on('socket', (socket: Socket) => {
      watchConnectedAddress(socket, (address) => {
        if (opts.allowPrivate || judgeAddress(address).allowed) return true;
        finish({ ok: false, statusCode: null, error: `refused: connected to ${address}, which is not a public address`, refused: true });
        return false;
      });
    });
    // After the response's head, an error while reading its body leaves the verdict as it was.
    req.on('error', (err) => finish(answered ?? { ok: false, statusCode: null, error: describeError(err), refused: err instanceof ForbiddenAddressError }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) answered = { ok: true, statusCode: status, error: null };
      else if (status >= 300 && status < 400) answered = { ok: false, statusCode: status, error: `redirect (HTTP ${status}) not followed` };
      else answered = { ok: false, statusCode: status, error: `HTTP ${status}` };
      const verdict = answered;
      res.on('data', (chunk: Buffer) => {
        body.push(chunk);
        bodyBytes += chunk.length;
        if (bodyBytes >= EXCERPT_BYTES) finish(verdict);
      });
      res.on('end', () => finish(verdict));
      res.on('error', () => finish(verdict));
      res.on('aborted', () => finish(verdict));
    });
    req.end(payload);
  });
}
