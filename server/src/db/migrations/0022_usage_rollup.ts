import type { Kysely } from 'kysely';

/**
 * `usage_records` held one row per analysis for ever: the one table a `keep_results: false` workload still grew with
 * the number of analyses (bench/results/soak.md). A row now counts `analyses` (1 when written); the retention sweep
 * folds the rows older than COTEJO_RETENTION_USAGE_DETAIL into one row per account, mode, day, type and kind (its
 * `analysis_id` is `usage:...`), which `GET /v1/usage` adds up the same way.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_records').addColumn('analyses', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage_records').dropColumn('analyses').execute();
}
