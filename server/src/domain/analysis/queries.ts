import * as repo from '../../db/analyses.ts';
import type { AnalysisRow } from '../../db/schema.ts';
import type { Auth, Services } from '../../context.ts';
import { ApiError, resourceMissing } from '../../errors.ts';
import { page } from '../pagination.ts';
import type { ExportFormat } from '../../exports/index.ts';
import type { Analysis, Classification } from './presenter.ts';
import { presentWithExports } from './presenter.ts';
import { publish } from '../lifecycle.ts';

const scope = (auth: Auth) => ({ account_id: auth.account.id, livemode: auth.livemode });

const withExports = presentWithExports;

async function mustFind(s: Services, auth: Auth, kind: 'analysis' | 'classification', id: string): Promise<AnalysisRow> {
  const row = await repo.findAnalysis(s.db, scope(auth), kind, id);
  if (!row) throw resourceMissing(id);
  return row;
}

export async function getAnalysis(s: Services, auth: Auth, id: string): Promise<Analysis> {
  return (await withExports(s, await mustFind(s, auth, 'analysis', id))) as Analysis;
}

export async function getClassification(s: Services, auth: Auth, id: string): Promise<Classification> {
  return (await withExports(s, await mustFind(s, auth, 'classification', id))) as Classification;
}

export async function listAnalyses(
  s: Services,
  auth: Auth,
  q: { limit: number; starting_after?: string; status?: AnalysisRow['status']; type?: string; metadata?: Record<string, string> },
): Promise<{ data: Analysis[]; has_more: boolean }> {
  const rows = await repo.listAnalyses(s.db, scope(auth), q);
  const { rows: pageRows, hasMore } = page(rows, q.limit);
  const data: Analysis[] = [];
  for (const r of pageRows) data.push((await withExports(s, r)) as Analysis);
  return { data, has_more: hasMore };
}

/** Deletes the file, the results and the exports. */
export async function deleteAnalysis(s: Services, auth: Auth, id: string): Promise<{ id: string; object: 'analysis'; deleted: true }> {
  const row = await mustFind(s, auth, 'analysis', id);
  if (row.file_key) await s.blobs.delete(row.file_key);
  for (const e of await repo.exportsOf(s.db, row.id)) await s.blobs.delete(e.blob_key);
  await repo.deleteAnalysisRow(s.db, row.id);
  // Deleted before it finished, it will not run: what it held goes back (billing's reaction).
  await publish(s, 'deleted', { analysisId: row.id });
  return { id, object: 'analysis', deleted: true };
}

export interface FileResponse {
  bytes: Uint8Array;
  contentType: string;
  filename: string;
}

function unfinished(row: AnalysisRow): boolean {
  return row.status === 'queued' || row.status === 'processing';
}

export async function exportAnalysis(s: Services, auth: Auth, id: string, format: ExportFormat): Promise<FileResponse> {
  const row = await mustFind(s, auth, 'analysis', id);
  if (unfinished(row)) throw new ApiError(409, 'analysis_not_completed', 'El análisis aún no ha terminado; exporta cuando esté completed o failed.', 'id');
  const analysis = (await withExports(s, row)) as Analysis;
  // The export writers (xlsx, PDF, XML) load on the first export, not at start.
  const { renderAnalysisExport } = await import('../../exports/index.ts');
  const rendered = await renderAnalysisExport(format, analysis, { language: row.language, generatedAt: s.clock.now() });
  return { bytes: rendered.bytes, contentType: rendered.contentType, filename: rendered.filename };
}

const notStored = (id: string) => new ApiError(404, 'file_not_stored', 'El archivo original no está guardado (storage none) o ya se eliminó.', 'id');

/** The original, while stored. */
export async function getAnalysisFile(s: Services, auth: Auth, id: string): Promise<FileResponse> {
  const row = await mustFind(s, auth, 'analysis', id);
  const bytes = row.file_key ? await s.blobs.get(row.file_key) : null;
  if (!bytes) throw notStored(id);
  return { bytes, contentType: row.file_mime ?? 'application/octet-stream', filename: row.file_name };
}

/** GET /v1/files/{token}: a signed, expiring grant for one export or one original; no key. */
export async function downloadSignedFile(s: Services, token: string): Promise<FileResponse> {
  const grant = s.signer.verify(token, s.clock.now());
  if (!grant) throw new ApiError(404, 'resource_missing', 'El enlace no es válido o ha caducado.', 'token');
  if (grant.kind === 'export') {
    const e = await repo.findExport(s.db, grant.id);
    const bytes = e && e.expires_at.getTime() > s.clock.now().getTime() ? await s.blobs.get(e.blob_key) : null;
    if (!e || !bytes) throw new ApiError(404, 'resource_missing', 'La exportación ya no existe.', 'token');
    return { bytes, contentType: e.content_type, filename: e.filename };
  }
  const row = await repo.findAnalysisById(s.db, grant.id);
  if (!row) throw new ApiError(404, 'resource_missing', 'El análisis ya no existe.', 'token');
  const bytes = row.file_key ? await s.blobs.get(row.file_key) : null;
  if (!bytes) throw new ApiError(404, 'file_not_stored', 'El archivo original ya no está guardado.', 'token');
  return { bytes, contentType: row.file_mime ?? 'application/octet-stream', filename: row.file_name };
}
