/**
 * Export formats of an analysis (GET /v1/analyses/{id}/export) and of several analyses (batch exports).
 * Pure functions: an Analysis in, bytes plus content type and file name out. No I/O.
 * Layouts are described in docs/exports.md.
 */
import {
  CONTENT_TYPES,
  EXTENSIONS,
  safeBaseName,
  type Analysis,
  type ExportFormat,
  type ExportOptions,
  type RenderedExport,
} from './common.ts';
import { renderCsv } from './csv.ts';
import { renderPdf } from './pdf.ts';
import { renderVcard } from './vcard.ts';
import { renderAnalysesXlsx, renderAnalysisXlsx } from './xlsx.ts';
import { renderXml } from './xml.ts';

export type { Analysis, ExportFormat, ExportLanguage, ExportOptions, RenderedExport } from './common.ts';
export { CONTENT_TYPES, LABELS } from './common.ts';
export { guardFormula } from './csv.ts';
export { XML_NAMESPACE } from './xml.ts';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'csv', 'xlsx', 'xml', 'vcard', 'pdf'];
export type MultiExportFormat = 'json' | 'csv' | 'xlsx';
export const MULTI_EXPORT_FORMATS: readonly MultiExportFormat[] = ['json', 'csv', 'xlsx'];

export interface MultiExportOptions extends ExportOptions {
  /** Base of the file name (for example the batch id); unsafe characters become `_`. Default `analyses`. */
  name?: string;
}

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

function json(value: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);
}

function result(format: ExportFormat, base: string, bytes: Uint8Array): RenderedExport {
  return { bytes, contentType: CONTENT_TYPES[format], filename: `${base}.${EXTENSIONS[format]}` };
}

/** Renders one analysis in `format`. Never throws for failed or minimal analyses: it renders what exists. */
export async function renderAnalysisExport(
  format: ExportFormat,
  analysis: Analysis,
  opts: ExportOptions = {},
): Promise<RenderedExport> {
  const generatedAt = opts.generatedAt ?? new Date();
  const base = safeBaseName(analysis.id, 'analysis');
  switch (format) {
    case 'json':
      return result(format, base, json(analysis));
    case 'csv':
      return result(format, base, renderCsv([analysis]));
    case 'xlsx':
      return result(format, base, await renderAnalysisXlsx(analysis, generatedAt));
    case 'xml':
      return result(format, base, renderXml(analysis));
    case 'vcard':
      return result(format, base, renderVcard(analysis, opts));
    case 'pdf':
      return result(format, base, await renderPdf(analysis, { ...opts, generatedAt }));
    default:
      throw new TypeError(`Unknown export format: ${String(format)}`);
  }
}

/**
 * Renders several analyses (a batch) in one file, one row per analysis for csv/xlsx; json is
 * `{ "object": "list", "data": [Analysis, ...] }`.
 */
export async function renderAnalysesExport(
  format: MultiExportFormat,
  analyses: Analysis[],
  opts: MultiExportOptions = {},
): Promise<RenderedExport> {
  const generatedAt = opts.generatedAt ?? new Date();
  const base = safeBaseName(opts.name, 'analyses');
  switch (format) {
    case 'json':
      return result(format, base, json({ object: 'list', data: analyses }));
    case 'csv':
      return result(format, base, renderCsv(analyses));
    case 'xlsx':
      return result(format, base, await renderAnalysesXlsx(analyses, generatedAt));
    default:
      throw new TypeError(`Format not available for several analyses: ${String(format)}`);
  }
}
