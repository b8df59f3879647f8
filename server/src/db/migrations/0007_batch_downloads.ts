import type { Kysely } from 'kysely';

/**
 * Batch `file_url` items are downloaded by the worker, not inside POST /v1/batches: until then the analysis holds
 * the URL (`source_url`, cleared once fetched or failed) and no file yet (`file_sha256` unknown).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('analyses').addColumn('source_url', 'text').execute();
  await db.schema.alterTable('analyses').alterColumn('file_sha256', (c) => c.dropNotNull()).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('analyses').dropColumn('source_url').execute();
}
