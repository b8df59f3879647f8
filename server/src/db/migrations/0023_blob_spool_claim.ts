import { sql, type Kysely } from 'kysely';

/**
 * #31: a spooled original is claimed before it is moved to the S3 store (storage/spooling-blob-store.ts flushSpool),
 * so two processes never move the same one: `claim` names the flush that holds it, until `claimed_until` (a lease: a
 * process that dies while moving it gives it back). A row put again meanwhile loses its claim (its new bytes are moved
 * by a later flush).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table blob_spool add column claim text, add column claimed_until timestamptz`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table blob_spool drop column claim, drop column claimed_until`.execute(db);
}
