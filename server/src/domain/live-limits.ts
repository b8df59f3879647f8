import type { Transaction } from 'kysely';
import { pagesAvailable, takeLiveCapacity } from '../db/live-limits.ts';
import type { DB } from '../db/schema.ts';
import type { Auth, Services } from '../context.ts';
import { ApiError } from '../errors.ts';

/**
 * The live-mode limits of the specification, counted in the database so that every process sharing it sees them
 * (docs/live-mode.md, "Limits and profiles"):
 * - pages per minute (analyze, classify, batches): a token bucket per account holding at most one minute's worth
 *   (`live_pages_per_minute`) and refilled at a sixtieth of it a second; past it 429 `pages_rate_limited` with the
 *   exact `Retry-After`;
 * - concurrent synchronous analyses (analyze and classify without `async`): a slot per running reading; past
 *   `live_concurrency_limit` 429 `concurrency_limit`.
 * Test mode is never limited.
 */

/** How long a slot lives without news from its process; the process renews it with its job's lease. */
export const SLOT_LEASE_MS = 2 * 60 * 1000;
/** `Retry-After` of `concurrency_limit`: when a running reading ends is not known; most end within seconds. */
export const CONCURRENCY_RETRY_AFTER_S = 1;

/**
 * Admits live work in the caller's transaction, which must already hold the account's row lock (`reserveCredits`
 * takes it): its pages are taken from the bucket and, for a synchronous analysis (`syncAnalysisId`), a slot. A refusal
 * throws the 429; the caller's transaction then rolls back, so nothing of the request stays (no analysis, no held
 * credits, no pages, no slot). A request larger than the bucket (an async 200-page PDF, a big batch) waits for a full
 * bucket and takes it below zero: later requests wait until the debt is read off.
 */
export async function admitLiveWork(
  trx: Transaction<DB>,
  s: Services,
  auth: Auth,
  work: { pages: number; what: 'document' | 'batch'; syncAnalysisId?: string },
): Promise<void> {
  if (!auth.livemode) return;
  const { id: accountId, live_pages_per_minute: capacity, live_concurrency_limit: limit } = auth.account;
  const now = s.clock.now();
  const need = Math.min(work.pages, capacity);
  const got = await takeLiveCapacity(trx, {
    accountId,
    pages: work.pages,
    need,
    capacity,
    now,
    ...(work.syncAnalysisId ? { slot: { analysisId: work.syncAnalysisId, expiresAt: new Date(now.getTime() + SLOT_LEASE_MS), limit } } : {}),
  });
  if (!got.pages) {
    const available = await pagesAvailable(trx, accountId, capacity, now);
    const wait = Math.max(1, Math.ceil(((need - available) * 60) / capacity - 1e-6));
    const what = work.what === 'batch' ? `este lote tiene ${work.pages}` : `este documento tiene ${work.pages}`;
    throw new ApiError(
      429,
      'pages_rate_limited',
      `Has superado el límite de páginas por minuto de la cuenta en modo live (${capacity}; ${what}). Reinténtalo dentro de ${wait} s (cabecera Retry-After).`,
      undefined,
      { 'Retry-After': String(wait) },
    );
  }
  if (work.syncAnalysisId && !got.slot) {
    throw new ApiError(
      429,
      'concurrency_limit',
      `La cuenta ya tiene ${limit} análisis síncronos en curso en modo live, su máximo. Reinténtalo cuando termine alguno, o usa async: true.`,
      undefined,
      { 'Retry-After': String(CONCURRENCY_RETRY_AFTER_S) },
    );
  }
}
