/**
 * Sending email (docs/emails.md). Every email is first a row of the shared outbox, the `emails` table (`sendMail`,
 * in the transaction that causes it when there is one), so that it survives a crash and every process sharing the
 * database sees it; then a worker of any one process sends it (queue.ts, exactly once: rows are claimed with
 * `FOR UPDATE SKIP LOCKED`) through the SMTP server of COTEJO_SMTP_URL (nodemailer), retrying with backoff while the
 * server is away, or, with none configured, writes it to its own outbox directory under the data dir (outbox.ts). The
 * CLI (`emails list`, `emails show`) reads the table. A reaction may follow an email once it went out
 * (`onEmailSent`: a link's `sent` event is recorded then, never before).
 *
 * The transport is made once per `Services` (on first use) and reused; tests may put their own with `setMailer`.
 * Nothing here knows about verification links' tables: `sendLinkEmail` and `sendResultsEmail` take plain data.
 */
import { monotonicFactory } from 'ulid';
import type Nodemailer from 'nodemailer';
import type { Kysely, Transaction } from 'kysely';
import { recordEmail } from '../db/emails.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../clock.ts';
import type { Config, SmtpConfig } from '../config.ts';
import { formatMailbox, isEmailAddress, type Mailbox } from './address.ts';
import { linkEmail, resultsEmail, type LinkEmailArgs, type ResultsEmailArgs } from './messages.ts';
import { outboxDir, writeToOutbox } from './outbox.ts';

export { linkEmail, resultsEmail, escapeHtml, formatEmailDate } from './messages.ts';
export type { BuiltEmail, LinkEmailArgs, ResultsEmailArgs, ResultsOutcome, DossierVerdictStatus } from './messages.ts';
export { isEmailAddress } from './address.ts';

/** One email to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (e.g. `X-Cotejo-Link`); names of letters, digits and `-`, values of one line. */
  headers?: Record<string, string>;
}

/** What sendMail needs of the services: a subset, so the CLI and tests can call it without a whole server. */
export type MailServices = TransportServices & { db: Kysely<DB> };
/** What handing an email to the transport needs (no database): the sender, and the transport's own tests. */
export type TransportServices = { config: Pick<Config, 'smtp' | 'mailFrom' | 'dataDir'>; clock: Clock; logger?: MailLogger };
/** The two calls made of the service's pino logger. */
export interface MailLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class MailError extends Error {
  /** nodemailer's code (`ECONNECTION`, `ETIMEDOUT`, `EAUTH`, `EENVELOPE`...), `EOUTBOX` or `EINVALID`. */
  readonly code: string;
  /** The SMTP reply code when the server answered with a refusal. */
  readonly responseCode: number | null;
  /** True when the same email may go through later (server unreachable, timeouts, 4xx replies, a full disk). */
  readonly transient: boolean;
  readonly via: 'smtp' | 'outbox';
  constructor(message: string, opts: { code: string; responseCode?: number | null; transient: boolean; via: 'smtp' | 'outbox' }) {
    super(message);
    this.name = 'MailError';
    this.code = opts.code;
    this.responseCode = opts.responseCode ?? null;
    this.transient = opts.transient;
    this.via = opts.via;
  }
}

/** A ready message: what the transport gets. */
export interface OutgoingMail extends MailMessage {
  id: string;
  from: Mailbox;
  date: Date;
  messageId: string;
}

export interface Mailer {
  readonly via: 'smtp' | 'outbox';
  /** Where emails go, for logs and the start banner: `smtp://user@host:587` or the outbox directory. No password. */
  readonly describe: string;
  send(mail: OutgoingMail): Promise<void>;
  /** Lets go of the transport's resources (nothing stays open between sends; safe to call twice). */
  close(): void;
}

/** Bounds on every SMTP step: a server that hangs costs the caller at most this long, never forever. */
export interface SmtpTimeouts {
  connectionMs: number;
  greetingMs: number;
  socketMs: number;
  dnsMs: number;
}
export const SMTP_TIMEOUTS: SmtpTimeouts = { connectionMs: 10_000, greetingMs: 10_000, socketMs: 30_000, dnsMs: 10_000 };

