// #20: the EU trusted lists cache shared by every process (migration 0017). Rows hold verified copies, but the
// database is never a source of trust: whoever reads a row verifies it again (domain/trust/trusted-list-refresh.ts).
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB, TrustedListPivotsTable, TrustedListsTable } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

export type TrustedListRow = Selectable<TrustedListsTable>;

/** What tells whether a row changed, without its XML. */
export type TrustedListVersion = Pick<TrustedListRow, 'territory' | 'sha256' | 'sequence' | 'fetched_at'>;

export type TrustedListPivotRow = Selectable<TrustedListPivotsTable>;

const REFRESH = 'lotl';

export async function trustedListVersions(db: Conn): Promise<TrustedListVersion[]> {
  return db.selectFrom('trusted_lists').select(['territory', 'sha256', 'sequence', 'fetched_at']).orderBy('territory').execute();
}

/** The rows of `territories` (every row when omitted), with their XML. */
export async function trustedListRows(db: Conn, territories?: string[]): Promise<TrustedListRow[]> {
  if (territories && territories.length === 0) return [];
  let q = db.selectFrom('trusted_lists').selectAll().orderBy('territory');
  if (territories) q = q.where('territory', 'in', territories);
  const rows = await q.execute();
  // PostgreSQL (pg) gives a Buffer, PGlite a Uint8Array: both are Uint8Array.
  return rows.map((r) => ({ ...r, xml: new Uint8Array(r.xml) }));
}

/**
 * Stores a verified copy. A row never goes back: it is replaced only by a different copy whose sequence number is not
 * lower; the same copy again (same SHA-256) only moves `fetched_at` forward. Returns whether the row changed.
 */
export async function saveTrustedList(db: Conn, row: TrustedListRow): Promise<boolean> {
  const touched = await db
    .updateTable('trusted_lists')
    .set({ fetched_at: sql<Date>`greatest(fetched_at, ${row.fetched_at})`, source_url: row.source_url })
    .where('territory', '=', row.territory)
    .where('sha256', '=', row.sha256)
    .executeTakeFirst();
  if (Number(touched.numUpdatedRows) > 0) return true;
  const stored = await db
    .insertInto('trusted_lists')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('territory')
        .doUpdateSet((eb) => ({
          xml: eb.ref('excluded.xml'),
          sha256: eb.ref('excluded.sha256'),
          sequence: eb.ref('excluded.sequence'),
          issued_at: eb.ref('excluded.issued_at'),
          next_update: eb.ref('excluded.next_update'),
          source_url: eb.ref('excluded.source_url'),
          fetched_at: eb.ref('excluded.fetched_at'),
        }))
        .where(sql<boolean>`coalesce(excluded.sequence, 0) >= coalesce(trusted_lists.sequence, 0)`),
    )
    .executeTakeFirst();
  return Number(stored.numInsertedOrUpdatedRows ?? 0) > 0;
}

/**
 * Takes the refresh when it is due (or when the last one was taken more than `intervalMs` ago: a shorter interval
 * applies at once), moving the next one `intervalMs` on. One conditional UPDATE: however many processes ask at the
 * same time, one gets true. The first call on an empty table makes the row, due at once.
 */
export async function claimTrustedListRefresh(db: Kysely<DB>, now: Date, intervalMs: number, by: string): Promise<boolean> {
  await db.insertInto('trusted_list_refresh').values({ name: REFRESH, due_at: now }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const r = await db
    .updateTable('trusted_list_refresh')
    .set({ due_at: new Date(now.getTime() + intervalMs), claimed_at: now, claimed_by: by })
    .where('name', '=', REFRESH)
    .where((eb) => eb.or([eb('due_at', '<=', now), eb('claimed_at', '<=', new Date(now.getTime() - intervalMs))]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** After a refresh by `by`: its error (null: it went well), and, after a failure, an earlier next try. */
export async function finishTrustedListRefresh(db: Conn, by: string, error: string | null, retryAt?: Date): Promise<void> {
  await db
    .updateTable('trusted_list_refresh')
    .set({ last_error: error?.slice(0, 2000) ?? null, ...(retryAt ? { due_at: retryAt } : {}) })
    .where('name', '=', REFRESH)
    .where('claimed_by', '=', by)
    .execute();
}

/** The pivot LOTLs followed after a signer rotation (migration 0018), oldest first, with their XML. */
export async function trustedListPivotRows(db: Conn): Promise<TrustedListPivotRow[]> {
  const rows = await db.selectFrom('trusted_list_pivots').selectAll().orderBy('position').execute();
  return rows.map((r) => ({ ...r, xml: new Uint8Array(r.xml) }));
}

/** What tells whether the stored chain changed: its pivots' URL and SHA-256, oldest first. */
export async function trustedListPivotVersions(db: Conn): Promise<Array<Pick<TrustedListPivotRow, 'url' | 'sha256'>>> {
  return db.selectFrom('trusted_list_pivots').select(['url', 'sha256']).orderBy('position').execute();
}

/** Replaces the stored chain by `rows` (oldest first; `position` is set here), in one transaction. */
export async function saveTrustedListPivots(db: Kysely<DB>, rows: Omit<TrustedListPivotRow, 'position'>[]): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom('trusted_list_pivots').execute();
    if (rows.length > 0) await tx.insertInto('trusted_list_pivots').values(rows.map((r, position) => ({ ...r, position }))).execute();
  });
}
