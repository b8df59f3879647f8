/**
 * Invoices photographed or scanned (issue #28, bench/invoice-scans.ts): what OCR does to a page that its text layer
 * did not. PP-OCR glues a label to its neighbours (`Facturen°2022030201155`, `FactureN:2024`, `Date:2mars`), and a
 * title set in large or spaced letters is often lost; a totals block that adds up still says "a bill".
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { groupChars, type Char } from '../../../server/src/providers/local/paddle-engine.ts';
import { classifyText, sumsUp } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { left, page } from './support-text.ts';

/** Characters as the recogniser gives them: `text` evenly pitched (3 steps), a space where it emitted one. */
const chars = (text: string): Char[] => [...text].map((t, i) => ({ text: t, step: 3 * i, p: 0.95 }));
const words = (text: string) => groupChars(chars(text)).groups.map((g) => g.map((c) => c.text).join(''));

describe('PP-OCR words: labels glued to their neighbours are parted', () => {
  it('parts a number sign from the word before it and from the number after it', () => {
    expect(words('Facturen°2022030201155')).toEqual(['Facture', 'n°', '2022030201155']);
    expect(words('FactureN:2024-03-10t172205')).toEqual(['Facture', 'N:', '2024-03-10t172205']);
    expect(words('Nº123')).toEqual(['Nº', '123']);
    expect(words('FACTUREN°:')).toEqual(['FACTURE', 'N°:']);
    expect(words('FACTUREN:F20180027')).toEqual(['FACTURE', 'N:', 'F20180027']); // in capitals, after the bill's name only
    expect(words('DESIGN:')).toEqual(['DESIGN:']);
    expect(words('N°DECLIENT:')).toEqual(['N°', 'DE', 'CLIENT:']); // label words parted too (glued-words.ts)
    expect(words('InvoiceN#42')).toEqual(['Invoice', 'N#42']);
  });
  it('parts a word\'s colon from its value, never a time, an amount or an address', () => {
    expect(words('Date:2mars')).toEqual(['Date:', '2mars']);
    expect(words('Total:(EUR)')).toEqual(['Total:', '(EUR)']);
    expect(words('12:30')).toEqual(['12:30']);
    expect(words('https://example.com')).toEqual(['https://example.com']);
    expect(words('1.234,56')).toEqual(['1.234,56']);
  });
  it('leaves words that only end in n or N alone', () => {
    expect(words('Description:')).toEqual(['Description:']);
    expect(words('Designation')).toEqual(['Designation']);
    expect(words('LONDON.')).toEqual(['LONDON.']);
    expect(words('SumN')).toEqual(['SumN']);
  });
  it('still parts words at the spaces the recogniser emits and at wide gaps', () => {
    expect(words('Gandi SAS')).toEqual(['Gandi', 'SAS']);
    const wide: Char[] = [...'Total', ...'109,97'].map((t, i) => ({ text: t, step: 3 * i + (i >= 5 ? 9 : 0), p: 0.9 }));
    expect(groupChars(wide).groups.map((g) => g.map((c) => c.text).join(''))).toEqual(['Total', '109,97']);
  });
});

describe('a totals block that adds up', () => {
  it('finds two amounts of the column that add up to a later third, to the cent', () => {
    expect(sumsUp([91.64, 18.33, 109.97])).toBe(true);
    expect(sumsUp([720, 54.7, 12, 774.7])).toBe(true);
    expect(sumsUp([1.0, 0.19, 1.19])).toBe(true);
    expect(sumsUp([100, 20, 119.99])).toBe(false);
    // the total before its parts, or repeated amounts, are no sum
    expect(sumsUp([109.97, 91.64, 18.33])).toBe(false);
    expect(sumsUp([10, 10, 20])).toBe(false);
    expect(sumsUp([5, 5])).toBe(false);
  });

  it('classifies a scanned invoice whose title OCR lost as an invoice, sure enough to read its fields', () => {
    // A French invoice as PP-OCR reads its scan: the title glued into the number line and lost, the totals clear.
    const lines = page([
      [[0.16, 'andi.net']],
      [[0.53, 'Statut: payee']],
      [[0.53, 'Date: 2 mars 2022']],
      [[0.08, 'De:'], [0.53, 'Pour:']],
      [[0.08, 'Gandi SAS'], [0.53, 'Squilik']],
      [[0.08, 'Produit'], [0.33, 'Description'], [0.6, 'Taxes'], [0.85, 'Prix']],
      [[0.08, 'site1.com'], [0.33, 'Renouvellement 1an'], [0.6, '20%'], [0.85, '12,00']],
      [[0.08, 'site2.fr'], [0.33, 'Renouvellement 1an'], [0.6, '20%'], [0.85, '13,91']],
      [[0.55, 'Sous-total'], [0.85, '91,64']],
      [[0.55, 'Taxe sur la valeur ajoutee 20%'], [0.85, '18,33']],
      [[0.55, 'Total(EUR)'], [0.85, '109,97']],
    ]);
    const c = classifyText(lines);
    expect(c.candidates[0].type).toBe('invoice');
    // the local provider's floor for reading fields (providers/local/index.ts EXTRACT_FLOOR)
    expect(c.candidates[0].confidence).toBeGreaterThanOrEqual(0.3);
    const f = extractFields(getEntry('invoice')!, lines, []);
    expect(f.total_amount?.value).toBe(109.97);
    // The same page whose amounts do not add up is less sure: the sum is what spoke.
    const off = lines.map((l) => (l.text.endsWith('109,97') ? { ...l, text: l.text.replace('109,97', '119,97'), words: l.words!.map((w) => (w.text === '109,97' ? { ...w, text: '119,97' } : w)) } : l));
    expect(classifyText(off).candidates[0].confidence).toBeLessThan(c.candidates[0].confidence);
  });

  it('a till receipt that adds up stays a receipt', () => {
    const lines = left([
      'SUPERMERCADO EL SOL',
      'C/ Mayor 1, Madrid',
      '12/03/2024 18:22',
      'PAN 1,20',
      'LECHE 0,95',
      'HUEVOS 2,30',
      'SUBTOTAL 4,45',
      'IVA 10% 0,44',
      'TOTAL 4,89',
      'EFECTIVO 10,00',
      'CAMBIO 5,11',
      'GRACIAS POR SU VISITA',
    ]);
    expect(classifyText(lines).candidates[0].type).not.toMatch(/^(invoice|es_invoice)$/);
  });
});

