import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../server/src/db/accounts.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';

describe.each(DATABASES)('rate limit on %s', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
  });
  afterAll(() => app?.close());

  it('allows 10 requests per second per key by default, then 429 rate_limited with Retry-After', async () => {
    const acct = await app.newAccount();
    const key = acct.keys.test;
    for (let i = 0; i < 10; i++) {
      const res = await app.request('GET', '/v1/webhook-endpoints', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('10');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(9 - i));
      expect(res.headers.get('ratelimit-policy')).toBe('10;w=1');
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    }
    const limited = await app.request('GET', '/v1/webhook-endpoints', { key });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ type: 'rate_limited', code: 'rate_limited' });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');

    // Another key of another account is not affected; the same key recovers in the next second.
    expect((await app.request('GET', '/v1/webhook-endpoints', { key: app.account.keys.test })).status).toBe(200);
    clock.advance(1000);
    expect((await app.request('GET', '/v1/webhook-endpoints', { key })).status).toBe(200);
  });

  it('takes the per-account limit', async () => {
    const acct = await app.newAccount();
    await updateAccount(app.services.db, acct.account, { rate_limit_per_second: 3 });
    clock.advance(1000);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await app.request('GET', '/v1/webhook-endpoints', { key: acct.keys.test })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('public routes have their own per-address limit (COTEJO_PUBLIC_RATE_LIMIT), apart from failed authentication', async () => {
    const own = await startTestApp(kind, { clock, config: { publicRateLimitPerSecond: 5 } });
    try {
      clock.advance(1000);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await own.request('GET', '/v1/document-types/es_dni', { key: null })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      // Spent on the catalogue, the address may still fail authentication (its own bucket of 50).
      const unauthenticated = await own.request('GET', '/v1/webhook-endpoints', { key: null });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.headers.get('ratelimit-limit')).toBe('50');
    } finally {
      await own.close();
    }
  });

  it('limits requests without a valid key per address, with the same headers', async () => {
    clock.advance(1000);
    const res = await app.request('GET', '/v1/webhook-endpoints', { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-limit')).toBe('50');
    let last = res;
    for (let i = 0; i < 50; i++) last = await app.request('GET', '/v1/webhook-endpoints', { key: null });
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe('rate_limited');
  });
});
