/**
 * csv_format: format (only) of the Spanish código seguro de verificación printed on documents
 * issued electronically. No external lookup is made: a well-formed CSV may still not exist.
 *
 * Recognised formats (after removing spaces and, for prefixed codes, keeping the prefix):
 * - `aeat`: Agencia Tributaria, 16 characters from [A-Z0-9] (e.g. `ABCD1234EFGH5678`), at least
 *   one letter and one digit.
 * - `seg_social`: Seguridad Social / TGSS verification code: 4 groups of 4 characters, i.e. 16
 *   characters [A-Z0-9] written with dashes or spaces (`XXXX-XXXX-XXXX-XXXX`), or the numeric
 *   18-20 digit codes of some certificates.
 * - `admin_prefixed`: generic administration CSVs with an issuer prefix: `ES-` + 2-10 letters
 *   or digits for the body code followed by a separator and 8-40 characters [A-Z0-9] (e.g.
 *   `ES-GE-0123ABCD...`), or the AGE/ayuntamiento style `XXXX-XXXX-XXXX...`.
 * - `generic`: 12-64 characters [A-Za-z0-9] (some bodies use mixed case, e.g. sede electrónica
 *   CSVs such as `GEN-1a2b-...`), with optional dash or space separators every 2-8 characters.
 */
import { makeResult, type ValidatorResult } from './types.ts';

export type CsvFormat = 'aeat' | 'seg_social' | 'admin_prefixed' | 'generic';

export interface CsvCheck {
  valid: boolean;
  format: CsvFormat | null;
  normalized: string;
  reason: string;
}

export function checkCsv(value: string): CsvCheck {
  const raw = String(value ?? '').trim().replace(/^CSV\s*[:.]?\s*/i, '');
  const up = raw.toUpperCase();
  const compact = up.replace(/[\s-]/g, '');
  if (raw.length === 0) return { valid: false, format: null, normalized: '', reason: 'empty' };
  if (/[^A-Za-z0-9\s\-]/.test(raw)) return { valid: false, format: null, normalized: up, reason: 'invalid_characters' };
  const hasLetter = /[A-Z]/.test(compact);
  const hasDigit = /\d/.test(compact);
  if (/^[A-Z0-9]{16}$/.test(compact) && /^[A-Z0-9]{4}([\s-]?[A-Z0-9]{4}){3}$/.test(up) && /[\s-]/.test(up) && hasDigit) {
    return { valid: true, format: 'seg_social', normalized: compact.match(/.{4}/g)!.join('-'), reason: 'ok' };
  }
  if (/^[A-Z0-9]{16}$/.test(up) && hasLetter && hasDigit) return { valid: true, format: 'aeat', normalized: up, reason: 'ok' };
  if (/^\d{18,20}$/.test(compact)) return { valid: true, format: 'seg_social', normalized: compact, reason: 'ok' };
  if (/^ES-[A-Z0-9]{2,10}-[A-Z0-9]{8,40}$/.test(up.replace(/\s/g, ''))) {
    return { valid: true, format: 'admin_prefixed', normalized: up.replace(/\s/g, ''), reason: 'ok' };
  }
  if (/^[A-Za-z0-9]{2,8}([\s-][A-Za-z0-9]{2,8})*$/.test(raw) && compact.length >= 12 && compact.length <= 64 && hasDigit && (hasLetter || compact.length >= 18)) {
    return { valid: true, format: 'generic', normalized: raw.replace(/\s+/g, '-'), reason: 'ok' };
  }
  if (/^[A-Za-z0-9]{12,64}$/.test(raw) && hasLetter && hasDigit) return { valid: true, format: 'generic', normalized: raw, reason: 'ok' };
  return { valid: false, format: null, normalized: up, reason: compact.length < 12 ? 'too_short' : compact.length > 64 ? 'too_long' : 'invalid_format' };
}

/** csv_format validator. `expectedFormat` restricts the accepted family (e.g. 'aeat' for tax certificates). */
export function validateCsv(value: string, opts: { expectedFormat?: CsvFormat; field?: string } = {}): ValidatorResult {
  const c = checkCsv(value);
  let passed = c.valid;
  let reason = c.valid ? 'ok' : c.reason;
  if (passed && opts.expectedFormat && c.format !== opts.expectedFormat) {
    passed = false;
    reason = 'unexpected_format';
  }
  return makeResult('csv_format', passed, reason, { input: value, normalized: c.normalized, format: c.format, expected_format: opts.expectedFormat ?? null, external_lookup: false }, {
    params: c.format ? { format: c.format } : {},
    fields: [opts.field ?? 'csv'],
  });
}
