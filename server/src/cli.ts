import { parseArgs } from 'node:util';
import { systemClock } from './clock.ts';
import { ConfigError, loadConfig } from './config.ts';
import { findAccount, listApiKeys, revokeApiKey, updateAccount } from './db/accounts.ts';
import { DataDirLockedError } from './db/database.ts';
import { addCredits, createAccount, describeKey, issueKey, type KeyKind, type Mode } from './domain/accounts.ts';
import { isId } from './ids.ts';
import { createLogger } from './logger.ts';
import { openServices } from './services.ts';

const USAGE = `Usage: npm run cotejo -- <command> [options]

Commands:
  accounts create [--name NAME] [--email EMAIL] [--json]
      Creates an account with four keys (test, live, and their publishable twins) and prints them once.
  accounts update --account acct_... [--email EMAIL] [--email-verified true|false] [--rate-limit N]
                  [--monthly-credit-cap CREDITS|none] [--low-credit-threshold CREDITS]
      Live-mode spend settings: the monthly cap (402 monthly_cap_reached past it) and the credits.low threshold.
  keys create --account acct_... [--mode test|live] [--kind secret|publishable] [--name NAME] [--json]
  keys list --account acct_... [--json]
  keys revoke key_...
  credits add --account acct_... --amount CREDITS [--reason TEXT]

The database is the server's: embedded PGlite under COTEJO_DATA_DIR (default ./.cotejo; the server
must be stopped), or PostgreSQL through DATABASE_URL (at any time).
`;

class UsageError extends Error {}

/** A non-negative number of credits as integer milli-credits. */
function creditsToMilli(text: string, message: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(message);
  return Math.round(n * 1000);
}

function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      email: { type: 'string' },
      'email-verified': { type: 'string' },
      'rate-limit': { type: 'string' },
      'monthly-credit-cap': { type: 'string' },
      'low-credit-threshold': { type: 'string' },
      account: { type: 'string' },
      mode: { type: 'string', default: 'test' },
      kind: { type: 'string', default: 'secret' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [group, action, arg] = positionals;
  if (values.help || !group) {
    process.stdout.write(USAGE);
    return;
  }
  const config = loadConfig();
  const services = await openServices(config, systemClock, createLogger('silent'));
  const out = (obj: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(obj)}\n` : `${text}\n`);
  const accountOf = async (): Promise<string> => {
    const id = need(values.account, '--account acct_...');
    if (!isId('account', id) || !(await findAccount(services.db, id))) throw new UsageError(`no account ${id}`);
    return id;
  };
  try {
    const cmd = `${group} ${action ?? ''}`.trim();
    switch (cmd) {
      case 'accounts create': {
        const created = await createAccount(services.db, services.clock, { name: values.name, email: values.email ?? null });
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
        if (values.email !== undefined) patch.email = values.email;
        if (values['email-verified'] !== undefined) patch.email_verified = values['email-verified'] === 'true';
        if (values['rate-limit'] !== undefined) {
          const n = Number(values['rate-limit']);
          if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new UsageError('--rate-limit must be an integer from 1 to 10000');
          patch.rate_limit_per_second = n;
        }
        if (values['monthly-credit-cap'] !== undefined) {
          const v = values['monthly-credit-cap'];
          patch.monthly_credit_cap_milli = v === 'none' ? null : creditsToMilli(v, '--monthly-credit-cap must be a number of credits (0 or more) or none');
        }
        if (values['low-credit-threshold'] !== undefined) {
          patch.low_credit_threshold_milli = creditsToMilli(values['low-credit-threshold'], '--low-credit-threshold must be a number of credits (0 or more)');
        }
        await updateAccount(services.db, id, patch);
        out({ account: id, updated: Object.keys(patch) }, `Updated ${id}: ${Object.keys(patch).join(', ') || 'nothing'}`);
        break;
      }
      case 'keys create': {
        const id = await accountOf();
        const mode = values.mode as Mode;
        const kind = values.kind as KeyKind;
        if (mode !== 'test' && mode !== 'live') throw new UsageError('--mode must be test or live');
        if (kind !== 'secret' && kind !== 'publishable') throw new UsageError('--kind must be secret or publishable');
        const key = await issueKey(services.db, services.clock, id, kind, mode, values.name ?? null);
        out({ id: key.id, key: key.key, kind, mode, account: id }, `${key.id}: ${key.key}\n(shown once; stored only as a hash)`);
        break;
      }
      case 'keys list': {
        const id = await accountOf();
        const keys = (await listApiKeys(services.db, id)).map(describeKey);
        out({ account: id, keys }, keys.map((k) => `${k.id}  ${k.kind}  ${k.mode}  ${k.prefix}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}`).join('\n'));
        break;
      }
      case 'keys revoke': {
        const keyId = need(arg, 'the key id (key_...)');
        const r = await revokeApiKey(services.db, keyId, services.clock.now());
        if (r === 'missing') throw new UsageError(`no key ${keyId}`);
        out({ id: keyId, revoked: true }, r === 'revoked' ? `Revoked ${keyId}` : `${keyId} was already revoked`);
        break;
      }
      case 'credits add': {
        const id = await accountOf();
        const amount = Number(need(values.amount, '--amount'));
        if (!Number.isFinite(amount) || amount === 0) throw new UsageError('--amount must be a non-zero number of credits');
        if (values.reason === 'charge') throw new UsageError('--reason charge is kept for analysis charges');
        const { balance } = await addCredits(services.db, services.clock, id, amount, values.reason ?? 'manual_top_up');
        out({ account: id, added: amount, balance }, `Added ${amount} credits to ${id}; ledger balance ${balance}`);
        break;
      }
      default:
        throw new UsageError(`unknown command "${cmd}"`);
    }
  } finally {
    await services.database.close();
  }
}

run(process.argv.slice(2)).catch((err) => {
  // parseArgs's own complaints (unknown option, missing value) are usage errors too.
  if (err instanceof UsageError || String((err as { code?: unknown })?.code ?? '').startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`cotejo: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    process.stderr.write(`cotejo: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`cotejo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
