/**
 * The printed face of identity documents without a zone or barcode (issue #28): which catalogue type the OCR text
 * is (a US state's driver licence or id, the green card, the US passport card, a national identity card...), its
 * country and US state, and the printed fields by label-value layout over the OCR words and their boxes.
 *
 * Classification: a document *kind* from title words (the catalogue's own keywords of the identity, driving and
 * residence types, plus the printed titles of cards: "DRIVER LICENSE", "PERMANENT RESIDENT", "PASSPORT CARD",
 * "CARTE NATIONALE D'IDENTITÉ"...), a *country* from country names (ICAO list), nationality codes and, for the US,
 * state names, `CITY, ST 12345` lines checked against the ZIP prefix of the state, and the card's abbreviated labels
 * (DOB, EXP, ISS, DLN, CLASS...); then the catalogue's type of that kind for that country, or the universal one.
 * Confidence is a level of evidence, measured on the tune files and the ID specimens (bench/results/id-fronts.md).
 *
 * Fields: labels (multilingual, with the usual OCR confusions) give columns; a value is the text right of its label
 * on the same line, or the words of the next lines below inside the label's column; a value is never a label.
 * Where labels are unreadable (US cards print tiny abbreviations), positions decide with less confidence: the
 * earliest date is the birth, the latest the expiry; the number high on the card; the name lines above the street.
 * Dates follow the country's order (US: month first). Every field carries the box of its words and their OCR
 * confidence.
 */
import { states as ICAO_STATES } from 'mrz';
import { allEntries, type CatalogueEntry } from '../../../catalogue/index.ts';
import type { ReadField } from '../../types.ts';
import type { Box, TextLine } from '../types.ts';
import { GB_DRIVER_NUMBER, LABELS, NUMBERED_EU, NUMBERED_KEYS, NUMBERED_LABEL, NUMBERED_US, sexValue, TITLES, US_NAME_KEYS, type Kind } from './id-front-vocabulary.ts';
import { findDates, foldKeep, foldPhrase, prepareLines, union, type Line, type Word } from './normalize.ts';

// ------------------------------------------------------------------ US states

/** USPS abbreviation, name, and the 3-digit ZIP prefixes of the state (ranges, inclusive). */
const US_STATES: Array<[string, string, Array<[number, number]>]> = [
  ['AL', 'Alabama', [[350, 369]]], ['AK', 'Alaska', [[995, 999]]], ['AZ', 'Arizona', [[850, 865]]],
  ['AR', 'Arkansas', [[716, 729]]], ['CA', 'California', [[900, 961]]], ['CO', 'Colorado', [[800, 816]]],
  ['CT', 'Connecticut', [[60, 69]]], ['DE', 'Delaware', [[197, 199]]], ['DC', 'District of Columbia', [[200, 200], [202, 205]]],
  ['FL', 'Florida', [[320, 349]]], ['GA', 'Georgia', [[300, 319], [398, 399]]], ['HI', 'Hawaii', [[967, 968]]],
  ['ID', 'Idaho', [[832, 838]]], ['IL', 'Illinois', [[600, 629]]], ['IN', 'Indiana', [[460, 479]]],
  ['IA', 'Iowa', [[500, 528]]], ['KS', 'Kansas', [[660, 679]]], ['KY', 'Kentucky', [[400, 427]]],
  ['LA', 'Louisiana', [[700, 715]]], ['ME', 'Maine', [[39, 49]]], ['MD', 'Maryland', [[206, 219]]],
  ['MA', 'Massachusetts', [[10, 27], [55, 55]]], ['MI', 'Michigan', [[480, 499]]], ['MN', 'Minnesota', [[550, 567]]],
  ['MS', 'Mississippi', [[386, 397]]], ['MO', 'Missouri', [[630, 658]]], ['MT', 'Montana', [[590, 599]]],
  ['NE', 'Nebraska', [[680, 693]]], ['NV', 'Nevada', [[889, 898]]], ['NH', 'New Hampshire', [[30, 38]]],
  ['NJ', 'New Jersey', [[70, 89]]], ['NM', 'New Mexico', [[870, 884]]], ['NY', 'New York', [[100, 149], [5, 5]]],
  ['NC', 'North Carolina', [[270, 289]]], ['ND', 'North Dakota', [[580, 588]]], ['OH', 'Ohio', [[430, 459]]],
  ['OK', 'Oklahoma', [[730, 749]]], ['OR', 'Oregon', [[970, 979]]], ['PA', 'Pennsylvania', [[150, 196]]],
  ['RI', 'Rhode Island', [[28, 29]]], ['SC', 'South Carolina', [[290, 299]]], ['SD', 'South Dakota', [[570, 577]]],
  ['TN', 'Tennessee', [[370, 385]]], ['TX', 'Texas', [[750, 799], [885, 885]]], ['UT', 'Utah', [[840, 847]]],
  ['VT', 'Vermont', [[50, 54], [56, 59]]], ['VA', 'Virginia', [[201, 201], [220, 246]]], ['WA', 'Washington', [[980, 994]]],
  ['WV', 'West Virginia', [[247, 268]]], ['WI', 'Wisconsin', [[530, 549]]], ['WY', 'Wyoming', [[820, 831]]],
  ['PR', 'Puerto Rico', [[6, 9]]], ['GU', 'Guam', [[969, 969]]],
];
const STATE_ABBRS = new Set(US_STATES.map((s) => s[0]));

/** The state whose ZIP prefixes hold this ZIP code. */
export function stateOfZip(zip: string): string | null {
  const p = Number(zip.slice(0, 3));
  return US_STATES.find(([, , ranges]) => ranges.some(([a, b]) => p >= a && p <= b))?.[0] ?? null;
}

const oneEditApart = (a: string, b: string) => a.length === b.length && [...a].filter((c, i) => c !== b[i]).length <= 1;

/**
 * A `CITY, ST 12345` line: the state as printed when it is one and its ZIP agrees, else the ZIP's state when the
 * printed two letters are one character off it (`TH 37210` is TN); null when neither holds.
 */
function cityLine(l: Line): { city: string; cityAt: number; printed: string; state: string; zip: string; stateAt: number } | null {
  // The comma after the city may be read as a dot (`DENVER. CO 80221`).
  const m = /([A-Z][A-Za-z .'-]*[A-Za-z])[,.]?\s+([A-Z]{2})\.?\s+(\d{5}(?:-\d{4})?)\b/.exec(l.text);
  if (!m) return null;
  const zipState = stateOfZip(m[3]);
  const state = STATE_ABBRS.has(m[2]) && (!zipState || zipState === m[2]) ? m[2] : zipState && oneEditApart(zipState, m[2]) ? zipState : null;
  if (!state) return null;
  return { city: m[1].trim(), cityAt: m.index, printed: m[2], state, zip: m[3], stateAt: m.index + m[0].indexOf(` ${m[2]}`) + 1 };
}

// ------------------------------------------------------------------ kinds

/** Catalogue categories of each kind and which of the country's types are that kind (by the type's own name). */
const KIND_TYPES: Record<Kind, { category: string; type: RegExp; universal: string }> = {
  driving: { category: 'driving', type: /driv|_cnh$/, universal: 'driving_license' },
  state_id: { category: 'identity', type: /^us_state_id$/, universal: 'national_id_card' },
  passport_card: { category: 'identity', type: /passport_card$/, universal: 'passport' },
  permanent_resident: { category: 'residence', type: /permanent_resident/, universal: 'residence_permit' },
  id_card: { category: 'identity', type: /(_id_card|_cni|_cie|_dni|_citizen_card|_cin)$/, universal: 'national_id_card' },
  residence: { category: 'residence', type: /(residence_permit|_tie)$/, universal: 'residence_permit' },
};

let KEYWORDS: Map<Kind, string[]> | null = null;
/** Multi-word keywords of the catalogue's types of each kind (single words are too loose on a noisy card). */
function catalogueKeywords(): Map<Kind, string[]> {
  if (KEYWORDS) return KEYWORDS;
  KEYWORDS = new Map();
  for (const kind of Object.keys(KIND_TYPES) as Kind[]) {
    const k = KIND_TYPES[kind];
    const words = allEntries()
      .filter((e) => e.category === k.category && (k.type.test(e.type) || e.type === k.universal))
      .flatMap((e) => e.keywords.map((w) => foldPhrase(w)))
      .filter((w) => w.split(' ').length >= 2 && !/\b(i-9|list|mrz|eu id|aamva|pdf417|real id)\b/.test(w));
    KEYWORDS.set(kind, [...new Set(words)]);
  }
  return KEYWORDS;
}

// ------------------------------------------------------------------ country

/** Folded country names (ICAO's English ones and Intl's in six languages): exact names and adjective stems. */
let COUNTRY_NAMES: { exact: Map<string, string>; stems: Map<string, string> } | null = null;
/** Former or long English names of states, still printed on their cards (folded). */
const FORMER_NAMES: Record<string, string> = { 'czech republic': 'CZE', 'slovak republic': 'SVK' };
function countryNames(): { exact: Map<string, string>; stems: Map<string, string> } {
  if (COUNTRY_NAMES) return COUNTRY_NAMES;
  const exact = new Map<string, string>();
  const stems = new Map<string, string>();
  const display = ['en', 'fr', 'es', 'pt', 'de', 'it'].map((l) => new Intl.DisplayNames([l], { type: 'region' }));
  const alpha2 = alpha2Of();
  for (const [code, name] of Object.entries(ICAO_STATES as Record<string, string>)) {
    if (!/^[A-Z]{3}$/.test(code) || code === 'USA' || code === 'UMI') continue;
    const names = new Set<string>([foldPhrase(name.replace(/\(.*?\)/g, ''))]);
    const a2 = alpha2.get(code);
    if (a2) for (const d of display) names.add(foldPhrase(d.of(a2) ?? ''));
    for (const n of names) {
      if (n.length < 4) continue;
      if (!exact.has(n)) exact.set(n, code);
      // Its adjective (Albania -> albanian, France -> française): the name less its last letter, then letters.
      if (n.length >= 6 && !stems.has(n.slice(0, -1))) stems.set(n.slice(0, -1), code);
    }
  }
  // Names the cards still print that ICAO's list and Intl have since replaced (`CZECH REPUBLIC` for Czechia).
  for (const [n, code] of Object.entries(FORMER_NAMES)) if (!exact.has(n)) exact.set(n, code);
  return (COUNTRY_NAMES = { exact, stems });
}

/** The first country named in folded words (a name of up to 4 words, or an adjective of one). */
function namedCountry(words: string[]): string | null {
  const { exact, stems } = countryNames();
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= 4 && i + n <= words.length; n++) {
      const p = words.slice(i, i + n).join(' ');
      const hit = exact.get(p);
      if (hit) return hit;
      for (let cut = p.length - 1; cut >= Math.max(5, p.length - 5); cut--) {
        const s = stems.get(p.slice(0, cut));
        if (s) return s;
      }
    }
  }
  // A title read with its spaces lost (`BUNDESREPUBLIKDEUTSCHLAND`, `FEDERALREPUBLICOFGERMANY`): a long word that
  // holds a country's name of 7 letters or more.
  for (const w of words) {
    if (w.length < 12 || !/^\p{L}+$/u.test(w)) continue;
    for (const [name, code] of exact) if (name.length >= 7 && !name.includes(' ') && w.includes(name)) return code;
  }
  return null;
}

