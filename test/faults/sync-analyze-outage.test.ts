/**
 * Issue #31: a synchronous live analyze whose analysis (and its job, and its held credits) committed, then PostgreSQL
 * went away (through the fault proxy) while it was being read. The analysis exists and its job finishes it once the
 * database is back, so the answer is not a 503 ("nothing was done", which makes the client's retry a second paid
 * analysis) but 202 with the analysis id, as past the synchronous wait; the same Idempotency-Key replays that answer
 * once the database is back; the analysis completes and is charged exactly once (docs/decisions.md).
 * PostgreSQL only (DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Provider } from '../../server/src/providers/types.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { fixtures, form } from '../support/files.ts';
import { newLiveAccount } from '../support/live-account.ts';
import { standInLiveProvider } from '../support/live-provider.ts';

const BASE = process.env.DATABASE_URL;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!BASE)('a synchronous analyze whose analysis committed before PostgreSQL went away', { timeout: 180_000 }, () => {
  let proxy: FaultProxy;
  let app: TestApp;
  // The reader holds its first reading until the test lets it go (the database is taken away meanwhile).
  let readingStarted!: () => void;
  const started = new Promise<void>((r) => (readingStarted = r));
  let letGo!: () => void;
  const gate = new Promise<void>((r) => (letGo = r));
  let readings = 0;
  const gated: Provider = {
    name: 'gated-stand-in',
    simulated: true,
    async read(input) {
      readings++;
      readingStarted();
      await gate;
      return standInLiveProvider.read(input);
    },
  };

  beforeAll(async () => {
    const base = new URL(BASE!);
    proxy = await startFaultProxy({ host: base.hostname, port: Number(base.port || 5432) });
    const viaProxy = new URL(BASE!);
    viaProxy.host = proxy.address;
    app = await startTestApp('postgres', { worker: true, liveProvider: gated, config: { databaseUrl: viaProxy.toString() } });
    // A short synchronous wait: the outage outlasts it (the default 30 s would only make the test slow).
    app.services.syncWaitMs = 3_000;
  });
  afterAll(async () => {
    proxy?.restore();
    letGo?.();
    await app?.close();
    await proxy?.close();
  });

  it('answers 202 with the analysis (not 503), replays it for the same Idempotency-Key, completes it and charges it once', async () => {
    const acc = await newLiveAccount(app, 10);
    const key = acc.keys.live;
    const before = (await app.request('GET', '/v1/balance', { key })).body;
    const send = () =>
      app.request('POST', '/v1/analyze', {
        key,
        headers: { 'Idempotency-Key': 'sync-outage-1' },
        body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }, [['options', JSON.stringify({ expect: 'es_dni' })]]),
      });

    const answer = send();
    // Reading: the analysis, its job and its held credit are committed. Now the database goes away, then the reading ends.
    await started;
    proxy.down();
    letGo();
    const res = await answer;
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ object: 'analysis', livemode: true, status: 'processing' });
    const id = res.body.id as string;
    expect(id).toMatch(/^an_/);

    // While it is away the retry is a 503 (nothing new is made).
    const meanwhile = await send();
    expect(meanwhile.status).toBe(503);
    expect(meanwhile.body.error.code).toBe('service_unavailable');

    await sleep(2_000);
    proxy.restore();

    // The job finishes it once the database is back (no restart, no second reading of the client's making).
    const end = Date.now() + 120_000;
    let done: any;
    for (;;) {
      const got = await app.request('GET', `/v1/analyses/${id}`, { key });
      if (got.status === 200 && (got.body.status === 'completed' || got.body.status === 'failed')) {
        done = got.body;
        break;
      }
      if (Date.now() > end) throw new Error(`analysis ${id} did not finish: ${JSON.stringify(got.body)}`);
      await sleep(250);
    }
    expect(done).toMatchObject({ id, status: 'completed', usage: { credits: 1 } });

    // The client's retry with the same key gets the same analysis (once the key has recorded the answer), not a new one.
    let replay = await send();
    while (replay.status === 409 && replay.body.error.code === 'idempotency_in_progress' && Date.now() < end) {
      await sleep(500);
      replay = await send();
    }
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(id);

    // One analysis in the account, charged once, nothing left held.
    await Promise.allSettled([...app.services.inflight]);
    const list = (await app.request('GET', '/v1/analyses?limit=100', { key })).body.data as Array<{ id: string }>;
    expect(list.map((a) => a.id)).toEqual([id]);
    const after = (await app.request('GET', '/v1/balance', { key })).body;
    expect(after.credits_reserved).toBe(0);
    expect(before.credits_spendable - after.credits_spendable).toBe(1);
    const reservations = await app.services.db.selectFrom('credit_reservations').selectAll().where('account_id', '=', acc.account).execute();
    expect(reservations.map((r) => [r.analysis_id, r.status])).toEqual([[id, 'captured']]);
    // Read once in the request, and once more by the job that finished it (the reading's outcome was never written).
    expect(readings).toBeLessThanOrEqual(2);
  });
});
