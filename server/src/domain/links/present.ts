// A verification link as the API shows it (GET, create, list, and the body of its events).
import type { Kysely, Transaction } from 'kysely';
import type { components } from '../../../../generated/api.d.ts';
import type { Services } from '../../context.ts';
import type { AnalysisRow, DB, VerificationLinkRow } from '../../db/schema.ts';
import * as pipeline from '../analysis/pipeline.ts';
import type { Analysis } from '../analysis/presenter.ts';
import { analysesOf, urlOf } from './store.ts';

export type VerificationLink = components['schemas']['VerificationLink'];
type Conn = Kysely<DB> | Transaction<DB>;
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

// ---------------------------------------------------------------------------------------------------------------
// Presentation
// ---------------------------------------------------------------------------------------------------------------

export function finalStatusOf(s: Services, row: AnalysisRow | undefined): 'valid' | 'invalid' | null {
  if (!row || row.kind !== 'analysis' || row.status !== 'completed') return null;
  const a = pipeline.present(s, row) as Analysis;
  return ((a.verdict as { final_status?: 'valid' | 'invalid' | null } | null)?.final_status ?? null) as 'valid' | 'invalid' | null;
}

/** The link as the API shows it. `qr`: with `qr_svg` (create and the single GET). */
export async function toLink(s: Services, row: VerificationLinkRow, analyses: Map<string, AnalysisRow>, opts: { qr?: boolean } = {}): Promise<VerificationLink> {
  const url = await urlOf(s, row.id);
  const link: VerificationLink = {
    id: row.id,
    object: 'verification_link',
    url,
    // qrcode loads with the first link shown, not with the server.
    ...(opts.qr ? { qr_svg: await (await import('qrcode')).default.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }) } : {}),
    status: row.status,
    livemode: row.livemode,
    template: row.template,
    reference: row.reference,
    metadata: row.metadata,
    documents: row.documents.map((d) => ({
      key: d.key,
      label: d.label,
      expect: d.expect,
      checks: d.checks as VerificationLink['documents'][number]['checks'],
      status: d.status,
      analysis_id: d.analysis_id,
      attempts: d.attempts,
      verdict_status: d.verdict_status,
      final_status: d.analysis_id ? finalStatusOf(s, analyses.get(d.analysis_id)) : null,
      warnings: d.warnings as VerificationLink['documents'][number]['warnings'],
    })),
    dossier_id: row.dossier_id,
    expires_at: row.expires_at.toISOString(),
    redirect_url: row.redirect_url,
    redirect_with_status: row.redirect_with_status,
    callback_url: row.callback_url,
    include_results: row.include_results,
    results_email: row.results_email,
    results_email_sent_at: iso(row.results_email_sent_at),
    locale: row.locale,
    notify_email: row.notify_email,
    last_sent_at: iso(row.last_sent_at),
    show_result: row.show_result,
    consent_text: row.consent_text,
    consent: row.consent,
    mask_fields: row.mask_fields ?? [],
    events: row.events as VerificationLink['events'],
    created_at: row.created_at.toISOString(),
    completed_at: iso(row.completed_at),
    cancelled_at: iso(row.cancelled_at),
  };
  if (row.face_verification?.enabled) {
    link.face_verification = row.face_verification;
    link.face_match = row.face_match ?? { status: 'pending', score: null, analysis_id: null, checked_at: null };
  }
  return link;
}

export async function present(s: Services, db: Conn, row: VerificationLinkRow, opts: { qr?: boolean } = {}): Promise<VerificationLink> {
  const ids = row.documents.map((d) => d.analysis_id).filter((x): x is string => x !== null);
  return toLink(s, row, await analysesOf(db, ids), opts);
}
