import type { components } from '../../../../generated/api.d.ts';
import type { CatalogueEntry, Language } from '../../catalogue/index.ts';
import type { Reading } from '../../providers/types.ts';
import {
  aamvaMatchesVisual,
  ageYears,
  dateConsistency,
  fuzzyNameMatch,
  invoiceTotals,
  issueAgeDays,
  mrzMatchesVisual,
  normaliseIban,
  normaliseName,
  notExpired,
  toCents,
  validateIdNumber,
  validateMrzChecksums,
  type DocumentFamily,
  type FieldScheme,
  type ValidatorResult,
} from '../../validators/index.ts';
import type { PdfSignatureResult } from '../../validators/pdf-signature/index.ts';
import { isIsoDate } from '../../validators/types.ts';
import { failedCheckMessage, lowConfidenceMessage, partName } from './check-messages.ts';
import { fieldUnsure, unsureEvidence, unsurePassEvidence } from './evidence.ts';
import { invoiceInputOf } from './invoice-input.ts';
import { t, warningText } from './messages.ts';
import type { NormalisedOptions } from './options.ts';

export type CheckResult = components['schemas']['CheckResult'];
export type Reason = components['schemas']['Reason'];
type Severity = Reason['severity'];

export interface CheckInput {
  entry: CatalogueEntry | undefined;
  reading: Reading;
  options: NormalisedOptions;
  /** `checks.reference_date` or today (UTC). */
  referenceDate: string;
  language: Language;
  /** PAdES verification of the original, for PDFs; null for images. */
  signature: PdfSignatureResult | null;
}

export interface CheckOutcome {
  checks: CheckResult[];
  /** Field name -> whether every deterministic validator that read it passed. */
  validated: Record<string, boolean>;
  /** Every reason but the type reason, in a stable order. */
  reasons: Reason[];
}

/**
 * Catalogue validator names that the check engine implements itself (the others are the
 * CheckResult validators of server/src/validators): expiry, holder and age through the `checks`
 * options, `id_number` through the type's field schemes, `aamva_barcode` by reading the barcode
 * payload for `aamva_matches_visual`, `pdf_signature` by verifying every PDF, `i9_list` as a reason.
 */
export const ENGINE_VALIDATORS = ['not_expired', 'holder', 'age', 'id_number', 'aamva_barcode', 'pdf_signature', 'i9_list'] as const;

/** Validators whose failure only asks for review (plausibility), not rejection. */
const WARNING_VALIDATORS = new Set(['date_consistency']);
const QUALITY_WARNINGS = new Set(['low_quality', 'blurry', 'cropped', 'glare', 'screen_photo_suspected', 'photocopy_suspected', 'multiple_documents', 'side_missing']);

