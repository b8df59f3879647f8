/**
 * invoice_totals, rule by rule (docs/validators.md): the EN 16931 equations with their tolerances, the VAT categories,
 * prepaid and rounding, credit notes, and what printed Spanish invoices and receipts add (IRPF, recargo de
 * equivalencia, several rates, exempt lines, tips, cash rounding). Each case that fails says which equation, with the
 * expected and found amounts; a reading that may be incomplete never fails; nothing to add up is not run.
 */
import { describe, expect, it } from 'vitest';
import { invoiceTotals, type InvoiceInput } from '../../../server/src/validators/index.ts';
import { readJson } from './testdata.ts';

const outcome = (i: InvoiceInput) => invoiceTotals(i).outcome;
/** A one-rate EN 16931 invoice (CII): two S 19 % lines, a document allowance and a charge. */
const cii = (): InvoiceInput => ({
  syntax: 'CII',
  type_code: '380',
  lines: [
    { quantity: 2, unit_price: 50, amount: 100, vat_category: 'S', vat_rate: 19 },
    { quantity: 200, unit_price: 25, price_base_quantity: 100, price_decimals: 2, amount: 50, vat_category: 'S', vat_rate: 19 },
  ],
  allowances: [{ amount: 5, vat_category: 'S', vat_rate: 19 }],
  charges: [{ amount: 10, vat_category: 'S', vat_rate: 19 }],
  taxes: [{ category: 'S', rate: 19, base: 155, vat: 29.45 }],
  line_total: 150,
  allowance_total: 5,
  charge_total: 10,
  subtotal: 155,
  vat_total: 29.45,
  total: 184.45,
  prepaid: 0,
  amount_due: 184.45,
});

