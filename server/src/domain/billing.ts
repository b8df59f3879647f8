import type { Transaction } from 'kysely';
import type { components } from '../../../generated/api.d.ts';
import {
  CHARGE_REASON,
  clearLowCreditNotified,
  creditTotals,
  insertLedgerEntry,
  insertReservation,
  lockAccount,
  markLowCreditNotified,
  settleReservation,
  type CreditTotals,
} from '../db/credits.ts';
import { findAccount } from '../db/accounts.ts';
import type { DB } from '../db/schema.ts';
import { aggregateUsage, recordUsage } from '../db/usage.ts';
import type { Auth, Services } from '../context.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { emitEvent } from './events.ts';
import type { Ended } from './lifecycle.ts';

export type Balance = components['schemas']['Balance'];
export type Usage = components['schemas']['Usage'];
export type CreditsLowData = components['schemas']['CreditsLowData'];

/** Prices in milli-credits (docs/decisions.md); test mode and failed analyses cost 0. */
export const PRICES_MILLI = { analysis: 1000, classification: 200, batch_analysis: 1000 } as const;
/** Free credits per calendar month (UTC), live mode only. */
export const FREE_TIER_MILLI = 50_000;

export function priceMilli(kind: 'analysis' | 'classification', inBatch: boolean): number {
  if (kind === 'classification') return PRICES_MILLI.classification;
  return inBatch ? PRICES_MILLI.batch_analysis : PRICES_MILLI.analysis;
}

function monthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

function nextMonthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/** What can be spent now, in milli-credits: paid credits not held, and the free tier left this month. */
function spendableParts(t: CreditTotals): { availableMilli: number; freeRemainingMilli: number } {
  return { availableMilli: t.ledgerMilli - t.heldPaidMilli, freeRemainingMilli: Math.max(0, FREE_TIER_MILLI - t.freeUsedThisMonthMilli) };
}

const credits = (milli: number): number => milli / 1000;

/**
 * The account's credits. `credits_available` is the paid ledger (top-ups minus charges) less what running
 * live work holds; `free_tier_remaining` is this month's free tier less what was used or is held;
 * `credits_reserved` is everything held.
 */
export async function getBalance(s: Services, auth: Auth): Promise<Balance> {
  const now = s.clock.now();
  const t = await creditTotals(s.db, auth.account.id, monthStart(now));
  const { availableMilli, freeRemainingMilli } = spendableParts(t);
  return {
    object: 'balance',
    credits_available: credits(availableMilli),
    credits_reserved: credits(t.heldFreeMilli + t.heldPaidMilli),
    free_tier_remaining: credits(freeRemainingMilli),
    credits_spendable: credits(availableMilli + freeRemainingMilli),
    free_tier_resets_at: nextMonthStart(now).toISOString(),
  };
}

export interface ReservationItem {
  analysis_id: string;
  price_milli: number;
  batch_id: string | null;
}

/**
 * Holds the price of live work before it is created, in the caller's transaction (the account row is
 * locked, so concurrent requests decide one after another). A batch is covered for every document or
 * refused whole. The free tier is used first (only with a verified email), then paid credits, which the
 * monthly cap limits. Test mode holds nothing.
 */
export async function reserveCredits(trx: Transaction<DB>, s: Services, auth: Auth, items: ReservationItem[]): Promise<void> {
  if (!auth.livemode || items.length === 0) return;
  const account = await lockAccount(trx, auth.account.id);
  const now = s.clock.now();
  const t = await creditTotals(trx, account.id, monthStart(now));
  const { availableMilli, freeRemainingMilli } = spendableParts(t);
  const total = items.reduce((sum, i) => sum + i.price_milli, 0);
  const freeUsable = account.email_verified ? freeRemainingMilli : 0;
  const paidNeeded = total - Math.min(total, freeUsable);
  const what = items.length > 1 ? `los ${items.length} documentos del lote` : 'este documento';

  if (paidNeeded > availableMilli) {
    if (!account.email_verified && total <= availableMilli + freeRemainingMilli) {
      throw new ApiError(402, 'email_not_verified', 'Para usar los créditos gratuitos en modo live, verifica el email de la cuenta (o añade créditos).');
    }
    throw new ApiError(402, 'insufficient_credits', `No hay créditos suficientes para ${what}: se necesitan ${credits(total)} y hay ${credits(availableMilli + freeUsable)} disponibles.`);
  }
  const cap = account.monthly_credit_cap_milli;
  if (cap !== null && t.paidUsedThisMonthMilli + paidNeeded > cap) {
    throw new ApiError(402, 'monthly_cap_reached', `Se superaría el límite mensual de gasto de la cuenta (${credits(cap)} créditos); no se ha cobrado nada. Se restablece el día 1 (UTC).`);
  }

  let freeLeft = freeUsable;
  for (const item of items) {
    const free = Math.min(item.price_milli, freeLeft);
    freeLeft -= free;
    await insertReservation(trx, {
      analysis_id: item.analysis_id,
      account_id: account.id,
      batch_id: item.batch_id,
      free_milli: free,
      paid_milli: item.price_milli - free,
      created_at: now,
    });
  }
}

