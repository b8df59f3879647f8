import type { Kysely, Transaction } from 'kysely';
import type { AnalysisRow, DB, DossierDocumentRow, DossierRow } from './schema.ts';

type Conn = Kysely<DB> | Transaction<DB>;
type Scope = { account_id: string; livemode: boolean };

export type NewDossier = Omit<DossierRow, 'verification_link_id'> & { verification_link_id?: string | null };

export async function insertDossier(db: Conn, row: NewDossier): Promise<void> {
  await db
    .insertInto('dossiers')
    .values({
      ...row,
      verification_link_id: row.verification_link_id ?? null,
      requirements: JSON.stringify(row.requirements),
      metadata: JSON.stringify(row.metadata),
      verdict: JSON.stringify(row.verdict),
      checks: JSON.stringify(row.checks),
    })
    .execute();
}

/** A dossier of this account and mode. */
export async function findDossier(db: Conn, scope: Scope, id: string): Promise<DossierRow | undefined> {
  return db.selectFrom('dossiers').selectAll().where('id', '=', id).where('account_id', '=', scope.account_id).where('livemode', '=', scope.livemode).executeTakeFirst();
}

/** The dossier, locked until the caller's transaction ends: one verdict computation at a time per dossier. */
export async function lockDossier(trx: Transaction<DB>, id: string): Promise<DossierRow | undefined> {
  return trx.selectFrom('dossiers').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Newest first; `limit + 1` rows so the caller knows `has_more`. */
export async function listDossiers(db: Conn, scope: Scope, f: { limit: number; starting_after?: string; reference?: string }): Promise<DossierRow[]> {
  let q = db.selectFrom('dossiers').selectAll().where('account_id', '=', scope.account_id).where('livemode', '=', scope.livemode);
  if (f.reference !== undefined) q = q.where('reference', '=', f.reference);
  if (f.starting_after !== undefined) q = q.where('id', '<', f.starting_after);
  return q.orderBy('id', 'desc').limit(f.limit + 1).execute();
}

export async function updateDossierVerdict(db: Conn, id: string, patch: { verdict: DossierRow['verdict']; checks: DossierRow['checks']; updated_at: Date }): Promise<void> {
  await db
    .updateTable('dossiers')
    .set({ verdict: JSON.stringify(patch.verdict), checks: JSON.stringify(patch.checks), updated_at: patch.updated_at })
    .where('id', '=', id)
    .execute();
}

export async function deleteDossier(db: Conn, id: string): Promise<void> {
  await db.deleteFrom('dossiers').where('id', '=', id).execute();
}

/** A dossier's documents in the order they were added (then by key), each with its analysis. */
export async function documentsOf(db: Conn, dossierId: string): Promise<Array<{ doc: DossierDocumentRow; analysis: AnalysisRow }>> {
  const docs = await db.selectFrom('dossier_documents').selectAll().where('dossier_id', '=', dossierId).orderBy('added_at').orderBy('key').execute();
  if (docs.length === 0) return [];
  const analyses = await db.selectFrom('analyses').selectAll().where('id', 'in', docs.map((d) => d.analysis_id)).execute();
  const byId = new Map(analyses.map((a) => [a.id, a]));
  // The foreign key removes a slot whose analysis is deleted; a row read between the two is skipped.
  return docs.filter((d) => byId.has(d.analysis_id)).map((doc) => ({ doc, analysis: byId.get(doc.analysis_id)! }));
}

/** Puts `analysisId` in slot `key`: a document already in that slot, or this analysis under another key, is replaced. */
export async function putDocument(db: Conn, row: DossierDocumentRow): Promise<void> {
  await db.deleteFrom('dossier_documents').where('dossier_id', '=', row.dossier_id).where((eb) => eb.or([eb('key', '=', row.key), eb('analysis_id', '=', row.analysis_id)])).execute();
  await db.insertInto('dossier_documents').values(row).execute();
}

export async function renameDocument(db: Conn, dossierId: string, from: string, to: string): Promise<void> {
  await db.updateTable('dossier_documents').set({ key: to, auto_key: false }).where('dossier_id', '=', dossierId).where('key', '=', from).execute();
}

/** The dossiers holding this analysis. */
export async function dossierIdsOfAnalysis(db: Conn, analysisId: string): Promise<string[]> {
  const rows = await db.selectFrom('dossier_documents').select('dossier_id').where('analysis_id', '=', analysisId).execute();
  return [...new Set(rows.map((r) => r.dossier_id))];
}
