/**
 * Till and purchase receipts read from text lines (OCR words with boxes, or a text layer).
 *
 * - `tillLayout` tells a till receipt from an invoice or a statement by its structure as well as its words: short
 *   lines, item + amount rows, TOTAL / CASH / CHANGE / tip / rounding lines, a cashier or a table, "thank you";
 *   against it, a customer block, an invoice-number label, a due date, an IBAN, payment terms.
 * - `receiptTotal` finds the grand total by label-value layout: the amount right of a TOTAL-like label on its line,
 *   or below it when the label stands alone; never from a label that is a subtotal, a count of items, a tax or a
 *   tender line; the strongest label, then the largest amount; cash minus change confirms it (or supplies it).
 * - `splitDocuments` finds several receipts photographed side by side (the page's lines cut at column gaps no words
 *   cross, each column with its own total line).
 * Nothing here invents a value: a total with no label and no cash/change proof is not reported.
 */
import type { TextLine } from '../types.ts';
import { union, type AmountMatch, type Line } from './normalize.ts';

/**
 * A TOTAL-like label (folded text). OCR often reads `TOTAL` as `T0TAL`, `TOTAI`, `TOTA1`, and drops the spaces of
 * a compound label (`TotalPayable`, `TotalAmtIncl.GST`). Italian tills print `TOTALE EURO` / `TOTALE COMPLESSIVO`;
 * Dutch `Te betalen`, Polish `SUMA PLN` / `Do zapłaty`, Swedish `Summa` / `Att betala`, Finnish `Yhteensä`, Czech `Celkem`,
 * Turkish `TOPLAM` / `GENEL TOPLAM` (`ARA TOPLAM` a subtotal, `TOPKDV` its VAT).
 */
const TOTAL_LABEL =
  /(?<![\p{L}])(grand\s*t[o0]ta[l1i]|t[o0]ta[l1i]e(\s*(euro|eur|complessivo|da\s*pagare))?|net+\s*t[o0]ta[l1i]|round(ed|ing)?\s*t[o0]ta[l1i]|t[o0]ta[l1i]\s*\(?(rm|myr|sgd|usd|eur|gbp)\)?|t[o0]ta[l1i]\s*(amt|amount)?\s*(payable|due|paid|incl\w*)|t[o0]ta[l1i]\s*(sales|amt|amount)|t[o0]ta[l1i]|amount\s*(due|payable)|balance\s*(due)?|summe|gesamt\w*|zu\s*zahlen|betrag|totaal|te\s*betalen|summa|suma(\s*pln)?|razem|do\s*zaplaty|att\s*betala|at\s*betale|yhteensa|celkem|k\s*uhrade|(genel\s*)?toplam|importe|a\s*pagar|montant|net\s*a\s*payer|total\s*ttc|a\s*payer|amount\s*paid|charged)(?![\p{L}])/u;
