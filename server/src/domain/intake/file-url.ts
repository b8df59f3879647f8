/**
 * `file_url` download, hardened against SSRF:
 * - only `https:` URLs without userinfo;
 * - literal IP hosts, and every address a host name resolves to, must be public unicast
 *   (see address-policy.ts), checked inside the `lookup` that the connection itself uses, so the
 *   address checked is the address connected (no second resolution a DNS rebinding could change);
 * - and the socket's `remoteAddress` is checked again on connect, before any request is sent;
 * - no redirects, a total deadline (connect + download) and a size limit while streaming.
 *
 * Built on `node:https` rather than `fetch` (undici): `https.request` takes a `lookup` and
 * exposes the socket directly, and nothing (proxy settings, redirects, connection reuse) is
 * implicit. A fresh agent per download (`agent: false`) means no socket is ever reused.
 */
import { Buffer } from 'node:buffer';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { ApiError } from '../../errors.ts';
import { MAX_FILE_BYTES } from '../../input/limits.ts';
import { judgeAddress } from './address-policy.ts';
import { defaultResolver, ForbiddenAddressError, guardedLookup, type HostResolver } from './guarded-lookup.ts';

const PARAM = 'file_url';
export const FILE_URL_TIMEOUT_MS = 15_000;
const USER_AGENT = 'Cotejo-FileFetcher/1.0';
const MAX_FILENAME_LENGTH = 255;

/** Resolves a host name to all its addresses (as `dns.lookup` with `all: true`). Injectable for tests. */
export type { HostResolver } from './guarded-lookup.ts';

export interface DownloadFileUrlOptions {
  /** Allow loopback/private/link-local... targets (development and tests only). */
  allowPrivate: boolean;
  /** Total time for resolve + connect + TLS + download. Default 15 000 ms. */
  timeoutMs?: number;
  /** Default 20 MiB. */
  maxBytes?: number;
  /** Extra trusted CA (PEM), replacing the default ones: for tests with a self-signed server. */
  ca?: string | Buffer;
  /** Host name resolver; default `dns.lookup(name, { all: true })`. */
  lookup?: HostResolver;
}

export interface DownloadedFile {
  bytes: Uint8Array;
  filename: string;
  /** The response's Content-Type header: informative only, the type is detected from content. */
  contentType: string | null;
  /** The peer address the file came from (for logs and audits). */
  remoteAddress: string;
}

const invalidUrl = (detail: string): ApiError =>
  new ApiError(400, 'invalid_file_url', `file_url no es válida: ${detail}.`, PARAM);

const unreachable = (detail: string): ApiError =>
  new ApiError(422, 'file_url_unreachable', `No se pudo descargar file_url: ${detail}.`, PARAM);

const tooLarge = (): ApiError => new ApiError(413, 'file_too_large', 'El archivo de file_url supera el tamaño máximo de 20 MB.', PARAM);

const forbiddenAddress = (): ApiError => invalidUrl('apunta a una dirección privada o reservada, que no es accesible');


interface ParsedTarget {
  url: URL;
  /** Host without IPv6 brackets. */
  host: string;
  isLiteral: boolean;
}

/** Validates the URL's shape and, for literal IP hosts, the address. Throws 400 `invalid_file_url`. */
export function parseFileUrl(value: string, allowPrivate: boolean): ParsedTarget {
  if (typeof value !== 'string' || value.trim() === '') throw invalidUrl('debe ser una URL https');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalidUrl('no es una URL');
  }
  if (url.protocol !== 'https:') throw invalidUrl('solo se admiten URL https');
  if (url.username !== '' || url.password !== '') throw invalidUrl('no puede llevar usuario ni contraseña');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') throw invalidUrl('no tiene host');
  const isLiteral = isIP(host) !== 0;
  if (!allowPrivate) {
    if (isLiteral && !judgeAddress(host).allowed) throw forbiddenAddress();
    const name = host.toLowerCase().replace(/\.$/, '');
    // RFC 6761: `localhost` and `*.localhost` are always loopback; no need to ask DNS.
    if (name === 'localhost' || name.endsWith('.localhost')) throw forbiddenAddress();
  }
  return { url, host, isLiteral };
}

/** How long intake waits for DNS when it judges a `file_url` it will not download now (a batch item). */
export const FILE_URL_CHECK_TIMEOUT_MS = 5_000;

