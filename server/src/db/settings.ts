import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Returns the stored value, storing `make()` first if the setting is absent (safe under races). */
export async function getOrCreateSetting(db: Conn, name: string, make: () => string): Promise<string> {
  await db.insertInto('server_settings').values({ name, value: make() }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('server_settings').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

/** The stored value of a setting, or undefined. */
export async function getSetting(db: Conn, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('server_settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Stores `value` under `name`, replacing what was there. */
export async function putSetting(db: Conn, name: string, value: string): Promise<void> {
  await db.insertInto('server_settings').values({ name, value }).onConflict((oc) => oc.column('name').doUpdateSet({ value })).execute();
}
