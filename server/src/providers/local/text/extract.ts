/**
 * Rule-based field extraction from text lines (PDF text layer or OCR) for a catalogue type.
 *
 * Values are found next to labels in seven languages (same line after the label, or the cell right below it in
 * a header/value table), or by patterns that carry their own proof (checksum-valid IBANs and tax ids). Amounts and
 * dates are read with the document's own conventions (decimal comma or point, day or month first). Each value
 * comes with the box of the words that carry it and a confidence that reflects the rule: a labelled value on the
 * same line is surer than one found below, and a cross-checked total (base + tax = total) surer still. A field that
 * no rule finds is absent: nothing is invented. Values follow the field's JSON Schema (ISO dates, numbers).
 */
import { isValidBIC } from 'ibantools';
import type { CatalogueEntry, FieldSchema } from '../../../catalogue/index.ts';
import type { ReadField } from '../../types.ts';
import type { Box, TextLine } from '../types.ts';
import { detectCountry, findIbans, findTaxIds, ISO2_TO_3, type IdMatch } from './ids.ts';
import { placeDate, SERIES_NUMBER } from './letter.ts';
import { isTill, receiptTotal, tillLayout } from './receipt.ts';
import {
  documentDayFirst,
  findAmounts,
  foldKeep,
  findDates,
  guessLanguage,
  prepareLines,
  spanBox,
  union,
  type AmountMatch,
  type DateMatch,
  type Line,
} from './normalize.ts';

export interface ExtractOptions {
  /** Language code when the caller already knows it (else guessed from the text). */
  language?: string | null;
  /** ISO alpha-3 when known (decides day/month order in English, among others). */
  country?: string | null;
}

type Kind = 'amount' | 'date' | 'id' | 'text' | 'percent';

interface Ctx {
  lines: Line[];
  language: string | null;
  country: string | null;
  dayFirst: boolean;
  commaDecimal: boolean;
  dates: DateMatch[][];
  amounts: AmountMatch[][];
  ids: IdMatch[][];
  ibans: IdMatch[][];
}

interface Candidate {
  value: unknown;
  confidence: number;
  line: Line;
  box: Box;
  /** Rule priority (higher wins), then confidence. */
  priority: number;
}

// ------------------------------------------------------------------ labels

/** Folded label patterns (regex source, word-bounded when used). */
const L = {
  total_strong: [
    // Indian GST invoices: the rounded `Total Amount After Tax` below the table's unrounded `Total` row (first: the
    // regex takes the first alternative that matches, and `total amount` alone would end before `after tax`).
    'total amount after tax', 'amount after tax', 'total after tax',
    'total ttc', 'montant ttc', 'total a payer', 'somme a payer', 'net a payer', 'montant a payer', 'total amount due',
    'amount ?due', 'balance ?due', 'total ?due', 'grand ?total', 'invoice ?total', 'total for this invoice', 'total incl\\.?',
    'totaal incl\\.?', 'te betalen', 'totaalbedrag', 'factuur totaal', 'factuurbedrag', 'gesamtbetrag', 'rechnungsbetrag',
    'endbetrag', 'zu zahlen', 'zahlbetrag', 'bruttobetrag', 'gesamtsumme', 'total factura', 'importe total', 'total a pagar',
    'total importe', 'totale fattura', 'totale documento', 'importo totale', 'totale da pagare', 'valor total', 'total da fatura',
    'total a liquidar', 'amount payable', 'total payable', 'total ?amount', 'saldo adeudado', 'importe adeudado', 'saldo a pagar',
    'kwota naleznosci( ogolem)?', '(razem )?do zaplaty', 'naleznosc ogolem', 'wartosc brutto', 'suma brutto', 'razem brutto',
    'k uhrade', 'celkem k uhrade', 'total geral', 'valor a pagar', 'totale complessivo', 'netto a pagare', 'endsumme',
    'rechnungssumme', 'bruttosumme', 'total general',
    // Dutch `Factuurtotaal`; German final invoices after advance payments: `Verbleibende Restforderung`, `Restbetrag`,
    // `Noch zu zahlen` (the `Summe Schlussrechnung brutto` above them is before the advances were deducted).
    'factuur ?totaal', '(verbleibende )?restforderung( brutto)?', 'restbetrag', 'noch zu zahlen',
    // Indian invoices close with `Net Payable` / `Net Amount Payable` (after tax and rounding) and bills with `Bill Amount`.
    'net ?(amount ?)?payable', 'bill amount',
    // `Due payable` (German `fällig, zahlbar` in English).
    'due payable',
    // German `Total inkl. MwSt.`; Hungarian `Fizetendő`; Estonian `Kokku tasuda`; Lithuanian `Iš viso mokėti`; Latvian `Kopā apmaksai`.
    '(total|gesamt|summe|betrag) inkl\\.?( (mwst|ust)\\.?)?', 'fizetendo( osszeg)?', 'kokku tasuda', 'tasuda', 'is viso moketi', 'moketi', 'kopa apmaksai', 'apmaksai',
    // Czech and Slovak: `Celkem s DPH` (total with VAT), `Celkem k úhradě`, `Spolu s DPH`, `Na úhradu`.
    'celkem s dph', 'celkem vcetne dph', 'k uhrade celkem', 'spolu s dph', 'celkom s dph', 'na uhradu( celkem)?',
    // Finnish, Swedish, Danish, Norwegian: `Maksettava`, `Att betala`, `At betale`, `Å betale`.
    'maksettava( yhteensa)?', 'loppusumma', 'att betala', 'summa att betala', 'at betale', 'a betale', 'totalbelob', 'totalbelop', 'fakturabelopp', 'fakturabelob', 'montant total', 'total a regler', 'totale a pagare', 'importe a pagar',
    // Turkish `Genel Toplam` / `Ödenecek Tutar`; Indonesian `Total Bayar` / `Jumlah yang harus dibayar`; Malay `Jumlah
    // Besar` / `Jumlah Perlu Dibayar`; Vietnamese `Tổng cộng tiền thanh toán`; Russian `Всего к оплате` / `Итого к оплате`.
    'genel toplam', 'odenecek tutar', 'toplam tutar', 'total bayar', 'jumlah (yang )?harus dibayar', 'jumlah tagihan',
    'jumlah besar', 'jumlah perlu dibayar', 'tong cong tien thanh toan', 'tong tien thanh toan', 'tong cong', 'всего к оплате', 'итого к оплате', 'сумма к оплате',
    // The document's total named with its article (French `Total de la facture`, Spanish `Total de la factura`,
    // Italian `Totale della fattura`), Romanian `Total de plată`, Indian `Total Invoice Value (INR)`: a longer label
    // than `total`, whose extra words would otherwise stand between `total` and its amount.
    'total de la factur[ea]', 'totale della fattura', 'total de plata', 'total invoice value( \\([a-z.₹]{1,4}\\))?',
    // India's e-invoice print (NIC-IRP) closes with a header row of totals, `… Round off Amt | Total Inv. Amt`, over its values.
    'total inv\\.? ?(amt|amount|value)\\.?',
    '价税合计', '合计金额', '应付金额', '总计',
    // Japanese: `ご請求金額`, `請求金額`, `合計金額`, `合計 (税込)` (the total with consumption tax).
    'ご請求金額', '請求金額', '合計金額', '合計',
  ],
  total_weak: ['total facture', 'total price', 'totaalprijs', 'totales', 'totaal', 'totalt', 'total', 'totale', 'summe', 'gesamt', 'betrag', 'razem', 'suma', 'celkem', 'yhteensa', 'summa', 'i alt', 'osszesen', 'kokku', 'is viso', 'kopa', 'toplam', 'jumlah', 'итого', 'всего'],
  total_exclude:
    /(sub\s?-?total|subtotaal|sous-total|zwischensumme|subtotale|\bht\b|hors tax|excl|exclusief|zonder btw|\bnet(to)?\b(?!\s*(a\s*pa(yer|gare)|(amount\s*)?payable))|sin iva|before tax|untaxed|total (tax|vat|tva|iva|btw|mwst|gst)|\b(tax|vat|tva|iva|btw|mwst|ust|gst) ?total|\bbase\b|\bqty\b|quantity)/,
  base: [
    'kwota netto', 'wartosc netto', 'razem netto', 'suma netto', 'total( eur)? ht', 'montant( eur)? ht', 'total hors taxes?', 'sous-total ht', 'net amount(?! ?payable)', 'total net', 'exclusief btw',
    'excl\\.? btw', 'totaal excl\\.?', 'nettobetrag', 'summe netto', 'gesamt netto', 'netto', 'base imponible', 'imponibile',
    'base tributavel', 'valor sem iva', 'amount untaxed', 'total excl\\.?( vat| tax)?', 'total before tax', 'grondslag', 'warenwert',
    // Turkish `Mal Hizmet Toplam Tutarı`, Indonesian `Dasar Pengenaan Pajak` (DPP), Vietnamese `Cộng tiền hàng`, Russian `Сумма без НДС`.
    'mal hizmet toplam tutari', 'dasar pengenaan pajak', 'dpp', 'cong tien hang', 'сумма без ндс', 'итого без ндс',
  ],
  base_weak: ['subtotal', 'sub-total', 'sub total', 'zwischensumme', 'subtotaal', 'sous-total', 'total parcial', 'ara toplam'],
  tax: [
    'total tax', 'total vat', 'total tva', 'montant( eur)? tva', '(ust|mwst)\\.? gesamt', 'gesamt (ust|mwst)', 'steuerbetrag', 'tva', 'vat', 'iva', 'cuota iva', 'btw bedrag', 'btw', 'mwst', 'ust',
    'kwota podatku', 'kwota vat', 'podatek vat', 'razem vat', 'taxe sur la valeur ajoutee', 'value added tax', 'impuesto sobre el valor anadido', 'taxe', 'umsatzsteuer', 'mehrwertsteuer', 'igst', 'cgst', 'sgst', 'gst', 'tax', 'taxes', 'impuestos?', 'imposta', 'imposto', '税额',
    // Turkish KDV, Indonesian PPN, Malaysian SST, Vietnamese `Tiền thuế GTGT`, Russian НДС (`в том числе НДС`).
    'hesaplanan kdv', 'kdv', 'ppn', 'sst', 'tien thue gtgt', 'thue gtgt', 'в том числе ндс', 'ндс',
  ],
  tax_exclude: /(excl|exclusief|inclus|incl\.|\bht\b|hors|base|grondslag|nummer|number|\bn[°o]\b|\bid\b|reg|intracom|no\.|tin|pan)/,
  issue_date_strong: [
    'invoice date', 'date of invoice', 'date d.?emission', 'date de (la )?facture', 'date facture', 'factuurdatum', 'factuur datum',
    'rechnungsdatum', 'belegdatum', 'fecha de (la )?factura', 'fecha factura', 'fecha de emision', 'fecha de expedicion',
    'data (della )?fattura', 'data de emissao', 'data da fatura', 'data emissao', 'issue date', 'date of issue', 'date issued',
    'issued on', 'billing date', 'invoice dt', 'beleg-?datum', 'data wystawienia', 'data faktury', 'datum vystaveni', 'data do documento',
    'data documento', 'fecha de factura', 'fecha expedicion', 'ausstellungsdatum', 'datum der rechnung', 'issuing date', 'date of invoice', '开票日期', '发票日期',
    'date de facturation', 'data (di )?emissione', 'rechnungs-datum', 'issued', 'invoicedate', 'fecha y hora (de )?emision',
    'laskun paivamaara', 'laskutuspaivamaara', 'laskutuspaiva', 'fakturadatum', 'fakturadato',
    'fatura tarihi', 'duzenleme tarihi', 'tanggal faktur', 'tarikh invois', 'ngay lap', 'дата счета', 'дата выставления',
    '請求書発行日', '発行日', '請求日',
  ],
  issue_date_weak: ['date', 'fecha', 'datum', 'data', 'dated', 'paivamaara', 'pvm', 'dato', '日期', 'tarih', 'tanggal', 'tarikh', 'дата'],
  date_exclude:
    /(due|echeance|vervaldatum|vencimiento|scadenza|vencimento|fallig|order|bestel|commande|pedido|limite|check.?in|check.?out|naissance|birth|nacimiento|geboorte|geburt|livraison|delivery|lieferung|leverdatum|entrega|periode|period|start|end|from|until|valid|prelevement|expir)/,
  due_date: [
    'due date', 'date due', 'payment due', 'due on', 'vervaldatum', 'uiterste betaaldatum', 'echeance', 'date d.?echeance',
    'date limite de paiement', 'a payer avant le', 'falligkeitsdatum', 'fallig am', 'zahlbar bis', 'fecha de vencimiento',
    'vencimiento', 'scadenza', 'data di scadenza', 'data de vencimento', 'data limite( de pagamento)?', 'pay by', 'bis zum',
    'termin platnosci', 'datum splatnosti', 'erapaiva', 'forfallodag', 'forfallodatum', 'forfaldsdato', 'forfallsdato', 'betalingsfrist',
  ],
  invoice_number: [
    // OCR reads `INVOICE NO` as `INV0ICE N0`, `1NVOICE NO`.
    '[il1]nv[o0][il1]ce ?(number|no\\.?|n[o0]\\.?|nr\\.?|num\\.?|#|id)', 'inv\\.? ?(no\\.?|#|nr\\.?|num\\.?)',
    // ... or with a letter lost (`Invice Number.`, `Invoce No`, `Inoice #`), before a number word only.
    '(?:[il1]nv[il1]ce|[il1]nv[o0]ce|[il1]n[o0][il1]ce) ?(number|n[o0]\\.|nr\\.?|#)',
    // Dutch `Factuurnummer`, which OCR also reads with one `u` (`Facturnummer`).
    'factu{1,2}r ?nummer', 'factu{1,2}rnr\\.?', 'factu{1,2}r (nummer|nr\\.?)',
    'rechnungsnummer', 'rechnungs-? ?(nr\\.?|nummer)', 'rechnung (nr\\.?|nummer)', 'handelsrechnung( nr\\.?)?', 'gutschrift( nr\\.?)?',
    're\\.? ?-? ?nr\\.?', 'rg\\.? ?-? ?nr\\.?', 'beleg ?-? ?(nr\\.?|nummer)', 'factura (numero|nro\\.?|num\\.?)',
    'n[°o.]{0,3} ?(da|de) fatura', 'nota fiscal( (eletronica|de servicos?))?( n[°o.]{0,3})?', 'nf-?e( n[°o.]{0,3})?', 'nfs-?e( n[°o.]{0,3})?',
    'folio( fiscal)?', 'doc\\.? ?(no\\.?|n[°o]|nr\\.?|#)', '发票号码', '发票号', '票据号码', '請求書番号', '請求番号',
    'credit note( no\\.?)?', 'numero de (la )?facture', 'n[°o] de facture',
    'facture n[°o]?', 'numero de factura', 'n[°o.]? ?(de )?factura', 'factura n[°o.]?', 'num\\.? factura', 'fattura n[°o.]?',
    'numero (della )?fattura', 'fatura n[°o.]?', 'numero da fatura', 'bill no\\.?', 'bill number', 'receipt (no\\.?|number)',
    // `TaxInvoice No`: PP-OCR glues words that a narrow space parts.
    'tax ?invoice ?no\\.?', 'document no\\.?', 'numer faktury', 'nr faktury', 'faktura( vat)? (nr|numer)', 'cislo faktury',
    'faktura cislo', 'n[°o.]? (do )?documento', 'numero (do )?documento', 'fattura (nr\\.?|numero)', 'rechnung( nr\\.?|-nr\\.?)',
    'invoice id', 'invoice ref(erence)?', 'facture (numero|no\\.?)', 'facture ref(erence)?',
    // Romanian `Nr. facturii`, `Număr factură`, `Seria și numărul`.
    'nr\\.? facturii', 'numar(ul)? factur(a|ii)', 'seria si numarul',
    'laskun (numero|nro\\.?|nr\\.?)', 'laskunumero', 'laskunro', 'fakturanummer', 'fakturanr\\.?', 'faktura ?nr\\.?', 'fakturanumero',
    // Swedish invoices abbreviate the label in a header row (`Fakt nr / Kundnr  Fakturadatum` over `200045 103 2009-07-03`).
    'fakt\\.? ?nr\\.?',
    // The Dominican Republic's fiscal receipt number (`NCF: B0100001434`, the electronic `e-NCF: E310000000001`): the
    // number the tax authority assigns to each invoice, printed under the title `Factura de Crédito Fiscal`.
    '(e-?)?ncf', 'numero de comprobante fiscal',
    // The document's own name then a number sign, whatever qualifies it: `Facture Nr:`, `Factura fiscală Nr:`,
    // `Korrekturrechnung Nr:`, `Schlussrechnung Nr.`, `Nota di credito (TD04) Nr:`, `Creditnota nr`, `Avoir n°`.
    '(facture|factura|fattura|fatura|factuur|faktura)( (vat|fiscala|fiscal|proforma|pro forma|simplificada|electronica de venta|de venta|electronica|korygujaca|corectiva|rectificativa|de venda))? (nr\\.?|n[°oº]\\.?|no\\.?|num\\.?|numero|#)',
    '\\p{L}*rechnungs?-? ?(nr\\.?|nummer|no\\.?)', 'gutschrifts?-? ?(nr\\.?|nummer)', 'nota (di|de) (credito|debito)( \\(td\\d\\d\\))? (nr\\.?|n[°oº]\\.?|no\\.?|numero)',
    'credit ?note (nr\\.?|number|#)', 'creditnota (nr\\.?|nummer)', 'avoir n[°oº]\\.?', 'nota fiscal n[°oº]\\.?',
    // Czech and Slovak: `Faktura - daňový doklad 2022001`, `Daňový doklad č. 12`, `Číslo dokladu`.
    'danovy doklad( (c|cislo)\\.?)?', 'cislo dokladu',
    // `Faktura č.`, `Document Number`, `Serie y número`, `Fatura-Recibo nº`, `Invoice Serial No.`, `Invoice Nbr`; Hungarian
    // `Számla sorszáma`, `Számlaszám`; Estonian `Arve nr`; Lithuanian `Sąskaitos Nr.`; Latvian `Rēķina Nr.`.
    'faktur[ay] c\\.?', 'document (number|nr\\.?|#)', 'serie (y|e|/) ?numero', 'fatura[ -]recibo( n[°oº.]{0,3})?', 'invoice serial (no\\.?|number)',
    // Argentine and Uruguayan `Comp. Nro:` / `Comprobante Nº` (after `Punto de Venta: 00001`).
    'comp\\.? ?nro\\.?', 'comprobante (n[°oº]\\.?|nro\\.?|numero)',
    // Indonesian `No. Faktur` / `Nomor Faktur`, Malay `No. Invois`, Vietnamese `Số hóa đơn`, Russian `Счет №` / `Счет-фактура №`.
    'no\\.? faktur', 'nomor faktur', 'no\\.? invois', 'nombor invois', 'so hoa don', 'счет(-фактура)? (№|n|no)',
    'invoice nbr\\.?', 'szamla (sorszama|szama)', 'szamlaszam', 'arve (nr\\.?|number)', 'saskaitos (nr\\.?|numeris)', 'saskaita faktura( nr\\.?)?', 'rekina (nr\\.?|numurs)',
  ],
  /** Bare number labels: an invoice's number only when nothing more specific is found and the line is no other's. */
  number_weak: [
    // Compound forms first (the regex tries its alternatives in order): `Numéro de référence`, `Reference Number`.
    'numero d[ei] ri?ferimento', 'numero de refer[e]ncia', 'numero de reference', 'reference (number|no\\.?)', 'referenznummer', 'ref\\.? no\\.?',
    // The seller's own reference (`Our Reference: 2024-117`, `Onze referentie`), the buyer's being `Your reference`.
    'our ref(erence)?', 'onze ref(erentie)?', 'notre ref(erence)?', 'unsere referenz', 'nuestra referencia', 'nostro riferimento',
    '参考编号', '编号', '单号',
    'numero', 'number', 'numer', 'n[°o]', 'nr\\.?', 'no\\.', 'nummer', 'referencia', 'reference', 'ref\\.?', 'riferimento', 'referenz'],
  number_weak_exclude:
    /(tel|phone|fax|mobile|account|acct|konto|konta|rachunk|klient|zamowien|cuenta|compte|conta|iban|tax|vat|tva|iva|btw|nif|cif|nip|siret|siren|regon|krs|order|pedido|commande|bestell|ordine|customer|client|kunde|cliente|klant|page|seite|pagina|po\b|purchase|delivery|lieferschein|albaran|tracking|serial|serie|item|article|articulo|artikel|qty|ksef|dni|passport|licen|policy|poliza|iban|bank|sort code|swift|bic|abn|gst|ust|uid|mwst|steuer|contrat|contract|vertrag|mandat|customer|account|transaction|auth|approval|card|terminal|receipt)/,
  invoice_word: ['invoice', 'factuur', 'facture', 'factura', 'fattura', 'fatura', 'rechnung', 'avoir', 'gutschrift', 'faktura', 'lasku', 'tax invoice', 'credit note', 'vendor bill', 'bill', 'faktur', 'invois',
    'handelsrechnung', 'schlussrechnung', 'teilrechnung', 'abschlagsrechnung'],
  customer: [
    'bill to', 'billed to', 'invoice to', 'sold to', 'customer', 'client', 'klant', 'kunde', 'cliente', 'destinataire',
    'destinatario', 'buyer', 'acheteur', 'guest name', 'nom de l.?abonne', 'factuuradres', 'rechnungsempfanger',
    'billing address', 'facturar a', 'adquirente', '购买方', '购方', '买方',
  ],
  issuer: [
    'sold by', 'seller', 'vendor', 'supplier', 'service provider', 'verkoper', 'leverancier', 'fournisseur', 'vendeur',
    'emisor', 'proveedor', 'lieferant', 'verkaufer', 'fornitore', 'emitente', 'prestataire', '销售方', '销方', '卖方',
  ],
  iban: ['iban'],
  payment_method: [
    'payment method', 'payment mode', 'paid by', 'mode de (paiement|reglement)', 'modes de reglement', 'zahlungsform',
    'zahlungsart', 'betaalmethode', 'betaalwijze', 'forma de pago', 'metodo de pago', 'medio de pago', 'metodo di pagamento',
    'modalita di pagamento', 'forma de pagamento', 'meio de pagamento',
  ],
  withholding: ['retencion( irpf)?', 'irpf', 'withholding( tax)?', 'ritenuta( d.?acconto)?', 'retenue a la source', 'retencao'],
};

