/**
 * date_consistency and the date helpers used by the `checks` options (not_expired, max_age_days,
 * min/max_age_years). All dates are `YYYY-MM-DD` strings; the reference date is always passed in.
 */
import { makeResult, isIsoDate, isLeapYear, type ValidatorResult } from './types.ts';

function toDays(iso: string): number {
  const [y, m, d] = iso.split('-').map(Number);
  return Math.floor(Date.UTC(y, m - 1, d) / 86_400_000);
}

function assertDate(name: string, v: string): void {
  if (!isIsoDate(v)) throw new RangeError(`${name} must be a valid YYYY-MM-DD date, got ${JSON.stringify(v)}`);
}

/** Valid on the reference date: expiry on or after it (a document expiring today is still valid today). */
export function notExpired(expiry: string, referenceDate: string): boolean {
  assertDate('expiry', expiry);
  assertDate('referenceDate', referenceDate);
  return expiry >= referenceDate;
}

/** Days from issue to the reference date (negative if issued after it). */
export function issueAgeDays(issue: string, referenceDate: string): number {
  assertDate('issue', issue);
  assertDate('referenceDate', referenceDate);
  return toDays(referenceDate) - toDays(issue);
}

/**
 * Completed years of age on the reference date. Birthday rule: a person born on 29 February
 * turns one year older on 1 March in non-leap years (the legal rule in Spain, Portugal, France,
 * Italy and most US states: the day after 28 February).
 */
export function ageYears(birth: string, referenceDate: string): number {
  assertDate('birth', birth);
  assertDate('referenceDate', referenceDate);
  const [by, bm, bd] = birth.split('-').map(Number);
  const [ry, rm, rd] = referenceDate.split('-').map(Number);
  let age = ry - by;
  // Birthday of this year; 29 Feb -> 1 Mar in non-leap years.
  let [cm, cd] = [bm, bd];
  if (bm === 2 && bd === 29 && !isLeapYear(ry)) [cm, cd] = [3, 1];
  if (rm < cm || (rm === cm && rd < cd)) age--;
  return age;
}

/** Add whole years to a date (29 Feb -> 1 Mar in non-leap target years). */
export function addYears(date: string, years: number): string {
  assertDate('date', date);
  const [y, m, d] = date.split('-').map(Number);
  const ty = y + years;
  if (m === 2 && d === 29 && !isLeapYear(ty)) return `${String(ty).padStart(4, '0')}-03-01`;
  return `${String(ty).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

export type DocumentFamily = 'national_id' | 'passport' | 'driving_licence' | 'residence_permit' | 'other';

/**
 * Plausible validity periods (years between issue and expiry) by family, with a tolerance of
 * `PERIOD_TOLERANCE_DAYS` because expiry often falls on the birthday or the day before.
 * - national_id (Spanish DNI rule): 2 years under 5, 5 years under 30, 10 years under 70,
 *   permanent (no expiry or 9999-12-31 / 31-12-9999) from 70. Other countries: 2 to 15 years.
 * - passport: 5 or 10 years (2 for emergency/children <5 in some countries: 1-10 accepted).
 * - driving_licence: up to 15 years (renewals may be 1-15 years).
 * - residence_permit: up to 10 years.
 */
export const VALIDITY_YEARS: Record<DocumentFamily, { min: number; max: number }> = {
  national_id: { min: 1, max: 15 },
  passport: { min: 1, max: 10 },
  driving_licence: { min: 0, max: 15 },
  residence_permit: { min: 0, max: 10 },
  other: { min: 0, max: 100 },
};
export const PERIOD_TOLERANCE_DAYS = 62;

export function isPermanentExpiry(expiry: string | null | undefined): boolean {
  if (!expiry) return false;
  return /^9999-12-31$/.test(expiry) || /^(PERMANENTE?|PERMANENT|INDEFINIDO|NO CADUCA)$/i.test(expiry.trim());
}

export interface DateConsistencyInput {
  birth_date?: string | null;
  issue_date?: string | null;
  expiry_date?: string | null;
  family?: DocumentFamily;
  /** ISO alpha-3 issuing country; ESP enables the DNI period table for national_id. */
  country?: string | null;
}

/** date_consistency validator. */
export function dateConsistency(input: DateConsistencyInput): ValidatorResult {
  const family = input.family ?? 'other';
  const problems: string[] = [];
  const evidence: Record<string, unknown> = { ...input, family };
  const birth = input.birth_date ?? null;
  const issue = input.issue_date ?? null;
  const expiry = input.expiry_date ?? null;
  const permanent = isPermanentExpiry(expiry);
  for (const [k, v] of [['birth_date', birth], ['issue_date', issue], ['expiry_date', permanent ? null : expiry]] as const) {
    if (v !== null && !isIsoDate(v)) problems.push(`invalid_${k}`);
  }
  const ok = (v: string | null) => v !== null && isIsoDate(v);
  if (ok(issue) && ok(expiry) && !permanent && issue! >= expiry!) problems.push('issue_not_before_expiry');
  if (ok(birth) && ok(issue) && birth! > issue!) problems.push('birth_after_issue');
  if (ok(birth) && ok(expiry) && !permanent && birth! >= expiry!) problems.push('birth_not_before_expiry');
  if (ok(issue) && (ok(expiry) || permanent) && !problems.includes('issue_not_before_expiry')) {
    const holderAgeAtIssue = ok(birth) ? ageYears(birth!, issue!) : null;
    evidence.holder_age_at_issue = holderAgeAtIssue;
    if (permanent) {
      evidence.validity = 'permanent';
      if (family === 'national_id' && holderAgeAtIssue !== null && holderAgeAtIssue < 70) problems.push('permanent_validity_before_70');
      if (family === 'passport') problems.push('implausible_validity_period');
    } else {
      const days = toDays(expiry!) - toDays(issue!);
      const years = days / 365.2425;
      evidence.validity_days = days;
      evidence.validity_years = Math.round(years * 100) / 100;
      let allowed: number[] | null = null;
      if (family === 'national_id' && (input.country ?? '').toUpperCase() === 'ESP' && holderAgeAtIssue !== null) {
        allowed = holderAgeAtIssue < 5 ? [2] : holderAgeAtIssue < 30 ? [5] : holderAgeAtIssue < 70 ? [10] : [10];
        evidence.expected_validity_years = allowed;
        const fits = allowed.some((a) => Math.abs(toDays(addYears(issue!, a)) - toDays(expiry!)) <= PERIOD_TOLERANCE_DAYS);
        if (!fits) problems.push('implausible_validity_period');
      } else {
        const { min, max } = VALIDITY_YEARS[family];
        const tol = PERIOD_TOLERANCE_DAYS / 365.2425;
        evidence.expected_validity_years = { min, max };
        if (years > max + tol || years < min - tol) problems.push('implausible_validity_period');
      }
    }
  }
  evidence.problems = problems;
  const fields = (['birth_date', 'issue_date', 'expiry_date'] as const).filter((k) => input[k]);
  return makeResult('date_consistency', problems.length === 0, problems[0] ?? 'ok', evidence, {
    params: problems.length ? { problem: problems[0] } : {},
    fields: [...fields],
  });
}
