import type { components } from '../../../generated/api.d.ts';
import { listOf } from '../domain/pagination.ts';
import * as templates from '../domain/templates.ts';
import { requireAuth, type Handler } from '../http/context.ts';

type CreateBody = components['schemas']['CreateTemplateRequest'];
type UpdateBody = components['schemas']['UpdateTemplateRequest'];

const jsonBody = <T>(ctx: Parameters<Handler>[0]): T => (ctx.body.kind === 'json' ? ctx.body.value : {}) as T;

// Idempotency-Key on create is handled by the HTTP pipeline (the operation declares the header).
export const createTemplate: Handler = async (ctx) => ({
  status: 201,
  body: await templates.createTemplate(ctx.services, requireAuth(ctx), jsonBody<CreateBody>(ctx)),
});

export const listTemplates: Handler = async (ctx) => {
  const q = ctx.query as Record<string, unknown>;
  const { data, has_more } = await templates.listTemplates(ctx.services, requireAuth(ctx), {
    limit: (q.limit as number | undefined) ?? 10,
    starting_after: q.starting_after as string | undefined,
  });
  return { status: 200, body: listOf('/v1/templates', data, has_more) };
};

export const getTemplate: Handler = async (ctx) => ({ status: 200, body: await templates.getTemplate(ctx.services, requireAuth(ctx), ctx.params.id) });

export const updateTemplate: Handler = async (ctx) => ({
  status: 200,
  body: await templates.updateTemplate(ctx.services, requireAuth(ctx), ctx.params.id, jsonBody<UpdateBody>(ctx)),
});

export const deleteTemplate: Handler = async (ctx) => ({ status: 200, body: await templates.deleteTemplate(ctx.services, requireAuth(ctx), ctx.params.id) });
