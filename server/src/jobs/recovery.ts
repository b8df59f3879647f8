import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/**
 * Frees the leases of a process that died: running jobs, deliveries being sent, Idempotency-Keys of requests in
 * flight. Only for the embedded database at start: one process opens a PGlite data directory at a time (it is locked),
 * so any lease found then belonged to a dead one, and its work can be taken up at once instead of when the lease
 * lapses (2 minutes for a job, 1 for a delivery). On PostgreSQL other processes may be alive: leases run out instead.
 */
export async function releaseLeasesOfDeadProcesses(db: Kysely<DB>, now: Date): Promise<{ jobs: number; deliveries: number; idempotencyKeys: number }> {
  const past = new Date(now.getTime() - 1);
  const jobs = await db.updateTable('jobs').set({ locked_until: past }).where('status', '=', 'running').where('locked_until', '>=', now).executeTakeFirst();
  const deliveries = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: null, locked_by: null })
    .where('status', '=', 'pending')
    .where('locked_until', 'is not', null)
    .executeTakeFirst();
  const keys = await db.updateTable('idempotency_keys').set({ locked_until: past }).where('state', '=', 'in_progress').where('locked_until', '>=', now).executeTakeFirst();
  return { jobs: Number(jobs.numUpdatedRows), deliveries: Number(deliveries.numUpdatedRows), idempotencyKeys: Number(keys.numUpdatedRows) };
}
