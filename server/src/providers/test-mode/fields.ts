/**
 * One field's value on a simulated document, by the field dictionary's name (and generic values for custom schemas).
 * Split out of document.ts, which builds the whole document from them.
 */

import { foldName } from '../../validators/index.ts';
import { addDays, ageYears, yymmdd } from './dates.ts';
import * as ids from './ids.ts';
import type { Lang } from './pools.ts';
import { Rng, UPPER } from './prng.ts';
import { Ctx } from './context.ts';
import { documentNumber, personIds, personalNumber } from './numbers.ts';
import { car, fullName, issuingAuthority, otherPerson, plate, supplier } from './texts.ts';
import { bankAccount, company, homeAddress, invoice, isProfessionalIssuer, money, payslip, vatRate } from './organisations.ts';

export function value(f: string, c: Ctx, v: Record<string, unknown>): unknown {
  const p = c.person;
  const d = c.dates;
  const t = c.type;
  const r = c.r(`field-${f}`);
  const hn = c.holderNumber;
  if (hn && hn.field === f) return hn.value;
  switch (f) {
    // ------------------------------------------------ person
    case 'full_name': return fullName(c);
    case 'first_name': return c.p(p.given);
    case 'last_name': return c.p(c.has('second_last_name') ? p.surnames[0] : p.surnames.join(' '));
    case 'second_last_name': return c.p(p.surnames.slice(1).join(' '));
    case 'birth_date': return d.birth_date;
    case 'birth_place': {
      const bp = p.birthPlace;
      if (p.nationality !== c.country && c.upper) return c.p(`${bp.city} (${p.nationality})`);
      return c.p(c.country === 'ESP' && c.upper ? `${bp.city} (${bp.region})` : bp.city);
    }
    case 'sex': return p.sex;
    case 'nationality': return p.nationality;
    case 'father_name': return c.entry.category === 'identity' || c.entry.category === 'residence' ? c.p(p.fatherGiven) : fullName(c, p.fatherGiven, p.fatherSurnames);
    case 'mother_name': return c.entry.category === 'identity' || c.entry.category === 'residence' ? c.p(p.motherGiven) : fullName(c, p.motherGiven, p.motherSurnames);
    case 'address': return c.p(homeAddress(c, !(c.has('city') || c.has('postal_code'))));
    case 'postal_code': return p.home.place.postal;
    case 'city': return c.p(p.home.place.city);
    case 'region': return c.p(p.home.place.region);
    case 'country': return c.country;
    case 'email': return `${foldName(p.given).split(' ')[0]}.${foldName(p.surnames[0]).replace(/\s/g, '')}@example.com`;
    case 'phone': return c.country === 'USA' ? `+1 ${r.int(201, 989)} ${r.digits(3)} ${r.digits(4)}` : `+34 6${r.digits(2)} ${r.digits(3)} ${r.digits(3)}`;
    // ------------------------------------------------ document
    case 'document_number': {
      const sc = c.scheme('document_number');
      if (sc && !['es_dni', 'es_nif', 'br_cpf', 'pt_cc', 'us_dl', 'us_ssn'].includes(sc)) return personalNumber(c, sc);
      return documentNumber(c);
    }
    case 'id_number': return personalNumber(c, c.scheme('id_number'));
    case 'support_number': return c.once('support', (rr) => rr.pick(['BAA', 'BAB', 'BAC', 'CAA', 'CAB']) + rr.digits(6));
    case 'can_number': return r.digits(6);
    case 'personal_number': {
      if (t === 'es_passport') return (v.id_number as string) ?? personIds(c).dni;
      return personIds(c).personal;
    }
    case 'issue_date': return d.issue_date;
    case 'expiry_date': return d.expiry_date;
    case 'issuing_authority': return issuingAuthority(c);
    case 'issuing_country': return t === 'us_foreign_passport_i94' ? p.nationality : c.country;
    case 'issue_place': return c.p(t === 'visa' ? p.birthPlace.city : p.home.place.city);
    case 'mrz': return ''; // built afterwards
    // The heading the document prints: its type's name in its language. An unidentified document prints no name of
    // the catalogue's ("Documento no identificado" is Cotejo's word for it, not a title): a plain heading instead.
    case 'document_title': return c.type === 'unknown_document' ? r.pick(UNIDENTIFIED_TITLES)[c.asked] : c.entry.labels[c.lang];
    case 'certificate_number': return `${c.r('cert').chars(3, UPPER)}-${yymmdd(d.issue_date).slice(0, 2)}-${r.digits(7)}`;
    case 'csv': return ids.csvCode(r, t.startsWith('es_aeat') || t.startsWith('es_modelo') ? 'aeat' : t.includes('social_security') || t === 'es_work_life_report' || t === 'es_pension_certificate' || t === 'es_company_certificate' ? 'seg_social' : 'admin');
    case 'reference': return t === 'es_land_registry_note' ? `Finca n.º ${r.int(1000, 99999)}` : `${r.chars(2, UPPER)}${yymmdd(d.issue_date).slice(0, 4)}${r.digits(6)}`;
    case 'concept': return c.t({ es: `Pago factura ${invoiceNumber(c)}`, pt: `Pagamento fatura ${invoiceNumber(c)}`, fr: `Paiement facture ${invoiceNumber(c)}`, en: `Payment invoice ${invoiceNumber(c)}` });
    case 'purpose': return purpose(c);
    case 'status': return status(c);
    case 'remarks': return remarks(c);
    // ------------------------------------------------ permits, residence, driving
    case 'permit_type': return c.p(permitType(c));
    case 'license_categories': return c.country === 'USA' ? ['C'] : t === 'br_cnh' ? ['B'] : p.birthDate > addDays(c.ref, -365 * 18) ? ['AM'] : r.chance(0.3) ? ['AM', 'A2', 'B'] : ['AM', 'B'];
    case 'restrictions': return c.country === 'USA' ? (r.chance(0.3) ? 'B' : 'NONE') : r.chance(0.3) ? '01' : c.t({ es: 'Sin restricciones', pt: 'Sem restrições', fr: 'Aucune', en: 'None' });
    case 'endorsements': return 'NONE';
    case 'visa_type': return 'C';
    case 'entries': return c.p(c.t({ es: 'Múltiples', pt: 'Múltiplas', fr: 'Multiples', en: 'Multiple' }));
    case 'admission_number': return r.digits(11);
    case 'admission_class': return 'B2';
    case 'admit_until_date': return d.admit_until_date;
    case 'uscis_number': return `${r.digits(3)}-${r.digits(3)}-${r.digits(3)}`;
    case 'category_code': return t === 'us_permanent_resident_card' ? 'IR1' : 'C09';
    case 'height': {
      if (c.country !== 'USA') return p.sex === 'F' ? `${r.int(152, 178)} cm` : `${r.int(164, 193)} cm`;
      const inches = p.sex === 'F' ? r.int(60, 70) : r.int(65, 76);
      return `${Math.floor(inches / 12)}'-${String(inches % 12).padStart(2, '0')}"`;
    }
    case 'eye_color': return r.pick(['BRO', 'BLU', 'GRN', 'HAZ']);
    case 'barcode_data': return ''; // built afterwards
    // ------------------------------------------------ organisations and parties
    case 'issuer_name':
      if (c.has('supply_type')) return supplier(c)[0];
      if (t === 'vaccination_certificate') return c.t({ es: `Servicio de Salud (${p.home.place.region})`, pt: 'Serviço Nacional de Saúde', fr: 'Assurance Maladie', en: 'National Health Service' });
      return company(c, 'issuer', isProfessionalIssuer(c)).name;
    case 'issuer_tax_id': return company(c, 'issuer', isProfessionalIssuer(c)).taxId;
    case 'issuer_address': return company(c, 'issuer', isProfessionalIssuer(c)).address;
    // A professional's invoice (IRPF withheld) goes to a business; other invoices to the person.
    case 'customer_name': return isProfessionalIssuer(c) ? company(c, 'customer').name : fullName(c);
    case 'customer_tax_id': return isProfessionalIssuer(c) ? company(c, 'customer').taxId : personalNumber(c, c.scheme('customer_tax_id'));
    case 'customer_address': return isProfessionalIssuer(c) ? company(c, 'customer').address : homeAddress(c, true);
    case 'employer_name': return company(c, 'employer').name;
    case 'employer_tax_id': return c.country === 'FRA' ? ids.siret(company(c, 'employer').taxId, r) : company(c, 'employer').taxId;
    case 'company_name': return company(c, 'company').name;
    case 'company_tax_id': return company(c, 'company').taxId;
    case 'legal_form': return company(c, 'company').legalForm;
    case 'registered_address': return company(c, 'company').address;
    case 'incorporation_date': return d.incorporation_date;
    case 'representatives': return [`${fullName(c)} (${c.t({ es: 'Administrador único', pt: 'Gerente', fr: 'Gérant', en: 'Director' })})`];
    case 'landlord_name': return otherPerson(c, 'landlord');
    case 'property_address': return c.p(homeAddress(c, true));
    case 'grantor_name': return fullName(c);
    case 'attorney_name': return otherPerson(c, 'attorney');
    case 'notary_name': return otherPerson(c, 'notary');
    case 'protocol_number': return String(r.int(120, 3400));
    case 'deed_type': return r.pick(['Compraventa', 'Préstamo hipotecario', 'Constitución de sociedad', 'Aceptación de herencia']);
    case 'parties': return [fullName(c), otherPerson(c, 'party')];
    // ------------------------------------------------ finance
    case 'iban': return bankAccount(c).ibanPrinted;
    case 'bic': return bankAccount(c).bic;
    case 'account_number': return bankAccount(c).national;
    case 'bank_name': return bankAccount(c).bank.name;
    case 'invoice_number': return invoiceNumber(c);
    case 'due_date': return d.due_date;
    case 'payment_date': return d.payment_date;
    case 'payment_method': return t === 'es_simplified_invoice' ? c.t({ es: 'Tarjeta', pt: 'Cartão', fr: 'Carte bancaire', en: 'Card' }) : c.t({ es: 'Transferencia bancaria', pt: 'Transferência bancária', fr: 'Virement bancaire', en: 'Bank transfer' });
    case 'tax_base': return c.has('line_items') ? invoice(c).base : taxForm(c).base;
    case 'tax_rate': return c.has('line_items') ? invoice(c).rate : vatRate(c);
    case 'tax_amount': return c.has('line_items') ? invoice(c).vat : taxForm(c).vat;
    case 'withholding_amount': return c.has('line_items') ? invoice(c).withholding : c.has('gross_pay') ? payslip(c).withholding : taxForm(c).withholding;
    case 'total_amount': return c.has('line_items') ? invoice(c).total : t === 'es_notarial_deed' || t === 'contract' ? money(r.int(60_000, 40_000_000)) : money(r.int(3500, 18500));
    case 'amount': return amount(c, r);
    case 'currency': return c.country === 'BRA' ? 'BRL' : c.country === 'USA' ? 'USD' : c.country === 'GBR' ? 'GBP' : 'EUR';
    case 'line_items': return invoice(c).lines.map((l) => ({ ...l }));
    case 'opening_balance': return c.once('balance', (rr) => money(rr.int(50_000, 1_500_000)));
    case 'closing_balance': return money(Math.round((c.once('balance', (rr) => money(rr.int(50_000, 1_500_000))) as number) * 100) + r.int(-40_000, 60_000));
    case 'period_start_date': return d.period_start_date;
    case 'period_end_date': return d.period_end_date;
    case 'payer_name': return fullName(c);
    case 'payee_name': return company(c, 'payee').name;
    // ------------------------------------------------ employment
    case 'social_security_number': {
      const sc = c.scheme('social_security_number');
      if (sc === 'es_nss' || (!sc && c.country === 'ESP')) return c.once('nss', (rr) => ids.esNss(rr, p.home.place.postal.slice(0, 2)));
      if (sc === 'fr_nir' || c.country === 'FRA') return personIds(c).nir;
      if (c.country === 'PRT') return personIds(c).niss;
      if (c.country === 'USA') return personIds(c).ssn;
      return r.digits(11);
    }
    case 'job_title': return t === 'us_military_id' ? 'SERGEANT (E-5)' : r.pick(JOBS[c.lang]);
    case 'contract_type': return r.pick(CONTRACTS[c.lang]);
    case 'start_date': return d.start_date;
    case 'end_date': return d.end_date;
    case 'gross_pay': return t.includes('payslip') ? payslip(c).gross : money(r.int(1_800_000, 6_000_000));
    case 'net_pay': return payslip(c).net;
    case 'social_security_contributions': return payslip(c).ss;
    case 'total_days_contributed': return Math.max(30, Math.min(ageYears(p.birthDate, c.ref) - 17, 45) * r.int(250, 340));
    case 'employment_periods': return [
      `${company(c, 'past').name} - ${d.start_date > addDays(c.ref, -3000) ? addDays(d.start_date, -2200) : addDays(d.start_date, -900)} - ${addDays(d.start_date, -30)}`,
      `${company(c, 'employer').name} - ${d.start_date} - `,
    ].map((x) => x.trim().replace(/ -$/, ''));
    case 'benefit_type': return benefit(c);
    case 'monthly_amount': return money(r.int(60_000, 240_000));
    // ------------------------------------------------ tax
    case 'tax_id': return personalNumber(c, c.scheme('tax_id'));
    case 'tax_year': return d.tax_year;
    case 'tax_period': return d.tax_period;
    case 'form_code': return formCode(c);
    case 'gross_income': return taxForm(c).gross;
    case 'taxable_income': return taxForm(c).taxable;
    case 'result_amount': return taxForm(c).result;
    case 'filing_date': return d.filing_date;
    case 'submission_number': return r.digits(13);
    case 'tax_domicile': return homeAddress(c, true);
    case 'economic_activity': return c.t({ es: 'IAE 763 - Programadores y analistas de informática', pt: 'CAE 62010 - Programação informática', fr: 'APE 6201Z - Programmation informatique', en: 'NAICS 541511 - Custom computer programming' });
    // ------------------------------------------------ education
    case 'institution_name': return institution(c);
    case 'qualification': return qualification(c);
    case 'field_of_study': return c.t({ es: 'Administración y Dirección de Empresas', pt: 'Gestão de Empresas', fr: 'Gestion des entreprises', en: 'Business Administration' });
    case 'grade': return c.lang === 'es' ? `Notable (${(r.int(700, 899) / 100).toFixed(2).replace('.', ',')})` : (r.int(140, 180) / 10).toFixed(1);
    case 'completion_date': return d.completion_date;
    case 'academic_year': return d.academic_year;
    case 'registry_number': return `${yymmdd(d.issue_date).slice(0, 2)}/${r.digits(6)}`;
    case 'level': return 'B2';
    // ------------------------------------------------ health
    case 'patient_name': return fullName(c);
    case 'doctor_name': return otherPerson(c, 'doctor');
    case 'doctor_license_number': return `${p.home.place.postal.slice(0, 2)}${r.digits(7)}`;
    case 'health_card_number': return healthCard(c, r);
    case 'insurer_name': return insurer(c);
    case 'diagnosis': return c.t({ es: 'Lumbalgia mecánica', pt: 'Lombalgia mecânica', fr: 'Lombalgie commune', en: 'Mechanical low back pain' });
    case 'medical_findings': return c.t({ es: 'No padece enfermedad ni defecto físico o psíquico que le impida el ejercicio de la actividad', pt: 'Apto, sem doença que impeça a atividade', fr: 'Aucune contre-indication', en: 'Fit, no condition preventing the activity' });
    case 'fit_for_sport': return true;
    case 'disability_degree': return r.int(33, 65);
    case 'vaccine_name': return r.pick(['Comirnaty (Pfizer-BioNTech)', 'Vaxigrip Tetra', 'Boostrix (dTpa)', 'Engerix-B (hepatitis B)']);
    case 'vaccination_date': return d.vaccination_date;
    case 'leave_start_date': return d.leave_start_date;
    case 'has_records': return false;
    // ------------------------------------------------ civil
    case 'event_date': return d.event_date;
    case 'event_place': return c.p(t.includes('death') ? p.home.place.city : t.includes('marriage') ? p.home.place.city : p.birthPlace.city);
    case 'civil_registry': return c.t({ es: `Registro Civil de ${p.birthPlace.city}`, pt: `Conservatória do Registo Civil de ${p.birthPlace.city}`, fr: `Mairie de ${p.birthPlace.city}`, en: `${p.birthPlace.city} Vital Records Office` });
    case 'registry_entry': return c.t({ es: `Tomo ${r.int(10, 400)}, página ${r.int(1, 300)}, sección ${r.pick(['1ª', '2ª', '3ª'])}`, pt: `Assento n.º ${r.int(100, 3000)} de ${d.event_date.slice(0, 4)}`, fr: `Acte n° ${r.int(100, 3000)}`, en: `Certificate No. ${r.digits(3)}-${d.event_date.slice(0, 4)}-${r.digits(6)}` });
    case 'spouse_name': return otherPerson(c, 'spouse');
    case 'children': return [`${otherPerson(c, 'child')} (${addDays(d.marriage_date, 700)})`];
    case 'marriage_date': return d.marriage_date;
    case 'death_date': return d.death_date;
    // ------------------------------------------------ address
    case 'registration_date': return d.registration_date;
    case 'household_members': return [fullName(c), otherPerson(c, 'household')];
    case 'supply_address': return homeAddress(c, true);
    case 'supply_type': return supplier(c)[1];
    // ------------------------------------------------ vehicles
    case 'plate_number': return plate(c);
    case 'vin': return c.once('vin', (rr) => ids.vin(rr, car(c)[2]));
    case 'make': return car(c)[0];
    case 'model': return car(c)[1];
    case 'vehicle_category': return 'M1';
    case 'first_registration_date': return d.first_registration_date;
    case 'fuel_type': return c.t({ es: 'Gasolina', pt: 'Gasolina', fr: 'Essence', en: 'Petrol' });
    case 'engine_capacity': return car(c)[3];
    case 'power_kw': return car(c)[4];
    case 'seats': return 5;
    case 'inspection_expiry_date': return d.inspection_expiry_date;
    case 'policy_number': return `${r.chars(2, UPPER)}-${r.digits(9)}`;
    case 'coverage': return c.t({ es: 'Todo riesgo con franquicia', pt: 'Danos próprios', fr: 'Tous risques', en: 'Comprehensive' });
    // ------------------------------------------------ sports
    case 'sport': return c.t({ es: 'Fútbol', pt: 'Futebol', fr: 'Football', en: 'Football' });
    case 'federation_name': return c.t({ es: `Federación de Fútbol de ${p.home.place.region}`, pt: 'Federação Portuguesa de Futebol', fr: 'Fédération Française de Football', en: 'National Football Federation' });
    case 'club_name': return c.t({ es: `Club Deportivo ${p.home.place.city}`, pt: `Clube Desportivo de ${p.home.place.city}`, fr: `Football Club de ${p.home.place.city}`, en: `${p.home.place.city} Football Club` });
    case 'season': return d.season;
    case 'license_number': return `${p.home.place.postal.slice(0, 2)}-${r.digits(7)}`;
    default:
      return genericValue(f, c.entry.schema.properties[f]?.type ?? 'string', r, c);
  }
}

