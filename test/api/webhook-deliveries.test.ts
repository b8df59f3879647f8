/**
 * Signed webhook deliveries with retries, end to end: endpoints made through the API, events from real
 * analyses, deliveries to a local HTTPS receiver (127.0.0.1, self-signed certificate made at test time,
 * trusted through the sender's `ca` option), private targets allowed by `allowPrivateUrls` except where
 * the refusal itself is tested. Time only moves through the ManualClock; nothing waits for a retry.
 * Every delivery is verified with the `standardwebhooks` library, with `svix`'s verifier, and by
 * recomputing the HMAC with node:crypto.
 */
import crypto from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { attemptsOf, claimDueDeliveries, findDelivery, listDeliveriesOfEndpoint } from '../../server/src/db/webhook-deliveries.ts';
import { insertWebhookEndpoint } from '../../server/src/db/webhook-endpoints.ts';
import { newWebhookSecret } from '../../server/src/domain/webhook-endpoints.ts';
import { newId } from '../../server/src/ids.ts';
import {
  DELIVERY_LEASE_MS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
  deliverClaimed,
  fanOutEvent,
  runDueDeliveries,
  type RunDeliveriesOptions,
} from '../../server/src/webhooks/deliveries.ts';
import type { SenderOptions } from '../../server/src/webhooks/sender.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../unit/webhooks/receiver.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Checks one received delivery three ways. `atSendTime`: judge the timestamp as if received when sent (the clock was moved). */
function verifyAll(req: ReceivedRequest, secret: string, atSendTime = true): void {
  const h = req.headers;
  // 1. Our own recomputation: HMAC-SHA256 over "<id>.<timestamp>.<body>" keyed by the bytes after whsec_.
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${h['webhook-id']}.${h['webhook-timestamp']}.${req.body}`).digest('base64');
  expect(h['webhook-signature']).toBe(`v1,${expected}`);
  // 2 and 3: the reference libraries (their 300 s tolerance is against Date.now()).
  if (atSendTime) vi.useFakeTimers({ toFake: ['Date'], now: Number(h['webhook-timestamp']) * 1000 + 500 });
  try {
    expect(new StandardWebhook(secret).verify(req.body, h)).toEqual(JSON.parse(req.body));
    expect(() => new SvixWebhook(secret).verify(req.body, h)).not.toThrow();
    // And both refuse the body once changed.
    expect(() => new StandardWebhook(secret).verify(`${req.body} `, h)).toThrow();
    expect(() => new SvixWebhook(secret).verify(req.body.replace('"type"', '"tipe"'), h)).toThrow();
  } finally {
    if (atSendTime) vi.useRealTimers();
  }
}

describe.each(DATABASES)('webhook deliveries on %s', (kind) => {
  let app: TestApp;
  let rx: Receiver;
  // Starts at the real time, so the first test verifies without faking Date.
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp(kind, { clock, config: { allowPrivateUrls: true } });
  });
  afterAll(async () => {
    await app?.close();
    await rx?.close();
  });
  beforeEach(() => rx.reset());

  const run = (sender: Partial<SenderOptions> = {}, opts: RunDeliveriesOptions = {}) =>
    runDueDeliveries(app.services, { ...opts, sender: { ca: rx.ca, ...sender } });
  const drain = async (sender: Partial<SenderOptions> = {}) => {
    let n = 0;
    for (let k; (k = await run(sender, { limit: 50 })) > 0; ) n += k;
    return n;
  };
  const account = () => app.newAccount({ rateLimitPerSecond: 100_000 });
  const createEndpoint = async (key: string, path: string, events: string[]) => {
    const res = await app.request('POST', '/v1/webhook-endpoints', { key, json: { url: rx.url(path), events } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const analyze = async (key: string, name = 'dni_valid.jpg') => {
    const res = await app.request('POST', '/v1/analyze', { key, body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify({ expect: 'es_dni' })]]) });
    expect(res.status).toBe(200);
    return res.body as { id: string; status: string };
  };
  const deliveriesOf = (endpointId: string) => listDeliveriesOfEndpoint(app.services.db, endpointId);

  it('delivers an analysis.completed event signed per Standard Webhooks, verified by standardwebhooks, svix and our own HMAC', async () => {
    const acct = await account();
    const ep = await createEndpoint(acct.keys.test, '/ok/signed', ['analysis.completed']);
    expect(ep.secret).toMatch(/^whsec_/);
    const analysis = await analyze(acct.keys.test);
    expect(analysis.status).toBe('completed');

    const [pending] = await deliveriesOf(ep.id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0, event_type: 'analysis.completed' });
    expect(pending.id).toMatch(/^msg_[0-9A-Z]{26}$/);
    const sentAt = clock.now();
    expect(await run()).toBe(1);

    const got = rx.to('/ok/signed');
    expect(got).toHaveLength(1);
    const req = got[0];
    expect(req.method).toBe('POST');
    expect(req.headers).toMatchObject({
      'webhook-id': pending.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'content-type': 'application/json',
      'user-agent': 'Cotejo-Webhooks/1.0',
    });
    verifyAll(req, ep.secret, false); // the clock is the real time here: no faking needed
    const body = JSON.parse(req.body);
    expect(Object.keys(body)).toEqual(['type', 'created_at', 'data']);
    expect(body).toMatchObject({ type: 'analysis.completed', created_at: sentAt.toISOString(), data: { id: analysis.id, object: 'analysis', status: 'completed' } });
    // The body is the outbox event's payload.
    const event = await app.services.db.selectFrom('events').selectAll().where('id', '=', pending.event_id).executeTakeFirstOrThrow();
    expect(body).toEqual(event.payload);

    const done = (await findDelivery(app.services.db, pending.id))!;
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, next_attempt_at: null, last_status_code: 200, last_error: null, locked_by: null });
    const attempts = await attemptsOf(app.services.db, pending.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: 200, succeeded: true, error: null, sent_at: sentAt });
    expect(attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(await run()).toBe(0);
  });

  it('keep_results: false: the event carries the result once; the outbox keeps only its id and a final delivery no body', async () => {
    const acct = await account();
    const ep = await createEndpoint(acct.keys.test, '/ok/ephemeral', ['analysis.completed']);
    const gone = await createEndpoint(acct.keys.test, '/fail/ephemeral', ['analysis.completed']);
    const res = await app.request('POST', '/v1/analyze', {
      key: acct.keys.test,
      body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }, [['options', JSON.stringify({ expect: 'es_dni', keep_results: false })]]),
    });
    expect(res.status).toBe(200);
    const number = res.body.fields.document_number.value as string;
    const event = await app.services.db.selectFrom('events').selectAll().where('account_id', '=', acct.account).executeTakeFirstOrThrow();
    expect(event.payload).toMatchObject({ type: 'analysis.completed', data: { id: res.body.id, object: 'analysis', redacted: true } });
    expect(JSON.stringify(event.payload)).not.toContain(number);
    // Pending, each delivery holds the exact body it will sign and send (a retry must send the same bytes).
    const [pending] = await deliveriesOf(ep.id);
    expect(pending.payload).toContain(number);
    expect(await run()).toBe(2); // the other endpoint answers 500: its delivery stays pending, body and all
    const got = rx.to('/ok/ephemeral');
    expect(got).toHaveLength(1);
    verifyAll(got[0], ep.secret, false);
    expect(JSON.parse(got[0].body).data).toEqual(res.body);
    expect(await findDelivery(app.services.db, pending.id)).toMatchObject({ status: 'succeeded', payload: '' });
    // Deleting the other endpoint fails its pending delivery: its body goes too.
    const [stopped] = await deliveriesOf(gone.id);
    expect(stopped.status).toBe('pending');
    expect((await app.request('DELETE', `/v1/webhook-endpoints/${gone.id}`, { key: acct.keys.test })).status).toBe(200);
    expect(await findDelivery(app.services.db, stopped.id)).toMatchObject({ status: 'failed', payload: '' });
  });

  it('isolates modes and accounts, filters by subscription, and * takes every event including future types', async () => {
    const acct = await account();
    const other = await account();
    const completed = await createEndpoint(acct.keys.test, '/ok/t-completed', ['analysis.completed']);
    const failed = await createEndpoint(acct.keys.test, '/ok/t-failed', ['analysis.failed']);
    const all = await createEndpoint(acct.keys.test, '/ok/t-all', ['*']);
    const live = await createEndpoint(acct.keys.live, '/ok/l-all', ['*']);
    const liveCredits = await createEndpoint(acct.keys.live, '/ok/l-credits', ['credits.low']);
    await createEndpoint(other.keys.test, '/ok/other', ['*']);

    await analyze(acct.keys.test, 'dni_valid.jpg');
    const bad = await app.request('POST', '/v1/analyze', { key: acct.keys.test, body: form({ bytes: fixtures.jpeg(), name: 'es_dni_failed.jpg' }) });
    expect(bad.body.status).toBe('failed');
    await drain();

    const types = (path: string) => rx.to(path).map((r) => JSON.parse(r.body).type);
    expect(types('/ok/t-completed')).toEqual(['analysis.completed']);
    expect(types('/ok/t-failed')).toEqual(['analysis.failed']);
    expect(types('/ok/t-all').sort()).toEqual(['analysis.completed', 'analysis.failed']);
    expect(types('/ok/l-all')).toEqual([]); // a live endpoint gets no test events
    expect(types('/ok/other')).toEqual([]); // nor does another account
    for (const r of rx.to('/ok/t-all')) verifyAll(r, all.secret);
    verifyAll(rx.to('/ok/t-completed')[0], completed.secret);
    verifyAll(rx.to('/ok/t-failed')[0], failed.secret);
    // Each endpoint has its own message id for the same event.
    const idsOfCompleted = [...rx.to('/ok/t-completed'), ...rx.to('/ok/t-all')].filter((r) => JSON.parse(r.body).type === 'analysis.completed').map((r) => r.headers['webhook-id']);
    expect(new Set(idsOfCompleted).size).toBe(2);

    // Live events reach live endpoints only; `*` takes a type this build has never heard of.
    rx.reset();
    const now = clock.now();
    for (const type of ['credits.low', 'something.new']) {
      await fanOutEvent(app.services.db, clock, {
        id: newId('event', now.getTime()),
        account_id: acct.account,
        livemode: true,
        type,
        payload: { type, created_at: now.toISOString(), data: { object: 'balance' } },
      });
    }
    await drain();
    expect(types('/ok/l-all')).toEqual(['credits.low', 'something.new']);
    expect(types('/ok/l-credits')).toEqual(['credits.low']);
    for (const p of ['/ok/t-completed', '/ok/t-failed', '/ok/t-all', '/ok/other']) expect(rx.to(p)).toEqual([]);
    verifyAll(rx.to('/ok/l-all')[1], live.secret);
    verifyAll(rx.to('/ok/l-credits')[0], liveCredits.secret);
  });

  it('retries on 500, redirect and time-out at exactly 5 s, 5 min and 30 min, with the same webhook-id and a new timestamp, until a 2xx', async () => {
    const acct = await account();
    const ep = await createEndpoint(acct.keys.test, '/script', ['analysis.completed']);
    rx.script.push('500', '302', 'slow');
    rx.slowMs = 1500;
    // The 15 s time-out is simulated by a 300 ms one (the sender's `timeoutMs` option) against a 1.5 s answer.
    const sender = { timeoutMs: 300 };
    await analyze(acct.keys.test);
    const [delivery] = await deliveriesOf(ep.id);
    const t0 = clock.now().getTime();

    // Counts what the receiver got rather than what run() claimed, so no other delivery can blur it.
    const sent = async () => {
      await run(sender);
      return rx.to('/script').length;
    };
    expect(await sent()).toBe(1); // 1: 500
    const offsets = [0];
    for (const delay of RETRY_DELAYS_MS.slice(0, 3)) {
      clock.advance(delay - 1);
      expect(await sent()).toBe(offsets.length); // not a millisecond early
      clock.advance(1);
      offsets.push(offsets[offsets.length - 1] + delay);
      expect(await sent()).toBe(offsets.length); // 2: 302, 3: time-out, 4: 200
    }

    const got = rx.to('/script');
    expect(got).toHaveLength(4);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(Array(4).fill(delivery.id));
    expect(got.map((r) => Number(r.headers['webhook-timestamp']))).toEqual(offsets.map((o) => Math.floor((t0 + o) / 1000)));
    expect(new Set(got.map((r) => r.headers['webhook-signature'])).size).toBe(4);
    expect(new Set(got.map((r) => r.body)).size).toBe(1); // the same bytes every time
    for (const r of got) verifyAll(r, ep.secret);
    expect(rx.to('/ok')).toHaveLength(0); // the redirect was not followed

    const attempts = await attemptsOf(app.services.db, delivery.id);
    expect(attempts.map((a) => a.sent_at.getTime() - t0)).toEqual([0, 5 * SECOND, 5 * SECOND + 5 * MINUTE, 5 * SECOND + 35 * MINUTE]);
    expect(attempts.map((a) => [a.status_code, a.error, a.succeeded])).toEqual([
      [500, 'HTTP 500', false],
      [302, 'redirect (HTTP 302) not followed', false],
      [null, 'timed out after 300 ms', false],
      [200, null, true],
    ]);
    expect(attempts[2].duration_ms).toBeGreaterThanOrEqual(290);
    expect(await findDelivery(app.services.db, delivery.id)).toMatchObject({ status: 'succeeded', attempts: 4, next_attempt_at: null, last_status_code: 200 });
  });

  it('makes 12 attempts on the full schedule (about 3 days), then the delivery is failed and nothing more is sent', async () => {
    expect(MAX_ATTEMPTS).toBe(12);
    expect(RETRY_DELAYS_MS).toEqual([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 12 * HOUR, 12 * HOUR, 10 * HOUR, 10 * HOUR]);
    const acct = await account();
    const ep = await createEndpoint(acct.keys.test, '/fail/always', ['*']);
    await analyze(acct.keys.test);
    const [delivery] = await deliveriesOf(ep.id);
    const t0 = clock.now().getTime();
    const expectedOffsets: number[] = [];
    let offset = 0;
    const sent = async () => {
      await run();
      return rx.to('/fail/always').length;
    };
    for (let attempt = 1; attempt <= 12; attempt++) {
      if (attempt > 1) {
        const delay = RETRY_DELAYS_MS[attempt - 2];
        clock.advance(delay - 1);
        expect(await sent()).toBe(attempt - 1);
        clock.advance(1);
        offset += delay;
      }
      expectedOffsets.push(offset);
      expect(await sent()).toBe(attempt);
      const row = (await findDelivery(app.services.db, delivery.id))!;
      expect(row.attempts).toBe(attempt);
      expect(row.status).toBe(attempt < 12 ? 'pending' : 'failed');
      if (attempt < 12) expect(row.next_attempt_at!.getTime()).toBe(t0 + offset + RETRY_DELAYS_MS[attempt - 1]);
    }
    expect(offset).toBe(71 * HOUR + 35 * MINUTE + 5 * SECOND);
    const got = rx.to('/fail/always');
    expect(got).toHaveLength(12);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    expect(got.map((r) => Number(r.headers['webhook-timestamp']))).toEqual(expectedOffsets.map((o) => Math.floor((t0 + o) / 1000)));
    for (const r of got) verifyAll(r, ep.secret);
    const attempts = await attemptsOf(app.services.db, delivery.id);
    expect(attempts.map((a) => a.sent_at.getTime() - t0)).toEqual(expectedOffsets);
    expect(attempts.every((a) => a.status_code === 500 && !a.succeeded)).toBe(true);
    expect(await findDelivery(app.services.db, delivery.id)).toMatchObject({ status: 'failed', attempts: 12, next_attempt_at: null, last_status_code: 500, last_error: 'HTTP 500' });

    clock.advance(30 * 24 * HOUR);
    await drain();
    expect(rx.to('/fail/always')).toHaveLength(12);
  });

  it('deleting the endpoint marks its pending deliveries failed and nothing more is sent', async () => {
    const acct = await account();
    const ep = await createEndpoint(acct.keys.test, '/fail/deleted', ['*']);
    const keep = await createEndpoint(acct.keys.test, '/fail/kept', ['*']);
    await analyze(acct.keys.test);
    await run(); // first attempts fail: both pending
    expect([rx.to('/fail/deleted').length, rx.to('/fail/kept').length]).toEqual([1, 1]);
    const [delivery] = await deliveriesOf(ep.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });

    const del = await app.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key: acct.keys.test });
    expect(del.status).toBe(200);
    expect(await findDelivery(app.services.db, delivery.id)).toMatchObject({ status: 'failed', attempts: 1, next_attempt_at: null, last_error: 'endpoint deleted' });
    // The other endpoint's delivery is untouched.
    expect((await deliveriesOf(keep.id))[0]).toMatchObject({ status: 'pending', attempts: 1 });

    await analyze(acct.keys.test); // a new event: no delivery for the deleted endpoint
    expect(await deliveriesOf(ep.id)).toHaveLength(1);
    for (let i = 0; i < 3; i++) {
      clock.advance(24 * HOUR);
      await drain();
    }
    expect(rx.to('/fail/deleted')).toHaveLength(1);
    expect(rx.to('/fail/kept').length).toBeGreaterThan(2);
  });

  it('a delivery claimed by a worker that died is delivered once its lease expires, with the same webhook-id; two workers never send it twice', async () => {
    const acct = await account();
    const ep = await createEndpoint(acct.keys.test, '/ok/crash', ['analysis.completed']);
    await analyze(acct.keys.test);
    const [delivery] = await deliveriesOf(ep.id);

    // The "dead worker" claims it and never sends nor records anything.
    const claimed = await claimDueDeliveries(app.services.db, clock.now(), DELIVERY_LEASE_MS, 'dead-worker', 10);
    const mine = claimed.find((c) => c.id === delivery.id)!;
    expect(mine).toMatchObject({ id: delivery.id, url: rx.url('/ok/crash') });
    await run(); // leased: nobody else takes it
    clock.advance(DELIVERY_LEASE_MS);
    await run(); // not before the lease has passed
    expect(rx.to('/ok/crash')).toHaveLength(0);
    clock.advance(1);
    // Two workers at once after the lease: exactly one claims and sends it.
    await Promise.all([run(), run()]);
    const got = rx.to('/ok/crash');
    expect(got).toHaveLength(1);
    expect(got[0].headers['webhook-id']).toBe(delivery.id);
    verifyAll(got[0], ep.secret);
    expect(await findDelivery(app.services.db, delivery.id)).toMatchObject({ status: 'succeeded', attempts: 1, locked_by: null });

    // The dead worker wakes up late: what it sends is a duplicate (same webhook-id, receivers deduplicate),
    // and it cannot record anything any more.
    const late = await deliverClaimed(app.services, mine, 'dead-worker', { allowPrivate: true, ca: rx.ca });
    expect(late).toBe('lease_lost');
    expect(rx.to('/ok/crash').map((r) => r.headers['webhook-id'])).toEqual([delivery.id, delivery.id]);
    expect(await findDelivery(app.services.db, delivery.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await attemptsOf(app.services.db, delivery.id)).toHaveLength(1);
  });

  it('keeps the last 100 deliveries per endpoint (older finished ones pruned with their attempts)', async () => {
    const acct = await account();
    const ep = await createEndpoint(acct.keys.test, '/ok/prune', ['*']);
    const now = clock.now();
    for (let i = 0; i < 105; i++) {
      await fanOutEvent(app.services.db, clock, {
        id: newId('event', now.getTime()),
        account_id: acct.account,
        livemode: false,
        type: 'analysis.completed',
        payload: { type: 'analysis.completed', created_at: now.toISOString(), data: { n: i } },
      });
    }
    const first = (await listDeliveriesOfEndpoint(app.services.db, ep.id, 200)).at(-1)!;
    expect(await drain()).toBe(105);
    expect(rx.to('/ok/prune')).toHaveLength(105);
    const left = await listDeliveriesOfEndpoint(app.services.db, ep.id, 200);
    expect(left).toHaveLength(100);
    expect(left.every((d) => d.status === 'succeeded')).toBe(true);
    expect(await findDelivery(app.services.db, first.id)).toBeUndefined();
    expect(await attemptsOf(app.services.db, first.id)).toEqual([]);
  });
});

describe.each(DATABASES)('webhook delivery targets on %s (private URLs not allowed)', (kind) => {
  let app: TestApp;
  let rx: Receiver;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp(kind, { clock }); // allowPrivateUrls: false, as in production
  });
  afterAll(async () => {
    await app?.close();
    await rx?.close();
  });

  it('refuses non-https, loopback and names resolving to private addresses: nothing is sent, the attempt fails and is retried', async () => {
    expect(app.services.config.allowPrivateUrls).toBe(false);
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    // A literal loopback address is refused at creation (it could never be delivered to)...
    const refused = await app.request('POST', '/v1/webhook-endpoints', { key: acct.keys.test, json: { url: rx.url('/ok/literal'), events: ['*'] } });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    expect(refused.body.error.message).toContain('127.0.0.1 (loopback) is not a public address');
    // ...and one stored by other means (an older version) is still refused at send time.
    const literal = { body: { id: newId('webhook_endpoint', clock.now().getTime()) } };
    await insertWebhookEndpoint(app.services.db, {
      id: literal.body.id, account_id: acct.account, livemode: false, url: rx.url('/ok/literal'), description: null, events: ['*'],
      status: 'active', secret: newWebhookSecret(), created_at: clock.now(), deleted_at: null,
    });
    const named = await app.request('POST', '/v1/webhook-endpoints', { key: acct.keys.test, json: { url: `https://hooks.example.com:${rx.port}/ok/named`, events: ['*'] } });
    expect(named.status).toBe(201);
    // The API refuses http URLs; one stored by other means is still refused at send time.
    const plainId = newId('webhook_endpoint', clock.now().getTime());
    await insertWebhookEndpoint(app.services.db, {
      id: plainId,
      account_id: acct.account,
      livemode: false,
      url: `http://127.0.0.1:${rx.port}/ok/plain`,
      description: null,
      events: ['*'],
      status: 'active',
      secret: newWebhookSecret(),
      created_at: clock.now(),
      deleted_at: null,
    });

    const res = await app.request('POST', '/v1/analyze', { key: acct.keys.test, body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }) });
    expect(res.status).toBe(200);
    // hooks.example.com "resolves" to 127.0.0.1 through the sender's resolver option.
    const sender = { ca: rx.ca, lookup: async () => [{ address: '127.0.0.1', family: 4 }] };
    expect(await runDueDeliveries(app.services, { sender })).toBe(3);
    expect(rx.connections()).toBe(0);
    expect(rx.requests).toEqual([]);

    const errorOf = async (endpointId: string) => {
      const [d] = await listDeliveriesOfEndpoint(app.services.db, endpointId);
      expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
      return d.last_error;
    };
    expect(await errorOf(literal.body.id)).toBe('refused: 127.0.0.1 (loopback) is not a public address');
    expect(await errorOf(named.body.id)).toMatch(/^refused: hooks\.example\.com resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(await errorOf(plainId)).toBe('refused: the endpoint URL is not https');

    clock.advance(5 * SECOND);
    expect(await runDueDeliveries(app.services, { sender })).toBe(3);
    expect(rx.connections()).toBe(0);
  });
});
