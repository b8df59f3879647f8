/**
 * invoice_totals: the arithmetic of an invoice, in integer cents, as EN 16931 (Factur-X, ZUGFeRD, XRechnung, UBL /
 * Peppol) defines it, extended for what printed Spanish invoices and receipts carry (IRPF withholding, recargo de
 * equivalencia, tips, cash rounding). docs/validators.md has the rules, the tolerances and why.
 *
 *   BT-131 line net amount     = qty x (net price / price base qty) - line allowances + line charges   (R120)
 *   BT-106 sum of line amounts = sum BT-131                                                              (BR-CO-10)
 *   BT-107 / BT-108            = sum of document allowances / charges                                    (BR-CO-11/12)
 *   BT-109 tax basis total     = BT-106 - BT-107 + BT-108                                                (BR-CO-13)
 *   BT-116 per category + rate = its lines - its allowances + its charges                      (BR-S/Z/E/AE/K/G/O/L/M-08)
 *   BT-117 per category + rate = round(BT-116 x BT-119 / 100); 0 for Z, E, AE, K, G, O        (BR-CO-17, BR-x-09)
 *   BT-110 VAT total           = sum BT-117                                                              (BR-CO-14)
 *   BT-112 total with VAT      = BT-109 + BT-110 [+ recargo - IRPF on Spanish invoices]                  (BR-CO-15)
 *   BT-115 amount due          = BT-112 - BT-113 paid + BT-114 rounding [+ tip]                          (BR-CO-16)
 *
 * Every equation is checked only when the input holds all its terms. A finding is *binding* (its contradiction is
 * `failed`) when the rule is one the document must obey and the input is complete (an e-invoice XML, or a caller that
 * says so); otherwise it is *indicative* (its contradiction makes the result `not_run`, reason `inconclusive`: a part
 * the reading did not see could explain it). Nothing to add up is `not_run`, reason `nothing_to_check`.
 */
import { makeResult, notRun, type ValidatorResult } from './types.ts';

/** Sums of amounts (BR-CO-10..16, BR-x-08): exact in the standard; one cent for a producer that rounds differently. */
export const SUM_TOLERANCE_CENTS = 1;
/** Totals read from print (not an e-invoice): base and VAT derived from a VAT-inclusive total may drift a cent each. */
export const TEXT_TOTAL_TOLERANCE_CENTS = 2;
/**
 * VAT per category (BR-CO-17, BR-S-09, BR-L-09, BR-M-09): less than one currency unit, as the CEN and Factur-X
 * validation artefacts test it: VAT computed and rounded per line, then summed, drifts by up to half a cent per line.
 */
export const VAT_TOLERANCE_CENTS = 99;
/** Line net amount (PEPPOL-EN16931-R120): 0.02, plus what the rounding of the price as written can account for. */
export const LINE_TOLERANCE_CENTS = 2;

export interface InvoiceLine {
  /** BT-129 invoiced quantity. */
  quantity?: number | null;
  /** BT-146 item net price (after any price discount). */
  unit_price?: number | null;
  /** BT-149 item price base quantity (the price is per this many units); absent: 1. */
  price_base_quantity?: number | null;
  /** Decimals the price was written with (bounds the rounding it carries); absent: 2. */
  price_decimals?: number | null;
  /** BT-136 line allowance amounts (positive numbers). */
  allowances?: number[];
  /** BT-141 line charge amounts. */
  charges?: number[];
  /** Printed invoices: absolute discount of the line (positive). */
  discount?: number | null;
  /** Printed invoices: discount as a percentage of quantity x unit price. */
  discount_percent?: number | null;
  /** BT-131 line net amount. */
  amount?: number | null;
  /** BT-151 VAT category code (S, Z, E, AE, K, G, O, L, M). */
  vat_category?: string | null;
  /** BT-152 VAT rate, percent. */
  vat_rate?: number | null;
}

