/** Italy (ITA). */
import { defineType as t, L } from '../define.ts';
import type { CatalogueEntry } from '../vocabulary.ts';
import { EU_DRIVING, PASSPORT, RESIDENCE_TD1 } from './common.ts';

const ITA = ['ITA'];

export const IT_TYPES: CatalogueEntry[] = [
  t({
    type: 'it_cie', category: 'identity', countries: ITA,
    labels: L('Carta de identidad electrónica italiana (CIE)', 'Italian electronic identity card (CIE)', 'Cartão de identidade eletrónico italiano (CIE)', 'Carte d’identité électronique italienne (CIE)'),
    descriptions: L(
      'Carta d’identità elettronica en formato tarjeta con chip, código fiscal y MRZ de tres líneas.',
      'Italian electronic identity card in card format with a chip, the fiscal code and a three-line MRZ.',
      'Cartão de identidade eletrónico italiano em formato de cartão com chip, código fiscal e zona de leitura ótica de três linhas.',
      'Carte d’identité électronique italienne au format carte, avec puce, code fiscal et bande MRZ de trois lignes.'),
    fields: [...RESIDENCE_TD1.filter((f) => f !== 'permit_type' && f !== 'remarks'), 'birth_place', 'address', 'height', ['id_number', 'Código fiscal italiano del titular']],
    fv: { id_number: 'it_cf' },
    mrz: 'TD1',
    keywords: ['cie', 'carta d’identità elettronica', 'carta d identita', 'documento d’identità', 'italian id'],
  }),
  t({
    type: 'it_paper_id', category: 'identity', countries: ITA,
    labels: L('Carta de identidad italiana en papel', 'Italian paper identity card', 'Cartão de identidade italiano em papel', 'Carte d’identité italienne papier'),
    descriptions: L(
      'Antigua carta d’identità cartacea expedida por los ayuntamientos italianos, sin MRZ, válida hasta agosto de 2026.',
      'Old Italian paper identity card issued by municipalities, without MRZ, valid until August 2026.',
      'Antigo cartão de identidade italiano em papel emitido pelos municípios, sem zona de leitura ótica, válido até agosto de 2026.',
      'Ancienne carte d’identité italienne papier délivrée par les communes, sans bande MRZ, valable jusqu’en août 2026.'),
    fields: ['document_number', 'last_name', 'first_name', 'birth_date', 'birth_place', 'nationality', 'address', 'city', 'issue_date', 'expiry_date', 'issuing_authority'],
    keywords: ['carta d’identità cartacea', 'carta d identita cartacea', 'comune', 'documento cartaceo'],
  }),
  t({
    type: 'it_passport', category: 'identity', countries: ITA,
    labels: L('Pasaporte italiano', 'Italian passport', 'Passaporte italiano', 'Passeport italien'),
    descriptions: L(
      'Página de datos del pasaporte electrónico italiano.',
      'Data page of the Italian electronic passport.',
      'Página de dados do passaporte eletrónico italiano.',
      'Page de données du passeport électronique italien.'),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: ['passaporto', 'passaporto elettronico', 'questura'],
  }),
  t({
    type: 'it_health_card', category: 'health', countries: ITA,
    labels: L('Tarjeta sanitaria italiana (código fiscal)', 'Italian health card with fiscal code (tessera sanitaria)', 'Cartão de saúde italiano com código fiscal (tessera sanitaria)', 'Carte de santé italienne avec code fiscal (tessera sanitaria)'),
    descriptions: L(
      'Tessera sanitaria, que también acredita el codice fiscal y funciona como Tarjeta Sanitaria Europea en el reverso.',
      'Italian health card, which also proves the fiscal code and serves as the European Health Insurance Card on the back.',
      'Tessera sanitaria italiana, que também comprova o código fiscal e serve como Cartão Europeu de Seguro de Doença no verso.',
      'Tessera sanitaria italienne, qui atteste aussi le code fiscal et sert de carte européenne d’assurance maladie au verso.'),
    fields: [['id_number', 'Código fiscal italiano (codice fiscale)'], 'last_name', 'first_name', 'sex', 'birth_date', 'birth_place', 'health_card_number', 'expiry_date'],
    fv: { id_number: 'it_cf' },
    signature: false, stamp: false,
    keywords: ['tessera sanitaria', 'codice fiscale', 'cf', 'ts-cns', 'carta nazionale dei servizi'],
  }),
  t({
    type: 'it_driving_license', category: 'driving', countries: ITA,
    labels: L('Permiso de conducir italiano', 'Italian driving licence', 'Carta de condução italiana', 'Permis de conduire italien'),
    descriptions: L(
      'Patente di guida italiana en el modelo de tarjeta de la UE.',
      'Italian driving licence (patente di guida) in the EU card format.',
      'Carta de condução italiana (patente di guida) no modelo de cartão da UE.',
      'Permis de conduire italien (patente di guida) au format carte de l’UE.'),
    fields: EU_DRIVING,
    keywords: ['patente', 'patente di guida', 'motorizzazione'],
  }),
  t({
    type: 'it_residence_permit', category: 'residence', countries: ITA,
    labels: L('Permiso de residencia italiano', 'Italian residence permit', 'Autorização de residência italiana', 'Titre de séjour italien'),
    descriptions: L(
      'Permesso di soggiorno electrónico expedido por la Questura a los extranjeros que residen en Italia.',
      'Electronic residence permit (permesso di soggiorno) issued by the Questura to foreign nationals in Italy.',
      'Autorização de residência eletrónica (permesso di soggiorno) emitida pela Questura aos estrangeiros em Itália.',
      'Permis de séjour électronique (permesso di soggiorno) délivré par la Questura aux étrangers résidant en Italie.'),
    fields: [...RESIDENCE_TD1, ['id_number', 'Código fiscal italiano del titular']],
    fv: { id_number: 'it_cf' },
    mrz: 'TD1',
    keywords: ['permesso di soggiorno', 'pse', 'questura', 'carta di soggiorno'],
  }),
];
