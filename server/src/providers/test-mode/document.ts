/**
 * Builds the field values of one simulated document: a person, a timeline, the identifiers, organisations and
 * amounts the type carries, then the MRZ / PDF417 payload from those values, then the scenario's deliberate defects.
 */
import type { CatalogueEntry } from '../../catalogue/index.ts';
import { checkIdNumber, foldName } from '../../validators/index.ts';
import type { HolderCheck } from '../types.ts';
import { aamvaUsDate, buildAamva } from './aamva.ts';
import { addDays, ageYears, yymmdd } from './dates.ts';
import * as ids from './ids.ts';
import { birthCheckPosition, mrva, td1, td2, td3, type MrzData } from './mrz.ts';
import { makePerson, LOCALE_OF, place, type Person } from './person.ts';
import { BANKS, COMPANY_WORDS, NAMES, PLACES, STREETS, tr, type Lang, type Place } from './pools.ts';
import { Rng, UPPER } from './prng.ts';
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

export interface BuiltDocument {
  values: Record<string, unknown>;
  country: string;
  person: Person;
  /** Field whose check digit was broken by `bad_checksum` (`mrz` when the MRZ itself), or null. */
  corrupted: string | null;
}

/** Universal types may be simulated in these countries (modifier `_<alpha3>`). */
export const UNIVERSAL_COUNTRIES = ['ESP', 'PRT', 'FRA', 'ITA', 'DEU', 'AUT', 'BEL', 'NLD', 'GBR', 'BRA'] as const;

const ALPHA2: Record<string, string> = {
  ESP: 'ES', PRT: 'PT', FRA: 'FR', ITA: 'IT', DEU: 'DE', AUT: 'AT', BEL: 'BE', NLD: 'NL', GBR: 'GB', BRA: 'BR', USA: 'US',
  IRL: 'IE', POL: 'PL', ROU: 'RO', SWE: 'SE',
};
const IBAN_COUNTRIES = new Set(['ES', 'PT', 'FR', 'IT', 'DE', 'AT', 'BE', 'NL']);

/** Checksummed schemes, in the order `bad_checksum` prefers them. */
const CHECKSUM_SCHEMES = ['es_dni', 'es_nie', 'es_nif', 'es_cif', 'pt_cc', 'pt_nif', 'fr_nir', 'it_cf', 'br_cpf', 'br_cnpj', 'es_nss', 'es_ccc', 'iban', 'eu_vat'];
const FORMAT_SCHEMES = ['us_ssn', 'us_dl'];

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

