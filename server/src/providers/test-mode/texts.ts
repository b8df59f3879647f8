/**
 * Printed texts of a simulated document: issuing and tax authorities, suppliers, other people's names, plates, cars.
 * Split out of document.ts, which builds the whole document from them.
 */

import { LOCALE_OF } from './person.ts';
import { NAMES, type Lang } from './pools.ts';
import { UPPER } from './prng.ts';
import { Ctx } from './context.ts';

export function issuingAuthority(c: Ctx): string {
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

export function supplier(c: Ctx): [string, string] {
  return c.once('supplier', (r) => {
    const [name, kind] = r.pick(SUPPLIERS[c.country] ?? SUPPLIERS.ESP);
    return [name, kind[c.lang]] as [string, string];
  });
}

export function fullName(c: Ctx, given = c.person.given, surnames = c.person.surnames): string {
  return c.p(`${given} ${surnames.join(' ')}`);
}

export function otherPerson(c: Ctx, key: string): string {
  const r = c.r(`other-${key}`);
  const pool = NAMES[LOCALE_OF[c.country] ?? 'es'];
  const sur = [r.pick(pool.surnames), ...(pool.surnameCount === 2 ? [r.pick(pool.surnames)] : [])];
  return c.p(`${r.pick(r.chance(0.5) ? pool.male : pool.female)} ${sur.join(' ')}`);
}

export function plate(c: Ctx): string {
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

export function car(c: Ctx): [string, string, string, number, number] {
  return c.once('car', (r) => r.pick(CARS));
}
