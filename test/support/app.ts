import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ulid } from 'ulid';
import { buildApp, type AppOptions } from '../../server/src/app.ts';
import { ManualClock, systemClock, type Clock } from '../../server/src/clock.ts';
import { loadConfig, type Config } from '../../server/src/config.ts';
import { dropSchema } from '../../server/src/db/database.ts';
import { answerClientErrors } from '../../server/src/http/client-errors.ts';
import { createAccount, type CreatedAccount } from '../../server/src/domain/accounts.ts';
import type { Services } from '../../server/src/http/context.ts';
import type { Provider } from '../../server/src/providers/types.ts';
import { startWorker } from '../../server/src/jobs/worker.ts';
import { createLogger } from '../../server/src/logger.ts';
import type { LogLevel } from '../../server/src/config.ts';
import { openServices } from '../../server/src/services.ts';
import { assertMatchesSpec } from './spec.ts';

export type DbKind = 'pglite' | 'postgres';

/** PGlite always; PostgreSQL too when DATABASE_URL is set (CI sets it). */
export const DATABASES: DbKind[] = process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  bytes: Uint8Array;
}

export interface RequestOptions {
  key?: string | null;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Skip the spec check (only for responses the spec cannot describe, each use commented). */
  unchecked?: boolean;
}

export interface TestApp {
  kind: DbKind;
  baseUrl: string;
  services: Services;
  clock: Clock;
  account: CreatedAccount;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<TestResponse<T>>;
  newAccount(opts?: { rateLimitPerSecond?: number }): Promise<CreatedAccount>;
  close(): Promise<void>;
}

export interface StartOptions extends AppOptions {
  /** The services' log level (default silent): a test whose failure a reader's warning would explain asks for `warn`. */
  logLevel?: LogLevel;
  clock?: Clock;
  config?: Partial<Config>;
  /** Run the background worker (async analyses, deferred ones); off by default so tests drive jobs themselves. */
  worker?: boolean;
  /** A live-mode reader (see live-provider.ts) instead of the local readers that the configuration enables. */
  liveProvider?: Provider;
  /** Roots trusted for `file_url` downloads instead of Node's (a test's HTTPS file server, test/support/https-files.ts). */
  fileUrlCa?: string;
}

/** The real app on a real, fresh database (in-memory PGlite, or a PostgreSQL schema of its own). */
export async function startTestApp(kind: DbKind, opts: StartOptions = {}): Promise<TestApp> {
  const clock = opts.clock ?? systemClock;
  const schema = kind === 'postgres' ? `t_${ulid().toLowerCase()}` : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-test-'));
  const config: Config = { ...loadConfig({}), dataDir, databaseUrl: kind === 'postgres' ? process.env.DATABASE_URL : undefined, ...opts.config };
  const services = await openServices(config, clock, createLogger(opts.logLevel ?? 'silent'), { dataDir: undefined, schema, poolSize: 5 });
  // A generous rate limit, so suites are not throttled; the rate-limit tests make their own accounts.
  if (opts.liveProvider) services.providers.live = opts.liveProvider;
  if (opts.fileUrlCa) services.fileUrlCa = opts.fileUrlCa;
  const account = await createAccount(services.db, clock, { name: 'Test account', rateLimitPerSecond: 100_000 });
  const app = buildApp(services, opts);
  const worker = opts.worker ? startWorker(services, { pollMs: 20 }) : undefined;
  const server = http.createServer(app);
  answerClientErrors(server, services.logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request = async <T>(method: string, path: string, ro: RequestOptions = {}): Promise<TestResponse<T>> => {
    const headers: Record<string, string> = { ...(ro.headers ?? {}) };
    const key = ro.key === undefined ? account.keys.test : ro.key;
    if (key !== null && headers.Authorization === undefined) headers.Authorization = `Bearer ${key}`;
    let body = ro.body;
    if (ro.json !== undefined) {
      body = JSON.stringify(ro.json);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body, redirect: 'manual' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
    const out = { status: res.status, headers: res.headers, body: parsed as T, text, bytes };
    if (!ro.unchecked) assertMatchesSpec(method, path, out);
    return out;
  };

  return {
    kind,
    baseUrl,
    services,
    clock,
    account,
    request,
    newAccount: (o = {}) => createAccount(services.db, clock, { name: 'Other account', ...o }),
    close: async () => {
      await Promise.allSettled([...services.inflight]);
      await worker?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.blobs.destroy?.();
      await services.database.close();
      if (schema && process.env.DATABASE_URL) await dropSchema(process.env.DATABASE_URL, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export { ManualClock };
