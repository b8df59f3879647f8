import { sql, type Kysely } from 'kysely';

/**
 * Live-mode charging: per-account spend settings, one credit reservation per live analysis (held while
 * it runs, then captured into the ledger or released), and a guard that an analysis is charged once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    // null: no cap. Paid credits a calendar month (UTC) may spend.
    .addColumn('monthly_credit_cap_milli', 'bigint')
    // The dashboard threshold of `credits.low` (spendable credits).
    .addColumn('low_credit_threshold_milli', 'bigint', (c) => c.notNull().defaultTo(10_000))
    // Set when `credits.low` is sent; cleared by a top-up (or once spendable credits are back above it).
    .addColumn('low_credit_notified_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('credit_reservations')
    // One per live analysis or classification; no foreign key: it outlives a deleted analysis (billing history).
    .addColumn('analysis_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('batch_id', 'text')
    .addColumn('free_milli', 'bigint', (c) => c.notNull())
    .addColumn('paid_milli', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('held', 'captured', 'released')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('settled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('credit_reservations_account_idx').on('credit_reservations').columns(['account_id', 'status', 'created_at']).execute();
  // A paid charge names its analysis; the same analysis can never be charged twice.
  await db.schema
    .createIndex('credit_ledger_charge_once')
    .on('credit_ledger')
    .column('reference')
    .unique()
    .where(sql.ref('reason'), '=', 'charge')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('credit_ledger_charge_once').ifExists().execute();
  await db.schema.dropTable('credit_reservations').ifExists().execute();
  await db.schema
    .alterTable('accounts')
    .dropColumn('monthly_credit_cap_milli')
    .dropColumn('low_credit_threshold_milli')
    .dropColumn('low_credit_notified_at')
    .execute();
}
