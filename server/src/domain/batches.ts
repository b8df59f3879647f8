import type { components } from '../../../generated/api.d.ts';
import * as batchRepo from '../db/batches.ts';
import * as repo from '../db/analyses.ts';
import type { BatchRow } from '../db/schema.ts';
import type { Auth, Services } from '../context.ts';
import { ApiError, resourceMissing } from '../errors.ts';
import { newId } from '../ids.ts';
import { priceMilli, reserveCredits } from './billing.ts';
import { checkFileUrl, maxPagesFor, type HostResolver } from './intake/index.ts';
import { defaultResolver } from './intake/guarded-lookup.ts';
import { accountDefaults, normaliseOptions, type AnalyzeOptions, type Template } from './analysis/options.ts';
import { getTemplateForRequest } from './templates.ts';
import { toAnalysis } from './analysis/presenter.ts';
import { assertModeAvailable, documentWeight, insertStaged, prepareDocument, stageAnalysis, stageUrlAnalysis, type Source } from './analysis/intake.ts';
import { storeExport } from './analysis/settle.ts';
import { emitEvent } from './events.ts';
import { withDocumentMemory } from './intake/memory-gate.ts';
import { admitLiveWork } from './live-limits.ts';
import type { Ended } from './lifecycle.ts';

export type Batch = components['schemas']['Batch'];

export const MAX_BATCH_DOCUMENTS = 100;
/** Batch exports: every analysis of the batch, one row each. */
const BATCH_EXPORT_FORMATS = ['csv', 'xlsx'] as const;

export interface BatchItemInput {
  source: Source | null;
  /** Raw options of the item, merged over the common ones. */
  options: AnalyzeOptions | undefined;
}

/**
 * Item options over the common ones: top-level keys replace, `checks` and `metadata` merge one level
 * (an item can add one check or one metadata key without restating the rest).
 */
export function mergeOptions(common: AnalyzeOptions, item: AnalyzeOptions | undefined): AnalyzeOptions {
  if (!item) return { ...common };
  return {
    ...common,
    ...item,
    ...(common.checks || item.checks ? { checks: { ...(common.checks ?? {}), ...(item.checks ?? {}) } } : {}),
    ...(common.metadata || item.metadata ? { metadata: { ...(common.metadata ?? {}), ...(item.metadata ?? {}) } } : {}),
  };
}

function signed(s: Services, exportId: string, expires: Date): string {
  return `${s.config.baseUrl}/v1/files/${s.signer.sign({ kind: 'export', id: exportId, expires: Math.floor(expires.getTime() / 1000) })}`;
}

export async function toBatch(s: Services, row: BatchRow): Promise<Batch> {
  const counts = await batchRepo.batchCounts(s.db, row.id);
  const exports: Record<string, string> = {};
  for (const [format, exportId] of Object.entries(row.exports ?? {})) {
    const e = await repo.findExport(s.db, exportId);
    if (e && e.expires_at.getTime() > s.clock.now().getTime()) exports[format] = signed(s, exportId, e.expires_at);
  }
  return {
    id: row.id,
    object: 'batch',
    status: row.status,
    livemode: row.livemode,
    total: row.total,
    counts,
    analyses: row.analyses,
    exports,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
  };
}

/**
 * POST /v1/batches: every document in the request (upload, base64) is read and checked first, and every `file_url` is
 * checked as an address (a bad one refuses the whole batch and nothing is stored); then the batch, its analyses and
 * their jobs are created in one transaction. `file_url` items are downloaded by the worker, so the request's time does
 * not grow with the downloads: one that fails there fails that document alone (see stageUrlAnalysis).
 */
