import type { Kysely, Transaction } from 'kysely';
import type { AccountRow, ApiKeyRow, DB, NewApiKey } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

export async function insertAccount(
  db: Conn,
  row: { id: string; name: string; email: string | null; created_at: Date; rate_limit_per_second?: number; email_verified?: boolean },
): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccount(db: Conn, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface AccountSummary {
  id: string;
  name: string;
  email: string | null;
  created_at: Date;
  /** Keys not revoked, by kind and mode. */
  active_keys: number;
}

/** Every account, oldest first, with its count of active keys (the operator's `accounts list`). */
export async function listAccounts(db: Conn): Promise<AccountSummary[]> {
  const rows = await db
    .selectFrom('accounts')
    .leftJoin('api_keys', (j) => j.onRef('api_keys.account_id', '=', 'accounts.id').on('api_keys.revoked_at', 'is', null))
    .select(['accounts.id', 'accounts.name', 'accounts.email', 'accounts.created_at'])
    .select((eb) => eb.fn.count<number>('api_keys.id').as('active_keys'))
    .groupBy(['accounts.id', 'accounts.name', 'accounts.email', 'accounts.created_at'])
    .orderBy('accounts.created_at')
    .orderBy('accounts.id')
    .execute();
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at), active_keys: Number(r.active_keys) }));
}

export async function countAccounts(db: Conn): Promise<number> {
  const r = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function updateAccount(
  db: Conn,
  id: string,
  patch: Partial<Pick<AccountRow, 'email' | 'email_verified' | 'rate_limit_per_second' | 'name' | 'monthly_credit_cap_milli' | 'low_credit_threshold_milli' | 'default_processing' | 'live_concurrency_limit' | 'live_pages_per_minute' | 'review_max_days' | 'review_retention_hours_after_decision' | 'face_verification_enabled' | 'link_consent_text' | 'link_show_result'>>,
): Promise<boolean> {
  // An UPDATE with no SET is not SQL: nothing to change is a no-op (callers say so to the person who asked).
  if (Object.keys(patch).length === 0) return (await findAccount(db, id)) !== undefined;
  const r = await db.updateTable('accounts').set(patch).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function insertApiKey(db: Conn, row: NewApiKey): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export interface KeyWithAccount {
  key: ApiKeyRow;
  account: AccountRow;
}

/** The active (not revoked) key with this hash, and its account. */
export async function findActiveKeyByHash(db: Conn, keyHash: string): Promise<KeyWithAccount | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select([
      'k.id as key_id', 'k.account_id', 'k.kind', 'k.livemode', 'k.display_prefix', 'k.key_hash', 'k.name as key_name',
      'k.created_at as key_created_at', 'k.revoked_at',
      'a.name as account_name', 'a.email', 'a.email_verified', 'a.rate_limit_per_second', 'a.created_at as account_created_at',
      'a.monthly_credit_cap_milli', 'a.low_credit_threshold_milli', 'a.low_credit_notified_at',
      'a.default_processing', 'a.live_concurrency_limit', 'a.live_pages_per_minute',
      'a.review_max_days', 'a.review_retention_hours_after_decision',
      'a.link_consent_text', 'a.link_show_result', 'a.face_verification_enabled', 'a.callback_secret_test', 'a.callback_secret_live',
    ])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    key: {
      id: row.key_id, account_id: row.account_id, kind: row.kind, livemode: row.livemode, display_prefix: row.display_prefix,
      key_hash: row.key_hash, name: row.key_name, created_at: row.key_created_at, revoked_at: row.revoked_at,
    },
    account: {
      id: row.account_id, name: row.account_name, email: row.email, email_verified: row.email_verified,
      rate_limit_per_second: row.rate_limit_per_second, created_at: row.account_created_at,
      monthly_credit_cap_milli: row.monthly_credit_cap_milli, low_credit_threshold_milli: row.low_credit_threshold_milli,
      low_credit_notified_at: row.low_credit_notified_at, default_processing: row.default_processing,
      live_concurrency_limit: row.live_concurrency_limit, live_pages_per_minute: row.live_pages_per_minute,
      review_max_days: row.review_max_days, review_retention_hours_after_decision: row.review_retention_hours_after_decision,
      link_consent_text: row.link_consent_text, link_show_result: row.link_show_result, face_verification_enabled: row.face_verification_enabled,
      callback_secret_test: row.callback_secret_test, callback_secret_live: row.callback_secret_live,
    },
  };
}

export async function listApiKeys(db: Conn, accountId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export async function revokeApiKey(db: Conn, id: string, at: Date): Promise<'revoked' | 'already_revoked' | 'missing'> {
  const r = await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) return 'revoked';
  const exists = await db.selectFrom('api_keys').select('id').where('id', '=', id).executeTakeFirst();
  return exists ? 'already_revoked' : 'missing';
}
