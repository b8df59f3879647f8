/**
 * Other EU/EEA member states (ID cards with TD1 MRZ, passports with TD3 MRZ), EU-wide documents and the United
 * Kingdom. Spain, Portugal, France and Italy have files of their own.
 */
import { defineType as t, L } from '../define.ts';
import type { CatalogueEntry, Localized } from '../vocabulary.ts';
import { EU_DRIVING, ID_CARD_TD1, PASSPORT } from './common.ts';

interface Country {
  alpha2: string;
  alpha3: string;
  /** Country name with its preposition: es "por X", en "by X", pt "pel(a|o) X", fr "par X". */
  by: Localized;
  /** Adjective: es and pt masculine (documento, passaporte, cartão), fr feminine (carte) then masculine (passeport). */
  adj: { es: string; en: string; pt: string; frCard: string; frPassport: string };
  idKeywords: string[];
  passportKeywords: string[];
}

const COUNTRIES: Country[] = [
  {
    alpha2: 'de', alpha3: 'DEU',
    by: L('por Alemania', 'by Germany', 'pela Alemanha', 'par l’Allemagne'),
    adj: { es: 'alemán', en: 'German', pt: 'alemão', frCard: 'allemande', frPassport: 'allemand' },
    idKeywords: ['personalausweis', 'ausweis', 'perso', 'bundesrepublik deutschland'], passportKeywords: ['reisepass', 'deutscher pass'],
  },
  {
    alpha2: 'nl', alpha3: 'NLD',
    by: L('por los Países Bajos', 'by the Netherlands', 'pelos Países Baixos', 'par les Pays-Bas'),
    adj: { es: 'neerlandés', en: 'Dutch', pt: 'neerlandês', frCard: 'néerlandaise', frPassport: 'néerlandais' },
    idKeywords: ['identiteitskaart', 'id-kaart', 'holanda', 'holandés', 'bsn'], passportKeywords: ['paspoort', 'nederlands paspoort', 'holandés'],
  },
  {
    alpha2: 'be', alpha3: 'BEL',
    by: L('por Bélgica', 'by Belgium', 'pela Bélgica', 'par la Belgique'),
    adj: { es: 'belga', en: 'Belgian', pt: 'belga', frCard: 'belge', frPassport: 'belge' },
    idKeywords: ['eid', 'carte d’identité belge', 'identiteitskaart', 'personalausweis', 'rijksregisternummer', 'numéro national'], passportKeywords: ['passeport belge', 'paspoort', 'reisepass'],
  },
  {
    alpha2: 'at', alpha3: 'AUT',
    by: L('por Austria', 'by Austria', 'pela Áustria', 'par l’Autriche'),
    adj: { es: 'austriaco', en: 'Austrian', pt: 'austríaco', frCard: 'autrichienne', frPassport: 'autrichien' },
    idKeywords: ['personalausweis', 'republik österreich', 'ausweis'], passportKeywords: ['reisepass', 'österreichischer pass'],
  },
  {
    alpha2: 'pl', alpha3: 'POL',
    by: L('por Polonia', 'by Poland', 'pela Polónia', 'par la Pologne'),
    adj: { es: 'polaco', en: 'Polish', pt: 'polaco', frCard: 'polonaise', frPassport: 'polonais' },
    idKeywords: ['dowód osobisty', 'dowod osobisty', 'pesel'], passportKeywords: ['paszport'],
  },
  {
    alpha2: 'ro', alpha3: 'ROU',
    by: L('por Rumanía', 'by Romania', 'pela Roménia', 'par la Roumanie'),
    adj: { es: 'rumano', en: 'Romanian', pt: 'romeno', frCard: 'roumaine', frPassport: 'roumain' },
    idKeywords: ['carte de identitate', 'buletin', 'cnp', 'carte electronică de identitate'], passportKeywords: ['pașaport', 'pasaport'],
  },
  {
    alpha2: 'se', alpha3: 'SWE',
    by: L('por Suecia', 'by Sweden', 'pela Suécia', 'par la Suède'),
    adj: { es: 'sueco', en: 'Swedish', pt: 'sueco', frCard: 'suédoise', frPassport: 'suédois' },
    idKeywords: ['nationellt id-kort', 'id-kort', 'personnummer'], passportKeywords: ['pass', 'svenskt pass'],
  },
];