/** Generic labels of the other fields, by field name. */
const FIELD_LABELS: Record<string, { kind: Kind; labels: string[]; exclude?: RegExp }> = {
  birth_date: { kind: 'date', labels: ['fecha de nacimiento', 'f\\. nacimiento', 'date of birth', 'birth date', 'dob', 'date de naissance', 'ne\\(?e?\\)? le', 'data de nascimento', 'geburtsdatum', 'geboren am', 'geboortedatum', 'data di nascita', 'nato il'] },
  expiry_date: { kind: 'date', labels: ['fecha de caducidad', 'caducidad', 'valido hasta', 'valid until', 'valid thru', 'expiry date', 'expiration date', 'expires', 'date d.?expiration', 'valable jusqu.?au', 'validade', 'valido ate', 'gultig bis', 'geldig tot', 'scadenza', 'valida fino al'] },
  issue_date: { kind: 'date', labels: ['fecha de expedicion', 'fecha de emision', 'expedido el', 'date of issue', 'issue date', 'issued on', 'date d.?emission', 'delivre le', 'fait le', 'data de emissao', 'emitido em', 'ausgestellt am', 'ausstellungsdatum', 'datum van afgifte', 'data di rilascio', 'rilasciato il', 'fecha', 'date', 'datum', 'data'], exclude: L.date_exclude },
  payment_date: { kind: 'date', labels: ['date paid', 'fecha de pago', 'fecha (de )?operacion', 'fecha valor', 'payment date', 'paid on', 'date de paiement', 'date d.?operation', 'data de pagamento', 'data do pagamento', 'zahlungsdatum', 'betaaldatum', 'data di pagamento', 'data operazione', 'fecha de cargo'] },
  due_date: { kind: 'date', labels: L.due_date },
  start_date: { kind: 'date', labels: ['fecha de alta', 'fecha de inicio', 'fecha inicio', 'fecha de antiguedad', 'antiguedad', 'start date', 'date of hire', 'date d.?entree', 'date de debut', 'data de inicio', 'data de admissao', 'eintrittsdatum', 'beginn', 'startdatum', 'data di inizio', 'data di assunzione', 'desde'] },
  end_date: { kind: 'date', labels: ['fecha de baja', 'fecha de fin', 'fecha fin', 'end date', 'date de fin', 'date de sortie', 'data de fim', 'data de cessacao', 'austrittsdatum', 'einddatum', 'data di fine', 'hasta'] },
  registration_date: { kind: 'date', labels: ['fecha de alta', 'fecha de inscripcion', 'fecha de empadronamiento', 'registration date', 'date d.?inscription', 'data de registo', 'data de inscricao'] },
  event_date: { kind: 'date', labels: ['fecha del hecho', 'fecha de celebracion', 'date of event'] },
  marriage_date: { kind: 'date', labels: ['fecha de (celebracion del )?matrimonio', 'date of marriage', 'date du mariage', 'data do casamento', 'heiratsdatum'] },
  death_date: { kind: 'date', labels: ['fecha de defuncion', 'fecha de fallecimiento', 'date of death', 'date du deces', 'data do obito', 'sterbedatum'] },
  filing_date: { kind: 'date', labels: ['fecha de presentacion', 'filing date', 'date de depot', 'data de entrega', 'data de submissao'] },
  incorporation_date: { kind: 'date', labels: ['fecha de constitucion', 'date of incorporation', 'incorporated on', 'date d.?immatriculation', 'date de creation', 'data de constituicao', 'gruendungsdatum', 'grundungsdatum'] },
  completion_date: { kind: 'date', labels: ['fecha de finalizacion', 'fecha de terminacion', 'date of completion', 'completion date', 'date d.?obtention', 'data de conclusao'] },
  leave_start_date: { kind: 'date', labels: ['fecha de baja', 'inicio de la baja', 'fecha de inicio de la it'] },
  vaccination_date: { kind: 'date', labels: ['fecha de (la )?vacunacion', 'fecha de administracion', 'vaccination date', 'date of vaccination', 'date de vaccination'] },
  first_registration_date: { kind: 'date', labels: ['fecha de (primera )?matriculacion', 'first registration', 'date de premiere immatriculation', 'data da (primeira )?matricula', 'erstzulassung'] },
  inspection_expiry_date: { kind: 'date', labels: ['proxima inspeccion', 'validez itv', 'valida hasta', 'next inspection'] },
  admit_until_date: { kind: 'date', labels: ['admit until', 'admitted until'] },
  gross_pay: { kind: 'amount', labels: ['total devengado', 'salario bruto', 'importe bruto', 'total bruto', 'gross pay', 'gross salary', 'gross earnings', 'total gross', 'salaire brut', 'brut', 'remuneracao bruta', 'vencimento bruto', 'total iliquido', 'bruttolohn', 'bruttogehalt', 'gesamtbrutto', 'brutoloon', 'bruto', 'lordo', 'retribuzione lorda'] },
  net_pay: { kind: 'amount', labels: ['liquido total a percibir', 'liquido a percibir', 'liquido total', 'liquido', 'net pay', 'net salary', 'take home pay', 'net a payer( avant impot sur le revenu)?', 'salaire net', 'valor liquido', 'liquido a receber', 'nettolohn', 'nettogehalt', 'auszahlungsbetrag', 'nettoloon', 'netto te betalen', 'netto in busta', 'netto'] },
  social_security_contributions: { kind: 'amount', labels: ['total aportaciones', 'aportaciones del trabajador', 'cotizaciones', 'social security contributions', 'cotisations salariales', 'total des cotisations', 'seguranca social', 'sozialversicherung', 'sozialabgaben', 'contributi previdenziali'] },
  withholding_amount: { kind: 'amount', labels: L.withholding },
  // A card slip's suggested tips (`+3%: (Tip $4.08 Total $152.96)`) name a total that was not paid.
  amount: { kind: 'amount', labels: ['importe', 'amount', 'montant', 'valor', 'betrag', 'bedrag', 'importo', 'cantidad', 'total'], exclude: /(?<![\p{L}])(tip|gratuity|propina|pourboire|trinkgeld)(?![\p{L}])/u },
  opening_balance: { kind: 'amount', labels: ['saldo inicial', 'saldo anterior', 'opening balance', 'previous balance', 'balance brought forward', 'solde precedent', 'solde initial', 'ancien solde', 'saldo inicial', 'anfangssaldo', 'alter saldo', 'beginsaldo', 'saldo iniziale'] },
  closing_balance: { kind: 'amount', labels: ['saldo final', 'saldo actual', 'closing balance', 'new balance', 'ending balance', 'nouveau solde', 'solde final', 'solde au', 'saldo final', 'endsaldo', 'neuer saldo', 'eindsaldo', 'saldo finale'] },
  monthly_amount: { kind: 'amount', labels: ['importe mensual', 'pension mensual', 'cuantia mensual', 'monthly amount', 'montant mensuel', 'valor mensal', 'monatlicher betrag'] },
  result_amount: { kind: 'amount', labels: ['resultado de la (declaracion|liquidacion)', 'cuota resultante', 'a ingresar', 'a devolver', 'resultado', 'amount owed', 'refund', 'montant de l.?impot', 'impot net', 'valor a pagar', 'valor a reembolsar'] },
  gross_income: { kind: 'amount', labels: ['rendimientos integros', 'ingresos integros', 'rendimiento integro', 'gross income', 'total income', 'revenu brut', 'rendimento bruto', 'rendimento global'] },
  taxable_income: { kind: 'amount', labels: ['base liquidable( general)?', 'taxable income', 'revenu imposable', 'revenu fiscal de reference', 'rendimento coletavel', 'zu versteuerndes einkommen'] },
  tax_base: { kind: 'amount', labels: L.base },
  tax_amount: { kind: 'amount', labels: L.tax, exclude: L.tax_exclude },
  csv: { kind: 'id', labels: ['csv', 'codigo seguro de verificacion', 'cod\\.? seguro de verificacion'] },
  reference: { kind: 'id', labels: ['referencia', 'reference', 'ref\\.?', 'n[°o.]? de expediente', 'expediente', 'localizador', 'referencia de pago', 'riferimento', 'kenmerk', 'referenz', 'aktenzeichen'] },
  certificate_number: { kind: 'id', labels: ['n[°o.]? de certificado', 'numero de certificado', 'certificado n[°o.]?', 'certificate (no\\.?|number)', 'numero du certificat', 'certificat n[°o]', 'numero do certificado'] },
  document_number: { kind: 'id', labels: ['n[°o.]? de documento', 'numero de documento', 'document (no\\.?|number)', 'numero du document', 'numero do documento', 'dokumentennummer'] },
  policy_number: { kind: 'id', labels: ['n[°o.]? de poliza', 'numero de poliza', 'poliza n[°o.]?', 'poliza', 'policy (no\\.?|number)', 'numero de police', 'n[°o] de contrat', 'apolice n[°o.]?', 'numero da apolice', 'polizzennummer', 'polisnummer', 'numero di polizza'] },
  license_number: { kind: 'id', labels: ['n[°o.]? de licencia', 'numero de licencia', 'licence (no\\.?|number)', 'license (no\\.?|number)', 'numero de licence', 'numero de licenca'] },
  submission_number: { kind: 'id', labels: ['n[°o.]? de justificante', 'numero de justificante', 'justificante n[°o.]?', 'submission number', 'n[°o] de declaration'] },
  account_number: { kind: 'id', labels: ['n[°o.]? de cuenta', 'numero de cuenta', 'account (no\\.?|number)', 'numero de compte', 'numero de conta', 'kontonummer', 'rekeningnummer', 'numero di conto', 'account no'] },
  plate_number: { kind: 'id', labels: ['matricula', 'placa', 'plate (no\\.?|number)', 'immatriculation', 'kennzeichen', 'kenteken', 'targa'] },
  vin: { kind: 'id', labels: ['bastidor', 'n[°o.]? de bastidor', 'vin', 'numero de serie', 'numero de chassis', 'quadro', 'fahrgestellnummer', 'telaio'] },
  full_name: { kind: 'text', labels: ['nombre y apellidos', 'apellidos y nombre', 'nombre completo', 'full name', 'name of (the )?(holder|employee)', 'employee name', 'nom et prenom', 'nom prenom', 'nome completo', 'vollstandiger name', 'volledige naam', 'nome e cognome', 'titular', 'trabajador', 'trabajadora', 'employee', 'salarie', 'beneficiario', 'account holder', 'nombre', 'name', 'nom', 'nome'] },
  employer_name: { kind: 'text', labels: ['empresa', 'employer', 'employeur', 'entidad empleadora', 'razon social', 'entidade empregadora', 'arbeitgeber', 'werkgever', 'datore di lavoro'] },
  company_name: { kind: 'text', labels: ['denominacion social', 'razon social', 'denominacion', 'company name', 'denomination( sociale)?', 'firma', 'ragione sociale', 'firmenname', 'bedrijfsnaam'] },
  bank_name: { kind: 'text', labels: ['entidad', 'banco', 'bank name', 'nom de la banque', 'banque', 'bank', 'banca', 'kreditinstitut'] },
  issuing_authority: { kind: 'text', labels: ['autoridad', 'issuing authority', 'authority', 'autorite', 'expedido por', 'emitido por', 'behorde', 'autorita'] },
  job_title: { kind: 'text', labels: ['categoria( profesional)?', 'puesto', 'job title', 'position', 'emploi', 'poste', 'qualification', 'categoria profissional', 'funcao', 'tatigkeit', 'functie', 'mansione', 'qualifica'] },
  payment_method: { kind: 'text', labels: L.payment_method },
  concept: { kind: 'text', labels: ['concepto', 'concept', 'description', 'motif', 'libelle', 'descritivo', 'verwendungszweck', 'omschrijving', 'causale'] },
  payer_name: { kind: 'text', labels: ['ordenante', 'payer', 'from', 'donneur d.?ordre', 'emetteur', 'ordenante', 'auftraggeber', 'ordinante'] },
  payee_name: { kind: 'text', labels: ['beneficiario', 'payee', 'beneficiary', 'to', 'beneficiaire', 'empfanger', 'begunstigde', 'beneficiario'] },
  institution_name: { kind: 'text', labels: ['universidad', 'centro', 'institution', 'etablissement', 'instituicao', 'hochschule', 'istituto'] },
  notary_name: { kind: 'text', labels: ['notario', 'notary', 'notaire', 'notario', 'notar'] },
  insurer_name: { kind: 'text', labels: ['aseguradora', 'compania', 'insurer', 'assureur', 'seguradora', 'versicherer', 'verzekeraar', 'compagnia'] },
  doctor_name: { kind: 'text', labels: ['medico', 'doctor', 'dr\\.?', 'facultativo', 'medecin', 'arzt', 'arts'] },
  landlord_name: { kind: 'text', labels: ['arrendador', 'landlord', 'bailleur', 'senhorio', 'vermieter', 'verhuurder', 'locatore'] },
  purpose: { kind: 'text', labels: ['finalidad', 'purpose', 'objet', 'finalidade', 'zweck', 'doel', 'finalita', 'a efectos de'] },
};

