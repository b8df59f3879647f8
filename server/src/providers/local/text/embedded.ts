/**
 * Structured invoices embedded in PDFs: UN/CEFACT CII (ZUGFeRD 1.x `CrossIndustryDocument`, ZUGFeRD 2.x /
 * Factur-X / XRechnung CII `CrossIndustryInvoice`) and OASIS UBL 2.x (`Invoice`, `CreditNote`), mapped to the
 * catalogue's invoice field names. Values are copied, never guessed: a field the XML does not carry is absent.
 *
 * The XML parser is configured so that it cannot be abused: documents with a DOCTYPE or entity declarations are
 * refused (CII and UBL never need them), entities are not expanded by the parser (the five predefined ones and
 * numeric references are decoded here), and the size is bounded.
 */
import { XMLParser } from 'fast-xml-parser';
import type { InvoiceAllowanceCharge, InvoiceInput, InvoiceLine, InvoiceTaxBreakdown } from '../../../validators/invoice.ts';

export interface EmbeddedInvoice {
  syntax: 'CII' | 'UBL';
  /** False for Order-X orders and other CII/UBL documents that are not invoices or credit notes. */
  isInvoice: boolean;
  /** UNTDID 1001 document type code (380 invoice, 381 credit note, 220 order...), when given. */
  typeCode: string | null;
  /** Name of the attachment it came from. */
  source: string;
  /** Profile / customization id (e.g. `urn:cen.eu:en16931:2017...`), when given. */
  profile: string | null;
  /** Catalogue field name -> value (dates ISO `YYYY-MM-DD`, amounts as numbers, `line_items` as objects). */
  fields: Record<string, unknown>;
  /**
   * Every amount of the document in its EN 16931 structure (lines with their allowances and charges, document
   * allowances and charges, the VAT breakdown, totals, prepaid, rounding, due): what `invoice_totals` checks.
   */
  amounts: InvoiceInput;
}

/** Largest XML parsed. */
export const MAX_XML_BYTES = 4 * 1024 * 1024;

/** UNTDID 1001 codes of orders and order responses/changes (Order-X and similar). */
const ORDER_CODES = new Set(['105', '220', '221', '222', '223', '224', '225', '226', '227', '228', '229', '230', '231', '232']);

/** UNTDID 4461 payment means (the common ones). */
const PAYMENT_MEANS: Record<string, string> = {
  '1': 'not defined',
  '10': 'cash',
  '20': 'cheque',
  '30': 'credit transfer',
  '31': 'debit transfer',
  '42': 'payment to bank account',
  '48': 'bank card',
  '49': 'direct debit',
  '54': 'credit card',
  '55': 'debit card',
  '57': 'standing agreement',
  '58': 'SEPA credit transfer',
  '59': 'SEPA direct debit',
  '68': 'online payment service',
  '97': 'clearing between partners',
};

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Every element is an array: one uniform way to walk the tree.
  isArray: (_name: string, _jpath: string, _isLeaf: boolean, isAttribute: boolean) => !isAttribute,
});

/**
 * The first invoice found among the attachments (an invoice wins over an order or an unknown document), or null
 * when no attachment is CII or UBL. Never throws.
 */
export function readEmbeddedInvoice(attachments: ReadonlyArray<{ name: string; bytes: Uint8Array }>): EmbeddedInvoice | null {
  let fallback: EmbeddedInvoice | null = null;
  for (const a of attachments) {
    const parsed = parseInvoiceXml(a.bytes, a.name);
    if (!parsed) continue;
    if (parsed.isInvoice) return parsed;
    fallback ??= parsed;
  }
  return fallback;
}

