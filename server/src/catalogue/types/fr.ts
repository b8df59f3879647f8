/** France (FRA). */
import { defineType as t, L } from '../define.ts';
import type { CatalogueEntry } from '../vocabulary.ts';
import { CIVIL_CERT, EU_DRIVING, PASSPORT, PAYSLIP, RESIDENCE_TD1, UTILITY_BILL } from './common.ts';

const FRA = ['FRA'];

export const FR_TYPES: CatalogueEntry[] = [
  t({
    type: 'fr_cni', category: 'identity', countries: FRA,
    labels: L('Documento de identidad francés (CNI, formato tarjeta)', 'French identity card (new card format)', 'Cartão de identidade francês (novo formato)', 'Carte nationale d’identité (nouveau format)'),
    descriptions: L(
      'Carte nationale d’identité electrónica en formato tarjeta bancaria, expedida desde 2021, con MRZ de tres líneas (TD1).',
      'Electronic French identity card in credit-card format, issued since 2021, with a three-line MRZ (TD1).',
      'Cartão de identidade eletrónico francês em formato de cartão bancário, emitido desde 2021, com zona de leitura ótica de três linhas (TD1).',
      'Carte nationale d’identité électronique au format carte bancaire, délivrée depuis 2021, avec une bande MRZ de trois lignes (TD1).'),
    fields: ['document_number', 'last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'birth_place', 'issue_date', 'expiry_date', 'issuing_authority', 'can_number', 'mrz'],
    mrz: 'TD1',
    keywords: ['cni', 'carte d’identité', 'carte d identite', 'nouvelle cni', 'cnie', 'pièce d’identité', 'french id'],
  }),
  t({
    type: 'fr_cni_old', category: 'identity', countries: FRA,
    labels: L('Documento de identidad francés (modelo antiguo plastificado)', 'French identity card (old laminated model)', 'Cartão de identidade francês (modelo antigo plastificado)', 'Carte nationale d’identité (ancien modèle plastifié)'),
    descriptions: L(
      'Carte nationale d’identité plastificada emitida entre 1988 y 2021, con MRZ francesa de dos líneas de 36 caracteres.',
      'Laminated French identity card issued between 1988 and 2021, with the French two-line, 36-character MRZ.',
      'Cartão de identidade francês plastificado emitido entre 1988 e 2021, com zona de leitura ótica francesa de duas linhas de 36 caracteres.',
      'Carte nationale d’identité plastifiée délivrée entre 1988 et 2021, avec une bande MRZ française de deux lignes de 36 caractères.'),
    slugs: { fr: 'ancienne-carte-nationale-d-identite' },
    fields: ['document_number', 'last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'birth_place', 'height', 'address', 'issue_date', 'expiry_date', 'issuing_authority', 'mrz'],
    mrz: 'TD2',
    keywords: ['cni', 'ancienne cni', 'carte d’identité plastifiée', 'carte sécurisée', 'idfra'],
  }),
  t({
    type: 'fr_passport', category: 'identity', countries: FRA,
    labels: L('Pasaporte francés', 'French passport', 'Passaporte francês', 'Passeport français'),
    descriptions: L(
      'Página de datos del pasaporte biométrico francés, con MRZ de dos líneas.',
      'Data page of the French biometric passport, with a two-line MRZ.',
      'Página de dados do passaporte biométrico francês, com zona de leitura ótica de duas linhas.',
      'Page de données du passeport biométrique français, avec une bande MRZ de deux lignes.'),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: ['passeport', 'passeport biométrique', 'passeport français'],
  }),
  t({
    type: 'fr_residence_permit', category: 'residence', countries: FRA,
    labels: L('Permiso de residencia francés (titre de séjour)', 'French residence permit (titre de séjour)', 'Autorização de residência francesa (titre de séjour)', 'Titre de séjour français'),
    descriptions: L(
      'Tarjeta de residencia francesa (carte de séjour temporaire, pluriannuelle, carte de résident) con MRZ TD1.',
      'French residence card (temporary, multi-year or resident card) with a TD1 MRZ.',
      'Cartão de residência francês (temporário, plurianual ou de residente) com zona de leitura ótica TD1.',
      'Carte de séjour temporaire, pluriannuelle ou carte de résident, avec une bande MRZ TD1.'),
    fields: RESIDENCE_TD1,
    mrz: 'TD1',
    keywords: ['titre de séjour', 'carte de séjour', 'carte de résident', 'préfecture', 'ants', 'tds'],
  }),
  t({
    type: 'fr_driving_license', category: 'driving', countries: FRA,
    labels: L('Permiso de conducir francés', 'French driving licence', 'Carta de condução francesa', 'Permis de conduire français'),
    descriptions: L(
      'Permis de conduire francés en formato tarjeta de la UE (desde 2013) o el antiguo permiso rosa de papel.',
      'French driving licence in the EU card format (since 2013) or the old pink paper licence.',
      'Carta de condução francesa no formato de cartão da UE (desde 2013) ou a antiga carta cor-de-rosa em papel.',
      'Permis de conduire au format carte de l’UE (depuis 2013) ou ancien permis rose en papier.'),
    fields: EU_DRIVING,
    keywords: ['permis de conduire', 'permis', 'permis rose', 'permis b', 'ants'],
  }),
  t({
    type: 'fr_tax_notice', category: 'tax', countries: FRA,
    labels: L('Aviso de imposición francés (avis d’imposition)', 'French tax assessment notice (avis d’imposition)', 'Aviso de liquidação de imposto francês (avis d’imposition)', 'Avis d’imposition'),
    descriptions: L(
      'Aviso anual de la administración fiscal francesa con la renta fiscal de referencia y el impuesto sobre la renta.',
      'Annual notice from the French tax administration showing the reference taxable income and the income tax due.',
      'Aviso anual da administração fiscal francesa com o rendimento fiscal de referência e o imposto sobre o rendimento.',
      'Avis annuel de l’administration fiscale indiquant le revenu fiscal de référence et l’impôt sur le revenu.'),
    fields: ['full_name', ['tax_id', 'Número fiscal de referencia (numéro fiscal, 13 cifras) del declarante'], ['reference', 'Referencia del aviso (référence de l’avis)'], 'tax_year', 'address', 'gross_income', 'taxable_income', 'result_amount', 'issue_date'],
    signed_pdf: false, signature: false,
    keywords: ['avis d’imposition', 'avis d imposition', 'impôts', 'revenu fiscal de référence', 'rfr', 'impots.gouv', 'asdir'],
  }),
  t({
    type: 'fr_proof_of_address', category: 'address', countries: FRA,
    labels: L('Justificante de domicilio francés', 'French proof of address (justificatif de domicile)', 'Comprovativo de morada francês', 'Justificatif de domicile français'),
    descriptions: L(
      'Justificatif de domicile francés de menos de tres meses: factura de electricidad, gas, agua, teléfono o recibo de alquiler.',
      'French proof of address less than three months old: electricity, gas, water or phone bill, or rent receipt.',
      'Comprovativo de morada francês com menos de três meses: fatura de eletricidade, gás, água, telefone ou recibo de renda.',
      'Justificatif de domicile de moins de trois mois : facture d’électricité, de gaz, d’eau, de téléphone ou quittance de loyer.'),
    fields: UTILITY_BILL,
    keywords: ['justificatif de domicile', 'facture edf', 'quittance de loyer', 'facture d’électricité', 'domicile'],
  }),
  t({
    type: 'fr_housing_certificate', category: 'address', countries: FRA,
    labels: L('Certificado de alojamiento francés (attestation d’hébergement)', 'French accommodation certificate (attestation d’hébergement)', 'Declaração de alojamento francesa (attestation d’hébergement)', 'Attestation d’hébergement'),
    descriptions: L(
      'Declaración firmada por la persona que aloja a otra en su domicilio en Francia, acompañada de su justificante de domicilio.',
      'Signed statement by a person hosting someone at their home in France, together with the host’s proof of address.',
      'Declaração assinada pela pessoa que aloja outra na sua casa em França, acompanhada do comprovativo de morada do anfitrião.',
      'Déclaration signée par la personne qui héberge quelqu’un chez elle en France, accompagnée de son justificatif de domicile.'),
    fields: ['full_name', ['landlord_name', 'Nombre completo de la persona que aloja (hébergeant)'], 'address', 'postal_code', 'city', 'start_date', 'issue_date'],
    signature: true,
    keywords: ['attestation d’hébergement', 'hébergement', 'hébergé', 'attestation sur l’honneur'],
  }),
  t({
    type: 'fr_carte_vitale', category: 'health', countries: FRA,
    labels: L('Tarjeta Vitale francesa', 'French health insurance card (carte Vitale)', 'Cartão de saúde francês (carte Vitale)', 'Carte Vitale'),
    descriptions: L(
      'Tarjeta del seguro de enfermedad francés con el número de Seguridad Social (NIR) del asegurado.',
      'French health insurance card carrying the insured person’s social security number (NIR).',
      'Cartão do seguro de doença francês com o número de segurança social (NIR) do segurado.',
      'Carte de l’Assurance maladie portant le numéro de sécurité sociale (NIR) de l’assuré.'),
    fields: ['full_name', ['social_security_number', 'Número de Seguridad Social francés (NIR) del asegurado'], 'birth_date', 'issue_date'],
    fv: { social_security_number: 'fr_nir' },
    signature: false, stamp: false,
    keywords: ['carte vitale', 'vitale', 'sécurité sociale', 'nir', 'numéro de sécu', 'assurance maladie', 'ameli'],
  }),
  t({
    type: 'fr_health_insurance_certificate', category: 'health', countries: FRA,
    labels: L('Certificado de derechos del seguro de enfermedad francés', 'French health insurance entitlement certificate', 'Certificado de direitos do seguro de doença francês', 'Attestation de droits à l’assurance maladie'),
    descriptions: L(
      'Attestation de droits descargada de ameli.fr que acredita la afiliación al seguro de enfermedad francés.',
      'Entitlement certificate downloaded from ameli.fr proving membership of the French health insurance.',
      'Certificado de direitos descarregado do ameli.fr que comprova a inscrição no seguro de doença francês.',
      'Attestation de droits téléchargée sur ameli.fr prouvant l’affiliation à l’Assurance maladie.'),
    fields: ['full_name', ['social_security_number', 'Número de Seguridad Social francés (NIR) del asegurado'], 'birth_date', 'insurer_name', 'start_date', 'end_date', 'issue_date'],
    fv: { social_security_number: 'fr_nir' },
    stamp: false, signature: false,
    keywords: ['attestation de droits', 'ameli', 'attestation carte vitale', 'cpam', 'complémentaire santé solidaire'],
  }),
  t({
    type: 'fr_kbis', category: 'legal', countries: FRA,
    labels: L('Extracto Kbis', 'French company registration extract (Kbis)', 'Certidão Kbis francesa', 'Extrait Kbis'),
    descriptions: L(
      'Extracto del Registro Mercantil y de Sociedades francés que acredita la existencia legal de una empresa.',
      'Extract from the French Trade and Companies Register proving that a company legally exists.',
      'Certidão do registo comercial e das sociedades francês que comprova a existência legal de uma empresa.',
      'Extrait du registre du commerce et des sociétés attestant l’existence juridique d’une entreprise.'),
    fields: ['company_name', ['company_tax_id', 'Número SIREN de la sociedad'], 'legal_form', 'registered_address', 'incorporation_date', 'representatives', 'registry_entry', 'issuing_authority', 'issue_date'],
    signed_pdf: true, usually_signed: false,
    keywords: ['kbis', 'k-bis', 'extrait k', 'rcs', 'infogreffe', 'siren', 'greffe'],
  }),
  t({
    type: 'fr_rib', category: 'finance', countries: FRA,
    labels: L('RIB francés (datos bancarios)', 'French bank details form (RIB)', 'Comprovativo de dados bancários francês (RIB)', 'Relevé d’identité bancaire (RIB)'),
    descriptions: L(
      'Relevé d’identité bancaire con el titular, el IBAN y el BIC de una cuenta abierta en Francia.',
      'French bank identity statement with the holder, IBAN and BIC of an account opened in France.',
      'Documento bancário francês com o titular, o IBAN e o BIC de uma conta aberta em França.',
      'Relevé d’identité bancaire indiquant le titulaire, l’IBAN et le BIC d’un compte ouvert en France.'),
    fields: ['full_name', 'address', 'bank_name', 'iban', 'bic', 'account_number'],
    keywords: ['rib', 'relevé d’identité bancaire', 'iban', 'coordonnées bancaires', 'bic'],
  }),
  t({
    type: 'fr_payslip', category: 'employment', countries: FRA,
    labels: L('Nómina francesa', 'French payslip', 'Recibo de vencimento francês', 'Bulletin de paie français'),
    descriptions: L(
      'Bulletin de salaire francés con el salario bruto, las cotizaciones sociales, el neto a pagar y el neto imponible.',
      'French payslip with gross pay, social contributions, net pay and net taxable pay.',
      'Recibo de vencimento francês com o salário bruto, as contribuições sociais, o líquido a pagar e o líquido tributável.',
      'Bulletin de salaire avec le brut, les cotisations sociales, le net à payer et le net imposable.'),
    fields: PAYSLIP,
    fv: { social_security_number: 'fr_nir' },
    signature: false,
    keywords: ['bulletin de paie', 'fiche de paie', 'bulletin de salaire', 'salaire', 'net à payer'],
  }),
  t({
    type: 'fr_vehicle_registration', category: 'vehicle', countries: FRA,
    labels: L('Permiso de circulación francés (carte grise)', 'French vehicle registration certificate (carte grise)', 'Certificado de matrícula francês (carte grise)', 'Certificat d’immatriculation (carte grise)'),
    descriptions: L(
      'Certificat d’immatriculation francés con la matrícula, el número de bastidor y el titular del vehículo.',
      'French vehicle registration certificate with the plate number, VIN and the vehicle’s holder.',
      'Certificado de matrícula francês com a matrícula, o número de quadro e o titular do veículo.',
      'Certificat d’immatriculation indiquant la plaque, le numéro VIN et le titulaire du véhicule.'),
    fields: ['plate_number', 'vin', 'make', 'model', 'vehicle_category', 'full_name', 'address', 'first_registration_date', 'issue_date', 'fuel_type', 'power_kw'],
    keywords: ['carte grise', 'certificat d’immatriculation', 'siv', 'immatriculation', 'ants'],
  }),
  t({
    type: 'fr_birth_certificate', category: 'civil', countries: FRA,
    labels: L('Partida de nacimiento francesa (acte de naissance)', 'French birth certificate (acte de naissance)', 'Certidão de nascimento francesa (acte de naissance)', 'Acte de naissance français'),
    descriptions: L(
      'Copia íntegra o extracto, con o sin filiación, del acta de nacimiento del registro civil francés.',
      'Full copy or extract, with or without parentage, of a French civil registry birth record.',
      'Cópia integral ou extrato, com ou sem filiação, do registo de nascimento do registo civil francês.',
      'Copie intégrale ou extrait, avec ou sans filiation, de l’acte de naissance de l’état civil français.'),
    fields: [...CIVIL_CERT, 'sex', 'father_name', 'mother_name'],
    keywords: ['acte de naissance', 'extrait de naissance', 'copie intégrale', 'état civil', 'mairie'],
  }),
  t({
    type: 'fr_criminal_record', category: 'certificate', countries: FRA,
    labels: L('Certificado de antecedentes penales francés (bulletin n° 3)', 'French criminal record extract (bulletin n° 3)', 'Certificado de registo criminal francês (bulletin n.º 3)', 'Extrait de casier judiciaire (bulletin n° 3)'),
    descriptions: L(
      'Bulletin n° 3 del Casier judiciaire national francés, que cualquier persona puede pedir sobre sí misma.',
      'Bulletin no. 3 of the French national criminal record, which anyone can request about themselves.',
      'Bulletin n.º 3 do registo criminal nacional francês, que qualquer pessoa pode pedir sobre si própria.',
      'Bulletin n° 3 du Casier judiciaire national, que toute personne peut demander la concernant.'),
    fields: ['full_name', 'birth_date', 'birth_place', 'has_records', 'issue_date'],
    signed_pdf: true,
    keywords: ['casier judiciaire', 'bulletin n°3', 'b3', 'extrait de casier', 'cjn'],
  }),
];