// Mail ids: `mail_` + ULID, like every id of the service (they are internal: only the CLI and logs show them).
const nextUlid = monotonicFactory();
function newMailId(now: Date): string {
  return `mail_${nextUlid(now.getTime())}`;
}

/** Removes the password (and its percent-encoded form) from anything that could be shown. */
function scrub(text: string, smtp: SmtpConfig | null): string {
  let out = text;
  if (smtp?.password) {
    for (const secret of new Set([smtp.password, encodeURIComponent(smtp.password)])) out = out.split(secret).join('[redacted]');
  }
  return out;
}

function isTransient(err: { code?: string; responseCode?: number }): boolean {
  if (typeof err.responseCode === 'number' && err.responseCode >= 400) return err.responseCode < 500 || err.responseCode === 503;
  return ['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(err.code ?? '');
}

// nodemailer loads with the first email, not with the server: most processes send none for a long while.
let nodemailerModule: Promise<typeof Nodemailer> | null = null;
const loadNodemailer = (): Promise<typeof Nodemailer> => (nodemailerModule ??= import('nodemailer').then((m) => m.default));
type Transport = ReturnType<typeof Nodemailer.createTransport>;

function smtpMailer(smtp: SmtpConfig, timeouts: SmtpTimeouts): Mailer {
  // Not pooled: one connection per email, closed after it. Emails are few (one per link, one per result), and
  // nothing then stays open between them or at shutdown.
  let transport: Transport | null = null;
  const make = (nodemailer: typeof Nodemailer): Transport => nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: smtp.requireTls,
    auth: smtp.user !== null ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    connectionTimeout: timeouts.connectionMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    dnsTimeout: timeouts.dnsMs,
    tls: { minVersion: 'TLSv1.2' },
    // Messages are built from strings only: nodemailer must never read a file or fetch a URL for one.
    disableFileAccess: true,
    disableUrlAccess: true,
    // nodemailer's own logger could print the conversation (AUTH included): off.
    logger: false,
    debug: false,
  });
  return {
    via: 'smtp',
    describe: smtp.display,
    async send(mail) {
      try {
        transport ??= make(await loadNodemailer());
        await transport.sendMail(nodemailerMessage(mail));
      } catch (e) {
        const err = e as Error & { code?: string; responseCode?: number };
        const code = err.code ?? 'ESMTP';
        throw new MailError(`could not send the email through ${smtp.display}: ${scrub(err.message, smtp)}${code && !err.message.includes(code) ? ` (${code})` : ''}`, {
          code,
          responseCode: err.responseCode ?? null,
          transient: isTransient(err),
          via: 'smtp',
        });
      }
    },
    close() {
      transport?.close();
    },
  };
}

function outboxMailer(dataDir: string): Mailer {
  const dir = outboxDir(dataDir);
  // The same composer as SMTP: the .eml is byte for byte the message a server would have received.
  let composer: Transport | null = null;
  return {
    via: 'outbox',
    describe: `local outbox ${dir}`,
    async send(mail) {
      try {
        composer ??= (await loadNodemailer()).createTransport({ streamTransport: true, buffer: true, newline: 'windows', disableFileAccess: true, disableUrlAccess: true });
        const info = await composer.sendMail(nodemailerMessage(mail));
        await writeToOutbox(
          dir,
          { id: mail.id, created_at: mail.date.toISOString(), from: formatMailbox(mail.from), to: mail.to, subject: mail.subject, message_id: mail.messageId, text: mail.text },
          info.message as Buffer,
        );
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        throw new MailError(`could not write the email to the outbox ${dir}: ${err.message}`, { code: 'EOUTBOX', transient: true, via: 'outbox' });
      }
    },
    close() {
      composer?.close();
    },
  };
}

