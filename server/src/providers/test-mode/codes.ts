/**
 * The machine-readable zones of a simulated document, built from its field values: MRZ (ICAO 9303) and PDF417 (AAMVA).
 * Split out of document.ts, which builds the whole document from them.
 */

import { aamvaUsDate, buildAamva } from './aamva.ts';
import { mrva, td1, td2, td3, type MrzData } from './mrz.ts';
import { Ctx } from './context.ts';

const MRZ_CODE: Record<string, string> = {
  us_permanent_resident_card: 'C1', us_employment_authorization_document: 'IA', us_passport_card: 'IP', pt_citizen_card: 'I<', es_tie: 'IR',
  es_eu_family_residence_card: 'IR', pt_residence_permit: 'IR', fr_residence_permit: 'IR', it_residence_permit: 'IR', residence_permit: 'IR', visa: 'VC',
};

export function buildMrz(c: Ctx, v: Record<string, unknown>): string[] {
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

export function buildBarcode(c: Ctx, v: Record<string, unknown>): string {
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
