import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/**
 * The pages an account's bucket holds at `now`: what it held at its last change, refilled at `capacity` / 60 a second
 * since then, never above `capacity` (one minute's worth). `b` is the bucket row.
 */
const tokensAt = (capacity: number | RawBuilder<unknown>, now: Date) => {
  const cap = typeof capacity === 'number' ? sql`${capacity}::float8` : capacity;
  return sql`least(${cap}, b.tokens + greatest(0, extract(epoch from (${now}::timestamptz - b.updated_at))::float8) * ${cap} / 60)`;
};

export interface CapacityRequest {
  accountId: string;
  /** Pages this request reads (taken from the bucket when admitted, even past zero). */
  pages: number;
  /** Pages the bucket must hold to admit it: `pages`, or a full bucket for a request larger than one. */
  need: number;
  /** The account's pages per minute: the bucket's size; it refills at a sixtieth of it a second. */
  capacity: number;
  now: Date;
  /** A synchronous live analysis also takes a slot, when fewer than `limit` of the account's are live. */
  slot?: { analysisId: string; expiresAt: Date; limit: number };
}

/**
 * One statement: takes the request's pages from the account's bucket when it holds `need` (a conditional upsert: the
 * row's lock orders concurrent requests, in any process), and then, when asked and the pages were taken, a slot
 * if fewer than `slot.limit` unexpired slots of the account exist (expired ones are deleted on the way).
 *
 * The slot count is exact only when the caller holds the account's row lock (`lockAccount`, taken by
 * `reserveCredits` earlier in the same transaction): under READ COMMITTED the count reads the statement's snapshot,
 * and the lock is what makes a concurrent request of the account wait for this one's commit. A refusal leaves both as
 * they were once the caller's transaction rolls back (the caller throws).
 */
export async function takeLiveCapacity(trx: Transaction<DB>, r: CapacityRequest): Promise<{ pages: boolean; slot: boolean }> {
  const bucket = sql`
    insert into live_page_buckets as b (account_id, tokens, updated_at)
    values (${r.accountId}, ${r.capacity}::float8 - ${r.pages}::float8, ${r.now}::timestamptz)
    on conflict (account_id) do update
      set tokens = ${tokensAt(r.capacity, r.now)} - ${r.pages}::float8,
          updated_at = greatest(b.updated_at, ${r.now}::timestamptz)
      where ${tokensAt(r.capacity, r.now)} >= ${r.need}::float8
    returning 1`;
  if (!r.slot) {
    const res = await sql<{ ok: number }>`with bucket as (${bucket}) select count(*)::int as ok from bucket`.execute(trx);
    return { pages: Number(res.rows[0]?.ok ?? 0) > 0, slot: false };
  }
  const { analysisId, expiresAt, limit } = r.slot;
  const res = await sql<{ pages_ok: number; slot_ok: number }>`
    with bucket as (${bucket}),
    expired as (delete from live_sync_slots where account_id = ${r.accountId} and expires_at <= ${r.now}::timestamptz),
    slot as (
      insert into live_sync_slots (analysis_id, account_id, expires_at)
      select ${analysisId}, ${r.accountId}, ${expiresAt}::timestamptz
      where exists (select 1 from bucket)
        and (select count(*) from live_sync_slots s where s.account_id = ${r.accountId} and s.expires_at > ${r.now}::timestamptz) < ${limit}::int
      returning 1
    )
    select (select count(*) from bucket)::int as pages_ok, (select count(*) from slot)::int as slot_ok`.execute(trx);
  const row = res.rows[0];
  return { pages: Number(row?.pages_ok ?? 0) > 0, slot: Number(row?.slot_ok ?? 0) > 0 };
}

/** The pages the account's bucket holds at `now` (a full bucket when it has none yet). */
export async function pagesAvailable(db: Conn, accountId: string, capacity: number, now: Date): Promise<number> {
  const res = await sql<{ tokens: number }>`select ${tokensAt(capacity, now)} as tokens from live_page_buckets b where b.account_id = ${accountId}`.execute(db);
  return res.rows.length === 0 ? capacity : Number(res.rows[0].tokens);
}

/**
 * Takes pages from the account's bucket whatever it holds (it may go below zero: later requests wait longer). For
 * pages learnt after the work was admitted: a batch `file_url` item, counted as one page until downloaded.
 */
export async function spendPages(db: Conn, accountId: string, pages: number, now: Date): Promise<void> {
  const cap = sql`(select live_pages_per_minute::float8 from accounts where id = ${accountId})`;
  await sql`
    insert into live_page_buckets as b (account_id, tokens, updated_at)
    select a.id, a.live_pages_per_minute::float8 - ${pages}::float8, ${now}::timestamptz from accounts a where a.id = ${accountId}
    on conflict (account_id) do update
      set tokens = ${tokensAt(cap, now)} - ${pages}::float8,
          updated_at = greatest(b.updated_at, ${now}::timestamptz)`.execute(db);
}

/** The reading of this synchronous analysis goes on: its slot lives until `expiresAt`. */
export async function extendSlot(db: Conn, analysisId: string, expiresAt: Date): Promise<void> {
  await db.updateTable('live_sync_slots').set({ expires_at: expiresAt }).where('analysis_id', '=', analysisId).execute();
}

/** The reading ended (or left for the queue): the slot counts no more. */
export async function releaseSlot(db: Conn, analysisId: string): Promise<void> {
  await db.deleteFrom('live_sync_slots').where('analysis_id', '=', analysisId).execute();
}

/** Unexpired slots of the account (tests, diagnostics). */
export async function slotsInUse(db: Conn, accountId: string, now: Date): Promise<number> {
  const r = await db
    .selectFrom('live_sync_slots')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
