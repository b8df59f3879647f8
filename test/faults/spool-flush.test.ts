/**
 * Issue #31: the originals spooled in the database while the S3 store was away are moved to it by every process's
 * worker (storage/spooling-blob-store.ts flushSpool). Two services on the same PostgreSQL database flushing at once
 * must never move the same blob twice: each flush claims its rows first (`FOR UPDATE SKIP LOCKED` and a lease). A flush
 * that died holding some gives them back when its lease lapses. PostgreSQL only (DATABASE_URL): one process owns an
 * embedded database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimSpooled, spoolBlob } from '../../server/src/db/blob-spool.ts';
import { openDatabase, type Database } from '../../server/src/db/database.ts';
import { createLogger } from '../../server/src/logger.ts';
import type { BlobStore } from '../../server/src/storage/blob-store.ts';
import { SPOOL_CLAIM_MS, SpoolingBlobStore } from '../../server/src/storage/spooling-blob-store.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const BASE = process.env.DATABASE_URL;

/** A store that takes a while to write (as S3 does), counting every write of every key. */
function slowStore(): BlobStore & { puts: Map<string, number>; objects: Map<string, Uint8Array> } {
  const puts = new Map<string, number>();
  const objects = new Map<string, Uint8Array>();
  return {
    puts,
    objects,
    async put(key, bytes) {
      await new Promise((r) => setTimeout(r, 20));
      puts.set(key, (puts.get(key) ?? 0) + 1);
      objects.set(key, bytes);
    },
    async get(key) {
      return objects.get(key) ?? null;
    },
    async delete(key) {
      objects.delete(key);
    },
  };
}

describe.skipIf(!BASE)('flushing the blob spool from two services on one PostgreSQL database', { timeout: 120_000 }, () => {
  let app: TestApp;
  let second: Database;
  const logger = createLogger('silent');

  beforeAll(async () => {
    app = await startTestApp('postgres');
    // A second service: its own pool on the same database and schema, as a second process has.
    second = await openDatabase({ databaseUrl: BASE, schema: app.services.database.schema, poolSize: 5 });
  });
  afterAll(async () => {
    await second?.close();
    await app?.close();
  });

  const spooled = async () => (await app.services.db.selectFrom('blob_spool').select('key').execute()).map((r) => r.key);

  it('moves each spooled blob exactly once when both flush at the same time', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `acct_spool/an_${String(i).padStart(3, '0')}/original`);
    const t0 = Date.now();
    for (const [i, key] of keys.entries()) await spoolBlob(app.services.db, key, new Uint8Array([i, 1, 2, 3]), new Date(t0 + i));
    const store = slowStore();
    const a = new SpoolingBlobStore(store, app.services.db, logger);
    const b = new SpoolingBlobStore(store, second.db, logger);

    // Both flush repeatedly, at once, until the spool is empty.
    const drain = async (s: SpoolingBlobStore) => {
      let moved = 0;
      for (let round = 0; round < 20; round++) moved += await s.flushSpool(10);
      return moved;
    };
    const [byA, byB] = await Promise.all([drain(a), drain(b)]);

    expect(byA + byB).toBe(keys.length);
    expect([...store.puts.keys()].sort()).toEqual(keys);
    expect([...store.puts.values()].every((n) => n === 1), JSON.stringify([...store.puts].filter(([, n]) => n > 1))).toBe(true);
    for (const [i, key] of keys.entries()) expect([...store.objects.get(key)!]).toEqual([i, 1, 2, 3]);
    expect(await spooled()).toEqual([]);
  });

  it('leaves a blob claimed by another flush alone until its lease lapses, then moves it', async () => {
    const key = 'acct_spool/an_held/original';
    const now = new Date();
    await spoolBlob(app.services.db, key, new Uint8Array([9]), now);
    // A flush of another process claimed it, then that process died.
    expect(await claimSpooled(second.db, 'a-flush-that-died', now, new Date(now.getTime() + SPOOL_CLAIM_MS), 10)).toEqual([key]);

    const store = slowStore();
    expect(await new SpoolingBlobStore(store, app.services.db, logger).flushSpool()).toBe(0);
    expect(store.puts.size).toBe(0);
    expect(await spooled()).toEqual([key]);

    // Past its lease it is anyone's again.
    const later = () => new Date(Date.now() + SPOOL_CLAIM_MS + 1_000);
    expect(await new SpoolingBlobStore(store, app.services.db, logger, later).flushSpool()).toBe(1);
    expect(store.puts.get(key)).toBe(1);
    expect(await spooled()).toEqual([]);
  });

  it('gives back what it claimed and could not move when the store goes away again', async () => {
    const keys = ['acct_spool/an_back1/original', 'acct_spool/an_back2/original'];
    for (const key of keys) await spoolBlob(app.services.db, key, new Uint8Array([7]), new Date());
    const { BlobStoreUnavailable } = await import('../../server/src/storage/unavailable.ts');
    const away: BlobStore = {
      put: async () => {
        throw new BlobStoreUnavailable('store away');
      },
      get: async () => null,
      delete: async () => undefined,
    };
    expect(await new SpoolingBlobStore(away, app.services.db, logger).flushSpool()).toBe(0);
    // Not held by a lease: the next flush (another process's) takes them at once.
    const store = slowStore();
    expect(await new SpoolingBlobStore(store, second.db, logger).flushSpool()).toBe(2);
    expect([...store.puts.keys()].sort()).toEqual(keys);
    expect(await spooled()).toEqual([]);
  });
});
