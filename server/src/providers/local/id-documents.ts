/**
 * Identity documents from deterministic evidence: a machine-readable zone (ICAO 9303) or an AAMVA PDF417 payload
 * becomes a catalogue type, a side and the fields the zone carries. Pure functions: no pixels, no I/O.
 *
 * The type comes from the zone's format, document code, issuing state and holder nationality, matched against the
 * catalogue (so a type added there is found without a change here); where two types are equally plausible (the
 * Spanish DNI and its back, an identity card and a residence permit of the same state) the caller's `expect`
 * breaks the tie, and otherwise the more general one wins with a lower confidence.
 */
import { states as ICAO_STATES } from 'mrz';
import { allEntries, getEntry, type CatalogueEntry } from '../../catalogue/index.ts';
import { parseAamva, type AamvaParseResult } from '../../validators/aamva.ts';
import { detectMrzFormat, parseMrz, type MrzParseResult } from '../../validators/mrz.ts';
import type { ReadField, Reading } from '../types.ts';
import type { Box } from './types.ts';

export interface Candidate {
  type: string;
  confidence: number;
}

export interface IdEvidenceReading {
  document: NonNullable<Reading['document']>;
  candidates: Candidate[];
  fields: Record<string, ReadField>;
}

/** What an MRZ reader hands over (see MrzReading): lines, and where they were. */
export interface MrzEvidence {
  lines: string[];
  /** Per line, per character confidence (0..1); defaults to 1. */
  charConfidence?: number[][];
  /** One box per line, normalised; fields get the part of the line that holds them. */
  lineBoxes?: Box[];
  page: number;
}

/** ICAO codes that are not ISO 3166-1 countries (organisations, British nationality classes, stateless, refugees). */
const NOT_ISO = new Set(['GBD', 'GBN', 'GBO', 'GBS', 'GBP', 'RKS', 'XXK', 'EUE', 'UNO', 'UNA', 'UNK', 'XBA', 'XIM', 'XCC', 'XCE', 'XCO', 'XEC', 'XPO', 'XES', 'XOM', 'XDC', 'XXA', 'XXB', 'XXC', 'XXX']);

/** The ISO alpha-3 country of an MRZ state code (`D` is Germany); null for specimen (`UTO`) and non-country codes. */
export function iso3(code: string | null): string | null {
  if (!code) return null;
  const c = code.replace(/</g, '');
  if (c === 'D' || c === 'BDR') return 'DEU'; // BDR: the Federal Republic's code on older German passports
  return c in ICAO_STATES && /^[A-Z]{3}$/.test(c) && !NOT_ISO.has(c) ? c : null;
}

const PARTICLES = new Set(['DE', 'DEL', 'LA', 'LAS', 'LOS', 'Y', 'I', 'DA', 'DO', 'DOS', 'DAS', 'VAN', 'VON', 'DER', 'DEN', 'DI', 'LE']);

/** Spanish-style double surname: the first surname with its particles, then the rest ("DE LA FUENTE GARCIA"). */
export function splitSurnames(surname: string): [string, string | null] {
  const words = surname.split(/\s+/).filter(Boolean);
  const first: string[] = [];
  let i = 0;
  while (i < words.length && PARTICLES.has(words[i])) first.push(words[i++]);
  if (i < words.length) first.push(words[i++]);
  const rest = words.slice(i).join(' ');
  return [first.join(' '), rest === '' ? null : rest];
}

type Family = 'passport' | 'visa' | 'identity' | 'residence';

/** Which family the document code and the holder say the zone belongs to, and how sure that is. */
function familyOf(code: string, format: string, issuer: string | null, nationality: string | null): { family: Family; sure: boolean } {
  if (code.startsWith('P')) return { family: 'passport', sure: true };
  if (code.startsWith('V') || format === 'MRVA' || format === 'MRVB') return { family: 'visa', sure: true };
  if (issuer === 'USA' && code.startsWith('C')) return { family: 'residence', sure: true };
  if (code[1] === 'R' || code === 'AR' || code === 'RP' || code === 'CR') return { family: 'residence', sure: true };
  // A card of one state held by a national of another is usually a residence document.
  const foreign = nationality !== null && issuer !== null && /^[A-Z]{3}$/.test(nationality) && nationality !== issuer;
  return { family: foreign ? 'residence' : 'identity', sure: !foreign };
}

const US_CODES: Record<string, string> = { IP: 'us_passport_card', IA: 'us_employment_authorization_document' };

