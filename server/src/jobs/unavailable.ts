// Work that can wait (an async analysis, a batch document, an export) meets a dependency that is away (issue #31):
// the job goes back to the queue without spending an attempt, to run again when the store or the database is back.
// Its wait grows with how long it has been waiting (a quarter of its age, 1 s to 60 s): a short outage is caught up
// within seconds, a long one costs one try a minute per job.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { DB, JobRow } from '../db/schema.ts';
import type { Logger } from 'pino';
import { unavailableDependency } from '../storage/unavailable.ts';
import * as queue from './queue.ts';

export const UNAVAILABLE_MIN_DELAY_MS = 1_000;
export const UNAVAILABLE_MAX_DELAY_MS = 60_000;

/** The wait before a job that met an outage runs again: a quarter of its age, within 1 s .. 60 s. */
export function unavailableDelayMs(job: Pick<JobRow, 'created_at'>, now: Date): number {
  const age = now.getTime() - new Date(job.created_at).getTime();
  return Math.min(UNAVAILABLE_MAX_DELAY_MS, Math.max(UNAVAILABLE_MIN_DELAY_MS, Math.round(age / 4)));
}

/**
 * When `err` says a dependency is away: puts the job back (no attempt spent) and returns true. With the database
 * itself away, writing that takes tries until it answers, for at most `holdMs` (within the job's lease); if it never
 * does, the lease lapses and any worker takes the job again. False: not an outage, the caller handles the error.
 */
export async function deferIfUnavailable(
  s: { db: Kysely<DB>; clock: Clock; logger: Logger },
  job: JobRow,
  err: unknown,
  what: Record<string, unknown>,
  holdMs = 60_000,
): Promise<boolean> {
  const dependency = unavailableDependency(err);
  if (!dependency) return false;
  const delay = unavailableDelayMs(job, s.clock.now());
  s.logger.warn({ ...what, job: job.id, dependency, retry_in_ms: delay, cause: String((err as Error)?.message ?? err) }, `job waits: ${dependency} unavailable`);
  const until = Date.now() + holdMs;
  for (;;) {
    try {
      await queue.defer(s.db, s.clock, job, new Date(s.clock.now().getTime() + delay));
      return true;
    } catch (again) {
      if (!unavailableDependency(again) || Date.now() >= until) {
        s.logger.warn({ ...what, job: job.id, err: again }, 'could not put back a job that met an outage; its lease will lapse');
        return true;
      }
      await new Promise((r) => setTimeout(r, UNAVAILABLE_MIN_DELAY_MS));
    }
  }
}

/**
 * Runs `write` and, while it fails because the database is away, runs it again every second for at most `holdMs`:
 * for a write whose work is already done outside (a webhook already delivered must be recorded, or it would be sent
 * a second time when its lease lapses). Other errors, and the last one past `holdMs`, are thrown.
 */
export async function retryWhileUnavailable<T>(logger: Logger, what: Record<string, unknown>, write: () => Promise<T>, holdMs = 60_000): Promise<T> {
  const until = Date.now() + holdMs;
  let told = false;
  for (;;) {
    try {
      return await write();
    } catch (err) {
      if (!unavailableDependency(err) || Date.now() >= until) throw err;
      if (!told) logger.warn({ ...what, cause: String((err as Error)?.message ?? err) }, 'database unavailable: the outcome is recorded once it is back');
      told = true;
      await new Promise((r) => setTimeout(r, UNAVAILABLE_MIN_DELAY_MS));
    }
  }
}