/** A date field the date checks can judge: a real `YYYY-MM-DD` (a reading may hold anything); otherwise as missing. */
const dateOf = (v: unknown): string | null => (isIsoDate(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
const isEmpty = (v: unknown): boolean => v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);

function family(entry: CatalogueEntry): DocumentFamily {
  if (entry.type.includes('passport')) return 'passport';
  if (entry.category === 'driving') return 'driving_licence';
  if (entry.category === 'residence') return 'residence_permit';
  if (entry.category === 'identity') return 'national_id';
  return 'other';
}

/** Runs the deterministic validators the type names on the fields that were read. */
function runValidators(entry: CatalogueEntry, fields: Record<string, unknown>, reading: Reading, referenceDate: string): ValidatorResult[] {
  const read = reading.fields;
  // The visual zone as read on its own: a value taken from the MRZ (or barcode) compared with itself proves nothing.
  // Where a model read the printed face of a field the zone also carries, that reading is the visual one.
  const notFrom = (origin: string): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(read)
        .map(([k, f]): [string, unknown] => [k, f.origin !== origin ? f.value : f.visual ? f.visual.value : undefined])
        .filter(([, v]) => v !== undefined),
    );
  const anyValue = (o: Record<string, unknown>, keys: string[]) => keys.some((k) => str(o[k]) !== null);
  const results: ValidatorResult[] = [];
  const has = (v: string) => entry.validators.includes(v as never);
  for (const { field, scheme } of entry.field_validators) {
    const value = str(fields[field]);
    if (value === null) continue;
    results.push(
      ...validateIdNumber(scheme as FieldScheme, value, {
        field,
        birth_date: str(fields.birth_date) ?? undefined,
        sex: str(fields.sex) ?? undefined,
        state: str(fields.region) ?? undefined,
      }),
    );
  }
  const mrz = fields.mrz;
  if (has('mrz_checksums') && (typeof mrz === 'string' || Array.isArray(mrz)) && !isEmpty(mrz)) {
    const expectedFormat = entry.mrz === 'TD1' || entry.mrz === 'TD2' || entry.mrz === 'TD3' ? entry.mrz : 'any';
    // Values a live reader took from the zone itself are what its check digits protect.
    const fromZone = ['document_number', 'birth_date', 'expiry_date', 'personal_number'].filter((k) => read[k]?.origin === 'mrz');
    results.push({ ...validateMrzChecksums(mrz as string | string[], { referenceDate, expectedFormat }), fields: ['mrz', ...fromZone] });
    const visual = notFrom('mrz');
    if (has('mrz_matches_visual') && anyValue(visual, ['document_number', 'last_name', 'first_name', 'full_name', 'birth_date', 'expiry_date'])) {
      results.push(
        mrzMatchesVisual(mrz as string | string[], {
          document_number: str(visual.document_number),
          last_name: [str(visual.last_name), str(visual.second_last_name)].filter(Boolean).join(' ') || null,
          first_name: str(visual.first_name),
          full_name: str(visual.full_name),
          birth_date: str(visual.birth_date),
          expiry_date: str(visual.expiry_date),
          nationality: str(visual.nationality),
          sex: str(visual.sex),
        }, { referenceDate }),
      );
    }
  }
  const printed = notFrom('barcode');
  if (has('aamva_matches_visual') && str(fields.barcode_data) && anyValue(printed, ['document_number', 'last_name', 'first_name', 'birth_date', 'expiry_date'])) {
    results.push(
      aamvaMatchesVisual(str(fields.barcode_data)!, {
        document_number: str(printed.document_number),
        last_name: str(printed.last_name),
        first_name: str(printed.first_name),
        birth_date: str(printed.birth_date),
        expiry_date: str(printed.expiry_date),
        issue_date: str(printed.issue_date),
        sex: str(printed.sex),
        state: str(printed.region),
        postal_code: str(printed.postal_code),
      }),
    );
  }
  if (has('invoice_totals')) {
    const input = invoiceInputOf(fields, reading);
    if (input) results.push(invoiceTotals(input));
  }
  if (has('date_consistency') && (str(fields.issue_date) || str(fields.expiry_date))) {
    results.push(
      dateConsistency({
        birth_date: str(fields.birth_date),
        issue_date: str(fields.issue_date),
        expiry_date: str(fields.expiry_date),
        family: family(entry),
        country: entry.countries[0] === '*' ? null : entry.countries[0],
      }),
    );
  }
  return results;
}

/** The reading's fields behind each holder attribute compared. */
const HOLDER_FIELDS: Record<string, string[]> = {
  full_name: ['full_name', 'first_name', 'last_name', 'second_last_name'],
  first_name: ['first_name', 'full_name'],
  last_name: ['last_name', 'second_last_name', 'full_name'],
  document_number: ['document_number', 'id_number'],
  birth_date: ['birth_date'],
};

