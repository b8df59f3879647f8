/**
 * Test-mode scenario grammar: the uploaded file name selects the simulated reading.
 *
 *   <base>[_<modifier>...].<ext>
 *
 * Case-insensitive, accents ignored, `-`, `_`, spaces and dots between words equivalent. `<base>` is a catalogue
 * type id, a catalogue slug in any language or an alias; the longest leading run of words that names one wins.
 * Every following word (or two-word modifier such as `bad_checksum`) is a modifier; a three-letter country code
 * picks the country of universal types; anything else is ignored but still varies the simulated person.
 */
import { allEntries, getEntry, resolveExpect } from '../../catalogue/index.ts';
import { UNIVERSAL_COUNTRIES } from './document.ts';

export interface Scenario {
  /** The file name as given. */
  filename: string;
  /** Catalogue type simulated (`unknown_document` when the name names nothing). */
  type: string;
  /** Whether the base named a type (false: an unrecognised document, low confidence). */
  recognised: boolean;
  /** The words that named the type, normalised (`dni`, `es_passport`, `certificado_medico`), or null. */
  base: string | null;
  /** Modifiers in the order given, without duplicates (including those implied by an alias, e.g. `blurry`). */
  modifiers: string[];
  /** Country (alpha-3) requested for a universal type, or null. */
  country: string | null;
  /** Words that are neither base nor modifier: ignored, but part of the seed (another person). */
  ignored: string[];
  /** PRNG seed: type, base and ignored words (not the modifiers: `dni.jpg` and `dni_expired.jpg` show the same person). */
  seed: string;
}

/** Modifiers and their effect (docs/test-mode.md repeats this table). */
export const MODIFIERS: Record<string, string> = {
  valid: 'No effect (the default reading is a valid document).',
  expired: 'Expiry date (and ITV inspection date) before the reference date; the validity period is kept, so issue moves back too.',
  old: 'Issue date 400-520 days before the reference date (for `max_age_days`), on types whose issue date is not tied to an expiry.',
  blurry: 'Warnings `blurry` and `low_quality`; lower confidences.',
  low_quality: 'Warning `low_quality`; lower confidences.',
  glare: 'Warning `glare`; lower confidences.',
  cropped: 'Warning `cropped`.',
  screen: 'Warning `screen_photo_suspected`.',
  photocopy: 'Warning `photocopy_suspected`.',
  edited: 'Warning `edited_suspected`.',
  multiple: 'Warning `multiple_documents`.',
  side_missing: 'Warning `side_missing`; on two-sided cards only the front is read (back fields are null).',
  language_mismatch: 'Warning `language_mismatch`.',
  front: 'Two-sided cards: side `front`, fields printed on the back are null.',
  back: 'Two-sided cards: side `back`, only the back (and what its MRZ repeats) is read.',
  underage: 'Holder aged exactly 16 on the reference date (overrides the holder\'s birth date).',
  bad_checksum: 'The main checksummed identifier gets a wrong check character (DNI/NIE letter, NIF/CIF, CPF, NIR key, codice fiscale, IBAN...); types without one get a wrong MRZ check digit; US types an SSN/licence number in an invalid format.',
  mismatch_holder: 'A generated person different from `checks.holder`.',
  mismatch_mrz: 'MRZ types: the MRZ carries another birth date (valid check digits), so it disagrees with the visual fields.',
  low_confidence: 'Document confidence 0.42, field confidences 0.30-0.60.',
  incomplete: 'The type\'s last two fields (ignoring `mrz` and `barcode_data`) are null.',
  unsigned: '`visual.signed` false.',
  unstamped: '`visual.stamped` false.',
  failed: 'The reading fails (`processing_failed`): the analysis is `failed` and not charged.',
  slow: 'Simulated latency 45 s (beyond the 30 s synchronous wait: the request answers 202).',
};

