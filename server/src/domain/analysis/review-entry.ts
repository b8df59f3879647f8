// Entering human review when an analysis finishes (#16, docs/reviews.md): part of judging it (judge.ts), written in
// the update that completes it. The reviews module (domain/reviews/) reads the same policy to record decisions.
import * as repo from '../../db/reviews.ts';
import type { AnalysisRow } from '../../db/schema.ts';
import type { Services } from '../../context.ts';
import { DEFAULT_REVIEW_POLICY, type NormalisedOptions, type ReviewPolicy } from './options.ts';

const DAY_MS = 24 * 3600 * 1000;

export type VerdictStatus = 'valid' | 'invalid' | 'review';

/**
 * The transition table's first row: whether an analysis that finished with this verdict enters review. Verdict
 * `review` always does; `invalid` when its template asks review of invalid results; `valid` when its template does not
 * auto-approve valid ones. Without a template only `review` does (the default policy says the same, but a policy
 * without a template cannot exist: the check does not rely on that).
 */
export function entersReview(verdict: VerdictStatus | null | undefined, policy: ReviewPolicy, hasTemplate: boolean): boolean {
  if (verdict === 'review') return true;
  if (!hasTemplate) return false;
  if (verdict === 'invalid') return policy.on_invalid;
  if (verdict === 'valid') return !policy.auto_approve_valid;
  return false;
}

/**
 * Neither the request nor its template chose `storage`: an analysis that enters review then keeps its original as
 * storage `review` does (the specification: entering review keeps the original; docs/reviews.md). Options stored
 * before the flag existed count as chosen.
 */
export function storageUnchosen(options: Partial<NormalisedOptions>): boolean {
  return options.storage_chosen === false;
}

/** Options as stored: rows written before templates and reviews existed lack `review` and `template`. */
export function reviewPolicyOf(options: Partial<NormalisedOptions> | null | undefined): { policy: ReviewPolicy; template: string | null } {
  return { policy: { ...DEFAULT_REVIEW_POLICY, ...(options?.review ?? {}) }, template: options?.template ?? null };
}

/**
 * The columns that make a finishing analysis enter review, written in the same update (and transaction) that
 * completes it; null when it does not enter review. With storage `review` the original is kept while pending, at
 * most `review_max_days` (the template's, else the account's): `storage_expires_at`, which the retention sweep obeys.
 * An analysis whose results are not kept (`keep_results: false`) never enters review: nothing would remain to decide.
 */
export async function reviewOnFinish(
  s: Services,
  row: Pick<AnalysisRow, 'account_id' | 'kind' | 'keep_results'>,
  options: Partial<NormalisedOptions>,
  verdict: VerdictStatus | null | undefined,
  /** The instant the analysis completes (its `completed_at`), so that entering review and the kept original's expiry count from it. */
  now: Date = s.clock.now(),
): Promise<Partial<AnalysisRow> | null> {
  if (row.kind !== 'analysis' || !row.keep_results) return null;
  const { policy, template } = reviewPolicyOf(options);
  if (!entersReview(verdict, policy, template !== null)) return null;
  const patch: Partial<AnalysisRow> = { review_status: 'pending', review_entered_at: now };
  if (options.storage === 'review' || storageUnchosen(options)) {
    const days = policy.max_days ?? (await repo.accountReviewSettings(s.db, row.account_id)).review_max_days;
    patch.storage_expires_at = new Date(now.getTime() + days * DAY_MS);
  }
  return patch;
}
