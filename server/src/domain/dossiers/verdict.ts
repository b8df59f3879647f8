import { getEntry, labelOf, type Language } from '../../catalogue/index.ts';
import { fuzzyNameMatch, issueAgeDays } from '../../validators/index.ts';
import { isIsoDate } from '../../validators/types.ts';
import { dt } from './messages.ts';

/**
 * The global verdict of a dossier, computed from what it needs and what it holds. Pure: the same inputs give the same
 * verdict, which is what lets `dossier.verdict_changed` fire exactly when something changed. The rule set is
 * documented in docs/dossiers.md.
 */

export type Severity = 'info' | 'warning' | 'error';
export interface Reason {
  code: string;
  severity: Severity;
  message: string;
}
export interface CheckResult {
  code: string;
  passed: boolean;
  message: string;
}
export type DossierStatus = 'complete_valid' | 'incomplete' | 'invalid' | 'review';
export interface DossierVerdict {
  status: DossierStatus;
  reasons: Reason[];
}

export interface Requirement {
  key: string;
  label: string | null;
  expect: string[];
  checks: { max_age_days?: number; reference_date?: string } & Record<string, unknown>;
}

export interface MemberDocument {
  key: string;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  /** Detected type (completed analyses), else null. */
  type: string | null;
  /** Field name -> value, as read. */
  fields: Record<string, unknown>;
  /** The verdict that counts: `final_status` after a human decision, else `verdict.status`; null without a verdict. */
  verdictStatus: 'valid' | 'invalid' | 'review' | null;
  /** A human review is pending: the document counts as `review` whatever its verdict says. */
  reviewPending: boolean;
}

export interface VerdictInput {
  requirements: Requirement[];
  documents: MemberDocument[];
  language: Language;
  /** Today (UTC), `YYYY-MM-DD`: what the windows (`checks.max_age_days`) are counted from unless a requirement says. */
  today: string;
}

/** Identity, residence and driving documents: the reference for the holder, and the documents whose expiry matters. */
const IDENTITY_CATEGORIES = new Set(['identity', 'residence', 'driving']);
/** Fields that carry the holder's personal number on some type (the catalogue's field validators name its scheme). */
const HOLDER_NUMBER_FIELDS = new Set(['document_number', 'id_number', 'tax_id', 'personal_number', 'social_security_number']);
/** Schemes that are not personal numbers, or that several people share. */
const NOT_PERSONAL = new Set(['iban', 'bic', 'us_zip', 'es_csv', 'es_cif']);
/** Schemes of one numbering: a Spanish DNI number is the holder's NIF; a NIE is a foreigner's NIF. */
const SCHEME_GROUP: Record<string, string> = { es_dni: 'es_nif', es_nie: 'es_nif', es_nif: 'es_nif' };

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null);
const date = (v: unknown): string | null => (isIsoDate(v) ? (v as string) : null);

export function isI9Requirement(r: Requirement): boolean {
  return r.expect.length > 0 && r.expect.every((t) => (getEntry(t)?.i9_lists?.length ?? 0) > 0);
}

export function isPayslipType(type: string | null): boolean {
  return type !== null && /payslip/.test(type);
}

/** The holder's full name as the document prints it (given names then surnames when printed apart). */
export function fullNameOf(fields: Record<string, unknown>): string | null {
  return str(fields.full_name) ?? ([str(fields.first_name), str(fields.last_name), str(fields.second_last_name)].filter(Boolean).join(' ') || null);
}

/** The holder's personal numbers on a document, by numbering (`es_nif` -> `12345678Z`). */
export function personalNumbersOf(type: string | null, fields: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const entry = type ? getEntry(type) : undefined;
  if (!entry) return out;
  for (const { field, scheme } of entry.field_validators) {
    if (!HOLDER_NUMBER_FIELDS.has(field) || NOT_PERSONAL.has(scheme)) continue;
    const value = str(fields[field]);
    if (value) out.set(SCHEME_GROUP[scheme] ?? scheme, value.replace(/[\s.\-/]/g, '').toUpperCase());
  }
  return out;
}

