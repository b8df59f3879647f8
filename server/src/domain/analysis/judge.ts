// Stage 3 of an analysis, judge (pipeline.ts runs the stages): from a reading to the stored result, the same in both
// modes: the PDF signatures, the checks, the verdict, whether it enters human review, and what its storage keeps.
import type { Services } from '../../context.ts';
import { getEntry, labelOf, universalFormExpected } from '../../catalogue/index.ts';
import type { AnalysisRow } from '../../db/schema.ts';
import type { Reading } from '../../providers/types.ts';
import { verifyPdfSignatures, type PdfSignatureResult } from '../../validators/pdf-signature/index.ts';
import { runChecks, statusOf, type Reason } from './checks.ts';
import { typeReason } from './expected-type.ts';
import type { NormalisedOptions } from './options.ts';
import type { Analysis, StoredResult } from './presenter.ts';
import { reviewOnFinish, storageUnchosen } from './review-entry.ts';
import { today } from './read.ts';

/** The columns of an analysis that completed with this reading: its result, its storage, and review if it enters it. */
export async function completedPatch(s: Services, row: AnalysisRow, options: NormalisedOptions, reading: Reading, bytes: Uint8Array): Promise<Partial<AnalysisRow>> {
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
export function failedPatch(s: Services, row: AnalysisRow, options: NormalisedOptions, error: { code: string; message: string }): Partial<AnalysisRow> {
  const now = s.clock.now();
  return { status: 'failed', error: JSON.stringify(error), completed_at: now, source_url: null, ...storagePatch(now, row, options) } as Partial<AnalysisRow>;
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
