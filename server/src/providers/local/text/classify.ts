/**
 * Rules-based classification of a document's text against the catalogue (no model, offline).
 *
 * Score of a type = keyword and label phrases found in the text (accent-folded, whole words; longer phrases weigh
 * more; repeated hits capped; hits in the top of the first page weigh more) + pattern cues (an amount with
 * decimals next to a VAT/total word for invoices, an IBAN for bank documents, a NIF/NIE...) + a country prior
 * (the country the text points to, or the caller's hint) - a penalty for types of another country. Generic types
 * (`certificate`, `unknown_document`) only ever get weak scores. Confidence comes from the score's strength and the
 * margin to the best competitor that is not a sibling type (same category and fields), so a weak or ambiguous
 * match stays below 0.5 (the caller then reports `type_unknown`).
 */
import { states as ICAO_STATES } from 'mrz';
import { ISO_ALPHA3 } from '../../../catalogue/countries.ts';
import { allEntries, type CatalogueEntry } from '../../../catalogue/index.ts';
import type { TextLine } from '../types.ts';
import { detectCountry } from './ids.ts';
import { findAmounts, foldKeep, foldPhrase, guessLanguage, prepareLines, type Line } from './normalize.ts';
import { isTill, tillLayout } from './receipt.ts';

export interface TextClassification {
  /** Best first; at most 5; confidences in 0..1 (below 0.5: not sure). */
  candidates: Array<{ type: string; confidence: number }>;
  language: { code: string; share: number } | null;
  /** ISO alpha-3 when the text points to a country (tax ids, VAT numbers, IBAN, legal words), else null. */
  country: string | null;
}

interface Phrase {
  text: string;
  re: RegExp;
  weight: number;
  /** Short acronyms (`nie`, `cif`) count only when written in capitals in the original text. */
  upper: boolean;
  /** The phrase's first word: a text without it cannot match (a cheap test that spares compiling the regex). */
  first: string;
}

interface TypeModel {
  entry: CatalogueEntry;
  phrases: Phrase[];
  invoiceLike: boolean;
  bankLike: boolean;
  /** The catalogue's types for a till or purchase receipt (it has no type of its own for one). */
  tillLike: boolean;
}

/** Words of amounts that make a text look like an invoice (folded; a digit may follow: OCR glues `Tax15%`). */
const TOTAL_WORDS =
  /\b(total|totaal|totale|gesamt\w*|summe|importe|montant|amount due|grand total|subtotal|subtotaal|iva|vat|tva|btw|mwst|ust|gst|igst|cgst|sgst|tax|taxes|taxe|taxa|impuestos?|imposto|moms|alv|kdv|ppn|sst|razem|suma|toplam|jumlah|iva incluido|ttc|ht|netto|brutto|bedrag)(?![a-z])/;

let MODELS: TypeModel[] | null = null;

/**
 * Words of an invoice in languages the catalogue's keywords do not cover (Polish, Czech, Italian, Portuguese,
 * German layouts): added to the invoice types' own phrases.
 */
