// Scoring rules of bench/dev-reading.ts (the development set of issue #28): how a read value is compared with the
// ground truth of ../shared/testdata/documents-dev, and how a miss is classed. Pure functions, unit-tested in
// test/unit/bench/dev-scoring.test.ts. Every rule is restated in bench/results/live-reading.md.

/**
 * An amount as a number: a number is kept; a string is read with its last `.` or `,` followed by one or two digits
 * as the decimal separator, every other separator, space, currency sign or letter dropped ("1.234,50 €" -> 1234.5,
 * "RM 60.30" -> 60.3, "-12,00" -> -12). null when no digit.
 */
export function normaliseAmount(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (!/\d/.test(s)) return null;
  const negative = /^\(.*\)$|^-|-\s*$|^[^\d]*-/.test(s);
  const body = s.replace(/[^\d.,]/g, '');
  const m = /^(.*?)[.,](\d{1,2})$/.exec(body);
  const int = (m ? m[1] : body).replace(/[.,]/g, '');
  const n = Number(`${int || '0'}.${m ? m[2] : '0'}`);
  return negative ? -n : n;
}

/** Two amounts agree to the cent. */
export function sameAmount(read: unknown, truth: unknown): boolean {
  const a = normaliseAmount(read);
  const b = normaliseAmount(truth);
  return a !== null && b !== null && Math.abs(a - b) < 0.005;
}

/**
 * A date as `YYYY-MM-DD`: an ISO date (or date-time) is kept, `YYMMDD` (an MRZ date) is left to the caller. null
 * otherwise (the readers answer ISO dates; the truth's dates are ISO).
 */
export function normaliseDate(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(v.trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** An ISO date as an MRZ `YYMMDD` (no century guessing, as the truth). */
export function isoToYymmdd(v: unknown): string | null {
  const d = normaliseDate(v);
  return d ? d.slice(2).replace(/-/g, '') : null;
}

/**
 * A name for comparison: diacritics removed (Ñ -> N, ß -> SS, Æ -> AE, Ø -> O), upper case, every run of
 * non-letters (MRZ fillers, hyphens, commas, dots, spaces) one space, trimmed.
 */
export function normaliseName(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v
    .replace(/ß/g, 'ss')
    .replace(/[Ææ]/g, 'AE')
    .replace(/[Øø]/g, 'O')
    .replace(/[Œœ]/g, 'OE')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^A-Z]+/g, ' ')
    .trim();
  return s || null;
}

/** An identifier (document or invoice number): upper case, spaces and MRZ fillers removed; every other sign kept (`#`, `/`, `-` count). */
export function normaliseId(v: unknown): string | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const s = String(v).toUpperCase().replace(/[\s<]+/g, '');
  return s || null;
}

/** A VAT id: letters and digits only, upper case; a read value equal to the truth without its 2-letter country prefix also counts. */
export function sameVatId(read: unknown, truth: unknown): boolean {
  const clean = (x: unknown) => (typeof x === 'string' ? x.toUpperCase().replace(/[^A-Z0-9]/g, '') : '');
  const a = clean(read);
  const b = clean(truth);
  if (!a || !b) return false;
  return a === b || (/^[A-Z]{2}/.test(b) && a === b.slice(2)) || (/^[A-Z]{2}/.test(a) && a.slice(2) === b);
}

/** Levenshtein distance (short strings). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j];
      d[j] = Math.min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length];
}

/** Words that print as labels on IDs, receipts and invoices: a read value made only of these is a label taken as value. */
const LABEL_WORDS = new Set([
  'NAME', 'NAMES', 'SURNAME', 'SURNAMES', 'GIVEN', 'FIRST', 'LAST', 'LN', 'FN', 'NOM', 'NOMS', 'PRENOM', 'PRENOMS', 'MBIEMRI', 'EMRI',
  'DOB', 'DATE', 'BIRTH', 'OF', 'EXP', 'EXPIRES', 'EXPIRY', 'ISS', 'ISSUE', 'ISSUED', 'CLASS', 'SEX', 'HGT', 'WGT', 'EYES', 'HAIR', 'DL', 'ID',
  'NO', 'NUMBER', 'NUM', 'CARD', 'LICENSE', 'LICENCE', 'DRIVER', 'DRIVERS', 'INVOICE', 'FACTURE', 'FACTURA', 'RECHNUNG', 'FAKTURA', 'NR', 'N',
  'TOTAL', 'AMOUNT', 'DUE', 'VAT', 'TVA', 'IVA', 'TAX', 'GST', 'RECEIPT', 'CASH', 'CHANGE', 'REF', 'REFERENCE', 'ADDRESS', 'SIGNATURE', 'USA',
]);

export function looksLikeLabel(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const words = v.toUpperCase().split(/[^A-Z]+/).filter(Boolean);
  return words.length > 0 && words.every((w) => LABEL_WORDS.has(w)) && !/\d/.test(v);
}

