import crypto from 'node:crypto';
import { getEntry, labelOf, universalFormExpected } from '../../catalogue/index.ts';
import * as repo from '../../db/analyses.ts';
import { extendSlot, releaseSlot, spendPages } from '../../db/live-limits.ts';
import { captureCredits, priceMilli, releaseCredits, reserveCredits } from '../billing.ts';
import type { Transaction } from 'kysely';
import type { AnalysisRow, DB, JobRow } from '../../db/schema.ts';
import type { Auth, Services } from '../../context.ts';
import { ApiError } from '../../http/errors.ts';
import { newId } from '../../ids.ts';
import * as queue from '../../jobs/queue.ts';
import { ANALYSIS_QUEUE } from '../../jobs/queues.ts';
import type { Reading } from '../../providers/types.ts';
import { verifyPdfSignatures, type PdfSignatureResult } from '../../validators/pdf-signature/index.ts';
import { publish } from '../lifecycle.ts';
import { withDocumentMemory } from '../intake/memory-gate.ts';
import { admitLiveWork, SLOT_LEASE_MS } from '../live-limits.ts';
import { decodeBase64File, downloadFileUrl, filenameFromUrl, identifyUpload, inspectFile, maxPagesFor, parseFileUrl } from '../intake/index.ts';
import { runChecks, statusOf, typeReason, type Reason } from './checks.ts';
import { reviewOnFinish, storageUnchosen } from '../reviews/enter.ts';
import { failureMessage, t } from './messages.ts';
import type { NormalisedOptions } from './options.ts';
import { present, presentWithExports, toAnalysis, type Analysis, type Classification, type StoredResult } from './presenter.ts';

export { ANALYSIS_QUEUE };
/** The synchronous wait of the specification: past it the request answers 202 and work goes on. */
export const SYNC_WAIT_MS = 30_000;
/** A processing job's lease; a worker that dies loses it and another takes the job again. */
export const PROCESS_LEASE_MS = 2 * 60 * 1000;
/** Delay before another attempt of a job that threw (attempt 1, 2, ...); `maxAttempts` ends it. */
export const JOB_RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000];
const JOB_MAX_ATTEMPTS = 3;
/** Export URLs are valid 24 hours. */
export const EXPORT_TTL_MS = 24 * 3600 * 1000;

export type Kind = 'analysis' | 'classification';

/** Where the document comes from. */
export type Source =
  | { kind: 'upload'; read: () => Promise<Uint8Array>; filename: string; size: number }
  | { kind: 'base64'; value: string; filename: string | undefined }
  | { kind: 'url'; url: string; filename: string | undefined };

export interface CreateResult {
  status: 200 | 202;
  body: Analysis | Classification;
}

const today = (s: Services): string => s.clock.now().toISOString().slice(0, 10);

async function readSource(s: Services, source: Source): Promise<{ bytes: Uint8Array; filename: string; param: string }> {
  if (source.kind === 'upload') return { bytes: await source.read(), filename: source.filename || 'document', param: 'file' };
  if (source.kind === 'base64') return { bytes: decodeBase64File(source.value), filename: source.filename ?? 'document', param: 'file_base64' };
  const got = await downloadFileUrl(source.url, { allowPrivate: s.config.allowPrivateUrls, ...(s.fileUrlCa ? { ca: s.fileUrlCa } : {}) });
  return { bytes: got.bytes, filename: source.filename ?? got.filename, param: 'file_url' };
}

export { present, presentWithExports };

export function assertModeAvailable(s: Services, auth: Auth): void {
  if (auth.livemode && !s.providers.live) {
    throw new ApiError(503, 'live_mode_unavailable', 'El modo live no está disponible: no hay proveedores de IA configurados. Usa una clave de test (ck_test_).');
  }
}

/** A document read, identified and inspected: everything intake can refuse has been checked. */
export interface PreparedDocument {
  bytes: Uint8Array;
  filename: string;
  mime: string;
  pages: number;
}

