import crypto from 'node:crypto';
import type { components } from '../../../generated/api.d.ts';
import * as repo from '../db/webhook-endpoints.ts';
import type { WebhookEndpointRow } from '../db/schema.ts';
import type { Auth, Services } from '../context.ts';
import { ApiError, resourceMissing } from '../errors.ts';
import { newId } from '../ids.ts';
import { stopEndpointDeliveries } from '../webhooks/deliveries.ts';
import { refuseTarget } from '../webhooks/sender.ts';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEndpointWithSecret = components['schemas']['WebhookEndpointWithSecret'];
type CreateBody = components['schemas']['CreateWebhookEndpointRequest'];

/** `whsec_` + base64 of 24 random bytes: the Standard Webhooks secret format. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(24).toString('base64')}`;
}

export function toWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    events: row.events as WebhookEndpoint['events'],
    status: row.status,
    enabled: row.status === 'active',
    mode: row.livemode ? 'live' : 'test',
    created_at: row.created_at.toISOString(),
  };
}

function checkUrl(s: Services, raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(422, 'invalid_parameter', "'url' no es una URL válida.", 'url');
  }
  if (url.protocol !== 'https:') {
    throw new ApiError(400, 'invalid_url', "La URL del endpoint debe usar https.", 'url');
  }
  if (url.username || url.password) {
    throw new ApiError(422, 'invalid_parameter', "'url' no puede llevar usuario ni contraseña.", 'url');
  }
  // A literal inside address (or a loopback name) can never be delivered to: refused now rather than accepted and
  // failed at every delivery. Host names are judged on what they resolve to, when sending (docs/webhooks.md).
  const why = refuseTarget(raw, s.config.allowPrivateUrls);
  if (why) throw new ApiError(422, 'invalid_parameter', `'url' no es una dirección pública: ${why.replace(/^the endpoint URL /, '')}.`, 'url');
}

export async function createWebhookEndpoint(s: Services, auth: Auth, body: CreateBody): Promise<WebhookEndpointWithSecret> {
  checkUrl(s, body.url);
  const events = [...new Set(body.events)];
  const row: WebhookEndpointRow = {
    id: newId('webhook_endpoint', s.clock.now().getTime()),
    account_id: auth.account.id,
    livemode: auth.livemode,
    url: body.url,
    description: body.description ?? null,
    events,
    status: 'active',
    secret: newWebhookSecret(),
    created_at: s.clock.now(),
    deleted_at: null,
  };
  await repo.insertWebhookEndpoint(s.db, row);
  return { ...toWebhookEndpoint(row), secret: row.secret };
}

export async function listWebhookEndpoints(s: Services, auth: Auth): Promise<WebhookEndpoint[]> {
  return (await repo.listWebhookEndpoints(s.db, auth.account.id)).map((r) => toWebhookEndpoint(r));
}

export async function getWebhookEndpoint(s: Services, auth: Auth, id: string): Promise<WebhookEndpoint> {
  const row = await repo.findWebhookEndpoint(s.db, auth.account.id, id);
  if (!row) throw resourceMissing(id);
  return toWebhookEndpoint(row);
}

export async function deleteWebhookEndpoint(s: Services, auth: Auth, id: string): Promise<{ id: string; object: 'webhook_endpoint'; deleted: true }> {
  // Deleting stops its pending deliveries (marked failed), together with the endpoint.
  const deleted = await s.db.transaction().execute(async (trx) => {
    const done = await repo.markWebhookEndpointDeleted(trx, auth.account.id, id, s.clock.now());
    if (done) await stopEndpointDeliveries(trx, s.clock, id);
    return done;
  });
  if (!deleted) throw resourceMissing(id);
  return { id, object: 'webhook_endpoint', deleted: true };
}
