/**
 * Rules learnt from a study set of receipt photos outside the development set (issue #28, h-rcpt; sources in
 * bench/results/invoices-receipts.md): US restaurant card slips with tip lines, European till receipts (Italian,
 * German, British), PP-OCR's glued words. Synthetic till layouts, hand-built with word boxes.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { page } from './support-text.ts';

/** A till line: a label at the left margin and its amount in the price column. */
const row = (label: string, amount?: string): Array<[number, string]> => (amount === undefined ? [[0.1, label]] : [[0.1, label], [0.7, amount]]);

/** Reads lines as the reader does: the text classifier's type, then that type's fields. */
function read(lines: TextLine[]): { type: string; total: number | null; date: string | null } {
  const cls = classifyText(lines);
  const type = cls.candidates[0].type;
  const fields = extractFields(getEntry(type)!, lines, [], { language: cls.language?.code, country: cls.country });
  const total = (fields.amount ?? fields.total_amount)?.value;
  const date = (fields.payment_date ?? fields.issue_date)?.value;
  return { type, total: typeof total === 'number' ? total : null, date: typeof date === 'string' ? date : null };
}

describe('Italian till receipts (scontrino)', () => {
  it('takes `TOTALE EURO` as the total, `CONTANTE` as the cash handed over', () => {
    const r = read(page([
      row('RISTORANTE DEMO S.R.L.'),
      row('PIAZZA GARIBALDI 2 BRESCIA'),
      row('COPERTO', '5,00'),
      row('TAGLIATELLE AL RAGU', '12,00'),
      row('ACQUA', '2,50'),
      row('CAFFE', '1,50'),
      row('TOTALE EURO', '21,00'),
      row('CONTANTE', '21,00'),
      row('OPERATORE: NESSUNO'),
      row('11-08-2018 21:39 SF'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(21);
    expect(r.date).toBe('2018-08-11');
  });
  it('takes `TOTALE COMPLESSIVO` with no cash line, not `TOTALE IVA`', () => {
    const r = read(page([
      row('SUPERMERCATO DEMO S.P.A.'),
      row('PANE', '2,10'),
      row('LATTE', '1,35'),
      row('TOTALE IVA', '0,31'),
      row('TOTALE COMPLESSIVO', '3,45'),
      row('PAGAMENTO CARTA DI CREDITO', '3,45'),
      row('07.09.2025 15:00 DOC.N.2228-0054 CASSA N.2'),
    ]));
    expect(r.total).toBe(3.45);
  });
});