/** ISO alpha-2 of each ICAO alpha-3 code, through Intl (the region names of both must agree). */
function alpha2Of(): Map<string, string> {
  const en = new Intl.DisplayNames(['en'], { type: 'region' });
  const map = new Map<string, string>();
  const states = Object.entries(ICAO_STATES as Record<string, string>)
    .filter(([c]) => /^[A-Z]{3}$/.test(c))
    .map(([c, n]) => ({ c, short: foldPhrase(n.replace(/\(.*?\)/g, '')), full: foldPhrase(n) }));
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const a2 = String.fromCharCode(a, b);
      const name = en.of(a2);
      if (!name || name === a2) continue;
      const f = foldPhrase(name);
      const hit = states.find((s) => s.c[0] === a2[0] && (s.short === f || s.full.startsWith(f)));
      if (hit) map.set(hit.c, a2);
    }
  }
  return map;
}

// ------------------------------------------------------------------ classification

/** More lines than this (both sides of a card, generously) is no ID card's face. */
const MAX_CARD_LINES = 200;
/** Words of a card's title or header, never a name. */
const CARD_TITLE_WORD = /^(usa|driver'?s?|licen[cs]e|identification|card|id|state|commercial|operator|permit|learner'?s?|class|real|federal|limits|apply)$/i;

export interface IdFrontClassification {
  type: string;
  confidence: number;
  country: string | null;
  /** US state (USPS abbreviation), when the card is a US state's. */
  region: { value: string; confidence: number; bbox: Box; page: number } | null;
  kind: Kind;
  candidates: Array<{ type: string; confidence: number }>;
}

/** Abbreviated labels of US cards (AAMVA's card design): several of them make a US licence or id likely. */
const US_LABELS = /^(dob|exp|expires|iss|issued|dln|dl|class|end|endorsements?|res|rest|restr|restrictions?|hgt|hair|eyes|wgt|sex|dd|donor|veteran|ln|fn)$/;

interface Evidence {
  kind: Kind | null;
  /** 1: a printed title of the kind; 0.5: a catalogue keyword only. */
  kindStrength: number;
  country: string | null;
  /** 1: named (country or state name, republic); 0.7: an address with a state and its ZIP; 0.4: weak cues. */
  countryStrength: number;
  /** Distinct abbreviated labels of a US card seen (DOB, EXP, CLASS...). */
  usLabels: number;
  region: IdFrontClassification['region'];
}

/** Both `4a` and `4b` (numbered labels, `4a.`, `4a)`) each followed by a date, as on a licence of the EU model. */
function licenceDates(lines: Line[]): boolean {
  const seen = new Set<string>();
  for (const l of lines) {
    for (const [i, w] of l.words.entries()) {
      const m = /^4([ab])[.:)]?$/i.exec(w.text);
      const next = l.words[i + 1]?.text ?? '';
      if (m && (parseDate(next, false, true) || parseDate(next, true, true))) seen.add(m[1].toLowerCase());
    }
  }
  return seen.size === 2;
}

