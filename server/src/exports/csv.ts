/**
 * CSV export (RFC 4180): UTF-8 with a byte order mark (so that Excel reads accents right), CRLF record separators,
 * one header row and one row per analysis. Columns: see `flattenAnalyses` and docs/exports.md.
 *
 * CSV/formula injection guard: a text cell (header or value) that starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is prefixed with a single quote `'`, so that spreadsheet software shows it as text instead of evaluating
 * it. Cells that come from JSON numbers (confidence, numeric field values) are written as plain numbers and are not
 * prefixed: a number cannot be a formula.
 */
import { stringify } from 'csv-stringify/sync';
import { flattenAnalyses, type Analysis, type FlatCell } from './common.ts';

const FORMULA_TRIGGER = /^[=+\-@\t\r]/;

/** Prefixes `'` to text that a spreadsheet would evaluate as a formula. */
export function guardFormula(value: string): string {
  return FORMULA_TRIGGER.test(value) ? `'${value}` : value;
}

function cellText(cell: FlatCell): string {
  switch (cell.kind) {
    case 'empty':
      return '';
    case 'number':
      return String(cell.value);
    default:
      return guardFormula(cell.value);
  }
}

export function renderCsv(analyses: Analysis[]): Uint8Array {
  const table = flattenAnalyses(analyses);
  const records = [table.columns.map(guardFormula), ...table.rows.map((row) => row.map(cellText))];
  const out = stringify(records, { bom: true, record_delimiter: '\r\n', quoted_match: /^\s|\s$/ });
  return new TextEncoder().encode(out);
}
