import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import * as accounts from '../db/accounts.ts';
import { clearLowCreditNotified, insertLedgerEntry, ledgerBalanceMilli } from '../db/credits.ts';
import type { ApiKeyRow, DB } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { DEFAULT_ACCOUNT_NAME } from './account-name.ts';

export type KeyKind = 'secret' | 'publishable';
export type Mode = 'test' | 'live';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 32;
/** `ck_test_` / `ck_live_` secret keys, `pk_test_` / `pk_live_` publishable keys. */
export const KEY_PATTERN = /^(ck|pk)_(test|live)_[0-9A-Za-z]{24,128}$/;

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of crypto.randomBytes(length)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62]; // 248 = 4*62: unbiased
    }
  }
  return out;
}

export function hashApiKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyPrefix(kind: KeyKind, mode: Mode): string {
  return `${kind === 'secret' ? 'ck' : 'pk'}_${mode}_`;
}

export interface IssuedKey {
  id: string;
  key: string;
  kind: KeyKind;
  mode: Mode;
}

export async function issueKey(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  kind: KeyKind,
  mode: Mode,
  name: string | null = null,
): Promise<IssuedKey> {
  const key = keyPrefix(kind, mode) + randomBase62(KEY_BODY_LENGTH);
  const id = newId('api_key', clock.now().getTime());
  await accounts.insertApiKey(db, {
    id,
    account_id: accountId,
    kind,
    livemode: mode === 'live',
    display_prefix: key.slice(0, keyPrefix(kind, mode).length + 4),
    key_hash: hashApiKey(key),
    name,
    created_at: clock.now(),
    revoked_at: null,
  });
  return { id, key, kind, mode };
}

export interface CreatedAccount {
  account: string;
  keys: { test: string; live: string; test_publishable: string; live_publishable: string };
  key_ids: { test: string; live: string; test_publishable: string; live_publishable: string };
}

/** A new account with one key of each kind and mode, in one transaction. */
export async function createAccount(
  db: Kysely<DB>,
  clock: Clock,
  opts: { name?: string; email?: string | null; rateLimitPerSecond?: number; emailVerified?: boolean } = {},
): Promise<CreatedAccount> {
  return db.transaction().execute(async (trx) => {
    const id = newId('account', clock.now().getTime());
    await accounts.insertAccount(trx, {
      id,
      name: opts.name ?? DEFAULT_ACCOUNT_NAME,
      email: opts.email ?? null,
      created_at: clock.now(),
      ...(opts.rateLimitPerSecond !== undefined ? { rate_limit_per_second: opts.rateLimitPerSecond } : {}),
      ...(opts.emailVerified ? { email_verified: true } : {}),
    });
    const t = trx as unknown as Kysely<DB>;
    const test = await issueKey(t, clock, id, 'secret', 'test');
    const live = await issueKey(t, clock, id, 'secret', 'live');
    const testPk = await issueKey(t, clock, id, 'publishable', 'test');
    const livePk = await issueKey(t, clock, id, 'publishable', 'live');
    return {
      account: id,
      keys: { test: test.key, live: live.key, test_publishable: testPk.key, live_publishable: livePk.key },
      key_ids: { test: test.id, live: live.id, test_publishable: testPk.id, live_publishable: livePk.id },
    };
  });
}

export function describeKey(k: ApiKeyRow): Record<string, unknown> {
  return {
    id: k.id,
    kind: k.kind,
    mode: k.livemode ? 'live' : 'test',
    prefix: `${k.display_prefix}…`,
    name: k.name,
    created_at: k.created_at.toISOString(),
    revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
  };
}

/** Adds credits (integer milli-credits internally) to an account's ledger; returns the new balance. */
export async function addCredits(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  credits: number,
  reason = 'manual_top_up',
): Promise<{ balance: number }> {
  const milli = Math.round(credits * 1000);
  if (!Number.isFinite(credits) || milli === 0) throw new Error('credits must be a non-zero number');
  await insertLedgerEntry(db, {
    id: newId('ledger_entry', clock.now().getTime()),
    account_id: accountId,
    amount_milli: milli,
    reason,
    reference: null,
    created_at: clock.now(),
  });
  // A top-up arms `credits.low` again.
  if (milli > 0) await clearLowCreditNotified(db, accountId);
  return { balance: (await ledgerBalanceMilli(db, accountId)) / 1000 };
}