/** A document-level allowance (BG-20) or charge (BG-21). */
export interface InvoiceAllowanceCharge {
  /** BT-92 / BT-99 (positive). */
  amount: number;
  /** BT-95 / BT-102. */
  vat_category?: string | null;
  /** BT-96 / BT-103. */
  vat_rate?: number | null;
}

/** One row of the VAT breakdown (BG-23). */
export interface InvoiceTaxBreakdown {
  /** BT-118 VAT category code; absent on printed invoices (grouped by rate only). */
  category?: string | null;
  /** BT-119 rate, percent (absent for category O). */
  rate?: number | null;
  /** BT-116 taxable amount. */
  base?: number | null;
  /** BT-117 VAT amount. */
  vat?: number | null;
  /** Recargo de equivalencia amount at this rate. */
  surcharge?: number | null;
  /** Recargo de equivalencia rate, percent (5.2 with 21 % VAT, 1.4 with 10 %, 0.5 with 4 %...). */
  surcharge_rate?: number | null;
}

export interface InvoiceInput {
  /**
   * The input holds every amount of the document (an e-invoice XML; a caller's structure). Absent: true. A reading of
   * printed amounts that may have missed one (a tip, a second VAT rate, a withholding) is not complete: its
   * contradictions are inconclusive, never failures.
   */
  complete?: boolean;
  /** `CII` / `UBL` when the input is an EN 16931 e-invoice: the standard's rules and tolerances apply. */
  syntax?: 'CII' | 'UBL' | null;
  /** UNTDID 1001 document type (380 invoice, 381 credit note...). */
  type_code?: string | null;
  lines?: InvoiceLine[];
  /** BG-20 document-level allowances. */
  allowances?: InvoiceAllowanceCharge[];
  /** BG-21 document-level charges. */
  charges?: InvoiceAllowanceCharge[];
  /** BG-23 VAT breakdown (printed invoices: one row per rate). */
  taxes?: InvoiceTaxBreakdown[];
  /** BT-106 sum of line net amounts. */
  line_total?: number | null;
  /** BT-107 sum of allowances on document level. */
  allowance_total?: number | null;
  /** BT-108 sum of charges on document level. */
  charge_total?: number | null;
  /** BT-109 invoice total without VAT (base imponible total). */
  subtotal?: number | null;
  /** BT-110 invoice total VAT amount. */
  vat_total?: number | null;
  /** BT-112 invoice total with VAT (printed Spanish invoices: after recargo and IRPF). */
  total?: number | null;
  /** BT-113 paid amount. */
  prepaid?: number | null;
  /** BT-114 rounding amount; on receipts, cash rounding (redondeo). */
  rounding?: number | null;
  /** BT-115 amount due for payment; on receipts, the total paid. */
  amount_due?: number | null;
  /** IRPF withholding: negative as printed (a positive value is read as its magnitude); always subtracted. */
  withholding?: number | null;
  withholding_rate?: number | null;
  /** Base the withholding applies to; absent: the tax basis total. */
  withholding_base?: number | null;
  /** Tip (propina, gratuity), added to what is paid. */
  tip?: number | null;
}

/** Recargo de equivalencia that goes with a Spanish VAT rate (Ley 37/1992 art. 161; 2023-2024 reduced rates too). */
const RECARGO: Record<string, number> = { '21': 5.2, '10': 1.4, '5': 0.62, '4': 0.5, '2': 0.26, '0': 0 };

export const toCents = (x: number): number => Math.round(x * 100 + (x >= 0 ? 1e-9 : -1e-9));

const present = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);
/** An amount written with more than two decimals: its rounding to cents may add half a cent to a sum. */
const subCent = (x: number): boolean => Math.abs(x * 100 - Math.round(x * 100)) > 1e-6;
const extra = (xs: number[]): number => Math.ceil(xs.filter(subCent).length / 2);
const sum = (xs: number[]): number => xs.reduce((a, x) => a + toCents(x), 0);
const text = (cents: number): string => (cents / 100).toFixed(2);

