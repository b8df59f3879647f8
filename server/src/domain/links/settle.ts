import type { Services } from '../../context.ts';
import { settleAttempt } from './service.ts';

/**
 * An analysis finished (dossiers/hooks.ts): if it is the current attempt of a verification link's document, that
 * attempt is judged now. Found through the dossier holding it (`dossiers.verification_link_id`).
 */
export async function settleLinksOf(s: Services, analysisId: string): Promise<void> {
  const rows = await s.db
    .selectFrom('dossier_documents as dd')
    .innerJoin('dossiers as d', 'd.id', 'dd.dossier_id')
    .select('d.verification_link_id')
    .where('dd.analysis_id', '=', analysisId)
    .where('d.verification_link_id', 'is not', null)
    .execute();
  for (const r of rows) await settleAttempt(s, r.verification_link_id!, analysisId);
}