/** A value for a field outside the dictionary (custom extraction schemas), from its JSON Schema type. */
export function genericValue(_name: string, type: string, r: Rng, c: { ref: string }): unknown {
  switch (type) {
    case 'number': return r.float(10, 1000, 2);
    case 'integer': return r.int(1, 100);
    case 'boolean': return true;
    case 'array': return [];
    case 'object': return {};
    default: return `${r.chars(3, UPPER)}-${r.digits(6)}`;
  }
}

/** Headings of documents that fit no type of the catalogue (a notice, a receipt...), the same one in every language. */
const UNIDENTIFIED_TITLES: ReadonlyArray<Record<Lang, string>> = [
  { es: 'Comunicación', en: 'Notice', pt: 'Comunicação', fr: 'Avis' },
  { es: 'Justificante', en: 'Receipt', pt: 'Comprovativo', fr: 'Justificatif' },
  { es: 'Notificación', en: 'Notification', pt: 'Notificação', fr: 'Notification' },
  { es: 'Resguardo', en: 'Acknowledgement of receipt', pt: 'Recibo de entrega', fr: 'Récépissé' },
];

const JOBS: Record<Lang, readonly string[]> = {
  es: ['Técnico de sistemas', 'Administrativo', 'Dependiente', 'Ingeniero de software', 'Enfermero', 'Jefe de ventas'],
  pt: ['Técnico de informática', 'Administrativo', 'Engenheiro de software', 'Enfermeiro', 'Assistente comercial'],
  fr: ['Technicien informatique', 'Employé administratif', 'Ingénieur logiciel', 'Infirmier', 'Commercial'],
  en: ['Systems technician', 'Administrative assistant', 'Software engineer', 'Nurse', 'Sales manager'],
};