describe('invoice_totals: EN 16931', () => {
  it('passes a consistent invoice with document allowances and charges and a price base quantity', () => {
    const r = invoiceTotals(cii());
    expect(r.outcome, JSON.stringify(r.evidence)).toBe('passed');
    expect(r.message_key).toBe('invoice_totals.ok');
    const checks = (r.evidence.findings as Array<{ check: string }>).map((f) => f.check);
    for (const c of ['line_net_amount', 'line_total', 'allowance_total', 'charge_total', 'tax_basis_total', 'vat_taxable_amount', 'vat_amount', 'vat_total', 'total', 'amount_due']) {
      expect(checks).toContain(c);
    }
    expect(r.fields).toEqual(expect.arrayContaining(['line_items', 'tax_base', 'tax_amount', 'total_amount']));
  });

  it('fails each equation that one changed number breaks, naming the rule and the business term', () => {
    const cases: Array<[string, (i: InvoiceInput) => void, Record<string, string>]> = [
      ['BT-106', (i) => (i.line_total = 151), { check: 'line_total', rule: 'BR-CO-10', expected: '150.00', found: '151.00' }],
      ['BT-107', (i) => (i.allowance_total = 6), { check: 'allowance_total', rule: 'BR-CO-11', expected: '5.00', found: '6.00' }],
      ['BT-108', (i) => (i.charges![0].amount = 11), { check: 'charge_total', rule: 'BR-CO-12', expected: '11.00', found: '10.00' }],
      ['BT-109', (i) => (i.subtotal = 160), { check: 'tax_basis_total', rule: 'BR-CO-13', bt: 'BT-109', expected: '155.00', found: '160.00' }],
      ['BT-116', (i) => (i.taxes![0].base = 150), { check: 'vat_taxable_amount', rule: 'BR-S-08', where: 'S 19', expected: '155.00', found: '150.00' }],
      ['BT-117', (i) => (i.taxes![0].vat = 31), { check: 'vat_amount', rule: 'BR-S-09', expected: '29.45', found: '31.00' }],
      ['BT-110', (i) => (i.vat_total = 29.55), { check: 'vat_total', rule: 'BR-CO-14', expected: '29.45', found: '29.55' }],
      ['BT-112', (i) => (i.total = 184.47), { check: 'total', rule: 'BR-CO-15', bt: 'BT-112', expected: '184.45', found: '184.47' }],
      ['BT-115', (i) => (i.amount_due = 180), { check: 'amount_due', rule: 'BR-CO-16', expected: '184.45', found: '180.00' }],
    ];
    for (const [name, change, params] of cases) {
      const input = cii();
      change(input);
      const r = invoiceTotals(input);
      expect(r.outcome, name).toBe('failed');
      expect(r.message_key, name).toBe(`invoice_totals.${params.check}_mismatch`);
      expect(r.params, name).toMatchObject(params);
    }
  });

  it('tolerates what genuine e-invoices carry: VAT rounded per line (< 1.00 per category), 1 cent on sums', () => {
    // 30 lines of 0.99 at 19 %: VAT per line 0.19 (0.1881 rounded), summed 5.70; per category 29.70 x 19 % = 5.64.
    const lines = Array.from({ length: 30 }, () => ({ quantity: 1, unit_price: 0.99, amount: 0.99, vat_category: 'S', vat_rate: 19 }));
    const base: InvoiceInput = { syntax: 'UBL', lines, taxes: [{ category: 'S', rate: 19, base: 29.7, vat: 5.7 }], line_total: 29.7, subtotal: 29.7, vat_total: 5.7, total: 35.4, amount_due: 35.4 };
    expect(outcome(base)).toBe('passed');
    expect(outcome({ ...base, taxes: [{ category: 'S', rate: 19, base: 29.7, vat: 6.64 }], vat_total: 6.64, total: 36.34, amount_due: 36.34 })).toBe('failed');
    expect(outcome({ ...base, line_total: 29.71 })).toBe('passed');
    expect(outcome({ ...base, line_total: 29.72 })).toBe('failed');
  });

  it('checks several rates per rate, and each category by its own rule', () => {
    // S 19 and S 7, a zero-rated line, an exempt line, reverse charge, intra-community, export, not subject,
    // Canary IGIC (L) and Ceuta/Melilla IPSI (M): each taxable amount from its own lines.
    const input: InvoiceInput = {
      syntax: 'CII',
      lines: [
        { quantity: 1, unit_price: 100, amount: 100, vat_category: 'S', vat_rate: 19 },
        { quantity: 1, unit_price: 50, amount: 50, vat_category: 'S', vat_rate: 7 },
        { quantity: 1, unit_price: 10, amount: 10, vat_category: 'Z', vat_rate: 0 },
        { quantity: 1, unit_price: 20, amount: 20, vat_category: 'E', vat_rate: 0 },
        { quantity: 1, unit_price: 30, amount: 30, vat_category: 'AE', vat_rate: 0 },
        { quantity: 1, unit_price: 40, amount: 40, vat_category: 'K', vat_rate: 0 },
        { quantity: 1, unit_price: 60, amount: 60, vat_category: 'G', vat_rate: 0 },
        { quantity: 1, unit_price: 70, amount: 70, vat_category: 'O' },
        { quantity: 1, unit_price: 80, amount: 80, vat_category: 'L', vat_rate: 7 },
        { quantity: 1, unit_price: 90, amount: 90, vat_category: 'M', vat_rate: 4 },
      ],
      taxes: [
        { category: 'S', rate: 19, base: 100, vat: 19 },
        { category: 'S', rate: 7, base: 50, vat: 3.5 },
        { category: 'Z', rate: 0, base: 10, vat: 0 },
        { category: 'E', rate: 0, base: 20, vat: 0 },
        { category: 'AE', rate: 0, base: 30, vat: 0 },
        { category: 'K', rate: 0, base: 40, vat: 0 },
        { category: 'G', rate: 0, base: 60, vat: 0 },
        { category: 'O', base: 70, vat: 0 },
        { category: 'L', rate: 7, base: 80, vat: 5.6 },
        { category: 'M', rate: 4, base: 90, vat: 3.6 },
      ],
      line_total: 550,
      subtotal: 550,
      vat_total: 31.7,
      total: 581.7,
      amount_due: 581.7,
    };
    const r = invoiceTotals(input);
    expect(r.outcome, JSON.stringify(r.evidence)).toBe('passed');
    const groups = (r.evidence.findings as Array<{ check: string; where?: string }>).filter((f) => f.check === 'vat_taxable_amount').map((f) => f.where);
    expect(groups.sort()).toEqual(['AE', 'E', 'G', 'K', 'L 7', 'M 4', 'O', 'S 19', 'S 7', 'Z']);
    // Reverse charge with VAT charged, an exempt line moved to the standard rate: failures of their own rules.
    const withVat = structuredClone(input);
    withVat.taxes![4].vat = 5.7;
    withVat.vat_total = 37.4;
    withVat.total = 587.4;
    withVat.amount_due = 587.4;
    expect(invoiceTotals(withVat).params).toMatchObject({ check: 'vat_amount', rule: 'BR-AE-09', where: 'AE', expected: '0.00', found: '5.70' });
    const moved = structuredClone(input);
    moved.lines![3].vat_category = 'S';
    moved.lines![3].vat_rate = 19;
    expect(invoiceTotals(moved).params).toMatchObject({ check: 'vat_taxable_amount', rule: 'BR-S-08', where: 'S 19', expected: '120.00', found: '100.00' });
  });

  it('prepaid and rounding amounts: due = total - paid + rounding', () => {
    const i = { ...cii(), prepaid: 84.45, rounding: 0.01, amount_due: 100.01 };
    expect(outcome(i)).toBe('passed');
    expect(outcome({ ...i, amount_due: 100 })).toBe('passed'); // one cent
    expect(invoiceTotals({ ...i, amount_due: 100.05 }).params).toMatchObject({ check: 'amount_due', expected: '100.01', found: '100.05' });
  });

  it('credit notes pass with positive amounts (type 381) and with negative ones', () => {
    expect(outcome({ ...cii(), type_code: '381' })).toBe('passed');
    const neg: InvoiceInput = {
      syntax: 'CII', type_code: '380',
      taxes: [{ category: 'S', rate: 20, base: -20.48, vat: -4.1 }, { category: 'S', rate: 5.5, base: -198, vat: -10.89 }],
      line_total: -218.48, subtotal: -218.48, vat_total: -14.99, total: -233.47, prepaid: -0, amount_due: -233.47,
    };
    expect(outcome(neg)).toBe('passed');
    expect(outcome({ ...neg, total: -233.57 })).toBe('failed');
  });

  it('a line that does not add up (Peppol R120, a warning in XRechnung) is inconclusive, never a failure', () => {
    const i = cii();
    i.lines![0].amount = 90;
    i.lines![1].amount = 60; // the sums still hold: only the line equations are off
    const r = invoiceTotals(i);
    expect(r.outcome).toBe('not_run');
    expect(r.message_key).toBe('invoice_totals.inconclusive');
    expect(r.params).toMatchObject({ check: 'line_net_amount', rule: 'PEPPOL-EN16931-R120', where: '1', expected: '100.00', found: '90.00' });
  });

  it('line allowances and charges, price base quantity, and a producer that writes the quantity as base quantity', () => {
    const line = { quantity: 10, unit_price: 5, allowances: [2], charges: [1], amount: 49 };
    expect(outcome({ lines: [line] })).toBe('passed');
    expect(outcome({ lines: [{ ...line, amount: 50 }] })).toBe('not_run');
    // 15 g at 10.00 with base quantity 15 g: strictly 10.00, as written 150.00 (Odoo's UBL).
    expect(outcome({ syntax: 'UBL', lines: [{ quantity: 15, unit_price: 10, price_base_quantity: 15, amount: 150 }] })).toBe('passed');
    // A price rounded to 4 decimals over 1000 units.
    expect(outcome({ lines: [{ quantity: 1000, unit_price: 0.3333, price_decimals: 4, amount: 333.33 }] })).toBe('passed');
  });
});

