/**
 * Issue #31: the dependencies taken away under load. A real server process (npm start) on a fresh PostgreSQL
 * database and an S3-compatible server (s3rver), each behind a TCP proxy of ours (test/support/fault-proxy.ts), with
 * a webhook endpoint on a local receiver. Under a steady load of synchronous and asynchronous analyses and batches,
 * each dependency is taken away (refused and cut, then stalled) for COTEJO_FAULT_OUTAGE_MS (10 s by default) and
 * brought back. Asserts:
 * - no answer is a 500; a 503 is `service_unavailable` (or the readiness probe's) with Retry-After;
 * - /readyz names the part that is away while it is away, and is ready again after;
 * - nothing accepted is lost: every 202'd analysis completes, every batch completes, every event is delivered, once;
 * - the process recovers without a restart (same process, same pid).
 * Runs where PostgreSQL is (DATABASE_URL, as in CI); skipped otherwise.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { adminQuery } from '../support/postgres-admin.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { fixtures } from '../support/files.ts';
import { startS3rver, TEST_BUCKET, type TestS3 } from '../support/s3rver.ts';
import { startServer, stop, type RunningServer } from '../support/server-process.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

const BASE = process.env.DATABASE_URL;
/** How long each dependency stays away (a stall lasts half of it). */
const OUTAGE_MS = Number(process.env.COTEJO_FAULT_OUTAGE_MS || 10_000);

