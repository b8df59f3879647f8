/**
 * Retention of what only grows (#31), through the durable sweep (sweepRetention) on both databases with a moved
 * clock: finished jobs, events, final webhook deliveries beyond the newest N per endpoint (with their attempts),
 * expired exports (file and row), orphan export files and half-written puts, and the directories left empty. Nothing
 * pending is touched. Periods are the defaults (7 d, 30 d, 24 h after expiry) except deliveries (3 per endpoint here).
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_DEFAULTS } from '../../server/src/config.ts';
import { aggregateUsage } from '../../server/src/db/usage.ts';
import { EXPORT_TTL_MS } from '../../server/src/domain/analysis/pipeline.ts';
import * as queue from '../../server/src/jobs/queue.ts';
import { runOneAnalysisJob, sweepRetention } from '../../server/src/jobs/worker.ts';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

const MIN = 60_000;
const DAY = 24 * 3_600_000;

describe.each(DATABASES)('retention sweeps on %s', (kind) => {
  let app: TestApp;
  let rx: Receiver;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp(kind, { clock, config: { allowPrivateUrls: true, retention: { ...RETENTION_DEFAULTS, deliveriesPerEndpoint: 3 } } });
  });
  afterAll(async () => {
    await app?.close();
    await rx?.close();
  });

  const account = () => app.newAccount({ rateLimitPerSecond: 100_000 });
  const jobsById = async (ids: string[]) => (await app.services.db.selectFrom('jobs').select(['id', 'status']).where('id', 'in', ids).execute()).map((j) => j.id).sort();

  it('finished jobs go 7 days after they ended; pending and running ones stay', async () => {
    const acct = await account();
    const res = await app.request('POST', '/v1/analyze', { key: acct.keys.test, json: { file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg', options: { async: true } } });
    expect(res.status).toBe(202);
    const [done] = await app.services.db.selectFrom('jobs').select('id').where(sql<string>`payload->>'analysis_id'`, '=', res.body.id).execute();
    while (await runOneAnalysisJob(app.services));
    const failed = await queue.enqueue(app.services.db, clock, 'retention_test', {}, { maxAttempts: 1 });
    const claimedFailed = (await queue.claim(app.services.db, clock, 'retention_test', MIN, failed.id))!;
    expect(await queue.fail(app.services.db, clock, claimedFailed, 'boom', 0)).toBe('failed');
    const later = await queue.enqueue(app.services.db, clock, 'retention_test', {}, { runAt: new Date(clock.now().getTime() + 30 * DAY) });
    const running = await queue.enqueue(app.services.db, clock, 'retention_test', {}, { claimedForMs: 60 * DAY });
    const all = [done.id, failed.id, later.id, running.id];
    expect((await app.services.db.selectFrom('jobs').select('status').where('id', '=', done.id).executeTakeFirstOrThrow()).status).toBe('done');

    clock.advance(7 * DAY - MIN);
    await sweepRetention(app.services);
    expect(await jobsById(all)).toEqual([...all].sort());
    clock.advance(2 * MIN);
    await sweepRetention(app.services);
    expect(await jobsById(all)).toEqual([later.id, running.id].sort());
  });

  it('events go 30 days after they were written, except one a delivery still waits to send; final deliveries beyond the newest 3 per endpoint go with their attempts', async () => {
    const acct = await account();
    const ep = await app.request('POST', '/v1/webhook-endpoints', { key: acct.keys.test, json: { url: rx.url('/script/retention'), events: ['analysis.completed'] } });
    expect(ep.status).toBe(201);
    // Five analyses, five events, five deliveries sent (succeeded, one attempt each); one minute apart.
    for (let i = 0; i < 5; i++) {
      expect((await app.request('POST', '/v1/analyze', { key: acct.keys.test, json: { file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg' } })).status).toBe(200);
      clock.advance(MIN);
    }
    while ((await runDueDeliveries(app.services, { limit: 50, sender: { ca: rx.ca } })) > 0);
    // A sixth whose delivery waits (the receiver answers 500: it is retried later).
    rx.script = ['500'];
    expect((await app.request('POST', '/v1/analyze', { key: acct.keys.test, json: { file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg' } })).status).toBe(200);
    expect(await runDueDeliveries(app.services, { limit: 50, sender: { ca: rx.ca } })).toBe(1);
    const deliveries = () => app.services.db.selectFrom('webhook_deliveries').select(['id', 'status', 'event_id']).where('endpoint_id', '=', ep.body.id).orderBy('id').execute();
    const before = await deliveries();
    expect(before.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded', 'pending']);
    const attempts = async (ids: string[]) => app.services.db.selectFrom('webhook_delivery_attempts').select('delivery_id').where('delivery_id', 'in', ids).execute();
    expect(await attempts(before.map((d) => d.id))).toHaveLength(6);
    const events = () => app.services.db.selectFrom('events').select('id').where('account_id', '=', acct.account).orderBy('id').execute();
    expect(await events()).toHaveLength(6);

    // Deliveries: the two oldest final ones go at once (count, not age), with their attempts; the pending one stays.
    await sweepRetention(app.services);
    const after = await deliveries();
    expect(after.map((d) => d.id)).toEqual(before.slice(2).map((d) => d.id));
    expect(await attempts(before.slice(0, 2).map((d) => d.id))).toEqual([]);
    expect(await attempts(after.map((d) => d.id))).toHaveLength(4);
    expect(await events()).toHaveLength(6);

    // Events: 30 days on, all but the one whose delivery is still pending.
    clock.advance(30 * DAY + MIN);
    await app.services.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(clock.now().getTime() + DAY) }).where('id', '=', before[5].id).execute();
    await sweepRetention(app.services);
    expect((await events()).map((e) => e.id)).toEqual([before[5].event_id]);
    // Once that delivery is final (here: it succeeds), its event goes too.
    rx.script = [];
    clock.advance(DAY);
    expect(await runDueDeliveries(app.services, { limit: 50, sender: { ca: rx.ca } })).toBe(1);
    await sweepRetention(app.services);
    expect(await events()).toEqual([]);
    expect((await deliveries()).map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('an export goes (file and row) 24 hours after its URL expired; orphan export files, half-written puts and the directories they leave go too', async () => {
    const acct = await account();
    const res = await app.request('POST', '/v1/analyze', { key: acct.keys.test, json: { file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg', options: { export: ['csv'] } } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.exports)).toEqual(['csv']);
    const [exp] = await app.services.db.selectFrom('exports').selectAll().where('analysis_id', '=', res.body.id).execute();
    expect(await app.services.blobs.get(exp.blob_key)).not.toBeNull();
    // Files no row points at, as a process that died mid-way would leave them.
    const orphan = `${acct.account}/an_orphan/exports/exp_orphan`;
    const half = `${acct.account}/an_orphan/original.123.456.tmp`;
    await app.services.blobs.put(orphan, new Uint8Array([1, 2, 3]));
    await app.services.blobs.put(half, new Uint8Array([4]));
    const root = path.join(app.services.config.dataDir, 'files');
    expect(fs.existsSync(path.join(root, acct.account, 'an_orphan'))).toBe(true);

    clock.advance(EXPORT_TTL_MS + DAY - MIN);
    await sweepRetention(app.services);
    expect(await app.services.db.selectFrom('exports').select('id').where('id', '=', exp.id).execute()).toHaveLength(1);
    expect(await app.services.blobs.get(exp.blob_key)).not.toBeNull();
    // The orphans are older than the hour of grace: gone, and their directories with them.
    expect(await app.services.blobs.get(orphan)).toBeNull();
    expect(await app.services.blobs.get(half)).toBeNull();
    expect(fs.existsSync(path.join(root, acct.account, 'an_orphan'))).toBe(false);
    expect(fs.existsSync(root)).toBe(true);

    clock.advance(2 * MIN);
    await sweepRetention(app.services);
    expect(await app.services.db.selectFrom('exports').select('id').where('id', '=', exp.id).execute()).toEqual([]);
    expect(await app.services.blobs.get(exp.blob_key)).toBeNull();
    // The analysis itself is untouched, and shows no export.
    const got = await app.request('GET', `/v1/analyses/${res.body.id}`, { key: acct.keys.test });
    expect(got.status).toBe(200);
    expect(got.body.exports).toEqual({});
  });

  it.runIf(kind === 'pglite')("the embedded database's write-ahead log does not grow with the writes: the sweep checkpoints it (PGlite has no checkpointer)", async () => {
    const walFiles = async () => (await sql<{ n: number }>`select count(*)::int as n from pg_ls_waldir()`.execute(app.services.db)).rows[0].n;
    // Churn: rows written and deleted, as analyses with keep_results: false do (about 50 MB of log a round).
    const churn = async () => {
      for (let i = 0; i < 20; i++) {
        await sql`insert into wal_churn select repeat('x', 500) from generate_series(1, 4000)`.execute(app.services.db);
        await sql`delete from wal_churn`.execute(app.services.db);
      }
    };
    await sql`create table wal_churn (v text)`.execute(app.services.db);
    const rounds: number[] = [];
    for (let round = 0; round < 3; round++) {
      await churn();
      clock.advance(2 * MIN); // the sweep's VACUUM and CHECKPOINT run at most once a minute
      await sweepRetention(app.services);
      rounds.push(await walFiles());
    }
    await sql`drop table wal_churn`.execute(app.services.db);
    // Without a checkpoint every round added its 16 MB segments (3, 6, 9...); with one they are recycled and reused.
    expect(rounds[2], `WAL segments after each round: ${rounds.join(', ')}`).toBeLessThanOrEqual(rounds[0]);
  });

  it('usage rows are folded into one per account, mode, day, type and kind after COTEJO_RETENTION_USAGE_DETAIL; the usage answered is the same', async () => {
    const acct = await account();
    for (const name of ['dni_valid.jpg', 'dni_valid.jpg', 'passport.jpg']) {
      const res = await app.request('POST', '/v1/analyze', { key: acct.keys.test, json: { file_base64: fixtures.jpeg().toString('base64'), filename: name, options: { keep_results: false } } });
      expect(res.status).toBe(200);
    }
    const rows = () => app.services.db.selectFrom('usage_records').select(['analysis_id', 'analyses']).where('account_id', '=', acct.account).orderBy('analysis_id').execute();
    const day = clock.now().toISOString().slice(0, 10);
    const usage = () => aggregateUsage(app.services.db, { account_id: acct.account, livemode: false }, { from: day, to: day });
    const before = await usage();
    expect(before.reduce((n, r) => n + r.count, 0)).toBe(3);
    expect(await rows()).toHaveLength(3);
    clock.advance(RETENTION_DEFAULTS.usageDetailMs! - MIN);
    await sweepRetention(app.services);
    expect(await rows()).toHaveLength(3);
    clock.advance(2 * MIN);
    await sweepRetention(app.services);
    const folded = await rows();
    expect(folded.length).toBe(before.length);
    expect(folded.every((r) => r.analysis_id.startsWith('usage:'))).toBe(true);
    expect(await usage()).toEqual(before);
    // A later analysis of the same day (a retried job, say) adds to the folded row on the next sweep.
    await app.services.db.insertInto('usage_records').values({ analysis_id: 'an_late', account_id: acct.account, livemode: false, day, document_type: before[0].document_type, kind: before[0].kind, pages: 1, credits_milli: 0, created_at: new Date(clock.now().getTime() - RETENTION_DEFAULTS.usageDetailMs! - MIN) }).execute();
    await sweepRetention(app.services);
    expect(await rows()).toHaveLength(before.length);
    const after = await usage();
    expect(after.reduce((n, r) => n + r.count, 0)).toBe(4);
    expect(after[0].count).toBe(before[0].count + 1);
  });
});
