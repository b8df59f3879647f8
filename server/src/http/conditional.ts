import crypto from 'node:crypto';
import type { HandlerResult, RequestContext } from './context.ts';

/**
 * A cacheable JSON response: a strong ETag over the exact body, and 304 with no body when the
 * client's `If-None-Match` names it (or `*`).
 */
export function cacheableJson(ctx: RequestContext, body: unknown, cacheControl: string): HandlerResult {
  const json = JSON.stringify(body);
  const etag = `"${crypto.createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`;
  const headers = { 'Cache-Control': cacheControl, ETag: etag };
  const ifNoneMatch = ctx.headers['if-none-match'];
  const tags = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : (ifNoneMatch ?? '')).split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (tags.includes(etag) || tags.includes('*')) return { status: 304, headers, raw: new Uint8Array(0) };
  return { status: 200, headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' }, raw: Buffer.from(json) };
}
