/**
 * Shared helpers of the export renderers: types, value rendering, the flat (one row per analysis) layout shared by
 * CSV and the multi-analysis XLSX sheet, and the small label dictionary of the PDF report.
 * Everything here is pure: no I/O.
 */
import type { components } from '../../../generated/api.d.ts';

export type Analysis = components['schemas']['Analysis'];
export type Field = components['schemas']['Field'];

export type ExportFormat = 'json' | 'csv' | 'xlsx' | 'xml' | 'vcard' | 'pdf';
export type ExportLanguage = 'es' | 'en' | 'pt' | 'fr';

export interface RenderedExport {
  bytes: Uint8Array;
  contentType: string;
  filename: string;
}

export interface ExportOptions {
  /** Language of the human-readable labels (PDF report, vCard note). Default `es`. */
  language?: ExportLanguage;
  /** Generation time written in the PDF footer and document properties. Default: now. */
  generatedAt?: Date;
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json',
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xml: 'application/xml',
  vcard: 'text/vcard; charset=utf-8',
  pdf: 'application/pdf',
};

export const EXTENSIONS: Record<ExportFormat, string> = {
  json: 'json',
  csv: 'csv',
  xlsx: 'xlsx',
  xml: 'xml',
  vcard: 'vcf',
  pdf: 'pdf',
};

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ]\d{2}:\d{2}/;

/** Separator of list values inside one text cell (expected types, warnings, checks, array field values). */
export const LIST_SEPARATOR = '|';

/** A field whose name says it holds a date (catalogue convention: every date field ends in `_date`). */
export function isDateFieldName(name: string): boolean {
  return name.endsWith('_date') || name.startsWith('fecha_') || name === 'fecha';
}

/**
 * The calendar date a field value stands for, as `YYYY-MM-DD`, or null when it is not a date.
 * A plain `YYYY-MM-DD` string always counts; a date-time string counts only for date-named fields, and then the
 * date as written is kept (no time-zone shift: the document shows that date).
 */
export function fieldDate(name: string, value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  let m = DATE_ONLY.exec(v);
  if (!m && isDateFieldName(name)) m = DATE_TIME.exec(v);
  if (!m) return null;
  const [, y, mo, d] = m;
  const t = Date.UTC(Number(y), Number(mo) - 1, Number(d));
  const back = new Date(t);
  if (Number.isNaN(t) || back.getUTCMonth() !== Number(mo) - 1 || back.getUTCDate() !== Number(d)) return null;
  return `${y}-${mo}-${d}`;
}

/** `YYYY-MM-DD` as a UTC-midnight Date (what spreadsheet date cells need). */
export function dateOnlyToDate(ymd: string): Date {
  const [y, m, d] = ymd.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d));
}

/** An ISO 8601 date-time string as a Date, or null when absent or unparseable. */
export function parseTimestamp(value: string | null | undefined): Date | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t);
}