function formatOk(entry: CatalogueEntry, format: string): boolean {
  if (entry.mrz === null) return false;
  if (entry.mrz === 'any') return true;
  if (format === 'FRENCH_NATIONAL_ID') return entry.mrz === 'TD2';
  return entry.mrz === format;
}

function familyOk(entry: CatalogueEntry, family: Family): boolean {
  const passport = entry.type.includes('passport') && !entry.type.includes('passport_card');
  switch (family) {
    case 'passport':
      return passport;
    case 'visa':
      return entry.type === 'visa';
    case 'residence':
      return entry.category === 'residence' && entry.type !== 'visa';
    case 'identity':
      return entry.category === 'identity' && !passport;
  }
}

/**
 * Candidate types for a zone, best first. A type of the issuing state beats a universal one; the caller's expected
 * types break ties between equally good ones.
 */
export function typesForMrz(parsed: MrzParseResult, expect: string[] | null): Candidate[] {
  const f = parsed.fields;
  if (!f || !parsed.format) return [];
  const code = (f.document_code ?? '').replace(/</g, '');
  const issuer = iso3(f.issuing_state);
  const nationality = iso3(f.nationality) ?? f.nationality;
  const { family, sure } = familyOf(code, parsed.format, issuer, nationality);
  const expected = new Set(expect ?? []);
  const special = issuer === 'USA' ? US_CODES[code] : undefined;

  const scored: Array<{ entry: CatalogueEntry; score: number }> = [];
  for (const entry of allEntries()) {
    if (!formatOk(entry, parsed.format)) continue;
    const national = issuer !== null && entry.countries.includes(issuer);
    // A foreign passport used in the US (with its I-94) is any state's passport but the US's own.
    const universal = entry.countries.includes('*') || (entry.type === 'us_foreign_passport_i94' && issuer !== 'USA');
    if (!national && !universal) continue;
    let score = 0;
    if (special) score = entry.type === special ? 10 : -5;
    else if (familyOk(entry, family)) score = 6;
    else if (!sure && (family === 'residence' ? familyOk(entry, 'identity') : familyOk(entry, 'residence'))) score = 3;
    else continue;
    if (national) score += 2;
    // Types whose MRZ the issuer uses for another document code (the US passport card is `IP`, not `ID`).
    if (!special && issuer === 'USA' && Object.values(US_CODES).includes(entry.type)) score -= 4;
    if (entry.type === 'es_dni_front') continue; // the front of a DNI has no MRZ
    // The caller's expectation decides among the plausible ones (a Spanish DNI is also a `national_id_card`).
    if (expected.has(entry.type) && score >= 6) score += 3;
    if (entry.type === 'us_foreign_passport_i94' && !expected.has(entry.type)) score -= 1;
    scored.push({ entry, score });
  }
  // A passport in a format no passport type of the catalogue declares (a TD2 passport) is still a passport.
  if (scored.length === 0 && family === 'passport') scored.push({ entry: getEntry('passport')!, score: 5 });
  scored.sort((a, b) => b.score - a.score || generality(a.entry) - generality(b.entry) || (a.entry.type < b.entry.type ? -1 : 1));
  if (scored.length === 0) return [];
  const top = scored[0].score;
  const tied = scored.filter((s) => s.score === top).length;
  // Confidence: all check digits and a national type of a sure family are strong evidence; a tie, a universal
  // type or a guessed family lowers it (the MRZ itself is still read exactly).
  let confidence = parsed.valid ? 0.97 : 0.7;
  if (!scored[0].entry.countries.includes(issuer ?? '')) confidence -= 0.07;
  if (!sure) confidence -= 0.15;
  if (tied > 1) confidence -= 0.05;
  const out: Candidate[] = [{ type: scored[0].entry.type, confidence: round(confidence) }];
  let rest = Math.max(0.01, 1 - confidence);
  for (const s of scored.slice(1, 3)) {
    rest = rest / 2;
    out.push({ type: s.entry.type, confidence: round(Math.max(0.01, s.score === top ? confidence - 0.02 : rest)) });
  }
  return out;
}

/** Rarer variants that share a zone with a commoner type: picked only when expected. */
const RARER = new Set(['es_eu_family_residence_card']);

