import crypto from 'node:crypto';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from './clock.ts';
import { trustedListsStaleAfterMs, type Config } from './config.ts';
import { migrateToLatest, openDatabase, type Database, type OpenOptions } from './db/database.ts';
import { getOrCreateSetting } from './db/settings.ts';
import type { Services } from './context.ts';
import { Metrics } from './metrics.ts';
import { createLiveProvider } from './providers/live.ts';
import { createLocalProvider } from './providers/local/index.ts';
import { createMistralClient } from './providers/mistral/client.ts';
import { wireReactions } from './reactions.ts';
import { testModeProvider } from './providers/test-mode/index.ts';
import { LocalBlobStore } from './storage/blob-store.ts';
import { SpoolingBlobStore } from './storage/spooling-blob-store.ts';
import { S3BlobStore } from './storage/s3-blob-store.ts';
import { UrlSigner } from './storage/signed-urls.ts';
import { RevocationFetcher } from './domain/trust/revocation-fetcher.ts';
import { loadTrustStore, type TrustStore } from './validators/pdf-signature/index.ts';
import { TrustedLists } from './domain/trust/trusted-list-refresh.ts';

/**
 * Opens the database the configuration names (PGlite under the data dir, or PostgreSQL), migrates it,
 * and builds what handlers and workers share: blob store, URL signer, document readers.
 */
export async function openServices(
  config: Config,
  clock: Clock,
  logger: Logger,
  dbOptions: Partial<OpenOptions> = {},
): Promise<Services> {
  // Who reacts to what in an analysis's lifecycle (reactions.ts), registered before any work can start.
  wireReactions();
  const database: Database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : path.join(config.dataDir),
    ...dbOptions,
  });
  try {
    await migrateToLatest(database.db, database.schema, dbOptions.onProgress);
  } catch (err) {
    await database.close();
    throw err;
  }
  // PAdES trust: COTEJO_TRUST_DIR's roots, and the EU trusted lists (seed directories and the database; refreshed
  // by serve.ts's TrustedLists.start, which replaces trustStore.listed).
  const trustStore: TrustStore = { ...(await loadTrustStore(config.trustDir)), listed: [], listedStaleAfterMs: trustedListsStaleAfterMs(config) };
  const trustedLists = await TrustedLists.open({ db: database.db, clock, config, logger, trustStore });
  // One signing secret for every process sharing the database, unless the operator sets one.
  const secret = config.signingSecret ?? (await getOrCreateSetting(database.db, 'url_signing_secret', () => crypto.randomBytes(32).toString('base64url')));
  return {
    database,
    db: database.db,
    clock,
    config,
    logger,
    // An S3-compatible bucket when COTEJO_S3_BUCKET is set (processes share it), else the data dir (docs/deployment.md).
    // Through an S3 outage, work that can wait keeps its originals in the database (storage/spooling-blob-store.ts).
    blobs: config.s3 ? new SpoolingBlobStore(new S3BlobStore(config.s3), database.db, logger, () => clock.now()) : new LocalBlobStore(path.join(config.dataDir, 'files')),
    signer: new UrlSigner(secret),
    providers: {
      test: testModeProvider,
      live: createLiveProvider({
        local: createLocalProvider({ readers: config.liveReaders, ocrLanguages: config.ocrLanguages, ocrEngine: config.ocrEngine, concurrency: config.readingConcurrency, logger }),
        mistral: config.mistral ? createMistralClient(config.mistral) : null,
        logger,
      }),
    },
    trustStore,
    trustedLists,
    revocationFetcher: config.revocationCheck === 'online' ? new RevocationFetcher({ allowPrivate: config.allowPrivateUrls, clock }) : undefined,
    inflight: new Set(),
    // One registry per Services: tests run several apps in one process, each with its own counts.
    metrics: new Metrics(),
  };
}
