import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/src/app.ts';
import { updateAccount } from '../../server/src/db/accounts.ts';
import { openDatabase } from '../../server/src/db/database.ts';
import { pagesAvailable, slotsInUse, spendPages } from '../../server/src/db/live-limits.ts';
import { addCredits, type CreatedAccount } from '../../server/src/domain/accounts.ts';
import type { Services } from '../../server/src/http/context.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { createLogger } from '../../server/src/logger.ts';
import type { ProcessingProfile, Provider } from '../../server/src/providers/types.ts';
import { openServices } from '../../server/src/services.ts';
import { makePdf } from '../hostile/samples.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp, type TestResponse } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import { standInLiveProvider } from '../support/live-provider.ts';
import { assertMatchesSpec } from '../support/spec.ts';

/**
 * A live reader that can be held: while `hold` is on, every reading waits until the test lets it go, so synchronous
 * live analyses stay in flight as long as the test needs. It reads like the stand-in (test mode's readings, reported
 * as an EU provider) and is not simulated: its time is real, as a real provider's.
 */
function gatedProvider(profiles?: readonly ProcessingProfile[]) {
  const waiting: Array<() => void> = [];
  const gate = {
    hold: false,
    get waiting() {
      return waiting.length;
    },
    releaseOne: () => waiting.shift()?.(),
    releaseAll: () => {
      while (waiting.length > 0) waiting.shift()!();
    },
    provider: {
      name: 'gated-live',
      ...(profiles ? { profiles } : {}),
      async read(input) {
        if (gate.hold) await new Promise<void>((resolve) => waiting.push(resolve));
        return standInLiveProvider.read(input);
      },
    } as Provider,
  };
  return gate;
}

