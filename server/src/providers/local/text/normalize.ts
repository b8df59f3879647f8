/**
 * Text helpers of the local text readers: length-preserving folding (so that match offsets map back to words and
 * boxes), locale-aware amounts and dates, and a stopword language guess.
 */
import type { Box, TextLine } from '../types.ts';

// ------------------------------------------------------------------ folding

const FOLD_CACHE = new Map<string, string>();
/** One UTF-16 unit -> one folded unit: accents stripped, lower case, typographic quotes/dashes/spaces unified. */
function foldUnit(c: string): string {
  let f = FOLD_CACHE.get(c);
  if (f === undefined) {
    if (/[\u2018\u2019\u201a\u201b\u2032\u00b4`]/.test(c)) f = "'";
    else if (/[\u201c\u201d\u201e\u00ab\u00bb]/.test(c)) f = '"';
    else if (/[\u2010-\u2015\u2212]/.test(c)) f = '-';
    else if (/[\u00a0\u2000-\u200a\u202f\u205f\u3000\t]/.test(c)) f = ' ';
    else if (c === '\u00ba') f = 'o';
    // Fullwidth ASCII (`（incl GST)`, `：`, `＃`: CJK fonts on receipts and PP-OCR's Chinese recogniser) is ASCII.
    else if (c >= '\uff01' && c <= '\uff5e') f = String.fromCharCode(c.charCodeAt(0) - 0xfee0).toLowerCase();
    else if (c === '\u0142' || c === '\u0141') f = 'l'; // ł: no decomposition
    else if (c === '\u00f8' || c === '\u00d8') f = 'o'; // ø
    else if (c === '\u0111' || c === '\u0110') f = 'd'; // đ
    else if (c === '\u0131') f = 'i'; // dotless i
    else if (c === '\u00aa') f = 'a';
    else {
      const d = c.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase();
      f = d.length === 1 ? d : c.toLowerCase().length === 1 ? c.toLowerCase() : c;
    }
    FOLD_CACHE.set(c, f);
  }
  return f;
}

/** Accent- and case-folded text of the same length as `s` (offsets are preserved). */
export function foldKeep(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += foldUnit(s[i]);
  return out;
}

/** Folded text for phrase matching (not length-preserving): also collapses spaces and strips punctuation edges. */
export function foldPhrase(s: string): string {
  return foldKeep(s).replace(/[^\p{L}\p{N}@'&%/.-]+/gu, ' ').replace(/\s+/g, ' ').trim();
}

// ------------------------------------------------------------------ lines with offsets

export interface Word {
  text: string;
  bbox: Box;
  confidence: number;
  /** Offsets of the word in the line's `text`. */
  start: number;
  end: number;
}

export interface Line {
  index: number;
  page: number;
  text: string;
  /** `foldKeep(text)`. */
  fold: string;
  bbox: Box;
  confidence: number;
  words: Word[];
  /** Word index ranges separated by wide gaps (table cells, label/value columns). */
  cells: Array<{ from: number; to: number; start: number; end: number; bbox: Box }>;
}

/** Rebuilds every line from its words (text = words joined by one space) with offsets, folds and cells. */
export function prepareLines(lines: readonly TextLine[]): Line[] {
  const out: Line[] = [];
  const sorted = [...lines].sort((a, b) => a.page - b.page || a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]);
  for (const l of sorted) {
    if (typeof l?.text !== 'string') continue;
    const hasWords = !!l.words && l.words.length > 0;
    const src = hasWords ? l.words!.filter((w) => typeof w?.text === 'string' && w.text.trim() !== '') : splitLineWords(l);
    const words: Word[] = [];
    let text = '';
    for (const w of letterSpaced(src)) {
      // pdf.js gives U+0000 for a glyph its font does not map: between two letters or digits it stands for a
      // hyphen in the generators seen (`2E9958F3-0010`), elsewhere for nothing that reads.
      const raw = w.text.includes('\u0000') ? w.text.replace(/(?<=[\p{L}\p{N}])\u0000(?=[\p{L}\p{N}])/gu, '-').replace(/\u0000/g, ' ') : w.text;
      // Fullwidth ASCII (`发票号码：07007198`, `（incl GST)`) is ASCII: values and separators read alike.
      const wt = raw.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
      for (const whole of wt.trim().split(/\s+/)) {
        if (!whole) continue;
        for (const [part, bbox] of partedAmount(whole, w.bbox)) {
          if (text) text += ' ';
          words.push({ text: part, bbox, confidence: w.confidence, start: text.length, end: text.length + part.length });
          text += part;
        }
      }
    }
    if (!text) continue;
    const line: Line = {
      index: out.length,
      page: l.page,
      text,
      fold: foldKeep(text),
      bbox: l.bbox,
      confidence: typeof l.confidence === 'number' ? l.confidence : 1,
      words,
      cells: [],
    };
    // Estimated word boxes say nothing about columns: such a line is one cell.
    line.cells = hasWords ? cellsOf(line) : [{ from: 0, to: words.length, start: 0, end: text.length, bbox: line.bbox }];
    out.push(line);
  }
  return out;
}

/**
 * A title printed letter-spaced (`I N V O I C E`, `R E C H N U N G`: four capitals or more, each a word of one letter
 * or read as one word with spaces inside) is one word, so that its labels and the classifier's words match it. The
 * letters' boxes are joined.
 */
function letterSpaced<W extends { text: string; bbox: Box; confidence: number }>(src: readonly W[]): Array<{ text: string; bbox: Box; confidence: number }> {
  const parts: Array<{ text: string; bbox: Box; confidence: number }> = [];
  for (const w of src) {
    // A word read with its letter spaces inside (`I N V O I C E` in one text item): the letters apart, then joined below.
    if (/(?:^|\s)\p{Lu}(?:\s+\p{Lu}){3,}(?:\s|$)/u.test(w.text)) {
      for (const t of w.text.trim().split(/\s+/)) parts.push({ text: t, bbox: w.bbox, confidence: w.confidence });
    } else parts.push(w);
  }
  const single = (t: string) => /^\p{Lu}$/u.test(t);
  const out: Array<{ text: string; bbox: Box; confidence: number }> = [];
  for (let i = 0; i < parts.length; ) {
    let j = i;
    while (j < parts.length && single(parts[j].text)) j++;
    if (j - i >= 4) {
      const run = parts.slice(i, j);
      out.push({ text: run.map((p) => p.text).join(''), bbox: union(run.map((p) => p.bbox)), confidence: Math.min(...run.map((p) => p.confidence)) });
      i = j;
    } else {
      out.push(parts[i]);
      i++;
    }
  }
  return out;
}

/** ISO 4217 currency codes (the runtime's own list: nothing is fetched). */
const ISO_CURRENCIES = new Set<string>(Intl.supportedValuesOf('currency'));

/**
 * A word of letters glued to an amount by OCR (`CASH242.00`, `TOTAL$12.50`; PP-OCR drops a narrow gap): the label
 * and the amount as two words, the box shared out by characters. Only an amount with two decimals after three
 * letters or more, so that codes (`A0000000031010`, `SR12`) stay whole.
 */
function partedAmount(word: string, bbox: Box): Array<[string, Box]> {
  // An ISO 4217 code printed glued to its amount (`MAD20000.0`, `KES188,500.00`): the code and the amount. Only an
  // amount with its separators (`PEN2024001`, a reference, stays whole).
  const coded = /^([A-Z]{3})(\d{1,3}(?:[.,]\d{3})+(?:[.,]\d{1,2})?|\d+[.,]\d{1,2})$/.exec(word);
  const m = coded && ISO_CURRENCIES.has(coded[1]) ? coded : /^(\p{L}{3,})([$€£]?\d{1,6}[.,]\d{2})$/u.exec(word);
  if (!m) return [[word, bbox]];
  const cut = bbox[0] + ((bbox[2] - bbox[0]) * m[1].length) / word.length;
  return [[m[1], [bbox[0], bbox[1], cut, bbox[3]]], [m[2], [cut, bbox[1], bbox[2], bbox[3]]]];
}

/** Words with boxes estimated from the line box when a reader gave none. */
function splitLineWords(l: TextLine): Array<{ text: string; bbox: Box; confidence: number }> {
  const n = l.text.length || 1;
  const [x0, y0, x1, y1] = l.bbox;
  const out: Array<{ text: string; bbox: Box; confidence: number }> = [];
  const re = /\S+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(l.text))) {
    out.push({
      text: m[0],
      bbox: [x0 + ((x1 - x0) * m.index) / n, y0, x0 + ((x1 - x0) * (m.index + m[0].length)) / n, y1],
      confidence: l.confidence,
    });
  }
  return out;
}

function cellsOf(line: Line): Line['cells'] {
  // The line's height, or its words' when they are much lower (a line photographed at a slant: its upright box is
  // several words high).
  const heights = line.words.map((w) => w.bbox[3] - w.bbox[1]).sort((a, b) => a - b);
  const wordH = heights[Math.floor(heights.length / 2)] ?? Infinity;
  const h = Math.max(Math.min(line.bbox[3] - line.bbox[1], 1.25 * wordH), 1e-4);
  const cells: Line['cells'] = [];
  let from = 0;
  for (let i = 1; i <= line.words.length; i++) {
    const gap = i < line.words.length ? line.words[i].bbox[0] - line.words[i - 1].bbox[2] : Infinity;
    if (gap > 1.3 * h) {
      const ws = line.words.slice(from, i);
      cells.push({ from, to: i, start: ws[0].start, end: ws[ws.length - 1].end, bbox: union(ws.map((w) => w.bbox)) });
      from = i;
    }
  }
  return cells;
}

export function union(boxes: Box[]): Box {
  return [
    Math.min(...boxes.map((b) => b[0])),
    Math.min(...boxes.map((b) => b[1])),
    Math.max(...boxes.map((b) => b[2])),
    Math.max(...boxes.map((b) => b[3])),
  ];
}

/** Box of the words covering [start, end) of the line's text (the line box when none). */
export function spanBox(line: Line, start: number, end: number): Box {
  const ws = line.words.filter((w) => w.end > start && w.start < end);
  return ws.length > 0 ? union(ws.map((w) => w.bbox)) : line.bbox;
}

// ------------------------------------------------------------------ language

const STOPWORDS: Record<string, string> = {
  es: 'el la los las de del y que en por para con una un es su al se no lo como mas pero sus le ya o este esta entre cuando muy sin sobre tambien fecha importe total factura nombre cliente',
  en: 'the and of to for is on with this your you are be by from at or not will have has please an that it which as date invoice amount total number',
  pt: 'o a os as do da dos das de e que em para com um uma nao ao pelo pela no na nos nas seu sua valor fatura data nome',
  fr: 'le la les de des du et est en pour par un une au aux sur avec vous nous ce cette pas votre vos sont date facture montant nom',
  de: 'der die das und ist nicht mit fur von zu den dem des ein eine auf bei sie wir im am oder auch nach ihre ihr rechnung datum betrag',
  nl: 'de het een en van voor op met is niet te aan uw bij dit zijn wordt naar ook je of factuur datum bedrag',
  it: 'il lo la gli le di del della e che per con un una non da al alla sono nel dei delle fattura data importo',
  pl: 'i w na z do nie sie jest ze od za po dla przez oraz lub faktura data kwota razem numer nabywca sprzedawca zaplaty wystawienia',
};
const STOP = Object.fromEntries(Object.entries(STOPWORDS).map(([k, v]) => [k, new Set(v.split(' '))])) as Record<string, Set<string>>;

/** The language whose stopwords are most frequent, with its share of all stopword hits; null under 4 hits. */
export function guessLanguage(text: string): { code: string; share: number } | null {
  const counts: Record<string, number> = {};
  let total = 0;
  for (const tok of foldKeep(text).match(/\p{L}+/gu) ?? []) {
    for (const [lang, set] of Object.entries(STOP)) {
      if (set.has(tok)) {
        counts[lang] = (counts[lang] ?? 0) + 1;
        total++;
      }
    }
  }
  const best = Object.entries(counts).sort((a, b) => b[1] - a[1])[0];
  if (!best || best[1] < 4) return null;
  return { code: best[0], share: Math.round((best[1] / total) * 100) / 100 };
}

// ------------------------------------------------------------------ amounts

export interface AmountMatch {
  value: number;
  start: number;
  end: number;
  /** ISO 4217 code when a symbol or code is attached. */
  currency: string | null;
  /** Written with decimals (`12,50`, `4.11`). */
  decimals: boolean;
  /** Followed by `%`: a rate, not an amount. */
  percent: boolean;
}

const CURRENCY_TOKENS: Array<[RegExp, string]> = [
  [/^(€|eur|euro|euros)$/, 'EUR'],
  [/^(us\$|usd)$/, 'USD'],
  [/^\$$/, 'USD'],
  [/^(£|gbp)$/, 'GBP'],
  [/^(₹|rs\.?|inr)$/, 'INR'],
  [/^(chf|fr\.)$/, 'CHF'],
  [/^(pln|zl|zł)$/, 'PLN'],
  [/^(r\$|brl)$/, 'BRL'],
  [/^(mxn)$/, 'MXN'],
  [/^(cad|c\$)$/, 'CAD'],
  [/^(aud|a\$)$/, 'AUD'],
  [/^(rm|myr)$/, 'MYR'],
  // Central European and Nordic currencies (`Kč` folds to `kc`), and a few others invoices print as a symbol or code.
  [/^(kc|czk)$/, 'CZK'],
  [/^(huf)$/, 'HUF'],
  [/^(sek)$/, 'SEK'],
  [/^(nok)$/, 'NOK'],
  [/^(dkk)$/, 'DKK'],
  [/^(ron)$/, 'RON'],
  [/^(sgd|s\$)$/, 'SGD'],
  [/^(hkd|hk\$)$/, 'HKD'],
  [/^(nzd|nz\$)$/, 'NZD'],
  // A rand sign is one letter: read only glued to its amount's digits (`R1,169.96`), see CUR.
  [/^(zar|r)$/, 'ZAR'],
  [/^(aed)$/, 'AED'],
];
function currencyOf(tok: string | undefined): string | null {
  if (!tok) return null;
  for (const [re, code] of CURRENCY_TOKENS) if (re.test(tok)) return code;
  return null;
}

const CUR = String.raw`(?:us\$|r\$|c\$|a\$|s\$|hk\$|nz\$|€|\$|£|₹|rs\.?|inr|eur|euros?|usd|gbp|chf|pln|zł|zl|brl|mxn|cad|aud|rm|myr|kc|czk|huf|sek|nok|dkk|ron|sgd|hkd|nzd|zar|aed|r(?=\d))`;
const amountRe = (digits: string) =>
  new RegExp(
    String.raw`(?<![\p{L}\p{N}.,/-])(\()?(-\s?)?(?:(${CUR})\s?)?(-\s?)?(${digits})(?![\p{N}]|[.,/:]\p{N}|[-]\p{N})\)?(\s?%)?(?:\s?(${CUR})(?![\p{L}]|\s?-?\d))?`,
    'gu',
  );
// Indian grouping (lakh, crore) first: `96,32,000.00`, `5,16,000.00`, `1,00,000` (two-digit groups before the last three).
const LAKH = String.raw`\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?(?![\d,])`;
// (`1, 169.96` after a currency sign: OCR set a space after the thousands comma of `R1,169.96`.)
const DIGITS = String.raw`(?<=(?:\$|£|€|r|rm)\s?)\d{1,3},\s\d{3}\.\d{2}(?!\d)|${LAKH}|\d{1,3}(?:[.,'\u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,3})?`;
const AMOUNT_RE = amountRe(DIGITS);
/**
 * Where a comma is the decimal separator, a plain space also groups thousands (`1 234,56`, `33 569,50`: French,
 * Polish, Czech, Scandinavian...), but only in a number with its two decimals (`2 400` alone stays two numbers), or
 * in a whole amount of two or three digits then groups with its currency after it (`124 500 kr`, `12 000 Kč`,
 * `15 000 €`): a quantity and a price (`2 400 kr`) start with fewer digits more often than not, so one stays two.
 */
const SPACE_CURRENCY = String.raw`(?=\s?(?:kr|${CUR})(?![\p{L}]))`;
const AMOUNT_SPACE_RE = amountRe(String.raw`\d{1,3}(?: \d{3})+,\d{2}(?!\d)|\d{2,3}(?: \d{3})+(?![\d.,])${SPACE_CURRENCY}|${DIGITS}`);

/**
 * Amounts in a folded line: `4.904,94`, `1,234.56`, `1 234,56` (comma-decimal documents), `56,02 €`, `$4.11`,
 * `Rs 1939`, `-9,32`, `(12.00)`, `40,39 zł`.
 * `commaDecimal` says how to read a lone separator followed by three digits (`1.234`, `1,234`): true in most
 * European languages (thousands point), false in English.
 */
export function findAmounts(fold: string, commaDecimal: boolean, wholeUnits = false): AmountMatch[] {
  const out: AmountMatch[] = [];
  for (const m of fold.matchAll(commaDecimal ? AMOUNT_SPACE_RE : AMOUNT_RE)) {
    const [all, paren, neg1, cur1, neg2, digits, pct, cur2] = m;
    const value = parseNumber(digits, commaDecimal, wholeUnits);
    if (value === null) continue;
    const negative = !!(neg1 || neg2 || (paren && all.endsWith(')')));
    const lead = all.length - all.trimStart().length;
    out.push({
      value: negative ? -value : value,
      start: (m.index ?? 0) + lead,
      end: (m.index ?? 0) + all.trimEnd().length,
      currency: currencyOf(cur1?.trim()) ?? currencyOf(cur2?.trim()),
      decimals: /[.,]\d{1,2}$/.test(digits),
      percent: !!pct,
    });
  }
  return out;
}

/**
 * A number as written with thousands/decimal separators; null when it is not one number. `wholeUnits`: the document
 * writes its money without cents (Chilean or Colombian pesos, forints: `100,300`, `28.861`), so a lone separator
 * followed by three digits groups thousands whichever it is (not after a lone 0: `0,770 KG` is a weight).
 */
export function parseNumber(s: string, commaDecimal: boolean, wholeUnits = false): number | null {
  const t = s.replace(/[\s\u00a0\u202f']/g, '');
  if (!/^\d[\d.,]*$/.test(t)) return null;
  // Indian grouping: commas in two-digit groups before the last three, a point before the paise (`96,32,000.00`).
  if (/^\d{1,2}(,\d{2})+,\d{3}(\.\d{1,2})?$/.test(t)) return Number(t.replace(/,/g, ''));
  const lastDot = t.lastIndexOf('.');
  const lastComma = t.lastIndexOf(',');
  let intPart: string;
  let dec = '';
  if (lastDot >= 0 && lastComma >= 0) {
    const decSep = lastDot > lastComma ? '.' : ',';
    const i = Math.max(lastDot, lastComma);
    intPart = t.slice(0, i);
    dec = t.slice(i + 1);
    const thou = decSep === '.' ? ',' : '.';
    if (intPart.includes(decSep) || !new RegExp(`^\\d{1,3}(\\${thou}\\d{3})*$`).test(intPart)) return null;
    intPart = intPart.split(thou).join('');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const parts = t.split(sep);
    if (parts.length > 2) {
      if (!parts.slice(1).every((p) => p.length === 3) || parts[0].length > 3) return null;
      intPart = parts.join('');
    } else if (parts[1].length === 3) {
      // `1.234` / `1,234`: thousands unless the language writes decimals that way.
      const thousands = wholeUnits ? parts[0] !== '0' : sep === '.' ? commaDecimal : !commaDecimal;
      if (thousands && parts[0].length <= 3) intPart = parts.join('');
      else {
        intPart = parts[0];
        dec = parts[1];
      }
    } else {
      intPart = parts[0];
      dec = parts[1];
    }
  } else {
    intPart = t;
  }
  if (!/^\d+$/.test(intPart) || (dec && !/^\d+$/.test(dec))) return null;
  const v = Number(`${intPart}${dec ? `.${dec}` : ''}`);
  return Number.isFinite(v) ? v : null;
}

// ------------------------------------------------------------------ dates

const MONTHS: Record<string, number> = {};
const MONTH_NAMES: Array<[number, string]> = [
  [1, 'january jan enero ene janvier janv janeiro januar janner jaenner januari gennaio gen styczen stycznia sty ocak января январь'],
  [2, 'february feb febrero fevrier fevr fev fevereiro februar februari febbraio luty lutego lut subat февраля февраль'],
  [3, 'march mar marzo mars marco marz maerz maart mrt marzec marca mart maret mac марта март'],
  [4, 'april apr abril abr avril avr aprile kwiecien kwietnia kwi nisan апреля апрель'],
  [5, 'may mayo mai maio mei maggio mag maja mayis мая май'],
  [6, 'june jun junio juin junho juni giugno giu czerwiec czerwca cze haziran июня июнь'],
  [7, 'july jul julio juillet juil julho juli luglio lug lipiec lipca lip temmuz julai июля июль'],
  [8, 'august aug agosto ago aout augustus sierpien sierpnia sie agustos agustus ogos августа август'],
  [9, 'september sep sept septiembre setiembre septembre setembro set settembre wrzesien wrzesnia wrz eylul сентября сентябрь'],
  [10, 'october oct octubre octobre outubro out oktober okt ottobre ott pazdziernik pazdziernika paz ekim октября октябрь'],
  [11, 'november nov noviembre novembre novembro listopad listopada lis kasim ноября ноябрь'],
  [12, 'december dec diciembre dic decembre dezembro dez dezember dicembre grudzien grudnia gru aralik desember disember декабря декабрь'],
];
// Folded as the text they are matched in is (`май` is read `маи`).
for (const [n, names] of MONTH_NAMES) for (const name of names.split(' ')) MONTHS[name.normalize('NFD').replace(/\p{M}+/gu, '')] = n;
const MONTH_ALT = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|');

export interface DateMatch {
  /** ISO `YYYY-MM-DD`. */
  value: string;
  start: number;
  end: number;
  /** Day/month order had to be assumed (both parts <= 12). */
  ambiguous: boolean;
}

const ISO_RE = /(?<![\p{N}])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\p{N}])/gu;
const NUM_RE = /(?<![\p{N}.,/])(\d{1,2})\s?([-/.])\s?(\d{1,2})\s?\2\s?(\d{4}|\d{2})(?![\p{N}]|[.,]\d)/gu;
/**
 * A numeric date glued to what follows it, as OCR of a till receipt often reads it (`11/03/201806:20PM`,
 * `02/03/1805:16PM`, `17/01/201842153`): a time of day right after the year (a 4-digit year of 19xx/20xx first, else
 * 2 digits), or any digits after a 4-digit year of 19xx/20xx written with `/` (no amount is written so).
 */
const NUM_GLUED_RE = /(?<![\p{N}.,/])(\d{1,2})([-/.])(\d{1,2})\2(?:((?:19|20)\d{2}|\d{2})(?=[0-2]?\d[:.][0-5]\d(?!\d))|((?:19|20)\d{2})(?=\d)(?<=\/\d*))/gu;
const DMY_TEXT_RE = new RegExp(
  // Separators may be lost in OCR (`22Mar2018`), and a time glued to the year (`22Mar201818:24`) ends it too.
  String.raw`(?<![\p{L}\p{N}])(\d{1,2})(?:er|st|nd|rd|th|o)?\.?(?:\s*(?:de|of)\s+|[\s./-]*)(${MONTH_ALT})\.?(?:\s*(?:de|del)\s+|[\s,./-]*)(\d{4}|'?\d{2})(?:(?![\p{N}])|(?<=\d{4})(?=[0-2]?\d[:.][0-5]\d(?!\d)))`,
  'gu',
);
const MDY_TEXT_RE = new RegExp(
  String.raw`(?<![\p{L}])(${MONTH_ALT})\.?\s*(\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(\d{4})(?![\p{N}])`,
  'gu',
);

/** `2018年03月23日` (Chinese, Japanese): year, month, day. */
const CJK_RE = /(?<![\p{N}])(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日/gu;
/** `Ngày 15 tháng 03 năm 2026` (Vietnamese, folded): day, month, year. */
const VI_RE = /(?<![\p{L}])ngay\s*(\d{1,2})\s*thang\s*(\d{1,2})\s*nam\s*(\d{4})(?![\p{N}])/gu;

function isoOf(y: number, m: number, d: number): string | null {
  if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function fullYear(s: string): number {
  const t = s.replace("'", '');
  if (t.length === 4) return Number(t);
  const yy = Number(t);
  const pivot = (new Date().getUTCFullYear() % 100) + 10;
  return yy <= pivot ? 2000 + yy : 1900 + yy;
}

/**
 * Dates in a folded line. `dayFirst` decides `03/02/2021` (true: 3 February); an unambiguous date (`20/03/2023`)
 * is read whatever it says.
 */
export function findDates(fold: string, dayFirst: boolean): DateMatch[] {
  const out: DateMatch[] = [];
  const taken: Array<[number, number]> = [];
  const free = (s: number, e: number) => taken.every(([a, b]) => e <= a || s >= b);
  const add = (value: string | null, s: number, e: number, ambiguous: boolean) => {
    if (!value || !free(s, e)) return;
    taken.push([s, e]);
    out.push({ value, start: s, end: e, ambiguous });
  };
  for (const m of fold.matchAll(DMY_TEXT_RE)) {
    add(isoOf(fullYear(m[3]), MONTHS[m[2]], Number(m[1])), m.index!, m.index! + m[0].length, false);
  }
  for (const m of fold.matchAll(MDY_TEXT_RE)) {
    add(isoOf(Number(m[3]), MONTHS[m[1]], Number(m[2])), m.index!, m.index! + m[0].length, false);
  }
  for (const m of fold.matchAll(CJK_RE)) {
    add(isoOf(Number(m[1]), Number(m[2]), Number(m[3])), m.index!, m.index! + m[0].length, false);
  }
  for (const m of fold.matchAll(VI_RE)) {
    add(isoOf(Number(m[3]), Number(m[2]), Number(m[1])), m.index!, m.index! + m[0].length, false);
  }
  for (const m of fold.matchAll(ISO_RE)) {
    add(isoOf(Number(m[1]), Number(m[2]), Number(m[3])), m.index!, m.index! + m[0].length, false);
  }
  const glued = [...fold.matchAll(NUM_GLUED_RE)].map((m) => Object.assign([m[0], m[1], m[2], m[3], m[4] ?? m[5]], { index: m.index! }));
  for (const m of [...fold.matchAll(NUM_RE), ...glued]) {
    // `19-21/05/2018` (a register number then the date): a dash before a date written with `/` does not join them.
    if (m.index! > 0 && fold[m.index! - 1] === '-' && m[2] !== '/') continue;
    const a = Number(m[1]);
    const b = Number(m[3]);
    const y = fullYear(m[4]);
    // Two-digit years with dots are often versions or amounts (`1.05.14`); accept them with `/` `-` `.` alike.
    let value: string | null;
    let ambiguous = false;
    if (a > 12 && b <= 12) value = isoOf(y, b, a);
    else if (b > 12 && a <= 12) value = isoOf(y, a, b);
    else if (a <= 12 && b <= 12) {
      ambiguous = a !== b;
      value = dayFirst ? isoOf(y, b, a) : isoOf(y, a, b);
    } else value = null;
    add(value, m.index!, m.index! + m[0].length, ambiguous);
  }
  return out.sort((x, y) => x.start - y.start);
}

/**
 * A British document whose pound sign OCR lost: `GBP`, a London address, or a UK postcode (`NN6 7UZ`, `N1 6RA`:
 * outward code, a space, digit and two letters; in capitals as printed).
 */
function britishCues(lines: readonly Line[]): boolean {
  return lines.some((l) => /\b(gbp|london)\b/.test(l.fold) || /\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b/.test(l.text));
}

/**
 * Day/month order of a document: numeric dates that are unambiguous (a part > 12) decide; otherwise the language
 * (English: month first, unless the country writes day first).
 */
export function documentDayFirst(lines: readonly Line[], language: string | null, country: string | null): boolean {
  let dayFirst = 0;
  let monthFirst = 0;
  for (const l of lines) {
    for (const m of l.fold.matchAll(NUM_RE)) {
      // `S=6. 35.32`: amounts that only look like a date (dots and spaces) do not vote.
      if (m[2] === '.' && /\s/.test(m[0])) continue;
      const a = Number(m[1]);
      const b = Number(m[3]);
      if (a > 12 && b <= 12) dayFirst++;
      else if (b > 12 && a <= 12) monthFirst++;
    }
  }
  if (dayFirst !== monthFirst) return dayFirst > monthFirst;
  if (language === 'en' || language === null) {
    if (country !== null) return country !== 'USA' && country !== 'PHL';
    // No country: English writes month first in the US only; ringgit, Singapore dollars, rupees, pounds, euros, GST,
    // VAT or an ABN (Malaysia, Singapore, India, the UK and Ireland, Australia) say day first.
    const text = lines.map((l) => l.fold).join('\n');
    if (/(\brm\s?\d|\bmyr\b|\bsdn\.?\s*bhd\b|\bgst\b|\bsgd\b|\bpte\.?\s*ltd\b|₹|\binr\b|\bvat\b|\babn\b|£|€)/.test(text)) return true;
    if (britishCues(lines)) return true;
    return language === null;
  }
  return true;
}
