// Stage 1 of an analysis, intake (pipeline.ts runs the stages): the document is read from its source (upload, base64,
// file_url), identified and inspected (everything intake can refuse is refused here), its original stored, and the
// queued analysis and its job inserted; a batch stages its documents through the same functions.
import crypto from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Auth, Services } from '../../context.ts';
import * as repo from '../../db/analyses.ts';
import type { AnalysisRow, DB, JobRow } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import * as queue from '../../jobs/queue.ts';
import { ANALYSIS_QUEUE } from '../../jobs/queues.ts';
import { decodeBase64File, downloadFileUrl, filenameFromUrl, identifyUpload, inspectFile, parseFileUrl } from '../intake/index.ts';
import { publish } from '../lifecycle.ts';
import type { NormalisedOptions } from './options.ts';

export type Kind = 'analysis' | 'classification';

/** Where the document comes from. */
export type Source =
  | { kind: 'upload'; read: () => Promise<Uint8Array>; filename: string; size: number }
  | { kind: 'base64'; value: string; filename: string | undefined }
  | { kind: 'url'; url: string; filename: string | undefined };

async function readSource(s: Services, source: Source): Promise<{ bytes: Uint8Array; filename: string; param: string }> {
  if (source.kind === 'upload') return { bytes: await source.read(), filename: source.filename || 'document', param: 'file' };
  if (source.kind === 'base64') return { bytes: decodeBase64File(source.value), filename: source.filename ?? 'document', param: 'file_base64' };
  const got = await downloadFileUrl(source.url, { allowPrivate: s.config.allowPrivateUrls, ...(s.fileUrlCa ? { ca: s.fileUrlCa } : {}) });
  return { bytes: got.bytes, filename: source.filename ?? got.filename, param: 'file_url' };
}

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
  // Async work and batch documents can wait for a store that is away; a synchronous request answers 503 instead.
  row.file_key = await storeOriginal(s, row, doc, { canWait: options.async || batchId !== null });
  return row;
}

/** What the analysis records of its file once it has it. */
export function describeFile(doc: PreparedDocument): Pick<repo.NewAnalysis, 'file_mime' | 'file_pages' | 'file_size' | 'file_sha256'> {
  return { file_mime: doc.mime, file_pages: doc.pages, file_size: doc.bytes.length, file_sha256: crypto.createHash('sha256').update(doc.bytes).digest('hex') };
}

/** Stores the original of an analysis; returns its blob key. */
export async function storeOriginal(s: Services, row: { account_id: string; id: string }, doc: PreparedDocument, opts: { canWait?: boolean } = {}): Promise<string> {
  const key = `${row.account_id}/${row.id}/original`;
  await s.blobs.put(key, doc.bytes, opts);
  return key;
}

type FileColumns = Pick<repo.NewAnalysis, 'file_name' | 'file_mime' | 'file_pages' | 'file_size' | 'file_sha256' | 'file_key' | 'source_url'>;

/** The row of a new, queued analysis with this file (or a batch item's URL still to fetch). */
export function newAnalysisRow(s: Services, auth: Auth, kind: Kind, options: NormalisedOptions, batchId: string | null, file: FileColumns): repo.NewAnalysis {
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
 * The memory a document from this source takes once read. A `file_url` is not counted: its size is unknown until
 * downloaded, and a slow server must not hold room that uploads wait for.
 */
export function documentWeight(source: Source): number {
  if (source.kind === 'upload') return source.size;
  if (source.kind === 'base64') return Math.ceil((source.value.length * 3) / 4);
  return 0;
}

/** A processing job's lease; a worker that dies loses it and another takes the job again. */
export const PROCESS_LEASE_MS = 2 * 60 * 1000;

export const JOB_MAX_ATTEMPTS = 3;
