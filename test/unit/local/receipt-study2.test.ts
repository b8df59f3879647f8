/**
 * Rules learnt from a second study set of receipt photos outside the development set (issue #28, h-rcpt2; sources in
 * bench/results/invoices-receipts.md): card terminal slips, Chilean bills in pesos with a suggested tip, Turkish
 * and Brazilian till receipts, a rand amount OCR split, dates a terminal writes as one number or glued to the time,
 * a slip with no total line, a dispatch note that is no receipt. Synthetic till layouts, hand-built with word boxes.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findAmounts, prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { tillLayout } from '../../../server/src/providers/local/text/receipt.ts';
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

describe('card terminal slips', () => {
  it('a restaurant terminal slip naming the card brand is a payment receipt, not a visa', () => {
    const r = read(page([
      row('TRANSACTION RECORD'),
      row('DEMO TAQUERIA'),
      row('12 KING STREET'),
      row('Purchase'),
      row('Mar 14,2023 19:15:00'),
      row('VISA ************1234'),
      row('TID: V1234567 Entry: Chip(C)'),
      row('Auth#: 012345 Batch: 001'),
      row('Amount', '$48.20'),
      row('Total', '$ 48.20'),
      row('A0000000031010 VISA CREDIT'),
      row('Approved'),
      row('Cardholder copy'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(48.2);
    expect(r.date).toBe('2023-03-14');
  });
  it('a pharmacy slip with its terminal block (merchant and terminal ids, AID) is a till receipt', () => {
    const lines = prepareLines(page([
      row('Demo Pharmacy'),
      row('Tax Invoice/Credit Note - GST No. 123456789'),
      row('Rapid Antigen Test 5pk', '32.99'),
      row('1 SUBTOTAL', '$32.99'),
      row('TOTAL', '$32.99'),
      row('MERCH ID: 611000000000001 TERM ID: N1234567'),
      row('AID A0000000031010'),
    ]));
    expect(tillLayout(lines).score).toBeGreaterThanOrEqual(3);
  });
  it('reads a terminal date written as one number after its label (`20220809 104605`)', () => {
    const r = read(page([
      row('DEMO ELECTRONICS'),
      row('Cable HDMI 3m', '149.00'),
      row('Total 2 item(s)', '154.00'),
      row('Card Payments (Visa Card)', '154.00'),
      row('**** Customer receipt ****'),
      row('Terminal ID: JD1234'),
      row('Date and time: 20220809 104605'),
      row('Card Number: 457896******8273'),
    ]));
    expect(r.total).toBe(154);
    expect(r.date).toBe('2022-08-09');
  });
});

describe('a bill in pesos with a suggested tip', () => {
  const bill = (tipRows: Array<Array<[number, string]>>) =>
    read(page([
      row('BAR DEMO'),
      row('AV. DEMO 123'),
      row('MESA : 0003'),
      row('FECHA: 06/10/2022'),
      row('HORA : 19:08:56'),
      row('SCHOP BLUE MOON 2', '10,400'),
      row('SCHOP HEINEKEN 3', '13,800'),
      row('PAPAS FRITAS 2', '29,000'),
      row('PROMO 1', '7,900'),
      row('Total $', '61,100'),
      ...tipRows,
      row('GRACIAS POR SU VISITA'),
    ]));
  it('reads `61,100` as 61100 (no amount has cents) and never the total with the suggested tip', () => {
    const r = bill([row('PROP.SUGERIDA 10% :', '6,110'), row('Total c/Propina :', '67,210')]);
    expect(r.total).toBe(61100);
    expect(r.date).toBe('2022-10-06');
  });
  it('keeps a weight as a weight (`0,770 KG`)', () => {
    expect(findAmounts('x 0,770 kg', true, true)[0].value).toBe(0.77);
    expect(findAmounts('total $ 28.861', true, true)[0].value).toBe(28861);
    expect(findAmounts('total $ 100,300', true, true)[0].value).toBe(100300);
  });
});

describe('Turkish till receipts (fiş)', () => {
  it('takes `TOPLAM`, not `TOPKDV`, and the `TARİH` date', () => {
    const r = read(page([
      row('DEMO MARKET A.S.'),
      row('TARIH : 08.10.2021'),
      row('SAAT : 19:11'),
      row('FIS NO : 0280'),
      row('NOHUT 1 KG %08', '*8,75'),
      row('MERCIMEK %08', '*11,50'),
      row('FASULYE %08', '*13,00'),
      row('MAKARNA %08', '*2,75'),
      row('TOPKDV', '*2,69'),
      row('TOPLAM', '*36,00'),
      row('KREDI KARTI', '*36,00'),
      row('KASIYER: DEMO'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(36);
    expect(r.date).toBe('2021-10-08');
  });
});

describe('Brazilian cupom fiscal', () => {
  it('is a till receipt by its `CUPOM FISCAL` and `DINHEIRO` lines', () => {
    const r = read(page([
      row('DEMO COMERCIO LTDA'),
      row('CNPJ: 00.000.000/0001-00'),
      row('25/06/2012 14:36:29 CCF: 000002 COO: 000005'),
      row('CUPOM FISCAL'),
      row('001 12345678 ABRACADEIRA', '9,28'),
      row('TOTAL R$', '9,28'),
      row('DINHEIRO', '9,28'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(9.28);
    expect(r.date).toBe('2012-06-25');
  });
});

describe('amounts and dates OCR broke', () => {
  it('reads a rand amount whose thousands comma OCR followed with a space (`R1, 169.96`)', () => {
    const [a] = findAmounts('total r1, 169.96', false);
    expect(a.value).toBe(1169.96);
    expect(a.currency).toBe('ZAR');
  });
  it('reads a year-first date glued to its time (`2017/07/1220:54:54`)', () => {
    const r = read(page([
      row('DEMO SUSHI SDN BHD'),
      row('Table: M1 PAX: 1'),
      row('Bill No: 001-0737'),
      row('Date: 2017/07/1220:54:54'),
      row('SALMON', 'RM17.80'),
      row('UDON', 'RM14.80'),
      row('Total After Rounding', 'RM32.60'),
      row('CASH', 'RM50.00'),
      row('CHANGE', 'RM17.40'),
    ]));
    expect(r.total).toBe(32.6);
    expect(r.date).toBe('2017-07-12');
  });
});

describe('a slip with no total line', () => {
  it('takes the subtotal a payment line received exactly', () => {
    const r = read(page([
      row('DEMO HOME MART'),
      row('TAX INVOICE'),
      row('03139512 2022-03-26 15:41:01'),
      row('Net rope (* 1)', '$5.99'),
      row('Soup bowl (* 1)', '$5.50'),
      row('Kitchenware (* 1)', '$5.50'),
      row('Steel tray (* 1)', '$5.99'),
      row('Price', '$22.98'),
      row('GST', '$3.00'),
      row('Subtotal', '$22.98'),
      row('Received', '$22.98'),
      row('Method', 'Card'),
      row('We do not exchange or refund special offer items.'),
    ]));
    expect(r.total).toBe(22.98);
  });
});

describe('a dispatch note is no receipt', () => {
  it('its due date and payment terms (`Fecha Vencim.`, `Condic. Pago`) weigh against a till', () => {
    const lines = prepareLines(page([
      row('Nota de Despacho: 29539'),
      row('Fecha Emision: 10/07/2024'),
      row('Fecha Vencim.: 10/07/2024'),
      row('Cliente: 271004 DEMO S.A. Condic. Pago: CONTADO'),
      row('Codigo Descripcion Cantidad Precio Neto'),
      row('98438 ESTOPERA 30.00 0.53', '15.90'),
      row('41618 ARO CROMADO 10.00 1.80', '18.00'),
      row('46289 SWITCH 40.00 0.93', '37.20'),
    ]));
    expect(tillLayout(lines).against).toBeGreaterThan(0);
  });
});
