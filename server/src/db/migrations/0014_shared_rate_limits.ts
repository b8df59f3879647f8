import { sql, type Kysely } from 'kysely';

/**
 * Request rate limits counted in the database, shared by every process (#18, docs/deployment.md "Rate limits"):
 * one row per bucket (`key:<key id>`, `public:<address>`, `unauthenticated:<address>`) holding the current one-second
 * window and the requests counted in it. One upsert per request moves the row to the new window or adds one to it
 * (http/rate-limit.ts), so a busy key keeps one row (updated in place: no indexed column changes, a HOT update) rather
 * than a row per second; the retention sweep deletes rows not touched for a minute.
 *
 * UNLOGGED: the counts are worth one second each, so they skip the write-ahead log (no WAL per request, no
 * replication traffic); after a crash or a fail-over PostgreSQL empties the table, which only hands every bucket a
 * fresh second.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create unlogged table rate_limit_windows (
      bucket text primary key,
      -- The window: whole seconds since the epoch, by the clock of the process that counted last.
      "window" bigint not null,
      count integer not null
    ) with (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('rate_limit_windows').ifExists().execute();
}
