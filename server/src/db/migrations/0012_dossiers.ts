import { sql, type Kysely } from 'kysely';

/**
 * dossiers (#16): a dossier and its documents. A document is a slot (`key`) holding one analysis; the analysis keeps
 * living on its own (deleting the dossier keeps it; deleting the analysis empties the slot). `dossier_documents` is
 * indexed by analysis so that a finished or reviewed analysis finds the dossiers to judge again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dossiers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('template', 'text')
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('requirements', 'jsonb', (c) => c.notNull())
    .addColumn('verification_link_id', 'text')
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    // The last verdict and cross-document checks computed: what `dossier.verdict_changed` compares with.
    .addColumn('verdict', 'jsonb', (c) => c.notNull())
    .addColumn('checks', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dossiers_account_idx').on('dossiers').columns(['account_id', 'livemode', 'id']).execute();
  await db.schema
    .createIndex('dossiers_reference_idx')
    .on('dossiers')
    .columns(['account_id', 'livemode', 'reference'])
    .where(sql.ref('reference'), 'is not', null)
    .execute();
  await db.schema
    .createTable('dossier_documents')
    .addColumn('dossier_id', 'text', (c) => c.notNull().references('dossiers.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('analysis_id', 'text', (c) => c.notNull().references('analyses.id').onDelete('cascade'))
    // The key was chosen by the service while the type was still unknown: it follows the detected type once known.
    .addColumn('auto_key', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('added_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('dossier_documents_pk', ['dossier_id', 'key'])
    .addUniqueConstraint('dossier_documents_analysis_uq', ['dossier_id', 'analysis_id'])
    .execute();
  await db.schema.createIndex('dossier_documents_analysis_idx').on('dossier_documents').column('analysis_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dossier_documents').ifExists().execute();
  await db.schema.dropTable('dossiers').ifExists().execute();
}
