/** Brazil (BRA). */
import { defineType as t, L } from '../define.ts';
import type { CatalogueEntry } from '../vocabulary.ts';
import { CIVIL_CERT, PASSPORT, UTILITY_BILL } from './common.ts';

const BRA = ['BRA'];

export const BR_TYPES: CatalogueEntry[] = [
  t({
    type: 'br_rg', category: 'identity', countries: BRA,
    labels: L('Documento de identidad brasileño (RG)', 'Brazilian identity card (RG)', 'Carteira de Identidade (RG)', 'Carte d’identité brésilienne (RG)'),
    descriptions: L(
      'Cédula de identidad (Registro Geral) expedida por la secretaría de seguridad de cada estado brasileño, modelo anterior a la CIN.',
      'Brazilian identity card (Registro Geral) issued by each state’s public security department, the model before the CIN.',
      'Carteira de Identidade (Registro Geral) emitida pela secretaria de segurança pública de cada estado, modelo anterior à CIN.',
      'Carte d’identité brésilienne (Registro Geral) délivrée par le service de sécurité publique de chaque État, modèle antérieur à la CIN.'),
    fields: [['document_number', 'Número del Registro Geral (RG)'], 'full_name', 'father_name', 'mother_name', 'birth_date', 'birth_place', ['id_number', 'Número de CPF del titular, si figura'], 'issue_date', 'issuing_authority', 'region'],
    fv: { id_number: 'br_cpf' },
    keywords: ['rg', 'registro geral', 'carteira de identidade', 'identidade', 'cédula de identidade', 'ssp'],
  }),
  t({
    type: 'br_cin', category: 'identity', countries: BRA,
    labels: L('Carteira de Identidade Nacional brasileña (CIN)', 'Brazilian national identity card (CIN)', 'Carteira de Identidade Nacional (CIN)', 'Carte d’identité nationale brésilienne (CIN)'),
    descriptions: L(
      'Nuevo documento de identidad brasileño, expedido desde 2022, que usa el CPF como número único y lleva código QR y MRZ.',
      'New Brazilian identity card issued since 2022, using the CPF as the single number, with a QR code and an MRZ.',
      'Nova carteira de identidade emitida desde 2022, que usa o CPF como número único e tem código QR e zona de leitura ótica.',
      'Nouvelle carte d’identité brésilienne délivrée depuis 2022, qui utilise le CPF comme numéro unique, avec code QR et bande MRZ.'),
    fields: [['document_number', 'Número de CPF, que es el número de la CIN'], 'full_name', 'sex', 'nationality', 'birth_date', 'birth_place', 'father_name', 'mother_name', 'issue_date', 'expiry_date', 'issuing_authority', 'mrz'],
    fv: { document_number: 'br_cpf' },
    mrz: 'TD1',
    keywords: ['cin', 'nova identidade', 'carteira de identidade nacional', 'rg novo', 'cpf'],
  }),
  t({
    type: 'br_passport', category: 'identity', countries: BRA,
    labels: L('Pasaporte brasileño', 'Brazilian passport', 'Passaporte brasileiro', 'Passeport brésilien'),
    descriptions: L(
      'Página de datos del pasaporte expedido por la Policía Federal de Brasil.',
      'Data page of the passport issued by the Brazilian Federal Police.',
      'Página de dados do passaporte emitido pela Polícia Federal.',
      'Page de données du passeport délivré par la Police fédérale brésilienne.'),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: ['passaporte', 'polícia federal', 'passaporte brasileiro'],
  }),
  t({
    type: 'br_cnh', category: 'driving', countries: BRA,
    labels: L('Permiso de conducir brasileño (CNH)', 'Brazilian driving licence (CNH)', 'Carteira Nacional de Habilitação (CNH)', 'Permis de conduire brésilien (CNH)'),
    descriptions: L(
      'Carteira Nacional de Habilitação, física o digital, que también vale como documento de identidad en Brasil.',
      'Brazilian national driving licence, physical or digital, also accepted as an identity document in Brazil.',
      'Carteira Nacional de Habilitação, física ou digital, que também vale como documento de identidade.',
      'Permis de conduire national brésilien, physique ou numérique, qui vaut aussi pièce d’identité au Brésil.'),
    fields: [['document_number', 'Número de registro de la CNH (RENACH)'], 'full_name', 'birth_date', ['id_number', 'Número de CPF del titular'], 'father_name', 'mother_name', 'license_categories', 'issue_date', 'expiry_date', 'issuing_authority'],
    fv: { id_number: 'br_cpf' },
    keywords: ['cnh', 'carteira de motorista', 'habilitação', 'cnh digital', 'detran', 'renach'],
  }),
  t({
    type: 'br_cpf', category: 'tax', countries: BRA,
    labels: L('Comprobante de CPF brasileño', 'Brazilian taxpayer number (CPF) proof', 'Comprovante de inscrição no CPF', 'Justificatif de CPF brésilien'),
    descriptions: L(
      'Tarjeta o comprobante de inscripción en el Cadastro de Pessoas Físicas de la Receita Federal.',
      'Card or proof of registration in the Brazilian individual taxpayer register (CPF) of the Federal Revenue.',
      'Cartão ou comprovante de inscrição no Cadastro de Pessoas Físicas da Receita Federal.',
      'Carte ou justificatif d’inscription au registre des contribuables personnes physiques (CPF) de la Receita Federal.'),
    fields: [['tax_id', 'Número de CPF'], 'full_name', 'birth_date', 'status', 'issue_date'],
    fv: { tax_id: 'br_cpf' },
    signature: false,
    keywords: ['cpf', 'cadastro de pessoas físicas', 'receita federal', 'cartão cpf', 'situação cadastral'],
  }),
  t({
    type: 'br_cnpj_card', category: 'tax', countries: BRA,
    labels: L('Tarjeta CNPJ brasileña', 'Brazilian company registration card (CNPJ)', 'Comprovante de inscrição no CNPJ (cartão CNPJ)', 'Attestation CNPJ brésilienne'),
    descriptions: L(
      'Comprobante de inscripción y situación catastral de una empresa en el Cadastro Nacional da Pessoa Jurídica.',
      'Proof of a company’s registration and status in the Brazilian national register of legal entities (CNPJ).',
      'Comprovante de inscrição e de situação cadastral de uma empresa no Cadastro Nacional da Pessoa Jurídica.',
      'Justificatif d’inscription et de situation d’une entreprise au registre national brésilien des personnes morales (CNPJ).'),
    fields: ['company_name', ['company_tax_id', 'Número de CNPJ'], 'legal_form', 'registered_address', 'incorporation_date', 'economic_activity', 'status', 'issue_date'],
    fv: { company_tax_id: 'br_cnpj' },
    signature: false,
    keywords: ['cnpj', 'cartão cnpj', 'pessoa jurídica', 'receita federal', 'empresa'],
  }),
  t({
    type: 'br_ctps', category: 'employment', countries: BRA,
    labels: L('Carteira de Trabalho brasileña (CTPS)', 'Brazilian work and social security card (CTPS)', 'Carteira de Trabalho e Previdência Social (CTPS)', 'Carnet de travail brésilien (CTPS)'),
    descriptions: L(
      'Carteira de Trabalho e Previdência Social, física o digital, con el historial de contratos de trabajo.',
      'Brazilian work and social security card, physical or digital, recording the employment history.',
      'Carteira de Trabalho e Previdência Social, física ou digital, com o histórico de contratos de trabalho.',
      'Carnet de travail et de prévoyance sociale brésilien, physique ou numérique, retraçant les contrats de travail.'),
    fields: ['document_number', 'full_name', ['id_number', 'Número de CPF del trabajador'], 'birth_date', 'employment_periods', 'issue_date'],
    fv: { id_number: 'br_cpf' },
    keywords: ['ctps', 'carteira de trabalho', 'ctps digital', 'registro em carteira', 'pis'],
  }),
  t({
    type: 'br_voter_id', category: 'civil', countries: BRA,
    labels: L('Título de elector brasileño', 'Brazilian voter registration card', 'Título de Eleitor', 'Carte d’électeur brésilienne'),
    descriptions: L(
      'Título de eleitor, en papel o digital (e-Título), que acredita la inscripción electoral en Brasil.',
      'Brazilian voter card, on paper or digital (e-Título), proving electoral registration.',
      'Título de eleitor, em papel ou digital (e-Título), que comprova a inscrição eleitoral.',
      'Titre d’électeur brésilien, papier ou numérique (e-Título), attestant l’inscription électorale.'),
    fields: [['document_number', 'Número de inscripción electoral (12 cifras)'], 'full_name', 'birth_date', ['reference', 'Zona y sección electoral'], 'city', 'region', 'issue_date'],
    stamp: false,
    keywords: ['título de eleitor', 'e-título', 'eleitor', 'tse', 'zona eleitoral'],
  }),
  t({
    type: 'br_proof_of_residence', category: 'address', countries: BRA,
    labels: L('Comprobante de residencia brasileño', 'Brazilian proof of residence', 'Comprovante de residência', 'Justificatif de domicile brésilien'),
    descriptions: L(
      'Factura de luz, agua, gas, teléfono o internet, o extracto bancario, que sirve como comprovante de residência en Brasil.',
      'Electricity, water, gas, phone or internet bill, or bank statement, used as proof of residence in Brazil.',
      'Conta de luz, água, gás, telefone ou internet, ou extrato bancário, usado como comprovante de residência.',
      'Facture d’électricité, d’eau, de gaz, de téléphone ou d’internet, ou relevé bancaire, servant de justificatif de domicile au Brésil.'),
    fields: [...UTILITY_BILL.filter((f) => f !== 'iban'), ['id_number', 'CPF del titular, si figura']],
    fv: { id_number: 'br_cpf' },
    keywords: ['comprovante de residência', 'comprovante de endereço', 'conta de luz', 'conta de água', 'cep'],
  }),
  t({
    type: 'br_crlv', category: 'vehicle', countries: BRA,
    labels: L('Certificado de registro del vehículo brasileño (CRLV)', 'Brazilian vehicle registration and licensing certificate (CRLV)', 'Certificado de Registro e Licenciamento de Veículo (CRLV)', 'Certificat d’immatriculation brésilien (CRLV)'),
    descriptions: L(
      'Certificado de Registro e Licenciamento de Veículo, normalmente en formato digital (CRLV-e), con la placa y el RENAVAM.',
      'Brazilian vehicle registration and licensing certificate, usually digital (CRLV-e), with the plate and RENAVAM number.',
      'Certificado de Registro e Licenciamento de Veículo, normalmente digital (CRLV-e), com a placa e o RENAVAM.',
      'Certificat brésilien d’immatriculation et de licence du véhicule, généralement numérique (CRLV-e), avec la plaque et le RENAVAM.'),
    fields: ['plate_number', ['reference', 'Código RENAVAM del vehículo'], 'vin', 'make', 'model', 'full_name', ['id_number', 'CPF o CNPJ del propietario'], 'first_registration_date', 'issue_date'],
    keywords: ['crlv', 'crlv-e', 'documento do carro', 'renavam', 'licenciamento', 'detran', 'crv'],
  }),
  t({
    type: 'br_birth_certificate', category: 'civil', countries: BRA,
    labels: L('Certificado de nacimiento brasileño', 'Brazilian birth certificate', 'Certidão de nascimento brasileira', 'Acte de naissance brésilien'),
    descriptions: L(
      'Certidão de nascimento expedida por un cartório de registro civil brasileño, con número de matrícula.',
      'Birth certificate issued by a Brazilian civil registry office (cartório), with its registration number.',
      'Certidão de nascimento emitida por um cartório de registro civil, com número de matrícula.',
      'Acte de naissance délivré par un office d’état civil brésilien (cartório), avec son numéro d’enregistrement.'),
    fields: [...CIVIL_CERT, 'sex', 'father_name', 'mother_name', ['id_number', 'CPF de la persona registrada, si figura']],
    fv: { id_number: 'br_cpf' },
    keywords: ['certidão de nascimento', 'cartório', 'registro civil', 'matrícula'],
  }),
  t({
    type: 'br_crnm', category: 'residence', countries: BRA,
    labels: L('Carteira de Registro Nacional Migratório brasileña (CRNM)', 'Brazilian national migration registration card (CRNM)', 'Carteira de Registro Nacional Migratório (CRNM)', 'Carte d’enregistrement migratoire brésilienne (CRNM)'),
    descriptions: L(
      'Documento de identidad de los inmigrantes residentes en Brasil, que sustituyó al antiguo RNE.',
      'Identity card of immigrants residing in Brazil, which replaced the former RNE.',
      'Documento de identidade dos imigrantes residentes no Brasil, que substituiu o antigo RNE.',
      'Carte d’identité des immigrés résidant au Brésil, qui a remplacé l’ancien RNE.'),
    fields: ['document_number', 'full_name', 'nationality', 'birth_date', 'sex', 'permit_type', 'issue_date', 'expiry_date', 'issuing_authority'],
    keywords: ['crnm', 'rne', 'registro nacional migratório', 'estrangeiro', 'polícia federal'],
  }),
];
