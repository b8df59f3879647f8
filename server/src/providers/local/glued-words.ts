/**
 * Words PP-OCR's recogniser wrote without the spaces between them (issue #28). Its `ch` model leaves out about a
 * quarter of the spaces on a scanned or photographed page (bench/results/invoices-receipts.md), and a label glued
 * together (`TOTALAMOUNTDUEON`, `Totalfor thisinvoice`, `BilltoAddress:`) matches none of the label rules. A run of
 * letters is parted only where it is made entirely of the words documents print as labels (invoice, total, amount,
 * due, date, number... in the service's languages), or where a small letter meets a capital beside such a word
 * (`InvoiceSummary`, `DUEONAugust`). A run that is one word, or that these words do not cover whole, stays as read:
 * names and brands (`PayPal`, `JOHNSON`) are never cut.
 */

/** Label words of invoices, receipts and ID documents (folded: lower case, no accents), three letters or more. */
const WORDS = new Set(
  `
  invoice invoices bill billed billing receipt statement order delivery shipping ship sold purchase credit debit note
  total subtotal amount amounts due payable paid payment payments balance sum grand net gross tax taxes vat gst
  date dates number reference account customer client seller buyer supplier vendor address name description quantity
  unit price prices rate discount charge charges period page terms term from with for the this that your our all and
  item items service services summary details detail transfer code bank phone email contact issued issue expiry birth
  place sex nationality surname given names document card licence license driver class height eyes type holder
  signature valid until remit please thank thanks cash change tip tendered visa card registration fax line
  eur usd gbp chf
  factura facturas fecha numero importe iva base imponible cliente pago pagar vencimiento forma cantidad precio
  descuento concepto subtotal parcial impuesto impuestos recibo ticket caja efectivo cambio gracias domicilio nombre apellidos nacimiento
  facture date montant tva payer paiement echeance reglement quantite prix remise designation acompte net
  ttc client fournisseur vendeur acheteur adresse commande livraison reference merci total somme
  rechnung rechnungsnummer datum nummer betrag gesamt summe netto brutto mwst ust kunde kunden zahlbar zahlung
  lieferung bestellung menge preis einzelpreis steuer bank konto bis vom
  fatura nota valor data vencimento pagamento quantidade preco desconto
  fattura importo totale imponibile scadenza pagamento
  factuur bedrag totaal datum vervaldatum betaling klant btw
  january february march april june july august september october november december
  enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
  janvier fevrier mars avril juin juillet aout septembre octobre novembre decembre
  januar februar marz juni juli oktober dezember
  `
    .split(/\s+/)
    .filter(Boolean),
);
/** Short words that join labels (`Bill to`, `Total due on`, `Date de`); parted only beside longer label words. */
const JOINERS = new Set(['to', 'on', 'of', 'no', 'nr', 'at', 'by', 'de', 'du', 'la', 'le', 'da', 'do', 'zu', 'te']);

const isWord = (w: string) => WORDS.has(w);

/** Accent-folded lower case, one character for one (the offsets stay the run's). */
function foldRun(s: string): string {
  let out = '';
  for (const ch of s) {
    const f = ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    out += f.length === 1 ? f : ch.toLowerCase().slice(0, 1);
  }
  return out;
}

/**
 * Offsets inside `run` (letters only, as the recogniser wrote them) where it covers whole as label words: the cover
 * with the fewest words, every word a label word or a joiner before one (at the end only when `openEnd`: a
 * capital word follows in the same run, `DUEONAugust`; a name such as `BILLON` is no `bill on`); null when no cover
 * exists.
 */
export function coverWords(run: string, openEnd = false): number[] | null {
  const s = foldRun(run);
  if (s.length !== run.length || s.length < 5 || isWord(s)) return null;
  // best[i]: the fewest pieces covering s[0, i), and where the last piece began.
  const best: Array<{ n: number; from: number; joiner: boolean } | null> = Array.from({ length: s.length + 1 }, () => null);
  best[0] = { n: 0, from: -1, joiner: false };
  for (let i = 1; i <= s.length; i++) {
    for (let j = Math.max(0, i - 16); j < i; j++) {
      const prev = best[j];
      if (!prev) continue;
      const piece = s.slice(j, i);
      const joiner = JOINERS.has(piece);
      if (!isWord(piece) && !joiner) continue;
      // Two joiners in a row are no label (`de` + `la` + ...).
      if (joiner && prev.joiner) continue;
      const n = prev.n + 1;
      if (!best[i] || n < best[i]!.n) best[i] = { n, from: j, joiner };
    }
  }
  const end = best[s.length];
  if (!end || end.n < 2 || (end.joiner && !openEnd)) return null;
  const cuts: number[] = [];
  for (let i = s.length; i > 0; i = best[i]!.from) if (best[i]!.from > 0) cuts.unshift(best[i]!.from);
  return cuts;
}

/**
 * Offsets inside `text` (one word as the recogniser grouped it) where spaces were left out: in each run of letters,
 * the cuts of `coverWords`, and the run's case boundaries (a small letter then a capital; capitals then a capital
 * starting a small word) where a side is a label word or a covered run.
 */
export function gluedCuts(text: string): number[] {
  const cuts: number[] = [];
  for (const m of text.matchAll(/\p{L}+/gu)) {
    const run = m[0];
    if (run.length < 5) continue;
    const base = m.index!;
    // Case boundaries: `InvoiceSummary` (e|S), `DUEONAugust` (N|Au).
    const bounds: number[] = [];
    for (let i = 1; i < run.length; i++) {
      const a = run[i - 1];
      const b = run[i];
      const lowerUpper = /\p{Ll}/u.test(a) && /\p{Lu}/u.test(b);
      const upperWord = /\p{Lu}/u.test(a) && /\p{Lu}/u.test(b) && /\p{Ll}/u.test(run[i + 1] ?? '');
      if (lowerUpper || upperWord) bounds.push(i);
    }
    const edges = [0, ...bounds, run.length];
    const parts = edges.slice(1).map((end, k) => ({ from: edges[k], to: end }));
    const known = parts.map((p) => {
      const piece = run.slice(p.from, p.to);
      const f = foldRun(piece);
      // A label word of four letters or more beside a case boundary (`Pay|Pal` stays whole).
      if (isWord(f)) return { inner: [] as number[], label: f.length >= 4 };
      const inner = coverWords(piece, p.to < run.length);
      return inner ? { inner: inner.map((c) => c + p.from), label: true } : { inner: [] as number[], label: false };
    });
    for (const [k, p] of parts.entries()) {
      if (k > 0 && (known[k - 1].label || known[k].label)) cuts.push(base + p.from);
      cuts.push(...known[k].inner.map((c) => base + c));
    }
  }
  return cuts.sort((a, b) => a - b);
}
