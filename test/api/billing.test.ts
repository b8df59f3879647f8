import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../../server/src/domain/accounts.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

describe.each(DATABASES)('balance and usage on %s', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-07-15T12:00:00.000Z');
  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
  });
  afterAll(() => app?.close());

  it('reports credits: the ledger, the monthly free tier and when it resets', async () => {
    const fresh = await app.request('GET', '/v1/balance');
    expect(fresh.body).toEqual({
      object: 'balance', credits_available: 0, credits_reserved: 0, free_tier_remaining: 50, credits_spendable: 50, free_tier_resets_at: '2026-08-01T00:00:00.000Z',
    });
    await addCredits(app.services.db, clock, app.account.account, 120.5);
    const topped = await app.request('GET', '/v1/balance', { key: app.account.keys.live });
    expect(topped.body).toMatchObject({ credits_available: 120.5, credits_spendable: 170.5 });
  });

  it('aggregates usage per day, type and kind in the key\'s mode, free in test mode, kept after deletion', async () => {
    const analyze = (path: string, name: string, options: Record<string, unknown> = {}) =>
      app.request('POST', path, { body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify(options)]]) });
    await analyze('/v1/analyze', 'dni_valid.jpg');
    const gone = await analyze('/v1/analyze', 'dni_valid.jpg', { keep_results: false });
    expect(gone.status).toBe(200);
    await analyze('/v1/classify', 'passport.jpg');
    clock.advance(24 * 3600_000);
    const deleted = await analyze('/v1/analyze', 'passport.jpg');
    await app.request('DELETE', `/v1/analyses/${deleted.body.id}`);
    const fd = new FormData();
    fd.append('files[]', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>]), 'dni_valid.jpg');
    await app.request('POST', '/v1/batches', { body: fd });
    while (await runOneAnalysisJob(app.services));

    const usage = await app.request('GET', '/v1/usage');
    expect(usage.body).toMatchObject({ object: 'usage', from: '2026-07-01', to: '2026-07-16', livemode: false });
    expect(usage.body.data).toEqual([
      { date: '2026-07-15', type: 'es_dni', kind: 'analysis', count: 2, pages: 2, credits: 0 },
      { date: '2026-07-15', type: 'passport', kind: 'classification', count: 1, pages: 1, credits: 0 },
      { date: '2026-07-16', type: 'es_dni', kind: 'batch_analysis', count: 1, pages: 1, credits: 0 },
      { date: '2026-07-16', type: 'passport', kind: 'analysis', count: 1, pages: 1, credits: 0 },
    ]);
    expect(usage.body.totals).toEqual({ count: 5, pages: 5, credits: 0 });

    const day = await app.request('GET', '/v1/usage?from=2026-07-16&to=2026-07-16&kind=analysis');
    expect(day.body.data).toEqual([{ date: '2026-07-16', type: 'passport', kind: 'analysis', count: 1, pages: 1, credits: 0 }]);
    expect((await app.request('GET', '/v1/usage?type=passport')).body.totals.count).toBe(2);
    expect((await app.request('GET', '/v1/usage', { key: app.account.keys.live })).body).toMatchObject({ livemode: true, data: [], totals: { count: 0 } });
    for (const [q, param] of [['from=2026-07-20&to=2026-07-01', 'to'], ['from=yesterday', 'from'], ['kind=refund', 'kind']]) {
      const bad = await app.request('GET', `/v1/usage?${q}`);
      expect(bad.status, q).toBe(422);
      expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param });
    }
  });
});