function idCard(c: Country): CatalogueEntry {
  return t({
    type: `${c.alpha2}_id_card`, category: 'identity', countries: [c.alpha3],
    labels: L(`Documento de identidad ${c.adj.es}`, `${c.adj.en} identity card`, `Cartão de identidade ${c.adj.pt}`, `Carte d’identité ${c.adj.frCard}`),
    descriptions: L(
      `Documento nacional de identidad expedido ${c.by.es}, en formato tarjeta con MRZ de tres líneas (TD1); válido para viajar dentro de la UE.`,
      `National identity card issued ${c.by.en}, in card format with a three-line MRZ (TD1); valid for travel within the EU.`,
      `Cartão de identidade nacional emitido ${c.by.pt}, em formato de cartão com zona de leitura ótica de três linhas (TD1); válido para viajar na UE.`,
      `Carte nationale d’identité délivrée ${c.by.fr}, au format carte avec une bande MRZ de trois lignes (TD1) ; valable pour voyager dans l’UE.`),
    fields: ID_CARD_TD1,
    mrz: 'TD1',
    keywords: [...c.idKeywords, c.alpha3.toLowerCase(), 'id card', 'eu id'],
  });
}

function passport(c: Country): CatalogueEntry {
  return t({
    type: `${c.alpha2}_passport`, category: 'identity', countries: [c.alpha3],
    labels: L(`Pasaporte ${c.adj.es}`, `${c.adj.en} passport`, `Passaporte ${c.adj.pt}`, `Passeport ${c.adj.frPassport}`),
    descriptions: L(
      `Página de datos del pasaporte expedido ${c.by.es}, con MRZ de dos líneas (TD3).`,
      `Data page of the passport issued ${c.by.en}, with a two-line MRZ (TD3).`,
      `Página de dados do passaporte emitido ${c.by.pt}, com zona de leitura ótica de duas linhas (TD3).`,
      `Page de données du passeport délivré ${c.by.fr}, avec une bande MRZ de deux lignes (TD3).`),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: [...c.passportKeywords, c.alpha3.toLowerCase()],
  });
}

/** EU and EEA member states plus Switzerland: countries whose institutions issue the European Health Insurance Card. */
const EHIC_COUNTRIES = [
  'AUT', 'BEL', 'BGR', 'HRV', 'CYP', 'CZE', 'DNK', 'EST', 'FIN', 'FRA', 'DEU', 'GRC', 'HUN', 'IRL', 'ITA', 'LVA',
  'LTU', 'LUX', 'MLT', 'NLD', 'POL', 'PRT', 'ROU', 'SVK', 'SVN', 'ESP', 'SWE', 'ISL', 'LIE', 'NOR', 'CHE',
];