export async function prepareDocument(s: Services, source: Source, maxPages: number, paramPrefix = ''): Promise<PreparedDocument> {
  // In a batch the item names the parameter (`files[].3`, `items.3.file_url`).
  const itemParam = (param: string) => (paramPrefix === '' ? param : source.kind === 'upload' ? paramPrefix.replace(/\.$/, '') : `${paramPrefix}${param}`);
  let read: Awaited<ReturnType<typeof readSource>>;
  try {
    read = await readSource(s, source);
  } catch (err) {
    // Reading itself refused it (`empty_file`, `invalid_base64`, a download error): the item's name too.
    if (err instanceof ApiError && err.param && paramPrefix !== '') throw new ApiError(err.status, err.code, err.message, itemParam(err.param), err.headers);
    throw err;
  }
  const { bytes, filename, param } = read;
  const named = itemParam(param);
  const mime = identifyUpload(bytes, named);
  const { pages } = await inspectFile(bytes, mime, { maxPages, param: named });
  return { bytes, filename, mime, pages };
}

/** Stores the original and builds the row of a new, queued analysis (the caller inserts it with its job). */
export async function stageAnalysis(
  s: Services,
  auth: Auth,
  kind: Kind,
  doc: PreparedDocument,
  options: NormalisedOptions,
  batchId: string | null = null,
): Promise<repo.NewAnalysis> {
  const row = newAnalysisRow(s, auth, kind, options, batchId, { file_name: doc.filename, file_key: null, source_url: null, ...describeFile(doc) });
  row.file_key = await storeOriginal(s, row, doc);
  return row;
}

/** What the analysis records of its file once it has it. */
function describeFile(doc: PreparedDocument): Pick<repo.NewAnalysis, 'file_mime' | 'file_pages' | 'file_size' | 'file_sha256'> {
  return { file_mime: doc.mime, file_pages: doc.pages, file_size: doc.bytes.length, file_sha256: crypto.createHash('sha256').update(doc.bytes).digest('hex') };
}

/** Stores the original of an analysis; returns its blob key. */
async function storeOriginal(s: Services, row: { account_id: string; id: string }, doc: PreparedDocument): Promise<string> {
  const key = `${row.account_id}/${row.id}/original`;
  await s.blobs.put(key, doc.bytes);
  return key;
}

type FileColumns = Pick<repo.NewAnalysis, 'file_name' | 'file_mime' | 'file_pages' | 'file_size' | 'file_sha256' | 'file_key' | 'source_url'>;

/** The row of a new, queued analysis with this file (or a batch item's URL still to fetch). */
function newAnalysisRow(s: Services, auth: Auth, kind: Kind, options: NormalisedOptions, batchId: string | null, file: FileColumns): repo.NewAnalysis {
  const now = s.clock.now();
  return {
    id: newId('analysis', now.getTime()),
    account_id: auth.account.id,
    livemode: auth.livemode,
    kind,
    batch_id: batchId,
    status: 'queued',
    language: options.language,
    options: options as unknown as Record<string, unknown>,
    metadata: options.metadata,
    keep_results: options.keep_results,
    ...file,
    storage_mode: options.storage,
    storage_expires_at: null,
    created_at: now,
  };
}

/**
 * A batch `file_url` item: its address is checked now (400 `invalid_file_url`, `param` naming the item), its download
 * is the worker's first step (see fetchSource). Until then the analysis has no file: `mime_type` null, 0 pages, 0 bytes.
 */