/** Class of a miss on a text field (name, number): decided from the read value and the truth only. */
export function textMissClass(read: unknown, truth: string, kind: 'name' | 'id'): string {
  if (read === null || read === undefined || read === '') return 'field not found';
  if (looksLikeLabel(read)) return 'label taken as value';
  const a = kind === 'name' ? normaliseName(read) : normaliseId(read);
  const b = kind === 'name' ? normaliseName(truth) : normaliseId(truth);
  if (!a || !b) return 'other text taken';
  if (a.includes(b) || b.includes(a)) return a.length > b.length ? 'read with extra text' : 'read in part';
  if (editDistance(a, b) <= Math.max(1, Math.floor(b.length / 4))) return 'character misread';
  return 'other text taken';
}

/** Class of a miss on an amount. `others`: the truth's other amounts of the document (tax total...), by name. */
export function amountMissClass(read: unknown, truth: unknown, others: Record<string, unknown> = {}): string {
  const a = normaliseAmount(read);
  const b = normaliseAmount(truth);
  if (a === null) return 'field not found';
  if (b === null) return 'amount parsed wrong';
  for (const [name, v] of Object.entries(others)) if (sameAmount(a, v)) return `${name} taken as total`;
  const digits = (n: number) => Math.abs(n).toFixed(2).replace('.', '').replace(/^0+|0+$/g, '');
  if (digits(a) === digits(b) || Math.abs(Math.abs(a) - Math.abs(b)) < 0.005) return 'amount parsed wrong';
  if (editDistance(Math.abs(a).toFixed(2), Math.abs(b).toFixed(2)) === 1) return 'character misread';
  return 'other amount taken';
}

/** Class of a miss on a date (both ISO). */
export function dateMissClass(read: unknown, truth: string): string {
  const a = normaliseDate(read);
  if (a === null) return read === null || read === undefined ? 'field not found' : 'date parsed wrong';
  const [y, m, d] = a.split('-');
  const [ty, tm, td] = truth.split('-');
  if (y === ty && m === td && d === tm) return 'day and month swapped';
  if (m === tm && d === td && y.slice(2) === ty.slice(2)) return 'century wrong';
  const parts = [y === ty, m === tm, d === td].filter(Boolean).length;
  if (parts === 2) return 'character misread';
  return 'other date taken';
}

/** Class of a miss on an MRZ read exactly: shape first (lines, lengths), then the characters that differ. */
export function mrzMissClass(read: unknown, truthLines: readonly string[]): string {
  if (typeof read !== 'string' || !read.trim()) return 'zone not found';
  const lines = read.split('\n');
  if (lines.length !== truthLines.length || lines.some((l, i) => l.length !== truthLines[i].length)) return 'zone misread (wrong format or line length)';
  let n = 0;
  let fillers = 0;
  lines.forEach((l, i) => {
    for (let k = 0; k < l.length; k++) {
      if (l[k] !== truthLines[i][k]) {
        n++;
        if (l[k] === '<' || truthLines[i][k] === '<') fillers++;
      }
    }
  });
  return `character misread (${n} character${n === 1 ? '' : 's'}${fillers ? `, ${fillers} at a filler` : ''})`;
}

/** Class of a wrong type: none (or `unknown_document`), a generic type where a national one was expected (or the reverse), another family. */
export function typeMissClass(read: string | null, expected: readonly string[], family: (t: string) => string): string {
  if (!read || read === 'unknown_document') return 'no type';
  if (expected.some((e) => family(e) === family(read))) return expected.some((e) => e.includes('_') && e.endsWith(read)) ? 'wrong type (generic where a national type exists)' : 'wrong type (same family)';
  return `wrong type (${family(read)} instead of ${family(expected[0])})`;
}

export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

/** The first of `names` a reading filled (`total_amount`, else `amount`...), or null. */
export function fieldValue(r: { fields: Record<string, { value: unknown } | undefined> }, ...names: string[]): unknown {
  for (const n of names) {
    const v = r.fields[n]?.value;
    if (v !== null && v !== undefined) return v;
  }
  return null;
}

export type InvoiceCheck = 'total' | 'date' | 'number' | 'vat';

/**
 * An invoice reading's total, issue date, number and seller VAT id against a truth written by hand (the invoice
 * studies, bench/invoice-study.ts and bench/invoice-scans.ts): the dev bench's comparisons; a truth left out or null
 * is not scored.
 */
export function invoiceChecks(
  r: { fields: Record<string, { value: unknown } | undefined> },
  t: { total?: unknown; issue_date?: unknown; number?: unknown; seller_vat_id?: unknown },
): Array<{ check: InvoiceCheck; ok: boolean; got: unknown; want: unknown }> {
  const rows: Array<[InvoiceCheck, unknown, unknown, (a: unknown, b: unknown) => boolean]> = [
    ['total', fieldValue(r, 'total_amount', 'amount'), t.total, sameAmount],
    ['date', fieldValue(r, 'issue_date', 'payment_date'), t.issue_date, (a, b) => normaliseDate(a) === b],
    ['number', fieldValue(r, 'invoice_number', 'reference'), t.number, (a, b) => normaliseId(a) !== null && normaliseId(a) === normaliseId(b)],
    ['vat', fieldValue(r, 'issuer_tax_id'), t.seller_vat_id, sameVatId],
  ];
  return rows.filter(([, , want]) => want !== null && want !== undefined).map(([check, got, want, same]) => ({ check, ok: same(got, want), got, want }));
}
