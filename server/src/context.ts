// The composition root's types: the `Services` container that handlers, workers and domain code share (built by
// openServices in services.ts), and who is calling (`Auth`). Types only: the domain imports these, never http/.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { AccountRow, DB } from './db/schema.ts';
import type { Metrics } from './metrics.ts';
import type { Provider } from './providers/types.ts';
import type { BlobStore } from './storage/blob-store.ts';
import type { UrlSigner } from './storage/signed-urls.ts';
import type { RevocationFetcher } from './domain/trust/revocation-fetcher.ts';
import type { TrustedLists } from './domain/trust/trusted-list-refresh.ts';
import type { TrustStore } from './validators/pdf-signature/index.ts';

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
  /** This process's Prometheus registry (GET /metrics, metrics.ts); absent, nothing is counted. */
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
