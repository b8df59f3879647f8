// Compression of what the service sends (issue #29: /docs was 1.1 MB of Redoc and /openapi.json 970 KB, uncompressed
// even when the client asked for gzip). br or gzip from node:zlib, chosen by the request's Accept-Encoding (q-values,
// `*`, `identity`; br first when the client likes both equally), `Vary: Accept-Encoding` on everything that could be
// compressed, nothing below MIN_BYTES (a small JSON answer goes out as it was: compressing it saves a few bytes and
// costs a pass over them), nothing already encoded, nothing marked `no-transform`, no HEAD. Two ways:
//
// - Bodies that never change while the process lives (the OpenAPI document, Redoc, the pages' CSS and JS, the
//   catalogue's memoized answers) are `Precompressed`: each coding is made once, on first demand, off the event loop,
//   and kept. br at the best quality for bodies up to BR_MAX_QUALITY_BYTES, a little lower above it (Redoc at quality
//   11 costs seconds of CPU for 8 % fewer bytes: bench/results/compression.md). The first client that prefers br is
//   given gzip (quick to make) while br is made, and br from then on.
// - Everything else (the /v1 JSON answers, the hosted page, the dashboard) is compressed as it is sent, by
//   `compressResponses()`, at a quick setting (br quality 4, gzip level 6), when its body is sent whole with res.end:
//   streamed bodies (files, exports) go out as they are.
//
// A strong ETag names one representation: a compressed one gets the coding appended (`"<hash>-br"`); If-None-Match
// compares without it (http/conditional.ts), so a client's cached copy of either coding answers 304.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import type { NextFunction, Request, Response } from 'express';

export type Coding = 'br' | 'gzip';

/** Bodies shorter than this are sent as they are. */
export const MIN_BYTES = 1024;
/** Precompressed bodies up to this size get br quality 11; larger ones quality 9 (bench/results/compression.md). */
const BR_MAX_QUALITY_BYTES = 256 * 1024;
/** Dynamic bodies up to this size are compressed on the event loop (tens of microseconds); larger ones in the pool. */
const SYNC_BYTES = 64 * 1024;

const COMPRESSIBLE = /^\s*(?:text\/|application\/(?:json|javascript|xml|[\w.+-]+\+(?:json|xml))|image\/svg\+xml)/i;

/** Whether a response of this Content-Type is worth compressing (text, JSON, JS, XML, SVG; not PDFs, images, zips). */
export function compressible(contentType: unknown): boolean {
  return typeof contentType === 'string' && COMPRESSIBLE.test(contentType);
}

/**
 * The coding to send for this Accept-Encoding, or null for none (RFC 9110, 12.5.3): the acceptable coding with the
 * highest q, br on a tie; `*` stands for a coding not named; q=0 refuses one. `offered`: the codings to choose from.
 */
export function negotiate(acceptEncoding: string | string[] | undefined, offered: readonly Coding[] = ['br', 'gzip']): Coding | null {
  if (acceptEncoding === undefined) return null;
  const text = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  if (text === '') return null;
  const q: Record<'br' | 'gzip' | '*', number | undefined> = { br: undefined, gzip: undefined, '*': undefined };
  for (const part of text.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    const key = name === 'x-gzip' ? 'gzip' : name;
    if (key !== 'br' && key !== 'gzip' && key !== '*') continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]{1,6})\s*$/i.exec(p);
      if (m) weight = Number.isFinite(Number(m[1])) ? Math.min(1, Math.max(0, Number(m[1]))) : 0;
    }
    q[key] = Math.max(q[key] ?? 0, weight);
  }
  const br = offered.includes('br') ? (q.br ?? q['*'] ?? 0) : 0;
  const gzip = offered.includes('gzip') ? (q.gzip ?? q['*'] ?? 0) : 0;
  if (br <= 0 && gzip <= 0) return null;
  return br >= gzip ? 'br' : 'gzip';
}

function brotliParams(size: number, quality: number): zlib.BrotliOptions {
  return { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size } };
}

function compressAsync(coding: Coding, body: Buffer, brQuality: number, gzipLevel: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer) => (err ? reject(err) : resolve(out));
    if (coding === 'br') zlib.brotliCompress(body, brotliParams(body.length, brQuality), done);
    else zlib.gzip(body, { level: gzipLevel }, done);
  });
}

