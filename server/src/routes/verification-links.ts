import type { components } from '../../../generated/api.d.ts';
import * as links from '../domain/links/service.ts';
import { listOf } from '../domain/pagination.ts';
import { requireAuth, type Handler } from '../http/context.ts';

type CreateBody = components['schemas']['CreateVerificationLinkRequest'];

export const createVerificationLink: Handler = async (ctx) => {
  const body = (ctx.body.kind === 'json' ? ctx.body.value : {}) as CreateBody;
  return { status: 201, body: await links.createLink(ctx.services, requireAuth(ctx), body) };
};

export const listVerificationLinks: Handler = async (ctx) => {
  const q = ctx.query as Record<string, unknown>;
  const { data, has_more } = await links.listLinks(ctx.services, requireAuth(ctx), {
    limit: (q.limit as number | undefined) ?? 20,
    starting_after: q.starting_after as string | undefined,
    status: q.status as links.VerificationLink['status'] | undefined,
    reference: q.reference as string | undefined,
    metadata: q.metadata as Record<string, string> | undefined,
  });
  return { status: 200, body: listOf('/v1/verification-links', data, has_more) };
};

export const getVerificationLink: Handler = async (ctx) => ({ status: 200, body: await links.getLink(ctx.services, requireAuth(ctx), ctx.params.id) });

export const cancelVerificationLink: Handler = async (ctx) => ({ status: 200, body: await links.cancelLink(ctx.services, requireAuth(ctx), ctx.params.id) });
