/**
 * Common result shape of every deterministic validator (see docs/validators.md).
 * Validators are pure: no I/O, no clock reads (dates come in as arguments).
 */
export interface ValidatorResult {
  /** CheckResult code, e.g. 'nif_check_digit'. */
  code: string;
  /**
   * What the validator proved (docs/validators.md): `passed` (the evidence agrees with the rule), `failed` (the
   * evidence contradicts it) or `not_run` (nothing to check: a value missing, nothing to compare, a reading it could
   * not parse). Only `failed` can become an `error` reason; a `not_run` result is never a failed CheckResult.
   */
  outcome: 'passed' | 'failed' | 'not_run';
  /** outcome === 'passed' (kept for callers that only ask whether it passed). */
  passed: boolean;
  /** Stable key of the localised message, e.g. 'nif_check_digit.invalid_letter'. */
  message_key: string;
  params?: Record<string, string | number>;
  /** What was checked: normalised input, expected vs found check digit, etc. */
  evidence: Record<string, unknown>;
  /** Document fields this result validates (sets Field.validated). */
  fields?: string[];
}

export const CHECK_CODES = [
  'nif_check_digit',
  'mrz_checksums',
  'mrz_matches_visual',
  'iban_checksum',
  'invoice_totals',
  'csv_format',
  'date_consistency',
  'id_number_checksum',
  'id_number_format',
  'id_number_matches_birth_date',
  'aamva_matches_visual',
] as const;
export type CheckCode = (typeof CHECK_CODES)[number];

export function makeResult(
  code: CheckCode,
  passed: boolean,
  reason: string,
  evidence: Record<string, unknown>,
  extra: { params?: Record<string, string | number>; fields?: string[] } = {},
): ValidatorResult {
  const r: ValidatorResult = { code, outcome: passed ? 'passed' : 'failed', passed, message_key: `${code}.${reason}`, evidence };
  if (extra.params && Object.keys(extra.params).length > 0) r.params = extra.params;
  if (extra.fields && extra.fields.length > 0) r.fields = extra.fields;
  return r;
}

/** A validator that could not judge: nothing to check or compare, or a reading it could not parse. Never an error. */
export function notRun(
  code: CheckCode,
  reason: string,
  evidence: Record<string, unknown>,
  extra: { params?: Record<string, string | number>; fields?: string[] } = {},
): ValidatorResult {
  return { ...makeResult(code, false, reason, evidence, extra), outcome: 'not_run' };
}

/** Strict calendar check of a `YYYY-MM-DD` string. */
export function isIsoDate(s: unknown): s is string {
  if (typeof s !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const [y, m, d] = s.split('-').map(Number);
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= daysInMonth(y, m);
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return [31, isLeapYear(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

export function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

export function isoDate(y: number, m: number, d: number): string | null {
  if (!Number.isInteger(y) || !Number.isInteger(m) || !Number.isInteger(d)) return null;
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null;
  return `${String(y).padStart(4, '0')}-${pad2(m)}-${pad2(d)}`;
}
