// Stage 4 of an analysis, settle (pipeline.ts runs the stages): the result stored and charged (or the held credits
// released) in the transaction that ends it, its exports rendered, and its end announced to the lifecycle
// (domain/lifecycle.ts), whose subscribers do the rest: events, usage, dossiers, links, batches (reactions.ts).
import type { Transaction } from 'kysely';
import type { Services } from '../../context.ts';
import * as repo from '../../db/analyses.ts';
import { releaseSlot } from '../../db/live-limits.ts';
import type { AnalysisRow, DB, JobRow } from '../../db/schema.ts';
import { newId } from '../../ids.ts';
import * as queue from '../../jobs/queue.ts';
import { deferIfUnavailable } from '../../jobs/unavailable.ts';
import { captureCredits, releaseCredits } from '../billing.ts';
import { publish } from '../lifecycle.ts';
import { failedPatch } from './judge.ts';
import { t } from './messages.ts';
import type { NormalisedOptions } from './options.ts';
import { toAnalysis } from './presenter.ts';

/** Export URLs are valid 24 hours. */
export const EXPORT_TTL_MS = 24 * 3600 * 1000;

/** Delay before another attempt of a job that threw (attempt 1, 2, ...); `maxAttempts` ends it. */
export const JOB_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];

/**
 * done (`row`: the analysis as it ended, when known; `jobCompleted`: its job was marked done with it); deferred (a
 * simulated reading slower than the synchronous wait); retry (the attempt threw, the job runs again).
 */
export type ProcessOutcome = { kind: 'done'; row?: AnalysisRow; jobCompleted?: boolean } | { kind: 'deferred'; remainingMs: number } | { kind: 'retry' };

export const DONE: ProcessOutcome = { kind: 'done' };

/**
 * Ends an analysis in one transaction: its reservation captured (completed) or released (failed), the row updated,
 * and, when nothing needs more than the database (no exports to render, no batch to follow), everything that follows
 * its end too: its events and their deliveries, its usage record and its job. Otherwise those follow the commit
 * (settleFinished), each once.
 */
export async function finish(
  s: Services,
  row: AnalysisRow,
  options: NormalisedOptions,
  patch: Partial<AnalysisRow>,
  opts: { charge: boolean; job: JobRow | undefined },
): Promise<ProcessOutcome> {
  const inline = !row.batch_id && (row.kind !== 'analysis' || options.export.length === 0);
  const { done, charged } = await s.db.transaction().execute(async (trx) => {
    // Test mode never holds credits: nothing to capture or release.
    let milli = 0;
    if (row.livemode) {
      if (opts.charge) milli = await captureCredits(trx, s, row.id);
      else await releaseCredits(trx, s, row.id);
      // A synchronous analysis's concurrency slot ends with its reading.
      if (!row.batch_id && !options.async) await releaseSlot(trx, row.id);
    }
    const updated = await repo.updateAnalysisReturning(trx, row.id, { ...patch, credits_milli: milli } as never);
    if (updated && inline) {
      await settleInline(s, trx, updated, milli);
      if (opts.job) await queue.complete(trx, s.clock, opts.job.id);
    }
    return { done: updated, charged: milli };
  });
  if (patch.file_key === null && row.file_key) await s.blobs.delete(row.file_key);
  if (!done) return DONE; // deleted while it ran (DELETE released its credits)
  // What follows its commit (its dossiers and link judged again, its batch, a low-credit notice); settleFinished
  // announces both phases itself.
  const final = inline ? done : await settleFinished(s, done, options, { charged });
  if (inline) await publish(s, endedEvent(done), { row: done, trx: null, recovering: false, charged }, 'commit');
  return { kind: 'done', row: final, jobCompleted: inline && opts.job !== undefined };
}

/** Failed work is not charged: what it held goes back, in the transaction that fails it. */
export async function finishFailed(s: Services, row: AnalysisRow, options: NormalisedOptions, error: { code: string; message: string }, job: JobRow | undefined): Promise<ProcessOutcome> {
  return finish(s, row, options, failedPatch(s, row, options, error), { charge: false, job });
}

/** The lifecycle event of an analysis that ended. */
const endedEvent = (row: AnalysisRow): 'completed' | 'failed' => (row.status === 'completed' ? 'completed' : 'failed');

/** settleFinished for an analysis with no exports and no batch: the transaction phase, inside the transaction that ended it. */
export async function settleInline(s: Services, trx: Transaction<DB>, row: AnalysisRow, charged: number): Promise<void> {
  await publish(s, endedEvent(row), { row, trx, recovering: false, charged }, 'transaction');
}

