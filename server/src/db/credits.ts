import { sql, type Kysely, type Transaction } from 'kysely';
import type { AccountRow, CreditReservationsTable, DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Ledger reasons: money in (`manual_top_up`, or what the operator names) and paid charges out. */
export const CHARGE_REASON = 'charge';

export async function insertLedgerEntry(
  db: Conn,
  row: { id: string; account_id: string; amount_milli: number; reason: string; reference: string | null; created_at: Date },
): Promise<void> {
  await db.insertInto('credit_ledger').values(row).execute();
}

/** Sum of every ledger entry of the account (top-ups minus paid charges), in milli-credits. */
export async function ledgerBalanceMilli(db: Conn, accountId: string): Promise<number> {
  const r = await db
    .selectFrom('credit_ledger')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_milli'), eb.lit(0)).as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(r.total);
}

/**
 * Locks the account row until the transaction ends: reservations of one account are decided one at a
 * time (two concurrent requests cannot both spend the last credit). Returns the row.
 */
export async function lockAccount(trx: Transaction<DB>, accountId: string): Promise<AccountRow> {
  return trx.selectFrom('accounts').selectAll().where('id', '=', accountId).forUpdate().executeTakeFirstOrThrow();
}

export interface CreditTotals {
  /** Ledger sum (top-ups minus paid charges). */
  ledgerMilli: number;
  /** Held by running live work. */
  heldFreeMilli: number;
  heldPaidMilli: number;
  /** Free tier taken (held or captured) by reservations made since the month start. */
  freeUsedThisMonthMilli: number;
  /** Paid credits taken (held or captured) by reservations made since the month start: what the monthly cap counts. */
  paidUsedThisMonthMilli: number;
}

export async function creditTotals(db: Conn, accountId: string, monthStart: Date): Promise<CreditTotals> {
  const r = await db
    .selectFrom('credit_reservations')
    .select([
      sql<number>`coalesce(sum(case when status = 'held' then free_milli else 0 end), 0)`.as('held_free'),
      sql<number>`coalesce(sum(case when status = 'held' then paid_milli else 0 end), 0)`.as('held_paid'),
      sql<number>`coalesce(sum(case when status <> 'released' and created_at >= ${monthStart} then free_milli else 0 end), 0)`.as('free_month'),
      sql<number>`coalesce(sum(case when status <> 'released' and created_at >= ${monthStart} then paid_milli else 0 end), 0)`.as('paid_month'),
    ])
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return {
    ledgerMilli: await ledgerBalanceMilli(db, accountId),
    heldFreeMilli: Number(r.held_free),
    heldPaidMilli: Number(r.held_paid),
    freeUsedThisMonthMilli: Number(r.free_month),
    paidUsedThisMonthMilli: Number(r.paid_month),
  };
}

export async function insertReservation(
  db: Conn,
  row: Omit<CreditReservationsTable, 'status' | 'settled_at' | 'created_at'> & { created_at: Date },
): Promise<void> {
  await db.insertInto('credit_reservations').values({ ...row, status: 'held', settled_at: null }).execute();
}

/**
 * Moves a held reservation to `to`, once: returns it, or undefined when there is none or it was
 * already settled (a retried job, a deleted analysis).
 */
export async function settleReservation(
  db: Conn,
  analysisId: string,
  to: 'captured' | 'released',
  at: Date,
): Promise<{ account_id: string; free_milli: number; paid_milli: number } | undefined> {
  const r = await db
    .updateTable('credit_reservations')
    .set({ status: to, settled_at: at })
    .where('analysis_id', '=', analysisId)
    .where('status', '=', 'held')
    .returning(['account_id', 'free_milli', 'paid_milli'])
    .executeTakeFirst();
  return r ? { account_id: r.account_id, free_milli: Number(r.free_milli), paid_milli: Number(r.paid_milli) } : undefined;
}

/** Marks `credits.low` as sent; true only for the call that changed it (so the event goes once). */
export async function markLowCreditNotified(db: Conn, accountId: string, at: Date): Promise<boolean> {
  const r = await db
    .updateTable('accounts')
    .set({ low_credit_notified_at: at })
    .where('id', '=', accountId)
    .where('low_credit_notified_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Re-arms `credits.low` (after a top-up, or once spendable credits are back at the threshold). */
export async function clearLowCreditNotified(db: Conn, accountId: string): Promise<void> {
  await db.updateTable('accounts').set({ low_credit_notified_at: null }).where('id', '=', accountId).where('low_credit_notified_at', 'is not', null).execute();
}
