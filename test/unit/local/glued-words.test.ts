/**
 * Label words PP-OCR wrote without their spaces (issue #28, server/src/providers/local/glued-words.ts): a run of
 * letters is parted only where label words cover it whole, or at a case boundary beside one; names and brands stay.
 */
import { describe, expect, it } from 'vitest';
import { coverWords, gluedCuts } from '../../../server/src/providers/local/glued-words.ts';
import { groupChars, type Char } from '../../../server/src/providers/local/paddle-engine.ts';

const spaced = (t: string) => {
  let out = '';
  let last = 0;
  for (const c of gluedCuts(t)) {
    out += `${t.slice(last, c)} `;
    last = c;
  }
  return out + t.slice(last);
};

describe('label words written without spaces', () => {
  it('parts runs that label words cover whole, in the service languages', () => {
    expect(spaced('TOTALAMOUNTDUEONAugust3,2014')).toBe('TOTAL AMOUNT DUE ON August3,2014');
    expect(spaced('Totalfor thisinvoice')).toBe('Total for this invoice');
    expect(spaced('BilltoAddress:')).toBe('Bill to Address:');
    expect(spaced('Paymentterms:')).toBe('Payment terms:');
    expect(spaced('GRANDTOTAL')).toBe('GRAND TOTAL');
    expect(spaced('TOTALTTC')).toBe('TOTAL TTC');
    expect(spaced('Numerodefactura')).toBe('Numero de factura');
    expect(spaced('totalparcial')).toBe('total parcial');
    expect(spaced('DueDate:')).toBe('Due Date:');
  });

  it('leaves names, brands and single words alone', () => {
    for (const w of ['PayPal', 'McDonald', 'BILLON', 'CARDON', 'DELACROIX', 'Rechnungsdatum', 'Summary', 'JOHNSON', 'Netto', 'invoices']) expect(spaced(w)).toBe(w);
    // a joiner never ends a run by itself (`BILLON` is no `bill on`), two joiners never follow each other
    expect(coverWords('billon')).toBeNull();
    expect(coverWords('billon', true)).toEqual([4]);
    expect(coverWords('delatotal')).toBeNull();
  });

  it('cuts the recogniser\'s groups where it left the spaces out', () => {
    const chars = (text: string): Char[] => [...text].map((t, i) => ({ text: t, step: 3 * i, p: 0.95 }));
    const words = groupChars(chars('Totalfor thisinvoice $4.11')).groups.map((g) => g.map((c) => c.text).join(''));
    expect(words).toEqual(['Total', 'for', 'this', 'invoice', '$4.11']);
  });
});