/**
 * What follows the end of an analysis, completed or failed: its exports, then its lifecycle event, both phases (its
 * events, its usage record, its dossiers and link, its batch...). Each step happens once however often this runs
 * (exports only when missing, and each reaction idempotent: one event of a type per analysis, one usage record per
 * analysis, one `batch.completed`), so a job that runs again after a crash completes what the dead process left undone
 * and sends nothing twice. Returns the analysis as it then is (with its exports).
 */
export async function settleFinished(s: Services, row: AnalysisRow, options: NormalisedOptions, opts: { recovering?: boolean; charged?: number } = {}): Promise<AnalysisRow> {
  // The row carries its export ids once they exist: read it again only when they were just made.
  const final = row.status === 'completed' && (await createExports(s, row, options)) ? (await repo.findAnalysisById(s.db, row.id))! : row;
  await publish(s, endedEvent(final), { row: final, trx: null, recovering: opts.recovering ?? false, charged: opts.charged ?? 0 });
  return final;
}

/**
 * A job that threw: another attempt later, or, when its attempts are spent, the analysis fails
 * (`processing_failed`, `analysis.failed`, nothing charged) unless it had already finished.
 */
export async function onJobError(s: Services, job: JobRow, id: string, err: unknown): Promise<void> {
  // The store or the database away: the job waits for it, spending no attempt (jobs/unavailable.ts).
  if (await deferIfUnavailable(s, job, err, { analysis: id })) return;
  s.logger.error({ err, job: job.id, analysis: id }, 'analysis job failed');
  const delay = JOB_RETRY_DELAYS_MS[Math.min(job.attempts - 1, JOB_RETRY_DELAYS_MS.length - 1)];
  if ((await queue.fail(s.db, s.clock, job, String((err as Error)?.message ?? err), delay)) !== 'failed') return;
  const row = await repo.findAnalysisById(s.db, id);
  if (!row) {
    await releaseCredits(s.db, s, id);
    return;
  }
  if (row.status === 'completed' || row.status === 'failed') return;
  await finishFailed(s, row, row.options as unknown as NormalisedOptions, { code: 'processing_failed', message: t(row.language, 'failure.processing_failed') }, undefined);
}

/** The `export` option: each format rendered once, stored, and offered through a signed URL for 24 h. True when made now. */
async function createExports(s: Services, row: AnalysisRow, options: NormalisedOptions): Promise<boolean> {
  // None asked for, or already made (a job that runs again after a crash).
  if (row.kind !== 'analysis' || options.export.length === 0 || Object.keys(row.exports ?? {}).length > 0) return false;
  const { renderAnalysisExport } = await import('../../exports/index.ts');
  const analysis = toAnalysis(s, row);
  const map: Record<string, string> = {};
  for (const format of options.export) {
    const rendered = await renderAnalysisExport(format, analysis, { language: options.language, generatedAt: s.clock.now() });
    const exportId = await storeExport(s, { analysis_id: row.id, batch_id: null }, `${row.account_id}/${row.id}`, format, rendered);
    map[format] = exportId;
  }
  await repo.updateAnalysis(s.db, row.id, { exports: JSON.stringify(map) } as never);
  return true;
}

/** Stores a rendered export for 24 h under `keyPrefix` and returns its `exp_` id (for a signed URL). */
export async function storeExport(
  s: Services,
  owner: { analysis_id: string | null; batch_id: string | null },
  keyPrefix: string,
  format: string,
  rendered: { bytes: Uint8Array; contentType: string; filename: string },
): Promise<string> {
  const exportId = newId('export', s.clock.now().getTime());
  const blobKey = `${keyPrefix}/exports/${exportId}`;
  await s.blobs.put(blobKey, rendered.bytes);
  await repo.insertExport(s.db, {
    id: exportId,
    ...owner,
    format,
    blob_key: blobKey,
    content_type: rendered.contentType,
    filename: rendered.filename,
    created_at: s.clock.now(),
    expires_at: new Date(s.clock.now().getTime() + EXPORT_TTL_MS),
  });
  return exportId;
}

/** keep_results: false — the result was handed over once (response or event); nothing of it stays. */
export async function forget(s: Services, row: AnalysisRow): Promise<void> {
  if (row.file_key) await s.blobs.delete(row.file_key);
  for (const e of await repo.exportsOf(s.db, row.id)) await s.blobs.delete(e.blob_key);
  await repo.deleteAnalysisRow(s.db, row.id);
}

/** keep_results: false, once the work that answered 202 has finished and its event carried the result. */
export async function forgetIfFinished(s: Services, id: string): Promise<void> {
  const row = await repo.findAnalysisById(s.db, id);
  if (row && !row.keep_results && (row.status === 'completed' || row.status === 'failed')) await forget(s, row);
}
