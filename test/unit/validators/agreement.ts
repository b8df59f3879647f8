/**
 * Agreement harness: runs our validators over every vector of ../shared/testdata (ids/, iban/,
 * mrz/, aamva/) and returns each disagreement keyed by a stable case id. The allow-lists of
 * deliberate differences live in agreement.test.ts.
 */
import { readJson } from './testdata.ts';
import { checkIdNumber, type FieldScheme } from '../../../server/src/validators/id-number.ts';
import { checkIban, checkBic } from '../../../server/src/validators/iban.ts';

export interface CaseOutcome {
  id: string;
  source: string;
  value: unknown;
  expected: boolean | null;
  ours: boolean | null;
  /** null: no Cotejo rule applies (scheme not offered); see OUT_OF_SCOPE_SCHEMES. */
  scheme: string | null;
  note?: string;
}

/** Schemes of the collected sources that are not Cotejo field schemes (no rule asked for by the spec). */
export const OUT_OF_SCOPE_SCHEMES: Record<string, string> = {
  'es.cae': 'Spanish excise (CAE) number: not a Cotejo field scheme',
  'es.cups': 'Spanish energy supply point code: not a Cotejo field scheme',
  'es.referenciacatastral': 'Spanish cadastral reference: not a Cotejo field scheme',
  'es.postal_code': 'Spanish postal code: not a Cotejo field scheme',
  'es.passport_number': 'Spanish passport number (validator.js format): not a Cotejo field scheme',
  'fr.accise': 'French excise number: not a Cotejo field scheme',
  'fr.nif': 'French numéro fiscal (SPI): not a Cotejo field scheme',
  'fr.numero_fiscal': 'French numéro fiscal (SPI): not a Cotejo field scheme',
  'fr.rcs': 'French RCS: not a Cotejo field scheme',
  'fr.siren': 'French SIREN: only checked as part of eu_vat FR',
  'fr.siret': 'French SIRET: not a Cotejo field scheme',
  'it.aic': 'Italian drug code: not a Cotejo field scheme',
  'it.carta_identita': 'Italian ID card number (validator.js format): not a Cotejo field scheme',
  'us.atin': 'US ATIN: not a Cotejo field scheme',
  'us.ein': 'US EIN: not a Cotejo field scheme',
  'us.itin': 'US ITIN: not a Cotejo field scheme',
  'us.ptin': 'US PTIN: not a Cotejo field scheme',
  'us.rtn': 'US routing number: not a Cotejo field scheme',
  'us.tin': 'US TIN: not a Cotejo field scheme',
};

function brScheme(v: string): FieldScheme {
  return String(v).replace(/[^0-9A-Z]/gi, '').replace(/^BR/i, '').length === 11 ? 'br_cpf' : 'br_cnpj';
}

/** Map a record of ids-combined.json to (scheme, context). */
export function mapIdsRecord(r: any): { scheme: FieldScheme; country?: string } | null {
  const v = String(r.value ?? '');
  switch (r.scheme) {
    case 'br.cnpj': return { scheme: 'br_cnpj' };
    case 'br.cpf': return { scheme: 'br_cpf' };
    case 'br.cpf_or_cnpj':
    case 'br.cnpj_vat': return { scheme: brScheme(v) };
    case 'es.ccc': return { scheme: 'es_ccc' };
    case 'es.cif': return { scheme: 'es_cif' };
    case 'es.dni': return { scheme: 'es_dni' };
    case 'es.nie': return { scheme: 'es_nie' };
    case 'es.nif': return { scheme: 'es_nif' };
    case 'es.nif_personal': return { scheme: 'es_nif' };
    case 'es.dni_nie': return { scheme: /^[XYZ]/i.test(v.trim()) ? 'es_nie' : 'es_dni' };
    case 'es.iban': return { scheme: 'iban', country: 'ES' };
    case 'iban': return { scheme: 'iban' };
    case 'eu.vat': return { scheme: 'eu_vat' };
    case 'es.vat_format': return { scheme: 'eu_vat', country: 'ES' };
    case 'fr.tva':
    case 'fr.vat_format': return { scheme: 'eu_vat', country: 'FR' };
    case 'it.iva':
    case 'it.vat_format': return { scheme: 'eu_vat', country: 'IT' };
    case 'pt.vat_format': return { scheme: 'eu_vat', country: 'PT' };
    case 'fr.nir': return { scheme: 'fr_nir' };
    case 'it.codicefiscale': return { scheme: 'it_cf' };
    case 'pt.cc': return { scheme: 'pt_cc' };
    case 'pt.nif': return { scheme: 'pt_nif' };
    case 'us.ssn': return { scheme: 'us_ssn' };
    default: return null;
  }
}

