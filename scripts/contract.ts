// npm run contract: Dredd against a real Cotejo server (docs/contract.md).
//
//   1. a temporary COTEJO_DATA_DIR (embedded PGlite, fresh), three accounts made with the CLI while no server runs
//      (the main one, with credits for the live-mode transactions; one limited to 1 request/s for the 429s);
//   2. `node server/src/main.ts` on a free loopback port;
//   3. Dredd on generated/openapi-3.0.json with the hooks of test/contract/hooks.cjs, sorted (POST, GET, DELETE);
//   4. the server is stopped, the directory removed; the exit code is Dredd's (non-zero when a transaction fails),
//      or 1 when the server could not be started or died during the run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fixtures } from '../test/support/files.ts';
import { handlers, isPending } from '../server/src/routes/index.ts';
import { freePort } from './free-port.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const NODE = process.execPath;
const DREDD = path.join(ROOT, 'node_modules/dredd/bin/dredd');
const SPEC_30 = path.join(ROOT, 'generated/openapi-3.0.json');
const SPEC_31 = path.join(ROOT, 'generated/openapi.json');
const HOOKS = path.join(ROOT, 'test/contract/hooks.cjs');

function log(message: string): void {
  process.stdout.write(`contract: ${message}\n`);
}

const CONTRACT_PUBLIC_RATE_LIMIT = 50;

/** The server's environment: nothing of the caller's database or providers, only what this run sets. */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR, LANG, TZ } = process.env;
  const base = Object.fromEntries(Object.entries({ PATH, HOME, TMPDIR, LANG, TZ }).filter(([, v]) => v !== undefined));
  // `fatal`: the server logs every 5xx it answers at `error`, and this run provokes 503s on purpose.
  return { ...base, LOG_LEVEL: 'fatal', ...extra };
}

function cli(args: string[], env: NodeJS.ProcessEnv): any {
  const r = spawnSync(NODE, ['server/src/cli.ts', ...args, '--json'], { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cotejo ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

function startServer(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['server/src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start in 60 s:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('OpenAPI document:')) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.pipe(process.stdout);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.pipe(process.stderr);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${out}`));
    });
  });
}

/**
 * Dredd's report, without its parser's warnings about every OpenAPI 3.0 keyword it does not read (format, pattern,
 * additionalProperties...: listed once in docs/contract.md), and with the base64 of uploaded files cut short.
 */
function printReport(text: string): void {
  const MAX = 400;
  for (const line of text.split('\n')) {
    if (/API description parser warning/.test(line)) continue;
    process.stdout.write((line.length > MAX ? `${line.slice(0, MAX)}... (${line.length - MAX} more characters)` : line) + '\n');
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-contract-'));
  let server: ChildProcess | undefined;
  try {
    const dataDir = path.join(dir, 'data');
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    // Live readers off: the contract's 503 live_mode_unavailable transactions need a server without live mode.
    // A low public limit, so that Dredd's 429 on a public route takes a burst of 50 requests, not 1,000.
    const env = serverEnv({ COTEJO_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', COTEJO_BASE_URL: baseUrl, COTEJO_LIVE_READERS: 'none', COTEJO_PUBLIC_RATE_LIMIT: String(CONTRACT_PUBLIC_RATE_LIMIT) });

    // Accounts and keys through the CLI, on the embedded database, before the server holds it.
    const main = cli(['accounts', 'create', '--name', 'Contract'], env);
    cli(['accounts', 'update', '--account', main.account, '--rate-limit', '10000'], env);
    cli(['credits', 'add', '--account', main.account, '--amount', '100'], env);
    const throttled = cli(['accounts', 'create', '--name', 'Throttled'], env);
    cli(['accounts', 'update', '--account', throttled.account, '--rate-limit', '1'], env);

    // Real files for the multipart and base64 bodies.
    const files = { jpeg: fixtures.jpeg(), png: fixtures.png(), pdf: fixtures.pdf() };
    const fixturePaths: Record<string, string> = {};
    for (const [name, bytes] of Object.entries(files)) {
      fixturePaths[name] = path.join(dir, `fixture.${name}`);
      fs.writeFileSync(fixturePaths[name], bytes);
    }

    server = await startServer(env);
    const exited = new Promise<number>((resolve) => server!.once('exit', (code) => resolve(code ?? 1)));
    log(`server at ${baseUrl} on a fresh embedded database`);

    const pending = Object.entries(handlers).filter(([, h]) => isPending(h)).map(([id]) => id);
    const context = {
      baseUrl,
      spec: SPEC_30,
      spec31: SPEC_31,
      keys: { test: main.keys.test, live: main.keys.live, publishable: main.keys.test_publishable, throttled: throttled.keys.test },
      fixtures: fixturePaths,
      pending,
      publicRateLimit: CONTRACT_PUBLIC_RATE_LIMIT,
    };

    // Dredd's report goes to a file, not a pipe: Dredd ends with process.exit(), which cuts a piped report short.
    const reportFile = path.join(dir, 'dredd.log');
    const report = fs.openSync(reportFile, 'w');
    const dredd = spawn(NODE, [DREDD, path.relative(ROOT, SPEC_30), baseUrl, '--hookfiles', path.relative(ROOT, HOOKS), '--sorted', '--loglevel', 'warning'], {
      cwd: ROOT,
      env: { ...process.env, COTEJO_CONTRACT: JSON.stringify(context), NODE_NO_WARNINGS: '1' },
      stdio: ['ignore', report, report],
    });
    fs.closeSync(report);
    const code = await Promise.race([
      new Promise<number>((resolve) => dredd.once('exit', (c) => resolve(c ?? 1))),
      exited.then((c) => {
        dredd.kill('SIGTERM');
        log(`the server exited (${c}) during the run`);
        return 1;
      }),
    ]);
    printReport(fs.readFileSync(reportFile, 'utf8'));
    log(`${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return code;
  } finally {
    if (server && server.exitCode === null) {
      server.removeAllListeners('exit');
      await new Promise<void>((resolve) => {
        server!.once('exit', () => resolve());
        server!.kill('SIGTERM');
      });
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`contract: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
