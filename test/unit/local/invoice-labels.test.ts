/**
 * Invoice numbers, dates, totals and seller tax ids in the many forms invoices and till receipts print them (issue
 * #28): label forms of seven languages and their OCR spellings, values right of or below their label, dates glued
 * to a time, compound labels OCR wrote without spaces, national tax-id formats with their check digits. Lines are
 * hand-built with word boxes (`page`), as a text layer or an OCR engine gives them.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findTaxIds } from '../../../server/src/providers/local/text/ids.ts';
import { documentDayFirst, findDates, foldKeep, prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { receiptTotal } from '../../../server/src/providers/local/text/receipt.ts';
import { findAmounts } from '../../../server/src/providers/local/text/normalize.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { left, page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const receipt = getEntry('payment_receipt')!;
const field = (lines: TextLine[], name: string, entry = invoice) => extractFields(entry, lines, [])[name] ?? null;
const value = (lines: TextLine[], name: string, entry = invoice) => field(lines, name, entry)?.value ?? null;

describe('invoice numbers in their many label forms', () => {
  const cases: Array<[string, string]> = [
    ['Invoice #: 10234', '10234'],
    ['Invoice Number 2024/118', '2024/118'],
    ['Invoice No 7781', '7781'],
    ['INV0ICE N0: 17936/102/T0275', '17936/102/T0275'],
    ['Inv. No.: S-000123', 'S-000123'],
    ['Invoice: 100234', '100234'],
    ['Factura nº: A-2024/015', 'A-2024/015'],
    ['Nº de factura: F2024-0031', 'F2024-0031'],
    ['Número de factura: 2024-001', '2024-001'],
    ['Factura número 2024-77', '2024-77'],
    ['Rechnungs-Nr.: 4711', '4711'],
    ['Rechnungsnr. 2024-0815', '2024-0815'],
    ['Re.-Nr. 2024-55', '2024-55'],
    ['Belegnummer: 99812', '99812'],
    ['Numéro de facture : FA-00042', 'FA-00042'],
    ['N° de facture : FA-00043', 'FA-00043'],
    ['Facture N° 2024-118', '2024-118'],
    ['Fatura n.º FT 2024/35', 'FT 2024/35'],
    ['Nº da fatura: FT A/118', 'FT A/118'],
    ['Nota fiscal nº 000.123.456', '000.123.456'],
    ['NF-e Nº 4521', '4521'],
    ['Fattura n. 12/2024', '12/2024'],
    ['Numero fattura: 2024/0099', '2024/0099'],
    ['Factuurnummer: 2024-0007', '2024-0007'],
    ['Bill No: B-1182', 'B-1182'],
    ['Folio: A1234', 'A1234'],
    ['Doc No: CS00241999', 'CS00241999'],
  ];
  for (const [text, want] of cases) {
    it(`reads ${JSON.stringify(text)}`, () => {
      expect(value(left(['Acme Ltd', text, 'Date: 02/03/2024', 'Total 100.00']), 'invoice_number')).toBe(want);
    });
  }
  it('reads the number in the cell right of its label, and in the row below a header row of labels', () => {
    const right = page([[[0.05, 'Acme Ltd']], [[0.55, 'Invoice number'], [0.8, 'INV-0042']], [[0.55, 'Date'], [0.8, '2024-03-02']], [[0.55, 'Total'], [0.8, '10.00']]]);
    expect(value(right, 'invoice_number')).toBe('INV-0042');
    const table = page([[[0.05, 'Acme Ltd']], [[0.05, 'Invoice No.'], [0.35, 'Invoice Date'], [0.65, 'Due Date']], [[0.05, '2024-118'], [0.35, '02/03/2024'], [0.65, '02/04/2024']], [[0.6, 'Total 10.00']]]);
    expect(value(table, 'invoice_number')).toBe('2024-118');
  });
  it('reads a label alone on its line with the number on the line below', () => {
    expect(value(left(['Acme Ltd', 'INVOICE NUMBER', 'INV-7781', 'Total 10.00']), 'invoice_number')).toBe('INV-7781');
  });
  it('never takes a phone, an order or a customer number for the invoice number', () => {
    expect(value(left(['Acme Ltd', 'Order No: 5512', 'Customer No: 8812', 'Tel No: 5551234', 'Total 10.00']), 'invoice_number')).toBeNull();
  });
});

describe('dates as receipts and invoices print them', () => {
  const cases: Array<[string, boolean, string]> = [
    ['order no. 1000219 11/03/201806:20pm', true, '2018-03-11'],
    ['22mar201818:24', true, '2018-03-22'],
    ['date 02/02/20177:31:08pm', true, '2017-02-02'],
    ['receipt: 71857936 02/03/1805:16pm', true, '2018-03-02'],
    ['cb#: 389720 17/01/201842153', true, '2018-01-17'],
    ['ord #94-reg#19-21/05/2018 11:59:48', true, '2018-05-21'],
    ['mar22, 2019', false, '2019-03-22'],
    ['27 avril 2019', true, '2019-04-27'],
    ['3. märz 2020', true, '2020-03-03'],
    ['15 de marzo de 2024', true, '2024-03-15'],
    ['1 febbraio 2020', true, '2020-02-01'],
    ['12 de dezembro de 2023', true, '2023-12-12'],
    ['2018年03月23日', true, '2018-03-23'],
    ['04/27/19', true, '2019-04-27'],
    ['22-mar-18', true, '2018-03-22'],
  ];
  for (const [text, dayFirst, want] of cases) {
    it(`reads ${JSON.stringify(text)}`, () => {
      expect(findDates(foldKeep(text), dayFirst).map((d) => d.value)).toContain(want);
    });
  }
  it('does not count amounts that look like dates (dots and spaces) when deciding day or month first', () => {
    const lines = prepareLines(left(['S=6. 35.32 2.12', 'Total RM 37.45', '06:34PM 562004 07-02-17']));
    expect(documentDayFirst(lines, 'en', null)).toBe(true);
  });
  it("repairs letters OCR read for digits inside a receipt's date, with less confidence", () => {
    const lines = left(['SHOP SDN BHD', 'Date: 29/12/2O17 10:30', 'ITEM 1 9.00', 'TOTAL RM 27.00', 'CASH RM 50.00', 'CHANGE RM 23.00', 'Thank you']);
    const f = field(lines, 'issue_date', receipt);
    expect(f?.value).toBe('2017-12-29');
    expect(f!.confidence).toBeLessThan(0.7);
  });
  it('reads a dotted date whose point OCR read as a comma (04.12,2014)', () => {
    const lines = left(['REWE Markt', 'SUPPENGRUEN 0,99 B', 'SUMME EUR 0,99', 'Geg. BAR EUR 2,00', 'Ruckgeld BAR EUR 1,01', '04.12,2014 11:26 Bon-Nr.:1433', 'Kasse:3']);
    expect(value(lines, 'issue_date', receipt)).toBe('2014-12-04');
    expect(value(lines, 'total_amount', receipt) ?? value(lines, 'amount', receipt)).toBe(0.99);
  });
  it("reads a receipt's date glued to its time", () => {
    const lines = left(['SHOP SDN BHD', 'Date:11/5/201813:14:32', 'ITEM 1 9.00', 'TOTAL RM 27.00', 'CASH RM 50.00', 'CHANGE RM 23.00', 'Thank you']);
    expect(value(lines, 'issue_date', receipt)).toBe('2018-05-11');
  });
});

describe('receipt totals with compound labels OCR wrote without spaces', () => {
  const total = (rows: string[]) => {
    const lines = prepareLines(left(rows));
    return receiptTotal(lines, lines.map((l) => findAmounts(l.fold, false)))?.value ?? null;
  };
  it('reads TotalPayable and TotalAmtPayable', () => {
    expect(total(['Total 6% supplies (Inc.GST): -18.80', 'Total0%supplies: 39.01', 'TotalPayable: 20.21', 'Thank you'])).toBe(20.21);
    expect(total(['001697 5.00 1.00 5.00SR', '766271 1.00 22.00 22.00SR', 'TotalAmtIncl.GST@6%: 2700', 'RoundingAdjusment: 0.00', 'TotalAmtPayable: 27.00', 'TotalQtyTender 6'])).toBe(27);
  });
  it('reads glued cash and change lines as the proof of a misread total (CASHTENDERED, CHANGEDUE)', () => {
    expect(total(['ITEM A 1 12.50', 'ITEM B 1 7.50', 'T0TAL 2O.OO', 'CASHTENDERED 50.00', 'CHANGEDUE 30.00'])).toBe(20);
  });
  it('reads ROUNDEDTOTAL and TOTALRM as totals, a rounded total over the unrounded one', () => {
    expect(total(['ITEM A 1 12.52', 'ITEM B 1 7.50', 'TOTAL INCL GST 20.02', 'ROUNDING ADJ -0.02', 'ROUNDEDTOTAL 20.00', 'Thank you'])).toBe(20);
    expect(total(['ITEM A 1 12.50', 'ITEM B 1 7.50', 'TOTALRM 20.00', 'Thank you'])).toBe(20);
  });
  it('does not take the tax a total "includes" for the total (fullwidth brackets read as ASCII)', () => {
    expect(total(['Total （incl GST) 70.30', 'Cash Tendered 70.30', 'Change 0.00', 'TOTAL INCLUDES 6% GST 3.98'])).toBe(70.3);
  });
});

describe('seller tax ids by national format', () => {
  it('reads a Chinese unified social credit code by its check character', () => {
    expect(findTaxIds('纳税人识别号: 91420000753416406R').map((m) => [m.kind, m.value])).toEqual([['cn_uscc', '91420000753416406R']]);
    expect(findTaxIds('91420000753416406X')).toEqual([]);
  });
  it('reads a Swiss UID with its MWST suffix', () => {
    expect(findTaxIds('MWST-Nr. CHE-116.281.710 MWST').map((m) => [m.kind, m.value])).toEqual([['ch_uid', 'CHE116281710']]);
  });
});

describe('reference numbers of generated invoices, in their languages', () => {
  const cases: Array<[string, string]> = [
    ['Reference Number: #1721', '#1721'],
    ['Referencia: #1721', '#1721'],
    ['Référence : #1721', '#1721'],
    ['Referenz: #1721', '#1721'],
    ['Riferimento: #1721', '#1721'],
    ['Referência: #1721', '#1721'],
    ['Numéro de référence: #1721', '#1721'],
    ['参考编号: #1721', '#1721'],
  ];
  for (const [text, want] of cases) {
    it(`reads ${JSON.stringify(text)}`, () => {
      const lines = page([[[0.7, 'INVOICE']], [[0.7, text]], [[0.7, 'Date: 25/12/2023']], [[0.05, 'Acme Ltd']], [[0.6, 'Total £774.70']]]);
      expect(value(lines, 'invoice_number')).toBe(want);
    });
  }
  it('reads a number printed right-to-left beside an Arabic label (`1721#` for #1721)', () => {
    const lines = page([[[0.7, 'فاتورة']], [[0.7, '1721#مصدر: رقم']], [[0.05, 'Acme Ltd 25/12/2023تاريخ:']], [[0.6, 'Total £724.70']]]);
    expect(value(lines, 'invoice_number')).toBe('#1721');
  });
  it("reads a Chinese VAT invoice: number (fullwidth colon), date, total, and the seller's credit code below the buyer's", () => {
    const lines = page([
      [[0.3, '增值税普通发票']],
      [[0.6, '发票号码：07007198']],
      [[0.05, '购'], [0.1, '名 称：武汉市车城物流有限公司']],
      [[0.05, '买'], [0.1, '纳税人识别号：914201007483062457']],
      [[0.6, '开票日期: 2018年03月23日']],
      [[0.05, '价税合计(大写) 贰佰玖拾肆圆捌角贰分'], [0.6, '(小写) ¥294.82']],
      [[0.05, '销售方 名称: 某某有限公司']],
      [[0.05, '纳税人识别号: 91420000753416406R']],
    ]);
    expect(classifyText(lines).candidates[0].type).toBe('invoice');
    const f = extractFields(invoice, lines, []);
    expect(f.invoice_number?.value).toBe('07007198');
    expect(f.issue_date?.value).toBe('2018-03-23');
    expect(f.total_amount?.value).toBe(294.82);
    expect(f.issuer_tax_id?.value).toBe('91420000753416406R');
  });
});

describe('issue dates by label', () => {
  const cases: Array<[string, string]> = [
    ['Date de facturation : 20/03/2024', '2024-03-20'],
    ['Data di emissione: 02/03/2024', '2024-03-02'],
    ['Issued: 2 March 2024', '2024-03-02'],
    ['Fecha de emisión: 02/03/2024', '2024-03-02'],
    ['Data de emissão: 02/03/2024', '2024-03-02'],
  ];
  for (const [text, want] of cases) {
    it(`reads ${JSON.stringify(text)} before a due date printed above it`, () => {
      expect(value(left(['Acme SARL', 'Due date: 01/04/2024', text, 'Invoice No: 12', 'Total 10,00']), 'issue_date')).toBe(want);
    });
  }
  it('reads day first in an English receipt that prints GST, VAT, SGD, rupees or an ABN', () => {
    for (const cue of ['GST 6%', 'VAT 20%', 'SGD 10.00', 'ABN 12 345 678 901']) {
      expect(documentDayFirst(prepareLines(left(['SHOP', cue, 'Date 03/04/2024', 'Total 10.00', 'Thank you for your visit and the receipt'])), 'en', null), cue).toBe(true);
    }
  });
});