async function until(what: string, test: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

type Doc = { bytes: Uint8Array; name: string };
const jpeg = new Uint8Array(fixtures.jpeg());
const pdf30 = new Uint8Array(makePdf(30));
const pdf90 = new Uint8Array(makePdf(90));
const image: Doc = { bytes: jpeg, name: 'dni_valid.jpg' };
const pages30: Doc = { bytes: pdf30, name: 'invoice.pdf' };

describe.each(DATABASES)('live-mode limits on %s', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-07-15T12:00:00.000Z');
  const gate = gatedProvider();

  beforeAll(async () => {
    app = await startTestApp(kind, { clock, liveProvider: gate.provider });
  });
  // A failed test must not leave readings held for the next one.
  afterEach(() => {
    gate.hold = false;
    gate.releaseAll();
  });
  afterAll(() => app?.close());

  async function account(o: { concurrency?: number; pagesPerMinute?: number; processing?: ProcessingProfile } = {}): Promise<CreatedAccount> {
    const acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
    await updateAccount(app.services.db, acc.account, {
      email: 'ops@example.com',
      email_verified: true,
      ...(o.concurrency !== undefined ? { live_concurrency_limit: o.concurrency } : {}),
      ...(o.pagesPerMinute !== undefined ? { live_pages_per_minute: o.pagesPerMinute } : {}),
      ...(o.processing !== undefined ? { default_processing: o.processing } : {}),
    });
    await addCredits(app.services.db, clock, acc.account, 1000);
    return acc;
  }

  const analyze = (key: string, file: Doc = image, options: Record<string, unknown> = {}, extra: { path?: string; headers?: Record<string, string> } = {}) =>
    app.request('POST', extra.path ?? '/v1/analyze', { key, headers: extra.headers, body: form(file, [['options', JSON.stringify(options)]]) });

  /** What a request could have left behind in the account. */
  async function footprint(acc: CreatedAccount, capacity: number) {
    const db = app.services.db;
    return {
      analyses: (await db.selectFrom('analyses').select('id').where('account_id', '=', acc.account).execute()).length,
      batches: (await db.selectFrom('batches').select('id').where('account_id', '=', acc.account).execute()).length,
      held: (await db.selectFrom('credit_reservations').select('analysis_id').where('account_id', '=', acc.account).where('status', '=', 'held').execute()).length,
      slots: await slotsInUse(db, acc.account, clock.now()),
      pages: await pagesAvailable(db, acc.account, capacity, clock.now()),
    };
  }

  function expect429(res: TestResponse, code: 'concurrency_limit' | 'pages_rate_limited', retryAfter: string): void {
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ type: 'rate_limited', code });
    expect(res.headers.get('retry-after')).toBe(retryAfter);
    // The request-rate headers every response carries, as on the other 429s.
    for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy']) expect(res.headers.get(h)).not.toBeNull();
  }

  it('new accounts: 5 synchronous live analyses at once, 120 live pages a minute, the sovereign profile', async () => {
    const acc = await app.newAccount();
    const row = await app.services.db.selectFrom('accounts').selectAll().where('id', '=', acc.account).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ default_processing: 'sovereign', live_concurrency_limit: 5, live_pages_per_minute: 120 });
  });

  it('429 concurrency_limit once the account has its maximum of synchronous live analyses running; room again when one ends', async () => {
    const acc = await account({ concurrency: 2 });
    gate.hold = true;
    const first = analyze(acc.keys.live);
    const second = analyze(acc.keys.live, image, {}, { path: '/v1/classify' }); // a classification takes a slot too
    await until('two readings in flight', () => gate.waiting === 2);
    const before = await footprint(acc, 120);
    expect(before).toMatchObject({ analyses: 2, held: 2, slots: 2 });

    const refused = await analyze(acc.keys.live);
    expect429(refused, 'concurrency_limit', '1');
    expect(refused.body.error.message).toContain('2 análisis síncronos');
    expect(await analyze(acc.keys.live, image, {}, { path: '/v1/classify' })).toMatchObject({ status: 429 });
    // Nothing of the refused requests stays: no analysis, no credits held, no pages taken, no slot.
    expect(await footprint(acc, 120)).toEqual(before);

    // Only synchronous live work counts: async live work and test mode go through.
    expect((await analyze(acc.keys.live, image, { async: true })).status).toBe(202);
    expect((await analyze(acc.keys.test)).status).toBe(200);

    // One reading ends (whichever reached the reader first): its slot is free for the next request.
    gate.releaseOne();
    expect((await Promise.race([first, second])).status).toBe(200);
    expect(await slotsInUse(app.services.db, acc.account, clock.now())).toBe(1);
    const third = analyze(acc.keys.live);
    await until('the third reading in flight', () => gate.waiting === 2);
    expect(await slotsInUse(app.services.db, acc.account, clock.now())).toBe(2);
    gate.hold = false;
    gate.releaseAll();
    expect((await Promise.all([first, second, third])).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await slotsInUse(app.services.db, acc.account, clock.now())).toBe(0);
  });

  it('admits exactly the limit out of many concurrent synchronous requests', async () => {
    const acc = await account({ concurrency: 2 });
    gate.hold = true;
    const answered: number[] = [];
    const all = Array.from({ length: 6 }, () => analyze(acc.keys.live).then((r) => (answered.push(r.status), r)));
    // The refused ones answer at once, while the two admitted are held.
    await until('four answers', () => answered.length === 4);
    expect(answered).toEqual([429, 429, 429, 429]);
    expect(gate.waiting).toBe(2);
    gate.hold = false;
    gate.releaseAll();
    const statuses = (await Promise.all(all)).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
  });

  it('a synchronous analysis that answered 202 past the wait keeps its slot until its reading ends', async () => {
    const acc = await account({ concurrency: 1 });
    app.services.syncWaitMs = 300;
    try {
      gate.hold = true;
      const slow = await analyze(acc.keys.live);
      expect(slow.status).toBe(202);
      expect(slow.body.status).toBe('processing');
      expect429(await analyze(acc.keys.live), 'concurrency_limit', '1');
      gate.hold = false;
      gate.releaseAll();
      await Promise.allSettled([...app.services.inflight]);
      expect((await app.request('GET', `/v1/analyses/${slow.body.id}`, { key: acc.keys.live })).body.status).toBe('completed');
      expect(await slotsInUse(app.services.db, acc.account, clock.now())).toBe(0);
      expect((await analyze(acc.keys.live)).status).toBe(200);
    } finally {
      app.services.syncWaitMs = undefined;
    }
  });

  it('an idempotent retry of a refused request runs again (a 429 is never replayed)', async () => {
    const acc = await account({ concurrency: 1 });
    gate.hold = true;
    const holding = analyze(acc.keys.live);
    await until('a reading in flight', () => gate.waiting === 1);
    const headers = { 'Idempotency-Key': `limits-${kind}` };
    expect429(await analyze(acc.keys.live, image, {}, { headers }), 'concurrency_limit', '1');
    gate.hold = false;
    gate.releaseAll();
    expect((await holding).status).toBe(200);
    const retry = await analyze(acc.keys.live, image, {}, { headers });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const replay = await analyze(acc.keys.live, image, {}, { headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(retry.body.id);
  });

  it('429 pages_rate_limited past the pages of a minute, with the exact Retry-After; nothing taken by a refusal', async () => {
    const acc = await account({ pagesPerMinute: 60 }); // one page a second
    expect((await analyze(acc.keys.live, pages30)).body.usage.pages).toBe(30);
    expect((await analyze(acc.keys.live, pages30)).status).toBe(200);
    const before = await footprint(acc, 60);
    expect(before).toMatchObject({ analyses: 2, pages: 0 });

    const one = await analyze(acc.keys.live);
    expect429(one, 'pages_rate_limited', '1');
    expect(one.body.error.message).toContain('60');
    expect429(await analyze(acc.keys.live, pages30), 'pages_rate_limited', '30');
    expect429(await analyze(acc.keys.live, image, {}, { path: '/v1/classify' }), 'pages_rate_limited', '1');
    expect429(await analyze(acc.keys.live, pages30, { async: true }), 'pages_rate_limited', '30');
    expect(await footprint(acc, 60)).toEqual(before);
    // Test mode is never limited.
    for (let i = 0; i < 3; i++) expect((await analyze(acc.keys.test, pages30)).status).toBe(200);

    clock.advance(29_000); // 29 pages back
    expect429(await analyze(acc.keys.live, pages30), 'pages_rate_limited', '1');
    clock.advance(1_000);
    expect((await analyze(acc.keys.live, pages30)).status).toBe(200);
    expect429(await analyze(acc.keys.live), 'pages_rate_limited', '1');
    clock.advance(60_000); // a full bucket again, never more than a minute's worth
    expect((await footprint(acc, 60)).pages).toBe(60);
  });

  it('a document larger than a minute of pages waits for a full bucket and leaves it below zero', async () => {
    const acc = await account({ pagesPerMinute: 60 });
    const big = await analyze(acc.keys.live, { bytes: pdf90, name: 'invoice.pdf' }, { async: true });
    expect(big.status).toBe(202);
    expect((await footprint(acc, 60)).pages).toBe(-30);
    expect429(await analyze(acc.keys.live), 'pages_rate_limited', '31');
    clock.advance(31_000);
    expect((await analyze(acc.keys.live)).status).toBe(200);
    // Pages learnt after admission (a batch's file_url item, once downloaded) are taken whatever is left.
    await spendPages(app.services.db, acc.account, 5, clock.now());
    expect((await footprint(acc, 60)).pages).toBe(-5);
  });

  it('batches: their pages count; a batch that does not fit is refused whole with Retry-After', async () => {
    const acc = await account({ pagesPerMinute: 60 });
    const batch = (files: Doc[], key = acc.keys.live) => {
      const fd = new FormData();
      for (const f of files) fd.append('files[]', new Blob([f.bytes as Uint8Array<ArrayBuffer>]), f.name);
      return app.request('POST', '/v1/batches', { key, body: fd });
    };
    expect((await batch([pages30, image, image])).status).toBe(202);
    expect((await footprint(acc, 60)).pages).toBe(28);
    const before = await footprint(acc, 60);
    expect429(await batch([pages30, image]), 'pages_rate_limited', '3');
    expect(await footprint(acc, 60)).toEqual(before);
    expect((await batch([pages30, image], acc.keys.test)).status).toBe(202);
    clock.advance(3_000);
    expect((await batch([pages30, image])).status).toBe(202);
  });

  it('processing.profile: the requested one, else the account profile (a CLI setting), in both modes', async () => {
    const acc = await account();
    for (const key of [acc.keys.live, acc.keys.test]) {
      expect((await analyze(key)).body.processing.profile).toBe('sovereign');
      expect((await analyze(key, image, { processing: 'standard' })).body.processing.profile).toBe('standard');
    }
    await updateAccount(app.services.db, acc.account, { default_processing: 'standard' });
    for (const key of [acc.keys.live, acc.keys.test]) {
      expect((await analyze(key)).body.processing.profile).toBe('standard');
      expect((await analyze(key, image, { processing: 'sovereign' })).body.processing.profile).toBe('sovereign');
      expect((await analyze(key, image, {}, { path: '/v1/classify' })).body.processing.profile).toBe('standard');
    }
    const fd = new FormData();
    fd.append('files[]', new Blob([jpeg as Uint8Array<ArrayBuffer>]), 'dni_valid.jpg');
    const batch = await app.request('POST', '/v1/batches', { key: acc.keys.live, body: fd });
    while (await runOneAnalysisJob(app.services));
    const member = await app.request('GET', `/v1/analyses/${batch.body.analyses[0]}`, { key: acc.keys.live });
    expect(member.body.processing.profile).toBe('standard');
  });

  it('422 processing_unavailable when the live reader does not serve the profile (asked for, or the account profile)', async () => {
    const acc = await account(); // sovereign by default
    const live = app.services.providers.live;
    app.services.providers.live = gatedProvider(['standard']).provider;
    try {
      const before = await footprint(acc, 120);
      const asked = await analyze(acc.keys.live, image, { processing: 'sovereign' });
      expect(asked.status).toBe(422);
      expect(asked.body.error).toMatchObject({ code: 'processing_unavailable', param: 'options.processing' });
      expect(asked.body.error.message).toContain('standard');
      const byDefault = await analyze(acc.keys.live);
      expect(byDefault.body.error).toMatchObject({ code: 'processing_unavailable', param: 'options.processing' });
      // Options at the root of a JSON body name the key as sent.
      const root = await app.request('POST', '/v1/analyze', { key: acc.keys.live, json: { file_base64: Buffer.from(jpeg).toString('base64'), filename: 'dni_valid.jpg', processing: 'sovereign' } });
      expect(root.body.error).toMatchObject({ code: 'processing_unavailable', param: 'processing' });
      const inBatch = await app.request('POST', '/v1/batches', {
        key: acc.keys.live,
        json: { items: [{ file_base64: Buffer.from(jpeg).toString('base64'), filename: 'dni_valid.jpg', options: { processing: 'standard' } }, { file_base64: Buffer.from(jpeg).toString('base64'), filename: 'dni_valid.jpg' }], options: { processing: 'standard' } },
      });
      expect(inBatch.status).toBe(202);
      const itemAsks = await app.request('POST', '/v1/batches', {
        key: acc.keys.live,
        json: { items: [{ file_base64: Buffer.from(jpeg).toString('base64'), filename: 'dni_valid.jpg', options: { processing: 'sovereign' } }], options: { processing: 'standard' } },
      });
      expect(itemAsks.body.error).toMatchObject({ code: 'processing_unavailable', param: 'items.0.options.processing' });
      expect(await footprint(acc, 120)).toMatchObject({ analyses: before.analyses + 2, batches: 1 });

      const served = await analyze(acc.keys.live, image, { processing: 'standard' });
      expect(served.status).toBe(200);
      expect(served.body.processing.profile).toBe('standard');
      // Test mode's reader serves both profiles.
      expect((await analyze(acc.keys.test, image, { processing: 'sovereign' })).status).toBe(200);
      await updateAccount(app.services.db, acc.account, { default_processing: 'standard' });
      expect((await analyze(acc.keys.live)).body.processing.profile).toBe('standard');
    } finally {
      app.services.providers.live = live;
    }
  });

  it.runIf(kind === 'postgres')('two server processes on one PostgreSQL share the limits', async () => {
    const acc = await account({ concurrency: 1, pagesPerMinute: 60 });
    // A second app (another process's view: its own pool, its own memory) on the same schema and files.
    const services2: Services = await openServices(app.services.config, clock, createLogger('silent'), { schema: app.services.database.schema, poolSize: 3 });
    services2.providers.live = gate.provider;
    const server2 = http.createServer(buildApp(services2));
    await new Promise<void>((resolve) => server2.listen(0, '127.0.0.1', resolve));
    const base2 = `http://127.0.0.1:${(server2.address() as AddressInfo).port}`;
    const analyze2 = async (file: Doc = image): Promise<TestResponse> => {
      const res = await fetch(`${base2}/v1/analyze`, { method: 'POST', headers: { Authorization: `Bearer ${acc.keys.live}` }, body: form(file) });
      const text = await res.text();
      const out = { status: res.status, headers: res.headers, body: JSON.parse(text), text, bytes: new Uint8Array() };
      assertMatchesSpec('POST', '/v1/analyze', out);
      return out;
    };
    try {
      gate.hold = true;
      const first = analyze(acc.keys.live);
      await until('a reading in flight', () => gate.waiting === 1);
      expect429(await analyze2(), 'concurrency_limit', '1');
      gate.hold = false;
      gate.releaseAll();
      expect((await first).status).toBe(200);
      expect((await analyze2()).status).toBe(200); // 2 pages spent, one in each process

      // Concurrent requests to both processes: still exactly the limit admitted.
      gate.hold = true;
      const racing = [analyze(acc.keys.live), analyze2(), analyze(acc.keys.live), analyze2()];
      await until('a reading in flight', () => gate.waiting === 1);
      await new Promise((r) => setTimeout(r, 500));
      expect(gate.waiting).toBe(1);
      gate.hold = false;
      gate.releaseAll();
      expect((await Promise.all(racing)).map((r) => r.status).sort()).toEqual([200, 429, 429, 429]);

      // 3 pages spent; 57 left: a 30-page PDF in one process, and the other process sees what is left.
      expect((await analyze(acc.keys.live, pages30)).status).toBe(200);
      expect429(await analyze2(pages30), 'pages_rate_limited', '3');
    } finally {
      gate.releaseAll();
      await Promise.allSettled([...services2.inflight]);
      server2.closeAllConnections();
      await new Promise<void>((resolve) => server2.close(() => resolve()));
      await services2.database.close();
    }
  });
});