const LEGAL_FORM =
  /\b(b\.?v\.?|n\.?v\.?|gmbh|ag|kg|ohg|e\.?k\.?|s\.?a\.?s?|s\.?l\.?u?|s\.?a\.?r\.?l\.?|sarl|sas|eurl|ltd\.?|limited|inc\.?|llc|llp|plc|s\.?p\.?a\.?|s\.?r\.?l\.?|lda\.?|pvt\.? ltd\.?|private limited|oy|ab|as|a\/s|sa|se|s\.?coop)(?=$|[\s,.)])/i;

// ------------------------------------------------------------------ public API

/**
 * Extracts the `wanted` fields (those of the catalogue entry when `wanted` is empty) from text lines. Never throws;
 * a field the rules cannot find is absent.
 */
export function extractFields(
  entry: CatalogueEntry,
  lines: readonly TextLine[],
  wanted: readonly string[],
  opts: ExtractOptions = {},
): Record<string, ReadField> {
  try {
    return extract(entry, lines, wanted.length > 0 ? wanted : entry.fields, opts);
  } catch {
    return {};
  }
}

function extract(entry: CatalogueEntry, raw: readonly TextLine[], wanted: readonly string[], opts: ExtractOptions): Record<string, ReadField> {
  const lines = prepareLines(raw);
  if (lines.length === 0) return {};
  const all = lines.map((l) => l.text).join('\n');
  const language = opts.language ?? guessLanguage(all)?.code ?? null;
  const country = opts.country ?? detectCountry(lines, language);
  const ctx = buildCtx(lines, language, country);
  const schema = entry.schema.properties;
  const out: Record<string, ReadField> = {};
  const invoiceLike = entry.fields.includes('total_amount') || entry.fields.includes('invoice_number');
  const want = new Set(wanted.filter((f) => f in schema || f in FIELD_LABELS));

  const set = (name: string, c: Candidate | null) => {
    if (!c || !want.has(name) || out[name]) return;
    const value = conform(schema[name], c.value);
    if (value === null) return;
    // An issue or payment date years ahead is a misreading (`2078` for `2018`), not a date to report.
    if ((name === 'issue_date' || name === 'payment_date') && typeof value === 'string' && Number(value.slice(0, 4)) > new Date().getUTCFullYear() + 1) return;
    out[name] = { value, confidence: round(c.confidence * c.line.confidence), source: { page: c.line.page, bbox: c.box } };
  };

  // A till receipt (whatever its type): the grand total by label-value layout, cash - change as proof.
  // A payment receipt that is no till (an online receipt) keeps the same rules when a strong total label says
  // what was paid (`Amount paid`, `Grand total`).
  const till = isTill(tillLayout(lines));
  const receiptType = entry.type === 'payment_receipt' || entry.type === 'es_simplified_invoice';
  const paid = till || receiptType ? receiptTotal(lines, ctx.amounts) : null;
  if (till || (paid?.strong && receiptType)) {
    const t = paid;
    const total: Candidate | null = t ? { value: t.value, confidence: t.confidence, line: t.line, box: spanBox(t.line, t.start, t.end), priority: 3 } : null;
    set('total_amount', total);
    set('amount', total);
    if (total) set('currency', currencyOf(ctx, total));
    if (till) {
      const date = receiptDate(ctx);
      set('issue_date', date);
      set('payment_date', date);
    }
  }
  if (invoiceLike) {
    const totals = invoiceTotals(ctx);
    set('total_amount', totals.total);
    set('tax_base', totals.base);
    set('tax_amount', totals.tax);
    set('tax_rate', totals.rate);
    set('currency', currencyOf(ctx, totals.total));
    set('invoice_number', invoiceNumber(ctx));
    set('issue_date', invoiceDate(ctx));
    set('due_date', labelled(ctx, 'date', L.due_date, null, 3));
    const parties = partyIds(ctx);
    set('issuer_tax_id', parties.issuer);
    set('customer_tax_id', parties.customer);
    set('issuer_name', issuerName(ctx));
    set('customer_name', labelled(ctx, 'text', L.customer, null, 2));
    set('payment_method', labelled(ctx, 'text', L.payment_method, null, 2));
    set('withholding_amount', labelled(ctx, 'amount', L.withholding, null, 2));
  }
  if (want.has('iban')) set('iban', iban(ctx));
  if (want.has('bic')) set('bic', bic(ctx));
  for (const name of want) {
    if (out[name]) continue;
    const spec = FIELD_LABELS[name];
    if (spec) {
      set(name, labelled(ctx, spec.kind, spec.labels, spec.exclude ?? null, 2));
      continue;
    }
    if (name === 'id_number' || name === 'tax_id') set(name, personalId(ctx));
    else if (name === 'employer_tax_id' || name === 'company_tax_id' || name === 'issuer_tax_id') set(name, partyIds(ctx).issuer);
    else if (name === 'currency') set(name, currencyOf(ctx, null));
    else if (name === 'document_title') set(name, title(ctx));
    else if (name === 'issuer_name') set(name, issuerName(ctx));
  }
  return out;
}

// ------------------------------------------------------------------ context

function buildCtx(lines: Line[], language: string | null, country: string | null): Ctx {
  // Decimal separator of the document: amounts written `12,34` vs `12.34`.
  let comma = 0;
  let point = 0;
  // (A date's dots are no decimal points: `26.12.2024`, `26.12.24`.)
  for (const l of lines) {
    comma += (l.text.match(/\d,\d{2}(?!\d)/g) ?? []).length;
    point += (l.text.match(/(?<!\d\.\d*)\d\.\d{2}(?![\d.])/g) ?? []).length;
  }
  const commaDecimal = comma !== point ? comma > point : language !== 'en';
  // No amount with cents anywhere, and three amounts or more grouped in thousands (`10,400`, `100,300`, `28.861`):
  // a currency without cents (Chilean pesos...), whose `1,234` is 1234 even in a language that writes decimal commas.
  const grouped = lines.reduce((n, l) => n + (l.text.match(/(?<![\d.,])[1-9]\d{0,2}[.,]\d{3}(?![\d.,])/g) ?? []).length, 0);
  const wholeUnits = comma === 0 && point === 0 && grouped >= 3;
  const dayFirst = documentDayFirst(lines, language, country);
  const dates = lines.map((l) => findDates(l.fold, dayFirst));
  const ibans = lines.map((l) => findIbans(l.text));
  const ids = lines.map((l) => findTaxIds(l.text));
  const amounts = lines.map((l, i) => {
    const masked = [...dates[i], ...ibans[i], ...ids[i]];
    return findAmounts(l.fold, commaDecimal, wholeUnits).filter((a) => !masked.some((m) => a.start < m.end && a.end > m.start));
  });
  return { lines, language, country, dayFirst, commaDecimal, dates, amounts, ids, ibans };
}