function nodemailerMessage(mail: OutgoingMail) {
  return {
    from: { name: mail.from.name ?? '', address: mail.from.address },
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    date: mail.date,
    messageId: mail.messageId,
    headers: {
      // RFC 3834: machine-made; auto-responders (vacation replies) should not answer it.
      'Auto-Submitted': 'auto-generated',
      ...mail.headers,
    },
  };
}

/** The mailer the configuration asks for: SMTP when COTEJO_SMTP_URL is set, else the outbox under the data dir. */
export function createMailer(config: Pick<Config, 'smtp' | 'dataDir'>, timeouts: Partial<SmtpTimeouts> = {}): Mailer {
  return config.smtp ? smtpMailer(config.smtp, { ...SMTP_TIMEOUTS, ...timeouts }) : outboxMailer(config.dataDir);
}

/** Where emails go under this configuration, in words (for a start banner or a log line). */
export function describeMail(config: Pick<Config, 'smtp' | 'dataDir'>): string {
  return config.smtp ? `emails through ${config.smtp.display}` : `emails to the local outbox ${outboxDir(config.dataDir)} (no COTEJO_SMTP_URL; list them: npm run -s cotejo -- outbox list)`;
}

// One mailer per services object, made on first use. It remembers the settings it was made from: a test that swaps
// `config.smtp` afterwards gets a new one rather than the stale transport.
const mailers = new WeakMap<object, { mailer: Mailer; injected: boolean; smtp: SmtpConfig | null; dataDir: string }>();

/** Puts a mailer of the caller's own (tests: a failing or recording one) in place of the configured one. */
export function setMailer(s: TransportServices, mailer: Mailer): void {
  mailers.get(s)?.mailer.close();
  mailers.set(s, { mailer, injected: true, smtp: null, dataDir: '' });
}

export function mailerOf(s: TransportServices): Mailer {
  const held = mailers.get(s);
  if (held && (held.injected || (held.smtp === s.config.smtp && held.dataDir === s.config.dataDir))) return held.mailer;
  held?.mailer.close();
  const mailer = createMailer(s.config);
  mailers.set(s, { mailer, injected: false, smtp: s.config.smtp, dataDir: s.config.dataDir });
  return mailer;
}

/** Closes the mailer of these services, if one was made (at shutdown; a later send makes a new one). */
export function closeMailer(s: TransportServices): void {
  mailers.get(s)?.mailer.close();
  mailers.delete(s);
}

const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/;
// Headers the message itself sets: a caller's extra headers cannot replace them.
const RESERVED = new Set(['from', 'to', 'cc', 'bcc', 'reply-to', 'sender', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'content-transfer-encoding', 'auto-submitted']);

function invalid(message: string, via: 'smtp' | 'outbox'): MailError {
  return new MailError(message, { code: 'EINVALID', transient: false, via });
}

/** A message checked (throws MailError EINVALID otherwise), its recipient trimmed and its headers copied. */
function checked(msg: MailMessage, via: 'smtp' | 'outbox'): MailMessage & { headers: Record<string, string> } {
  const to = typeof msg.to === 'string' ? msg.to.trim() : '';
  if (!isEmailAddress(to)) throw invalid('the email needs one recipient address (local@domain)', via);
  if (typeof msg.subject !== 'string' || /[\r\n]/.test(msg.subject) || msg.subject.trim() === '') throw invalid('the email subject must be one non-empty line', via);
  if (typeof msg.text !== 'string' || msg.text === '') throw invalid('the email needs a text body', via);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(msg.headers ?? {})) {
    if (!HEADER_NAME.test(name) || RESERVED.has(name.toLowerCase())) throw invalid(`the header "${name.slice(0, 80)}" cannot be set`, via);
    if (typeof value !== 'string' || /[\r\n]/.test(value) || value.length > 900) throw invalid(`the header ${name} must be one line of at most 900 characters`, via);
    headers[name] = value;
  }
  return { to, subject: msg.subject, text: msg.text, html: msg.html, headers };
}