describe('a total whose currency sign OCR misread', () => {
  it('reads the amount below `Total Due (S)` (a `($)` read as `(S)`), as below `Total Due ($)`', () => {
    for (const label of ['Total Due($)', 'Total Due(S)', 'Total Due (S)']) {
      const lines = page([
        [[0.05, 'INVOICE']],
        [[0.05, 'Invoice Number: 7'], [0.6, 'Date: 2019-01-26']],
        [[0.05, 'Design work'], [0.6, '40.00']],
        [[0.05, 'Review'], [0.6, '25.33']],
        [[0.6, label]],
        [[0.6, '65.33']],
      ]);
      expect(extractFields(getEntry('invoice')!, lines, []).total_amount?.value, label).toBe(65.33);
    }
  });
});


describe('an invoice number with the next word glued to it', () => {
  it('cuts the word OCR glued after the number, and keeps ids that carry small letters of their own', async () => {
    const { unglued } = await import('../../../server/src/providers/local/text/extract.ts');
    expect(unglued('RE-20171118/506von18.11.2017')).toBe('RE-20171118/506');
    expect(unglued('562044387du02Juillet2015')).toBe('562044387');
    expect(unglued('RE-20200620/508issued')).toBe('RE-20200620/508');
    expect(unglued('2024-03-10t172205')).toBe('2024-03-10t172205');
    expect(unglued('Weena664')).toBe('Weena664');
    expect(unglued('INV/2023/03/0008')).toBe('INV/2023/03/0008');
  });
  it('reads the number of `Rechnung RE-20171118/506von18.11.2017` and of `Facture n°562044387du02Juillet2015`', () => {
    const de = page([[[0.05, 'Rechnung RE-20171118/506von18.11.2017']], [[0.05, 'Summe netto 100,00']], [[0.05, 'Gesamtbetrag 119,00 EUR']]]);
    expect(extractFields(getEntry('invoice')!, de, []).invoice_number?.value).toBe('RE-20171118/506');
    const fr = page([[[0.05, 'Facture n° 562044387du02Juillet2015']], [[0.05, 'Total TTC 29,99 €']]]);
    expect(extractFields(getEntry('invoice')!, fr, []).invoice_number?.value).toBe('562044387');
  });
});

describe('a Dutch invoice photographed: its number label misread, the letterhead beside the title', () => {
  it('reads `Facturnummer` (one `u`) as the number label, and never the address in the title row\'s next column', () => {
    const lines = page([
      [[0.05, 'Coolblue B.V.']],
      [[0.05, 'FACTUUR.'], [0.6, 'Weena664']],
      [[0.6, '3012CN Rotterdam']],
      [[0.05, 'Facturnummer: 993548900'], [0.6, 'BIC INGBNL2A']],
      [[0.05, 'Factuurdatum: 19 april 2014']],
      [[0.05, 'Subtotaal'], [0.8, '593,36']],
      [[0.05, 'BTW 21%'], [0.8, '124,61']],
      [[0.05, 'Totaal'], [0.8, '717,97']],
    ]);
    expect(extractFields(getEntry('invoice')!, lines, []).invoice_number?.value).toBe('993548900');
    // Without a number label at all, the address is still not taken for the number.
    const unlabelled = lines.filter((l) => !l.text.startsWith('Facturnummer'));
    expect(extractFields(getEntry('invoice')!, unlabelled, []).invoice_number?.value ?? null).not.toBe('Weena664');
  });
});

