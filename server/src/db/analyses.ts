import type { Insertable, Kysely, Transaction, Updateable } from 'kysely';
import type { AnalysesTable, AnalysisRow, DB, ExportRow } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;

/** The review columns (#16): null until the analysis finishes and enters review. */
type ReviewColumns = 'review_status' | 'review_decision' | 'review_assignee' | 'review_reviewed_by' | 'review_reviewed_at' | 'review_reason' | 'review_note' | 'review_entered_at';

export type NewAnalysis = Omit<AnalysisRow, 'credits_milli' | 'exports' | 'result' | 'error' | 'document_type' | 'started_at' | 'completed_at' | 'file_deleted_at' | ReviewColumns> & {
  /** Set when the analysis is born `processing` (a synchronous request runs it at once). */
  started_at?: Date | null;
};

/** Inserts the analysis and returns it as stored (defaults included). */
export async function insertAnalysis(db: Conn, row: NewAnalysis): Promise<AnalysisRow> {
  return db
    .insertInto('analyses')
    .values({
      ...row,
      options: JSON.stringify(row.options),
      metadata: JSON.stringify(row.metadata),
      result: null,
      error: null,
      document_type: null,
      started_at: row.started_at ?? null,
      completed_at: null,
      file_deleted_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Inserts an analysis that already ended (a synchronous test-mode reading, finished before anything was stored) with
 * its outcome, and returns it as stored.
 */
export async function insertFinishedAnalysis(db: Conn, row: NewAnalysis, outcome: Partial<AnalysisRow>): Promise<AnalysisRow> {
  const values = { result: null, error: null, document_type: null, completed_at: null, file_deleted_at: null, ...row, ...outcome };
  return db
    .insertInto('analyses')
    .values(serialisePatch(values as unknown as Updateable<AnalysesTable>) as Insertable<AnalysesTable>)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findAnalysisById(db: Conn, id: string): Promise<AnalysisRow | undefined> {
  return db.selectFrom('analyses').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An analysis of this account and mode, of the given kind, whose results are kept. */
export async function findAnalysis(db: Conn, scope: { account_id: string; livemode: boolean }, kind: 'analysis' | 'classification', id: string): Promise<AnalysisRow | undefined> {
  return db
    .selectFrom('analyses')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('kind', '=', kind)
    .where('keep_results', '=', true)
    .executeTakeFirst();
}

export interface AnalysisFilter {
  status?: AnalysisRow['status'];
  type?: string;
  metadata?: Record<string, string>;
  starting_after?: string;
  limit: number;
}

/**
 * The analyses a list may show to one account and mode: analyses (not classifications) whose results are kept, with the
 * `type` and `metadata` filters every list takes (metadata: all pairs must match).
 */
export function listableAnalyses(db: Conn, scope: { account_id: string; livemode: boolean }, f: { type?: string; metadata?: Record<string, string> }) {
  let q = db
    .selectFrom('analyses')
    .selectAll()
    .where('account_id', '=', scope.account_id)
    .where('livemode', '=', scope.livemode)
    .where('kind', '=', 'analysis')
    .where('keep_results', '=', true);
  if (f.type) q = q.where('document_type', '=', f.type);
  if (f.metadata && Object.keys(f.metadata).length > 0) q = q.where('metadata', '@>', JSON.stringify(f.metadata) as never);
  return q;
}

/** Newest first, filters before the limit; fetches limit + 1 rows so the caller knows `has_more`. */
export async function listAnalyses(db: Conn, scope: { account_id: string; livemode: boolean }, f: AnalysisFilter): Promise<AnalysisRow[]> {
  let q = listableAnalyses(db, scope, f);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.starting_after) q = q.where('id', '<', f.starting_after);
  return q.orderBy('id', 'desc').limit(f.limit + 1).execute();
}

function serialisePatch(patch: Updateable<AnalysesTable>): Updateable<AnalysesTable> {
  const values: Record<string, unknown> = { ...patch };
  for (const k of ['result', 'error', 'exports', 'options', 'metadata'] as const) {
    if (k in values && values[k] !== null && typeof values[k] !== 'string') values[k] = JSON.stringify(values[k]);
  }
  return values as Updateable<AnalysesTable>;
}

export async function updateAnalysis(db: Conn, id: string, patch: Updateable<AnalysesTable>): Promise<void> {
  await db.updateTable('analyses').set(serialisePatch(patch)).where('id', '=', id).execute();
}

/** Updates the analysis and returns it as it now is; undefined when it no longer exists (deleted meanwhile). */
export async function updateAnalysisReturning(db: Conn, id: string, patch: Updateable<AnalysesTable>): Promise<AnalysisRow | undefined> {
  return db.updateTable('analyses').set(serialisePatch(patch)).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteAnalysisRow(db: Conn, id: string): Promise<void> {
  await db.deleteFrom('analyses').where('id', '=', id).execute();
}

export async function insertExport(db: Conn, row: ExportRow): Promise<void> {
  await db.insertInto('exports').values(row).execute();
}

export async function findExport(db: Conn, id: string): Promise<ExportRow | undefined> {
  return db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function exportsOf(db: Conn, analysisId: string): Promise<ExportRow[]> {
  return db.selectFrom('exports').selectAll().where('analysis_id', '=', analysisId).execute();
}

/** Originals whose storage period ended (temporary storage), oldest first. */
export async function analysesWithExpiredFiles(db: Conn, now: Date, limit: number): Promise<Array<Pick<AnalysisRow, 'id' | 'file_key'>>> {
  return db
    .selectFrom('analyses')
    .select(['id', 'file_key'])
    .where('file_key', 'is not', null)
    .where('storage_expires_at', '<=', now)
    .orderBy('storage_expires_at')
    .limit(limit)
    .execute();
}

/** Writes an event; false (and nothing written) when its subject already has an event of that type. */
export async function insertEvent(
  db: Conn,
  row: { id: string; account_id: string; livemode: boolean; type: string; payload: Record<string, unknown>; subject_id: string | null; created_at: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('events')
    .values({ ...row, payload: JSON.stringify(row.payload) })
    .onConflict((oc) => oc.columns(['subject_id', 'type']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}