/** EN 16931 VAT category codes (UNCL5305 subset) and how they group: by rate, or by category alone (rate 0). */
const BY_RATE = new Set(['S', 'L', 'M']);
const ZERO_VAT = new Set(['Z', 'E', 'AE', 'K', 'G', 'O']);
const rateKey = (r: number | null | undefined): string => (present(r) ? String(Number(r.toFixed(4))) : '0');

/** Group of a line, allowance, charge or breakdown row; null when its category is not one the standard defines. */
function groupOf(category: string | null | undefined, rate: number | null | undefined): string | null {
  const c = category?.trim().toUpperCase();
  if (!c) return present(rate) ? `rate ${rateKey(rate)}` : null;
  if (BY_RATE.has(c)) return `${c} ${rateKey(rate)}`;
  if (ZERO_VAT.has(c)) return c;
  return null;
}

interface Finding {
  /** Which equation (e.g. `tax_basis_total`). */
  check: string;
  /** The business rule, e.g. `BR-CO-13`. */
  rule: string;
  /** The business term the equation computes, e.g. `BT-109`. */
  bt: string;
  /** Line number (1-based) or VAT group (`S 19`) the finding is about. */
  where?: string;
  expected_cents: number;
  found_cents: number;
  tolerance_cents: number;
  /** A contradiction of a binding finding fails the check; of an indicative one, leaves it inconclusive. */
  binding: boolean;
  ok: boolean;
}

/** Field each equation vouches for when it holds (sets Field.validated). */
const FIELD_OF: Record<string, string> = {
  line_net_amount: 'line_items',
  line_total: 'line_items',
  tax_basis_total: 'tax_base',
  sum_of_bases: 'tax_base',
  vat_taxable_amount: 'tax_base',
  vat_amount: 'tax_amount',
  vat_total: 'tax_amount',
  total: 'total_amount',
  amount_due: 'total_amount',
  withholding: 'withholding_amount',
};

