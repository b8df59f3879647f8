// Real server processes for the benches that measure a running service (bench/reading-speed.ts's memory part,
// bench/live-batch.ts): a fresh PostgreSQL database of their own (created here, dropped at the end), `node
// server/src/main.ts` started the way an operator starts it, the operator's CLI for the account, and every process
// killed and every temporary directory removed when the bench ends, however it ends.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';

export const ROOT = resolve(import.meta.dirname, '../..');
const START_TIMEOUT_MS = 120_000;

const children: ChildProcess[] = [];
const cleanups: Array<() => Promise<void> | void> = [];
const killAll = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
};
process.once('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

/** Stops every process started here, drops the databases and removes the directories (idempotent). */
export async function cleanup(): Promise<void> {
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (err) {
      console.error('cleanup:', err);
    }
  }
}

/** A temporary directory, removed by cleanup(). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function admin(base: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * A fresh database on the PostgreSQL of `base` (DATABASE_URL, default the local one), dropped by cleanup(); its URL.
 */
export async function freshDatabase(prefix: string, base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'): Promise<string> {
  const name = `${prefix}_${Date.now().toString(36)}_${process.pid}`;
  await admin(base, `create database ${name}`);
  cleanups.push(() => admin(base, `drop database if exists ${name} with (force)`));
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The operator's CLI (`npm run -s cotejo -- <args> --json`), parsed. */
export function cliJson<T = any>(args: string[], env: NodeJS.ProcessEnv): T {
  const r = spawnSync(process.execPath, ['server/src/cli.ts', ...args, '--json'], { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cli ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/**
 * glibc's allocator settings docs/deployment.md recommends for a server that reads in live mode ("Memory of live
 * readings"): two malloc arenas, and blocks of 8 MiB or more (ONNX Runtime's detector maps, decoded pages) mapped
 * on their own, so that they go back to the system when freed, in huge pages where the kernel allows them (without,
 * faulting those maps in 4 KiB at a time costs up to 70 % more CPU a page). The reading benches start their servers
 * with them unless `--default-allocator` is given.
 */
export const ALLOCATOR_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '8388608', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' } as const;
export const allocatorEnv = (argv: string[]): Record<string, string> => (argv.includes('--default-allocator') ? {} : { ...ALLOCATOR_ENV });
export const allocatorNote = (argv: string[]): string =>
  argv.includes('--default-allocator') ? "glibc's default allocator settings (--default-allocator)" : `${Object.entries(ALLOCATOR_ENV).map(([k, v]) => `${k}=${v}`).join(' ')} (docs/deployment.md)`;

export interface LiveAccount {
  account: string;
  keys: { live: string; test: string };
}

/** A live-mode account as an operator makes one with the CLI: verified email, credits, no rate or page limit in the way. */
export function liveAccount(env: NodeJS.ProcessEnv, credits: number): LiveAccount {
  const acc = cliJson<LiveAccount>(['accounts', 'create', '--name', 'Bench'], env);
  cliJson(['accounts', 'update', '--account', acc.account, '--rate-limit', '10000', '--email', 'bench@example.com', '--email-verified', 'true',
    '--live-concurrency', '1000', '--live-pages-per-minute', '1000000'], env);
  cliJson(['credits', 'add', '--account', acc.account, '--amount', String(credits)], env);
  return acc;
}

export interface Server {
  child: ChildProcess;
  url: string;
  out: string[];
  /** Resident set of the process, MB (from /proc). */
  rss(): number;
  /** CPU seconds the process has used so far, every thread (from /proc). */
  cpu(): number;
}

/** `node server/src/main.ts` with `env`; resolves once its banner names the port. */
export function startServer(name: string, env: NodeJS.ProcessEnv): Promise<Server> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['server/src/main.ts'], { cwd: ROOT, env: { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const out: string[] = [];
    const timer = setTimeout(() => fail(new Error(`${name} did not start in ${START_TIMEOUT_MS / 1000} s:\n${out.join('')}`)), START_TIMEOUT_MS);
    child.stderr!.on('data', (d) => out.push(String(d)));
    child.stdout!.on('data', (d) => {
      out.push(String(d));
      const text = out.join('');
      const port = /\(port (\d+),/.exec(text)?.[1];
      if (port && text.includes('OpenAPI document:')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        ok({
          child,
          url: `http://127.0.0.1:${port}`,
          out,
          rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024,
          cpu: () => {
            // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 a second on Linux).
            const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
            return (Number(fields[11]) + Number(fields[12])) / 100;
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited with ${code}:\n${out.join('')}`));
    });
  });
}

/** Resident set peak of a process while `fn` runs, sampled every 50 ms. */
export async function peakRss<T>(rss: () => number, fn: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = rss();
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rss());
    } catch {
      // the process ended
    }
  }, 50);
  try {
    const value = await fn();
    return { value, peak: Math.max(peak, rss()) };
  } finally {
    clearInterval(sampler);
  }
}
