/** Calendar arithmetic on `YYYY-MM-DD` strings (UTC, pure: no clock reads). */
import { addYears as addYearsStrict, ageYears } from '../../validators/dates.ts';

export { ageYears };

const DAY = 86_400_000;

function parse(iso: string): number {
  const [y, m, d] = iso.split('-').map(Number);
  return Date.UTC(y, m - 1, d);
}

function format(ms: number): string {
  const dt = new Date(ms);
  return `${String(dt.getUTCFullYear()).padStart(4, '0')}-${String(dt.getUTCMonth() + 1).padStart(2, '0')}-${String(dt.getUTCDate()).padStart(2, '0')}`;
}

export function addDays(iso: string, days: number): string {
  return format(parse(iso) + days * DAY);
}

export function addYears(iso: string, years: number): string {
  return addYearsStrict(iso, years);
}

/** Adds months, clamping the day to the target month's length. */
export function addMonths(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number);
  const total = y * 12 + (m - 1) + months;
  const ty = Math.floor(total / 12);
  const tm = (total % 12) + 1;
  const last = new Date(Date.UTC(ty, tm, 0)).getUTCDate();
  return `${String(ty).padStart(4, '0')}-${String(tm).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

export function daysBetween(a: string, b: string): number {
  return Math.round((parse(b) - parse(a)) / DAY);
}

export function minDate(...ds: string[]): string {
  return ds.reduce((a, b) => (b < a ? b : a));
}

export function maxDate(...ds: string[]): string {
  return ds.reduce((a, b) => (b > a ? b : a));
}

/** First day of the month of `iso`. */
export function monthStart(iso: string): string {
  return iso.slice(0, 8) + '01';
}

/** Last day of the month of `iso`. */
export function monthEnd(iso: string): string {
  return addDays(addMonths(monthStart(iso), 1), -1);
}

export function ymd(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

export function yearOf(iso: string): number {
  return Number(iso.slice(0, 4));
}

/** `YYMMDD` as printed in an MRZ. */
export function yymmdd(iso: string): string {
  return iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
}

/** `DD/MM/YYYY` (not used for field values, which are always ISO; used in free text). */
export function dmy(iso: string): string {
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}