const CONTRACTS: Record<Lang, readonly string[]> = {
  es: ['Indefinido a tiempo completo', 'Temporal a tiempo completo', 'Indefinido a tiempo parcial'],
  pt: ['Contrato sem termo', 'Contrato a termo certo'],
  fr: ['CDI', 'CDD'],
  en: ['Permanent full-time', 'Fixed-term full-time'],
};

function invoiceNumber(c: Ctx): string {
  return c.once('invoice-number', (r) => `${r.pick(['F', 'FA', 'A'])}${c.dates.issue_date.slice(0, 4)}-${String(r.int(1, 999)).padStart(4, '0')}`);
}

function amount(c: Ctx, r: Rng): number {
  switch (c.type) {
    case 'es_lease_agreement': case 'lease_agreement': return money(r.int(55, 160) * 1000);
    case 'vehicle_insurance': case 'es_vehicle_insurance': return money(r.int(24_000, 95_000));
    case 'es_self_employed_receipt': return money(r.pick([8_000, 23_000, 29_400, 31_500, 38_400]));
    default: return money(r.int(2_000, 250_000));
  }
}

function purpose(c: Ctx): string {
  const m: Record<string, string> = {
    es_criminal_record_certificate: 'A petición del interesado',
    es_aeat_tax_compliance_certificate: 'Contratación con el sector público (art. 71 LCSP)',
    es_aeat_tax_residence_certificate: 'Acreditar la residencia fiscal en España a efectos del convenio para evitar la doble imposición',
    es_nie_certificate: 'Por intereses económicos',
    es_official_medical_certificate: 'Obtención o renovación del permiso de conducir',
    pt_criminal_record_certificate: 'Fins de emprego',
  };
  return m[c.type] ?? c.t({ es: 'A petición del interesado', pt: 'A pedido do interessado', fr: "À la demande de l'intéressé", en: 'At the request of the holder' });
}

