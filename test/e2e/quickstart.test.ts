// docs/quickstart.md, run for real: examples/quickstart.ts against the real app, in-process and as the command a user
// types (a child process, through the examples/*.mjs launchers). After every run, successful, failed midway or
// interrupted with Ctrl-C, the API must list no webhook endpoint the quickstart made; a skipped step (no
// certificate, no server) must give one line saying what to run, exit code 1 and no stack.
import { execFileSync, spawn } from 'node:child_process';
import { X509Certificate, webcrypto } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import 'reflect-metadata'; // @peculiar/x509 needs it
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuickstartError, runQuickstart } from '../../examples/quickstart.ts';
import { freePort } from '../../scripts/free-port.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { selfSignedCert } from '../unit/webhooks/receiver.ts';

const EXAMPLES = path.resolve(import.meta.dirname, '../../examples');
const STACK_LINE = /^\s+at /m;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node examples/<file>` in its own process group, as a terminal would. `interruptWhen` sends SIGINT to the
 * whole group (what Ctrl-C does) once stdout contains that text.
 */
function run(file: string, env: Record<string, string>, opts: { node?: string; interruptWhen?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(opts.node ?? process.execPath, [path.join(EXAMPLES, file)], {
      cwd: path.dirname(EXAMPLES),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (opts.interruptWhen && !interrupted && stdout.includes(opts.interruptWhen)) {
        interrupted = true;
        process.kill(-child.pid!, 'SIGINT');
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A self-signed certificate that expired yesterday (as examples/.certs/receiver.pem does a day after make-cert). */
async function expiredCert(): Promise<string> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const day = 24 * 3600_000;
  const c = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '0c',
    name: 'CN=Cotejo expired receiver',
    notBefore: new Date(Date.now() - 2 * day),
    notAfter: new Date(Date.now() - day),
    signingAlgorithm: alg,
    keys,
  });
  return c.toString('pem');
}

/** A Node older than 24 on this machine (a system Node), if there is one. */
function oldNode(): string | undefined {
  for (const p of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!fs.existsSync(p)) continue;
    const version = execFileSync(p, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(version.replace(/^v/, '').split('.')[0]) < 24) return p;
  }
  return undefined;
}

describe('docs/quickstart.md', () => {
  let app: TestApp; // with the worker: webhooks are delivered
  let noWorker: TestApp; // without it: the webhook never comes, so the quickstart waits (or times out)
  let cert: { cert: string; key: string };
  let certDir: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-quickstart-'));

  beforeAll(async () => {
    cert = await selfSignedCert();
    // What NODE_EXTRA_CA_CERTS does for the server process in the quickstart.
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert.cert]);
    [app, noWorker] = await Promise.all([
      startTestApp('pglite', { worker: true, config: { allowPrivateUrls: true } }),
      startTestApp('pglite', { config: { allowPrivateUrls: true } }),
    ]);
    certDir = path.join(tmp, 'certs');
    fs.mkdirSync(certDir);
    fs.writeFileSync(path.join(certDir, 'receiver.pem'), cert.cert);
    fs.writeFileSync(path.join(certDir, 'receiver-key.pem'), cert.key);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([app?.close(), noWorker?.close()]);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** The account's webhook endpoints, as the API lists them. */
  async function endpoints(on: TestApp, key: string): Promise<unknown[]> {
    const res = await on.request<{ data: unknown[] }>('GET', '/v1/webhook-endpoints', { key });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  it('goes from a test key to a valid DNI verdict and a verified webhook, then deletes its endpoint', async () => {
    const { keys } = await app.newAccount();
    const lines: string[] = [];
    const result = await runQuickstart({ apiKey: keys.test, baseURL: app.baseUrl, ...cert, log: (l) => lines.push(l) });
    expect(result.verdict).toBe('valid');
    expect(result.event.type).toBe('analysis.completed');
    expect((result.event.data as { id: string }).id).toBe(result.analysisId);
    const endpointId = /^webhook endpoint (we_\w+) -> https:\/\/127\.0\.0\.1:\d+\/webhooks\/cotejo$/.exec(lines[0])?.[1];
    expect(endpointId).toBeDefined();
    expect(lines.at(-2)).toBe(`verified webhook analysis.completed for ${result.analysisId}`);
    expect(lines.at(-1)).toBe(`deleted webhook endpoint ${endpointId}`);
    expect(await endpoints(app, keys.test)).toEqual([]);
    // The analysis stays (docs/quickstart.md says so).
    expect((await app.request('GET', `/v1/analyses/${result.analysisId}`, { key: keys.test })).status).toBe(200);
  }, 60_000);

  it('deletes its endpoint when a step fails midway (no webhook in time)', async () => {
    const { keys } = await noWorker.newAccount();
    const lines: string[] = [];
    const err = await runQuickstart({ apiKey: keys.test, baseURL: noWorker.baseUrl, ...cert, log: (l) => lines.push(l), webhookTimeoutMs: 500 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(QuickstartError);
    expect((err as Error).message).toMatch(/^No webhook within 0\.5 s\. Was Cotejo started .*COTEJO_ALLOW_PRIVATE_URLS=true/);
    expect(lines.at(-1)).toMatch(/^deleted webhook endpoint we_/);
    expect(await endpoints(noWorker, keys.test)).toEqual([]);
  }, 60_000);

  it('deletes its endpoint when stopped by its signal right after creating it', async () => {
    const { keys } = await app.newAccount();
    const stop = new AbortController();
    const lines: string[] = [];
    const log = (l: string) => {
      lines.push(l);
      if (l.startsWith('webhook endpoint ')) stop.abort(new Error('stopped'));
    };
    await expect(runQuickstart({ apiKey: keys.test, baseURL: app.baseUrl, ...cert, log, signal: stop.signal })).rejects.toThrow('stopped');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^deleted webhook endpoint we_/);
    expect(await endpoints(app, keys.test)).toEqual([]);
  }, 60_000);

  describe('the command line', () => {
    it('npm run quickstart prints the walk-through and exits 0 with nothing left behind', async () => {
      const { keys } = await app.newAccount();
      const r = await run('quickstart.ts', { COTEJO_API_KEY: keys.test, COTEJO_BASE_URL: app.baseUrl, COTEJO_QUICKSTART_CERT_DIR: certDir });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^webhook endpoint we_\w+ -> https:\/\/127\.0\.0\.1:\d+\/webhooks\/cotejo\nanalysis an_\w+: completed, verdict valid\n/);
      expect(r.stdout).toMatch(/verified webhook analysis\.completed for an_\w+\ndeleted webhook endpoint we_\w+\n$/);
      expect(await endpoints(app, keys.test)).toEqual([]);
    }, 60_000);

    it('Ctrl-C while it waits for the webhook: deletes the endpoint, exits 130', async () => {
      const { keys } = await noWorker.newAccount();
      const r = await run(
        'quickstart.mjs', // through the launcher: Ctrl-C reaches the whole process group, as in a terminal
        { COTEJO_API_KEY: keys.test, COTEJO_BASE_URL: noWorker.baseUrl, COTEJO_QUICKSTART_CERT_DIR: certDir },
        { interruptWhen: 'verdict valid' },
      );
      expect(r.code).toBe(130);
      expect(r.stdout).toMatch(/deleted webhook endpoint we_\w+\n$/);
      expect(r.stderr).toContain('Interrupted: deleting the webhook endpoint');
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(await endpoints(noWorker, keys.test)).toEqual([]);
    }, 60_000);

    it('without the certificate: one line saying to run make-cert first, exit 1, no stack', async () => {
      const r = await run('quickstart.ts', {
        COTEJO_API_KEY: 'ck_test_x',
        COTEJO_BASE_URL: app.baseUrl,
        COTEJO_QUICKSTART_CERT_DIR: path.join(tmp, 'no-certs-here'),
      });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `No certificate for the local webhook receiver (${path.join(tmp, 'no-certs-here', 'receiver.pem')} is missing): run \`node examples/make-cert.mjs\` first, ` +
          'then start Cotejo with NODE_EXTRA_CA_CERTS pointing at it (docs/quickstart.md, steps 2 and 3).\n',
      );
    });

    it('an expired certificate: says to make a new one and restart Cotejo', async () => {
      const dir = path.join(tmp, 'expired');
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'receiver.pem'), await expiredCert());
      fs.writeFileSync(path.join(dir, 'receiver-key.pem'), cert.key);
      const r = await run('quickstart.ts', { COTEJO_API_KEY: 'ck_test_x', COTEJO_BASE_URL: app.baseUrl, COTEJO_QUICKSTART_CERT_DIR: dir });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^The receiver's certificate .*receiver\.pem expired on .*: run `node examples\/make-cert\.mjs` again, then restart Cotejo/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('without an API key: one line saying where the test key comes from', async () => {
      const r = await run('quickstart.ts', { COTEJO_BASE_URL: app.baseUrl, COTEJO_QUICKSTART_CERT_DIR: certDir });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^COTEJO_API_KEY is not set: run `COTEJO_API_KEY=ck_test_\.\.\. npm run quickstart` with the test key/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('a wrong base URL: names the URL it tried and the cause, exit 1, no stack', async () => {
      const port = await freePort();
      const r = await run('quickstart.ts', { COTEJO_API_KEY: 'ck_test_x', COTEJO_BASE_URL: `http://127.0.0.1:${port}`, COTEJO_QUICKSTART_CERT_DIR: certDir });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Connection error: POST http://127.0.0.1:${port}/v1/webhook-endpoints failed: connect ECONNREFUSED 127.0.0.1:${port}`);
      expect(r.stderr).toContain(`Is Cotejo running at http://127.0.0.1:${port}?`);
      expect(r.stderr).not.toMatch(STACK_LINE);
    }, 30_000);

    it.skipIf(!oldNode())('node examples/make-cert.mjs works with an older system Node (runs the project’s Node 24)', async () => {
      const dir = path.join(tmp, 'made');
      const r = await run('make-cert.mjs', { COTEJO_QUICKSTART_CERT_DIR: dir }, { node: oldNode() });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`wrote ${path.join(dir, 'receiver.pem')}`);
      expect(new X509Certificate(fs.readFileSync(path.join(dir, 'receiver.pem'))).subject).toContain('CN=Cotejo');
    }, 30_000);
  });
});
