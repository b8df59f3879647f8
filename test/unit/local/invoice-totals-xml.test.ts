/**
 * invoice_totals on real e-invoices: every file of the Mustang ZUGFeRD / Factur-X / XRechnung samples read through the
 * real PDF and embedded-XML readers, the structure handed to the check as the local provider hands it
 * (`Reading.invoice`). Genuine invoices pass, those with document-level allowances and charges included; an Order-X
 * order is not judged; one number changed in the XML fails with the equation it breaks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { invoiceInputOf } from '../../../server/src/domain/analysis/invoice-input.ts';
import { createLogger } from '../../../server/src/logger.ts';
import { createLocalProvider } from '../../../server/src/providers/local/index.ts';
import { readPdf, warmPdf } from '../../../server/src/providers/local/pdf.ts';
import { parseInvoiceXml, readEmbeddedInvoice, type EmbeddedInvoice } from '../../../server/src/providers/local/text/embedded.ts';
import type { ReadInput } from '../../../server/src/providers/types.ts';
import { invoiceTotals } from '../../../server/src/validators/index.ts';

const DIR = path.resolve(import.meta.dirname, '../../../../shared/testdata/documents/invoices/mustang-zugferd');
const bytes = (name: string) => new Uint8Array(fs.readFileSync(path.join(DIR, name)));
const FILES = fs.readdirSync(DIR).filter((f) => f.endsWith('.pdf')).sort();
/** The samples whose XML has document-level allowances and charges (BG-20 / BG-21). */
const WITH_ALLOWANCES_AND_CHARGES = ['Facture_F20180027.pdf', 'validV1WithAdditionalData.pdf', 'zugferd_2p1_EXTENDED_PDFA-3A.pdf'];

const read: Record<string, { xml: EmbeddedInvoice | null; all: EmbeddedInvoice[] }> = {};

beforeAll(async () => {
  await warmPdf();
  for (const f of FILES) {
    let attachments: Array<{ name: string; bytes: Uint8Array }> = [];
    try {
      attachments = (await readPdf(bytes(f))).attachments;
    } catch {
      // A PDF the reader cannot open (corruptedV2PDF.pdf) has no XML to check.
    }
    read[f] = { xml: readEmbeddedInvoice(attachments), all: attachments.map((a) => parseInvoiceXml(a.bytes, a.name)).filter((x): x is EmbeddedInvoice => x !== null) };
  }
}, 60_000);

