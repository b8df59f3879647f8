import type { Auth, Services } from '../context.ts';
import type { ParsedBody } from './body.ts';
import type { Precompressed } from './compression.ts';

// `Services` and `Auth` are declared at the composition root (server/src/context.ts); re-exported for the HTTP layer.
export type { Auth, Services };

export interface RequestContext {
  requestId: string;
  operationId: string;
  /** Null only on the public operations (no security). */
  auth: Auth | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body: ParsedBody;
  services: Services;
}

export interface HandlerResult {
  status: number;
  /** JSON body (serialised by the pipeline). */
  body?: unknown;
  /** Binary body; `headers` must then carry Content-Type. */
  raw?: Uint8Array;
  headers?: Record<string, string>;
  /** Set by memoizedJson: the response depends only on this key (and If-None-Match) for the life of the process. */
  memoKey?: string;
  /** Set by memoizedJson: `raw`, with its br and gzip codings made once (http/compression.ts). */
  precompressed?: Precompressed;
}

export type Handler = (ctx: RequestContext) => Promise<HandlerResult>;

/** The context a handler is sure to get on an authenticated operation. */
export function requireAuth(ctx: RequestContext): Auth {
  if (!ctx.auth) throw new Error(`operation ${ctx.operationId} reached its handler without authentication`);
  return ctx.auth;
}
