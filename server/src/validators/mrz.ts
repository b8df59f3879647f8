/**
 * mrz_checksums and mrz_matches_visual (ICAO 9303 machine readable zones).
 *
 * Formats: TD1 (3x30), TD2 (2x36), TD3 (2x44), MRV-A (2x44, first char V), MRV-B (2x36, V),
 * French national ID 1988-2021 (2x36, IDFRA), plus the French and Swiss driving licence
 * formats handled by the `mrz` package.
 *
 * The `mrz` npm package (cheminfo) was evaluated against the shared vectors: its check digits
 * agree with the independently recomputed ones, but it (a) rejects unknown state codes such as
 * the ICAO specimen `UTO` and then nulls issuing state and nationality, (b) has no MRV-A/MRV-B
 * support, (c) does not report expected vs found digits and (d) does no century inference.
 * It is therefore used for the French and Swiss driving licence layouts (entirely) and run on
 * every MRZ as a second opinion reported in `evidence.library`; the ICAO layouts are sliced
 * here and every check digit is recomputed (ICAO 9303-3, weights 7-3-1).
 */
import { parse as mrzParse } from 'mrz';
import { fuzzyNameMatch, normaliseName } from './names.ts';
import { makeResult, notRun, isIsoDate, isoDate, type ValidatorResult } from './types.ts';

export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB' | 'FRENCH_NATIONAL_ID' | 'FRENCH_DRIVING_LICENSE' | 'SWISS_DRIVING_LICENSE';
export type MrzCheckName = 'document_number' | 'birth_date' | 'expiry_date' | 'personal_number' | 'composite';

export interface MrzCheck {
  name: MrzCheckName;
  input: string;
  expected: string | null;
  found: string;
  valid: boolean;
  variant?: string;
}

export interface MrzFields {
  document_code: string | null;
  issuing_state: string | null;
  document_number: string | null;
  surname: string | null;
  given_names: string | null;
  /** true when the name field is completely filled (the name may be truncated). */
  names_may_be_truncated: boolean;
  nationality: string | null;
  birth_date: string | null;
  birth_date_raw: string | null;
  sex: 'M' | 'F' | 'X' | null;
  expiry_date: string | null;
  expiry_date_raw: string | null;
  optional_data: string[];
  personal_number: string | null;
  issue_date_raw?: string | null;
}

export interface MrzParseResult {
  format: MrzFormat | null;
  lines: string[];
  valid: boolean;
  checks: MrzCheck[];
  fields: MrzFields | null;
  errors: string[];
  library: { format: string | null; valid: boolean | null; errors: string[] } | null;
}

const VALUES = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** ICAO 9303-3 check digit (weights 7,3,1; `<` = 0, A-Z = 10-35). Returns null on other characters. */
export function mrzCheckDigit(s: string): string | null {
  const w = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const v = c === '<' ? 0 : VALUES.indexOf(c);
    if (v < 0) return null;
    sum += v * w[i % 3];
  }
  return String(sum % 10);
}

function check(name: MrzCheckName, input: string, found: string, variant?: string): MrzCheck {
  const expected = mrzCheckDigit(input);
  const c: MrzCheck = { name, input, expected, found, valid: expected !== null && expected === found };
  if (variant) c.variant = variant;
  return c;
}

export function normaliseMrzLines(input: string | string[]): string[] {
  const arr = Array.isArray(input) ? input : String(input).split(/\r?\n/);
  return arr.map((l) => l.replace(/\s+/g, '').toUpperCase()).filter((l) => l.length > 0);
}

export function detectMrzFormat(lines: string[]): MrzFormat | null {
  const L = lines.map((l) => l.length);
  if (lines.length === 3 && L.every((x) => x === 30)) return 'TD1';
  if (lines.length === 2 && L.every((x) => x === 44)) return lines[0][0] === 'V' ? 'MRVA' : 'TD3';
  if (lines.length === 2 && L.every((x) => x === 36)) {
    if (lines[0][0] === 'V') return 'MRVB';
    if (lines[0].startsWith('IDFRA') && lines[1].slice(10, 13) !== 'FRA') return 'FRENCH_NATIONAL_ID';
    return 'TD2';
  }
  if (lines.length === 1 && L[0] === 30) return 'FRENCH_DRIVING_LICENSE';
  if (lines.length === 3 && L[0] === 9 && L[1] === 30 && L[2] === 30) return 'SWISS_DRIVING_LICENSE';
  return null;
}

