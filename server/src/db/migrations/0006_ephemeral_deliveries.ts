import type { Kysely } from 'kysely';

/**
 * `keep_results: false`: a webhook delivery that carries such a result keeps its body only while it is pending (it
 * must be re-sent byte for byte); once it succeeds or fails for good, the body is cleared.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('ephemeral', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').dropColumn('ephemeral').execute();
}