/** IBAN options of a source record mapped to ours (stdnum check_country, validator.js lists). */
function ibanOptions(r: any): Parameters<typeof checkIban>[1] {
  const o: Parameters<typeof checkIban>[1] = {};
  if (r.options === 'check_country=False') o.national_check = false;
  if (Array.isArray(r.options)) {
    for (const x of r.options) {
      if (x.whitelist) o.allowed_countries = x.whitelist;
      if (x.blacklist) o.denied_countries = x.blacklist;
    }
  }
  if (typeof r.source === 'string' && r.source.endsWith('stdnum/es/iban.py')) o.country = 'ES';
  return o;
}

export function idsOutcomes(): CaseOutcome[] {
  const recs = readJson<any[]>('ids/ids-combined.json');
  return recs.map((r, i) => {
    const m = mapIdsRecord(r);
    const id = `ids-combined[${i}]`;
    if (!m) return { id, source: r.scheme, value: r.value, expected: r.valid, ours: null, scheme: null };
    let ours: boolean;
    if (m.scheme === 'iban') ours = checkIban(String(r.value ?? ''), { ...ibanOptions(r), ...(m.country ? { country: m.country } : {}) }).valid;
    else ours = checkIdNumber(m.scheme, String(r.value ?? ''), { country: m.country, reference_date: '2026-01-01' }).valid;
    return { id, source: r.scheme, value: r.value, expected: r.valid, ours, scheme: m.scheme };
  });
}

export function ibanOutcomes(): CaseOutcome[] {
  const out: CaseOutcome[] = [];
  readJson<any[]>('iban/iban-combined.json').forEach((r, i) => {
    const src = String(r.semantics).split(/[ :]/)[0];
    out.push({ id: `iban-combined[${i}]`, source: `iban-combined/${src}`, value: r.value, expected: r.valid, ours: checkIban(String(r.value ?? ''), ibanOptions(r)).valid, scheme: 'iban' });
  });
  readJson<any[]>('iban/ibantools-cases.json').forEach((r, i) => {
    const id = `ibantools-cases[${i}]`;
    const v = r.value === null ? '' : String(r.value);
    if (r.function === 'isValidIBAN') {
      const opts: Parameters<typeof checkIban>[1] = {};
      out.push({ id, source: 'ibantools/isValidIBAN', value: r.value, expected: r.expected, ours: checkIban(v, opts).valid, scheme: 'iban' });
    } else if (r.function === 'isValidBIC') {
      out.push({ id, source: 'ibantools/isValidBIC', value: r.value, expected: r.expected, ours: checkBic(v).valid, scheme: 'bic' });
    } else {
      out.push({ id, source: `ibantools/${r.function}`, value: r.value, expected: r.expected, ours: null, scheme: null });
    }
  });
  return out;
}

// ------------------------------------------------------------------ MRZ

import { parseMrz, mrzCheckDigit } from '../../../server/src/validators/mrz.ts';

export const MRZ_REFERENCE_DATE = '2026-01-01';

/**
 * MRZ outcomes. `expected` is the source's verdict (cheminfo/dmrtd `expected.valid`; for OCR-noisy
 * records the source expects autocorrection to recover a valid MRZ, so `true`). Per-check
 * agreement with `collector_checks` (independently recomputed ICAO digits) is returned in `note`.
 */
