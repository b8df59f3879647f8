import os from 'node:os';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../clock.ts';
import type { DB, JobRow } from '../db/schema.ts';
import { newId } from '../ids.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** This process, as the owner of the jobs it claims. */
export const WORKER_ID = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;

export interface EnqueueOptions {
  runAt?: Date;
  maxAttempts?: number;
  /** Use a known id (so a caller can claim the job it just made). */
  id?: string;
  /**
   * Insert it already claimed by this process for this long (attempt 1): the caller runs it at once, and no other
   * worker can take it in between (a synchronous request owns its job from the moment it exists).
   */
  claimedForMs?: number;
}

export async function enqueue(db: Conn, clock: Clock, queue: string, payload: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<JobRow> {
  const now = clock.now();
  const id = opts.id ?? newId('job', now.getTime());
  const claimed = opts.claimedForMs !== undefined;
  return db
    .insertInto('jobs')
    .values({
      id,
      queue,
      payload: JSON.stringify(payload),
      status: claimed ? 'running' : 'pending',
      run_at: opts.runAt ?? now,
      ...(claimed ? { attempts: 1 } : {}),
      max_attempts: opts.maxAttempts ?? 5,
      locked_until: claimed ? new Date(now.getTime() + opts.claimedForMs!) : null,
      locked_by: claimed ? WORKER_ID : null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Claims the next due job of `queue` (or the job `id`) for `leaseMs`: a pending job whose time has come,
 * or a running one whose lease expired (its worker died). `FOR UPDATE SKIP LOCKED` keeps two workers
 * from claiming the same job at once.
 */
export async function claim(db: Kysely<DB>, clock: Clock, queue: string, leaseMs: number, id?: string): Promise<JobRow | undefined> {
  const now = clock.now();
  return db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom('jobs')
      .select('id')
      .where('queue', '=', queue)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('locked_until', '<', now)]),
        ]),
      )
      .orderBy('run_at')
      .limit(1)
      .forUpdate()
      .skipLocked();
    if (id) q = q.where('id', '=', id);
    const next = await q.executeTakeFirst();
    if (!next) return undefined;
    return trx
      .updateTable('jobs')
      .set({
        status: 'running',
        attempts: sql`attempts + 1`,
        locked_until: new Date(now.getTime() + leaseMs),
        locked_by: WORKER_ID,
        updated_at: now,
      })
      .where('id', '=', next.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function complete(db: Conn, clock: Clock, id: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'done', locked_until: null, updated_at: clock.now() })
    .where('id', '=', id)
    .where('locked_by', '=', WORKER_ID)
    .execute();
}

/** Keeps a job this process holds: its lease runs `leaseMs` from now (a no-op once another worker took it). */
export async function extendLease(db: Conn, clock: Clock, id: string, leaseMs: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ locked_until: new Date(clock.now().getTime() + leaseMs), updated_at: clock.now() })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('locked_by', '=', WORKER_ID)
    .execute();
}

/** Schedules another attempt after `retryInMs`, or marks the job failed when attempts are spent. */
export async function fail(db: Conn, clock: Clock, job: JobRow, error: string, retryInMs: number): Promise<'retry' | 'failed'> {
  const now = clock.now();
  const final = job.attempts >= job.max_attempts;
  await db
    .updateTable('jobs')
    .set({
      status: final ? 'failed' : 'pending',
      run_at: final ? job.run_at : new Date(now.getTime() + retryInMs),
      locked_until: null,
      locked_by: null,
      last_error: error.slice(0, 2000),
      updated_at: now,
    })
    .where('id', '=', job.id)
    .execute();
  return final ? 'failed' : 'retry';
}

/** Puts a claimed job back for later without counting an attempt (work that must wait, not a failure). */
export async function defer(db: Conn, clock: Clock, job: JobRow, runAt: Date): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'pending', run_at: runAt, attempts: Math.max(0, job.attempts - 1), locked_until: null, locked_by: null, updated_at: clock.now() })
    .where('id', '=', job.id)
    .execute();
}
