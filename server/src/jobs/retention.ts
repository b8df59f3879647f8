/**
 * Retention of what only grows (#31): finished jobs, the events outbox, final webhook deliveries and their attempts,
 * sent or failed emails, per-analysis usage rows (folded into per-day rows), exports whose URLs expired, orphan export
 * files and the directories left empty in the local blob store. Part of the durable retention sweep (worker.ts,
 * sweepRetention); each period comes from COTEJO_RETENTION_* (config.ts) and is measured on the services' clock.
 * Nothing pending is ever touched: a job still to run, an event or a delivery still to send, a queued email. Safe to
 * run in every process at once (each delete takes rows that are there, a second one finds none).
 */
import type { Services } from '../context.ts';
import * as db from '../db/retention.ts';
import { deleteFinalEmails } from '../db/emails.ts';
import { foldUsage } from '../db/usage.ts';

const BATCH = 500;
/** A file this recent may be a write whose row is not committed yet: never an orphan. */
const ORPHAN_GRACE_MS = 3_600_000;
/** Walking the local blob directory is the one costly step: at most this often per process. */
const BLOB_WALK_EVERY_MS = 3_600_000;
const lastBlobWalk = new WeakMap<object, number>();
/**
 * VACUUM of the churned tables where nothing else does it (the embedded PGlite has no autovacuum daemon; a PostgreSQL
 * may have it off): at most this often per process (the sweep's own period: a backlog of dead rows between two VACUUMs
 * is what the file grows to). Without it every analysis leaves dead rows whose space is never
 * reused, and the database grows with the number of analyses (bench/results/soak.md).
 */
const VACUUM_EVERY_MS = 60_000;
const lastVacuum = new WeakMap<object, number>();

export interface RetentionCounts {
  jobs: number;
  events: number;
  deliveries: number;
  exports: number;
  orphanFiles: number;
  emptyDirectories: number;
  emails: number;
  usageFolded: number;
}

/** Repeats a bounded delete until it comes back short. */
async function drain(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < BATCH) return total;
  }
}

export async function sweepGrowth(s: Services): Promise<RetentionCounts> {
  const r = s.config.retention;
  const now = s.clock.now().getTime();
  const counts: RetentionCounts = { jobs: 0, events: 0, deliveries: 0, exports: 0, orphanFiles: 0, emptyDirectories: 0, emails: 0, usageFolded: 0 };
  if (r.finishedJobsMs !== null) counts.jobs = await drain(() => db.deleteFinishedJobs(s.db, new Date(now - r.finishedJobsMs!), BATCH));
  if (r.eventsMs !== null) counts.events = await drain(() => db.deleteOldEvents(s.db, new Date(now - r.eventsMs!), BATCH));
  if (r.deliveriesPerEndpoint !== null) counts.deliveries = await drain(() => db.deleteDeliveriesBeyond(s.db, r.deliveriesPerEndpoint!, BATCH));
  // The shared email outbox (#31 item 6): sent or failed emails; a queued one is never touched.
  if (r.emailsMs !== null) counts.emails = await drain(() => deleteFinalEmails(s.db, new Date(now - r.emailsMs!), BATCH));
  // Usage (#31): one row per analysis until then, one per account, mode, day, type and kind after.
  if (r.usageDetailMs !== null) counts.usageFolded = await drain(() => foldUsage(s.db, new Date(now - r.usageDetailMs!), BATCH));
  if (r.expiredExportsMs !== null) {
    counts.exports = await drain(async () => {
      const due = await db.expiredExports(s.db, new Date(now - r.expiredExportsMs!), BATCH);
      // The file first: a row without its file is harmless (its URL has expired), a file without its row is an orphan.
      for (const e of due) {
        await s.blobs.delete(e.blob_key);
        await db.deleteExportRow(s.db, e.id);
      }
      return due.length;
    });
  }
  if (s.blobs.keysWrittenBefore && now - (lastBlobWalk.get(s) ?? -Infinity) >= BLOB_WALK_EVERY_MS) {
    lastBlobWalk.set(s, now);
    counts.orphanFiles = await deleteOrphanFiles(s, new Date(now - ORPHAN_GRACE_MS), r.expiredExportsMs !== null);
    counts.emptyDirectories = (await s.blobs.removeEmptyDirectories?.()) ?? 0;
  }
  if (now - (lastVacuum.get(s) ?? -Infinity) >= VACUUM_EVERY_MS) {
    lastVacuum.set(s, now);
    if (s.database.kind === 'pglite' || !(await db.autovacuumRuns(s.db))) await db.vacuumTables(s.db, db.CHURNED_TABLES);
    // PGlite has no checkpointer: its write-ahead log is recycled only by a checkpoint (db/retention.ts checkpoint).
    if (s.database.kind === 'pglite') await db.checkpoint(s.db);
  }
  if (Object.values(counts).some((n) => n > 0)) s.logger.info({ retention: counts }, 'retention sweep');
  return counts;
}

/**
 * Files of the local store no row points at: half-written puts (`*.tmp`, from a process that died mid-write) and,
 * when exports are swept, export files whose row is gone (written, then the process died before its row).
 */
async function deleteOrphanFiles(s: Services, before: Date, exports: boolean): Promise<number> {
  let deleted = 0;
  let pending: string[] = [];
  const flush = async (): Promise<void> => {
    const owned = await db.exportBlobKeysIn(s.db, pending);
    for (const key of pending) {
      if (owned.has(key)) continue;
      await s.blobs.delete(key);
      deleted++;
    }
    pending = [];
  };
  for await (const key of s.blobs.keysWrittenBefore!(before)) {
    if (key.endsWith('.tmp')) {
      await s.blobs.delete(key);
      deleted++;
    } else if (exports && /\/exports\/[^/]+$/.test(key)) {
      pending.push(key);
      if (pending.length >= BATCH) await flush();
    }
  }
  await flush();
  return deleted;
}
