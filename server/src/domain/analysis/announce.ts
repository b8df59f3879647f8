// The webhook outbox's reaction to an analysis that ended (registered at the composition root, server/src/reactions.ts):
// `analysis.completed` (not for a batch's analyses: their batch has `batch.completed`), `analysis.review_required` when
// its verdict asks review, or `analysis.failed`; one of each type per analysis, in the transaction that ended it when
// there is one.
import type { Services } from '../../context.ts';
import type { AnalysisRow } from '../../db/schema.ts';
import { emitEvent } from '../events.ts';
import type { Ended } from '../lifecycle.ts';
import { maskAnalysis } from './mask.ts';
import type { NormalisedOptions } from './options.ts';
import { present, presentWithExports } from './presenter.ts';

export async function announceEnded(s: Services, { row, trx }: Ended): Promise<void> {
  const within = trx ?? undefined;
  if (row.status === 'completed') {
    // With its exports' links when it has some (then it ended outside any transaction).
    const body = eventBody(row, await presentWithExports(s, row));
    if (!row.batch_id) await emitEvent(s, row, 'analysis.completed', body, { within, subject: row.id });
    const verdict = (row.result as { verdict?: { status?: string } | null } | null)?.verdict;
    if (verdict?.status === 'review' && row.kind === 'analysis') await emitEvent(s, row, 'analysis.review_required', body, { within, subject: row.id });
  } else {
    await emitEvent(s, row, 'analysis.failed', eventBody(row, present(s, row)), { within, subject: row.id });
  }
}

/** An analysis as its events carry it: with the fields its verification link masks (docs/verification-links.md). */
function eventBody<T extends object>(row: AnalysisRow, body: T): T {
  return maskAnalysis(body, (row.options as Partial<NormalisedOptions> | null)?.mask_fields);
}
