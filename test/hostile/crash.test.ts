/**
 * Crash recovery of the REAL server process (`node server/src/main.ts`), on the embedded database (a PGlite data
 * directory in a temp dir) and, when DATABASE_URL is set, on a PostgreSQL database of its own (`crash_<ulid>`,
 * dropped afterwards).
 *
 * The server is killed with SIGKILL (no shutdown code runs) while a batch is being processed and while webhook
 * deliveries are in flight to a local HTTPS receiver (self-signed certificate, trusted by the server through
 * NODE_EXTRA_CA_CERTS; COTEJO_ALLOW_PRIVATE_URLS lets it target 127.0.0.1), then restarted on the same database.
 *
 * Time travel, and only this, on PostgreSQL: the work a dead process held is leased (a job 2 min, a delivery 60 s)
 * and is taken up again only when the lease has passed. Waiting for real would take minutes per crash, so while no
 * server runs the test moves the leases of the dead process into the past (`locked_until`), which is exactly the
 * state the database reaches once that time has passed. Nothing else is touched. On the embedded database the
 * restarted server frees them itself (only one process can open it), which the PGlite cases prove.
 *
 * What the specification promises and is asserted after recovery: every document of the batch ends `completed` (or
 * its simulated `failed`), the batch `completed`; every event is delivered (at least once), `batch.completed` is one
 * event per batch, a `webhook-id` arrives more than once only when a process died between sending it and recording
 * the answer (at most once per server process, every extra copy sent by a process that was then killed); every
 * delivery row ends `succeeded`; one usage record per analysis and nothing charged (test mode).
 *
 * On PostgreSQL a third case makes the crash land at one exact point instead of a random one: the test holds a lock
 * on the `events` table, so the server stops right where it writes an event, and is killed there.
 *
 * The test reads the database directly (PostgreSQL at any time; PGlite only while the server is stopped, since one
 * process may open a data directory). Run: `npx vitest run test/hostile/crash.test.ts`, with DATABASE_URL set for
 * PostgreSQL too.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/src/db/database.ts';
import { fixtures } from '../support/files.ts';
import { selfSignedCert } from '../unit/webhooks/receiver.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = process.execPath; // Node 24 (node_modules/.bin first on PATH)
const KINDS = process.env.DATABASE_URL ? (['pglite', 'postgres'] as const) : (['pglite'] as const);
type Kind = (typeof KINDS)[number];

/** Time a server may take to record a delivery's answer; a copy answered earlier than this before a crash must not come again. */
const RECORD_GRACE_MS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns something truthy; fails with `what` after `timeoutMs`. */
async function waitFor<T>(what: string | (() => string), fn: () => Promise<T> | T, timeoutMs: number, intervalMs = 100): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const text = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${text}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The webhook receiver: HTTPS on 127.0.0.1, answers 200 after `delayMs`, records every request with the server
// process ("generation") that was running when it arrived.

interface Receipt {
  path: string;
  webhookId: string;
  timestamp: string;
  signature: string;
  body: string;
  type: string;
  dataId: string | undefined;
  at: number;
  /** When the 200 was fully written (undefined: the sender was gone first). */
  answeredAt?: number;
  gen: number;
}

interface HookReceiver {
  url: (p: string) => string;
  ca: string;
  receipts: Receipt[];
  delayMs: number;
  gen: number;
  inflight: number;
  lastAt: number;
  on: (p: string) => Receipt[];
  close: () => Promise<void>;
}

