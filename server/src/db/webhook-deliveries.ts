import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB, NewWebhookDelivery, WebhookDeliveryAttemptRow, WebhookDeliveryRow } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/**
 * Ids of the endpoints an event goes to: same account and mode, active, not deleted, subscribed to
 * the event type or to `*` (which includes future types).
 */
export async function subscribedEndpointIds(db: Conn, accountId: string, livemode: boolean, type: string): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('account_id', '=', accountId)
    .where('livemode', '=', livemode)
    .where('status', '=', 'active')
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([sql<boolean>`events @> ${JSON.stringify([type])}::jsonb`, sql<boolean>`events @> '["*"]'::jsonb`]))
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** A final delivery of a `keep_results: false` result keeps no body: it will never be sent again. */
const clearedIfEphemeral = sql<string>`case when ephemeral then '' else payload end`;

export async function insertDeliveries(db: Conn, rows: NewWebhookDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('webhook_deliveries').values(rows).execute();
}

/** A claimed delivery with what sending it needs from its endpoint. */
export interface ClaimedDelivery {
  id: string;
  /** Null for a link callback. */
  endpoint_id: string | null;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  endpoint_status: 'active' | 'disabled';
  endpoint_deleted_at: Date | null;
}

/**
 * Claims up to `limit` due deliveries for `leaseMs` under the lock `token`: pending, due, and not
 * leased (or leased by a worker whose lease has expired: it died). `FOR UPDATE SKIP LOCKED` keeps two
 * workers from claiming the same delivery at once; the lease keeps it theirs after the commit.
 */
export async function claimDueDeliveries(db: Kysely<DB>, now: Date, leaseMs: number, token: string, limit: number): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    const ids = due.map((d) => d.id);
    await trx
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(now.getTime() + leaseMs), locked_by: token, updated_at: now })
      .where('id', 'in', ids)
      .execute();
    // A link callback (#17) has no endpoint: its URL is its own, its secret the account's callback secret of its mode.
    const rows = await trx
      .selectFrom('webhook_deliveries as d')
      .leftJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .innerJoin('accounts as a', 'a.id', 'd.account_id')
      .select([
        'd.id',
        'd.endpoint_id',
        'd.payload',
        'd.attempts',
        'd.livemode',
        'd.callback_url',
        'e.url',
        'e.secret',
        'e.status as endpoint_status',
        'e.deleted_at as endpoint_deleted_at',
        'a.callback_secret_test',
        'a.callback_secret_live',
      ])
      .where('d.id', 'in', ids)
      .orderBy('d.id')
      .execute();
    return rows.map((r) =>
      r.endpoint_id === null
        ? {
            id: r.id,
            endpoint_id: null,
            payload: r.payload,
            attempts: r.attempts,
            url: r.callback_url ?? '',
            secret: (r.livemode ? r.callback_secret_live : r.callback_secret_test) ?? '',
            endpoint_status: 'active' as const,
            endpoint_deleted_at: null,
          }
        : {
            id: r.id,
            endpoint_id: r.endpoint_id,
            payload: r.payload,
            attempts: r.attempts,
            url: r.url!,
            secret: r.secret!,
            endpoint_status: r.endpoint_status!,
            endpoint_deleted_at: r.endpoint_deleted_at,
          },
    );
  });
}

/** Locks a delivery for update if `token` still holds its lease; undefined when the lease was lost. */
export async function lockOwnedDelivery(trx: Transaction<DB>, id: string, token: string): Promise<WebhookDeliveryRow | undefined> {
  return trx.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('locked_by', '=', token).forUpdate().executeTakeFirst();
}

export async function updateDelivery(
  db: Conn,
  id: string,
  patch: Partial<Pick<WebhookDeliveryRow, 'status' | 'attempts' | 'next_attempt_at' | 'locked_until' | 'locked_by' | 'last_attempt_at' | 'last_status_code' | 'last_error' | 'updated_at'>>,
): Promise<void> {
  const final = patch.status === 'succeeded' || patch.status === 'failed';
  await db
    .updateTable('webhook_deliveries')
    .set(final ? { ...patch, payload: clearedIfEphemeral } : patch)
    .where('id', '=', id)
    .execute();
}

export async function insertAttempt(db: Conn, row: WebhookDeliveryAttemptRow): Promise<void> {
  await db.insertInto('webhook_delivery_attempts').values(row).execute();
}

/** Marks every pending delivery of an endpoint failed (its endpoint was deleted); returns how many. */
export async function failPendingDeliveriesOfEndpoint(db: Conn, endpointId: string, now: Date, reason: string): Promise<number> {
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: now, payload: clearedIfEphemeral })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Keeps the newest `keep` deliveries of an endpoint (ids are time-ordered) and deletes older finished
 * ones with their attempts. Pending deliveries are never pruned: an event is not dropped unsent.
 */
export async function pruneEndpointDeliveries(db: Conn, endpointId: string, keep: number): Promise<number> {
  const r = await db
    .deleteFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .where('status', '<>', 'pending')
    .where('id', 'not in', (eb) =>
      eb.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).orderBy('id', 'desc').limit(keep),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** An endpoint's deliveries, newest first (the dashboard's delivery history). */
export async function listDeliveriesOfEndpoint(db: Conn, endpointId: string, limit = 100): Promise<WebhookDeliveryRow[]> {
  return db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id', 'desc').limit(limit).execute();
}

export async function findDelivery(db: Conn, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The attempts of a delivery, in order. */
export async function attemptsOf(db: Conn, deliveryId: string): Promise<WebhookDeliveryAttemptRow[]> {
  return db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
}
