/**
 * AAMVA DL/ID card PDF417 payloads (AAMVA DL/ID Card Design Standard, versions 1 to 10) and
 * aamva_matches_visual.
 *
 * Header: `@` + data element separator (LF) + record separator (RS, 0x1E) + segment terminator
 * (CR) + file type (`ANSI ` or the pre-standard `AAMVA`) + IIN (6 digits) + AAMVA version (2) +
 * jurisdiction version (2, version >= 2 only) + number of entries (2), then one 10-character
 * subfile designator per entry (type 2, offset 4, length 4).
 * Payloads that lost their control characters (common when a decoder or a copy strips them)
 * are parsed leniently: `compliant` is then false and elements are split on known element ids.
 * Dates: version 1 CCYYMMDD; from version 2, MMDDCCYY for USA and CCYYMMDD for Canada.
 */
import { fuzzyNameMatch, normaliseName } from './names.ts';
import { makeResult, notRun, isoDate, type ValidatorResult } from './types.ts';

export interface AamvaHeader {
  compliance_indicator: string;
  data_element_separator: string;
  record_separator: string;
  segment_terminator: string;
  file_type: string;
  issuer_id: number;
  aamva_version: number;
  jurisdiction_version: number | null;
  number_of_entries: number;
}

export interface AamvaFields {
  document_number: string | null;
  document_number_normalized: string | null;
  surname: string | null;
  first_name: string | null;
  middle_names: string | null;
  given_names: string | null;
  suffix: string | null;
  birth_date: string | null;
  expiry_date: string | null;
  issue_date: string | null;
  sex: 'M' | 'F' | 'X' | null;
  street: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: 'USA' | 'CAN' | null;
  document_discriminator: string | null;
  eye_color: string | null;
  height: string | null;
}

export interface AamvaParseResult {
  valid: boolean;
  compliant: boolean;
  errors: string[];
  header: AamvaHeader | null;
  designators: Array<{ subfile_type: string; offset: number; length: number }>;
  subfiles: Array<{ subfile_type: string; elements: Record<string, string> }>;
  fields: AamvaFields | null;
}

const KNOWN_ELEMENTS = (
  'DAA DAB DAC DAD DAE DAF DAG DAH DAI DAJ DAK DAL DAM DAN DAO DAP DAQ DAR DAS DAT DAU DAV DAW DAX DAY DAZ ' +
  'DBA DBB DBC DBD DBE DBF DBG DBH DBI DBJ DBK DBL DBM DBN DBO DBP DBQ DBR DBS ' +
  'DCA DCB DCD DCE DCF DCG DCH DCI DCJ DCK DCL DCM DCN DCO DCP DCQ DCR DCS DCT DCU ' +
  'DDA DDB DDC DDD DDE DDF DDG DDH DDI DDJ DDK DDL'
).split(' ');
const CANADIAN = new Set(['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT']);

/** Elements used to split payloads that lost their separators (rare legacy ids such as DAM are left out: they collide with names). */
const LENIENT_ELEMENTS = (
  'DAA DAB DAC DAD DAG DAH DAI DAJ DAK DAQ DAR DAS DAT DAU DAW DAY DAZ DBA DBB DBC DBD DBF DBH ' +
  'DCA DCB DCD DCF DCG DCH DCK DCS DCT DCU DDA DDB DDC DDD DDE DDF DDG DDH DDI DDJ DDK DDL'
).split(' ');

function tokenize(data: string, version: number): Record<string, string> {
  const codes = new Set(LENIENT_ELEMENTS.filter((c) => version >= 4 || !c.startsWith('DD')));
  const out: Record<string, string> = {};
  let cur: string | null = null;
  let start = 0;
  for (let i = 0; i + 3 <= data.length; i++) {
    const c = data.slice(i, i + 3);
    if (codes.has(c) && !(c in out) && c !== cur) {
      if (cur) out[cur] = data.slice(start, i);
      cur = c;
      out[c] = '';
      start = i + 3;
      i += 2;
    }
  }
  if (cur) out[cur] = data.slice(start);
  return out;
}

