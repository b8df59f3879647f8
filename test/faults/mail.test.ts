/**
 * The shared email outbox under faults (#31 item 6, docs/emails.md): a real SMTP server (`smtp-server` on loopback)
 * that the test stops for several seconds and starts again on the same port, while emails are being queued.
 * - In process, on each database: every email queued before, during and after the outage arrives exactly once; those
 *   the outage caught were retried (attempts > 1, the error kept until the retry worked); each link records `sent`
 *   once, after the email went out; a sent email is deleted by the retention sweep after COTEJO_RETENTION_EMAILS, a
 *   queued one never.
 * - Two real server processes on one PostgreSQL database (a fresh one), both with workers and the same SMTP server:
 *   links created through either process, an outage in the middle; every email arrives exactly once.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import pg from 'pg';
import { adminQuery } from '../support/postgres-admin.ts';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, RETENTION_DEFAULTS } from '../../server/src/config.ts';
import { sweepGrowth } from '../../server/src/jobs/retention.ts';
import { sendMail } from '../../server/src/mail/index.ts';
import { describeDatabasesAtOnce } from '../support/at-once.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { startServer, stop } from '../support/server-process.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An SMTP server on loopback that can be stopped and started again on the same port; what arrived, by recipient. */
class Smtp {
  port = 0;
  arrivals: { to: string; subject: string; messageId: string }[] = [];
  private server: SMTPServer | null = null;

