import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../../server/src/http/context.ts';
import { handlers } from '../../server/src/routes/index.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';

/** A gate the test opens when it wants the wrapped handler to finish. */
function gate() {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const enteredP = new Promise<void>((r) => (entered = r));
  return { open, opened, entered, enteredP };
}

describe.each(DATABASES)('idempotency on %s', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-04-01T08:00:00.000Z');
  let calls = 0;
  let currentGate: ReturnType<typeof gate> | undefined;
  let failNext = false;
  const counted: Handler = async (ctx) => {
    calls++;
    if (currentGate) {
      currentGate.entered();
      await currentGate.opened;
    }
    if (failNext) {
      failNext = false;
      throw new Error('transient failure');
    }
    return handlers.createWebhookEndpoint(ctx);
  };
  beforeAll(async () => {
    app = await startTestApp(kind, { clock, handlers: { ...handlers, createWebhookEndpoint: counted } });
  });
  afterAll(() => app?.close());

  const create = (key: string, body: unknown, apiKey?: string) =>
    app.request('POST', '/v1/webhook-endpoints', { json: body, headers: { 'Idempotency-Key': key }, ...(apiKey ? { key: apiKey } : {}) });

  it('replays the same response (same secret) with Idempotent-Replayed: true, without running twice', async () => {
    const before = calls;
    const body = { url: 'https://hooks.example/a', events: ['analysis.completed'] };
    const first = await create('k-replay', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create('k-replay', { events: ['analysis.completed'], url: 'https://hooks.example/a' }); // same meaning, other key order
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.secret).toBe(first.body.secret);
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(calls - before).toBe(1);
    const list = await app.request('GET', '/v1/webhook-endpoints');
    expect(list.body.data.filter((e: { url: string }) => e.url === 'https://hooks.example/a')).toHaveLength(1);
  });

  it('422 idempotency_key_reused when the key comes back with another request', async () => {
    await create('k-reuse', { url: 'https://hooks.example/b', events: ['*'] });
    const res = await create('k-reuse', { url: 'https://hooks.example/other', events: ['*'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  });

  it('400 invalid_idempotency_key above 255 characters; 255 is fine', async () => {
    const long = await create('x'.repeat(256), { url: 'https://hooks.example/c', events: ['*'] });
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({ code: 'invalid_idempotency_key', param: 'Idempotency-Key' });
    const max = await create('y'.repeat(255), { url: 'https://hooks.example/c', events: ['*'] });
    expect(max.status).toBe(201);
  });

  it('409 idempotency_in_progress while the original runs, then replays it', async () => {
    const g = gate();
    currentGate = g;
    const before = calls;
    const body = { url: 'https://hooks.example/slow', events: ['*'] };
    const original = create('k-slow', body);
    await g.enteredP;
    const during = await Promise.all([create('k-slow', body), create('k-slow', body), create('k-slow', body)]);
    for (const r of during) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ type: 'invalid_request', code: 'idempotency_in_progress' });
      expect(r.headers.get('retry-after')).toBe('1');
    }
    currentGate = undefined;
    g.open();
    const done = await original;
    expect(done.status).toBe(201);
    const after = await create('k-slow', body);
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body.id).toBe(done.body.id);
    expect(calls - before).toBe(1);
  });

  it('a request that runs past the lock keeps its key: the retry gets 409, never a second run', async () => {
    // Before, the claim's lock expired 2 minutes after it was taken, however alive the request: a retry after that
    // took the key over and ran the operation again.
    app.services.idempotencyHeartbeatMs = 20;
    const g = gate();
    currentGate = g;
    const before = calls;
    const body = { url: 'https://hooks.example/very-slow', events: ['*'] };
    const original = create('k-very-slow', body);
    await g.enteredP;
    // Ten minutes pass (five lock lifetimes); the request renews its lock all along.
    for (let minute = 0; minute < 10; minute++) {
      clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 80));
    }
    const retry = await create('k-very-slow', body);
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('idempotency_in_progress');
    currentGate = undefined;
    g.open();
    expect((await original).status).toBe(201);
    expect(calls - before).toBe(1);
    app.services.idempotencyHeartbeatMs = undefined;
  });

  it('runs exactly once under concurrent identical requests', async () => {
    const before = calls;
    const body = { url: 'https://hooks.example/race', events: ['batch.completed'] };
    const results = await Promise.all(Array.from({ length: 12 }, () => create('k-race', body)));
    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    expect(calls - before).toBe(1);
    const list = await app.request('GET', '/v1/webhook-endpoints');
    expect(list.body.data.filter((e: { url: string }) => e.url === body.url)).toHaveLength(1);
  });

  it('stores client errors for replay (with the new request id), but forgets 5xx so a retry runs', async () => {
    const bad = await create('k-400', { url: 'http://hooks.example/plain', events: ['*'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_url');
    const badAgain = await create('k-400', { url: 'http://hooks.example/plain', events: ['*'] });
    expect(badAgain.status).toBe(400);
    expect(badAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(badAgain.body.error.request_id).toBe(badAgain.headers.get('x-request-id'));

    failNext = true;
    const body = { url: 'https://hooks.example/flaky', events: ['*'] };
    const failed = await create('k-500', body);
    expect(failed.status).toBe(500);
    const retried = await create('k-500', body);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys per account and mode, and forgets them after 24 hours', async () => {
    const body = { url: 'https://hooks.example/scoped', events: ['*'] };
    const test = await create('k-scope', body);
    const live = await create('k-scope', body, app.account.keys.live);
    expect(live.status).toBe(201);
    expect(live.body.id).not.toBe(test.body.id);
    expect(live.headers.get('idempotent-replayed')).toBeNull();

    clock.advance(24 * 3600 * 1000 + 1000);
    const reused = await create('k-scope', { url: 'https://hooks.example/new-day', events: ['*'] });
    expect(reused.status).toBe(201);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
  });
});
