// An analysis from request to result, in four stages a reader can follow by name: intake (intake.ts: read the source,
// identify, inspect, store, queue), read (read.ts: the provider of its mode reads it), judge (judge.ts: checks,
// verdict, review, storage) and settle (settle.ts: store, charge, announce to the lifecycle). This file runs them: a
// synchronous request (createAnalysis), a claimed job (runClaimedJob, processAnalysis), and test mode's one-transaction
// path (analyseAtOnce).
import type { Auth, Services } from '../../context.ts';
import * as repo from '../../db/analyses.ts';
import { extendSlot, releaseSlot } from '../../db/live-limits.ts';
import type { AnalysisRow, JobRow } from '../../db/schema.ts';
import * as queue from '../../jobs/queue.ts';
import { retryWhileUnavailable } from '../../jobs/unavailable.ts';
import { ANALYSIS_QUEUE } from '../../jobs/queues.ts';
import { unavailableDependency } from '../../storage/unavailable.ts';
import { priceMilli, releaseCredits, reserveCredits } from '../billing.ts';
import { maxPagesFor } from '../intake/index.ts';
import { withDocumentMemory } from '../intake/memory-gate.ts';
import { admitLiveWork, SLOT_LEASE_MS } from '../live-limits.ts';
import {
  assertModeAvailable,
  describeFile,
  documentWeight,
  insertStaged,
  newAnalysisRow,
  prepareDocument,
  PROCESS_LEASE_MS,
  stageAnalysis,
  storeOriginal,
  type Kind,
  type PreparedDocument,
  type Source,
} from './intake.ts';
import { completedPatch, failedPatch } from './judge.ts';
import type { NormalisedOptions } from './options.ts';
import { present, presentWithExports, type Analysis, type Classification } from './presenter.ts';
import { originalOf, readDocument, readingInput } from './read.ts';
import { DONE, finish, finishFailed, forget, forgetIfFinished, onJobError, settleFinished, settleInline, type ProcessOutcome } from './settle.ts';

// The names the pipeline's callers use (routes, workers, batches, dossiers, links, tests), wherever they live.
export { ANALYSIS_QUEUE, PROCESS_LEASE_MS, present, presentWithExports };
export type { Kind, Source } from './intake.ts';
export { EXPORT_TTL_MS, forgetIfFinished, JOB_RETRY_DELAYS_MS } from './settle.ts';

/** The synchronous wait of the specification: past it the request answers 202 and work goes on. */
export const SYNC_WAIT_MS = 30_000;

export interface CreateResult {
  status: 200 | 202;
  body: Analysis | Classification;
}

/**
 * POST /v1/analyze and /v1/classify: intake, a stored original, a durable job; synchronous calls run it
 * at once and answer 200 when it ends within the 30 s wait, else 202 while it goes on.
 */
export async function createAnalysis(s: Services, auth: Auth, kind: Kind, source: Source, options: NormalisedOptions): Promise<CreateResult> {
  assertModeAvailable(s, auth);
  // The document stays in memory until the answer: it waits for its room in the process's document memory.
  return withDocumentMemory(documentWeight(source), () => analyse(s, auth, kind, source, options));
}

