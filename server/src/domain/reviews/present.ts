// How an analysis's review state shows in the Analysis resource (spec "Review object", Storage in review contexts).
// A leaf module (types only): the presenter imports it, and it imports nothing that imports the presenter.
import type { components } from '../../../../generated/api.d.ts';
import type { AnalysisRow } from '../../db/schema.ts';

type Review = components['schemas']['Review'];
type Storage = components['schemas']['Storage'];

const iso = (d: Date | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/** The `review` object; null when the analysis never entered review (rows older than reviews lack the columns). */
export function reviewOf(row: AnalysisRow): Review | null {
  if (!row.review_status) return null;
  return {
    status: row.review_status,
    decision: row.review_decision ?? null,
    assignee: row.review_assignee ?? null,
    reviewed_by: row.review_reviewed_by ?? null,
    reviewed_at: iso(row.review_reviewed_at),
    reason: row.review_reason ?? null,
    note: row.review_note ?? null,
  };
}

/** `verdict.final_status`: `valid` / `invalid` once a human decided, null while pending or without review. */
export function finalStatusOf(row: AnalysisRow): 'valid' | 'invalid' | null {
  if (row.review_status === 'approved') return 'valid';
  if (row.review_status === 'rejected') return 'invalid';
  return null;
}

/**
 * `storage.kept` and `storage.reason`, present in review contexts only: the storage mode is `review`, or the analysis
 * entered review. The reasons (docs/reviews.md):
 * - storage `review`: `pending_result` (not finished yet), `pending_review` (kept while pending),
 *   `review_max_days_elapsed` (pending past `review_max_days`: deleted), `retained_after_decision` (kept until
 *   `expires_at`), `deleted_after_decision`, `review_not_required` (finished without entering review: not kept);
 * - any other mode that entered review: `storage_none`, `storage_temporary`, `storage_persistent` (the original
 *   follows its own mode).
 */
export function reviewStorageExtras(row: AnalysisRow): Pick<Storage, 'kept' | 'reason'> | null {
  if (row.storage_mode !== 'review' && !row.review_status) return null;
  const kept = row.file_key !== null;
  if (row.storage_mode !== 'review') return { kept, reason: `storage_${row.storage_mode}` };
  let reason: string;
  if (row.review_status === 'pending') reason = kept ? 'pending_review' : 'review_max_days_elapsed';
  else if (row.review_status) reason = kept ? 'retained_after_decision' : 'deleted_after_decision';
  else reason = row.status === 'queued' || row.status === 'processing' ? 'pending_result' : 'review_not_required';
  return { kept, reason };
}
