import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AccountRow, DB } from '../db/schema.ts';
import type { Provider } from '../providers/types.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { UrlSigner } from '../storage/signed-urls.ts';
import type { RevocationFetcher } from '../domain/trust/revocation-fetcher.ts';
import type { TrustedLists } from '../domain/trust/trusted-list-refresh.ts';
import type { TrustStore } from '../validators/pdf-signature/index.ts';
import type { ParsedBody } from './body.ts';
import type { Precompressed } from './compression.ts';
import type { Metrics } from './metrics.ts';

/** What handlers and domain code get: no Express in sight. */
export interface Services {
  database: Database;
  db: Kysely<DB>;
  clock: Clock;
  config: Config;
  logger: Logger;
  blobs: BlobStore;
  signer: UrlSigner;
  /** Who reads documents: test mode's simulated reader, and live mode's providers when configured (else null). */
  providers: { test: Provider; live: Provider | null };
  /** Roots trusted for PAdES signatures (COTEJO_TRUST_DIR) and the EU trusted lists' anchors (`listed`). */
  trustStore: TrustStore;
  /** The EU trusted lists behind `trustStore.listed`: their refresh and pick-up (domain/trust/trusted-list-refresh.ts). */
  trustedLists?: TrustedLists;
  /** Online OCSP/CRL look-ups for PAdES revocation checks (COTEJO_REVOCATION_CHECK=online), with their per-process cache. */
  revocationFetcher?: RevocationFetcher;
  /** Set when the process begins to shut down: GET /readyz answers 503 so load balancers stop sending work. */
  stopping?: boolean;
  /** Work that outlived its request (a synchronous analysis past its wait): shutdown waits for it. */
  inflight: Set<Promise<unknown>>;
  /** This process's Prometheus registry (GET /metrics, http/metrics.ts); absent, nothing is counted. */
  metrics?: Metrics;
  /** The synchronous wait (the specification's 30 s); tests shorten it. */
  syncWaitMs?: number;
  /** How often a request holding an Idempotency-Key renews its lock (IDEMPOTENCY_HEARTBEAT_MS; tests shorten it). */
  idempotencyHeartbeatMs?: number;
  /** Roots trusted for `file_url` downloads instead of Node's (tests serve files over HTTPS with a self-signed certificate). */
  fileUrlCa?: string;
}

export interface Auth {
  account: AccountRow;
  keyId: string;
  kind: 'secret' | 'publishable';
  livemode: boolean;
}

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
