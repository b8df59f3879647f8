/**
 * The shared email outbox (`emails`, migration 0020): recorded by mail/index.ts sendMail, claimed and settled by
 * mail/queue.ts, listed by the CLI, pruned by the retention sweep.
 */
import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import type { DB, EmailRow, EmailsTable } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Inserts one queued email; with a `dedupe_key` already used, inserts nothing and answers the first one's id. */
export async function recordEmail(db: Conn, row: Insertable<EmailsTable>): Promise<string> {
  if (row.dedupe_key == null) {
    await db.insertInto('emails').values(row).execute();
    return row.id;
  }
  const inserted = await db.insertInto('emails').values(row).onConflict((oc) => oc.column('dedupe_key').doNothing()).returning('id').executeTakeFirst();
  if (inserted) return inserted.id;
  const first = await db.selectFrom('emails').select('id').where('dedupe_key', '=', row.dedupe_key).executeTakeFirstOrThrow();
  return first.id;
}

/**
 * Claims the next due queued email for `leaseMs`: its attempt is counted and it is not due again before the lease
 * ends (a process that dies while sending gives it back then). `FOR UPDATE SKIP LOCKED`: two processes never take
 * the same one.
 */
export async function claimDueEmail(db: Kysely<DB>, now: Date, leaseMs: number): Promise<EmailRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('emails')
      .select('id')
      .where('status', '=', 'queued')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!due) return undefined;
    return trx
      .updateTable('emails')
      .set({ attempts: sql<number>`attempts + 1`, next_attempt_at: new Date(now.getTime() + leaseMs), updated_at: now })
      .where('id', '=', due.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * Settles a claimed email: sent, failed for good, or queued again at `retryAt`. Only while the claim is still the
 * email's latest (same attempt, still queued): false when another process took it over after the lease ran out.
 */
export async function settleEmail(
  db: Conn,
  claimed: Pick<EmailRow, 'id' | 'attempts'>,
  now: Date,
  outcome: { status: 'sent'; via: 'smtp' | 'outbox' } | { status: 'failed'; error: string } | { status: 'queued'; error: string; retryAt: Date },
): Promise<boolean> {
  const set =
    outcome.status === 'sent'
      ? { status: 'sent' as const, via: outcome.via, sent_at: now, error: null }
      : outcome.status === 'failed'
        ? { status: 'failed' as const, error: outcome.error }
        : { error: outcome.error, next_attempt_at: outcome.retryAt };
  const r = await db
    .updateTable('emails')
    .set({ ...set, updated_at: now })
    .where('id', '=', claimed.id)
    .where('attempts', '=', claimed.attempts)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export type EmailSummary = Pick<EmailRow, 'id' | 'account_id' | 'to_address' | 'subject' | 'status' | 'attempts' | 'via' | 'created_at' | 'sent_at' | 'error'>;

/** The newest `limit` emails first (of one status when given), and how many there are. */
export async function listEmails(db: Conn, q: { limit: number; status?: EmailRow['status'] }): Promise<{ total: number; emails: EmailSummary[] }> {
  let list = db.selectFrom('emails').select(['id', 'account_id', 'to_address', 'subject', 'status', 'attempts', 'via', 'created_at', 'sent_at', 'error']);
  let count = db.selectFrom('emails').select((eb) => eb.fn.countAll<string>().as('n'));
  if (q.status) {
    list = list.where('status', '=', q.status);
    count = count.where('status', '=', q.status);
  }
  const [emails, total] = await Promise.all([list.orderBy('id', 'desc').limit(q.limit).execute(), count.executeTakeFirstOrThrow()]);
  return { total: Number(total.n), emails };
}

export async function findEmail(db: Conn, id: string): Promise<EmailRow | undefined> {
  return db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sent or failed emails last touched before `before` (queued ones never), at most `limit`. */
export async function deleteFinalEmails(db: Conn, before: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('emails')
    .where('id', 'in', db.selectFrom('emails').select('id').where('status', '<>', 'queued').where('updated_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