function gatherEvidence(lines: Line[]): Evidence {
  const all = foldPhrase(lines.map((l) => l.text).join(' '));
  // Kind: the earliest printed title (a card names itself near its top), else catalogue keywords.
  let kind: Kind | null = null;
  let kindStrength = 0;
  let at = Infinity;
  for (const k of Object.keys(TITLES) as Kind[]) {
    const m = TITLES[k].exec(all);
    if (m && m.index < at) [kind, kindStrength, at] = [k, 1, m.index];
  }
  // "passport card" and "permanent resident" beat the generic "identification card" words around them.
  for (const k of ['passport_card', 'permanent_resident'] as Kind[]) if (TITLES[k].test(all)) [kind, kindStrength] = [k, 1];
  if (!kind) {
    for (const [k, words] of catalogueKeywords()) {
      if (words.some((w) => new RegExp(`(?<!\\p{L})${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\p{L})`, 'u').test(all))) {
        kind = k;
        kindStrength = 0.5;
        break;
      }
    }
  }
  // No title read (a script the OCR does not know: `ВОДИТЕЛЬСКОЕ УДОСТОВЕРЕНИЕ`): the numbered dates of a licence's
  // model, `4a` (issue) and `4b` (expiry) each before a date, say a driving licence as a keyword would.
  if (!kind && licenceDates(lines)) [kind, kindStrength] = ['driving', 0.5];

  // Country: the US by its states, its address lines, its labels; others by their names and codes.
  let region: Evidence['region'] = null;
  let usScore = 0;
  for (const l of lines) {
    const c = cityLine(l);
    if (!c) continue;
    const ws = l.words.filter((w) => w.end > c.stateAt && w.start < c.stateAt + 2);
    const conf = c.state === c.printed ? Math.min(...ws.map((w) => w.confidence)) : 0.5;
    region = { value: c.state, confidence: round(conf * 0.9), bbox: union(ws.map((w) => w.bbox)), page: l.page };
    usScore = Math.max(usScore, 0.7);
  }
  const folded = lines.map((l) => ` ${foldPhrase(l.text).replace(/[^\p{L} ]+/gu, ' ').replace(/\s+/g, ' ')} `);
  for (const [abbr, name] of US_STATES) {
    const key = ` ${foldPhrase(name)} `;
    const re = { test: (t: string) => ` ${t} `.includes(key) };
    const line = lines.find((_, i) => folded[i].includes(key));
    if (!line) continue;
    if (name === 'Washington' && region && region.value !== 'WA') continue; // a city too
    if (!region || region.value === abbr || line.bbox[1] < 0.3) {
      const ws = line.words.filter((w) => re.test(foldPhrase(w.text)) || foldPhrase(name).includes(foldPhrase(w.text)));
      region = { value: abbr, confidence: round(Math.min(...ws.map((w) => w.confidence), 1) * 0.95), bbox: union((ws.length ? ws : line.words).map((w) => w.bbox)), page: line.page };
      usScore = 1;
      break;
    }
  }
  if (/\bunited ?states( ?of ?america)?/.test(all)) usScore = 1;
  else if (/\busa\b/.test(all)) usScore = Math.max(usScore, 0.9);
  // AAMVA's field number read glued to its label (`4dDLN`, `4aISS`, `4bEXP`, `15SEX`) is cut first: `ddln` is no label.
  const usLabels = new Set(lines.flatMap((l) => l.words.map((w) => foldPhrase(w.text).replace(/^\d{1,2}[a-d]?(?=[a-z]{2})/, '').replace(/[^a-z]/g, '')).filter((w) => US_LABELS.test(w))));
  if (usLabels.size >= 3) usScore = Math.max(usScore, 0.4);

  let other: { code: string; strength: number } | null = null;
  const named = namedCountry(all.replace(/[^\p{L}'-]+/gu, ' ').split(' ').filter(Boolean));
  if (named) other = { code: named, strength: 1 };
  if (!other) {
    // A nationality or issuing-state code printed in capitals: a word of its own, read with some confidence (never
    // three capitals out of a word of other letters, as the OCR makes of a script it does not know), not a word of a
    // sentence in capitals (`ES UNA REPRESENTACIÓN`, `TERMS AND CONDITIONS`: capital words on both sides), and a
    // state's code (not the United Nations' UNO/UNA/UNK nor the X codes of stateless persons and refugees).
    // A neighbour counts only in the code's own cell: a row of cells (`NATIONALITY  FRA  SEX`) is no sentence.
    const inSentence = (l: Line, i: number) => {
      const cell = l.cells.find((c) => i >= c.from && i < c.to);
      const capital = (j: number) => !!cell && j >= cell.from && j < cell.to && /^\p{Lu}{2,}$/u.test(l.words[j].text);
      return capital(i - 1) && capital(i + 1);
    };
    const codes = lines
      .flatMap((l) => l.words.filter((w, i) => /^[^\p{L}]*[A-Z]{3}[^\p{L}]*$/u.test(w.text) && w.confidence >= 0.5 && !inSentence(l, i)).map((w) => w.text.replace(/[^A-Z]/g, '')))
      .filter((c) => c !== 'USA' && !/^(UN[AOK]|X[A-Z]{2})$/.test(c) && c in (ICAO_STATES as object));
    if (codes.length > 0) other = { code: codes[0], strength: 0.5 };
  }
  if (usScore > 0 && usScore >= (other?.strength ?? 0)) return { kind, kindStrength, country: 'USA', countryStrength: usScore, region, usLabels: usLabels.size };
  if (other) return { kind, kindStrength, country: other.code, countryStrength: other.strength, region: null, usLabels: usLabels.size };
  return { kind, kindStrength, country: null, countryStrength: 0, region: null, usLabels: usLabels.size };
}

/** The catalogue type of a kind for a country: the country's own type of that kind, else the universal one. */
function typeFor(kind: Kind, country: string | null): string {
  const k = KIND_TYPES[kind];
  if (country) {
    const own = allEntries().find((e) => e.category === k.category && e.countries.includes(country) && k.type.test(e.type) && !/_old$|_back$|_front$/.test(e.type));
    if (own) return own.type;
  }
  if (kind === 'state_id' && country !== 'USA') return KIND_TYPES.id_card.universal;
  return k.universal;
}

/**
 * Classifies the printed face of an identity document from its OCR lines; null when the text names no kind of
 * identity document and shows no US card labels. Confidence levels (bench/results/id-fronts.md): a title and a
 * named country 0.9; a title and a country from an address or codes 0.8; a title alone 0.6 (universal type);
 * a US card's labels without a title 0.45.
 */
export function classifyIdFront(raw: readonly TextLine[]): IdFrontClassification | null {
  // A card holds a few dozen lines: a long text is another document (and is not scanned word by word here).
  if (raw.length > MAX_CARD_LINES) return null;
  const lines = prepareLines(raw);
  const ev = gatherEvidence(lines);
  let kind = ev.kind;
  let confidence: number;
  if (!kind) {
    // No title: a US card's labels and a state still say "a US licence or id", without telling which.
    // An address alone is not a card (receipts and letters have one): the card's own labels must be there.
    if (ev.country !== 'USA' || ev.usLabels < 3) return null;
    kind = 'driving';
    confidence = ev.region ? 0.45 : 0.35;
  } else if (ev.country && ev.countryStrength >= 0.9) confidence = ev.kindStrength >= 1 ? 0.9 : 0.7;
  else if (ev.country && ev.countryStrength >= 0.5) confidence = ev.kindStrength >= 1 ? 0.8 : 0.6;
  else if (ev.country) confidence = ev.kindStrength >= 1 ? 0.7 : 0.5;
  else confidence = ev.kindStrength >= 1 ? 0.6 : 0.4;
  // A US card titled only "identification card" is the state id; a US "id card" without a state is still one.
  if (kind === 'id_card' && ev.country === 'USA') kind = 'state_id';
  const type = typeFor(kind, ev.country);
  const candidates = [{ type, confidence }];
  const sibling = kind === 'driving' && ev.country === 'USA' ? 'us_state_id' : kind === 'state_id' ? 'us_drivers_license' : null;
  if (sibling) candidates.push({ type: sibling, confidence: round((1 - confidence) / 2) });
  const universal = KIND_TYPES[kind].universal;
  if (universal !== type) candidates.push({ type: universal, confidence: round(confidence * 0.9) });
  return { type, confidence, country: ev.country, region: ev.country === 'USA' ? ev.region : null, kind, candidates };
}

// ------------------------------------------------------------------ fields

type FieldKind = 'date' | 'name' | 'number' | 'sex' | 'code' | 'text';

function numberedLabels(lines: Line[], us: boolean, taken: Set<Word>): Label[] {
  const map = us ? NUMBERED_US : NUMBERED_EU;
  const out: Label[] = [];
  for (const line of lines) {
    for (const [c, cell] of line.cells.entries()) {
      const w = line.words[cell.from];
      // Beside a printed label (`4d DLN`) the number adds nothing: that label reads the value.
      if (!w || taken.has(w) || taken.has(line.words[cell.from + 1])) continue;
      const m = NUMBERED_LABEL.exec(w.text);
      if (!m || (!m[2] && !/[a-d]$/i.test(m[1]))) continue;
      // A number alone in its cell is a label only with its mark (`5.`) and its value indented after it on the line
      // (the UK licence's field 5), a few heights away.
      if (cell.to - cell.from < 2) {
        const next = line.cells[c + 1];
        const h = w.bbox[3] - w.bbox[1];
        if (!m[2] || !next || taken.has(line.words[next.from]) || next.bbox[0] - w.bbox[2] > 4 * h) continue;
      }
      const field = map[m[1].toLowerCase()];
      if (field) out.push({ field, line, from: cell.from, to: cell.from + 1, box: w.bbox });
    }
  }
  return out;
}

const KIND_OF: Record<string, FieldKind> = {
  birth_date: 'date', expiry_date: 'date', issue_date: 'date', last_name: 'name', first_name: 'name', document_number: 'number',
  personal_number: 'number', second_last_name: 'name', cui: 'number', sex: 'sex', nationality: 'code', birth_place: 'text', address: 'text',
};

interface Label {
  field: string;
  line: Line;
  /** Words of the label in its line (by index). */
  from: number;
  to: number;
  box: Box;
}

function findLabels(lines: Line[]): Label[] {
  const out: Label[] = [];
  for (const line of lines) {
    // Folded per word, with separators, so that `NOM/Surname` and `DATE DE NAISS / Date of birth` both match.
    let text = '';
    const at: number[] = [];
    for (const [i, w] of line.words.entries()) {
      const f = w.text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[’`´]/g, "'").replace(/[^\p{L}\p{N}'°#./-]+/gu, ' ').replace(/\//g, ' / ')
        // A dot read for the space between two words of a label (`Given.names`), of the same length.
        .replace(/(?<=\p{L}{2})\.(?=\p{L}{3})/gu, ' ');
      if (text) text += ' ';
      for (let k = 0; k < f.length; k++) at.push(i);
      at.push(i);
      text += f;
    }
    let masked = text;
    for (const [field, re] of LABELS) {
      re.lastIndex = 0;
      for (const m of masked.matchAll(re)) {
        const from = at[m.index];
        const to = at[m.index + m[0].length - 1] + 1;
        masked = masked.slice(0, m.index) + '\u0000'.repeat(m[0].length) + masked.slice(m.index + m[0].length);
        out.push({ field, line, from, to, box: union(line.words.slice(from, to).map((w) => w.bbox)) });
      }
    }
  }
  // `Name` beside another label of the family name (`Name/Surname/Nom`) is that label; beside a label of the given
  // names (`Ime/Name`), that one; alone it names no field.
  for (const l of out) {
    if (l.field !== 'name') continue;
    const beside = out.find((o) => (o.field === 'last_name' || o.field === 'first_name') && o.line === l.line && o.from <= l.to && l.from <= o.to);
    if (beside) l.field = beside.field;
  }
  // One label printed in two languages (`data e skadimit/date of expiry`) is one label.
  out.sort((a, b) => a.line.index - b.line.index || a.from - b.from);
  const merged: Label[] = [];
  for (const l of out) {
    const prev = merged.at(-1);
    if (prev && prev.line === l.line && prev.field === l.field && l.from <= prev.to + 1) {
      prev.to = Math.max(prev.to, l.to);
      prev.box = union(l.line.words.slice(prev.from, prev.to).map((w) => w.bbox));
    } else merged.push({ ...l });
  }
  return merged;
}

interface Value {
  value: string;
  words: Word[];
  line: Line;
}

const round = (v: number) => Math.round(v * 100) / 100;

/** A date in `s` by the country's order: `MM/DD/YYYY` in the US, day first elsewhere; separators or none. */
export function parseDate(s: string, monthFirst: boolean, whole = false): { value: string; compact: boolean } | null {
  const m = (whole ? /^[^\d]{0,2}(\d{1,2})([-/. ]?)(\d{1,2})\2?[-/. ]?(\d{4})[^\d]{0,2}$/ : /(?<!\d)(\d{1,2})([-/. ]?)(\d{1,2})\2?[-/. ]?(\d{4})(?!\d)/).exec(s.replace(/\s*([-/.])\s*/g, '$1').replace(/[Oo](?=\d)|(?<=\d)[Oo]/g, '0'));
  if (!m) return null;
  const [a, b, y] = [Number(m[1]), Number(m[3]), Number(m[4])];
  const [mo, d] = monthFirst ? [a, b] : [b, a];
  if (y < 1900 || y > 2100 || mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  const dt = new Date(Date.UTC(y, mo - 1, d));
  if (dt.getUTCDate() !== d) return null;
  return { value: `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`, compact: m[2] === '' && m[0].length === 8 };
}

const isLabelWord = (w: string) => LABELS.some(([, re]) => {
  re.lastIndex = 0;
  const f = foldPhrase(w);
  const ok = f.length > 1 && new RegExp(`^(?:${re.source})$`).test(f);
  return ok;
});

/** A name value: words of letters (with ' - , .), without stray marks, labels or watermark words. */
function nameWords(words: Word[]): Word[] {
  const keep = words.filter((w) => {
    const t = w.text.replace(FIELD_MARK, '').replace(/^[^\p{L}]+|[^\p{L}.,]+$/gu, '');
    // `NONE` is what a US card prints for no restriction or endorsement (`12 NONE`, its `2` lost: `1: NONE`), no name.
    return t.length >= 2 && /^\p{Lu}[\p{L}'’.,-]*$/u.test(t) && !/^(specimen|none)$/i.test(t) && !isLabelWord(t) && w.confidence >= 0.3;
  });
  // The longest run of consecutive kept words.
  let best: Word[] = [];
  let run: Word[] = [];
  for (const w of words) {
    if (keep.includes(w)) run.push(w);
    else run = [];
    if (run.length > best.length) best = [...run];
  }
  return best;
}

/** A field's letter printed before its value (`[a]MUSTERMANN` on the German card), read glued to it. */
const FIELD_MARK = /^\[[a-z]?\]/;
const cleanName = (ws: Word[]) => ws.map((w) => w.text.replace(FIELD_MARK, '').replace(/^[^\p{L}]+|[^\p{L}.,]+$/gu, '')).join(' ').replace(/[\s,]+$/, '');

/** Parses a value of a kind from words; null when they hold none. */
/**
 * A date with its month in letters, the whole of `text`: ICAO 9303's visual zone prints `12 AUG/AOUT 74` (the month
 * in two languages, a two-digit year), national cards `01 JAN 1990`. A two-digit year is less sure (its century is
 * assumed: a birth is never in the future).
 */
function monthNameDate(text: string, monthFirst: boolean, past: boolean): { value: string; factor: number } | null {
  const fold = foldKeep(text).replace(/(\p{L}{3,})\s*\/\s*\p{L}{3,}/gu, '$1').replace(/\s+/g, ' ').trim();
  if (!/\p{L}{3}/u.test(fold)) return null;
  const d = findDates(fold, !monthFirst).find((m) => m.start <= 1 && m.end >= fold.length - 1);
  if (!d) return null;
  const twoDigit = !/\d{4}/.test(fold);
  let value = d.value;
  if (twoDigit && past && value > new Date().toISOString().slice(0, 10)) value = `${Number(value.slice(0, 4)) - 100}${value.slice(4)}`;
  return { value, factor: twoDigit ? 0.85 : 0.95 };
}

function parse(kind: FieldKind, words: Word[], monthFirst: boolean, past = false): { value: string; words: Word[]; factor: number } | null {
  if (words.length === 0) return null;
  const text = words.map((w) => w.text).join(' ');
  switch (kind) {
    case 'date': {
      // Try each window of up to 5 words (a date may be split: `13 07 1990`, `01 - 47`).
      // The shortest window, leftmost first, so that the words are the date's own.
      for (let i = 0; i < words.length; i++) {
        for (let n = 1; n <= Math.min(5, words.length - i); n++) {
          const ws = words.slice(i, i + n);
          if (!/\d/.test(ws[0].text) || !/\d/.test(ws[n - 1].text)) continue;
          // The next field's label read glued to the date's year (`02-01-2013HGT:`) is not part of the date.
          const d = parseDate(ws.map((w) => w.text).join(' ').replace(/(?<=\d{4})\p{Lu}{2,4}[:.]?$/u, ''), monthFirst, true);
          if (d) return { value: d.value, words: ws, factor: d.compact ? 0.9 : 1 };
        }
      }
      // The month in letters (2 to 4 words: `12 AUG/AOUT 74`, `04 JAN 1995`).
      for (let i = 0; i < words.length; i++) {
        for (let n = 2; n <= Math.min(4, words.length - i); n++) {
          const ws = words.slice(i, i + n);
          if (!/\d/.test(ws[0].text) || !/\d/.test(ws[n - 1].text)) continue;
          const d = monthNameDate(ws.map((w) => w.text).join(' '), monthFirst, past);
          if (d) return { ...d, words: ws };
        }
      }
      return null;
    }
    case 'sex': {
      const w = words.find((x) => sexValue(x.text) !== null);
      return w ? { value: sexValue(w.text)!, words: [w], factor: 1 } : null;
    }
    case 'code': {
      const w = words.find((x) => /^[A-Z]{3}$/.test(x.text) && x.text in (ICAO_STATES as object));
      return w ? { value: w.text, words: [w], factor: 1 } : null;
    }
    case 'number': {
      const n = numberIn(words, true);
      if (!n) return null;
      // A group of digits left beside the number (`01101101 01100001`, too long together for a number): the number
      // may be longer than what was read, so it is unsure.
      const i = words.indexOf(n.words[0]);
      const beside = [words[i - 1], words[i + n.words.length]].some((w) => w && /^\d{3,}$/.test(w.text));
      return { ...n, factor: beside ? 0.6 : 1 };
    }
    case 'name': {
      const ws = nameWords(words);
      return ws.length ? { value: cleanName(ws), words: ws, factor: 1 } : null;
    }
    case 'text': {
      const ws = words.filter((w) => /\p{L}{3,}|\d/u.test(w.text) && !isLabelWord(w.text) && w.confidence >= 0.3);
      const value = ws.map((w) => w.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}.]+$/gu, '')).join(' ').trim();
      return value ? { value, words: ws, factor: 1 } : null;
    }
  }
}

/**
 * A document number among words: letters and digits (at least 5 digits), groups joined by hyphens or spaces. Under
 * its label (`labelled`), one word of 6 to 14 letters and digits with two letters or more may hold fewer digits (the
 * French CNI's `X4RTBPFW4`). The UK driver number (16 characters) is read without the issue number after it.
 */
function numberIn(words: Word[], labelled = false): { value: string; words: Word[] } | null {
  let best: { value: string; words: Word[] } | null = null;
  for (let i = 0; i < words.length; i++) {
    for (let n = Math.min(5, words.length - i); n >= 1; n--) {
      const ws = words.slice(i, i + n);
      // Digits grouped by thousands with dots (`1.234.567.890`, `46.870.984`: Colombia's cédula, Argentina's DNI) are
      // one number; never a date (`12.05.2020`: its groups are not of three) or a decimal (`1.5`).
      const raw = ws.map((w) => w.text.replace(/^(\d{1,3}(?:\.\d{3}){2,})(?=-[0-9K]$|$)/, (g) => g.replace(/\./g, ''))).join(' ');
      if (!/^[A-Z0-9](?:[A-Z0-9]|[ -](?=[A-Z0-9-])|-)*$/.test(raw)) continue;
      let value = raw.replace(/\s*-\s*/g, '-').replace(/ /g, '');
      const gb = GB_DRIVER_NUMBER.exec(value);
      if (gb) value = gb[1];
      const digits = value.replace(/\D/g, '').length;
      const few = labelled && n === 1 && /^(?=.*\d)(?=(?:.*[A-Z]){2})[A-Z0-9]{6,14}$/.test(value);
      if ((digits < 5 && !few) || (!gb && value.replace(/-/g, '').length > 14) || parseDate(raw, true) || parseDate(raw, false)) continue;
      // A numbered field's label glued to its value (`15SEXM…`, `16HGT5-08`, `4bEXP…`): another field, not a number.
      if (/^\d{1,2}[A-D]?(SEX|HGT|HT|WGT|WT|EYES|HAIR|DOB|EXP|ISS|DLN|DL|CLASS|END|RESTR?|DD)/i.test(value)) continue;
      // A word of three letters or more is no part of a number: a name, a state code (`LUX S998527`), a month.
      if (n > 1 && ws.some((w) => /^[A-Z]{3,}$/.test(w.text))) continue;
      // The next field's number (`12345678 3 DOB…`: AAMVA's `3` before its label, cut from it) is no part of this one.
      if (n > 1 && /^\d{1,2}[a-d]?$/.test(ws[n - 1].text) && NUMBERED_KEYS.has(ws[n - 1].text) && /^\p{Lu}{2}/u.test(words[i + n]?.text ?? '')) continue;
      if (!best || value.length > best.value.length) best = { value, words: ws };
    }
  }
  return best;
}

/** Words of `line` inside a column [x0, x1) (by their centre). */
const inColumn = (line: Line, x0: number, x1: number) => line.words.filter((w) => {
  const c = (w.bbox[0] + w.bbox[2]) / 2;
  return c >= x0 && c < x1;
});

function fieldFrom(v: { value: string; words: Word[]; factor: number }, line: Line, factor: number): ReadField {
  const conf = v.words.reduce((s, w) => s + w.confidence, 0) / v.words.length;
  return { value: v.value, confidence: round(Math.min(0.95, conf * v.factor * factor)), source: { page: line.page, bbox: union(v.words.map((w) => w.bbox)) }, origin: 'ocr' };
}

/**
 * Reads the printed fields of an identity document's face: the catalogue fields of `entry` that are wanted, by
 * label-value layout, then by position for a US card's unlabelled values. `country` decides the date order.
 */
export function readIdFrontFields(raw: readonly TextLine[], entry: CatalogueEntry, wanted: readonly string[], opts: { country: string | null; region?: IdFrontClassification['region'] }): Record<string, ReadField> {
  const lines = prepareLines(raw.slice(0, MAX_CARD_LINES));
  const monthFirst = opts.country === 'USA';
  const want = new Set(wanted.filter((f) => entry.fields.includes(f)));
  // The second family name's own label (`Segundo Apellido`) is read to join the first (1a below).
  if (want.has('last_name')) want.add('second_last_name');
  // Peru's `CUI` (its DNI number and check digit) is read to be the document number (1a below).
  if (want.has('document_number')) want.add('cui');
  const out: Record<string, ReadField> = {};
  const used = new Set<Word>();
  const labels = findLabels(lines);
  if (entry.category === 'driving') {
    const taken = new Set(labels.flatMap((l) => l.line.words.slice(l.from, l.to)));
    labels.push(...numberedLabels(lines, opts.country === 'USA', taken));
    labels.sort((a, b) => a.line.index - b.line.index || a.from - b.from);
  }
  const labelWords = new Set(labels.flatMap((l) => l.line.words.slice(l.from, l.to)));
  const otherWords = new Set(labels.filter((l) => l.field === 'other').flatMap((l) => l.line.words.slice(l.from, l.to)));
  const put = (field: string, v: { value: string; words: Word[]; factor: number } | null, line: Line, factor: number) => {
    if (!v || !want.has(field) || out[field]) return false;
    if (v.words.some((w) => labelWords.has(w) || used.has(w))) return false;
    out[field] = fieldFrom(v, line, factor);
    for (const w of v.words) used.add(w);
    return true;
  };
  /**
   * A name printed on two lines (`KOWALSKA` / `KWIATKOWSKA`): the line just below the value, starting under it, all
   * name words and no label, continues it (a little less sure: it may be the next value of a card without labels).
   */
  const continueName = (field: string, kind: FieldKind, line: Line) => {
    const f = out[field];
    if (kind !== 'name' || !f?.source?.bbox) return;
    const [vx0, , , vy1] = f.source.bbox;
    const vh = f.source.bbox[3] - f.source.bbox[1];
    // The next line down: its words start under the value, and no label lies between them.
    const below = lines.filter((l) => l !== line && l.page === line.page && l.bbox[1] >= vy1 - vh * 0.3 && l.bbox[1] < vy1 + vh * 0.8);
    const next = below.find((l) => l.words.some((w) => Math.abs(w.bbox[0] - vx0) <= vh * 0.8));
    if (!next) return;
    const between = lines.some((l) => l !== next && l.page === line.page && l.words.some((w) => labelWords.has(w) && (w.bbox[1] + w.bbox[3]) / 2 > vy1 - vh * 0.3 && (w.bbox[1] + w.bbox[3]) / 2 < (next.bbox[1] + next.bbox[3]) / 2));
    if (between) return;
    const start = next.words.find((w) => Math.abs(w.bbox[0] - vx0) <= vh * 0.8)!;
    const cell = next.words.filter((w) => cellAt(next, w) === cellAt(next, start));
    if (next.words.some((w) => labelWords.has(w)) || cell.some((w) => used.has(w))) return;
    const more = nameWords(cell);
    if (more.length === 0 || more.length !== cell.length || more.some((w) => w.confidence < 0.6)) return;
    out[field] = {
      ...f,
      value: `${f.value as string} ${cleanName(more)}`,
      confidence: round(Math.min(f.confidence, ...more.map((w) => w.confidence)) * 0.95),
      source: { page: f.source.page, bbox: union([f.source.bbox, ...more.map((w) => w.bbox)]) },
    };
    for (const w of more) used.add(w);
  };

  const cellOf = (line: Line, w: Word) => {
    const i = line.words.indexOf(w);
    return line.cells.findIndex((c) => i >= c.from && i < c.to);
  };
  // 0. Name labels printed under their values (Colombia's cédula: `RODRIGUEZ LOPEZ` over `APELLIDOS`, `MARTIN
  // FRANCISCO` over `NOMBRES`): the family name's label with a name line just above it and the given names' label
  // under the next name line with nothing below it. Read above, a little less sure; else the usual layout below.
  {
    const ln = labels.find((l) => l.field === 'last_name');
    const fn = labels.find((l) => l.field === 'first_name');
    const nameLine = (label: Label, dir: -1 | 1) => {
      const h = label.box[3] - label.box[1];
      const near = lines.filter((l) => l !== label.line && l.page === label.line.page && (dir < 0
        ? l.bbox[3] <= label.box[1] + h * 0.3 && l.bbox[3] > label.box[1] - 2.5 * h
        : l.bbox[1] >= label.box[3] - h * 0.3 && l.bbox[1] < label.box[3] + 2.5 * h));
      const l = dir < 0 ? near.at(-1) : near[0];
      if (!l) return null;
      // The cell that starts near the label's left edge.
      const start = l.words.find((w) => w.bbox[2] > label.box[0] - 3 * h && w.bbox[0] < label.box[0] + 6 * h);
      const ws = start ? l.words.filter((w) => cellOf(l, w) === cellOf(l, start)) : [];
      const names = nameWords(ws);
      const title = Object.values(TITLES).some((re) => re.test(foldPhrase(l.text))) || names.some((w) => CARD_TITLE_WORD.test(w.text));
      return names.length > 0 && names.length === ws.length && !title && !ws.some((w) => labelWords.has(w)) ? { line: l, words: names } : null;
    };
    if (ln && fn && fn.box[1] > ln.box[3] && want.has('last_name')) {
      const family = nameLine(ln, -1);
      const given = nameLine(fn, -1);
      const h = fn.box[3] - fn.box[1];
      const under = lines.some((l) => l !== fn.line && l.page === fn.line.page && l.bbox[1] >= fn.box[3] - h * 0.3 && l.bbox[1] < fn.box[3] + 3 * h && l.words.some((w) => w.bbox[2] > fn.box[0] - 3 * h && w.bbox[0] < fn.box[2] + 3 * h));
      if (family && given && !under && nameLine(ln, 1)?.line === given.line) {
        put('last_name', { value: cleanName(family.words), words: family.words, factor: 0.9 }, family.line, 1);
        put('first_name', { value: cleanName(given.words), words: given.words, factor: 0.9 }, given.line, 1);
      }
    }
  }

  // 1. Label-value layout: right of the label on its line, else below it in its column. A value is the words of one
  // cell (words apart by less than a wide gap): the cell after the label first, then what else the column holds.
  const cellAt = (line: Line, w: Word) => {
    const i = line.words.indexOf(w);
    return line.cells.findIndex((c) => i >= c.from && i < c.to);
  };
  const byCell = (line: Line, ws: Word[]) => {
    const groups = new Map<number, Word[]>();
    for (const w of ws) groups.set(cellAt(line, w), [...(groups.get(cellAt(line, w)) ?? []), w]);
    return [...groups.values()];
  };
  for (const label of labels) {
    const kind = KIND_OF[label.field];
    if (!kind || !want.has(label.field) || out[label.field]) continue;
    const past = label.field === 'birth_date' || label.field === 'issue_date';
    const sameLine = labels.filter((o) => o.line === label.line && o.from > label.from).sort((a, b) => a.from - b.from)[0];
    let right = label.line.words.slice(label.to, sameLine ? sameLine.from : undefined);
    // Words that open the next label's cell, a gap away from this label, are that label's own (`Registration Number`).
    if (sameLine) {
      const next = cellAt(label.line, label.line.words[sameLine.from]);
      if (next !== cellAt(label.line, label.line.words[label.to - 1])) right = right.filter((w) => cellAt(label.line, w) !== next);
    }
    const rightCells = byCell(label.line, right);
    if (rightCells.length > 0 && put(label.field, parse(kind, rightCells[0], monthFirst, past), label.line, 1)) {
      continueName(label.field, kind, label.line);
      continue;
    }
    if (rightCells.length > 1 && put(label.field, parse(kind, right, monthFirst, past), label.line, 0.9)) continue;
    const prevOnLine = labels.filter((o) => o.line === label.line && o.from < label.from).sort((a, b) => b.from - a.from)[0];
    const x0 = prevOnLine ? (prevOnLine.box[2] + label.box[0]) / 2 : label.box[0] - 0.12;
    const x1 = sameLine ? sameLine.box[0] - 0.01 : 1;
    // Below: the words under the label (by their centres), down to the next label in the column; the cell that starts
    // nearest the label's left edge first.
    const mid = (label.box[1] + label.box[3]) / 2;
    const h = label.box[3] - label.box[1];
    for (const below of lines.filter((l) => l !== label.line && l.page === label.line.page && (l.bbox[1] + l.bbox[3]) / 2 > mid + h * 0.4 && l.bbox[1] < label.box[3] + 0.09).slice(0, 2)) {
      const col = inColumn(below, x0, x1).filter((w) => (w.bbox[1] + w.bbox[3]) / 2 > mid + h * 0.5);
      if (col.some((w) => labelWords.has(w))) break;
      const cells = byCell(below, col).sort((a, b) => Math.abs(a[0].bbox[0] - label.box[0]) - Math.abs(b[0].bbox[0] - label.box[0]));
      if (cells.some((c) => put(label.field, parse(kind, c, monthFirst, past), below, 0.95))) {
        continueName(label.field, kind, below);
        break;
      }
    }
  }

  // 1a. The second family name (`Segundo Apellido`: Peru, Spain's old cards) follows the first, read by its label.
  const secondFamily = out.second_last_name;
  delete out.second_last_name;
  const family = out.last_name;
  if (secondFamily?.source?.bbox && family?.source?.bbox) {
    out.last_name = { ...family, value: `${family.value as string} ${secondFamily.value as string}`, confidence: Math.min(family.confidence, secondFamily.confidence), source: { page: family.source.page, bbox: union([family.source.bbox, secondFamily.source.bbox]) } };
  }

  // Peru's CUI is the DNI's number (`70025425-8`: the number, then its check digit), before a card number (`N° de
  // Tarjeta`) read by another label.
  const cui = out.cui;
  delete out.cui;
  const dni = /^(\d{8})-?\d$/.exec(String(cui?.value ?? ''));
  if (cui && dni) out.document_number = { ...cui, value: dni[1] };

  // 1c. An EU licence's family name whose `1.` the OCR lost: the line just above the value of `2.`, starting at that
  // value's left edge, all name words and no label (a little less sure than by its number).
  if (entry.category === 'driving' && opts.country !== 'USA' && want.has('last_name') && !out.last_name && out.first_name?.source?.bbox) {
    const two = labels.find((l) => l.field === 'first_name' && /^2[.:)]?$/.test(l.line.words[l.from]?.text ?? ''));
    if (two) {
      const [vx0, vy0, , vy1] = out.first_name.source.bbox;
      const h = vy1 - vy0;
      const above = lines.filter((l) => l !== two.line && l.page === two.line.page && l.bbox[3] <= vy0 + h * 0.5 && l.bbox[3] > vy0 - h * 1.5);
      const l = above.at(-1);
      const ws = l ? l.words.filter((w) => w.bbox[2] > vx0 - h * 1.5 && !labelWords.has(w) && !used.has(w)) : [];
      const names = nameWords(ws);
      if (l && names.length > 0 && names.length === ws.length && Math.abs(names[0].bbox[0] - vx0) <= h * 1.5) put('last_name', { value: cleanName(names), words: names, factor: 0.85 }, l, 1);
    }
  }

  // 1b. AAMVA's numbered name lines with no label word: `1 SAMPLE` over `2 DEREK THOMAS` (read glued, `1SAMPLE`,
  // `2DEREK THOMAS`, or the `1` lost). The `2` line's names are the given names; the line just above it, starting at
  // the same left edge and all name words (its `1` optional), the family name.
  if (opts.country === 'USA' && want.has('first_name') && !out.first_name) {
    const numbered = (l: Line, field: 'last_name' | 'first_name'): { words: Word[]; x0: number } | null => {
      const keys = US_NAME_KEYS[field];
      const i = l.words.findIndex((w) => keys.word.test(w.text) && !labelWords.has(w) && !used.has(w));
      if (i < 0) return null;
      const w = l.words[i];
      const glued = w.text.replace(keys.key, '');
      const share = (w.bbox[2] - w.bbox[0]) / w.text.length;
      const head: Word[] = glued ? [{ ...w, text: glued, bbox: [w.bbox[2] - share * glued.length, w.bbox[1], w.bbox[2], w.bbox[3]] }] : [];
      // The number alone in its cell (a wide gap after it): the name is the next cell.
      const own = cellAt(l, w);
      const cell = !glued && l.cells[own] && l.cells[own].to - l.cells[own].from === 1 ? own + 1 : own;
      const rest = l.words.slice(i + 1).filter((o) => cellAt(l, o) === cell);
      const names = nameWords([...head, ...rest]);
      // The whole cell after the number is the name (nothing else on it but stray marks after the name).
      if (names.length === 0 || names[0] !== (head[0] ?? rest[0])) return null;
      return { words: names, x0: w.bbox[0] };
    };
    for (const l2 of lines) {
      const given = numbered(l2, 'first_name');
      if (!given) continue;
      const h = l2.bbox[3] - l2.bbox[1];
      const above = lines.filter((o) => o !== l2 && o.page === l2.page && o.bbox[3] <= l2.bbox[1] + h * 0.6 && o.bbox[3] > l2.bbox[1] - h * 1.6);
      let family: Word[] | null = null;
      // A `1` line just below the `2` line (Georgia prints the given names first: `2 IMA GEORGIA` over `1 SAMPLE`).
      const below = lines.filter((o) => o !== l2 && o.page === l2.page && o.bbox[1] >= l2.bbox[3] - h * 0.6 && o.bbox[1] < l2.bbox[3] + h * 1.6);
      for (const l1 of below) {
        const one = numbered(l1, 'last_name');
        if (one && Math.abs(one.x0 - given.x0) < h * 2.5 && !one.words.some((w) => labelWords.has(w) || used.has(w))) {
          family = one.words;
          put('last_name', { value: cleanName(one.words), words: one.words, factor: 0.9 }, l1, 1);
          break;
        }
      }
      for (const l1 of family ? [] : above.reverse()) {
        // The family name already read from that line by its label (`1. SAMPLE`, the `1.` a label with its dot).
        if (out.last_name && l1.words.some((w) => used.has(w))) {
          family = [];
          break;
        }
        const one = numbered(l1, 'last_name');
        const ws = one?.words ?? nameWords(l1.words.filter((w) => Math.abs(w.bbox[0] - given.x0) < h * 1.5 || w.bbox[0] > given.x0));
        if (ws.length > 0 && (one || Math.abs(ws[0].bbox[0] - given.x0) < h * 2.5) && !ws.some((w) => labelWords.has(w) || used.has(w))) {
          family = ws;
          put('last_name', { value: cleanName(ws), words: ws, factor: one ? 0.9 : 0.8 }, l1, 1);
          break;
        }
      }
      if (family) put('first_name', { value: cleanName(given.words), words: given.words, factor: 0.9 }, l2, 1);
      break;
    }
  }

  // 2. A US card's address block: `NUMBER STREET` then `CITY, ST ZIP`; the name lines just above it.
  let street: Line | null = null;
  /** The line the name lines stand over: the street, else (the street not read, or not printed) the city line. */
  let anchor: { line: Line; x0: number; factor: number } | null = null;
  for (const [i, l] of lines.entries()) {
    const c = cityLine(l);
    if (!c) continue;
    // The house number may be read glued to a one-letter direction (`3456W 35TH AVE`) or after a stray mark (`：3456`).
    const st = lines.slice(Math.max(0, i - 3), i).reverse().find((s) => /(^|[\s\p{P}])\d{1,6}[NSEW]?\s+[A-Z0-9][A-Za-z0-9.]*(\s|$)/u.test(s.text) && s.bbox[1] > 0.3);
    const cityWords = l.words.filter((w) => w.start >= c.cityAt && w.end <= c.cityAt + c.city.length + 1);
    const city = ['', c.city, c.state, c.zip];
    const region = c.state;
    if (want.has('city') && cityWords.length) put('city', { value: city[1], words: cityWords, factor: 0.95 }, l, 1);
    const zipWords = l.words.filter((w) => w.text.includes(city[3].slice(0, 5)));
    if (zipWords.length) put('postal_code', { value: city[3], words: zipWords, factor: 0.95 }, l, 1);
    // The house number's word (after a stray mark: `：3456W`), or the city's, marks the column's left edge.
    const house = st?.words.find((w) => /^[^\p{L}\d]?\d/u.test(w.text));
    anchor = st ? { line: st, x0: house?.bbox[0] ?? st.bbox[0], factor: 1 } : { line: l, x0: cityWords[0]?.bbox[0] ?? l.bbox[0], factor: 0.9 };
    if (st) {
      street = st;
      const m = /\d{1,6}[NSEW]?\s+[A-Z0-9].*$/.exec(st.text)!;
      const ws = st.words.filter((w) => w.end > m.index);
      const addr = { value: ws.map((w) => w.text).join(' ').replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9.]+$/g, ''), words: ws, factor: 0.95 };
      if (want.has('address') && !want.has('city')) addr.value = `${addr.value}, ${city[1]}, ${region} ${city[3]}`;
      put('address', addr, st, 1);
    }
    break;
  }
  if (anchor && (want.has('last_name') || want.has('first_name')) && !out.last_name) {
    const { line: street, x0, factor: at } = anchor;
    const names: Array<{ line: Line; words: Word[] }> = [];
    for (const l of lines.filter((o) => o.page === street.page && o.bbox[3] <= street.bbox[1] + 0.01 && o.bbox[1] > street.bbox[1] - 0.26).reverse()) {
      const col = l.words.filter((w) => w.bbox[0] >= x0 - 0.04 && !labelWords.has(w));
      const ws = nameWords(col);
      // A line that holds digits in the column is no name line (`D.O.B.` read `DOE.` beside its date is no name).
      if (ws.length === 0 || col.some((w) => /\d/.test(w.text))) break;
      // A third line (`SAMPLECARD` over `THOMAS` / `ALEXANDER`) only in the same column, just above the other two, and
      // no word of a card's title; the first two as before, within 0.2 of the card over the street.
      if (names.length < 2 && l.bbox[1] <= street.bbox[1] - 0.2) break;
      if (names.length === 2) {
        const h = names[0].line.bbox[3] - names[0].line.bbox[1];
        const aligned = Math.abs(ws[0].bbox[0] - names[0].words[0].bbox[0]) < h && Math.abs(names[0].words[0].bbox[0] - names[1].words[0].bbox[0]) < h;
        const pitch = names[1].line.bbox[1] - names[0].line.bbox[1];
        if (!aligned || names[0].line.bbox[1] - l.bbox[1] > 2.5 * Math.max(pitch, h) || ws.some((w) => CARD_TITLE_WORD.test(w.text))) break;
      }
      names.unshift({ line: l, words: ws });
      if (names.length === 3) break;
    }
    if (names.length === 3) {
      // Three name lines over the address (`SAMPLECARD` / `THOMAS` / `ALEXANDER`): the family name, then the given
      // names on two lines.
      const given = [...names[1].words, ...names[2].words];
      put('last_name', { value: cleanName(names[0].words), words: names[0].words, factor: 0.8 }, names[0].line, at);
      put('first_name', { value: cleanName(given), words: given, factor: 0.8 }, names[1].line, at);
    } else if (names.length === 2) {
      put('last_name', { value: cleanName(names[0].words), words: names[0].words, factor: 0.85 }, names[0].line, at);
      put('first_name', { value: cleanName(names[1].words), words: names[1].words, factor: 0.85 }, names[1].line, at);
    } else if (names.length === 1) {
      const ws = names[0].words;
      // One name line: a single word is the family name; several are "GIVEN ... FAMILY" (less sure).
      put('last_name', { value: cleanName(ws.slice(-1)), words: ws.slice(-1), factor: ws.length === 1 ? 0.8 : 0.6 }, names[0].line, at);
      if (ws.length > 1) put('first_name', { value: cleanName(ws.slice(0, -1)), words: ws.slice(0, -1), factor: 0.6 }, names[0].line, at);
    }
  }

  // 3. Unlabelled dates by position: the earliest is the birth, the latest the expiry, one between them the issue.
  const dates: Array<{ value: string; words: Word[]; factor: number; line: Line }> = [];
  for (const l of lines) {
    const ws = l.words.filter((w) => !used.has(w) && !labelWords.has(w));
    for (let i = 0; i < ws.length; i++) {
      const d = parse('date', ws.slice(i, i + 5), monthFirst);
      // The card design's revision date (`REV 10/16/2018`) and a replacement's date (`REPLACED: 08-16-2003`) are no
      // date of the holder's card.
      const before = l.words[l.words.indexOf(ws[i]) - 1]?.text ?? '';
      if (d && d.words[0] === ws[i] && /^[^\p{L}]*(rev|revised|replaced|repl|dup|duplicate)[.:]?$/iu.test(before)) {
        i += d.words.length - 1;
        continue;
      }
      if (d && d.words[0] === ws[i]) {
        dates.push({ ...d, line: l });
        i += d.words.length - 1;
      }
    }
  }
  if (dates.length > 0) {
    const sorted = [...dates].sort((a, b) => a.value.localeCompare(b.value));
    const birth = sorted[0];
    const last = sorted.at(-1)!;
    const known = (f: string) => (out[f]?.value as string | undefined) ?? null;
    const adult = (d: string) => Number(d.slice(0, 4)) <= new Date().getUTCFullYear() - 10;
    const today = new Date().toISOString().slice(0, 10);
    if (!known('birth_date') && adult(birth.value) && (!known('expiry_date') || birth.value < known('expiry_date')!)) put('birth_date', birth, birth.line, 0.75);
    if (!known('expiry_date') && last !== birth && (!known('birth_date') || last.value > known('birth_date')!)) put('expiry_date', last, last.line, 0.75);
    const b = known('birth_date');
    const e = known('expiry_date');
    const mid = sorted.find((d) => !d.words.some((w) => used.has(w)) && (!b || d.value > b) && (!e || d.value < e) && d.value <= today);
    if (mid && !known('issue_date')) put('issue_date', mid, mid.line, 0.7);
  }

  // 4. An unlabelled document number: the highest token of letters and digits that is no date, ZIP or address.
  if (want.has('document_number') && !out.document_number) {
    for (const l of lines) {
      if (l === street || /\b[A-Z]{2}\.?\s+\d{5}\b/.test(l.text)) continue;
      // The words between those taken or labels: a value is never joined across a label (`D123456789 Class D` is not
      // `D123456789D`).
      // Nor is it the value of another field's label that is not read (`4c) 6 4484`: the issuing authority; `DD`,
      // `CLASS`): the words right after such a label are skipped.
      const runs: Word[][] = [[]];
      let skip = false;
      for (const w of l.words) {
        if (!used.has(w) && !labelWords.has(w) && w.confidence >= 0.05) {
          if (!skip) runs.at(-1)!.push(w);
        } else {
          if (runs.at(-1)!.length > 0) runs.push([]);
          skip = otherWords.has(w);
        }
      }
      const found = runs.map((r) => numberIn(r)).filter((n) => n !== null).sort((a, b) => b.value.length - a.value.length);
      const n = found[0] ?? null;
      if (n && n.value.replace(/-/g, '').length <= 12 && put('document_number', { ...n, factor: 1 }, l, 0.7)) break;
    }
  }

  if (want.has('region') && opts.region && !out.region) out.region = { value: opts.region.value, confidence: opts.region.confidence, source: { page: opts.region.page, bbox: opts.region.bbox }, origin: 'ocr' };
  if (want.has('issuing_country') && opts.country && !out.issuing_country) out.issuing_country = { value: opts.country, confidence: 0.8, source: null, origin: 'ocr' };
  return out;
}

// ------------------------------------------------------------------ two engines (issue #28)

/** Colour codes of AAMVA's eyes and hair (`EYESBLU`, `HAIRBRO`). */
const COLOURS = 'BLK|BLU|BRO|GRY|GRN|HAZ|MAR|PNK|DIC|UNK|BAL|BLN|RED|SDY|WHI|AMB|MUL|XXX';
/** A label glued to the value after it, and what that value must look like for the word to be cut. */
const GLUED_LABELS: RegExp[] = [
  // PP-OCR keeps the label's small letters (`SexM`).
  /^(S[Ee][Xx])([MFX])$/,
  /^(CLASS)([A-FM]|[A-D][M1-9]|\d)$/,
  new RegExp(`^(EYES|HAIR)(${COLOURS})$`),
  /^(DOB|EXP|ISS|DLN|DL|HGT|HT|WGT|WT|LN|FN|END|RESTR?|DD)(\d.*)$/,
  /^(DLN?|LIC|ID)(NO\.?|#)$/,
];

/**
 * PP-OCR's words cut where its recogniser glued them (it reads a card's small text without most spaces): a numbered
 * label and its value (`4dDLN`, `1PUBLIC`), an abbreviated label and its value (`SEXF`, `CLASSD`, `DOB06/03/1981`),
 * a state and its ZIP (`HI96820`), a city and its state (`COLUMBUS.OH`), a house number and its street on a street
 * line (`123MAN STREET`). Each part gets its share of the word's box, by characters. Names glued together
 * (`JANEO` for `JANE Q`) cannot be told from a name and stay whole.
 */
export function unglueWords(raw: readonly TextLine[]): TextLine[] {
  return raw.map((l) => {
    if (!l.words?.length) return l;
    const street = /\b(ST|STREET|AVE?|AVENUE|RD|ROAD|DR|DRIVE|BLVD|LN|LANE|WAY|CT|PL|APT\.?\d*)$/i.test(l.text.trim()) || l.words.some((w) => /^(ST|STREET|AVE|RD|DR|BLVD|LN|APT\.?\d*)$/i.test(w.text));
    const words = l.words.flatMap((w) => cutWord(w.text, street).reduce<{ parts: typeof l.words; at: number }>((acc, part) => {
      const [x0, y0, x1, y1] = w.bbox;
      const share = (x1 - x0) / Math.max(1, w.text.length);
      acc.parts!.push({ text: part, bbox: [x0 + share * acc.at, y0, x0 + share * (acc.at + part.length), y1], confidence: w.confidence });
      acc.at += part.length;
      return acc;
    }, { parts: [], at: 0 }).parts!);
    return { ...l, text: words.map((w) => w.text).join(' '), words };
  });
}

/** The parts of one glued word (itself alone when nothing is glued). */
function cutWord(t: string, streetLine: boolean): string[] {
  // A city glued to its state, and the state to its ZIP: `NASHMLLE.TN37210`, `COLUMBUS.OH`, `HI96820`.
  const city = /^(\p{L}{3,})[.,]([A-Z]{2})(\d{5}(?:-\d{4})?)?$/u.exec(t);
  if (city && STATE_ABBRS.has(city[2])) return [`${city[1]},`, city[2], ...(city[3] ? [city[3]] : [])];
  const zip = /^([A-Z]{2})(\d{5}(?:-\d{4})?)$/.exec(t);
  if (zip && STATE_ABBRS.has(zip[1])) return [zip[1], zip[2]];
  const numbered = /^(\d{1,2}[a-d]?)([.:]?)(\p{Lu}(?:\p{Lu}|\p{Ll}+[:.#]?$).*)$/u.exec(t);
  if (numbered && NUMBERED_KEYS.has(numbered[1].toLowerCase())) return [numbered[1] + numbered[2], ...cutWord(numbered[3], streetLine)];
  // A numbered label with its mark glued to a value that starts with a digit (`5.13AA00002`, `4b.01.01.2014`): never
  // a date or a decimal read whole (`12.05.2020`, `1.5`).
  const numberedDigit = /^(\d{1,2}[a-d]?)([.:)])(\d.{3,})$/i.exec(t);
  if (numberedDigit && NUMBERED_KEYS.has(numberedDigit[1].toLowerCase()) && !parseDate(t, false, true) && !parseDate(t, true, true)) {
    return [numberedDigit[1] + numberedDigit[2], ...cutWord(numberedDigit[3], streetLine)];
  }
  // A date glued to the word after it (`29.111992Paris075)`: the birth date and its place).
  const dated = /^(\d{1,2}[./-]\d{1,2}[./-]?\d{4})(\p{L}.*)$/u.exec(t);
  if (dated && (parseDate(dated[1], false, true) || parseDate(dated[1], true, true))) return [dated[1], dated[2]];
  for (const re of GLUED_LABELS) {
    const m = re.exec(t);
    if (m) return [m[1], m[2]];
  }
  // A field's number read short, glued to its abbreviated label (`4EXP:` for `4b EXP:`): the label stands apart.
  const shortNumbered = /^(\d{1,2}[a-d]?)((?:DOB|EXP|ISS|DLN?|SEX|HGT|CLASS)[:.#]?)$/i.exec(t);
  if (shortNumbered) return [shortNumbered[1], shortNumbered[2]];
  // An initial glued to the family name after it (`JOHN A.SMITH`).
  const initial = /^(\p{Lu}\.)(\p{Lu}{2,}[\p{Lu}'-]*)$/u.exec(t);
  if (initial) return [initial[1], initial[2]];
  // A house number glued to its street's name, on a line that ends with a street word (`11970WBROAD ST`).
  const house = /^(\d{1,6})(\p{Lu}{3,}.*)$/u.exec(t);
  if (house && streetLine) return [house[1], house[2]];
  return [t];
}

/** A value folded for comparing two engines' readings: letters and digits only, capitals, no accents. */
const foldValue = (v: unknown) => String(v ?? '').normalize('NFD').replace(/\p{M}+/gu, '').toUpperCase().replace(/[^\p{L}\p{N}]/gu, '');

/** Confidence of a field two engines read alike: both would have to be wrong the same way (at most 0.97). */
const agreed = (a: number, b: number) => round(Math.min(0.97, 1 - (1 - a) * (1 - b)));
/**
 * Confidence of a field the second engine alone read: PP-OCR's character scores are high even where it glued words
 * or dropped a space, so its own say is discounted.
 */
const SECOND_ALONE = 0.85;
/** Where the engines disagree, the value kept is reported unsure: below the 0.8 from which a check judges it. */
const DISAGREED_MAX = 0.6;

/** Age bounds of a card's holder (years) at the card's issue or, without one, at `today`. */
const AGE_MIN = 14;
const AGE_MAX = 110;

/**
 * The card's dates are consistent: birth before issue before expiry, the holder 14 to 110 years old at issue (or
 * today without an issue date), issue not in the future.
 */
function datesPlausible(d: { birth?: string; issue?: string; expiry?: string }, today: string): boolean {
  const { birth, issue, expiry } = d;
  if (birth && issue && !(birth < issue)) return false;
  if (issue && expiry && !(issue < expiry)) return false;
  if (birth && expiry && !(birth < expiry)) return false;
  if (issue && issue > today) return false;
  if (birth) {
    const at = issue ?? today;
    const age = Number(at.slice(0, 4)) - Number(birth.slice(0, 4)) - (at.slice(5) < birth.slice(5) ? 1 : 0);
    if (age < AGE_MIN || age > AGE_MAX) return false;
  }
  return true;
}

const DATE_FIELDS: Record<string, 'birth' | 'issue' | 'expiry'> = { birth_date: 'birth', issue_date: 'issue', expiry_date: 'expiry' };

/**
 * The printed face read by two OCR engines, combined field by field (`first`: tesseract's reading, `second`:
 * PP-OCR's). Both read the same value (letters and digits alike): it is more sure, and the first engine's spelling is
 * kept (tesseract keeps the spaces and accents PP-OCR drops: `Maélis-Gaélle, Marie` for `Maelis-Gaelle,Marie`).
 * One engine alone: its value (the second's discounted). They disagree: the value with the stronger evidence (the
 * card's dates consistent with the other fields, the value shown by the other engine's text too, then the reading's
 * own confidence) is kept, reported unsure (at most
 * 0.6: a check never judges it). Then the dates kept must be consistent together; those that are not and are not
 * agreed by both engines are reported unsure as well.
 */
export function combineIdFrontFields(
  first: Record<string, ReadField>,
  second: Record<string, ReadField>,
  opts: { firstLines?: readonly TextLine[]; secondLines?: readonly TextLine[]; today?: string } = {},
): Record<string, ReadField> {
  const today = opts.today ?? new Date().toISOString().slice(0, 10);
  /** A value of 4 characters or more the other engine's text shows on one of its lines (wherever it put it). */
  const shownBy = (lines: readonly TextLine[] | undefined, v: unknown) => {
    const f = foldValue(v);
    return f.length >= 4 && !!lines?.some((l) => foldValue(l.text).includes(f));
  };
  const out: Record<string, ReadField> = {};
  const disputed: Array<[string, ReadField, ReadField]> = [];
  const sure = new Set<string>();
  const has = (f: ReadField | undefined): f is ReadField => !!f && f.value !== null && f.value !== undefined && f.value !== '';
  for (const k of new Set([...Object.keys(first), ...Object.keys(second)])) {
    const a = first[k];
    const b = second[k];
    if (!has(a) && !has(b)) continue;
    if (!has(b)) out[k] = a!;
    else if (!has(a)) out[k] = { ...b, confidence: round(b.confidence * SECOND_ALONE) };
    else if (foldValue(a.value) === foldValue(b.value)) {
      // The box of the surer reading (tesseract's word boxes are its own; PP-OCR's glued parts are shares of one).
      out[k] = { ...a, confidence: agreed(a.confidence, b.confidence), source: a.confidence >= b.confidence ? a.source : b.source };
      sure.add(k);
    } else disputed.push([k, a, b]);
  }
  const dates = () => Object.fromEntries(Object.entries(DATE_FIELDS).filter(([k]) => has(out[k])).map(([k, n]) => [n, String(out[k].value)])) as { birth?: string; issue?: string; expiry?: string };
  // Disputed dates after the others (they are judged against those), the surest disagreement first.
  disputed.sort((x, y) => Number(x[0] in DATE_FIELDS) - Number(y[0] in DATE_FIELDS) || Math.max(y[1].confidence, y[2].confidence) - Math.max(x[1].confidence, x[2].confidence));
  for (const [k, a, b] of disputed) {
    const score = (f: ReadField) => {
      let s = f.confidence;
      // The other engine read this value too, for another field or none: it is on the card as read.
      if (shownBy(f === a ? opts.secondLines : opts.firstLines, f.value)) s += 1;
      if (k in DATE_FIELDS && !datesPlausible({ ...dates(), [DATE_FIELDS[k]]: String(f.value) }, today)) s -= 2;
      return s;
    };
    const win = score(b) > score(a) ? b : a;
    out[k] = { ...win, confidence: round(Math.min(DISAGREED_MAX, win.confidence * 0.75)) };
  }
  // The dates together: when they contradict each other, none of those not read alike by both engines is sure.
  if (!datesPlausible(dates(), today)) {
    for (const k of Object.keys(DATE_FIELDS)) if (has(out[k]) && !sure.has(k)) out[k] = { ...out[k], confidence: round(Math.min(out[k].confidence, DISAGREED_MAX)) };
  }
  return out;
}

/**
 * The face classified from both engines' text: the surer classification; the same type from both keeps the higher
 * confidence, and the US state both read alike is more sure (one read by one engine only keeps its own).
 */
export function classifyIdFrontBoth(first: readonly TextLine[], second: readonly TextLine[] | null): IdFrontClassification | null {
  const a = classifyIdFront(first);
  if (!second?.length) return a;
  const unglued = unglueWords(second);
  const b = classifyIdFront(unglued);
  if (!a || !b) return a ? withCountryOf(a, unglued) : b ? withCountryOf(b, first) : null;
  const win = b.confidence > a.confidence ? b : a;
  const other = win === a ? b : a;
  let region = win.region ?? (other.country === win.country ? other.region : null);
  if (a.region && b.region) {
    region = a.region.value === b.region.value
      ? { ...a.region, confidence: agreed(a.region.confidence, b.region.confidence) }
      : { ...win.region!, confidence: round(Math.min(DISAGREED_MAX, win.region!.confidence * 0.75)) };
  }
  return { ...win, region: win.country === 'USA' ? region : null };
}

/**
 * A classification without a country, from one engine's text, completed by the country the other engine's text names
 * (its title read by one, `REPUBLICA FEDERATIVA DO BRASIL` by the other): a notch less sure than both read by one.
 */
function withCountryOf(c: IdFrontClassification, other: readonly TextLine[]): IdFrontClassification {
  if (c.country) return c;
  const ev = gatherEvidence(prepareLines(other.slice(0, MAX_CARD_LINES)));
  if (!ev.country || ev.countryStrength < 0.9) return c;
  const kind = c.kind === 'id_card' && ev.country === 'USA' ? 'state_id' : c.kind;
  const type = typeFor(kind, ev.country);
  const confidence = c.confidence >= 0.6 ? 0.8 : 0.6;
  const candidates = [{ type, confidence }];
  if (KIND_TYPES[kind].universal !== type) candidates.push({ type: KIND_TYPES[kind].universal, confidence: round(confidence * 0.9) });
  return { ...c, type, confidence, country: ev.country, kind, region: ev.country === 'USA' ? ev.region : null, candidates };
}

/**
 * The printed fields read from both engines' lines and combined (combineIdFrontFields); the first engine's alone when
 * there is no second reading. The state and country come from the classification (`opts`), once.
 */
export function readIdFrontFieldsBoth(first: readonly TextLine[], second: readonly TextLine[] | null, entry: CatalogueEntry, wanted: readonly string[], opts: { country: string | null; region?: IdFrontClassification['region'] }): Record<string, ReadField> {
  const a = readIdFrontFields(first, entry, wanted, opts);
  if (!second?.length) return a;
  const b = readIdFrontFields(unglueWords(second), entry, wanted, opts);
  const fromClassification = (k: string) => k === 'region' || k === 'issuing_country';
  const combined = combineIdFrontFields(
    Object.fromEntries(Object.entries(a).filter(([k]) => !fromClassification(k))),
    Object.fromEntries(Object.entries(b).filter(([k]) => !fromClassification(k))),
    { firstLines: first, secondLines: second },
  );
  for (const k of ['region', 'issuing_country']) if (a[k] ?? b[k]) combined[k] = (a[k] ?? b[k])!;
  return combined;
}
