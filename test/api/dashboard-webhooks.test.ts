// The dashboard's Webhooks section through HTTP (forms, cookies, CSRF), on both databases: disabling an endpoint
// stops new deliveries and re-enabling brings them back; a `test` event goes through the delivery queue to a local
// HTTPS receiver, signed with the endpoint's secret; the history shows every attempt's HTTP status and duration;
// resending a failed delivery makes a new attempt; a member cannot manage; another account's endpoint is not found.
import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { attemptsOf, listDeliveriesOfEndpoint } from '../../server/src/db/webhook-deliveries.ts';
import { findWebhookEndpoint } from '../../server/src/db/webhook-endpoints.ts';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { makeMember, signedIn, type DashboardClient } from '../support/dashboard.ts';
import { fixtures, form } from '../support/files.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

describe.each(DATABASES)('the dashboard webhooks section (%s)', (kind) => {
  let app: TestApp;
  let rx: Receiver;
  let owner: DashboardClient;
  let member: DashboardClient;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp(kind, { clock, config: { allowPrivateUrls: true } });
    await makeMember(app, app.account.account, 'owner', 'owner@example.com');
    await makeMember(app, app.account.account, 'member', 'member@example.com');
    owner = await signedIn(app, 'owner@example.com');
    member = await signedIn(app, 'member@example.com');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await rx?.close();
  });
  beforeEach(() => rx.reset());

  const run = () => runDueDeliveries(app.services, { sender: { ca: rx.ca } });
  const createEndpoint = async (path: string, events: string[], key = app.account.keys.test) => {
    const res = await app.request('POST', '/v1/webhook-endpoints', { key, json: { url: rx.url(path), events } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const analyze = async () => {
    const res = await app.request('POST', '/v1/analyze', { key: app.account.keys.test, body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }, [['options', JSON.stringify({ expect: 'es_dni' })]]) });
    expect(res.status).toBe(200);
  };
  const statusOf = async (id: string) => (await findWebhookEndpoint(app.services.db, app.account.account, id))!.status;
  const post = (c: DashboardClient, id: string, action: string) => c.submit(`/dashboard/webhooks/${id}`, `/dashboard/webhooks/${id}/${action}`, {});

  it('lists the endpoints of the mode; disabling stops new deliveries, re-enabling brings them back', async () => {
    const ep = await createEndpoint('/ok/disable', ['analysis.completed']);
    const list = await owner.get('/dashboard/webhooks');
    expect(list.status).toBe(200);
    expect(list.html).toContain(rx.url('/ok/disable'));
    expect(list.html).toContain('analysis.completed');

    const off = await post(owner, ep.id, 'disable');
    expect(off.status).toBe(303);
    expect(off.location).toBe(`/dashboard/webhooks/${ep.id}?done=disabled`);
    expect(await statusOf(ep.id)).toBe('disabled');
    expect((await app.request('GET', `/v1/webhook-endpoints/${ep.id}`, { key: app.account.keys.test })).body).toMatchObject({ status: 'disabled', enabled: false });
    expect((await owner.get(`/dashboard/webhooks/${ep.id}?done=disabled`)).html).toContain('Endpoint disabled.');

    await analyze();
    expect(await listDeliveriesOfEndpoint(app.services.db, ep.id)).toHaveLength(0);
    await run();
    expect(rx.to('/ok/disable')).toHaveLength(0);

    expect((await post(owner, ep.id, 'enable')).status).toBe(303);
    expect(await statusOf(ep.id)).toBe('active');
    await analyze();
    expect(await listDeliveriesOfEndpoint(app.services.db, ep.id)).toHaveLength(1);
    await run();
    expect(rx.to('/ok/disable')).toHaveLength(1);
  });

  it('sends a signed test event through the queue and shows it, with its attempt, in the history', async () => {
    const ep = await createEndpoint('/ok/test', ['analysis.failed']);
    expect((await post(owner, ep.id, 'test')).status).toBe(303);
    const [d] = await listDeliveriesOfEndpoint(app.services.db, ep.id);
    expect(d).toMatchObject({ event_type: 'test', status: 'pending' });
    expect(await run()).toBe(1);

    const [req] = rx.to('/ok/test');
    expect(req.headers['webhook-id']).toBe(d.id);
    const key = Buffer.from(ep.secret.slice('whsec_'.length), 'base64');
    const mac = crypto.createHmac('sha256', key).update(`${req.headers['webhook-id']}.${req.headers['webhook-timestamp']}.${req.body}`).digest('base64');
    expect(req.headers['webhook-signature']).toBe(`v1,${mac}`);
    expect(JSON.parse(req.body)).toMatchObject({ type: 'test', data: { endpoint_id: ep.id } });

    const page = await owner.get(`/dashboard/webhooks/${ep.id}`);
    expect(page.html).toContain(d.id);
    expect(page.html).toContain('Delivered');
    expect(page.html).toMatch(/class="http-status">200</);
    expect(page.html).toMatch(/class="duration">\d+ ms</);
  });

  it('resends a failed delivery: a new attempt, shown in the history', async () => {
    const ep = await createEndpoint('/script/resend', ['*']);
    rx.script.push('500');
    await post(owner, ep.id, 'test');
    await run(); // attempt 1: 500, a retry is scheduled
    // Disabled while a retry is pending: the worker stops it (failed, "endpoint disabled").
    await post(owner, ep.id, 'disable');
    clock.advance(10_000);
    await run();
    const [d] = await listDeliveriesOfEndpoint(app.services.db, ep.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, last_error: 'endpoint disabled' });
    await post(owner, ep.id, 'enable');

    // A member sees the history but cannot resend.
    const seen = await member.get(`/dashboard/webhooks/${ep.id}`);
    expect(seen.status).toBe(200);
    expect(seen.html).not.toContain('/resend"');
    expect(seen.html).toContain('endpoint disabled');
    const refused = await member.submit(`/dashboard/webhooks/${ep.id}`, `/dashboard/webhooks/${ep.id}/deliveries/${d.id}/resend`, {});
    expect(refused.status).toBe(403);

    const before = await owner.get(`/dashboard/webhooks/${ep.id}`);
    expect(before.html).toContain(`/dashboard/webhooks/${ep.id}/deliveries/${d.id}/resend`);
    const r = await owner.submit(`/dashboard/webhooks/${ep.id}`, `/dashboard/webhooks/${ep.id}/deliveries/${d.id}/resend`, {});
    expect(r.status).toBe(303);
    expect(await run()).toBe(1);
    expect(rx.to('/script/resend')).toHaveLength(2);
    const attempts = await attemptsOf(app.services.db, d.id);
    expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    const after = await owner.get(`/dashboard/webhooks/${ep.id}`);
    expect(after.html).toMatch(/class="http-status">500<\/td><td class="duration">\d+ ms<\/td><td><span class="muted">HTTP 500<\/span> <code class="excerpt">boom<\/code>/);
    expect(after.html).toMatch(/class="http-status">200<\/td><td class="duration">\d+ ms<\/td><td><code class="excerpt">ok<\/code>/);
    expect(attempts.map((a) => a.response_excerpt)).toEqual(['boom', 'ok']);
    // Only a failed delivery is resent.
    const again = await owner.submit(`/dashboard/webhooks/${ep.id}`, `/dashboard/webhooks/${ep.id}/deliveries/${d.id}/resend`, {});
    expect(again.status).toBe(409);
  });

  it('refuses a member every manage action (403, nothing changed) and shows no manage forms', async () => {
    const ep = await createEndpoint('/ok/member', ['*']);
    const view = await member.get(`/dashboard/webhooks/${ep.id}`);
    expect(view.status).toBe(200);
    expect(view.html).not.toContain('/disable"');
    for (const action of ['disable', 'test']) expect((await post(member, ep.id, action)).status).toBe(403);
    expect(await statusOf(ep.id)).toBe('active');
    expect(await listDeliveriesOfEndpoint(app.services.db, ep.id)).toHaveLength(0);
  });

  it("answers 404 for another account's endpoint and for the other mode's", async () => {
    const other = await app.newAccount();
    const theirs = await createEndpoint('/ok/theirs', ['*'], other.keys.test);
    const live = await createEndpoint('/ok/live', ['*'], app.account.keys.live);
    for (const id of [theirs.id, live.id]) {
      expect((await owner.get(`/dashboard/webhooks/${id}`)).status).toBe(404);
      expect((await owner.submit('/dashboard/webhooks', `/dashboard/webhooks/${id}/disable`, {})).status).toBe(404);
    }
    expect((await findWebhookEndpoint(app.services.db, other.account, theirs.id))!.status).toBe('active');
    expect((await owner.get('/dashboard/webhooks')).html).not.toContain(rx.url('/ok/theirs'));
  });
});
