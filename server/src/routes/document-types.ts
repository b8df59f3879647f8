import type { Category, Language } from '../catalogue/index.ts';
import * as documentTypes from '../domain/document-types.ts';
import { listOf } from '../domain/pagination.ts';
import { memoizedJson } from '../http/conditional.ts';
import type { Handler } from '../http/context.ts';

const CACHE_CONTROL = 'public, max-age=300';

// The catalogue is code: a response depends only on its parameters, so each is rendered and hashed once.
export const listDocumentTypes: Handler = async (ctx) => {
  const q = ctx.query as Record<string, unknown>;
  const query = {
    language: (q.language as Language | undefined) ?? 'es',
    country: q.country as string | undefined,
    strict: q.strict === true,
    category: q.category as Category | undefined,
    q: q.q as string | undefined,
    limit: (q.limit as number | undefined) ?? 500,
    starting_after: q.starting_after as string | undefined,
  };
  return memoizedJson(ctx, `list ${JSON.stringify(query)}`, () => {
    const { data, has_more, total } = documentTypes.listDocumentTypes(query);
    return listOf('/v1/document-types', data, has_more, { total });
  }, CACHE_CONTROL);
};

export const getDocumentType: Handler = async (ctx) => {
  const language = ((ctx.query as Record<string, unknown>).language as Language | undefined) ?? 'es';
  return memoizedJson(ctx, `get ${JSON.stringify([ctx.params.type, language])}`, () => documentTypes.getDocumentType(ctx.params.type, language), CACHE_CONTROL);
};