export function invoiceTotals(inv: InvoiceInput): ValidatorResult {
  const complete = inv.complete !== false;
  const en16931 = inv.syntax === 'CII' || inv.syntax === 'UBL';
  const findings: Finding[] = [];
  const add = (f: Omit<Finding, 'ok' | 'binding'>, binding: boolean, alternatives: number[] = []) => {
    const ok = [f.expected_cents, ...alternatives].some((e) => Math.abs(e - f.found_cents) <= f.tolerance_cents);
    findings.push({ ...f, binding: binding && complete, ok });
  };
  const sumTol = en16931 ? SUM_TOLERANCE_CENTS : TEXT_TOTAL_TOLERANCE_CENTS;

  // Lines (BT-131): quantity x price against the line amount. Not an EN 16931 rule (Peppol's R120 is a warning in
  // XRechnung), and a printed line may carry a discount the reading missed: indicative.
  const lines = inv.lines ?? [];
  const lineAmounts: number[] = [];
  lines.forEach((l, i) => {
    let computed: number | null = null;
    if (present(l.quantity) && present(l.unit_price)) {
      const basis = present(l.price_base_quantity) && l.price_base_quantity > 0 ? l.price_base_quantity : 1;
      const allowances = sum(l.allowances ?? []);
      const charges = sum(l.charges ?? []);
      const net = (gross: number) => {
        const disc = present(l.discount) ? toCents(Math.abs(l.discount)) : present(l.discount_percent) ? Math.round((gross * l.discount_percent) / 100) : 0;
        return gross - disc - allowances + charges;
      };
      computed = net(Math.round((l.quantity * l.unit_price * 100) / basis));
      // Some producers write the invoiced quantity as the price base quantity: qty x price is the other reading.
      const alt = basis !== 1 ? [net(Math.round(l.quantity * l.unit_price * 100))] : [];
      const decimals = present(l.price_decimals) ? l.price_decimals : 2;
      const priceRounding = Math.ceil((Math.abs(l.quantity / basis) * 0.5 * 10 ** (2 - decimals)) - 1e-9);
      if (present(l.amount)) {
        add(
          { check: 'line_net_amount', rule: 'PEPPOL-EN16931-R120', bt: 'BT-131', where: String(i + 1), expected_cents: computed, found_cents: toCents(l.amount), tolerance_cents: LINE_TOLERANCE_CENTS + priceRounding },
          false,
          alt,
        );
      }
    }
    const amount = present(l.amount) ? l.amount : computed !== null ? computed / 100 : null;
    if (amount !== null) lineAmounts.push(amount);
  });
  const allLinesHaveAmounts = lines.length > 0 && lineAmounts.length === lines.length;

  // BR-CO-10: BT-106 = sum of BT-131.
  if (present(inv.line_total) && allLinesHaveAmounts) {
    add({ check: 'line_total', rule: 'BR-CO-10', bt: 'BT-106', expected_cents: sum(lineAmounts), found_cents: toCents(inv.line_total), tolerance_cents: sumTol + extra(lineAmounts) }, true);
  }
  // BR-CO-11 / BR-CO-12: BT-107 / BT-108 = sum of the document allowances / charges (when the document lists them).
  const allowances = (inv.allowances ?? []).map((a) => a.amount);
  const charges = (inv.charges ?? []).map((c) => c.amount);
  if (present(inv.allowance_total) && allowances.length > 0) {
    add({ check: 'allowance_total', rule: 'BR-CO-11', bt: 'BT-107', expected_cents: sum(allowances), found_cents: toCents(inv.allowance_total), tolerance_cents: sumTol + extra(allowances) }, true);
  }
  if (present(inv.charge_total) && charges.length > 0) {
    add({ check: 'charge_total', rule: 'BR-CO-12', bt: 'BT-108', expected_cents: sum(charges), found_cents: toCents(inv.charge_total), tolerance_cents: sumTol + extra(charges) }, true);
  }

  // BR-CO-13: BT-109 = BT-106 - BT-107 + BT-108.
  const lineTotal = present(inv.line_total) ? toCents(inv.line_total) : allLinesHaveAmounts ? sum(lineAmounts) : null;
  const allowanceTotal = present(inv.allowance_total) ? toCents(inv.allowance_total) : allowances.length > 0 || complete ? sum(allowances) : null;
  const chargeTotal = present(inv.charge_total) ? toCents(inv.charge_total) : charges.length > 0 || complete ? sum(charges) : null;
  if (present(inv.subtotal) && lineTotal !== null && allowanceTotal !== null && chargeTotal !== null) {
    // Printed invoices: the lines read may not be all of them (a page, a discount line): only an e-invoice binds.
    add(
      { check: 'tax_basis_total', rule: 'BR-CO-13', bt: 'BT-109', expected_cents: lineTotal - allowanceTotal + chargeTotal, found_cents: toCents(inv.subtotal), tolerance_cents: sumTol + (present(inv.line_total) ? 0 : extra(lineAmounts)) },
      en16931 || present(inv.line_total),
    );
  }

  // The VAT breakdown.
  const taxes = inv.taxes ?? [];
  // BR-S-08 & co: each group's taxable amount = its lines - its allowances + its charges. Only when every line,
  // allowance and charge says its group (an unknown category code or a line without one: not judged).
  const lineGroups = lines.map((l) => groupOf(l.vat_category, l.vat_rate));
  const acGroups = [...(inv.allowances ?? []), ...(inv.charges ?? [])].map((a) => groupOf(a.vat_category, a.vat_rate));
  if (allLinesHaveAmounts && taxes.length > 0 && lineGroups.every((g) => g !== null) && acGroups.every((g) => g !== null)) {
    const rows = new Map<string, number[]>();
    for (const t of taxes) {
      const g = groupOf(t.category, t.rate);
      if (g === null || !present(t.base)) continue;
      rows.set(g, [...(rows.get(g) ?? []), t.base]);
    }
    for (const [g, bases] of rows) {
      const own = lineAmounts.filter((_, i) => lineGroups[i] === g);
      const alw = (inv.allowances ?? []).filter((a) => groupOf(a.vat_category, a.vat_rate) === g).map((a) => a.amount);
      const chg = (inv.charges ?? []).filter((c) => groupOf(c.vat_category, c.vat_rate) === g).map((c) => c.amount);
      const category = g.split(' ')[0];
      add(
        {
          check: 'vat_taxable_amount', rule: category === 'rate' ? 'BR-S-08' : `BR-${category}-08`, bt: 'BT-116', where: g.replace(/^rate /, ''),
          expected_cents: sum(own) - sum(alw) + sum(chg), found_cents: sum(bases), tolerance_cents: sumTol + extra([...own, ...alw, ...chg]),
        },
        true,
      );
    }
  }
  // BR-CO-17 / BR-x-09: each row's VAT.
  for (const t of taxes) {
    if (!present(t.base) || !present(t.vat)) continue;
    const c = t.category?.trim().toUpperCase() ?? '';
    const where = ZERO_VAT.has(c) ? c : c ? `${c}${present(t.rate) ? ` ${rateKey(t.rate)}` : ''}` : rateKey(t.rate);
    if (ZERO_VAT.has(c)) {
      add({ check: 'vat_amount', rule: `BR-${c}-09`, bt: 'BT-117', where, expected_cents: 0, found_cents: toCents(t.vat), tolerance_cents: SUM_TOLERANCE_CENTS }, true);
    } else if (present(t.rate)) {
      const expected = Math.round((toCents(t.base) * t.rate) / 100 + (t.base >= 0 ? 1e-9 : -1e-9));
      add({ check: 'vat_amount', rule: BY_RATE.has(c) ? `BR-${c}-09` : 'BR-CO-17', bt: 'BT-117', where, expected_cents: expected, found_cents: toCents(t.vat), tolerance_cents: VAT_TOLERANCE_CENTS }, true);
    }
    // Recargo de equivalencia: binding with the rate given; with the rate inferred from the VAT rate, indicative.
    if (present(t.surcharge)) {
      const rate = present(t.surcharge_rate) ? t.surcharge_rate : present(t.rate) ? RECARGO[rateKey(t.rate)] : undefined;
      if (rate !== undefined) {
        const expected = Math.round((toCents(t.base) * rate) / 100 + (t.base >= 0 ? 1e-9 : -1e-9));
        add({ check: 'surcharge', rule: 'LIVA-161', bt: 'recargo', where, expected_cents: expected, found_cents: toCents(t.surcharge), tolerance_cents: LINE_TOLERANCE_CENTS }, present(t.surcharge_rate));
      }
    }
  }
  const rowsHave = (k: 'base' | 'vat') => taxes.length > 0 && taxes.every((t) => present(t[k]));
  // BR-CO-14: BT-110 = sum of BT-117.
  if (present(inv.vat_total) && rowsHave('vat')) {
    const vats = taxes.map((t) => t.vat as number);
    add({ check: 'vat_total', rule: 'BR-CO-14', bt: 'BT-110', expected_cents: sum(vats), found_cents: toCents(inv.vat_total), tolerance_cents: sumTol + extra(vats) }, true);
  }
  // The bases add up to the tax basis total: what the breakdown means on a printed invoice; in EN 16931 it follows
  // from the rules above only when every category is covered, so there it is indicative.
  if (present(inv.subtotal) && rowsHave('base')) {
    const bases = taxes.map((t) => t.base as number);
    add({ check: 'sum_of_bases', rule: 'BG-23', bt: 'BT-116', expected_cents: sum(bases), found_cents: toCents(inv.subtotal), tolerance_cents: sumTol + extra(bases) }, !en16931);
  }

  // BR-CO-15: BT-112 = BT-109 + BT-110 (+ recargo - withholding on Spanish invoices).
  const subtotal = present(inv.subtotal) ? toCents(inv.subtotal) : lineTotal !== null && allowanceTotal !== null && chargeTotal !== null ? lineTotal - allowanceTotal + chargeTotal : rowsHave('base') ? sum(taxes.map((t) => t.base as number)) : null;
  const vat = present(inv.vat_total) ? toCents(inv.vat_total) : rowsHave('vat') ? sum(taxes.map((t) => t.vat as number)) : complete && en16931 ? 0 : null;
  const surcharge = sum(taxes.filter((t) => present(t.surcharge)).map((t) => t.surcharge as number));
  let withholding = present(inv.withholding) ? Math.abs(toCents(inv.withholding)) : 0;
  if (present(inv.withholding_rate)) {
    const base = present(inv.withholding_base) ? toCents(inv.withholding_base) : subtotal;
    if (base !== null) {
      const expected = Math.round((Math.abs(base) * inv.withholding_rate) / 100 + 1e-9);
      if (present(inv.withholding)) add({ check: 'withholding', rule: 'IRPF', bt: 'withholding', expected_cents: expected, found_cents: withholding, tolerance_cents: LINE_TOLERANCE_CENTS }, true);
      else withholding = expected;
    }
  }
  const sign = subtotal !== null && subtotal < 0 ? -1 : 1;
  const tip = present(inv.tip) ? toCents(inv.tip) : 0;
  const rounding = present(inv.rounding) ? toCents(inv.rounding) : 0;
  if (present(inv.total) && subtotal !== null && vat !== null) {
    const expected = subtotal + vat + surcharge - sign * withholding;
    // A receipt's "total" may already be the amount paid (tip and cash rounding included) when no other is printed.
    const alt = !present(inv.amount_due) && (tip !== 0 || rounding !== 0) ? [expected + tip + rounding] : [];
    add({ check: 'total', rule: 'BR-CO-15', bt: 'BT-112', expected_cents: expected, found_cents: toCents(inv.total), tolerance_cents: sumTol }, true, alt);
  }
  // BR-CO-16: BT-115 = BT-112 - BT-113 + BT-114 (+ tip).
  if (present(inv.amount_due) && present(inv.total) && (complete || present(inv.prepaid) || present(inv.rounding) || present(inv.tip))) {
    const prepaid = present(inv.prepaid) ? toCents(inv.prepaid) : 0;
    add({ check: 'amount_due', rule: 'BR-CO-16', bt: 'BT-115', expected_cents: toCents(inv.total) - prepaid + rounding + tip, found_cents: toCents(inv.amount_due), tolerance_cents: sumTol }, true);
  }

  const evidence = {
    findings,
    complete,
    standard: en16931 ? 'EN 16931' : null,
    tolerances_cents: { sum: sumTol, vat: VAT_TOLERANCE_CENTS, line: LINE_TOLERANCE_CENTS },
    computed: { subtotal_cents: subtotal, vat_cents: vat, surcharge_cents: surcharge, withholding_cents: -withholding, tip_cents: tip, rounding_cents: rounding },
  };
  if (findings.length === 0) return notRun('invoice_totals', 'nothing_to_check', evidence);
  const paramsOf = (f: Finding): Record<string, string | number> => ({
    check: f.check, rule: f.rule, bt: f.bt, expected: text(f.expected_cents), found: text(f.found_cents), tolerance: text(f.tolerance_cents),
    ...(f.where !== undefined ? { where: f.where } : {}),
  });
  const fields = [...new Set(findings.map((f) => FIELD_OF[f.check]).filter((f): f is string => !!f))];
  const failed = findings.find((f) => f.binding && !f.ok);
  if (failed) return makeResult('invoice_totals', false, `${failed.check}_mismatch`, evidence, { params: paramsOf(failed), fields });
  const doubtful = findings.find((f) => !f.ok);
  if (doubtful) return notRun('invoice_totals', 'inconclusive', evidence, { params: paramsOf(doubtful) });
  return makeResult('invoice_totals', true, 'ok', evidence, { fields });
}