function status(c: Ctx): string {
  const t = c.type;
  if (t === 'es_aeat_tax_compliance_certificate' || t === 'es_social_security_clearance_certificate') return 'Al corriente de sus obligaciones';
  if (t === 'es_aeat_census_certificate') return 'Alta en el Censo de Empresarios, Profesionales y Retenedores';
  if (t === 'es_job_seeker_registration') return 'Demandante de empleo en alta';
  if (t === 'es_sepe_certificate') return 'Prestación reconocida';
  if (t === 'es_large_family_title') return 'Categoría general';
  if (t === 'pt_tax_clearance_certificate') return 'Situação tributária regularizada';
  if (t === 'br_cpf') return 'REGULAR';
  if (t === 'br_cnpj_card') return 'ATIVA';
  if (t === 'us_form_i9') return 'A citizen of the United States';
  return c.t({ es: 'Vigente', pt: 'Válido', fr: 'Valide', en: 'Valid' });
}

function remarks(c: Ctx): string {
  const t = c.type;
  if (t === 'es_tie' || t === 'pt_residence_permit' || t === 'fr_residence_permit' || t === 'it_residence_permit' || t === 'residence_permit') {
    return c.p(c.t({ es: 'Autoriza a trabajar', pt: 'Autoriza o exercício de atividade profissional', fr: 'Autorise son titulaire à travailler', en: 'Work permitted' }));
  }
  if (t === 'us_military_dependent_id') return 'SPONSOR: ACTIVE DUTY';
  if (t === 'visa') return c.p(c.t({ es: 'Turismo', pt: 'Turismo', fr: 'Tourisme', en: 'Tourism' }));
  return c.t({ es: 'Sin observaciones', pt: 'Sem observações', fr: 'Néant', en: 'None' });
}

