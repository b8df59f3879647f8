// The server and the operator's CLI as separate processes, the way a person runs them (`npm start`, `npm run -s
// cotejo -- ...`): for the e2e tests of what a person sees. Every process started here is killed when the test file
// ends (or the test process exits), and every temporary directory removed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '../..');
/** Node 24 from the `node` devDependency when run through npm. */
export const NODE = process.execPath;
/** Generous: a loaded 2-core machine can take many times the usual 1-3 s to start. */
export const START_TIMEOUT_MS = 120_000;

const dirs: string[] = [];
const children: ChildProcess[] = [];
const killChildren = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
};
process.once('exit', killChildren);
afterAll(() => {
  killChildren();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

export function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-e2e-'));
  dirs.push(d);
  return d;
}

/** `npm run -s cotejo -- <args>` (its script, node server/src/cli.ts), with only `env` added to this process's. */
export function cli(args: string[], env: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(NODE, ['server/src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface RunningServer {
  child: ChildProcess;
  out: string[];
  /** http://127.0.0.1:<port it listens on>. */
  baseUrl: string;
  port: number;
  /** The first start's test key, from the banner. */
  key: string | undefined;
}

/** `npm start` (node server/src/main.ts); resolves once the banner is out. */
export function startServer(env: Record<string, string>): Promise<RunningServer> {
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
      // The banner is one write: the chunk that holds its OpenAPI line holds all of it.
      if (port && String(d).includes('OpenAPI document:')) {
        clearTimeout(timer);
        resolve({ child, out, port: Number(port), baseUrl: `http://127.0.0.1:${port}`, key: /\b(ck_test_[0-9A-Za-z]+)/.exec(text)?.[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${out.join('')}`)));
  });
}

/** Runs a command to its end (asynchronously: the test's timers and the kill-on-exit list keep working). */
export function runToExit(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...env } });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** SIGTERM, and the exit code once it stopped. */
export function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}
