import type { components } from '../../../generated/api.d.ts';
/**
 * The document type catalogue: data, lookup and search. Pure: no I/O beyond importing the data modules; the indexes
 * are built once when the module loads.
 */
import { foldText } from './text.ts';
import { BR_TYPES } from './types/br.ts';
import { ES_TYPES } from './types/es.ts';
import { EU_TYPES } from './types/eu.ts';
import { FR_TYPES } from './types/fr.ts';
import { IT_TYPES } from './types/it.ts';
import { PT_TYPES } from './types/pt.ts';
import { UNIVERSAL_TYPES } from './types/universal.ts';
import { US_TYPES } from './types/us.ts';
import {
  CATEGORIES,
  LANGUAGES,
  type CatalogueEntry,
  type Category,
  type CheckName,
  type FieldValidator,
  type I9List,
  type Language,
  type Localized,
  type MrzFormat,
  type ObjectSchema,
  type ValidatorName,
} from './vocabulary.ts';

export {
  CATEGORIES,
  CHECK_NAMES,
  FIELD_SCHEMES,
  FIELD_SCHEME_INFO,
  I9_LISTS,
  LANGUAGES,
  MRZ_FORMATS,
  VALIDATOR_NAMES,
} from './vocabulary.ts';
export type {
  CatalogueEntry,
  Category,
  CheckName,
  FieldSchema,
  FieldScheme,
  FieldValidator,
  I9List,
  Language,
  Localized,
  MrzFormat,
  ObjectSchema,
  ValidatorName,
} from './vocabulary.ts';
export { FIELD_DICTIONARY } from './fields.ts';
export { ISO_ALPHA3, isAlpha3 } from './countries.ts';
export { foldText, slugify } from './text.ts';

/** The public DocumentType object (GET /v1/document-types): the generated API type, never a second copy. */
export type DocumentType = components['schemas']['DocumentType'];

export interface SearchQuery {
  /** ISO alpha-3, compared in upper case. Universal (`*`) types are included unless `strict`. */
  country?: string;
  strict?: boolean;
  category?: string;
  /** Every whitespace-separated word must occur (accent and case insensitive) in the type's search text. */
  q?: string;
}

// ------------------------------------------------------------------ indexes (built once)

const byType = (a: CatalogueEntry, b: CatalogueEntry) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);

const ENTRIES: readonly CatalogueEntry[] = Object.freeze(
  [...ES_TYPES, ...PT_TYPES, ...FR_TYPES, ...IT_TYPES, ...BR_TYPES, ...US_TYPES, ...EU_TYPES, ...UNIVERSAL_TYPES].sort(byType),
);

const BY_TYPE = new Map<string, CatalogueEntry>();
for (const e of ENTRIES) {
  if (BY_TYPE.has(e.type)) throw new Error(`catalogue: duplicate type ${e.type}`);
  BY_TYPE.set(e.type, e);
}

/** Slug (any language) -> entry. A slug identical in two languages must name the same type. */
const BY_SLUG = new Map<string, CatalogueEntry>();
for (const e of ENTRIES) {
  for (const lang of LANGUAGES) {
    const other = BY_SLUG.get(e.slugs[lang]);
    if (other && other !== e) throw new Error(`catalogue: slug ${e.slugs[lang]} used by ${other.type} and ${e.type}`);
    BY_SLUG.set(e.slugs[lang], e);
  }
}

/** Folded text searched by `q`: type id, labels, descriptions, slugs and keywords in every language. */
const SEARCH_TEXT = new Map<CatalogueEntry, string>(
  ENTRIES.map((e) => [
    e,
    foldText(
      [
        e.type,
        e.type.replace(/_/g, ' '),
        ...LANGUAGES.flatMap((l) => [e.labels[l], e.descriptions[l], e.slugs[l], e.slugs[l].replace(/-/g, ' ')]),
        ...e.keywords,
      ].join('\n'),
    ),
  ]),
);

// ------------------------------------------------------------------ API

/** The entry of a type id, or undefined. */
export function getEntry(type: string): CatalogueEntry | undefined {
  return BY_TYPE.get(type);
}

/** Every entry, sorted by `type` (the pagination order of GET /v1/document-types). */
export function allEntries(): readonly CatalogueEntry[] {
  return ENTRIES;
}

