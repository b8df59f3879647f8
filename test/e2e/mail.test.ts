/**
 * Emails end to end (docs/emails.md):
 * - through a real SMTP server on loopback (the `smtp-server` package, AUTH required), read back with `mailparser`:
 *   the link email in es/en/pt/fr, the results summary, the envelope and the login; refusals (wrong password, 5xx and
 *   4xx replies, no TLS when require_tls) and an unreachable or silent server as clear MailErrors saying whether a
 *   retry may help, never with the password;
 * - without SMTP, the local outbox and the operator's CLI (`outbox list`, `outbox show`), run as the real command;
 * - a bad COTEJO_SMTP_URL stops the server's start and the CLI with a message that names it, not the password.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerAddress } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock.ts';
import { loadConfig, type Config } from '../../server/src/config.ts';
import {
  MailError,
  closeMailer,
  createMailer,
  linkEmail,
  resultsEmail,
  transmitMail,
  setMailer,
  type LinkEmailArgs,
  type ResultsEmailArgs,
} from '../../server/src/mail/index.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = process.execPath;
const USER = 'mailer@cotejo.test';
const PASSWORD = 'p@ss w0rd:Secr3t';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-mail-e2e-'));
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Arrival {
  user: string | undefined;
  from: string;
  to: string[];
  mail: ParsedMail;
}

/** A real SMTP server on 127.0.0.1: AUTH required (PLAIN/LOGIN, allowed without TLS on loopback), no STARTTLS. */
async function startSmtp(): Promise<{ port: number; arrivals: Arrival[] }> {
  const arrivals: Arrival[] = [];
  const server = new SMTPServer({
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    onAuth(auth, _session, cb) {
      if (auth.username === USER && auth.password === PASSWORD) cb(null, { user: auth.username });
      else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      // Two mailboxes that refuse: one for good (550), one for now (452).
      if (address.address.startsWith('refuse@')) cb(Object.assign(new Error('No such user'), { responseCode: 550 }));
      else if (address.address.startsWith('full@')) cb(Object.assign(new Error('Mailbox full, try later'), { responseCode: 452 }));
      else cb();
    },
    onData(stream, session, cb) {
      simpleParser(stream).then(
        (mail) => {
          const env = session.envelope;
          arrivals.push({ user: session.user as string | undefined, from: (env.mailFrom as SMTPServerAddress).address, to: env.rcptTo.map((r) => r.address), mail });
          cb();
        },
        (err) => cb(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as net.AddressInfo).port, arrivals };
}

function smtpServices(port: number, password = PASSWORD, extra = '') {
  const config: Config = {
    ...loadConfig({
      COTEJO_SMTP_URL: `smtp://${encodeURIComponent(USER)}:${encodeURIComponent(password)}@127.0.0.1:${port}${extra}`,
      COTEJO_MAIL_FROM: 'Cotejo Verificación <no-reply@cotejo.test>',
    }),
    dataDir: path.join(tmp, 'smtp-data'),
  };
  const s = { config, clock: systemClock };
  closers.push(() => closeMailer(s));
  return s;
}

const LOCALES = ['es', 'en', 'pt', 'fr'] as const;
const SUBJECTS = {
  es: 'Acme <Seguros> & Co te pide verificar tus documentos',
  en: 'Acme <Seguros> & Co asks you to verify your documents',
  pt: 'Acme <Seguros> & Co pede-lhe que verifique os seus documentos',
  fr: 'Acme <Seguros> & Co vous demande de vérifier vos documents',
};
const linkArgs = (locale: LinkEmailArgs['locale']): LinkEmailArgs => ({
  requester: 'Acme <Seguros> & Co',
  url: `https://verify.cotejo.test/l/tok_${locale}_4f9a8b7c6d5e`,
  expires_at: '2026-11-27T10:00:00Z',
  documents: [{ label: 'DNI' }, { label: 'Nómina <última>' }],
  locale,
});

describe('emails through a real SMTP server on loopback', { timeout: 60_000 }, () => {
  let port = 0;
  let arrivals: Arrival[] = [];
  beforeAll(async () => {
    ({ port, arrivals } = await startSmtp());
  });

  it.each(LOCALES)('the link email in %s arrives, after login, from the configured sender, with text and escaped HTML', async (locale) => {
    const s = smtpServices(port);
    const to = `persona.${locale}@example.com`;
    const { id } = await transmitMail(s, { ...linkEmail(linkArgs(locale)), to, headers: { 'X-Cotejo-Link': `vl_${locale}` } });
    const got = arrivals.find((a) => a.to.includes(to));
    expect(got, 'arrived').toBeDefined();
    const { mail } = got!;
    expect(got).toMatchObject({ user: USER, from: 'no-reply@cotejo.test', to: [to] });
    expect(mail.from?.value).toEqual([{ name: 'Cotejo Verificación', address: 'no-reply@cotejo.test' }]);
    expect(mail.to).toMatchObject({ value: [{ address: to }] });
    expect(mail.subject).toBe(SUBJECTS[locale]);
    expect(mail.messageId).toBe(`<${id}@cotejo.test>`);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.headers.get('x-cotejo-link')).toBe(`vl_${locale}`);
    // What arrived is exactly what the builder made (the builder's words are checked in test/unit/mail/messages.test.ts).
    const built = linkEmail(linkArgs(locale));
    expect(mail.text).toBe(built.text);
    expect(mail.text).toContain(`\nhttps://verify.cotejo.test/l/tok_${locale}_4f9a8b7c6d5e\n`);
    expect(mail.text).toContain('  - Nómina <última>\n');
    expect(mail.html).toBe(built.html);
    expect(mail.html).toContain('Acme &lt;Seguros&gt; &amp; Co');
    expect(mail.html).toContain('<li>Nómina &lt;última&gt;</li>');
    expect(mail.html).not.toMatch(/<Seguros>|<última>|<img|\ssrc=/);
    expect(mail.attachments).toEqual([]);
  });

  it('the results email: the summary and nothing more (no document data), in the link locale', async () => {
    const s = smtpServices(port);
    const args: ResultsEmailArgs = {
      requester: 'Acme',
      reference: 'ALTA-77',
      link_id: 'vl_01JD0000000000000000000000',
      status: 'completed',
      dossier_verdict_status: 'review',
      documents: [
        { label: 'DNI', outcome: 'accepted' },
        { label: 'Justificante de domicilio', outcome: 'rejected' },
      ],
      completed_at: '2026-11-25T09:30:00Z',
      locale: 'pt',
    };
    await transmitMail(s, { ...resultsEmail(args), to: 'ops@acme.example' });
    const { mail } = arrivals.find((a) => a.to.includes('ops@acme.example'))!;
    expect(mail.subject).toBe('Verificação concluída: ALTA-77');
    expect(mail.text).toBe(
      [
        'Resumo da verificação pedida por Acme.',
        '',
        'Link de verificação: vl_01JD0000000000000000000000',
        'Referência: ALTA-77',
        'Estado: concluído (25 de novembro de 2026 às 09:30 UTC)',
        'Resultado global: precisa de revisão humana',
        '',
        'Documentos:',
        '  - DNI: aceite',
        '  - Justificante de domicilio: não aceite (sem tentativas restantes)',
        '',
        '-- ',
        'Este resumo não contém dados dos documentos. Os detalhes estão na API: GET /v1/verification-links/vl_01JD0000000000000000000000',
        '',
      ].join('\n'),
    );
    expect(mail.html).toBe(resultsEmail(args).html);
    expect(mail.attachments).toEqual([]);
  });

  it('a wrong password: EAUTH, not transient, and the message does not repeat the password', async () => {
    const wrong = 'Wr0ng-Secr3t-Value';
    const s = smtpServices(port, wrong);
    const before = arrivals.length;
    const err = (await transmitMail(s, { to: 'a@example.com', subject: 's', text: 't' }).catch((e: unknown) => e)) as MailError;
    expect(err).toBeInstanceOf(MailError);
    expect(err).toMatchObject({ code: 'EAUTH', responseCode: 535, transient: false, via: 'smtp' });
    expect(err.message).toContain(`could not send the email through smtp://${encodeURIComponent(USER)}@127.0.0.1:${port}:`);
    expect(err.message).not.toContain(wrong);
    expect(arrivals.length).toBe(before);
  });

  it('a refused recipient: 550 is final, 452 may pass later', async () => {
    const s = smtpServices(port);
    await expect(transmitMail(s, { to: 'refuse@example.com', subject: 's', text: 't' })).rejects.toMatchObject({ name: 'MailError', code: 'EENVELOPE', responseCode: 550, transient: false });
    await expect(transmitMail(s, { to: 'full@example.com', subject: 's', text: 't' })).rejects.toMatchObject({ name: 'MailError', code: 'EENVELOPE', responseCode: 452, transient: true });
  });

  it('require_tls=true: a server without STARTTLS gets nothing, not even the login', async () => {
    const s = smtpServices(port, PASSWORD, '?require_tls=true');
    const before = arrivals.length;
    const err = (await transmitMail(s, { to: 'a@example.com', subject: 's', text: 't' }).catch((e: unknown) => e)) as MailError;
    expect(err).toBeInstanceOf(MailError);
    expect(err.transient).toBe(false);
    expect(err.message).toMatch(/STARTTLS/i);
    expect(err.message).not.toContain(PASSWORD);
    expect(arrivals.length).toBe(before);
  });
});

describe('SMTP unreachable or silent: a clear error at once, never a hang', { timeout: 60_000 }, () => {
  it('nothing listens on the port: a connection error, transient, naming the server but not the password', async () => {
    // A port that was free a moment ago: listen, note it, close.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const s = smtpServices(port);
    const err = (await transmitMail(s, { ...linkEmail(linkArgs('en')), to: 'a@example.com' }).catch((e: unknown) => e)) as MailError;
    expect(err).toBeInstanceOf(MailError);
    expect(err).toMatchObject({ transient: true, via: 'smtp' });
    expect(['ECONNECTION', 'ESOCKET']).toContain(err.code);
    expect(err.message).toMatch(new RegExp(`^could not send the email through smtp://mailer%40cotejo\\.test@127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    expect(err.message).not.toContain(PASSWORD);
    expect(err.message).not.toContain(encodeURIComponent(PASSWORD));
  });

  it('a server that accepts and never greets: the greeting timeout ends it (ETIMEDOUT, transient)', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          for (const so of sockets) so.destroy();
          silent.close(() => r());
        }),
    );
    const s = smtpServices((silent.address() as net.AddressInfo).port);
    setMailer(s, createMailer(s.config, { greetingMs: 500 }));
    await expect(transmitMail(s, { to: 'a@example.com', subject: 's', text: 't' })).rejects.toMatchObject({ name: 'MailError', code: 'ETIMEDOUT', transient: true });
  });
});

describe('no SMTP configured: the local outbox and the CLI', { timeout: 120_000 }, () => {
  const dataDir = path.join(tmp, 'outbox-data');
  const cli = (args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(NODE, ['server/src/cli.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', COTEJO_SMTP_URL: '', COTEJO_MAIL_FROM: '', COTEJO_DATA_DIR: dataDir, ...env },
      encoding: 'utf8',
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const ids: string[] = [];

  it('emails are written, and `outbox list` shows them newest first (text and --json, --limit)', async () => {
    const empty = cli(['outbox', 'list']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe(`The outbox ${path.join(dataDir, 'outbox')} is empty.\n`);

    const s = { config: { ...loadConfig({}), dataDir }, clock: systemClock };
    closers.push(() => closeMailer(s));
    ids.push((await transmitMail(s, { ...linkEmail(linkArgs('fr')), to: 'camille@example.fr' })).id);
    ids.push((await transmitMail(s, { to: 'ops@acme.example', subject: 'Second', text: 'two\n' })).id);
    expect(fs.readdirSync(path.join(dataDir, 'outbox')).sort()).toEqual([`${ids[0]}.eml`, `${ids[0]}.json`, `${ids[1]}.eml`, `${ids[1]}.json`].sort());

    const json = cli(['outbox', 'list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout);
    expect(listed).toMatchObject({ outbox: path.join(dataDir, 'outbox'), total: 2 });
    expect(listed.emails.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[0]]);
    expect(listed.emails[1]).toMatchObject({ to: 'camille@example.fr', subject: SUBJECTS.fr, from: 'Cotejo <no-reply@localhost>' });
    expect(listed.emails[1].created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const text = cli(['outbox', 'list']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${ids[1]}  \\S+  ops@acme\\.example  Second$`));
    expect(lines[1]).toContain(`${ids[0]}  `);
    expect(lines[1]).toContain(`camille@example.fr  ${SUBJECTS.fr}`);
    expect(lines[2]).toContain('2 of 2 in');

    const one = JSON.parse(cli(['outbox', 'list', '--limit', '1', '--json']).stdout);
    expect(one.total).toBe(2);
    expect(one.emails.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
  });

  it('`outbox show` prints one email (headers, text, the .eml path); errors are plain', () => {
    const shown = cli(['outbox', 'show', ids[0]]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`Id:         ${ids[0]}\n`);
    expect(shown.stdout).toContain('To:         camille@example.fr\n');
    expect(shown.stdout).toContain(`Subject:    ${SUBJECTS.fr}\n`);
    expect(shown.stdout).toContain(`File:       ${path.join(dataDir, 'outbox', `${ids[0]}.eml`)}\n`);
    expect(shown.stdout).toContain('\nhttps://verify.cotejo.test/l/tok_fr_4f9a8b7c6d5e\n');
    expect(shown.stdout).toContain("Le lien est valable jusqu'au 27 novembre 2026 à 10:00 UTC.");
    const asJson = JSON.parse(cli(['outbox', 'show', ids[0], '--json']).stdout);
    expect(asJson).toMatchObject({ id: ids[0], to: 'camille@example.fr', text: linkEmail(linkArgs('fr')).text });

    const missing = cli(['outbox', 'show', 'mail_01JD0000000000000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^cotejo: no email mail_01JD0000000000000000000000 in the outbox /);
    expect(cli(['outbox', 'show']).stderr).toContain('missing the email id');
    const badLimit = cli(['outbox', 'list', '--limit', '0']);
    expect(badLimit.code).toBe(1);
    expect(badLimit.stderr).toBe('cotejo: --limit must be an integer from 1 to 10000\n');
    const unknown = cli(['outbox', 'send']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('cotejo: unknown command "outbox send"');
    expect(cli(['--help']).stdout).toContain('outbox list [--limit N] [--json]');
  });

  it('with SMTP configured, `outbox list` says where new emails go (no password)', () => {
    const r = cli(['outbox', 'list'], { COTEJO_SMTP_URL: `smtp://u:${encodeURIComponent(PASSWORD)}@127.0.0.1:2525`, COTEJO_MAIL_FROM: 'a@b.example' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(COTEJO_SMTP_URL is set: new emails go to smtp://u@127.0.0.1:2525, not here.)');
    expect(r.stdout).not.toContain('w0rd');
  });
});

describe('a bad COTEJO_SMTP_URL stops the start', { timeout: 120_000 }, () => {
  const SECRET = 'Hunter2-Secr3t';
  const env = { ...process.env, DATABASE_URL: '', PORT: '0', LOG_LEVEL: 'silent', COTEJO_DATA_DIR: path.join(tmp, 'bad-config'), COTEJO_SMTP_URL: `smtps://u:${SECRET}@mail.example.com/inbox`, COTEJO_MAIL_FROM: '' };

  it('the server: exit 1, every problem named, the password nowhere', () => {
    const r = spawnSync(NODE, ['server/src/main.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 100_000 });
    expect(r.status).toBe(1);
    const all = r.stdout + r.stderr;
    expect(all).toContain('COTEJO_SMTP_URL must not have a path');
    expect(all).toContain('COTEJO_MAIL_FROM must be set when COTEJO_SMTP_URL is');
    expect(all).not.toContain(SECRET);
  });

  it('the CLI: the same', () => {
    const r = spawnSync(NODE, ['server/src/cli.ts', 'outbox', 'list'], { cwd: ROOT, env, encoding: 'utf8', timeout: 100_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('COTEJO_SMTP_URL must not have a path');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });
});