function permitType(c: Ctx): string {
  switch (c.type) {
    case 'es_tie': return 'Residencia de larga duración';
    case 'es_eu_family_residence_card': return 'Residencia de familiar de ciudadano de la Unión';
    case 'pt_residence_permit': return 'Autorização de residência temporária';
    case 'fr_residence_permit': return 'Carte de séjour pluriannuelle - salarié';
    case 'it_residence_permit': return 'Permesso di soggiorno per lavoro subordinato';
    case 'br_crnm': return 'Residência temporária';
    default: return c.t({ es: 'Residencia temporal y trabajo', pt: 'Residência temporária', fr: 'Titre de séjour temporaire', en: 'Temporary residence' });
  }
}

function benefit(c: Ctx): string {
  if (c.type === 'es_pension_certificate') return 'Pensión de jubilación';
  if (c.type === 'es_sepe_certificate') return 'Prestación contributiva por desempleo';
  return c.t({ es: 'Prestación', pt: 'Prestação', fr: 'Allocation', en: 'Benefit' });
}

function formCode(c: Ctx): string {
  const m = /^es_modelo_(\d{3})$/.exec(c.type);
  if (m) return m[1];
  return ({ us_form_1040: '1040', pt_irs_statement: 'Modelo 3', tax_return: c.t({ es: '100', pt: 'Modelo 3', fr: '2042', en: '1040' }) } as Record<string, string>)[c.type] ?? '100';
}

