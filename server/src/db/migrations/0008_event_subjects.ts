import type { Kysely } from 'kysely';

/**
 * What an event is about (`an_...`, `bat_...`): one event of each type per subject, so the work that follows a finished
 * analysis or batch can run again after a crash without sending anything twice. Events without a subject
 * (`credits.low`) are not constrained (NULLs are distinct).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('subject_id', 'text').execute();
  await db.schema.createIndex('events_subject_type_idx').on('events').columns(['subject_id', 'type']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_subject_type_idx').execute();
  await db.schema.alterTable('events').dropColumn('subject_id').execute();
}
