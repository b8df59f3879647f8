import { sql, type Kysely } from 'kysely';

/**
 * templates (#16): saved verification setups (`tpl_...`), one row per template of an account and mode.
 *
 * Deleting a template deletes its row (no `deleted_at`): every analysis made with it holds the resolved options
 * (and the template id) in its own `options`, so nothing needs the row afterwards, and a template may hold personal
 * data (`checks.holder`) that should not outlive it. Ids are ULIDs, never reused.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // Catalogue type ids (resolved from slugs at write time); null: the template sets none.
    .addColumn('expect', 'jsonb')
    .addColumn('checks', 'jsonb', (c) => c.notNull())
    .addColumn('extract', 'jsonb', (c) => c.notNull())
    .addColumn('storage', 'text', (c) => c.check(sql`storage in ('none', 'review', 'temporary', 'persistent')`))
    .addColumn('ttl_hours', 'integer')
    .addColumn('language', 'text')
    .addColumn('processing', 'text')
    .addColumn('precise_bboxes', 'boolean')
    .addColumn('review_on_invalid', 'boolean', (c) => c.notNull())
    .addColumn('review_auto_approve_valid', 'boolean', (c) => c.notNull())
    .addColumn('review_retention_hours_after_decision', 'integer')
    .addColumn('review_max_days', 'integer')
    .addColumn('documents', 'jsonb')
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // Lists: one account and mode, newest first (ULID order).
  await db.schema.createIndex('templates_account_idx').on('templates').columns(['account_id', 'livemode', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('templates').ifExists().execute();
}
