/**
 * Identifiers of a simulated document: the person's own numbers (national, social security) and the document's
 * number in each country's format, check characters computed.
 * Split out of document.ts, which builds the whole document from them.
 */

import { yymmdd } from './dates.ts';
import * as ids from './ids.ts';
import type { Person } from './person.ts';
import { PLACES } from './pools.ts';
import { Rng, UPPER } from './prng.ts';
import { Ctx } from './context.ts';

export function personIds(c: Ctx) {
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
export function personalNumber(c: Ctx, scheme?: string): string {
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

const DE_CHARS = 'CFGHJKLMNPRTVWXYZ0123456789';

export function documentNumber(c: Ctx, kindOverride?: 'id' | 'passport'): string {
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