/** Chinese and Japanese labels: their script writes no spaces, so they are not bounded by non-letters. */
const HAN = /\p{Script=Han}/u;
function labelRe(labels: readonly string[], coded = false): RegExp {
  const han = labels.filter((l) => HAN.test(l));
  const other = labels.filter((l) => !HAN.test(l));
  const bounded = `(?<![\\p{L}\\p{N}])(?:${other.join('|')})${coded ? `(?<code>${CURRENCY_TAIL})?` : ''}(?![\\p{L}\\p{N}])`;
  return new RegExp(han.length > 0 ? `${bounded}|(?:${han.join('|')})` : bounded, 'gu');
}

/** ISO 4217 codes (the runtime's list), folded: a code printed glued to a total's label (`TOTAL DUEKES`). */
const CURRENCY_TAIL = Intl.supportedValuesOf('currency').map((c) => c.toLowerCase()).join('|');

interface LabelHit {
  line: Line;
  start: number;
  end: number;
}

/**
 * Where `labels` occur, line by line. `coded`: a label may carry an ISO 4217 code glued after it in capitals
 * (`TOTAL DUEKES 1,250.00`, a generator that prints the currency right after the label with no space): the hit is
 * the label's, the code left out.
 */
function findLabels(ctx: Ctx, labels: readonly string[], coded = false): LabelHit[] {
  const re = labelRe(labels, coded);
  const hits: LabelHit[] = [];
  for (const line of ctx.lines) {
    const seen = new Set<number>();
    const scan = (from: number) => {
      for (const m of line.fold.slice(from).matchAll(re)) {
        const start = from + m.index!;
        let end = start + m[0].length;
        if (m.groups?.code !== undefined) {
          // The glued code is in capitals as printed (`DUEKES`), not a word's end in small letters.
          if (line.text.slice(end - 3, end) !== line.text.slice(end - 3, end).toUpperCase()) continue;
          end -= 3;
        }
        if (seen.has(start)) continue;
        seen.add(start);
        hits.push({ line, start, end });
        // A match that runs across a cell's edge (`FACTURA | Nr. facturii: 54` read `factura nr.`) hides the label
        // that begins in the next cell: that cell is searched too, its labels tried after this one.
        for (const c of line.cells) if (c.start > start && c.start < end) scan(c.start);
      }
    };
    scan(0);
  }
  return hits;
}

/**
 * The text after a label up to the next word that is clearly another label (a word of 4+ letters that is not a
 * currency or a filler), so that `Exclusief BTW € 593,36 Subtotaal € 717,97` gives 593,36 for the first label.
 */
function segmentEnd(line: Line, from: number, dateSpans: DateMatch[]): number {
  // Words of a script written without spaces (Han) are no label words here: `价税合计(大写) 贰佰... (小写) ¥294.82`.
  const re = /(?:(?!\p{Script=Han})\p{L}){4,}/gu;
  re.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line.fold))) {
    const s = m.index;
    if (dateSpans.some((d) => s >= d.start && s < d.end)) continue;
    if (/^(euro?s?|dollars?|rupees?|inkl|incl|brutto|gesamt|total|totaal|betrag|bedrag|amount|montant|importe|summe|zuzuglich)$/.test(m[0])) continue;
    return s;
  }
  return line.fold.length;
}

/** The next line below `line` on the same page, if close (within 2.5 line heights). */
function lineBelow(ctx: Ctx, line: Line): Line | null {
  return linesBelow(ctx, line, 3).next().value ?? null;
}

/**
 * The lines below `line` on its page, within 2.5 of its heights and the next `upTo` lines, top down; lines in its band
 * (beside it) are passed over (PP-OCR's boxes are grown around their text, so the next line of a close-set table may
 * overlap this one's box a little and still be the line below).
 */
function* linesBelow(ctx: Ctx, line: Line, upTo: number): Generator<Line, void> {
  const h = line.bbox[3] - line.bbox[1];
  for (let i = line.index + 1; i < ctx.lines.length && i <= line.index + upTo; i++) {
    const next = ctx.lines[i];
    if (next.page !== line.page || next.bbox[1] - line.bbox[3] > 2.5 * h) return;
    if (!sameBand(line, next)) yield next;
  }
}

/** Two boxes in one band: overlapping vertically by more than half the smaller height. */
function bandsOverlap(a: Box, b: Box): boolean {
  return Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 0.5 * Math.min(a[3] - a[1], b[3] - b[1]);
}

/**
 * Whether `next` stands beside `line` rather than below it: their boxes overlap by more than half the smaller height,
 * and no word of `next` sits under a word of `line` (on a page photographed at a slant the lines' upright boxes
 * overlap, but a word under another is the line below).
 */
function sameBand(line: Line, next: Line): boolean {
  if (!bandsOverlap(line.bbox, next.bbox)) return false;
  const mid = (b: Box) => (b[1] + b[3]) / 2;
  return !next.words.some((nw) =>
    line.words.some((lw) => Math.min(nw.bbox[2], lw.bbox[2]) - Math.max(nw.bbox[0], lw.bbox[0]) > 0 && mid(nw.bbox) > mid(lw.bbox) + 0.5 * (lw.bbox[3] - lw.bbox[1])),
  );
}

/**
 * The first line below `line` with words under `label` (its column), within 2.5 of its heights and 4 lines: a
 * totals header row (`TOTAL HT  TOTAL TVA  TOTAL TTC`) may have a left column's text between it and its amounts.
 */
function alignedBelow(ctx: Ctx, line: Line, label: Box): [Line | null, { start: number; end: number } | null] {
  for (const next of linesBelow(ctx, line, 4)) {
    const span = alignedSpan(next, label, 'amount');
    if (span) return [next, span];
  }
  return [null, null];
}

/**
 * The amounts under `label` in the rows after `first` (whose amount is `start`), while each row has one: the last
 * of three or more when the ones above it add up to it, to the cent; else null.
 */
function columnSum(ctx: Ctx, first: Line, label: Box, start: number): { value: { value: unknown; start: number; end: number }; line: Line } | null {
  const values = [start];
  let last = first;
  let found: { value: { value: unknown; start: number; end: number }; line: Line } | null = null;
  for (let i = first.index + 1; i < ctx.lines.length && i <= first.index + 6; i++) {
    const next = ctx.lines[i];
    const h = last.bbox[3] - last.bbox[1];
    if (next.page !== first.page || next.bbox[1] - last.bbox[3] > 1.5 * h) break;
    if (sameBand(last, next)) continue;
    const span = alignedSpan(next, label, 'amount');
    const w = span ? valueIn(ctx, 'amount', next, span.start, span.end) : null;
    if (!w) break;
    const value = w.value as number;
    if (values.length >= 2 && Math.abs(values.reduce((a, b) => a + b, 0) - value) < 0.015) found = { value: w, line: next };
    values.push(value);
    last = next;
  }
  return found;
}

/**
 * A line of its own right of a label that ends its line, in the label's band (overlapping it by more than half the
 * smaller height) and starting within a quarter of the page's width: the nearest such line.
 */
function lineBeside(ctx: Ctx, line: Line, label: Box): Line | null {
  let best: Line | null = null;
  for (let i = Math.max(0, line.index - 3); i < ctx.lines.length && i <= line.index + 3; i++) {
    const o = ctx.lines[i];
    if (o === line || o.page !== line.page || o.bbox[0] < label[2] - 0.005 || o.bbox[0] - label[2] > 0.25) continue;
    if (!bandsOverlap(label, o.bbox)) continue;
    if (!best || o.bbox[0] < best.bbox[0]) best = o;
  }
  return best;
}

/** Words of `below` under the horizontal extent of the label box (table header / value row). */
function alignedSpan(below: Line, label: Box, kind: Kind = 'text'): { start: number; end: number } | null {
  const ws = below.words.filter((w) => w.bbox[2] > label[0] - 0.01 && w.bbox[0] < label[2] + 0.01);
  if (ws.length === 0) return null;
  // Keep the cell of the first aligned word; but a cell that starts well left of the label is another column's text
  // run on into this one (an OCR engine boxed `Address: New Delhi … 0001/25-26` as one line): the aligned words only.
  const cell = below.cells.find((c) => c.start <= ws[0].start && c.end >= ws[0].end);
  // (A long value right-aligned under a short label, `FA/YUCFO-4342344706/03/2026` under `Numer Faktury:`, is one
  // word reaching left of the label: its whole cell is the value. Run-on text has whole words left of the label.)
  const runOn = kind !== 'text' && cell !== undefined && cell.bbox[0] < label[0] - 0.05 &&
    below.words.some((w) => w.start >= cell.start && w.end <= cell.end && w.bbox[2] < label[0] - 0.01);
  if (runOn) {
    // The words whose middle is under the label (the other column's last word may overhang the label's edge).
    const under = ws.filter((w) => (w.bbox[0] + w.bbox[2]) / 2 > label[0] - 0.01);
    const use = under.length > 0 ? under : ws;
    return { start: use[0].start, end: use[use.length - 1].end };
  }
  return cell ? { start: cell.start, end: cell.end } : { start: ws[0].start, end: ws[ws.length - 1].end };
}

