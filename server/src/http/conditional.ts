import { baseEtag, Precompressed } from './compression.ts';
import type { HandlerResult, RequestContext } from './context.ts';

/** The body, its strong ETag (a hash of its bytes), and its br and gzip codings once asked for (http/compression.ts). */
type Rendered = Precompressed;

function render(body: unknown): Rendered {
  return new Precompressed(Buffer.from(JSON.stringify(body)));
}

/**
 * Rendered bodies of responses that never change while the process lives, least recently used first. Bounded in
 * bytes: the first page of the catalogue in one language is about half a megabyte, and `q` is free text.
 */
const memo = new Map<string, Rendered>();
const MEMO_BYTES = 16 * 1024 * 1024;
let memoBytes = 0;

/**
 * A cacheable JSON response whose body depends only on `key` for the life of the process (the catalogue is code): a
 * strong ETag over the exact body, and 304 with no body when the client's `If-None-Match` names it (or `*`). Rendered
 * and hashed once, then served from memory, so a 304 costs a string comparison. `build` may throw (a 404): nothing
 * is kept then.
 */
export function memoizedJson(ctx: RequestContext, key: string, build: () => unknown, cacheControl: string): HandlerResult {
  let hit = memo.get(key);
  if (hit) memo.delete(key);
  else {
    hit = render(build());
    memoBytes += hit.identity.length;
  }
  memo.set(key, hit);
  for (const [oldest, r] of memo) {
    if (memoBytes <= MEMO_BYTES || oldest === key) break;
    memo.delete(oldest);
    memoBytes -= r.identity.length;
  }
  return { ...conditional(ctx.headers['if-none-match'], hit, cacheControl), memoKey: key };
}

/** The memoized response of `key` for this If-None-Match, or undefined when it is not (or no longer) in memory. */
export function memoizedResponse(key: string, ifNoneMatch: string | string[] | undefined, cacheControl: string): HandlerResult | undefined {
  const hit = memo.get(key);
  return hit ? conditional(ifNoneMatch, hit, cacheControl) : undefined;
}

/**
 * 200 with the body, or 304 when If-None-Match names it (whatever coding the client's copy has: `"<hash>-br"` names
 * the same body). The sender picks the coding from `precompressed` (http/compression.ts) and adjusts ETag to it.
 */
function conditional(ifNoneMatch: string | string[] | undefined, rendered: Rendered, cacheControl: string): HandlerResult {
  const headers = { 'Cache-Control': cacheControl, ETag: rendered.etag };
  const tags = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : (ifNoneMatch ?? '')).split(',').map((t) => baseEtag(t.trim()));
  if (tags.includes(rendered.etag) || tags.includes('*')) return { status: 304, headers, raw: new Uint8Array(0), precompressed: rendered };
  return { status: 200, headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' }, raw: rendered.identity, precompressed: rendered };
}