const EXTRA_INVOICE_PHRASES = [
  'faktura', 'faktura vat', 'numer faktury', 'nr faktury', 'data wystawienia', 'sprzedawca', 'nabywca', 'do zaplaty', 'razem do zaplaty',
  'kwota naleznosci', 'faktura cislo', 'danovy doklad', 'fattura n', 'numero documento', 'fatura n', 'data de vencimento',
  'rechnung nr', 'leistungsdatum', 'invoice no', 'invoice id',
  // German compounds titled with the invoice's kind (a commercial, final, partial, down-payment invoice).
  'handelsrechnung', 'schlussrechnung', 'teilrechnung', 'abschlagsrechnung', 'rechnungsbetrag',
  // Brazilian notas fiscais and faturas, Romanian, Czech, Dutch, German and Italian invoice labels.
  'nota fiscal', 'valor a pagar', 'data de emissao', 'data emissao', 'factura fiscala', 'datum vystaveni', 'datum splatnosti', 'dodavatel',
  'odberatel', 'factuurnummer', 'factuurdatum', 'rechnungsnummer', 'rechnungsdatum', 'numero fattura', 'data fattura',
  // Finnish and Scandinavian invoices: invoice, invoice number, due date, amount to pay, VAT.
  'lasku', 'laskun nro', 'laskunumero', 'erapaiva', 'maksettava', 'alv', 'fakturanummer', 'fakturadatum', 'forfallodag', 'att betala', 'fakturadato', 'forfaldsdato', 'at betale', 'moms',
  // Turkish (e-Fatura, KDV), Indonesian (Faktur Pajak, PPN), Malay (Invois), Vietnamese (Hóa đơn GTGT) and Russian
  // (Счёт-фактура, НДС) invoices: invoice, its number and date, VAT, the total to pay.
  'fatura no', 'fatura tarihi', 'e-fatura', 'e-arsiv fatura', 'kdv', 'genel toplam', 'odenecek tutar', 'vergi dairesi',
  'faktur', 'faktur pajak', 'nomor faktur', 'no faktur', 'tanggal faktur', 'ppn', 'npwp', 'invois', 'no invois', 'nombor invois',
  'hoa don', 'hoa don gia tri gia tang', 'so hoa don', 'thue gtgt', 'tong cong tien thanh toan', 'ma so thue',
  'счет-фактура', 'счет на оплату', 'итого к оплате', 'всего к оплате', 'ндс', 'инн', 'кпп', 'поставщик', 'покупатель',
  // Chinese VAT invoices (fapiao): invoice, invoice number, date of issue, total with tax, seller, buyer.
  '发票', '增值税', '发票号码', '开票日期', '价税合计', '销售方', '购买方',
  // Latin American electronic invoices (Guatemala's FEL, Chile's and Peru's DTE, Mexico's CFDI, Colombia's factura
  // electrónica): the tax document's own name, its authorisation number, issue date and time, issuer and receiver.
  'documento tributario electronico', 'factura electronica', 'regimen fel', 'numero de autorizacion', 'fecha y hora emision',
  'fecha y hora de emision', 'datos del certificador', 'comprobante fiscal digital', 'folio fiscal',
  // Japanese invoices (請求書): invoice, its number and date of issue, consumption tax, the amount billed.
  '請求書', '請求書番号', '請求書発行日', '請求日', '消費税', '請求金額', 'ご請求金額',
];

/** Column titles of an item table: a header row of them is the items', not the totals'. */
const ITEM_HEADER = /(?<![a-z])(description|desc|qty|quantity|item|article|articulo|artikel|designation|bezeichnung|omschrijving|descrizione|concepto|price|prix|precio|preis|prijs|prezzo|unit|unitario|menge|cantidad|quantite|aantal|hours)(?![a-z])/;

/**
 * A totals header row (`TOTAL HT  TOTAL TVA  TOTAL TTC`, `Nettobetrag  MwSt  Endbetrag`) whose amounts stand on a row
 * of their own below it (within 3 of its heights and 4 lines: a left column's text may come between), under its
 * total words: those amounts (two or more, with decimals; up to the line giving the third), left to right; none for
 * an item table's header.
 */
function totalsRowBelow(lines: readonly Line[], i: number, at: number): number[] {
  const head = lines[i];
  if (ITEM_HEADER.test(head.fold)) return [];
  const x = head.words.find((w) => w.end > at)?.bbox[0] ?? head.bbox[0];
  const h = head.bbox[3] - head.bbox[1];
  // A photographed row may come out as several lines (`Tout dd 110,00` above `100,00 10,00`): all of them, by x.
  const under: Array<{ x: number; value: number }> = [];
  for (const below of lines.slice(i + 1, i + 5)) {
    if (below.page !== head.page || below.bbox[1] > head.bbox[3] + 3 * h) break;
    if (TOTAL_WORDS.test(below.fold)) break;
    for (const a of findAmounts(below.fold, true)) {
      const w = below.words.find((x2) => x2.end > a.start);
      if (a.decimals && !a.percent && w !== undefined && w.bbox[0] >= x - 0.12 && w.bbox[0] <= head.bbox[2] + 0.05) under.push({ x: w.bbox[0], value: a.value });
    }
    if (under.length >= 3) break;
  }
  return under.length >= 2 ? under.sort((a, b) => a.x - b.x).map((a) => a.value) : [];
}

/** Categories of identity documents (a card names the country that issued it). */
const ID_CATEGORY = new Set(['identity', 'driving', 'residence']);