function splitElements(data: string, sep: string, version: number): Record<string, string> {
  const body = data.replace(/\r+$/, '');
  if (!body.includes(sep)) return tokenize(body, version);
  const out: Record<string, string> = {};
  for (const part of body.split(sep)) {
    const p = part.replace(/\r$/, '');
    if (p.length >= 3 && !(p.slice(0, 3) in out)) out[p.slice(0, 3)] = p.slice(3);
  }
  return out;
}

/** Parse an AAMVA date (8 digits) for the given version/country; falls back to the other order. */
export function aamvaDate(raw: string | undefined, version: number, country: 'USA' | 'CAN' | null): string | null {
  const v = (raw ?? '').trim();
  if (!/^\d{8}$/.test(v)) return null;
  const ymd = () => isoDate(Number(v.slice(0, 4)), Number(v.slice(4, 6)), Number(v.slice(6, 8)));
  const mdy = () => isoDate(Number(v.slice(4, 8)), Number(v.slice(0, 2)), Number(v.slice(2, 4)));
  const first = version <= 1 || country === 'CAN' ? ymd : mdy;
  const second = first === ymd ? mdy : ymd;
  return first() ?? second();
}

export function unescapeAamva(s: string): string {
  return s.replace(/\\n/g, '\n').replace(/\\r/g, '\r').replace(/\\x1e/gi, '\x1e');
}

export function parseAamva(payload: string): AamvaParseResult {
  const errors: string[] = [];
  const res: AamvaParseResult = { valid: false, compliant: false, errors, header: null, designators: [], subfiles: [], fields: null };
  const raw = String(payload ?? '');
  if (raw.length < 21) {
    errors.push('header_too_short');
    return res;
  }
  let compliant = true;
  if (raw[0] !== '@') { errors.push('invalid_compliance_indicator'); compliant = false; }
  if (raw[1] !== '\n') { errors.push('invalid_data_element_separator'); compliant = false; }
  if (raw[2] !== '\x1e') { errors.push('invalid_record_separator'); compliant = false; }
  if (raw[3] !== '\r') { errors.push('invalid_segment_terminator'); compliant = false; }
  let pos: number;
  if (compliant) {
    const ft = raw.slice(4, 9);
    if (ft !== 'ANSI ' && ft !== 'AAMVA') { errors.push('invalid_file_type'); compliant = false; }
    pos = 9;
  } else {
    pos = -1;
  }
  if (!compliant) {
    // Lenient: locate the file type and IIN anywhere near the start.
    const m = /(ANSI ?|AAMVA|AMVA ?)(\d{6})(\d{2})/.exec(raw.slice(0, 40));
    if (!m) {
      errors.push('unrecognised_header');
      return res;
    }
    pos = m.index + m[1].length;
  }
  const issuer = Number(raw.slice(pos, pos + 6));
  const version = Number(raw.slice(pos + 6, pos + 8));
  let jv: number | null = 0; // version 1 headers have no jurisdiction version field: reported as 0
  let p = pos + 8;
  if (version >= 2) {
    jv = Number(raw.slice(p, p + 2));
    p += 2;
  }
  const entries = Number(raw.slice(p, p + 2));
  p += 2;
  if (!/^\d{6}$/.test(raw.slice(pos, pos + 6)) || !Number.isFinite(version) || !Number.isInteger(entries) || entries < 1) {
    errors.push('invalid_header_numbers');
    return res;
  }
  res.header = {
    compliance_indicator: raw[0], data_element_separator: raw[1], record_separator: raw[2], segment_terminator: raw[3],
    file_type: raw.slice(pos - 5, pos), issuer_id: issuer, aamva_version: version, jurisdiction_version: jv, number_of_entries: entries,
  };
  for (let i = 0; i < entries; i++) {
    const d = raw.slice(p + i * 10, p + i * 10 + 10);
    if (!/^[A-Z]{2}\d{8}$/.test(d)) {
      errors.push('invalid_designator');
      return res;
    }
    res.designators.push({ subfile_type: d.slice(0, 2), offset: Number(d.slice(2, 6)), length: Number(d.slice(6, 10)) });
  }
  const afterDesignators = p + entries * 10;
  const sep = compliant ? raw[1] : '\n';
  res.designators.forEach((d, i) => {
    let data: string;
    const atOffset = raw.slice(d.offset, d.offset + d.length);
    if (compliant && atOffset.startsWith(d.subfile_type)) data = atOffset.slice(2);
    else {
      if (compliant) errors.push(`subfile_offset_mismatch_${d.subfile_type}`);
      compliant = false;
      // Lenient: DL/ID data follows the designators; jurisdiction subfiles start with type + type-prefixed element.
      let start: number;
      if (i === 0) {
        start = afterDesignators;
        if (raw.slice(start, start + 2) === d.subfile_type && !KNOWN_ELEMENTS.includes(raw.slice(start, start + 3))) start += 2;
      } else {
        const k = raw.indexOf(d.subfile_type + d.subfile_type[0], afterDesignators);
        start = k >= 0 ? k + 2 : raw.length;
      }
      let end = raw.length;
      for (const other of res.designators.slice(i + 1)) {
        const k = raw.indexOf(other.subfile_type + other.subfile_type[0], start);
        if (k >= 0) end = Math.min(end, k);
      }
      data = raw.slice(start, end);
    }
    const elements = d.subfile_type.startsWith('Z')
      ? Object.fromEntries(data.replace(/\r+$/, '').split(sep).filter((x) => x.length >= 3).map((x) => [x.slice(0, 3), x.slice(3).replace(/\r$/, '')]))
      : splitElements(data, sep, version);
    res.subfiles.push({ subfile_type: d.subfile_type, elements });
  });
  res.compliant = compliant;
  const dl = res.subfiles.find((s) => s.subfile_type === 'DL' || s.subfile_type === 'ID') ?? res.subfiles[0];
  if (!dl || !dl.elements.DAQ) errors.push('missing_document_number');
  res.fields = dl ? fieldsOf(dl.elements, version) : null;
  res.valid = compliant && errors.length === 0;
  return res;
}

