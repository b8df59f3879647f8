import type { Kysely, Transaction } from 'kysely';
import type { DB, WebhookEndpointRow } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

export async function insertWebhookEndpoint(db: Conn, row: WebhookEndpointRow): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values({ ...row, events: JSON.stringify(row.events) })
    .execute();
}

/** Every live (not deleted) endpoint of the account, both modes, newest first. */
export async function listWebhookEndpoints(db: Conn, accountId: string): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('id', 'desc')
    .execute();
}

export async function findWebhookEndpoint(db: Conn, accountId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function markWebhookEndpointDeleted(db: Conn, accountId: string, id: string, at: Date): Promise<boolean> {
  const r = await db
    .updateTable('webhook_endpoints')
    .set({ deleted_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