export function stageUrlAnalysis(
  s: Services,
  auth: Auth,
  url: string,
  filename: string | undefined,
  options: NormalisedOptions,
  batchId: string,
  param: string,
): repo.NewAnalysis {
  let parsed: URL;
  try {
    parsed = parseFileUrl(url, s.config.allowPrivateUrls).url;
  } catch (err) {
    if (err instanceof ApiError) throw new ApiError(err.status, err.code, err.message, param, err.headers);
    throw err;
  }
  return newAnalysisRow(s, auth, 'analysis', options, batchId, {
    file_name: filename ?? filenameFromUrl(parsed),
    file_mime: null,
    file_pages: 0,
    file_size: 0,
    file_sha256: null,
    file_key: null,
    source_url: url,
  });
}

/**
 * Downloads, identifies and inspects a batch item's `file_url` and stores it as the original. A document that intake
 * would have refused fails alone, with intake's code (`file_url_unreachable`, `file_too_large`, `unsupported_file_type`,
 * `too_many_pages`, `unreadable_pdf`...); other errors are the job's (another attempt later).
 */
async function fetchSource(s: Services, row: AnalysisRow): Promise<{ bytes: Uint8Array } | { error: { code: string; message: string } }> {
  let doc: PreparedDocument;
  try {
    doc = await prepareDocument(s, { kind: 'url', url: row.source_url!, filename: row.file_name }, maxPagesFor({ batch: true }));
  } catch (err) {
    // Intake's refusal, in the analysis's language (its Spanish text names the detail).
    if (err instanceof ApiError && err.status < 500) return { error: { code: err.code, message: failureMessage(row.language, err.code, err.message) } };
    throw err;
  }
  const patch = { file_key: await storeOriginal(s, row, doc), source_url: null, ...describeFile(doc) };
  await repo.updateAnalysis(s.db, row.id, patch);
  // Its batch was admitted counting it as one page: the others are read now (docs/live-mode.md, pages per minute).
  if (row.livemode && doc.pages > 1) await spendPages(s.db, row.account_id, doc.pages - 1, s.clock.now());
  Object.assign(row, patch);
  return { bytes: doc.bytes };
}

/**
 * Inserts staged analyses and their jobs in the caller's transaction; returns them as stored, in order. `claim`: the
 * jobs are born claimed by this process and the analyses `processing` (a synchronous request runs its own job; no
 * worker may take it first).
 */
