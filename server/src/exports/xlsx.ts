/**
 * XLSX export (exceljs). Single analysis: sheets "Analysis" (key/value summary), "Fields", "Checks", "Reasons".
 * Several analyses: one sheet "Analyses" with the same columns as the CSV export.
 * Header rows are bold and frozen, columns have widths, timestamps and date-valued fields are real Excel dates.
 * Strings are always written as text cells (never as formulas), so no formula-injection prefix is needed here.
 */
import ExcelJS from 'exceljs';
import {
  dateOnlyToDate,
  fieldDate,
  flattenAnalyses,
  LIST_SEPARATOR,
  parseTimestamp,
  valueText,
  type Analysis,
  type FlatCell,
} from './common.ts';

type Workbook = InstanceType<typeof ExcelJS.Workbook>;
type Worksheet = ReturnType<Workbook['addWorksheet']>;
type CellValue = string | number | boolean | Date | null;

const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const DATE_FORMAT = 'yyyy-mm-dd';
const MAX_WIDTH = 60;

function newWorkbook(generatedAt: Date): Workbook {
  const wb = new ExcelJS.Workbook();
  wb.creator = 'Cotejo';
  wb.lastModifiedBy = 'Cotejo';
  wb.created = generatedAt;
  wb.modified = generatedAt;
  return wb;
}

/** Adds a sheet with a bold, frozen header row, the given rows, number formats for dates and fitted widths. */
function addTable(wb: Workbook, name: string, headers: string[], rows: CellValue[][], minWidths: number[] = []): Worksheet {
  const ws = wb.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.addRow(headers);
  ws.getRow(1).font = { bold: true };
  for (const r of rows) ws.addRow(r.map((v) => (v === null ? null : v)));
  headers.forEach((h, i) => {
    const col = ws.getColumn(i + 1);
    let width = Math.max(h.length, minWidths[i] ?? 0);
    for (const r of rows) {
      const v = r[i];
      const len = v instanceof Date ? 19 : v === null || v === undefined ? 0 : String(v).length;
      width = Math.max(width, len);
    }
    col.width = Math.min(MAX_WIDTH, width + 2);
  });
  ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    if (rowNumber === 1) return;
    row.eachCell((cell) => {
      if (cell.value instanceof Date) {
        const d = cell.value;
        const midnight = d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0;
        // Calendar dates are UTC midnight; API timestamps that fall on midnight get their format back in markTimestamps.
        cell.numFmt = midnight ? DATE_FORMAT : DATETIME_FORMAT;
      }
    });
  });
  if (rows.length > 0) ws.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: headers.length } };
  return ws;
}

function timestamp(value: string | null | undefined): Date | string | null {
  if (!value) return null;
  return parseTimestamp(value) ?? value;
}

function fieldValue(name: string, value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  const date = fieldDate(name, value);
  if (date) return dateOnlyToDate(date);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'boolean') return value;
  return valueText(value, name);
}

/** Forces the date-time format on cells holding API timestamps (even at 00:00:00). */
function markTimestamps(ws: Worksheet, cells: Array<[row: number, col: number]>): void {
  for (const [r, c] of cells) {
    const cell = ws.getCell(r, c);
    if (cell.value instanceof Date) cell.numFmt = DATETIME_FORMAT;
  }
}

async function toBytes(wb: Workbook): Promise<Uint8Array> {
  const buf = await wb.xlsx.writeBuffer();
  return new Uint8Array(buf as ArrayBuffer);
}

