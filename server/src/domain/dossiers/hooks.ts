import type { Services } from '../../http/context.ts';

/**
 * Called whenever an analysis that may belong to a dossier changes in a way its dossier's verdict depends on: it
 * finished (completed or failed), or a review decision was recorded. Recomputes the verdict of every dossier that
 * holds it and emits `dossier.verdict_changed` when the verdict changed. Idempotent; never throws for a missing row.
 */
export async function onAnalysisSettled(s: Services, analysisId: string): Promise<void> {
  // Loaded on first use: the pipeline imports this module, and the dossier service imports the pipeline.
  const { recomputeDossiersOf } = await import('./service.ts');
  try {
    await recomputeDossiersOf(s, analysisId);
  } catch (err) {
    // The analysis has finished whatever its dossiers say; a dossier judged late is judged again on its next read.
    s.logger.error({ err, analysis: analysisId }, 'could not judge the dossiers of an analysis again');
  }
  // #17: an upload of a verification link that finished after its request answered (the page polled) is judged now.
  try {
    const { settleLinksOf } = await import('../links/settle.ts');
    await settleLinksOf(s, analysisId);
  } catch (err) {
    s.logger.error({ err, analysis: analysisId }, 'could not judge a verification link attempt');
  }
}
