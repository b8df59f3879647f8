import { sql, type Kysely } from 'kysely';

/**
 * Verification links (#17). A link is one row: its requested documents (with their attempts and outcome) and its
 * history are small bounded lists (10 documents, 11 event types), kept as jsonb and always rewritten under the row
 * lock. The URL's secret token is never stored: only its SHA-256 (`token_hash`, unique), as API keys are.
 *
 * Also: the account's page defaults (`link_consent_text`, `link_show_result`), its selfie-module switch
 * (`face_verification_enabled`, off), and one callback signing secret per mode (made on first use); and
 * `webhook_deliveries` learns to carry a link callback: no endpoint, a `callback_url` instead.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('verification_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('template', 'text')
    .addColumn('reference', 'text')
    .addColumn('metadata', 'jsonb', (c) => c.notNull())
    .addColumn('documents', 'jsonb', (c) => c.notNull())
    .addColumn('dossier_id', 'text')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('redirect_url', 'text')
    .addColumn('redirect_with_status', 'boolean', (c) => c.notNull())
    .addColumn('callback_url', 'text')
    .addColumn('include_results', 'boolean', (c) => c.notNull())
    .addColumn('results_email', 'text')
    .addColumn('results_email_sent_at', 'timestamptz')
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('notify_email', 'text')
    .addColumn('last_sent_at', 'timestamptz')
    .addColumn('show_result', 'boolean', (c) => c.notNull())
    .addColumn('consent_text', 'text')
    .addColumn('consent', 'jsonb')
    .addColumn('events', 'jsonb', (c) => c.notNull())
    .addColumn('face_verification', 'jsonb')
    .addColumn('face_match', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('completed_at', 'timestamptz')
    .addColumn('cancelled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('verification_links_account_idx').on('verification_links').columns(['account_id', 'livemode', 'id']).execute();
  // The expiry sweep looks for active links past their time.
  await db.schema
    .createIndex('verification_links_expiry_idx')
    .on('verification_links')
    .column('expires_at')
    .where(sql.ref('status'), 'in', sql`('pending', 'in_progress')`)
    .execute();
  await db.schema.alterTable('accounts').addColumn('link_consent_text', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('link_show_result', 'boolean', (c) => c.notNull().defaultTo(true)).execute();
  await db.schema.alterTable('accounts').addColumn('face_verification_enabled', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db.schema.alterTable('accounts').addColumn('callback_secret_test', 'text').execute();
  await db.schema.alterTable('accounts').addColumn('callback_secret_live', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').alterColumn('endpoint_id', (c) => c.dropNotNull()).execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('callback_url', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('link_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', 'is', null).execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('link_id').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('callback_url').execute();
  await db.schema.alterTable('webhook_deliveries').alterColumn('endpoint_id', (c) => c.setNotNull()).execute();
  for (const c of ['callback_secret_live', 'callback_secret_test', 'face_verification_enabled', 'link_show_result', 'link_consent_text']) {
    await db.schema.alterTable('accounts').dropColumn(c).execute();
  }
  await db.schema.dropTable('verification_links').ifExists().execute();
}
