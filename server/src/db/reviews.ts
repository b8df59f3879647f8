import type { Kysely, Transaction } from 'kysely';
import { listableAnalyses } from './analyses.ts';
import type { AnalysisRow, AuditRecordRow, DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** The analysis, locked for the rest of the transaction: two decisions on one analysis run one after the other. */
export async function lockAnalysisForReview(trx: Transaction<DB>, scope: { account_id: string; livemode: boolean }, id: string): Promise<AnalysisRow | undefined> {
  return trx
    .selectFrom('analyses')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('kind', '=', 'analysis')
    .where('keep_results', '=', true)
    .forUpdate()
    .executeTakeFirst();
}

/** The account's review retention defaults (a template's values win over them). */
export async function accountReviewSettings(db: Conn, accountId: string): Promise<{ review_max_days: number; review_retention_hours_after_decision: number }> {
  const row = await db.selectFrom('accounts').select(['review_max_days', 'review_retention_hours_after_decision']).where('id', '=', accountId).executeTakeFirst();
  // An account deleted meanwhile: the specification's defaults.
  return row ?? { review_max_days: 30, review_retention_hours_after_decision: 24 };
}

export type ReviewStatusFilter = 'pending' | 'decided' | 'approved' | 'rejected' | 'all';

export interface ReviewFilter {
  status: ReviewStatusFilter;
  type?: string;
  template?: string;
  metadata?: Record<string, string>;
  /** The dashboard's "assigned to me" (a `mem_...` id); the API has no such filter. */
  assignee?: string;
  starting_after?: string;
  limit: number;
}

/**
 * The review queue of one account and mode: analyses that entered review, filtered before the limit. Pending ones
 * oldest first (the queue is worked from its head), the others newest first; ids are ULIDs, so id order is creation
 * order and the cursor is the id. Fetches limit + 1 rows (`has_more`).
 */
export async function listReviews(db: Conn, scope: { account_id: string; livemode: boolean }, f: ReviewFilter): Promise<AnalysisRow[]> {
  let q = listableAnalyses(db, scope, f);
  if (f.status === 'all') q = q.where('review_status', 'is not', null);
  else if (f.status === 'decided') q = q.where('review_status', 'in', ['approved', 'rejected']);
  else q = q.where('review_status', '=', f.status);
  // The template an analysis was made with is in its stored options (`options.template`).
  if (f.template) q = q.where('options', '@>', JSON.stringify({ template: f.template }) as never);
  if (f.assignee) q = q.where('review_assignee', '=', f.assignee);
  const oldestFirst = f.status === 'pending';
  if (f.starting_after) q = q.where('id', oldestFirst ? '>' : '<', f.starting_after);
  return q.orderBy('id', oldestFirst ? 'asc' : 'desc').limit(f.limit + 1).execute();
}

export type NewAuditRecord = Omit<AuditRecordRow, 'previous_state' | 'new_state'> & { previous_state: AuditRecordRow['previous_state']; new_state: AuditRecordRow['new_state'] };

export async function insertAuditRecord(db: Conn, row: NewAuditRecord): Promise<void> {
  await db
    .insertInto('audit_records')
    .values({ ...row, previous_state: JSON.stringify(row.previous_state), new_state: JSON.stringify(row.new_state) })
    .execute();
}

/** Audit records, newest first, of one account or of all. */
export async function listAuditRecords(db: Conn, f: { account_id?: string; analysis_id?: string; limit: number }): Promise<AuditRecordRow[]> {
  let q = db.selectFrom('audit_records').selectAll();
  if (f.account_id) q = q.where('account_id', '=', f.account_id);
  if (f.analysis_id) q = q.where('analysis_id', '=', f.analysis_id);
  return q.orderBy('id', 'desc').limit(f.limit).execute();
}
