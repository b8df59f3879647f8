/**
 * Identifiers found in text: IBANs (mod 97), EU VAT numbers (per-country format and check digits, the EU OSS
 * `EU` + 9 digits), Spanish NIF/NIE/CIF, Portuguese NIF, Polish NIP and Italian partita IVA written without their
 * prefix after their label, Indian GSTIN, the Chinese unified social credit code and the Swiss UID (their check
 * characters), Brazilian CNPJ/CPF, Argentine CUIT, Chilean RUT, Colombian NIT, Peruvian RUC and Mexican RFC; and the
 * country a text points to. Only checksum-valid (or, for schemes
 * without one, well-formed and labelled) identifiers are returned as checked, so a random number is not taken for
 * one. A VAT-shaped token right after a tax-id label (`UID: ATU00000000`, `VAT No GB123456789`) whose check digits
 * fail or cannot be computed is returned too, marked `checked: false`: it is what the document prints (a reader
 * reports it with low confidence; a validator judges it).
 */
import { isValidIBAN } from 'ibantools';
import { checkEuVat } from '../../../validators/eu-vat.ts';
import { checkBrCnpj, checkBrCpf, checkPtNif } from '../../../validators/id-numbers.ts';
import { checkArCuit, checkClRut, checkCoNit, checkPeRuc } from '../../../validators/latam-ids.ts';
import { checkNif } from '../../../validators/nif.ts';
import type { Line } from './normalize.ts';

export interface IdMatch {
  value: string;
  kind:
    | 'iban' | 'eu_vat' | 'gb_vat' | 'es_nif' | 'pt_nif' | 'pl_nip' | 'it_piva' | 'in_gstin' | 'cn_uscc' | 'ch_uid' | 'fr_siren' | 'fr_siret'
    | 'br_cnpj' | 'br_cpf' | 'ar_cuit' | 'cl_rut' | 'co_nit' | 'pe_ruc' | 'mx_rfc' | 'jp_invoice' | 'labelled';
  /** False for a labelled, VAT-shaped token whose check digits fail or cannot be computed (absent: checked). */
  checked?: boolean;
  /** ISO alpha-3 of the issuing country. */
  country: string | null;
  start: number;
  end: number;
}

export const ISO2_TO_3: Record<string, string> = {
  AT: 'AUT', BE: 'BEL', BG: 'BGR', HR: 'HRV', CY: 'CYP', CZ: 'CZE', DK: 'DNK', EE: 'EST', FI: 'FIN', FR: 'FRA',
  DE: 'DEU', GR: 'GRC', EL: 'GRC', HU: 'HUN', IE: 'IRL', IT: 'ITA', LV: 'LVA', LT: 'LTU', LU: 'LUX', MT: 'MLT',
  NL: 'NLD', PL: 'POL', PT: 'PRT', RO: 'ROU', SK: 'SVK', SI: 'SVN', ES: 'ESP', SE: 'SWE', GB: 'GBR', XI: 'GBR',
  CH: 'CHE', NO: 'NOR', IS: 'ISL', LI: 'LIE', MC: 'MCO', SM: 'SMR', US: 'USA', IN: 'IND', BR: 'BRA', HK: 'HKG',
  AD: 'AND', GI: 'GIB', MX: 'MEX', CA: 'CAN', AU: 'AUS', CN: 'CHN',
};

