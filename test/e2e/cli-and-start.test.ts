import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = process.execPath; // Node 24 from the `node` devDependency when run through npm
const dirs: string[] = [];
const children: ChildProcess[] = [];
/** Generous: a loaded 2-core machine (CI) can take many times the usual 1-3 s to start; the test is not a timing test. */
const START_TIMEOUT_MS = 120_000;
const TEST_TIMEOUT_MS = 300_000;
const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-e2e-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  // A server a failed test left running is stopped: no process outlives the suite.
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function cli(args: string[], env: Record<string, string>) {
  const r = spawnSync(NODE, ['server/src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; out: string[]; baseUrl: string; key: string | undefined }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['server/src/main.ts'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...env } });
    children.push(child);
    const out: string[] = [];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${START_TIMEOUT_MS / 1000} s:\n${out.join('')}`));
    }, START_TIMEOUT_MS);
    child.stderr.on('data', (d) => out.push(String(d)));
    child.stdout.on('data', (d) => {
      out.push(String(d));
      const text = out.join('');
      const port = /\(port (\d+),/.exec(text)?.[1];
      if (port && text.includes('OpenAPI document:')) {
        clearTimeout(timer);
        resolve({ child, out, baseUrl: `http://127.0.0.1:${port}`, key: /\b(ck_test_[0-9A-Za-z]+)/.exec(text)?.[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out.join('')}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

describe('npm start on an empty embedded database', () => {
  it('creates a default account, prints its test key, serves /openapi.json and the API, and stops cleanly on SIGTERM', async () => {
    const dataDir = tmpDir();
    const env = { COTEJO_DATA_DIR: dataDir, PORT: '0' };
    const first = await startServer(env);
    expect(first.key).toMatch(/^ck_test_/);
    // PORT=0: the banner (and every signed URL) names the port actually chosen.
    expect(first.out.join('')).toContain(`running at http://localhost:${new URL(first.baseUrl).port} `);
    const spec = await fetch(`${first.baseUrl}/openapi.json`);
    expect(spec.status).toBe(200);
    expect(Buffer.from(await spec.arrayBuffer()).equals(fs.readFileSync(path.join(ROOT, 'generated/openapi.json')))).toBe(true);
    const list = await fetch(`${first.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${first.key}` } });
    expect(list.status).toBe(200);

    // While it runs, the CLI refuses the embedded database with a clear message.
    const locked = cli(['accounts', 'create', '--json'], { COTEJO_DATA_DIR: dataDir });
    expect(locked.code).toBe(1);
    expect(locked.stderr).toMatch(/in use by process \d+/);

    expect(await stop(first.child)).toBe(0);

    // The data persisted; a second start makes no new default account, and the old key still works.
    const second = await startServer(env);
    expect(second.key).toBeUndefined();
    const again = await fetch(`${second.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${first.key}` } });
    expect(again.status).toBe(200);
    expect(await stop(second.child)).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('refuses to start with a clear message when the configuration is wrong', () => {
    const r = spawnSync(NODE, ['server/src/main.ts'], { cwd: ROOT, env: { ...process.env, PORT: 'eighty', LOG_LEVEL: 'loud' }, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PORT must be an integer');
    expect(r.stderr).toContain('LOG_LEVEL must be one of');
  });
});

describe('the cotejo CLI', () => {
  it('creates accounts, keys, credits and revokes keys on the embedded database', async () => {
    const dataDir = tmpDir();
    const env = { COTEJO_DATA_DIR: dataDir };
    const created = cli(['accounts', 'create', '--json', '--name', 'Acme', '--email', 'ops@acme.example'], env);
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out.account).toMatch(/^acct_[0-9A-Z]{26}$/);
    expect(out.keys.test).toMatch(/^ck_test_[0-9A-Za-z]{32}$/);
    expect(out.keys.live).toMatch(/^ck_live_/);
    expect(out.keys.test_publishable).toMatch(/^pk_test_/);
    expect(out.keys.live_publishable).toMatch(/^pk_live_/);

    const key = JSON.parse(cli(['keys', 'create', '--account', out.account, '--mode', 'live', '--json'], env).stdout);
    expect(key.key).toMatch(/^ck_live_/);
    const keys = JSON.parse(cli(['keys', 'list', '--account', out.account, '--json'], env).stdout).keys;
    expect(keys).toHaveLength(5);
    expect(JSON.stringify(keys)).not.toContain(key.key);

    expect(cli(['keys', 'revoke', key.id], env).code).toBe(0);
    const credits = JSON.parse(cli(['credits', 'add', '--account', out.account, '--amount', '12.5', '--json'], env).stdout);
    expect(credits.balance).toBe(12.5);

    const settings = cli(['accounts', 'update', '--account', out.account, '--email-verified', 'true', '--monthly-credit-cap', '250', '--low-credit-threshold', '5', '--json'], env);
    expect(settings.code, settings.stderr).toBe(0);
    expect(JSON.parse(settings.stdout).updated).toEqual(['email_verified', 'monthly_credit_cap_milli', 'low_credit_threshold_milli']);
    expect(cli(['accounts', 'update', '--account', out.account, '--monthly-credit-cap', 'none'], env).code).toBe(0);
    const badCap = cli(['accounts', 'update', '--account', out.account, '--monthly-credit-cap=-1'], env);
    expect(badCap.code).toBe(2);
    expect(badCap.stderr).toContain('--monthly-credit-cap');

    const bad = cli(['keys', 'create', '--account', 'acct_nope'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no account');

    // The revoked key is refused by a server on the same data.
    const server = await startServer({ COTEJO_DATA_DIR: dataDir, PORT: '0' });
    const revoked = await fetch(`${server.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${key.key}` } });
    expect(revoked.status).toBe(401);
    const fine = await fetch(`${server.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${out.keys.test}` } });
    expect(fine.status).toBe(200);
    expect(await stop(server.child)).toBe(0);
  }, TEST_TIMEOUT_MS);

  it.runIf(Boolean(process.env.DATABASE_URL))('works on PostgreSQL while a server runs on it', async () => {
    const server = await startServer({ DATABASE_URL: process.env.DATABASE_URL!, PORT: '0' });
    const r = spawnSync(NODE, ['server/src/cli.ts', 'accounts', 'create', '--json'], { cwd: ROOT, env: { ...process.env }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const { keys } = JSON.parse(r.stdout);
    const res = await fetch(`${server.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${keys.test}` } });
    expect(res.status).toBe(200);
    expect(await stop(server.child)).toBe(0);
  }, TEST_TIMEOUT_MS);
});
