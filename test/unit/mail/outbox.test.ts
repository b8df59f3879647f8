/**
 * The transport without SMTP (the embedded default; the shared outbox's sender, mail/queue.ts, hands each queued
 * email to it in the process that claimed it): every email lands in `<dataDir>/outbox` as an .eml (the exact
 * message) and a .json record, private to the service's user; the listing is newest first. Bad recipients and headers
 * are refused before anything is written, logs never hold the recipient or the body, and a mailer can be injected.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../server/src/clock.ts';
import { loadConfig } from '../../../server/src/config.ts';
import { MailError, closeMailer, linkEmail, mailerOf, resultsEmail, setMailer, transmitMail, type MailMessage, type OutgoingMail } from '../../../server/src/mail/index.ts';
import { listOutbox, outboxDir, readOutbox } from '../../../server/src/mail/outbox.ts';
import type { Services } from '../../../server/src/http/context.ts';
import type { MailServices } from '../../../server/src/mail/index.ts';

// Compile time (npm run typecheck): the server's Services is what sendMail, sendLinkEmail and sendResultsEmail take.
const servicesFit: Services extends MailServices ? true : never = true;
void servicesFit;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-outbox-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function services(dir: string) {
  const lines: string[] = [];
  // What the service's pino logger would be given, as JSON.
  const record = (obj: object, msg: string) => void lines.push(JSON.stringify({ ...obj, msg }));
  const logger = { info: record, warn: record };
  return { s: { config: { ...loadConfig({}), dataDir: dir }, clock: new ManualClock('2026-11-24T10:00:00Z'), logger }, lines };
}

describe('the local outbox', () => {
  const dir = path.join(tmp, 'a');
  const { s, lines } = services(dir);
  const ids: string[] = [];

  it('writes the message (.eml, exactly what SMTP would carry) and its record (.json), private to the service', async () => {
    expect(mailerOf(s).via).toBe('outbox');
    const { id } = await transmitMail(s, {
      ...linkEmail({ requester: 'Acme', url: 'https://verify.example/l/secret-token-1', expires_at: '2026-11-27T10:00:00Z', documents: [{ label: 'DNI' }], locale: 'es' }),
      to: 'ana@example.com',
      headers: { 'X-Cotejo-Link': 'vl_1' },
    });
    ids.push(id);
    expect(id).toMatch(/^mail_[0-9A-HJKMNP-TV-Z]{26}$/);
    const out = outboxDir(dir);
    expect(fs.statSync(out).mode & 0o777).toBe(0o700);
    for (const ext of ['eml', 'json']) expect(fs.statSync(path.join(out, `${id}.${ext}`)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(out).sort()).toEqual([`${id}.eml`, `${id}.json`]);

    const raw = fs.readFileSync(path.join(out, `${id}.eml`));
    expect(raw.toString('latin1')).toContain('\r\n');
    const parsed = await simpleParser(raw);
    expect(parsed.to).toMatchObject({ text: 'ana@example.com' });
    expect(parsed.from).toMatchObject({ value: [{ name: 'Cotejo', address: 'no-reply@localhost' }] });
    expect(parsed.subject).toBe('Acme te pide verificar tus documentos');
    expect(parsed.messageId).toBe(`<${id}@localhost>`);
    expect(parsed.date?.toISOString()).toBe('2026-11-24T10:00:00.000Z');
    expect(parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(parsed.headers.get('x-cotejo-link')).toBe('vl_1');
    expect(parsed.text).toContain('https://verify.example/l/secret-token-1');
    expect(parsed.html).toContain('href="https://verify.example/l/secret-token-1"');

    const entry = await readOutbox(out, id);
    expect(entry).toMatchObject({ id, created_at: '2026-11-24T10:00:00.000Z', from: 'Cotejo <no-reply@localhost>', to: 'ana@example.com', subject: parsed.subject, message_id: `<${id}@localhost>` });
    expect(entry!.text).toBe(parsed.text);
    expect(entry!.eml_path).toBe(path.join(out, `${id}.eml`));
  });

  it('lists newest first, with a limit; unknown or malformed ids are not found', async () => {
    s.clock.advance(60_000);
    ids.push(
      (await transmitMail(s, {
        to: 'ops@acme.example',
        ...resultsEmail({
        requester: 'Acme',
        reference: 'REF-1',
        link_id: 'vl_1',
        status: 'completed',
        dossier_verdict_status: 'review',
        documents: [{ label: 'DNI', outcome: 'accepted' }],
        completed_at: s.clock.now(),
        locale: 'en',
        }),
      })).id,
    );
    s.clock.advance(60_000);
    ids.push((await transmitMail(s, { to: 'x@acme.example', subject: 'Third', text: 'hello\n' })).id);
    const out = outboxDir(dir);
    const all = await listOutbox(out, 100);
    expect(all.total).toBe(3);
    expect(all.emails.map((e) => e.id)).toEqual([...ids].reverse());
    expect(all.emails[1]).toEqual({ id: ids[1], created_at: '2026-11-24T10:01:00.000Z', from: 'Cotejo <no-reply@localhost>', to: 'ops@acme.example', subject: 'Verification completed: REF-1' });
    expect((await listOutbox(out, 1)).emails.map((e) => e.id)).toEqual([ids[2]]);
    expect(await readOutbox(out, 'mail_01JD0000000000000000000000')).toBeNull();
    expect(await readOutbox(out, '../../etc/passwd')).toBeNull();
    // A leftover temporary file or a stray file is not an email.
    fs.writeFileSync(path.join(out, 'notes.json'), '{}');
    expect((await listOutbox(out, 100)).total).toBe(3);
    expect(await listOutbox(path.join(tmp, 'nowhere'), 10)).toEqual({ total: 0, emails: [] });
  });

  it('logs the mail id and where it went, never the recipient, the subject or the body (the URL is a credential)', () => {
    const logged = lines.join('');
    for (const id of ids) expect(logged).toContain(id);
    expect(logged).toContain('email written to the local outbox');
    for (const secret of ['ana@example.com', 'secret-token-1', 'ops@acme.example', 'te pide']) expect(logged).not.toContain(secret);
  });

  it('refuses a bad recipient or header before writing anything', async () => {
    const before = fs.readdirSync(outboxDir(dir)).length;
    const bad: [MailMessage, RegExp][] = [
      [{ to: 'ana@example.com\r\nBcc: all@example.com', subject: 's', text: 't' }, /one recipient address/],
      [{ to: 'a@example.com, b@example.com', subject: 's', text: 't' }, /one recipient address/],
      [{ to: '', subject: 's', text: 't' }, /one recipient address/],
      [{ to: 'a@example.com', subject: 'two\r\nlines', text: 't' }, /subject must be one non-empty line/],
      [{ to: 'a@example.com', subject: 's', text: '' }, /needs a text body/],
      [{ to: 'a@example.com', subject: 's', text: 't', headers: { Bcc: 'all@example.com' } }, /header "Bcc" cannot be set/],
      [{ to: 'a@example.com', subject: 's', text: 't', headers: { 'X Bad': 'v' } }, /cannot be set/],
      [{ to: 'a@example.com', subject: 's', text: 't', headers: { 'X-Ok': 'v\r\nBcc: all@example.com' } }, /must be one line/],
    ];
    for (const [msg, re] of bad) {
      const err = await transmitMail(s, msg).catch((e: unknown) => e);
      expect(err, JSON.stringify(msg)).toBeInstanceOf(MailError);
      expect((err as MailError).message).toMatch(re);
      expect(err).toMatchObject({ code: 'EINVALID', transient: false, via: 'outbox' });
    }
    expect(fs.readdirSync(outboxDir(dir)).length).toBe(before);
  });

  it('an outbox that cannot be written is an error (transient), not a lost email', async () => {
    const blocked = path.join(tmp, 'blocked');
    fs.writeFileSync(blocked, 'a file where the data dir should be');
    const { s: t } = services(blocked);
    const err = await transmitMail(t, { to: 'a@example.com', subject: 's', text: 't' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MailError);
    expect(err).toMatchObject({ code: 'EOUTBOX', transient: true, via: 'outbox' });
    expect((err as Error).message).toContain(`could not write the email to the outbox ${path.join(blocked, 'outbox')}`);
    closeMailer(t);
  });
});

describe('injecting a mailer', () => {
  it('setMailer replaces the configured transport (the caller sees what was sent and its failures)', async () => {
    const { s } = services(path.join(tmp, 'b'));
    const sent: OutgoingMail[] = [];
    setMailer(s, { via: 'smtp', describe: 'recorder', async send(m) { sent.push(m); }, close() {} });
    const { id } = await transmitMail(s, { to: 'a@example.com', subject: 'Hi', text: 'x' });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ id, to: 'a@example.com', subject: 'Hi', from: { name: 'Cotejo', address: 'no-reply@localhost' }, messageId: `<${id}@localhost>` });
    setMailer(s, { via: 'smtp', describe: 'down', async send() { throw new Error('boom'); }, close() {} });
    await expect(transmitMail(s, { to: 'a@example.com', subject: 'Hi', text: 'x' })).rejects.toMatchObject({ name: 'MailError', code: 'EMAIL', message: 'could not send the email: boom' });
    expect(fs.existsSync(path.join(tmp, 'b'))).toBe(false);
    closeMailer(s);
    // Closed: the next send makes the configured one again (the outbox).
    expect(mailerOf(s).via).toBe('outbox');
  });

  it('a changed configuration gets a new transport, not the stale one', () => {
    const { s } = services(path.join(tmp, 'c'));
    const first = mailerOf(s);
    expect(mailerOf(s)).toBe(first);
    s.config = { ...s.config, ...loadConfig({ COTEJO_SMTP_URL: 'smtp://127.0.0.1:2525', COTEJO_MAIL_FROM: 'a@b.example' }) };
    expect(mailerOf(s).via).toBe('smtp');
    expect(mailerOf(s).describe).toBe('smtp://127.0.0.1:2525');
    closeMailer(s);
  });
});