describe('invoice_totals on the Mustang samples', () => {
  it('every embedded invoice adds up (each XML of each PDF, ZUGFeRD 1 and Factur-X / XRechnung alike)', () => {
    let judged = 0;
    for (const f of FILES) {
      for (const inv of read[f].all.filter((x) => x.isInvoice)) {
        const r = invoiceTotals(inv.amounts);
        expect(r.outcome, `${f} ${inv.source}: ${r.message_key} ${JSON.stringify(r.params)}`).toBe('passed');
        expect(r.message_key).toBe('invoice_totals.ok');
        judged++;
      }
    }
    // 15 PDFs, one unreadable, one order: 13 invoices, three of them with a ZUGFeRD 1 copy beside the Factur-X one.
    expect(FILES).toHaveLength(15);
    expect(judged).toBe(16);
    expect(read['corruptedV2PDF.pdf'].xml).toBeNull();
  });

  it('the invoices with document-level allowances and charges pass with those in the arithmetic', () => {
    const found = FILES.filter((f) => read[f].xml?.isInvoice && read[f].xml!.amounts.allowances!.length > 0 && read[f].xml!.amounts.charges!.length > 0);
    expect(found).toEqual(WITH_ALLOWANCES_AND_CHARGES);
    for (const f of found) {
      const r = invoiceTotals(read[f].xml!.amounts);
      expect(r.outcome, f).toBe('passed');
      const checks = (r.evidence.findings as Array<{ check: string; ok: boolean }>).filter((x) => x.ok).map((x) => x.check);
      for (const c of ['allowance_total', 'charge_total', 'tax_basis_total', 'vat_taxable_amount', 'vat_amount', 'total', 'amount_due']) expect(checks, `${f} ${c}`).toContain(c);
    }
    // Facture_F20180027: 95.00 of lines - 5.00 allowance + 10.00 charge = 100.00 (BT-109), 10 % VAT, 10.00 prepaid.
    const f = read['Facture_F20180027.pdf'].xml!.amounts;
    expect(f).toMatchObject({ line_total: 95, allowance_total: 5, charge_total: 10, subtotal: 100, vat_total: 10, total: 110, prepaid: 10, amount_due: 100 });
    expect(f.allowances).toEqual([{ amount: 5, vat_category: 'S', vat_rate: 10 }]);
    expect(f.charges).toEqual([{ amount: 10, vat_category: 'S', vat_rate: 10 }]);
    // The EXTENDED sample's logistics charge (SpecifiedLogisticsServiceCharge) is a document charge too.
    const ext = read['zugferd_2p1_EXTENDED_PDFA-3A.pdf'].xml!.amounts;
    expect(ext.charges).toEqual([{ amount: 3, vat_category: 'S', vat_rate: 19 }]);
    expect(ext.taxes).toEqual([
      { category: 'S', rate: 19, base: 321.4, vat: 61.07 },
      { category: 'S', rate: 7, base: 127.59, vat: 8.93 },
    ]);
  });

  it('a credit note with negative amounts (BASIC WL, no lines) passes', () => {
    const avoir = read['validAvoir_FR_type380_BASICWL.pdf'].xml!;
    expect(avoir.amounts.total).toBeLessThan(0);
    expect(invoiceTotals(avoir.amounts).outcome).toBe('passed');
  });

  it('an Order-X order is not judged: the local provider hands no invoice structure, and nothing fails', async () => {
    const order = read['ORDER-X_EX01_ORDER_FULL_DATA-COMFORT.pdf'].xml!;
    expect(order.isInvoice).toBe(false);
    const provider = createLocalProvider({ readers: new Set(['text'] as const), ocrLanguages: ['eng'], concurrency: 1, logger: createLogger('silent') })!;
    const input = (name: string): ReadInput => ({
      bytes: bytes(name), filename: name, mime: 'application/pdf', pages: 1, kind: 'analysis', expect: ['invoice'], extract: true, language: 'en',
      holder: null, referenceDate: '2026-11-27', precise_bboxes: false,
    });
    const orderReading = await provider.read(input('ORDER-X_EX01_ORDER_FULL_DATA-COMFORT.pdf'));
    expect(orderReading.invoice).toBeUndefined();
    const fields = Object.fromEntries(Object.entries(orderReading.fields).map(([k, f]) => [k, f.value]));
    const inputOfOrder = invoiceInputOf(fields, orderReading);
    if (inputOfOrder) {
      expect(inputOfOrder.complete).toBe(false);
      expect(invoiceTotals(inputOfOrder).outcome).not.toBe('failed');
    }
    // The invoice beside it does carry its structure, and invoiceInputOf prefers it to the flat fields.
    const invoiceReading = await provider.read(input('Facture_F20180027.pdf'));
    expect(invoiceReading.invoice).toMatchObject({ syntax: 'CII', complete: true, allowance_total: 5, charge_total: 10 });
    const invoiceFields = Object.fromEntries(Object.entries(invoiceReading.fields).map(([k, f]) => [k, f.value]));
    expect(invoiceInputOf(invoiceFields, invoiceReading)).toBe(invoiceReading.invoice);
    expect(invoiceTotals(invoiceInputOf(invoiceFields, invoiceReading)!).outcome).toBe('passed');
  }, 60_000);
});

