/**
 * Many processes, one truth (docs/deployment.md, "N processes"): two real server processes started with the
 * documented variables on one PostgreSQL database (a fresh one, made for this run) and one S3-compatible server
 * (s3rver on loopback), requests spread over both:
 * - an upload accepted by one process is read by the other's worker (the first runs with COTEJO_WORKER=false), its
 *   original stored in the shared bucket;
 * - a batch sent through one completes with `batch.completed` exactly once, and every webhook delivery is sent once;
 * - an Idempotency-Key used on one process replays on the other;
 * - the request rate limit is global: a key limited to 1 request a second gets one answer in a second, whichever
 *   process it asks.
 * Runs where PostgreSQL is (DATABASE_URL, as in CI); skipped otherwise.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminQuery } from '../support/postgres-admin.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../support/files.ts';
import { startS3rver, TEST_BUCKET, type TestS3 } from '../support/s3rver.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BASE = process.env.DATABASE_URL;
const START_TIMEOUT_MS = 120_000;

interface Proc {
  child: ChildProcess;
  url: string;
  out: string[];
}

describe.skipIf(!BASE)('two server processes on one PostgreSQL and one S3 store', { timeout: 300_000 }, () => {
  const dbName = `cotejo_mp_${Date.now().toString(36)}_${process.pid}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-mp-'));
  const children: ChildProcess[] = [];
  let dbUrl = '';
  let s3: TestS3;
  let rx: Receiver;
  let a: Proc; // HTTP only (COTEJO_WORKER=false)
  let b: Proc; // HTTP and the worker
  let key = '';

  const admin = (sql: string) => adminQuery(BASE!, sql);

  /** The documented variables of one process of an N-process deployment. */
  const env = (name: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: dbUrl,
    COTEJO_DATA_DIR: path.join(tmp, name),
    COTEJO_S3_BUCKET: TEST_BUCKET,
    COTEJO_S3_ENDPOINT: s3.endpoint,
    COTEJO_S3_FORCE_PATH_STYLE: 'true',
    COTEJO_S3_ACCESS_KEY_ID: 'S3RVER',
    COTEJO_S3_SECRET_ACCESS_KEY: 'S3RVER',
    COTEJO_SIGNING_SECRET: 'x'.repeat(40),
    // The webhook receiver is a loopback HTTPS server with its own certificate.
    COTEJO_ALLOW_PRIVATE_URLS: 'true',
    NODE_EXTRA_CA_CERTS: path.join(tmp, 'receiver-ca.pem'),
    MISTRAL_API_KEY: '',
    ...extra,
  });

  const start = (name: string, extra: Record<string, string> = {}): Promise<Proc> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['server/src/main.ts'], { cwd: ROOT, env: env(name, extra) });
      children.push(child);
      const out: string[] = [];
      const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out.join('')}`)), START_TIMEOUT_MS);
      child.stderr!.on('data', (d) => out.push(String(d)));
      child.stdout!.on('data', (d) => {
        out.push(String(d));
        const text = out.join('');
        const port = /\(port (\d+),/.exec(text)?.[1];
        if (port && text.includes('OpenAPI document:')) {
          clearTimeout(timer);
          resolve({ child, url: `http://127.0.0.1:${port}`, out });
        }
      });
      child.on('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${out.join('')}`)));
    });

  const call = async (p: Proc, method: string, route: string, opts: { json?: unknown; body?: BodyInit; headers?: Record<string, string>; key?: string } = {}) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${opts.key ?? key}`, ...opts.headers };
    let body = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(p.url + route, { method, headers, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };

  const waitFor = async <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    s3 = await startS3rver();
    rx = await startReceiver();
    fs.writeFileSync(path.join(tmp, 'receiver-ca.pem'), rx.ca);
    await admin(`create database ${dbName}`);
    const u = new URL(BASE!);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
    // The first process migrates the database and makes the default account; the second finds both there.
    a = await start('a', { COTEJO_WORKER: 'false' });
    key = /\b(ck_test_[0-9A-Za-z]+)/.exec(a.out.join(''))?.[1] ?? '';
    expect(key).toMatch(/^ck_test_/);
    b = await start('b');
    expect(b.out.join('')).not.toContain('ck_test_');
  }, START_TIMEOUT_MS * 2);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await rx?.close();
    await s3?.close();
    if (dbUrl) await admin(`drop database if exists ${dbName} with (force)`);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an upload accepted by the HTTP-only process is read by the other\'s worker, its original in the shared bucket', async () => {
    const form = new FormData();
    form.append('file', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>]), 'dni_valid.jpg');
    form.append('options', JSON.stringify({ expect: 'es_dni', async: true, storage: 'persistent' }));
    const res = await call(a, 'POST', '/v1/analyze', { body: form });
    expect(res.status).toBe(202);
    const done = await waitFor('the analysis to complete', async () => {
      const got = await call(a, 'GET', `/v1/analyses/${res.body.id}`);
      return got.body.status === 'completed' ? got.body : undefined;
    });
    expect(done.verdict.status).toBe('valid');
    // Its original is in the bucket, and either process serves it.
    expect((await s3.keys()).some((k) => k.includes(res.body.id))).toBe(true);
    for (const p of [a, b]) expect((await fetch(`${p.url}/v1/analyses/${res.body.id}/file`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
  });

  it('a batch through one process completes with batch.completed once; every delivery is sent once', async () => {
    rx.reset();
    const endpoint = await call(b, 'POST', '/v1/webhook-endpoints', { json: { url: rx.url('/ok/hooks'), events: ['*'] } });
    expect(endpoint.status).toBe(201);
    const items = ['dni_valid.jpg', 'dni_expired.jpg', 'blurry.jpg', 'dni_valid.jpg'].map((filename) => ({ file_base64: fixtures.jpeg().toString('base64'), filename }));
    const batch = await call(a, 'POST', '/v1/batches', { json: { items, options: { expect: 'es_dni' } } });
    expect(batch.status).toBe(202);
    await waitFor('the batch to complete', async () => (await call(b, 'GET', `/v1/batches/${batch.body.id}`)).body.status === 'completed');
    const completed = await waitFor('batch.completed to arrive', async () => {
      const got = rx.to('/ok/hooks').filter((r) => JSON.parse(r.body).type === 'batch.completed');
      return got.length > 0 ? got : undefined;
    });
    // Give a duplicate the time it would need to show up, then count.
    await new Promise((r) => setTimeout(r, 2_000));
    const all = rx.to('/ok/hooks');
    expect(all.filter((r) => JSON.parse(r.body).type === 'batch.completed' && JSON.parse(r.body).data.id === batch.body.id)).toHaveLength(1);
    expect(completed.length).toBe(1);
    const ids = all.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await call(a, 'DELETE', `/v1/webhook-endpoints/${endpoint.body.id}`)).status).toBe(200);
  });

  it('an Idempotency-Key used on one process replays on the other', async () => {
    const json = { url: 'https://hooks.example.com/mp', events: ['analysis.completed'] };
    const first = await call(a, 'POST', '/v1/webhook-endpoints', { json, headers: { 'Idempotency-Key': 'mp-key-1' } });
    expect(first.status).toBe(201);
    const again = await call(b, 'POST', '/v1/webhook-endpoints', { json, headers: { 'Idempotency-Key': 'mp-key-1' } });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const list = await call(b, 'GET', '/v1/webhook-endpoints');
    expect(list.body.data.filter((e: { url: string }) => e.url === json.url)).toHaveLength(1);
  });

  it('the request rate limit is global: one request a second for the key, whichever process it asks', async () => {
    const cli = (args: string[]) => spawnSync(process.execPath, ['server/src/cli.ts', ...args], { cwd: ROOT, env: env('cli'), encoding: 'utf8' });
    const made = cli(['accounts', 'create', '--json']);
    expect(made.status, made.stderr).toBe(0);
    const acct = JSON.parse(made.stdout);
    expect(cli(['accounts', 'update', '--account', acct.account, '--rate-limit', '1']).status).toBe(0);
    // At the start of a second, one request to each process: the second is refused by the other process's count.
    for (let attempt = 0; ; attempt++) {
      await new Promise((r) => setTimeout(r, 1_000 - (Date.now() % 1_000) + 20));
      const started = Date.now();
      const first = await call(a, 'GET', '/v1/balance', { key: acct.keys.test });
      const second = await call(b, 'GET', '/v1/balance', { key: acct.keys.test });
      const sameSecond = Math.floor(started / 1000) === Math.floor(Date.now() / 1000);
      if (!sameSecond && attempt < 5) continue; // a loaded machine let the second slip: try again
      expect(first.status).toBe(200);
      expect(second.status).toBe(429);
      expect(second.body.error.code).toBe('rate_limited');
      expect(second.headers.get('retry-after')).toBe('1');
      break;
    }
  });
});