/** Parses one XML document as CII or UBL; null when it is neither (or not safe/well-formed XML). */
export function parseInvoiceXml(bytes: Uint8Array, name = ''): EmbeddedInvoice | null {
  try {
    if (bytes.length === 0 || bytes.length > MAX_XML_BYTES) return null;
    const xml = new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/^\uFEFF/, '');
    if (!/^\s*</.test(xml)) return null;
    if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return null;
    const doc = parser.parse(xml) as Node;
    for (const [rootName, value] of Object.entries(doc)) {
      if (rootName.startsWith('?') || rootName.startsWith('#')) continue;
      const root = (Array.isArray(value) ? value[0] : value) as Node;
      if (!root || typeof root !== 'object') continue;
      if (rootName === 'CrossIndustryInvoice' || rootName === 'CrossIndustryDocument') return readCii(root, name, true);
      if (rootName === 'Invoice' || rootName === 'CreditNote') return readUbl(root, rootName, name);
      // Other UN/CEFACT messages with the same building blocks (Order-X orders...): readable, not invoices.
      if (kids(root, 'ExchangedDocument').length > 0 && kids(root, 'SupplyChainTradeTransaction').length > 0) {
        return readCii(root, name, false);
      }
      return null;
    }
    return null;
  } catch {
    return null;
  }
}

// ------------------------------------------------------------------ tree helpers

function kids(node: unknown, name: string): Node[] {
  if (!node || typeof node !== 'object') return [];
  const v = (node as Node)[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]) as Node[];
}

/** All nodes at a slash-separated path of local names; `a|b` tries alternatives. */
function all(node: unknown, path: string): Node[] {
  let cur: Node[] = [node as Node];
  for (const step of path.split('/')) {
    const names = step.split('|');
    cur = cur.flatMap((n) => names.flatMap((nm) => kids(n, nm)));
    if (cur.length === 0) return [];
  }
  return cur;
}

function textOf(node: unknown): string | null {
  if (node === null || node === undefined) return null;
  if (typeof node === 'string') return decodeEntities(node).trim() || null;
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (typeof node === 'object') {
    const t = (node as Node)['#text'];
    if (typeof t === 'string' || typeof t === 'number') return decodeEntities(String(t)).trim() || null;
  }
  return null;
}

function attr(node: unknown, name: string): string | null {
  if (!node || typeof node !== 'object') return null;
  const v = (node as Node)[`@_${name}`];
  return typeof v === 'string' ? decodeEntities(v) : null;
}

/** Text of the first node at the path. */
function text(node: unknown, path: string): string | null {
  for (const n of all(node, path)) {
    const t = textOf(n);
    if (t !== null) return t;
  }
  return null;
}

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|lt|gt|amp|quot|apos);/g, (all, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[e] ?? all;
  });
}

