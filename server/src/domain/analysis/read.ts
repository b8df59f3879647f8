// Stage 2 of an analysis, read (pipeline.ts runs the stages): its original in hand (a batch's file_url downloaded now),
// and what the provider of its mode reads in it: test mode's simulated reader or live mode's readers.
import type { Services } from '../../context.ts';
import * as repo from '../../db/analyses.ts';
import { spendPages } from '../../db/live-limits.ts';
import type { AnalysisRow } from '../../db/schema.ts';
import { ApiError } from '../../errors.ts';
import type { Reading } from '../../providers/types.ts';
import { maxPagesFor } from '../intake/index.ts';
import { describeFile, prepareDocument, storeOriginal, type PreparedDocument } from './intake.ts';
import { failureMessage, t } from './messages.ts';
import type { NormalisedOptions } from './options.ts';

export const today = (s: Services): string => s.clock.now().toISOString().slice(0, 10);

/** What a provider is asked to read for this analysis. */
export function readingInput(s: Services, row: Pick<AnalysisRow, 'file_name' | 'file_mime' | 'file_pages' | 'kind'>, options: NormalisedOptions, bytes: Uint8Array): Parameters<NonNullable<Services['providers']['test']>['read']>[0] {
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

type Failure = { code: string; message: string };

/**
 * The original of an analysis: in hand already (a synchronous request), downloaded now (a batch's `file_url`), or from
 * the blob store; else why the analysis fails.
 */
export async function originalOf(s: Services, row: AnalysisRow, inHand: Uint8Array | undefined): Promise<{ bytes: Uint8Array } | { error: Failure }> {
  if (inHand) return { bytes: inHand };
  if (!row.file_key && row.source_url) return fetchSource(s, row);
  const bytes = row.file_key ? await s.blobs.get(row.file_key) : null;
  if (!bytes) return { error: { code: 'processing_failed', message: t(row.language, 'failure.original_missing') } };
  return { bytes };
}

/** What the provider of the analysis's mode reads in its original; without one (live mode unconfigured), why it fails. */
export async function readDocument(s: Services, row: AnalysisRow, options: NormalisedOptions, bytes: Uint8Array): Promise<{ reading: Reading } | { error: Failure }> {
  const provider = row.livemode ? s.providers.live : s.providers.test;
  if (!provider) return { error: { code: 'processing_failed', message: t(row.language, 'failure.live_unavailable') } };
  // A reading that throws (a provider's passing failure) is retried by the job: counted as `error` (metrics.ts).
  const reading = await provider.read(readingInput(s, row, options, bytes)).catch((err: unknown) => {
    s.metrics?.reading(row.livemode, 'error', []);
    throw err;
  });
  return { reading };
}
