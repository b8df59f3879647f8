import type { components } from '../../../generated/api.d.ts';
import { listOf } from '../domain/pagination.ts';
import * as endpoints from '../domain/webhook-endpoints.ts';
import { requireAuth, type Handler } from '../http/context.ts';

type CreateBody = components['schemas']['CreateWebhookEndpointRequest'];

export const createWebhookEndpoint: Handler = async (ctx) => {
  const body = ctx.body.kind === 'json' ? (ctx.body.value as CreateBody) : ({} as CreateBody);
  return { status: 201, body: await endpoints.createWebhookEndpoint(ctx.services, requireAuth(ctx), body) };
};

export const listWebhookEndpoints: Handler = async (ctx) => ({
  status: 200,
  body: listOf('/v1/webhook-endpoints', await endpoints.listWebhookEndpoints(ctx.services, requireAuth(ctx)), false),
});

export const getWebhookEndpoint: Handler = async (ctx) => ({
  status: 200,
  body: await endpoints.getWebhookEndpoint(ctx.services, requireAuth(ctx), ctx.params.id),
});

export const deleteWebhookEndpoint: Handler = async (ctx) => ({
  status: 200,
  body: await endpoints.deleteWebhookEndpoint(ctx.services, requireAuth(ctx), ctx.params.id),
});
