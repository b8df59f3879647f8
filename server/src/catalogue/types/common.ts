/** Field lists shared by several data files. */
import type { FieldSpec } from '../define.ts';

/** Visual zone of an ID card or passport data page. */
export const PERSON_ID: readonly FieldSpec[] = [
  'document_number', 'last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'birth_place',
  'issue_date', 'expiry_date', 'issuing_authority',
];
/** Passport data page (TD3 MRZ). */
export const PASSPORT: readonly FieldSpec[] = [
  'document_number', 'last_name', 'first_name', 'nationality', 'birth_date', 'birth_place', 'sex',
  'issue_date', 'expiry_date', 'issuing_authority', 'issuing_country', 'personal_number', 'mrz',
];
/** ID card with both sides (TD1 MRZ on the back). */
export const ID_CARD_TD1: readonly FieldSpec[] = [
  'document_number', 'last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'birth_place',
  'issue_date', 'expiry_date', 'issuing_authority', 'address', 'personal_number', 'mrz',
];
/** Driving licence in the EU card model (fields 1 to 12). */
export const EU_DRIVING: readonly FieldSpec[] = [
  'last_name', 'first_name', 'birth_date', 'birth_place', 'issue_date', 'expiry_date', 'issuing_authority',
  'document_number', 'license_categories', 'restrictions',
];
/** Residence permit card (TD1 MRZ). */
export const RESIDENCE_TD1: readonly FieldSpec[] = [
  'document_number', 'last_name', 'first_name', 'sex', 'nationality', 'birth_date', 'permit_type',
  'issue_date', 'expiry_date', 'issuing_authority', 'remarks', 'mrz',
];
/** Invoice. */
export const INVOICE: readonly FieldSpec[] = [
  'invoice_number', 'issue_date', 'issuer_name', 'issuer_tax_id', 'issuer_address', 'customer_name',
  'customer_tax_id', 'customer_address', 'line_items', 'tax_base', 'tax_rate', 'tax_amount', 'withholding_amount',
  'total_amount', 'currency', 'due_date', 'payment_method', 'iban',
];
/** Payment receipt or transfer proof. */
export const PAYMENT: readonly FieldSpec[] = [
  'payment_date', 'amount', 'currency', 'payer_name', 'payee_name', 'concept', 'reference', 'payment_method', 'iban',
  'bank_name', ['issue_date', 'Fecha de emisión del justificante'],
];
/** Utility bill used as proof of address. */
export const UTILITY_BILL: readonly FieldSpec[] = [
  ['full_name', 'Nombre completo del titular del contrato de suministro'], 'supply_address', 'address',
  'postal_code', 'city', 'supply_type', 'issuer_name', 'invoice_number', 'issue_date', 'period_start_date',
  'period_end_date', 'total_amount', 'currency', 'iban',
];
/** Payslip. */
export const PAYSLIP: readonly FieldSpec[] = [
  ['full_name', 'Nombre completo del trabajador'], 'id_number', 'social_security_number', 'employer_name',
  'employer_tax_id', 'job_title', 'period_start_date', 'period_end_date', 'gross_pay',
  'social_security_contributions', 'withholding_amount', 'net_pay', 'iban', 'issue_date',
];
/** Employment contract. */
export const EMPLOYMENT_CONTRACT: readonly FieldSpec[] = [
  ['full_name', 'Nombre completo del trabajador'], 'id_number', 'employer_name', 'employer_tax_id', 'contract_type',
  'job_title', 'start_date', 'end_date', 'gross_pay', 'issue_date',
];
/** Residential lease. */
export const LEASE: readonly FieldSpec[] = [
  ['full_name', 'Nombre completo del arrendatario (inquilino)'], 'id_number', 'landlord_name', 'property_address',
  'start_date', 'end_date', ['amount', 'Importe de la renta mensual pactada'], 'currency', 'iban', 'issue_date',
];
/** Bank statement. */
export const BANK_STATEMENT: readonly FieldSpec[] = [
  ['full_name', 'Nombre completo del titular de la cuenta'], 'bank_name', 'iban', 'bic', 'account_number',
  'period_start_date', 'period_end_date', 'opening_balance', 'closing_balance', 'currency', 'issue_date',
];
/** Certificate of account ownership. */
export const BANK_CERTIFICATE: readonly FieldSpec[] = [
  ['full_name', 'Nombre completo o razón social del titular de la cuenta'], 'id_number', 'bank_name', 'iban', 'bic',
  'account_number', 'issue_date',
];
/** Civil registry certificate. */
export const CIVIL_CERT: readonly FieldSpec[] = [
  'full_name', 'birth_date', 'event_date', 'event_place', 'civil_registry', 'registry_entry', 'issue_date',
];
/** Vehicle registration. */
export const VEHICLE_REG: readonly FieldSpec[] = [
  'plate_number', 'vin', 'make', 'model', 'vehicle_category', ['full_name', 'Nombre completo o razón social del titular del vehículo'],
  'id_number', 'address', 'first_registration_date', 'issue_date',
];
/** Medical certificate. */
export const MEDICAL_CERT: readonly FieldSpec[] = [
  ['full_name', 'Nombre completo de la persona examinada'], 'id_number', 'birth_date', 'doctor_name',
  'doctor_license_number', 'medical_findings', 'purpose', 'issue_date', 'issue_place',
];
