/**
 * The document being simulated (test mode): its type, country and language, its holder (a person who follows the
 * caller's `checks.holder`), its timeline, and where the holder's own document number goes.
 * Split out of document.ts, which builds the whole document from them.
 */

import type { CatalogueEntry } from '../../catalogue/index.ts';
import { checkIdNumber, foldName } from '../../validators/index.ts';
import type { HolderCheck } from '../types.ts';
import * as ids from './ids.ts';
import { makePerson, type Person } from './person.ts';
import { PLACES, tr, type Lang } from './pools.ts';
import { Rng } from './prng.ts';
import { timeline, type Dates } from './timeline.ts';

export interface BuildOptions {
  entry: CatalogueEntry;
  seed: string;
  referenceDate: string;
  /** The person to simulate (null: a generated one). */
  holder: HolderCheck | null;
  /** A holder the generated person must differ from (the `mismatch_holder` scenario). */
  avoid: HolderCheck | null;
  mods: ReadonlySet<string>;
  /** Country for universal types (alpha-3), from a country modifier. */
  country: string | null;
  /**
   * The language the caller asked for (`options.language`). A document is written in its country's language, but an
   * unidentified one has no country to speak for it: what it prints is simulated in the caller's language.
   */
  language?: Lang;
}

/** Universal types may be simulated in these countries (modifier `_<alpha3>`). */
export const UNIVERSAL_COUNTRIES = ['ESP', 'PRT', 'FRA', 'ITA', 'DEU', 'AUT', 'BEL', 'NLD', 'GBR', 'BRA'] as const;

export const ALPHA2: Record<string, string> = {
  ESP: 'ES', PRT: 'PT', FRA: 'FR', ITA: 'IT', DEU: 'DE', AUT: 'AT', BEL: 'BE', NLD: 'NL', GBR: 'GB', BRA: 'BR', USA: 'US',
  IRL: 'IE', POL: 'PL', ROU: 'RO', SWE: 'SE',
};

export const IBAN_COUNTRIES = new Set(['ES', 'PT', 'FR', 'IT', 'DE', 'AT', 'BE', 'NL']);

const UPPER_CATEGORIES = new Set(['identity', 'residence', 'driving']);

/** Foreign nationalities of the holders of residence documents, by issuing country. */
const FOREIGN: Record<string, readonly string[]> = {
  ESP: ['COL', 'ARG', 'VEN', 'PER', 'MEX'], PRT: ['BRA'], FRA: ['BRA', 'COL'], ITA: ['BRA', 'ARG'], BRA: ['ARG', 'COL', 'VEN'],
  USA: ['MEX', 'COL'], DEU: ['ESP'], GBR: ['ESP'], BEL: ['ESP'], NLD: ['ESP'], AUT: ['ESP'],
};

export function documentCountry(entry: CatalogueEntry, override: string | null): string {
  if (entry.countries.includes('*')) return override && (UNIVERSAL_COUNTRIES as readonly string[]).includes(override) ? override : 'ESP';
  if (override && entry.countries.includes(override)) return override;
  return entry.countries.includes('ESP') ? 'ESP' : entry.countries[0];
}

function nationalityFor(entry: CatalogueEntry, country: string, rng: Rng): string {
  const t = entry.type;
  if (t === 'pt_eu_registration_certificate') return rng.pick(['ESP', 'FRA', 'ITA']);
  if (t === 'us_foreign_passport_i94') return rng.pick(['MEX', 'COL', 'ESP']);
  if (entry.category === 'residence' || t === 'es_nie_certificate') return rng.pick(FOREIGN[country] ?? ['COL']);
  return PLACES[country] ? country : 'ESP';
}

function langOf(country: string): Lang {
  if (country === 'ESP' || ['COL', 'ARG', 'VEN', 'PER', 'MEX'].includes(country)) return 'es';
  if (country === 'PRT' || country === 'BRA') return 'pt';
  if (country === 'FRA' || country === 'BEL') return 'fr';
  return 'en';
}

export class Ctx {
  readonly entry: CatalogueEntry;
  readonly type: string;
  readonly country: string;
  readonly lang: Lang;
  /** The caller's language (see BuildOptions.language). */
  readonly asked: Lang;
  readonly ref: string;
  readonly rng: Rng;
  readonly mods: ReadonlySet<string>;
  readonly person: Person;
  readonly dates: Dates;
  readonly upper: boolean;
  readonly holderNumber: { field: string; value: string } | null;
  private cache = new Map<string, unknown>();