export interface CheckFileUrlOptions {
  allowPrivate: boolean;
  /** Host name resolver; default `dns.lookup(name, { all: true })`, the one downloads use. */
  lookup?: HostResolver;
  /** Default FILE_URL_CHECK_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * Judges a `file_url` that is downloaded later (a batch item): its shape and literal address as parseFileUrl, and a
 * host NAME is resolved now with the download's resolver, refused (400 `invalid_file_url`) when any address it answers
 * is not public, exactly as a download would refuse it. A name that does not resolve in time is not refused here: the
 * download resolves it again (and judges it again, so an answer that changes afterwards is still refused then).
 */
export async function checkFileUrl(value: string, opts: CheckFileUrlOptions): Promise<URL> {
  const target = parseFileUrl(value, opts.allowPrivate);
  if (opts.allowPrivate || target.isLiteral) return target.url;
  const resolver = opts.lookup ?? defaultResolver;
  let timer: NodeJS.Timeout | undefined;
  const found = await Promise.race([
    resolver(target.host).catch(() => null),
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), opts.timeoutMs ?? FILE_URL_CHECK_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  if (found?.some((a) => (a.family === 4 || a.family === 6) && !judgeAddress(a.address).allowed)) throw forbiddenAddress();
  return target.url;
}

/** The file name a URL suggests: its last path segment, percent-decoded, made safe; `download` if none. */
export function filenameFromUrl(url: URL): string {
  const segments = url.pathname.split('/');
  const last = segments[segments.length - 1] ?? '';
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  // A decoded %2F or %5C must not become a path separator downstream; control characters go too.
  name = name.replace(/[/\\\u0000-\u001f\u007f]/g, '_').trim();
  if (name === '' || name === '.' || name === '..') return 'download';
  return name.length > MAX_FILENAME_LENGTH ? name.slice(0, MAX_FILENAME_LENGTH) : name;
}

/**
 * Second line of defence: once the TCP connection is up (before TLS and before any HTTP byte),
 * hands the peer address to `accept`; when it answers false the socket is destroyed at once.
 * Covers whatever path produced the address (lookup, literal IP, Happy Eyeballs fallback).
 */
export function watchConnectedAddress(socket: Socket, accept: (address: string) => boolean): void {
  const check = (): void => {
    if (!accept(socket.remoteAddress ?? '')) socket.destroy();
  };
  if (!socket.connecting && socket.remoteAddress) check();
  else socket.once('connect', check);
}

const TLS_ERROR = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME|ALTNAME|EPROTO/;

function networkError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof ForbiddenAddressError) return forbiddenAddress();
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA' || code === 'EAI_NONAME') return unreachable('no se pudo resolver el nombre del servidor');
  if (code === 'ECONNREFUSED') return unreachable('el servidor rechazó la conexión');
  if (code === 'ECONNRESET' || code === 'EPIPE') return unreachable('el servidor cerró la conexión');
  if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH') return unreachable('no se pudo conectar con el servidor');
  if (TLS_ERROR.test(code)) return unreachable('la conexión TLS falló (certificado no válido o no confiable)');
  return unreachable('error de red');
}

const formatSeconds = (ms: number): string => String(Math.round(ms / 100) / 10).replace('.', ',');

/**
 * Downloads `url` for analysis. Errors: 400 `invalid_file_url` (shape, scheme, userinfo, a
 * private/reserved address unless `allowPrivate`), 422 `file_url_unreachable` (DNS, connection,
 * TLS, redirect, non-2xx, time-out, broken transfer), 413 `file_too_large` (over `maxBytes`,
 * by Content-Length or while streaming). All with `param` = `file_url`.
 */
export async function downloadFileUrl(url: string, opts: DownloadFileUrlOptions): Promise<DownloadedFile> {
  const target = parseFileUrl(url, opts.allowPrivate);
  const timeoutMs = opts.timeoutMs ?? FILE_URL_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? MAX_FILE_BYTES;
  const filename = filenameFromUrl(target.url);

  return new Promise<DownloadedFile>((resolve, reject) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const finish = (err: ApiError | null, value?: DownloadedFile): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        response?.destroy();
        req.destroy();
        reject(err);
      } else {
        resolve(value!);
      }
    };

    const timer = setTimeout(() => finish(unreachable(`se agotó el tiempo de espera (${formatSeconds(timeoutMs)} s)`)), timeoutMs);
    const req = https.request({
      protocol: 'https:',
      host: target.host,
      port: target.url.port === '' ? 443 : Number(target.url.port),
      path: `${target.url.pathname}${target.url.search}`,
      method: 'GET',
      headers: { 'user-agent': USER_AGENT, accept: '*/*', 'accept-encoding': 'identity' },
      agent: false,
      ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
      // Literal IPs never go through `lookup`; they were checked in parseFileUrl.
      lookup: guardedLookup(opts.lookup ?? defaultResolver, opts.allowPrivate),
    });

    let remoteAddress = '';
    req.on('socket', (socket: Socket) => {
      watchConnectedAddress(socket, (address) => {
        remoteAddress = address;
        if (opts.allowPrivate || judgeAddress(address).allowed) return true;
        finish(forbiddenAddress());
        return false;
      });
    });

    req.on('error', (err) => finish(networkError(err)));

    req.on('response', (res) => {
      response = res;
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        finish(unreachable(`el servidor respondió con una redirección (HTTP ${status}) y las redirecciones no se siguen`));
        return;
      }
      if (status < 200 || status >= 300) {
        finish(unreachable(`el servidor respondió HTTP ${status}`));
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        finish(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > maxBytes) {
          finish(tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err) => finish(networkError(err)));
      res.on('aborted', () => finish(unreachable('la transferencia se interrumpió')));
      res.on('end', () => {
        if (!res.complete) {
          finish(unreachable('la transferencia se interrumpió'));
          return;
        }
        const contentType = res.headers['content-type'] ?? null;
        finish(null, { bytes: Buffer.concat(chunks, size), filename, contentType, remoteAddress });
      });
    });

    req.end();
  });
}
