// A remote store (S3) that is away does not lose work that can wait (issue #31): the original of an async analysis
// or of a batch document is kept in the database (`blob_spool`) meanwhile, read from there by the worker, and moved
// to the store once it answers again (flushSpool, from the worker loop). A synchronous request is not spooled: it
// answers 503 `service_unavailable` with Retry-After (http/errors.ts), and nothing of it is written.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import crypto from 'node:crypto';
import { claimedBlob, claimSpooled, releaseClaims, settleClaimed, spoolBlob, spooledBlob, unspoolBlob } from '../db/blob-spool.ts';
import type { DB } from '../db/schema.ts';
import type { BlobStore } from './blob-store.ts';
import { BlobStoreUnavailable } from './unavailable.ts';

/** How long a flush holds a spooled blob it moves: well past an S3 put's worst case (attempts × time-out). */
export const SPOOL_CLAIM_MS = 5 * 60_000;

export class SpoolingBlobStore implements BlobStore {
  private readonly store: BlobStore;
  private readonly db: Kysely<DB>;
  private readonly logger: Logger;
  private readonly now: () => Date;

  constructor(store: BlobStore, db: Kysely<DB>, logger: Logger, now: () => Date = () => new Date()) {
    this.store = store;
    this.db = db;
    this.logger = logger;
    this.now = now;
    if (store.ping) this.ping = () => store.ping!();
  }

  ping?: () => Promise<void>;

  async put(key: string, bytes: Uint8Array, opts: { canWait?: boolean } = {}): Promise<void> {
    try {
      await this.store.put(key, bytes);
    } catch (err) {
      if (!opts.canWait || !(err instanceof BlobStoreUnavailable)) throw err;
      await spoolBlob(this.db, key, bytes, this.now());
      this.logger.warn({ key, cause: err.message }, 'blob store unavailable: original kept in the database until it is back');
    }
  }

  /** The spooled copy first (the store does not have it yet), else the store's. */
  async get(key: string): Promise<Uint8Array | null> {
    return (await spooledBlob(this.db, key)) ?? this.store.get(key);
  }

  async delete(key: string): Promise<void> {
    if (await unspoolBlob(this.db, key)) {
      // It was kept here, so the store only has it if a flush was moving it at this moment: try, and let the flush
      // (which deletes it again when it finds its row gone) settle it if the store is still away.
      await this.store.delete(key).catch((err: unknown) => {
        if (!(err instanceof BlobStoreUnavailable)) throw err;
      });
      return;
    }
    await this.store.delete(key);
  }

  /**
   * Moves up to `limit` spooled blobs to the store; stops at the first that the store refuses. Each is claimed first
   * (claimSpooled: `FOR UPDATE SKIP LOCKED` and a lease of SPOOL_CLAIM_MS), so several processes flushing at once
   * never move the same blob; a process that dies while moving one gives it back when the lease lapses.
   */
  async flushSpool(limit = 20): Promise<number> {
    const claim = crypto.randomUUID();
    const now = this.now();
    const keys = await claimSpooled(this.db, claim, now, new Date(now.getTime() + SPOOL_CLAIM_MS), limit);
    let moved = 0;
    try {
      for (const key of keys) {
        const bytes = await claimedBlob(this.db, key, claim);
        if (!bytes) continue; // deleted or put again since the claim
        try {
          await this.store.put(key, bytes);
        } catch (err) {
          if (err instanceof BlobStoreUnavailable) break; // still away: next time
          throw err;
        }
        const settled = await settleClaimed(this.db, key, claim);
        // Deleted meanwhile (the analysis was forgotten): what was just written goes too. Put again meanwhile: the
        // newer bytes stay spooled for the next flush, which writes them over these.
        if (settled === 'gone') await this.store.delete(key);
        if (settled === 'moved') moved++;
      }
    } finally {
      // What was claimed and not moved goes back at once (not after the lease).
      if (keys.length > 0) await releaseClaims(this.db, claim);
    }
    if (moved > 0) this.logger.info({ moved }, 'blob store back: spooled originals moved to it');
    return moved;
  }

  /** Closes the store's pooled connections (tests, shutdown), when it has any. */
  async destroy(): Promise<void> {
    await (this.store as { destroy?: () => Promise<void> }).destroy?.();
  }
}