/** Aliases of the specification and a few obvious names. */
export const ALIASES: Record<string, { type: string; modifiers?: string[] }> = {
  dni: { type: 'es_dni' },
  nie: { type: 'es_tie' },
  tie: { type: 'es_tie' },
  nie_certificate: { type: 'es_nie_certificate' },
  passport: { type: 'passport' },
  blurry: { type: 'es_dni', modifiers: ['blurry'] },
  id_card: { type: 'national_id_card' },
  iban: { type: 'es_bank_account_certificate' },
  bank_certificate: { type: 'es_bank_account_certificate' },
  receipt: { type: 'es_payment_receipt' },
  lease: { type: 'es_lease_agreement' },
  cif: { type: 'es_nif_card' },
  padron: { type: 'es_census_certificate' },
  carnet: { type: 'es_driving_license' },
  drivers_license: { type: 'us_drivers_license' },
  green_card: { type: 'us_permanent_resident_card' },
  ssn: { type: 'us_social_security_card' },
  cnh: { type: 'br_cnh' },
  rg: { type: 'br_rg' },
  cni: { type: 'fr_cni' },
  cie: { type: 'it_cie' },
  kbis: { type: 'fr_kbis' },
  rib: { type: 'fr_rib' },
  cartao_cidadao: { type: 'pt_citizen_card' },
};

const COUNTRY_CODES = new Set(UNIVERSAL_COUNTRIES.map((c) => c.toLowerCase()));

const wordCount = (name: string) => words(`${name}.x`).length;

/**
 * The most words any base can have (type ids, slugs in every language, aliases): the longest-prefix search starts
 * there, so parsing a name is linear in its length however many words it has.
 */
const MAX_BASE_WORDS = Math.max(
  ...allEntries().flatMap((e) => [wordCount(e.type), ...Object.values(e.slugs).map(wordCount)]),
  ...Object.keys(ALIASES).map(wordCount),
);

function words(filename: string): string[] {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const stem = base.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  return stem
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function resolveBase(ws: string[]): { type: string; modifiers: string[] } | null {
  const id = ws.join('_');
  if (getEntry(id)) return { type: id, modifiers: [] };
  const slug = resolveExpect(ws.join('-'));
  if (slug) return { type: slug.type, modifiers: [] };
  // Own keys only: a file named `constructor.jpg` must not find Object.prototype.constructor.
  const alias = Object.hasOwn(ALIASES, id) ? ALIASES[id] : undefined;
  if (alias) return { type: alias.type, modifiers: alias.modifiers ?? [] };
  return null;
}

export function parseScenario(filename: string): Scenario {
  const ws = words(filename);
  let type = 'unknown_document';
  let base: string | null = null;
  let start = 0;
  const modifiers: string[] = [];
  for (let k = Math.min(ws.length, MAX_BASE_WORDS); k >= 1; k--) {
    const hit = resolveBase(ws.slice(0, k));
    if (hit) {
      type = hit.type;
      base = ws.slice(0, k).join('_');
      modifiers.push(...hit.modifiers);
      start = k;
      break;
    }
  }
  let country: string | null = null;
  const ignored: string[] = [];
  for (let i = start; i < ws.length; i++) {
    const two = i + 1 < ws.length ? `${ws[i]}_${ws[i + 1]}` : null;
    if (two && Object.hasOwn(MODIFIERS, two)) {
      if (!modifiers.includes(two)) modifiers.push(two);
      i++;
    } else if (Object.hasOwn(MODIFIERS, ws[i])) {
      if (!modifiers.includes(ws[i])) modifiers.push(ws[i]);
    } else if (COUNTRY_CODES.has(ws[i]) && country === null) {
      country = ws[i].toUpperCase();
    } else {
      ignored.push(ws[i]);
    }
  }
  const seed = `${type}|${base ?? ''}|${ignored.join('_')}|${country ?? ''}`;
  return { filename, type, recognised: base !== null, base, modifiers, country, ignored, seed };
}
