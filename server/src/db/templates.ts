import type { Kysely, Transaction } from 'kysely';
import type { DB, TemplateRow } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;
type Scope = { account_id: string; livemode: boolean };

/** jsonb columns: written as JSON text; `expect`, `documents`, `mask_fields`, `face_verification` keep SQL null for "not set". */
function serialise(row: Partial<TemplateRow>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  if ('expect' in row) out.expect = row.expect === null ? null : JSON.stringify(row.expect);
  if ('documents' in row) out.documents = row.documents === null ? null : JSON.stringify(row.documents);
  for (const k of ['mask_fields', 'face_verification'] as const) if (k in row) out[k] = row[k] === null || row[k] === undefined ? null : JSON.stringify(row[k]);
  for (const k of ['checks', 'extract', 'metadata'] as const) if (k in row) out[k] = JSON.stringify(row[k]);
  return out;
}

export async function insertTemplate(db: Conn, row: TemplateRow): Promise<void> {
  await db.insertInto('templates').values(serialise(row) as never).execute();
}

/** A template of this account and mode (another account's or mode's is not found). */
export async function findTemplate(db: Conn, scope: Scope, id: string): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
}

/** Newest first; `limit + 1` rows so the caller knows `has_more`. */
export async function listTemplates(db: Conn, scope: Scope, f: { limit: number; starting_after?: string }): Promise<TemplateRow[]> {
  let q = db.selectFrom('templates').selectAll().where('account_id', '=', scope.account_id).where('livemode', '=', scope.livemode);
  if (f.starting_after !== undefined) q = q.where('id', '<', f.starting_after);
  return q.orderBy('id', 'desc').limit(f.limit + 1).execute();
}

/** Writes the changed columns; false when the template is not (or no longer) there. */
export async function updateTemplate(db: Conn, scope: Scope, id: string, patch: Partial<TemplateRow>): Promise<boolean> {
  const r = await db
    .updateTable('templates')
    .set(serialise(patch) as never)
    .where('id', '=', id)
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Hard delete (see the migration); false when it was not there. */
export async function deleteTemplate(db: Conn, scope: Scope, id: string): Promise<boolean> {
  const r = await db.deleteFrom('templates').where('id', '=', id).where('account_id', '=', scope.account_id).where('livemode', '=', scope.livemode).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
