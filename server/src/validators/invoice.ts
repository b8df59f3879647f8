/**
 * invoice_totals: arithmetic consistency of an invoice, in integer cents.
 *
 *   line amount      = round(quantity x unit_price) - discount      (tolerance 1 cent per line)
 *   base per rate    = sum of line amounts at that VAT rate           (tolerance 1 cent per line at that rate)
 *   VAT per rate     = round(base x rate / 100)                        (tolerance 1 cent per rate)
 *   withholding      = round(base x IRPF% / 100), entered as a negative amount
 *   total            = sum(bases) + sum(VAT) + surcharges - withholding (tolerance 2 cents)
 *
 * Tolerances: ±0.01 per line / per computed amount (rounding per line vs per total), ±0.02 on the
 * invoice total. Each part is only checked when the invoice gives it.
 */
import { makeResult, notRun, type ValidatorResult } from './types.ts';

export const LINE_TOLERANCE_CENTS = 1;
export const TOTAL_TOLERANCE_CENTS = 2;

export interface InvoiceLine {
  quantity?: number | null;
  unit_price?: number | null;
  /** Absolute discount amount of the line (positive number). */
  discount?: number | null;
  /** Discount as a percentage of quantity x unit price. */
  discount_percent?: number | null;
  /** Line amount as printed (net of discount). */
  amount?: number | null;
  vat_rate?: number | null;
}

export interface InvoiceTaxBreakdown {
  rate: number;
  base?: number | null;
  vat?: number | null;
  /** Recargo de equivalencia amount, if any. */
  surcharge?: number | null;
}

export interface InvoiceInput {
  lines?: InvoiceLine[];
  taxes?: InvoiceTaxBreakdown[];
  /** Sum of bases (base imponible total). */
  subtotal?: number | null;
  /** Total VAT. */
  vat_total?: number | null;
  /** IRPF withholding: negative amount (a positive value is read as its magnitude). */
  withholding?: number | null;
  withholding_rate?: number | null;
  total?: number | null;
}

export const toCents = (x: number): number => Math.round(x * 100 + (x >= 0 ? 1e-9 : -1e-9));

interface Finding {
  check: string;
  expected_cents: number;
  found_cents: number;
  tolerance_cents: number;
  ok: boolean;
  index?: number | string;
}

const present = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

export function invoiceTotals(inv: InvoiceInput): ValidatorResult {
  const findings: Finding[] = [];
  const add = (check: string, expected: number, found: number, tol: number, index?: number | string) =>
    findings.push({ check, expected_cents: expected, found_cents: found, tolerance_cents: tol, ok: Math.abs(expected - found) <= tol, ...(index !== undefined ? { index } : {}) });

  // Lines.
  const lineAmounts: Array<{ cents: number; rate: number | null }> = [];
  (inv.lines ?? []).forEach((l, i) => {
    let computed: number | null = null;
    if (present(l.quantity) && present(l.unit_price)) {
      const gross = Math.round(l.quantity * toCents(l.unit_price));
      const disc = present(l.discount) ? toCents(Math.abs(l.discount)) : present(l.discount_percent) ? Math.round((gross * l.discount_percent) / 100) : 0;
      computed = gross - disc;
      if (present(l.amount)) add('line_amount', computed, toCents(l.amount), LINE_TOLERANCE_CENTS, i);
    }
    const cents = present(l.amount) ? toCents(l.amount) : computed;
    if (cents !== null) lineAmounts.push({ cents, rate: present(l.vat_rate) ? l.vat_rate : null });
  });
  const nLines = lineAmounts.length;

  // Bases per rate from lines.
  const taxes = inv.taxes ?? [];
  if (nLines > 0 && lineAmounts.every((l) => l.rate !== null) && taxes.length > 0) {
    for (const t of taxes) {
      if (!present(t.base)) continue;
      const inRate = lineAmounts.filter((l) => l.rate === t.rate);
      const sum = inRate.reduce((a, l) => a + l.cents, 0);
      add('base_per_rate', sum, toCents(t.base), Math.max(LINE_TOLERANCE_CENTS, inRate.length * LINE_TOLERANCE_CENTS), `${t.rate}%`);
    }
  }
  // VAT per rate.
  for (const t of taxes) {
    if (present(t.base) && present(t.vat)) add('vat_per_rate', Math.round((toCents(t.base) * t.rate) / 100), toCents(t.vat), LINE_TOLERANCE_CENTS, `${t.rate}%`);
  }
  // Subtotal.
  const basesFromTaxes = taxes.every((t) => present(t.base)) && taxes.length > 0 ? taxes.reduce((a, t) => a + toCents(t.base!), 0) : null;
  const linesSum = nLines > 0 ? lineAmounts.reduce((a, l) => a + l.cents, 0) : null;
  if (present(inv.subtotal)) {
    if (basesFromTaxes !== null) add('subtotal', basesFromTaxes, toCents(inv.subtotal), TOTAL_TOLERANCE_CENTS);
    else if (linesSum !== null) add('subtotal', linesSum, toCents(inv.subtotal), Math.max(TOTAL_TOLERANCE_CENTS, nLines * LINE_TOLERANCE_CENTS));
  }
  const subtotal = present(inv.subtotal) ? toCents(inv.subtotal) : basesFromTaxes ?? linesSum;
  // VAT total.
  const vatFromTaxes = taxes.length > 0 && taxes.every((t) => present(t.vat)) ? taxes.reduce((a, t) => a + toCents(t.vat!), 0) : null;
  if (present(inv.vat_total) && vatFromTaxes !== null) add('vat_total', vatFromTaxes, toCents(inv.vat_total), TOTAL_TOLERANCE_CENTS);
  const vat = present(inv.vat_total) ? toCents(inv.vat_total) : vatFromTaxes;
  const surcharge = taxes.reduce((a, t) => a + (present(t.surcharge) ? toCents(t.surcharge) : 0), 0);
  // Withholding (IRPF): always subtracted; printed as a negative amount.
  let withholding = present(inv.withholding) ? Math.abs(toCents(inv.withholding)) : 0;
  if (present(inv.withholding_rate) && subtotal !== null) {
    const expectedW = Math.round((subtotal * inv.withholding_rate) / 100);
    if (present(inv.withholding)) add('withholding', expectedW, withholding, LINE_TOLERANCE_CENTS);
    else withholding = expectedW;
  }
  // Total.
  if (present(inv.total) && subtotal !== null) {
    const expectedTotal = subtotal + (vat ?? 0) + surcharge - withholding;
    add('total', expectedTotal, toCents(inv.total), TOTAL_TOLERANCE_CENTS);
  }
  const failed = findings.filter((f) => !f.ok);
  if (findings.length === 0) return notRun('invoice_totals', 'nothing_to_check', { findings, input: inv }, { fields: ['total'] });
  const fields = new Set<string>();
  for (const f of findings) fields.add(f.check === 'line_amount' ? 'lines' : f.check === 'base_per_rate' || f.check === 'vat_per_rate' ? 'taxes' : f.check);
  return makeResult('invoice_totals', failed.length === 0, failed.length ? `${failed[0].check}_mismatch` : 'ok', {
    findings,
    tolerances_cents: { line: LINE_TOLERANCE_CENTS, total: TOTAL_TOLERANCE_CENTS },
    computed: { subtotal_cents: subtotal, vat_cents: vat, surcharge_cents: surcharge, withholding_cents: -withholding },
  }, {
    params: failed.length ? { check: failed[0].check, expected: (failed[0].expected_cents / 100).toFixed(2), found: (failed[0].found_cents / 100).toFixed(2) } : {},
    fields: [...fields],
  });
}