  async start(): Promise<void> {
    const server = new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      onData: (stream, session, cb) => {
        simpleParser(stream).then(
          (mail) => {
            for (const r of session.envelope.rcptTo as SMTPServerAddress[]) this.arrivals.push({ to: r.address, subject: mail.subject ?? '', messageId: mail.messageId ?? '' });
            cb();
          },
          (err) => cb(err),
        );
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** The outage: the port refuses connections until start() again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  count(to: string): number {
    return this.arrivals.filter((a) => a.to === to).length;
  }
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const linkBody = (to: string) => ({ documents: [{ key: 'id', expect: 'es_dni' }], notify_email: to });

describeDatabasesAtOnce('an SMTP outage, in process (%s)', (kind) => {
  const smtp = new Smtp();
  let app: TestApp;
  beforeAll(async () => {
    await smtp.start();
    const env = loadConfig({ COTEJO_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, COTEJO_MAIL_FROM: 'Cotejo <no-reply@cotejo.test>' });
    app = await startTestApp(kind, { worker: true, config: { smtp: env.smtp, mailFrom: env.mailFrom } });
  });
  afterAll(async () => {
    await app?.close();
    await smtp.stop();
  });

  it('loses no email and sends none twice: queued before, during and after the server was away', { timeout: 120_000 }, async () => {
    const link = async (to: string): Promise<string> => {
      const r = await app.request('POST', '/v1/verification-links', { json: linkBody(to) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id;
    };
    const before = ['before.1@example.com', 'before.2@example.com'];
    const links = new Map<string, string>();
    for (const to of before) links.set(to, await link(to));
    await until('the first emails', () => before.every((to) => smtp.count(to) === 1), 30_000);

    await smtp.stop();
    const during = ['during.1@example.com', 'during.2@example.com', 'during.3@example.com'];
    for (const to of during) links.set(to, await link(to));
    // A direct one too (a dashboard invitation is queued this way).
    const invite = await sendMail(app.services, { to: 'during.invite@example.com', subject: 'Invitation', text: 'hello\n' });
    // The outage is felt: the emails are tried, refused (connection refused) and stay queued with their error.
    await until(
      'a refused try',
      async () => (await app.services.db.selectFrom('emails').select('id').where('status', '=', 'queued').where('error', 'is not', null).execute()).length >= 1,
      20_000,
    );
    await sleep(6_000);
    expect(during.map((to) => smtp.count(to))).toEqual([0, 0, 0]);
    await smtp.start();
    const after = ['after.1@example.com'];
    for (const to of after) links.set(to, await link(to));

    const all = [...before, ...during, 'during.invite@example.com', ...after];
    await until('every email', () => all.every((to) => smtp.count(to) >= 1), 90_000);
    // A moment more: nothing comes twice.
    await sleep(2_000);
    expect(all.map((to) => [to, smtp.count(to)])).toEqual(all.map((to) => [to, 1]));
    const rows = await app.services.db.selectFrom('emails').select(['id', 'to_address', 'status', 'via', 'attempts', 'error']).execute();
    expect(rows).toHaveLength(all.length);
    expect(rows.every((r) => r.status === 'sent' && r.via === 'smtp' && r.error === null)).toBe(true);
    // What the outage caught was tried more than once.
    expect(rows.filter((r) => r.to_address.startsWith('during.')).every((r) => r.attempts >= 2)).toBe(true);
    expect(rows.find((r) => r.id === invite)?.status).toBe('sent');
    // Each link recorded `sent` once, after its email went out.
    for (const [to, id] of links) {
      const got = (await app.request('GET', `/v1/verification-links/${id}`)).body;
      expect(got.events.filter((e: { type: string }) => e.type === 'sent'), to).toEqual([expect.objectContaining({ email: to })]);
      expect(got.last_sent_at).not.toBeNull();
    }
    for (const id of links.values()) await app.request('DELETE', `/v1/verification-links/${id}`);
  });

  it('retention: sent emails go after COTEJO_RETENTION_EMAILS, queued ones never', async () => {
    await smtp.stop();
    try {
      const queued = await sendMail(app.services, { to: 'waits@example.com', subject: 'Waits', text: 'x\n' });
      const r = app.services.config.retention;
      app.services.config.retention = { ...RETENTION_DEFAULTS, emailsMs: 60_000 };
      // Sweeping "a day later": as if the clock had moved (the rows are made older instead).
      await app.services.db.updateTable('emails').set({ updated_at: new Date(Date.now() - 24 * 3600_000) }).execute();
      const counts = await sweepGrowth(app.services);
      app.services.config.retention = r;
      expect(counts.emails).toBeGreaterThanOrEqual(7);
      const left = await app.services.db.selectFrom('emails').select(['id', 'status']).execute();
      expect(left).toEqual([{ id: queued, status: 'queued' }]);
      await app.services.db.deleteFrom('emails').execute();
    } finally {
      await smtp.start();
    }
  });
});

const BASE = process.env.DATABASE_URL;

// Beside the in-process suites (concurrent): all three mostly wait for SMTP retries.
describe.skipIf(!BASE)('two server processes on one PostgreSQL, one SMTP server that goes away', { timeout: 300_000, concurrent: true }, () => {
  const dbName = `cotejo_mail_${Date.now().toString(36)}_${process.pid}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-mail-faults-'));
  const children: ChildProcess[] = [];
  const smtp = new Smtp();
  let dbUrl = '';
  const admin = (sql: string) => adminQuery(BASE!, sql);
  const start = async (name: string): Promise<{ url: string; key?: string }> => {
    const server = await startServer({
      PORT: '0',
      DATABASE_URL: dbUrl,
      COTEJO_DATA_DIR: path.join(tmp, name),
      COTEJO_SIGNING_SECRET: 'x'.repeat(40),
      COTEJO_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      COTEJO_MAIL_FROM: 'Cotejo <no-reply@cotejo.test>',
      MISTRAL_API_KEY: '',
    });
    children.push(server.child);
    return { url: server.baseUrl, key: server.key };
  };

  beforeAll(async () => {
    await smtp.start();
    await admin(`create database ${dbName}`);
    const u = new URL(BASE!);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
  });
  afterAll(async () => {
    // SIGTERM, a clean stop (server-process.ts kills whatever is left when the file ends).
    for (const c of children) await stop(c);
    await smtp.stop();
    await admin(`drop database if exists ${dbName} with (force)`);
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('every email is sent exactly once, whichever process queued it, across an outage', async () => {
    const a = await start('a');
    const b = await start('b');
    const key = a.key!;
    expect(key).toMatch(/^ck_test_/);
    // As a client does: a 429 (the account's per-second limit, shared by both processes) waits its Retry-After.
    const create = async (base: string, to: string) => {
      for (;;) {
        const r = await fetch(`${base}/v1/verification-links`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(linkBody(to)) });
        if (r.status === 429) {
          await sleep(Number(r.headers.get('retry-after') ?? '1') * 1000);
          continue;
        }
        expect(r.status).toBe(201);
        return;
      }
    };
    const to = (i: number) => `person.${i}@example.com`;
    // 24 emails: 8 before, 8 during a 7-second outage, 8 after; through both processes in turn.
    for (let i = 0; i < 8; i++) await create(i % 2 ? a.url : b.url, to(i));
    await smtp.stop();
    for (let i = 8; i < 16; i++) await create(i % 2 ? a.url : b.url, to(i));
    await sleep(7_000);
    await smtp.start();
    for (let i = 16; i < 24; i++) await create(i % 2 ? a.url : b.url, to(i));
    const all = Array.from({ length: 24 }, (_, i) => to(i));
    await until('every email', () => all.every((t) => smtp.count(t) >= 1), 120_000);
    await sleep(3_000);
    expect(all.map((t) => [t, smtp.count(t)])).toEqual(all.map((t) => [t, 1]));
    // Distinct Message-IDs: not one email sent twice under two ids either.
    expect(new Set(smtp.arrivals.map((x) => x.messageId)).size).toBe(24);
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      const { rows } = await c.query<{ status: string; n: string }>('select status, count(*) as n from emails group by status');
      expect(rows.map((r) => [r.status, Number(r.n)])).toEqual([['sent', 24]]);
    } finally {
      await c.end();
    }
  });
});
