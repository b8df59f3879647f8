/**
 * Issue #31: the database goes away while a webhook is on its way. The receiver takes the delivery (200), and the
 * connections to PostgreSQL (through the fault proxy) are cut and refused before its outcome is written. The outcome
 * is written once the database is back: the delivery is `succeeded` after one attempt, and it is never sent again
 * (before, it stayed leased and was sent a second time when its lease lapsed). PostgreSQL only (DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptsOf, findDelivery, listDeliveriesOfEndpoint } from '../../server/src/db/webhook-deliveries.ts';
import { DELIVERY_LEASE_MS, runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { fixtures, form } from '../support/files.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

const BASE = process.env.DATABASE_URL;

describe.skipIf(!BASE)('a webhook delivered while PostgreSQL goes away', { timeout: 120_000 }, () => {
  let proxy: FaultProxy;
  let app: TestApp;
  let rx: Receiver;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    rx = await startReceiver();
    const base = new URL(BASE!);
    proxy = await startFaultProxy({ host: base.hostname, port: Number(base.port || 5432) });
    const viaProxy = new URL(BASE!);
    viaProxy.host = proxy.address;
    app = await startTestApp('postgres', { clock, config: { allowPrivateUrls: true, databaseUrl: viaProxy.toString() } });
  });
  afterAll(async () => {
    proxy?.restore();
    await app?.close();
    await proxy?.close();
    await rx?.close();
  });

  it('is recorded once the database is back, and not sent a second time', async () => {
    const ep = await app.request('POST', '/v1/webhook-endpoints', { json: { url: rx.url('/script/hooks'), events: ['analysis.completed'] } });
    expect(ep.status).toBe(201);
    const analysis = await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }, [['options', JSON.stringify({ expect: 'es_dni' })]]) });
    expect(analysis.status).toBe(200);
    const [pending] = await listDeliveriesOfEndpoint(app.services.db, ep.body.id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0 });

    // The receiver answers 200 after 1.5 s; the database goes away while it is answering, and comes back 3 s later.
    rx.script.push('slow');
    rx.slowMs = 1_500;
    const sending = runDueDeliveries(app.services, { sender: { ca: rx.ca } });
    await new Promise((r) => setTimeout(r, 700));
    proxy.down();
    await new Promise((r) => setTimeout(r, 3_000));
    expect(rx.to('/script/hooks')).toHaveLength(1);
    proxy.restore();
    expect(await sending).toBe(1);

    const done = (await findDelivery(app.services.db, pending.id))!;
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200, locked_by: null });
    expect(await attemptsOf(app.services.db, pending.id)).toHaveLength(1);
    // Past its lease nothing is due: it is not sent again.
    clock.advance(DELIVERY_LEASE_MS + 1_000);
    expect(await runDueDeliveries(app.services, { sender: { ca: rx.ca } })).toBe(0);
    expect(rx.to('/script/hooks')).toHaveLength(1);
  });
});
