import type { ReviewStatusFilter } from '../db/reviews.ts';
import { listOf } from '../domain/pagination.ts';
import * as reviews from '../domain/reviews/service.ts';
import { requireAuth, type Handler } from '../http/context.ts';

/** POST /v1/analyses/{id}/review: the body is checked against ReviewRequest (strict) before it gets here. */
export const reviewAnalysis: Handler = async (ctx) => {
  const body = (ctx.body.kind === 'json' ? ctx.body.value : {}) as reviews.ReviewBody;
  return { status: 200, body: await reviews.decideReview(ctx.services, requireAuth(ctx), ctx.params.id, body) };
};

export const listReviews: Handler = async (ctx) => {
  const q = ctx.query as Record<string, unknown>;
  const { data, has_more } = await reviews.listReviews(ctx.services, requireAuth(ctx), {
    status: (q.status as ReviewStatusFilter | undefined) ?? 'pending',
    type: q.type as string | undefined,
    template: q.template as string | undefined,
    metadata: q.metadata as Record<string, string> | undefined,
    starting_after: q.starting_after as string | undefined,
    limit: (q.limit as number | undefined) ?? 10,
  });
  return { status: 200, body: listOf('/v1/reviews', data, has_more) };
};
