import type { Clock } from '../clock.ts';

export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/**
 * Fixed one-second windows per key, in process memory. With several processes the limit is
 * approximate per process, which ARCHITECTURE.md allows for rate-limit windows.
 */
export class RateLimiter {
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
    const allowed = entry.count < limit;
    if (allowed) entry.count++;
    const reset = Math.max(1, Math.ceil(((window + 1) * 1000 - nowMs) / 1000));
    const headers: Record<string, string> = {
      'RateLimit-Limit': String(limit),
      'RateLimit-Remaining': String(Math.max(0, limit - entry.count)),
      'RateLimit-Reset': String(reset),
      'RateLimit-Policy': `${limit};w=1`,
    };
    if (!allowed) headers['Retry-After'] = String(reset);
    return { allowed, headers };
  }

  private prune(current: number): void {
    for (const [k, v] of this.windows) if (v.window < current) this.windows.delete(k);
  }
}