async function startHookReceiver(): Promise<HookReceiver> {
  const { cert, key } = await selfSignedCert();
  const rx = { receipts: [] as Receipt[], delayMs: 0, gen: 0, inflight: 0, lastAt: 0 } as HookReceiver;
  const server = https.createServer({ cert, key }, (req, res) => {
    rx.inflight++;
    let open = true;
    const closed = () => {
      if (open) rx.inflight--;
      open = false;
    };
    res.on('close', closed);
    res.on('error', () => undefined);
    req.on('error', () => undefined);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: { type?: string; data?: { id?: string } } = {};
      try {
        parsed = JSON.parse(body);
      } catch {
        /* recorded as is; the assertions will say */
      }
      const h = (name: string) => String(req.headers[name] ?? '');
      const receipt: Receipt = {
        path: new URL(req.url ?? '/', 'https://x').pathname,
        webhookId: h('webhook-id'),
        timestamp: h('webhook-timestamp'),
        signature: h('webhook-signature'),
        body,
        type: String(parsed.type),
        dataId: parsed.data?.id,
        at: Date.now(),
        gen: rx.gen,
      };
      rx.receipts.push(receipt);
      rx.lastAt = Date.now();
      res.on('finish', () => (receipt.answeredAt = Date.now()));
      const answer = () => {
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      };
      if (rx.delayMs > 0) setTimeout(answer, rx.delayMs).unref();
      else answer();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(rx, {
    url: (p: string) => `https://127.0.0.1:${port}${p}`,
    ca: cert,
    on: (p: string) => rx.receipts.filter((r) => r.path === p),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Server processes.

interface ServerProc {
  child: ChildProcess;
  out: string[];
  baseUrl: string;
  gen: number;
  startedAt: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();
// Even if this worker is torn down without afterAll, no server outlives it.
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

function startServer(env: NodeJS.ProcessEnv, gen: number): Promise<ServerProc> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['server/src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const out: string[] = [];
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
      child.once('exit', (code, signal) => {
        children.delete(child);
        res({ code, signal });
      }),
    );
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within 60 s:\n${out.join('')}`));
    }, 60_000);
    child.stderr!.on('data', (d) => out.push(String(d)));
    child.stdout!.on('data', (d) => {
      out.push(String(d));
      const text = out.join('');
      const port = /\(port (\d+),/.exec(text)?.[1];
      if (port && text.includes('OpenAPI document:')) {
        clearTimeout(timer);
        resolve({ child, out, baseUrl: `http://127.0.0.1:${port}`, gen, startedAt: Date.now(), exited });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before it was ready:\n${out.join('')}`));
    });
  });
}

async function kill9(p: ServerProc): Promise<void> {
  p.child.kill('SIGKILL');
  const { signal } = await p.exited;
  expect(signal).toBe('SIGKILL');
}

async function stopGracefully(p: ServerProc): Promise<void> {
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 30_000);
  const { code } = await p.exited;
  clearTimeout(timer);
  expect(code, `graceful stop:\n${p.out.join('').slice(-4000)}`).toBe(0);
}

// ---------------------------------------------------------------------------------------------------------------

function batchForm(names: string[], options: Record<string, unknown>): FormData {
  const jpeg = new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' });
  const fd = new FormData();
  for (const name of names) fd.append('files[]', jpeg, name);
  fd.append('options', JSON.stringify(options));
  return fd;
}

function analyzeForm(name: string, options: Record<string, unknown>): FormData {
  const fd = new FormData();
  fd.append('file', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), name);
  fd.append('options', JSON.stringify(options));
  return fd;
}