interface TaxFigures {
  gross: number;
  taxable: number;
  base: number;
  vat: number;
  withholding: number;
  result: number;
}

/** Coherent figures of tax forms and certificates (taxable <= gross, VAT = base x rate, result from them). */
function taxForm(c: Ctx): TaxFigures {
  return c.once('tax', (r) => {
    const t = c.type;
    const quarterly = t === 'es_modelo_303' || t === 'es_modelo_130' || t === 'es_modelo_111';
    const gross = r.int(quarterly ? 800_000 : 1_800_000, quarterly ? 4_000_000 : 7_500_000);
    const taxable = Math.round(gross * (r.int(70, 92) / 100));
    const base = t === 'es_modelo_390' ? r.int(4_000_000, 16_000_000) : r.int(1_000_000, 4_000_000);
    const vat = Math.round((base * vatRate(c)) / 100);
    const withholding = Math.round((gross * r.int(8, 18)) / 100);
    let result: number;
    if (t === 'es_modelo_303' || t === 'es_modelo_390') result = vat - Math.round(vat * (r.int(30, 75) / 100));
    else if (t === 'es_modelo_111' || t === 'es_modelo_190') result = withholding;
    else if (t === 'es_modelo_130') result = Math.round((taxable * 20) / 100);
    else if (t === 'es_modelo_200') result = Math.round((taxable * 25) / 100) - r.int(0, Math.round(taxable * 0.1));
    else result = r.chance(0.6) ? -r.int(10_000, 180_000) : r.int(10_000, 250_000);
    const vatOut = t === 'es_modelo_200' ? Math.round((taxable * 25) / 100) : vat;
    return { gross: money(gross), taxable: money(taxable), base: money(base), vat: money(vatOut), withholding: money(withholding), result: money(result) };
  });
}