class Ctx {
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

// ------------------------------------------------------------------ holder's document number

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

// ------------------------------------------------------------------ person-level identifiers

function personIds(c: Ctx) {
  return c.once('person-ids', (r) => {
    const p = c.person;
    const bp = p.birthPlace;
    const frPlace = PLACES.FRA.find((x) => x.city === bp.city) ?? PLACES.FRA[0];
    const itPlace = PLACES.ITA.find((x) => x.city === bp.city) ?? PLACES.ITA[0];
    const dni = ids.dni(r);
    return {
      dni,
      nie: ids.nie(r),
      cpf: ids.cpf(r),
      ptNif: ids.ptNif(r, r.pick(['1', '2'] as const)),
      ssn: ids.ssn(r),
      nir: ids.frNir(r, p.sex, p.birthDate, frPlace.code ?? '75111'),
      cf: ids.itCf(p.surnames.join(' '), p.given, p.birthDate, p.sex, itPlace.code ?? 'H501'),
      niss: niss(r),
      personal: p.nationality === 'ESP' ? dni : nationalPersonal(r, p),
      frFiscal: String(r.int(1, 3)) + r.digits(12),
    };
  });
}

function niss(r: Rng): string {
  const body = r.pick(['1', '2']) + r.digits(9);
  const w = [29, 23, 19, 17, 13, 11, 7, 5, 3, 2];
  const sum = body.split('').reduce((a, d, i) => a + Number(d) * w[i], 0);
  return body + String(9 - (sum % 10));
}

/** Personal number printed in the MRZ optional data of some countries. */
function nationalPersonal(r: Rng, p: Person): string {
  switch (p.nationality) {
    case 'BEL': return ids.rrn(r, p.birthDate, p.sex);
    case 'NLD': return ids.bsn(r);
    case 'POL': return ids.pesel(r, p.birthDate, p.sex);
    case 'ROU': return ids.cnp(r, p.birthDate, p.sex);
    case 'SWE': return ids.personnummer(r, p.birthDate, p.sex);
    default: return '';
  }
}

/** The person's own identification number in the document's country. */
function personalNumber(c: Ctx, scheme?: string): string {
  const pi = personIds(c);
  const spanishHolder = c.person.nationality === 'ESP';
  switch (scheme) {
    case 'es_dni': return pi.dni;
    case 'es_nie': return pi.nie;
    case 'es_nif': return spanishHolder ? pi.dni : pi.nie;
    case 'pt_nif': return pi.ptNif;
    case 'it_cf': return pi.cf;
    case 'br_cpf': return pi.cpf;
    case 'us_ssn': return pi.ssn;
    case 'fr_nir': return pi.nir;
    default: break;
  }
  switch (c.country) {
    case 'ESP': return spanishHolder ? pi.dni : pi.nie;
    case 'PRT': return pi.ptNif;
    case 'ITA': return pi.cf;
    case 'BRA': return pi.cpf;
    case 'USA': return pi.ssn;
    case 'FRA': return pi.frFiscal;
    default: return pi.personal || documentNumber(c, 'id');
  }
}

// ------------------------------------------------------------------ document numbers

const DE_CHARS = 'CFGHJKLMNPRTVWXYZ0123456789';

function documentNumber(c: Ctx, kindOverride?: 'id' | 'passport'): string {
  const r = c.r(`docno-${kindOverride ?? ''}`);
  const L = (n: number) => r.chars(n, UPPER);
  const t = c.type;
  const kind = kindOverride ?? (t.includes('passport') ? 'passport' : c.entry.category === 'identity' ? 'id' : 'other');
  switch (t) {
    case 'es_dni': case 'es_dni_front': case 'es_dni_back': case 'es_driving_license': return personIds(c).dni;
    case 'es_tie': case 'es_eu_family_residence_card': case 'residence_permit':
      if (c.country === 'ESP') return 'E' + r.digits(8);
      break;
    case 'es_nie_certificate': case 'us_foreign_passport_i94': return passportNumber(c.person.nationality, r);
    case 'pt_citizen_card': return ids.ptCc(r);
    case 'pt_driving_license': return `${r.pick(['L', 'P', 'C', 'F'])}-${r.digits(7)}`;
    case 'pt_residence_permit': return r.chars(2, UPPER) + r.digits(7);
    case 'pt_eu_registration_certificate': return r.digits(8);
    case 'fr_cni': return r.chars(9, UPPER + '0123456789').replace(/^\d/, 'X');
    case 'fr_cni_old': return yymmdd(c.dates.issue_date).slice(0, 4) + '75' + r.digits(6);
    case 'fr_driving_license': return r.digits(2) + L(2) + r.digits(5);
    case 'fr_residence_permit': return r.digits(10);
    case 'it_cie': return 'CA' + r.digits(5) + L(2);
    case 'it_paper_id': return 'AY' + r.digits(7);
    case 'it_driving_license': return c.person.home.place.region.slice(0, 2).toUpperCase() + r.digits(7) + L(1);
    case 'it_residence_permit': return 'I' + L(1) + r.digits(7);
    case 'br_cin': return personIds(c).cpf;
    case 'br_cnh': return r.digits(11);
    case 'br_rg': { const d = r.digits(8); return `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5)}-${r.int(0, 9)}`; }
    case 'br_crnm': return `V${r.digits(6)}-${L(1)}`;
    case 'br_ctps': return `${r.digits(7)} ${r.digits(5)}`;
    case 'br_voter_id': return `${r.digits(4)} ${r.digits(4)} ${r.digits(4)}`;
    case 'us_drivers_license': case 'us_state_id': return ids.usDl(r, usState(c));
    case 'us_passport': return L(1) + r.digits(8);
    case 'us_passport_card': return 'C' + r.digits(8);
    case 'us_permanent_resident_card': return 'SRC' + r.digits(10);
    case 'us_employment_authorization_document': return 'IOE' + r.digits(10);
    case 'us_social_security_card': return personIds(c).ssn;
    case 'us_military_id': case 'us_military_dependent_id': return r.digits(10);
    case 'us_merchant_mariner_card': return r.digits(7);
    case 'us_tribal_document': return `NN-${r.digits(6)}`;
    case 'us_school_id': return 'S' + r.digits(7);
    case 'us_citizen_id_card': return r.digits(8);
    case 'us_voter_registration_card': return r.digits(9);
    case 'gb_driving_licence': return gbDrivingNumber(c, r);
    case 'be_id_card': { const b = r.digits(10); const k = Number(b) % 97 || 97; return `${b.slice(0, 3)}-${b.slice(3)}-${String(k).padStart(2, '0')}`; }
    case 'international_driving_permit': return 'IDP' + r.digits(6);
    case 'visa': return r.digits(9);
    case 'national_id_card': case 'driving_license':
      if (c.country === 'ESP') return personIds(c).dni;
      break;
    default: break;
  }
  if (kind === 'passport') return passportNumber(c.country, r);
  switch (c.country) {
    case 'DEU': return 'L' + r.chars(8, DE_CHARS);
    case 'NLD': return 'N' + r.chars(7, 'ABCDEFGHIJKLMNPRSTUVWXYZ0123456789') + r.digits(1);
    case 'POL': return L(3) + r.digits(6);
    case 'ROU': return L(2) + r.digits(6);
    case 'SWE': return r.digits(8);
    case 'AUT': return r.digits(8);
    case 'IRL': return L(2) + r.digits(7);
    default: return L(2) + r.digits(7);
  }
}

function passportNumber(country: string, r: Rng): string {
  const L = (n: number) => r.chars(n, UPPER);
  switch (country) {
    case 'ESP': return 'PA' + L(1) + r.digits(6);
    case 'PRT': return L(2) + r.digits(6);
    case 'FRA': return r.digits(2) + L(2) + r.digits(5);
    case 'ITA': return 'YA' + r.digits(7);
    case 'DEU': return 'C' + r.chars(8, DE_CHARS);
    case 'BRA': return 'FZ' + r.digits(6);
    case 'GBR': return r.digits(9);
    case 'USA': return L(1) + r.digits(8);
    case 'MEX': return 'G' + r.digits(8);
    case 'SWE': return r.digits(8);
    default: return L(2) + r.digits(7);
  }
}

/** DVLA driver number: surname (5), decade, month (+50 women), day, year digit, initials, 9, check letters. */
function gbDrivingNumber(c: Ctx, r: Rng): string {
  const p = c.person;
  const sur = (p.surnames.join('').normalize('NFD').replace(/\p{M}+/gu, '').toUpperCase().replace(/[^A-Z]/g, '') + '99999').slice(0, 5);
  const b = p.birthDate;
  const month = Number(b.slice(5, 7)) + (p.sex === 'F' ? 50 : 0);
  const given = p.given.normalize('NFD').replace(/\p{M}+/gu, '').toUpperCase();
  return `${sur}${b[2]}${String(month).padStart(2, '0')}${b.slice(8, 10)}${b[3]}${(given[0] ?? 'X') + '9'}9${r.chars(2, UPPER)}`;
}

function usState(c: Ctx): string {
  return c.person.home.place.code ?? 'CA';
}

// ------------------------------------------------------------------ organisations, banks, amounts

interface Company {
  name: string;
  legalForm: string;
  taxId: string;
  address: string;
  place: Place;
}

function company(c: Ctx, key: string, personal = false): Company {
  return c.once(`company-${key}`, (r) => {
    const words = COMPANY_WORDS[c.lang];
    const [short, form] = r.pick(words.forms);
    const name = personal ? otherPerson(c, `${key}-person`) : `${r.pick(words.prefixes)} ${r.pick(words.activities)} ${short}`;
    const pl = place(r, PLACES[c.country] ? c.country : 'ESP');
    const street = r.pick(STREETS[c.country] ?? STREETS.ESP);
    const address = formatAddress(c.country, street, r.int(1, 200), null, pl, true);
    let taxId: string;
    switch (c.country) {
      case 'ESP': taxId = personal ? ids.dni(r.fork('dni')) : ids.cif(r, r.pick(['A', 'B', 'B', 'B'])); break;
      case 'PRT': taxId = ids.ptNif(r, '5'); break;
      case 'FRA': taxId = ids.siren(r); break;
      case 'ITA': taxId = ids.partitaIva(r); break;
      case 'BRA': taxId = ids.cnpj(r); break;
      case 'USA': taxId = ids.ein(r); break;
      case 'DEU': taxId = 'DE' + r.digits(9); break;
      default: taxId = (ALPHA2[c.country] ?? 'EU') + r.digits(9);
    }
    return { name, legalForm: form, taxId, address, place: pl };
  });
}

function formatAddress(country: string, street: string, num: number, floor: string | null, pl: Place, withCity: boolean): string {
  let line: string;
  switch (country) {
    case 'ESP': line = `${street} ${num}${floor ? `, ${floor}º ${'ABCD'[num % 4]}` : ''}`; break;
    case 'PRT': line = `${street}, ${num}${floor ? `, ${floor}.º ${num % 2 ? 'Esq.' : 'Dto.'}` : ''}`; break;
    case 'BRA': line = `${street}, ${num}${floor ? `, apto ${floor}${num % 10}` : ''}`; break;
    case 'FRA': case 'BEL': line = `${num} ${street}`; break;
    case 'USA': line = `${num * 10 + 3} ${street}${floor ? ` Apt ${floor}${'ABCD'[num % 4]}` : ''}`; break;
    case 'GBR': case 'IRL': line = `${num} ${street}`; break;
    default: line = `${street} ${num}`;
  }
  if (!withCity) return line;
  if (country === 'USA') return `${line}, ${pl.city}, ${pl.region} ${pl.postal}`;
  if (country === 'BRA') return `${line}, ${pl.city} - ${pl.region}, ${pl.postal}`;
  if (country === 'ITA') return `${line}, ${pl.postal} ${pl.city} (${pl.region})`;
  if (country === 'GBR' || country === 'IRL') return `${line}, ${pl.city} ${pl.postal}`;
  return `${line}, ${pl.postal} ${pl.city}`;
}

function homeAddress(c: Ctx, withCity: boolean): string {
  const h = c.person.home;
  return formatAddress(h.country, h.street, h.number, h.floor, h.place, withCity);
}

function bankAccount(c: Ctx): ids.Account {
  return c.once('account', (r) => {
    const a2 = ALPHA2[c.country] ?? 'ES';
    const country = IBAN_COUNTRIES.has(a2) ? a2 : 'ES';
    return ids.account(r, country, BANKS[country]);
  });
}

const money = (cents: number) => Math.round(cents) / 100;

function vatRate(c: Ctx): number {
  return ({ ESP: 21, PRT: 23, FRA: 20, ITA: 22, DEU: 19, AUT: 20, BEL: 21, NLD: 21, GBR: 20, BRA: 0 } as Record<string, number>)[c.country] ?? 21;
}

interface Invoice {
  lines: Array<{ description: string; quantity: number; unit_price: number; amount: number }>;
  base: number;
  rate: number;
  vat: number;
  withholding: number;
  total: number;
}

const SERVICES: Record<Lang, readonly string[]> = {
  es: ['Servicios de consultoría informática', 'Desarrollo de aplicación web', 'Mantenimiento mensual de sistemas', 'Licencia de software (anual)', 'Horas de soporte técnico', 'Diseño gráfico de materiales'],
  pt: ['Serviços de consultoria informática', 'Desenvolvimento de aplicação web', 'Manutenção mensal de sistemas', 'Licença de software (anual)', 'Horas de suporte técnico'],
  fr: ['Prestations de conseil informatique', "Développement d'application web", 'Maintenance mensuelle des systèmes', 'Licence logicielle (annuelle)', "Heures d'assistance technique"],
  en: ['IT consulting services', 'Web application development', 'Monthly systems maintenance', 'Software licence (annual)', 'Technical support hours'],
};
const RETAIL: Record<Lang, readonly string[]> = {
  es: ['Café con leche', 'Tostada con tomate', 'Zumo de naranja', 'Agua mineral 50 cl', 'Croissant', 'Menú del día'],
  pt: ['Café', 'Tosta mista', 'Sumo de laranja', 'Água 50 cl', 'Pastel de nata'],
  fr: ['Café crème', 'Croissant', "Jus d'orange", 'Eau minérale 50 cl', 'Formule midi'],
  en: ['Coffee', 'Toast', 'Orange juice', 'Still water 50 cl', 'Lunch menu'],
};

function invoice(c: Ctx): Invoice {
  return c.once('invoice', (r) => {
    const simplified = c.type === 'es_simplified_invoice';
    const n = simplified ? r.int(2, 4) : r.int(1, 3);
    const pool = simplified ? RETAIL[c.lang] : SERVICES[c.lang];
    const lines = [];
    let base = 0;
    for (let i = 0; i < n; i++) {
      const quantity = simplified ? r.int(1, 3) : r.int(1, 12);
      const unitCents = simplified ? r.int(120, 1450) : r.int(3500, 95000);
      const amount = Math.round(quantity * unitCents);
      base += amount;
      lines.push({ description: pool[(i + r.int(0, pool.length - 1)) % pool.length], quantity, unit_price: money(unitCents), amount: money(amount) });
    }
    const rate = simplified ? 10 : vatRate(c);
    const vat = Math.round((base * rate) / 100);
    const professional = isProfessionalIssuer(c);
    const withholding = professional ? Math.round((base * 15) / 100) : 0;
    return { lines, base: money(base), rate, vat: money(vat), withholding: money(withholding), total: money(base + vat - withholding) };
  });
}

/** Spanish invoices from a self-employed professional carry 15 % IRPF withholding (issuer NIF = the person's DNI). */
function isProfessionalIssuer(c: Ctx): boolean {
  return c.type === 'es_invoice' && c.once('professional', (r) => r.chance(0.4));
}

interface Payslip {
  gross: number;
  ss: number;
  withholding: number;
  net: number;
}

function payslip(c: Ctx): Payslip {
  return c.once('payslip', (r) => {
    const gross = r.int(160000, 420000);
    const [ssRate, whRate] = c.country === 'PRT' ? [11, r.int(10, 20)] : c.country === 'FRA' ? [22, r.int(2, 8)] : [6.47, r.int(8, 19)];
    const ss = Math.round((gross * ssRate) / 100);
    const wh = Math.round((gross * whRate) / 100);
    return { gross: money(gross), ss: money(ss), withholding: money(wh), net: money(gross - ss - wh) };
  });
}

// ------------------------------------------------------------------ texts

function issuingAuthority(c: Ctx): string {
  const city = c.person.home.place.city;
  const region = c.person.home.place.region;
  const t = c.type;
  const special: Record<string, string> = {
    es_disability_certificate: `Consejería de Políticas Sociales y Familia (${region})`,
    es_fishing_license: `Consejería de Medio Ambiente (${region})`,
    es_hunting_license: `Consejería de Medio Ambiente (${region})`,
    es_large_family_title: `Dirección General de Familia (${region})`,
    es_civil_partnership_certificate: `Registro de Uniones de Hecho (${region})`,
    es_digital_certificate_proof: 'Fábrica Nacional de Moneda y Timbre - Real Casa de la Moneda',
    es_land_registry_note: `Registro de la Propiedad de ${city} n.º ${c.r('reg').int(1, 30)}`,
    company_registry_extract: c.t({ es: `Registro Mercantil de ${city}`, pt: `Conservatória do Registo Comercial de ${city}`, fr: `Greffe du Tribunal de commerce de ${city}`, en: `Companies Registry of ${city}` }),
    fr_kbis: `Greffe du Tribunal de commerce de ${city}`,
    criminal_record_certificate: c.t({ es: 'Ministerio de Justicia', pt: 'Direção-Geral da Administração da Justiça', fr: 'Casier judiciaire national', en: 'Ministry of Justice' }),
    tax_certificate: taxAuthority(c),
    tax_return: taxAuthority(c),
    us_military_id: 'DEPARTMENT OF DEFENSE',
    us_tribal_document: 'NAVAJO NATION',
    br_rg: `SSP/${c.person.home.place.region}`,
    br_cin: `SSP/${c.person.home.place.region}`,
  };
  if (special[t]) return special[t];
  const cat = c.entry.category;
  const co = t === 'us_foreign_passport_i94' ? c.person.nationality : c.country;
  if (cat === 'driving') {
    const m: Record<string, string> = {
      ESP: `Jefatura Provincial de Tráfico de ${city}`, PRT: 'IMT', FRA: `Préfecture de ${city}`, ITA: 'MIT-UCO', GBR: 'DVLA', BRA: `DETRAN-${region}`,
      USA: 'Department of Motor Vehicles',
    };
    return c.p(m[c.country] ?? 'Driving licence authority');
  }
  if (cat === 'residence') {
    const m: Record<string, string> = {
      ESP: 'Dirección General de la Policía', PRT: 'AIMA', FRA: `Préfecture de ${city}`, ITA: `Questura di ${city}`, BRA: 'Polícia Federal', USA: 'USCIS',
    };
    return c.p(m[c.country] ?? 'Immigration office');
  }
  if (cat === 'identity') {
    const m: Record<string, string> = {
      ESP: 'Dirección General de la Policía', PRT: 'República Portuguesa', FRA: `Préfecture de ${city}`, ITA: `Comune di ${city}`, DEU: `Stadt ${city}`,
      AUT: `Magistrat der Stadt ${city}`, BEL: `Gemeente ${city}`, NLD: `Burgemeester van ${city}`, POL: `Prezydent miasta ${city}`, ROU: `SPCLEP ${city}`,
      SWE: 'Polismyndigheten', GBR: 'HMPO', IRL: 'Department of Foreign Affairs', USA: 'United States Department of State', BRA: 'Polícia Federal',
      MEX: 'Secretaría de Relaciones Exteriores', COL: 'Cancillería de Colombia',
    };
    return c.p(m[co] ?? 'National authority');
  }
  return c.t({ es: `Ayuntamiento de ${city}`, pt: `Câmara Municipal de ${city}`, fr: `Mairie de ${city}`, en: `City of ${city}` });
}

function taxAuthority(c: Ctx): string {
  const m: Record<string, string> = {
    ESP: 'Agencia Estatal de Administración Tributaria', PRT: 'Autoridade Tributária e Aduaneira', FRA: 'Direction générale des Finances publiques',
    ITA: 'Agenzia delle Entrate', BRA: 'Receita Federal do Brasil', USA: 'Internal Revenue Service', DEU: 'Finanzamt',
  };
  return m[c.country] ?? 'Tax Administration';
}

const SUPPLIERS: Record<string, ReadonlyArray<[string, Record<Lang, string>]>> = {
  ESP: [
    ['Iberdrola Clientes, S.A.U.', { es: 'Electricidad', pt: 'Eletricidade', fr: 'Électricité', en: 'Electricity' }],
    ['Endesa Energía, S.A.', { es: 'Electricidad', pt: 'Eletricidade', fr: 'Électricité', en: 'Electricity' }],
    ['Naturgy Iberia, S.A.', { es: 'Gas natural', pt: 'Gás natural', fr: 'Gaz naturel', en: 'Natural gas' }],
    ['Canal de Isabel II, S.A.', { es: 'Agua', pt: 'Água', fr: 'Eau', en: 'Water' }],
    ['Telefónica de España, S.A.U.', { es: 'Telecomunicaciones', pt: 'Telecomunicações', fr: 'Télécommunications', en: 'Telecommunications' }],
  ],
  PRT: [['EDP Comercial, S.A.', { es: 'Electricidad', pt: 'Eletricidade', fr: 'Électricité', en: 'Electricity' }], ['EPAL, S.A.', { es: 'Agua', pt: 'Água', fr: 'Eau', en: 'Water' }]],
  FRA: [['EDF', { es: 'Electricidad', pt: 'Eletricidade', fr: 'Électricité', en: 'Electricity' }], ['Engie', { es: 'Gas natural', pt: 'Gás natural', fr: 'Gaz naturel', en: 'Natural gas' }], ['Orange', { es: 'Telecomunicaciones', pt: 'Telecomunicações', fr: 'Télécommunications', en: 'Telecommunications' }]],
  BRA: [['Enel Distribuição São Paulo', { es: 'Electricidad', pt: 'Energia elétrica', fr: 'Électricité', en: 'Electricity' }], ['Sabesp', { es: 'Agua', pt: 'Água e esgoto', fr: 'Eau', en: 'Water' }]],
  ITA: [['Enel Energia S.p.A.', { es: 'Electricidad', pt: 'Eletricidade', fr: 'Électricité', en: 'Electricity' }]],
  DEU: [['Vattenfall Europe Sales GmbH', { es: 'Electricidad', pt: 'Eletricidade', fr: 'Électricité', en: 'Electricity' }]],
};

function supplier(c: Ctx): [string, string] {
  return c.once('supplier', (r) => {
    const [name, kind] = r.pick(SUPPLIERS[c.country] ?? SUPPLIERS.ESP);
    return [name, kind[c.lang]] as [string, string];
  });
}

function fullName(c: Ctx, given = c.person.given, surnames = c.person.surnames): string {
  return c.p(`${given} ${surnames.join(' ')}`);
}

function otherPerson(c: Ctx, key: string): string {
  const r = c.r(`other-${key}`);
  const pool = NAMES[LOCALE_OF[c.country] ?? 'es'];
  const sur = [r.pick(pool.surnames), ...(pool.surnameCount === 2 ? [r.pick(pool.surnames)] : [])];
  return c.p(`${r.pick(r.chance(0.5) ? pool.male : pool.female)} ${sur.join(' ')}`);
}

function plate(c: Ctx): string {
  return c.once('plate', (r) => {
    switch (c.country) {
      case 'ESP': return `${r.digits(4)} ${r.chars(3, 'BCDFGHJKLMNPRSTVWXYZ')}`;
      case 'PRT': return `${r.chars(2, UPPER)}-${r.digits(2)}-${r.chars(2, UPPER)}`;
      case 'FRA': return `${r.chars(2, UPPER)}-${r.digits(3)}-${r.chars(2, UPPER)}`;
      case 'ITA': return `${r.chars(2, UPPER)}${r.digits(3)}${r.chars(2, UPPER)}`;
      case 'BRA': return `${r.chars(3, UPPER)}${r.digits(1)}${r.chars(1, UPPER)}${r.digits(2)}`;
      default: return `${r.chars(2, UPPER)}${r.digits(2)} ${r.chars(3, UPPER)}`;
    }
  });
}

const CARS: ReadonlyArray<[string, string, string, number, number]> = [
  ['SEAT', 'Ibiza 1.0 TSI', 'VSS', 999, 81], ['Volkswagen', 'Golf 1.5 TSI', 'WVW', 1498, 96], ['Renault', 'Clio TCe 90', 'VF1', 999, 67],
  ['Peugeot', '208 PureTech 100', 'VF3', 1199, 74], ['Toyota', 'Corolla Hybrid', 'SB1', 1798, 90], ['Fiat', '500 Hybrid', 'ZFA', 999, 51],
];

function car(c: Ctx): [string, string, string, number, number] {
  return c.once('car', (r) => r.pick(CARS));
}

// ------------------------------------------------------------------ one field

function value(f: string, c: Ctx, v: Record<string, unknown>): unknown {
  const p = c.person;
  const d = c.dates;
  const t = c.type;
  const r = c.r(`field-${f}`);
  const hn = c.holderNumber;
  if (hn && hn.field === f) return hn.value;
  switch (f) {
    // ------------------------------------------------ person
    case 'full_name': return fullName(c);
    case 'first_name': return c.p(p.given);
    case 'last_name': return c.p(c.has('second_last_name') ? p.surnames[0] : p.surnames.join(' '));
    case 'second_last_name': return c.p(p.surnames.slice(1).join(' '));
    case 'birth_date': return d.birth_date;
    case 'birth_place': {
      const bp = p.birthPlace;
      if (p.nationality !== c.country && c.upper) return c.p(`${bp.city} (${p.nationality})`);
      return c.p(c.country === 'ESP' && c.upper ? `${bp.city} (${bp.region})` : bp.city);
    }
    case 'sex': return p.sex;
    case 'nationality': return p.nationality;
    case 'father_name': return c.entry.category === 'identity' || c.entry.category === 'residence' ? c.p(p.fatherGiven) : fullName(c, p.fatherGiven, p.fatherSurnames);
    case 'mother_name': return c.entry.category === 'identity' || c.entry.category === 'residence' ? c.p(p.motherGiven) : fullName(c, p.motherGiven, p.motherSurnames);
    case 'address': return c.p(homeAddress(c, !(c.has('city') || c.has('postal_code'))));
    case 'postal_code': return p.home.place.postal;
    case 'city': return c.p(p.home.place.city);
    case 'region': return c.p(p.home.place.region);
    case 'country': return c.country;
    case 'email': return `${foldName(p.given).split(' ')[0]}.${foldName(p.surnames[0]).replace(/\s/g, '')}@example.com`;
    case 'phone': return c.country === 'USA' ? `+1 ${r.int(201, 989)} ${r.digits(3)} ${r.digits(4)}` : `+34 6${r.digits(2)} ${r.digits(3)} ${r.digits(3)}`;
    // ------------------------------------------------ document
    case 'document_number': {
      const sc = c.scheme('document_number');
      if (sc && !['es_dni', 'es_nif', 'br_cpf', 'pt_cc', 'us_dl', 'us_ssn'].includes(sc)) return personalNumber(c, sc);
      return documentNumber(c);
    }
    case 'id_number': return personalNumber(c, c.scheme('id_number'));
    case 'support_number': return c.once('support', (rr) => rr.pick(['BAA', 'BAB', 'BAC', 'CAA', 'CAB']) + rr.digits(6));
    case 'can_number': return r.digits(6);
    case 'personal_number': {
      if (t === 'es_passport') return (v.id_number as string) ?? personIds(c).dni;
      return personIds(c).personal;
    }
    case 'issue_date': return d.issue_date;
    case 'expiry_date': return d.expiry_date;
    case 'issuing_authority': return issuingAuthority(c);
    case 'issuing_country': return t === 'us_foreign_passport_i94' ? p.nationality : c.country;
    case 'issue_place': return c.p(t === 'visa' ? p.birthPlace.city : p.home.place.city);
    case 'mrz': return ''; // built afterwards
    // The heading the document prints: its type's name in its language. An unidentified document prints no name of
    // the catalogue's ("Documento no identificado" is Cotejo's word for it, not a title): a plain heading instead.
    case 'document_title': return c.type === 'unknown_document' ? r.pick(UNIDENTIFIED_TITLES)[c.asked] : c.entry.labels[c.lang];
    case 'certificate_number': return `${c.r('cert').chars(3, UPPER)}-${yymmdd(d.issue_date).slice(0, 2)}-${r.digits(7)}`;
    case 'csv': return ids.csvCode(r, t.startsWith('es_aeat') || t.startsWith('es_modelo') ? 'aeat' : t.includes('social_security') || t === 'es_work_life_report' || t === 'es_pension_certificate' || t === 'es_company_certificate' ? 'seg_social' : 'admin');
    case 'reference': return t === 'es_land_registry_note' ? `Finca n.º ${r.int(1000, 99999)}` : `${r.chars(2, UPPER)}${yymmdd(d.issue_date).slice(0, 4)}${r.digits(6)}`;
    case 'concept': return c.t({ es: `Pago factura ${invoiceNumber(c)}`, pt: `Pagamento fatura ${invoiceNumber(c)}`, fr: `Paiement facture ${invoiceNumber(c)}`, en: `Payment invoice ${invoiceNumber(c)}` });
    case 'purpose': return purpose(c);
    case 'status': return status(c);
    case 'remarks': return remarks(c);
    // ------------------------------------------------ permits, residence, driving
    case 'permit_type': return c.p(permitType(c));
    case 'license_categories': return c.country === 'USA' ? ['C'] : t === 'br_cnh' ? ['B'] : p.birthDate > addDays(c.ref, -365 * 18) ? ['AM'] : r.chance(0.3) ? ['AM', 'A2', 'B'] : ['AM', 'B'];
    case 'restrictions': return c.country === 'USA' ? (r.chance(0.3) ? 'B' : 'NONE') : r.chance(0.3) ? '01' : c.t({ es: 'Sin restricciones', pt: 'Sem restrições', fr: 'Aucune', en: 'None' });
    case 'endorsements': return 'NONE';
    case 'visa_type': return 'C';
    case 'entries': return c.p(c.t({ es: 'Múltiples', pt: 'Múltiplas', fr: 'Multiples', en: 'Multiple' }));
    case 'admission_number': return r.digits(11);
    case 'admission_class': return 'B2';
    case 'admit_until_date': return d.admit_until_date;
    case 'uscis_number': return `${r.digits(3)}-${r.digits(3)}-${r.digits(3)}`;
    case 'category_code': return t === 'us_permanent_resident_card' ? 'IR1' : 'C09';
    case 'height': {
      if (c.country !== 'USA') return p.sex === 'F' ? `${r.int(152, 178)} cm` : `${r.int(164, 193)} cm`;
      const inches = p.sex === 'F' ? r.int(60, 70) : r.int(65, 76);
      return `${Math.floor(inches / 12)}'-${String(inches % 12).padStart(2, '0')}"`;
    }
    case 'eye_color': return r.pick(['BRO', 'BLU', 'GRN', 'HAZ']);
    case 'barcode_data': return ''; // built afterwards
    // ------------------------------------------------ organisations and parties
    case 'issuer_name':
      if (c.has('supply_type')) return supplier(c)[0];
      if (t === 'vaccination_certificate') return c.t({ es: `Servicio de Salud (${p.home.place.region})`, pt: 'Serviço Nacional de Saúde', fr: 'Assurance Maladie', en: 'National Health Service' });
      return company(c, 'issuer', isProfessionalIssuer(c)).name;
    case 'issuer_tax_id': return company(c, 'issuer', isProfessionalIssuer(c)).taxId;
    case 'issuer_address': return company(c, 'issuer', isProfessionalIssuer(c)).address;
    // A professional's invoice (IRPF withheld) goes to a business; other invoices to the person.
    case 'customer_name': return isProfessionalIssuer(c) ? company(c, 'customer').name : fullName(c);
    case 'customer_tax_id': return isProfessionalIssuer(c) ? company(c, 'customer').taxId : personalNumber(c, c.scheme('customer_tax_id'));
    case 'customer_address': return isProfessionalIssuer(c) ? company(c, 'customer').address : homeAddress(c, true);
    case 'employer_name': return company(c, 'employer').name;
    case 'employer_tax_id': return c.country === 'FRA' ? ids.siret(company(c, 'employer').taxId, r) : company(c, 'employer').taxId;
    case 'company_name': return company(c, 'company').name;
    case 'company_tax_id': return company(c, 'company').taxId;
    case 'legal_form': return company(c, 'company').legalForm;
    case 'registered_address': return company(c, 'company').address;
    case 'incorporation_date': return d.incorporation_date;
    case 'representatives': return [`${fullName(c)} (${c.t({ es: 'Administrador único', pt: 'Gerente', fr: 'Gérant', en: 'Director' })})`];
    case 'landlord_name': return otherPerson(c, 'landlord');
    case 'property_address': return c.p(homeAddress(c, true));
    case 'grantor_name': return fullName(c);
    case 'attorney_name': return otherPerson(c, 'attorney');
    case 'notary_name': return otherPerson(c, 'notary');
    case 'protocol_number': return String(r.int(120, 3400));
    case 'deed_type': return r.pick(['Compraventa', 'Préstamo hipotecario', 'Constitución de sociedad', 'Aceptación de herencia']);
    case 'parties': return [fullName(c), otherPerson(c, 'party')];
    // ------------------------------------------------ finance
    case 'iban': return bankAccount(c).ibanPrinted;
    case 'bic': return bankAccount(c).bic;
    case 'account_number': return bankAccount(c).national;
    case 'bank_name': return bankAccount(c).bank.name;
    case 'invoice_number': return invoiceNumber(c);
    case 'due_date': return d.due_date;
    case 'payment_date': return d.payment_date;
    case 'payment_method': return t === 'es_simplified_invoice' ? c.t({ es: 'Tarjeta', pt: 'Cartão', fr: 'Carte bancaire', en: 'Card' }) : c.t({ es: 'Transferencia bancaria', pt: 'Transferência bancária', fr: 'Virement bancaire', en: 'Bank transfer' });
    case 'tax_base': return c.has('line_items') ? invoice(c).base : taxForm(c).base;
    case 'tax_rate': return c.has('line_items') ? invoice(c).rate : vatRate(c);
    case 'tax_amount': return c.has('line_items') ? invoice(c).vat : taxForm(c).vat;
    case 'withholding_amount': return c.has('line_items') ? invoice(c).withholding : c.has('gross_pay') ? payslip(c).withholding : taxForm(c).withholding;
    case 'total_amount': return c.has('line_items') ? invoice(c).total : t === 'es_notarial_deed' || t === 'contract' ? money(r.int(60_000, 40_000_000)) : money(r.int(3500, 18500));
    case 'amount': return amount(c, r);
    case 'currency': return c.country === 'BRA' ? 'BRL' : c.country === 'USA' ? 'USD' : c.country === 'GBR' ? 'GBP' : 'EUR';
    case 'line_items': return invoice(c).lines.map((l) => ({ ...l }));
    case 'opening_balance': return c.once('balance', (rr) => money(rr.int(50_000, 1_500_000)));
    case 'closing_balance': return money(Math.round((c.once('balance', (rr) => money(rr.int(50_000, 1_500_000))) as number) * 100) + r.int(-40_000, 60_000));
    case 'period_start_date': return d.period_start_date;
    case 'period_end_date': return d.period_end_date;
    case 'payer_name': return fullName(c);
    case 'payee_name': return company(c, 'payee').name;
    // ------------------------------------------------ employment
    case 'social_security_number': {
      const sc = c.scheme('social_security_number');
      if (sc === 'es_nss' || (!sc && c.country === 'ESP')) return c.once('nss', (rr) => ids.esNss(rr, p.home.place.postal.slice(0, 2)));
      if (sc === 'fr_nir' || c.country === 'FRA') return personIds(c).nir;
      if (c.country === 'PRT') return personIds(c).niss;
      if (c.country === 'USA') return personIds(c).ssn;
      return r.digits(11);
    }
    case 'job_title': return t === 'us_military_id' ? 'SERGEANT (E-5)' : r.pick(JOBS[c.lang]);
    case 'contract_type': return r.pick(CONTRACTS[c.lang]);
    case 'start_date': return d.start_date;
    case 'end_date': return d.end_date;
    case 'gross_pay': return t.includes('payslip') ? payslip(c).gross : money(r.int(1_800_000, 6_000_000));
    case 'net_pay': return payslip(c).net;
    case 'social_security_contributions': return payslip(c).ss;
    case 'total_days_contributed': return Math.max(30, Math.min(ageYears(p.birthDate, c.ref) - 17, 45) * r.int(250, 340));
    case 'employment_periods': return [
      `${company(c, 'past').name} - ${d.start_date > addDays(c.ref, -3000) ? addDays(d.start_date, -2200) : addDays(d.start_date, -900)} - ${addDays(d.start_date, -30)}`,
      `${company(c, 'employer').name} - ${d.start_date} - `,
    ].map((x) => x.trim().replace(/ -$/, ''));
    case 'benefit_type': return benefit(c);
    case 'monthly_amount': return money(r.int(60_000, 240_000));
    // ------------------------------------------------ tax
    case 'tax_id': return personalNumber(c, c.scheme('tax_id'));
    case 'tax_year': return d.tax_year;
    case 'tax_period': return d.tax_period;
    case 'form_code': return formCode(c);
    case 'gross_income': return taxForm(c).gross;
    case 'taxable_income': return taxForm(c).taxable;
    case 'result_amount': return taxForm(c).result;
    case 'filing_date': return d.filing_date;
    case 'submission_number': return r.digits(13);
    case 'tax_domicile': return homeAddress(c, true);
    case 'economic_activity': return c.t({ es: 'IAE 763 - Programadores y analistas de informática', pt: 'CAE 62010 - Programação informática', fr: 'APE 6201Z - Programmation informatique', en: 'NAICS 541511 - Custom computer programming' });
    // ------------------------------------------------ education
    case 'institution_name': return institution(c);
    case 'qualification': return qualification(c);
    case 'field_of_study': return c.t({ es: 'Administración y Dirección de Empresas', pt: 'Gestão de Empresas', fr: 'Gestion des entreprises', en: 'Business Administration' });
    case 'grade': return c.lang === 'es' ? `Notable (${(r.int(700, 899) / 100).toFixed(2).replace('.', ',')})` : (r.int(140, 180) / 10).toFixed(1);
    case 'completion_date': return d.completion_date;
    case 'academic_year': return d.academic_year;
    case 'registry_number': return `${yymmdd(d.issue_date).slice(0, 2)}/${r.digits(6)}`;
    case 'level': return 'B2';
    // ------------------------------------------------ health
    case 'patient_name': return fullName(c);
    case 'doctor_name': return otherPerson(c, 'doctor');
    case 'doctor_license_number': return `${p.home.place.postal.slice(0, 2)}${r.digits(7)}`;
    case 'health_card_number': return healthCard(c, r);
    case 'insurer_name': return insurer(c);
    case 'diagnosis': return c.t({ es: 'Lumbalgia mecánica', pt: 'Lombalgia mecânica', fr: 'Lombalgie commune', en: 'Mechanical low back pain' });
    case 'medical_findings': return c.t({ es: 'No padece enfermedad ni defecto físico o psíquico que le impida el ejercicio de la actividad', pt: 'Apto, sem doença que impeça a atividade', fr: 'Aucune contre-indication', en: 'Fit, no condition preventing the activity' });
    case 'fit_for_sport': return true;
    case 'disability_degree': return r.int(33, 65);
    case 'vaccine_name': return r.pick(['Comirnaty (Pfizer-BioNTech)', 'Vaxigrip Tetra', 'Boostrix (dTpa)', 'Engerix-B (hepatitis B)']);
    case 'vaccination_date': return d.vaccination_date;
    case 'leave_start_date': return d.leave_start_date;
    case 'has_records': return false;
    // ------------------------------------------------ civil
    case 'event_date': return d.event_date;
    case 'event_place': return c.p(t.includes('death') ? p.home.place.city : t.includes('marriage') ? p.home.place.city : p.birthPlace.city);
    case 'civil_registry': return c.t({ es: `Registro Civil de ${p.birthPlace.city}`, pt: `Conservatória do Registo Civil de ${p.birthPlace.city}`, fr: `Mairie de ${p.birthPlace.city}`, en: `${p.birthPlace.city} Vital Records Office` });
    case 'registry_entry': return c.t({ es: `Tomo ${r.int(10, 400)}, página ${r.int(1, 300)}, sección ${r.pick(['1ª', '2ª', '3ª'])}`, pt: `Assento n.º ${r.int(100, 3000)} de ${d.event_date.slice(0, 4)}`, fr: `Acte n° ${r.int(100, 3000)}`, en: `Certificate No. ${r.digits(3)}-${d.event_date.slice(0, 4)}-${r.digits(6)}` });
    case 'spouse_name': return otherPerson(c, 'spouse');
    case 'children': return [`${otherPerson(c, 'child')} (${addDays(d.marriage_date, 700)})`];
    case 'marriage_date': return d.marriage_date;
    case 'death_date': return d.death_date;
    // ------------------------------------------------ address
    case 'registration_date': return d.registration_date;
    case 'household_members': return [fullName(c), otherPerson(c, 'household')];
    case 'supply_address': return homeAddress(c, true);
    case 'supply_type': return supplier(c)[1];
    // ------------------------------------------------ vehicles
    case 'plate_number': return plate(c);
    case 'vin': return c.once('vin', (rr) => ids.vin(rr, car(c)[2]));
    case 'make': return car(c)[0];
    case 'model': return car(c)[1];
    case 'vehicle_category': return 'M1';
    case 'first_registration_date': return d.first_registration_date;
    case 'fuel_type': return c.t({ es: 'Gasolina', pt: 'Gasolina', fr: 'Essence', en: 'Petrol' });
    case 'engine_capacity': return car(c)[3];
    case 'power_kw': return car(c)[4];
    case 'seats': return 5;
    case 'inspection_expiry_date': return d.inspection_expiry_date;
    case 'policy_number': return `${r.chars(2, UPPER)}-${r.digits(9)}`;
    case 'coverage': return c.t({ es: 'Todo riesgo con franquicia', pt: 'Danos próprios', fr: 'Tous risques', en: 'Comprehensive' });
    // ------------------------------------------------ sports
    case 'sport': return c.t({ es: 'Fútbol', pt: 'Futebol', fr: 'Football', en: 'Football' });
    case 'federation_name': return c.t({ es: `Federación de Fútbol de ${p.home.place.region}`, pt: 'Federação Portuguesa de Futebol', fr: 'Fédération Française de Football', en: 'National Football Federation' });
    case 'club_name': return c.t({ es: `Club Deportivo ${p.home.place.city}`, pt: `Clube Desportivo de ${p.home.place.city}`, fr: `Football Club de ${p.home.place.city}`, en: `${p.home.place.city} Football Club` });
    case 'season': return d.season;
    case 'license_number': return `${p.home.place.postal.slice(0, 2)}-${r.digits(7)}`;
    default:
      return genericValue(f, c.entry.schema.properties[f]?.type ?? 'string', r, c);
  }
}

/** A value for a field outside the dictionary (custom extraction schemas), from its JSON Schema type. */
export function genericValue(_name: string, type: string, r: Rng, c: { ref: string }): unknown {
  switch (type) {
    case 'number': return r.float(10, 1000, 2);
    case 'integer': return r.int(1, 100);
    case 'boolean': return true;
    case 'array': return [];
    case 'object': return {};
    default: return `${r.chars(3, UPPER)}-${r.digits(6)}`;
  }
}

/** Headings of documents that fit no type of the catalogue (a notice, a receipt...), the same one in every language. */
const UNIDENTIFIED_TITLES: ReadonlyArray<Record<Lang, string>> = [
  { es: 'Comunicación', en: 'Notice', pt: 'Comunicação', fr: 'Avis' },
  { es: 'Justificante', en: 'Receipt', pt: 'Comprovativo', fr: 'Justificatif' },
  { es: 'Notificación', en: 'Notification', pt: 'Notificação', fr: 'Notification' },
  { es: 'Resguardo', en: 'Acknowledgement of receipt', pt: 'Recibo de entrega', fr: 'Récépissé' },
];

const JOBS: Record<Lang, readonly string[]> = {
  es: ['Técnico de sistemas', 'Administrativo', 'Dependiente', 'Ingeniero de software', 'Enfermero', 'Jefe de ventas'],
  pt: ['Técnico de informática', 'Administrativo', 'Engenheiro de software', 'Enfermeiro', 'Assistente comercial'],
  fr: ['Technicien informatique', 'Employé administratif', 'Ingénieur logiciel', 'Infirmier', 'Commercial'],
  en: ['Systems technician', 'Administrative assistant', 'Software engineer', 'Nurse', 'Sales manager'],
};
const CONTRACTS: Record<Lang, readonly string[]> = {
  es: ['Indefinido a tiempo completo', 'Temporal a tiempo completo', 'Indefinido a tiempo parcial'],
  pt: ['Contrato sem termo', 'Contrato a termo certo'],
  fr: ['CDI', 'CDD'],
  en: ['Permanent full-time', 'Fixed-term full-time'],
};

function invoiceNumber(c: Ctx): string {
  return c.once('invoice-number', (r) => `${r.pick(['F', 'FA', 'A'])}${c.dates.issue_date.slice(0, 4)}-${String(r.int(1, 999)).padStart(4, '0')}`);
}

function amount(c: Ctx, r: Rng): number {
  switch (c.type) {
    case 'es_lease_agreement': case 'lease_agreement': return money(r.int(55, 160) * 1000);
    case 'vehicle_insurance': case 'es_vehicle_insurance': return money(r.int(24_000, 95_000));
    case 'es_self_employed_receipt': return money(r.pick([8_000, 23_000, 29_400, 31_500, 38_400]));
    default: return money(r.int(2_000, 250_000));
  }
}

function purpose(c: Ctx): string {
  const m: Record<string, string> = {
    es_criminal_record_certificate: 'A petición del interesado',
    es_aeat_tax_compliance_certificate: 'Contratación con el sector público (art. 71 LCSP)',
    es_aeat_tax_residence_certificate: 'Acreditar la residencia fiscal en España a efectos del convenio para evitar la doble imposición',
    es_nie_certificate: 'Por intereses económicos',
    es_official_medical_certificate: 'Obtención o renovación del permiso de conducir',
    pt_criminal_record_certificate: 'Fins de emprego',
  };
  return m[c.type] ?? c.t({ es: 'A petición del interesado', pt: 'A pedido do interessado', fr: "À la demande de l'intéressé", en: 'At the request of the holder' });
}

function status(c: Ctx): string {
  const t = c.type;
  if (t === 'es_aeat_tax_compliance_certificate' || t === 'es_social_security_clearance_certificate') return 'Al corriente de sus obligaciones';
  if (t === 'es_aeat_census_certificate') return 'Alta en el Censo de Empresarios, Profesionales y Retenedores';
  if (t === 'es_job_seeker_registration') return 'Demandante de empleo en alta';
  if (t === 'es_sepe_certificate') return 'Prestación reconocida';
  if (t === 'es_large_family_title') return 'Categoría general';
  if (t === 'pt_tax_clearance_certificate') return 'Situação tributária regularizada';
  if (t === 'br_cpf') return 'REGULAR';
  if (t === 'br_cnpj_card') return 'ATIVA';
  if (t === 'us_form_i9') return 'A citizen of the United States';
  return c.t({ es: 'Vigente', pt: 'Válido', fr: 'Valide', en: 'Valid' });
}

function remarks(c: Ctx): string {
  const t = c.type;
  if (t === 'es_tie' || t === 'pt_residence_permit' || t === 'fr_residence_permit' || t === 'it_residence_permit' || t === 'residence_permit') {
    return c.p(c.t({ es: 'Autoriza a trabajar', pt: 'Autoriza o exercício de atividade profissional', fr: 'Autorise son titulaire à travailler', en: 'Work permitted' }));
  }
  if (t === 'us_military_dependent_id') return 'SPONSOR: ACTIVE DUTY';
  if (t === 'visa') return c.p(c.t({ es: 'Turismo', pt: 'Turismo', fr: 'Tourisme', en: 'Tourism' }));
  return c.t({ es: 'Sin observaciones', pt: 'Sem observações', fr: 'Néant', en: 'None' });
}

function permitType(c: Ctx): string {
  switch (c.type) {
    case 'es_tie': return 'Residencia de larga duración';
    case 'es_eu_family_residence_card': return 'Residencia de familiar de ciudadano de la Unión';
    case 'pt_residence_permit': return 'Autorização de residência temporária';
    case 'fr_residence_permit': return 'Carte de séjour pluriannuelle - salarié';
    case 'it_residence_permit': return 'Permesso di soggiorno per lavoro subordinato';
    case 'br_crnm': return 'Residência temporária';
    default: return c.t({ es: 'Residencia temporal y trabajo', pt: 'Residência temporária', fr: 'Titre de séjour temporaire', en: 'Temporary residence' });
  }
}

function benefit(c: Ctx): string {
  if (c.type === 'es_pension_certificate') return 'Pensión de jubilación';
  if (c.type === 'es_sepe_certificate') return 'Prestación contributiva por desempleo';
  return c.t({ es: 'Prestación', pt: 'Prestação', fr: 'Allocation', en: 'Benefit' });
}

function formCode(c: Ctx): string {
  const m = /^es_modelo_(\d{3})$/.exec(c.type);
  if (m) return m[1];
  return ({ us_form_1040: '1040', pt_irs_statement: 'Modelo 3', tax_return: c.t({ es: '100', pt: 'Modelo 3', fr: '2042', en: '1040' }) } as Record<string, string>)[c.type] ?? '100';
}

interface TaxFigures {
  gross: number;
  taxable: number;
  base: number;
  vat: number;
  withholding: number;
  result: number;
}

/** Coherent figures of tax forms and certificates (taxable <= gross, VAT = base x rate, result from them). */
function taxForm(c: Ctx): TaxFigures {
  return c.once('tax', (r) => {
    const t = c.type;
    const quarterly = t === 'es_modelo_303' || t === 'es_modelo_130' || t === 'es_modelo_111';
    const gross = r.int(quarterly ? 800_000 : 1_800_000, quarterly ? 4_000_000 : 7_500_000);
    const taxable = Math.round(gross * (r.int(70, 92) / 100));
    const base = t === 'es_modelo_390' ? r.int(4_000_000, 16_000_000) : r.int(1_000_000, 4_000_000);
    const vat = Math.round((base * vatRate(c)) / 100);
    const withholding = Math.round((gross * r.int(8, 18)) / 100);
    let result: number;
    if (t === 'es_modelo_303' || t === 'es_modelo_390') result = vat - Math.round(vat * (r.int(30, 75) / 100));
    else if (t === 'es_modelo_111' || t === 'es_modelo_190') result = withholding;
    else if (t === 'es_modelo_130') result = Math.round((taxable * 20) / 100);
    else if (t === 'es_modelo_200') result = Math.round((taxable * 25) / 100) - r.int(0, Math.round(taxable * 0.1));
    else result = r.chance(0.6) ? -r.int(10_000, 180_000) : r.int(10_000, 250_000);
    const vatOut = t === 'es_modelo_200' ? Math.round((taxable * 25) / 100) : vat;
    return { gross: money(gross), taxable: money(taxable), base: money(base), vat: money(vatOut), withholding: money(withholding), result: money(result) };
  });
}

function institution(c: Ctx): string {
  const city = c.person.home.place.city;
  switch (c.type) {
    case 'es_university_degree': case 'es_academic_transcript': case 'es_enrollment_certificate': return `Universidad de ${city}`;
    case 'es_eso_title': case 'es_bachillerato_title': return `IES ${c.r('ies').pick(['Cervantes', 'Ramiro de Maeztu', 'Lope de Vega', 'Isabel la Católica'])} (${city})`;
    case 'es_vocational_training_title': return `IES Politécnico de ${city}`;
    case 'es_medical_report': return `Hospital Universitario de ${city}`;
    case 'language_certificate': return c.t({ es: `Escuela Oficial de Idiomas de ${city}`, pt: 'Cambridge Assessment English', fr: 'Alliance Française', en: 'Cambridge Assessment English' });
    case 'us_school_id': return `${city} High School`;
    default: return c.t({ es: `Universidad de ${city}`, pt: `Universidade de ${city}`, fr: `Université de ${city}`, en: `University of ${city}` });
  }
}

function qualification(c: Ctx): string {
  switch (c.type) {
    case 'es_eso_title': return 'Graduado en Educación Secundaria Obligatoria';
    case 'es_bachillerato_title': return 'Bachiller';
    case 'es_vocational_training_title': return 'Técnico Superior en Desarrollo de Aplicaciones Web';
    case 'language_certificate': return c.t({ es: 'Certificado de Nivel Intermedio B2 de inglés', pt: 'B2 First', fr: 'DELF B2', en: 'B2 First' });
    default: return c.t({ es: 'Graduado en Administración y Dirección de Empresas', pt: 'Licenciatura em Gestão', fr: 'Licence Économie et Gestion', en: 'Bachelor of Business Administration' });
  }
}

function healthCard(c: Ctx, r: Rng): string {
  switch (c.country) {
    case 'ESP': return `${r.chars(4, UPPER)}${r.digits(12)}`;
    case 'PRT': return r.digits(9);
    case 'ITA': return '80380' + r.digits(15);
    case 'FRA': return personIds(c).nir;
    default: return r.digits(20);
  }
}

function insurer(c: Ctx): string {
  if (c.type === 'es_health_card') return `Servicio de Salud (${c.person.home.place.region})`;
  const m: Record<string, string> = {
    ESP: c.type.includes('vehicle') ? 'Mapfre España, S.A.' : 'Instituto Nacional de la Seguridad Social', PRT: 'Serviço Nacional de Saúde',
    FRA: `CPAM de ${c.person.home.place.city}`, ITA: 'Servizio Sanitario Nazionale', DEU: 'AOK', AUT: 'ÖGK', BEL: 'Mutualité Chrétienne', NLD: 'Zilveren Kruis',
  };
  return m[c.country] ?? 'National Health Insurance';
}

// ------------------------------------------------------------------ MRZ and PDF417

const MRZ_CODE: Record<string, string> = {
  us_permanent_resident_card: 'C1', us_employment_authorization_document: 'IA', us_passport_card: 'IP', pt_citizen_card: 'I<', es_tie: 'IR',
  es_eu_family_residence_card: 'IR', pt_residence_permit: 'IR', fr_residence_permit: 'IR', it_residence_permit: 'IR', residence_permit: 'IR', visa: 'VC',
};

function buildMrz(c: Ctx, v: Record<string, unknown>): string[] {
  const p = c.person;
  const s = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : '');
  const surnames = c.has('second_last_name') ? `${s('last_name')} ${s('second_last_name')}` : c.has('last_name') ? s('last_name') : p.surnames.join(' ');
  const given = c.has('first_name') ? s('first_name') : p.given;
  const data: MrzData = {
    code: MRZ_CODE[c.type] ?? (c.entry.mrz === 'TD3' ? 'P<' : c.entry.category === 'residence' ? 'IR' : 'ID'),
    state: c.type === 'us_foreign_passport_i94' ? p.nationality : c.country,
    number: s('document_number'),
    nationality: s('nationality') || p.nationality,
    birth: s('birth_date') || p.birthDate,
    sex: (s('sex') || p.sex) as 'M' | 'F',
    expiry: s('expiry_date') || c.dates.expiry_date,
    surnames,
    given,
  };
  const pn = s('personal_number').replace(/[^0-9A-Z]/gi, '');
  switch (c.type) {
    case 'es_dni': case 'es_dni_back':
      data.number = s('support_number');
      data.optional1 = s('document_number');
      break;
    case 'national_id_card':
      if (c.country === 'ESP' && /^\d{8}[A-Z]$/.test(s('document_number'))) {
        data.number = c.once('support', (rr) => rr.pick(['BAA', 'BAB', 'BAC', 'CAA', 'CAB']) + rr.digits(6));
        data.optional1 = s('document_number');
      }
      break;
    case 'br_cin':
      data.number = c.once('cin-serial', (rr) => 'FA' + rr.digits(7));
      data.optional1 = s('document_number').replace(/\D/g, '');
      break;
    case 'es_tie': case 'es_eu_family_residence_card':
      data.optional1 = s('id_number');
      break;
    default:
      break;
  }
  if (pn && !data.optional1) {
    if (c.entry.mrz === 'TD1' || c.entry.mrz === 'any') {
      if (pn.length <= 11) data.optional2 = pn;
      else data.optional1 = pn;
    } else data.optional1 = pn;
  }
  const fmt = c.entry.mrz === 'any' ? (c.type === 'visa' ? 'MRVA' : 'TD1') : c.entry.mrz;
  if (fmt === 'TD3') return td3(data);
  if (fmt === 'TD2') return td2(data);
  if (fmt === 'MRVA') return mrva(data);
  return td1(data);
}

