/** Portugal (PRT). */
import { defineType as t, L } from '../define.ts';
import type { CatalogueEntry } from '../vocabulary.ts';
import { CIVIL_CERT, EU_DRIVING, PASSPORT, PAYSLIP, RESIDENCE_TD1 } from './common.ts';

const PRT = ['PRT'];

export const PT_TYPES: CatalogueEntry[] = [
  t({
    type: 'pt_citizen_card', category: 'identity', countries: PRT,
    labels: L('Tarjeta de ciudadano portuguesa (Cartão de Cidadão)', 'Portuguese Citizen Card (Cartão de Cidadão)', 'Cartão de Cidadão', 'Carte de citoyen portugaise (Cartão de Cidadão)'),
    descriptions: L(
      'Documento de identidad portugués que reúne el número de identificación civil, el NIF, la Seguridad Social y el número de usuario de salud.',
      'Portuguese identity card combining the civil ID number, the tax number, the social security number and the health user number.',
      'Documento de identificação português que reúne o número de identificação civil, o NIF, o NISS e o número de utente de saúde.',
      'Carte d’identité portugaise regroupant le numéro d’identification civile, le numéro fiscal, la sécurité sociale et le numéro d’usager de santé.'),
    fields: ['document_number', 'last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'height', 'father_name', 'mother_name', 'expiry_date', ['tax_id', 'Número de identificación fiscal portugués (NIF) del titular'], ['social_security_number', 'Número de la Seguridad Social portuguesa (NISS)'], 'health_card_number', 'mrz'],
    fv: { document_number: 'pt_cc', tax_id: 'pt_nif' },
    mrz: 'TD1',
    keywords: ['cartão de cidadão', 'cc', 'bi', 'bilhete de identidade', 'cartao cidadao', 'portuguese id'],
  }),
  t({
    type: 'pt_passport', category: 'identity', countries: PRT,
    labels: L('Pasaporte portugués', 'Portuguese passport', 'Passaporte português', 'Passeport portugais'),
    descriptions: L(
      'Página de datos del pasaporte electrónico portugués, con MRZ de dos líneas.',
      'Data page of the Portuguese electronic passport, with a two-line MRZ.',
      'Página de dados do passaporte eletrónico português, com zona de leitura ótica de duas linhas.',
      'Page de données du passeport électronique portugais, avec une bande MRZ de deux lignes.'),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: ['passaporte', 'pep', 'passaporte eletrónico português'],
  }),
  t({
    type: 'pt_driving_license', category: 'driving', countries: PRT,
    labels: L('Permiso de conducir portugués', 'Portuguese driving licence', 'Carta de condução portuguesa', 'Permis de conduire portugais'),
    descriptions: L(
      'Carta de condução expedida por el IMT portugués en el modelo de tarjeta de la UE.',
      'Driving licence issued by the Portuguese IMT in the EU card format.',
      'Carta de condução emitida pelo IMT no modelo de cartão da UE.',
      'Permis de conduire délivré par l’IMT portugais au format carte de l’UE.'),
    fields: EU_DRIVING,
    keywords: ['carta de condução', 'carta de conducao', 'imt', 'licença de condução'],
  }),
  t({
    type: 'pt_residence_permit', category: 'residence', countries: PRT,
    labels: L('Título de residencia portugués', 'Portuguese residence permit', 'Título de residência', 'Titre de séjour portugais'),
    descriptions: L(
      'Tarjeta de autorización de residencia expedida por la AIMA (antes SEF) a ciudadanos extranjeros en Portugal.',
      'Residence permit card issued by AIMA (formerly SEF) to foreign nationals in Portugal.',
      'Cartão de autorização de residência emitido pela AIMA (antigo SEF) a cidadãos estrangeiros em Portugal.',
      'Carte de séjour délivrée par l’AIMA (ex-SEF) aux ressortissants étrangers au Portugal.'),
    fields: RESIDENCE_TD1,
    mrz: 'TD1',
    keywords: ['autorização de residência', 'título de residência', 'sef', 'aima', 'cartão de residência'],
  }),
  t({
    type: 'pt_eu_registration_certificate', category: 'residence', countries: PRT,
    labels: L('Certificado de registro de ciudadano de la UE en Portugal', 'Portuguese EU citizen registration certificate', 'Certificado de registo de cidadão da União Europeia', 'Certificat d’enregistrement de citoyen de l’UE au Portugal'),
    descriptions: L(
      'Certificado que expide la cámara municipal portuguesa a los ciudadanos de la UE que residen en Portugal más de tres meses.',
      'Certificate issued by a Portuguese municipality to EU citizens living in Portugal for more than three months.',
      'Certificado emitido pela câmara municipal aos cidadãos da União Europeia que residem em Portugal há mais de três meses.',
      'Certificat délivré par une mairie portugaise aux citoyens de l’UE résidant au Portugal depuis plus de trois mois.'),
    fields: ['full_name', 'nationality', 'document_number', 'address', 'issue_date', 'expiry_date', 'issuing_authority'],
    signature: true, stamp: true,
    keywords: ['crue', 'certificado de registo', 'cidadão da união europeia', 'câmara municipal'],
  }),
  t({
    type: 'pt_nif_certificate', category: 'tax', countries: PRT,
    labels: L('Certificado de NIF portugués', 'Portuguese tax number (NIF) certificate', 'Comprovativo de NIF', 'Attestation de NIF portugais'),
    descriptions: L(
      'Cartão de contribuinte o certificado de la Autoridade Tributária con el número de identificación fiscal asignado.',
      'Taxpayer card or certificate from the Portuguese Tax Authority showing the assigned tax identification number.',
      'Cartão de contribuinte ou documento da Autoridade Tributária com o número de identificação fiscal atribuído.',
      'Carte de contribuable ou attestation de l’Autorité fiscale portugaise indiquant le numéro d’identification fiscale attribué.'),
    fields: ['full_name', 'tax_id', 'tax_domicile', 'issue_date'],
    fv: { tax_id: 'pt_nif' },
    signed_pdf: true, usually_signed: false, signature: false,
    keywords: ['nif', 'número de contribuinte', 'cartão de contribuinte', 'finanças', 'autoridade tributária', 'at'],
  }),
  t({
    type: 'pt_tax_domicile_certificate', category: 'tax', countries: PRT,
    labels: L('Certificado de domicilio fiscal portugués', 'Portuguese tax address certificate', 'Certidão de domicílio fiscal', 'Certificat de domicile fiscal portugais'),
    descriptions: L(
      'Certidão de la Autoridade Tributária que acredita el domicilio fiscal del contribuyente en Portugal.',
      'Certificate of the Portuguese Tax Authority proving the taxpayer’s registered tax address.',
      'Certidão da Autoridade Tributária que comprova o domicílio fiscal do contribuinte.',
      'Certificat de l’Autorité fiscale portugaise attestant le domicile fiscal du contribuable.'),
    fields: ['full_name', 'tax_id', 'tax_domicile', 'certificate_number', 'issue_date', ['expiry_date', 'Fecha hasta la que es válida la certidão']],
    fv: { tax_id: 'pt_nif' },
    signed_pdf: true,
    keywords: ['domicílio fiscal', 'certidão de domicílio', 'portal das finanças', 'morada fiscal'],
  }),
  t({
    type: 'pt_tax_clearance_certificate', category: 'tax', countries: PRT,
    labels: L('Certificado de no deuda tributaria portugués', 'Portuguese tax clearance certificate', 'Certidão de situação tributária regularizada', 'Attestation de régularité fiscale portugaise'),
    descriptions: L(
      'Certidão de la Autoridade Tributária que acredita que el contribuyente no tiene deudas fiscales en Portugal.',
      'Certificate of the Portuguese Tax Authority proving that the taxpayer has no tax debts.',
      'Certidão da Autoridade Tributária que comprova que o contribuinte não tem dívidas fiscais.',
      'Attestation de l’Autorité fiscale portugaise prouvant que le contribuable n’a pas de dettes fiscales.'),
    fields: ['full_name', 'tax_id', 'status', 'certificate_number', 'issue_date', 'expiry_date'],
    fv: { tax_id: 'pt_nif' },
    signed_pdf: true,
    keywords: ['certidão de não dívida', 'situação tributária regularizada', 'finanças', 'dívidas'],
  }),
  t({
    type: 'pt_irs_statement', category: 'tax', countries: PRT,
    labels: L('Declaración o liquidación de IRS portuguesa', 'Portuguese income tax (IRS) return or assessment', 'Declaração ou nota de liquidação de IRS', 'Déclaration ou avis d’imposition IRS portugais'),
    descriptions: L(
      'Declaración Modelo 3 del IRS o nota de liquidación de la Autoridade Tributária, con los rendimientos y el impuesto.',
      'Portuguese IRS Modelo 3 return or the Tax Authority’s assessment note, with income and tax.',
      'Declaração Modelo 3 de IRS ou nota de liquidação da Autoridade Tributária, com os rendimentos e o imposto.',
      'Déclaration IRS Modelo 3 ou avis de liquidation de l’Autorité fiscale portugaise, avec les revenus et l’impôt.'),
    fields: ['form_code', 'full_name', 'tax_id', 'tax_year', 'gross_income', 'taxable_income', 'result_amount', 'filing_date', 'submission_number'],
    fv: { tax_id: 'pt_nif' },
    signed_pdf: true, usually_signed: false, signature: false,
    keywords: ['irs', 'modelo 3', 'nota de liquidação', 'declaração de rendimentos', 'finanças'],
  }),
  t({
    type: 'pt_criminal_record_certificate', category: 'certificate', countries: PRT,
    labels: L('Certificado de antecedentes penales portugués', 'Portuguese criminal record certificate', 'Certificado de registo criminal português', 'Extrait de casier judiciaire portugais'),
    descriptions: L(
      'Certificado de registo criminal expedido por la Direção-Geral da Administração da Justiça portuguesa.',
      'Criminal record certificate issued by the Portuguese Directorate-General for the Administration of Justice.',
      'Certificado de registo criminal emitido pela Direção-Geral da Administração da Justiça.',
      'Extrait de casier judiciaire délivré par la direction générale de l’administration de la justice portugaise.'),
    fields: ['full_name', 'id_number', 'birth_date', 'nationality', 'has_records', 'purpose', 'certificate_number', 'issue_date'],
    signed_pdf: true,
    keywords: ['registo criminal', 'certificado criminal', 'dgaj', 'antecedentes criminais'],
  }),
  t({
    type: 'pt_birth_certificate', category: 'civil', countries: PRT,
    labels: L('Certificado de nacimiento portugués', 'Portuguese birth certificate', 'Certidão de nascimento portuguesa', 'Acte de naissance portugais'),
    descriptions: L(
      'Certidão de nacimiento del registro civil portugués, en papel o en línea con código de acceso.',
      'Portuguese civil registry birth certificate, on paper or online with an access code.',
      'Certidão de nascimento do registo civil português, em papel ou online com código de acesso.',
      'Acte de naissance de l’état civil portugais, papier ou en ligne avec code d’accès.'),
    fields: [...CIVIL_CERT, 'sex', 'father_name', 'mother_name', ['reference', 'Código de acceso a la certidão en línea']],
    keywords: ['certidão de nascimento', 'registo civil', 'certidão online', 'assento de nascimento'],
  }),
  t({
    type: 'pt_company_permanent_certificate', category: 'legal', countries: PRT,
    labels: L('Certificado permanente del registro mercantil portugués', 'Portuguese company permanent certificate', 'Certidão permanente do registo comercial', 'Certificat permanent du registre du commerce portugais'),
    descriptions: L(
      'Certidão permanente en línea con los datos registrales de una sociedad portuguesa, consultable con un código.',
      'Online permanent certificate with the registered details of a Portuguese company, checked with an access code.',
      'Certidão permanente online com os dados registais de uma sociedade portuguesa, consultável com um código.',
      'Certificat permanent en ligne reprenant les données d’une société portugaise, consultable avec un code d’accès.'),
    fields: ['company_name', 'company_tax_id', 'legal_form', 'registered_address', 'incorporation_date', 'representatives', ['reference', 'Código de acceso a la certidão permanente'], 'issue_date', 'expiry_date'],
    fv: { company_tax_id: 'pt_nif' },
    keywords: ['certidão permanente', 'registo comercial', 'nipc', 'empresa', 'código de acesso'],
  }),
  t({
    type: 'pt_payslip', category: 'employment', countries: PRT,
    labels: L('Nómina portuguesa', 'Portuguese payslip', 'Recibo de vencimento português', 'Bulletin de paie portugais'),
    descriptions: L(
      'Recibo de vencimento portugués con la remuneración, los descuentos de IRS y Segurança Social y el líquido.',
      'Portuguese payslip with pay, IRS and social security deductions and net pay.',
      'Recibo de vencimento com a remuneração, os descontos de IRS e Segurança Social e o valor líquido.',
      'Bulletin de paie portugais avec la rémunération, les retenues IRS et sécurité sociale et le net.'),
    fields: PAYSLIP,
    fv: { id_number: 'pt_nif', employer_tax_id: 'pt_nif' },
    signature: false,
    keywords: ['recibo de vencimento', 'recibo de salário', 'vencimento', 'salário'],
  }),
  t({
    type: 'pt_vehicle_registration', category: 'vehicle', countries: PRT,
    labels: L('Documento Único Automóvel portugués', 'Portuguese vehicle registration (DUA / Certificado de Matrícula)', 'Documento Único Automóvel (Certificado de Matrícula)', 'Certificat d’immatriculation portugais (DUA)'),
    descriptions: L(
      'Certificado de matrícula portugués (antes DUA) con los datos del vehículo y de su propietario.',
      'Portuguese vehicle registration certificate (formerly DUA) with the vehicle’s and the owner’s details.',
      'Certificado de matrícula (antigo DUA) com os dados do veículo e do proprietário.',
      'Certificat d’immatriculation portugais (ex-DUA) avec les données du véhicule et du propriétaire.'),
    fields: ['plate_number', 'vin', 'make', 'model', 'vehicle_category', 'full_name', 'address', 'first_registration_date', 'issue_date'],
    keywords: ['dua', 'documento único automóvel', 'certificado de matrícula', 'livrete', 'título de registo de propriedade'],
  }),
];
