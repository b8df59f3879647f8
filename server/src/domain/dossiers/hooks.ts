import type { Services } from '../../context.ts';
import * as jobs from '../../jobs/queue.ts';
import { FOLLOW_UP_QUEUE } from '../../jobs/queues.ts';

/** The queue of follow-ups that failed when their analysis settled, tried again by the worker (runOneFollowUpJob). */
export { FOLLOW_UP_QUEUE };
/** Delays before another try of a failed follow-up; after the last one the job is `failed` (logged at error level). */
const FOLLOW_UP_RETRY_MS = [5_000, 30_000, 2 * 60_000, 10 * 60_000, 60 * 60_000, 6 * 3600_000];
const FOLLOW_UP_LEASE_MS = 2 * 60_000;

type FollowUp = (s: Services, analysisId: string) => Promise<void>;

/**
 * What follows an analysis settling, in order, each idempotent (so a retry may run it again). Tests may replace one
 * (e.g. with one that fails) as they replace the mail hooks.
 */
export const settledFollowUps: Record<'dossiers' | 'links', FollowUp> = {
  // Loaded on first use: the pipeline imports this module, and the dossier service imports the pipeline.
  dossiers: async (s, id) => (await import('./service.ts')).recomputeDossiersOf(s, id),
  // #17: an upload of a verification link that finished after its request answered (the page polled) is judged now.
  links: async (s, id) => (await import('../links/settle.ts')).settleLinksOf(s, id),
};

type Step = keyof typeof settledFollowUps;
const isStep = (x: unknown): x is Step => typeof x === 'string' && Object.hasOwn(settledFollowUps, x);

/**
 * Called whenever an analysis that may belong to a dossier changes in a way its dossier's verdict depends on: it
 * finished (completed or failed), or a review decision was recorded. Recomputes the verdict of every dossier that
 * holds it (emitting `dossier.verdict_changed` when it changed) and judges the verification link attempt it may be.
 * Never throws: the analysis has finished whatever follows it. A follow-up that fails is logged at error level and
 * becomes a durable job (FOLLOW_UP_QUEUE) that the worker tries again with back-off, so it is not lost.
 */
export async function onAnalysisSettled(s: Services, analysisId: string): Promise<void> {
  for (const step of Object.keys(settledFollowUps) as Step[]) {
    try {
      await settledFollowUps[step](s, analysisId);
    } catch (err) {
      s.logger.error({ err, analysis: analysisId, follow_up: step }, 'a follow-up of a settled analysis failed; queued to be tried again');
      try {
        await jobs.enqueue(s.db, s.clock, FOLLOW_UP_QUEUE, { analysis_id: analysisId, step }, { runAt: new Date(s.clock.now().getTime() + FOLLOW_UP_RETRY_MS[0]), maxAttempts: FOLLOW_UP_RETRY_MS.length });
      } catch (queueErr) {
        // The database itself is away: nothing durable can be written. Said as loudly as the logs allow.
        s.logger.error({ err: queueErr, analysis: analysisId, follow_up: step }, 'a follow-up of a settled analysis failed and could not be queued: lost');
      }
    }
  }
}

/** Takes and runs one due follow-up job (the worker's loop; tests call it directly). False when there was none. */
export async function runOneFollowUpJob(s: Services): Promise<boolean> {
  const job = await jobs.claim(s.db, s.clock, FOLLOW_UP_QUEUE, FOLLOW_UP_LEASE_MS);
  if (!job) return false;
  const analysisId = String(job.payload.analysis_id);
  const step = job.payload.step;
  try {
    if (!isStep(step)) throw new Error(`unknown follow-up '${String(step)}'`);
    await settledFollowUps[step](s, analysisId);
    await jobs.complete(s.db, s.clock, job.id);
  } catch (err) {
    const delay = FOLLOW_UP_RETRY_MS[Math.min(job.attempts, FOLLOW_UP_RETRY_MS.length - 1)];
    const next = await jobs.fail(s.db, s.clock, job, String((err as Error)?.message ?? err), delay);
    s.logger.error({ err, analysis: analysisId, follow_up: step, attempt: job.attempts, next }, next === 'retry' ? 'a follow-up of a settled analysis failed again; trying later' : 'a follow-up of a settled analysis failed for the last time');
  }
  return true;
}