export async function renderAnalysisXlsx(a: Analysis, generatedAt: Date): Promise<Uint8Array> {
  const wb = newWorkbook(generatedAt);

  const summary: Array<[string, CellValue | Date | string]> = [
    ['id', a.id],
    ['status', a.status],
    ['livemode', a.livemode ?? null],
    ['batch_id', a.batch_id ?? null],
    ['created_at', timestamp(a.created_at)],
    ['completed_at', timestamp(a.completed_at)],
    ['file_name', a.file?.name ?? null],
    ['file_mime_type', a.file?.mime_type ?? null],
    ['file_pages', a.file?.pages ?? null],
    ['file_size_bytes', a.file?.size_bytes ?? null],
    ['document_type', a.document?.type ?? null],
    ['document_label', a.document?.label ?? null],
    ['document_confidence', a.document?.confidence ?? null],
    ['document_side', a.document?.side ?? null],
    ['document_country', a.document?.country ?? null],
    ['verdict_status', a.verdict?.status ?? null],
    ['verdict_final_status', a.verdict?.final_status ?? null],
    ['verdict_match', a.verdict ? a.verdict.match : null],
    ['expected_types', a.verdict ? a.verdict.expected.join(LIST_SEPARATOR) : null],
    ['warnings', (a.warnings ?? []).join(LIST_SEPARATOR)],
  ];
  if (a.signature) {
    summary.push(
      ['signature_status', a.signature.status],
      ['signature_signer', a.signature.signer],
      ['signature_issuer', a.signature.issuer],
      ['signature_signed_at', timestamp(a.signature.signed_at)],
      ['signature_trusted', a.signature.trusted],
      ['signature_count', a.signature.signatures],
      ['signature_reasons', (a.signature.reasons ?? []).join(LIST_SEPARATOR)],
    );
  }
  if (a.error) summary.push(['error_code', a.error.code], ['error_message', a.error.message]);
  if (a.review) summary.push(['review_status', a.review.status], ['review_decision', a.review.decision]);
  for (const [k, v] of Object.entries(a.metadata ?? {})) summary.push([`metadata.${k}`, v]);

  const summarySheet = addTable(wb, 'Analysis', ['key', 'value'], summary.map(([k, v]) => [k, v === '' ? null : v]));
  const tsKeys = new Set(['created_at', 'completed_at', 'signature_signed_at']);
  markTimestamps(
    summarySheet,
    summary.flatMap(([k], i) => (tsKeys.has(k) ? [[i + 2, 2] as [number, number]] : [])),
  );

  const fieldRows = Object.entries(a.fields ?? {}).map(([name, f]): CellValue[] => [
    name,
    fieldValue(name, f?.value),
    typeof f?.confidence === 'number' ? f.confidence : null,
    typeof f?.validated === 'boolean' ? f.validated : null,
    f?.source?.page ?? null,
    f?.source?.bbox ? f.source.bbox.join(', ') : null,
  ]);
  addTable(wb, 'Fields', ['field', 'value', 'confidence', 'validated', 'page', 'bbox'], fieldRows, [0, 12]);

  addTable(
    wb,
    'Checks',
    ['code', 'passed', 'message'],
    (a.checks ?? []).map((c) => [c.code, c.passed, c.message]),
  );
  addTable(
    wb,
    'Reasons',
    ['code', 'severity', 'message'],
    (a.verdict?.reasons ?? []).map((r) => [r.code, r.severity, r.message]),
  );
  return toBytes(wb);
}

function flatValue(cell: FlatCell): CellValue {
  switch (cell.kind) {
    case 'empty':
      return null;
    case 'number':
      return cell.value;
    case 'date':
      return dateOnlyToDate(cell.value);
    case 'datetime':
      return parseTimestamp(cell.value) ?? cell.value;
    default:
      return cell.value;
  }
}

export async function renderAnalysesXlsx(analyses: Analysis[], generatedAt: Date): Promise<Uint8Array> {
  const wb = newWorkbook(generatedAt);
  const table = flattenAnalyses(analyses);
  const ws = addTable(wb, 'Analyses', table.columns, table.rows.map((r) => r.map(flatValue)));
  const tsCells: Array<[number, number]> = [];
  table.rows.forEach((row, i) => row.forEach((cell, j) => cell.kind === 'datetime' && tsCells.push([i + 2, j + 1])));
  markTimestamps(ws, tsCells);
  return toBytes(wb);
}