let COUNTRY_NAMES: Array<[RegExp, string]> | null = null;
/**
 * The one catalogue country the text names in English (ICAO's names: `United States of America`, `Ireland`, `Spain`;
 * `Northern Ireland` is no Ireland), or null when it names none or several.
 */
export function namedCountry(raw: string): string | null {
  COUNTRY_NAMES ??= [...ISO_ALPHA3].flatMap((code) => {
    const name = (ICAO_STATES as Record<string, string | undefined>)[code];
    if (!name) return [];
    // The name, and its short form before `of` (`United States`, `United Kingdom`).
    const folded = foldPhrase(name.replace(/\(.*?\)/g, ' ')).trim();
    return [folded, folded.replace(/ of .*$/, '')].filter((n, i, all) => n.length >= 4 && all.indexOf(n) === i).map((n) => {
      const body = n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
      return [new RegExp(`(?<!\\p{L})(?<!northern\\s)${body}(?!\\p{L})`, 'u'), code] as [RegExp, string];
    });
  });
  const text = foldPhrase(raw);
  const hits = new Set(COUNTRY_NAMES.filter(([re]) => re.test(text)).map(([, code]) => code));
  return hits.size === 1 ? [...hits][0] : null;
}

/** What the invoice and bank types keep of their score on a till's layout. */
const TILL_INVOICE_WEIGHT = 0.15;

/** What a totals block that adds up weighs for the invoice types (about a title word in the top of the page). */
const TOTALS_ADD_UP = 1.5;

/**
 * Whether two amounts of the totals column add up to a third printed after them (net + tax = total, subtotal +
 * shipping = total), all three positive and distinct, to the cent. The column's first 24 amounts are tried.
 */
export function sumsUp(column: readonly number[]): boolean {
  const v = column.slice(0, 24);
  for (let k = 2; k < v.length; k++) {
    if (!(v[k] > 0)) continue;
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++) {
        if (v[i] > 0 && v[j] > 0 && v[i] !== v[j] && v[i] !== v[k] && v[j] !== v[k] && Math.abs(v[i] + v[j] - v[k]) < 0.005) return true;
      }
    }
  }
  return false;
}

/**
 * Types a till receipt is filed under: the catalogue has no till-receipt type, so a receipt is a proof of payment
 * issued by the payee (`payment_receipt`), or in Spain a simplified invoice (`es_simplified_invoice`, the tique).
 */