function buildBarcode(c: Ctx, v: Record<string, unknown>): string {
  const s = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : '');
  const givens = s('first_name').split(/\s+/);
  const heightIn = (() => {
    const m = /(\d)'-(\d+)"/.exec(s('height'));
    return m ? String(Number(m[1]) * 12 + Number(m[2])).padStart(3, '0') + ' IN' : '068 IN';
  })();
  const isDl = c.type === 'us_drivers_license';
  const els: Array<[string, string]> = [];
  if (isDl) {
    els.push(['DCA', (v.license_categories as string[] | undefined)?.[0] ?? 'C'], ['DCB', s('restrictions') || 'NONE'], ['DCD', s('endorsements') || 'NONE']);
  }
  els.push(
    ['DBA', aamvaUsDate(s('expiry_date'))],
    ['DCS', s('last_name')],
    ['DAC', givens[0] ?? ''],
    ['DAD', givens.slice(1).join(' ') || 'NONE'],
    ['DBD', aamvaUsDate(s('issue_date'))],
    ['DBB', aamvaUsDate(s('birth_date'))],
    ['DBC', s('sex') === 'F' ? '2' : '1'],
    ['DAY', s('eye_color') || 'BRO'],
    ['DAU', heightIn],
    ['DAG', s('address')],
    ['DAI', s('city')],
    ['DAJ', s('region')],
    ['DAK', s('postal_code').replace(/\D/g, '').padEnd(9, '0')],
    ['DAQ', s('document_number')],
    ['DCF', c.r('dcf').digits(10) + 'DD'],
    ['DCG', 'USA'],
    ['DDE', 'N'],
    ['DDF', 'N'],
    ['DDG', 'N'],
  );
  return buildAamva(s('region') || 'CA', isDl ? 'DL' : 'ID', els);
}

