import { sql, type Kysely } from 'kysely';

/**
 * Live-mode limits and the account's processing profile (docs/live-mode.md, "Limits and profiles"):
 * - per account: the default `processing` profile, the maximum concurrent synchronous live analyses and the live
 *   pages per minute (defaults in docs/decisions.md);
 * - `live_page_buckets`: one token bucket of pages per account (refilled at pages-per-minute / 60 a second, holding at
 *   most one minute's worth), spent by one conditional upsert, so every process sharing the database sees it;
 * - `live_sync_slots`: one row per synchronous live analysis while its reading runs, with an expiry its process keeps
 *   pushing forward (a process that dies stops holding its slots once they expire).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('default_processing', 'text', (c) => c.notNull().defaultTo('sovereign').check(sql`default_processing in ('sovereign', 'standard')`))
    .addColumn('live_concurrency_limit', 'integer', (c) => c.notNull().defaultTo(5).check(sql`live_concurrency_limit >= 1`))
    .addColumn('live_pages_per_minute', 'integer', (c) => c.notNull().defaultTo(120).check(sql`live_pages_per_minute >= 1`))
    .execute();

  await db.schema
    .createTable('live_page_buckets')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    // Pages that may be read now; below zero after a batch larger than what was left (later requests wait).
    .addColumn('tokens', 'double precision', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('live_sync_slots')
    // No foreign key to analyses: the analysis row is inserted in the same transaction, after its slot.
    .addColumn('analysis_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('live_sync_slots_account_idx').on('live_sync_slots').columns(['account_id', 'expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('live_sync_slots').ifExists().execute();
  await db.schema.dropTable('live_page_buckets').ifExists().execute();
  await db.schema.alterTable('accounts').dropColumn('default_processing').dropColumn('live_concurrency_limit').dropColumn('live_pages_per_minute').execute();
}
