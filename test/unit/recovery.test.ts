/**
 * Restart on the embedded database (issue #12, crash recovery): the leases a dead process held are freed at start, so
 * its job, its delivery and its Idempotency-Key are taken up at once instead of minutes later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimIdempotencyKey } from '../../server/src/db/idempotency.ts';
import { claimDueDeliveries } from '../../server/src/db/webhook-deliveries.ts';
import { ANALYSIS_QUEUE, PROCESS_LEASE_MS } from '../../server/src/domain/analysis/pipeline.ts';
import * as queue from '../../server/src/jobs/queue.ts';
import { releaseLeasesOfDeadProcesses } from '../../server/src/jobs/recovery.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

describe.each(DATABASES)('leases of a dead process on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('a running job, a delivery being sent and an Idempotency-Key in flight are free again at once', async () => {
    const now = () => app.services.clock.now();
    // A job the dead process had claimed.
    const res = await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }, [['options', '{"async":true}']]) });
    expect(await queue.claim(app.services.db, app.services.clock, ANALYSIS_QUEUE, PROCESS_LEASE_MS)).toBeDefined();
    expect(await runOneAnalysisJob(app.services)).toBe(false); // leased: nobody else may take it
    // A delivery it was sending.
    const ep = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'https://hooks.example/dead', events: ['*'] } });
    expect(ep.status).toBe(201);
    await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name: 'passport.jpg' }) });
    expect((await claimDueDeliveries(app.services.db, now(), 60_000, 'dead-process', 10)).length).toBeGreaterThan(0);
    expect(await claimDueDeliveries(app.services.db, now(), 60_000, 'new-process', 10)).toEqual([]);
    // A request it was answering under an Idempotency-Key.
    const scope = { account_id: app.account.account, livemode: false, idempotency_key: 'dead-request' };
    const req = { operation_id: 'createAnalysis', request_hash: 'h' };
    const lock = new Date(now().getTime() + 120_000);
    const windowStart = new Date(now().getTime() - 86_400_000);
    expect(await claimIdempotencyKey(app.services.db, scope, req, now(), lock, windowStart)).toEqual({ claimed: true });
    expect((await claimIdempotencyKey(app.services.db, scope, req, now(), lock, windowStart)).claimed).toBe(false);

    const freed = await releaseLeasesOfDeadProcesses(app.services.db, now());
    expect(freed).toMatchObject({ jobs: 1, idempotencyKeys: 1 });
    expect(freed.deliveries).toBeGreaterThan(0);

    expect(await runOneAnalysisJob(app.services)).toBe(true);
    expect((await app.request('GET', `/v1/analyses/${res.body.id}`)).body.status).toBe('completed');
    expect((await claimDueDeliveries(app.services.db, now(), 60_000, 'new-process', 10)).length).toBeGreaterThan(0);
    expect(await claimIdempotencyKey(app.services.db, scope, req, now(), lock, windowStart)).toEqual({ claimed: true });
  });
});