function clean(s: string): string {
  return s.replace(/<+$/g, '').replace(/</g, ' ').trim();
}

function splitName(field: string): { surname: string | null; given: string | null; full: boolean } {
  const full = !field.endsWith('<');
  const idx = field.indexOf('<<');
  if (idx < 0) return { surname: clean(field) || null, given: null, full };
  return { surname: clean(field.slice(0, idx)) || null, given: clean(field.slice(idx + 2)) || null, full };
}

/**
 * A holder is born before their document expires: a birth century that puts it after the expiry (`121212` born, an
 * expiry of 2011) is the century before (1912). Two-digit years say nothing else; this is the only evidence.
 */
function birthBefore(birth: string | null, expiry: string | null): string | null {
  if (!birth || !expiry || birth < expiry) return birth;
  const earlier = isoDate(Number(birth.slice(0, 4)) - 100, Number(birth.slice(5, 7)), Number(birth.slice(8, 10)));
  return earlier ?? birth;
}

/** YYMMDD to YYYY-MM-DD. kind 'birth': latest century not after the reference date; 'expiry': within 50 years after it. */
export function mrzDate(raw: string, kind: 'birth' | 'expiry', referenceDate?: string): string | null {
  if (!/^\d{6}$/.test(raw)) return null;
  const yy = Number(raw.slice(0, 2));
  const mm = Number(raw.slice(2, 4));
  const dd = Number(raw.slice(4, 6));
  if (!referenceDate || !isIsoDate(referenceDate)) return null;
  const refYear = Number(referenceDate.slice(0, 4));
  if (kind === 'birth') {
    for (const c of [Math.floor(refYear / 100) * 100, Math.floor(refYear / 100) * 100 - 100]) {
      const d = isoDate(c + yy, mm, dd);
      if (d && d <= referenceDate) return d;
      if (!d && isoDate(c - 100 + yy, mm, dd) === null && c + yy <= refYear) return null;
    }
    return isoDate(Math.floor(refYear / 100) * 100 - 200 + yy, mm, dd);
  }
  const base = Math.floor(refYear / 100) * 100;
  let y = base + yy;
  if (y > refYear + 50) y -= 100;
  else if (y < refYear - 49) y += 100;
  return isoDate(y, mm, dd);
}

function sexOf(c: string): 'M' | 'F' | 'X' | null {
  return c === 'M' ? 'M' : c === 'F' ? 'F' : c === '<' || c === 'X' ? 'X' : null;
}

function state(s: string): string | null {
  const v = s.replace(/<+$/, '');
  return v || null;
}

/** TD1/TD2 document number, with the long-number rule (number continues in the optional data). */
function docNumber(num9: string, cd: string, optional: string): { value: string; checks: MrzCheck[] } {
  if (cd !== '<') return { value: num9.replace(/<+$/, ''), checks: [check('document_number', num9, cd)] };
  const m = /^([0-9A-Z]*)/.exec(optional)!;
  const ext = m[1];
  const value = num9 + ext.slice(0, -1);
  const found = ext.slice(-1);
  const icao = check('document_number', value, found, 'long_icao');
  if (icao.valid) return { value, checks: [icao] };
  const belgian = check('document_number', num9 + '<' + ext.slice(0, -1), found, 'long_with_filler');
  return { value, checks: [belgian.valid ? belgian : icao] };
}

function libraryParse(lines: string[]): MrzParseResult['library'] {
  try {
    const r = mrzParse(lines);
    return { format: r.format, valid: r.valid, errors: r.details.filter((d) => !d.valid).map((d) => `${d.label}: ${d.error ?? 'invalid'}`) };
  } catch (e) {
    return { format: null, valid: null, errors: [(e as Error).message] };
  }
}

