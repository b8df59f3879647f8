import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB, IdempotencyRow } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** How long a completed key replays its response (24 hours); past it the retention sweep deletes it. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyScope {
  account_id: string;
  livemode: boolean;
  idempotency_key: string;
}

/**
 * Claims the key for a new request, atomically. Returns `{ claimed: true }` when this request owns it
 * (new key, or a row past the replay window, or an in-progress row whose owner died and whose lock
 * expired), otherwise the existing row for the caller to replay or refuse.
 */
export async function claimIdempotencyKey(
  db: Conn,
  scope: IdempotencyScope,
  req: { operation_id: string; request_hash: string },
  now: Date,
  lockUntil: Date,
  windowStart: Date,
): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRow }> {
  // A fresh claim: what a new key gets, and what a key past its window or abandoned by a dead owner becomes.
  const claim = {
    ...req,
    state: 'in_progress' as const,
    response_status: null,
    response_headers: null,
    response_body: null,
    locked_until: lockUntil,
    created_at: now,
    completed_at: null,
  };
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({ ...scope, ...claim })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'livemode', 'idempotency_key'])
        .doUpdateSet(claim)
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', windowStart),
            eb.and([
              eb('idempotency_keys.state', '=', 'in_progress'),
              eb('idempotency_keys.locked_until', '<', now),
              eb('idempotency_keys.request_hash', '=', req.request_hash),
              eb('idempotency_keys.operation_id', '=', req.operation_id),
            ]),
          ]),
        ),
    )
    .returning(sql<number>`1`.as('ok'))
    .executeTakeFirst();
  if (inserted) return { claimed: true };
  const existing = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('idempotency_key', '=', scope.idempotency_key)
    .executeTakeFirst();
  if (!existing) {
    // Deleted between our insert attempt and the read (owner released it): claim again.
    return claimIdempotencyKey(db, scope, req, now, lockUntil, windowStart);
  }
  return { claimed: false, existing };
}

export async function completeIdempotencyKey(
  db: Conn,
  scope: IdempotencyScope,
  response: { status: number; headers: Record<string, string>; body: string },
  now: Date,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      state: 'completed',
      response_status: response.status,
      response_headers: JSON.stringify(response.headers),
      response_body: response.body,
      completed_at: now,
    })
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('idempotency_key', '=', scope.idempotency_key)
    .execute();
}

/** Pushes back the lock of a claim still in progress (its request is alive): a retry keeps getting 409. */
export async function extendIdempotencyLock(db: Conn, scope: IdempotencyScope, request_hash: string, lockUntil: Date): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ locked_until: lockUntil })
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('idempotency_key', '=', scope.idempotency_key)
    .where('state', '=', 'in_progress')
    .where('request_hash', '=', request_hash)
    .execute();
}

/** Forgets an in-progress claim (the request failed in a way that must not be replayed). */
export async function releaseIdempotencyKey(db: Conn, scope: IdempotencyScope): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('idempotency_key', '=', scope.idempotency_key)
    .where('state', '=', 'in_progress')
    .execute();
}

/** Deletes keys past the replay window (the retention sweep calls it). */
export async function deleteExpiredIdempotencyKeys(db: Conn, windowStart: Date): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<', windowStart).where('state', '=', 'completed').executeTakeFirst();
  return Number(r.numDeletedRows);
}
