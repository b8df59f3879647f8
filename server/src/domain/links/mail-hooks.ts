import { labelOf } from '../../catalogue/index.ts';
import type { VerificationLinkRow } from '../../db/schema.ts';
import type { Services } from '../../context.ts';
import { sendLinkEmail, sendResultsEmail, type DossierVerdictStatus, type QueueOptions } from '../../mail/index.ts';

/** A requested document's label for a person: the link's, else the first expected type's, else its key. */
export function documentLabel(d: VerificationLinkRow['documents'][number], locale: VerificationLinkRow['locale']): string {
  return d.label ?? (d.expect.length > 0 ? labelOf(d.expect[0], locale) : d.key);
}

async function requesterOf(s: Services, accountId: string): Promise<string> {
  const a = await s.db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirstOrThrow();
  return a.name;
}

/**
 * Where the links domain hands its two emails to the mail module (server/src/mail/), in the link's locale. A hook
 * that resolves means the email is in the shared outbox (the `emails` table); the link records `sent` /
 * `last_sent_at` or `results_sent` / `results_email_sent_at` once it went out (the follow-up in `opts`, run by the
 * mail sender). A hook that throws records nothing (logged). Tests may replace a hook (e.g. with one that fails).
 */
export const linkMail: {
  sendLink: ((s: Services, link: { row: VerificationLinkRow; url: string }, opts: QueueOptions) => Promise<void>) | null;
  sendResults: ((s: Services, link: { row: VerificationLinkRow; dossierStatus: DossierVerdictStatus | null }, opts: QueueOptions) => Promise<void>) | null;
} = {
  sendLink: async (s, { row, url }, opts) => {
    await sendLinkEmail(s, {
      to: row.notify_email!,
      requester: await requesterOf(s, row.account_id),
      url,
      expires_at: row.expires_at,
      documents: row.documents.map((d) => ({ label: documentLabel(d, row.locale) })),
      locale: row.locale,
    }, { accountId: row.account_id, ...opts });
  },
  sendResults: async (s, { row, dossierStatus }, opts) => {
    await sendResultsEmail(s, {
      to: row.results_email!,
      requester: await requesterOf(s, row.account_id),
      reference: row.reference,
      link_id: row.id,
      status: 'completed',
      dossier_verdict_status: dossierStatus,
      // Labels and outcomes only: nothing read from a document reaches this email.
      documents: row.documents.map((d) => ({ label: documentLabel(d, row.locale), outcome: d.outcome })),
      completed_at: row.completed_at ?? s.clock.now(),
      locale: row.locale,
    }, { accountId: row.account_id, ...opts });
  },
};
