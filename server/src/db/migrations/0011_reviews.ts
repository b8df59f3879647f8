import { sql, type Kysely } from 'kysely';

/**
 * Human review and its audit trail (#16, docs/reviews.md):
 * - on `analyses`, the review state of an analysis that entered review (all null when it never did): `review_status`
 *   pending / approved / rejected, the decision and who made it (`key_...`), when, the reason and the internal note,
 *   the dashboard assignee, and when it entered review. The original's retention is `storage_expires_at` as for every
 *   storage mode (the retention sweep deletes it on time), set from `review_max_days` while pending and from
 *   `review_retention_hours_after_decision` at the decision.
 * - `audit_records`: one row per review decision. No foreign key to `analyses`: the record outlives the deletion of
 *   the analysis (DELETE /v1/analyses/{id}, `keep_results: false`), which is what an audit trail is for.
 * - on `accounts`, the retention defaults a template may override (spec: 30 days, 24 hours).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('analyses')
    .addColumn('review_status', 'text', (c) => c.check(sql`review_status in ('pending', 'approved', 'rejected')`))
    .addColumn('review_decision', 'text', (c) => c.check(sql`review_decision in ('approve', 'reject')`))
    .addColumn('review_assignee', 'text')
    .addColumn('review_reviewed_by', 'text')
    .addColumn('review_reviewed_at', 'timestamptz')
    .addColumn('review_reason', 'text')
    .addColumn('review_note', 'text')
    .addColumn('review_entered_at', 'timestamptz')
    .execute();
  // GET /v1/reviews: one account and mode, one review status, in id order (both directions use it).
  await db.schema
    .createIndex('analyses_review_idx')
    .on('analyses')
    .columns(['account_id', 'livemode', 'review_status', 'id'])
    .where(sql.ref('review_status'), 'is not', null)
    .execute();

  await db.schema
    .createTable('audit_records')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('livemode', 'boolean', (c) => c.notNull())
    // Deliberately not a foreign key (see above).
    .addColumn('analysis_id', 'text', (c) => c.notNull())
    // `review.approved`, `review.rejected`.
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('decision', 'text')
    // Who: the `key_...` id of the API key (or a dashboard user id later).
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('previous_state', 'jsonb', (c) => c.notNull())
    .addColumn('new_state', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_records_account_idx').on('audit_records').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('audit_records_analysis_idx').on('audit_records').column('analysis_id').execute();

  await db.schema
    .alterTable('accounts')
    .addColumn('review_max_days', 'integer', (c) => c.notNull().defaultTo(30).check(sql`review_max_days between 1 and 90`))
    .addColumn('review_retention_hours_after_decision', 'integer', (c) =>
      c.notNull().defaultTo(24).check(sql`review_retention_hours_after_decision between 0 and 720`),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').dropColumn('review_max_days').dropColumn('review_retention_hours_after_decision').execute();
  await db.schema.dropTable('audit_records').ifExists().execute();
  await db.schema.dropIndex('analyses_review_idx').ifExists().execute();
  await db.schema
    .alterTable('analyses')
    .dropColumn('review_status')
    .dropColumn('review_decision')
    .dropColumn('review_assignee')
    .dropColumn('review_reviewed_by')
    .dropColumn('review_reviewed_at')
    .dropColumn('review_reason')
    .dropColumn('review_note')
    .dropColumn('review_entered_at')
    .execute();
}