export function mrzOutcomes(): Array<CaseOutcome & { checkMismatches: string[] }> {
  const recs = readJson<any[]>('mrz/mrz-cases.json');
  const out: Array<CaseOutcome & { checkMismatches: string[] }> = [];
  for (const r of recs) {
    if (r.lines) {
      const p = parseMrz(r.lines, { referenceDate: MRZ_REFERENCE_DATE });
      const cc = r.collector_checks;
      const checkMismatches: string[] = [];
      if (cc) {
        for (const k of ['document_number', 'birth_date', 'expiry_date', 'personal_number', 'composite']) {
          if (!(k in cc) || cc[k] === null) continue;
          const c = p.checks.find((x) => x.name === k);
          if (!c || c.valid !== cc[k]) checkMismatches.push(k);
        }
        if (p.valid !== cc.all_ok) checkMismatches.push('all_ok');
      }
      const expected = typeof r.expected?.valid === 'boolean' ? r.expected.valid : r.expected?.ocr_noisy ? true : null;
      out.push({ id: r.id, source: `mrz/${r.source.split('@')[0]}`, value: r.lines, expected, ours: p.valid, scheme: 'mrz', checkMismatches });
    } else {
      const digit = mrzCheckDigit(r.check_digit_input);
      const expected = r.expected_check_digit !== undefined ? true : r.expected_valid;
      const ours = r.expected_check_digit !== undefined ? digit === r.expected_check_digit : digit === r.candidate_check_digit;
      out.push({ id: r.id, source: `mrz-check-digit/${r.source.split('@')[0]}`, value: r.check_digit_input, expected, ours, scheme: 'mrz_check_digit', checkMismatches: r.collector_check_digit === digit ? [] : ['collector_check_digit'] });
    }
  }
  return out;
}

// ------------------------------------------------------------------ AAMVA

import { parseAamva, unescapeAamva } from '../../../server/src/validators/aamva.ts';

export function aamvaOutcomes(): Array<CaseOutcome & { fieldMismatches: string[] }> {
  const out: Array<CaseOutcome & { fieldMismatches: string[] }> = [];
  for (const r of readJson<any[]>('aamva/aamva-standard-samples.json')) {
    const p = parseAamva(unescapeAamva(r.raw_escaped));
    const fieldMismatches: string[] = [];
    if (r.expected_header) {
      for (const [k, v] of Object.entries(r.expected_header)) if ((p.header as any)?.[k] !== v) fieldMismatches.push(`header.${k}`);
      if (JSON.stringify(p.designators) !== JSON.stringify(r.expected_designators)) fieldMismatches.push('designators');
      if (JSON.stringify(p.subfiles) !== JSON.stringify(r.expected_subfiles)) fieldMismatches.push('subfiles');
    }
    if (r.expected_error_contains) {
      const want = String(r.expected_error_contains).toLowerCase().replace(/ /g, '_');
      if (!p.errors.some((e) => e.includes(want) || (want === 'too_short' && e.includes('too_short')))) fieldMismatches.push(`error:${want}`);
    }
    out.push({ id: r.id, source: 'aamva/benhovinga', value: r.id, expected: r.valid, ours: p.valid, scheme: 'aamva', fieldMismatches });
  }
  for (const r of readJson<any[]>('aamva/aamvajs-cases.json')) {
    const exp = r.expected_parse_by_source ?? {};
    const id = `aamvajs/${r.file}`;
    if (Object.keys(exp).length === 0) {
      out.push({ id, source: 'aamva/aamvajs', value: r.file, expected: null, ours: null, scheme: null, note: 'magnetic stripe track data without assertions', fieldMismatches: [] });
      continue;
    }
    const p = parseAamva(unescapeAamva(r.raw_escaped));
    const f = p.fields;
    const ours: Record<string, unknown> = f
      ? {
          state: f.state, address: f.street, sex: f.sex === 'M' ? 'MALE' : f.sex === 'F' ? 'FEMALE' : f.sex,
          'name.first': f.first_name, 'name.last': f.surname, birthday: f.birth_date?.replace(/-/g, ''),
          expiration_date: f.expiry_date?.replace(/-/g, ''), postal_code: f.postal_code?.slice(0, 5), id: f.document_number_normalized,
        }
      : {};
    const fieldMismatches = Object.keys(exp).filter((k) => ours[k] !== exp[k]).map((k) => `${k}:${String(ours[k])}!=${exp[k]}`);
    // The source asserts the parsed fields: agreement = every asserted field equal.
    out.push({ id, source: 'aamva/aamvajs', value: r.file, expected: true, ours: fieldMismatches.length === 0, scheme: 'aamva', fieldMismatches });
  }
  return out;
}