  constructor(o: BuildOptions) {
    this.entry = o.entry;
    this.type = o.entry.type;
    this.country = documentCountry(o.entry, o.country);
    this.lang = langOf(this.country);
    this.asked = o.language ?? this.lang;
    this.ref = o.referenceDate;
    this.rng = new Rng(o.seed);
    this.mods = o.mods;
    const nationality = nationalityFor(o.entry, this.country, this.rng.fork('nationality'));
    // A codice fiscale given as the holder's number encodes the birth date and sex: the simulated person follows it.
    let holder = o.holder;
    let sex: 'M' | 'F' | undefined;
    if (holder?.document_number && numberKind(holder.document_number) === 'cf') {
      const cf = checkIdNumber('it_cf', holder.document_number, { reference_date: o.referenceDate });
      if (cf.encoded?.birth_date && !holder.birth_date) holder = { ...holder, birth_date: cf.encoded.birth_date };
      sex = cf.encoded?.sex;
    }
    const dead = o.entry.fields.includes('death_date');
    const personOpts = {
      nationality,
      residence: PLACES[this.country] ? this.country : 'ESP',
      referenceDate: o.referenceDate,
      minAge: dead ? 68 : 23,
      maxAge: dead ? 92 : 67,
      exactAge: o.mods.has('underage') ? 16 : undefined,
      holder,
      sex,
    };
    let person = makePerson(this.rng.fork('person'), personOpts);
    for (let i = 1; o.avoid && i < 20 && sameAsHolder(person, o.avoid); i++) person = makePerson(this.rng.fork(`person${i}`), personOpts);
    this.person = person;
    this.dates = timeline({
      entry: o.entry,
      country: this.country,
      ref: o.referenceDate,
      birth: person.birthDate,
      expired: o.mods.has('expired'),
      old: o.mods.has('old'),
      rng: this.rng.fork('dates'),
    });
    this.upper = UPPER_CATEGORIES.has(o.entry.category) || o.entry.mrz !== null;
    this.holderNumber = o.holder?.document_number ? placeHolderNumber(this, o.holder.document_number) : null;
  }

  once<T>(key: string, make: (r: Rng) => T): T {
    if (!this.cache.has(key)) this.cache.set(key, make(this.rng.fork(key)));
    return this.cache.get(key) as T;
  }

  r(label: string): Rng {
    return this.rng.fork(label);
  }

  has(field: string): boolean {
    return this.entry.fields.includes(field);
  }

  scheme(field: string): string | undefined {
    return this.entry.field_validators.find((v) => v.field === field)?.scheme;
  }

  t(texts: { es: string; pt: string; fr: string; en: string }): string {
    return tr(this.lang, texts);
  }

  /** Text as printed: upper case on identity, residence and driving documents. */
  p(s: string): string {
    return this.upper ? s.toUpperCase() : s;
  }
}

function sameAsHolder(p: Person, h: HolderCheck): boolean {
  const full = foldName(`${p.given} ${p.surnames.join(' ')}`);
  if (h.full_name && foldName(h.full_name) === full) return true;
  if (h.last_name && p.surnames.some((s) => foldName(h.last_name!).includes(foldName(s)))) return true;
  if (h.first_name && foldName(h.first_name) === foldName(p.given)) return true;
  if (h.birth_date && h.birth_date === p.birthDate) return true;
  return false;
}

type NumberKind = 'dni' | 'nie' | 'cpf' | 'digits9' | 'cf' | 'ssn' | 'other';

function numberKind(v: string): NumberKind {
  const s = v.toUpperCase().replace(/[\s.\-/]/g, '');
  if (/^\d{8}[A-Z]?$/.test(s)) return 'dni';
  if (/^[XYZ]\d{7}[A-Z]?$/.test(s)) return 'nie';
  if (/^\d{11}$/.test(s)) return 'cpf';
  if (/^\d{9}$/.test(s)) return v.includes('-') && /^\d{3}-\d{2}-\d{4}$/.test(v.trim()) ? 'ssn' : 'digits9';
  if (/^[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]$/.test(s)) return 'cf';
  return 'other';
}

const COMPATIBLE: Record<string, NumberKind[]> = {
  es_dni: ['dni'], es_nie: ['nie'], es_nif: ['dni', 'nie'], br_cpf: ['cpf'], pt_nif: ['digits9'], us_ssn: ['ssn', 'digits9'], it_cf: ['cf'],
};

function normaliseFor(scheme: string | undefined, kind: NumberKind, v: string): string {
  const s = v.toUpperCase().replace(/[\s.\-/]/g, '');
  if (kind === 'dni') return ids.dniFromDigits(s.slice(0, 8));
  if (kind === 'nie') return ids.nieFrom(s);
  if (scheme === 'br_cpf') return ids.cpfFrom(s);
  if (scheme === 'us_ssn') return `${s.slice(0, 3)}-${s.slice(3, 5)}-${s.slice(5)}`;
  return s;
}

/** Where the holder's `document_number` goes on this type, with its check character recomputed. */
function placeHolderNumber(c: Ctx, raw: string): { field: string; value: string } | null {
  const kind = numberKind(raw);
  const candidates = ['document_number', 'id_number', 'tax_id'].filter((f) => c.has(f));
  for (const f of candidates) {
    const sc = c.scheme(f);
    if (sc && COMPATIBLE[sc]?.includes(kind)) return { field: f, value: normaliseFor(sc, kind, raw) };
  }
  if ((kind === 'dni' || kind === 'nie') && (c.country === 'ESP')) {
    for (const f of candidates) if (!c.scheme(f) && (f !== 'document_number' || c.type === 'national_id_card' || c.type === 'driving_license')) return { field: f, value: normaliseFor(undefined, kind, raw) };
  }
  if (c.has('document_number') && !c.scheme('document_number')) {
    const v = raw.toUpperCase().replace(/[^0-9A-Z]/g, '');
    const maxLen = c.entry.mrz === 'TD3' || c.type === 'visa' ? 9 : c.entry.mrz === 'TD2' ? 15 : 20;
    if (v.length >= 5 && v.length <= maxLen) return { field: 'document_number', value: v };
  }
  return null;
}