/**
 * Hands one email to the transport now (SMTP, or this process's outbox directory without it). Throws MailError when
 * it could not, with `transient` saying whether trying later may help. The sender of the shared outbox (queue.ts)
 * calls it for each queued email; tests of the transport call it directly. The recipient and the body never reach
 * the logs.
 */
export async function transmitMail(s: TransportServices, msg: MailMessage, id?: string, date?: Date): Promise<{ id: string; via: 'smtp' | 'outbox' }> {
  const mailer = mailerOf(s);
  const m = checked(msg, mailer.via);
  date ??= s.clock.now();
  id ??= newMailId(date);
  const from = s.config.mailFrom;
  const domain = from.address.slice(from.address.lastIndexOf('@') + 1);
  try {
    await mailer.send({ id, from, ...m, date, messageId: `<${id}@${domain}>` });
  } catch (err) {
    const e = err instanceof MailError ? err : new MailError(`could not send the email: ${scrub(String((err as Error)?.message ?? err), s.config.smtp)}`, { code: 'EMAIL', transient: true, via: mailer.via });
    s.logger?.warn({ mail_id: id, via: e.via, code: e.code, response_code: e.responseCode, transient: e.transient, err: e.message }, 'email not sent');
    throw e;
  }
  s.logger?.info({ mail_id: id, via: mailer.via }, mailer.via === 'smtp' ? 'email sent' : 'email written to the local outbox');
  return { id, via: mailer.via };
}

/** Where an email is recorded, and what follows once it went out. */
export interface QueueOptions {
  /** The transaction that causes the email: both commit, or neither. Default: the services' database. */
  within?: Kysely<DB> | Transaction<DB>;
  /** The account it is sent for (the CLI shows it; deleting the account deletes its emails). */
  accountId?: string | null;
  /** A reaction to run once it went out (`onEmailSent`): a topic and what it is about (a link id...). */
  followUp?: { topic: string; ref: string };
  /** At most one email per key, ever: queueing it again answers the first one's id (a retried job sends once). */
  key?: string;
}

/**
 * Records one email in the shared outbox (the `emails` table) and answers its id (`mail_...`); a worker of any
 * process sharing the database sends it (queue.ts: SMTP with retries and backoff, or this process's outbox directory
 * without SMTP). Throws MailError `EINVALID` for a message that could never be sent; nothing is recorded then.
 */
export async function sendMail(s: MailServices, msg: MailMessage, opts: QueueOptions = {}): Promise<string> {
  const m = checked(msg, s.config.smtp ? 'smtp' : 'outbox');
  const date = s.clock.now();
  const id = newMailId(date);
  const got = await recordEmail(opts.within ?? s.db, {
    id,
    account_id: opts.accountId ?? null,
    to_address: m.to,
    subject: m.subject,
    text_body: m.text,
    html_body: m.html ?? null,
    headers: JSON.stringify(m.headers),
    topic: opts.followUp?.topic ?? null,
    ref: opts.followUp?.ref ?? null,
    dedupe_key: opts.key ?? null,
    next_attempt_at: date,
    created_at: date,
    updated_at: date,
  });
  s.logger?.info({ mail_id: got }, got === id ? 'email queued' : 'email already queued');
  return got;
}

/** The link email (linkEmail) to `to`; answers the mail id. */
export async function sendLinkEmail(s: MailServices, args: LinkEmailArgs & { to: string; headers?: Record<string, string> }, opts: QueueOptions = {}): Promise<string> {
  const built = linkEmail(args);
  return sendMail(s, { to: args.to, ...built, headers: args.headers }, opts);
}

/** The results summary (resultsEmail) to `to`; answers the mail id. */
export async function sendResultsEmail(s: MailServices, args: ResultsEmailArgs & { to: string; headers?: Record<string, string> }, opts: QueueOptions = {}): Promise<string> {
  const built = resultsEmail(args);
  return sendMail(s, { to: args.to, ...built, headers: args.headers }, opts);
}
