import type { Reading } from '../../providers/types.ts';
import type { InvoiceInput } from '../../validators/index.ts';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/**
 * What `invoice_totals` is given for an invoice-like reading: its amounts as the reading holds them. Null when the
 * reading has no amount at all (the check is not run).
 */
export function invoiceInputOf(fields: Record<string, unknown>, _reading: Reading): InvoiceInput | null {
  if (fields.total_amount === undefined && fields.line_items === undefined) return null;
  const lines = Array.isArray(fields.line_items) ? (fields.line_items as Array<Record<string, unknown>>) : [];
  const rate = num(fields.tax_rate);
  return {
    lines: lines.map((l) => ({ quantity: num(l.quantity), unit_price: num(l.unit_price), amount: num(l.amount), vat_rate: rate })),
    taxes: rate !== null ? [{ rate, base: num(fields.tax_base), vat: num(fields.tax_amount) }] : undefined,
    subtotal: num(fields.tax_base),
    vat_total: num(fields.tax_amount),
    withholding: num(fields.withholding_amount),
    total: num(fields.total_amount),
  };
}