/** Parse an MRZ and recompute every check digit. `referenceDate` (YYYY-MM-DD) drives century inference. */
export function parseMrz(input: string | string[], opts: { referenceDate?: string } = {}): MrzParseResult {
  const lines = normaliseMrzLines(input);
  const format = detectMrzFormat(lines);
  const ref = opts.referenceDate;
  const errors: string[] = [];
  if (!format) {
    return { format: null, lines, valid: false, checks: [], fields: null, errors: ['unrecognised_format'], library: null };
  }
  if (lines.some((l) => /[^0-9A-Z<]/.test(l))) errors.push('invalid_characters');
  const library = libraryParse(lines);
  const checks: MrzCheck[] = [];
  let fields: MrzFields;
  const base = (code: string, st: string): MrzFields => ({
    document_code: clean(code) || null, issuing_state: state(st), document_number: null, surname: null, given_names: null,
    names_may_be_truncated: false, nationality: null, birth_date: null, birth_date_raw: null, sex: null,
    expiry_date: null, expiry_date_raw: null, optional_data: [], personal_number: null,
  });
  const setDates = (f: MrzFields, birth: string, expiry: string | null) => {
    f.birth_date_raw = birth;
    f.birth_date = mrzDate(birth, 'birth', ref);
    if (expiry !== null) {
      f.expiry_date_raw = expiry;
      f.expiry_date = mrzDate(expiry, 'expiry', ref);
    }
    f.birth_date = birthBefore(f.birth_date, f.expiry_date);
  };
  const [l1, l2, l3] = lines;
  switch (format) {
    case 'TD1': {
      fields = base(l1.slice(0, 2), l1.slice(2, 5));
      const dn = docNumber(l1.slice(5, 14), l1[14], l1.slice(15, 30));
      checks.push(...dn.checks);
      fields.document_number = dn.value;
      checks.push(check('birth_date', l2.slice(0, 6), l2[6]), check('expiry_date', l2.slice(8, 14), l2[14]));
      checks.push(check('composite', l1.slice(5, 30) + l2.slice(0, 7) + l2.slice(8, 15) + l2.slice(18, 29), l2[29]));
      fields.sex = sexOf(l2[7]);
      fields.nationality = state(l2.slice(15, 18));
      setDates(fields, l2.slice(0, 6), l2.slice(8, 14));
      fields.optional_data = [clean(l1[14] === '<' ? l1.slice(15 + (/^[0-9A-Z]*/.exec(l1.slice(15))![0].length)) : l1.slice(15, 30)), clean(l2.slice(18, 29))].filter(Boolean);
      const n = splitName(l3);
      Object.assign(fields, { surname: n.surname, given_names: n.given, names_may_be_truncated: n.full });
      break;
    }
    case 'TD2':
    case 'MRVB': {
      fields = base(l1.slice(0, 2), l1.slice(2, 5));
      const n = splitName(l1.slice(5, 36));
      Object.assign(fields, { surname: n.surname, given_names: n.given, names_may_be_truncated: n.full });
      const dn = format === 'TD2' ? docNumber(l2.slice(0, 9), l2[9], l2.slice(28, 35)) : { value: l2.slice(0, 9).replace(/<+$/, ''), checks: [check('document_number', l2.slice(0, 9), l2[9])] };
      checks.push(...dn.checks);
      fields.document_number = dn.value;
      fields.nationality = state(l2.slice(10, 13));
      checks.push(check('birth_date', l2.slice(13, 19), l2[19]), check('expiry_date', l2.slice(21, 27), l2[27]));
      fields.sex = sexOf(l2[20]);
      setDates(fields, l2.slice(13, 19), l2.slice(21, 27));
      if (format === 'TD2') {
        checks.push(check('composite', l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, 35), l2[35]));
        fields.optional_data = [clean(l2.slice(28, 35))].filter(Boolean);
      } else fields.optional_data = [clean(l2.slice(28, 36))].filter(Boolean);
      break;
    }
    case 'TD3':
    case 'MRVA': {
      fields = base(l1.slice(0, 2), l1.slice(2, 5));
      const n = splitName(l1.slice(5, 44));
      Object.assign(fields, { surname: n.surname, given_names: n.given, names_may_be_truncated: n.full });
      checks.push(check('document_number', l2.slice(0, 9), l2[9]));
      fields.document_number = l2.slice(0, 9).replace(/<+$/, '');
      fields.nationality = state(l2.slice(10, 13));
      checks.push(check('birth_date', l2.slice(13, 19), l2[19]), check('expiry_date', l2.slice(21, 27), l2[27]));
      fields.sex = sexOf(l2[20]);
      setDates(fields, l2.slice(13, 19), l2.slice(21, 27));
      if (format === 'TD3') {
        const pn = l2.slice(28, 42);
        // An empty personal number may carry '<' (or 0) as its check digit.
        const pc = check('personal_number', pn, l2[42]);
        if (!pc.valid && /^<+$/.test(pn) && l2[42] === '<') {
          pc.valid = true;
          pc.variant = 'empty_filler';
        }
        checks.push(pc);
        checks.push(check('composite', l2.slice(0, 10) + l2.slice(13, 20) + l2.slice(21, 43), l2[43]));
        fields.personal_number = clean(pn) || null;
        fields.optional_data = fields.personal_number ? [fields.personal_number] : [];
      } else fields.optional_data = [clean(l2.slice(28, 44))].filter(Boolean);
      break;
    }
    case 'FRENCH_NATIONAL_ID': {
      fields = base(l1.slice(0, 2), l1.slice(2, 5));
      fields.surname = clean(l1.slice(5, 30)) || null;
      fields.names_may_be_truncated = !l1.slice(5, 30).endsWith('<');
      fields.given_names = clean(l2.slice(13, 27).replace(/<<.*$/, '')) || null;
      fields.document_number = l2.slice(0, 12);
      fields.issue_date_raw = l2.slice(0, 4);
      fields.nationality = 'FRA';
      checks.push(check('document_number', l2.slice(0, 12), l2[12]));
      checks.push(check('birth_date', l2.slice(27, 33), l2[33]));
      checks.push(check('composite', l1 + l2.slice(0, 35), l2[35]));
      fields.sex = sexOf(l2[34]);
      setDates(fields, l2.slice(27, 33), null);
      fields.optional_data = [clean(l1.slice(30, 36))].filter(Boolean);
      break;
    }
    default: {
      // Driving licence layouts: delegated entirely to the mrz package.
      let r;
      try {
        r = mrzParse(lines);
      } catch (e) {
        return { format, lines, valid: false, checks: [], fields: null, errors: [(e as Error).message], library };
      }
      const f = r.fields;
      fields = base(f.documentCode ?? '', f.issuingState ?? '');
      fields.document_number = r.documentNumber ?? f.documentNumber ?? null;
      fields.surname = f.lastName ?? null;
      fields.given_names = f.firstName ?? null;
      fields.birth_date_raw = f.birthDate ?? null;
      fields.birth_date = f.birthDate ? mrzDate(f.birthDate, 'birth', ref) : null;
      fields.expiry_date_raw = f.expirationDate ?? null;
      fields.expiry_date = f.expirationDate ? mrzDate(f.expirationDate, 'expiry', ref) : null;
      fields.birth_date = birthBefore(fields.birth_date, fields.expiry_date);
      for (const d of r.details) {
        if (d.field === 'documentNumberCheckDigit') checks.push({ name: 'document_number', input: '', expected: null, found: d.value ?? '', valid: d.valid });
        if (d.field === 'compositeCheckDigit') checks.push({ name: 'composite', input: '', expected: null, found: d.value ?? '', valid: d.valid });
      }
      if (!r.valid) errors.push(...library!.errors);
      return { format, lines, valid: r.valid, checks, fields, errors, library };
    }
  }
  const valid = errors.length === 0 && checks.every((c) => c.valid);
  return { format, lines, valid, checks, fields, errors, library };
}

