import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * Counts one request of `bucket` in the one-second `window` and returns the window's count: the bucket's row moves to
 * the current window (count 1) or adds one to it. The row lock orders concurrent requests of one bucket in any process
 * (http/rate-limit.ts, DatabaseRateLimiter).
 */
export async function countRateLimitHit(db: Kysely<DB>, bucket: string, window: number): Promise<number> {
  const res = await sql<{ count: number }>`
    insert into rate_limit_windows as w (bucket, "window", count) values (${bucket}, ${window}, 1)
    on conflict (bucket) do update
      set count = case when w."window" >= excluded."window" then w.count + 1 else 1 end,
          "window" = greatest(w."window", excluded."window")
    returning count`.execute(db);
  return Number(res.rows[0].count);
}

/** Deletes the windows no request touched for a minute (the retention sweep): their counts mean nothing any more. */
export async function deleteStaleRateLimitWindows(db: Kysely<DB>, now: Date): Promise<number> {
  const before = Math.floor(now.getTime() / 1000) - 60;
  const res = await db.deleteFrom('rate_limit_windows').where('window', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
