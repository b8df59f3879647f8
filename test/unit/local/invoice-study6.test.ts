/**
 * Rules learnt from the sixth study set of invoices outside the development set (issue #28, session 23; list in
 * bench/results/invoices-receipts.md): Swedish, Dutch, Dominican and Latin American invoices, e-invoice renderings,
 * and the misses the fifth set had left (a currency code glued to a total's label, a number label inside a
 * letterhead's cell, a seller's reference column, a customer's VAT id above the seller's footer, Japan's
 * registration number). Synthetic layouts, hand-built with word boxes.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { findTaxIds, jpCorporateValid } from '../../../server/src/providers/local/text/ids.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import { isTill, tillLayout } from '../../../server/src/providers/local/text/receipt.ts';
import { page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const value = (lines: ReturnType<typeof page>, name: string) => extractFields(invoice, lines, [])[name]?.value ?? null;

describe('a till layout is not claimed by an invoice', () => {
  it("does not take a Swedish invoice for a till (its `till` is a preposition; due date, terms and billing address say invoice)", () => {
    const lines = page([
      [[0.05, 'Övningsbolaget AB'], [0.7, 'Faktura']],
      [[0.55, 'Fakt nr / Kundnr'], [0.75, 'Fakturadatum']],
      [[0.55, '200045 103'], [0.75, '2009-07-03']],
      [[0.05, 'Fakturaadress']],
      [[0.05, 'Karl Svensson']],
      [[0.05, 'Vädervägen 33']],
      [[0.05, 'Betalningsvillkor 10 dagar netto'], [0.55, 'Förfallodatum 2009-07-13']],
      [[0.05, 'Leveranssätt Post'], [0.55, 'Dröjsmålsränta 9,50 %']],
      [[0.05, '120 Utfört målarbete 15 Timmar'], [0.6, '350,00'], [0.8, '5 250,00']],
      [[0.05, '121 Målarfärg 10 L'], [0.6, '1 569,00'], [0.8, '15 690,00']],
      [[0.05, 'Mervärdesskatt ingår'], [0.5, 'Fakturans totala belopp'], [0.8, '20 965,00']],
      [[0.5, 'Avgår skattereduktion'], [0.8, '2 625,00']],
      [[0.5, 'ATT BETALA'], [0.8, '18 340,00']],
      [[0.05, 'För att vi ska kunna göra ansökan till Skatteverket, ska du betala 18340,00 kr.']],
      [[0.05, 'Adress'], [0.3, 'Telefon'], [0.5, 'PlusGiro'], [0.7, 'Internet']],
    ]);
    expect(isTill(tillLayout(prepareLines(lines)))).toBe(false);
  });
  it('does not count `merci` inside `comercio` as a till\'s thanks', () => {
    const lines = prepareLines(page([
      [[0.05, 'ALDO SOSA'], [0.6, 'RUC: 4849678-2']],
      [[0.05, 'COMERCIO AL POR MENOR'], [0.6, 'Factura electrónica']],
      [[0.05, 'Fecha y Hora de Emisión: 2026-03-05T11:34:25'], [0.6, 'Condición de Venta: Contado']],
      [[0.05, 'Código Descripción Cantidad Precio']],
      [[0.05, '001 Servicio profesionales 8.00 195.000 1.560.000']],
      [[0.05, 'Total Operación: 1.560.000']],
      [[0.05, 'Total IVA: 141.818']],
    ]));
    const withThanks = prepareLines(page([...lines.map((l) => [[l.bbox[0], l.text]] as Array<[number, string]>), [[0.05, 'Merci de votre visite']]]));
    expect(tillLayout(withThanks).score - tillLayout(lines).score).toBe(1);
  });
});

describe('labels of numbers', () => {
  it('reads a Swedish `Fakt nr` header over its value', () => {
    const lines = page([
      [[0.05, 'Övningsbolaget AB'], [0.7, 'Faktura']],
      [[0.55, 'Fakt nr / Kundnr'], [0.75, 'Fakturadatum']],
      [[0.55, '200045 103'], [0.75, '2009-07-03']],
      [[0.5, 'ATT BETALA'], [0.8, '18 340,00']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('200045');
  });
  it('reads a short number after the title and its sign (`FERROPDF INVOICE #1`), not a bare one', () => {
    const rows = (title: string): Array<Array<[number, string]>> => [
      [[0.05, title]],
      [[0.05, 'Date: 03/17/2026']],
      [[0.05, 'Description Quantity Unit Price Total']],
      [[0.05, 'Consulting'], [0.5, '12'], [0.6, '180 EUR'], [0.8, '2160 EUR']],
      [[0.5, 'Total:'], [0.8, '2160 EUR']],
    ];
    expect(value(page(rows('FERROPDF INVOICE #1')), 'invoice_number')).toBe('1');
    expect(value(page(rows('Facture n° 7')), 'invoice_number')).toBe('7');
    expect(value(page(rows('INVOICE 1')), 'invoice_number')).toBeNull();
  });
  it("reads the Dominican Republic's `NCF` as the invoice's number", () => {
    const lines = page([
      [[0.6, 'FACTURA DE CRÉDITO FISCAL']],
      [[0.6, 'NCF: B0100001434']],
      [[0.6, 'Vencimiento NCF: 31/12/2026']],
      [[0.05, 'Industrias Ejemplo SRL'], [0.6, 'Fecha: 27/03/2026']],
      [[0.5, 'TOTAL A PAGAR:'], [0.8, '$296,177.64']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('B0100001434');
  });
  it("reads `Número:` printed after the issuer's name in the letterhead's cell", () => {
    const lines = page([
      [[0.05, 'FACTURA']],
      [[0.05, 'Ferretería El Martillo Número: 4812']],
      [[0.05, 'Fecha: 12/03/2024']],
      [[0.5, 'Total:'], [0.8, '100,00']],
    ]);
    expect(value(lines, 'invoice_number')).toBe('4812');
  });
  it('keeps a street number inside a cell out (`Calle Mayor Número: 5, Madrid`)', () => {
    const lines = page([
      [[0.05, 'FACTURA']],
      [[0.05, 'Calle Mayor Número: 5, Madrid']],
      [[0.5, 'Total:'], [0.8, '100,00']],
    ]);
    expect(value(lines, 'invoice_number')).toBeNull();
  });
  it("reads the seller's `Our Reference:`, not the buyer's `Your Reference:`", () => {
    const rows = (label: string): Array<Array<[number, string]>> => [
      [[0.05, 'Invoice']],
      [[0.05, 'Date: 12-03-2024'], [0.5, `${label} 2024-117`]],
      [[0.5, 'Total:'], [0.8, '121.00']],
    ];
    expect(value(page(rows('Our Reference:')), 'invoice_number')).toBe('2024-117');
    expect(value(page(rows('Your Reference:')), 'invoice_number')).toBeNull();
  });
});

describe('totals', () => {
  it('reads a total whose label has its currency code glued on (`TOTAL DUEKES`)', () => {
    const lines = page([
      [[0.05, 'INVOICE'], [0.6, 'Invoice No: 12']],
      [[0.5, 'SUBTOTAL'], [0.8, '1,000.00']],
      [[0.5, 'VAT 16%'], [0.8, '160.00']],
      [[0.5, 'TOTAL DUEKES'], [0.8, '1,160.00']],
    ]);
    expect(value(lines, 'total_amount')).toBe(1160);
  });
  it('does not take a word that merely ends in three letters for a coded label', () => {
    const lines = page([
      [[0.05, 'INVOICE'], [0.6, 'Invoice No: 12']],
      [[0.5, 'Totalall'], [0.8, '1,160.00']],
    ]);
    expect(value(lines, 'total_amount')).toBeNull();
  });
});

describe("the seller's VAT id", () => {
  const lines = page([
    [[0.05, 'Factuur']],
    [[0.05, 'Koper Holding']],
    [[0.05, 'Dorpsstraat 4']],
    [[0.05, '1234 AB Utrecht']],
    [[0.05, 'BTW: NL819990966B01']],
    [[0.05, 'Factuurnummer: 2024-117'], [0.55, 'Factuurdatum: 12-03-2024']],
    [[0.5, 'Totaal:'], [0.8, '121,00']],
  ]);
  const footer = (text: string) => page([[[0.05, 'Leverancier Bouw']], [[0.05, text]]], { top: 0.9 });
  it("takes the footer's id over an unlabelled address block's above it (the customer's, in a letter's window)", () => {
    expect(value([...lines, ...footer('KvK 12345678 | IBAN NL91ABNA0417164300 | BTW NL804223476B01')], 'issuer_tax_id')).toBe('NL804223476B01');
  });
  it('reads a Dutch VAT id printed without its `NL` after its label (`BTW-nr 8042.23.476.B01`)', () => {
    expect(findTaxIds('BTW-nr 8042.23.476.B01').map((m) => m.value)).toEqual(['NL804223476B01']);
    expect(findTaxIds('Btw nummer 804223476B01').map((m) => m.value)).toEqual(['NL804223476B01']);
    expect(value([...lines, ...footer('KvK 12345678 | BTW-nr 8042.23.476.B01')], 'issuer_tax_id')).toBe('NL804223476B01');
  });
});

describe("Japan's qualified-invoice registration number", () => {
  it('reads `登録番号 T` + 13 digits, checked by the corporate number\'s check digit', () => {
    expect(jpCorporateValid('7000012050002')).toBe(true);
    expect(jpCorporateValid('7000012050003')).toBe(false);
    expect(findTaxIds('登録番号：T7000012050002').map((m) => [m.value, m.kind])).toEqual([['T7000012050002', 'jp_invoice']]);
  });
  it('keeps a `T` and 13 digits that fail the check only after its label', () => {
    expect(findTaxIds('Tracking T1234567890123')).toEqual([]);
    expect(findTaxIds('Registration No. T1234567890123').map((m) => m.checked)).toEqual([false]);
  });
  it("reports it as the issuer's tax id", () => {
    const lines = page([
      [[0.4, '請求書']],
      [[0.05, '株式会社サンプル 御中'], [0.6, '請求書番号: 2024-001']],
      [[0.6, '株式会社エグザンプル']],
      [[0.6, '登録番号: T7000012050002']],
      [[0.5, '合計'], [0.8, '¥11,000']],
    ]);
    expect(value(lines, 'issuer_tax_id')).toBe('T7000012050002');
  });
});

describe("an online shop's purchase receipt", () => {
  it("types `Ricevuta d'acquisto` a payment receipt with some assurance, not an invoice", () => {
    const lines = page([
      [[0.05, "Ricevuta d'acquisto"]],
      [[0.05, 'Pagato']],
      [[0.05, 'Numero di riferimento del pagamento 1QYExkujgw']],
      [[0.05, 'Venduto da Esempio Commercio S.r.l.']],
      [[0.05, 'P. IVA IT08973230967']],
      [[0.05, 'Mario Rossi'], [0.55, 'Data ricevuta 10 luglio 2020']],
      [[0.05, 'Via Roma 27'], [0.55, 'Totale da pagare € 11,96']],
      [[0.05, 'Indirizzo di fatturazione'], [0.4, 'Indirizzo di spedizione'], [0.7, 'Venduto da']],
      [[0.05, 'Informazioni sull\'ordine']],
      [[0.05, 'Data ordine 06 luglio 2020']],
      [[0.05, 'Descrizione'], [0.6, 'Quant.'], [0.7, 'Prezzo'], [0.85, 'Totale']],
      [[0.05, 'Birra, pacco da 24'], [0.6, '1'], [0.85, '€ 11,96']],
      [[0.6, 'Totale ricevuta'], [0.85, '€ 11,96']],
      [[0.05, "Questo documento non è valido come fattura e non può essere usato per detrarre l'IVA."]],
      [[0.05, 'Registro delle Imprese di Milano • Cod. Fisc. e P.IVA 08973230967']],
    ]);
    const top = classifyText(lines).candidates[0];
    expect(top.type).toBe('payment_receipt');
    expect(top.confidence).toBeGreaterThan(0.5);
  });
});