/** Number of types in the catalogue. */
export function catalogueSize(): number {
  return ENTRIES.length;
}

/** Whether `language` is one of the four API languages. */
export function isLanguage(language: string): language is Language {
  return (LANGUAGES as readonly string[]).includes(language);
}

/** Whether `category` is one of the 15 categories. */
export function isCategory(category: string): category is Category {
  return (CATEGORIES as readonly string[]).includes(category);
}

/**
 * Maps an `expect` value to its entry: a type id, or a slug in any language (slugs are unique across languages).
 * Returns undefined for anything else; the caller answers 422.
 */
export function resolveExpect(value: string): CatalogueEntry | undefined {
  return BY_TYPE.get(value) ?? BY_SLUG.get(value);
}

/**
 * Whether a type is a generic fallback (`unknown_document`, `certificate`): a verdict on it carries `type_unknown`
 * (warning) as the specification's Reason codes ask for generic types.
 */
export function isGeneric(type: string): boolean {
  return BY_TYPE.get(type)?.generic ?? false;
}

/**
 * The universal type among `expected` of which `type` is a national form (`es_invoice` of `invoice`, `fr_passport` of
 * `passport`): a `<country>_<universal>` type of the same category. Null when there is none (or several).
 */
export function universalFormExpected(type: string, expected: readonly string[]): string | null {
  const entry = BY_TYPE.get(type);
  if (!entry || entry.countries.includes('*')) return null;
  const hits = expected.filter((e) => {
    const u = BY_TYPE.get(e);
    return u !== undefined && u.countries.includes('*') && u.category === entry.category && new RegExp(`^[a-z]{2}_${u.type}$`).test(type);
  });
  return hits.length === 1 ? hits[0] : null;
}

/**
 * Filters the catalogue. Sorted by `type`. Validation of the inputs (alpha-3 shape, known category, q length) is the
 * HTTP layer's job: an unknown category or country here simply matches nothing (or only universal types).
 */
export function searchEntries(query: SearchQuery = {}): CatalogueEntry[] {
  const country = query.country?.toUpperCase();
  const words = query.q ? foldText(query.q).split(/\s+/).filter(Boolean) : [];
  return ENTRIES.filter((e) => {
    if (query.category !== undefined && e.category !== query.category) return false;
    if (country !== undefined) {
      const universal = e.countries.includes('*');
      if (!e.countries.includes(country) && !(universal && !query.strict)) return false;
    }
    if (words.length > 0) {
      const text = SEARCH_TEXT.get(e)!;
      if (!words.every((w) => text.includes(w))) return false;
    }
    return true;
  });
}

function copySchema(schema: ObjectSchema): ObjectSchema {
  return structuredClone(schema) as ObjectSchema;
}

/**
 * The public DocumentType of an entry in one language. Every array and object is a fresh copy, so a caller may
 * mutate the result. `keywords`, `usually_signed` and `generic` are internal and not returned.
 */
export function toDocumentType(entry: CatalogueEntry, language: Language): DocumentType {
  return {
    object: 'document_type',
    type: entry.type,
    label: entry.labels[language],
    description: entry.descriptions[language],
    slug: entry.slugs[language],
    labels: { ...entry.labels },
    descriptions: { ...entry.descriptions },
    slugs: { ...entry.slugs },
    category: entry.category,
    countries: [...entry.countries],
    fields: [...entry.fields],
    schema: copySchema(entry.schema),
    validators: [...entry.validators],
    field_validators: entry.field_validators.map((v) => ({ ...v })),
    checks: [...entry.checks],
    expiry_check_default: entry.expiry_check_default,
    mrz: entry.mrz,
    signed_pdf: entry.signed_pdf,
    i9_lists: entry.i9_lists ? [...entry.i9_lists] : null,
  };
}

/** Label of a type in a language, for `document.label`; falls back to the id for a type not in the catalogue. */
export function labelOf(type: string, language: Language): string {
  return BY_TYPE.get(type)?.labels[language] ?? type;
}

/** Whether `signature_missing` is reported for this type without `require_valid_signature` (spec, Reason codes). */
export function isUsuallySigned(type: string): boolean {
  return BY_TYPE.get(type)?.usually_signed ?? false;
}
