/**
 * Webhook deliveries: fan-out of an event to the subscribed endpoints, and the durable, retried sending.
 *
 * Each (event, endpoint) pair is one row of `webhook_deliveries`, whose id (`msg_...`) is the
 * `webhook-id` of every attempt. The row is its own job: `runDueDeliveries` claims due rows with
 * FOR UPDATE SKIP LOCKED under a lease, sends them outside any transaction, and records the outcome
 * only if it still holds the lease. A worker that dies mid-delivery loses its lease and another takes the
 * delivery again after `DELIVERY_LEASE_MS`, with the same `webhook-id` (receivers deduplicate by it).
 */
import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.ts';
import * as repo from '../db/webhook-deliveries.ts';
import type { ClaimedDelivery } from '../db/webhook-deliveries.ts';
import type { DB } from '../db/schema.ts';
import type { Services } from '../context.ts';
import { newId } from '../ids.ts';
import { retryWhileUnavailable } from '../jobs/unavailable.ts';
import { WORKER_ID } from '../jobs/queue.ts';
import { DELIVERY_TIMEOUT_MS, postWebhook, type SenderOptions } from './sender.ts';
import { webhookHeaders } from './signature.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Delays after failed attempts 1 to 11; the 12th failure is final. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
  12 * 3_600_000,
  12 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1; // 12
/** A claim's lease: well beyond the 15 s time-out, so a live worker always records before it ends. */
export const DELIVERY_LEASE_MS = 60_000;
/** Deliveries kept per endpoint (the dashboard's history); older finished ones are pruned. */
export const DELIVERIES_KEPT_PER_ENDPOINT = 100;

/** An event as the outbox (`events`) holds it. */
export interface OutboxEvent {
  id: string;
  account_id: string;
  livemode: boolean;
  type: string;
  /** The body: `{ type, created_at, data }`. */
  payload: Record<string, unknown>;
  /** It carries a `keep_results: false` result: each delivery clears its body once final. */
  ephemeral?: boolean;
}

