// Shared pieces of the issue #13 benchmarks (analyze, catalogue, startup, upload-memory): command-line options,
// starting and stopping a Cotejo server of any checkout, the Prism mock and nginx, throw-away PostgreSQL
// databases, /proc readings, and the results files.
//
// Every child is started in a process group of its own and remembered; the groups are sent SIGTERM by stop()
// and SIGKILL at exit (normal end, error, Ctrl-C, SIGTERM), and every temporary directory and database made
// here is removed then too, so a failed run leaves nothing behind.
import { execFileSync, execSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

/**
 * The checkout measured (`--server DIR`, default this one) and the label of its rows (`--label`, default its short
 * commit, marked when tracked files differ from it: `git diff-index`, which reads and never writes the index).
 */
export function target(): { server: string; label: string } {
  const server = resolve(arg('--server') ?? ROOT);
  let label = arg('--label');
  if (label === undefined) {
    label = execSync('git rev-parse --short HEAD', { cwd: server }).toString().trim();
    try {
      execSync('git diff-index --quiet HEAD --', { cwd: server, stdio: 'ignore' });
    } catch {
      label += ' + uncommitted changes';
    }
  }
  return { server, label };
}

export type Db = 'pglite' | 'postgres';
export function dbOption(): Db {
  const db = arg('--db') ?? 'pglite';
  if (db !== 'pglite' && db !== 'postgres') throw new Error(`--db pglite|postgres (got ${db})`);
  return db;
}

export const PG_ADMIN_HOST = process.env.BENCH_PG_HOST ?? '127.0.0.1';
export const PG_ADMIN_USER = process.env.BENCH_PG_USER ?? 'postgres';

/** Share of all CPUs busy over `ms` (from /proc/stat), before the benchmark starts anything: others' work. */
async function cpuBusy(ms: number): Promise<number> {
  const read = () => {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3]! + (f[4] ?? 0);
    return { idle, total: f.reduce((t, x) => t + x, 0) };
  };
  const a = read();
  await new Promise((r) => setTimeout(r, ms));
  const b = read();
  return b.total > a.total ? 1 - (b.idle - a.idle) / (b.total - a.total) : NaN;
}
const BUSY_AT_START = await cpuBusy(1000);

export function machine(db: string): string {
  return `${cpus().length} CPUs, ${cpus()[0]?.model ?? 'unknown'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM; Node ${process.version}; ${db}; CPU ${Math.round(BUSY_AT_START * 100)} % busy before start`;
}

export function utcMinute(): string {
  return new Date().toISOString().slice(0, 16).replace('T', ' ');
}

/** kB of a /proc/<pid>/status line (VmRSS, VmHWM). */
export function procKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

