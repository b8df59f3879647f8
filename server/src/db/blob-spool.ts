import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Keeps `bytes` under `key` until the store takes them (a second put of the key replaces them). */
export async function spoolBlob(db: Conn, key: string, bytes: Uint8Array, now: Date): Promise<void> {
  await db
    .insertInto('blob_spool')
    .values({ key, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), created_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ bytes: (eb) => eb.ref('excluded.bytes'), created_at: now }))
    .execute();
}

export async function spooledBlob(db: Conn, key: string): Promise<Uint8Array | null> {
  const row = await db.selectFrom('blob_spool').select('bytes').where('key', '=', key).executeTakeFirst();
  return row ? new Uint8Array(row.bytes) : null;
}

/** Removes the spooled blob; true when there was one. */
export async function unspoolBlob(db: Conn, key: string): Promise<boolean> {
  const result = await db.deleteFrom('blob_spool').where('key', '=', key).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The oldest spooled keys first. */
export async function spooledKeys(db: Conn, limit: number): Promise<string[]> {
  return (await db.selectFrom('blob_spool').select('key').orderBy('created_at').limit(limit).execute()).map((r) => r.key);
}
