/**
 * The sender of the shared outbox (docs/emails.md): takes one due email of the `emails` table at a time (any process's
 * worker; `FOR UPDATE SKIP LOCKED` and a lease, so each email is sent by one process) and hands it to the transport.
 * While the SMTP server is away (refused connections, time-outs, 4xx replies) the email is tried again after a
 * growing delay; a refusal that would not change (5xx, a wrong password) or running out of attempts makes it
 * `failed` (logged). Once it went out, the reaction registered for its topic runs (a link records `sent`).
 *
 * Exactly once across processes while they live; a process killed between the SMTP server's acceptance and the row's
 * update sends that one email again after the lease (the one window no SMTP client can close).
 */
import { claimDueEmail, settleEmail } from '../db/emails.ts';
import type { EmailRow } from '../db/schema.ts';
import { MailError, transmitMail, type MailServices } from './index.ts';

/** Delays before the next try of an email the mail server could not take: about 20 hours in all, then failed. */
export const EMAIL_RETRY_MS = [5_000, 15_000, 30_000, 60_000, 2 * 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 3600_000, 2 * 3600_000, 4 * 3600_000, 12 * 3600_000];
/** Longer than the worst send (SMTP connection, greeting and socket time-outs: 50 s) so a live sender keeps its claim. */
export const EMAIL_LEASE_MS = 2 * 60_000;

type Reaction = (s: MailServices, email: Pick<EmailRow, 'id' | 'to_address' | 'ref' | 'sent_at'>) => Promise<void>;
const reactions = new Map<string, Reaction>();

/** What follows once an email of `topic` went out (registered once, by the module that queues such emails). */
export function onEmailSent(topic: string, reaction: Reaction): void {
  reactions.set(topic, reaction);
}

/** Sends the next due email, if any; whether there was one. */
export async function runOneDueEmail(s: MailServices): Promise<boolean> {
  const email = await claimDueEmail(s.db, s.clock.now(), EMAIL_LEASE_MS);
  if (!email) return false;
  let via: 'smtp' | 'outbox';
  try {
    ({ via } = await transmitMail(s, { to: email.to_address, subject: email.subject, text: email.text_body, html: email.html_body ?? undefined, headers: email.headers }, email.id, email.created_at));
  } catch (err) {
    const e = err instanceof MailError ? err : null;
    const message = String((err as Error)?.message ?? err).slice(0, 1000);
    const now = s.clock.now();
    const retry = (e?.transient ?? true) && email.attempts <= EMAIL_RETRY_MS.length;
    await settleEmail(s.db, email, now, retry ? { status: 'queued', error: message, retryAt: new Date(now.getTime() + EMAIL_RETRY_MS[email.attempts - 1]) } : { status: 'failed', error: message });
    s.logger?.warn({ mail_id: email.id, attempt: email.attempts, code: e?.code }, retry ? 'email not sent; trying again later' : 'email not sent; giving up');
    return true;
  }
  const now = s.clock.now();
  const settled = await settleEmail(s.db, email, now, { status: 'sent', via });
  const reaction = email.topic ? reactions.get(email.topic) : undefined;
  if (settled && reaction && email.ref) {
    try {
      await reaction(s, { id: email.id, to_address: email.to_address, ref: email.ref, sent_at: now });
    } catch (err) {
      s.logger?.warn({ mail_id: email.id, topic: email.topic, err: String((err as Error)?.message ?? err) }, 'what follows a sent email failed');
    }
  }
  return true;
}

/** Sends every due email (tests, and the CLI's one-shot runs); how many it took. */
export async function runDueEmails(s: MailServices): Promise<number> {
  let n = 0;
  while (await runOneDueEmail(s)) n++;
  return n;
}