/**
 * A national format printed on the ICAO size a type declares: the French identity card of 1988-2021 is a 2 x 36 zone
 * (the catalogue's `fr_cni_old` declares TD2, its size), checked with its own rules.
 */
function sizeOf(format: MrzFormat, expected: 'TD1' | 'TD2' | 'TD3'): boolean {
  return format === 'FRENCH_NATIONAL_ID' && expected === 'TD2';
}

/** mrz_checksums validator. */
export function validateMrzChecksums(input: string | string[], opts: { referenceDate?: string; expectedFormat?: 'TD1' | 'TD2' | 'TD3' | 'any' } = {}): ValidatorResult {
  const r = parseMrz(input, opts);
  let reason = 'ok';
  if (!r.format) reason = 'unrecognised_format';
  else if (opts.expectedFormat && opts.expectedFormat !== 'any' && r.format !== opts.expectedFormat && !sizeOf(r.format, opts.expectedFormat)) reason = 'unexpected_format';
  else if (r.errors.includes('invalid_characters')) reason = 'invalid_characters';
  else if (!r.valid) reason = 'invalid_check_digit';
  const passed = reason === 'ok';
  const failed = r.checks.filter((c) => !c.valid).map((c) => c.name);
  const evidence = { format: r.format, lines: r.lines, checks: r.checks, fields: r.fields, errors: r.errors, library: r.library };
  // A zone whose format cannot be told (or is another type's, which the type rule judges) or that holds characters no
  // MRZ has was not read as an MRZ: nothing is proven about its check digits either way.
  if (reason !== 'ok' && reason !== 'invalid_check_digit') return notRun('mrz_checksums', reason, evidence, { fields: ['mrz'] });
  return makeResult('mrz_checksums', passed, reason, evidence, {
    params: failed.length ? { failed: failed.join(',') } : {},
    fields: ['mrz'],
  });
}

