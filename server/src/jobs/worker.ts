import { analysesWithExpiredFiles, updateAnalysis } from '../db/analyses.ts';
import { deleteExpiredIdempotencyKeys, IDEMPOTENCY_WINDOW_MS } from '../db/idempotency.ts';
import { runOneFollowUpJob } from '../domain/lifecycle.ts';
import { expireDueLinks, runOneLinkEmailJob } from '../domain/links/service.ts';
import { ANALYSIS_QUEUE, forgetIfFinished, PROCESS_LEASE_MS, runClaimedJob } from '../domain/analysis/pipeline.ts';
import type { Services } from '../context.ts';
import { runDueDeliveries } from '../webhooks/deliveries.ts';
import * as queue from './queue.ts';
import { sweepGrowth } from './retention.ts';
import { UNAVAILABLE_MIN_DELAY_MS } from './unavailable.ts';
import { unavailableDependency } from '../storage/unavailable.ts';
import { runOneDueEmail } from '../mail/queue.ts';
import { deleteStaleRateLimitWindows } from '../db/rate-limits.ts';
import { deleteStaleDashboardRows } from '../db/dashboard.ts';
import { ADDRESS_WINDOW_MS, IDLE_MS } from '../web/dashboard/members.ts';

/** Takes and runs one due analysis job; false when there was none. */
export async function runOneAnalysisJob(s: Services): Promise<boolean> {
  const job = await queue.claim(s.db, s.clock, ANALYSIS_QUEUE, PROCESS_LEASE_MS);
  if (!job) return false;
  const id = String(job.payload.analysis_id);
  if ((await runClaimedJob(s, job, id)).kind === 'done') await forgetIfFinished(s, id);
  return true;
}

/**
 * Retention: deletes originals whose temporary storage ended, idempotency keys past the replay window, and what only
 * grows (jobs/retention.ts). Returns how many originals it deleted.
 */
export async function sweepRetention(s: Services): Promise<number> {
  const now = s.clock.now();
  let deleted = 0;
  for (;;) {
    const due = await analysesWithExpiredFiles(s.db, now, 100);
    if (due.length === 0) break;
    for (const row of due) {
      if (row.file_key) await s.blobs.delete(row.file_key);
      await updateAnalysis(s.db, row.id, { file_key: null, file_deleted_at: now });
      deleted++;
    }
  }
  await deleteExpiredIdempotencyKeys(s.db, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS));
  // #18: rate-limit windows no request touched for a minute (database store).
  await deleteStaleRateLimitWindows(s.db, now);
  // #17: verification links past their `expires_at` expire here (event, webhook, callback).
  await expireDueLinks(s);
  // #19: dashboard sessions that ended and sign-in failure counts whose window passed.
  await deleteStaleDashboardRows(s.db, now, new Date(now.getTime() - IDLE_MS), new Date(now.getTime() - ADDRESS_WINDOW_MS));
  // #31: finished jobs, events, final deliveries beyond the newest per endpoint, expired and orphan exports, empty directories.
  await sweepGrowth(s);
  return deleted;
}

/** How often the worker moves originals spooled during an S3 outage to the store. */
const SPOOL_FLUSH_MS = 5_000;

export interface Worker {
  /** Resolves when the loop has stopped (the job in hand finishes first). */
  stop(): Promise<void>;
}

/** Polls for due jobs and webhook deliveries, and sweeps retention periodically, until stopped. */
export function startWorker(s: Services, opts: { pollMs?: number; sweepMs?: number } = {}): Worker {
  const pollMs = opts.pollMs ?? 250;
  const sweepMs = opts.sweepMs ?? 60_000;
  let stopping = false;
  let lastSweep = 0;
  // A loop that fails because the database or the store is away says so once per loop and outage, then waits for it
  // (a warning, not an error per poll); the first round that works again says it is back.
  const away = new Map<string, string>();
  const failed = async (loop: string, err: unknown): Promise<void> => {
    const dependency = unavailableDependency(err);
    if (stopping) return;
    if (!dependency) s.logger.error({ err }, `${loop} error`);
    else if (away.get(loop) !== dependency) {
      away.set(loop, dependency);
      s.logger.warn({ dependency, cause: String((err as Error)?.message ?? err) }, `${loop} waits: ${dependency} unavailable`);
    }
    await new Promise((r) => setTimeout(r, dependency ? Math.max(pollMs, UNAVAILABLE_MIN_DELAY_MS) : pollMs));
  };
  const recovered = (loop: string): void => {
    const dependency = away.get(loop);
    if (dependency === undefined) return;
    away.delete(loop);
    s.logger.info({ dependency }, `${loop}: ${dependency} available again`);
  };
  const loop = (async () => {
    while (!stopping) {
      try {
        let worked = false;
        // A backlog of analyses does not hold up the sweep (retention, expiring links, VACUUM) for longer than its period.
        while (!stopping && Date.now() - lastSweep < sweepMs && (await runOneAnalysisJob(s))) worked = true;
        // What failed to follow a settled analysis (a dossier verdict, a link attempt), tried again.
        while (!stopping && (await runOneFollowUpJob(s))) worked = true;
        if (Date.now() - lastSweep >= sweepMs) {
          lastSweep = Date.now();
          await sweepRetention(s);
        }
        recovered('worker loop');
        if (!worked) await new Promise((r) => setTimeout(r, pollMs));
      } catch (err) {
        await failed('worker loop', err);
      }
    }
  })();
  // Emails too (the shared outbox, and the link jobs that queue into it): a mail server that hangs (up to its
  // time-outs) holds up neither analyses nor deliveries.
  const emails = (async () => {
    while (!stopping) {
      try {
        let worked = false;
        while (!stopping && (await runOneLinkEmailJob(s))) worked = true;
        while (!stopping && (await runOneDueEmail(s))) worked = true;
        recovered('link email loop');
        if (!worked) await new Promise((r) => setTimeout(r, pollMs));
      } catch (err) {
        await failed('link email loop', err);
      }
    }
  })();
  // Webhook deliveries run in a loop of their own, so a slow receiver (up to 15 s) never holds up analyses.
  const deliveries = (async () => {
    while (!stopping) {
      try {
        let worked = false;
        while (!stopping && (await runDueDeliveries(s)) > 0) worked = true;
        recovered('webhook delivery loop');
        if (!worked) await new Promise((r) => setTimeout(r, pollMs));
      } catch (err) {
        await failed('webhook delivery loop', err);
      }
    }
  })();
  // Originals kept in the database while the S3 store was away go to it (storage/spooling-blob-store.ts), in a loop
  // of their own: a store that hangs holds up nothing else.
  const spool = (async () => {
    const flush = s.blobs.flushSpool?.bind(s.blobs);
    while (!stopping && flush) {
      try {
        await flush();
        recovered('spool loop');
        for (let waited = 0; waited < SPOOL_FLUSH_MS && !stopping; waited += pollMs) await new Promise((r) => setTimeout(r, pollMs));
      } catch (err) {
        await failed('spool loop', err);
      }
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await Promise.all([loop, deliveries, emails, spool]);
    },
  };
}