async function analyse(s: Services, auth: Auth, kind: Kind, source: Source, options: NormalisedOptions): Promise<CreateResult> {
  const doc = await prepareDocument(s, source, maxPagesFor({ async: options.async }));
  const atOnce = await analyseAtOnce(s, auth, kind, doc, options);
  if (atOnce) return atOnce;
  const row = await stageAnalysis(s, auth, kind, doc, options);
  const id = row.id;
  let staged: { row: AnalysisRow; job: JobRow };
  try {
    [staged] = await s.db.transaction().execute(async (trx) => {
      // Live work holds its price first (402 refuses it, and then nothing is created).
      await reserveCredits(trx, s, auth, [{ analysis_id: id, price_milli: priceMilli(kind, false), batch_id: null }]);
      // Then the live limits, under the account lock reserveCredits took: its pages, and a slot when synchronous (429).
      await admitLiveWork(trx, s, auth, { pages: doc.pages, what: 'document', ...(options.async ? {} : { syncAnalysisId: id }) });
      // A synchronous request owns its job from the moment it exists: a worker that polls right after the commit
      // must not take it (the request would then answer 202 for work done in milliseconds).
      return insertStaged(s, trx, [row], { claim: !options.async });
    });
  } catch (err) {
    await s.blobs.delete(row.file_key!);
    throw err;
  }

  if (options.async) return { status: 202, body: present(s, staged.row) };
  // Synchronous: run the job here, now, and wait for it at most the synchronous wait; past it the caller gets 202
  // and the same work goes on in this process (it is not started again, and it is charged once). The row and the
  // bytes are in hand: the job reads neither again.
  const provider = auth.livemode ? s.providers.live : s.providers.test;
  const wait = s.syncWaitMs ?? SYNC_WAIT_MS;
  // A simulated reader says how long it "took"; a real one takes it.
  // A live synchronous reading holds its slot until it ends (finish releases it), also past the wait: it still runs in
  // this process, outside the workers' bounds. Work handed to the queue (deferred, or retried) releases it here.
  const holdsSlot = auth.livemode;
  const running = runClaimedJob(s, staged.job, id, { syncBudgetMs: provider?.simulated ? wait : undefined, row: staged.row, bytes: doc.bytes, holdsSlot }).then(async (o) => {
    if (holdsSlot && o.kind !== 'done') await releaseSlot(s.db, id).catch((err) => s.logger.warn({ err, analysis: id }, 'could not release a live slot'));
    return o;
  });
  // From here the analysis exists and its job will finish it (and charge it, once) whatever happens to this request. A
  // database or store that goes away now does not make the answer a 503 ("nothing was done": the client's retry would
  // be a second analysis): the answer is 202 with the analysis as staged, the same as past the wait, and the job
  // finishes it once the dependency is back (docs/decisions.md, #31).
  let outcome: ProcessOutcome | null;
  try {
    outcome = await within(running, wait);
  } catch (err) {
    if (!unavailableDependency(err)) throw err;
    outcome = null;
  }
  if (!outcome) track(s, running.then(() => forgetIfFinished(s, id)));
  let after: AnalysisRow;
  try {
    after = outcome?.kind === 'done' && outcome.row ? outcome.row : (await repo.findAnalysisById(s.db, id))!;
  } catch (err) {
    if (!unavailableDependency(err)) throw err;
    s.logger.warn({ analysis: id, cause: String((err as Error)?.message ?? err) }, 'synchronous analysis answered 202: a dependency went away after it was accepted; its job finishes it');
    return { status: 202, body: present(s, staged.row) };
  }
  const body = await presentWithExports(s, after).catch((err: unknown) => {
    // Finished and in hand: only its exports' expiry needed the database.
    if (outcome?.kind === 'done' && unavailableDependency(err)) return present(s, after);
    throw err;
  });
  if (outcome?.kind === 'done' && !after.keep_results) await forgetSoon(s, after);
  return { status: outcome?.kind === 'done' ? 200 : 202, body };
}

/**
 * keep_results: false, once the answer holds the result: the row goes now, or, with the database away, as soon as it
 * is back (within a minute; the answer is not held for it). The result is the caller's either way.
 */
async function forgetSoon(s: Services, row: AnalysisRow): Promise<void> {
  try {
    await forget(s, row);
  } catch (err) {
    if (!unavailableDependency(err)) throw err;
    track(s, retryWhileUnavailable(s.logger, { analysis: row.id }, () => forget(s, row)));
  }
}

/**
 * A synchronous test-mode analysis, read before anything is stored and then stored already finished, in one
 * transaction with its events, their deliveries and its usage record: 1 write transaction instead of 2, no job, and
 * no original written unless its storage keeps it (#13). A crash before the commit leaves nothing behind (test mode
 * holds no credits) and the caller, who got no answer, sends it again; after the commit nothing is left to do.
 * Null when the reading must take the durable path: a simulated reading slower than the synchronous wait (it is
 * deferred to a worker), a reading that throws (the job retries it), or work that follows the end outside the database
 * (exports to render).
 */
async function analyseAtOnce(s: Services, auth: Auth, kind: Kind, doc: PreparedDocument, options: NormalisedOptions): Promise<CreateResult | null> {
  const provider = s.providers.test;
  if (auth.livemode || options.async || !provider?.simulated || (kind === 'analysis' && options.export.length > 0)) return null;
  const draft = newAnalysisRow(s, auth, kind, options, null, { file_name: doc.filename, file_key: null, source_url: null, ...describeFile(doc) });
  const reading = await provider.read(readingInput(s, draft, options, doc.bytes)).catch(() => null);
  if (!reading || reading.latencyMs > (s.syncWaitMs ?? SYNC_WAIT_MS)) return null;
  s.metrics?.reading(false, reading.failure ? 'failed' : 'completed', reading.providers);
  // The columns a finished row has that a staged one lacks (the helpers below read the row as a whole).
  const asRow = { ...draft, status: 'processing', started_at: draft.created_at, credits_milli: 0, exports: null, result: null, error: null, document_type: null, completed_at: null, file_deleted_at: null } as unknown as AnalysisRow;
  const outcome = reading.failure ? failedPatch(s, asRow, options, reading.failure) : await completedPatch(s, asRow, options, reading, doc.bytes);
  // storagePatch says `file_key: null` when the original goes at once; otherwise it is stored before the row naming it.
  const fileKey = outcome.file_key === null ? null : await storeOriginal(s, draft, doc);
  let row: AnalysisRow;
  try {
    row = await s.db.transaction().execute(async (trx) => {
      const inserted = await repo.insertFinishedAnalysis(trx, { ...draft, started_at: draft.created_at }, { ...outcome, file_key: fileKey, credits_milli: 0 });
      await settleInline(s, trx, inserted, 0);
      return inserted;
    });
  } catch (err) {
    if (fileKey) await s.blobs.delete(fileKey);
    throw err;
  }
  // Its lifecycle's commit phase has nothing to do: no dossier, link or batch can hold an analysis that did not exist
  // before this transaction (the dossier that asked for it places it itself), and test mode charges nothing.
  const body = await presentWithExports(s, row);
  if (!row.keep_results) await forgetSoon(s, row);
  return { status: 200, body };
}

