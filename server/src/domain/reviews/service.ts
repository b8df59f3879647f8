// Human review of analyses (#16, docs/reviews.md): the decision (POST /v1/analyses/{id}/review), its audit record and
// its event, and the review queue (GET /v1/reviews). Entering review when an analysis finishes is part of judging it (analysis/review-entry.ts).
import { updateAnalysisReturning } from '../../db/analyses.ts';
import * as repo from '../../db/reviews.ts';
import type { AnalysisRow, AuditState } from '../../db/schema.ts';
import type { Auth, Services } from '../../context.ts';
import { ApiError, resourceMissing } from '../../errors.ts';
import { page } from '../pagination.ts';
import { newId } from '../../ids.ts';
import { publish } from '../lifecycle.ts';
import type { NormalisedOptions } from '../analysis/options.ts';
import { presentWithExports } from '../analysis/presenter.ts';
import { emitEvent } from '../events.ts';
import type { Analysis } from '../analysis/presenter.ts';
import { reviewPolicyOf, type VerdictStatus } from '../analysis/review-entry.ts';
import { finalStatusOf } from './present.ts';

const HOUR_MS = 3600 * 1000;

export interface ReviewBody {
  decision: 'approve' | 'reject';
  reason?: string | null;
  note?: string | null;
}

function auditState(row: AnalysisRow): AuditState {
  const verdict = (row.result as { verdict?: { status?: VerdictStatus } | null } | null)?.verdict;
  return {
    review_status: row.review_status ?? null,
    final_status: finalStatusOf(row),
    verdict_status: verdict?.status ?? null,
    storage_mode: row.storage_mode,
    file_kept: row.file_key !== null,
    storage_expires_at: row.storage_expires_at ? new Date(row.storage_expires_at).toISOString() : null,
  };
}

const notReviewable = (message: string) => new ApiError(409, 'not_reviewable', message, 'id');

/**
 * POST /v1/analyses/{id}/review. Under a row lock: a pending review is decided, with its audit record and its
 * `analysis.reviewed` event (one per analysis: the event's subject) in the same transaction; the same decision again
 * returns the analysis unchanged (no event, no record); another decision is 409 `already_reviewed`. With storage
 * `review` the original is then kept `review_retention_hours_after_decision` hours (the template's, else the
 * account's; 0 deletes it now). Afterwards the dossiers holding it judge again.
 */
export async function decideReview(s: Services, auth: Auth, id: string, body: ReviewBody): Promise<Analysis> {
  const scope = { account_id: auth.account.id, livemode: auth.livemode };
  const outcome = await s.db.transaction().execute(async (trx) => {
    const row = await repo.lockAnalysisForReview(trx, scope, id);
    if (!row) throw resourceMissing(id);
    if (row.status !== 'completed') throw notReviewable('El análisis no ha terminado: solo se revisa un análisis completed con veredicto.');
    const verdict = (row.result as { verdict?: unknown } | null)?.verdict;
    if (!verdict) throw notReviewable('El análisis no tiene veredicto (se analizó sin expect): no admite revisión.');
    if (!row.review_status) throw notReviewable('El análisis no está en revisión: su veredicto no la requiere.');
    if (row.review_status !== 'pending') {
      if (row.review_decision === body.decision) return { row, changed: false, deleteKey: null };
      throw new ApiError(409, 'already_reviewed', `El análisis ya se revisó con la decisión '${row.review_decision}'; solo un propietario o administrador puede cambiarla desde el panel.`, 'decision');
    }
    const now = s.clock.now();
    const patch: Partial<AnalysisRow> = {
      review_status: body.decision === 'approve' ? 'approved' : 'rejected',
      review_decision: body.decision,
      review_reviewed_by: auth.keyId,
      review_reviewed_at: now,
      review_reason: body.reason ?? null,
      review_note: body.note ?? null,
    };
    let deleteKey: string | null = null;
    // Retention after the decision applies to originals kept for review; other modes keep their own period.
    if (row.storage_mode === 'review' && row.file_key) {
      const { policy } = reviewPolicyOf(row.options as Partial<NormalisedOptions>);
      const hours = policy.retention_hours_after_decision ?? (await repo.accountReviewSettings(trx, row.account_id)).review_retention_hours_after_decision;
      patch.storage_expires_at = new Date(now.getTime() + hours * HOUR_MS);
      if (hours === 0) {
        deleteKey = row.file_key;
        patch.file_key = null;
        patch.file_deleted_at = now;
      }
    }
    const updated = (await updateAnalysisReturning(trx, row.id, patch as never))!; // locked above: it exists
    await repo.insertAuditRecord(trx, {
      id: newId('audit_record', now.getTime()),
      account_id: row.account_id,
      livemode: row.livemode,
      analysis_id: row.id,
      action: `review.${patch.review_status}`,
      decision: body.decision,
      actor: auth.keyId,
      reason: body.reason ?? null,
      previous_state: auditState(row),
      new_state: auditState(updated),
      created_at: now,
    });
    const data = await presentWithExports(s, updated);
    await emitEvent(s, updated, 'analysis.reviewed', data, { within: trx, subject: updated.id });
    return { row: updated, changed: true, deleteKey };
  });
  // The blob goes once the row no longer points at it (a failure here leaves an orphan file, never a dangling key).
  if (outcome.deleteKey) await s.blobs.delete(outcome.deleteKey).catch((err) => s.logger.warn({ err, analysis: id }, 'could not delete a reviewed original'));
  if (outcome.changed) await publish(s, 'reviewed', { analysisId: id });
  return (await presentWithExports(s, outcome.row)) as Analysis;
}

