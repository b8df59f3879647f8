/**
 * The retention sweep's SQL (jobs/retention.ts decides what and when). Every delete takes at most `limit` rows, so one
 * statement never holds many locks or a long transaction; the sweep calls again until fewer come back.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Jobs that ended (`done`, or `failed` with no attempt left) before `before`. Pending and running ones never. */
export async function deleteFinishedJobs(db: Conn, before: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('jobs')
    .where('id', 'in', db.selectFrom('jobs').select('id').where('status', 'in', ['done', 'failed']).where('updated_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Events written before `before`, except those a delivery still waits to send (their deliveries carry their own body,
 * but an event with work pending is kept whole until that work ends).
 */
export async function deleteOldEvents(db: Conn, before: Date, limit: number): Promise<number> {
  const r = await db
    .deleteFrom('events')
    .where(
      'id',
      'in',
      db
        .selectFrom('events as e')
        .select('e.id')
        .where('e.created_at', '<', before)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id').where('d.status', '=', 'pending'))))
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * Final deliveries (succeeded or failed) beyond the newest `keep` of their endpoint (a link's callbacks: of their
 * link), with their attempts (ON DELETE CASCADE). A pending delivery is never deleted nor counted.
 */
export async function deleteDeliveriesBeyond(db: Conn, keep: number, limit: number): Promise<number> {
  const r = await sql<{ id: string }>`
    delete from webhook_deliveries where id in (
      select id from (
        select id, row_number() over (partition by coalesce(endpoint_id, link_id, account_id) order by id desc) as n
        from webhook_deliveries where status <> 'pending'
      ) ranked where n > ${keep} limit ${limit}
    ) returning id`.execute(db);
  return r.rows.length;
}

/** Exports whose signed URLs stopped working before `before`: their blobs then rows go. */
export async function expiredExports(db: Conn, before: Date, limit: number): Promise<Array<{ id: string; blob_key: string }>> {
  return db.selectFrom('exports').select(['id', 'blob_key']).where('expires_at', '<', before).orderBy('expires_at').limit(limit).execute();
}

export async function deleteExportRow(db: Conn, id: string): Promise<void> {
  await db.deleteFrom('exports').where('id', '=', id).execute();
}

/** Which of these blob keys an export row still points at. */
export async function exportBlobKeysIn(db: Conn, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom('exports').select('blob_key').where('blob_key', 'in', keys).execute();
  return new Set(rows.map((r) => r.blob_key));
}

/**
 * The tables whose rows come and go with every analysis (deleted by the sweep, or at once for `keep_results: false`):
 * their dead rows' space is only reused after a VACUUM.
 */
export const CHURNED_TABLES = ['analyses', 'jobs', 'events', 'webhook_deliveries', 'webhook_delivery_attempts', 'emails', 'idempotency_keys', 'credit_reservations', 'exports'] as const;

/** True when PostgreSQL's autovacuum daemon runs (never for the embedded PGlite: one backend, no daemon). */
export async function autovacuumRuns(db: Kysely<DB>): Promise<boolean> {
  const r = await sql<{ autovacuum: string }>`show autovacuum`.execute(db);
  return r.rows[0]?.autovacuum === 'on';
}

/**
 * A CHECKPOINT: the write-ahead log before it is no longer needed, and its files are recycled. PGlite runs one backend
 * without the checkpointer process, and a standalone backend never starts a checkpoint for WAL volume, only at
 * shutdown: without this its `pg_wal` grows by every write for as long as the process runs (about 9 KB per analysis,
 * bench/results/soak.md); with it, it stays near its minimum (2 segments, 32 MB).
 */
export async function checkpoint(db: Kysely<DB>): Promise<void> {
  await sql`checkpoint`.execute(db);
}

/** Plain VACUUM (no lock that stops reads or writes): the space of deleted rows becomes reusable; files do not shrink. */
export async function vacuumTables(db: Kysely<DB>, tables: readonly string[]): Promise<void> {
  for (const t of tables) await sql`vacuum ${sql.table(t)}`.execute(db);
}
