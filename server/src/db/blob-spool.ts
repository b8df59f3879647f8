import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** Keeps `bytes` under `key` until the store takes them (a second put of the key replaces them). */
export async function spoolBlob(db: Conn, key: string, bytes: Uint8Array, now: Date): Promise<void> {
  await db
    .insertInto('blob_spool')
    .values({ key, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), created_at: now })
    // Put again: the new bytes, and no claim (a flush moving the old ones leaves the row for a later flush).
    .onConflict((oc) => oc.column('key').doUpdateSet({ bytes: (eb) => eb.ref('excluded.bytes'), created_at: now, claim: null, claimed_until: null }))
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

/**
 * Claims up to `limit` spooled blobs for the flush `claim` until `until`, the oldest first: those no flush holds, or
 * whose holder's lease lapsed. `FOR UPDATE SKIP LOCKED`: two processes claiming at once take different rows.
 */
export async function claimSpooled(db: Conn, claim: string, now: Date, until: Date, limit: number): Promise<string[]> {
  const rows = await db
    .updateTable('blob_spool')
    .set({ claim, claimed_until: until })
    .where('key', 'in', (eb) =>
      eb
        .selectFrom('blob_spool')
        .select('key')
        .where((w) => w.or([w('claimed_until', 'is', null), w('claimed_until', '<=', now)]))
        .orderBy('created_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['key', 'created_at'])
    .execute();
  return rows.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime()).map((r) => r.key);
}

/** The bytes of a blob this flush still holds (null: deleted, put again, or taken over meanwhile). */
export async function claimedBlob(db: Conn, key: string, claim: string): Promise<Uint8Array | null> {
  const row = await db.selectFrom('blob_spool').select('bytes').where('key', '=', key).where('claim', '=', claim).executeTakeFirst();
  return row ? new Uint8Array(row.bytes) : null;
}

/** After the store took it: the row goes if this flush still holds it. 'moved', 'gone' (deleted meanwhile) or 'changed' (put again or taken over). */
export async function settleClaimed(db: Conn, key: string, claim: string): Promise<'moved' | 'gone' | 'changed'> {
  const result = await db.deleteFrom('blob_spool').where('key', '=', key).where('claim', '=', claim).executeTakeFirst();
  if (Number(result.numDeletedRows) > 0) return 'moved';
  const still = await db.selectFrom('blob_spool').select('key').where('key', '=', key).executeTakeFirst();
  return still ? 'changed' : 'gone';
}

/** Gives back what this flush claimed and did not move (the store went away again): the next flush takes it at once. */
export async function releaseClaims(db: Conn, claim: string): Promise<void> {
  await db.updateTable('blob_spool').set({ claim: null, claimed_until: null }).where('claim', '=', claim).execute();
}
