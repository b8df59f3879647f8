/**
 * Issue #31: the web pages while the database is away. A real server process (npm start) on a fresh PostgreSQL
 * database behind our TCP proxy (test/support/fault-proxy.ts). With PostgreSQL taken away (refused and cut), the dashboard (a signed-in member's page) and the hosted verification page (the page and its polling
 * endpoint) answer 503 with Retry-After and a page in the person's language (es, en, pt, fr) that says the service is
 * briefly unavailable and to try again: no stack, no error code, never a 500. Once it is back, the same pages answer
 * 200 in the same process.
 * Runs where PostgreSQL is (DATABASE_URL, as in CI); skipped otherwise.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminQuery } from '../support/postgres-admin.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, PASSWORD } from '../support/dashboard.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { cli, startServer, stop, type RunningServer } from '../support/server-process.ts';

const BASE = process.env.DATABASE_URL;

/** What each language's unavailable page says (the words of server/src/web/messages.ts and dashboard/messages.ts). */
const HOSTED_WORDS = { es: /no está disponible/, en: /briefly unavailable/, pt: /momentaneamente indisponível/, fr: /momentanément indisponible/ } as const;
const DASHBOARD_WORDS = { es: /no disponible por un momento/, en: /briefly unavailable/, pt: /momentaneamente indisponível/, fr: /momentanément indisponible/ } as const;
const LANGUAGES = ['es', 'en', 'pt', 'fr'] as const;

describe.skipIf(!BASE)('web pages while PostgreSQL is away (through the fault proxy)', { timeout: 300_000 }, () => {
  const dbName = `cotejo_faults_web_${Date.now().toString(36)}_${process.pid}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-faults-web-'));
  let pgProxy: FaultProxy;
  let server: RunningServer;
  let dashboard: DashboardClient;
  let token = '';

  const admin = (sql: string) => adminQuery(BASE!, sql);
  const direct = () => {
    const u = new URL(BASE!);
    u.pathname = `/${dbName}`;
    return u.toString();
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    await admin(`create database ${dbName}`);
    const base = new URL(BASE!);
    pgProxy = await startFaultProxy({ host: base.hostname, port: Number(base.port || 5432) });
    const viaProxy = new URL(BASE!);
    viaProxy.host = pgProxy.address;
    viaProxy.pathname = `/${dbName}`;
    server = await startServer({
      PORT: '0',
      DATABASE_URL: viaProxy.toString(),
      COTEJO_DATA_DIR: path.join(tmp, 'data'),
      COTEJO_SIGNING_SECRET: 'x'.repeat(40),
      MISTRAL_API_KEY: '',
      LOG_LEVEL: 'warn',
    });
    const key = server.key ?? '';
    expect(key).toMatch(/^ck_test_/);

    // A dashboard owner made the way an operator makes one: the CLI's invitation, accepted on its page, signed in.
    const account = /\((acct_[0-9A-Za-z]+)\)/.exec(server.out.join(''))?.[1];
    expect(account).toBeDefined();
    const inv = cli(['members', 'invite', '--account', account!, '--email', 'owner@example.com', '--role', 'owner', '--json'], { DATABASE_URL: direct(), COTEJO_DATA_DIR: path.join(tmp, 'data') });
    expect(inv.code, inv.stderr).toBe(0);
    const invitation = new URL((JSON.parse(inv.stdout) as { url: string }).url).pathname;
    dashboard = new DashboardClient(server.baseUrl);
    const accepted = await dashboard.submit(invitation, invitation, { name: 'Owner', password: PASSWORD, confirm: PASSWORD, language: 'en' });
    expect(accepted.status).toBe(303);
    const signedIn = await dashboard.signIn('owner@example.com', PASSWORD);
    expect(signedIn.status).toBe(303);

    // A verification link, for its hosted page.
    const res = await fetch(`${server.baseUrl}/v1/verification-links`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ documents: [{ key: 'id', expect: 'es_dni' }] }),
    });
    const link = (await res.json()) as { url: string };
    expect(res.status, JSON.stringify(link)).toBe(201);
    token = new URL(link.url).pathname.split('/').pop()!;
  }, 180_000);

  afterAll(async () => {
    if (server) await stop(server.child);
    await pgProxy?.close();
    await admin(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const page = async (route: string, language: string, headers: Record<string, string> = {}) => {
    const res = await fetch(server.baseUrl + route, {
      redirect: 'manual',
      headers: { 'Accept-Language': language, Cookie: [...dashboard.jar].map(([k, v]) => `${k}=${v}`).join('; '), ...headers },
      signal: AbortSignal.timeout(120_000),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  /** Every page, in every language: 503, Retry-After, the page's words in that language, nothing of the error inside. */
  const expectUnavailable = async (how: string) => {
    for (const language of LANGUAGES) {
      const hosted = await page(`/l/${token}`, language);
      expect(hosted.status, `${how}: hosted page in ${language}: ${hosted.text.slice(0, 300)}`).toBe(503);
      expect(Number(hosted.retryAfter)).toBeGreaterThan(0);
      expect(hosted.type).toMatch(/^text\/html/);
      expect(hosted.text).toMatch(HOSTED_WORDS[language]);
      expect(hosted.text).toContain(`lang="${language}"`);
      // Not the page of a link that does not exist.
      expect(hosted.text).not.toMatch(/no es válido|not valid|não é válid|n'est pas valide/i);

      const dash = await page('/dashboard/keys', language);
      expect(dash.status, `${how}: dashboard in ${language}: ${dash.text.slice(0, 300)}`).toBe(503);
      expect(Number(dash.retryAfter)).toBeGreaterThan(0);
      expect(dash.type).toMatch(/^text\/html/);
      expect(dash.text).toMatch(DASHBOARD_WORDS[language]);
      expect(dash.text).toContain(`lang="${language}"`);

      for (const text of [hosted.text, dash.text]) {
        expect(text).not.toMatch(/ECONNREFUSED|Connection terminated|timeout|service_unavailable|internal_error|\bat .*\.ts:\d+/i);
      }
    }
    // The hosted page's polling script asks for JSON: the same 503, its message in words.
    const state = await page(`/l/${token}/state`, 'fr', { Accept: 'application/json' });
    expect(state.status).toBe(503);
    expect(Number(state.retryAfter)).toBeGreaterThan(0);
    expect((JSON.parse(state.text) as { error: { message: string } }).error.message).toMatch(HOSTED_WORDS.fr);
  };

  const expectBack = async () => {
    const end = Date.now() + 60_000;
    for (;;) {
      const [hosted, dash] = [await page(`/l/${token}`, 'pt'), await page('/dashboard/keys', 'pt')];
      if (hosted.status === 200 && dash.status === 200) return;
      if (Date.now() > end) throw new Error(`pages not back: hosted ${hosted.status}, dashboard ${dash.status}`);
      await sleep(500);
    }
  };

  it('answer 200 while the database is there', async () => {
    expect((await page(`/l/${token}`, 'es')).status).toBe(200);
    expect((await page('/dashboard/keys', 'en')).status).toBe(200);
  });

  it('answer 503 with Retry-After and a page in the person\'s language while it is down, and 200 once it is back', async () => {
    const pid = server.child.pid;
    pgProxy.down();
    await expectUnavailable('down');
    pgProxy.restore();
    await expectBack();
    expect(server.child.exitCode).toBeNull();
    expect(server.child.pid).toBe(pid);
  });
});