describe('invoice_totals: printed Spanish invoices and receipts', () => {
  it('IRPF withholding, several rates with discounts, checked against its rate', () => {
    const spanish: InvoiceInput = {
      lines: [
        { quantity: 3, unit_price: 19.99, discount: 2, amount: 57.97, vat_rate: 21 },
        { quantity: 1, unit_price: 100, discount_percent: 10, amount: 90, vat_rate: 21 },
        { quantity: 2, unit_price: 5.5, amount: 11, vat_rate: 10 },
      ],
      taxes: [{ rate: 21, base: 147.97, vat: 31.07 }, { rate: 10, base: 11, vat: 1.1 }],
      subtotal: 158.97, vat_total: 32.17, withholding: -23.85, withholding_rate: 15, total: 167.29,
    };
    expect(invoiceTotals(spanish).outcome, JSON.stringify(invoiceTotals(spanish).evidence)).toBe('passed');
    expect(invoiceTotals({ ...spanish, withholding: -25 }).params).toMatchObject({ check: 'withholding', expected: '23.85', found: '25.00' });
    expect(invoiceTotals({ ...spanish, total: 191.14 }).params).toMatchObject({ check: 'total', expected: '167.29', found: '191.14' });
    // The withholding given as a rate only: subtracted all the same.
    expect(outcome({ ...spanish, withholding: null })).toBe('passed');
  });

  it('recargo de equivalencia per rate', () => {
    const re: InvoiceInput = {
      taxes: [{ rate: 21, base: 100, vat: 21, surcharge: 5.2, surcharge_rate: 5.2 }, { rate: 10, base: 50, vat: 5, surcharge: 0.7, surcharge_rate: 1.4 }],
      subtotal: 150, vat_total: 26, total: 181.9,
    };
    expect(outcome(re)).toBe('passed');
    const wrong = structuredClone(re);
    wrong.taxes![0].surcharge = 4;
    wrong.total = 180.7;
    expect(invoiceTotals(wrong).params).toMatchObject({ check: 'surcharge', where: '21', expected: '5.20', found: '4.00' });
    // Without its rate, the recargo is compared with the one the law sets for that VAT rate: indicative only.
    delete wrong.taxes![0].surcharge_rate;
    expect(outcome(wrong)).toBe('not_run');
  });

  it('exempt lines beside taxed ones', () => {
    expect(outcome({ taxes: [{ rate: 21, base: 100, vat: 21 }, { category: 'E', rate: 0, base: 30, vat: 0 }], subtotal: 130, vat_total: 21, total: 151 })).toBe('passed');
    expect(invoiceTotals({ taxes: [{ rate: 21, base: 100, vat: 21 }, { category: 'E', rate: 0, base: 30, vat: 6.3 }], subtotal: 130, vat_total: 27.3, total: 157.3 }).params).toMatchObject({ check: 'vat_amount', rule: 'BR-E-09' });
  });

  it('receipts: a tip and cash rounding between subtotal + tax and the total paid', () => {
    const receipt: InvoiceInput = { taxes: [{ rate: 10, base: 20, vat: 2 }], subtotal: 20, vat_total: 2, total: 22, tip: 3, amount_due: 25 };
    expect(outcome(receipt)).toBe('passed');
    expect(invoiceTotals({ ...receipt, amount_due: 26 }).params).toMatchObject({ check: 'amount_due', expected: '25.00', found: '26.00' });
    // Only one total printed, after the tip.
    expect(outcome({ ...receipt, total: 25, amount_due: null })).toBe('passed');
    expect(outcome({ ...receipt, total: 26, amount_due: null })).toBe('failed');
    // Cash rounding to 0.05.
    const cash: InvoiceInput = { taxes: [{ rate: 21, base: 8.26, vat: 1.73 }], subtotal: 8.26, vat_total: 1.73, total: 9.99, rounding: 0.01, amount_due: 10 };
    expect(outcome(cash)).toBe('passed');
    expect(outcome({ ...cash, total: 10, amount_due: null })).toBe('passed');
    expect(outcome({ ...cash, rounding: -0.04, amount_due: 9.95 })).toBe('passed');
  });

  it('a rectifying invoice (negative amounts) with IRPF', () => {
    expect(outcome({ taxes: [{ rate: 21, base: -100, vat: -21 }], subtotal: -100, vat_total: -21, withholding: 15, withholding_rate: 15, total: -106 })).toBe('passed');
  });

  it('the invoice2data samples add up (Orlen net + VAT = gross, Netpresse)', () => {
    const orlen = readJson<any[]>('documents/invoices/invoice2data/Orlen.json')[0];
    const s = orlen.sums[0];
    expect(outcome({ taxes: [{ rate: s.rate, base: s.net, vat: s.vat }], total: orlen.amount })).toBe('passed');
    const np = readJson<any[]>('documents/invoices/invoice2data/NetpresseInvoice.json')[0];
    expect(outcome({ subtotal: np.amount_untaxed, taxes: [{ rate: 20, base: np.amount_untaxed, vat: 9.34 }], total: np.amount })).toBe('passed');
  });
});