const t = (s: string | undefined): string | null => {
  const v = (s ?? '').trim();
  return v && !/^(NONE|unavl|UNAVL)$/i.test(v) ? v : null;
};

function fieldsOf(e: Record<string, string>, version: number): AamvaFields {
  const state = t(e.DAJ);
  const dcg = t(e.DCG);
  const country: 'USA' | 'CAN' | null = dcg === 'CAN' || (!dcg && state && CANADIAN.has(state)) ? 'CAN' : dcg === 'USA' || state ? 'USA' : null;
  let surname = t(e.DCS) ?? t(e.DAB);
  let first = t(e.DAC) ?? t(e.DCT);
  let middle = t(e.DAD);
  let suffix = t(e.DCU) ?? t(e.DAE);
  if (!surname && e.DAA) {
    const parts = e.DAA.split(e.DAA.includes(',') ? ',' : ' ').map((x) => x.trim());
    surname = parts[0] || null;
    first = parts[1] || null;
    middle = parts[2] || null;
    suffix = parts[3] || suffix;
  }
  if (first && e.DCT && !e.DAC && first.includes(',')) {
    const [f, ...m] = first.split(',').map((x) => x.trim());
    first = f;
    middle = middle ?? (m.filter(Boolean).join(' ') || null);
  }
  const sexRaw = t(e.DBC);
  const sex = sexRaw === '1' || sexRaw === 'M' ? 'M' : sexRaw === '2' || sexRaw === 'F' ? 'F' : sexRaw === '9' || sexRaw === 'X' ? 'X' : null;
  const postal = t(e.DAK);
  const docNo = t(e.DAQ);
  return {
    document_number: docNo,
    document_number_normalized: docNo ? docNo.toUpperCase().replace(/[^0-9A-Z]/g, '') : null,
    surname,
    first_name: first,
    middle_names: middle,
    given_names: [first, middle].filter(Boolean).join(' ') || null,
    suffix,
    birth_date: aamvaDate(e.DBB, version, country),
    expiry_date: aamvaDate(e.DBA, version, country),
    issue_date: aamvaDate(e.DBD, version, country),
    sex,
    street: t(e.DAG),
    city: t(e.DAI),
    state,
    postal_code: postal ? (country === 'CAN' ? postal.replace(/\s/g, '').slice(0, 6) : postal.replace(/[^0-9]/g, '').slice(0, postal.replace(/[^0-9]/g, '').length >= 9 ? 9 : 5)) : null,
    country,
    document_discriminator: t(e.DCF),
    eye_color: t(e.DAY),
    height: t(e.DAU),
  };
}

