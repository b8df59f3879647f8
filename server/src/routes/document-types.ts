import type { Category, Language } from '../catalogue/index.ts';
import * as documentTypes from '../domain/document-types.ts';
import { cacheableJson } from '../http/conditional.ts';
import type { Handler } from '../http/context.ts';
import { listOf } from '../http/pagination.ts';

const CACHE_CONTROL = 'public, max-age=300';

export const listDocumentTypes: Handler = async (ctx) => {
  const q = ctx.query as Record<string, unknown>;
  const { data, has_more, total } = documentTypes.listDocumentTypes({
    language: (q.language as Language | undefined) ?? 'es',
    country: q.country as string | undefined,
    strict: q.strict === true,
    category: q.category as Category | undefined,
    q: q.q as string | undefined,
    limit: (q.limit as number | undefined) ?? 500,
    starting_after: q.starting_after as string | undefined,
  });
  return cacheableJson(ctx, listOf('/v1/document-types', data, has_more, { total }), CACHE_CONTROL);
};

export const getDocumentType: Handler = async (ctx) =>
  cacheableJson(ctx, documentTypes.getDocumentType(ctx.params.type, ((ctx.query as Record<string, unknown>).language as Language | undefined) ?? 'es'), CACHE_CONTROL);