/** A decimal as written in the XML (`571.04`, `-233.47`), or null. */
function num(s: string | null): number | null {
  if (s === null) return null;
  const t = s.replace(/\s+/g, '');
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

/** CII `DateTimeString` with its format (102 = CCYYMMDD, 203 = CCYYMMDDHHMM, 204 = CCYYMMDDHHMMSS) -> ISO date. */
function ciiDate(node: unknown): string | null {
  const dts = all(node, 'DateTimeString')[0];
  const raw = textOf(dts);
  if (!raw) return null;
  const format = attr(dts, 'format') ?? '102';
  const digits = raw.replace(/\D/g, '');
  if (!['102', '203', '204'].includes(format) || digits.length < 8) {
    // Some producers write ISO dates whatever the format says.
    return isoDate(raw);
  }
  return isoDate(`${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6, 8)}`);
}

/** `YYYY-MM-DD` (optionally followed by a time) when it is a real calendar date. */
function isoDate(s: string | null): string | null {
  const m = s ? /^(\d{4})-(\d{2})-(\d{2})/.exec(s.trim()) : null;
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

function compactIban(s: string | null): string | null {
  if (!s) return null;
  const t = s.replace(/[\s-]+/g, '').toUpperCase();
  return /^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/.test(t) ? t : null;
}

function joinAddress(parts: Array<string | null>): string | null {
  const kept = parts.map((p) => p?.trim()).filter((p): p is string => !!p);
  return kept.length > 0 ? kept.join(', ') : null;
}

function put(fields: Record<string, unknown>, name: string, value: unknown): void {
  if (value === null || value === undefined || value === '') return;
  if (Array.isArray(value) && value.length === 0) return;
  fields[name] = value;
}

/** The only rate when every tax line carries the same one; null with several rates (no single value to give). */
function singleRate(rates: Array<number | null>): number | null {
  const set = new Set(rates.filter((r): r is number => r !== null));
  return set.size === 1 ? [...set][0] : null;
}

// ------------------------------------------------------------------ CII

function readCii(root: Node, source: string, invoiceRoot: boolean): EmbeddedInvoice {
  const docNode = all(root, 'ExchangedDocument|HeaderExchangedDocument')[0];
  const typeCode = text(docNode, 'TypeCode');
  const profile = text(root, 'ExchangedDocumentContext|SpecifiedExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID');
  const isInvoice = invoiceRoot && !(typeCode && ORDER_CODES.has(typeCode));
  const tx = all(root, 'SupplyChainTradeTransaction|SpecifiedSupplyChainTradeTransaction')[0];
  const agreement = all(tx, 'ApplicableHeaderTradeAgreement|ApplicableSupplyChainTradeAgreement')[0];
  const settlement = all(tx, 'ApplicableHeaderTradeSettlement|ApplicableSupplyChainTradeSettlement')[0];
  const sums = all(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation|SpecifiedTradeSettlementMonetarySummation')[0];
  const currency = text(settlement, 'InvoiceCurrencyCode') ?? text(settlement, 'OrderCurrencyCode');

  const fields: Record<string, unknown> = {};
  put(fields, 'invoice_number', text(docNode, 'ID'));
  put(fields, 'issue_date', ciiDate(all(docNode, 'IssueDateTime')[0]));

  const party = (node: Node | undefined, prefix: 'issuer' | 'customer') => {
    if (!node) return;
    put(fields, `${prefix}_name`, text(node, 'Name'));
    const regs = all(node, 'SpecifiedTaxRegistration/ID');
    const vat = regs.find((r) => attr(r, 'schemeID') === 'VA') ?? regs.find((r) => attr(r, 'schemeID') === 'FC') ?? regs[0];
    put(fields, `${prefix}_tax_id`, textOf(vat));
    const addr = all(node, 'PostalTradeAddress')[0];
    if (addr) {
      const cityLine = [text(addr, 'PostcodeCode'), text(addr, 'CityName')].filter(Boolean).join(' ');
      put(
        fields,
        `${prefix}_address`,
        joinAddress([text(addr, 'LineOne'), text(addr, 'LineTwo'), text(addr, 'LineThree'), cityLine, text(addr, 'CountryID')]),
      );
    }
  };
  party(all(agreement, 'SellerTradeParty')[0], 'issuer');
  party(all(agreement, 'BuyerTradeParty')[0], 'customer');

  const taxBase = num(text(sums, 'TaxBasisTotalAmount'));
  // TaxTotalAmount may appear twice (invoice currency and accounting currency): keep the invoice currency's.
  const taxTotals = all(sums, 'TaxTotalAmount');
  const taxTotal = taxTotals.find((t) => !attr(t, 'currencyID') || attr(t, 'currencyID') === currency) ?? taxTotals[0];
  put(fields, 'tax_base', taxBase);
  put(fields, 'tax_amount', num(textOf(taxTotal)));
  put(fields, 'total_amount', num(text(sums, 'GrandTotalAmount')));
  const headerTaxes = all(settlement, 'ApplicableTradeTax');
  put(fields, 'tax_rate', singleRate(headerTaxes.map((t) => num(text(t, 'RateApplicablePercent|ApplicablePercent')))));
  put(fields, 'currency', currency);
  put(fields, 'due_date', ciiDate(all(settlement, 'SpecifiedTradePaymentTerms/DueDateDateTime')[0]));

  const means = all(settlement, 'SpecifiedTradeSettlementPaymentMeans')[0];
  if (means) {
    const info = text(means, 'Information');
    const code = text(means, 'TypeCode');
    put(fields, 'payment_method', info ?? (code ? PAYMENT_MEANS[code] : null));
    put(fields, 'iban', compactIban(text(means, 'PayeePartyCreditorFinancialAccount/IBANID')));
  }

  const items = all(tx, 'IncludedSupplyChainTradeLineItem').map((li) => {
    const item: Record<string, unknown> = {};
    put(item, 'description', text(li, 'SpecifiedTradeProduct/Name'));
    put(item, 'quantity', num(text(li, 'SpecifiedLineTradeDelivery|SpecifiedSupplyChainTradeDelivery/BilledQuantity')));
    const price = all(li, 'SpecifiedLineTradeAgreement|SpecifiedSupplyChainTradeAgreement/NetPriceProductTradePrice')[0];
    const basis = num(text(price, 'BasisQuantity'));
    // The price is per `BasisQuantity` units; it is a unit price only when that basis is 1 (or absent).
    if (basis === null || basis === 1) put(item, 'unit_price', num(text(price, 'ChargeAmount')));
    put(
      item,
      'amount',
      num(
        text(
          li,
          'SpecifiedLineTradeSettlement|SpecifiedSupplyChainTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation|SpecifiedTradeSettlementMonetarySummation/LineTotalAmount',
        ),
      ),
    );
    return item;
  });
  put(fields, 'line_items', items.filter((i) => Object.keys(i).length > 0));
  return { syntax: 'CII', isInvoice, typeCode, source, profile, fields, amounts: ciiAmounts(tx, settlement, sums, taxTotal, typeCode) };
}

// ------------------------------------------------------------------ UBL

function readUbl(root: Node, rootName: 'Invoice' | 'CreditNote', source: string): EmbeddedInvoice {
  const credit = rootName === 'CreditNote';
  const typeCode = text(root, credit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode');
  const currency = text(root, 'DocumentCurrencyCode');
  const fields: Record<string, unknown> = {};
  put(fields, 'invoice_number', text(root, 'ID'));
  put(fields, 'issue_date', isoDate(text(root, 'IssueDate')));

  const party = (node: Node | undefined, prefix: 'issuer' | 'customer') => {
    if (!node) return;
    put(fields, `${prefix}_name`, text(node, 'PartyLegalEntity/RegistrationName') ?? text(node, 'PartyName/Name'));
    const schemes = all(node, 'PartyTaxScheme');
    const vat = schemes.find((s) => /^VAT$/i.test(text(s, 'TaxScheme/ID') ?? '')) ?? schemes[0];
    put(fields, `${prefix}_tax_id`, text(vat, 'CompanyID') ?? text(node, 'PartyLegalEntity/CompanyID'));
    const addr = all(node, 'PostalAddress')[0];
    if (addr) {
      const cityLine = [text(addr, 'PostalZone'), text(addr, 'CityName')].filter(Boolean).join(' ');
      put(
        fields,
        `${prefix}_address`,
        joinAddress([
          text(addr, 'StreetName'),
          text(addr, 'AdditionalStreetName'),
          text(addr, 'AddressLine/Line'),
          cityLine,
          text(addr, 'Country/IdentificationCode'),
        ]),
      );
    }
  };
  party(all(root, 'AccountingSupplierParty/Party')[0], 'issuer');
  party(all(root, 'AccountingCustomerParty/Party')[0], 'customer');

  const totals = all(root, 'LegalMonetaryTotal')[0];
  put(fields, 'tax_base', num(text(totals, 'TaxExclusiveAmount')));
  put(fields, 'total_amount', num(text(totals, 'TaxInclusiveAmount')));
  // TaxTotal may appear twice (document and tax currency): keep the document currency's.
  const taxTotals = all(root, 'TaxTotal');
  const taxTotal =
    taxTotals.find((t) => {
      const c = attr(all(t, 'TaxAmount')[0], 'currencyID');
      return !c || c === currency;
    }) ?? taxTotals[0];
  put(fields, 'tax_amount', num(text(taxTotal, 'TaxAmount')));
  put(
    fields,
    'tax_rate',
    singleRate(all(taxTotal, 'TaxSubtotal').map((s) => num(text(s, 'Percent') ?? text(s, 'TaxCategory/Percent')))),
  );
  put(fields, 'currency', currency);
  const means = all(root, 'PaymentMeans')[0];
  put(fields, 'due_date', isoDate(text(root, 'DueDate') ?? text(means, 'PaymentDueDate')));
  if (means) {
    const code = text(means, 'PaymentMeansCode');
    put(fields, 'payment_method', code ? (PAYMENT_MEANS[code] ?? null) : null);
    put(fields, 'iban', compactIban(text(means, 'PayeeFinancialAccount/ID')));
  }

  const items = all(root, credit ? 'CreditNoteLine' : 'InvoiceLine').map((li) => {
    const item: Record<string, unknown> = {};
    put(item, 'description', text(li, 'Item/Name') ?? text(li, 'Item/Description'));
    put(item, 'quantity', num(text(li, credit ? 'CreditedQuantity' : 'InvoicedQuantity')));
    const price = all(li, 'Price')[0];
    const basis = num(text(price, 'BaseQuantity'));
    if (basis === null || basis === 1) put(item, 'unit_price', num(text(price, 'PriceAmount')));
    put(item, 'amount', num(text(li, 'LineExtensionAmount')));
    return item;
  });
  put(fields, 'line_items', items.filter((i) => Object.keys(i).length > 0));
  const profile = text(root, 'CustomizationID');
  const isInvoice = !(typeCode && ORDER_CODES.has(typeCode));
  return { syntax: 'UBL', isInvoice, typeCode, source, profile, fields, amounts: ublAmounts(root, credit, taxTotal, typeCode) };
}

// ------------------------------------------------------------------ amounts (EN 16931 structure)

/** Decimals of a number as written (`60.0000` -> 4). */
function decimalsOf(s: string | null): number | null {
  if (s === null) return null;
  const m = /\.(\d+)\s*$/.exec(s.trim());
  return m ? m[1].length : 0;
}

const yes = (s: string | null): boolean => s !== null && /^(true|1)$/i.test(s.trim());

/** CII `SpecifiedTradeAllowanceCharge` nodes split into allowances and charges (amount, VAT category and rate). */
function ciiAllowanceCharges(nodes: Node[], taxPath: string): { allowances: InvoiceAllowanceCharge[]; charges: InvoiceAllowanceCharge[] } {
  const allowances: InvoiceAllowanceCharge[] = [];
  const charges: InvoiceAllowanceCharge[] = [];
  for (const n of nodes) {
    const amount = num(text(n, 'ActualAmount'));
    if (amount === null) continue;
    const tax = all(n, taxPath)[0];
    const ac = { amount, vat_category: text(tax, 'CategoryCode'), vat_rate: num(text(tax, 'RateApplicablePercent|ApplicablePercent')) };
    (yes(text(n, 'ChargeIndicator/Indicator') ?? text(n, 'ChargeIndicator')) ? charges : allowances).push(ac);
  }
  return { allowances, charges };
}

function ciiAmounts(tx: Node | undefined, settlement: Node | undefined, sums: Node | undefined, taxTotal: Node | undefined, typeCode: string | null): InvoiceInput {
  let items = all(tx, 'IncludedSupplyChainTradeLineItem');
  // EXTENDED: information lines carry no amount of the invoice; sub-lines are summed in their group line.
  items = items.filter((li) => text(li, 'AssociatedDocumentLineDocument/LineStatusReasonCode')?.toUpperCase() !== 'INFORMATION');
  if (items.some((li) => text(li, 'AssociatedDocumentLineDocument/ParentLineID'))) {
    items = items.filter((li) => !text(li, 'AssociatedDocumentLineDocument/ParentLineID'));
  }
  const lines: InvoiceLine[] = [];
  for (const li of items) {
    const agreement = all(li, 'SpecifiedLineTradeAgreement|SpecifiedSupplyChainTradeAgreement')[0];
    const price = all(agreement, 'NetPriceProductTradePrice')[0];
    const priceText = text(price, 'ChargeAmount');
    const lineSettlement = all(li, 'SpecifiedLineTradeSettlement|SpecifiedSupplyChainTradeSettlement')[0];
    const amount = num(text(lineSettlement, 'SpecifiedTradeSettlementLineMonetarySummation|SpecifiedTradeSettlementMonetarySummation/LineTotalAmount'));
    const quantity = num(text(li, 'SpecifiedLineTradeDelivery|SpecifiedSupplyChainTradeDelivery/BilledQuantity'));
    const unitPrice = num(priceText);
    // A line with no amount at all is a note (ZUGFeRD 1 free-text lines).
    if (amount === null && (quantity === null || unitPrice === null)) continue;
    const tax = all(lineSettlement, 'ApplicableTradeTax')[0];
    const ac = ciiAllowanceCharges(all(lineSettlement, 'SpecifiedTradeAllowanceCharge'), 'CategoryTradeTax');
    lines.push({
      quantity,
      unit_price: unitPrice,
      price_base_quantity: num(text(price, 'BasisQuantity')),
      price_decimals: decimalsOf(priceText),
      allowances: ac.allowances.map((a) => a.amount),
      charges: ac.charges.map((c) => c.amount),
      amount,
      vat_category: text(tax, 'CategoryCode'),
      vat_rate: num(text(tax, 'RateApplicablePercent|ApplicablePercent')),
    });
  }
  const doc = ciiAllowanceCharges(all(settlement, 'SpecifiedTradeAllowanceCharge'), 'CategoryTradeTax');
  // ZUGFeRD 1 / EXTENDED logistics service charges are document-level charges (they count in ChargeTotalAmount).
  for (const n of all(settlement, 'SpecifiedLogisticsServiceCharge')) {
    const amount = num(text(n, 'AppliedAmount'));
    const tax = all(n, 'AppliedTradeTax')[0];
    if (amount !== null) doc.charges.push({ amount, vat_category: text(tax, 'CategoryCode'), vat_rate: num(text(tax, 'RateApplicablePercent|ApplicablePercent')) });
  }
  const taxes: InvoiceTaxBreakdown[] = all(settlement, 'ApplicableTradeTax')
    .filter((t) => (text(t, 'TypeCode') ?? 'VAT').toUpperCase() === 'VAT')
    .map((t) => ({
      category: text(t, 'CategoryCode'),
      rate: num(text(t, 'RateApplicablePercent|ApplicablePercent')),
      base: num(text(t, 'BasisAmount')),
      vat: num(text(t, 'CalculatedAmount')),
    }));
  return {
    complete: true,
    syntax: 'CII',
    type_code: typeCode,
    lines,
    allowances: doc.allowances,
    charges: doc.charges,
    taxes,
    line_total: num(text(sums, 'LineTotalAmount')),
    allowance_total: num(text(sums, 'AllowanceTotalAmount')),
    charge_total: num(text(sums, 'ChargeTotalAmount')),
    subtotal: num(text(sums, 'TaxBasisTotalAmount')),
    vat_total: num(textOf(taxTotal)),
    total: num(text(sums, 'GrandTotalAmount')),
    prepaid: num(text(sums, 'TotalPrepaidAmount')),
    rounding: num(text(sums, 'RoundingAmount')),
    amount_due: num(text(sums, 'DuePayableAmount')),
  };
}

/** UBL `AllowanceCharge` children of a node, split into allowances and charges. */
function ublAllowanceCharges(node: Node | undefined, taxPath: string): { allowances: InvoiceAllowanceCharge[]; charges: InvoiceAllowanceCharge[] } {
  const allowances: InvoiceAllowanceCharge[] = [];
  const charges: InvoiceAllowanceCharge[] = [];
  for (const n of kids(node, 'AllowanceCharge')) {
    const amount = num(text(n, 'Amount'));
    if (amount === null) continue;
    const tax = all(n, taxPath)[0];
    const ac = { amount, vat_category: text(tax, 'ID'), vat_rate: num(text(tax, 'Percent')) };
    (yes(text(n, 'ChargeIndicator')) ? charges : allowances).push(ac);
  }
  return { allowances, charges };
}

function ublAmounts(root: Node, credit: boolean, taxTotal: Node | undefined, typeCode: string | null): InvoiceInput {
  const lines: InvoiceLine[] = [];
  for (const li of all(root, credit ? 'CreditNoteLine' : 'InvoiceLine')) {
    const price = all(li, 'Price')[0];
    const priceText = text(price, 'PriceAmount');
    const amount = num(text(li, 'LineExtensionAmount'));
    const quantity = num(text(li, credit ? 'CreditedQuantity' : 'InvoicedQuantity'));
    const unitPrice = num(priceText);
    if (amount === null && (quantity === null || unitPrice === null)) continue;
    const tax = all(li, 'Item/ClassifiedTaxCategory')[0];
    // Line allowances and charges are the line's own AllowanceCharge children (the Price's one is a price discount).
    const ac = ublAllowanceCharges(li, 'TaxCategory');
    lines.push({
      quantity,
      unit_price: unitPrice,
      price_base_quantity: num(text(price, 'BaseQuantity')),
      price_decimals: decimalsOf(priceText),
      allowances: ac.allowances.map((a) => a.amount),
      charges: ac.charges.map((c) => c.amount),
      amount,
      vat_category: text(tax, 'ID'),
      vat_rate: num(text(tax, 'Percent')),
    });
  }
  const doc = ublAllowanceCharges(root, 'TaxCategory');
  // The breakdown is in the document currency's TaxTotal (a second one in the tax currency has no rows).
  const rowsOf = all(taxTotal, 'TaxSubtotal').length > 0 ? taxTotal : all(root, 'TaxTotal').find((t) => all(t, 'TaxSubtotal').length > 0);
  const taxes: InvoiceTaxBreakdown[] = all(rowsOf, 'TaxSubtotal').map((s) => ({
    category: text(s, 'TaxCategory/ID'),
    rate: num(text(s, 'TaxCategory/Percent') ?? text(s, 'Percent')),
    base: num(text(s, 'TaxableAmount')),
    vat: num(text(s, 'TaxAmount')),
  }));
  const totals = all(root, 'LegalMonetaryTotal')[0];
  return {
    complete: true,
    syntax: 'UBL',
    type_code: typeCode,
    lines,
    allowances: doc.allowances,
    charges: doc.charges,
    taxes,
    line_total: num(text(totals, 'LineExtensionAmount')),
    allowance_total: num(text(totals, 'AllowanceTotalAmount')),
    charge_total: num(text(totals, 'ChargeTotalAmount')),
    subtotal: num(text(totals, 'TaxExclusiveAmount')),
    vat_total: num(text(taxTotal, 'TaxAmount')),
    total: num(text(totals, 'TaxInclusiveAmount')),
    prepaid: num(text(totals, 'PrepaidAmount')),
    rounding: num(text(totals, 'PayableRoundingAmount')),
    amount_due: num(text(totals, 'PayableAmount')),
  };
}
