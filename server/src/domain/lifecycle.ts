// The analysis lifecycle: what happened to an analysis (staged, completed, failed, reviewed, deleted), announced by
// the module where it happened and reacted to by the features that registered for it at start (server/src/reactions.ts,
// the composition root). The publisher names no subscriber and no subscriber imports the publisher: a new "when an
// analysis finishes, do X" is one registration, not an edit of the pipeline.
//
// Two phases, so that the guarantees hold after a crash (test/unit/recovery.test.ts):
// - `transaction`: runs where the event is published, inside the transaction that made it happen when there is one
//   (`trx`), so a reaction stands or falls with it (the outbox's events, the usage record). Without one (`trx` null:
//   an analysis with exports or in a batch, settled after its commit; or settled again by a job that ran again after
//   a crash) each reaction must happen once however often it runs (they do: one event of a type per subject, one
//   usage record per analysis).
// - `commit`: after the commit, in registration order. A follow-up (`followUp`) never throws: one that fails is
//   logged at error level and becomes a durable job (FOLLOW_UP_QUEUE) that the worker tries again with back-off.
//   Other commit reactions throw to the publisher (the analysis job then runs again and settles what is missing).
import type { Transaction } from 'kysely';
import type { Services } from '../context.ts';
import type { AnalysisRow, DB } from '../db/schema.ts';
import * as jobs from '../jobs/queue.ts';
import { FOLLOW_UP_QUEUE } from '../jobs/queues.ts';

/** The queue of follow-ups that failed when their analysis settled, tried again by the worker (runOneFollowUpJob). */
export { FOLLOW_UP_QUEUE };
/** Delays before another try of a failed follow-up; after the last one the job is `failed` (logged at error level). */
const FOLLOW_UP_RETRY_MS = [5_000, 30_000, 2 * 60_000, 10 * 60_000, 60 * 60_000, 6 * 3600_000];
const FOLLOW_UP_LEASE_MS = 2 * 60_000;

/** An analysis that ended (completed with a result, or failed). */
export interface Ended {
  /** The analysis as it ended (with its exports when it has some). */
  row: AnalysisRow;
  /** The transaction that ended it, when what follows fits in it (no exports to render, no batch); else null. */
  trx: Transaction<DB> | null;
  /** Settled again by a job that ran again after its process died: what was done then is not done twice. */
  recovering: boolean;
  /** Milli-credits captured by this ending (0 when nothing was charged, or when recovering). */
  charged: number;
}

/** What each lifecycle event carries. */
export interface LifecycleEvents {
  /** New analyses and their jobs were inserted, in the transaction that creates them. */
  staged: { trx: Transaction<DB>; rows: AnalysisRow[] };
  completed: Ended;
  failed: Ended;
  /** A review decision was recorded (published after its commit). */
  reviewed: { analysisId: string };
  /** An analysis was deleted by its owner (published after its row went). */
  deleted: { analysisId: string };
}

export type LifecycleEvent = keyof LifecycleEvents;
export type Phase = 'transaction' | 'commit';
type Reaction<E extends LifecycleEvent> = (s: Services, event: LifecycleEvents[E]) => Promise<void>;

/** The analysis a lifecycle event is about. */
function analysisOf(e: LifecycleEvents[LifecycleEvent]): string | null {
  if ('row' in e) return e.row.id;
  if ('analysisId' in e) return e.analysisId;
  return null;
}

interface Registered {
  event: LifecycleEvent;
  phase: Phase;
  run: (s: Services, event: never) => Promise<void>;
}
const reactions: Registered[] = [];

/** Registers a reaction to one or more lifecycle events (at the composition root, in the order they should run). */
export function on<E extends LifecycleEvent>(events: E | E[], run: Reaction<E>, phase: Phase = 'transaction'): void {
  for (const event of Array.isArray(events) ? events : [events]) reactions.push({ event, phase, run: run as Registered['run'] });
}

/** Announces an event: runs its reactions of that phase (both phases, in order, when `phase` is omitted). */
export async function publish<E extends LifecycleEvent>(s: Services, event: E, data: LifecycleEvents[E], phase?: Phase): Promise<void> {
  for (const p of phase ? [phase] : (['transaction', 'commit'] as const)) {
    for (const r of reactions) if (r.event === event && r.phase === p) await r.run(s, data as never);
  }
}

type FollowUp = (s: Services, analysisId: string) => Promise<void>;

/**
 * The follow-ups registered with `followUp`, by name (the name is what a retry job records). Tests may replace one
 * (e.g. with one that fails) as they replace the mail hooks.
 */
export const settledFollowUps: Record<string, FollowUp> = {};

/**
 * Registers a follow-up: after the commit of any of `events`, `run` for the analysis, idempotent (a retry may run it
 * again). Never throws to the publisher: the analysis has happened whatever follows it.
 */
export function followUp(name: string, events: LifecycleEvent[], run: FollowUp): void {
  settledFollowUps[name] = run;
  on(
    events,
    async (s, e) => {
      const id = analysisOf(e);
      if (id !== null) await runFollowUp(s, name, id);
    },
    'commit',
  );
}

async function runFollowUp(s: Services, step: string, analysisId: string): Promise<void> {
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

const isStep = (x: unknown): x is string => typeof x === 'string' && Object.hasOwn(settledFollowUps, x);

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