interface Answer {
  phase: string;
  op: 'sync' | 'async' | 'batch';
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

describe.skipIf(!BASE)('dependencies away under load: PostgreSQL and S3 behind a fault proxy', { timeout: 600_000 }, () => {
  const dbName = `cotejo_faults_${Date.now().toString(36)}_${process.pid}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-faults-'));
  let s3: TestS3;
  let rx: Receiver;
  let pgProxy: FaultProxy;
  let s3Proxy: FaultProxy;
  let server: RunningServer;
  let key = '';

  const admin = (sql: string) => adminQuery(BASE!, sql);

  const call = async (method: string, route: string, opts: { json?: unknown; body?: FormData } = {}) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    let body: BodyInit | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(server.baseUrl + route, { method, headers, body, signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = { raw: text };
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  const readyz = async () => {
    const res = await fetch(`${server.baseUrl}/readyz`, { signal: AbortSignal.timeout(30_000) });
    return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const waitFor = async <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 180_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn().catch(() => undefined);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(250);
    }
  };

  beforeAll(async () => {
    s3 = await startS3rver();
    rx = await startReceiver();
    fs.writeFileSync(path.join(tmp, 'receiver-ca.pem'), rx.ca);
    await admin(`create database ${dbName}`);
    const base = new URL(BASE!);
    pgProxy = await startFaultProxy({ host: base.hostname, port: Number(base.port || 5432) });
    s3Proxy = await startFaultProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    const viaProxy = new URL(BASE!);
    viaProxy.host = pgProxy.address;
    viaProxy.pathname = `/${dbName}`;
    server = await startServer({
      PORT: '0',
      DATABASE_URL: viaProxy.toString(),
      COTEJO_DATA_DIR: path.join(tmp, 'data'),
      COTEJO_S3_BUCKET: TEST_BUCKET,
      COTEJO_S3_ENDPOINT: `http://${s3Proxy.address}`,
      COTEJO_S3_FORCE_PATH_STYLE: 'true',
      COTEJO_S3_ACCESS_KEY_ID: 'S3RVER',
      COTEJO_S3_SECRET_ACCESS_KEY: 'S3RVER',
      // A stalled store is a time-out within a few seconds, not a request held for the default 3 × 10 s.
      COTEJO_S3_TIMEOUT_MS: '2000',
      COTEJO_S3_MAX_ATTEMPTS: '2',
      COTEJO_SIGNING_SECRET: 'x'.repeat(40),
      COTEJO_ALLOW_PRIVATE_URLS: 'true',
      NODE_EXTRA_CA_CERTS: path.join(tmp, 'receiver-ca.pem'),
      MISTRAL_API_KEY: '',
      LOG_LEVEL: 'warn',
    });
    key = server.key ?? '';
    expect(key).toMatch(/^ck_test_/);
  }, 180_000);

  afterAll(async () => {
    // COTEJO_FAULT_LOG=<file>: the server's log, to see what it said through the outages.
    if (server && process.env.COTEJO_FAULT_LOG) fs.writeFileSync(process.env.COTEJO_FAULT_LOG, server.out.join(''));
    if (server) await stop(server.child);
    await pgProxy?.close();
    await s3Proxy?.close();
    await rx?.close();
    await s3?.close();
    await admin(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After (never 500) while a dependency is away, says which in /readyz, loses nothing and recovers without a restart', async () => {
    const endpoint = await call('POST', '/v1/webhook-endpoints', { json: { url: rx.url('/ok/hooks'), events: ['*'] } });
    expect(endpoint.status).toBe(201);
    const pid = server.child.pid;

    // The steady load: two clients, each sending a synchronous analysis, an asynchronous one and now and then a batch.
    let phase = 'steady';
    let running = true;
    const answers: Answer[] = [];
    const syncDone: string[] = [];
    const accepted: string[] = [];
    const batches: string[] = [];
    const jpeg = fixtures.jpeg();
    const client = async (n: number) => {
      for (let i = n; running; i += 2) {
        const op: Answer['op'] = i % 5 === 4 ? 'batch' : i % 2 === 0 ? 'sync' : 'async';
        const at = phase;
        let res: Awaited<ReturnType<typeof call>>;
        if (op === 'batch') {
          const items = ['dni_valid.jpg', 'dni_expired.jpg'].map((filename) => ({ file_base64: jpeg.toString('base64'), filename }));
          res = await call('POST', '/v1/batches', { json: { items, options: { expect: 'es_dni', storage: 'persistent' } } });
          if (res.status === 202) batches.push(res.body.id);
        } else {
          const form = new FormData();
          form.append('file', new Blob([jpeg as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'dni_valid.jpg');
          form.append('options', JSON.stringify({ expect: 'es_dni', storage: 'persistent', ...(op === 'async' ? { async: true } : {}) }));
          res = await call('POST', '/v1/analyze', { body: form });
          if (res.status === 202) accepted.push(res.body.id);
          if (res.status === 200) syncDone.push(res.body.id);
        }
        answers.push({ phase: at, op, status: res.status, code: res.body?.error?.code, retryAfter: res.headers.get('retry-after') });
        // A refusal says when to come back; otherwise a short pause keeps the load steady, not a flood.
        await sleep(res.status === 503 || res.status === 429 ? 1_000 : 150);
      }
    };
    const load = Promise.all([client(0), client(1)]);

    const readiness: Array<{ phase: string; status: number; reason: string | undefined }> = [];
    const away = async (name: string, proxy: FaultProxy, how: 'down' | 'stall', ms: number) => {
      phase = `${name} ${how}`;
      proxy[how]();
      await sleep(ms / 2);
      const r = await readyz();
      readiness.push({ phase, status: r.status, reason: r.body.reason });
      await sleep(ms / 2);
      proxy.restore();
      phase = `after ${name} ${how}`;
      // Back within seconds, without a restart.
      await waitFor(`/readyz after ${name} ${how}`, async () => (await readyz()).status === 200, 60_000);
      await sleep(2_000);
    };

    await sleep(2_000);
    expect((await readyz()).status).toBe(200);
    await away('s3', s3Proxy, 'down', OUTAGE_MS);
    await away('postgres', pgProxy, 'down', OUTAGE_MS);
    await away('s3', s3Proxy, 'stall', OUTAGE_MS / 2);
    await away('postgres', pgProxy, 'stall', OUTAGE_MS / 2);
    running = false;
    await load;

    // Never a 500; every 503 is a specified one with Retry-After.
    const summary = answers.reduce<Record<string, number>>((m, a) => ((m[`${a.phase} ${a.op} ${a.status}${a.code ? ` ${a.code}` : ''}`] = (m[`${a.phase} ${a.op} ${a.status}${a.code ? ` ${a.code}` : ''}`] ?? 0) + 1), m), {});
    console.log('answers by phase:', summary, 'readiness while away:', readiness);
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503), JSON.stringify(summary)).toEqual([]);
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.code).toBe('service_unavailable');
      expect(Number(a.retryAfter)).toBeGreaterThan(0);
    }
    expect(answers.filter((a) => a.status === 503).length, 'some requests met an outage').toBeGreaterThan(0);
    // Work that can wait was accepted while S3 was away.
    expect(answers.some((a) => a.phase === 's3 down' && a.op !== 'sync' && a.status === 202), JSON.stringify(summary)).toBe(true);
    // /readyz named the part that was away.
    expect(readiness.find((r) => r.phase === 's3 down')).toMatchObject({ status: 503, reason: expect.stringMatching(/^blob_store_/) });
    expect(readiness.find((r) => r.phase === 'postgres down')).toMatchObject({ status: 503, reason: expect.stringMatching(/^database_/) });

    // Nothing accepted is lost: every 202'd analysis and every batch completes (none failed), in this same process.
    for (const id of accepted) {
      const done = await waitFor(`analysis ${id}`, async () => {
        const got = await call('GET', `/v1/analyses/${id}`);
        return got.body?.status === 'completed' || got.body?.status === 'failed' ? got.body : undefined;
      });
      expect(done.status, `analysis ${id}: ${JSON.stringify(done.error)}`).toBe('completed');
    }
    for (const id of batches) {
      const done = await waitFor(`batch ${id}`, async () => {
        const got = await call('GET', `/v1/batches/${id}`);
        return got.body?.status === 'completed' ? got.body : undefined;
      });
      expect(done.completed ?? done.total).toBe(done.total);
    }
    // Every event delivered, once: analysis.completed for each analysis outside a batch, batch.completed per batch.
    const delivered = () => rx.to('/ok/hooks').map((r) => ({ id: r.headers['webhook-id'], event: JSON.parse(r.body) as { type: string; data: { id: string } } }));
    const expectedAnalyses = [...accepted, ...syncDone];
    await waitFor('every event delivered', async () => {
      const got = delivered();
      const analyses = new Set(got.filter((d) => d.event.type === 'analysis.completed').map((d) => d.event.data.id));
      const done = new Set(got.filter((d) => d.event.type === 'batch.completed').map((d) => d.event.data.id));
      return expectedAnalyses.every((id) => analyses.has(id)) && batches.every((id) => done.has(id));
    });
    // Every delivery final in the database (none left leased, to be sent again when its lease lapses), then counted.
    const direct = new URL(BASE!);
    direct.pathname = `/${dbName}`;
    await waitFor('every delivery recorded as final and the spool empty', async () => {
      const c = new pg.Client({ connectionString: direct.toString() });
      await c.connect();
      try {
        const { rows } = await c.query(`select count(*)::int as n from webhook_deliveries where status = 'pending'`);
        // And the originals spooled while S3 was away are in the bucket now.
        const spooled = await c.query(`select count(*)::int as n from blob_spool`);
        return rows[0].n === 0 && spooled.rows[0].n === 0;
      } finally {
        await c.end();
      }
    });
    await sleep(1_000);
    const got = delivered();
    const ids = got.map((d) => d.id);
    expect(ids.length - new Set(ids).size, 'deliveries sent twice').toBe(0);
    for (const id of batches) expect(got.filter((d) => d.event.type === 'batch.completed' && d.event.data.id === id)).toHaveLength(1);
    for (const id of expectedAnalyses) expect(got.filter((d) => d.event.type === 'analysis.completed' && d.event.data.id === id)).toHaveLength(1);

    // The same process, ready, and nothing left waiting in the spool.
    expect(server.child.exitCode).toBeNull();
    expect(server.child.pid).toBe(pid);
    expect((await readyz()).status).toBe(200);
    console.log(`faults: ${answers.length} requests, ${accepted.length} async and ${syncDone.length} sync analyses, ${batches.length} batches, ${got.length} deliveries`);
  });
});