describe.each(KINDS)('crash recovery of the real server process on %s', (kind: Kind) => {
  let tmp: string;
  let dataDir: string;
  let rx: HookReceiver;
  let dbUrl: string | undefined;
  let dbName: string | undefined;
  let pgDb: Database | undefined; // PostgreSQL: the test's own connection, open all along
  let account: string;
  let key: string;
  let proc: ServerProc | undefined;
  let gen = 0;
  /** Server processes killed with SIGKILL, and when. */
  const killedGens = new Map<number, number>();

  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    DATABASE_URL: dbUrl ?? '',
    COTEJO_DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    COTEJO_ALLOW_PRIVATE_URLS: 'true',
    NODE_EXTRA_CA_CERTS: path.join(tmp, 'receiver-ca.pem'),
    LOG_LEVEL: 'warn',
  });

  const cli = (args: string[]) => {
    const r = spawnSync(NODE, ['server/src/cli.ts', ...args], { cwd: ROOT, env: env(), encoding: 'utf8', timeout: 60_000 });
    expect(r.status, `cli ${args.join(' ')}:\n${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout);
  };

  const start = async () => {
    rx.gen = ++gen;
    proc = await startServer(env(), gen);
    return proc;
  };

  /** Runs `fn` on the database: PostgreSQL at any time; PGlite only while no server runs (one process per data dir). */
  const withDb = async <T>(fn: (db: Database['db']) => Promise<T>): Promise<T> => {
    if (pgDb) return fn(pgDb.db);
    expect(proc, 'PGlite is opened by the test only while the server is stopped').toBeUndefined();
    const database = await openDatabase({ dataDir });
    try {
      return await fn(database.db);
    } finally {
      await database.close();
    }
  };

  /** PGlite: stops the server gracefully, runs `fn` on the database, starts the server again. PostgreSQL: runs `fn`. */
  const inspect = async <T>(fn: (db: Database['db']) => Promise<T>): Promise<T> => {
    if (kind === 'postgres') return withDb(fn);
    await stopGracefully(proc!);
    proc = undefined;
    try {
      return await withDb(fn);
    } finally {
      await start();
    }
  };

  interface CrashSnapshot {
    gen: number;
    runningJobs: number;
    leasedDeliveries: number;
    finishedAnalyses: number;
  }

  /**
   * kill -9 the server, note what the dead process held, let its leases lapse (the only time travel, PostgreSQL only:
   * on PGlite the restarted server frees them itself), restart.
   * `beforeRestart` runs while no server is up (PostgreSQL: to release a lock the test holds).
   */
  const crash = async (opts: { batchId?: string; beforeRestart?: () => Promise<void> } = {}): Promise<CrashSnapshot> => {
    const dead = proc!;
    killedGens.set(dead.gen, Date.now());
    await kill9(dead);
    proc = undefined;
    await opts.beforeRestart?.();
    const snapshot = await withDb(async (db) => {
      const now = new Date();
      const past = new Date(now.getTime() - 1000);
      // On the embedded database the restarted server frees a dead process's leases itself (jobs/recovery.ts): only
      // count them. On PostgreSQL other processes may be alive, so leases lapse; here that wait is skipped.
      const jobs =
        kind === 'pglite'
          ? await db.selectFrom('jobs').select('id').where('status', '=', 'running').where('locked_until', '>=', past).execute()
          : await db.updateTable('jobs').set({ locked_until: past }).where('status', '=', 'running').where('locked_until', '>=', past).returning('id').execute();
      const deliveries =
        kind === 'pglite'
          ? await db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').where('locked_until', '>=', past).execute()
          : await db
              .updateTable('webhook_deliveries')
              .set({ locked_until: past })
              .where('status', '=', 'pending')
              .where('locked_until', '>=', past)
              .returning('id')
              .execute();
      let finished = 0;
      if (opts.batchId) {
        const r = await db
          .selectFrom('analyses')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('batch_id', '=', opts.batchId)
          .where('status', 'in', ['completed', 'failed'])
          .executeTakeFirstOrThrow();
        finished = Number(r.n);
      }
      return { gen: dead.gen, runningJobs: jobs.length, leasedDeliveries: deliveries.length, finishedAnalyses: finished };
    });
    await start();
    return snapshot;
  };

  const api = async (method: string, p: string, body?: { json?: unknown; form?: FormData }) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    let payload: BodyInit | undefined;
    if (body?.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body.json);
    } else if (body?.form) payload = body.form;
    const res = await fetch(proc!.baseUrl + p, { method, headers, body: payload });
    const text = await res.text();
    return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
  };

  /** A fresh `*` endpoint at its own receiver path; the previous one is deleted so each case counts its own deliveries. */
  let endpoint: { id: string; secret: string; path: string } | undefined;
  const newEndpoint = async (p: string) => {
    if (endpoint) expect((await api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).status).toBe(200);
    const res = await api('POST', '/v1/webhook-endpoints', { json: { url: rx.url(p), events: ['*'], description: `crash test ${p}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    endpoint = { id: res.body.id, secret: res.body.secret, path: p };
    return endpoint;
  };

  /** No request in flight at the receiver and none for `quietMs`; on PostgreSQL also no delivery left pending. */
  const deliveriesSettled = async (endpointId: string, quietMs = 1500) =>
    waitFor(
      'webhook deliveries to settle',
      async () => {
        if (rx.inflight > 0 || Date.now() - rx.lastAt < quietMs) return false;
        if (pgDb) {
          const r = await pgDb.db
            .selectFrom('webhook_deliveries')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('endpoint_id', '=', endpointId)
            .where('status', '=', 'pending')
            .executeTakeFirstOrThrow();
          return Number(r.n) === 0;
        }
        return true;
      },
      30_000,
      200,
    );

  /**
   * Every event of the account since the endpoint was made went to it exactly once as a delivery row, ended
   * `succeeded`, and reached the receiver with a valid signature and the event's exact body. A `webhook-id` came
   * more than once only from processes that died before recording the answer: at most once per process, every copy
   * but the last sent by a process that was then killed. Returns what it saw, for the case to report.
   */
  const assertDeliveries = async (db: Database['db'], ep: { id: string; secret: string; path: string }) => {
    const epRow = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', ep.id).executeTakeFirstOrThrow();
    const events = await db.selectFrom('events').selectAll().where('account_id', '=', account).where('created_at', '>=', epRow.created_at).orderBy('id').execute();
    const deliveries = await db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', ep.id).execute();
    const attempts = deliveries.length
      ? await db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', 'in', deliveries.map((d) => d.id)).execute()
      : [];
    const receipts = rx.on(ep.path);

    const byEvent = new Map<string, typeof deliveries>();
    for (const d of deliveries) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);
    const undelivered = events.filter((e) => (byEvent.get(e.id) ?? []).length !== 1).map((e) => `${e.type} ${e.id}: ${(byEvent.get(e.id) ?? []).length} deliveries`);
    expect.soft(undelivered, 'every event has exactly one delivery to the endpoint').toEqual([]);

    const notSucceeded = deliveries
      .filter((d) => d.status !== 'succeeded' || d.last_status_code !== 200)
      .map((d) => `${d.id} ${d.event_type}: ${d.status} after ${d.attempts} attempts (${d.last_error ?? d.last_status_code})`);
    expect.soft(notSucceeded, 'every delivery row ends succeeded').toEqual([]);
    const badAttempts: string[] = [];
    for (const d of deliveries) {
      const mine = attempts.filter((a) => a.delivery_id === d.id).sort((a, b) => a.attempt - b.attempt);
      const numbers = mine.map((a) => a.attempt).join(',');
      if (numbers !== Array.from({ length: d.attempts }, (_, i) => i + 1).join(',') || (d.status === 'succeeded' && !mine.at(-1)?.succeeded)) {
        badAttempts.push(`${d.id}: attempts ${d.attempts}, attempt rows ${numbers}`);
      }
    }
    expect.soft(badAttempts, 'attempt rows match each delivery').toEqual([]);

    const hmacKey = Buffer.from(ep.secret.slice('whsec_'.length), 'base64');
    const eventById = new Map(events.map((e) => [e.id, e]));
    const received = new Map<string, Receipt[]>();
    for (const r of receipts) received.set(r.webhookId, [...(received.get(r.webhookId) ?? []), r]);
    const lost = deliveries.filter((d) => !received.has(d.id)).map((d) => `${d.id} ${d.event_type}`);
    expect.soft(lost, 'every delivery reached the receiver').toEqual([]);
    expect.soft([...received.keys()].filter((id) => !deliveries.some((d) => d.id === id)), 'the receiver got no webhook-id unknown to the database').toEqual([]);

    let duplicates = 0;
    let answeredThenResent = 0; // copies the dead process had its 200 for (but not yet recorded)
    const wrongCopies: string[] = [];
    for (const d of deliveries) {
      const copies = received.get(d.id) ?? [];
      const event = eventById.get(d.event_id);
      for (const r of copies) {
        const expected = crypto.createHmac('sha256', hmacKey).update(`${r.webhookId}.${r.timestamp}.${r.body}`).digest('base64');
        if (!r.signature.split(' ').includes(`v1,${expected}`)) wrongCopies.push(`${d.id}: bad signature`);
        if (!event || !isDeepStrictEqual(JSON.parse(r.body), event.payload)) wrongCopies.push(`${d.id}: body is not its event's payload`);
      }
      if (new Set(copies.map((r) => r.body)).size > 1) wrongCopies.push(`${d.id}: copies differ`);
      const gens = copies.map((r) => r.gen);
      if (new Set(gens).size !== gens.length) wrongCopies.push(`${d.id} (${d.event_type}) arrived twice from one process: generations ${gens.join(',')}`);
      // Every copy but the last was sent by a process that died before recording it.
      for (const r of copies.slice(0, -1)) {
        const killedAt = killedGens.get(r.gen);
        if (killedAt === undefined) wrongCopies.push(`${d.id} (${d.event_type}) re-sent although process ${r.gen}, which sent it before, was not killed`);
        // Answered long before the crash, yet sent again: the process had the answer and did not keep it.
        else if (r.answeredAt !== undefined) {
          answeredThenResent++;
          if (killedAt - r.answeredAt > RECORD_GRACE_MS) {
            wrongCopies.push(`${d.id} (${d.event_type}) re-sent although process ${r.gen} had its 200 ${killedAt - r.answeredAt} ms before it was killed`);
          }
        }
      }
      duplicates += Math.max(0, copies.length - 1);
    }
    expect.soft(wrongCopies, 'copies received: signed, the exact event, re-sent only after a crash').toEqual([]);
    return { events, deliveries, receipts, duplicates, answeredThenResent };
  };

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-crash-'));
    dataDir = path.join(tmp, 'data');
    rx = await startHookReceiver();
    fs.writeFileSync(path.join(tmp, 'receiver-ca.pem'), rx.ca);
    if (kind === 'postgres') {
      dbName = `crash_${ulid().toLowerCase()}`;
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        await admin.query(`create database "${dbName}"`);
      } finally {
        await admin.end();
      }
      const u = new URL(process.env.DATABASE_URL!);
      u.pathname = `/${dbName}`;
      dbUrl = u.toString();
    }
    // On PGlite the CLI needs the server stopped: accounts are made before the first start.
    const created = cli(['accounts', 'create', '--json', '--name', 'Crash test']);
    account = created.account;
    key = created.keys.test;
    cli(['accounts', 'update', '--account', account, '--rate-limit', '1000', '--json']);
    if (kind === 'postgres') {
      pgDb = await openDatabase({ databaseUrl: dbUrl, poolSize: 3 });
    }
    await start();
  }, 120_000);

  afterAll(async () => {
    const alive = [...children];
    for (const c of alive) c.kill('SIGKILL');
    await Promise.all(alive.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    await pgDb?.close();
    await rx?.close();
    if (dbName) {
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        await admin.query(`drop database if exists "${dbName}" with (force)`);
      } finally {
        await admin.end();
      }
    }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  it('a batch of 100 survives two kill -9 mid-batch with deliveries in flight: every document ends, the batch completes, batch.completed once, every event delivered, nothing charged twice', async () => {
    const ep = await newEndpoint('/hooks/batch');
    rx.delayMs = 300; // deliveries stay in flight a while
    const names = Array.from({ length: 100 }, (_, i) =>
      i % 10 === 3 ? `dni_failed_${i}.jpg` : i % 4 === 1 ? `dni_blurry_${i}.jpg` : `dni_valid_${i}.jpg`,
    );
    const res = await api('POST', '/v1/batches', { form: batchForm(names, { expect: 'es_dni', metadata: { case: 'crash' } }) });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const batchId: string = res.body.id;
    const ids: string[] = res.body.analyses;
    expect(ids).toHaveLength(100);

    const finished = async () => {
      const b = await api('GET', `/v1/batches/${batchId}`);
      return b.body.counts.completed + b.body.counts.failed;
    };
    // Kills as soon as `from` documents have finished with a delivery in flight (or at `orAt` regardless). The count is
    // polled every 25 ms, so the kill often follows a document's commit by a few milliseconds: into the work after it.
    const killAt = async (from: number, orAt: number) => {
      let seen = 0;
      await waitFor(
        () => `the batch to reach ${from} finished documents (at ${seen})`,
        async () => {
          seen = await finished();
          return (seen >= from && rx.inflight > 0) || seen >= orAt;
        },
        60_000,
        25,
      );
      return crash({ batchId });
    };
    const first = await killAt(15, 35);
    expect(first.finishedAnalyses, 'the first crash landed mid-batch').toBeLessThan(100);
    const second = await killAt(first.finishedAnalyses + 25, first.finishedAnalyses + 45);
    expect(second.finishedAnalyses, 'the second crash landed mid-batch').toBeLessThan(100);
    rx.delayMs = 0;

    const done = await waitFor(
      'the batch to complete after recovery',
      async () => {
        const b = await api('GET', `/v1/batches/${batchId}`);
        return b.body.status === 'completed' ? b.body : undefined;
      },
      60_000,
      200,
    );
    const failedNames = names.filter((n) => n.includes('_failed_')).length;
    expect(done.counts).toEqual({ queued: 0, processing: 0, completed: 100 - failedNames, failed: failedNames });
    await waitFor('batch.completed at the receiver', () => rx.on(ep.path).some((r) => r.type === 'batch.completed' && r.dataId === batchId), 30_000);
    await deliveriesSettled(ep.id);

    const seen = await inspect(async (db) => {
      const rows = await db.selectFrom('analyses').selectAll().where('batch_id', '=', batchId).execute();
      expect(rows).toHaveLength(100);
      for (const row of rows) {
        const name = row.file_name;
        expect(row.status, name).toBe(name.includes('_failed_') ? 'failed' : 'completed');
        if (row.status === 'failed') expect(row.error?.code, name).toBe('processing_failed');
        expect(row.credits_milli, name).toBe(0);
      }
      const batch = await db.selectFrom('batches').selectAll().where('id', '=', batchId).executeTakeFirstOrThrow();
      expect(batch.status).toBe('completed');

      const out = await assertDeliveries(db, ep);
      const eventsOf = (type: string, id: string) => out.events.filter((e) => e.type === type && (e.payload as any).data?.id === id).length;
      // One batch.completed event for the batch, and one webhook-id carrying it (copies only by that id).
      expect.soft(eventsOf('batch.completed', batchId), 'batch.completed events for the batch').toBe(1);
      expect.soft(new Set(out.receipts.filter((r) => r.type === 'batch.completed' && r.dataId === batchId).map((r) => r.webhookId)).size, 'webhook-ids carrying batch.completed').toBe(1);
      // Each member: its own events exactly once (analysis.failed, analysis.review_required), never analysis.completed.
      const wrong: string[] = [];
      for (const row of rows) {
        const review = (row.result as any)?.verdict?.status === 'review' ? 1 : 0;
        const failed = row.status === 'failed' ? 1 : 0;
        const got = { completed: eventsOf('analysis.completed', row.id), review: eventsOf('analysis.review_required', row.id), failed: eventsOf('analysis.failed', row.id) };
        if (got.completed !== 0 || got.review !== review || got.failed !== failed) wrong.push(`${row.id} ${row.file_name} ${row.status}: events ${JSON.stringify(got)}, expected review ${review} failed ${failed}`);
      }
      expect.soft(wrong, 'events of the batch members (a missing one was lost in a crash)').toEqual([]);
      expect(rows.filter((r) => (r.result as any)?.verdict?.status === 'review').length).toBeGreaterThan(0);

      // Usage and money: one usage record per analysis, nothing held or charged (test mode).
      const usage = await db.selectFrom('usage_records').selectAll().where('analysis_id', 'in', ids).execute();
      const missing = ids.filter((id) => !usage.some((u) => u.analysis_id === id));
      expect.soft(missing.map((id) => `${id} ${rows.find((r) => r.id === id)?.file_name}`), 'analyses without a usage record (lost in a crash)').toEqual([]);
      expect(usage.every((u) => u.kind === 'batch_analysis' && u.credits_milli === 0 && !u.livemode)).toBe(true);
      expect(await db.selectFrom('credit_reservations').selectAll().where('analysis_id', 'in', ids).execute()).toEqual([]);
      expect(await db.selectFrom('credit_ledger').selectAll().where('account_id', '=', account).execute()).toEqual([]);
      const jobs = await db.selectFrom('jobs').select(['status', 'payload']).execute();
      const batchJobs = jobs.filter((j) => ids.includes(String((j.payload as any).analysis_id)));
      expect.soft(batchJobs.map((j) => j.status).filter((s) => s !== 'done'), 'every job of the batch is done').toEqual([]);
      return out;
    });
    console.info(
      `[crash ${kind}] batch: kill 1 at ${first.finishedAnalyses}/100 (running jobs ${first.runningJobs}, leased deliveries ${first.leasedDeliveries}); ` +
        `kill 2 at ${second.finishedAnalyses}/100 (running jobs ${second.runningJobs}, leased deliveries ${second.leasedDeliveries}); ` +
        `${seen.events.length} events, ${seen.receipts.length} requests received, ${seen.duplicates} re-sent after a crash (${seen.answeredThenResent} of them answered before it)`,
    );
  }, 240_000);

  it('a burst of 30 async analyses with a slow receiver, killed mid-delivery: every analysis.completed arrives, every delivery ends succeeded', async () => {
    const ep = await newEndpoint('/hooks/burst');
    rx.delayMs = 2000; // slow to answer (well under the 15 s time-out): deliveries pile up in flight
    const posted = await Promise.all(
      Array.from({ length: 30 }, (_, i) => api('POST', '/v1/analyze', { form: analyzeForm(`dni_valid_burst_${i}.jpg`, { expect: 'es_dni', async: true }) })),
    );
    for (const r of posted) expect(r.status, JSON.stringify(r.body)).toBe(202);
    const ids = posted.map((r) => r.body.id as string);

    await waitFor(
      () => `deliveries in flight (received ${rx.on(ep.path).length}, in flight ${rx.inflight})`,
      () => rx.on(ep.path).length >= 3 && rx.inflight >= 3,
      60_000,
      25,
    );
    const receivedBefore = rx.on(ep.path).length;
    const snap = await crash();
    rx.delayMs = 50;

    // Every analysis finishes; then whatever events were written are delivered. An analysis.completed that is missing
    // once both have settled was lost (the assertions below say which).
    let states: string[] = [];
    await waitFor(
      () => `all 30 analyses to finish (${states.filter((x) => x !== 'completed').length} not yet)`,
      async () => {
        states = await Promise.all(ids.map(async (id) => (await api('GET', `/v1/analyses/${id}`)).body.status as string));
        return states.every((x) => x === 'completed');
      },
      45_000,
      300,
    );
    await deliveriesSettled(ep.id);

    const seen = await inspect(async (db) => {
      const rows = await db.selectFrom('analyses').selectAll().where('id', 'in', ids).execute();
      expect(rows.map((r) => r.status)).toEqual(ids.map(() => 'completed'));
      const out = await assertDeliveries(db, ep);
      const events = (id: string) => out.events.filter((e) => e.type === 'analysis.completed' && (e.payload as any).data?.id === id).length;
      expect.soft(ids.filter((id) => events(id) !== 1).map((id) => `${id}: ${events(id)} analysis.completed events`), 'analysis.completed written once per analysis').toEqual([]);
      const got = new Set(out.receipts.filter((r) => r.type === 'analysis.completed').map((r) => r.dataId));
      expect.soft(ids.filter((id) => !got.has(id)), 'analyses whose analysis.completed never reached the receiver').toEqual([]);
      const usage = await db.selectFrom('usage_records').selectAll().where('analysis_id', 'in', ids).execute();
      expect.soft(ids.filter((id) => !usage.some((u) => u.analysis_id === id)), 'analyses without a usage record').toEqual([]);
      expect(usage.every((u) => u.kind === 'analysis' && u.credits_milli === 0)).toBe(true);
      expect(await db.selectFrom('credit_ledger').selectAll().where('account_id', '=', account).execute()).toEqual([]);
      return out;
    });
    expect(snap.leasedDeliveries, 'the crash landed with deliveries in flight').toBeGreaterThan(0);
    console.info(
      `[crash ${kind}] burst: killed with ${receivedBefore} received, ${snap.leasedDeliveries} deliveries leased, ${snap.runningJobs} jobs running; ` +
        `${seen.receipts.length} requests received for ${seen.deliveries.length} deliveries, ${seen.duplicates} re-sent after the crash (${seen.answeredThenResent} of them answered before it)`,
    );
  }, 180_000);

  it.runIf(kind === 'postgres')(
    'kill -9 exactly where an event is written (the test holds a lock on events): analysis.completed and batch.completed are still sent after recovery',
    async () => {
      const ep = await newEndpoint('/hooks/exact');
      rx.delayMs = 0;
      const locker = new pg.Client({ connectionString: dbUrl });
      await locker.connect();
      const outcome: string[] = [];
      try {
        const blockedOnEvents = async () => {
          const r = await locker.query(
            `select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
              where not l.granted and c.relname = 'events' and l.database = (select oid from pg_database where datname = current_database())`,
          );
          return r.rows[0].n > 0;
        };
        const killWhileBlocked = async (what: string, submit: () => Promise<string>, committed: (db: Database['db'], id: string) => Promise<boolean>) => {
          await locker.query('begin');
          await locker.query('lock table events in exclusive mode'); // reads go on; an event insert waits
          const id = await submit();
          await waitFor(`the server to wait on the events table (${what})`, blockedOnEvents, 30_000, 50);
          const done = await committed(pgDb!.db, id);
          outcome.push(`${what} ${id}: ${done ? 'committed as finished' : 'not committed'} when killed`);
          await crash({ beforeRestart: () => locker.query('rollback').then(() => undefined) });
          return id;
        };

        // 1. An async analysis: killed while writing its analysis.completed event.
        const analysisId = await killWhileBlocked(
          'analysis',
          async () => {
            const r = await api('POST', '/v1/analyze', { form: analyzeForm('dni_valid_exact.jpg', { expect: 'es_dni', async: true }) });
            expect(r.status).toBe(202);
            return r.body.id;
          },
          async (db, id) => (await db.selectFrom('analyses').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'completed',
        );
        // 2. A batch of one: killed while writing batch.completed.
        const batchId = await killWhileBlocked(
          'batch',
          async () => {
            const r = await api('POST', '/v1/batches', { form: batchForm(['dni_valid_exact_batch.jpg'], { expect: 'es_dni' }) });
            expect(r.status).toBe(202);
            return r.body.id;
          },
          async (db, id) => (await db.selectFrom('batches').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status === 'completed',
        );

        const arrived = (type: string, id: string) => rx.on(ep.path).some((r) => r.type === type && r.dataId === id);
        // Both events arrive, or the restarted server has nothing left to do (no job, no delivery pending) without them.
        await waitFor(
          'both events, or the restarted server idle',
          async () => {
            if (arrived('analysis.completed', analysisId) && arrived('batch.completed', batchId)) return true;
            const busy = await pgDb!.db.selectFrom('jobs').select('id').where('status', 'in', ['pending', 'running']).execute();
            const pending = await pgDb!.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').execute();
            return busy.length === 0 && pending.length === 0 && rx.inflight === 0 && Date.now() - Math.max(rx.lastAt, proc!.startedAt) > 2000;
          },
          30_000,
          200,
        );
        const events = await pgDb!.db.selectFrom('events').select(['type', 'payload']).where('account_id', '=', account).execute();
        const written = (type: string, id: string) => events.filter((e) => e.type === type && (e.payload as any).data?.id === id).length;
        const usage = await pgDb!.db.selectFrom('usage_records').select('analysis_id').where('analysis_id', '=', analysisId).execute();
        const report = {
          crashes: outcome,
          'analysis.completed events written': written('analysis.completed', analysisId),
          'analysis.completed received': arrived('analysis.completed', analysisId),
          'analysis usage records': usage.length,
          'batch.completed events written': written('batch.completed', batchId),
          'batch.completed received': arrived('batch.completed', batchId),
        };
        expect(report, 'an event whose writer died is written and sent once the work is taken up again').toEqual({
          crashes: outcome,
          'analysis.completed events written': 1,
          'analysis.completed received': true,
          'analysis usage records': 1,
          'batch.completed events written': 1,
          'batch.completed received': true,
        });
        await deliveriesSettled(ep.id);
        await assertDeliveries(pgDb!.db, ep);
      } finally {
        await locker.end().catch(() => undefined);
      }
    },
    120_000,
  );
});