/**
 * The dashboard's "change decision" (owners and administrators; docs/dashboard.md): a decided review takes the other
 * decision, under the same row lock, with an audit record `review.changed` (actor: the member) and a new
 * `analysis.reviewed` event (not deduplicated by subject: the integration must hear that the outcome changed). The
 * original's retention is left as the first decision set it. The same decision again changes nothing.
 */
export async function changeReviewDecision(s: Services, auth: Auth, id: string, body: ReviewBody): Promise<{ changed: boolean }> {
  const scope = { account_id: auth.account.id, livemode: auth.livemode };
  const changed = await s.db.transaction().execute(async (trx) => {
    const row = await repo.lockAnalysisForReview(trx, scope, id);
    if (!row) throw resourceMissing(id);
    if (row.review_status !== 'approved' && row.review_status !== 'rejected') throw notReviewable('La revisión no está decidida: no hay decisión que cambiar.');
    if (row.review_decision === body.decision) return false;
    const now = s.clock.now();
    const updated = (await updateAnalysisReturning(trx, row.id, {
      review_status: body.decision === 'approve' ? 'approved' : 'rejected',
      review_decision: body.decision,
      review_reviewed_by: auth.keyId,
      review_reviewed_at: now,
      review_reason: body.reason ?? null,
      review_note: body.note ?? null,
    } as never))!;
    await repo.insertAuditRecord(trx, {
      id: newId('audit_record', now.getTime()),
      account_id: row.account_id,
      livemode: row.livemode,
      analysis_id: row.id,
      action: 'review.changed',
      decision: body.decision,
      actor: auth.keyId,
      reason: body.reason ?? null,
      previous_state: auditState(row),
      new_state: auditState(updated),
      created_at: now,
    });
    await emitEvent(s, updated, 'analysis.reviewed', await presentWithExports(s, updated), { within: trx });
    return true;
  });
  if (changed) await publish(s, 'reviewed', { analysisId: id });
  return { changed };
}

/** Assigns a review (pending or decided) to someone, or to nobody (null): shown as `review.assignee`. */
export async function assignReview(s: Services, auth: Auth, id: string, assignee: string | null): Promise<void> {
  const scope = { account_id: auth.account.id, livemode: auth.livemode };
  await s.db.transaction().execute(async (trx) => {
    const row = await repo.lockAnalysisForReview(trx, scope, id);
    if (!row || !row.review_status) throw resourceMissing(id);
    await updateAnalysisReturning(trx, row.id, { review_assignee: assignee } as never);
  });
}

/** GET /v1/reviews. */
export async function listReviews(s: Services, auth: Auth, f: repo.ReviewFilter): Promise<{ data: Analysis[]; has_more: boolean }> {
  const rows = await repo.listReviews(s.db, { account_id: auth.account.id, livemode: auth.livemode }, f);
  const { rows: pageRows, hasMore } = page(rows, f.limit);
  const data: Analysis[] = [];
  for (const r of pageRows) data.push((await presentWithExports(s, r)) as Analysis);
  return { data, has_more: hasMore };
}
