// Request rate limits shared by every process (#18): two app instances on one database count one budget per key and
// per address (the database store), and COTEJO_TRUST_PROXY decides whose X-Forwarded-For names the client.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/src/app.ts';
import type { Config } from '../../server/src/config.ts';
import type { DB } from '../../server/src/db/schema.ts';
import type { Services } from '../../server/src/http/context.ts';
import { answerClientErrors } from '../../server/src/http/client-errors.ts';
import { DatabaseRateLimiter } from '../../server/src/http/rate-limit.ts';
import { sweepRetention } from '../../server/src/jobs/worker.ts';
import { createLogger } from '../../server/src/logger.ts';
import { openServices } from '../../server/src/services.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp, type TestResponse } from '../support/app.ts';
import { assertMatchesSpec } from '../support/spec.ts';

type Send = (method: string, path: string, opts?: { key?: string | null; headers?: Record<string, string> }) => Promise<TestResponse>;

/**
 * A second "process" on the first one's database: on PostgreSQL its own services (its own connection pool, its own
 * limiter and fast path) on the first app's schema; on PGlite (one process per data dir) a second app over the same
 * services, which still has a limiter and a fast path of its own.
 */
async function secondProcess(first: TestApp, config: Partial<Config> = {}): Promise<{ send: Send; close(): Promise<void> }> {
  let services: Services;
  let own = false;
  if (first.kind === 'postgres') {
    services = await openServices({ ...first.services.config, ...config }, first.clock, createLogger('silent'), { schema: first.services.database.schema, poolSize: 3 });
    own = true;
  } else {
    services = { ...first.services, config: { ...first.services.config, ...config } };
  }
  const server = http.createServer(buildApp(services));
  answerClientErrors(server, services.logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    send: (method, path, opts = {}) => send(base, first.account.keys.test, method, path, opts),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (own) await services.database.close();
    },
  };
}