const TILL_TYPES = new Set(['payment_receipt', 'es_simplified_invoice']);

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function phraseOf(raw: string, weightScale: number): Phrase | null {
  const text = foldPhrase(raw);
  if (!text || /^\d+$/.test(text.replace(/\s/g, ''))) return null; // bare numbers say nothing
  const words = text.split(' ').length;
  const upper = words === 1 && text.length <= 3;
  // Han script writes no spaces between words: a Han phrase is not bounded by non-letters.
  const han = /\p{Script=Han}/u.test(text);
  const body = escape(text).replace(/ /g, '\\s+');
  const re = new RegExp(han ? body : `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, upper ? 'gu' : 'giu');
  return { text, re, weight: weightScale * (1 + 0.6 * (words - 1)) * (text.length <= 4 ? 0.6 : 1), upper, first: text.split(' ')[0] };
}

function models(): TypeModel[] {
  if (MODELS) return MODELS;
  MODELS = allEntries().map((entry) => {
    const seen = new Set<string>();
    const phrases: Phrase[] = [];
    const push = (raw: string, w: number) => {
      const p = phraseOf(raw, w);
      if (p && !seen.has(p.text)) {
        seen.add(p.text);
        phrases.push(p);
      }
    };
    for (const k of entry.keywords) push(k, 1);
    if (entry.type === 'invoice') for (const k of EXTRA_INVOICE_PHRASES) push(k, 1);
    for (const label of Object.values(entry.labels)) {
      // "Nómina (otro país)" -> "nómina"; "Spanish payslip (nómina)" -> "spanish payslip" and "nómina".
      const outside = label.replace(/\([^)]*\)/g, ' ').trim();
      push(outside, 1);
      for (const m of label.matchAll(/\(([^)]*)\)/g)) if (!/otro pa[ií]s|form|modelo/i.test(m[1])) push(m[1], 0.8);
    }
    const f = new Set(entry.fields);
    return {
      entry,
      phrases,
      invoiceLike: f.has('invoice_number') && f.has('total_amount') && f.has('tax_amount'),
      bankLike: f.has('iban') && (f.has('bank_name') || f.has('account_number')),
      tillLike: TILL_TYPES.has(entry.type),
    };
  });
  return MODELS;
}

/** Two types are siblings when they share their category and most of their fields (es_invoice vs invoice). */
function siblings(a: CatalogueEntry, b: CatalogueEntry): boolean {
  if (a.category !== b.category) return false;
  const fa = new Set(a.fields);
  const shared = b.fields.filter((f) => fa.has(f)).length;
  return shared / Math.max(a.fields.length, b.fields.length) >= 0.75;
}

/**
 * Classifies text lines (PDF text layer or OCR). Never throws; empty or meaningless text gives low-confidence
 * generic candidates.
 */
export function classifyText(lines: readonly TextLine[], opts: { countryHint?: string } = {}): TextClassification {
  try {
    return classify(prepareLines(lines), opts.countryHint?.toUpperCase() ?? null);
  } catch {
    return { candidates: [{ type: 'unknown_document', confidence: 0.1 }], language: null, country: null };
  }
}

export function classify(lines: Line[], countryHint: string | null): TextClassification {
  const raw = lines.map((l) => l.text).join('\n');
  const fold = foldKeep(raw);
  const language = guessLanguage(raw);
  const country = detectCountry(lines, language?.code ?? null);
  const named = namedCountry(raw);
  // The top of the first page (titles) weighs more.
  const head = foldKeep(
    lines
      .filter((l) => l.page === lines[0]?.page && l.bbox[1] < 0.3)
      .map((l) => l.text)
      .join('\n'),
  );

  // Structure: a till layout (item + amount rows, TOTAL / CASH / CHANGE lines, no customer block) is a receipt
  // even when it is titled "tax invoice" (Malaysian GST receipts are).
  const till = tillLayout(lines);
  const isReceipt = isTill(till);

  // Cues from patterns.
  let invoiceCue = 0;
  /** The last amount of each line that names a total, a subtotal or a tax (its value column), top to bottom. */
  const totalsColumn: number[] = [];
  for (const [i, l] of lines.entries()) {
    const word = TOTAL_WORDS.exec(l.fold);
    if (!word) continue;
    const amounts = findAmounts(l.fold, true).filter((a) => a.decimals && !a.percent);
    if (amounts.length > 0) {
      invoiceCue++;
      totalsColumn.push(amounts.at(-1)!.value);
    } else if (!isReceipt) {
      // (A till's tax summary row, `GST Summary Amount GST` over `SR=6% 25.47 1.53`, is the till's.)
      const row = totalsRowBelow(lines, i, word.index);
      if (row.length > 0) {
        invoiceCue++;
        totalsColumn.push(...row);
      }
    }
  }
  const totalsAddUp = sumsUp(totalsColumn);
  const hasIban = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}/.test(raw);
  /** The receipt prints that it is a (Spanish) simplified invoice. */
  const simplified = /factura\s+simplificada/.test(fold);
  // A payment receipt's own words (an online receipt is no till, but it is a proof of payment, not an invoice).
  // An online shop's purchase receipt titles itself so (`Ricevuta d'acquisto`, `Purchase receipt`, `Reçu d'achat`).
  const paidCue = lines.filter((l) => /(amount paid|date paid|paid on|payment received|receipt (no|number|#)|betrag erhalten|importe pagado|montant paye|ricevuta d.?acquisto|ricevuta di pagamento|purchase receipt|recibo de compra|recu d.?achat|kaufbeleg)/.test(l.fold)).length;

  const scores: Array<{ model: TypeModel; score: number }> = [];
  for (const model of models()) {
    let score = 0;
    for (const p of model.phrases) {
      if (!fold.includes(p.first)) continue;
      const hay = p.upper ? raw : fold;
      const hits = (hay.match(p.re) ?? []).length;
      if (hits === 0) continue;
      const inHead = p.upper ? false : p.re.test(head);
      p.re.lastIndex = 0;
      score += p.weight * Math.min(Math.sqrt(hits), 2) * (inHead ? 1.5 : 1);
    }
    if (model.invoiceLike && invoiceCue > 0) score += Math.min(invoiceCue, 4) * 0.75;
    // A totals block that adds up (net + tax = total, to the cent) is a bill's own structure, in any language and
    // whatever the OCR made of its title: it weighs about what the title word would. Not on a till's layout: a till
    // receipt adds up too, and it is a receipt.
    if (model.invoiceLike && totalsAddUp && !isReceipt) score += TOTALS_ADD_UP;
    if (model.bankLike && hasIban) score += 0.75;
    if (model.entry.type === 'payment_receipt' && paidCue > 0) score += Math.min(paidCue, 2) * 1.5;
    if (isReceipt) {
      // The Spanish tique in Spain, the universal type elsewhere (one of them only, so that the margin stays clear).
      // A till receipt is a `payment_receipt` wherever it was printed; the Spanish tique type only when the receipt
      // calls itself a simplified invoice (one of them only, so that the margin stays clear).
      const own = model.entry.type === 'es_simplified_invoice' ? simplified : !simplified;
      if (model.tillLike && own) score += 2 + Math.min(till.score, 8) * 0.5;
      // A till titled `Tax Invoice` (the GST receipts of Malaysia, Singapore, India, Australia) is a receipt: its title
      // weighs little beside the till's structure (0.15 since PP-OCR's glued `TaxInvoice` is read as words, 0.25 before).
      else if (model.invoiceLike || model.bankLike) score *= TILL_INVOICE_WEIGHT;
    } else if (till.score >= 2 && till.against === 0 && model.tillLike) {
      // Nearly a till and nothing of an invoice (no buyer block, number label, due date, IBAN): a receipt still leads.
      const own = model.entry.type === 'es_simplified_invoice' ? simplified : !simplified;
      if (own) score += 1 + (till.score - 2);
    }
    const e = model.entry;
    const universal = e.countries.includes('*');
    // An identity document's country is the one its text names (`UNITED STATES OF AMERICA` over `PASSPORT CARD`: the
    // US passport card, not the Irish one that shares its title); other documents name the countries of addresses.
    const target = country ?? (ID_CATEGORY.has(e.category) ? named : null) ?? countryHint;
    if (score > 0 && target) {
      if (e.countries.includes(target)) score *= 1.35;
      else if (!universal) score *= 0.5;
    } else if (score > 0 && !universal) {
      score *= 0.85; // no country evidence: the universal sibling is the safer answer
    }
    if (e.generic) score = Math.min(score * 0.5, 1.2);
    scores.push({ model, score });
  }
  scores.sort((a, b) => b.score - a.score || Number(a.model.entry.generic) - Number(b.model.entry.generic));

  const top = scores.filter((s) => s.score > 0).slice(0, 6);
  const candidates: Array<{ type: string; confidence: number }> = [];
  const strength = (score: number) => 1 - Math.exp(-score / 3);
  let first = 0;
  for (const [i, s] of top.entries()) {
    let conf: number;
    if (i === 0) {
      // Margin to the best type that is not a sibling (an invoice vs a Spanish invoice is no real doubt).
      const rival = top.find((o) => o !== s && !siblings(o.model.entry, s.model.entry))?.score ?? 0;
      conf = strength(s.score) * (0.4 + 0.6 * ((s.score - rival) / s.score));
      first = conf;
    } else if (siblings(s.model.entry, top[0].model.entry)) {
      conf = first * (s.score / top[0].score) * 0.9;
    } else {
      conf = strength(s.score) * 0.4 * Math.sqrt(s.score / top[0].score);
    }
    if (s.model.entry.generic) conf = Math.min(conf, 0.45);
    const prev = candidates.at(-1)?.confidence ?? 1;
    candidates.push({ type: s.model.entry.type, confidence: Math.min(prev, Math.round(Math.min(conf, 0.97) * 100) / 100) });
  }
  if (!candidates.some((c) => c.type === 'unknown_document')) {
    candidates.push({ type: 'unknown_document', confidence: Math.min(0.2, candidates.at(-1)?.confidence ?? 0.2) });
  }
  return { candidates: candidates.slice(0, 5), language, country };
}

/** Types the rules consider invoices (their fields have a number, a total and a tax amount). */
export function isInvoiceType(type: string): boolean {
  return models().some((m) => m.entry.type === type && m.invoiceLike);
}
