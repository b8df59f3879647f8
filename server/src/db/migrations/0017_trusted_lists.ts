import type { Kysely } from 'kysely';

/**
 * EU trusted lists fetched from their official URLs (#20, docs/pdf-signatures.md "Trusted lists"), shared by every
 * process on the database (on PGlite the database lives in the data dir: that is the data-dir cache):
 * - `trusted_lists`: per territory (`EU` for the List of Trusted Lists) the newest copy that verified, as fetched
 *   (the signed XML's bytes), with its sequence number, issue date, next update, where it came from and when it was
 *   last fetched (the same copy fetched again moves `fetched_at` only). Whoever reads a row verifies it again: the
 *   database is a cache, never a source of trust.
 * - `trusted_list_refresh`: one row (`lotl`) saying when the next refresh is due. A process takes a refresh with one
 *   conditional UPDATE that moves `due_at` one interval on, so one process fetches per interval however many share
 *   the database.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('trusted_lists')
    .addColumn('territory', 'text', (c) => c.primaryKey())
    .addColumn('xml', 'bytea', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer')
    .addColumn('issued_at', 'timestamptz', (c) => c.notNull())
    .addColumn('next_update', 'timestamptz')
    .addColumn('source_url', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('trusted_list_refresh')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('due_at', 'timestamptz', (c) => c.notNull())
    .addColumn('claimed_at', 'timestamptz')
    .addColumn('claimed_by', 'text')
    .addColumn('last_error', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('trusted_list_refresh').ifExists().execute();
  await db.schema.dropTable('trusted_lists').ifExists().execute();
}