/** The promise's value, or null when `ms` pass first (the promise goes on). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Work that outlived its request: shutdown (and tests) wait for it. */
function track(s: Services, work: Promise<unknown>): void {
  const p = work.catch((err) => s.logger.error({ err }, 'background analysis work failed'));
  s.inflight.add(p);
  void p.finally(() => s.inflight.delete(p));
}

/**
 * Runs a claimed analysis job to its end, keeping its lease alive meanwhile (a reading may outlast the lease; the
 * lease only lapses when this process dies, and then another worker takes the job again). Errors are the job's:
 * they schedule another attempt or fail the analysis, never the caller's request.
 */
export async function runClaimedJob(s: Services, job: JobRow, id: string, opts: Omit<ProcessOptions, 'job'> = {}): Promise<ProcessOutcome> {
  const beat = setInterval(() => {
    queue.extendLease(s.db, s.clock, job.id, PROCESS_LEASE_MS).catch((err) => s.logger.warn({ err, job: job.id }, 'could not extend a job lease'));
    if (opts.holdsSlot) extendSlot(s.db, id, new Date(s.clock.now().getTime() + SLOT_LEASE_MS)).catch((err) => s.logger.warn({ err, analysis: id }, 'could not extend a live slot'));
  }, PROCESS_LEASE_MS / 4);
  beat.unref();
  try {
    const outcome = await processAnalysis(s, id, { ...opts, job });
    if (outcome.kind === 'done' && !outcome.jobCompleted) await queue.complete(s.db, s.clock, job.id);
    else if (outcome.kind === 'deferred') await queue.defer(s.db, s.clock, job, new Date(s.clock.now().getTime() + outcome.remainingMs));
    return outcome;
  } catch (err) {
    // An unexpected error (a provider outage...) is retried in the background like any job failure.
    await onJobError(s, job, id, err);
    return { kind: 'retry' };
  } finally {
    clearInterval(beat);
  }
}

export interface ProcessOptions {
  /** A synchronous request's budget: a simulated reading slower than this is deferred to a worker. */
  syncBudgetMs?: number;
  /** The claimed job running this analysis: it is marked done in the transaction that ends the analysis. */
  job?: JobRow;
  /** The analysis and its original, when the caller has them in hand (a synchronous request): not read again. */
  row?: AnalysisRow;
  bytes?: Uint8Array;
  /** A synchronous live request's reading: its concurrency slot is kept alive while it runs (runClaimedJob). */
  holdsSlot?: boolean;
}

/**
 * Processes a claimed analysis. With a synchronous budget, a reading slower than the budget leaves the
 * analysis `processing` for a worker to finish after the rest of its time (`deferred`); otherwise it
 * ends `completed` or `failed`.
 */
export async function processAnalysis(s: Services, id: string, opts: ProcessOptions = {}): Promise<ProcessOutcome> {
  const row = opts.row ?? (await repo.findAnalysisById(s.db, id));
  if (!row) {
    // Deleted before it ran: whatever it held goes back.
    await releaseCredits(s.db, s, id);
    return DONE;
  }
  const options = row.options as unknown as NormalisedOptions;
  if (row.status === 'completed' || row.status === 'failed') {
    // Finished, yet its job ran again: the process that finished it died before the job was done. What follows the
    // end (exports, events, usage, the batch) may be missing; settle it again (each step happens once).
    await settleFinished(s, row, options, { recovering: true });
    return DONE;
  }
  if (row.status === 'queued') {
    await repo.updateAnalysis(s.db, id, { status: 'processing', started_at: s.clock.now() });
    row.status = 'processing';
  }
  // Read: its original, then what the provider of its mode reads in it.
  const original = await originalOf(s, row, opts.bytes);
  if ('error' in original) return finishFailed(s, row, options, original.error, opts.job);
  const read = await readDocument(s, row, options, original.bytes);
  if ('error' in read) return finishFailed(s, row, options, read.error, opts.job);
  const { reading } = read;
  if (opts.syncBudgetMs !== undefined && reading.latencyMs > opts.syncBudgetMs) return { kind: 'deferred', remainingMs: reading.latencyMs - opts.syncBudgetMs };
  // Counted once it ends (a deferred reading is counted when the worker finishes it).
  s.metrics?.reading(row.livemode, reading.failure ? 'failed' : 'completed', reading.providers);
  if (reading.failure) return finishFailed(s, row, options, reading.failure, opts.job);
  // Judge, then settle: completed and charged together (the held credits become the charge, exactly once).
  const patch = await completedPatch(s, row, options, reading, original.bytes);
  return finish(s, row, options, patch, { charge: true, job: opts.job });
}
