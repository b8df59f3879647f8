import { sql, type Kysely } from 'kysely';

/**
 * #29: `mask_fields` on templates and verification links (what a link sends out hides those fields), and the selfie
 * module's setting on templates (`face_verification`, which links inherit). Templates: SQL null when the template
 * sets none. Links: the list in force (`[]`: none), decided at creation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('templates').addColumn('mask_fields', 'jsonb').execute();
  await db.schema.alterTable('templates').addColumn('face_verification', 'jsonb').execute();
  await db.schema
    .alterTable('verification_links')
    .addColumn('mask_fields', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('verification_links').dropColumn('mask_fields').execute();
  await db.schema.alterTable('templates').dropColumn('face_verification').execute();
  await db.schema.alterTable('templates').dropColumn('mask_fields').execute();
}
