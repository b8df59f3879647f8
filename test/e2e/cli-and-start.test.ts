import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeMistral } from '../support/fake-mistral.ts';
import { cli, NODE, ROOT, runToExit, startServer, stop, tmpDir } from '../support/server-process.ts';

const PASSPORT = fs.readFileSync(path.resolve(ROOT, '../shared/testdata/documents/id-images/PassportEye/tests-data/passport-td3.jpg'));
/** The test is not a timing test: a loaded 2-core machine (CI) may take minutes. */
const TEST_TIMEOUT_MS = 300_000;

describe('npm start on an empty embedded database', () => {
  it('creates a default account, prints its test key, serves /openapi.json and the API, and stops cleanly on SIGTERM', async () => {
    const dataDir = tmpDir();
    const env = { COTEJO_DATA_DIR: dataDir, PORT: '0', MISTRAL_API_KEY: '' };
    const first = await startServer(env);
    expect(first.key).toMatch(/^ck_test_/);
    // The banner says what live keys read with.
    expect(first.out.join('')).toContain('Live mode: local readers (mrz, pdf417, text, ocr); set MISTRAL_API_KEY to add Mistral');
    // The first start says what it is doing before the banner.
    expect(first.out.join('')).toMatch(/Creating the embedded database in .*\(first start\)[\s\S]*Cotejo is running at/);
    // Probes for supervisors and load balancers.
    expect((await fetch(`${first.baseUrl}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${first.baseUrl}/readyz`)).json()).toEqual({ status: 'ready', database: 'pglite' });
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
    // An unknown command is told without the database: the usage, not "in use".
    const unknown = cli(['accounts', 'delete'], { COTEJO_DATA_DIR: dataDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('cotejo: unknown command "accounts delete"');
    expect(unknown.stderr).not.toContain('in use');

    expect(await stop(first.child)).toBe(0);

    // The data persisted; a second start makes no new default account, and the old key still works.
    const second = await startServer(env);
    expect(second.key).toBeUndefined();
    expect(second.out.join('')).not.toContain('Creating the embedded database');
    const again = await fetch(`${second.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${first.key}` } });
    expect(again.status).toBe(200);
    expect(await stop(second.child)).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('a busy port ends the start with one line, before any account exists: the first key is never lost', async () => {
    const dataDir = tmpDir();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await runToExit(NODE, ['server/src/main.ts'], { COTEJO_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `Cotejo could not start: Port ${port} is already in use on 127.0.0.1 (another Cotejo, or another program). Stop it, or start on another port: PORT=8081 npm start`,
      );
      expect(r.stdout).not.toContain('ck_test_');
    } finally {
      blocker.close();
    }
    // No account was made; the next start makes it and shows its key.
    expect(JSON.parse(cli(['accounts', 'list', '--json'], { COTEJO_DATA_DIR: dataDir }).stdout)).toEqual({ accounts: [] });
    const started = await startServer({ COTEJO_DATA_DIR: dataDir, PORT: '0' });
    expect(started.key).toMatch(/^ck_test_/);
    expect(await stop(started.child)).toBe(0);

    // And an operator who lost it anyway finds the default account and issues a new test key.
    const { accounts } = JSON.parse(cli(['accounts', 'list', '--json'], { COTEJO_DATA_DIR: dataDir }).stdout);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]).toMatchObject({ name: 'Default account', active_keys: 4 });
    const fresh = JSON.parse(cli(['keys', 'create', '--account', accounts[0].id, '--json'], { COTEJO_DATA_DIR: dataDir }).stdout);
    expect(fresh.key).toMatch(/^ck_test_/);
    const again = await startServer({ COTEJO_DATA_DIR: dataDir, PORT: '0' });
    expect((await fetch(`${again.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${fresh.key}` } })).status).toBe(200);
    expect(await stop(again.child)).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('a data directory that cannot be used, or an unreachable PostgreSQL, is one line without a stack', async () => {
    const file = path.join(tmpDir(), 'a-file');
    fs.writeFileSync(file, '');
    const dir = await runToExit(NODE, ['server/src/main.ts'], { COTEJO_DATA_DIR: path.join(file, 'data'), PORT: '0' });
    expect(dir.code).toBe(1);
    expect(dir.stderr.trim()).toBe(
      `Cotejo could not start: Cannot use the data directory ${path.join(file, 'data')}: a part of the path is a file, not a directory. Set COTEJO_DATA_DIR to a directory this user can write.`,
    );
    const pgDown = await runToExit(NODE, ['server/src/main.ts'], { DATABASE_URL: 'postgres://cotejo:s3cret@127.0.0.1:1/cotejo', PORT: '0' });
    expect(pgDown.code).toBe(1);
    expect(pgDown.stderr.trim()).toBe(
      'Cotejo could not start: Cannot use PostgreSQL at 127.0.0.1:1/cotejo (DATABASE_URL): connection refused (is PostgreSQL running there?). Check DATABASE_URL, or unset it to use the embedded database.',
    );
    expect(pgDown.stderr).not.toContain('s3cret');
    const cliDown = cli(['accounts', 'list'], { DATABASE_URL: 'postgres://cotejo:s3cret@127.0.0.1:1/cotejo' });
    expect(cliDown.code).toBe(1);
    expect(cliDown.stderr.trim().split('\n')).toHaveLength(1);
  }, TEST_TIMEOUT_MS);

  it('MISTRAL_API_KEY and COTEJO_MISTRAL_BASE_URL from the environment: the banner says so and live readings call that endpoint', async () => {
    const fake = await startFakeMistral();
    try {
      const env = { COTEJO_DATA_DIR: tmpDir(), PORT: '0', MISTRAL_API_KEY: fake.apiKey, COTEJO_MISTRAL_BASE_URL: fake.url, COTEJO_LIVE_READERS: 'mrz' };
      const s = await startServer(env);
      const text = s.out.join('');
      expect(text).toContain(`Live mode: local readers (mrz), then Mistral at ${fake.url} (mistral-small-2603, OCR mistral-ocr-4-0).`);
      const live = /\b(ck_live_[0-9A-Za-z]+)/.exec(text)?.[1];
      const body = new FormData();
      body.append('file', new Blob([PASSPORT]), 'p.jpg');
      body.append('options', JSON.stringify({ expect: 'passport' }));
      const res = await fetch(`${s.baseUrl}/v1/analyze`, { method: 'POST', headers: { Authorization: `Bearer ${live}` }, body });
      const a = await res.json();
      expect(res.status, JSON.stringify(a).slice(0, 400)).toBe(200);
      expect(a.processing.providers).toContainEqual({ name: 'mistral', region: 'eu', role: 'llm', model: 'mistral-small-2603' });
      expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
      expect(fake.problems).toEqual([]);
      s.child.kill('SIGTERM');
      await new Promise((r) => s.child.once('exit', r));
    } finally {
      await fake.close();
    }
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
    // A negative amount (a correction) is written as people write it, without `=`.
    const taken = cli(['credits', 'add', '--account', out.account, '--amount', '-2.5', '--reason', 'correction', '--json'], env);
    expect(taken.code, taken.stderr).toBe(0);
    expect(JSON.parse(taken.stdout).balance).toBe(10);

    const settings = cli(['accounts', 'update', '--account', out.account, '--email-verified', 'true', '--monthly-credit-cap', '250', '--low-credit-threshold', '5', '--json'], env);
    expect(settings.code, settings.stderr).toBe(0);
    expect(JSON.parse(settings.stdout).updated).toEqual(['email_verified', 'monthly_credit_cap_milli', 'low_credit_threshold_milli']);
    expect(cli(['accounts', 'update', '--account', out.account, '--monthly-credit-cap', 'none'], env).code).toBe(0);
    const badCap = cli(['accounts', 'update', '--account', out.account, '--monthly-credit-cap', '-1'], env);
    expect(badCap.code).toBe(1);
    expect(badCap.stderr).toContain('--monthly-credit-cap');

    // A value that names nothing is one line, without the usage text; an unknown command gets the usage.
    const bad = cli(['keys', 'create', '--account', 'acct_nope'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('cotejo: no account acct_nope (see them all: npm run -s cotejo -- accounts list)\n');
    const badKey = cli(['keys', 'revoke', 'key_nope'], env);
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).not.toContain('Usage:');
    const unknown = cli(['accounts', 'delete'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage:');

    // The revoked key is refused by a server on the same data.
    const server = await startServer({ COTEJO_DATA_DIR: dataDir, PORT: '0' });
    const revoked = await fetch(`${server.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${key.key}` } });
    expect(revoked.status).toBe(401);
    const fine = await fetch(`${server.baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${out.keys.test}` } });
    expect(fine.status).toBe(200);
    expect(await stop(server.child)).toBe(0);
  }, TEST_TIMEOUT_MS);

  it('the documented form, npm run -s cotejo -- ... --json, prints only JSON (pipe-safe)', async () => {
    const dataDir = tmpDir();
    const r = await runToExit('npm', ['run', '-s', 'cotejo', '--', 'accounts', 'create', '--name', 'Piped', '--json'], { COTEJO_DATA_DIR: dataDir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).keys.test).toMatch(/^ck_test_/);
    const list = await runToExit('npm', ['run', '-s', 'cotejo', '--', 'accounts', 'list', '--json'], { COTEJO_DATA_DIR: dataDir });
    expect(JSON.parse(list.stdout).accounts.map((a: { name: string }) => a.name)).toEqual(['Piped']);
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
