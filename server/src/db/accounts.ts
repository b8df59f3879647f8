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

export async function countAccounts(db: Conn): Promise<number> {
  const r = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function updateAccount(
  db: Conn,
  id: string,
  patch: Partial<Pick<AccountRow, 'email' | 'email_verified' | 'rate_limit_per_second' | 'name' | 'monthly_credit_cap_milli' | 'low_credit_threshold_milli'>>,
): Promise<boolean> {
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
      low_credit_notified_at: row.low_credit_notified_at,
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
