// The Python SDK (sdk-python/, docs/sdk-python.md) as a user gets it: a wheel and an sdist built with Debian's
// python3-build (the wheel from the sdist, so the sdist is complete), the wheel installed offline into a fresh virtual
// environment, and its test suite (sdk-python/tests, stdlib unittest) run from there against the real server (test
// mode, background worker on). Then the integration scenario of examples/ in TypeScript and in Python, and the
// quickstart of docs/sdk-python.md as written, against the same server. Everything made here (server, HTTPS file
// server, temp dir with the venv) is removed in afterAll. Why from vitest: docs/development.md, "The Python SDK".
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';
import { startHttpsFiles, type HttpsFiles } from '../support/https-files.ts';
import { selfSignedCert } from '../unit/webhooks/receiver.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SDK = path.join(ROOT, 'sdk-python');
const VECTORS = path.resolve(ROOT, '../shared/testdata/webhooks/standard-webhooks-vectors.json');
/**
 * Debian's python3 (what .ci/run installs python3-venv and python3-build for), not whatever `python3` is first on the
 * PATH (pyenv, a virtualenv...), which may lack them. COTEJO_PYTHON overrides it.
 */
const PYTHON = process.env.COTEJO_PYTHON ?? (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command with a minimal environment; never left running (killed after `timeoutMs`). */
function run(cmd: string, args: string[], opts: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function must(r: Run, what: string): Run {
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

function pythonTools(): string | undefined {
  const r = spawnSync(PYTHON, ['-c', 'import build, venv, ensurepip, setuptools, wheel'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `${PYTHON} lacks build/venv: apt-get install -y python3-venv python3-build python3-pip python3-setuptools python3-wheel (${r.stderr.trim().split('\n').at(-1)})`;
}

describe('the Python SDK (sdk-python), built, installed in a fresh venv and run against the real server', () => {
  let tmp: string;
  let venvPython: string;
  let dist: string[];
  let app: TestApp;
  let files: HttpsFiles;
  let certDir: string;
  let jpegPath: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    const missing = pythonTools();
    if (missing) throw new Error(missing);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-python-'));

    // Build from a copy: setuptools writes build/ and *.egg-info next to the sources, which must stay out of the work tree.
    const pkg = path.join(tmp, 'pkg');
    fs.mkdirSync(pkg);
    for (const name of ['pyproject.toml', 'README.md', 'src']) {
      fs.cpSync(path.join(SDK, name), path.join(pkg, name), { recursive: true, filter: (src) => !/__pycache__|\.egg-info/.test(src) });
    }
    const outdir = path.join(tmp, 'dist');
    const build = run(PYTHON, ['-m', 'build', '--no-isolation', '--outdir', outdir, pkg], { cwd: tmp });
    const venv = run(PYTHON, ['-m', 'venv', path.join(tmp, 'venv')], { cwd: tmp });

    // Meanwhile: the server, an HTTPS file server for file_url, a certificate for the examples' webhook receivers.
    files = await startHttpsFiles((req, res) => {
      if (req.url === '/dni_valid.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(fixtures.jpeg());
      else res.writeHead(404).end();
    });
    const cert = await selfSignedCert();
    // What NODE_EXTRA_CA_CERTS does for the server process in the quickstart: the receivers' certificate is trusted.
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert.cert]);
    app = await startTestApp('pglite', { worker: true, config: { allowPrivateUrls: true }, fileUrlCa: files.cert });
    certDir = path.join(tmp, 'certs');
    fs.mkdirSync(certDir);
    fs.writeFileSync(path.join(certDir, 'receiver.pem'), cert.cert);
    fs.writeFileSync(path.join(certDir, 'receiver-key.pem'), cert.key);
    jpegPath = path.join(tmp, 'dni_valid.jpg');
    fs.writeFileSync(jpegPath, fixtures.jpeg());

    must(await build, 'python3 -m build');
    must(await venv, 'python3 -m venv');
    dist = fs.readdirSync(outdir).sort();
    venvPython = path.join(tmp, 'venv', 'bin', 'python');
    const wheel = dist.find((f) => f.endsWith('.whl'));
    if (!wheel) throw new Error(`no wheel in ${dist.join(', ')}`);
    // Offline, as a user with the file would: no index, nothing else to fetch (no runtime dependency).
    must(await run(venvPython, ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', path.join(outdir, wheel)], { cwd: tmp }), 'pip install');

    const throttled = await app.newAccount({ rateLimitPerSecond: 1 });
    const unverified = await app.newAccount({ rateLimitPerSecond: 100_000 });
    env = {
      COTEJO_TEST_BASE_URL: app.baseUrl,
      COTEJO_TEST_API_KEY: app.account.keys.test,
      COTEJO_TEST_PUBLISHABLE_KEY: app.account.keys.test_publishable,
      COTEJO_TEST_LIVE_KEY: unverified.keys.live,
      COTEJO_TEST_THROTTLED_KEY: throttled.keys.test,
      COTEJO_TEST_JPEG: jpegPath,
      COTEJO_TEST_FILE_URL: `${files.base}/dni_valid.jpg`,
      COTEJO_WEBHOOK_VECTORS: VECTORS,
      COTEJO_OPENAPI: path.join(ROOT, 'generated', 'openapi.json'),
      COTEJO_TEST_INSTALLED: '1',
    };
  }, 240_000);

  afterAll(async () => {
    await app?.close();
    await files?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('builds an sdist and a wheel named after the version, with the generated models and py.typed', async () => {
    const version = /__version__ = "([^"]+)"/.exec(fs.readFileSync(path.join(SDK, 'src/cotejo/_version.py'), 'utf8'))?.[1];
    expect(dist).toEqual([`cotejo-${version}-py3-none-any.whl`, `cotejo-${version}.tar.gz`]);
    const list = must(
      await run(venvPython, ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', path.join(tmp, 'dist', dist[0])], { cwd: tmp }),
      'list the wheel',
    ).stdout.split('\n');
    expect(list).toEqual(expect.arrayContaining(['cotejo/__init__.py', 'cotejo/models.py', 'cotejo/webhooks.py', 'cotejo/py.typed']));
    const metadata = list.find((f) => f.endsWith('.dist-info/METADATA'));
    expect(metadata).toBeDefined();
    const r = must(
      await run(venvPython, ['-c', 'import importlib.metadata as m; print(m.requires("cotejo")); print(m.metadata("cotejo")["Requires-Python"])'], { cwd: tmp }),
      'read the metadata',
    );
    expect(r.stdout).toBe('None\n>=3.10\n'); // no runtime dependency
  }, 30_000);

  it('the sdist installs too (pip builds it with the system setuptools) and passes the offline tests from there', async () => {
    // --system-site-packages: Debian's setuptools and wheel build the sdist, offline (--no-index --no-build-isolation).
    const venv = path.join(tmp, 'venv-sdist');
    must(await run(PYTHON, ['-m', 'venv', '--system-site-packages', venv], { cwd: tmp }), 'python3 -m venv');
    const py = path.join(venv, 'bin', 'python');
    const sdist = path.join(tmp, 'dist', dist[1]);
    must(await run(py, ['-m', 'pip', 'install', '--no-index', '--no-build-isolation', '--disable-pip-version-check', sdist], { cwd: tmp }), 'pip install the sdist');
    const where = must(await run(py, ['-c', 'import cotejo, sys; print(cotejo.__file__.startswith(sys.prefix), cotejo.__version__)'], { cwd: tmp }), 'import');
    expect(where.stdout).toMatch(/^True \d+\.\d+\.\d+\n$/);
    const tests = path.join(SDK, 'tests');
    const r = await run(py, ['-m', 'unittest', 'discover', '-s', tests, '-t', tests, '-p', 'test_[pw]*.py'], {
      cwd: tmp,
      env: { COTEJO_WEBHOOK_VECTORS: VECTORS, COTEJO_OPENAPI: path.join(ROOT, 'generated', 'openapi.json'), COTEJO_TEST_INSTALLED: '1' },
    });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toMatch(/Ran \d+ tests[\s\S]*\nOK\n$/);
    expect(r.stderr).not.toMatch(/skipped/);
  }, 60_000);

  it('passes its unittest suite from the venv against the server (each resource, each error class, 429 retry, idempotent replay, webhook vectors)', async () => {
    const r = await run(venvPython, ['-m', 'unittest', 'discover', '-v', '-s', path.join(SDK, 'tests'), '-t', path.join(SDK, 'tests')], {
      cwd: tmp,
      env,
      timeoutMs: 180_000,
    });
    const summary = `${r.stderr.slice(-4000)}`;
    expect(r.code, summary).toBe(0);
    expect(r.stderr).toMatch(/\nOK\n$/);
    // Nothing skipped: the server tests ran (they skip only without COTEJO_TEST_BASE_URL).
    expect(r.stderr).not.toMatch(/skipped/);
    expect(Number(/Ran (\d+) tests/.exec(r.stderr)?.[1])).toBeGreaterThanOrEqual(50);
    const passed = new Set([...r.stderr.matchAll(/\((test_\w+)\.(\w+)\.test_\w+\) \.\.\. ok$/gm)].map((m) => `${m[1]}.${m[2]}`));
    expect([...passed].sort()).toEqual(
      [
        'test_package.InstalledPackage',
        'test_server.Account',
        'test_server.Analyses',
        'test_server.Batches',
        'test_server.Catalogue',
        'test_server.Errors',
        'test_server.Idempotency',
        'test_server.RateLimit',
        'test_server.ReviewsTemplatesDossiers',
        'test_server.WebhookEndpointsAndLinks',
        'test_transport.Transport',
        'test_webhooks.Shapes',
        'test_webhooks.Vectors',
      ],
    );
    // The suite imported the installed package, not the sources (test_installed_from_venv asserts it; it must have run).
    expect(r.stderr).toContain('test_installed_from_venv');
  }, 200_000);

  describe('examples/integration.ts and examples/integration.py: the same scenario, the same output', () => {
    /** The output with what differs between runs (ids, the receiver's port) replaced by placeholders. */
    const normalized = (out: string) =>
      out.replace(/\b(an|bat|we)_[0-9A-HJKMNP-TV-Z]{26}\b/g, (_, p: string) => `${p}_…`).replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:…');

    it('analyze with expect, async + webhook verify, batch, paginate, review: both pass and print the same lines', async () => {
      const [tsKey, pyKey] = await Promise.all([app.newAccount({ rateLimitPerSecond: 100_000 }), app.newAccount({ rateLimitPerSecond: 100_000 })]);
      const common = { COTEJO_BASE_URL: app.baseUrl, COTEJO_QUICKSTART_CERT_DIR: certDir };
      const [ts, py] = await Promise.all([
        run(process.execPath, [path.join(ROOT, 'examples/integration.ts')], { cwd: ROOT, env: { ...common, COTEJO_API_KEY: tsKey.keys.test }, timeoutMs: 90_000 }),
        run(venvPython, [path.join(ROOT, 'examples/integration.py')], { cwd: tmp, env: { ...common, COTEJO_API_KEY: pyKey.keys.test }, timeoutMs: 90_000 }),
      ]);
      expect(ts.stderr, 'TypeScript').toBe('');
      expect(ts.code).toBe(0);
      expect(py.stderr, 'Python').toBe('');
      expect(py.code).toBe(0);
      expect(normalized(ts.stdout).split('\n')).toEqual([
        'webhook endpoint we_… -> https://127.0.0.1:…/webhooks/cotejo',
        'analyze: an_… completed, es_dni, verdict valid',
        'async: an_… queued',
        'async: verified webhook analysis.completed for an_…: completed, verdict valid',
        'batch: bat_… completed, 3 documents: valid, invalid, valid',
        'batch: verified webhook batch.completed for bat_…',
        'paginate: 2 on the first page, more: true; 5 in all',
        'review: an_… verdict review, review pending, pending in the queue: true',
        'review: an_… approved, final status valid',
        'deleted webhook endpoint we_…',
        '',
      ]);
      expect(normalized(py.stdout)).toBe(normalized(ts.stdout));
      // Both deleted their endpoint.
      for (const key of [tsKey.keys.test, pyKey.keys.test]) {
        expect((await app.request('GET', '/v1/webhook-endpoints', { key })).body.data).toEqual([]);
      }
    }, 120_000);
  });

  describe('docs/sdk-python.md', () => {
    /** The fenced ```python block that follows `heading` in the guide. */
    const block = (heading: string): string => {
      const doc = fs.readFileSync(path.join(ROOT, 'docs/sdk-python.md'), 'utf8');
      const at = doc.indexOf(heading);
      expect(at, heading).toBeGreaterThanOrEqual(0);
      const code = /```python\n([\s\S]*?)```/.exec(doc.slice(at));
      if (!code) throw new Error(`no python block after ${heading}`);
      return code[1];
    };

    it('the quickstart runs as written: the installed package, a key in COTEJO_API_KEY, a photo named dni_valid.jpg', async () => {
      const dir = fs.mkdtempSync(path.join(tmp, 'quickstart-'));
      fs.writeFileSync(path.join(dir, 'dni_valid.jpg'), fixtures.jpeg());
      fs.writeFileSync(path.join(dir, 'quickstart.py'), block('## Quickstart'));
      const { keys } = await app.newAccount();
      const r = await run(venvPython, ['quickstart.py'], { cwd: dir, env: { COTEJO_API_KEY: keys.test, COTEJO_BASE_URL: app.baseUrl } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^an_[0-9A-HJKMNP-TV-Z]{26} completed: valid\n(  info {4}\w+: .+\n)+$/);
      expect(r.stdout).toContain('  info    min_age_years: ');
    }, 30_000);

    it('the webhook snippets (Flask, FastAPI, Django) compile, and verify with the installed package', async () => {
      for (const heading of ['### Flask', '### FastAPI', '### Django']) {
        const code = block(heading);
        expect(code, heading).toContain('webhooks.verify(');
        const r = await run(venvPython, ['-c', 'import sys; compile(sys.argv[1], "snippet", "exec")', code], { cwd: tmp });
        expect(r.stderr, heading).toBe('');
        expect(r.code, heading).toBe(0);
      }
    });
  });
});
