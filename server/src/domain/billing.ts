import type { components } from '../../../generated/api.d.ts';
import { ledgerBalanceMilli } from '../db/credits.ts';
import { aggregateUsage, freeTierUsedMilli } from '../db/usage.ts';
import type { Auth, Services } from '../http/context.ts';
import { ApiError } from '../http/errors.ts';

export type Balance = components['schemas']['Balance'];
export type Usage = components['schemas']['Usage'];

/** Prices in milli-credits (docs/decisions.md); test mode and failed analyses cost 0. */
export const PRICES_MILLI = { analysis: 1000, classification: 200, batch_analysis: 1000 } as const;
/** Free credits per calendar month (UTC), live mode only. */
export const FREE_TIER_MILLI = 50_000;

function monthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

function nextMonthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/**
 * The account's credits. Paid credits are the ledger's sum (top-ups minus charges); the free tier
 * resets on the 1st (UTC); nothing is reserved while no live work is running.
 */
export async function getBalance(s: Services, auth: Auth): Promise<Balance> {
  const now = s.clock.now();
  const available = (await ledgerBalanceMilli(s.db, auth.account.id)) + (await freeTierUsedMilli(s.db, auth.account.id, new Date(0)));
  const freeRemaining = Math.max(0, FREE_TIER_MILLI - (await freeTierUsedMilli(s.db, auth.account.id, monthStart(now))));
  return {
    object: 'balance',
    credits_available: available / 1000,
    credits_reserved: 0,
    free_tier_remaining: freeRemaining / 1000,
    credits_spendable: (available + freeRemaining) / 1000,
    free_tier_resets_at: nextMonthStart(now).toISOString(),
  };
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
  if (to < from) throw new ApiError(422, 'invalid_parameter', "'to' no puede ser anterior a 'from'.", 'to');
  const rows = await aggregateUsage(s.db, { account_id: auth.account.id, livemode: auth.livemode }, { from, to, type: q.type, kind: q.kind });
  const data = rows.map((r) => ({ date: r.day, type: r.document_type, kind: r.kind, count: r.count, pages: r.pages, credits: r.credits_milli / 1000 }));
  const totals = data.reduce((t, r) => ({ count: t.count + r.count, pages: t.pages + r.pages, credits: t.credits + r.credits }), { count: 0, pages: 0, credits: 0 });
  return { object: 'usage', from, to, livemode: auth.livemode, data, totals };
}
