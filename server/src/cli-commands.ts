// The commands of the operator's CLI (entry: cli.ts): accounts, keys and credits, straight on the database.
import { parseArgs } from 'node:util';
import { systemClock } from './clock.ts';
import { loadConfig, type Config } from './config.ts';
import { findAccount, listAccounts, listApiKeys, revokeApiKey, updateAccount } from './db/accounts.ts';
import { listAuditRecords } from './db/reviews.ts';
import { migrateToLatest, openDatabase } from './db/database.ts';
import { ACCOUNT_NAME_MAX, accountName } from './domain/account-name.ts';
import { servedBaseUrl } from './domain/base-url.ts';
import { addCredits, createAccount, describeKey, issueKey, type KeyKind, type Mode } from './domain/accounts.ts';
import { callbackSecretOf } from './domain/links/service.ts';
import { invite, TeamError } from './web/dashboard/members.ts';
import { listMembers } from './db/dashboard.ts';
import { isId } from './ids.ts';
import { isMailId, listOutbox, outboxDir, readOutbox } from './mail/outbox.ts';
import { findEmail, listEmails } from './db/emails.ts';
import { formatMailbox } from './mail/address.ts';
import { describeStartupError } from './startup-errors.ts';

const USAGE = `Usage: npm run -s cotejo -- <command> [options]
(-s keeps npm's own banner off the output, so that --json output can be piped.)

Commands:
  accounts list [--json]
      Every account (oldest first: the first is the default account the first start made) and its active keys.
  accounts create [--name NAME] [--email EMAIL] [--json]
      Creates an account (named "Default account" without --name) with four keys (test, live, and their publishable twins) and prints them once.
  accounts update --account acct_... [--name NAME] [--email EMAIL] [--email-verified true|false] [--rate-limit N]
                  [--monthly-credit-cap CREDITS|none] [--low-credit-threshold CREDITS]
                  [--processing sovereign|standard] [--live-concurrency N] [--live-pages-per-minute N]
                  [--review-max-days N] [--review-retention-hours N] [--face-verification true|false]
                  [--link-consent-text TEXT|none] [--link-show-result true|false]
      At least one setting. --name: what people see on the hosted verification page, in emails and in the dashboard
      (at most 100 characters).
      Live-mode spend settings: the monthly cap (402 monthly_cap_reached past it) and the credits.low threshold.
      --processing: the profile of analyses that do not ask for one (default sovereign).
      Live-mode limits, shared by every server process: synchronous analyses at once (default 5, 1 to 1000;
      429 concurrency_limit past it) and pages read per minute (default 120, 1 to 1000000; 429 pages_rate_limited).
      Human review retention when the template sets none: days a pending review keeps its original (default 30,
      1 to 90) and hours it is kept after the decision (default 24, 0 to 720; 0 deletes it at the decision).
      --face-verification: the selfie module of verification links (default false; without it, a link asking for
      face_verification gets 403 face_verification_not_enabled). This service does no biometric matching.
      Verification-link defaults for links that do not set them: the consent text of the hosted page (at most 2000
      characters; none: the page's standard text naming the account) and whether the page shows the verdict.
  accounts callback-secret --account acct_... [--mode test|live] [--json]
      The secret (whsec_...) that signs the account's verification-link callbacks (callback_url) of that mode,
      Standard Webhooks like endpoint deliveries; made on first use (docs/verification-links.md).
  audit list [--account acct_...] [--analysis an_...] [--limit N] [--json]
      Review decisions, newest first (default 100): who (key_...), when, which analysis, the decision, the reason,
      and the state before and after. Kept when the analysis itself is deleted.
  members invite --account acct_... --email EMAIL --role owner|admin|member [--name NAME] [--json]
      Invites someone to the account's dashboard (/dashboard) and prints the invitation URL (valid 7 days, shown
      once): whoever opens it chooses a name and password there. The URL is on the base URL the server recorded
      at its last start (COTEJO_BASE_URL, or http://localhost:PORT), not on this command's environment. The first owner is made this way; no password is
      ever given on a command line (docs/dashboard.md).
  members list --account acct_... [--json]
      The account's dashboard members: id, role, email, name.
  keys create --account acct_... [--mode test|live] [--kind secret|publishable] [--name NAME] [--json]
  keys list --account acct_... [--json]
      Every key of the account: id, kind, mode, the first characters, active or revoked, and its name.
  keys revoke key_...
  credits add --account acct_... --amount CREDITS [--reason TEXT]
  emails list [--limit N] [--status queued|sent|failed] [--json]
      Every email of the shared outbox (the database: all processes' emails), newest first (default 100): id,
      date, status (queued with its tries so far, sent through smtp or to the outbox directory, failed), recipient,
      subject (docs/emails.md).
  emails show mail_... [--json]
      One email: status, tries, last error, headers and text. It may hold a link's secret URL.
  outbox list [--limit N] [--json]
      Emails this data directory's server wrote to its local outbox (COTEJO_DATA_DIR/outbox; when COTEJO_SMTP_URL is not set), newest
      first (default 100): id, date, recipient, subject. Files only: works while the server runs (docs/emails.md).
  outbox show mail_... [--json]
      One email of the outbox: its headers, its text and the path of its .eml file. It may hold a link's secret URL.

The database is the server's: embedded PGlite under COTEJO_DATA_DIR (default ./.cotejo; the server
must be stopped), or PostgreSQL through DATABASE_URL (at any time).
`;