async function send(base: string, defaultKey: string, method: string, path: string, opts: { key?: string | null; headers?: Record<string, string> } = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? defaultKey : opts.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  const res = await fetch(base + path, { method, headers });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const body = (res.headers.get('content-type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : text;
  const out = { status: res.status, headers: res.headers, body, text, bytes };
  assertMatchesSpec(method, path, out);
  return out;
}

const sendVia = (app: TestApp): Send => (method, path, opts = {}) => app.request(method, path, opts);

describe.each(DATABASES)('rate limits shared by two processes on %s (database store)', (kind) => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  let a: TestApp;
  let b: Awaited<ReturnType<typeof secondProcess>>;
  beforeAll(async () => {
    // On PostgreSQL the database store is the default; on PGlite it is asked for (it works there too, for one process).
    a = await startTestApp(kind, { clock, config: { rateLimitStore: kind === 'pglite' ? 'database' : null, publicRateLimitPerSecond: 4 } });
    b = await secondProcess(a);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('one budget of 10 a second per key across both: the 11th gets 429 with Retry-After, from either', async () => {
    clock.advance(1000);
    const acct = await a.newAccount();
    const key = acct.keys.test;
    const both = [sendVia(a), b.send];
    for (let i = 0; i < 10; i++) {
      const res = await both[i % 2]('GET', '/v1/webhook-endpoints', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('10');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(9 - i));
      expect(res.headers.get('ratelimit-policy')).toBe('10;w=1');
      expect(res.headers.get('ratelimit-reset')).toBe('1');
    }
    for (const s of both) {
      const limited = await s('GET', '/v1/webhook-endpoints', { key });
      expect(limited.status).toBe(429);
      expect(limited.body.error).toMatchObject({ type: 'rate_limited', code: 'rate_limited' });
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('ratelimit-limit')).toBe('10');
    }
    // The next second is a fresh budget in both.
    clock.advance(1000);
    expect((await b.send('GET', '/v1/webhook-endpoints', { key })).headers.get('ratelimit-remaining')).toBe('9');
    expect((await a.request('GET', '/v1/webhook-endpoints', { key })).headers.get('ratelimit-remaining')).toBe('8');
  });

  it('Retry-After and RateLimit-Reset count the rest of the second', async () => {
    clock.set('2026-03-01T12:10:00.000Z');
    const acct = await a.newAccount({ rateLimitPerSecond: 1 });
    expect((await a.request('GET', '/v1/webhook-endpoints', { key: acct.keys.test })).status).toBe(200);
    clock.advance(400);
    const limited = await b.send('GET', '/v1/webhook-endpoints', { key: acct.keys.test });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    clock.advance(600);
    expect((await b.send('GET', '/v1/webhook-endpoints', { key: acct.keys.test })).status).toBe(200);
  });

  it('the public per-address limit is shared too (the fast path of each process included)', async () => {
    clock.advance(1000);
    const both = [sendVia(a), b.send];
    const statuses: number[] = [];
    // Each process answers its first catalogue request through the pipeline, the repeats on its fast path.
    for (let i = 0; i < 6; i++) statuses.push((await both[i % 2]('GET', '/v1/document-types/es_dni', { key: null })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    clock.advance(1000);
    const again = await b.send('GET', '/v1/document-types/es_dni', { key: null });
    expect(again.status).toBe(200);
    expect(again.headers.get('ratelimit-remaining')).toBe('3');
  });

  it('failed authentication is limited per address across both (50 a second)', async () => {
    clock.advance(1000);
    const both = [sendVia(a), b.send];
    for (let i = 0; i < 50; i++) {
      const res = await both[i % 2]('GET', '/v1/webhook-endpoints', { key: 'sk_test_not_a_real_key' });
      expect(res.status).toBe(401);
    }
    const limited = await b.send('GET', '/v1/webhook-endpoints', { key: 'sk_test_not_a_real_key' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('ratelimit-limit')).toBe('50');
  });

  it('the retention sweep deletes windows no request touched for a minute', async () => {
    clock.advance(1000);
    const acct = await a.newAccount();
    expect((await a.request('GET', '/v1/webhook-endpoints', { key: acct.keys.test })).status).toBe(200);
    const bucket = (await a.services.db.selectFrom('rate_limit_windows').select(['bucket', 'count']).where('bucket', 'like', 'key:%').orderBy('window', 'desc').executeTakeFirstOrThrow());
    expect(bucket.count).toBe(1);
    await sweepRetention(a.services);
    expect(await a.services.db.selectFrom('rate_limit_windows').select('bucket').where('bucket', '=', bucket.bucket).executeTakeFirst()).toBeDefined();
    clock.advance(61_000);
    await sweepRetention(a.services);
    expect(await a.services.db.selectFrom('rate_limit_windows').select('bucket').where('bucket', '=', bucket.bucket).executeTakeFirst()).toBeUndefined();
  });
});

describe.each(DATABASES)('memory store on %s: each process counts alone', (kind) => {
  it('two processes each allow the key its 10 (the limit is per process)', async () => {
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const a = await startTestApp(kind, { clock, config: { rateLimitStore: 'memory' } });
    const b = await secondProcess(a);
    try {
      const key = (await a.newAccount()).keys.test;
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await a.request('GET', '/v1/webhook-endpoints', { key })).status);
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
      expect((await b.send('GET', '/v1/webhook-endpoints', { key })).headers.get('ratelimit-remaining')).toBe('9');
      expect(await a.services.db.selectFrom('rate_limit_windows').selectAll().execute()).toEqual([]);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

describe('database store when the database does not answer', () => {
  it('fails open to this process\'s memory, with the same headers, and logs the error once', async () => {
    // A pool pointed at a port nobody listens on: every statement fails to connect.
    const pool = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:9/none', connectionTimeoutMillis: 1000 });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    // What the limiter logs, as pino's calls (an object, then a message).
    const errors: Array<{ obj: unknown; msg: string }> = [];
    const logger = { error: (obj: unknown, msg: string) => void errors.push({ obj, msg }) } as unknown as ConstructorParameters<typeof DatabaseRateLimiter>[2];
    const clock = new ManualClock('2026-03-01T12:00:00.000Z');
    const limiter = new DatabaseRateLimiter(db, clock, logger);
    try {
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.hit('key:k1', 3));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(decisions[0].headers).toEqual({ 'RateLimit-Limit': '3', 'RateLimit-Remaining': '2', 'RateLimit-Reset': '1', 'RateLimit-Policy': '3;w=1' });
      expect(decisions[3].headers['Retry-After']).toBe('1');
      expect(errors).toHaveLength(1);
      expect(errors[0].msg).toContain('rate limit');
    } finally {
      await db.destroy();
    }
  });
});

describe.each(DATABASES)('COTEJO_TRUST_PROXY on %s', (kind) => {
  const clock = new ManualClock('2026-03-01T12:00:00.000Z');
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((x) => x.close()));
  });
  const start = async (trustProxy: Config['trustProxy']): Promise<TestApp> => {
    const app = await startTestApp(kind, { clock, config: { publicRateLimitPerSecond: 3, trustProxy } });
    apps.push(app);
    return app;
  };
  const catalogue = (app: TestApp, forwardedFor: string) => app.request('GET', '/v1/document-types/es_dni', { key: null, headers: { 'X-Forwarded-For': forwardedFor } });

  it('off (the default): X-Forwarded-For is ignored, every client behind the proxy shares its address', async () => {
    const app = await start(false);
    clock.advance(1000);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await catalogue(app, `203.0.113.${i + 1}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('one hop: two clients behind the proxy get a budget each (pipeline and fast path)', async () => {
    const app = await start(1);
    clock.advance(1000);
    for (const client of ['203.0.113.7', '198.51.100.9']) {
      const statuses: number[] = [];
      // A client may claim more hops: only the one the proxy appended (the last) is believed.
      for (let i = 0; i < 4; i++) statuses.push((await catalogue(app, `10.9.9.${i}, ${client}`)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    }
    // Failed authentication too is counted per forwarded client.
    const res = await app.request('GET', '/v1/webhook-endpoints', { key: null, headers: { 'X-Forwarded-For': '192.0.2.44' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-remaining')).toBe('49');
  });

  it('a list of proxies: believed only from them', async () => {
    const trusted = await start(['loopback']);
    const other = await start(['10.0.0.0/8']);
    clock.advance(1000);
    expect((await catalogue(trusted, '203.0.113.50')).headers.get('ratelimit-remaining')).toBe('2');
    expect((await catalogue(trusted, '203.0.113.51')).headers.get('ratelimit-remaining')).toBe('2');
    expect((await catalogue(other, '203.0.113.50')).headers.get('ratelimit-remaining')).toBe('2');
    // The connection comes from 127.0.0.1, not from 10.0.0.0/8: the header is ignored.
    expect((await catalogue(other, '203.0.113.51')).headers.get('ratelimit-remaining')).toBe('1');
  });

  it('something forwarded that is not an address counts as one shared "unknown" client', async () => {
    const app = await start(true);
    clock.advance(1000);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await catalogue(app, `not-an-ip-${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