const IBAN_RE = /(?<![A-Z0-9])([A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){10,30})/g;
const VAT_RE = /(?<![A-Za-z0-9])(ATU|EU|BE|BG|HR|CY|CZ|DK|EE|FI|FR|DE|EL|HU|IE|IT|LV|LT|LU|MT|NL|PL|PT|RO|SK|SI|ES|SE|XI)[ .-]?([0-9A-Z](?:[ .]?[0-9A-Z]){7,13})(?![A-Za-z0-9])/g;
const NL_BTW_RE = /(?<![\p{L}])(?:BTW|Btw|btw)(?:[- ]?(?:id|ID|nr|Nr|NR|nummer|Nummer|number|identificatienummer))?\.?\s*[:#]?\s*(\d{4}[ .]?\d{2}[ .]?\d{3}[ .]?B[ .]?\d{2})(?![A-Za-z0-9])/gu;
const ES_NIF_RE = /(?<![A-Za-z0-9])(?:ES[ -]?)?([0-9XYZ]\d{7}[ -]?[A-Z]|[ABCDEFGHJNPQRSUVW][ -]?\d{7}[ -]?[0-9A-J]|[KLM]\d{7}[A-Z])(?![A-Za-z0-9])/g;
const PT_NIF_RE = /(?:NIF|NIPC|contribuinte)[^0-9]{0,20}(?:PT)?\s?(\d{3}\s?\d{3}\s?\d{3})(?!\d)/gi;
/** British VAT numbers: GB then 9 digits (or 12, a branch), grouped `GB 123 4567 89` or not. */
const GB_VAT_RE = /(?<![A-Za-z0-9])GB[ -]?(\d{3} ?\d{4} ?\d{2}(?: ?\d{3})?)(?![\d])/g;

/** The HMRC check of a 9-digit VAT number: weights 8..2 on the first 7 digits plus the last two, mod 97 (or + 55). */
export function gbVatValid(digits: string): boolean {
  const d = digits.slice(0, 9);
  if (!/^\d{9}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += Number(d[i]) * (8 - i);
  sum += Number(d.slice(7));
  return sum % 97 === 0 || (sum + 55) % 97 === 0;
}

/** Polish NIP after its label: 10 digits, grouped `123-456-78-90` or `123-45-67-890` or not. */
const PL_NIP_RE = /(?<![\p{L}])NIP(?:\s*(?:UE|PL))?\s*[:.]?\s*(?:PL\s?)?(\d{3}[- ]?\d{3}[- ]?\d{2}[- ]?\d{2}|\d{3}-\d{2}-\d{2}-\d{3})(?![\d])/gu;
/** Italian partita IVA after its label: 11 digits. */
const IT_PIVA_RE = /(?:P\.?\s?IVA|Partita\s+IVA)\s*[:.]?\s*(?:IT\s?)?(\d{11})(?!\d)/giu;
/**
 * A tax-id label (VAT, TVA, IVA, BTW, MwSt, USt-IdNr, UID, NIF, CIF, NIP, P.IVA, GST, ABN...) followed by a
 * VAT-shaped token: two letters of a country then 7-13 digits or capitals with at least 6 digits.
 */
const LABELLED_RE =
  /(?<![\p{L}])(?:VAT|TVA|IVA|BTW|MwSt|MWST|USt|UST|UID|NIF|CIF|NIPC|NIP|GST|ABN|Tax|TAX|Steuer)(?:[-. ]{0,2}(?:IdNr|Id|ID|No|NO|Nr|NR|Number|number|Reg\w*|reg\w*|n[°º]|Nº|#))*\.?\s*[:#]?\s*([A-Z]{2}U?[ -]?[0-9A-Z]{7,13})(?![A-Za-z0-9])/gu;
/**
 * A VAT label with its own number word (`VAT Reg No`, `VAT number`, `Tax ID`, `GST No`, `ABN`) then digits only
 * (8 to 12, grouped or not): a national number printed without its country prefix (`VAT Reg No: 123 4567 89`).
 */
const LABELLED_DIGITS_RE =
  /(?<![\p{L}])(?:(?:VAT|TVA|IVA|BTW|GST|Tax|TAX)[-. ]?(?:Reg\w*\.?\s*)?(?:Id|ID|No|NO|Nr|NR|Number|number|n[°º]|Nº|#)|ABN|UID)\.?\s*[:#]?\s*(\d{2,4}(?:[ .]?\d{2,4}){2,4})(?![\d.,]|\s?%)/gu;
/**
 * Indian GSTIN: a state code, the holder's PAN (5 letters, 4 digits, a letter), the registration's number (1-9, A-Z),
 * `Z` and a check character (mod 36, weights 1 and 2 alternating, digits of the product summed in base 36). The
 * `Z` is fixed by the format, so an OCR `2` in its place is read as `Z` when the check character then passes.
 */
const GSTIN_RE = /(?<![A-Z0-9])(\d{2}[A-Z0-9]{11}[Z2][0-9A-Z])(?![A-Z0-9])/g;
const GSTIN_SHAPE = /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z][Z2][0-9A-Z]$/;
/** OCR twins: the letters a digit is read for, and the digit a letter is read for. */
const AS_LETTER: Record<string, string> = { '0': 'ODQ', '1': 'IJLT', '2': 'Z', '4': 'A', '5': 'S', '6': 'G', '7': 'T', '8': 'B' };
const AS_DIGIT: Record<string, string> = { O: '0', D: '0', Q: '0', I: '1', L: '1', J: '1', T: '7', Z: '2', A: '4', S: '5', G: '6', B: '8' };
/**
 * A GSTIN-sized token after a GST label whose characters break the format where the PAN has letters (3-7, 12) or
 * digits (8-11): each such character replaced by its OCR twins; the reading is the one candidate whose check character
 * passes (none or several: no reading), reported unchecked (a wrong twin passes by chance 1 time in 36).
 */
function gstinByFormat(raw: string): string | null {
  const options = [...raw].map((c, i) => {
    const letter = (i >= 2 && i <= 6) || i === 11;
    const digit = i >= 7 && i <= 10;
    if (i === 13) return 'Z';
    if (letter && /\d/.test(c)) return AS_LETTER[c] ?? '';
    if (digit && /[A-Z]/.test(c)) return AS_DIGIT[c] ?? '';
    return c;
  });
  if (options.some((o) => o === '')) return null;
  let candidates = [''];
  for (const o of options) {
    candidates = candidates.flatMap((p) => [...o].map((c) => p + c));
    if (candidates.length > 256) return null;
  }
  const passing = candidates.filter(gstinValid);
  return passing.length === 1 ? passing[0] : null;
}
const B36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export function gstinValid(v: string): boolean {
  if (!/^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 14; i++) {
    const p = B36.indexOf(v[i]) * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(p / 36) + (p % 36);
  }
  return B36[(36 - (sum % 36)) % 36] === v[14];
}
const SIRET_RE = /(?:SIRET|SIREN|RCS)[^0-9]{0,25}(\d{3}\s?\d{3}\s?\d{3}(?:\s?\d{5})?)(?!\d)/gi;

/** Chinese unified social credit code (GB 32100-2015): 18 characters of a 31-letter alphabet, the last a check. */
const USCC_RE = /(?<![A-Za-z0-9])([0-9A-HJ-NPQRTUWXY]{2}\d{6}[0-9A-HJ-NPQRTUWXY]{10})(?![A-Za-z0-9])/g;
const USCC_CHARS = '0123456789ABCDEFGHJKLMNPQRTUWXY';
const USCC_WEIGHTS = [1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28];
export function usccValid(v: string): boolean {
  if (v.length !== 18) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += USCC_CHARS.indexOf(v[i]) * USCC_WEIGHTS[i];
  return USCC_CHARS[(31 - (sum % 31)) % 31] === v[17];
}
/** Swiss UID (`CHE-116.281.710`, with `MWST`/`TVA`/`IVA` when VAT-registered): 9 digits, the last a mod-11 check. */
const CH_UID_RE = /(?<![A-Za-z0-9])CHE[- ]?(\d{3})[. ]?(\d{3})[. ]?(\d{3})(?!\d)/g;
/**
 * Japan's qualified-invoice registration number (適格請求書発行事業者登録番号, `登録番号 T1234567890123`): `T` then 13
 * digits, which a company's corporate number gives (its first digit checks the other twelve).
 */
const JP_INVOICE_RE = /(?<![A-Za-z0-9])T[ -]?(\d(?:[ -]?\d){12})(?![\d])/g;

/** A Japanese corporate number's check digit (its first): 9 - the weighted sum of the other twelve (1, 2, 1, 2... from the right) mod 9. */
export function jpCorporateValid(d: string): boolean {
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let n = 1; n <= 12; n++) sum += Number(d[13 - n]) * (n % 2 === 1 ? 1 : 2);
  return Number(d[0]) === 9 - (sum % 9);
}

export function chUidValid(d: string): boolean {
  const w = [5, 4, 3, 2, 7, 6, 5, 4];
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(d[i]) * w[i];
  const check = (11 - (sum % 11)) % 11;
  return check !== 10 && check === Number(d[8]);
}

/**
 * Latin American tax ids (validators/latam-ids.ts, id-numbers.ts): printed with their own mask (`12.345.678/0001-95`,
 * `123.456.789-09`, `20-12345678-6`, `12.345.678-5`) anywhere, or as bare digits right after their label (`CNPJ`,
 * `CPF`, `CUIT`, `RUT`, `NIT`, `RUC`, `RFC`, in any case, dotted or not). Each is returned only when its check digits pass, but for a NIT printed
 * without its check digit and a Mexican RFC (its check character is not verified here): those are returned after
 * their label as unchecked.
 */
const LATAM: Array<{ re: RegExp; kind: IdMatch['kind']; country: string; check: ((v: string) => { valid: boolean; normalized: string }) | null }> = [
  { re: /(?<![A-Za-z0-9])([0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}\/[0-9A-Z]{4}-\d{2})(?![A-Za-z0-9])/g, kind: 'br_cnpj', country: 'BRA', check: checkBrCnpj },
  { re: /(?<![\p{L}])C\.?N\.?P\.?J\.?(?:\/MF)?\s*(?:n[°º.o]\s*)?[:.]?\s*([0-9A-Z]{12}\d{2}|\d{2}\.?\d{3}\.?\d{3}\/?\d{4}-?\d{2})(?![A-Za-z0-9])/giu, kind: 'br_cnpj', country: 'BRA', check: checkBrCnpj },
  { re: /(?<![\d.])(\d{3}\.\d{3}\.\d{3}-\d{2})(?![\d.-])/g, kind: 'br_cpf', country: 'BRA', check: checkBrCpf },
  { re: /(?<![\p{L}])C\.?P\.?F\.?\s*(?:n[°º.o]\s*)?[:.]?\s*(\d{11}|\d{3}\.?\d{3}\.?\d{3}-?\d{2})(?![\d])/giu, kind: 'br_cpf', country: 'BRA', check: checkBrCpf },
  { re: /(?<![\d-])((?:20|23|24|27|30|33|34)-\d{8}-\d)(?![\d-])/g, kind: 'ar_cuit', country: 'ARG', check: checkArCuit },
  { re: /(?<![\p{L}])CUI[TL]\s*(?:n[°º.o]\s*)?[:.]?\s*(\d{2}[- ]?\d{8}[- ]?\d)(?![\d])/giu, kind: 'ar_cuit', country: 'ARG', check: checkArCuit },
  { re: /(?<![\d.])(\d{1,2}\.\d{3}\.\d{3}-[\dkK])(?![\dA-Za-z])/g, kind: 'cl_rut', country: 'CHL', check: checkClRut },
  { re: /(?<![\p{L}])R\.?U\.?[TN]\.?\s*(?:n[°º.o]\s*)?[:.]?\s*(\d{1,2}\.?\d{3}\.?\d{3}\s?-\s?[\dkK])(?![\dA-Za-z])/giu, kind: 'cl_rut', country: 'CHL', check: checkClRut },
  { re: /(?<![\p{L}])NIT\.?\s*(?:n[°º.o]\s*)?[:.]?\s*(\d{3}\.?\d{3}\.?\d{3,4}\s?-\s?\d)(?![\d])/giu, kind: 'co_nit', country: 'COL', check: checkCoNit },
  { re: /(?<![\p{L}])NIT\.?\s*(?:n[°º.o]\s*)?[:.]?\s*(\d{3}\.?\d{3}\.?\d{3,4})(?![\d.-])/giu, kind: 'co_nit', country: 'COL', check: null },
  { re: /(?<![\p{L}])R\.?U\.?C\.?\s*(?:n[°º.o]\s*)?[:.]?\s*((?:10|15|16|17|20)\d{9})(?![\d])/giu, kind: 'pe_ruc', country: 'PER', check: checkPeRuc },
  { re: /(?<![\p{L}])R\.?F\.?C\.?\s*[:.]?\s*([A-ZÑ&]{3,4}-?\d{6}-?[A-Z0-9]{3})(?![A-Za-z0-9])/giu, kind: 'mx_rfc', country: 'MEX', check: null },
];

function luhn(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let n = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  return sum % 10 === 0;
}

/** Valid IBANs of a line (spaces removed), trailing characters that break the checksum trimmed. */
export function findIbans(text: string): IdMatch[] {
  const out: IdMatch[] = [];
  for (const m of text.matchAll(IBAN_RE)) {
    const raw = m[1];
    // Try the longest prefix (at group boundaries) that is a valid IBAN.
    for (let end = raw.length; end >= 14; end--) {
      const candidate = raw.slice(0, end).replace(/ /g, '');
      if (candidate.length >= 15 && candidate.length <= 34 && isValidIBAN(candidate)) {
        out.push({ value: candidate, kind: 'iban', country: ISO2_TO_3[candidate.slice(0, 2)] ?? null, start: m.index!, end: m.index! + end });
        break;
      }
    }
  }
  return out;
}

/** Tax identifiers of a line (raw text), each checksum-valid. */
export function findTaxIds(text: string): IdMatch[] {
  const out: IdMatch[] = [];
  const taken = (s: number, e: number) => out.some((o) => s < o.end && e > o.start);
  for (const m of text.matchAll(VAT_RE)) {
    // The pattern takes spaced groups greedily, so a word printed after the id (`DE 232 446 240 SWIFT ...` in a
    // footer's columns) joins it: the longest prefix that ends at a space or point and passes the checksum is the id.
    let body = m[2];
    let r = checkEuVat(`${m[1]}${body}`);
    while (!r.valid) {
      const cut = Math.max(body.lastIndexOf(' '), body.lastIndexOf('.'));
      if (cut < 7) break;
      body = body.slice(0, cut);
      r = checkEuVat(`${m[1]}${body}`);
    }
    if (!r.valid) continue;
    const cc = m[1] === 'ATU' ? 'AT' : m[1];
    out.push({ value: r.normalized, kind: 'eu_vat', country: ISO2_TO_3[cc] ?? null, start: m.index!, end: m.index! + m[0].length - (m[2].length - body.length) });
  }
  // A Dutch VAT id printed without its country code after its label (`BTW-nr: 8199.90.966.B01`, `Btw nummer
  // 123456789B01`): nine digits, `B`, two digits; the `NL` is the label's country.
  for (const m of text.matchAll(NL_BTW_RE)) {
    const s = m.index! + m[0].length - m[1].length;
    if (taken(s, s + m[1].length)) continue;
    const r = checkEuVat(`NL${m[1].replace(/[ .]/g, '')}`);
    if (r.valid) out.push({ value: r.normalized, kind: 'eu_vat', country: 'NLD', start: s, end: s + m[1].length });
  }
  for (const m of text.matchAll(ES_NIF_RE)) {
    const s = m.index!;
    const e = s + m[0].length;
    if (taken(s, e)) continue;
    const r = checkNif(m[1].replace(/[ -]/g, ''));
    if (r.valid) out.push({ value: r.normalized, kind: 'es_nif', country: 'ESP', start: s, end: e });
  }
  for (const m of text.matchAll(PT_NIF_RE)) {
    const digits = m[1].replace(/\s/g, '');
    const s = m.index! + m[0].length - m[1].length;
    if (taken(s, s + m[1].length)) continue;
    if (checkPtNif(digits).valid) out.push({ value: digits, kind: 'pt_nif', country: 'PRT', start: s, end: s + m[1].length });
  }
  for (const m of text.matchAll(PL_NIP_RE)) {
    const s = m.index! + m[0].length - m[1].length;
    if (taken(s, s + m[1].length)) continue;
    const digits = m[1].replace(/\D/g, '');
    if (checkEuVat(`PL${digits}`).valid) out.push({ value: digits, kind: 'pl_nip', country: 'POL', start: s, end: s + m[1].length });
  }
  for (const m of text.matchAll(IT_PIVA_RE)) {
    const s = m.index! + m[0].length - m[1].length;
    if (taken(s, s + m[1].length)) continue;
    if (checkEuVat(`IT${m[1]}`).valid) out.push({ value: m[1], kind: 'it_piva', country: 'ITA', start: s, end: s + m[1].length });
  }
  for (const m of text.matchAll(GB_VAT_RE)) {
    const digits = m[1].replace(/\D/g, '');
    const start = m.index!;
    const end = m.index! + m[0].length;
    if (taken(start, end) || !gbVatValid(digits)) continue;
    out.push({ value: `GB${digits}`, kind: 'gb_vat', country: 'GBR', start, end });
  }
  for (const m of text.matchAll(USCC_RE)) {
    const s = m.index!;
    // The registering authority (1-9, A, N, Y) and the kind of entity (1, 2, 3, 9) come first.
    if (!taken(s, s + m[0].length) && /^[1-9ANY][1239]/.test(m[1]) && usccValid(m[1])) {
      out.push({ value: m[1], kind: 'cn_uscc', country: 'CHN', start: s, end: s + m[0].length });
    }
  }
  for (const m of text.matchAll(CH_UID_RE)) {
    const digits = `${m[1]}${m[2]}${m[3]}`;
    const s = m.index!;
    if (!taken(s, s + m[0].length) && chUidValid(digits)) out.push({ value: `CHE${digits}`, kind: 'ch_uid', country: 'CHE', start: s, end: s + m[0].length });
  }
  for (const { re, kind, country, check } of LATAM) {
    for (const m of text.matchAll(re)) {
      const s = m.index! + m[0].length - m[1].length;
      const e = s + m[1].length;
      if (taken(s, e)) continue;
      const value = m[1].toUpperCase().replace(/[\s.\-/]/g, '');
      if (!check) out.push({ value, kind, country, start: s, end: e, checked: false });
      else if (check(value).valid) out.push({ value, kind, country, start: s, end: e });
    }
  }
  for (const m of text.matchAll(LABELLED_DIGITS_RE)) {
    const s = m.index! + m[0].length - m[1].length;
    const value = m[1].replace(/[ .]/g, '');
    if (taken(s, s + m[1].length) || value.length < 8 || value.length > 12) continue;
    out.push({ value, kind: 'labelled', country: null, start: s, end: s + m[1].length, checked: false });
  }
  for (const m of text.matchAll(LABELLED_RE)) {
    const s = m.index! + m[0].length - m[1].length;
    const value = m[1].replace(/[ -]/g, '');
    if (taken(s, s + m[1].length) || !(value.slice(0, 2) in ISO2_TO_3) || (value.match(/\d/g) ?? []).length < 6) continue;
    out.push({ value, kind: 'labelled', country: ISO2_TO_3[value.slice(0, 2)] ?? null, start: s, end: s + m[1].length, checked: false });
  }
  for (const m of text.matchAll(GSTIN_RE)) {
    if (taken(m.index!, m.index! + m[0].length)) continue;
    if (!GSTIN_SHAPE.test(m[1])) {
      // Out of shape: only after a GST label (`GSTIN`, `GST No`, OCR's `GSHIN`), and only as the format decides.
      const fixed = /(GST|G[A-Z]{1,2}IN)/i.test(text.slice(Math.max(0, m.index! - 24), m.index!)) ? gstinByFormat(m[1]) : null;
      // Unchecked all the same: among several twins one wrong candidate passes the check by chance (1 in 36 each).
      if (fixed) out.push({ value: fixed, kind: 'in_gstin', country: 'IND', start: m.index!, end: m.index! + m[0].length, checked: false });
      continue;
    }
    const value = `${m[1].slice(0, 13)}Z${m[1][14]}`;
    const valid = gstinValid(value);
    // A printed `Z` whose check character fails is still the GSTIN the page shows (unchecked); a `2` must pass.
    if (!valid && m[1][13] !== 'Z') continue;
    out.push({ value, kind: 'in_gstin', country: 'IND', start: m.index!, end: m.index! + m[0].length, ...(valid ? {} : { checked: false }) });
  }
  for (const m of text.matchAll(JP_INVOICE_RE)) {
    const digits = m[1].replace(/[ -]/g, '');
    const s = m.index!;
    if (taken(s, s + m[0].length)) continue;
    // A company's number carries its check digit first; a sole trader's is assigned without one: unchecked then, and
    // only after its label (登録番号, `Registration No.`), any `T` and 13 digits being no such number by itself.
    const valid = jpCorporateValid(digits);
    if (!valid && !/登録番号|registration/i.test(text.slice(0, s))) continue;
    out.push({ value: `T${digits}`, kind: 'jp_invoice', country: 'JPN', start: s, end: s + m[0].length, ...(valid ? {} : { checked: false }) });
  }
  for (const m of text.matchAll(SIRET_RE)) {
    const digits = m[1].replace(/\s/g, '');
    const s = m.index! + m[0].length - m[1].length;
    if (!luhn(digits) || taken(s, s + m[1].length)) continue;
    out.push({ value: digits, kind: digits.length === 14 ? 'fr_siret' : 'fr_siren', country: 'FRA', start: s, end: s + m[1].length });
  }
  return out.sort((a, b) => a.start - b.start);
}

const COUNTRY_WORDS: Array<[RegExp, string, number, string | null]> = [
  // [folded-text pattern, country, weight, required language or null]
  [/\b(siret|siren|rcs|tva intracom\w*|n° de tva|numero de tva)\b/, 'FRA', 2, null],
  [/\b(nif|cif)\b/, 'ESP', 1, 'es'],
  [/\b(iva|base imponible|factura)\b/, 'ESP', 1, 'es'],
  [/\b(nif|nipc|contribuinte)\b/, 'PRT', 2, 'pt'],
  [/\b(kvk|btw-nummer|btw nummer)\b/, 'NLD', 2, null],
  [/\b(ust-idnr|ust\.-idnr|steuernummer|finanzamt|umsatzsteuer)\b/, 'DEU', 2, null],
  [/\b(partita iva|codice fiscale|p\.iva)\b/, 'ITA', 2, null],
  [/\b(cnpj|cpf)\b/, 'BRA', 2, 'pt'],
  [/\b(gstin|pan no)\b/, 'IND', 2, null],
];

/**
 * The country a text points to (ISO alpha-3), or null: checksum-valid national tax ids and VAT numbers, IBANs and
 * a few legal words vote; the winner needs a clear lead.
 */
export function detectCountry(lines: readonly Line[], language: string | null): string | null {
  const votes = new Map<string, number>();
  const vote = (c: string | null, w: number) => {
    if (c) votes.set(c, (votes.get(c) ?? 0) + w);
  };
  const seen = new Set<string>();
  for (const l of lines) {
    for (const id of findTaxIds(l.text)) {
      if (seen.has(id.value) || id.checked === false) continue;
      seen.add(id.value);
      vote(id.country, id.kind === 'eu_vat' ? 2 : 3);
    }
    for (const iban of findIbans(l.text)) {
      if (seen.has(iban.value)) continue;
      seen.add(iban.value);
      vote(iban.country, 1.5);
    }
  }
  const fold = lines.map((l) => l.fold).join('\n');
  for (const [re, c, w, lang] of COUNTRY_WORDS) {
    if ((lang === null || lang === language) && re.test(fold)) vote(c, w);
  }
  const ranked = [...votes.entries()].sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0 || ranked[0][1] < 2) return null;
  if (ranked.length > 1 && ranked[0][1] < ranked[1][1] * 1.5) return null;
  return ranked[0][0];
}