/** The caller's holder against the document's: every given attribute must agree (names folded and fuzzy). */
function compareHolder(holder: NonNullable<NormalisedOptions['checks']['holder']>, fields: Record<string, unknown>): { comparable: boolean; mismatched: string[] } {
  const mismatched: string[] = [];
  let comparable = false;
  const docFull = str(fields.full_name) ?? [str(fields.first_name), str(fields.last_name), str(fields.second_last_name)].filter(Boolean).join(' ');
  const docLast = [str(fields.last_name), str(fields.second_last_name)].filter(Boolean).join(' ') || null;
  if (holder.full_name && docFull) {
    comparable = true;
    if (!fuzzyNameMatch(holder.full_name, docFull).match) mismatched.push('full_name');
  }
  if (holder.first_name && (str(fields.first_name) || docFull)) {
    comparable = true;
    const doc = str(fields.first_name);
    const ok = doc ? fuzzyNameMatch(holder.first_name, doc).match : normaliseName(docFull).includes(normaliseName(holder.first_name));
    if (!ok) mismatched.push('first_name');
  }
  if (holder.last_name && (docLast || docFull)) {
    comparable = true;
    const ok = docLast ? fuzzyNameMatch(holder.last_name, docLast).match || normaliseName(docLast).includes(normaliseName(holder.last_name)) : normaliseName(docFull).includes(normaliseName(holder.last_name));
    if (!ok) mismatched.push('last_name');
  }
  if (holder.document_number) {
    const candidates = [str(fields.document_number), str(fields.id_number)].filter((x): x is string => x !== null);
    if (candidates.length > 0) {
      comparable = true;
      const canon = (s: string) => s.replace(/[\s.\-/]/g, '').toUpperCase();
      if (!candidates.some((c) => canon(c) === canon(holder.document_number!))) mismatched.push('document_number');
    }
  }
  if (holder.birth_date && str(fields.birth_date)) {
    comparable = true;
    if (str(fields.birth_date) !== holder.birth_date) mismatched.push('birth_date');
  }
  return { comparable, mismatched };
}

function amountText(cents: number): string {
  return (cents / 100).toFixed(2);
}