/** Strong total labels: the amount to pay (after rounding, with tax, with tip). */
const STRONG_TOTAL =
  /(grand\s*t[o0]ta[l1i]|net+\s*t[o0]ta[l1i]|final\s*t[o0]ta[l1i]|t[o0]ta[l1i]\s*((amt|amount)\s*)?(pay\w*|due|incl\w*|\(incl\w*|after|rounded|inclusive|rm|eur|usd)|t[o0]ta[l1i]\s*sales\s*\(?\s*incl\w*|amount\s*(due|payable|paid)|balance\s*due|zu\s*zahlen|gesamtbetrag|te\s*betalen|do\s*zaplaty|att\s*betala|at\s*betale|k\s*uhrade|total\s*ttc|net\s*a\s*payer|a\s*pagar|after\s*round\w*|charged)/u;
/** The total after rounding (`Rounded Total`, `Total after rounding`): what was paid when a till rounds to 5 cents. */
const ROUNDED_TOTAL = /(round(ed)?\s*t[o0]ta[l1i]|t[o0]ta[l1i]\s*(after\s*round\w*|rounded)|after\s*round\w*)/u;
/** Labels that look like totals but are not the amount paid. */
const NOT_TOTAL =
  /(sub\s*-?\s*t[o0]ta[l1i]|zwischensumme|sous-?\s*total|subtotaal|t[o0]ta[l1i]\s*(qty|quantity|items?|item\(s\)|no|pcs|units?|disc\w*|saving\w*|gst|tax|vat|tva|mwst|excl\w*|\(excl\w*|before|points?|weight)|excl|before\s*(tax|gst)|supplies|no\.?\s*of\s*items?|item\s*count|qty|gst\s*summary|tax\s*summary|t[o0]ta[l1i]e\s*(iva|imponibile|sconti|pezzi|articoli|risparmio)|(suma|summa|totaal|celkem|yhteensa)\s*(ptu|moms|btw|dph|alv|vat)|ara\s*toplam|top\s*kdv|toplam\s*kdv|kdv\s*toplam\w*|sprzedaz\s*opodatk\w*|\bnetto\b|tendered|\bcash\b|change|ruckgeld|gegeben|saving|discount|rabatt|deposit|pfand|points|previous\s*balance|balance\s*(b\/f|brought)|includ\w*\s*\d+(?:[.,]\d+)?\s*%\s*(gst|vat|tax|sst|iva|tva|mwst))/u;

const TIP_LABEL = /(?<![\p{L}])(tip|tips|gratuity|propina|pourboire|trinkgeld|mancia|gorjeta|service\s*charge)(?![\p{L}])/u;
/** What a payment line says was received (folded): `Received`, `Amount paid`, `Paid by card`, `EFTPOS`. */
const PAID_LABEL = /(?<![\p{L}])(received|paid|eftpos|card|recibido|pagado|recu|erhalten)(?![\p{L}])/u;
/** A tip the bill only suggests (folded): `Propina sugerida`, `PROP.SUGERIDA 10%`, `Suggested tip`, `Mancia suggerita`. */
const SUGGESTED = /(?<![\p{L}])(sugerid[ao]|sugerencia|suggested|suggerit[ao]|suggeree?|sugestao|sugerid[ao]s|recommended)(?![\p{L}])/u;
const ROUNDING_LABEL = /(?<![\p{L}])(rounding|round(ing)?\s*adj\w*|rundung|arrondi|redondeo|arredondamento)/u;
const CASH_LABEL = /(?<![\p{L}])(cash\s*(tendered|tender|received|paid)|cash|tendered|tender|bar|gegeben|efectivo|entregado|especes|dinheiro|contante|contanti|contant|kontant|gotowka|hotovost|kateinen|nakit|paid|pay)(?![\p{L}])(?!\s*(inv|bill|sale))/u;
const CHANGE_LABEL = /(?<![\p{L}])(change\s*(due|amt|amount|given)|change|ruckgeld|zuruck|cambio|devolucion|rendu|monnaie|troco|wisselgeld|reszta|vaxel|byttepenge|vraceno|para\s*ustu)(?![\p{L}])/u;

/** Words only a till receipt prints (folded), with their weight. */
const TILL_CUES: Array<[RegExp, number]> = [
  [CHANGE_LABEL, 1.5],
  [/(?<![\p{L}])(cash|tendered|efectivo|especes|bar(geld)?|gegeben|contante|contanti|contant|kontant|gotowka|hotovost|nakit|dinheiro)(?![\p{L}])/u, 1],
  [/(?<![\p{L}])(tip|gratuity|propina|pourboire|trinkgeld)(?![\p{L}])/u, 1],
  [/(?<![\p{L}])(rounding|round(ing)?\s*adj\w*|rundung)(?![\p{L}])/u, 1],
  [/(?<![\p{L}])(cashier|kasse|kassierer|caja|cajero|caisse|caissier|cassa|cassiere|operator|operatore|kasiyer|served by|counter|terminal|pos|till|table|pax|guests?|mesa|tisch)(?![\p{L}])/u, 1],
  // Whole words: `merci` is also the middle of `comercio` (a Latin American invoice's `Comercio al por menor`).
  [/(?<![\p{L}])(thank\s*you|thanks|danke|vielen dank|gracias|merci|obrigad[oa]|grazie|come again|welcome back|see you)/u, 1],
  // `Due on receipt`, `payable upon receipt of`: an invoice's payment terms, not a receipt's title.
  [/(?<![\p{L}])(?<!(?:up)?on\s+)(receipt|kassenbon|kassenbeleg|bon|beleg|ticket|tique|recu|reçu|talao|scontrino|kassabon|paragon\s*fiskalny|kvitto|kvittering|uctenka|kuitti|fis\s*no|satis\s*fisi|cupom|cash\s*sale|cash\s*bill|simplified\s*tax\s*invoice)(?![\p{L}])/u, 1],
  [/(?<![\p{L}])(qty|item\(s\)|items?|pcs|stk)(?![\p{L}])/u, 0.5],
  [/(?<![\p{L}])(visa|master\s*card|mastercard|amex|debit|girocard|ec-?karte|maestro|approval|auth(orization)?\s*(code|no)|card\s*(no|type)|contactless|kartenzahlung)(?![\p{L}])/u, 0.75],
  [/(goods sold|not (returnable|refundable)|exchange|refund within|keep (this|your) receipt)/u, 1],
];
/**
 * A card terminal's slip (a payment receipt with no till's item rows): its approval, its copy, the card's entry mode,
 * the authorisation, terminal and batch numbers, the EMV application id (folded). Two kinds or more count.
 */
const CARD_TERMINAL: RegExp[] = [
  /(?<![\p{L}])approved(?![\p{L}])/u,
  /(card\s*holder|customer|merchant)\s*copy/u,
  /entry(\s*mode)?\s*:?\s*(chip|swipe|swiped|tap|contactless|ctls|icc)/u,
  /(?<![\p{L}])auth\w*\s*(#|no|code|:)/u,
  /(?<![\p{L}])(tid|term(inal)?\s*i[do]|merch(ant)?\s*i[do])(?![\p{L}])/u,
  /(?<![\p{L}])(batch|sequence|stan|rrn)(?![\p{L}])/u,
  /transaction\s*record/u,
  /(?<![\p{L}\d])a0{5}\d{5,}/u,
];
/** What invoices and statements print and till receipts do not (folded). */
const NOT_TILL_CUES: Array<[RegExp, number]> = [
  // `Bill To : CASH` (a till's walk-in customer) is no buyer block.
  [/(bill(ed)?\s*to|ship(ped)?\s*to|invoice\s*to|sold\s*to|rechnungsempfanger|facturar\s*a|destinataire|customer\s*(no|number|id)|kundennummer|client\s*(no|number))(?!\s*:?\s*(cash|walk.?in|\n\s*cash\b))/u, 2],
  [/(invoice\s*(number|no\.?|nr|#|date)|rechnungs(nummer|datum)|numero\s*de\s*factura|n[°o]\s*de\s*facture|factuurnummer|fattura\s*n)/u, 2],
  // The document's name then its number sign in any of the languages (`Facture Nr:`, `Factura fiscala Nr:`,
  // `Korrekturrechnung Nr.`, `Faktura VAT nr`). Weaker than an invoice-number label: a Latin American till slip may
  // print `Factura N°` (a Spanish `Factura simplificada Nº` is not matched: the qualifier is not in the list).
  [/(?<![\p{L}])(facture|factura|fattura|fatura|factuur|faktura|\p{L}*rechnung)(\s+(vat|fiscala|fiscal|proforma))?\s*(nr\.?|n[°oº]|no\.|numero|nummer|#)(?![\p{L}])/u, 1.5],
  [/(due\s*date|payment\s*terms|zahlbar\s*bis|zahlungsziel|zahlungsbedingungen|vencimiento|vencim\.|terminos\s*de\s*pago|condiciones\s*de\s*pago|condic\.\s*(de\s*)?pago|conditions\s*de\s*(paiement|reglement)|echeance|vervaldatum|termin\s*platnosci|scadenza|terms\s*(&|and)\s*conditions|net\s*\d\d\s*days)/u, 1.5],
  // Nordic invoices: the due date and the payment terms (`Förfallodatum`, `Betalningsvillkor`, `Dröjsmålsränta`: the
  // interest on late payment; Danish and Norwegian `Forfaldsdato`, `Betalingsbetingelser`; Finnish `Eräpäivä`, `Maksuehdot`).
  // (The Swedish `till`, a preposition, is a till's word in English: these words weigh against it.)
  [/(?<![\p{L}])(forfallodatum|forfallodag|betalningsvillkor|drojsmalsranta|forfaldsdato|forfallsdato|betalingsbetingelser|erapaiva|maksuehdot|viivastyskorko)(?![\p{L}])/u, 1.5],
  // The Nordic billing address heading (`Fakturaadress`, `Fakturaadresse`, `Laskutusosoite`): a customer block.
  [/(?<![\p{L}])(fakturaadress|fakturaadresse|faktureringsadress|laskutusosoite)(?![\p{L}])/u, 2],
  // A party's heading on a line of its own (or two side by side): `Cobrar a`, `Recipient  Biller`, `Sprzedawca  Nabywca`.
  [/^\s*(cobrar\s*a|envie\s*a|enviar\s*a|nabywca|sprzedawca|recipient|biller|destinatario|destinataire|emetteur|adquirente|leistungsempfanger|intestatario)(\s*:)?(\s+\p{L}+(\s*:)?)?\s*$/mu, 1.5],
  [/(?<![\p{L}])(iban|swift|bic)(?![\p{L}])/u, 1.5],
  [/(?<![\p{L}])(?<!keep\s)(this|the|your)\s+invoice(?![\p{L}])/u, 1],
  [/(opening\s*balance|closing\s*balance|statement\s*(period|date)|account\s*summary|saldo\s*(inicial|final|anterior)|kontoauszug|releve)/u, 2.5],
];

export interface TillLayout {
  /** Structural and word evidence of a till receipt (>= 3: a till receipt). */
  score: number;
  /** Evidence against (customer block, invoice number, due date, IBAN, statement words). */
  against: number;
  /** Lines ending in an amount with decimals (item rows, totals). */
  amountRows: number;
}

/** How much the lines look like a till receipt. */
export function tillLayout(lines: readonly Line[]): TillLayout {
  const text = lines.map((l) => l.fold).join('\n');
  let score = 0;
  for (const [re, w] of TILL_CUES) if (re.test(text)) score += w;
  const terminal = CARD_TERMINAL.filter((re) => re.test(text)).length;
  if (terminal >= 2) score += Math.min(terminal, 4) * 0.5;
  let against = 0;
  for (const [re, w] of NOT_TILL_CUES) if (re.test(text)) against += w;
  // Item + amount columns: many short lines whose last word is an amount with two decimals.
  const amountRows = lines.filter((l) => /\d[.,]\s?\d{2}\s*[a-z]{0,2}\s*$/i.test(l.text)).length;
  const short = lines.filter((l) => l.text.length <= 48).length;
  if (lines.length >= 6 && amountRows >= 3 && amountRows / lines.length >= 0.15) score += 1;
  if (lines.length >= 6 && short / lines.length >= 0.8) score += 0.5;
  if (lines.some((l) => TOTAL_LABEL.test(l.fold) && !NOT_TOTAL.test(l.fold))) score += 0.5;
  // A column of amounts: lines ending in an amount whose right edges line up (a till's price column).
  const ends = lines.filter((l) => /\d[.,]\s?\d{2}\s*[a-z]{0,2}\s*$/i.test(l.text)).map((l) => l.bbox[2]).sort((a, b) => a - b);
  if (ends.length >= 4) {
    const mid = ends[Math.floor(ends.length / 2)];
    if (ends.filter((x) => Math.abs(x - mid) < 0.04).length >= 4 && short / lines.length >= 0.6) score += 0.5;
  }
  // A time of day printed beside the date: a till stamps its sale to the minute.
  if (lines.some((l) => /\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}.{0,24}(?<!\d)([01]?\d|2[0-3])[:.][0-5]\d(?!\d)/.test(l.fold) || /(?<!\d)([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?(?!\d).{0,24}\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}/.test(l.fold))) score += 0.5;
  // Mostly capitals: thermal printers print upper case.
  const letters = lines.map((l) => l.text).join('').replace(/[^\p{L}]/gu, '');
  if (letters.length >= 80 && letters.replace(/[^\p{Lu}]/gu, '').length / letters.length >= 0.75 && short / lines.length >= 0.6) score += 0.5;
  // Cash handed over and change given back: only a till prints both.
  if (lines.some((l) => CASH_LABEL.test(l.fold) && !CHANGE_LABEL.test(l.fold)) && lines.some((l) => CHANGE_LABEL.test(l.fold))) score += 1;
  return { score: Math.round((score - against) * 100) / 100, against, amountRows };
}

/** The till layout decides: a receipt, not an invoice. */
export function isTill(layout: TillLayout): boolean {
  return layout.score >= 3;
}

export interface Found {
  value: number;
  line: Line;
  start: number;
  end: number;
  confidence: number;
}

/** Amounts that may be money on a line: not rates, and with decimals when the document writes its amounts so. */
function money(amounts: AmountMatch[], decimalsOnly: boolean, fold?: string): AmountMatch[] {
  return amounts
    .filter((a) => !a.percent && (!decimalsOnly || a.decimals))
    // `Total Payable: — 48.04`: a dash after a label and a space is a leader, not a minus sign.
    .map((a) => (a.value < 0 && fold && /^-\s/.test(fold.slice(a.start)) && /[:\s]$/.test(fold.slice(0, a.start)) ? { ...a, value: -a.value } : a));
}

/**
 * Amounts of a till line whose decimal point OCR lost or split (`100. 00`, `43 70`, `O 02`, `4370` in a receipt
 * that writes every amount with two decimals), at the end of a line that carries a total, cash or change label.
 * They are marked as decimals; the caller gives them less confidence.
 */
export function repairedAmounts(line: Line, decimalsOnly: boolean): AmountMatch[] {
  const out: AmountMatch[] = [];
  const f = line.fold.replace(/(?<=[\s:=.,-]|^)o(?=[\s.,]*\d{2}(?!\d))/g, '0');
  const split = /(?<![\d.,])(\d{1,5})(?:\s*[.,]\s+|\s+[.,]?\s*)(\d{2})(?![\d.,])\s*[a-z]{0,3}\s*$/.exec(f);
  if (split) {
    out.push({ value: Number(`${split[1]}.${split[2]}`), start: split.index, end: split.index + split[0].trimEnd().length, currency: null, decimals: true, percent: false });
    return out;
  }
  const joined = /(?<![\d.,])(\d{3,6})(?![\d.,%])\s*[a-z]{0,3}\s*$/.exec(f);
  if (joined && decimalsOnly) {
    const v = Number(joined[1]) / 100;
    out.push({ value: v, start: joined.index, end: joined.index + joined[1].length, currency: null, decimals: true, percent: false });
  }
  return out;
}

/** The line's amounts, plus repaired ones when the line ends in a broken amount (labelled lines only). */
function lineAmounts(amounts: AmountMatch[][], line: Line, decimalsOnly: boolean, labelled: boolean): { list: AmountMatch[]; repaired: boolean } {
  const list = money(amounts[line.index], decimalsOnly, line.fold);
  const endsInAmount = list.some((a) => line.fold.slice(a.end).replace(/[\s a-z]{0,4}$/, '') === '');
  if (labelled && !endsInAmount) {
    const r = repairedAmounts(line, decimalsOnly);
    if (r.length > 0) return { list: r, repaired: true };
  }
  return { list, repaired: false };
}

/** The amount right of the label on its line (the last one), else the first one on the line just below. */
function valueOf(lines: readonly Line[], amounts: AmountMatch[][], line: Line, labelEnd: number, decimalsOnly: boolean): { line: Line; a: AmountMatch; below: boolean; repaired: boolean } | null {
  const own = lineAmounts(amounts, line, decimalsOnly, true);
  // A label that ends in the currency (`TOTAL RM`, `TOTALRM`) shares it with the amount (`RM 89.00`).
  const same = own.list.filter((a) => a.start >= labelEnd || (a.currency !== null && a.end > labelEnd && /^[^\d]*$/.test(line.fold.slice(a.start, labelEnd))));
  if (same.length > 0) return { line, a: same[same.length - 1], below: false, repaired: own.repaired };
  const h = Math.max(line.bbox[3] - line.bbox[1], 1e-4);
  for (let i = line.index + 1; i < lines.length && i <= line.index + 2; i++) {
    const next = lines[i];
    if (next.page !== line.page || next.bbox[1] - line.bbox[3] > 1.6 * h) break;
    if (TOTAL_LABEL.test(next.fold) || CASH_LABEL.test(next.fold) || CHANGE_LABEL.test(next.fold)) break;
    const ms = lineAmounts(amounts, next, decimalsOnly, true);
    if (ms.list.length > 0) return { line: next, a: ms.list[ms.list.length - 1], below: true, repaired: ms.repaired };
  }
  return null;
}

/** Amount of the first line matching `label` (not a total line), right of the label. */
function tender(lines: readonly Line[], amounts: AmountMatch[][], label: RegExp, decimalsOnly: boolean): Found | null {
  for (const line of lines) {
    const m = label.exec(line.fold);
    if (!m || (label === CASH_LABEL && CHANGE_LABEL.test(line.fold))) continue;
    const v = valueOf(lines, amounts, line, m.index + m[0].length, decimalsOnly);
    if (v) return { value: v.a.value, line: v.line, start: v.a.start, end: v.a.end, confidence: 0.6 };
  }
  return null;
}

/**
 * The grand total of a receipt. Candidates are TOTAL-like lines (not subtotals, item counts, tax or tender
 * lines); the strongest label wins, then the largest amount. Cash minus change, when both are printed, confirms
 * a candidate or, when no candidate matches, names the printed amount equal to it.
 */
export function receiptTotal(lines: readonly Line[], amounts: AmountMatch[][]): (Found & { strong: boolean }) | null {
  const found = grandTotal(lines, amounts);
  return found ? { ...found, strong: 'priority' in found && (found as { priority: number }).priority >= 3 } : null;
}

function grandTotal(lines: readonly Line[], amounts: AmountMatch[][]): Found | null {
  const decimalsOnly = amounts.flat().filter((a) => !a.percent && a.decimals).length >= 3;
  const cands: Array<Found & { priority: number; below: boolean; classed: boolean }> = [];
  for (const line of lines) {
    const m = TOTAL_LABEL.exec(line.fold);
    if (!m) continue;
    if (NOT_TOTAL.test(line.fold) || tipSuggestion(lines, amounts, line)) continue;
    const v = valueOf(lines, amounts, line, m.index + m[0].length, decimalsOnly);
    if (!v || v.a.value <= 0) continue;
    const priority = ROUNDED_TOTAL.test(line.fold) ? 3.5 : STRONG_TOTAL.test(line.fold) ? 3 : 2;
    cands.push({ value: v.a.value, line: v.line, start: v.a.start, end: v.a.end, confidence: (v.below ? 0.7 : 0.8) * (v.repaired ? 0.7 : 1), priority: v.repaired ? priority - 1.5 : priority, below: v.below, classed: !v.below && taxClassed(v.line, v.a) });
  }
  const cash = tender(lines, amounts, CASH_LABEL, decimalsOnly);
  const change = tender(lines, amounts, CHANGE_LABEL, decimalsOnly);
  const paid = cash && change && cash.value - change.value > 0 ? Math.round((cash.value - change.value) * 100) / 100 : null;
  const close = (a: number, b: number) => Math.abs(a - b) < 0.005;
  if (paid !== null) {
    const proven = cands.filter((c) => close(c.value, paid)).sort((a, b) => b.priority - a.priority || b.line.index - a.line.index)[0];
    if (proven) return { ...proven, confidence: 0.95 };
    // The total line misread: an amount printed elsewhere (under a rounding line, say) that cash - change proves.
    for (const line of lines) {
      if (line.index >= (cash?.line.index ?? 0)) break;
      const a = lineAmounts(amounts, line, decimalsOnly, true).list.find((x) => close(x.value, paid));
      if (a && !NOT_TOTAL.test(line.fold)) return { value: a.value, line, start: a.start, end: a.end, confidence: 0.75 };
    }
    // No amount read on any total line, but one is printed (`T0TAL 2O.OO`): cash - change is what was paid (unsure).
    const unread = lines.find((l) => l.index < (cash?.line.index ?? 0) && TOTAL_LABEL.test(l.fold) && !NOT_TOTAL.test(l.fold));
    if (cands.length === 0 && unread) return { value: paid, line: unread, start: 0, end: unread.fold.length, confidence: 0.5 };
  }
  // A tip (`Tip`, `Propina`, `Pourboire`, `Trinkgeld`) counts into what was paid when a total is printed after it:
  // the totals below the tip line come first.
  const tip = lines.find((l) => TIP_LABEL.test(l.fold) && !TOTAL_LABEL.test(l.fold) && money(amounts[l.index], decimalsOnly, l.fold).some((a) => a.value > 0));
  if (tip) for (const c of cands) if (c.line.index > tip.index) c.priority += 2;
  cands.sort((a, b) => b.priority - a.priority || b.value - a.value || b.line.index - a.line.index);
  let best = cands[0];
  // A rounding line after the chosen total and no total after it: the rounded amount is what was paid.
  if (best) {
    const rounding = lines.find((l) => l.index > best!.line.index && l.index <= best!.line.index + 3 && ROUNDING_LABEL.test(l.fold));
    const after = rounding && cands.some((c) => c.line.index > rounding.index);
    const r = rounding ? lineAmounts(amounts, rounding, decimalsOnly, true).list.filter((a) => Math.abs(a.value) < 0.1)[0] : undefined;
    if (rounding && r && r.value !== 0 && !after) {
      // `Rounding Adj -0.02`: the sign is printed; without one the rounding is read as printed (added).
      best = { ...best, value: Math.round((best.value + r.value) * 100) / 100, confidence: Math.min(best.confidence, 0.7) };
    }
  }
  // Exact cash and no change line: a total read only from the line below its label yields to the cash; so does one
  // that carries a tax class letter (`SUMME 1,55A`: an item's price a photo taken askew set on the total's line).
  if (best && cash && !change && (best.below || best.classed) && !close(best.value, cash.value)) return { ...cash, confidence: 0.5 };
  if (best) best = dollarReadAsOne(lines, amounts, best);
  if (best) {
    // A total larger than the cash handed over is a misreading (or the cash line is): lower confidence.
    if (cash && !change && best.value > cash.value + 0.005) return { ...best, confidence: best.confidence * 0.7 };
    return best;
  }
  // Only a cash line (and no change, or none given): the cash handed over was the total.
  if (cash && (!change || close(change.value, 0))) return { ...cash, confidence: change ? 0.6 : 0.5 };
  return saleAmount(lines, amounts, decimalsOnly) ?? subtotalReceived(lines, amounts, decimalsOnly);
}

/**
 * A till slip with no total line (`Price $22.98`, `GST $3.00`, `Subtotal $22.98`, `Received $22.98`): its subtotal,
 * when a payment line below it received exactly that amount, is what was paid (unsure).
 */
function subtotalReceived(lines: readonly Line[], amounts: AmountMatch[][], decimalsOnly: boolean): Found | null {
  for (const line of lines) {
    if (!/(?<![\p{L}])sub\s*-?\s*t[o0]ta[l1i](?![\p{L}])/u.test(line.fold)) continue;
    const a = money(amounts[line.index], decimalsOnly, line.fold).filter((x) => x.value > 0).at(-1);
    if (!a) continue;
    const paid = lines.slice(line.index + 1, line.index + 4).some((l) => PAID_LABEL.test(l.fold) && money(amounts[l.index], decimalsOnly, l.fold).some((x) => Math.abs(x.value - a.value) < 0.005));
    if (paid) return { value: a.value, line, start: a.start, end: a.end, confidence: 0.6 };
  }
  return null;
}

/**
 * OCR reads a dollar sign as a `1` (`TOTAL 1125.00` for `TOTAL $125.00`): a total printed with no `$` whose first
 * digit is a 1, on a receipt that prints the same amount without that 1 after a `$` on another line (its subtotal,
 * its card charge), is that amount.
 */
function dollarReadAsOne<T extends Found>(lines: readonly Line[], amounts: AmountMatch[][], best: T): T {
  const own = amounts[best.line.index].find((a) => a.start === best.start);
  const digits = best.line.fold.slice(best.start, best.end);
  // (Not after a tip line: a tip makes the total larger than the amounts printed before it.)
  if (!own || own.currency !== null || !/^1\d+[.,]\d{2}$/.test(digits) || lines.some((l) => TIP_LABEL.test(l.fold))) return best;
  // The leading 1 is worth 10^(digits before the decimals - 1).
  const value = Math.round((best.value - 10 ** (digits.length - 4)) * 100) / 100;
  const printed = lines.some((l) => l.index !== best.line.index && amounts[l.index].some((a) => a.currency === 'USD' && Math.abs(a.value - value) < 0.005));
  return printed ? { ...best, value, confidence: best.confidence * 0.8 } : best;
}

/** An amount followed by one letter (`2,19 B`, `0.95 R`, `1,55A`): the tax class a till prints beside an item's price. */
function taxClassed(line: Line, a: AmountMatch): boolean {
  return /^\s?[a-z](?![\p{L}\d])/u.test(line.fold.slice(a.end));
}

/**
 * A card slip's suggested tips (`+3%: (Tip $4.08 Total $152.96)`, or `=Total: 6.62 6.80 6.91` under
 * `Gratuity: 15% 18% 20%`): what the total would be with a tip the customer has not chosen yet, never the total.
 */
function tipSuggestion(lines: readonly Line[], amounts: AmountMatch[][], line: Line): boolean {
  const own = amounts[line.index];
  if (TIP_LABEL.test(line.fold) && own.some((a) => a.percent)) return true;
  // A total naming a tip (`Total c/Propina 110,330`) just under a suggested tip (`PROP.SUGERIDA 10%: 10,030`,
  // `Suggested tip`): the bill with a tip the customer may not leave.
  if (TIP_LABEL.test(line.fold) && lines.slice(Math.max(0, line.index - 2), line.index).some((l) => SUGGESTED.test(l.fold))) return true;
  // A row of three totals or more, one per tip rate named just above it.
  if (own.filter((a) => !a.percent).length < 3) return false;
  return lines.slice(Math.max(0, line.index - 3), line.index).some((l) => TIP_LABEL.test(l.fold) && amounts[l.index].filter((a) => a.percent).length >= 2);
}

/**
 * A card slip with no total line (the tip left to fill in by hand): its `Amount:` line, the sale as charged, is the
 * total printed. Only a label that starts its line and an amount on the same line.
 */
function saleAmount(lines: readonly Line[], amounts: AmountMatch[][], decimalsOnly: boolean): Found | null {
  for (const line of lines) {
    const m = /^[^\p{L}\d]{0,3}((sale|purchase)\s*)?amount\s*:/u.exec(line.fold);
    if (!m || tipSuggestion(lines, amounts, line)) continue;
    const a = money(amounts[line.index], decimalsOnly, line.fold).filter((x) => x.start >= m[0].length && x.value > 0);
    if (a.length === 1) return { value: a[0].value, line, start: a[0].start, end: a[0].end, confidence: 0.6 };
  }
  return null;
}

/** An amount with its cents (a document's column holds a few). */
const AMOUNT = /\d[.,]\d{2}(?!\d)/;

/**
 * Several documents side by side in one photo: an OCR engine reads a row of text across both slips as one line, so
 * the lines are cut at the page's column gaps first. A column gap is a band of the page, inside the text, that
 * (almost) no line's words cross: at most one line in thirty-three (a smear of desk read as a word may bridge it).
 * Each column is then one document when it holds six lines or more over at least a third of the text's height, a
 * TOTAL-like or CHANGE label and three lines with an amount (a single receipt cut at its amount column leaves the amounts
 * without their labels: one document). Returns the lines of each document, left to right (the lines as read when the photo
 * holds one document).
 */
export function splitDocuments(lines: readonly TextLine[]): TextLine[][] {
  const one = [lines as TextLine[]];
  const rows = lines
    .map((l) => (l.words?.length ? l.words : [{ text: l.text, bbox: l.bbox, confidence: l.confidence }]).filter((w) => w.text.trim().length > 0))
    .filter((ws) => ws.length > 0);
  if (rows.length < 12) return one;
  const BINS = 400;
  const bin = (x: number) => Math.max(0, Math.min(BINS - 1, Math.floor(x * BINS)));
  const cover = new Array<number>(BINS).fill(0);
  for (const ws of rows) {
    const seen = new Set<number>();
    for (const w of ws) for (let b = bin(w.bbox[0]); b <= bin(w.bbox[2]); b++) seen.add(b);
    for (const b of seen) cover[b] += 1;
  }
  const x0s = rows.flatMap((ws) => ws.map((w) => w.bbox[0])).sort((a, b) => a - b);
  const x1s = rows.flatMap((ws) => ws.map((w) => w.bbox[2])).sort((a, b) => a - b);
  const from = bin(x0s[Math.floor(x0s.length * 0.02)]);
  const to = bin(x1s[Math.ceil(x1s.length * 0.98) - 1]);
  const bridging = Math.max(1, Math.floor(rows.length / 33));
  const cuts: number[] = [];
  for (let b = from; b <= to; ) {
    if (cover[b] > bridging) {
      b++;
      continue;
    }
    let e = b;
    while (e + 1 <= to && cover[e + 1] <= bridging) e++;
    // At least 1.5 % of the page wide, with text on both sides.
    if ((e - b + 1) / BINS >= 0.015 && b > from && e < to) cuts.push((b + e + 1) / 2 / BINS);
    b = e + 1;
  }
  if (cuts.length === 0) return one;
  const edges = [-Infinity, ...cuts, Infinity];
  const columns: TextLine[][] = edges.slice(1).map(() => []);
  for (const line of lines) {
    const words = line.words?.length ? line.words : null;
    if (!words) {
      const cx = (line.bbox[0] + line.bbox[2]) / 2;
      columns[edges.findIndex((e, i) => i > 0 && cx <= e) - 1].push(line);
      continue;
    }
    for (let i = 0; i < columns.length; i++) {
      const mine = words.filter((w) => {
        const cx = (w.bbox[0] + w.bbox[2]) / 2;
        return cx > edges[i] && cx <= edges[i + 1];
      });
      if (mine.length === 0) continue;
      if (mine.length === words.length) {
        columns[i].push(line);
        continue;
      }
      columns[i].push({ ...line, text: mine.map((w) => w.text).join(' '), bbox: union(mine.map((w) => w.bbox)), words: mine });
    }
  }
  const height = (b: TextLine['bbox']) => b[3] - b[1];
  const page = height(union(lines.map((l) => l.bbox)));
  const documents = columns.filter((c) => {
    if (c.length < 6) return false;
    const span = height(union(c.map((l) => l.bbox)));
    return span >= page / 3 && c.some((l) => TOTAL_LABEL.test(fold(l.text)) || CHANGE_LABEL.test(fold(l.text))) && c.filter((l) => AMOUNT.test(l.text)).length >= 3;
  });
  if (documents.length < 2) return one;
  return documents;
}

function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
}
