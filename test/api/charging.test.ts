import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../server/src/db/accounts.ts';
import { addCredits, type CreatedAccount } from '../../server/src/domain/accounts.ts';
import { captureCredits, notifyIfLow } from '../../server/src/domain/billing.ts';
import { ANALYSIS_QUEUE, JOB_RETRY_DELAYS_MS, PROCESS_LEASE_MS, processAnalysis } from '../../server/src/domain/analysis/pipeline.ts';
import * as queue from '../../server/src/jobs/queue.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import type { Provider } from '../../server/src/providers/types.ts';
import { standInLiveProvider } from '../support/live-provider.ts';

/**
 * Live-mode charging through HTTP: reservations while work runs, one charge per finished analysis, none
 * for failed, deleted or replayed work, the three 402s, the monthly cap and credits.low. Live keys read
 * through a stand-in provider (tests cannot call a real one); everything after the reading is the product.
 */
describe.each(DATABASES)('live-mode charging on %s', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-07-15T12:00:00.000Z');
  const jpeg = fixtures.jpeg();
  const accounts: string[] = [];

  beforeAll(async () => {
    // `outage*` files: the provider throws (an outage), so the job is retried and finally fails.
    const liveProvider: Provider = {
      name: standInLiveProvider.name,
      simulated: true,
      read: (input) => (input.filename.startsWith('outage') ? Promise.reject(new Error('provider unreachable')) : standInLiveProvider.read(input)),
    };
    app = await startTestApp(kind, { clock, liveProvider });
  });
  afterAll(() => app?.close());

  async function account(o: { verified?: boolean; paid?: number; capCredits?: number | null; thresholdCredits?: number } = {}): Promise<CreatedAccount> {
    const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
    await updateAccount(app.services.db, acc.account, {
      email: 'ops@example.com',
      email_verified: o.verified ?? true,
      ...(o.capCredits !== undefined ? { monthly_credit_cap_milli: o.capCredits === null ? null : o.capCredits * 1000 } : {}),
      ...(o.thresholdCredits !== undefined ? { low_credit_threshold_milli: o.thresholdCredits * 1000 } : {}),
    });
    if (o.paid) await addCredits(app.services.db, clock, acc.account, o.paid);
    accounts.push(acc.account);
    return acc;
  }

  const analyze = (key: string, name = 'dni_valid.jpg', options: Record<string, unknown> = {}, path = '/v1/analyze') =>
    app.request('POST', path, { key, body: form({ bytes: jpeg, name }, [['options', JSON.stringify(options)]]) });
  const batch = (key: string, n: number, name = 'dni_valid.jpg') => {
    const fd = new FormData();
    for (let i = 0; i < n; i++) fd.append('files[]', new Blob([jpeg as Uint8Array<ArrayBuffer>]), name);
    return app.request('POST', '/v1/batches', { key, body: fd });
  };
  const balance = async (key: string) => (await app.request('GET', '/v1/balance', { key })).body;
  const drain = async () => {
    while (await runOneAnalysisJob(app.services));
  };
  const liveList = async (key: string) => (await app.request('GET', '/v1/analyses?limit=100', { key })).body.data;
  const reservations = (accountId: string) => app.services.db.selectFrom('credit_reservations').selectAll().where('account_id', '=', accountId).execute();
  const ledger = (accountId: string) => app.services.db.selectFrom('credit_ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  const events = async (type: string, accountId: string) =>
    (await app.services.db.selectFrom('events').selectAll().where('type', '=', type).where('account_id', '=', accountId).orderBy('id').execute());

  it('charges a finished analysis once, from the free tier first, and records it in usage', async () => {
    const acc = await account({ paid: 10 });
    const a = await analyze(acc.keys.live);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ status: 'completed', livemode: true, usage: { credits: 1, pages: 1 } });
    expect(a.body.processing.providers).toEqual([{ name: 'stand-in-eu-vlm', region: 'eu', role: 'llm', model: 'stand-in-1' }]);
    const c = await analyze(acc.keys.live, 'passport.jpg', {}, '/v1/classify');
    expect(c.body).toMatchObject({ object: 'classification', status: 'completed', usage: { credits: 0.2 } });
    expect(await balance(acc.keys.live)).toEqual({
      object: 'balance', credits_available: 10, credits_reserved: 0, free_tier_remaining: 48.8, credits_spendable: 58.8, free_tier_resets_at: '2026-08-01T00:00:00.000Z',
    });
    // Free-tier spending is not money: the ledger holds only the top-up.
    expect((await ledger(acc.account)).map((e) => [e.reason, Number(e.amount_milli)])).toEqual([['manual_top_up', 10_000]]);
    const usage = (await app.request('GET', '/v1/usage', { key: acc.keys.live })).body;
    expect(usage.totals).toEqual({ count: 2, pages: 2, credits: 1.2 });
    // The same account's test key is free and holds nothing.
    const t = await analyze(acc.keys.test);
    expect(t.body.usage.credits).toBe(0);
    expect((await reservations(acc.account)).map((r) => r.analysis_id).sort()).toEqual([a.body.id, c.body.id].sort());
    expect((await app.request('GET', '/v1/usage', { key: acc.keys.test })).body.totals).toEqual({ count: 1, pages: 1, credits: 0 });
  });

  it('holds credits while work runs and gives them back when it fails or is deleted', async () => {
    const acc = await account();
    const queued = await analyze(acc.keys.live, 'dni_valid.jpg', { async: true });
    expect(queued.status).toBe(202);
    expect(await balance(acc.keys.live)).toMatchObject({ credits_reserved: 1, free_tier_remaining: 49, credits_spendable: 49 });
    await app.request('DELETE', `/v1/analyses/${queued.body.id}`, { key: acc.keys.live });
    expect(await balance(acc.keys.live)).toMatchObject({ credits_reserved: 0, free_tier_remaining: 50 });

    const slow = await analyze(acc.keys.live, 'dni_slow.jpg');
    expect(slow.status).toBe(202);
    expect(await balance(acc.keys.live)).toMatchObject({ credits_reserved: 1, credits_spendable: 49 });
    clock.advance(20_000); // the rest of its simulated 45 s
    await drain();
    expect((await app.request('GET', `/v1/analyses/${slow.body.id}`, { key: acc.keys.live })).body).toMatchObject({ status: 'completed', usage: { credits: 1 } });
    expect(await balance(acc.keys.live)).toMatchObject({ credits_reserved: 0, free_tier_remaining: 49 });

    const failed = await analyze(acc.keys.live, 'dni_failed.jpg');
    expect(failed.body).toMatchObject({ status: 'failed', usage: { credits: 0 }, error: { code: 'processing_failed' } });
    expect(await balance(acc.keys.live)).toMatchObject({ credits_reserved: 0, free_tier_remaining: 49 });
    expect((await events('analysis.failed', acc.account)).map((e) => (e.payload as any).data.id)).toEqual([failed.body.id]);
    const byId = Object.fromEntries((await reservations(acc.account)).map((r) => [r.analysis_id, r.status]));
    expect(byId).toEqual({ [queued.body.id]: 'released', [slow.body.id]: 'captured', [failed.body.id]: 'released' });
  });

  it('a retried job or a second capture never charges again', async () => {
    const acc = await account({ verified: false, paid: 5 });
    const a = await analyze(acc.keys.live);
    expect(a.body.usage.credits).toBe(1);
    const again = await app.services.db.transaction().execute((trx) => captureCredits(trx, app.services, a.body.id));
    expect(again).toBe(0);
    expect((await ledger(acc.account)).filter((e) => e.reason === 'charge').map((e) => [e.reference, Number(e.amount_milli)])).toEqual([[a.body.id, -1000]]);
    // And the database refuses a second charge row for the same analysis outright.
    await expect(
      app.services.db.insertInto('credit_ledger').values({ id: 'led_dup', account_id: acc.account, amount_milli: -1000, reason: 'charge', reference: a.body.id, created_at: clock.now() }).execute(),
    ).rejects.toThrow();
    expect((await balance(acc.keys.live)).credits_available).toBe(4);
  });

  it('a worker that dies mid-job: the job is taken again after its lease and charged once', async () => {
    await drain();
    const acc = await account({ verified: false, paid: 5 });
    const a = await analyze(acc.keys.live, 'dni_valid.jpg', { async: true });
    // A first worker claims the job and dies without a word.
    expect(await queue.claim(app.services.db, clock, ANALYSIS_QUEUE, PROCESS_LEASE_MS)).toBeTruthy();
    expect(await runOneAnalysisJob(app.services), 'leased to the dead worker').toBe(false);
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 4, credits_reserved: 1 });
    clock.advance(PROCESS_LEASE_MS + 1000);
    expect(await runOneAnalysisJob(app.services)).toBe(true);
    // A worker that finished but died before marking its job done runs it once more: nothing new.
    await processAnalysis(app.services, a.body.id);
    expect((await app.request('GET', `/v1/analyses/${a.body.id}`, { key: acc.keys.live })).body).toMatchObject({ status: 'completed', usage: { credits: 1 } });
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 4, credits_reserved: 0 });
    expect((await ledger(acc.account)).filter((e) => e.reason === 'charge')).toHaveLength(1);
  });

  it('a provider outage: 202 instead of a 500, retried in the background, then failed and not charged', async () => {
    await drain();
    const acc = await account({ verified: false, paid: 5 });
    const res = await analyze(acc.keys.live, 'outage.jpg');
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('processing');
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 4, credits_reserved: 1 });
    for (const wait of JOB_RETRY_DELAYS_MS.slice(0, 2)) {
      clock.advance(wait + 1000);
      expect(await runOneAnalysisJob(app.services)).toBe(true);
    }
    const failed = await app.request('GET', `/v1/analyses/${res.body.id}`, { key: acc.keys.live });
    expect(failed.body).toMatchObject({ status: 'failed', usage: { credits: 0 }, error: { code: 'processing_failed' } });
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 5, credits_reserved: 0 });
    expect((await events('analysis.failed', acc.account)).map((e) => (e.payload as any).data.id)).toEqual([res.body.id]);
    expect(await runOneAnalysisJob(app.services), 'no attempt left').toBe(false);
  });

  it('replays an idempotent request without charging it again', async () => {
    const acc = await account({ verified: false, paid: 3 });
    const body = { file_base64: Buffer.from(jpeg).toString('base64'), filename: 'dni_valid.jpg', options: { expect: 'es_dni' } };
    const headers = { 'Idempotency-Key': 'charge-once-1' };
    const first = await app.request('POST', '/v1/analyze', { key: acc.keys.live, json: body, headers });
    const replay = await app.request('POST', '/v1/analyze', { key: acc.keys.live, json: body, headers });
    expect(first.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
    expect((await balance(acc.keys.live)).credits_available).toBe(2);
    expect(await reservations(acc.account)).toHaveLength(1);
  });

  it('402 email_not_verified when only the free tier could pay and the email is not verified', async () => {
    const acc = await account({ verified: false });
    const res = await analyze(acc.keys.live);
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ type: 'insufficient_credits', code: 'email_not_verified' });
    expect(await liveList(acc.keys.live)).toEqual([]);
    expect(await reservations(acc.account)).toEqual([]);
    // Paid credits can be spent without a verified email.
    await addCredits(app.services.db, clock, acc.account, 0.5);
    const c = await analyze(acc.keys.live, 'passport.jpg', {}, '/v1/classify');
    expect(c.status).toBe(200);
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 0.3, free_tier_remaining: 50, credits_spendable: 50.3 });
    const batchRes = await batch(acc.keys.live, 2);
    expect(batchRes.status).toBe(402);
    expect(batchRes.body.error.code).toBe('email_not_verified');
  });

  it('402 insufficient_credits refuses a batch whole unless every document is covered, and creates nothing', async () => {
    const acc = await account();
    const tooMany = await batch(acc.keys.live, 51);
    expect(tooMany.status).toBe(402);
    expect(tooMany.body.error).toMatchObject({ type: 'insufficient_credits', code: 'insufficient_credits' });
    expect(await liveList(acc.keys.live)).toEqual([]);
    expect(await app.services.db.selectFrom('batches').select('id').where('account_id', '=', acc.account).execute()).toEqual([]);
    expect(await reservations(acc.account)).toEqual([]);
    expect(await balance(acc.keys.live)).toMatchObject({ credits_reserved: 0, credits_spendable: 50 });

    const fits = await batch(acc.keys.live, 50);
    expect(fits.status).toBe(202);
    expect(await balance(acc.keys.live)).toMatchObject({ credits_reserved: 50, free_tier_remaining: 0, credits_spendable: 0 });
    const single = await analyze(acc.keys.live);
    expect(single.status).toBe(402);
    expect(single.body.error.code).toBe('insufficient_credits');
    await drain();
    expect((await app.request('GET', `/v1/batches/${fits.body.id}`, { key: acc.keys.live })).body).toMatchObject({ status: 'completed', counts: { completed: 50 } });
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 0, credits_reserved: 0, free_tier_remaining: 0 });
    const usage = (await app.request('GET', '/v1/usage?kind=batch_analysis', { key: acc.keys.live })).body;
    expect(usage.totals).toEqual({ count: 50, pages: 50, credits: 50 });

    await addCredits(app.services.db, clock, acc.account, 2);
    const paid = await analyze(acc.keys.live);
    expect(paid.body.usage.credits).toBe(1);
    expect((await ledger(acc.account)).map((e) => [e.reason, Number(e.amount_milli), e.reference])).toEqual([
      ['manual_top_up', 2000, null],
      ['charge', -1000, paid.body.id],
    ]);
  });

  it('spends the last credits once under concurrent requests', async () => {
    const acc = await account();
    expect((await batch(acc.keys.live, 50)).status).toBe(202); // the free tier, all held
    await addCredits(app.services.db, clock, acc.account, 3);
    const results = await Promise.all(Array.from({ length: 8 }, () => analyze(acc.keys.live)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 402, 402, 402, 402, 402]);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.error.code).toBe('insufficient_credits');
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 0, credits_reserved: 50, credits_spendable: 0 });
    await drain();
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 0, credits_reserved: 0, free_tier_remaining: 0 });
  });

  it('credits.low once when spendable credits fall below the threshold, again only after a top-up', async () => {
    const acc = await account({ thresholdCredits: 48.5 });
    const live = await app.request('POST', '/v1/webhook-endpoints', { key: acc.keys.live, json: { url: 'https://hooks.example.com/live', events: ['credits.low'] } });
    const test = await app.request('POST', '/v1/webhook-endpoints', { key: acc.keys.test, json: { url: 'https://hooks.example.com/test', events: ['*'] } });
    await analyze(acc.keys.live); // 49 left
    expect(await events('credits.low', acc.account)).toEqual([]);
    await analyze(acc.keys.live); // 48: below 48.5
    await analyze(acc.keys.live); // 47: still below, nothing new
    const low = await events('credits.low', acc.account);
    expect(low).toHaveLength(1);
    expect(low[0].livemode).toBe(true);
    expect((low[0].payload as any).data).toEqual({ object: 'balance', credits_available: 0, free_tier_remaining: 48, credits_spendable: 48, threshold: 48.5 });
    const deliveries = await app.services.db.selectFrom('webhook_deliveries').select(['endpoint_id', 'event_type']).where('event_type', '=', 'credits.low').execute();
    expect(deliveries.filter((d) => [live.body.id, test.body.id].includes(d.endpoint_id))).toEqual([{ endpoint_id: live.body.id, event_type: 'credits.low' }]);

    await addCredits(app.services.db, clock, acc.account, 5); // 52 spendable: armed again
    for (let i = 0; i < 3; i++) await analyze(acc.keys.live); // 51, 50, 49
    expect(await events('credits.low', acc.account)).toHaveLength(1);
    await analyze(acc.keys.live); // 48
    const again = await events('credits.low', acc.account);
    expect(again).toHaveLength(2);
    expect((again[1].payload as any).data).toMatchObject({ credits_spendable: 48, threshold: 48.5 });
    // Test-mode work never sends it.
    for (let i = 0; i < 2; i++) await analyze(acc.keys.test);
    expect(await events('credits.low', acc.account)).toHaveLength(2);
  });

  it('credits.low is never marked sent without being sent', async () => {
    const acc = await account({ thresholdCredits: 100 }); // always below
    await expect(notifyIfLow(app.services, acc.account, async () => { throw new Error('outbox unavailable'); })).rejects.toThrow('outbox unavailable');
    const row = await app.services.db.selectFrom('accounts').select('low_credit_notified_at').where('id', '=', acc.account).executeTakeFirstOrThrow();
    expect(row.low_credit_notified_at).toBeNull();
    await analyze(acc.keys.live);
    expect(await events('credits.low', acc.account)).toHaveLength(1);
  });

  it('the ledger balances: every charge is one finished analysis, and the balance is the ledger', async () => {
    expect(accounts.length).toBeGreaterThan(5);
    const db = app.services.db;
    for (const accountId of accounts) {
      const entries = await ledger(accountId);
      const res = await reservations(accountId);
      const usage = await db.selectFrom('usage_records').selectAll().where('account_id', '=', accountId).where('livemode', '=', true).execute();
      const analyses = await db.selectFrom('analyses').select(['id', 'status', 'credits_milli']).where('account_id', '=', accountId).where('livemode', '=', true).execute();

      expect(res.filter((r) => r.status === 'held'), 'nothing is held once all work finished').toEqual([]);
      const captured = res.filter((r) => r.status === 'captured');
      // Paid charges in the ledger are exactly the paid parts of captured reservations, one each.
      const charges = entries.filter((e) => e.reason === 'charge').map((e) => [e.reference, -Number(e.amount_milli)]).sort();
      expect(charges).toEqual(captured.filter((r) => Number(r.paid_milli) > 0).map((r) => [r.analysis_id, Number(r.paid_milli)]).sort());
      // Usage and billing agree per analysis: a charged record has its captured reservation; a free one had none or gave it back.
      const byId = new Map(res.map((r) => [r.analysis_id, r]));
      for (const u of usage) {
        const r = byId.get(u.analysis_id);
        if (Number(u.credits_milli) > 0) expect(r && r.status === 'captured' && Number(r.free_milli) + Number(r.paid_milli)).toBe(Number(u.credits_milli));
        else expect(r === undefined || r.status === 'released').toBe(true);
      }
      expect(captured.every((r) => usage.some((u) => u.analysis_id === r.analysis_id))).toBe(true);
      for (const a of analyses) {
        if (a.status === 'failed') expect(Number(a.credits_milli)).toBe(0);
        const u = usage.find((x) => x.analysis_id === a.id);
        if (u) expect(Number(a.credits_milli)).toBe(Number(u.credits_milli));
      }
      // The balance is the ledger: top-ups minus charges.
      const sum = entries.reduce((t, e) => t + Number(e.amount_milli), 0);
      const topUps = entries.filter((e) => e.reason !== 'charge').reduce((t, e) => t + Number(e.amount_milli), 0);
      const charged = captured.reduce((t, r) => t + Number(r.paid_milli), 0);
      expect(sum).toBe(topUps - charged);
      expect(sum).toBeGreaterThanOrEqual(0);
    }
  });

  it('402 monthly_cap_reached past the monthly cap of paid credits, until the 1st (UTC)', async () => {
    const acc = await account({ verified: false, paid: 10, capCredits: 1.5 });
    expect((await analyze(acc.keys.live)).status).toBe(200);
    const capped = await analyze(acc.keys.live);
    expect(capped.status).toBe(402);
    expect(capped.body.error).toMatchObject({ type: 'insufficient_credits', code: 'monthly_cap_reached' });
    expect((await balance(acc.keys.live)).credits_available).toBe(9);
    // 0.2 more still fits under 1.5.
    expect((await analyze(acc.keys.live, 'passport.jpg', {}, '/v1/classify')).status).toBe(200);
    const batchRes = await batch(acc.keys.live, 1);
    expect(batchRes.body.error.code).toBe('monthly_cap_reached');
    // Free-tier credits are not spend: a verified account with a cap of 0 still uses them.
    const free = await account({ capCredits: 0, paid: 5 });
    expect((await analyze(free.keys.live)).status).toBe(200);
    expect(await balance(free.keys.live)).toMatchObject({ credits_available: 5, free_tier_remaining: 49 });

    clock.set('2026-08-01T00:00:01.000Z');
    const next = await analyze(acc.keys.live);
    expect(next.status).toBe(200);
    expect(await balance(acc.keys.live)).toMatchObject({ credits_available: 7.8, free_tier_remaining: 50, free_tier_resets_at: '2026-09-01T00:00:00.000Z' });
  });
});