export function runChecks(input: CheckInput): CheckOutcome {
  const { entry, reading, options, referenceDate, language, signature } = input;
  const fields = Object.fromEntries(Object.entries(reading.fields).map(([k, f]) => [k, f.value]));
  const checks: CheckResult[] = [];
  const validated: Record<string, boolean> = {};
  const reasons: Reason[] = [];
  const push = (code: string, severity: Severity, message: string) => reasons.push({ code: code as Reason['code'], severity, message });
  /**
   * A reason; an `error` that rests on fields read unsure (`rests`) is only a `warning` (a person checks it): our
   * reading, not the document, may be what is wrong.
   */
  const reason = (code: string, severity: Severity, key: string, params: Record<string, string | number> = {}, rests: string[] = []) => {
    const unsure = severity === 'error' ? rests.map((f) => fieldUnsure(reading, f)).find((u) => u !== null) : null;
    if (unsure) push(code, 'warning', `${t(language, key, params)} ${t(language, 'unsure.suffix', { field: partName(language, unsure.field) })}`);
    else push(code, severity, t(language, key, params));
  };
  // A reading that simulates (test mode) knows what it left out; a real one may just have missed it.
  const simulated = reading.document?.basis === 'simulated';
  let unsureChecks = 0;

  if (entry) {
    // Deterministic validators (docs/validators.md, "Passed, failed, not run"): a passed or failed result is a check;
    // a failure is a reason. A result that was not run is no check at all, and a failure that rests on characters
    // read unsure is not run either: it becomes a `low_confidence` warning that names them.
    const failed = new Set<string>();
    for (const r of runValidators(entry, fields, reading, referenceDate)) {
      if (r.outcome === 'not_run') {
        // Printed amounts that do not add up, where a part the reading did not see (a tip, a second VAT rate, a
        // withholding) could explain it: not proof, but a person should look (docs/validators.md, invoice_totals).
        if (r.message_key === 'invoice_totals.inconclusive' && r.params?.check !== 'line_net_amount') {
          // Amounts read unsure that do not add up are still amounts that do not add up: a person looks either way
          // (the message names what was read unsure instead of the sum).
          const unsure = unsureEvidence({ ...r, outcome: 'failed' }, reading);
          if (unsure.length === 0) push('invoice_totals', 'warning', `${failedCheckMessage(language, r)} ${t(language, 'invoice_totals.inconclusive')}`);
          else {
            unsureChecks++;
            push('low_confidence', 'warning', lowConfidenceMessage(language, r.code, unsure));
          }
        }
        continue;
      }
      // a check digit that passes on characters read unsure proves nothing either (issue #28): not a passed check
      const unsure = r.outcome === 'failed' ? unsureEvidence(r, reading) : unsurePassEvidence(r, reading);
      if (unsure.length > 0) {
        unsureChecks++;
        push('low_confidence', 'warning', lowConfidenceMessage(language, r.code, unsure));
        continue;
      }
      const message = r.outcome === 'passed' ? t(language, `check.${r.code}.ok`) : failedCheckMessage(language, r);
      checks.push({ code: r.code as CheckResult['code'], passed: r.outcome === 'passed', message });
      for (const f of r.fields ?? []) validated[f] = (validated[f] ?? true) && r.outcome === 'passed';
      if (r.outcome === 'failed' && !failed.has(r.code)) {
        failed.add(r.code);
        push(r.code, WARNING_VALIDATORS.has(r.code) ? 'warning' : 'error', message);
      }
    }

    const c = options.checks;
    const hasField = (f: string) => entry.fields.includes(f);
    // not_expired: on by default for the types that say so; false disables.
    if (hasField('expiry_date') && (c.not_expired ?? entry.expiry_check_default)) {
      const expiry = dateOf(fields.expiry_date);
      if (!expiry) reason('not_expired', 'warning', 'not_expired.missing');
      else if (notExpired(expiry, referenceDate)) reason('not_expired', 'info', 'not_expired.ok', { date: expiry });
      else reason('not_expired', 'error', 'not_expired.fail', { date: expiry }, ['expiry_date']);
    }
    if (c.max_age_days !== undefined && hasField('issue_date')) {
      const issue = dateOf(fields.issue_date);
      if (!issue) reason('max_age_days', 'warning', 'max_age_days.missing');
      else {
        const days = issueAgeDays(issue, referenceDate);
        reason('max_age_days', days <= c.max_age_days ? 'info' : 'error', days <= c.max_age_days ? 'max_age_days.ok' : 'max_age_days.fail', { days, max: c.max_age_days }, ['issue_date']);
      }
    }
    if ((c.min_age_years !== undefined || c.max_age_years !== undefined) && hasField('birth_date')) {
      const birth = dateOf(fields.birth_date);
      if (!birth) reason(c.min_age_years !== undefined ? 'min_age_years' : 'max_age_years', 'warning', 'age.missing');
      else {
        const age = ageYears(birth, referenceDate);
        if (c.min_age_years !== undefined) {
          const ok = age >= c.min_age_years;
          reason('min_age_years', ok ? 'info' : 'error', ok ? 'min_age_years.ok' : 'min_age_years.fail', { age, min: c.min_age_years }, ['birth_date']);
        }
        if (c.max_age_years !== undefined) {
          const ok = age <= c.max_age_years;
          reason('max_age_years', ok ? 'info' : 'error', ok ? 'max_age_years.ok' : 'max_age_years.fail', { age, max: c.max_age_years }, ['birth_date']);
        }
      }
    }
    if (c.holder && entry.checks.includes('holder')) {
      const { comparable, mismatched } = compareHolder(c.holder, fields);
      if (!comparable) reason('holder', 'warning', 'holder.missing');
      else if (mismatched.length === 0) reason('holder', 'info', 'holder.ok');
      else reason('holder', 'error', 'holder.fail', { fields: mismatched.map((f) => partName(language, f)).join(', ') }, mismatched.flatMap((f) => HOLDER_FIELDS[f] ?? [f]));
    }
    for (const f of c.require_fields ?? []) {
      // Only a simulated reading knows a field is absent; a real reading that did not find it has not proven it.
      if (isEmpty(fields[f])) reason('required_field_missing', simulated ? 'error' : 'warning', simulated ? 'required_field_missing' : 'required_field_missing.unread', { field: f });
    }
    for (const [option, seen] of [['require_signature', reading.visual.signed], ['require_stamp', reading.visual.stamped]] as const) {
      if (c[option] && entry.checks.includes(option)) {
        if (seen === true) reason(option, 'info', `${option}.ok`);
        else if (seen === false) reason(option, 'error', `${option}.fail`);
        else reason(option, 'warning', `${option}.unknown`);
      }
    }
    if (c.expected_amount !== undefined && entry.checks.includes('expected_amount')) {
      const found = num(fields.total_amount) ?? num(fields.amount) ?? num(fields.net_pay);
      if (found === null) reason('expected_amount', 'warning', 'expected_amount.missing');
      else if (Math.abs(toCents(found) - toCents(c.expected_amount)) <= 1) reason('expected_amount', 'info', 'expected_amount.ok', { amount: amountText(toCents(found)) });
      else reason('expected_amount', 'error', 'expected_amount.fail', { amount: amountText(toCents(found)), expected: amountText(toCents(c.expected_amount)) }, ['total_amount', 'amount', 'net_pay']);
    }
    if (c.expected_iban !== undefined && entry.checks.includes('expected_iban')) {
      const found = str(fields.iban);
      if (!found) reason('expected_iban', 'warning', 'expected_iban.missing');
      else if (normaliseIban(found) === normaliseIban(c.expected_iban)) reason('expected_iban', 'info', 'expected_iban.ok');
      else reason('expected_iban', 'error', 'expected_iban.fail', { iban: found }, ['iban']);
    }
    if (c.expected_reference !== undefined && entry.checks.includes('expected_reference')) {
      const texts = ['reference', 'concept', 'invoice_number', 'purpose'].map((f) => str(fields[f])).filter((x): x is string => x !== null);
      if (texts.length === 0) reason('expected_reference', 'warning', 'expected_reference.missing');
      else {
        const needle = normaliseName(c.expected_reference);
        const ok = texts.some((tx) => normaliseName(tx).includes(needle));
        reason('expected_reference', ok ? 'info' : 'error', ok ? 'expected_reference.ok' : 'expected_reference.fail', {}, ['reference', 'concept', 'invoice_number', 'purpose']);
      }
    }
    if (fields.fit_for_sport === false) reason('not_fit_for_sport', 'error', 'not_fit_for_sport', {}, ['fit_for_sport']);
    if (fields.has_records === true) reason('has_records', 'error', 'has_records', {}, ['has_records']);
    if (entry.i9_lists && entry.i9_lists.length > 0) reason('i9_list', 'info', 'i9_list', { list: entry.i9_lists.join(', ') });
  }

  // The PAdES signature of PDFs, and require_valid_signature (a photo or scan never passes).
  const strict = options.checks.require_valid_signature === true;
  if (signature) {
    const sev = (s: Severity): Severity => (strict ? 'error' : s);
    if (signature.status === 'valid') reason('signature_valid', 'info', 'signature_valid', { signer: signature.signer ?? '?' });
    else if (signature.status === 'invalid') reason('signature_invalid', 'error', 'signature_invalid');
    else if (signature.status === 'modified') reason('document_modified_after_signing', sev('warning'), 'document_modified_after_signing');
    else if (signature.status === 'untrusted') reason('untrusted_signer', sev('warning'), 'untrusted_signer');
    else if (strict || entry?.usually_signed) reason('signature_missing', sev('warning'), 'signature_missing');
    // Revocation (docs/pdf-signatures.md, "Revocation"): revoked at or before the signing time makes the signature
    // invalid; revoked after a time the signer only claims makes it untrusted (a person reviews it).
    if (signature.reasons.includes('revoked')) {
      if (signature.status === 'invalid') reason('revoked', 'error', 'revoked');
      else reason('revoked', sev('warning'), 'revoked.after_claimed_time');
    }
    if (signature.reasons.includes('revocation_unknown')) reason('revocation_unknown', sev('warning'), 'revocation_unknown');
  } else if (strict) {
    reason('signature_missing', 'error', 'signature_missing');
  }

  // Quality hints.
  const quality = reading.warnings.filter((w) => QUALITY_WARNINGS.has(w));
  if (quality.length > 0) reason('low_quality', 'warning', 'low_quality', { warnings: quality.map((w) => warningText(language, w)).join(', ') });
  if (reading.warnings.includes('edited_suspected') || signature?.edited_suspected) reason('edited_suspected', 'warning', 'edited_suspected');
  // Fields that were read: an absent value is not a doubtful one (its absence is `required_field_missing`'s business).
  const confidences = Object.values(reading.fields).filter((f) => !isEmpty(f.value)).map((f) => f.confidence);
  const meanConfidence = confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length : 1;
  const docConfidence = reading.document?.confidence ?? 0;
  if (unsureChecks === 0 && docConfidence >= 0.5 && (docConfidence < 0.7 || meanConfidence < 0.6)) reason('low_confidence', 'warning', 'low_confidence');

  return { checks, validated, reasons };
}

/** invalid if any error; else review if any warning; else valid. */
export function statusOf(reasons: Reason[]): 'valid' | 'invalid' | 'review' {
  if (reasons.some((r) => r.severity === 'error')) return 'invalid';
  if (reasons.some((r) => r.severity === 'warning')) return 'review';
  return 'valid';
}
