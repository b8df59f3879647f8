import type { Kysely } from 'kysely';

/**
 * #31: originals of work that can wait (an async analysis, a batch document) accepted while the S3 store is away.
 * They stay here until the store is back (storage/spooling-blob-store.ts moves them), then the row goes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('blob_spool')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('bytes', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('blob_spool').execute();
}
