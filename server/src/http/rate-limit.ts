import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { countRateLimitHit } from '../db/rate-limits.ts';
import type { DB } from '../db/schema.ts';

export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * Counts one request against `bucket` (at most `limit` a second). The memory store answers at once; the database store
 * answers with a promise (one statement), except for a bucket already refused in the current second.
 */
export interface RateLimiter {
  hit(bucket: string, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
}

/** Where request rate limits are counted (COTEJO_RATE_LIMIT_STORE). */
export type RateLimitStore = 'memory' | 'database';

/**
 * The address part of a per-address bucket. Only an IP address counts as itself: with `trust proxy` on, `req.ip` is
 * whatever the trusted proxy forwarded, and a header of free text must not make a bucket key of any size or shape.
 */
export function addressBucket(ip: string | undefined): string {
  if (ip === undefined) return 'unknown';
  const plain = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return isIP(plain) ? plain : 'unknown';
}

/** The headers every answer carries (the same for both stores), once `count` requests (this one included) are counted. */
function decide(count: number, limit: number, nowMs: number, window: number): RateLimitDecision {
  const allowed = count <= limit;
  const reset = Math.max(1, Math.ceil(((window + 1) * 1000 - nowMs) / 1000));
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - count)),
    'RateLimit-Reset': String(reset),
    'RateLimit-Policy': `${limit};w=1`,
  };
  if (!allowed) headers['Retry-After'] = String(reset);
  return { allowed, headers };
}

/**
 * Fixed one-second windows per key, in process memory: exact for one process (the embedded PGlite allows no other),
 * per process when several share a PostgreSQL (the database store is for that).
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();
  private readonly clock: Clock;
  constructor(clock: Clock) {
    this.clock = clock;
  }

  hit(bucket: string, limit: number): RateLimitDecision {
    const nowMs = this.clock.now().getTime();
    const window = Math.floor(nowMs / 1000);
    let entry = this.windows.get(bucket);
    if (!entry || entry.window !== window) {
      entry = { window, count: 0 };
      this.windows.set(bucket, entry);
      if (this.windows.size > 50_000) this.prune(window);
    }
    // A refused request is not counted: the count stays at the limit.
    if (entry.count < limit) entry.count++;
    else return decide(limit + 1, limit, nowMs, window);
    return decide(entry.count, limit, nowMs, window);
  }

  private prune(current: number): void {
    for (const [k, v] of this.windows) if (v.window < current) this.windows.delete(k);
  }
}

/** A statement slower than this is given up on (it runs on; the request does not wait for it). */
const DATABASE_TIMEOUT_MS = 2_000;
/** At most one log line per this interval while the database cannot count. */
const ERROR_LOG_INTERVAL_MS = 10_000;

/**
 * The same fixed one-second windows, counted in the database every process shares: one upsert per request, which
 * moves the bucket's row to the current window or adds one to it and returns the count (the row lock orders
 * concurrent requests of one bucket, in any process). The window comes from this process's clock: processes must keep
 * their clocks synchronised (NTP); a process a little behind counts into the window already there.
 *
 * Refused requests are counted too (the count only decides this second), and a bucket refused in this second is
 * remembered here, so a client hammering past its limit costs the database one statement per process and second, not
 * one per request.
 *
 * When the database does not answer (an error, or no answer within 2 s), the request is counted in this process's
 * memory instead and an error is logged: it fails open to the per-process limit rather than refusing traffic whose
 * own work needs the same database anyway (and the catalogue, which does not, stays up).
 */
export class DatabaseRateLimiter implements RateLimiter {
  private readonly db: Kysely<DB>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly fallback: MemoryRateLimiter;
  /** Buckets refused in a window: the window they were refused in. */
  private readonly exhausted = new Map<string, number>();
  private lastErrorLog = 0;

  constructor(db: Kysely<DB>, clock: Clock, logger: Logger) {
    this.db = db;
    this.clock = clock;
    this.logger = logger;
    this.fallback = new MemoryRateLimiter(clock);
  }

  hit(bucket: string, limit: number): RateLimitDecision | Promise<RateLimitDecision> {
    const nowMs = this.clock.now().getTime();
    const window = Math.floor(nowMs / 1000);
    if (this.exhausted.get(bucket) === window) return decide(limit + 1, limit, nowMs, window);
    return this.count(bucket, window).then(
      (count) => {
        const decision = decide(count, limit, nowMs, window);
        if (!decision.allowed) this.remember(bucket, window);
        return decision;
      },
      (err: unknown) => {
        if (Date.now() - this.lastErrorLog >= ERROR_LOG_INTERVAL_MS) {
          this.lastErrorLog = Date.now();
          this.logger.error({ err }, 'rate limit: the database did not count the request; counting in this process\'s memory meanwhile');
        }
        return this.fallback.hit(bucket, limit);
      },
    );
  }

  private async count(bucket: string, window: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${DATABASE_TIMEOUT_MS} ms`)), DATABASE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([countRateLimitHit(this.db, bucket, window), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(bucket: string, window: number): void {
    if (this.exhausted.size >= 10_000) {
      for (const [k, w] of this.exhausted) if (w < window) this.exhausted.delete(k);
      if (this.exhausted.size >= 10_000) this.exhausted.clear();
    }
    this.exhausted.set(bucket, window);
  }
}

/** The limiter a process uses: COTEJO_RATE_LIMIT_STORE, or by default the database on PostgreSQL and memory on PGlite. */
export function createRateLimiter(
  store: RateLimitStore | null,
  database: { kind: 'pglite' | 'postgres'; db: Kysely<DB> },
  clock: Clock,
  logger: Logger,
): RateLimiter {
  const chosen = store ?? (database.kind === 'postgres' ? 'database' : 'memory');
  return chosen === 'database' ? new DatabaseRateLimiter(database.db, clock, logger) : new MemoryRateLimiter(clock);
}
