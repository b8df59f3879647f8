// The composition root's wiring of the analysis lifecycle (domain/lifecycle.ts): which feature reacts to what, in the
// order they run. The pipeline announces; it names none of these, and none of them imports the pipeline for it.
import type { Services } from './context.ts';
import { announceEnded } from './domain/analysis/announce.ts';
import { onAnalysisEnded as completeBatch } from './domain/batches.ts';
import { recordUsageOf, releaseCredits, warnIfLow } from './domain/billing.ts';
import { recomputeDossiersOf } from './domain/dossiers/service.ts';
import { followUp, on } from './domain/lifecycle.ts';
import { settleLinksOf } from './domain/links/settle.ts';

let wired = false;

/** Registers every reaction, once per process (openServices calls it; several apps in one process share it). */
export function wireReactions(): void {
  if (wired) return;
  wired = true;
  const ended = ['completed', 'failed'] as const satisfies Array<'completed' | 'failed'>;
  // In the transaction that ends an analysis (or once, after it, when it has exports or a batch):
  // the webhook outbox's analysis.completed / review_required / failed, then billing's usage record.
  on([...ended], announceEnded);
  on([...ended], recordUsageOf);
  // After the commit, and after a review decision: its dossiers' verdicts are computed again (dossier.verdict_changed),
  // then the verification link attempt it may be is judged (#17). Durable: one that fails is retried by the worker.
  followUp('dossiers', [...ended, 'reviewed'], recomputeDossiersOf);
  followUp('links', [...ended, 'reviewed'], settleLinksOf);
  // Then its batch, when it was the last one (batch.completed and the batch's exports).
  on([...ended], completeBatch, 'commit');
  // Then billing's low-credit notice when the ending charged credits.
  on([...ended], warnIfLow, 'commit');
  // An analysis deleted before it finished: billing releases what it held.
  on('deleted', (s: Services, e) => releaseCredits(s.db, s, e.analysisId));
}
