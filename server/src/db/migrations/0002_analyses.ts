import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analyses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('analysis', 'classification')`))
    .addColumn('batch_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'processing', 'completed', 'failed')`))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('options', 'jsonb', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('keep_results', 'boolean', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_mime', 'text')
    .addColumn('file_pages', 'integer', (c) => c.notNull())
    .addColumn('file_size', 'integer', (c) => c.notNull())
    .addColumn('file_sha256', 'text', (c) => c.notNull())
    .addColumn('file_key', 'text')
    .addColumn('storage_mode', 'text', (c) => c.notNull())
    .addColumn('storage_expires_at', 'timestamptz')
    .addColumn('file_deleted_at', 'timestamptz')
    .addColumn('document_type', 'text')
    .addColumn('result', 'jsonb')
    .addColumn('error', 'jsonb')
    .addColumn('credits_milli', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('exports', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('analyses_list_idx').on('analyses').columns(['account_id', 'livemode', 'kind', 'id']).execute();
  await db.schema.createIndex('analyses_expiry_idx').on('analyses').column('storage_expires_at').where(sql.ref('file_key'), 'is not', null).execute();

  await db.schema
    .createTable('exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('analysis_id', 'text', (c) => c.notNull().references('analyses.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('exports_analysis_idx').on('exports').column('analysis_id').execute();

  // The durable queue: claimed with FOR UPDATE SKIP LOCKED under a lease, taken again when a lease expires.
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('queue', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'running', 'done', 'failed')`))
    .addColumn('run_at', 'timestamptz', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'timestamptz')
    .addColumn('locked_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_claim_idx').on('jobs').columns(['queue', 'status', 'run_at']).execute();

  // Events to deliver (the webhook outbox).
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_account_idx').on('events').columns(['account_id', 'livemode', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['events', 'jobs', 'exports', 'analyses']) await db.schema.dropTable(t).ifExists().execute();
}