export async function insertStaged(
  s: Services,
  trx: Transaction<DB>,
  rows: repo.NewAnalysis[],
  opts: { claim?: boolean } = {},
): Promise<Array<{ row: AnalysisRow; job: JobRow }>> {
  const staged: Array<{ row: AnalysisRow; job: JobRow }> = [];
  for (const r of rows) {
    const row = await repo.insertAnalysis(trx, opts.claim ? { ...r, status: 'processing', started_at: r.created_at } : r);
    const job = await queue.enqueue(trx, s.clock, ANALYSIS_QUEUE, { analysis_id: row.id }, { maxAttempts: JOB_MAX_ATTEMPTS, ...(opts.claim ? { claimedForMs: PROCESS_LEASE_MS } : {}) });
    staged.push({ row, job });
  }
  await publish(s, 'staged', { trx, rows: staged.map((x) => x.row) }, 'transaction');
  return staged;
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

/**
 * The memory a document from this source takes once read. A `file_url` is not counted: its size is unknown until
 * downloaded, and a slow server must not hold room that uploads wait for.
 */
export function documentWeight(source: Source): number {
  if (source.kind === 'upload') return source.size;
  if (source.kind === 'base64') return Math.ceil((source.value.length * 3) / 4);
  return 0;
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
  const outcome: ProcessOutcome | null = await within(running, wait);
  if (!outcome) track(s, running.then(() => forgetIfFinished(s, id)));
  const after = outcome?.kind === 'done' && outcome.row ? outcome.row : (await repo.findAnalysisById(s.db, id))!;
  const body = await presentWithExports(s, after);
  if (outcome?.kind === 'done' && !after.keep_results) await forget(s, after);
  return { status: outcome?.kind === 'done' ? 200 : 202, body };
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

/** keep_results: false, once the work that answered 202 has finished and its event carried the result. */
export async function forgetIfFinished(s: Services, id: string): Promise<void> {
  const row = await repo.findAnalysisById(s.db, id);
  if (row && !row.keep_results && (row.status === 'completed' || row.status === 'failed')) await forget(s, row);
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

/** keep_results: false — the result was handed over once (response or event); nothing of it stays. */
export async function forget(s: Services, row: AnalysisRow): Promise<void> {
  if (row.file_key) await s.blobs.delete(row.file_key);
  for (const e of await repo.exportsOf(s.db, row.id)) await s.blobs.delete(e.blob_key);
  await repo.deleteAnalysisRow(s.db, row.id);
}

function toSignature(sig: PdfSignatureResult | null): Analysis['signature'] {
  if (!sig) return null;
  return {
    status: sig.status,
    reasons: sig.reasons,
    signer: sig.signer,
    issuer: sig.issuer,
    signed_at: sig.signed_at,
    trust_anchor: sig.trust_anchor,
    trusted: sig.trusted,
    signatures: sig.signatures,
  };
}

/**
 * `expect` breaks ties (docs/live-mode.md): a national form of an expected universal type (a Spanish invoice when an
 * invoice is expected, a French passport when a passport is) is reported as the expected type, as the MRZ reader
 * already does; the evidence does not tell the caller's type apart from it.
 */
function preferExpected(reading: Reading, expect: string[] | null): Reading {
  const d = reading.document;
  if (!d || !expect || expect.includes(d.type)) return reading;
  const universal = universalFormExpected(d.type, expect);
  return universal ? { ...reading, document: { ...d, type: universal } } : reading;
}

/** Reading -> checks -> verdict -> stored result. Everything after the reading is the same in both modes. */
function buildResult(s: Services, row: AnalysisRow, options: NormalisedOptions, read: Reading, signature: PdfSignatureResult | null): StoredResult {
  const language = options.language;
  const reading = preferExpected(read, options.expect);
  const entry = reading.document ? getEntry(reading.document.type) : undefined;
  const referenceDate = options.checks.reference_date ?? today(s);
  const warnings = [...reading.warnings];
  if (signature?.edited_suspected && !warnings.includes('edited_suspected')) warnings.push('edited_suspected');
  const document = reading.document
    ? {
        type: reading.document.type,
        label: entry ? labelOf(entry.type, language) : reading.document.type,
        confidence: reading.document.confidence,
        side: reading.document.side,
        country: reading.document.country,
      }
    : null;
  const processing: StoredResult['processing'] = { profile: options.processing, region: 'eu', mode: reading.mode, providers: reading.providers };

  if (row.kind === 'classification') {
    let verdict: StoredResult['verdict'] = null;
    if (options.expect) {
      const reasons: Reason[] = [typeReason(options.expect, reading, entry, language)];
      verdict = { expected: options.expect, match: Boolean(entry && options.expect.includes(entry.type)), status: statusOf(reasons), reasons };
    }
    return { document, candidates: reading.candidates, verdict, fields: {}, checks: [], warnings, signature: null, processing };
  }

  const outcome = runChecks({ entry, reading, options, referenceDate, language, signature });
  const fields: Analysis['fields'] = {};
  for (const [name, f] of Object.entries(reading.fields)) {
    fields[name] = {
      value: f.value,
      confidence: f.confidence,
      validated: name in outcome.validated ? outcome.validated[name] : null,
      source: f.source?.bbox ? { page: f.source.page, bbox: f.source.bbox } : null,
    };
  }
  let verdict: Analysis['verdict'] = null;
  if (options.expect) {
    const reasons = [typeReason(options.expect, reading, entry, language), ...outcome.reasons];
    verdict = { expected: options.expect, match: Boolean(entry && options.expect.includes(entry.type)), status: statusOf(reasons), reasons, final_status: null };
  }
  return { document, candidates: reading.candidates, verdict, fields, checks: outcome.checks, warnings, signature: toSignature(signature), processing };
}

/**
 * After processing: what the storage option says happens to the original. Storage `review` keeps it only when the
 * analysis enters review (reviewOnFinish then sets how long); otherwise it goes at once, as with `none`.
 */
function storagePatch(now: Date, row: AnalysisRow, options: NormalisedOptions, entersReview = false): Partial<AnalysisRow> {
  // A classification never keeps its original (no route could show or delete it).
  if (row.kind === 'classification') return { file_key: null, file_deleted_at: now, storage_expires_at: null };
  // Storage nobody chose: an analysis that enters review keeps its original as storage `review` does (the reviewer
  // must see the document); reviewOnFinish sets how long.
  if (entersReview && storageUnchosen(options)) return { storage_mode: 'review' };
  if (options.storage === 'none' || (options.storage === 'review' && !entersReview)) {
    return { file_key: null, file_deleted_at: now, storage_expires_at: null };
  }
  if (options.storage === 'temporary') return { storage_expires_at: new Date(now.getTime() + options.ttl_hours * 3600 * 1000) };
  return {};
}

/**
 * done (`row`: the analysis as it ended, when known; `jobCompleted`: its job was marked done with it); deferred (a
 * simulated reading slower than the synchronous wait); retry (the attempt threw, the job runs again).
 */
export type ProcessOutcome = { kind: 'done'; row?: AnalysisRow; jobCompleted?: boolean } | { kind: 'deferred'; remainingMs: number } | { kind: 'retry' };
const DONE: ProcessOutcome = { kind: 'done' };

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
  let bytes: Uint8Array | null = opts.bytes ?? null;
  if (bytes) {
    // In hand already.
  } else if (!row.file_key && row.source_url) {
    const fetched = await fetchSource(s, row);
    if ('error' in fetched) return finishFailed(s, row, options, fetched.error, opts.job);
    bytes = fetched.bytes;
  } else if (row.file_key) bytes = await s.blobs.get(row.file_key);
  if (!bytes) return finishFailed(s, row, options, { code: 'processing_failed', message: t(row.language, 'failure.original_missing') }, opts.job);
  const provider = row.livemode ? s.providers.live : s.providers.test;
  if (!provider) return finishFailed(s, row, options, { code: 'processing_failed', message: t(row.language, 'failure.live_unavailable') }, opts.job);
  // A reading that throws (a provider's passing failure) is retried by the job: counted as `error` (metrics.ts).
  const reading = await provider.read(readingInput(s, row, options, bytes)).catch((err: unknown) => {
    s.metrics?.reading(row.livemode, 'error', []);
    throw err;
  });
  if (opts.syncBudgetMs !== undefined && reading.latencyMs > opts.syncBudgetMs) return { kind: 'deferred', remainingMs: reading.latencyMs - opts.syncBudgetMs };
  // Counted once it ends (a deferred reading is counted when the worker finishes it).
  s.metrics?.reading(row.livemode, reading.failure ? 'failed' : 'completed', reading.providers);
  if (reading.failure) return finishFailed(s, row, options, reading.failure, opts.job);
  const patch = await completedPatch(s, row, options, reading, bytes);
  // Completed and charged together: the held credits become the charge, exactly once.
  return finish(s, row, options, patch, { charge: true, job: opts.job });
}

/** What a provider is asked to read for this analysis. */
function readingInput(s: Services, row: Pick<AnalysisRow, 'file_name' | 'file_mime' | 'file_pages' | 'kind'>, options: NormalisedOptions, bytes: Uint8Array): Parameters<NonNullable<Services['providers']['test']>['read']>[0] {
  return {
    bytes,
    filename: row.file_name,
    mime: row.file_mime as never,
    pages: row.file_pages,
    kind: row.kind,
    expect: options.expect,
    extract: row.kind === 'classification' ? false : options.extract,
    language: options.language,
    holder: options.checks.holder ?? null,
    referenceDate: options.checks.reference_date ?? today(s),
    precise_bboxes: options.precise_bboxes,
  };
}

/** The columns of an analysis that completed with this reading: its result, its storage, and review if it enters it. */
async function completedPatch(s: Services, row: AnalysisRow, options: NormalisedOptions, reading: Reading, bytes: Uint8Array): Promise<Partial<AnalysisRow>> {
  // Certificate validity at the proven (time-stamp) time when there is one, else now (long-term validation);
  // revocation as COTEJO_REVOCATION_CHECK says (docs/pdf-signatures.md, "Revocation").
  const signature =
    row.file_mime === 'application/pdf' && row.kind === 'analysis'
      ? await verifyPdfSignatures(bytes, { trustStore: s.trustStore, now: s.clock.now(), revocation: { mode: s.config.revocationCheck, fetch: s.revocationFetcher?.forAnalysis() } })
      : null;
  const result = buildResult(s, row, options, reading, signature);
  // Entering human review (docs/reviews.md) is part of the same update, in the transaction that completes it.
  // One instant: entering review, an original deleted on completion and `completed_at` all say the same time.
  const now = s.clock.now();
  const review = await reviewOnFinish(s, row, options, (result.verdict as { status?: 'valid' | 'invalid' | 'review' } | null)?.status, now);
  return {
    status: 'completed' as const,
    result: result as unknown as Record<string, unknown>,
    document_type: result.document?.type ?? null,
    completed_at: now,
    ...storagePatch(now, row, options, review !== null),
    ...review,
  };
}

/** The columns of an analysis that failed with this error (not charged). */
function failedPatch(s: Services, row: AnalysisRow, options: NormalisedOptions, error: { code: string; message: string }): Partial<AnalysisRow> {
  const now = s.clock.now();
  return { status: 'failed', error: JSON.stringify(error), completed_at: now, source_url: null, ...storagePatch(now, row, options) } as Partial<AnalysisRow>;
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
  if (!row.keep_results) await forget(s, row);
  return { status: 200, body };
}

/**
 * Ends an analysis in one transaction: its reservation captured (completed) or released (failed), the row updated,
 * and, when nothing needs more than the database (no exports to render, no batch to follow), everything that follows
 * its end too: its events and their deliveries, its usage record and its job. Otherwise those follow the commit
 * (settleFinished), each once.
 */
async function finish(
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

/** The lifecycle event of an analysis that ended. */
const endedEvent = (row: AnalysisRow): 'completed' | 'failed' => (row.status === 'completed' ? 'completed' : 'failed');

/** settleFinished for an analysis with no exports and no batch: the transaction phase, inside the transaction that ended it. */
async function settleInline(s: Services, trx: Transaction<DB>, row: AnalysisRow, charged: number): Promise<void> {
  await publish(s, endedEvent(row), { row, trx, recovering: false, charged }, 'transaction');
}

/**
 * What follows the end of an analysis, completed or failed: its exports, then its lifecycle event, both phases (its
 * events, its usage record, its dossiers and link, its batch...). Each step happens once however often this runs
 * (exports only when missing, and each reaction idempotent: one event of a type per analysis, one usage record per
 * analysis, one `batch.completed`), so a job that runs again after a crash completes what the dead process left undone
 * and sends nothing twice. Returns the analysis as it then is (with its exports).
 */
async function settleFinished(s: Services, row: AnalysisRow, options: NormalisedOptions, opts: { recovering?: boolean; charged?: number } = {}): Promise<AnalysisRow> {
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

/** Failed work is not charged: what it held goes back, in the transaction that fails it. */
async function finishFailed(s: Services, row: AnalysisRow, options: NormalisedOptions, error: { code: string; message: string }, job: JobRow | undefined): Promise<ProcessOutcome> {
  return finish(s, row, options, failedPatch(s, row, options, error), { charge: false, job });
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
