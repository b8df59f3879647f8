import type { Kysely } from 'kysely';

/**
 * The dashboard's delivery history (#19) shows each attempt's response: the start of its body (up to 512 bytes), kept
 * with the attempt. Attempts are pruned with their deliveries (the foreign key cascades), 100 per endpoint.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_delivery_attempts').addColumn('response_excerpt', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_delivery_attempts').dropColumn('response_excerpt').execute();
}