/** Any JSON value as one line of text: dates as YYYY-MM-DD, arrays joined with `|`, objects as JSON. */
export function valueText(value: unknown, name = ''): string {
  if (value === null || value === undefined) return '';
  const date = fieldDate(name, value);
  if (date) return date;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return value.map((v) => valueText(v)).join(LIST_SEPARATOR);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/** Filesystem- and header-safe base name (used for the multi-analysis export name). */
export function safeBaseName(name: string | undefined, fallback: string): string {
  const cleaned = (name ?? '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 120);
  return cleaned || fallback;
}

/** `2025-03-14T10:21:07.000Z` -> `2025-03-14 10:21:07 UTC`. */
export function humanTimestamp(value: string | Date | null | undefined): string {
  if (!value) return '';
  const d = value instanceof Date ? value : parseTimestamp(value);
  if (!d) return String(value);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/* ------------------------------------------------------------------------------------------------------------------
 * Flat layout: one row per analysis (CSV and the "Analyses" sheet of the multi-analysis XLSX).
 * ---------------------------------------------------------------------------------------------------------------- */

export const FIXED_COLUMNS = [
  'id',
  'status',
  'created_at',
  'completed_at',
  'file_name',
  'document_type',
  'document_label',
  'document_confidence',
  'document_country',
  'verdict_status',
  'verdict_final_status',
  'expected_types',
  'warnings',
  'checks',
] as const;

export const FIELD_COLUMN_PREFIX = 'fields.';
export const METADATA_COLUMN_PREFIX = 'metadata.';

/** A typed flat cell: strings, numbers, booleans, timestamps (`datetime`), calendar dates (`date`) or empty. */
export type FlatCell =
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'datetime'; value: string }
  | { kind: 'date'; value: string }
  | { kind: 'empty' };

export interface FlatTable {
  columns: string[];
  rows: FlatCell[][];
}

const text = (value: string | null | undefined): FlatCell =>
  value === null || value === undefined || value === '' ? { kind: 'empty' } : { kind: 'text', value };
const num = (value: number | null | undefined): FlatCell =>
  typeof value === 'number' && Number.isFinite(value) ? { kind: 'number', value } : { kind: 'empty' };
const datetime = (value: string | null | undefined): FlatCell => (value ? { kind: 'datetime', value } : { kind: 'empty' });

function fieldCell(name: string, field: Field | undefined): FlatCell {
  if (!field) return { kind: 'empty' };
  const value = field.value;
  const date = fieldDate(name, value);
  if (date) return { kind: 'date', value: date };
  if (typeof value === 'number') return num(value);
  return text(valueText(value, name));
}

/** Union of keys in first-seen order. */
function unionKeys(objects: Array<Record<string, unknown> | null | undefined>): string[] {
  const seen = new Set<string>();
  for (const o of objects) for (const k of Object.keys(o ?? {})) seen.add(k);
  return [...seen];
}

export function flattenAnalyses(analyses: Analysis[]): FlatTable {
  const fieldNames = unionKeys(analyses.map((a) => a.fields));
  const metadataKeys = unionKeys(analyses.map((a) => a.metadata));
  const columns = [
    ...FIXED_COLUMNS,
    ...fieldNames.map((n) => FIELD_COLUMN_PREFIX + n),
    ...metadataKeys.map((k) => METADATA_COLUMN_PREFIX + k),
  ];
  const rows = analyses.map((a): FlatCell[] => [
    text(a.id),
    text(a.status),
    datetime(a.created_at),
    datetime(a.completed_at),
    text(a.file?.name),
    text(a.document?.type),
    text(a.document?.label),
    num(a.document?.confidence),
    text(a.document?.country),
    text(a.verdict?.status),
    text(a.verdict?.final_status),
    text((a.verdict?.expected ?? []).join(LIST_SEPARATOR)),
    text((a.warnings ?? []).join(LIST_SEPARATOR)),
    text((a.checks ?? []).map((c) => `${c.code}=${c.passed ? 'true' : 'false'}`).join(LIST_SEPARATOR)),
    ...fieldNames.map((n) => fieldCell(n, a.fields?.[n])),
    ...metadataKeys.map((k) => text(a.metadata?.[k])),
  ]);
  return { columns, rows };
}

/* ------------------------------------------------------------------------------------------------------------------
 * Labels of the human-readable outputs (PDF report, vCard note).
 * ---------------------------------------------------------------------------------------------------------------- */

export interface Labels {
  title: string;
  analysis: string;
  created: string;
  completed: string;
  file: string;
  pages: string;
  /** "1 page" (the singular of `pages`). */
  page: string;
  document: string;
  type: string;
  confidence: string;
  country: string;
  status: string;
  verdict: string;
  finalStatus: string;
  expected: string;
  noVerdict: string;
  reasons: string;
  fields: string;
  field: string;
  value: string;
  validated: string;
  noFields: string;
  checks: string;
  passed: string;
  failed: string;
  warnings: string;
  signature: string;
  signer: string;
  issuer: string;
  signedAt: string;
  trusted: string;
  error: string;
  metadata: string;
  yes: string;
  no: string;
  more: (n: number) => string;
  generated: string;
  documentNumber: string;
  none: string;
  /** The words of the API's status values (analysis, verdict, reason severity, PDF signature), by value. */
  statuses: Record<string, string>;
  verdicts: Record<string, string>;
  severities: Record<string, string>;
  signatures: Record<string, string>;
}

export const LABELS: Record<ExportLanguage, Labels> = {
  es: {
    title: 'Cotejo — informe de análisis',
    analysis: 'Análisis',
    created: 'Creado',
    completed: 'Completado',
    file: 'Archivo',
    pages: 'páginas',
    page: 'página',
    document: 'Documento',
    type: 'Tipo',
    confidence: 'Confianza',
    country: 'País',
    status: 'Estado',
    verdict: 'Veredicto',
    finalStatus: 'Estado final',
    expected: 'Tipos esperados',
    noVerdict: 'Sin veredicto (no se indicaron tipos esperados).',
    reasons: 'Motivos',
    fields: 'Campos extraídos',
    field: 'Campo',
    value: 'Valor',
    validated: 'Validado',
    noFields: 'No se extrajeron campos.',
    checks: 'Comprobaciones',
    passed: 'correcta',
    failed: 'fallida',
    warnings: 'Avisos',
    signature: 'Firma PDF',
    signer: 'Firmante',
    issuer: 'Emisor',
    signedAt: 'Firmado',
    trusted: 'De confianza',
    error: 'Error',
    metadata: 'Metadatos',
    yes: 'sí',
    no: 'no',
    more: (n) => `… y ${n} más`,
    generated: 'Generado el',
    documentNumber: 'número',
    none: 'ninguno',
    statuses: { queued: 'en cola', processing: 'en proceso', completed: 'completado', failed: 'fallido' },
    verdicts: { valid: 'válido', invalid: 'no válido', review: 'revisión' },
    severities: { info: 'info', warning: 'aviso', error: 'error' },
    signatures: { valid: 'válida', invalid: 'no válida', missing: 'ausente', untrusted: 'no confiable', modified: 'modificada' },
  },
  en: {
    title: 'Cotejo — analysis report',
    analysis: 'Analysis',
    created: 'Created',
    completed: 'Completed',
    file: 'File',
    pages: 'pages',
    page: 'page',
    document: 'Document',
    type: 'Type',
    confidence: 'Confidence',
    country: 'Country',
    status: 'Status',
    verdict: 'Verdict',
    finalStatus: 'Final status',
    expected: 'Expected types',
    noVerdict: 'No verdict (no expected types were given).',
    reasons: 'Reasons',
    fields: 'Extracted fields',
    field: 'Field',
    value: 'Value',
    validated: 'Validated',
    noFields: 'No fields were extracted.',
    checks: 'Checks',
    passed: 'passed',
    failed: 'failed',
    warnings: 'Warnings',
    signature: 'PDF signature',
    signer: 'Signer',
    issuer: 'Issuer',
    signedAt: 'Signed',
    trusted: 'Trusted',
    error: 'Error',
    metadata: 'Metadata',
    yes: 'yes',
    no: 'no',
    more: (n) => `… and ${n} more`,
    generated: 'Generated on',
    documentNumber: 'number',
    none: 'none',
    statuses: { queued: 'queued', processing: 'processing', completed: 'completed', failed: 'failed' },
    verdicts: { valid: 'valid', invalid: 'invalid', review: 'review' },
    severities: { info: 'info', warning: 'warning', error: 'error' },
    signatures: { valid: 'valid', invalid: 'invalid', missing: 'missing', untrusted: 'untrusted', modified: 'modified' },
  },
  pt: {
    title: 'Cotejo — relatório de análise',
    analysis: 'Análise',
    created: 'Criada',
    completed: 'Concluída',
    file: 'Ficheiro',
    pages: 'páginas',
    page: 'página',
    document: 'Documento',
    type: 'Tipo',
    confidence: 'Confiança',
    country: 'País',
    status: 'Estado',
    verdict: 'Veredicto',
    finalStatus: 'Estado final',
    expected: 'Tipos esperados',
    noVerdict: 'Sem veredicto (não foram indicados tipos esperados).',
    reasons: 'Motivos',
    fields: 'Campos extraídos',
    field: 'Campo',
    value: 'Valor',
    validated: 'Validado',
    noFields: 'Não foram extraídos campos.',
    checks: 'Verificações',
    passed: 'aprovada',
    failed: 'falhada',
    warnings: 'Avisos',
    signature: 'Assinatura PDF',
    signer: 'Signatário',
    issuer: 'Emissor',
    signedAt: 'Assinado',
    trusted: 'De confiança',
    error: 'Erro',
    metadata: 'Metadados',
    yes: 'sim',
    no: 'não',
    more: (n) => `… e mais ${n}`,
    generated: 'Gerado em',
    documentNumber: 'número',
    none: 'nenhum',
    statuses: { queued: 'em fila', processing: 'em processamento', completed: 'concluída', failed: 'falhada' },
    verdicts: { valid: 'válido', invalid: 'inválido', review: 'revisão' },
    severities: { info: 'info', warning: 'aviso', error: 'erro' },
    signatures: { valid: 'válida', invalid: 'inválida', missing: 'ausente', untrusted: 'não fiável', modified: 'modificada' },
  },
  fr: {
    title: "Cotejo — rapport d'analyse",
    analysis: 'Analyse',
    created: 'Créée',
    completed: 'Terminée',
    file: 'Fichier',
    pages: 'pages',
    page: 'page',
    document: 'Document',
    type: 'Type',
    confidence: 'Confiance',
    country: 'Pays',
    status: 'Statut',
    verdict: 'Verdict',
    finalStatus: 'Statut final',
    expected: 'Types attendus',
    noVerdict: "Pas de verdict (aucun type attendu n'a été indiqué).",
    reasons: 'Motifs',
    fields: 'Champs extraits',
    field: 'Champ',
    value: 'Valeur',
    validated: 'Validé',
    noFields: "Aucun champ n'a été extrait.",
    checks: 'Contrôles',
    passed: 'réussi',
    failed: 'échoué',
    warnings: 'Avertissements',
    signature: 'Signature PDF',
    signer: 'Signataire',
    issuer: 'Émetteur',
    signedAt: 'Signé',
    trusted: 'De confiance',
    error: 'Erreur',
    metadata: 'Métadonnées',
    yes: 'oui',
    no: 'non',
    more: (n) => `… et ${n} de plus`,
    generated: 'Généré le',
    documentNumber: 'numéro',
    none: 'aucun',
    statuses: { queued: 'en attente', processing: 'en cours', completed: 'terminée', failed: 'échouée' },
    verdicts: { valid: 'valide', invalid: 'non valide', review: 'à vérifier' },
    severities: { info: 'info', warning: 'avertissement', error: 'erreur' },
    signatures: { valid: 'valide', invalid: 'non valide', missing: 'absente', untrusted: 'non fiable', modified: 'modifiée' },
  },
};

export function labelsFor(language: string | undefined): Labels {
  return LABELS[(language ?? 'es') as ExportLanguage] ?? LABELS.es;
}

/** A status value in words from one of the `Labels` maps; a value it does not know stays as it is. */
export function word(map: Record<string, string>, value: string | null | undefined): string {
  return value ? (map[value] ?? value) : '';
}