// ------------------------------------------------------------------ the document

/** Field validators whose check digit `bad_checksum` breaks, in order of preference. */
export function checksumTarget(entry: CatalogueEntry): { field: string; scheme: string } | { field: 'mrz'; scheme: null } | null {
  const byScheme = (schemes: string[]) =>
    entry.field_validators
      .filter((fv) => schemes.includes(fv.scheme))
      .sort((a, b) => schemes.indexOf(a.scheme) - schemes.indexOf(b.scheme) || entry.fields.indexOf(a.field) - entry.fields.indexOf(b.field))[0];
  const holderFields = ['document_number', 'id_number', 'tax_id'];
  const holderChecksum = entry.field_validators.find((fv) => holderFields.includes(fv.field) && CHECKSUM_SCHEMES.includes(fv.scheme));
  if (holderChecksum) return { field: holderChecksum.field, scheme: holderChecksum.scheme };
  const any = byScheme(CHECKSUM_SCHEMES);
  if (any) return { field: any.field, scheme: any.scheme };
  if (entry.mrz) return { field: 'mrz', scheme: null };
  const fmt = byScheme(FORMAT_SCHEMES);
  if (fmt) return { field: fmt.field, scheme: fmt.scheme };
  return null;
}

export function buildDocument(o: BuildOptions): BuiltDocument {
  const c = new Ctx(o);
  const values: Record<string, unknown> = {};
  for (const f of c.entry.fields) values[f] = value(f, c, values);
  // es_passport's personal number is the DNI printed as id_number (computed after it).
  if (c.has('personal_number') && c.type === 'es_passport') values.personal_number = values.id_number;

  let corrupted: string | null = null;
  if (o.mods.has('bad_checksum')) {
    const target = checksumTarget(c.entry);
    if (target && target.scheme) {
      values[target.field] = ids.corruptCheck(target.scheme, String(values[target.field]), { state: String(values.region ?? '') });
      if (c.type === 'es_passport' && target.field === 'id_number') values.personal_number = values.id_number;
      corrupted = target.field;
    } else if (target) corrupted = 'mrz';
  }
  if (c.has('mrz')) {
    let lines = buildMrz(c, values);
    if (o.mods.has('mismatch_mrz')) {
      // Same MRZ with another birth date (its check digits recomputed): checksums pass, visual comparison fails.
      const other = { ...values, birth_date: addDays(String(values.birth_date), 397) };
      lines = buildMrz(c, other);
    }
    if (corrupted === 'mrz') {
      const [li, col] = birthCheckPosition(lines);
      const line = lines[li];
      const wrong = String((Number(line[col]) + 3) % 10);
      lines = lines.map((l, i) => (i === li ? l.slice(0, col) + wrong + l.slice(col + 1) : l));
    }
    values.mrz = lines.join('\n');
  }
  if (c.has('barcode_data')) values.barcode_data = buildBarcode(c, values);
  return { values, country: c.country, person: c.person, corrupted };
}

/** Generates a value for one dictionary field of an arbitrary extraction schema, in the context of a type. */
export function valueFor(field: string, o: BuildOptions): unknown {
  const c = new Ctx(o);
  return value(field, c, {});
}