// ------------------------------------------------------------------ mrz_matches_visual

/** ICAO 9303-3 transliterations, for visual names written with national characters. */
const ICAO_TRANSLIT: Array<[RegExp, string]> = [
  [/[ÄÆ]/gi, 'AE'], [/[ÖØŒ]/gi, 'OE'], [/Ü/gi, 'UE'], [/Å/gi, 'AA'], [/ß/g, 'SS'], [/Ñ/gi, 'NXX'], [/Þ/gi, 'TH'], [/Ĳ/gi, 'IJ'],
];

function mrzFold(s: string): string {
  return normaliseName(s.replace(/</g, ' ')).replace(/[^a-z ]/g, '').replace(/\s+/g, ' ').trim();
}

function nameVariants(visual: string): string[] {
  const plain = mrzFold(visual);
  let t = visual;
  for (const [re, rep] of ICAO_TRANSLIT) t = t.replace(re, rep);
  const translit = mrzFold(t);
  return [...new Set([plain, translit])];
}

export interface NameComparison { ok: boolean; method: string; mrz: string; visual: string }

/** Compare an MRZ name with a visual one: folded, `<` as space, truncation and transliteration tolerated. */
export function compareMrzName(mrzName: string | null, visual: string | null | undefined, mayBeTruncated = true): NameComparison {
  const m = mrzFold(mrzName ?? '');
  if (!visual) return { ok: false, method: 'missing', mrz: m, visual: '' };
  for (const v of nameVariants(visual)) {
    if (v === m) return { ok: true, method: 'exact', mrz: m, visual: v };
    const mj = m.replace(/ /g, '');
    const vj = v.replace(/ /g, '');
    if (mj === vj) return { ok: true, method: 'spacing', mrz: m, visual: v };
    if (mayBeTruncated && mj.length >= 2 && vj.startsWith(mj)) return { ok: true, method: 'truncated', mrz: m, visual: v };
    // TD1/TD3 truncation may keep initials of the last given names (e.g. "ANDRE ESTEV").
    if (mayBeTruncated && v.startsWith(m.slice(0, Math.max(1, m.length - 1)))) return { ok: true, method: 'truncated', mrz: m, visual: v };
  }
  const fz = fuzzyNameMatch(m, nameVariants(visual)[0]);
  if (fz.match) return { ok: true, method: `fuzzy_${fz.method}`, mrz: m, visual: fz.b };
  return { ok: false, method: 'mismatch', mrz: m, visual: nameVariants(visual)[0] };
}

export interface VisualFields {
  document_number?: string | null;
  surname?: string | null;
  last_name?: string | null;
  given_names?: string | null;
  first_name?: string | null;
  full_name?: string | null;
  birth_date?: string | null;
  expiry_date?: string | null;
  nationality?: string | null;
  sex?: string | null;
}

const ALPHA2_TO_3: Record<string, string> = {
  ES: 'ESP', PT: 'PRT', FR: 'FRA', IT: 'ITA', DE: 'D', BE: 'BEL', NL: 'NLD', GB: 'GBR', US: 'USA', CH: 'CHE', AT: 'AUT', IE: 'IRL', BR: 'BRA',
  MX: 'MEX', AR: 'ARG', CO: 'COL', MA: 'MAR', RO: 'ROU', PL: 'POL', SE: 'SWE', FI: 'FIN', DK: 'DNK', NO: 'NOR', GR: 'GRC', CN: 'CHN',
};

function normNat(s: string): string {
  const v = s.trim().toUpperCase();
  if (v === 'DEU') return 'D';
  return ALPHA2_TO_3[v] ?? v;
}

