/**
 * Builds a CatalogueEntry from a compact type definition. The rules that tie checks, validators and defaults to
 * the extracted fields live here, once, so the data files only say what is specific to each type.
 */
import { FIELD_DICTIONARY } from './fields.ts';
import { slugify } from './text.ts';
import {
  BIRTH_DATE_SCHEMES,
  CHECK_NAMES,
  EXPIRY_DEFAULT_CATEGORIES,
  FIELD_SCHEME_INFO,
  ID_NUMBER_SCHEMES,
  LANGUAGES,
  VALIDATOR_NAMES,
  type CatalogueEntry,
  type Category,
  type CheckName,
  type FieldSchema,
  type FieldScheme,
  type FieldValidator,
  type I9List,
  type Localized,
  type MrzFormat,
  type ValidatorName,
} from './vocabulary.ts';

/** A field of a type: a dictionary name, or `[name, Spanish description specific to this type]`. */
export type FieldSpec = string | readonly [string, string];

export interface TypeDef {
  type: string;
  category: Category;
  countries: readonly string[];
  labels: Localized;
  descriptions: Localized;
  /** Slugs default to the slugified label of each language; override here when the label makes a poor slug. */
  slugs?: Partial<Localized>;
  fields: readonly FieldSpec[];
  /** Field validators beyond the automatic ones (`iban`, `bic`, `csv` -> es_csv). */
  fv?: Readonly<Record<string, FieldScheme>>;
  /** Validators beyond the derived ones (typically `aamva_barcode`, `aamva_matches_visual`). */
  validators?: readonly ValidatorName[];
  mrz?: MrzFormat | null;
  signed_pdf?: boolean;
  /** Defaults to `signed_pdf`. */
  usually_signed?: boolean;
  /** Whether `require_signature` applies; defaults by category (see SIGNATURE_CATEGORIES). */
  signature?: boolean;
  /** Whether `require_stamp` applies; defaults by category (see STAMP_CATEGORIES). */
  stamp?: boolean;
  i9?: readonly I9List[];
  keywords?: readonly string[];
  generic?: boolean;
}

/** Categories whose documents are normally signed by the issuer or the parties (`require_signature` applies). */
export const SIGNATURE_CATEGORIES: readonly Category[] = [
  'certificate', 'health', 'education', 'employment', 'tax', 'legal', 'civil', 'sports',
];
/** Categories whose documents normally carry an official or company stamp (`require_stamp` applies). */
export const STAMP_CATEGORIES: readonly Category[] = [
  'certificate', 'health', 'education', 'employment', 'legal', 'civil', 'sports',
];

/** Fields that identify the holder (the `holder` check and validator apply when one is present). */
export const HOLDER_FIELDS = ['full_name', 'first_name', 'last_name', 'document_number', 'id_number'] as const;
/** Fields that carry the amount compared by `expected_amount`. */
export const AMOUNT_FIELDS = ['total_amount', 'amount'] as const;
/** Fields searched by `expected_reference`. */
export const REFERENCE_FIELDS = ['reference', 'concept'] as const;

const AUTO_SCHEMES: Record<string, FieldScheme> = { iban: 'iban', bic: 'bic', csv: 'es_csv' };

function fieldSchema(spec: FieldSpec, type: string): [string, FieldSchema] {
  const [name, description] = typeof spec === 'string' ? [spec, undefined] : spec;
  const base = FIELD_DICTIONARY[name];
  if (!base) throw new Error(`catalogue: ${type}: field ${name} is not in the field dictionary`);
  return [name, description ? { ...base, description } : base];
}

function ordered<T extends string>(vocabulary: readonly T[], set: Set<T>): T[] {
  return vocabulary.filter((v) => set.has(v));
}

