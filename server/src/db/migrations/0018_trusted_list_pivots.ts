import type { Kysely } from 'kysely';

/**
 * The pivot LOTLs a refresh followed when the LOTL signing certificates were rotated (#20, docs/pdf-signatures.md
 * "Refresh"): the chain from the pinned certificates to those of the current LOTL, oldest first (`position`), each
 * pivot as fetched (the signed XML's bytes). Every process rebuilds the LOTL signer certificates from its own pins
 * through these rows, verifying each pivot again: the database is a cache, never a source of trust. A refresh that
 * follows a new chain replaces all the rows at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('trusted_list_pivots')
    .addColumn('url', 'text', (c) => c.primaryKey())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('xml', 'bytea', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer')
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('trusted_list_pivots').ifExists().execute();
}
