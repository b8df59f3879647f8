/**
 * The words of a failed check: which field, which characters, which amounts (#27, "the verdict explains itself").
 * Built from the validator's own evidence, in the analysis's language.
 */
import { fieldLabel } from '../../catalogue/field-labels.ts';
import type { Language } from '../../catalogue/index.ts';
import type { ValidatorResult } from '../../validators/index.ts';
import type { Unsure } from './evidence.ts';
import { hasMessage, t } from './messages.ts';

/** A field or check part in words ("document number"), or its name when there are none. */
export function partName(language: Language, key: string): string {
  if (hasMessage(`part.${key}`)) return t(language, `part.${key}`);
  const label = fieldLabel(key, language);
  // Mid-sentence: a label's capital goes, an acronym's (IBAN, NIF) stays.
  return label === key ? key.replace(/_/g, ' ') : /^\p{Lu}\p{Lu}/u.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
}

const text = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** The sentence of a failed check (CheckResult.message and its reason), naming the evidence. */
export function failedCheckMessage(language: Language, r: ValidatorResult): string {
  const ev = r.evidence as Record<string, unknown>;
  const reason = r.message_key.slice(r.code.length + 1);
  const generic = t(language, `check.${r.code}.fail`);
  switch (r.code) {
    case 'nif_check_digit': {
      const value = text(ev.normalized ?? ev.input);
      if (ev.expected && ev.found) return t(language, 'check.nif_check_digit.detail', { value, found: text(ev.found), expected: text(ev.expected) });
      return t(language, 'check.nif_check_digit.format', { value });
    }
    case 'id_number_checksum': {
      const value = text(ev.normalized ?? ev.input);
      if (ev.expected && ev.found) return t(language, 'check.id_number_checksum.detail', { value, found: text(ev.found), expected: text(ev.expected) });
      return t(language, 'check.id_number_checksum.format', { value });
    }
    case 'id_number_format':
    case 'csv_format':
      return t(language, `check.${r.code}.detail`, { value: text(ev.normalized ?? ev.input) });
    case 'id_number_matches_birth_date':
      return t(language, 'check.id_number_matches_birth_date.detail', { value: text(ev.normalized) });
    case 'mrz_checksums': {
      const checks = ((ev.checks ?? []) as Array<{ name: string; input: string; expected: string | null; found: string; valid: boolean }>).filter((c) => !c.valid);
      if (checks.length === 0) return generic;
      const details = checks
        .map((c) => t(language, 'check.mrz_checksums.item', { part: partName(language, c.name), input: c.input, found: c.found, expected: c.expected ?? '?' }))
        .join('; ');
      return t(language, 'check.mrz_checksums.detail', { details });
    }
    case 'mrz_matches_visual':
    case 'aamva_matches_visual': {
      const side = r.code === 'mrz_matches_visual' ? 'mrz' : 'barcode';
      const compared = (ev.compared ?? {}) as Record<string, Record<string, unknown> & { ok: boolean }>;
      const details = Object.entries(compared)
        .filter(([, c]) => !c.ok)
        .map(([k, c]) => t(language, `check.${r.code}.item`, { part: partName(language, k), a: text(c[side]), b: text(c.visual) }))
        .join('; ');
      return details ? t(language, `check.${r.code}.detail`, { details }) : generic;
    }
    case 'iban_checksum': {
      const iban = text(ev.normalized ?? ev.input);
      // From the IBAN validator (`check_digits`) or through a field scheme (`expected` / `found`).
      const digits = (ev.check_digits as { expected?: string; found?: string } | undefined) ?? { expected: text(ev.expected ?? r.params?.expected), found: text(ev.found ?? r.params?.found ?? String(ev.normalized ?? '').slice(2, 4)) };
      const why =
        reason === 'invalid_check_digits'
          ? t(language, 'iban.why.invalid_check_digits', { found: text(digits?.found), expected: text(digits?.expected) })
          : reason === 'invalid_national_check_digits'
            ? t(language, 'iban.why.invalid_national_check_digits')
            : reason === 'invalid_length' || reason === 'invalid_bban_format'
              ? t(language, 'iban.why.structure')
              : t(language, 'iban.why.country');
      return t(language, 'check.iban_checksum.detail', { iban, why });
    }
    case 'invoice_totals': {
      const p = r.params ?? {};
      if (p.expected === undefined || p.found === undefined) return generic;
      const part = partName(language, String(p.check ?? 'total')) + (p.where !== undefined ? ` (${p.where})` : '');
      return t(language, 'check.invoice_totals.detail', { part, expected: String(p.expected), found: String(p.found) });
    }
    case 'date_consistency': {
      const problem = String(r.params?.problem ?? reason);
      const input = (ev.input ?? ev) as Record<string, unknown>;
      const dates = { birth: text(input.birth_date), issue: text(input.issue_date), expiry: text(input.expiry_date) };
      const words = hasMessage(`dates.${problem}`) ? t(language, `dates.${problem}`, dates) : t(language, 'dates.other');
      return t(language, 'check.date_consistency.detail', { problem: words });
    }
    default:
      return generic;
  }
}

/** The `low_confidence` reason of a check that could not judge: which check, which field, which characters. */
export function lowConfidenceMessage(language: Language, code: string, unsure: Unsure[]): string {
  const u = unsure.reduce((a, b) => (b.confidence < a.confidence ? b : a));
  const what = unsure.map((x) => partName(language, x.field)).filter((x, i, all) => all.indexOf(x) === i).join(', ');
  const chars = unsure.map((x) => x.chars).join(' ').slice(0, 40);
  return t(language, 'low_confidence.chars', { check: t(language, `checkname.${code}`), what, chars, confidence: u.confidence.toFixed(2) });
}