function valueIn(ctx: Ctx, kind: Kind, line: Line, start: number, end: number): { value: unknown; start: number; end: number } | null {
  const i = line.index;
  if (kind === 'date') {
    const d = ctx.dates[i].find((x) => x.start >= start && x.start < end);
    return d ? { value: d.value, start: d.start, end: d.end } : null;
  }
  if (kind === 'amount' || kind === 'percent') {
    // An amount whose currency code stands in the cell before its digits (`CHF | 1.00`) is the cell's amount too.
    const inSpan = (a: AmountMatch) => a.end <= end && (a.start >= start || (a.currency !== null && a.end > start && /^[^\d]*$/.test(line.fold.slice(a.start, start))));
    const as = ctx.amounts[i].filter((a) => inSpan(a) && (kind === 'percent' ? a.percent : !a.percent));
    if (as.length === 0) return null;
    // Several amounts after one label (a totals row: qty, net, tax, gross): the last one is the label's.
    const a = kind === 'percent' ? as[0] : as[as.length - 1];
    return { value: a.value, start: a.start, end: a.end };
  }
  const seg = line.text.slice(start, end);
  if (kind === 'id') {
    // `Invoice Number: #1`, `Referencia: #1721`, a `#1` alone in its cell: the `#` is printed as part of the number;
    // `Invoice # 123` / `Invoice #123`: it is the label's.
    // Leaders between a label and its value: a colon (PP-OCR also reads the full-width `：`), dashes, a bar, a fill-in
    // line (`Invoice No ____: 12`, `No —: 12`).
    const lead = /^[\s:：.\-–—_|]*/.exec(seg)![0];
    const at = start + lead.length;
    const hashed = /^#[A-Za-z0-9]/.test(seg.slice(lead.length)) && (/[:：]/.test(lead) || line.cells.some((c) => c.start === at));
    const skip = hashed ? 0 : /^[\s#]*/.exec(seg.slice(lead.length))![0].length;
    const from = at + skip;
    const text = line.text.slice(from, end);
    const pre = hashed ? '' : (/^(?:(?:n[°oº.]|no\.?|nr\.?|num\.?|number|numero|nummer|[°º]\.?)(?![\p{L}\p{N}]))?\s*[:：#]?\s*/iu.exec(text)?.[0] ?? '');
    // A series code then its number (`FT 2024/12`, `FR A/118`: Portuguese and Spanish series) is one id.
    // A number may end a sentence (`Invoice no. 12345.`): the full stop is not part of it.
    const mm =
      /^([A-Z]{1,4} (?:[A-Z]{1,3}\/)?\d[A-Za-z0-9_.\-]*\/[A-Za-z0-9_.\-/]*[A-Za-z0-9])(?=$|[\s,;)]|\.(?:\s|$))/.exec(text.slice(pre.length)) ??
      /^([A-Z]{1,4} [A-Z0-9]{1,10}\/\d[A-Za-z0-9_.\-]*)(?=$|[\s,;)]|\.(?:\s|$))/.exec(text.slice(pre.length)) ??
      SERIES_NUMBER.exec(text.slice(pre.length)) ??
      /^(#?[A-Z0-9](?:[A-Za-z0-9/_.\-]{0,38}[A-Za-z0-9])?)(?=$|[\s,;)]|\.(?:\s|$))/.exec(text.slice(pre.length));
    if (!mm || !/\d/.test(mm[1]) || isLabel(mm[1])) return null;
    mm[1] = unglued(mm[1]);
    const s = from + pre.length;
    // Not a date or an amount with its currency.
    // Not a date (`Invoice ID: 2024-03-10t172205` is an id that starts with one: the token runs on past the date).
    if (ctx.dates[i].some((d) => s < d.end && s + mm[1].length > d.start && !(d.start === s && s + mm[1].length > d.end + 1))) return null;
    return { value: mm[1], start: s, end: s + mm[1].length };
  }
  const from = start + (seg.length - seg.replace(/^[\s:#.\-–|]+/, '').length);
  const text = line.text.slice(from, end);
  // text: letters, up to the end of the cell; no mostly-numeric strings.
  const cell = line.cells.find((c) => c.end > from && c.start <= from) ?? { end: line.text.length };
  const t = line.text
    .slice(from, Math.min(end, cell.end))
    // Stop at the next label on the line (`DNI: ...`, `CIF B12345674`).
    .replace(/\s+[\p{L}][\p{L}.º°]{0,15}\.?:(\s.*)?$/u, '')
    .replace(/\s+(DNI|NIF|NIE|CIF|NIPC|SIRET|SIREN|VAT|TVA|BTW|IBAN|BIC|USt-IdNr)\b.*$/u, '')
    .replace(/[\s,;:]+$/, '')
    .trim();
  if (t.length < 2 || !/\p{L}{2}/u.test(t) || (t.match(/\d/g) ?? []).length > t.length / 3) return null;
  if (isLabel(t)) return null;
  if (/^[(\[*]/.test(t) || t.split(/\s+/).length > 8) return null;
  return { value: t, start: from, end: from + t.length };
}

/**
 * A value of `kind` next to one of `labels`: same line after the label (confidence 0.85), else in the aligned
 * cell of the line below (0.7). Among several hits, the earliest labelled one wins.
 */
function labelled(ctx: Ctx, kind: Kind, labels: readonly string[], exclude: RegExp | null, priority: number): Candidate | null {
  for (const hit of findLabels(ctx, labels)) {
    const { line } = hit;
    if (exclude && exclude.test(line.fold.slice(Math.max(0, hit.start - 12), hit.end + 12))) continue;
    // The end of a hyphenated column title (`Art-Nr-Lieferant`, the supplier's item number) labels no party.
    if (kind === 'text' && /[\p{L}\p{N}]-$/u.test(line.fold.slice(0, hit.start))) continue;
    const end = kind === 'text' || kind === 'id' ? cellEnd(line, hit.end) : segmentEnd(line, hit.end, ctx.dates[line.index]);
    // A name after a word in running text is no value (`employée dans notre entreprise`): it needs `:`/`-` or a cell.
    const separated =
      kind !== 'text' || /^\s*[:\-–]/.test(line.text.slice(hit.end)) || line.cells.some((c) => c.end === hit.end || c.start >= hit.end && c.start - hit.end < 3 && line.cells.length > 1);
    const v = separated ? valueIn(ctx, kind, line, hit.end, end) : null;
    if (v) return { value: v.value, confidence: 0.85, line, box: spanBox(line, v.start, v.end), priority };
    // A number's label paired with the date's (`Invoice No. / Date : 6021114921 / 18.10.2021`, `Bill No./Dt.`): the
    // value pairs them the same way, the id before its ` / `, a date right after it.
    if (kind === 'id') {
      const pair = /^\s*\/\s*(?:date|dated|dt\.?|datum|fecha|data)\s*/.exec(line.fold.slice(hit.end));
      const from = hit.end + (pair?.[0].length ?? 0);
      const m = pair ? /^[\s:\-–]*([A-Z0-9][A-Za-z0-9/_.\-]*[A-Za-z0-9])\s*\/\s*/.exec(line.text.slice(from)) : null;
      const after = m ? from + m[0].length : -1;
      if (m && /\d/.test(m[1]) && ctx.dates[line.index].some((d) => d.start === after)) {
        const s = from + m[0].indexOf(m[1]);
        return { value: m[1], confidence: 0.8, line, box: spanBox(line, s, s + m[1].length), priority };
      }
    }
    // A date label followed by words before its date (`Data wystawienia, z zastrzeżeniem art. 106na ust. 1: 31.10.2025`):
    // the first date further on the line, unless another date's label (due, delivery...) comes between.
    if (kind === 'date') {
      const d = ctx.dates[line.index].find((x) => x.start >= hit.end);
      const between = d ? line.fold.slice(hit.end, d.start) : '';
      if (d && !L.date_exclude.test(between) && (between.match(/:/g) ?? []).length <= 1) {
        return { value: d.value, confidence: 0.7, line, box: spanBox(line, d.start, d.end), priority };
      }
    }
    // Below the label only when the label closes its cell (a table header), not in running text.
    const rest = line.text.slice(hit.end, line.cells.find((c) => c.end >= hit.end)?.end ?? line.text.length);
    // A header row of labels (`Invoice Number  Invoice Date  Due Date`, spaced as one cell): its values are below.
    const closes = /^\s*[:\-–]?\s*$/.test(rest) || (kind === 'id' && isLabel(rest.split(/\s+/).filter(Boolean).slice(0, 2).join(' ')));
    // The label ends its line and the value is a line of its own beside it, set a little lower or higher (an OCR
    // engine boxes `Beleg-Nr` and `: R87654321012345` apart when the value's baseline is offset).
    if (closes && kind !== 'text' && /^\s*[:\-–]?\s*$/.test(line.text.slice(hit.end))) {
      const beside = lineBeside(ctx, line, spanBox(line, hit.start, hit.end));
      const b = beside ? valueIn(ctx, kind, beside, 0, kind === 'id' ? cellEnd(beside, 0) : segmentEnd(beside, 0, ctx.dates[beside.index])) : null;
      if (beside && b && /^[\s:#.\-–|]*$/.test(beside.text.slice(0, b.start))) return { value: b.value, confidence: 0.75, line: beside, box: spanBox(beside, b.start, b.end), priority };
    }
    // Below a table's header row (`Description Qty Price Tax Amount`, `Date Project Description Hours Rate Amount`)
    // sits an item, not the label's value: an item's amount, or the date of an item.
    const header = (kind === 'amount' || kind === 'date') && TABLE_HEADER.test(line.fold);
    const below = ((kind === 'text' || kind === 'amount') && !closes) || header ? null : lineBelow(ctx, line);
    if (below) {
      const span = alignedSpan(below, spanBox(line, hit.start, hit.end), kind);
      const w = span ? valueIn(ctx, kind, below, span.start, span.end) : null;
      if (w) return { value: w.value, confidence: 0.7, line: below, box: spanBox(below, w.start, w.end), priority };
    }
  }
  return null;
}

/**
 * Words that label a value and are never one (en, es, fr, pt, de, nl, it; folded): a text made only of them is
 * the next label, not the value (`Account No.`, `Shipping Address`, `Invoice Date`).
 */
const LABEL_WORDS = new Set(
  `account acct no nr num number numero nummer n° # shipping billing bill ship to from address addr name customer client
  invoice date due total subtotal sub description desc qty quantity amount price unit tax vat gst tva iva btw mwst ust
  phone tel telephone fax email e-mail mail iban bic swift reference ref balance payment terms page code id order item
  items rate sort of the details information info sold by remit bank holder beneficiary signature
  cuenta direccion nombre cliente factura fecha importe cantidad precio pago referencia telefono correo banco titular
  compte adresse nom facture montant prix paiement banque titulaire conta morada nome fatura valor pagamento
  konto adresse rechnung datum betrag menge preis zahlung bankverbindung inhaber kunde
  rekening adres naam klant factuur bedrag prijs betaling indirizzo cliente fattura importo prezzo pagamento
  seller buyer vendor supplier recipient consignee shipper delivery deliver invoicing
  emisor receptor comprador vendedor proveedor destinatario remitente fornecedor fornitore mittente cedente cessionario
  vendeur acheteur fournisseur destinataire expediteur livraison facturation
  lieferant kaufer verkaufer empfanger rechnungsempfanger warenempfanger lieferadresse rechnungsadresse absender
  afleveradres factuuradres leveradres leveringsadres verkoper koper leverancier`.split(/\s+/),
);
function isLabel(text: string): boolean {
  const words = foldKeep(text).replace(/[.:#()/,\-–|]+/g, ' ').trim().split(/\s+/).filter(Boolean);
  return words.length > 0 && words.length <= 4 && words.every((w) => LABEL_WORDS.has(w));
}

function cellEnd(line: Line, from: number): number {
  // The value may sit in the label's cell or in the next one.
  const cells = line.cells;
  const i = cells.findIndex((c) => c.end >= from && c.start <= from);
  if (i < 0) return line.text.length;
  const rest = line.text.slice(from, cells[i].end).replace(/[\s:#.\-–|]/g, '');
  return rest.length > 0 ? cells[i].end : (cells[i + 1]?.end ?? line.text.length);
}

// ------------------------------------------------------------------ invoices

/** Two or more column titles of an item table on one line. */
const TABLE_HEADER =
  /(?=(?:.*?(?<![\p{L}])(description|descripcion|desc|qty|quantity|cantidad|cant|precio|price|unit|unitario|rate|hours|menge|preis|beschreibung|bezeichnung|einzelpreis|prix|designation|quantite|qte|aantal|prijs|omschrijving|quantita|prezzo|descrizione|item|articulo)(?![\p{L}])){2})/u;

function invoiceTotals(ctx: Ctx): { total: Candidate | null; base: Candidate | null; tax: Candidate | null; rate: Candidate | null } {
  const collect = (labels: readonly string[], exclude: RegExp | null, priority: number, exclusive: RegExp | null): Candidate[] => {
    const out: Candidate[] = [];
    for (const hit of findLabels(ctx, labels, true)) {
      const { line } = hit;
      // What stands around the label in its own cell (a header row's next column, `TOTAL TVA | TOTAL TTC`, is not).
      const cell = line.cells.find((c) => c.start <= hit.start && c.end >= hit.end);
      const around = line.fold.slice(Math.max(cell?.start ?? 0, hit.start - 12), Math.min(cell?.end ?? Infinity, hit.end + 14));
      if (exclude && exclude.test(around)) continue;
      if (exclusive && exclusive.test(line.fold.slice(hit.start, hit.end))) continue;
      const end = segmentEnd(line, hit.end, ctx.dates[line.index]);
      let v = valueIn(ctx, 'amount', line, hit.end, end);
      let where = line;
      let conf = 0.8;
      if (!v) {
        // A table's header row (`Description Qty Price Total`): the cell below is an item's, not the total.
        if (TABLE_HEADER.test(line.fold)) continue;
        // Below the label only when the label ends its line or cell (a heading), not inside running text. A currency
        // sign in brackets may follow it (`Total Due ($)`), which OCR often reads `(S)`.
        const cellRest = line.text.slice(hit.end, line.cells.find((c) => c.end >= hit.end)?.end ?? line.text.length);
        if (!/^\s*[:\-–.]?\s*(\(?[€$£%]\)?|\([sS]\))?\s*$/.test(cellRest)) continue;
        const labelBox = spanBox(line, hit.start, hit.end);
        const [below, span] = alignedBelow(ctx, line, labelBox);
        v = below && span ? valueIn(ctx, 'amount', below, span.start, span.end) : null;
        if (!v || !below) continue;
        where = below;
        conf = 0.65;
        // A totals table with a row per tax rate and the sum last (`Endbetrag` over 382,47 / 136,52 / 518,99): the
        // row that the rows above it add up to, to the cent, is the total.
        const sum = columnSum(ctx, below, labelBox, v.value as number);
        if (sum) [v, where, conf] = [sum.value, sum.line, 0.8];
      }
      out.push({ value: v.value, confidence: conf, line: where, box: spanBox(where, v.start, v.end), priority });
    }
    return out;
  };
  // Among totals: the strongest label, then the largest amount (a total is not smaller than its parts).
  const best = (cs: Candidate[]) =>
    cs.sort(
      (a, b) =>
        b.priority - a.priority ||
        Math.abs(b.value as number) - Math.abs(a.value as number) ||
        b.line.index - a.line.index,
    )[0] ?? null;
  // Among parts (base, tax): the strongest label, then a value on the label's own line, then the lowest on the page.
  const bestPart = (cs: Candidate[]) =>
    cs.sort((a, b) => b.priority - a.priority || b.confidence - a.confidence || b.line.index - a.line.index)[0] ?? null;

  let totals = [...collect(L.total_strong, L.total_exclude, 3, null), ...collect(L.total_weak, L.total_exclude, 2, null)];
  // No total label at all (a QR-bill's payment part: `Currency  Amount` over `CHF  1.00`): the amount's own label.
  if (totals.length === 0) totals = collect(['amount', 'betrag', 'montant', 'importe', 'importo', 'valor', 'kwota', 'bedrag'], L.total_exclude, 1, null);
  let total: Candidate | null = best(totals);
  const below = (c: Candidate) => !total || Math.abs(c.value as number) < Math.abs(total.value as number) || (c.value as number) === 0;
  const bases = [...collect(L.base, null, 3, null), ...collect(L.base_weak, null, 2, null)].filter(
    (c) => !total || Math.abs(c.value as number) <= Math.abs(total.value as number),
  );
  // A decimal point lost in print or OCR (`2100` for 21.00): a whole tax amount not below the total whose hundredth
  // closes base + tax = total is that hundredth.
  const baseGuess = bases.length > 0 ? Math.max(...bases.map((c) => Math.abs(c.value as number))) : null;
  const taxes = collect(L.tax, L.tax_exclude, 2, null)
    .map((c) => {
      const v = c.value as number;
      if (!total || baseGuess === null || below(c) || !Number.isInteger(v)) return c;
      return Math.abs(baseGuess + v / 100 - (total.value as number)) < 0.015 ? { ...c, value: v / 100, confidence: 0.6 } : c;
    })
    .filter(below);
  let base = bases.length > 0 ? [...bases].sort((a, b) => b.priority - a.priority || Math.abs(b.value as number) - Math.abs(a.value as number))[0] : null;
  // The tax line: one with a rate, else any.
  const taxWithRate = taxes.filter((c) => ctx.amounts[c.line.index].some((a) => a.percent));
  let tax = bestPart(taxWithRate.length > 0 && !taxes.some((t) => /gesamt|total|totaal|montant/.test(t.line.fold)) ? taxWithRate : taxes);
  const distinctTaxes = new Set(taxes.map((c) => c.value)).size;
  if (tax && distinctTaxes > 1) tax = { ...tax, confidence: tax.confidence * 0.75 };

  // Cross-check: base + tax = total.
  const close = (a: number, b: number) => Math.abs(a - b) < 0.015;
  // A decimal point lost in print or OCR (`4039` for 40.39) shows when only the hundredth closes the sum.
  if (total && base && tax && !close((base.value as number) + (tax.value as number), total.value as number)) {
    const [b, t, s] = [base.value as number, tax.value as number, total.value as number];
    if (Number.isInteger(t) && close(b + t / 100, s)) tax = { ...tax, value: t / 100, confidence: 0.6 };
    else if (Number.isInteger(s) && close(b + t, s / 100)) total = { ...total, value: s / 100, confidence: 0.6 };
    else if (Number.isInteger(b) && close(b / 100 + t, s)) base = { ...base, value: b / 100, confidence: 0.6 };
  }
  if (total && base && tax && close((base.value as number) + (tax.value as number), total.value as number)) {
    total = { ...total, confidence: 0.95 };
    base = { ...base, confidence: 0.93 };
    tax = { ...tax, confidence: 0.93 };
  } else if (total && base && !tax) {
    base = { ...base, confidence: base.confidence * 0.85 };
  }
  total = checkedByWords(ctx, total);
  let rate: Candidate | null = null;
  if (tax) {
    const pct = ctx.amounts[tax.line.index].filter((a) => a.percent);
    const rates = new Set(pct.map((p) => p.value));
    if (rates.size === 1 && pct[0].value > 0 && pct[0].value < 100) {
      rate = { value: pct[0].value, confidence: tax.confidence * 0.95, line: tax.line, box: spanBox(tax.line, pct[0].start, pct[0].end), priority: 2 };
    }
  }
  return { total, base, tax, rate };
}

const NUMBER_WORDS: Record<string, number> = Object.fromEntries(
  'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'
    .split(' ')
    .map((w, i) => [w, i])
    .concat('twenty thirty forty fifty sixty seventy eighty ninety'.split(' ').map((w, i) => [w, 20 + 10 * i])),
);
const SCALES: Record<string, number> = { hundred: 100, thousand: 1e3, lakh: 1e5, lakhs: 1e5, lac: 1e5, lacs: 1e5, million: 1e6, crore: 1e7, crores: 1e7 };
const NUMBER_WORD = `(?:${[...Object.keys(NUMBER_WORDS), ...Object.keys(SCALES), 'and'].join('|')})`;
const WORDS_SEQ = `((?:${NUMBER_WORD}(?:[\\s-]+|$))+)`;
/** `Rupees Five Thousand Nine Hundred Only`, `INR Ninety Six Lakh Thirty Two Thousand Only`, `Eight Thousand … Rupees Only`. */
const AMOUNT_WORDS = [
  new RegExp(`(?:rupees|inr|rs\\.?)\\s*:?\\s*${WORDS_SEQ}(?:(paise|paisa)\\s+)?only\\b`),
  new RegExp(`(?<![a-z])${WORDS_SEQ}rupees(?:\\s+and\\s+${WORDS_SEQ}(?:paise|paisa))?\\s+only\\b`),
];

/** English number words as a number (`Eleven Thousand Eight Hundred Ninety Five`, `Ninety Six Lakh`); null when not one. */
export function wordsToNumber(words: string): number | null {
  let total = 0;
  let cur = 0;
  let any = false;
  for (const w of words.toLowerCase().split(/[\s-]+/).filter(Boolean)) {
    if (w === 'and') continue;
    if (w in NUMBER_WORDS) cur += NUMBER_WORDS[w];
    else if (w === 'hundred') cur = (cur || 1) * 100;
    else if (w in SCALES) {
      total += (cur || 1) * SCALES[w];
      cur = 0;
    } else return null;
    any = true;
  }
  return any ? total + cur : null;
}

/** The amount an Indian invoice writes out in words (`Amount Chargeable (in words)`), not its tax's. */
function amountInWords(ctx: Ctx): number | null {
  const found: number[] = [];
  for (const line of ctx.lines) {
    for (const re of AMOUNT_WORDS) {
      const m = re.exec(line.fold);
      if (!m) continue;
      // `Tax Amount (in words) : INR Ten Lakh …`, `Total Tax in words: …`: the tax's amount.
      if (/\btax\b|\bgst\b/.test(line.fold.slice(0, m.index))) continue;
      let main = m[1];
      let paise = re === AMOUNT_WORDS[1] ? m[2] : undefined;
      // `Thirty One And Forty Two Paise Only`: the paise after the last `and`.
      if (re === AMOUNT_WORDS[0] && m[2]) [main, paise] = [main.replace(/\band\s+(?!.*\band\b)[\s\S]*$/, ''), /\band\s+(?![\s\S]*\band\b)([\s\S]*)$/.exec(main)?.[1]];
      const rupees = wordsToNumber(main);
      const p = paise ? wordsToNumber(paise) : 0;
      if (rupees !== null && p !== null && p < 100) found.push(rupees + p / 100);
    }
  }
  return found.length > 0 ? Math.max(...found) : null;
}

/**
 * The total against the amount printed in words: where no total was found, the page's amount that the words
 * spell; where the total differs from the words in one digit only (OCR reads 8 as 6, 3 as 8), the words' amount, with
 * a lower confidence (a reading to review, never a confident one).
 */
function checkedByWords(ctx: Ctx, total: Candidate | null): Candidate | null {
  const w = amountInWords(ctx);
  if (w === null || w <= 0) return total;
  if (!total) {
    for (let i = ctx.lines.length - 1; i >= 0; i--) {
      const a = ctx.amounts[i].find((x) => !x.percent && Math.abs(x.value - w) < 0.005);
      if (a) return { value: a.value, confidence: 0.7, line: ctx.lines[i], box: spanBox(ctx.lines[i], a.start, a.end), priority: 2 };
    }
    return total;
  }
  const t = total.value as number;
  if (Math.abs(t - w) < 0.005) return total;
  const [a, b] = [t.toFixed(2), w.toFixed(2)];
  const differing = a.length === b.length ? [...a].filter((c, i) => c !== b[i]).length : 99;
  return differing === 1 ? { ...total, value: w, confidence: Math.min(total.confidence, 0.6) } : total;
}

/**
 * An id without the word OCR glued to it (PP-OCR leaves out narrow spaces): `RE-20171118/506von18.11.2017` is
 * `RE-20171118/506` (`… von 18.11.2017`), `562044387du02Juillet2015` is `562044387`, `RE-20200620/508issued` is
 * `RE-20200620/508`. Only where the id has no small letter of its own before a run of two or more after a digit: an id
 * that carries small letters (`2024-03-10t172205`, `Weena664`) is kept whole.
 */
export function unglued(id: string): string {
  return /^([^\p{Ll}]*?\d)\p{Ll}{2,}/u.exec(id)?.[1] ?? id;
}

/**
 * The invoice's number, by label-value layout, surest rule first: a specific label (`Invoice No.`, `Nº factura`,
 * `Rechnungsnummer`, `Numer faktury`...) with the value right of it or below it in its column; the document's word
 * followed by an id (`Facture n°562044387`, `Rechnung 2024-023`); the title word alone (`FACTURA`, `INVOICE`) with
 * the id right below it; a bare number label (`Número`, `Nr`, `Referencia`) at the start of a cell on a line that
 * speaks of nothing else (phone, account, tax id, order...); a `# 12345` alone at the top. A value is never a label.
 */
function invoiceNumber(ctx: Ctx): Candidate | null {
  const c = labelled(ctx, 'id', L.invoice_number, null, 3);
  if (c) return c;
  // `Invoice INV/2023/03/0008`, `Facture n°562044387`, `FACTUUR 12345`: the word followed directly by an id.
  const re = labelRe(L.invoice_word);
  for (const line of ctx.lines) {
    for (const m of line.fold.matchAll(re)) {
      const after = line.text.slice(m.index! + m[0].length);
      // A sequence number over its year, spaced or not (`Fattura 2 / 2024`, `Faktura FV 7/2021`): the usual numbering
      // of Italian, Spanish and Polish invoices; the spaces are layout, not part of the id.
      const ny = /^\s*(?:n[°oº.]?\s*|no\.?\s*|nr\.?\s*|#\s*)?:?\s*((?:[A-Z]{1,4}[ -]?)?\d{1,7} ?[/-] ?(?:19|20)\d{2})(?=\s|$)/u.exec(after);
      if (ny && /\s/.test(ny[1])) {
        const s = m.index! + m[0].length + ny[0].length - ny[1].length;
        return { value: ny[1].replace(/ ?([/-]) ?/, '$1'), confidence: 0.7, line, box: spanBox(line, s, s + ny[1].length), priority: 2 };
      }
      // A short number needs its sign (`INVOICE #1`, `Facture n° 7`): three digits or fewer alone are no id.
      const mm =
        /^\s*(?:n[°oº.]?\s*|no\.?\s*|nr\.?\s*|#\s*)?:?\s*([A-Z0-9][A-Za-z0-9/_.\-]{2,38}[A-Za-z0-9])(?=\s|$)/u.exec(after) ??
        /^\s*(?:n[°oº]\.?|no\.|nr\.?|#)\s*:?\s*(\d{1,3})(?=\s*$|\s+(?![\d/.,-]))/u.exec(after);
      if (!mm || !/\d/.test(mm[1])) continue;
      const s = m.index! + m[0].length + mm[0].length - mm[1].length;
      // In the word's own cell: a title's cell then, across a wide gap, the letterhead's next column (`FACTUUR.`
      // … `Weena 664`, an address) is no `word id`.
      const cell = line.cells.find((c) => c.start <= m.index! && c.end >= m.index! + m[0].length);
      if (cell && s >= cell.end) continue;
      mm[1] = unglued(mm[1]);
      // A date-shaped id after a number sign (`Invoice #2015-11-04`) is the number; without one it is a date.
      if (!numberSigned(line, s) && ctx.dates[line.index].some((d) => s >= d.start && s < d.end)) continue;
      if (ctx.amounts[line.index].some((a) => s >= a.start && s < a.end && (a.currency || a.decimals))) continue;
      return { value: mm[1], confidence: 0.75, line, box: spanBox(line, s, s + mm[1].length), priority: 2 };
    }
  }
  // The title word alone in its cell (`FACTURA`, `Invoice`, `Faktura VAT`), the id right below it.
  // Latin American electronic invoices qualify the title: `FACTURA ELECTRÓNICA` over `F001-00000123`.
  const title = new RegExp(`^(?:${L.invoice_word.join('|')})(?: vat| electronica(?: de venta)?| de venta(?: electronica)?)?\\s*(?:n[°o.]?|no\\.?|nr\\.?|#)?\\s*:?$`);
  for (const line of ctx.lines) {
    if (line.page !== ctx.lines[0].page || line.bbox[1] > 0.5) continue;
    for (const cell of line.cells) {
      if (!title.test(line.fold.slice(cell.start, cell.end).trim())) continue;
      const below = lineBelow(ctx, line);
      const span = below ? alignedSpan(below, cell.bbox, 'id') : null;
      const v = below && span ? valueIn(ctx, 'id', below, span.start, span.end) : null;
      if (below && v && (v.start === span!.start || /^[\s#]*$/.test(below.text.slice(span!.start, v.start))) && v.end >= span!.end - 1) {
        return { value: v.value, confidence: 0.65, line: below, box: spanBox(below, v.start, v.end), priority: 2 };
      }
    }
  }
  // The title with its qualifier in one cell and the id alone in the line's last cell (`Faktura - daňový doklad
  // 2022001`, `Tax Invoice (Original)   INV-77`): a letterhead's title row at the top of the first page.
  const titled = new RegExp(`^(?:${L.invoice_word.join('|')})(?![\\p{L}])[^\\d]{0,40}$`, 'u');
  for (const line of ctx.lines) {
    if (line.page !== ctx.lines[0].page || line.bbox[1] > 0.35 || line.cells.length < 2) continue;
    const last = line.cells[line.cells.length - 1];
    if (!line.cells.slice(0, -1).some((c) => titled.test(line.fold.slice(c.start, c.end).trim()))) continue;
    const mm = /^(?:#|n[°oº]\.?|no\.?|nr\.?)?\s*([A-Z0-9][A-Za-z0-9/_.\-]{2,38})$/u.exec(line.text.slice(last.start, last.end).trim());
    // A word of small letters with a number glued on (`Weena664`, `Hauptstr12`: the letterhead's street) is no id.
    if (!mm || !/\d/.test(mm[1]) || /\p{Ll}{3,}/u.test(mm[1])) continue;
    const s = line.text.indexOf(mm[1], last.start);
    if (ctx.dates[line.index].some((d) => s < d.end && s + mm[1].length > d.start)) continue;
    if (ctx.amounts[line.index].some((a) => s < a.end && s + mm[1].length > a.start && (a.currency || a.decimals))) continue;
    return { value: mm[1], confidence: 0.6, line, box: spanBox(line, s, s + mm[1].length), priority: 2 };
  }
  // A bare number label at the start of its cell, on a line about nothing else.
  for (const hit of findLabels(ctx, L.number_weak)) {
    const { line } = hit;
    const cell = line.cells.find((x) => x.start <= hit.start && x.end >= hit.end);
    if (!cell) continue;
    // At the start of its cell; or, inside it, a number word closed by a colon (`Número:`, `Nr.:`), which a
    // letterhead may print after the issuer's name in one cell (`Ferretería El Martillo Número: 4812`).
    const within = line.fold.slice(cell.start, hit.start).trim() !== '';
    if (within && !(/(numero|number|nummer|numer|nr|no)\.?$/.test(line.fold.slice(hit.start, hit.end)) && /^\s?:/.test(line.fold.slice(hit.end)) && /\s$/.test(line.fold.slice(0, hit.start)))) continue;
    if (L.number_weak_exclude.test(line.fold.slice(Math.max(0, hit.start - 24), cell.end))) continue;
    if (line.page !== ctx.lines[0].page) continue;
    const v = valueIn(ctx, 'id', line, hit.end, cellEnd(line, hit.end));
    // A house number then its town (`Nr. 1023, Maputo`, `Nr 12, 8000 Zürich`): an address, not the document's number.
    if (v && /^,\s*[\p{L}\d]/u.test(line.text.slice(v.end))) continue;
    if (v) return { value: v.value, confidence: 0.55, line, box: spanBox(line, v.start, v.end), priority: 1 };
    const closes = /^\s*[:\-–]?\s*$/.test(line.text.slice(hit.end, cell.end));
    const below = closes ? lineBelow(ctx, line) : null;
    const span = below ? alignedSpan(below, spanBox(line, hit.start, hit.end), 'id') : null;
    const w = below && span ? valueIn(ctx, 'id', below, span.start, span.end) : null;
    if (below && w) return { value: w.value, confidence: 0.5, line: below, box: spanBox(below, w.start, w.end), priority: 1 };
  }
  // Right-to-left text (Arabic, Hebrew) comes out of a text layer in visual order: `1721#مصدر: رقم` prints `#1721`
  // beside `رقم` (number). Unsure: the order of the characters is a guess.
  for (const line of ctx.lines.slice(0, 20)) {
    if (!/[\u0590-\u08ff]/.test(line.text) || !/رقم|فاتورة|מספר|חשבונית/.test(line.text)) continue;
    const mm = /(?<![\p{L}\p{N}#])(\d[A-Za-z0-9/_\-]*)#(?=[\u0590-\u08ff\s:]|$)/u.exec(line.text) ?? /(?<![\p{L}\p{N}])#(\d[A-Za-z0-9/_\-]*)(?![\p{N}])/u.exec(line.text);
    if (mm) return { value: `#${mm[1]}`, confidence: 0.5, line, box: spanBox(line, mm.index, mm.index + mm[0].length), priority: 1 };
  }
  // `# 12345` alone near the top of the first page (below an INVOICE title).
  for (const line of ctx.lines.slice(0, 15)) {
    const mm = /^#\s?([A-Za-z0-9][A-Za-z0-9/_.\-]{2,38})$/.exec(line.text);
    if (mm && /\d/.test(mm[1])) {
      const s = line.text.length - mm[1].length;
      return { value: mm[1], confidence: 0.55, line, box: spanBox(line, s, line.text.length), priority: 1 };
    }
  }
  return null;
}

/** Whether the text at `start` follows a number sign (`#`, `No.`, `Nr`, `N°`): a number, even when shaped as a date. */
function numberSigned(line: Line, start: number): boolean {
  return /(?:#|(?<![\p{L}\p{N}])(?:n[°oº]|no|nr|num|number|numero|nummer)\.?)\s*:?\s*$/u.test(line.fold.slice(0, start));
}

function invoiceDate(ctx: Ctx): Candidate | null {
  const strong = labelled(ctx, 'date', L.issue_date_strong, null, 3);
  if (strong) return strong;
  const placed = placeDate(ctx.lines, ctx.dates);
  if (placed) return { value: placed.date.value, confidence: 0.75, line: placed.line, box: spanBox(placed.line, placed.date.start, placed.date.end), priority: 2 };
  const weak = labelled(ctx, 'date', L.issue_date_weak, L.date_exclude, 2);
  if (weak) return { ...weak, confidence: weak.confidence * 0.9 };
  // `Facture n°562044387 du 02 Juillet 2015`: a date on the invoice-number line.
  const re = labelRe(L.invoice_word);
  for (const line of ctx.lines) {
    if (!re.test(line.fold)) continue;
    re.lastIndex = 0;
    if (L.date_exclude.test(line.fold) || /associe|liee|related|gemass|bestellung|referen/.test(line.fold)) continue;
    const d = ctx.dates[line.index].find((x) => !numberSigned(line, x.start));
    if (d) return { value: d.value, confidence: 0.75, line, box: spanBox(line, d.start, d.end), priority: 2 };
  }
  // First date of the first page that is not labelled as something else.
  for (const line of ctx.lines) {
    if (line.page !== ctx.lines[0].page) break;
    if (L.date_exclude.test(line.fold)) continue;
    const d = ctx.dates[line.index].find((x) => !numberSigned(line, x.start));
    if (d) return { value: d.value, confidence: 0.45, line, box: spanBox(line, d.start, d.end), priority: 1 };
  }
  return null;
}

/**
 * `o`/`q` read for `0` and `l`/`i`/`|` for `1` where they stand among the digits and separators of a numeric date
 * (folded text, same length): `29/12/2o17` -> `29/12/2017`; a comma for one point of a dotted date
 * (`04.12,2014`). Letters of words are left alone.
 */
function digitLetters(fold: string): string {
  return fold
    .replace(/(?<![\p{L}])[\doqil|]{1,2}[/.-][\doqil|]{1,2}[/.-][\doqil|]{2,4}(?![\p{L}\d])/gu, (m) =>
      /\d.*\d.*\d/.test(m) ? m.replace(/[oq]/g, '0').replace(/[il|]/g, '1') : m,
    )
    // A point read as a comma in a dotted date (`04.12,2014`).
    .replace(/(?<![\d.,])\d{1,2}[.,]\d{1,2}[.,](?:19|20)\d{2}(?![\d.,])/g, (m) => (m.includes('.') ? m.replace(/,/g, '.') : m));
}

/** What a receipt's date is not: a due, expiry, birth or warranty date. */
const RECEIPT_DATE_EXCLUDE = /(due|expir|exp\.?\s*date|valid|birth|warrant|best before|mhd|check.?in|check.?out)/;

/** Digits OCR confuses on receipts (thermal print): what each may have been. */
const DIGIT_CONFUSIONS: Record<string, string> = { '0': '869', '1': '7', '2': '7', '3': '85', '4': '1', '5': '63', '6': '058', '7': '120', '8': '036', '9': '08' };

/** The one year within the last 15 years that a single confusable digit of `year` gives, else null. */
export function repairYear(year: number, maxYear: number): number | null {
  const s = String(year);
  const found = new Set<number>();
  for (let i = 0; i < s.length; i++) {
    for (const c of DIGIT_CONFUSIONS[s[i]] ?? '') {
      const y = Number(s.slice(0, i) + c + s.slice(i + 1));
      if (y <= maxYear && y >= maxYear - 15) found.add(y);
    }
  }
  return found.size === 1 ? [...found][0] : null;
}

/**
 * A receipt's date: a labelled one, else the first date printed (the document's order) on a line with a time of
 * day, else the first date; never a date in the future (an OCR misreading: `2078`).
 */
function receiptDate(ctx: Ctx): Candidate | null {
  const maxYear = new Date().getUTCFullYear() + 1;
  const plausible = (d: DateMatch) => Number(d.value.slice(0, 4)) <= maxYear && Number(d.value.slice(0, 4)) >= 1990;
  const found: Array<Candidate & { time: boolean; label: boolean }> = [];
  for (const line of ctx.lines) {
    if (RECEIPT_DATE_EXCLUDE.test(line.fold)) continue;
    let d = ctx.dates[line.index].find(plausible);
    let repaired = false;
    if (!d) {
      // Letters OCR reads for digits inside a numeric date (`29/12/2O17`, `l5/03/2018`): the date they spell.
      const cleaned = digitLetters(line.fold);
      const c = cleaned !== line.fold ? findDates(cleaned, ctx.dayFirst).find(plausible) : undefined;
      if (c) {
        d = c;
        repaired = true;
      }
    }
    if (!d) {
      // A year out of range whose one misread digit (`2078`, `2718` for 2018) gives the only plausible year.
      const m = /(?<![\d.,])(\d{1,2}\s?[-/.]\s?\d{1,2}\s?[-/.]\s?)(\d{4})(?!\d)/.exec(line.fold);
      const year = m ? Number(m[2]) : null;
      const fixed = m && year !== null && (year > maxYear || year < 1990) ? repairYear(year, maxYear) : null;
      const date = m && fixed !== null ? findDates(`${m[1]}${fixed}`, ctx.dayFirst)[0] : undefined;
      if (m && date) d = { ...date, start: m.index, end: m.index + m[0].length };
      else d = gluedTillDate(line.fold, ctx.dayFirst) ?? compactTillDate(line.fold);
      if (!d) continue;
      repaired = true;
    }
    const label = /(?<![\p{L}])(date|dated|fecha|datum|data|tarikh|tarih)(?![\p{L}])/u.test(line.fold.slice(0, d.start));
    const time = /(?<!\d)([01]?\d|2[0-3])[:.][0-5]\d(?!\d)/.test(line.fold.slice(d.end));
    found.push({ value: d.value, confidence: (label ? 0.85 : time ? 0.8 : 0.6) * (repaired ? 0.6 : 1), line, box: spanBox(line, d.start, d.end), priority: 2, time, label });
  }
  return found.find((c) => c.label) ?? found.find((c) => c.time) ?? found[0] ?? null;
}

/**
 * A till's date that OCR glued to the register numbers before it and the time after it (`2101401306/21/202104:27 PM`:
 * store 210, register 14013, 06/21/2021, 04:27): two digits, a slash, two digits, a slash, a four-digit year, then
 * the time. Only with the time glued on, which says where the year ends.
 */
function gluedTillDate(fold: string, dayFirst: boolean): DateMatch | undefined {
  // (Or year first: `Date: 2017/07/1220:54:54`.)
  const m = /(\d{2}\/\d{2}\/(?:19|20)\d{2}|(?<!\d)(?:19|20)\d{2}([-/.])\d{2}\2\d{2})(?=[0-2]?\d:[0-5]\d)/.exec(fold);
  const date = m ? findDates(m[1], dayFirst)[0] : undefined;
  return m && date ? { ...date, start: m.index, end: m.index + m[1].length } : undefined;
}

/**
 * A card terminal's date written as one number after its label (`Date and time: 20220809 104605`,
 * `Date: 20220411113218`): year, month and day, then the time or nothing. Only after a date label.
 */
function compactTillDate(fold: string): DateMatch | undefined {
  const m = /(?<![\p{L}])(?:date|fecha|datum|data|tarih)(?![\p{L}])[^\d]{0,16}((?:19|20)\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=(?:[01]\d|2[0-3])[0-5]\d[0-5]\d(?!\d)|(?!\d))/u.exec(fold);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCMonth() !== mo - 1 || y < 1990 || y > new Date().getUTCFullYear() + 1) return undefined;
  const start = m.index + m[0].length - 8;
  return { value: `${m[1]}-${m[2]}-${m[3]}`, start, end: start + 8, ambiguous: false };
}

// `购`/`买` alone: a Chinese VAT invoice prints its buyer heading 购买方 one character a line, down the block's edge.
const CUSTOMER_RE = labelRe([...L.customer, 'your vat', 'uw btw', 'votre (n[°o] de )?tva', 'ihre ust', 'su nif', 'vat no\\.? of customer', '购', '买']);

/** Headings of a party's block (a cell made only of one of them, `:` allowed): whose column the lines below are. */
const CUSTOMER_HEADING = new RegExp(
  `^(?:${[
    ...L.customer, 'recipient', 'ship(ped)? to', 'shipping address', 'delivery address', 'deliver to', 'invoice for', 'cobrar a',
    'envie a', 'enviar a', 'factura a', 'client(e)? final', 'adresse de facturation', 'adresse de livraison', 'facture a', 'livre a',
    'lieferadresse', 'leistungsempfanger', 'kaufer', 'empfanger', 'nabywca', 'odbiorca', 'platnik', 'intestatario', 'spett\\.?le',
    'fatturare a', 'faturar a', 'cliente final', 'comprador', 'to', 'odberatel', 'kupujici', 'kupujuci', 'nabywca',
  ].join('|')})\\s*:?$`,
);
const ISSUER_HEADING = new RegExp(
  `^(?:${[...L.issuer, 'emetteur', 'biller', 'bill from', 'from', 'issued by', 'sprzedawca', 'wystawca', 'sprzedajacy', 'remitente', 'expediteur', 'absender', 'cedente', 'prestatore', 'our details', 'company details', 'dodavatel', 'prodavajici', 'predavajuci'].join('|')})\\s*:?$`,
);

interface PartyBlock {
  party: 'issuer' | 'customer';
  page: number;
  /** Horizontal extent of the block's column. */
  x0: number;
  x1: number;
  /** Line indexes of the block (the heading's line excluded). */
  from: number;
  to: number;
}

/**
 * Party blocks of the page: a heading cell (`Bill to`, `Seller`, `Nabywca`, `Biller`...) and the lines below it in
 * its column, down to the first wide vertical gap or the next heading in that column. Two headings on one line
 * (`Seller  Buyer`, `Recipient  Biller`) split the page into their columns.
 */
function partyBlocks(ctx: Ctx): PartyBlock[] {
  const blocks: PartyBlock[] = [];
  const headsOf = (line: Line) => {
    const heads: Array<{ party: 'issuer' | 'customer'; x0: number; cell: number }> = [];
    for (const [i, cell] of line.cells.entries()) {
      const t = line.fold.slice(cell.start, cell.end).trim();
      const party = CUSTOMER_HEADING.test(t) ? 'customer' : ISSUER_HEADING.test(t) ? 'issuer' : null;
      if (party) heads.push({ party, x0: cell.bbox[0], cell: i });
    }
    // `to` and `from` alone are headings only beside another heading or as a line of their own.
    if (heads.length === 1 && line.cells.length > 1 && /^(to|from)\s*:?$/.test(line.fold.slice(line.cells[heads[0].cell].start, line.cells[heads[0].cell].end).trim())) return [];
    return heads;
  };
  const allHeads = ctx.lines.map(headsOf);
  for (const line of ctx.lines) {
    const heads = allHeads[line.index];
    if (heads.length === 0) continue;
    // The other party's heading on a line of its own beside this one (a photographed row that OCR split in two,
    // `Biller` a little above `Recipient`): it bounds this heading's column as a heading on the same line would.
    const height = Math.max(line.bbox[3] - line.bbox[1], 0.008);
    const beside = ctx.lines
      .filter((l) => l !== line && l.page === line.page && Math.abs(l.index - line.index) <= 2 && Math.abs((l.bbox[1] + l.bbox[3]) / 2 - (line.bbox[1] + line.bbox[3]) / 2) < height)
      .flatMap((l) => allHeads[l.index]);
    for (const [k, h] of heads.entries()) {
      const nextCell = line.cells[h.cell + 1];
      // A heading alone on its line: its column is at most a half page wide (the other half may be the other party's).
      let x1 = heads[k + 1] ? heads[k + 1].x0 - 0.005 : nextCell ? nextCell.bbox[0] - 0.005 : Math.min(1, h.x0 + 0.45);
      for (const o of beside) if (o.x0 > h.x0 + 0.05) x1 = Math.min(x1, o.x0 - 0.005);
      const x0 = h.cell === 0 && !beside.some((o) => o.x0 < h.x0 - 0.05) ? 0 : h.x0 - 0.02;
      let last = line;
      let to = line.index;
      for (let i = line.index + 1; i < ctx.lines.length && i <= line.index + 12; i++) {
        const next = ctx.lines[i];
        if (next.page !== line.page) break;
        const inColumn = next.words.some((w) => (w.bbox[0] + w.bbox[2]) / 2 > x0 && (w.bbox[0] + w.bbox[2]) / 2 < x1);
        if (!inColumn) continue;
        if (next.bbox[1] - last.bbox[3] > 2.5 * height) break;
        const cellsInColumn = next.cells.filter((c) => (c.bbox[0] + c.bbox[2]) / 2 > x0 && (c.bbox[0] + c.bbox[2]) / 2 < x1);
        if (cellsInColumn.some((c) => { const t = next.fold.slice(c.start, c.end).trim(); return CUSTOMER_HEADING.test(t) || ISSUER_HEADING.test(t); })) break;
        if (TABLE_HEADER.test(next.fold)) break;
        last = next;
        to = i;
      }
      if (to > line.index) blocks.push({ party: h.party, page: line.page, x0, x1, from: line.index + 1, to });
    }
  }
  return blocks;
}

/** The party block a span of a line falls in, if any. */
function blockOf(blocks: PartyBlock[], line: Line, box: Box): PartyBlock | null {
  const cx = (box[0] + box[2]) / 2;
  return blocks.find((b) => b.page === line.page && line.index >= b.from && line.index <= b.to && cx > b.x0 && cx < b.x1) ?? null;
}

/**
 * A line of the page's footer: in its bottom fifth and among its last six lines. The footer is the issuer's legal
 * notice (its name, registry number, bank, VAT id): an id there is the issuer's, even when an unlabelled address block
 * higher up (the customer's, in a letter's window) prints another one first.
 */
function inFooter(ctx: Ctx, line: Line): boolean {
  if (line.bbox[1] < 0.8) return false;
  let after = 0;
  for (let i = line.index + 1; i < ctx.lines.length && ctx.lines[i].page === line.page; i++) after++;
  return after < 6;
}

/** A VAT-shaped token alone in its cell: two country letters then 7-12 digits (`GB123456789`, `DL1234567`). */
const BARE_TAX_ID = /^[A-Z]{2}U?\d{7,12}$/;

/**
 * Tax ids of the two parties. An id in a party's block (the column below `Bill to`, `Seller`, `Nabywca`...) is that
 * party's; else an id whose line or the two lines above speak of the customer (`Customer VAT`, `Bill to`) is the
 * customer's; the others are the issuer's (the top of the page first). Checksum-valid ids win over labelled ones
 * that could not be checked (those keep a low confidence: a validator judges them, and they stay `unsure`); in an
 * issuer's block, a VAT-shaped token alone in its cell is taken too, as unchecked.
 */
function partyIds(ctx: Ctx): { issuer: Candidate | null; customer: Candidate | null } {
  const blocks = partyBlocks(ctx);
  // A heading's words speak for its column only: outside it they say nothing of whose an id is.
  const headings = new Set(blocks.map((b) => b.from - 1));
  const issuer: Array<Candidate & { rank: number }> = [];
  const customer: Array<Candidate & { rank: number }> = [];
  // The letterhead: the first page's first line when it is a company name with its legal form. An id printed in a
  // block under a repeat of that name (the footer's `Acme GmbH / street / VAT id`) is the issuer's, even when the
  // customer's address block, with its own id and no heading, comes first on the page (a letter's window layout).
  const head = ctx.lines[0];
  const headName = head && LEGAL_FORM.test(head.text) && head.text.split(/\s+/).length <= 6 ? head.fold.trim() : null;
  const underHead = (line: Line) =>
    headName !== null && line.index > 0 && ctx.lines.slice(Math.max(1, line.index - 4), line.index + 1).some((l) => l.page === line.page && l.fold.trim() === headName);
  for (const line of ctx.lines) {
    for (const id of ctx.ids[line.index]) {
      if (id.kind === 'fr_siren' || id.kind === 'fr_siret') continue; // company numbers, not tax ids
      const box = spanBox(line, id.start, id.end);
      const block = blockOf(blocks, line, box);
      // The two lines above, in the id's own column when the line has columns (`Acme GmbH    Buyer Holding B.V.`
      // above `VAT: DE…    VAT: NL…`: the buyer's name speaks for the right column only).
      const idCell = line.cells.length > 1 ? line.cells.find((c) => c.start <= id.start && c.end >= id.end) : undefined;
      const context = [ctx.lines[line.index - 2], ctx.lines[line.index - 1]]
        .filter((l): l is Line => !!l && l.page === line.page && !headings.has(l.index))
        .map((l) => (idCell ? l.cells.filter((c) => c.bbox[2] > idCell.bbox[0] && c.bbox[0] < idCell.bbox[2]).map((c) => l.fold.slice(c.start, c.end)).join(' ') : l.fold))
        .join('\n');
      CUSTOMER_RE.lastIndex = 0;
      // A Chinese invoice prints 购买方 (buyer) down the left margin of the buyer's rows, one character a row: its
      // character alone in a cell left of the id, on the line below, is the buyer's block too.
      const buyerMargin = [ctx.lines[line.index + 1]].some(
        (l) => !!l && l.page === line.page && l.cells.some((c) => c.bbox[2] < box[0] && /^[购买]$/.test(l.text.slice(c.start, c.end).trim())),
      );
      const customerWords = CUSTOMER_RE.test(line.fold.slice(0, id.start)) || CUSTOMER_RE.test(context) || buyerMargin;
      CUSTOMER_RE.lastIndex = 0;
      const own = !block && (underHead(line) || inFooter(ctx, line));
      const isCustomer = block ? block.party === 'customer' : (customerWords && !own) || besideLetterhead(ctx, line, box);
      const checked = id.checked !== false;
      const cand = { value: id.value, confidence: checked ? (block ? 0.8 : 0.7) : 0.5, line, box, priority: 2, rank: (checked ? 0 : 2) + (block ? 0 : own ? 0.5 : 1) };
      (isCustomer ? customer : issuer).push(cand);
    }
  }
  for (const b of blocks.filter((x) => x.party === 'issuer')) {
    for (let i = b.from; i <= b.to; i++) {
      const line = ctx.lines[i];
      for (const cell of line.cells) {
        const cx = (cell.bbox[0] + cell.bbox[2]) / 2;
        const t = line.text.slice(cell.start, cell.end).trim();
        if (cx <= b.x0 || cx >= b.x1 || !BARE_TAX_ID.test(t) || !(t.slice(0, 2) in ISO2_TO_3 || /^[A-Z]{2}\d/.test(t))) continue;
        if (issuer.some((c) => c.value === t)) continue;
        issuer.push({ value: t, confidence: 0.45, line, box: cell.bbox, priority: 1, rank: 4 });
      }
    }
  }
  const first = (cs: Array<Candidate & { rank: number }>) => {
    const best = [...cs].sort((a, b) => a.rank - b.rank || a.line.index - b.line.index)[0];
    if (!best) return null;
    const { rank: _rank, ...c } = best;
    return c;
  };
  return { issuer: first(issuer), customer: first(customer) };
}

/** A tax-id label opening a cell: `VAT:`, `USt-IdNr.`, `NIP`, `P. IVA`, `BTW-nr`, `TVA intracom.`, `CIF/NIF`, `DIČ`... */
const TAX_LABEL_CELL =
  /^(?:vat|tva|btw|iva|p\.? ?iva|ust|ust-?id(nr)?\.?|mwst|uid|nip|nif|cif|nipc|dic|ico|ic dph|gst(in)?|tax id)(?![\p{L}])/u;

/**
 * Two parties' tax ids side by side on one line (`VAT: FR…    VAT: NL…`) with no heading over them: the letterhead's
 * column (the first line's first cell) is the issuer's, so an id in another column, right of a tax label in the
 * letterhead's column, is the customer's. Without this the customer's id became the issuer's whenever the issuer's
 * own failed its check digits.
 */
function besideLetterhead(ctx: Ctx, line: Line, box: Box): boolean {
  const head = ctx.lines.find((l) => l.page === line.page);
  if (!head || head.cells.length < 2 || line.cells.length < 2) return false;
  const headX = head.cells[0].bbox[0];
  const cells = line.cells.filter((c) => TAX_LABEL_CELL.test(line.fold.slice(c.start, c.end)));
  if (cells.length < 2) return false;
  const mine = cells.find((c) => c.bbox[0] <= box[0] + 0.001 && c.bbox[2] >= box[2] - 0.001);
  const headCell = cells.find((c) => Math.abs(c.bbox[0] - headX) < 0.03);
  return mine !== undefined && headCell !== undefined && mine !== headCell;
}

function issuerName(ctx: Ctx): Candidate | null {
  const labelledIssuer = labelled(ctx, 'text', L.issuer, null, 3);
  if (labelledIssuer) {
    const v = String(labelledIssuer.value).replace(/[\s,;:]+$/, '');
    return { ...labelledIssuer, value: v, confidence: 0.7 };
  }
  // A company name with its legal form, outside the customer's block; first page top, then footer.
  const candidates: Candidate[] = [];
  for (const line of ctx.lines) {
    const context = [ctx.lines[line.index - 2], ctx.lines[line.index - 1], line]
      .filter((l): l is Line => !!l && l.page === line.page)
      .map((l) => l.fold)
      .join('\n');
    CUSTOMER_RE.lastIndex = 0;
    if (CUSTOMER_RE.test(context)) continue;
    for (const cell of line.cells) {
      const text = line.text.slice(cell.start, cell.end);
      for (const part of text.split(/\s[-–|•]\s/)) {
        const m = LEGAL_FORM.exec(part);
        if (!m) continue;
        const name = part.slice(0, m.index + m[0].length).replace(/^.*?:\s*/, '').replace(/[\s,;]+$/, '').trim();
        if (name.split(/\s+/).length > 6 || !/\p{L}{3}/u.test(name.slice(0, m.index)) || /\d{3}/.test(name)) continue;
        const s = line.text.indexOf(name, cell.start);
        const top = line.bbox[1] < 0.3 ? 0.2 : line.bbox[1] > 0.8 ? 0.1 : 0;
        candidates.push({ value: name, confidence: 0.55 + top, line, box: s >= 0 ? spanBox(line, s, s + name.length) : cell.bbox, priority: 1 });
      }
    }
  }
  candidates.sort((a, b) => b.confidence - a.confidence || a.line.index - b.line.index);
  return candidates[0] ?? null;
}

function currencyOf(ctx: Ctx, total: Candidate | null): Candidate | null {
  if (total) {
    const a = ctx.amounts[total.line.index].find((x) => x.value === total.value && x.currency);
    if (a?.currency) return { value: a.currency, confidence: a.currency === 'USD' ? 0.7 : 0.85, line: total.line, box: total.box, priority: 2 };
    const code = /\b(EUR|USD|GBP|INR|CHF|PLN|BRL|MXN|CAD|AUD)\b/.exec(total.line.text);
    if (code) return { value: code[1], confidence: 0.85, line: total.line, box: spanBox(total.line, code.index, code.index + 3), priority: 2 };
  }
  const counts = new Map<string, { n: number; line: Line; a: AmountMatch }>();
  for (const line of ctx.lines) {
    for (const a of ctx.amounts[line.index]) {
      if (!a.currency) continue;
      const c = counts.get(a.currency) ?? { n: 0, line, a };
      c.n++;
      counts.set(a.currency, c);
    }
  }
  const best = [...counts.entries()].sort((x, y) => y[1].n - x[1].n)[0];
  if (!best) return null;
  return { value: best[0], confidence: best[0] === 'USD' ? 0.6 : 0.7, line: best[1].line, box: spanBox(best[1].line, best[1].a.start, best[1].a.end), priority: 1 };
}

// ------------------------------------------------------------------ other patterns

function iban(ctx: Ctx): Candidate | null {
  let first: Candidate | null = null;
  for (const line of ctx.lines) {
    for (const m of ctx.ibans[line.index]) {
      const c: Candidate = { value: m.value, confidence: 0.9, line, box: spanBox(line, m.start, m.end), priority: 2 };
      if (/\biban\b/.test(line.fold)) return { ...c, confidence: 0.95 };
      first ??= c;
    }
  }
  return first;
}

function bic(ctx: Ctx): Candidate | null {
  for (const line of ctx.lines) {
    const m = /\b(?:bic|swift)(?:\s*\/\s*swift)?\s*(?:code)?\s*:?\s*([A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)\b/i.exec(line.text);
    if (m && isValidBIC(m[1].toUpperCase())) {
      const s = m.index + m[0].length - m[1].length;
      return { value: m[1].toUpperCase(), confidence: 0.85, line, box: spanBox(line, s, s + m[1].length), priority: 2 };
    }
  }
  return null;
}

/** A personal identifier (Spanish DNI/NIE, Portuguese NIF...) with a valid check digit. */
function personalId(ctx: Ctx): Candidate | null {
  for (const line of ctx.lines) {
    for (const id of ctx.ids[line.index]) {
      if (id.kind === 'es_nif' && /^[0-9XYZKLM]/.test(id.value)) {
        return { value: id.value, confidence: 0.8, line, box: spanBox(line, id.start, id.end), priority: 2 };
      }
      if (id.kind === 'pt_nif' && /^[123]/.test(id.value)) {
        return { value: id.value, confidence: 0.75, line, box: spanBox(line, id.start, id.end), priority: 2 };
      }
    }
  }
  return null;
}

/** The tallest line in the top third of the first page (a title), when it has words. */
function title(ctx: Ctx): Candidate | null {
  const first = ctx.lines.filter((l) => l.page === ctx.lines[0].page && l.bbox[1] < 0.35 && /\p{L}{3}/u.test(l.text));
  if (first.length === 0) return null;
  const heights = first.map((l) => l.bbox[3] - l.bbox[1]).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)];
  const best = [...first].sort((a, b) => b.bbox[3] - b.bbox[1] - (a.bbox[3] - a.bbox[1]))[0];
  if (best.bbox[3] - best.bbox[1] < median * 1.3) return null;
  return { value: best.text, confidence: 0.5, line: best, box: best.bbox, priority: 1 };
}

// ------------------------------------------------------------------ values

/** The value in the shape its JSON Schema asks for, or null. */
function conform(schema: FieldSchema | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  const type = schema?.type;
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value) ? value : null;
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value) ? value : null;
  if (type === 'string') {
    if (typeof value !== 'string' || value.trim() === '') return null;
    if (schema?.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
    if (schema?.enum && !schema.enum.includes(value)) return null;
    return value.trim();
  }
  if (type === undefined) return value;
  return null;
}

function round(v: number): number {
  return Math.round(Math.min(1, Math.max(0, v)) * 100) / 100;
}

export { union };