/** The commands that work on the database (the `switch` in `run`; `outbox` works on files). */
const DATABASE_COMMANDS = new Set([
  'accounts list', 'accounts create', 'accounts update', 'accounts callback-secret', 'audit list', 'members invite', 'members list',
  'keys create', 'keys list', 'keys revoke', 'credits add', 'emails list', 'emails show',
]);

/** The command line itself is wrong (unknown command or option): the usage text follows the message. */
class UsageError extends Error {}
/** A value given is wrong or names nothing (no such account): the message alone says it. */
class InputError extends Error {}

/** A non-negative number of credits as integer milli-credits. */
function creditsToMilli(text: string, message: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new InputError(message);
  return Math.round(n * 1000);
}

/** An integer from `min` to `max`, given as text. */
function integerIn(text: string, min: number, max: number, message: string): number {
  const n = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) throw new InputError(message);
  return n;
}

/** An account name as stored (domain/account-name.ts), or an input error. */
function nameOf(raw: string): string {
  const name = accountName(raw);
  if (name === null) throw new InputError(`--name must be 1 to ${ACCOUNT_NAME_MAX} characters, without control characters`);
  return name;
}

function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new InputError(`missing ${what}`);
  return value;
}

/** `--amount -2.5` as `--amount=-2.5`: parseArgs takes a value starting with a dash for another option. */
function negativeValuesJoined(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (/^--[a-z-]+$/.test(argv[i]) && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      out.push(`${argv[i]}=${next}`);
      i++;
    } else out.push(argv[i]);
  }
  return out;
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: negativeValuesJoined(argv),
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      email: { type: 'string' },
      'email-verified': { type: 'string' },
      'rate-limit': { type: 'string' },
      'monthly-credit-cap': { type: 'string' },
      'low-credit-threshold': { type: 'string' },
      processing: { type: 'string' },
      'live-concurrency': { type: 'string' },
      'live-pages-per-minute': { type: 'string' },
      'review-max-days': { type: 'string' },
      'review-retention-hours': { type: 'string' },
      'face-verification': { type: 'string' },
      'link-consent-text': { type: 'string' },
      'link-show-result': { type: 'string' },
      analysis: { type: 'string' },
      limit: { type: 'string' },
      status: { type: 'string' },
      account: { type: 'string' },
      mode: { type: 'string', default: 'test' },
      kind: { type: 'string', default: 'secret' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      role: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, action, arg] = positionals;
  if (values.help || !group) {
    process.stdout.write(USAGE);
    return;
  }
  // Only the database: the CLI needs none of the server's readers, stores or trust roots.
  config = loadConfig();
  if (group === 'outbox') return outboxCommand(config, action, arg, values);
  // An unknown command is told at once, without opening the database (which a running server may hold).
  const cmd = `${group} ${action ?? ''}`.trim();
  if (!DATABASE_COMMANDS.has(cmd)) throw new UsageError(`unknown command "${cmd}"`);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
  try {
    await migrateToLatest(database.db, database.schema);
  } catch (err) {
    await database.close();
    throw err;
  }
  const services = { db: database.db, clock: systemClock };
  const out = (obj: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(obj)}\n` : `${text}\n`);
  const accountOf = async (): Promise<string> => {
    const id = need(values.account, '--account acct_...');
    if (!isId('account', id) || !(await findAccount(services.db, id))) throw new InputError(`no account ${id} (see them all: npm run -s cotejo -- accounts list)`);
    return id;
  };
  try {
    switch (cmd) {
      case 'accounts list': {
        const accounts = await listAccounts(services.db);
        out(
          { accounts: accounts.map((a) => ({ ...a, created_at: a.created_at.toISOString() })) },
          accounts.length === 0
            ? 'No accounts yet (the first start of the server makes the default account).'
            : accounts.map((a) => `${a.id}  ${a.created_at.toISOString()}  ${a.active_keys} active key(s)  ${a.name}${a.email ? ` <${a.email}>` : ''}`).join('\n') +
                '\nA new key for one of them: npm run -s cotejo -- keys create --account acct_... [--mode test|live]',
        );
        break;
      }
      case 'accounts create': {
        const created = await createAccount(services.db, services.clock, { name: values.name !== undefined ? nameOf(values.name) : undefined, email: values.email ?? null });
        out(
          { account: created.account, keys: created.keys },
          `Account ${created.account}\n  test:             ${created.keys.test}\n  live:             ${created.keys.live}\n` +
            `  test publishable: ${created.keys.test_publishable}\n  live publishable: ${created.keys.live_publishable}\n` +
            'Keys are shown once and stored only as hashes.',
        );
        break;
      }
      case 'accounts update': {
        const id = await accountOf();
        const patch: Parameters<typeof updateAccount>[2] = {};
        if (values.name !== undefined) patch.name = nameOf(values.name);
        if (values.email !== undefined) patch.email = values.email;
        if (values['email-verified'] !== undefined) patch.email_verified = values['email-verified'] === 'true';
        if (values['rate-limit'] !== undefined) {
          const n = Number(values['rate-limit']);
          if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InputError('--rate-limit must be an integer from 1 to 10000');
          patch.rate_limit_per_second = n;
        }
        if (values['monthly-credit-cap'] !== undefined) {
          const v = values['monthly-credit-cap'];
          patch.monthly_credit_cap_milli = v === 'none' ? null : creditsToMilli(v, '--monthly-credit-cap must be a number of credits (0 or more) or none');
        }
        if (values['low-credit-threshold'] !== undefined) {
          patch.low_credit_threshold_milli = creditsToMilli(values['low-credit-threshold'], '--low-credit-threshold must be a number of credits (0 or more)');
        }
        if (values.processing !== undefined) {
          const p = values.processing;
          if (p !== 'sovereign' && p !== 'standard') throw new InputError('--processing must be sovereign or standard');
          patch.default_processing = p;
        }
        if (values['live-concurrency'] !== undefined) {
          patch.live_concurrency_limit = integerIn(values['live-concurrency'], 1, 1000, '--live-concurrency must be an integer from 1 to 1000');
        }
        if (values['live-pages-per-minute'] !== undefined) {
          patch.live_pages_per_minute = integerIn(values['live-pages-per-minute'], 1, 1_000_000, '--live-pages-per-minute must be an integer from 1 to 1000000');
        }
        if (values['review-max-days'] !== undefined) {
          patch.review_max_days = integerIn(values['review-max-days'], 1, 90, '--review-max-days must be an integer from 1 to 90');
        }
        if (values['review-retention-hours'] !== undefined) {
          patch.review_retention_hours_after_decision = integerIn(values['review-retention-hours'], 0, 720, '--review-retention-hours must be an integer from 0 to 720');
        }
        if (values['face-verification'] !== undefined) {
          const v = values['face-verification'];
          if (v !== 'true' && v !== 'false') throw new InputError('--face-verification must be true or false');
          patch.face_verification_enabled = v === 'true';
        }
        if (values['link-consent-text'] !== undefined) {
          const v = values['link-consent-text'];
          if (v.length > 2000) throw new InputError('--link-consent-text must be at most 2000 characters');
          patch.link_consent_text = v === 'none' || v.trim() === '' ? null : v;
        }
        if (values['link-show-result'] !== undefined) {
          const v = values['link-show-result'];
          if (v !== 'true' && v !== 'false') throw new InputError('--link-show-result must be true or false');
          patch.link_show_result = v === 'true';
        }
        if (Object.keys(patch).length === 0) {
          throw new UsageError('accounts update needs at least one setting to change, such as --name "Mi Empresa" (every option is listed below)');
        }
        await updateAccount(services.db, id, patch);
        out({ account: id, updated: Object.keys(patch) }, `Updated ${id}: ${Object.keys(patch).join(', ')}`);
        break;
      }
      case 'accounts callback-secret': {
        const id = await accountOf();
        const mode = values.mode as Mode;
        if (mode !== 'test' && mode !== 'live') throw new InputError('--mode must be test or live');
        const secret = await callbackSecretOf(services.db, id, mode === 'live');
        out({ account: id, mode, secret }, `${secret}\n(signs the ${mode} verification-link callbacks of ${id}; verify them as webhook deliveries)`);
        break;
      }
      case 'keys create': {
        const id = await accountOf();
        const mode = values.mode as Mode;
        const kind = values.kind as KeyKind;
        if (mode !== 'test' && mode !== 'live') throw new InputError('--mode must be test or live');
        if (kind !== 'secret' && kind !== 'publishable') throw new InputError('--kind must be secret or publishable');
        const key = await issueKey(services.db, services.clock, id, kind, mode, values.name ?? null);
        out({ id: key.id, key: key.key, kind, mode, account: id }, `${key.id}: ${key.key}\n(shown once; stored only as a hash)`);
        break;
      }
      case 'keys list': {
        const id = await accountOf();
        const keys = (await listApiKeys(services.db, id)).map(describeKey);
        // The name last: it is free text, of any length.
        out(
          { account: id, keys },
          keys.length === 0
            ? `No keys in ${id}.`
            : keys.map((k) => `${k.id}  ${String(k.kind).padEnd(11)}  ${k.mode}  ${k.prefix}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}${k.name ? `  ${k.name}` : ''}`).join('\n'),
        );
        break;
      }
      case 'keys revoke': {
        const keyId = need(arg, 'the key id (key_...)');
        const r = await revokeApiKey(services.db, keyId, services.clock.now());
        if (r === 'missing') throw new InputError(`no key ${keyId} (see an account's keys: npm run -s cotejo -- keys list --account acct_...)`);
        out({ id: keyId, revoked: true }, r === 'revoked' ? `Revoked ${keyId}` : `${keyId} was already revoked`);
        break;
      }
      case 'audit list': {
        const accountId = values.account !== undefined ? await accountOf() : undefined;
        const limit = values.limit !== undefined ? integerIn(values.limit, 1, 10_000, '--limit must be an integer from 1 to 10000') : 100;
        const records = (await listAuditRecords(services.db, { account_id: accountId, analysis_id: values.analysis, limit })).map((r) => ({
          ...r,
          created_at: new Date(r.created_at).toISOString(),
        }));
        out(
          { audit_records: records },
          records.length === 0
            ? 'No audit records.'
            : records
                .map(
                  (r) =>
                    `${r.created_at}  ${r.account_id}  ${r.livemode ? 'live' : 'test'}  ${r.analysis_id}  ${r.action}  by ${r.actor}` +
                    `  ${r.previous_state.review_status ?? '-'} -> ${r.new_state.review_status ?? '-'}` +
                    `${r.new_state.final_status ? ` (final ${r.new_state.final_status})` : ''}${r.reason ? `  reason: ${JSON.stringify(r.reason)}` : ''}`,
                )
                .join('\n'),
        );
        break;
      }
      case 'members invite': {
        const id = await accountOf();
        const email = need(values.email, '--email EMAIL');
        const role = need(values.role, '--role owner|admin|member');
        // The URL the server serves, as it recorded it at its last start (not this command's environment).
        const base = await servedBaseUrl(services.db, config);
        let inv;
        try {
          inv = await invite({ ...services, baseUrl: base.url }, id, null, { email, role, name: values.name ?? null });
        } catch (err) {
          if (!(err instanceof TeamError)) throw err;
          throw new InputError(
            err.code === 'invalid_role' ? '--role must be owner, admin or member' : err.code === 'invalid_email' ? `--email ${email} is not an email address` : `${email} is already a dashboard member`,
          );
        }
        out(
          { account: id, email: inv.email, role: inv.role, url: inv.url, expires_at: inv.expires_at.toISOString() },
          `${inv.url}\n(invitation of ${inv.email} as ${inv.role} to ${id}; shown once, valid until ${inv.expires_at.toISOString()})`,
        );
        if (base.note) process.stderr.write(`cotejo: note: ${base.note}\n`);
        break;
      }
      case 'members list': {
        const id = await accountOf();
        const list = (await listMembers(services.db, id)).map((m) => ({ id: m.id, role: m.role, email: m.email, name: m.name, created_at: m.created_at.toISOString() }));
        out(
          { account: id, members: list },
          list.length === 0 ? `No dashboard members in ${id} yet (the first owner: npm run -s cotejo -- members invite --account ${id} --email E --role owner).` : list.map((m) => `${m.id}  ${m.role.padEnd(6)}  ${m.email}  ${m.name}`).join('\n'),
        );
        break;
      }
      case 'credits add': {
        const id = await accountOf();
        const amount = Number(need(values.amount, '--amount'));
        if (!Number.isFinite(amount) || amount === 0) throw new InputError('--amount must be a non-zero number of credits');
        if (values.reason === 'charge') throw new InputError('--reason charge is kept for analysis charges');
        const { balance } = await addCredits(services.db, services.clock, id, amount, values.reason ?? 'manual_top_up');
        out({ account: id, added: amount, balance }, `Added ${amount} credits to ${id}; ledger balance ${balance}`);
        break;
      }
      case 'emails list': {
        const limit = values.limit !== undefined ? integerIn(values.limit, 1, 10_000, '--limit must be an integer from 1 to 10000') : 100;
        const status = values.status;
        if (status !== undefined && status !== 'queued' && status !== 'sent' && status !== 'failed') throw new InputError('--status must be queued, sent or failed');
        const { total, emails } = await listEmails(services.db, { limit, status });
        const where = config.smtp ? `sent through ${config.smtp.display}` : 'no COTEJO_SMTP_URL: written to the sending process\'s outbox directory';
        out(
          { total, emails },
          emails.length === 0
            ? `No email${status ? ` ${status}` : ''} in the database (${where}).`
            : `${emails
                .map((e) => `${e.id}  ${e.created_at.toISOString()}  ${e.status}${e.status === 'sent' ? ` (${e.via})` : e.status === 'queued' && e.attempts > 0 ? ` (${e.attempts} tries)` : ''}  ${e.to_address}  ${e.subject}`)
                .join('\n')}\n${emails.length} of ${total} (${where}); one in full: npm run -s cotejo -- emails show mail_...`,
        );
        break;
      }
      case 'emails show': {
        const id = need(arg, 'the email id (mail_..., from emails list)');
        const e = isMailId(id) ? await findEmail(services.db, id) : undefined;
        if (!e) throw new InputError(`no email ${id} in the database (see them all: npm run -s cotejo -- emails list)`);
        const shown = { id: e.id, account: e.account_id, status: e.status, via: e.via, attempts: e.attempts, created_at: e.created_at, sent_at: e.sent_at, next_attempt_at: e.status === 'queued' ? e.next_attempt_at : null, error: e.error, from: formatMailbox(config.mailFrom), to: e.to_address, subject: e.subject, headers: e.headers, text: e.text_body, html: e.html_body };
        out(
          shown,
          `Id:         ${e.id}\nStatus:     ${e.status}${e.via ? ` (${e.via})` : ''}, ${e.attempts} ${e.attempts === 1 ? 'try' : 'tries'}\nCreated:    ${e.created_at.toISOString()}\n` +
            (e.sent_at ? `Sent:       ${e.sent_at.toISOString()}\n` : e.status === 'queued' ? `Next try:   ${e.next_attempt_at.toISOString()}\n` : '') +
            (e.error ? `Error:      ${e.error}\n` : '') +
            `From:       ${shown.from}\nTo:         ${e.to_address}\nSubject:    ${e.subject}\n\n${e.text_body.replace(/\n$/, '')}`,
        );
        break;
      }
      default:
        throw new UsageError(`unknown command "${cmd}"`);
    }
  } finally {
    await database.close();
  }
}

