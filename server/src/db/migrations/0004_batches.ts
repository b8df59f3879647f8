import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('processing', 'completed')`))
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('analyses', 'jsonb', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('exports', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('analyses_batch_idx').on('analyses').column('batch_id').where(sql.ref('batch_id'), 'is not', null).execute();
  // One row per finished analysis or classification: what usage and billing count (kept after deletion).
  await db.schema
    .createTable('usage_records')
    .addColumn('analysis_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('analysis', 'classification', 'batch_analysis')`))
    .addColumn('pages', 'integer', (c) => c.notNull())
    .addColumn('credits_milli', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('usage_records_account_idx').on('usage_records').columns(['account_id', 'livemode', 'day']).execute();
  // Exports belong to an analysis or to a batch.
  await db.schema.alterTable('exports').alterColumn('analysis_id', (c) => c.dropNotNull()).execute();
  await db.schema.alterTable('exports').addColumn('batch_id', 'text', (c) => c.references('batches.id').onDelete('cascade')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('exports').dropColumn('batch_id').execute();
  await db.schema.dropIndex('analyses_batch_idx').ifExists().execute();
  await db.schema.dropTable('usage_records').ifExists().execute();
  await db.schema.dropTable('batches').ifExists().execute();
}