function institution(c: Ctx): string {
  const city = c.person.home.place.city;
  switch (c.type) {
    case 'es_university_degree': case 'es_academic_transcript': case 'es_enrollment_certificate': return `Universidad de ${city}`;
    case 'es_eso_title': case 'es_bachillerato_title': return `IES ${c.r('ies').pick(['Cervantes', 'Ramiro de Maeztu', 'Lope de Vega', 'Isabel la Católica'])} (${city})`;
    case 'es_vocational_training_title': return `IES Politécnico de ${city}`;
    case 'es_medical_report': return `Hospital Universitario de ${city}`;
    case 'language_certificate': return c.t({ es: `Escuela Oficial de Idiomas de ${city}`, pt: 'Cambridge Assessment English', fr: 'Alliance Française', en: 'Cambridge Assessment English' });
    case 'us_school_id': return `${city} High School`;
    default: return c.t({ es: `Universidad de ${city}`, pt: `Universidade de ${city}`, fr: `Université de ${city}`, en: `University of ${city}` });
  }
}

function qualification(c: Ctx): string {
  switch (c.type) {
    case 'es_eso_title': return 'Graduado en Educación Secundaria Obligatoria';
    case 'es_bachillerato_title': return 'Bachiller';
    case 'es_vocational_training_title': return 'Técnico Superior en Desarrollo de Aplicaciones Web';
    case 'language_certificate': return c.t({ es: 'Certificado de Nivel Intermedio B2 de inglés', pt: 'B2 First', fr: 'DELF B2', en: 'B2 First' });
    default: return c.t({ es: 'Graduado en Administración y Dirección de Empresas', pt: 'Licenciatura em Gestão', fr: 'Licence Économie et Gestion', en: 'Bachelor of Business Administration' });
  }
}

function healthCard(c: Ctx, r: Rng): string {
  switch (c.country) {
    case 'ESP': return `${r.chars(4, UPPER)}${r.digits(12)}`;
    case 'PRT': return r.digits(9);
    case 'ITA': return '80380' + r.digits(15);
    case 'FRA': return personIds(c).nir;
    default: return r.digits(20);
  }
}

function insurer(c: Ctx): string {
  if (c.type === 'es_health_card') return `Servicio de Salud (${c.person.home.place.region})`;
  const m: Record<string, string> = {
    ESP: c.type.includes('vehicle') ? 'Mapfre España, S.A.' : 'Instituto Nacional de la Seguridad Social', PRT: 'Serviço Nacional de Saúde',
    FRA: `CPAM de ${c.person.home.place.city}`, ITA: 'Servizio Sanitario Nazionale', DEU: 'AOK', AUT: 'ÖGK', BEL: 'Mutualité Chrétienne', NLD: 'Zilveren Kruis',
  };
  return m[c.country] ?? 'National Health Insurance';
}