function normSexVisual(s: string): 'M' | 'F' | 'X' | null {
  const v = normaliseName(s).toUpperCase();
  if (['M', 'MALE', 'H', 'HOMBRE', 'V', 'VARON', 'MASCULINO', 'MASCULIN', 'HOMME'].includes(v)) return 'M';
  if (['F', 'FEMALE', 'MUJER', 'FEMENINO', 'FEMININ', 'FEMME', 'W'].includes(v)) return 'F';
  if (['X', '<', 'NONSPECIFIED'].includes(v)) return 'X';
  return null;
}

const alnum = (s: string) => s.toUpperCase().replace(/[^0-9A-Z]/g, '');

/**
 * mrz_matches_visual: compare MRZ fields with the visual (printed) fields. Only fields present on
 * both sides are compared; passes when all compared fields agree.
 */
export function mrzMatchesVisual(mrz: MrzParseResult | string | string[], visual: VisualFields, opts: { referenceDate?: string } = {}): ValidatorResult {
  const r = typeof mrz === 'string' || Array.isArray(mrz) ? parseMrz(mrz, opts) : mrz;
  if (!r.fields) return notRun('mrz_matches_visual', 'mrz_unreadable', { format: r.format, errors: r.errors });
  const f = r.fields;
  const compared: Record<string, { mrz: unknown; visual: unknown; ok: boolean; method?: string }> = {};
  const surname = visual.surname ?? visual.last_name;
  const given = visual.given_names ?? visual.first_name;
  if (surname && f.surname !== null) {
    const c = compareMrzName(f.surname, surname, f.names_may_be_truncated || r.format === 'FRENCH_NATIONAL_ID');
    compared.surname = { mrz: f.surname, visual: surname, ok: c.ok, method: c.method };
  }
  if (given && f.given_names !== null) {
    const c = compareMrzName(f.given_names, given, true);
    compared.given_names = { mrz: f.given_names, visual: given, ok: c.ok, method: c.method };
  }
  if (!surname && !given && visual.full_name) {
    const mrzFull = [f.surname, f.given_names].filter(Boolean).join(' ');
    const fz = fuzzyNameMatch(mrzFold(mrzFull), mrzFold(visual.full_name));
    const c = fz.match ? { ok: true, method: `fuzzy_${fz.method}` } : compareMrzName(mrzFull, visual.full_name, f.names_may_be_truncated);
    compared.full_name = { mrz: mrzFull, visual: visual.full_name, ok: c.ok, method: c.method };
  }
  for (const k of ['birth_date', 'expiry_date'] as const) {
    const v = visual[k];
    const raw = k === 'birth_date' ? f.birth_date_raw : f.expiry_date_raw;
    if (!v || !raw) continue;
    const full = f[k];
    let ok: boolean;
    if (full) ok = full === v;
    else ok = isIsoDate(v) && v.slice(2, 4) + v.slice(5, 7) + v.slice(8, 10) === raw;
    compared[k] = { mrz: full ?? raw, visual: v, ok, method: full ? 'full_date' : 'yymmdd' };
  }
  if (visual.document_number && f.document_number) {
    const v = alnum(visual.document_number);
    const main = alnum(f.document_number);
    let ok = v === main;
    let method = 'document_number';
    if (!ok && f.optional_data.some((o) => alnum(o).includes(v) && v.length >= 5)) {
      ok = true;
      method = 'optional_data';
    }
    compared.document_number = { mrz: f.document_number, visual: visual.document_number, ok, method };
  }
  if (visual.nationality && f.nationality) {
    compared.nationality = { mrz: f.nationality, visual: visual.nationality, ok: normNat(visual.nationality) === normNat(f.nationality) };
  }
  if (visual.sex && f.sex) {
    const s = normSexVisual(visual.sex);
    if (s) compared.sex = { mrz: f.sex, visual: visual.sex, ok: s === f.sex };
  }
  const keys = Object.keys(compared);
  if (keys.length === 0) return notRun('mrz_matches_visual', 'nothing_to_compare', { format: r.format, compared });
  const mismatched = keys.filter((k) => !compared[k].ok);
  return makeResult('mrz_matches_visual', mismatched.length === 0, mismatched.length ? 'mismatch' : 'ok', { format: r.format, compared }, {
    params: mismatched.length ? { fields: mismatched.join(',') } : {},
    fields: keys,
  });
}