/** A delivery due now, never tried: the columns every new delivery row starts with. */
export function newDelivery(
  now: Date,
  row: { account_id: string; livemode: boolean; endpoint_id: string | null; event_id: string; event_type: string; payload: string; ephemeral?: boolean; callback_url?: string; link_id?: string },
) {
  return {
    id: newId('webhook_message', now.getTime()),
    ephemeral: false,
    ...row,
    status: 'pending' as const,
    next_attempt_at: now,
    locked_until: null,
    locked_by: null,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Creates one pending delivery, due now, per endpoint subscribed to the event (same account and mode,
 * active, subscribed to its type or `*`). Pass the transaction that writes the event, so both or
 * neither are stored. The body is serialised once here: these bytes are sent and signed on every attempt.
 */
export async function fanOutEvent(db: Conn, clock: Clock, event: OutboxEvent): Promise<string[]> {
  const endpoints = await repo.subscribedEndpointIds(db, event.account_id, event.livemode, event.type);
  if (endpoints.length === 0) return [];
  const now = clock.now();
  const body = JSON.stringify(event.payload);
  const rows = endpoints.map((endpointId) =>
    newDelivery(now, { account_id: event.account_id, livemode: event.livemode, endpoint_id: endpointId, event_id: event.id, event_type: event.type, payload: body, ephemeral: event.ephemeral ?? false }),
  );
  await repo.insertDeliveries(db, rows);
  return rows.map((r) => r.id);
}

/**
 * A verification link's callback (#17): one more delivery of the same event body to the link's `callback_url`,
 * sent, signed and retried exactly like an endpoint's (same row, same worker, same retries), signed with the
 * account's callback secret of the event's mode (accounts.callback_secret_test / _live; see docs/verification-links.md).
 */
export async function enqueueCallback(db: Conn, clock: Clock, event: OutboxEvent, callback: { url: string; linkId: string }): Promise<string> {
  const row = newDelivery(clock.now(), {
    account_id: event.account_id,
    livemode: event.livemode,
    endpoint_id: null,
    callback_url: callback.url,
    link_id: callback.linkId,
    event_id: event.id,
    event_type: event.type,
    payload: JSON.stringify(event.payload),
  });
  await repo.insertDeliveries(db, [row]);
  return row.id;
}

/** Stops an endpoint's pending deliveries (it was deleted): they are marked failed and never sent again. */
export async function stopEndpointDeliveries(db: Conn, clock: Clock, endpointId: string): Promise<number> {
  return repo.failPendingDeliveriesOfEndpoint(db, endpointId, clock.now(), 'endpoint deleted');
}

export interface RunDeliveriesOptions {
  /** Most deliveries claimed and sent (concurrently) in this call. Default 10. */
  limit?: number;
  /** Sender overrides (time-out, CA, resolver); `allowPrivate` defaults to `config.allowPrivateUrls`. */
  sender?: Partial<SenderOptions>;
  /** Lease of each claim. Default DELIVERY_LEASE_MS. */
  leaseMs?: number;
}

export type AttemptOutcome = 'succeeded' | 'retry' | 'failed' | 'stopped' | 'lease_lost';

/** A lock token of this process, unique per claim. */
export function newLockToken(): string {
  return `${WORKER_ID}:${crypto.randomBytes(6).toString('hex')}`;
}

/**
 * Claims the due deliveries (up to `limit`), sends each once and records the outcomes. Returns how many
 * it claimed (0: nothing was due). The worker loop calls it; tests call it directly after moving the clock.
 */
export async function runDueDeliveries(s: Services, opts: RunDeliveriesOptions = {}): Promise<number> {
  const token = newLockToken();
  const claimed = await repo.claimDueDeliveries(s.db, s.clock.now(), opts.leaseMs ?? DELIVERY_LEASE_MS, token, opts.limit ?? 10);
  const sender: SenderOptions = { allowPrivate: s.config.allowPrivateUrls, timeoutMs: DELIVERY_TIMEOUT_MS, ...opts.sender };
  await Promise.all(
    claimed.map((d) =>
      deliverClaimed(s, d, token, sender).catch((err: unknown) => {
        // The lease expires and another pass takes it again.
        s.logger.error({ err, delivery: d.id }, 'webhook delivery failed unexpectedly');
      }),
    ),
  );
  return claimed.length;
}

/** Sends one claimed delivery (one attempt) and records it, if `token` still holds the lease. */
export async function deliverClaimed(s: Services, d: ClaimedDelivery, token: string, sender: SenderOptions): Promise<AttemptOutcome> {
  if (d.endpoint_deleted_at || d.endpoint_status !== 'active') {
    const reason = d.endpoint_deleted_at ? 'endpoint deleted' : 'endpoint disabled';
    return s.db.transaction().execute(async (trx) => {
      const row = await repo.lockOwnedDelivery(trx, d.id, token);
      if (!row) return 'lease_lost';
      await repo.updateDelivery(trx, d.id, { status: 'failed', next_attempt_at: null, locked_until: null, locked_by: null, last_error: reason, updated_at: s.clock.now() });
      return 'stopped';
    }).then((outcome) => {
      s.metrics?.deliveryAttempt(outcome, d.endpoint_id === null ? 'callback' : 'endpoint');
      return outcome;
    });
  }

  const sentAt = s.clock.now();
  const result = await postWebhook(d.url, webhookHeaders(d.secret, d.id, sentAt, d.payload), d.payload, sender);

  // Sent: its outcome is recorded even through a database outage (within the lease), or it would be sent again.
  const outcome = await retryWhileUnavailable(s.logger, { delivery: d.id }, () => s.db.transaction().execute(async (trx): Promise<AttemptOutcome> => {
    const row = await repo.lockOwnedDelivery(trx, d.id, token);
    if (!row) return 'lease_lost';
    const now = s.clock.now();
    const attempt = row.attempts + 1;
    let outcome: AttemptOutcome;
    let nextAt: Date | null = null;
    if (row.status !== 'pending') outcome = 'stopped'; // endpoint deleted while this attempt was in flight
    else if (result.ok) outcome = 'succeeded';
    else if (attempt >= MAX_ATTEMPTS) outcome = 'failed';
    else {
      outcome = 'retry';
      nextAt = new Date(now.getTime() + RETRY_DELAYS_MS[attempt - 1]);
    }
    await repo.updateDelivery(trx, d.id, {
      status: outcome === 'succeeded' ? 'succeeded' : outcome === 'retry' ? 'pending' : 'failed',
      attempts: attempt,
      next_attempt_at: nextAt,
      locked_until: null,
      locked_by: null,
      last_attempt_at: sentAt,
      last_status_code: result.statusCode,
      last_error: outcome === 'stopped' ? row.last_error : result.error?.slice(0, 2000) ?? null,
      updated_at: now,
    });
    await repo.insertAttempt(trx, {
      delivery_id: d.id,
      attempt,
      sent_at: sentAt,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      error: result.error?.slice(0, 2000) ?? null,
      response_excerpt: result.responseExcerpt,
      succeeded: result.ok,
    });
    if (outcome !== 'retry' && d.endpoint_id !== null) await repo.pruneEndpointDeliveries(trx, d.endpoint_id, DELIVERIES_KEPT_PER_ENDPOINT);
    return outcome;
  }), DELIVERY_LEASE_MS - DELIVERY_TIMEOUT_MS);
  // An attempt not sent because its target is not allowed (SSRF policy) is counted apart; it is retried or fails as any other.
  s.metrics?.deliveryAttempt(result.refused && (outcome === 'retry' || outcome === 'failed') ? 'refused' : outcome, d.endpoint_id === null ? 'callback' : 'endpoint');
  if (outcome === 'lease_lost') s.logger.warn({ delivery: d.id }, 'webhook delivery lease lost before its outcome was recorded');
  else if (!result.ok) s.logger.info({ delivery: d.id, attempt: d.attempts + 1, error: result.error, outcome }, 'webhook delivery attempt failed');
  return outcome;
}