/** `"abc"` -> `"abc-br"`; a weak or absent tag is left as it is. */
export function etagFor(etag: string, coding: Coding | null): string {
  return coding && etag.endsWith('"') && !etag.startsWith('W/') ? `${etag.slice(0, -1)}-${coding}"` : etag;
}

/** An If-None-Match tag as the representation-free tag it names: `"abc-br"` -> `"abc"`. */
export function baseEtag(tag: string): string {
  return tag.replace(/^W\//, '').replace(/-(?:br|gzip)"$/, '"');
}

/** The body to send for a request: the coding (null: as it is) and its bytes. */
export interface Encoded {
  coding: Coding | null;
  body: Buffer;
}

/** A body that never changes while the process lives, with each coding made once, on first demand. */
export class Precompressed {
  readonly identity: Buffer;
  /** Strong ETag of the identity body (a hash of its bytes). */
  readonly etag: string;
  private readonly made = new Map<Coding, Buffer>();
  private readonly making = new Map<Coding, Promise<Buffer>>();

  constructor(body: Buffer | Uint8Array, etag?: string) {
    this.identity = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    this.etag = etag ?? `"${crypto.createHash('sha256').update(this.identity).digest('base64url').slice(0, 32)}"`;
  }

  /** Bytes of every coding made so far (a cache's accounting). */
  get extraBytes(): number {
    let n = 0;
    for (const b of this.made.values()) n += b.length;
    return n;
  }

  private make(coding: Coding): Promise<Buffer> {
    let p = this.making.get(coding);
    if (!p) {
      const quality = this.identity.length <= BR_MAX_QUALITY_BYTES ? 11 : 9;
      p = compressAsync(coding, this.identity, quality, 9).then((out) => {
        // Never larger than the body itself.
        const kept = out.length < this.identity.length ? out : this.identity;
        this.made.set(coding, kept);
        return kept;
      });
      // A failure (out of memory) is forgotten: the next request tries again, and this one is sent as it is.
      p.catch(() => this.making.delete(coding));
      this.making.set(coding, p);
    }
    return p;
  }

  private encoded(coding: Coding, body: Buffer): Encoded {
    return body === this.identity ? { coding: null, body } : { coding, body };
  }

  /**
   * What to send for this Accept-Encoding: at once when it is ready (always, after the first requests), else a
   * promise. The first request that prefers br while br is not made yet gets gzip, when it takes gzip.
   */
  for(acceptEncoding: string | string[] | undefined): Encoded | Promise<Encoded> {
    const coding = this.identity.length < MIN_BYTES ? null : negotiate(acceptEncoding);
    if (!coding) return { coding: null, body: this.identity };
    const ready = this.made.get(coding);
    if (ready) return this.encoded(coding, ready);
    const wanted = this.make(coding);
    if (coding === 'br' && negotiate(acceptEncoding, ['gzip']) === 'gzip') {
      const gzip = this.made.get('gzip');
      if (gzip) return this.encoded('gzip', gzip);
      return this.make('gzip').then((body) => this.encoded('gzip', body), () => ({ coding: null, body: this.identity }));
    }
    return wanted.then((body) => this.encoded(coding, body), () => ({ coding: null, body: this.identity }));
  }
}

/**
 * A memoized answer (http/conditional.ts: 200 with the body, or 304) as it goes out to this request: the body in the
 * coding the request takes, its headers with Content-Encoding, the ETag of that coding, and Vary.
 */
export function encodeMemoized(
  result: { status: number; headers?: Record<string, string>; raw?: Uint8Array; precompressed: Precompressed },
  acceptEncoding: string | string[] | undefined,
): { headers: Record<string, string>; body: Uint8Array } | Promise<{ headers: Record<string, string>; body: Uint8Array }> {
  const p = result.precompressed;
  const headers: Record<string, string> = { ...(result.headers ?? {}), Vary: 'Accept-Encoding' };
  if (result.status !== 200) {
    headers.ETag = etagFor(p.etag, p.identity.length < MIN_BYTES ? null : negotiate(acceptEncoding));
    return { headers, body: result.raw ?? new Uint8Array(0) };
  }
  const shape = (out: Encoded) => ({
    headers: { ...headers, ETag: etagFor(p.etag, out.coding), ...(out.coding ? { 'Content-Encoding': out.coding } : {}) },
    body: out.body,
  });
  const out = p.for(acceptEncoding);
  return out instanceof Promise ? out.then(shape) : shape(out);
}

/** Adds Accept-Encoding to the response's Vary (once). */
export function varyOnEncoding(res: ServerResponse): void {
  const have = res.getHeader('Vary');
  const list = Array.isArray(have) ? have.join(',') : have === undefined ? '' : String(have);
  if (list.split(',').some((v) => v.trim() === '*' || v.trim().toLowerCase() === 'accept-encoding')) return;
  res.setHeader('Vary', list ? `${list}, Accept-Encoding` : 'Accept-Encoding');
}

/**
 * Sends a Precompressed body (status 200, or 304 when If-None-Match names it) with `headers`, in the coding the
 * request takes; Content-Length, Content-Encoding, ETag and Vary are set here.
 */
export async function sendPrecompressed(req: IncomingMessage, res: ServerResponse, p: Precompressed, headers: Record<string, string>): Promise<void> {
  varyOnEncoding(res);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  const tags = String(req.headers['if-none-match'] ?? '').split(',').map((t) => baseEtag(t.trim()));
  if (tags.includes(p.etag) || tags.includes('*')) {
    res.setHeader('ETag', etagFor(p.etag, p.identity.length < MIN_BYTES ? null : negotiate(req.headers['accept-encoding'])));
    res.statusCode = 304;
    res.removeHeader('Content-Type');
    res.end();
    return;
  }
  const out = req.method === 'HEAD' ? { coding: null, body: p.identity } : await p.for(req.headers['accept-encoding']);
  res.statusCode = 200;
  res.setHeader('ETag', etagFor(p.etag, out.coding));
  if (out.coding) res.setHeader('Content-Encoding', out.coding);
  res.setHeader('Content-Length', String(out.body.length));
  res.end(out.body);
}

/**
 * Express middleware: a compressible body sent whole (res.end with the body, as every page and JSON answer here is
 * sent) of MIN_BYTES or more goes out in the coding the request takes. Bodies written in pieces (streams: files,
 * exports) and bodies that already have a Content-Encoding go out as they are.
 */
export function compressResponses() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method === 'HEAD') return next();
    const end = res.end;
    const write = res.write;
    let pieces = false;
    res.write = function (this: Response, ...args: unknown[]) {
      pieces = true;
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as Response['write'];
    res.end = function (this: Response, chunk?: unknown, encoding?: unknown, cb?: unknown) {
      const pass = () => (end as (...a: unknown[]) => Response).call(this, chunk, encoding, cb);
      if (pieces || this.headersSent || chunk === undefined || chunk === null || typeof chunk === 'function') return pass();
      if (this.statusCode < 200 || this.statusCode === 204 || this.statusCode === 304 || this.getHeader('Content-Encoding') !== undefined) return pass();
      if (!compressible(this.getHeader('Content-Type'))) return pass();
      varyOnEncoding(this);
      const coding = negotiate(req.headers['accept-encoding']);
      if (!coding || /\bno-transform\b/i.test(String(this.getHeader('Cache-Control') ?? ''))) return pass();
      const body = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : null;
      if (!body || body.length < MIN_BYTES) return pass();
      const callback = typeof encoding === 'function' ? encoding : cb;
      const send = (out: Buffer) => {
        if (out.length >= body.length) return (end as (...a: unknown[]) => Response).call(this, body, callback);
        this.setHeader('Content-Encoding', coding);
        this.setHeader('Content-Length', String(out.length));
        const etag = this.getHeader('ETag');
        if (typeof etag === 'string') this.setHeader('ETag', etagFor(etag, coding));
        return (end as (...a: unknown[]) => Response).call(this, out, callback);
      };
      if (body.length <= SYNC_BYTES) {
        send(coding === 'br' ? zlib.brotliCompressSync(body, brotliParams(body.length, 4)) : zlib.gzipSync(body, { level: 6 }));
        return this;
      }
      compressAsync(coding, body, 4, 6).then(send, () => (end as (...a: unknown[]) => Response).call(this, body, callback));
      return this;
    } as Response['end'];
    next();
  };
}