export const EU_TYPES: CatalogueEntry[] = [
  ...COUNTRIES.flatMap((c) => [idCard(c), passport(c)]),
  t({
    type: 'ie_passport', category: 'identity', countries: ['IRL'],
    labels: L('Pasaporte irlandés', 'Irish passport', 'Passaporte irlandês', 'Passeport irlandais'),
    descriptions: L(
      'Página de datos del pasaporte expedido por Irlanda, con MRZ de dos líneas (TD3).',
      'Data page of the passport issued by Ireland, with a two-line MRZ (TD3).',
      'Página de dados do passaporte emitido pela Irlanda, com zona de leitura ótica de duas linhas (TD3).',
      'Page de données du passeport délivré par l’Irlande, avec une bande MRZ de deux lignes (TD3).'),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: ['irish passport', 'pas', 'irl', 'éire'],
  }),
  t({
    type: 'ie_passport_card', category: 'identity', countries: ['IRL'],
    labels: L('Tarjeta de pasaporte irlandesa', 'Irish passport card', 'Cartão de passaporte irlandês', 'Carte passeport irlandaise'),
    descriptions: L(
      'Tarjeta de pasaporte irlandesa, con MRZ TD1, válida para viajar dentro de la UE y el EEE a quien tenga también un pasaporte irlandés.',
      'Irish passport card with a TD1 MRZ, valid for travel within the EU and EEA for holders of an Irish passport book.',
      'Cartão de passaporte irlandês com zona de leitura ótica TD1, válido para viajar na UE e no EEE para titulares de um passaporte irlandês.',
      'Carte passeport irlandaise avec bande MRZ TD1, valable pour voyager dans l’UE et l’EEE pour les titulaires d’un passeport irlandais.'),
    fields: ['document_number', 'last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'issue_date', 'expiry_date', 'mrz'],
    mrz: 'TD1',
    keywords: ['irish passport card', 'passport card', 'irl'],
  }),
  t({
    type: 'eu_health_insurance_card', category: 'health', countries: EHIC_COUNTRIES,
    labels: L('Tarjeta Sanitaria Europea', 'European Health Insurance Card (EHIC)', 'Cartão Europeu de Seguro de Doença', 'Carte européenne d’assurance maladie'),
    descriptions: L(
      'Tarjeta que da acceso a la asistencia sanitaria pública necesaria durante una estancia temporal en otro país de la UE, del EEE o en Suiza.',
      'Card giving access to necessary public healthcare during a temporary stay in another EU or EEA country or in Switzerland.',
      'Cartão que dá acesso aos cuidados de saúde públicos necessários durante uma estada temporária noutro país da UE, do EEE ou na Suíça.',
      'Carte donnant accès aux soins publics nécessaires lors d’un séjour temporaire dans un autre pays de l’UE, de l’EEE ou en Suisse.'),
    fields: ['last_name', 'first_name', 'birth_date', ['id_number', 'Número de identificación personal del asegurado (campo 6)'], ['insurer_name', 'Número de identificación de la institución (campo 7)'], ['health_card_number', 'Número de identificación de la tarjeta (campo 8)'], 'issuing_country', 'expiry_date'],
    signature: false, stamp: false,
    keywords: ['tse', 'tarjeta sanitaria europea', 'ehic', 'ceam', 'cesd', 'european health insurance card', 'tessera europea'],
  }),
  t({
    type: 'gb_passport', category: 'identity', countries: ['GBR'],
    labels: L('Pasaporte británico', 'UK passport', 'Passaporte britânico', 'Passeport britannique'),
    descriptions: L(
      'Página de datos del pasaporte del Reino Unido expedido por HM Passport Office, con MRZ de dos líneas (TD3).',
      'Data page of a United Kingdom passport issued by HM Passport Office, with a two-line MRZ (TD3).',
      'Página de dados do passaporte do Reino Unido emitido pelo HM Passport Office, com zona de leitura ótica de duas linhas (TD3).',
      'Page de données du passeport du Royaume-Uni délivré par le HM Passport Office, avec une bande MRZ de deux lignes (TD3).'),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: ['british passport', 'uk passport', 'hm passport office', 'gbr', 'reino unido', 'inglés'],
  }),
  t({
    type: 'gb_driving_licence', category: 'driving', countries: ['GBR'],
    labels: L('Permiso de conducir británico', 'UK driving licence', 'Carta de condução britânica', 'Permis de conduire britannique'),
    descriptions: L(
      'Permiso de conducir con foto expedido por la DVLA (Gran Bretaña) o la DVA (Irlanda del Norte).',
      'Photocard driving licence issued by the DVLA (Great Britain) or the DVA (Northern Ireland).',
      'Carta de condução com fotografia emitida pela DVLA (Grã-Bretanha) ou pela DVA (Irlanda do Norte).',
      'Permis de conduire à photo délivré par la DVLA (Grande-Bretagne) ou la DVA (Irlande du Nord).'),
    fields: [...EU_DRIVING.filter((f) => f !== 'document_number'), ['document_number', 'Número de permiso de 16 caracteres (driver number)'], 'address'],
    keywords: ['dvla', 'dva', 'photocard', 'uk driving licence', 'british driving licence', 'driver number'],
  }),
];