export function defineType(def: TypeDef): CatalogueEntry {
  const properties: Record<string, FieldSchema> = {};
  const fields: string[] = [];
  for (const spec of def.fields) {
    const [name, schema] = fieldSchema(spec, def.type);
    if (properties[name]) throw new Error(`catalogue: ${def.type}: field ${name} listed twice`);
    properties[name] = schema;
    fields.push(name);
  }
  const has = (f: string) => fields.includes(f);

  // Field validators: automatic ones, then the type's own, in field order.
  const schemes: Record<string, FieldScheme> = {};
  for (const f of fields) if (AUTO_SCHEMES[f]) schemes[f] = AUTO_SCHEMES[f];
  for (const [f, scheme] of Object.entries(def.fv ?? {})) {
    if (!has(f)) throw new Error(`catalogue: ${def.type}: field validator on missing field ${f}`);
    if (!(scheme in FIELD_SCHEME_INFO)) throw new Error(`catalogue: ${def.type}: unknown scheme ${scheme}`);
    schemes[f] = scheme;
  }
  const field_validators: FieldValidator[] = fields.filter((f) => schemes[f]).map((f) => ({ field: f, scheme: schemes[f] }));
  const usedSchemes = new Set(field_validators.map((v) => v.scheme));

  const signed_pdf = def.signed_pdf ?? false;
  const usually_signed = def.usually_signed ?? signed_pdf;
  const mrz = def.mrz ?? null;
  if (has('mrz') !== (mrz !== null)) throw new Error(`catalogue: ${def.type}: mrz format and mrz field disagree`);
  const holder = HOLDER_FIELDS.some(has);
  const dateFields = fields.filter((f) => properties[f].format === 'date');

  // Checks: each applies only when the type has the field it reads.
  const checks = new Set<CheckName>();
  if (has('expiry_date')) checks.add('not_expired');
  if (has('issue_date')) checks.add('max_age_days');
  if (has('birth_date')) {
    checks.add('min_age_years');
    checks.add('max_age_years');
  }
  if (checks.size > 0) checks.add('reference_date');
  if (holder) checks.add('holder');
  if (fields.length > 0) checks.add('require_fields');
  if (def.signature ?? SIGNATURE_CATEGORIES.includes(def.category)) checks.add('require_signature');
  if (def.stamp ?? STAMP_CATEGORIES.includes(def.category)) checks.add('require_stamp');
  if (signed_pdf) checks.add('require_valid_signature');
  if (AMOUNT_FIELDS.some(has)) checks.add('expected_amount');
  if (has('iban')) checks.add('expected_iban');
  if (REFERENCE_FIELDS.some(has)) checks.add('expected_reference');

  // Validators: derived from fields and schemes, plus the type's own.
  const validators = new Set<ValidatorName>(def.validators ?? []);
  if (mrz) {
    validators.add('mrz_checksums');
    validators.add('mrz_matches_visual');
  }
  if (has('line_items') || (has('tax_base') && has('tax_amount') && has('total_amount'))) validators.add('invoice_totals');
  if (dateFields.length >= 2) validators.add('date_consistency');
  for (const scheme of usedSchemes) validators.add(FIELD_SCHEME_INFO[scheme].code);
  if ([...usedSchemes].some((sc) => ID_NUMBER_SCHEMES.includes(sc))) validators.add('id_number');
  if (has('birth_date') && [...usedSchemes].some((sc) => BIRTH_DATE_SCHEMES.includes(sc))) {
    validators.add('id_number_matches_birth_date');
  }
  if (has('expiry_date')) validators.add('not_expired');
  if (holder) validators.add('holder');
  if (has('birth_date')) validators.add('age');
  if (signed_pdf) validators.add('pdf_signature');
  if (def.i9) validators.add('i9_list');

  const slugs = {} as Localized;
  for (const lang of LANGUAGES) slugs[lang] = def.slugs?.[lang] ?? slugify(def.labels[lang]);

  const entry: CatalogueEntry = {
    type: def.type,
    labels: def.labels,
    descriptions: def.descriptions,
    slugs,
    category: def.category,
    countries: def.countries,
    fields,
    schema: { type: 'object', properties },
    validators: ordered(VALIDATOR_NAMES, validators),
    field_validators,
    checks: ordered(CHECK_NAMES, checks),
    expiry_check_default: EXPIRY_DEFAULT_CATEGORIES.includes(def.category) && has('expiry_date'),
    mrz,
    signed_pdf,
    usually_signed,
    i9_lists: def.i9 ? [...def.i9] : null,
    keywords: def.keywords ?? [],
    generic: def.generic ?? false,
  };
  return Object.freeze(entry);
}

/** Shorthand for a Localized text: `L(es, en, pt, fr)`. */
export function L(es: string, en: string, pt: string, fr: string): Localized {
  return { es, en, pt, fr };
}