describe('the CLI sets the account profile and the live limits', () => {
  const ROOT = path.resolve(import.meta.dirname, '../..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-limits-cli-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const cli = (...args: string[]) => {
    const r = spawnSync(process.execPath, ['server/src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', COTEJO_DATA_DIR: dir }, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('accounts update --processing, --live-concurrency, --live-pages-per-minute; bad values refused', async () => {
    const help = cli('--help');
    for (const o of ['--processing sovereign|standard', '--live-concurrency N', '--live-pages-per-minute N']) expect(help.stdout).toContain(o);
    const created = cli('accounts', 'create', '--json');
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).account as string;
    const set = cli('accounts', 'update', '--account', id, '--processing', 'standard', '--live-concurrency', '3', '--live-pages-per-minute', '600', '--json');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout).updated).toEqual(['default_processing', 'live_concurrency_limit', 'live_pages_per_minute']);
    for (const [args, message] of [
      [['--processing', 'eu'], '--processing must be sovereign or standard'],
      [['--live-concurrency', '0'], '--live-concurrency must be an integer from 1 to 1000'],
      [['--live-pages-per-minute', '1e3'], '--live-pages-per-minute must be an integer from 1 to 1000000'],
    ] as const) {
      const bad = cli('accounts', 'update', '--account', id, ...args);
      expect(bad.code, args.join(' ')).toBe(1);
      expect(bad.stderr).toContain(message);
    }
    const database = await openDatabase({ dataDir: dir });
    try {
      const row = await database.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ default_processing: 'standard', live_concurrency_limit: 3, live_pages_per_minute: 600 });
    } finally {
      await database.close();
    }
  }, 120_000);
});