describe('a deliberately changed amount fails with the equation it breaks', () => {
  const original = async (f: string) => {
    const content = await readPdf(bytes(f));
    const inv = readEmbeddedInvoice(content.attachments)!;
    return new TextDecoder().decode(content.attachments.find((a) => a.name === inv.source)!.bytes);
  };
  const judge = (xml: string) => invoiceTotals(parseInvoiceXml(new TextEncoder().encode(xml))!.amounts);

  it('in the XML of Facture_F20180027 (CII): the tax basis total, an allowance, a VAT amount, the amount due', async () => {
    const xml = await original('Facture_F20180027.pdf');
    expect(judge(xml).outcome).toBe('passed');
    const basis = judge(xml.replace('<ram:TaxBasisTotalAmount>100.00<', '<ram:TaxBasisTotalAmount>100.50<'));
    expect(basis.outcome).toBe('failed');
    expect(basis.message_key).toBe('invoice_totals.tax_basis_total_mismatch');
    expect(basis.params).toMatchObject({ check: 'tax_basis_total', rule: 'BR-CO-13', bt: 'BT-109', expected: '100.00', found: '100.50' });
    // The 5.00 allowance read as 6.00: BT-107 no longer its sum.
    const allowance = judge(xml.replace('<ram:ActualAmount>5.00</ram:ActualAmount>', '<ram:ActualAmount>6.00</ram:ActualAmount>'));
    expect(allowance.params).toMatchObject({ check: 'allowance_total', rule: 'BR-CO-11', expected: '6.00', found: '5.00' });
    const vat = judge(xml.replace('<ram:CalculatedAmount>10.00<', '<ram:CalculatedAmount>12.00<'));
    expect(vat.params).toMatchObject({ check: 'vat_amount', rule: 'BR-S-09', where: 'S 10', expected: '10.00', found: '12.00' });
    const due = judge(xml.replace('<ram:DuePayableAmount>100.00<', '<ram:DuePayableAmount>110.00<'));
    expect(due.params).toMatchObject({ check: 'amount_due', rule: 'BR-CO-16', expected: '100.00', found: '110.00' });
  });

  it('in the parsed structure of the EXTENDED sample: a line moved to another rate breaks BR-S-08', () => {
    const amounts = structuredClone(read['zugferd_2p1_EXTENDED_PDFA-3A.pdf'].xml!.amounts);
    amounts.lines![0].vat_rate = 7;
    const r = invoiceTotals(amounts);
    expect(r.outcome).toBe('failed');
    expect(r.params).toMatchObject({ check: 'vat_taxable_amount', rule: 'BR-S-08', bt: 'BT-116' });
  });

  it('a UBL credit note built here: passes as written, fails with the grand total one euro off', () => {
    const ubl = (taxInclusive: string) => `<?xml version="1.0" encoding="UTF-8"?>
<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>
  <cbc:ID>CN-1</cbc:ID><cbc:IssueDate>2026-11-01</cbc:IssueDate><cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">10.00</cbc:Amount>
    <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:AllowanceCharge>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">39.90</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">190.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">39.90</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">50.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">0.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>AE</cbc:ID><cbc:Percent>0</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="EUR">250.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">240.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">${taxInclusive}</cbc:TaxInclusiveAmount><cbc:AllowanceTotalAmount currencyID="EUR">10.00</cbc:AllowanceTotalAmount>
    <cbc:PrepaidAmount currencyID="EUR">100.00</cbc:PrepaidAmount><cbc:PayableRoundingAmount currencyID="EUR">0.10</cbc:PayableRoundingAmount>
    <cbc:PayableAmount currencyID="EUR">180.00</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:CreditNoteLine><cbc:ID>1</cbc:ID><cbc:CreditedQuantity unitCode="C62">4</cbc:CreditedQuantity><cbc:LineExtensionAmount currencyID="EUR">200.00</cbc:LineExtensionAmount>
    <cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">20.00</cbc:Amount></cac:AllowanceCharge>
    <cac:Item><cbc:Name>Service</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">55.00</cbc:PriceAmount>
      <cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">5.00</cbc:Amount><cbc:BaseAmount currencyID="EUR">60.00</cbc:BaseAmount></cac:AllowanceCharge></cac:Price></cac:CreditNoteLine>
  <cac:CreditNoteLine><cbc:ID>2</cbc:ID><cbc:CreditedQuantity unitCode="C62">2</cbc:CreditedQuantity><cbc:LineExtensionAmount currencyID="EUR">50.00</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Reverse charge</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>AE</cbc:ID><cbc:Percent>0</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">25.00</cbc:PriceAmount></cac:Price></cac:CreditNoteLine>
</CreditNote>`;
    const ok = parseInvoiceXml(new TextEncoder().encode(ubl('279.90')))!;
    expect(ok).toMatchObject({ syntax: 'UBL', isInvoice: true, typeCode: '381' });
    expect(ok.amounts.lines![0]).toMatchObject({ quantity: 4, unit_price: 55, allowances: [20], amount: 200 });
    const r = invoiceTotals(ok.amounts);
    expect(r.outcome, JSON.stringify(r.evidence)).toBe('passed');
    const bad = invoiceTotals(parseInvoiceXml(new TextEncoder().encode(ubl('280.90')))!.amounts);
    expect(bad.outcome).toBe('failed');
    expect(bad.params).toMatchObject({ check: 'total', rule: 'BR-CO-15', bt: 'BT-112', expected: '279.90', found: '280.90' });
  });
});
