import { sql, type Kysely } from 'kysely';

/**
 * The shared email outbox (#31 item 6, docs/emails.md): every email is a row first, written in the transaction that
 * causes it where there is one, then sent by whichever process's worker claims it (`FOR UPDATE SKIP LOCKED`), through
 * SMTP with retries and backoff, or kept here for the CLI when no SMTP server is configured. One table for every
 * process sharing the database: nothing is split between processes' data directories any more.
 *
 * `status`: `queued` (to send: due at `next_attempt_at`; a claim pushes it by a lease, so a process that dies while
 * sending gives it back), `sent` (`sent_at`, `via` smtp or outbox), `failed` (refused for good or out of attempts;
 * `error`). Final rows go after COTEJO_RETENTION_EMAILS (jobs/retention.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table emails (
      id text primary key,
      account_id text references accounts(id) on delete cascade,
      to_address text not null,
      subject text not null,
      text_body text not null,
      html_body text,
      headers jsonb not null default '{}'::jsonb,
      -- What follows once it went out (mail/queue.ts onEmailSent): a topic (link_sent...) and what it is about.
      topic text,
      ref text,
      -- At most one email per key (a job that queues it and is retried sends it once).
      dedupe_key text unique,
      status text not null default 'queued' check (status in ('queued', 'sent', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      via text check (via in ('smtp', 'outbox')),
      sent_at timestamptz,
      error text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db);
  // The sender's scan: due queued rows, oldest first. The retention sweep's: final rows by age.
  await sql`create index emails_due on emails (next_attempt_at) where status = 'queued'`.execute(db);
  await sql`create index emails_final on emails (updated_at) where status <> 'queued'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('emails').ifExists().execute();
}