export interface AamvaVisual {
  document_number?: string | null;
  surname?: string | null;
  last_name?: string | null;
  first_name?: string | null;
  given_names?: string | null;
  full_name?: string | null;
  birth_date?: string | null;
  expiry_date?: string | null;
  issue_date?: string | null;
  sex?: string | null;
  state?: string | null;
  postal_code?: string | null;
}

/** aamva_matches_visual: barcode fields vs printed fields (only fields present on both sides). */
export function aamvaMatchesVisual(payload: string | AamvaParseResult, visual: AamvaVisual): ValidatorResult {
  const r = typeof payload === 'string' ? parseAamva(payload) : payload;
  if (!r.fields) return notRun('aamva_matches_visual', 'barcode_unreadable', { errors: r.errors });
  const f = r.fields;
  const compared: Record<string, { barcode: unknown; visual: unknown; ok: boolean; method?: string }> = {};
  const name = (k: string, a: string | null, b: string | null | undefined) => {
    if (!a || !b) return;
    const m = fuzzyNameMatch(a, b);
    const ok = m.match || normaliseName(b).startsWith(normaliseName(a)) || normaliseName(a).startsWith(normaliseName(b));
    compared[k] = { barcode: a, visual: b, ok, method: m.method };
  };
  name('surname', f.surname, visual.surname ?? visual.last_name);
  name('given_names', visual.given_names ? f.given_names : f.first_name, visual.given_names ?? visual.first_name);
  if (!visual.surname && !visual.last_name && visual.full_name) name('full_name', [f.first_name, f.middle_names, f.surname].filter(Boolean).join(' '), visual.full_name);
  for (const k of ['birth_date', 'expiry_date', 'issue_date'] as const) {
    if (f[k] && visual[k]) compared[k] = { barcode: f[k], visual: visual[k], ok: f[k] === visual[k] };
  }
  if (f.document_number_normalized && visual.document_number) {
    const v = visual.document_number.toUpperCase().replace(/[^0-9A-Z]/g, '');
    compared.document_number = { barcode: f.document_number, visual: visual.document_number, ok: v === f.document_number_normalized };
  }
  if (f.sex && visual.sex) {
    const s = visual.sex.trim().toUpperCase();
    const vs = s === '1' || s.startsWith('M') ? 'M' : s === '2' || s.startsWith('F') ? 'F' : 'X';
    compared.sex = { barcode: f.sex, visual: visual.sex, ok: vs === f.sex };
  }
  if (f.state && visual.state) compared.state = { barcode: f.state, visual: visual.state, ok: f.state === visual.state.trim().toUpperCase() };
  if (f.postal_code && visual.postal_code) {
    const v = visual.postal_code.replace(/[^0-9A-Z]/gi, '').toUpperCase();
    compared.postal_code = { barcode: f.postal_code, visual: visual.postal_code, ok: v.startsWith(f.postal_code.slice(0, 5)) || f.postal_code.startsWith(v) };
  }
  const keys = Object.keys(compared);
  if (keys.length === 0) return notRun('aamva_matches_visual', 'nothing_to_compare', { compared, compliant: r.compliant });
  const bad = keys.filter((k) => !compared[k].ok);
  return makeResult('aamva_matches_visual', bad.length === 0, bad.length ? 'mismatch' : 'ok', { compared, compliant: r.compliant, header: r.header, errors: r.errors }, {
    params: bad.length ? { fields: bad.join(',') } : {},
    fields: keys,
  });
}
