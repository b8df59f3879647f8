import type { Reading } from '../../providers/types.ts';
import type { InvoiceInput } from '../../validators/index.ts';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/**
 * What `invoice_totals` is given for an invoice-like reading. Null when the reading has no amount at all (the check
 * is not run).
 *
 * - An embedded e-invoice (CII / UBL) read whole (`reading.invoice`): its EN 16931 structure, complete: every rule
 *   of the standard applies and a contradiction fails the check.
 * - Otherwise the flat fields a reader took from the printed page (text layer, OCR, a model): one VAT row from
 *   `tax_rate`/`tax_base`/`tax_amount`, the lines, the withholding, the total. Such a reading may have missed a part
 *   (a second VAT rate, a tip, a surcharge, a discount line), so it is not complete: what adds up passes, what does
 *   not is inconclusive (`not_run`), never a failure.
 */
export function invoiceInputOf(fields: Record<string, unknown>, reading: Reading): InvoiceInput | null {
  if (reading.invoice) return reading.invoice;
  if (fields.total_amount === undefined && fields.line_items === undefined) return null;
  const lines = Array.isArray(fields.line_items) ? (fields.line_items as Array<Record<string, unknown>>) : [];
  const rate = num(fields.tax_rate);
  return {
    complete: false,
    lines: lines.map((l) => ({ quantity: num(l.quantity), unit_price: num(l.unit_price), amount: num(l.amount), vat_rate: rate })),
    taxes: rate !== null ? [{ rate, base: num(fields.tax_base), vat: num(fields.tax_amount) }] : undefined,
    subtotal: num(fields.tax_base),
    vat_total: num(fields.tax_amount),
    withholding: num(fields.withholding_amount),
    total: num(fields.total_amount),
  };
}