describe('invoice_totals: what cannot be judged', () => {
  it('only a total, or too few parts, is not run', () => {
    for (const i of [{}, { total: 121 }, { total: 121, vat_total: 21 }, { subtotal: 100, total: 121 }, { lines: [{ amount: 10 }], total: 12.1 }] as InvoiceInput[]) {
      const r = invoiceTotals(i);
      expect(r.outcome, JSON.stringify(i)).toBe('not_run');
      expect(r.message_key).toBe('invoice_totals.nothing_to_check');
      expect(r.passed).toBe(false);
    }
  });

  it('a reading that may have missed a part never fails: what does not add up is inconclusive', () => {
    // Printed base, VAT and a total that includes a tip the reading did not see.
    const r = invoiceTotals({ complete: false, taxes: [{ rate: 10, base: 20, vat: 2 }], subtotal: 20, vat_total: 2, total: 25 });
    expect(r.outcome).toBe('not_run');
    expect(r.message_key).toBe('invoice_totals.inconclusive');
    expect(r.params).toMatchObject({ check: 'total', expected: '22.00', found: '25.00' });
    // The same reading when it does add up passes.
    expect(outcome({ complete: false, taxes: [{ rate: 10, base: 20, vat: 2 }], subtotal: 20, vat_total: 2, total: 22 })).toBe('passed');
    // One rate read for an invoice of several: the total VAT is not that rate's.
    expect(outcome({ complete: false, taxes: [{ rate: 21, base: 150, vat: 26 }], subtotal: 150, vat_total: 26, total: 176 })).toBe('not_run');
  });

  it('printed totals tolerate 2 cents, not 3', () => {
    expect(outcome({ subtotal: 100, vat_total: 21, taxes: [{ rate: 21, base: 100, vat: 21 }], total: 121.02 })).toBe('passed');
    expect(invoiceTotals({ subtotal: 100, vat_total: 21, taxes: [{ rate: 21, base: 100, vat: 21 }], total: 121.03 }).params).toMatchObject({ check: 'total', expected: '121.00', found: '121.03' });
  });
});