/** When nothing else decides: a type's "both sides" variant before its one-side variants, common before rare. */
function generality(e: CatalogueEntry): number {
  return (e.type.endsWith('_back') || e.type.endsWith('_front') ? 1 : 0) + (RARER.has(e.type) ? 2 : 0);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Confidence and box of the characters [from, to) of line `line`. */
function spanOf(ev: MrzEvidence, line: number, from: number, to: number, valid: boolean): { confidence: number; source: ReadField['source'] } {
  const conf = ev.charConfidence?.[line]?.slice(from, to) ?? [];
  const min = conf.length ? Math.min(...conf) : 1;
  const confidence = round(Math.min(valid ? 0.99 : 0.8, min * (valid ? 1 : 0.85)));
  const box = ev.lineBoxes?.[line];
  const n = ev.lines[line]?.length ?? 1;
  const bbox: Box | null = box
    ? [round(box[0] + ((box[2] - box[0]) * from) / n), box[1], round(box[0] + ((box[2] - box[0]) * to) / n), box[3]]
    : null;
  return { confidence, source: { page: ev.page, bbox } };
}

/** A character of the zone: [line, index]. */
type Cell = [number, number];
const cellsOf = (line: number, from: number, to: number): Cell[] => Array.from({ length: Math.max(0, to - from) }, (_, k) => [line, from + k] as Cell);

/**
 * ReadField.chars of a value taken from the zone: the confidences of the characters it was read from, aligned with
 * the value's characters. Values are the zone's characters with `<` as a space and the outer fillers trimmed
 * (validators/mrz.ts parseMrz), so a value is found in its cells read that way, from `startAt`. When it cannot be
 * found (a transformed value such as `D` -> `DEU`), every character gets the least confidence of the cells.
 * Undefined without per-character confidences (a reader that gives none: the field's confidence stands for them).
 */
function charsOf(ev: MrzEvidence, value: unknown, cells: Cell[], startAt = 0): number[] | undefined {
  const cc = ev.charConfidence;
  if (!cc || typeof value !== 'string' || value === '') return undefined;
  const at = ([l, i]: Cell) => cc[l]?.[i] ?? 1;
  const text = cells.map(([l, i]) => (ev.lines[l]?.[i] === '<' ? ' ' : (ev.lines[l]?.[i] ?? '\0'))).join('');
  const k = text.indexOf(value, startAt);
  if (k >= 0) return cells.slice(k, k + value.length).map(at);
  const min = cells.length ? Math.min(...cells.map(at)) : 1;
  return Array.from(value, () => min);
}

/**
 * ReadField.chars of a date read as `YYMMDD` and given as `YYYY-MM-DD`: the century takes the lesser confidence of
 * the two year digits it is inferred from, each digit its own, the dashes 1 (nothing read: like the `\n` of `mrz`).
 */
function dateChars(ev: MrzEvidence, value: unknown, cells: Cell[]): number[] | undefined {
  const cc = ev.charConfidence;
  if (!cc || typeof value !== 'string' || value.length !== 10 || cells.length !== 6) return undefined;
  const [y1, y2, m1, m2, d1, d2] = cells.map(([l, i]) => cc[l]?.[i] ?? 1);
  const century = Math.min(y1, y2);
  return [century, century, y1, y2, 1, m1, m2, 1, d1, d2];
}

/** Where each MRZ field sits: [line, from, to) per format. */
function positions(format: string, lines: string[]): Record<string, [number, number, number]> {
  switch (format) {
    case 'TD1':
      return {
        code: [0, 0, 2], state: [0, 2, 5], number: [0, 5, 14], optional1: [0, 15, 30], birth: [1, 0, 6], sex: [1, 7, 8], expiry: [1, 8, 14],
        nationality: [1, 15, 18], optional2: [1, 18, 29], name: [2, 0, 30],
      };
    case 'TD2':
    case 'MRVB':
      return { code: [0, 0, 2], state: [0, 2, 5], name: [0, 5, 36], number: [1, 0, 9], nationality: [1, 10, 13], birth: [1, 13, 19], sex: [1, 20, 21], expiry: [1, 21, 27], optional1: [1, 28, lines[1]?.length === 36 ? 35 : 36] };
    case 'FRENCH_NATIONAL_ID':
      // surname on line 1, given names on line 2; the card is issued to French nationals only: the issuing state
      // (FRA) stands for the nationality
      return { code: [0, 0, 2], state: [0, 2, 5], name: [0, 5, 30], given: [1, 13, 27], number: [1, 0, 12], nationality: [0, 2, 5], birth: [1, 27, 33], sex: [1, 34, 35] };
    default: // TD3, MRVA
      return { code: [0, 0, 2], state: [0, 2, 5], name: [0, 5, 44], number: [1, 0, 9], nationality: [1, 10, 13], birth: [1, 13, 19], sex: [1, 20, 21], expiry: [1, 21, 27], optional1: [1, 28, 42] };
  }
}

/**
 * The reading an MRZ gives: type, side and the fields it carries (named as the chosen type names them). Returns
 * null when the lines are not an MRZ of a known format.
 */
export function readingFromMrz(ev: MrzEvidence, opts: { expect: string[] | null; referenceDate: string }): IdEvidenceReading | null {
  const parsed = parseMrz(ev.lines, { referenceDate: opts.referenceDate });
  const format = parsed.format ?? detectMrzFormat(ev.lines);
  if (!parsed.fields || !format) return null;
  const candidates = typesForMrz(parsed, opts.expect);
  if (candidates.length === 0) return null;
  const entry = getEntry(candidates[0].type)!;
  const f = parsed.fields;
  const pos = positions(format, ev.lines);
  const fields: Record<string, ReadField> = {};
  const cells = (where: keyof typeof pos): Cell[] => (pos[where] ? cellsOf(...pos[where]) : []);
  /** `chars`: per-character confidences (default: the value found in the field's cells, see charsOf). */
  const put = (name: string, value: unknown, where: keyof typeof pos | null, chars?: number[]) => {
    if (!entry.fields.includes(name) || value === null || value === undefined || value === '') return;
    const p = where ? pos[where] : undefined;
    const span = p ? spanOf(ev, p[0], p[1], p[2], parsed.valid) : { confidence: parsed.valid ? 0.99 : 0.8, source: { page: ev.page, bbox: null } };
    fields[name] = { value, confidence: span.confidence, source: span.source, origin: 'mrz' };
    const c = chars ?? (where ? charsOf(ev, value, cells(where)) : undefined);
    if (c && typeof value === 'string' && c.length === value.length) {
      fields[name].chars = c;
      // the field is as sure as its own characters, not as the least sure one of the zone field it shares (the
      // surname and the given names share the name field: an unsure letter of one says nothing of the other)
      if (c.length) fields[name].confidence = round(Math.min(parsed.valid ? 0.99 : 0.8, Math.min(...c) * (parsed.valid ? 1 : 0.85)));
    }
  };

  const issuer = iso3(f.issuing_state);
  const optional = f.optional_data[0] ?? null;
  // The Spanish DNI (and a Spanish card read as a national id) carries the DNI number in the optional data and the
  // card's own number (IDESP) in the document number field; Spanish residence cards carry the NIE there.
  const dniInOptional = issuer === 'ESP' && format === 'TD1' && optional !== null && /^\d{8}[A-Z]$/.test(optional);
  if (dniInOptional && entry.category === 'identity') {
    put('document_number', optional, 'optional1');
    put('support_number', f.document_number, 'number');
  } else if (entry.type === 'br_cin' && optional) {
    put('document_number', optional, 'optional1');
  } else {
    // a long document number (check digit `<`) continues in the optional data (validators/mrz.ts docNumber)
    const numberCells = pos.number && ev.lines[pos.number[0]]?.[pos.number[2]] === '<' && pos.optional1 ? [...cells('number'), ...cells('optional1')] : cells('number');
    put('document_number', f.document_number, 'number', charsOf(ev, f.document_number, numberCells));
    // Spanish passports and residence cards carry the holder's DNI or NIE as personal number / optional data.
    if (optional && issuer === 'ESP' && /^[0-9XYZ]\d{7}[A-Z]$/.test(optional)) put('id_number', optional, 'optional1');
  }
  // names: the surname before the zone's `<<`, the given names after it; full_name is "given surname", its space
  // standing for the `<<` (the lesser confidence of the two)
  // (the French 1988 card has them in two fields of their own: `name` is the surname, `given` the given names)
  const nameCells = cells('name');
  const sep = pos.given ? -1 : nameCells.map(([l, i]) => ev.lines[l]?.[i] ?? '').join('').indexOf('<<');
  const surnameCells = sep < 0 ? nameCells : nameCells.slice(0, sep);
  const givenCells = pos.given ? cells('given') : sep < 0 ? [] : nameCells.slice(sep + 2);
  const surname = f.surname ?? '';
  if (entry.fields.includes('second_last_name')) {
    const [first, second] = splitSurnames(surname);
    put('last_name', first, 'name', charsOf(ev, first, surnameCells));
    put('second_last_name', second, 'name', charsOf(ev, second, surnameCells, first.length));
  } else put('last_name', surname, 'name', charsOf(ev, surname, surnameCells));
  put('first_name', f.given_names, pos.given ? 'given' : 'name', charsOf(ev, f.given_names, givenCells));
  const givenChars = charsOf(ev, f.given_names, givenCells);
  const surnameChars = charsOf(ev, f.surname, surnameCells);
  const sepConf = sep < 0 || !ev.charConfidence ? 1 : Math.min(...nameCells.slice(sep, sep + 2).map(([l, i]) => ev.charConfidence![l]?.[i] ?? 1));
  const fullChars = f.given_names && f.surname ? (givenChars && surnameChars ? [...givenChars, sepConf, ...surnameChars] : undefined) : (givenChars ?? surnameChars);
  put('full_name', [f.given_names, f.surname].filter(Boolean).join(' '), 'name', fullChars);
  put('sex', f.sex, 'sex');
  put('nationality', iso3(f.nationality) ?? f.nationality, 'nationality');
  put('birth_date', f.birth_date, 'birth', dateChars(ev, f.birth_date, cells('birth')));
  put('expiry_date', f.expiry_date, 'expiry', dateChars(ev, f.expiry_date, cells('expiry')));
  put('issuing_country', issuer ?? f.issuing_state, 'state');
  if (f.personal_number && !dniInOptional) put('personal_number', f.personal_number, 'optional1');
  put('mrz', ev.lines.join('\n'), null, ev.charConfidence ? ev.lines.flatMap((l, li) => [...(li > 0 ? [1] : []), ...Array.from(l, (_, i) => ev.charConfidence![li]?.[i] ?? 1)]) : undefined);
  if (fields.mrz && ev.lineBoxes?.length) {
    const b = ev.lineBoxes;
    fields.mrz.source = { page: ev.page, bbox: [Math.min(...b.map((x) => x[0])), b[0][1], Math.max(...b.map((x) => x[2])), b[b.length - 1][3]] };
  }
  return {
    document: { type: entry.type, confidence: candidates[0].confidence, side: null, country: issuer },
    candidates,
    fields,
  };
}

/**
 * The reading an AAMVA PDF417 payload gives (US and Canadian licences and ids): driving licence or state id by the
 * subfile type, and the payload's fields. Null when the payload is not AAMVA.
 */
export function readingFromAamva(payload: string, where: { page: number; bbox: Box | null }, opts: { expect: string[] | null }): IdEvidenceReading | null {
  const parsed: AamvaParseResult = parseAamva(payload);
  if (!parsed.fields || parsed.subfiles.length === 0) return null;
  const f = parsed.fields;
  const kinds = parsed.subfiles.map((s) => s.subfile_type);
  const idOnly = kinds.includes('ID') && !kinds.includes('DL');
  const types = idOnly ? ['us_state_id', 'us_drivers_license'] : ['us_drivers_license', 'us_state_id'];
  if (opts.expect?.includes(types[1]) && !opts.expect.includes(types[0]) && !idOnly && kinds.includes('ID')) types.reverse();
  const entry = getEntry(types[0])!;
  const confidence = parsed.valid ? 0.96 : 0.75;
  const fields: Record<string, ReadField> = {};
  const put = (name: string, value: unknown) => {
    if (!entry.fields.includes(name) || value === null || value === undefined || value === '') return;
    fields[name] = { value, confidence: parsed.valid ? 0.98 : 0.8, source: where, origin: 'barcode' };
  };
  put('document_number', f.document_number);
  put('last_name', f.surname);
  put('first_name', f.given_names ?? f.first_name);
  put('birth_date', f.birth_date);
  put('sex', f.sex);
  put('address', f.street);
  put('city', f.city);
  put('region', f.state);
  put('postal_code', f.postal_code);
  put('issue_date', f.issue_date);
  put('expiry_date', f.expiry_date);
  put('height', f.height);
  put('eye_color', f.eye_color);
  put('barcode_data', payload);
  return {
    document: { type: entry.type, confidence, side: 'back', country: f.country ?? 'USA' },
    candidates: [
      { type: types[0], confidence },
      { type: types[1], confidence: round((1 - confidence) / 2) },
    ],
    fields,
  };
}
