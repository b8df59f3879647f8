import type { components } from '../../../generated/api.d.ts';
import { getEntry, isAlpha3, searchEntries, toDocumentType, type Category, type Language } from '../catalogue/index.ts';
import { ApiError } from '../errors.ts';

export type DocumentType = components['schemas']['DocumentType'];

export interface ListDocumentTypesQuery {
  language: Language;
  country?: string;
  strict: boolean;
  category?: Category;
  q?: string;
  limit: number;
  starting_after?: string;
}

/**
 * Filters first (country with or without universal types, category, every word of `q`), then pages
 * by type id: `starting_after` is a position in the sorted ids, so a cursor stays valid even for
 * an id that no longer exists. `total` counts every match, not the page.
 */
export function listDocumentTypes(query: ListDocumentTypesQuery): { data: DocumentType[]; has_more: boolean; total: number } {
  if (query.country !== undefined && !isAlpha3(query.country)) {
    throw new ApiError(422, 'invalid_parameter', `'country' debe ser un código ISO 3166-1 alfa-3 de 3 letras (por ejemplo ESP), no '${query.country}'.`, 'country');
  }
  const matches = searchEntries({
    country: query.country?.toUpperCase(),
    strict: query.strict,
    category: query.category,
    q: query.q,
  });
  const after = query.starting_after;
  const rest = after === undefined ? matches : matches.filter((e) => e.type > after);
  const page = rest.slice(0, query.limit);
  return {
    data: page.map((e) => toDocumentType(e, query.language)),
    has_more: rest.length > page.length,
    total: matches.length,
  };
}

export function getDocumentType(type: string, language: Language): DocumentType {
  const entry = getEntry(type);
  if (!entry) throw new ApiError(404, 'resource_missing', `No existe el tipo de documento '${type}'.`, 'type');
  return toDocumentType(entry, language);
}

