/**
 * United States (USA). Identity and employment documents follow Form I-9 (lists A, B and C of acceptable documents);
 * `i9_lists` says which list a type belongs to.
 */
import { defineType as t, L } from '../define.ts';
import type { CatalogueEntry } from '../vocabulary.ts';
import { CIVIL_CERT, PASSPORT } from './common.ts';

const USA = ['USA'];
const AAMVA: readonly string[] = [
  'document_number', 'last_name', 'first_name', 'birth_date', 'sex', 'address', 'city', 'region', 'postal_code',
  'issue_date', 'expiry_date', 'height', 'eye_color',
];

export const US_TYPES: CatalogueEntry[] = [
  // ---------------------------------------------------------------- List A
  t({
    type: 'us_passport', category: 'identity', countries: USA, i9: ['A'],
    labels: L('Pasaporte estadounidense', 'US passport', 'Passaporte norte-americano', 'Passeport américain'),
    descriptions: L(
      'Página de datos del pasaporte de Estados Unidos; documento de la lista A del formulario I-9.',
      'Data page of a United States passport; a Form I-9 List A document.',
      'Página de dados do passaporte dos Estados Unidos; documento da lista A do formulário I-9.',
      'Page de données du passeport des États-Unis ; document de la liste A du formulaire I-9.'),
    fields: PASSPORT,
    mrz: 'TD3',
    keywords: ['us passport', 'american passport', 'passport book', 'i-9 list a'],
  }),
  t({
    type: 'us_passport_card', category: 'identity', countries: USA, i9: ['A'],
    labels: L('Tarjeta de pasaporte estadounidense', 'US passport card', 'Cartão de passaporte norte-americano', 'Carte passeport américaine'),
    descriptions: L(
      'Tarjeta de pasaporte de EE. UU. válida para cruces terrestres y marítimos con países vecinos; lista A del I-9.',
      'US passport card valid for land and sea crossings with neighbouring countries; Form I-9 List A.',
      'Cartão de passaporte dos EUA válido para travessias terrestres e marítimas com países vizinhos; lista A do I-9.',
      'Carte passeport des États-Unis valable pour les passages terrestres et maritimes avec les pays voisins ; liste A du I-9.'),
    fields: ['document_number', 'last_name', 'first_name', 'nationality', 'birth_date', 'birth_place', 'sex', 'issue_date', 'expiry_date', 'mrz'],
    mrz: 'TD1',
    keywords: ['passport card', 'us passport card', 'i-9 list a'],
  }),
  t({
    type: 'us_permanent_resident_card', category: 'residence', countries: USA, i9: ['A'],
    labels: L('Tarjeta de residente permanente de EE. UU. (green card)', 'US permanent resident card (green card, Form I-551)', 'Cartão de residente permanente dos EUA (green card)', 'Carte de résident permanent américaine (green card)'),
    descriptions: L(
      'Formulario I-551 que acredita la residencia permanente legal en Estados Unidos; lista A del I-9.',
      'Form I-551 proving lawful permanent residence in the United States; Form I-9 List A.',
      'Formulário I-551 que comprova a residência permanente legal nos Estados Unidos; lista A do I-9.',
      'Formulaire I-551 attestant la résidence permanente légale aux États-Unis ; liste A du I-9.'),
    fields: ['document_number', 'uscis_number', 'last_name', 'first_name', ['nationality', 'País de nacimiento del titular, como código ISO 3166-1 alfa-3'], 'birth_date', 'sex', 'category_code', ['start_date', 'Fecha desde la que es residente permanente (resident since)'], 'expiry_date', 'mrz'],
    mrz: 'TD1',
    keywords: ['green card', 'i-551', 'permanent resident card', 'lpr', 'tarjeta verde', 'residencia permanente'],
  }),
  t({
    type: 'us_employment_authorization_document', category: 'residence', countries: USA, i9: ['A'],
    labels: L('Autorización de empleo de EE. UU. (EAD, formulario I-766)', 'US employment authorization document (EAD, Form I-766)', 'Autorização de trabalho dos EUA (EAD, formulário I-766)', 'Autorisation de travail américaine (EAD, formulaire I-766)'),
    descriptions: L(
      'Tarjeta con foto que autoriza a un extranjero a trabajar en Estados Unidos durante su validez; lista A del I-9.',
      'Photo card authorising a foreign national to work in the United States while valid; Form I-9 List A.',
      'Cartão com fotografia que autoriza um estrangeiro a trabalhar nos Estados Unidos durante a validade; lista A do I-9.',
      'Carte avec photo autorisant un étranger à travailler aux États-Unis pendant sa validité ; liste A du I-9.'),
    fields: ['document_number', 'uscis_number', 'category_code', 'last_name', 'first_name', ['nationality', 'País de nacimiento del titular, como código ISO 3166-1 alfa-3'], 'birth_date', 'sex', ['start_date', 'Fecha de inicio de la autorización (valid from)'], 'expiry_date', 'mrz'],
    mrz: 'TD1',
    keywords: ['ead', 'i-766', 'work permit', 'employment authorization card', 'permiso de trabajo'],
  }),
  t({
    type: 'us_foreign_passport_i94', category: 'identity', countries: USA, i9: ['A'],
    labels: L('Pasaporte extranjero con registro I-94', 'Foreign passport with Form I-94', 'Passaporte estrangeiro com formulário I-94', 'Passeport étranger avec formulaire I-94'),
    descriptions: L(
      'Pasaporte extranjero acompañado del registro de entrada I-94 que autoriza a trabajar para un empleador concreto; lista A del I-9.',
      'Foreign passport together with the I-94 arrival record authorising work for a specific employer; Form I-9 List A.',
      'Passaporte estrangeiro acompanhado do registo de entrada I-94 que autoriza a trabalhar para um empregador específico; lista A do I-9.',
      'Passeport étranger accompagné de l’enregistrement d’entrée I-94 autorisant à travailler pour un employeur donné ; liste A du I-9.'),
    fields: [...PASSPORT, 'admission_number', 'admission_class', 'admit_until_date'],
    mrz: 'TD3',
    keywords: ['i-94', 'i94', 'arrival record', 'nonimmigrant', 'h-1b', 'foreign passport'],
  }),
  // ---------------------------------------------------------------- List B
  t({
    type: 'us_drivers_license', category: 'driving', countries: USA, i9: ['B'],
    labels: L('Licencia de conducir estadounidense', 'US driver’s license', 'Carta de condução norte-americana', 'Permis de conduire américain'),
    descriptions: L(
      'Licencia de conducir expedida por un estado de EE. UU., con el código de barras PDF417 del estándar AAMVA en el reverso; lista B del I-9.',
      'Driver’s license issued by a US state, with the AAMVA PDF417 barcode on the back; Form I-9 List B.',
      'Carta de condução emitida por um estado dos EUA, com o código de barras PDF417 do padrão AAMVA no verso; lista B do I-9.',
      'Permis de conduire délivré par un État américain, avec le code-barres PDF417 au standard AAMVA au verso ; liste B du I-9.'),
    fields: [...AAMVA, 'license_categories', 'restrictions', 'endorsements', 'barcode_data'],
    fv: { document_number: 'us_dl', postal_code: 'us_zip' },
    validators: ['aamva_barcode', 'aamva_matches_visual'],
    keywords: ['driver license', 'drivers license', 'dl', 'dmv', 'real id', 'aamva', 'pdf417', 'licencia de manejo'],
  }),
  t({
    type: 'us_state_id', category: 'identity', countries: USA, i9: ['B'],
    labels: L('Tarjeta de identidad estatal de EE. UU.', 'US state ID card', 'Cartão de identidade estadual dos EUA', 'Carte d’identité d’État américaine'),
    descriptions: L(
      'Tarjeta de identidad sin permiso de conducir expedida por un estado de EE. UU., con código de barras AAMVA; lista B del I-9.',
      'Non-driver identification card issued by a US state, with an AAMVA barcode; Form I-9 List B.',
      'Cartão de identificação sem habilitação de condução emitido por um estado dos EUA, com código de barras AAMVA; lista B do I-9.',
      'Carte d’identité sans droit de conduire délivrée par un État américain, avec code-barres AAMVA ; liste B du I-9.'),
    fields: [...AAMVA, 'barcode_data'],
    fv: { document_number: 'us_dl', postal_code: 'us_zip' },
    validators: ['aamva_barcode', 'aamva_matches_visual'],
    keywords: ['state id', 'identification card', 'non-driver id', 'dmv', 'real id', 'aamva'],
  }),
  t({
    type: 'us_school_id', category: 'education', countries: USA, i9: ['B'],
    labels: L('Carné escolar con foto de EE. UU.', 'US school ID card with photograph', 'Cartão escolar com fotografia dos EUA', 'Carte d’étudiant américaine avec photo'),
    descriptions: L(
      'Carné con fotografía de un centro educativo estadounidense; lista B del I-9.',
      'Photo identification card from a US school or university; Form I-9 List B.',
      'Cartão com fotografia de uma escola ou universidade dos EUA; lista B do I-9.',
      'Carte avec photo d’un établissement scolaire ou universitaire américain ; liste B du I-9.'),
    fields: ['full_name', 'document_number', 'institution_name', 'issue_date', 'expiry_date'],
    signature: false, stamp: false,
    keywords: ['school id', 'student id', 'campus card', 'carné de estudiante'],
  }),
  t({
    type: 'us_voter_registration_card', category: 'civil', countries: USA, i9: ['B'],
    labels: L('Tarjeta de registro de votante de EE. UU.', 'US voter registration card', 'Cartão de recenseamento eleitoral dos EUA', 'Carte d’électeur américaine'),
    descriptions: L(
      'Tarjeta que acredita la inscripción en el censo electoral de un condado de EE. UU.; lista B del I-9.',
      'Card proving registration on a US county’s voter roll; Form I-9 List B.',
      'Cartão que comprova a inscrição nos cadernos eleitorais de um condado dos EUA; lista B do I-9.',
      'Carte attestant l’inscription sur les listes électorales d’un comté américain ; liste B du I-9.'),
    fields: ['full_name', 'document_number', 'address', 'city', 'region', 'postal_code', 'birth_date', 'registration_date', 'issue_date'],
    fv: { postal_code: 'us_zip' },
    signature: false, stamp: false,
    keywords: ['voter card', 'voter registration', 'voter id', 'tarjeta de votante'],
  }),
  t({
    type: 'us_military_id', category: 'identity', countries: USA, i9: ['B'],
    labels: L('Tarjeta de identificación militar de EE. UU.', 'US military ID card', 'Cartão de identificação militar dos EUA', 'Carte d’identité militaire américaine'),
    descriptions: L(
      'Common Access Card u otra tarjeta de identificación de las Fuerzas Armadas de EE. UU.; lista B del I-9.',
      'Common Access Card or other US Armed Forces identification card; Form I-9 List B.',
      'Common Access Card ou outro cartão de identificação das Forças Armadas dos EUA; lista B do I-9.',
      'Common Access Card ou autre carte d’identité des forces armées américaines ; liste B du I-9.'),
    fields: ['full_name', 'document_number', ['job_title', 'Rango o grado militar'], 'issuing_authority', 'birth_date', 'issue_date', 'expiry_date'],
    keywords: ['cac', 'common access card', 'military id', 'dod id', 'armed forces'],
  }),
  t({
    type: 'us_military_dependent_id', category: 'identity', countries: USA, i9: ['B'],
    labels: L('Tarjeta de familiar de militar de EE. UU.', 'US military dependent’s ID card', 'Cartão de dependente de militar dos EUA', 'Carte de personne à charge de militaire américain'),
    descriptions: L(
      'Tarjeta de identificación y privilegios para familiares de militares estadounidenses; lista B del I-9.',
      'Identification and privilege card for dependants of US service members; Form I-9 List B.',
      'Cartão de identificação e privilégios para dependentes de militares dos EUA; lista B do I-9.',
      'Carte d’identification et de privilèges des personnes à charge des militaires américains ; liste B du I-9.'),
    fields: ['full_name', 'document_number', ['remarks', 'Nombre y rango del militar patrocinador'], 'birth_date', 'issue_date', 'expiry_date'],
    keywords: ['dependent id', 'uniformed services id', 'dd form 1173', 'tricare'],
  }),
  t({
    type: 'us_tribal_document', category: 'identity', countries: USA, i9: ['B', 'C'],
    labels: L('Documento tribal nativo americano', 'Native American tribal document', 'Documento tribal nativo-americano', 'Document tribal amérindien'),
    descriptions: L(
      'Documento expedido por una tribu reconocida por el Gobierno federal de EE. UU.; vale en las listas B y C del I-9.',
      'Document issued by a federally recognised Native American tribe; valid for Form I-9 Lists B and C.',
      'Documento emitido por uma tribo nativo-americana reconhecida pelo governo federal dos EUA; válido nas listas B e C do I-9.',
      'Document délivré par une tribu amérindienne reconnue par l’État fédéral américain ; valable pour les listes B et C du I-9.'),
    fields: ['full_name', 'document_number', 'birth_date', 'issuing_authority', 'issue_date', 'expiry_date'],
    keywords: ['tribal id', 'tribal enrollment card', 'native american', 'cdib'],
  }),
  t({
    type: 'us_merchant_mariner_card', category: 'identity', countries: USA, i9: ['B'],
    labels: L('Tarjeta de marino mercante de EE. UU.', 'US Coast Guard merchant mariner card', 'Cartão de marinheiro mercante dos EUA', 'Carte de marin de la marine marchande américaine'),
    descriptions: L(
      'Tarjeta o credencial de marino mercante expedida por la Guardia Costera de EE. UU.; lista B del I-9.',
      'Merchant mariner card or credential issued by the US Coast Guard; Form I-9 List B.',
      'Cartão ou credencial de marinheiro mercante emitido pela Guarda Costeira dos EUA; lista B do I-9.',
      'Carte ou titre de marin de la marine marchande délivré par les garde-côtes américains ; liste B du I-9.'),
    fields: ['full_name', 'document_number', 'birth_date', 'issue_date', 'expiry_date'],
    keywords: ['merchant mariner', 'mmc', 'coast guard', 'uscg', 'twic'],
  }),
  // ---------------------------------------------------------------- List C
  t({
    type: 'us_social_security_card', category: 'employment', countries: USA, i9: ['C'],
    labels: L('Tarjeta de Seguro Social de EE. UU.', 'US Social Security card', 'Cartão da Segurança Social dos EUA', 'Carte de sécurité sociale américaine'),
    descriptions: L(
      'Tarjeta con el número de Seguro Social (SSN); lista C del I-9 salvo que indique restricciones de trabajo.',
      'Card bearing the Social Security number (SSN); Form I-9 List C unless it carries work restrictions.',
      'Cartão com o número da Segurança Social (SSN); lista C do I-9, salvo se tiver restrições de trabalho.',
      'Carte portant le numéro de sécurité sociale (SSN) ; liste C du I-9 sauf si elle comporte des restrictions de travail.'),
    fields: [['document_number', 'Número de Seguro Social (SSN)'], 'full_name', ['restrictions', 'Leyenda restrictiva, por ejemplo «VALID FOR WORK ONLY WITH DHS AUTHORIZATION»']],
    fv: { document_number: 'us_ssn' },
    signature: true, stamp: false,
    keywords: ['ssn', 'social security card', 'social security number', 'seguro social', 'i-9 list c'],
  }),
  t({
    type: 'us_birth_certificate', category: 'civil', countries: USA, i9: ['C'],
    labels: L('Certificado de nacimiento estadounidense', 'US birth certificate', 'Certidão de nascimento norte-americana', 'Acte de naissance américain'),
    descriptions: L(
      'Copia certificada de un acta de nacimiento expedida por un estado, condado o municipio de EE. UU., con sello oficial; lista C del I-9.',
      'Certified copy of a birth certificate issued by a US state, county or municipality, bearing an official seal; Form I-9 List C.',
      'Cópia certificada de uma certidão de nascimento emitida por um estado, condado ou município dos EUA, com selo oficial; lista C do I-9.',
      'Copie certifiée d’un acte de naissance délivré par un État, un comté ou une commune des États-Unis, avec sceau officiel ; liste C du I-9.'),
    fields: [...CIVIL_CERT, 'sex', 'father_name', 'mother_name', ['certificate_number', 'Número de archivo estatal (state file number)']],
    keywords: ['birth certificate', 'certified copy', 'vital records', 'state file number'],
  }),
  t({
    type: 'us_citizen_id_card', category: 'identity', countries: USA, i9: ['C'],
    labels: L('Tarjeta de ciudadano estadounidense (formulario I-197)', 'US citizen identification card (Form I-197)', 'Cartão de cidadão norte-americano (formulário I-197)', 'Carte de citoyen américain (formulaire I-197)'),
    descriptions: L(
      'Tarjeta de identificación de ciudadano de EE. UU. (I-197) o de ciudadano residente (I-179); lista C del I-9.',
      'US Citizen identification card (I-197) or resident citizen card (I-179); Form I-9 List C.',
      'Cartão de identificação de cidadão dos EUA (I-197) ou de cidadão residente (I-179); lista C do I-9.',
      'Carte d’identification de citoyen américain (I-197) ou de citoyen résident (I-179) ; liste C du I-9.'),
    fields: ['full_name', 'document_number', 'birth_date', 'birth_place', 'issue_date'],
    keywords: ['i-197', 'i-179', 'us citizen id card', 'citizen identification'],
  }),
  t({
    type: 'us_consular_report_of_birth_abroad', category: 'civil', countries: USA, i9: ['C'],
    labels: L('Informe consular de nacimiento en el extranjero de EE. UU. (FS-240)', 'US consular report of birth abroad (FS-240)', 'Relatório consular de nascimento no estrangeiro dos EUA (FS-240)', 'Acte de naissance consulaire américain (FS-240)'),
    descriptions: L(
      'Formulario FS-240 del Departamento de Estado que acredita la ciudadanía estadounidense de un nacido en el extranjero; lista C del I-9.',
      'State Department Form FS-240 proving the US citizenship of a person born abroad; Form I-9 List C.',
      'Formulário FS-240 do Departamento de Estado que comprova a cidadania norte-americana de quem nasceu no estrangeiro; lista C do I-9.',
      'Formulaire FS-240 du département d’État attestant la citoyenneté américaine d’une personne née à l’étranger ; liste C du I-9.'),
    fields: ['full_name', 'birth_date', 'birth_place', 'sex', 'father_name', 'mother_name', 'certificate_number', 'issue_date'],
    keywords: ['fs-240', 'crba', 'consular report of birth abroad', 'fs-545', 'ds-1350'],
  }),
  // ---------------------------------------------------------------- other US documents
  t({
    type: 'us_form_i9', category: 'employment', countries: USA,
    labels: L('Formulario I-9 de verificación de elegibilidad de empleo', 'US Form I-9 (Employment Eligibility Verification)', 'Formulário I-9 de verificação de elegibilidade de emprego', 'Formulaire I-9 de vérification d’éligibilité à l’emploi'),
    descriptions: L(
      'Formulario del USCIS que el empleador completa con el trabajador para verificar su identidad y su autorización para trabajar.',
      'USCIS form completed by the employer and the employee to verify identity and work authorisation.',
      'Formulário do USCIS preenchido pelo empregador e pelo trabalhador para verificar a identidade e a autorização de trabalho.',
      'Formulaire de l’USCIS rempli par l’employeur et le salarié pour vérifier l’identité et l’autorisation de travail.'),
    fields: ['full_name', 'birth_date', 'address', 'id_number', 'email', 'phone', 'status', 'employer_name', 'start_date', 'issue_date'],
    fv: { id_number: 'us_ssn' },
    stamp: false,
    keywords: ['i-9', 'i9', 'employment eligibility verification', 'uscis', 'e-verify'],
  }),
  t({
    type: 'us_w2', category: 'tax', countries: USA,
    labels: L('Formulario W-2 de EE. UU.', 'US Form W-2 (Wage and Tax Statement)', 'Formulário W-2 dos EUA', 'Formulaire W-2 américain'),
    descriptions: L(
      'Declaración anual de salarios y retenciones que el empleador entrega al trabajador en Estados Unidos.',
      'Annual wage and tax statement given by the employer to the employee in the United States.',
      'Declaração anual de salários e retenções entregue pelo empregador ao trabalhador nos Estados Unidos.',
      'Relevé annuel des salaires et des retenues remis par l’employeur au salarié aux États-Unis.'),
    fields: ['full_name', ['id_number', 'Número de Seguro Social (SSN) del trabajador'], 'employer_name', ['employer_tax_id', 'Número de identificación del empleador (EIN)'], 'tax_year', 'gross_income', 'withholding_amount', 'address'],
    fv: { id_number: 'us_ssn' },
    signature: false,
    keywords: ['w-2', 'w2', 'wage and tax statement', 'irs'],
  }),
  t({
    type: 'us_form_1040', category: 'tax', countries: USA,
    labels: L('Declaración federal de la renta de EE. UU. (formulario 1040)', 'US individual income tax return (Form 1040)', 'Declaração federal de rendimentos dos EUA (formulário 1040)', 'Déclaration fédérale de revenus américaine (formulaire 1040)'),
    descriptions: L(
      'Declaración anual del impuesto federal sobre la renta de las personas físicas presentada ante el IRS.',
      'Annual federal individual income tax return filed with the IRS.',
      'Declaração anual do imposto federal sobre o rendimento das pessoas singulares apresentada ao IRS.',
      'Déclaration annuelle de l’impôt fédéral sur le revenu des particuliers déposée auprès de l’IRS.'),
    fields: ['form_code', 'full_name', ['tax_id', 'Número de Seguro Social (SSN) o ITIN del contribuyente'], 'spouse_name', 'address', 'tax_year', 'gross_income', 'taxable_income', 'result_amount', 'filing_date'],
    fv: { tax_id: 'us_ssn' },
    keywords: ['form 1040', 'tax return', 'irs', 'federal income tax'],
  }),
  t({
    type: 'us_ein_letter', category: 'tax', countries: USA,
    labels: L('Carta de asignación de EIN del IRS', 'IRS EIN assignment letter (CP 575)', 'Carta de atribuição de EIN do IRS', 'Lettre d’attribution d’EIN de l’IRS'),
    descriptions: L(
      'Carta CP 575 o 147C del IRS que confirma el número de identificación de empleador (EIN) de una empresa.',
      'IRS notice CP 575 or letter 147C confirming a business’s employer identification number (EIN).',
      'Carta CP 575 ou 147C do IRS que confirma o número de identificação de empregador (EIN) de uma empresa.',
      'Avis CP 575 ou lettre 147C de l’IRS confirmant le numéro d’identification d’employeur (EIN) d’une entreprise.'),
    fields: ['company_name', ['company_tax_id', 'Número de identificación del empleador (EIN)'], 'registered_address', 'issue_date'],
    signature: false,
    keywords: ['ein', 'cp 575', '147c', 'employer identification number', 'fein', 'tax id letter'],
  }),
];