export const mb = (kb: number): string => `${Math.round(kb / 1024)} MB`;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function median(xs: number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

// ---- cleanup ---------------------------------------------------------------------------------------------

const groups = new Set<ChildProcess>();
const dirs = new Set<string>();
const databases = new Set<string>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

function cleanupNow(): void {
  for (const c of groups) killGroup(c, 'SIGKILL');
  groups.clear();
  for (const name of databases) {
    try {
      execFileSync('dropdb', ['-h', PG_ADMIN_HOST, '-U', PG_ADMIN_USER, '--if-exists', '--force', name], { stdio: 'ignore' });
    } catch {
      /* reported by nobody: best effort at exit */
    }
  }
  databases.clear();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}

process.on('exit', cleanupNow);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    process.stderr.write(`\n${sig}: stopping every child\n`);
    process.exit(130);
  });
}
process.on('uncaughtException', (err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
process.on('unhandledRejection', (err) => {
  process.stderr.write(`${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});

/** A temporary directory removed at exit (or earlier by removeDir). */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(d);
  return d;
}
export function removeDir(d: string): void {
  rmSync(d, { recursive: true, force: true });
  dirs.delete(d);
}

/** Spawns a child in a new process group, remembered for the cleanup at exit. */
export function spawnTracked(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; stdout?: 'pipe' | 'ignore' }): ChildProcess {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', opts.stdout ?? 'pipe', 'pipe'] });
  groups.add(child);
  child.once('exit', () => groups.delete(child));
  return child;
}

/** SIGTERM to the child's group; SIGKILL if it has not exited after `graceMs`. */
export async function stop(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    groups.delete(child);
    return;
  }
  const exited = new Promise((r) => child.once('exit', r));
  killGroup(child, 'SIGTERM');
  const t = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(t);
  // Anything else left in its group (none expected).
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* group empty */
    }
  }
  groups.delete(child);
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = net.createServer();
    s.on('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => ok(port));
    });
  });
}

// ---- databases -------------------------------------------------------------------------------------------

/** A fresh PostgreSQL database (dropped at exit or by dropDatabase); returns its DATABASE_URL. */
export function createDatabase(): { name: string; url: string } {
  const name = `cotejo_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  execFileSync('createdb', ['-h', PG_ADMIN_HOST, '-U', PG_ADMIN_USER, name], { stdio: 'inherit' });
  databases.add(name);
  return { name, url: `postgres://${PG_ADMIN_USER}@${PG_ADMIN_HOST}:5432/${name}` };
}
export function dropDatabase(name: string): void {
  execFileSync('dropdb', ['-h', PG_ADMIN_HOST, '-U', PG_ADMIN_USER, '--if-exists', '--force', name], { stdio: 'inherit' });
  databases.delete(name);
}

/** Where a server keeps its data: a fresh data directory, and for postgres a fresh database too. */
export type Store = { dataDir: string; databaseUrl: string; database?: string };
export function freshStore(db: Db, prefix = 'cotejo-bench-'): Store {
  const dataDir = tempDir(prefix);
  if (db === 'pglite') return { dataDir, databaseUrl: '' };
  const { name, url } = createDatabase();
  return { dataDir, databaseUrl: url, database: name };
}
export function dropStore(s: Store): void {
  removeDir(s.dataDir);
  if (s.database) dropDatabase(s.database);
}

// ---- Cotejo ----------------------------------------------------------------------------------------------

export type Cotejo = { child: ChildProcess; pid: number; port: number; baseUrl: string; key?: string; output: () => string };

/**
 * Starts `node server/src/main.ts` of `server` and resolves when its banner names the port (and the test key
 * of the default account, on a first start). PORT=0 unless `port` is given; LOG_LEVEL=silent.
 */
export function startCotejo(
  server: string,
  store: Store,
  opts: { port?: number; env?: Record<string, string>; timeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<Cotejo> {
  const child = spawnTracked(process.execPath, [...(opts.nodeArgs ?? []), 'server/src/main.ts'], {
    cwd: server,
    env: { ...process.env, PORT: String(opts.port ?? 0), LOG_LEVEL: 'silent', COTEJO_DATA_DIR: store.dataDir, DATABASE_URL: store.databaseUrl, ...opts.env },
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start in time:\n${out}`)), opts.timeoutMs ?? 120_000);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code ?? sig}) before it started:\n${out}`));
    });
    const check = () => {
      // The banner is one write (well under PIPE_BUF): once the port is there, so is the key if there is one.
      const port = /\(port (\d+),/.exec(out)?.[1];
      if (!port) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      const key = /\b(ck_test_[0-9A-Za-z]+)/.exec(out)?.[1];
      ok({ child, pid: child.pid!, port: Number(port), baseUrl: `http://127.0.0.1:${port}`, key, output: () => out });
    };
    child.stdout!.on('data', check);
  });
}

/**
 * An account made with the checkout's own CLI before the server starts, with its per-key rate limit raised
 * (`accounts update --rate-limit`, 10/s by default): a throughput benchmark would otherwise measure the limiter.
 * Returns its test key.
 */
export function createAccountWithCli(server: string, store: Store, rateLimit: number): string {
  const env = { ...process.env, LOG_LEVEL: 'silent', COTEJO_DATA_DIR: store.dataDir, DATABASE_URL: store.databaseUrl };
  const created = JSON.parse(execFileSync(process.execPath, ['server/src/cli.ts', 'accounts', 'create', '--name', 'bench', '--json'], { cwd: server, env }).toString()) as {
    account: string;
    keys: { test: string };
  };
  if (rateLimit > 0) {
    execFileSync(process.execPath, ['server/src/cli.ts', 'accounts', 'update', '--account', created.account, '--rate-limit', String(rateLimit)], { cwd: server, env, stdio: 'ignore' });
  }
  return created.keys.test;
}

// ---- Prism -----------------------------------------------------------------------------------------------

/**
 * The Prism mock of the checkout's contract (`generated/openapi.json`), one process (no --multiprocess),
 * logging only errors (`-v error`: its per-request info lines would otherwise cost it time). Resolves when it
 * answers `GET /v1/document-types?limit=1`.
 */
export async function startPrism(server: string, port?: number): Promise<{ child: ChildProcess; pid: number; baseUrl: string }> {
  const p = port ?? (await freePort());
  const child = spawnPrism(server, p);
  const baseUrl = `http://127.0.0.1:${p}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('prism exited before it started');
    try {
      const r = await fetch(`${baseUrl}/v1/document-types?limit=1`);
      await r.arrayBuffer();
      if (r.ok) return { child, pid: child.pid!, baseUrl };
    } catch {
      /* not yet */
    }
    await sleep(50);
  }
  throw new Error('prism did not start in time');
}

export function spawnPrism(server: string, port: number): ChildProcess {
  const prismJs = join(server, 'node_modules/@stoplight/prism-cli/dist/index.js');
  if (!existsSync(prismJs)) throw new Error(`no Prism in ${server}/node_modules (link /work/main/node_modules there)`);
  return spawnTracked(process.execPath, [prismJs, 'mock', 'generated/openapi.json', '--host', '127.0.0.1', '--port', String(port), '-v', 'error'], {
    cwd: server,
    env: { ...process.env, SCARF_ANALYTICS: 'false', NODE_ENV: '' },
    stdout: 'ignore',
  });
}

// ---- results files ---------------------------------------------------------------------------------------

/** Creates the results file with its header (title, description, table head) if missing, then appends the rows. */
export function appendResults(file: string, header: string[], rows: string[]): void {
  if (!existsSync(file)) writeFileSync(file, `${header.join('\n')}\n`);
  appendFileSync(file, rows.map((r) => `${r}\n`).join(''));
}

export const fmt = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toFixed(digits) : '-');
/** Milliseconds with a precision that suits their size. */
export const ms = (x: number): string => (!Number.isFinite(x) ? '-' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