/**
 * Turns the analysis's held reservation into its charge, once (a retried job finds nothing held):
 * the paid part becomes a `charge` ledger entry. Returns the milli-credits charged (0 in test mode).
 */
export async function captureCredits(trx: Transaction<DB>, s: Services, analysisId: string): Promise<number> {
  const now = s.clock.now();
  const r = await settleReservation(trx, analysisId, 'captured', now);
  if (!r) return 0;
  if (r.paid_milli > 0) {
    await insertLedgerEntry(trx, {
      id: newId('ledger_entry', now.getTime()),
      account_id: r.account_id,
      amount_milli: -r.paid_milli,
      reason: CHARGE_REASON,
      reference: analysisId,
      created_at: now,
    });
  }
  return r.free_milli + r.paid_milli;
}

/** Gives back what a failed or deleted analysis held (nothing is charged). */
export async function releaseCredits(db: Services['db'] | Transaction<DB>, s: Services, analysisId: string): Promise<void> {
  await settleReservation(db, analysisId, 'released', s.clock.now());
}

/**
 * After a charge: `credits.low` (live endpoints) when spendable credits are below the account's
 * threshold, once; it is armed again by a top-up or once spendable credits are back at the threshold.
 */
export async function notifyIfLow(s: Services, accountId: string, emit: (data: CreditsLowData, trx: Transaction<DB>) => Promise<void>): Promise<void> {
  const account = await findAccount(s.db, accountId);
  if (!account) return;
  const t = await creditTotals(s.db, accountId, monthStart(s.clock.now()));
  const { availableMilli, freeRemainingMilli } = spendableParts(t);
  const spendable = availableMilli + freeRemainingMilli;
  if (spendable >= account.low_credit_threshold_milli) {
    await clearLowCreditNotified(s.db, accountId);
    return;
  }
  // The flag and the event commit together: never marked sent without being sent.
  await s.db.transaction().execute(async (trx) => {
    if (!(await markLowCreditNotified(trx, accountId, s.clock.now()))) return;
    await emit(
      {
        object: 'balance',
        credits_available: credits(availableMilli),
        free_tier_remaining: credits(freeRemainingMilli),
        credits_spendable: credits(spendable),
        threshold: credits(account.low_credit_threshold_milli),
      },
      trx,
    );
  });
}

const isoDay = (d: Date): string => d.toISOString().slice(0, 10);

export async function getUsage(
  s: Services,
  auth: Auth,
  q: { from?: string; to?: string; type?: string; kind?: 'analysis' | 'classification' | 'batch_analysis' },
): Promise<Usage> {
  const now = s.clock.now();
  const from = q.from ?? isoDay(monthStart(now));
  const to = q.to ?? isoDay(now);
  // The `date` format admits year 0000, which the calendar (and PostgreSQL) has not.
  for (const [param, day] of [['from', from], ['to', to]] as const) {
    if (day < '0001-01-01') throw new ApiError(422, 'invalid_parameter', `'${param}' está fuera del calendario (el año 0000 no existe).`, param);
  }
  if (to < from) throw new ApiError(422, 'invalid_parameter', "'to' no puede ser anterior a 'from'.", 'to');
  const rows = await aggregateUsage(s.db, { account_id: auth.account.id, livemode: auth.livemode }, { from, to, type: q.type, kind: q.kind });
  const data = rows.map((r) => ({ date: r.day, type: r.document_type, kind: r.kind, count: r.count, pages: r.pages, credits: credits(r.credits_milli) }));
  // Summed in milli-credits: 0.2 + 0.2 + 0.2 must be 0.6, not 0.6000000000000001.
  const sum = rows.reduce((t, r) => ({ count: t.count + r.count, pages: t.pages + r.pages, milli: t.milli + r.credits_milli }), { count: 0, pages: 0, milli: 0 });
  return { object: 'usage', from, to, livemode: auth.livemode, data, totals: { count: sum.count, pages: sum.pages, credits: credits(sum.milli) } };
}

/** The usage record of an analysis that ended (one per analysis), in the transaction that ended it when there is one. */
export async function recordUsageOf(s: Services, { row, trx }: Ended): Promise<void> {
  await recordUsage(trx ?? s.db, {
    analysis_id: row.id,
    account_id: row.account_id,
    livemode: row.livemode,
    day: (row.completed_at ?? s.clock.now()).toISOString().slice(0, 10),
    document_type: row.document_type ?? 'unknown',
    kind: row.kind === 'classification' ? 'classification' : row.batch_id ? 'batch_analysis' : 'analysis',
    pages: row.file_pages,
    credits_milli: row.credits_milli,
    created_at: s.clock.now(),
  });
}

/** After an ending that charged credits: `credits.low` when the account's spendable credits fell under its threshold. */
export async function warnIfLow(s: Services, { row, charged }: Ended): Promise<void> {
  if (charged <= 0) return;
  await notifyIfLow(s, row.account_id, async (data, trx) => {
    await emitEvent(s, { account_id: row.account_id, livemode: true }, 'credits.low', data, { within: trx });
  });
}