const monthOf = (d: string): number => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1;
const monthText = (m: number): string => `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;

export function computeVerdict(input: VerdictInput): { verdict: DossierVerdict; checks: CheckResult[] } {
  const { requirements, documents, language } = input;
  const reasons: Reason[] = [];
  const checks: CheckResult[] = [];
  let incomplete = false;
  const reason = (code: string, severity: Severity, key: string, params: Record<string, string | number> = {}) =>
    reasons.push({ code, severity, message: dt(language, key, params) });
  const typeLabel = (type: string) => labelOf(type, language) ?? type;
  const byKey = new Map(documents.map((d) => [d.key, d]));
  const requirementOf = new Map(requirements.map((r) => [r.key, r]));
  const i9Mode = requirements.some(isI9Requirement);

  if (requirements.length === 0 && documents.length === 0) {
    reason('no_documents', 'warning', 'no_documents');
    incomplete = true;
  }

  // 1. Each required document: present, finished, of an expected type. I-9 requirements are judged together (5).
  for (const r of requirements) {
    if (byKey.has(r.key) || (i9Mode && isI9Requirement(r))) continue;
    incomplete = true;
    reason('document_missing', 'warning', 'document_missing', { label: r.label ?? (r.expect.length > 0 ? r.expect.map(typeLabel).join(' / ') : r.key) });
  }

  // 2. Each document held: its own verdict (a human decision wins), and its slot's expected types.
  for (const d of documents) {
    if (d.status === 'queued' || d.status === 'processing') {
      incomplete = true;
      reason('document_processing', 'info', 'document_processing', { key: d.key });
      continue;
    }
    if (d.status === 'failed') {
      incomplete = true;
      reason('document_failed', 'warning', 'document_failed', { key: d.key });
      continue;
    }
    const r = requirementOf.get(d.key);
    if (r && r.expect.length > 0 && (d.type === null || !r.expect.includes(d.type))) {
      reason('type_mismatch', 'error', 'type_mismatch', { key: d.key, label: d.type ? typeLabel(d.type) : '?', expected: r.expect.map(typeLabel).join(' / ') });
    }
    if (d.reviewPending || d.verdictStatus === 'review') reason('document_review', 'warning', 'document_review', { key: d.key });
    else if (d.verdictStatus === 'invalid') reason('document_invalid', 'error', 'document_invalid', { key: d.key });
    else if (d.verdictStatus === 'valid') reason('document_valid', 'info', 'document_valid', { key: d.key });
    else reason('document_unverified', 'warning', 'document_unverified', { key: d.key });
  }

  const done = documents.filter((d) => d.status === 'completed');

  // 3. same_holder: every document naming a person against the reference one (the first identity document, else the
  // first naming a person): the name (folded and fuzzy, as the `holder` check compares), the birth date, and the
  // personal numbers of one numbering.
  const named = done.filter((d) => fullNameOf(d.fields) !== null);
  if (named.length >= 2) {
    const ref = named.find((d) => IDENTITY_CATEGORIES.has(getEntry(d.type ?? '')?.category ?? '')) ?? named[0];
    const refName = fullNameOf(ref.fields)!;
    const refBirth = date(ref.fields.birth_date);
    const refNumbers = personalNumbersOf(ref.type, ref.fields);
    let holderFailed = false;
    for (const d of named) {
      if (d === ref) continue;
      const p = { key: d.key, ref: ref.key };
      if (!fuzzyNameMatch(refName, fullNameOf(d.fields)).match) {
        holderFailed = true;
        reason('same_holder', 'error', 'same_holder.name', p);
      }
      const birth = date(d.fields.birth_date);
      if (refBirth && birth && refBirth !== birth) {
        holderFailed = true;
        reason('same_holder', 'error', 'same_holder.birth_date', p);
      }
      for (const [group, number] of personalNumbersOf(d.type, d.fields)) {
        const other = refNumbers.get(group);
        if (other && other !== number) {
          holderFailed = true;
          reason('same_holder', 'error', 'same_holder.number', p);
          break;
        }
      }
    }
    if (!holderFailed) reason('same_holder', 'info', 'same_holder.ok');
    checks.push({ code: 'same_holder', passed: !holderFailed, message: dt(language, holderFailed ? 'same_holder.fail' : 'same_holder.ok') });
  }

  // 4. consistent_dates.
  let datesJudged = false;
  let datesFailed = false;
  // 4a. No document issued after an identity document of the dossier had expired (it was issued to someone whose
  // identity could no longer be proven with it). A warning: a person renews documents; a human decides.
  const identities = done.filter((d) => IDENTITY_CATEGORIES.has(getEntry(d.type ?? '')?.category ?? '') && date(d.fields.expiry_date));
  for (const id of identities) {
    const expired = date(id.fields.expiry_date)!;
    for (const d of done) {
      if (d === id || IDENTITY_CATEGORIES.has(getEntry(d.type ?? '')?.category ?? '')) continue;
      const issued = date(d.fields.issue_date);
      if (!issued) continue;
      datesJudged = true;
      if (issued > expired) {
        datesFailed = true;
        reason('issued_after_expiry', 'warning', 'issued_after_expiry', { key: d.key, ref: id.key, issued, expired });
      }
    }
  }
  // 4b. Several payslips: consecutive months, none repeated.
  const payslips = done.filter((d) => isPayslipType(d.type));
  if (payslips.length >= 2) {
    datesJudged = true;
    const starts = payslips.map((d) => date(d.fields.period_start_date) ?? date(d.fields.period_end_date) ?? date(d.fields.issue_date));
    if (starts.some((s) => s === null)) {
      datesFailed = true;
      reason('payslips_consecutive', 'warning', 'payslips_consecutive.missing');
    } else {
      const months = (starts as string[]).map(monthOf).sort((a, b) => a - b);
      const consecutive = months.every((m, i) => i === 0 || m === months[i - 1] + 1);
      const params = { months: months.map(monthText).join(', ') };
      if (consecutive) reason('payslips_consecutive', 'info', 'payslips_consecutive.ok', params);
      else {
        datesFailed = true;
        reason('payslips_consecutive', 'error', 'payslips_consecutive.fail', params);
      }
    }
  }
  // 4c. The window a requirement states (`checks.max_age_days`), counted from its `reference_date` or today, also for
  // documents added by `analysis_id` (whose analysis did not run with the requirement's checks).
  for (const d of done) {
    const max = requirementOf.get(d.key)?.checks.max_age_days;
    if (typeof max !== 'number') continue;
    datesJudged = true;
    const issued = date(d.fields.issue_date);
    if (!issued) {
      datesFailed = true;
      reason('document_too_old', 'warning', 'document_too_old.missing', { key: d.key });
      continue;
    }
    const refDate = date(requirementOf.get(d.key)!.checks.reference_date) ?? input.today;
    const days = issueAgeDays(issued, refDate);
    if (days <= max) reason('document_too_old', 'info', 'document_too_old.ok', { key: d.key, days, max });
    else {
      datesFailed = true;
      reason('document_too_old', 'error', 'document_too_old.fail', { key: d.key, days, max });
    }
  }
  if (datesJudged) checks.push({ code: 'consistent_dates', passed: !datesFailed, message: dt(language, datesFailed ? 'consistent_dates.fail' : 'consistent_dates.ok') });

  // 5. US Form I-9: when the dossier asks for I-9 documents, one List A document, or one List B plus one List C
  // document (two different documents; a type on both lists counts as either), among the finished documents.
  if (i9Mode) {
    const listed = done.map((d) => ({ d, lists: getEntry(d.type ?? '')?.i9_lists ?? [] })).filter((x) => x.lists.length > 0);
    for (const { d, lists } of listed) reason('i9_list', 'info', 'i9_list', { key: d.key, list: lists.join(', ') });
    const hasA = listed.some((x) => x.lists.includes('A'));
    const bs = listed.filter((x) => x.lists.includes('B'));
    const cs = listed.filter((x) => x.lists.includes('C'));
    const hasBC = bs.some((b) => cs.some((c) => c.d !== b.d));
    if (hasA) reason('i9_documents', 'info', 'i9_documents.ok_a');
    else if (hasBC) reason('i9_documents', 'info', 'i9_documents.ok_bc');
    else {
      incomplete = true;
      reason('i9_documents', 'warning', bs.length > 0 ? 'i9_documents.missing_c' : cs.length > 0 ? 'i9_documents.missing_b' : 'i9_documents.missing');
    }
    const passed = hasA || hasBC;
    checks.push({ code: 'i9_documents', passed, message: reasons[reasons.length - 1].message });
  }

  // invalid beats incomplete (a replacement is needed whatever else arrives); incomplete beats review (nothing to
  // decide until everything is in).
  const status: DossierStatus = reasons.some((r) => r.severity === 'error')
    ? 'invalid'
    : incomplete
      ? 'incomplete'
      : reasons.some((r) => r.severity === 'warning')
        ? 'review'
        : 'complete_valid';
  return { verdict: { status, reasons }, checks };
}