export async function createBatch(s: Services, auth: Auth, common: AnalyzeOptions, items: BatchItemInput[], itemParam: (i: number) => string): Promise<Batch> {
  if (items.length === 0) throw new ApiError(400, 'empty_batch', 'El lote no tiene documentos.', 'items');
  if (items.length > MAX_BATCH_DOCUMENTS) throw new ApiError(400, 'batch_too_large', `Un lote admite como máximo ${MAX_BATCH_DOCUMENTS} documentos (${items.length} recibidos).`, 'items');
  const defaults = accountDefaults(s, auth);
  // Templates are looked up before any document is read (one lookup per id): the batch's own `options.template`, and
  // an item's `items.N.options.template`, which replaces it for that item like any other option.
  const templates = new Map<string, Template>();
  const templateFor = async (id: string | undefined, param: string): Promise<Template | null> => {
    if (id === undefined) return null;
    if (!templates.has(id)) templates.set(id, await getTemplateForRequest(s, auth, id, param));
    return templates.get(id)!;
  };
  const commonOptions = normaliseOptions(common, 'options.', defaults, await templateFor(common.template, 'options.template'));
  const itemTemplates: Array<Template | null> = [];
  for (const [i, item] of items.entries()) {
    const own = item.options?.template;
    itemTemplates.push(await templateFor(own ?? common.template, own !== undefined ? `${itemParam(i)}.options.template` : 'options.template'));
  }
  assertModeAvailable(s, auth);

  // Every `file_url` is judged now as a download would judge it, host names resolved (in parallel, once per name):
  // one that points inside refuses the batch with 400 `invalid_file_url` naming its item (docs/intake.md).
  const urlVerdicts = judgeFileUrls(s, items);

  // One document at a time: read, checked, stored, then let go (memory holds one file whatever the batch).
  // Any refusal removes what was stored so far: a bad document refuses the whole batch.
  const now = s.clock.now();
  const batchId = newId('batch', now.getTime());
  const staged: Awaited<ReturnType<typeof stageAnalysis>>[] = [];
  try {
    for (const [i, item] of items.entries()) {
      if (!item.source) throw new ApiError(400, 'missing_file', `El documento ${i} no tiene archivo (file_url, o file_base64 y filename).`, itemParam(i));
      const options = { ...normaliseOptions(mergeOptions(common, item.options), `${itemParam(i)}.options.`, defaults, itemTemplates[i]), async: true };
      if (item.source.kind === 'url') {
        const refused = await urlVerdicts[i];
        if (refused instanceof ApiError) throw new ApiError(refused.status, refused.code, refused.message, `${itemParam(i)}.file_url`, refused.headers);
        if (refused) throw refused;
        staged.push(stageUrlAnalysis(s, auth, item.source.url, item.source.filename, options, batchId, `${itemParam(i)}.file_url`));
        continue;
      }
      const source = item.source;
      staged.push(
        await withDocumentMemory(documentWeight(source), async () => {
          const doc = await prepareDocument(s, source, maxPagesFor({ batch: true }), `${itemParam(i)}.`);
          return stageAnalysis(s, auth, 'analysis', doc, options, batchId);
        }),
      );
    }
    await s.db.transaction().execute(async (trx) => {
      // Every document covered, or 402 and nothing created.
      await reserveCredits(trx, s, auth, staged.map((r) => ({ analysis_id: r.id, price_milli: priceMilli('analysis', true), batch_id: batchId })));
      // Live pages per minute: the pages of the documents read so far, and one for each `file_url` item (its other
      // pages are counted when the worker downloads it); 429 and nothing created when the bucket cannot take them.
      await admitLiveWork(trx, s, auth, { pages: staged.reduce((n, r) => n + Math.max(1, r.file_pages), 0), what: 'batch' });
      await batchRepo.insertBatch(trx, {
        id: batchId,
        account_id: auth.account.id,
        livemode: auth.livemode,
        status: 'processing',
        total: staged.length,
        analyses: staged.map((r) => r.id),
        metadata: commonOptions.metadata,
        language: commonOptions.language,
        created_at: now,
      });
      await insertStaged(s, trx, staged);
    });
  } catch (err) {
    for (const r of staged) if (r.file_key) await s.blobs.delete(r.file_key);
    throw err;
  }
  return toBatch(s, (await batchRepo.findBatchById(s.db, batchId))!);
}

/**
 * Starts judging every `file_url` item at once (checkFileUrl: shape, literal address, and the addresses a host name
 * resolves to), each name asked once; each promise answers the item's refusal, or null when it may be downloaded.
 */
function judgeFileUrls(s: Services, items: BatchItemInput[]): Array<Promise<Error | null> | null> {
  const answers = new Map<string, ReturnType<HostResolver>>();
  const lookup: HostResolver = (host) => {
    if (!answers.has(host)) answers.set(host, defaultResolver(host));
    return answers.get(host)!;
  };
  return items.map((item) =>
    item.source?.kind === 'url'
      ? checkFileUrl(item.source.url, { allowPrivate: s.config.allowPrivateUrls, lookup }).then(
          () => null,
          // Settled as a value, never a rejection: an earlier item may refuse the batch before this one is awaited.
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        )
      : null,
  );
}

export async function getBatch(s: Services, auth: Auth, id: string): Promise<Batch> {
  const row = await batchRepo.findBatch(s.db, { account_id: auth.account.id, livemode: auth.livemode }, id);
  if (!row) throw resourceMissing(id);
  return toBatch(s, row);
}

/**
 * Called when an analysis of a batch reaches `completed` or `failed`: the last one completes the batch (exactly once,
 * even with several workers: a conditional update), renders its exports and sends `batch.completed`. `recovering`: the
 * job of a finished analysis ran again after its process died; if that process had completed the batch but not sent
 * the event, this finishes it (the event is written once per batch whatever happens).
 */
export async function onBatchAnalysisFinished(s: Services, batchId: string, opts: { recovering?: boolean } = {}): Promise<void> {
  const counts = await batchRepo.batchCounts(s.db, batchId);
  if (counts.queued + counts.processing > 0) return;
  const won = await batchRepo.markBatchCompleted(s.db, batchId, s.clock.now());
  if (!won && !opts.recovering) return; // another worker completes it now
  const batch = (await batchRepo.findBatchById(s.db, batchId))!;
  if (Object.keys(batch.exports ?? {}).length === 0) {
    const rows = await batchRepo.analysesOfBatch(s.db, batchId);
    const analyses = rows.map((r) => toAnalysis(s, r));
    const map: Record<string, string> = {};
    for (const format of BATCH_EXPORT_FORMATS) {
      const { renderAnalysesExport } = await import('../exports/index.ts');
      const rendered = await renderAnalysesExport(format, analyses, { language: batch.language, generatedAt: s.clock.now(), name: batchId });
      const exportId = await storeExport(s, { analysis_id: null, batch_id: batchId }, `${batch.account_id}/batches/${batchId}`, format, rendered);
      map[format] = exportId;
    }
    await batchRepo.setBatchExports(s.db, batchId, map);
  }
  const done = (await batchRepo.findBatchById(s.db, batchId))!;
  await emitEvent(s, { account_id: done.account_id, livemode: done.livemode }, 'batch.completed', await toBatch(s, done), { subject: batchId });
}

/** The batches' reaction to an analysis that ended (registered at the composition root): its batch may be complete. */
export async function onAnalysisEnded(s: Services, { row, recovering }: Ended): Promise<void> {
  if (row.batch_id) await onBatchAnalysisFinished(s, row.batch_id, { recovering });
}
