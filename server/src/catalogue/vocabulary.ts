import { CHECK_CODES } from '../validators/types.ts';

/**
 * Closed vocabularies of the document type catalogue and the shape of one entry.
 *
 * Everything that names a category, a validator, a field scheme or a check in the catalogue data must come from
 * one of the constants below; the consistency test (test/unit/catalogue.test.ts) enforces it.
 */

export const LANGUAGES = ['es', 'en', 'pt', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** A text in each of the four API languages. */
export type Localized = Record<Language, string>;

/** The 15 categories, in the order of the specification (DocumentType.category). */
export const CATEGORIES = [
  'identity',
  'residence',
  'driving',
  'certificate',
  'health',
  'education',
  'employment',
  'tax',
  'finance',
  'address',
  'legal',
  'vehicle',
  'civil',
  'sports',
  'other',
] as const;
export type Category = (typeof CATEGORIES)[number];

/**
 * Names allowed in `validators`: the CheckResult codes of the specification plus the rule names listed as examples
 * in DocumentType.validators (not_expired, holder, age, aamva_barcode, id_number, pdf_signature, i9_list).
 */
export const VALIDATOR_NAMES = [
  ...CHECK_CODES,
  'not_expired',
  'holder',
  'age',
  'aamva_barcode',
  'id_number',
  'pdf_signature',
  'i9_list',
] as const;
export type ValidatorName = (typeof VALIDATOR_NAMES)[number];

/**
 * Schemes of `field_validators`: which deterministic rule checks the value of one field, and the CheckResult code
 * that rule reports (the same list and codes as `FIELD_SCHEMES` / `SCHEME_CODE` in server/src/validators; the
 * catalogue test keeps the two in step).
 */
export const FIELD_SCHEME_INFO = {
  es_dni: { code: 'nif_check_digit', description: 'Spanish DNI number: 8 digits and a control letter' },
  es_nie: { code: 'nif_check_digit', description: 'Spanish foreigner number (NIE): X/Y/Z, 7 digits and a control letter' },
  es_nif: { code: 'nif_check_digit', description: 'Spanish tax id of a person or a company (DNI, NIE, K/L/M or CIF forms)' },
  es_cif: { code: 'nif_check_digit', description: 'Spanish company tax id (former CIF): letter, 7 digits, control digit or letter' },
  es_csv: { code: 'csv_format', description: 'Spanish secure verification code (CSV) of an electronic document; format only' },
  es_ccc: { code: 'id_number_checksum', description: 'Spanish bank account code (CCC, 20 digits with two control digits)' },
  es_nss: { code: 'id_number_checksum', description: 'Spanish social security number (12 digits, mod 97)' },
  pt_nif: { code: 'id_number_checksum', description: 'Portuguese tax id (NIF/NIPC, 9 digits, mod 11)' },
  pt_cc: { code: 'id_number_checksum', description: 'Portuguese Citizen Card document number' },
  fr_nir: { code: 'id_number_checksum', description: 'French social security number (NIR, 13 digits and a 2-digit key)' },
  it_cf: { code: 'id_number_checksum', description: 'Italian fiscal code (codice fiscale, 16 characters)' },
  br_cpf: { code: 'id_number_checksum', description: 'Brazilian individual taxpayer number (CPF, 11 digits)' },
  br_cnpj: { code: 'id_number_checksum', description: 'Brazilian company number (CNPJ, 14 characters)' },
  us_ssn: { code: 'id_number_format', description: 'US Social Security number (format and reserved ranges)' },
  us_dl: { code: 'id_number_format', description: 'US driver licence / state ID number (per-state format)' },
  us_zip: { code: 'id_number_format', description: 'US ZIP or ZIP+4 code' },
  iban: { code: 'iban_checksum', description: 'IBAN (ISO 13616, mod 97)' },
  bic: { code: 'id_number_format', description: 'BIC / SWIFT code (ISO 9362); format only' },
  eu_vat: { code: 'id_number_checksum', description: 'EU VAT number with country prefix (formats and check digits)' },
} as const satisfies Record<string, { code: ValidatorName; description: string }>;
export type FieldScheme = keyof typeof FIELD_SCHEME_INFO;
export const FIELD_SCHEMES = Object.keys(FIELD_SCHEME_INFO) as FieldScheme[];

/** Schemes that identify a person or an organisation (they turn on the `id_number` validator). */
export const ID_NUMBER_SCHEMES: readonly FieldScheme[] = [
  'es_dni', 'es_nie', 'es_nif', 'es_cif', 'es_nss', 'pt_nif', 'pt_cc', 'fr_nir', 'it_cf', 'br_cpf', 'br_cnpj',
  'us_ssn', 'us_dl', 'eu_vat',
];
/** Schemes whose number encodes the birth date (`id_number_matches_birth_date`). */
export const BIRTH_DATE_SCHEMES: readonly FieldScheme[] = ['fr_nir', 'it_cf'];

/** The `checks` options of POST /v1/analyze, in the order of the specification. */
export const CHECK_NAMES = [
  'not_expired',
  'reference_date',
  'max_age_days',
  'min_age_years',
  'max_age_years',
  'holder',
  'require_fields',
  'require_signature',
  'require_stamp',
  'require_valid_signature',
  'expected_amount',
  'expected_iban',
  'expected_reference',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export const MRZ_FORMATS = ['TD1', 'TD2', 'TD3', 'any'] as const;
export type MrzFormat = (typeof MRZ_FORMATS)[number];

export const I9_LISTS = ['A', 'B', 'C'] as const;
export type I9List = (typeof I9_LISTS)[number];

/** Categories whose documents are checked for expiry by default when they carry an expiry date. */
export const EXPIRY_DEFAULT_CATEGORIES: readonly Category[] = ['identity', 'residence', 'driving'];

/** JSON Schema (draft 2020-12) of one extracted field. Descriptions are in Spanish: they guide extraction. */
export type FieldSchema = {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
  description: string;
  format?: 'date';
  enum?: readonly string[];
  items?: FieldSchema;
  properties?: Record<string, FieldSchema>;
};

export type ObjectSchema = {
  type: 'object';
  properties: Record<string, FieldSchema>;
};

export interface FieldValidator {
  field: string;
  scheme: FieldScheme;
}

/** One catalogue entry, as the server holds it. `toDocumentType` turns it into the public DocumentType. */
export interface CatalogueEntry {
  readonly type: string;
  readonly labels: Localized;
  readonly descriptions: Localized;
  readonly slugs: Localized;
  readonly category: Category;
  /** ISO 3166-1 alpha-3 codes, or exactly `['*']` for a universal type. */
  readonly countries: readonly string[];
  readonly fields: readonly string[];
  readonly schema: ObjectSchema;
  readonly validators: readonly ValidatorName[];
  readonly field_validators: readonly FieldValidator[];
  readonly checks: readonly CheckName[];
  readonly expiry_check_default: boolean;
  readonly mrz: MrzFormat | null;
  readonly signed_pdf: boolean;
  /**
   * True when the issuer normally delivers the document as a signed PDF, so that `signature_missing` is reported
   * even without `require_valid_signature`. Always implies `signed_pdf`.
   */
  readonly usually_signed: boolean;
  readonly i9_lists: readonly I9List[] | null;
  /** Common names, abbreviations and synonyms (any language), used by search only; not returned by the API. */
  readonly keywords: readonly string[];
  /** True when the type is a fallback (generic or unknown): a verdict on it carries `type_unknown`. */
  readonly generic: boolean;
}