/** `outbox list` and `outbox show`: files under the data dir, no database (docs/emails.md). */
async function outboxCommand(cfg: Config, action: string | undefined, arg: string | undefined, values: { json?: boolean; limit?: string }): Promise<void> {
  const dir = outboxDir(cfg.dataDir);
  const out = (obj: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(obj)}\n` : `${text}\n`);
  if (action === 'list') {
    const limit = values.limit !== undefined ? integerIn(values.limit, 1, 10_000, '--limit must be an integer from 1 to 10000') : 100;
    const { total, emails } = await listOutbox(dir, limit);
    const note = cfg.smtp ? `\n(COTEJO_SMTP_URL is set: new emails go to ${cfg.smtp.display}, not here.)` : '';
    out(
      { outbox: dir, total, emails },
      (emails.length === 0
        ? `The outbox ${dir} is empty.`
        : `${emails.map((e) => `${e.id}  ${e.created_at}  ${e.to}  ${e.subject}`).join('\n')}\n${emails.length} of ${total} in ${dir}; one in full: npm run -s cotejo -- outbox show mail_...`) + note,
    );
    return;
  }
  if (action === 'show') {
    const id = need(arg, 'the email id (mail_..., from outbox list)');
    const entry = await readOutbox(dir, id);
    if (!entry) throw new InputError(`no email ${id} in the outbox ${dir} (see them all: npm run -s cotejo -- outbox list)`);
    out(
      entry,
      `Id:         ${entry.id}\nDate:       ${entry.created_at}\nFrom:       ${entry.from}\nTo:         ${entry.to}\nSubject:    ${entry.subject}\n` +
        `Message-ID: ${entry.message_id}\nFile:       ${entry.eml_path}\n\n${entry.text.replace(/\n$/, '')}`,
    );
    return;
  }
  throw new UsageError(`unknown command "${`outbox ${action ?? ''}`.trim()}"`);
}

let config: Config | undefined;

run(process.argv.slice(2)).catch((err) => {
  // parseArgs's own complaints (unknown option, missing value) are usage errors too.
  if (err instanceof UsageError || String((err as { code?: unknown })?.code ?? '').startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`cotejo: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (err instanceof InputError) {
    process.stderr.write(`cotejo: ${err.message}\n`);
    process.exit(1);
  }
  const line = describeStartupError(err, config);
  process.stderr.write(`cotejo: ${line ?? (err instanceof Error ? err.message : String(err))}\n`);
  process.exit(1);
});
