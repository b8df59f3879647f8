/**
 * What the dashboard does to an endpoint and its deliveries (#19; the API has no update route): disable and
 * re-enable, a `test` event, and resending a failed delivery. Everything goes through the normal delivery queue
 * (`webhook_deliveries`, the worker in deliveries.ts): signed, retried and recorded per attempt like any delivery.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { DB, WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.ts';
import * as repo from '../db/webhook-deliveries.ts';
import { newId } from '../ids.ts';
import { newDelivery } from './deliveries.ts';

/**
 * Sets an endpoint's status. A disabled endpoint "gets no events" (spec): fan-out skips it, and a delivery still
 * pending is stopped by the worker when it comes due (marked failed, `endpoint disabled`); it can be resent by hand.
 */
export async function setEndpointStatus(db: Kysely<DB>, accountId: string, id: string, status: WebhookEndpointRow['status']): Promise<boolean> {
  const r = await db
    .updateTable('webhook_endpoints')
    .set({ status })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Queues one `test` event to this endpoint only (whatever it subscribes to), due now. Returns the delivery's id. */
export async function queueTestEvent(db: Kysely<DB>, clock: Clock, endpoint: WebhookEndpointRow): Promise<string> {
  const now = clock.now();
  const payload = { type: 'test', created_at: now.toISOString(), data: { object: 'test', endpoint_id: endpoint.id, message: 'Test event sent from the Cotejo dashboard.' } };
  const row = newDelivery(now, { account_id: endpoint.account_id, livemode: endpoint.livemode, endpoint_id: endpoint.id, event_id: newId('event', now.getTime()), event_type: 'test', payload: JSON.stringify(payload) });
  await repo.insertDeliveries(db, [row]);
  return row.id;
}

/** Why a delivery cannot be resent, or null when it can: only a failed one that still has its body. */
export function resendRefusal(d: WebhookDeliveryRow): 'not_failed' | 'no_body' | null {
  if (d.status !== 'failed') return 'not_failed';
  if (d.payload === '') return 'no_body';
  return null;
}

/**
 * Resends a failed delivery: pending again, due now, same `webhook-id` and body (receivers deduplicate by the id).
 * The worker makes the new attempt, numbered after the last; if it fails, the usual retries follow while fewer than
 * MAX_ATTEMPTS were made, else it is failed again. Answers false when the delivery was no longer failed.
 */
export async function resendDelivery(db: Kysely<DB>, clock: Clock, deliveryId: string): Promise<boolean> {
  const now = clock.now();
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, locked_until: null, locked_by: null, updated_at: now })
    .where('id', '=', deliveryId)
    .where('status', '=', 'failed')
    .where('payload', '<>', '')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