describe('words PP-OCR wrote without their spaces (session 19)', () => {
  it('parts a word from the code glued after it, and the name of the bill or `Nr.` from its number', () => {
    expect(words('InvoiceINV/2023/03/0008')).toEqual(['Invoice', 'INV/2023/03/0008']);
    expect(words('RechnungRE-2020')).toEqual(['Rechnung', 'RE-2020']);
    expect(words('Invoice103767')).toEqual(['Invoice', '103767']);
    expect(words('INVOICE103767')).toEqual(['INVOICE', '103767']);
    expect(words('Nr.R87654321012345')).toEqual(['Nr.', 'R87654321012345']);
    // brands in camel case, words ending in capitals without a digit, ordinary words with digits stay whole
    expect(words('PayPal')).toEqual(['PayPal']);
    expect(words('McDONALDS')).toEqual(['McDONALDS']);
    expect(words('Ecke12')).toEqual(['Ecke12']);
    expect(words('azure.lnterior24@example.com')).toEqual(['azure.lnterior24@example.com']);
    expect(words('St.Gallen')).toEqual(['St.Gallen']);
  });

  it('classifies an invoice whose words OCR glued together (`InvoiceDate:`, `Tax15%on$112.90`) as an invoice, sure enough to read', () => {
    // An American invoice as PP-OCR reads a photo of it: every label glued, the tax line glued to its rate.
    const lines = page([
      [[0.05, 'aZue'], [0.6, 'Global Wholesaler']],
      [[0.05, 'Azure lnterior']],
      [[0.05, '4557DeSilvaSt']],
      [[0.05, 'FremontCA94538']],
      [[0.05, 'YourCompanyMitchelldmin']],
      [[0.05, 'InvoiceINV/2023/03/0008']],
      [[0.05, 'InvoiceDate:'], [0.3, 'DueDate:'], [0.55, 'Reference:']],
      [[0.05, '03/20/2023'], [0.3, '04/04/2023'], [0.55, 'CUSTREF123']],
      [[0.05, 'Description'], [0.35, 'Quantity'], [0.5, 'UnitPrice'], [0.8, 'Amount']],
      [[0.05, '[FURN_7777]OfficeChair'], [0.35, '1.00Units'], [0.5, '70.00'], [0.8, '$70.00']],
      [[0.05, 'OliveOil'], [0.35, '1.00L'], [0.5, '192.90'], [0.8, '$192.90']],
      [[0.6, 'Subtotal'], [0.8, '$262.90']],
      [[0.6, 'Tax15%on$112.90'], [0.8, '$16.94']],
      [[0.6, 'Total'], [0.8, '$279.84']],
      [[0.05, 'Paymentterms: 15Days']],
    ]);
    const c = classifyText(lines);
    expect(c.candidates[0].type).toBe('invoice');
    // the tax line glued to its rate still counts in the totals block (16.94 + 262.90 = 279.84)
    expect(c.candidates[0].confidence).toBeGreaterThanOrEqual(0.3);
    expect(extractFields(getEntry('invoice')!, lines, []).total_amount?.value).toBe(279.84);
  });

  it('reads `Due payable:` as the total, never `VAT total:`', () => {
    const lines = page([
      [[0.05, 'Invoice # RE-20200620/508 issued at 2020-06-20']],
      [[0.05, 'Amount'], [0.2, 'Product'], [0.6, 'Price'], [0.8, 'Total']],
      [[0.05, '1.00'], [0.2, 'Design (hours)'], [0.6, '160.00'], [0.8, '160.00']],
      [[0.05, '400.00'], [0.2, 'Ballons'], [0.6, '0.79'], [0.8, '336.00']],
      [[0.05, 'Net total: 496.00']],
      [[0.05, 'VAT total: 75.04']],
      [[0.05, 'Due payable: 571.04']],
    ]);
    expect(extractFields(getEntry('invoice')!, lines, []).total_amount?.value).toBe(571.04);
  });
});

describe('a till receipt titled `Tax Invoice` (session 19)', () => {
  it('stays a receipt sure enough for a verdict now that PP-OCR\'s glued `TaxInvoice` reads as words', () => {
    const lines = left([
      'ENW Hardware Centre (M) Sdn. Bhd.',
      'Co.Reg.No.: 795225-A',
      'GST Reg.No.: 000155453440',
      'Petaling Jaya, Selangor Darul Ehsan',
      '13/04/2018 Tax Invoice',
      'No. CS00233394',
      'Cash Sale',
      'Item Qty U.Price RM',
      '001697 5.00 1.00 5.00 SR',
      '766271 1.00 22.00 22.00 SR',
      'Total Amt Incl.GST @6%: 27.00',
      'Rounding Adjustment 0.00',
      'Total Amt Payable: 27.00',
      'Total Qty Tender 6',
      'GST Summary Amount(RM) GST(RM)',
      'SR=6% 25.47 1.53',
      '*Goods sold are not returnable',
      'Thank you for shopping at',
    ]);
    const c = classifyText(lines).candidates[0];
    expect(c.type).toBe('payment_receipt');
    expect(c.confidence).toBeGreaterThanOrEqual(0.7);
  });
});
