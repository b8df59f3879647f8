import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

export async function insertLedgerEntry(
  db: Conn,
  row: { id: string; account_id: string; amount_milli: number; reason: string; reference: string | null; created_at: Date },
): Promise<void> {
  await db.insertInto('credit_ledger').values(row).execute();
}

/** Sum of every ledger entry of the account, in milli-credits. */
export async function ledgerBalanceMilli(db: Conn, accountId: string): Promise<number> {
  const r = await db
    .selectFrom('credit_ledger')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_milli'), eb.lit(0)).as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(r.total);
}
