/** The simulated person a document is about: generated from the seed, or taken from the caller's `holder`. */
import type { HolderCheck } from '../types.ts';
import { addDays, addYears } from './dates.ts';
import { NAMES, PLACES, STREETS, type Locale, type Place } from './pools.ts';
import type { Rng } from './prng.ts';

export interface Person {
  /** Given names in natural case, e.g. `María José`. */
  given: string;
  /** One or two surnames in natural case (`['García', 'López']`). */
  surnames: string[];
  sex: 'M' | 'F';
  birthDate: string;
  nationality: string;
  locale: Locale;
  birthPlace: Place;
  fatherGiven: string;
  motherGiven: string;
  fatherSurnames: string[];
  motherSurnames: string[];
  home: { street: string; number: number; floor: string; place: Place; country: string };
  fromHolder: boolean;
}

export const LOCALE_OF: Record<string, Locale> = {
  ESP: 'es', COL: 'es', ARG: 'es', VEN: 'es', PER: 'es', MEX: 'es', PRT: 'pt', BRA: 'br', FRA: 'fr', ITA: 'it', USA: 'us',
  GBR: 'en', IRL: 'en', DEU: 'de', AUT: 'de', NLD: 'nl', BEL: 'nl', POL: 'pl', ROU: 'ro', SWE: 'se',
};

const PARTICLES = new Set(['de', 'del', 'la', 'las', 'los', 'da', 'das', 'do', 'dos', 'van', 'von', 'der', 'den', 'di', 'du', 'le', 'y', 'e']);

/** Words grouped with their leading particles: `de la Fuente Ruiz` -> [`de la Fuente`, `Ruiz`]. */
function groups(s: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const w of s.trim().split(/\s+/).filter(Boolean)) {
    if (PARTICLES.has(w.toLowerCase())) pending += w + ' ';
    else {
      out.push(pending + w);
      pending = '';
    }
  }
  if (pending) out.push(pending.trim());
  return out;
}

function splitSurnames(last: string, twoSurnames: boolean): string[] {
  const g = groups(last);
  if (twoSurnames && g.length >= 2) return [g.slice(0, -1).join(' '), g[g.length - 1]];
  return [g.join(' ')];
}

function sexOfName(given: string): 'M' | 'F' | null {
  const first = given.trim().split(/\s+/)[0]?.toLowerCase().normalize('NFD').replace(/\p{M}+/gu, '');
  if (!first) return null;
  const norm = (n: string) => n.split(/\s+/)[0].toLowerCase().normalize('NFD').replace(/\p{M}+/gu, '');
  for (const pool of Object.values(NAMES)) {
    if (pool.female.some((n) => norm(n) === first)) return 'F';
    if (pool.male.some((n) => norm(n) === first)) return 'M';
  }
  if (/a$/.test(first)) return 'F';
  return null;
}

/** Names from the caller's holder, split as the document's locale prints them. */
export function holderNames(h: HolderCheck, locale: Locale): { given: string; surnames: string[] } | null {
  const two = NAMES[locale].surnameCount === 2;
  if (h.first_name || h.last_name) {
    let given = h.first_name?.trim() ?? '';
    let last = h.last_name?.trim() ?? '';
    if ((!given || !last) && h.full_name) {
      const g = groups(h.full_name);
      if (!given) given = g.slice(0, Math.max(1, g.length - (two && g.length >= 3 ? 2 : 1))).join(' ');
      if (!last) last = g.slice(Math.max(1, g.length - (two && g.length >= 3 ? 2 : 1))).join(' ');
    }
    if (!given && !last) return null;
    return { given: given || last, surnames: splitSurnames(last || given, two) };
  }
  if (h.full_name && h.full_name.trim()) {
    const g = groups(h.full_name);
    if (g.length === 1) return { given: g[0], surnames: [g[0]] };
    const nSur = two && g.length >= 3 ? 2 : 1;
    return { given: g.slice(0, g.length - nSur).join(' '), surnames: g.slice(g.length - nSur) };
  }
  return null;
}

function pickSurnames(rng: Rng, locale: Locale): string[] {
  const pool = NAMES[locale];
  const a = rng.pick(pool.surnames);
  if (pool.surnameCount === 1) return [a];
  let b = rng.pick(pool.surnames);
  if (b === a) b = pool.surnames[(pool.surnames.indexOf(a) + 7) % pool.surnames.length];
  return [a, b];
}

export function place(rng: Rng, country: string): Place {
  return rng.pick(PLACES[country] ?? PLACES.ESP);
}

export interface PersonOptions {
  nationality: string;
  /** Country where the person lives (the document's country). */
  residence: string;
  referenceDate: string;
  minAge: number;
  maxAge: number;
  /** Exact age on the reference date (the `underage` scenario). */
  exactAge?: number;
  holder: HolderCheck | null;
  /** Sex imposed by the holder's identifier (codice fiscale). */
  sex?: 'M' | 'F';
}

export function makePerson(rng: Rng, o: PersonOptions): Person {
  const locale = LOCALE_OF[o.nationality] ?? 'es';
  const pool = NAMES[locale];
  let sex: 'M' | 'F' = rng.chance(0.5) ? 'F' : 'M';
  let given = rng.pick(sex === 'F' ? pool.female : pool.male);
  let surnames = pickSurnames(rng, locale);
  const age = o.exactAge ?? rng.int(o.minAge, o.maxAge);
  let birthDate = addDays(addYears(o.referenceDate, -age), -rng.int(20, 340));
  let fromHolder = false;
  if (o.holder) {
    const names = holderNames(o.holder, locale);
    if (names) {
      given = names.given;
      surnames = names.surnames;
      sex = sexOfName(given) ?? sex;
      fromHolder = true;
    }
    if (o.sex) sex = o.sex;
    const hb = o.holder.birth_date;
    if (o.exactAge === undefined && hb && /^\d{4}-\d{2}-\d{2}$/.test(hb) && hb < o.referenceDate) {
      birthDate = hb;
      fromHolder = true;
    }
  }
  // Parents: the father's first surname and the mother's first surname are the person's (Spanish/Portuguese use).
  const fatherGiven = rng.pick(pool.male);
  const motherGiven = rng.pick(pool.female);
  const fatherSurnames = pool.surnameCount === 2 ? [surnames[0], rng.pick(pool.surnames)] : [surnames[0]];
  const motherSurnames = pool.surnameCount === 2 ? [surnames[1] ?? rng.pick(pool.surnames), rng.pick(pool.surnames)] : [rng.pick(pool.surnames)];
  const homePlace = place(rng, o.residence);
  const streets = STREETS[o.residence] ?? STREETS.ESP;
  return {
    given,
    surnames,
    sex,
    birthDate,
    nationality: o.nationality,
    locale,
    birthPlace: place(rng.fork('birthplace'), o.nationality),
    fatherGiven,
    motherGiven,
    fatherSurnames,
    motherSurnames,
    home: { street: rng.pick(streets), number: rng.int(1, 140), floor: `${rng.int(1, 8)}`, place: homePlace, country: o.residence },
    fromHolder,
  };
}
