// Fetching an EU trusted list (trusted-list-refresh.ts refreshes them): a GET over http(s) under the guard of
// `file_url` downloads (public addresses only, one deadline, bounded redirects and size).
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { judgeAddress } from '../intake/address-policy.ts';
import { watchConnectedAddress } from '../intake/file-url.ts';
import { defaultResolver, guardedLookup, type HostResolver } from '../intake/guarded-lookup.ts';

export const FETCH_TIMEOUT_MS = 30_000;
export const MAX_LIST_BYTES = 30 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const USER_AGENT = 'Cotejo-TrustedLists/1.0';

export class ListFetchError extends Error {}

export interface ListFetchOptions {
  /** Loopback and private addresses allowed (COTEJO_ALLOW_PRIVATE_URLS: development and tests). */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
  lookup?: HostResolver;
  /** Ends the download at once (the process is stopping). */
  signal?: AbortSignal;
}

/**
 * GETs a list over http(s) with the guard of `file_url` downloads: every address a host resolves to, and the address
 * connected, must be public (unless `allowPrivate`); no user or password in the URL; one deadline for the whole
 * download, redirects included (up to 5, each hop guarded the same way); at most `maxBytes`. A list is signed, so
 * plain http is allowed (several member states publish theirs so).
 */
export async function fetchList(url: string, opts: ListFetchOptions): Promise<{ bytes: Uint8Array; url: string }> {
  const timeoutMs = opts.timeoutMs ?? FETCH_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await getOnce(current, opts, deadline, timeoutMs);
    if (res.bytes) return { bytes: res.bytes, url: current };
    let next: string;
    try {
      next = new URL(res.location!, current).toString();
    } catch {
      throw new ListFetchError(`redirect to an invalid location`);
    }
    current = next;
  }
  throw new ListFetchError(`more than ${MAX_REDIRECTS} redirects`);
}

function checkTarget(raw: string, allowPrivate: boolean): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ListFetchError('not a URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ListFetchError(`only http and https URLs are fetched (got ${u.protocol})`);
  if (u.username !== '' || u.password !== '') throw new ListFetchError('a URL with a user or password is not fetched');
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  if (!allowPrivate) {
    if (isIP(host) !== 0 && !judgeAddress(host).allowed) throw new ListFetchError(`${host} is not a public address`);
    const name = host.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) throw new ListFetchError(`${host} is not a public address`);
  }
  return u;
}

function getOnce(raw: string, opts: ListFetchOptions, deadline: number, timeoutMs: number): Promise<{ bytes?: Uint8Array; location?: string }> {
  const u = checkTarget(raw, opts.allowPrivate);
  const maxBytes = opts.maxBytes ?? MAX_LIST_BYTES;
  return new Promise((resolve, reject) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const finish = (err: Error | null, value?: { bytes?: Uint8Array; location?: string }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', aborted);
      response?.destroy();
      req.destroy();
      if (err) reject(err);
      else resolve(value!);
    };
    const timer = setTimeout(() => finish(new ListFetchError(`timed out after ${Math.round(timeoutMs / 1000)} s`)), Math.max(0, deadline - Date.now()));
    const aborted = () => finish(new ListFetchError('stopped'));
    opts.signal?.addEventListener('abort', aborted, { once: true });
    if (opts.signal?.aborted) queueMicrotask(aborted);
    const client = u.protocol === 'https:' ? https : http;
    const req = client.request({
      protocol: u.protocol,
      host: u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname,
      port: u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port),
      path: `${u.pathname}${u.search}`,
      method: 'GET',
      headers: { 'user-agent': USER_AGENT, accept: 'application/vnd.etsi.tsl+xml, application/xml, text/xml, */*', 'accept-encoding': 'identity' },
      agent: false,
      lookup: guardedLookup(opts.lookup ?? defaultResolver, opts.allowPrivate),
    });
    req.on('socket', (socket: Socket) => {
      watchConnectedAddress(socket, (address) => {
        if (opts.allowPrivate || judgeAddress(address).allowed) return true;
        finish(new ListFetchError(`connected to ${address}, which is not a public address`));
        return false;
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(new ListFetchError(err.code ? `${err.code}: ${err.message}` : err.message)));
    req.on('response', (res) => {
      response = res;
      const status = res.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status) && res.headers.location) {
        finish(null, { location: res.headers.location });
        return;
      }
      if (status < 200 || status >= 300) {
        finish(new ListFetchError(`HTTP ${status}`));
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        finish(new ListFetchError(`larger than ${maxBytes} bytes`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) finish(new ListFetchError(`larger than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => finish(null, { bytes: new Uint8Array(Buffer.concat(chunks)) }));
      res.on('error', (err) => finish(new ListFetchError(err.message)));
      res.on('aborted', () => finish(new ListFetchError('the server closed the connection')));
    });
    req.end();
  });
}
