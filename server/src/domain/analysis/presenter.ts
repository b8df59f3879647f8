import type { components } from '../../../../generated/api.d.ts';
import * as repo from '../../db/analyses.ts';
import type { AnalysisRow } from '../../db/schema.ts';
import type { Services } from '../../context.ts';
import { finalStatusOf, reviewOf, reviewStorageExtras } from '../reviews/present.ts';

export type Analysis = components['schemas']['Analysis'];
export type Classification = components['schemas']['Classification'];

/** Signed original-file URLs last 15 minutes; export URLs until the export expires (24 h). */
export const FILE_URL_TTL_MS = 15 * 60 * 1000;

/** The computed part of an analysis, stored as JSON once processing ends. */
export interface StoredResult {
  document: Analysis['document'];
  candidates: Classification['candidates'];
  verdict: Analysis['verdict'] | Classification['verdict'];
  fields: Analysis['fields'];
  checks: Analysis['checks'];
  warnings: Analysis['warnings'];
  signature: Analysis['signature'];
  processing: Analysis['processing'];
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function fileInfo(row: AnalysisRow): Analysis['file'] {
  return { name: row.file_name, mime_type: row.file_mime, pages: row.file_pages, size_bytes: row.file_size };
}

function signedUrl(s: Services, kind: 'export' | 'file', id: string, expires: Date): string {
  return `${s.config.baseUrl}/v1/files/${s.signer.sign({ kind, id, expires: Math.floor(expires.getTime() / 1000) })}`;
}

/** Row to the Analysis resource, exactly as the API returns it. */
export function toAnalysis(s: Services, row: AnalysisRow, exportsById: Record<string, Date> = {}): Analysis {
  const r = (row.result ?? null) as StoredResult | null;
  const exports: Record<string, string> = {};
  for (const [format, exportId] of Object.entries(row.exports ?? {})) {
    const expires = exportsById[exportId];
    if (expires && expires.getTime() > s.clock.now().getTime()) exports[format] = signedUrl(s, 'export', exportId, expires);
  }
  const out: Analysis = {
    id: row.id,
    object: 'analysis',
    status: row.status,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    completed_at: iso(row.completed_at),
    file: fileInfo(row),
    document: r?.document ?? null,
    // `final_status` is the human decision's (null while pending or without review), not what was stored.
    verdict: r?.verdict ? { ...(r.verdict as NonNullable<Analysis['verdict']>), final_status: finalStatusOf(row) } : null,
    fields: r?.fields ?? {},
    checks: r?.checks ?? [],
    warnings: r?.warnings ?? [],
    signature: r?.signature ?? null,
    exports,
    storage: {
      mode: row.storage_mode,
      file_deleted_at: iso(row.file_deleted_at),
      expires_at: iso(row.storage_expires_at),
      ...reviewStorageExtras(row),
    },
    processing: r?.processing ?? null,
    usage: { credits: row.credits_milli / 1000, pages: row.file_pages },
    metadata: row.metadata,
    review: reviewOf(row),
  };
  if (row.batch_id) out.batch_id = row.batch_id;
  if (row.status === 'failed' && row.error) out.error = row.error;
  if (row.file_key) out.file_url = signedUrl(s, 'file', row.id, new Date(s.clock.now().getTime() + FILE_URL_TTL_MS));
  return out;
}

/** Row to the Classification resource. */
export function toClassification(row: AnalysisRow): Classification {
  const r = (row.result ?? null) as StoredResult | null;
  const out: Classification = {
    id: row.id,
    object: 'classification',
    status: row.status,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    completed_at: iso(row.completed_at),
    file: fileInfo(row),
    document: r?.document ? { type: r.document.type, label: r.document.label, confidence: r.document.confidence } : null,
    candidates: r?.candidates ?? [],
    verdict: (r?.verdict as Classification['verdict']) ?? null,
    warnings: r?.warnings ?? [],
    processing: r?.processing ?? null,
    usage: { credits: row.credits_milli / 1000, pages: row.file_pages },
    metadata: row.metadata,
  };
  if (row.status === 'failed' && row.error) out.error = row.error;
  return out;
}

/** An analysis or a classification as the API shows it (`exportExpiry`: when each of its exports' links expire). */
export function present(s: Services, row: AnalysisRow, exportExpiry: Record<string, Date> = {}): Analysis | Classification {
  return row.kind === 'classification' ? toClassification(row) : toAnalysis(s, row, exportExpiry);
}

export async function presentWithExports(s: Services, row: AnalysisRow): Promise<Analysis | Classification> {
  if (row.kind === 'classification' || Object.keys(row.exports ?? {}).length === 0) return present(s, row);
  const expiry = Object.fromEntries((await repo.exportsOf(s.db, row.id)).map((e) => [e.id, e.expires_at]));
  return present(s, row, expiry);
}
