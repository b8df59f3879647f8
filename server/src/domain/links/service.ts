/**
 * Verification links (#17): create, list, get, cancel; the attempts and outcome of each requested document; completion
 * and expiry with their webhook, callback and emails. The hosted page reaches links only through page.ts (by token).
 *
 * The URL's token: `HMAC-SHA256(K, link id)` in base64url (32 bytes, unguessable without K), K derived from the
 * service's signing secret (COTEJO_SIGNING_SECRET, else the stored one signed URLs use). Only its SHA-256 is stored
 * (`token_hash`, for the page's lookup); GET recomputes the URL. Rotating the signing secret invalidates every link URL.
 *
 * Every change of a link happens under its row lock (SELECT ... FOR UPDATE), so a transition (completed, expired,
 * cancelled) happens once, and with it its event, webhook and callback.
 */
import crypto from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { components } from '../../../../generated/api.d.ts';
import type { Language } from '../../catalogue/index.ts';
import type { AnalysisRow, DB, LinkDocumentState, VerificationLinkRow } from '../../db/schema.ts';
import type { Auth, Services } from '../../context.ts';
import { ApiError, resourceMissing } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { refuseTarget } from '../../webhooks/sender.ts';
import * as pipeline from '../analysis/pipeline.ts';
import { emitEvent } from '../events.ts';
import { createDossier, recompute } from '../dossiers/service.ts';
import type { Requirement } from '../dossiers/verdict.ts';
import { maskAnalysis } from '../analysis/mask.ts';
import { faceVerificationOf, getTemplateForRequest, resolveExpectList, resolveMaskFields, type Template } from '../templates.ts';
import * as jobs from '../../jobs/queue.ts';
import { LINK_EMAIL_QUEUE } from '../../jobs/queues.ts';
import { MailError, type DossierVerdictStatus } from '../../mail/index.ts';
import { onEmailSent } from '../../mail/queue.ts';
import { linkMail } from './mail-hooks.ts';
import { present, toLink, type VerificationLink } from './present.ts';
import { analysesOf, findLink, hashToken, insertLink, lockLink, tokenKey, tokenOf, updateLink, urlOf, type NewLink } from './store.ts';

export type { VerificationLink };
export { findLinkByToken } from './store.ts';

type CreateBody = components['schemas']['CreateVerificationLinkRequest'];
type Conn = Kysely<DB> | Transaction<DB>;

/** Attempts allowed per requested document. */
export const MAX_ATTEMPTS = 5;
/** Quality warnings that ask the person for another photo (with a non-valid verdict, the document can be redone). */
const RETRY_WARNINGS: ReadonlySet<string> = new Set(['blurry', 'glare', 'cropped', 'low_quality', 'side_missing']);
const ACTIVE = ['pending', 'in_progress'] as const;

const scope = (auth: Auth) => ({ account_id: auth.account.id, livemode: auth.livemode });

// ---------------------------------------------------------------------------------------------------------------
// API operations
// ---------------------------------------------------------------------------------------------------------------

/** `callback_url`: https, no credentials, not a loopback/private literal (DNS names are judged again when sending). */
function checkCallbackUrl(s: Services, raw: string): void {
  const why = refuseTarget(raw, s.config.allowPrivateUrls);
  if (why) throw new ApiError(422, 'invalid_url', `callback_url no es válida: debe ser una URL https pública (${why.replace(/^the endpoint URL /, '')}).`, 'callback_url');
}

function documentsOf(body: CreateBody, template: Template | null): LinkDocumentState[] {
  const state = (key: string, label: string | null, expect: string[], checks: Record<string, unknown>): LinkDocumentState => ({
    key, label, expect, checks, status: 'pending', analysis_id: null, attempts: 0, verdict_status: null, warnings: [], outcome: null,
  });
  if (body.documents) {
    const seen = new Set<string>();
    return body.documents.map((d, i) => {
      if (seen.has(d.key)) throw new ApiError(422, 'invalid_parameter', `La clave '${d.key}' está repetida en documents.`, `documents.${i}.key`);
      seen.add(d.key);
      const expect = d.expect !== undefined ? resolveExpectList(d.expect, `documents.${i}.expect`) : [];
      return state(d.key, d.label ?? null, expect, (d.checks ?? {}) as Record<string, unknown>);
    });
  }
  if (template?.documents && template.documents.length > 0) {
    return template.documents.map((d) => state(d.key, d.label ?? null, [...d.expect], { ...((d.checks ?? {}) as Record<string, unknown>) }));
  }
  if (template?.expect && template.expect.length > 0) return [state('document', null, [...template.expect], { ...((template.checks ?? {}) as Record<string, unknown>) })];
  throw new ApiError(422, 'documents_required', 'Indica los documentos que se piden (documents) o una plantilla (template) con expect.', 'documents');
}

/** The account's callback secret of this mode, made on first use (returned for the CLI). */
export async function callbackSecretOf(db: Conn, accountId: string, livemode: boolean): Promise<string> {
  const column = livemode ? 'callback_secret_live' : 'callback_secret_test';
  const made = `whsec_${crypto.randomBytes(24).toString('base64')}`;
  await db.updateTable('accounts').set({ [column]: made }).where('id', '=', accountId).where(column, 'is', null).execute();
  const row = await db.selectFrom('accounts').select(column).where('id', '=', accountId).executeTakeFirstOrThrow();
  return (row as Record<string, string>)[column];
}

export async function createLink(s: Services, auth: Auth, body: CreateBody): Promise<VerificationLink> {
  if (body.callback_url !== undefined && body.callback_url !== null) checkCallbackUrl(s, body.callback_url);
  const template = body.template ? await getTemplateForRequest(s, auth, body.template, 'template') : null;
  // The template's selfie module and masked fields, unless the link sets its own (null: none); a module the account
  // does not have is 403 face_verification_not_enabled (faceVerificationOf).
  const face = faceVerificationOf(auth, body.face_verification !== undefined ? body.face_verification : template?.face_verification);
  const mask = body.mask_fields !== undefined && body.mask_fields !== null ? resolveMaskFields(body.mask_fields, 'mask_fields') : body.mask_fields === null ? [] : (template?.mask_fields ?? []);
  const documents = documentsOf(body, template);
  const now = s.clock.now();
  const id = newId('verification_link', now.getTime());
  const token = await tokenOf(s, id);
  const locale = (body.locale ?? template?.language ?? 'es') as Language;
  const metadata = (body.metadata as Record<string, string> | undefined) ?? {};
  const row: NewLink = {
    id,
    account_id: auth.account.id,
    livemode: auth.livemode,
    token_hash: hashToken(token),
    status: 'pending',
    template: template?.id ?? null,
    reference: body.reference ?? null,
    metadata,
    documents,
    dossier_id: null,
    expires_at: new Date(now.getTime() + (body.expires_in_hours ?? 72) * 3_600_000),
    redirect_url: body.redirect_url ?? null,
    redirect_with_status: body.redirect_with_status ?? false,
    callback_url: body.callback_url ?? null,
    include_results: body.include_results ?? true,
    results_email: body.results_email ?? null,
    results_email_sent_at: null,
    locale,
    notify_email: body.notify_email ?? null,
    last_sent_at: null,
    show_result: body.show_result ?? auth.account.link_show_result,
    consent_text: body.consent_text ?? auth.account.link_consent_text ?? null,
    consent: null,
    events: [{ type: 'created', at: now.toISOString() }],
    face_verification: face,
    mask_fields: mask,
    face_match: face ? { status: 'pending', score: null, analysis_id: null, checked_at: null } : null,
    created_at: now,
    completed_at: null,
    cancelled_at: null,
  };
  const requirements: Requirement[] = documents.map((d) => ({ key: d.key, label: d.label, expect: d.expect, checks: d.checks as Requirement['checks'] }));
  await s.db.transaction().execute(async (trx) => {
    // The dossier is born with the link, in the same transaction (both or neither).
    const dossier = await createDossier(
      s,
      auth,
      { reference: row.reference ?? undefined, language: locale, metadata, ...(row.template ? { template: row.template } : {}) } as never,
      { requirements, verificationLinkId: id, within: trx },
    );
    row.dossier_id = dossier.id;
    await insertLink(trx, row);
    if (row.callback_url) await callbackSecretOf(trx, auth.account.id, auth.livemode);
    // The email goes out from the job queue, durably: committed with the link, retried while the mail server is away.
    if (row.notify_email) await queueLinkEmail(s, trx, { link: id, email: 'link' });
  });
  const stored = (await findLink(s.db, scope(auth), id))!;
  return present(s, s.db, stored, { qr: true });
}

// ---------------------------------------------------------------------------------------------------------------
// Emails (server/src/mail through mail-hooks.ts), sent by jobs of their own queue
// ---------------------------------------------------------------------------------------------------------------

export { LINK_EMAIL_QUEUE };
/** Delays before another try of an email the mail server refused for now (then the job has failed: logged). */
const LINK_EMAIL_RETRY_MS = [30_000, 2 * 60_000, 10 * 60_000, 60 * 60_000, 6 * 3600_000];
const LINK_EMAIL_LEASE_MS = 2 * 60_000;

interface LinkEmailJob {
  link: string;
  email: 'link' | 'results';
  dossier_status?: DossierVerdictStatus | null;
}

async function queueLinkEmail(s: Services, trx: Transaction<DB>, job: LinkEmailJob): Promise<void> {
  await jobs.enqueue(trx, s.clock, LINK_EMAIL_QUEUE, { ...job }, { maxAttempts: LINK_EMAIL_RETRY_MS.length + 1 });
}

/**
 * Sends the next due link email, if any (the worker's loop; tests call it directly). A transient failure (mail server
 * unreachable, 4xx) is tried again later; a permanent one (the address or the message refused) ends the job. The link
 * records `sent` / `last_sent_at` or `results_sent` / `results_email_sent_at` only once the email went out. Returns
 * whether a job was run.
 */
export async function runOneLinkEmailJob(s: Services): Promise<boolean> {
  const job = await jobs.claim(s.db, s.clock, LINK_EMAIL_QUEUE, LINK_EMAIL_LEASE_MS);
  if (!job) return false;
  const p = job.payload as unknown as LinkEmailJob;
  try {
    // Into the shared outbox (server/src/mail/queue.ts sends it, retrying while the mail server is away); keyed by
    // the job, so a job run again after a crash queues it once.
    if (p.email === 'link') await sendLinkEmail(s, p.link, job.id);
    else await sendResultsEmail(s, p.link, p.dossier_status ?? null, job.id);
    await jobs.complete(s.db, s.clock, job.id);
  } catch (err) {
    const transient = !(err instanceof MailError) || err.transient;
    const delay = LINK_EMAIL_RETRY_MS[Math.min(job.attempts - 1, LINK_EMAIL_RETRY_MS.length - 1)];
    const next = transient ? await jobs.fail(s.db, s.clock, job, String((err as Error)?.message ?? err), delay) : 'failed';
    if (!transient) await jobs.complete(s.db, s.clock, job.id);
    // The mail module's messages never hold the password, the recipient or the body.
    s.logger.error({ err, link: p.link, email: p.email, attempt: job.attempts, next }, next === 'retry' ? 'could not queue a link email; trying again later' : 'could not queue a link email; giving up');
  }
  return true;
}

/** Queues the link email (not for a link that is no longer active); event `sent` and `last_sent_at` once it went out. */
async function sendLinkEmail(s: Services, linkId: string, key: string): Promise<void> {
  const row = await s.db.selectFrom('verification_links').selectAll().where('id', '=', linkId).executeTakeFirst();
  if (!row?.notify_email || !linkMail.sendLink || !(ACTIVE as readonly string[]).includes(row.status)) return;
  await linkMail.sendLink(s, { row: row as VerificationLinkRow, url: await urlOf(s, row.id) }, { key, followUp: { topic: 'link_sent', ref: row.id } });
}

onEmailSent('link_sent', async (s, email) => {
  const at = email.sent_at!;
  await s.db.transaction().execute(async (trx) => {
    const locked = await lockLink(trx, email.ref!);
    if (!locked) return;
    const events = [...locked.events, { type: 'sent', at: at.toISOString(), email: email.to_address }];
    await updateLink(trx, locked.id, { events, last_sent_at: at });
  });
});

export async function getLink(s: Services, auth: Auth, id: string): Promise<VerificationLink> {
  let row = await findLink(s.db, scope(auth), id);
  if (!row) throw resourceMissing(id);
  // Past its time but not yet swept: expired now (event, webhook and callback as the sweep sends them), so that what
  // the API answers never contradicts the hosted page, which already refuses it.
  if (isPastExpiry(s, row) && (await expireLink(s, id))) row = (await findLink(s.db, scope(auth), id))!;
  return present(s, s.db, row, { qr: true });
}

export async function listLinks(
  s: Services,
  auth: Auth,
  q: { limit: number; starting_after?: string; status?: VerificationLinkRow['status']; reference?: string; metadata?: Record<string, string> },
): Promise<{ data: VerificationLink[]; has_more: boolean }> {
  await expireDueLinks(s, auth);
  let query = s.db.selectFrom('verification_links').selectAll().where('account_id', '=', auth.account.id).where('livemode', '=', auth.livemode);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.reference !== undefined) query = query.where('reference', '=', q.reference);
  if (q.metadata && Object.keys(q.metadata).length > 0) query = query.where('metadata', '@>', JSON.stringify(q.metadata) as never);
  if (q.starting_after !== undefined) query = query.where('id', '<', q.starting_after);
  const rows = await query.orderBy('id', 'desc').limit(q.limit + 1).execute();
  const page = rows.slice(0, q.limit);
  const ids = page.flatMap((r) => r.documents.map((d) => d.analysis_id).filter((x): x is string => x !== null));
  const analyses = await analysesOf(s.db, ids);
  return { data: await Promise.all(page.map((r) => toLink(s, r, analyses))), has_more: rows.length > q.limit };
}

export async function cancelLink(s: Services, auth: Auth, id: string): Promise<VerificationLink> {
  const found = await findLink(s.db, scope(auth), id);
  if (!found) throw resourceMissing(id);
  // A link past its time is expired (not cancellable), whether or not the sweep has been by.
  if (isPastExpiry(s, found)) await expireLink(s, id);
  const row = await s.db.transaction().execute(async (trx) => {
    const locked = (await lockLink(trx, id))!;
    if (locked.status === 'cancelled') return locked;
    if (locked.status === 'completed' || locked.status === 'expired') {
      throw new ApiError(409, 'link_not_active', `El enlace está ${locked.status === 'completed' ? 'completado' : 'caducado'}: no se puede cancelar.`);
    }
    const now = s.clock.now();
    const events = [...locked.events, { type: 'cancelled', at: now.toISOString() }];
    await updateLink(trx, id, { status: 'cancelled', cancelled_at: now, events });
    return { ...locked, status: 'cancelled' as const, cancelled_at: now, events };
  });
  return present(s, s.db, row);
}

// ---------------------------------------------------------------------------------------------------------------
// Attempts, completion, expiry
// ---------------------------------------------------------------------------------------------------------------

/** How one finished attempt ends: it counts (accepted), another photo is asked for (retry), or attempts ran out (rejected). */
function judgeAttempt(analysis: AnalysisRow, attempts: number): { result: 'accepted' | 'retry' | 'rejected'; verdict: LinkDocumentState['verdict_status']; warnings: string[] } {
  const result = (analysis.result ?? null) as { verdict?: { status?: 'valid' | 'invalid' | 'review'; reasons?: Array<{ code: string }> } | null; warnings?: string[] } | null;
  const warnings = analysis.status === 'completed' ? [...(result?.warnings ?? [])] : [];
  const verdict = analysis.status === 'completed' ? (result?.verdict?.status ?? null) : null;
  // Characters (or fields) read too unsure to check them: a sharper photo may settle it (docs/validators.md).
  const unsure = (result?.verdict?.reasons ?? []).some((r) => r.code === 'low_confidence');
  // A failed reading, or quality warnings (or an unsure reading) that ask for another photo with a verdict that is
  // not valid: redo it.
  const redo = analysis.status === 'failed' || (verdict !== 'valid' && (unsure || warnings.some((w) => RETRY_WARNINGS.has(w))));
  if (!redo) return { result: 'accepted', verdict, warnings };
  return { result: attempts < MAX_ATTEMPTS ? 'retry' : 'rejected', verdict, warnings };
}

/** The link is past its time but not yet swept: effectively expired. */
export function isPastExpiry(s: Services, row: VerificationLinkRow): boolean {
  return (row.status === 'pending' || row.status === 'in_progress') && row.expires_at.getTime() <= s.clock.now().getTime();
}

/**
 * Judges the attempt `analysisId` of a link document once its analysis has finished: the document's outcome, its
 * events, and the link's completion when every document has an outcome. Idempotent; a no-op while the analysis
 * runs or when that attempt is no longer the document's current one.
 */
export async function settleAttempt(s: Services, linkId: string, analysisId: string): Promise<'accepted' | 'retry' | 'rejected' | 'processing' | null> {
  const analysis = (await analysesOf(s.db, [analysisId])).get(analysisId);
  if (analysis && analysis.status !== 'completed' && analysis.status !== 'failed') return 'processing';
  await tokenKey(s); // read before the transaction below presents the link
  const summary = await dossierSummaryOf(s, linkId);
  const dossierStatus = (summary?.verdict as { status?: DossierVerdictStatus } | undefined)?.status ?? null;
  const outcome = await s.db.transaction().execute(async (trx) => {
    const row = await lockLink(trx, linkId);
    if (!row) return null;
    const idx = row.documents.findIndex((d) => d.analysis_id === analysisId);
    if (idx < 0) return null;
    const doc = row.documents[idx];
    // A new upload claimed the document since (page.ts): this analysis is no longer the attempt being judged.
    if (doc.upload) return null;
    if (doc.status !== 'processing') return doc.outcome ?? (doc.status === 'pending' ? 'retry' : null);
    const now = s.clock.now().toISOString();
    const judged = analysis ? judgeAttempt(analysis, doc.attempts) : { result: doc.attempts < MAX_ATTEMPTS ? ('retry' as const) : ('rejected' as const), verdict: null, warnings: [] };
    const documents = [...row.documents];
    const events = [...row.events];
    documents[idx] = {
      ...doc,
      warnings: judged.warnings,
      verdict_status: judged.verdict,
      status: judged.result === 'accepted' ? 'completed' : judged.result === 'retry' ? 'pending' : 'failed',
      outcome: judged.result === 'retry' ? null : judged.result,
    };
    if (judged.result === 'accepted') events.push({ type: 'document_accepted', at: now, document_key: doc.key });
    if (judged.result === 'rejected') events.push({ type: 'document_rejected', at: now, document_key: doc.key });
    const patch: Partial<NewLink> = { documents, events };
    const active = row.status === 'pending' || row.status === 'in_progress';
    if (active && documents.every((d) => d.outcome !== null)) {
      const at = s.clock.now();
      events.push({ type: 'completed', at: at.toISOString() });
      Object.assign(patch, { status: 'completed', completed_at: at });
    }
    await updateLink(trx, linkId, patch);
    const updated = { ...row, ...patch } as VerificationLinkRow;
    if (patch.status === 'completed') {
      await emitLinkEvent(s, trx, updated, 'verification_link.completed', summary);
      if (updated.results_email) await queueLinkEmail(s, trx, { link: linkId, email: 'results', dossier_status: dossierStatus });
    }
    return judged.result;
  });
  return outcome;
}

/** `{ id, verdict }` of the link's dossier, judged now (in the dossier's language, the link's locale). */
async function dossierSummaryOf(s: Services, linkId: string): Promise<{ id: string; verdict: unknown } | null> {
  const row = await s.db.selectFrom('verification_links').select('dossier_id').where('id', '=', linkId).executeTakeFirst();
  if (!row?.dossier_id) return null;
  const d = await recompute(s, row.dossier_id);
  return d ? { id: d.id, verdict: d.verdict } : null;
}

/**
 * `data` of the link events: the link without `qr_svg`, `results` when `include_results` (each requested document in
 * order, with the analysis that counts: no `file_url`), and the dossier summary.
 */
async function eventData(s: Services, db: Conn, row: VerificationLinkRow, dossier: { id: string; verdict: unknown } | null): Promise<Record<string, unknown>> {
  const ids = row.documents.map((d) => d.analysis_id).filter((x): x is string => x !== null);
  const analyses = await analysesOf(db, ids);
  const link = await toLink(s, row, analyses);
  const data: Record<string, unknown> = { ...link };
  if (row.include_results) {
    data.results = row.documents.map((d) => {
      const a = d.analysis_id ? analyses.get(d.analysis_id) : undefined;
      let analysis: Record<string, unknown> | null = null;
      if (a) {
        // With the link's mask_fields applied (docs/verification-links.md, "Masked fields").
        analysis = { ...(maskAnalysis(pipeline.present(s, a), row.mask_fields) as unknown as Record<string, unknown>) };
        // Embedded analyses carry no signed link to the original (the specification).
        delete analysis.file_url;
      }
      return { document_key: d.key, label: d.label, analysis };
    });
  }
  data.dossier = dossier;
  return data;
}

/** The link's webhook event and, when it has one, the same body POSTed to its `callback_url`, in `trx`. */
async function emitLinkEvent(s: Services, trx: Transaction<DB>, row: VerificationLinkRow, type: string, dossier: { id: string; verdict: unknown } | null): Promise<void> {
  const data = await eventData(s, trx, row, dossier);
  // The callback gets the very body the endpoints get (same bytes; its own message id and signature).
  await emitEvent(s, row, type, data, { within: trx, subject: row.id, callback: row.callback_url ? { url: row.callback_url, linkId: row.id } : null });
}

/** Queues the summary of a completed link (once); `results_email_sent_at` and event `results_sent` once it went out. */
async function sendResultsEmail(s: Services, linkId: string, dossierStatus: DossierVerdictStatus | null, key: string): Promise<void> {
  const row = (await s.db.selectFrom('verification_links').selectAll().where('id', '=', linkId).executeTakeFirst()) as VerificationLinkRow | undefined;
  if (!row?.results_email || row.results_email_sent_at || !linkMail.sendResults) return;
  await linkMail.sendResults(s, { row, dossierStatus }, { key, followUp: { topic: 'results_sent', ref: row.id } });
}

onEmailSent('results_sent', async (s, email) => {
  const at = email.sent_at!;
  await s.db.transaction().execute(async (trx) => {
    const locked = await lockLink(trx, email.ref!);
    if (!locked || locked.results_email_sent_at) return;
    await updateLink(trx, locked.id, { results_email_sent_at: at, events: [...locked.events, { type: 'results_sent', at: at.toISOString(), email: email.to_address }] });
  });
});

/** Expires one active link past its time: status, event, webhook and callback (once). True when it did. */
export async function expireLink(s: Services, linkId: string): Promise<boolean> {
  const summary = await dossierSummaryOf(s, linkId);
  await tokenKey(s); // read before the transaction below presents the link
  return s.db.transaction().execute(async (trx) => {
    const row = await lockLink(trx, linkId);
    if (!row || !isPastExpiry(s, row)) return false;
    const events = [...row.events, { type: 'expired', at: s.clock.now().toISOString() }];
    await updateLink(trx, linkId, { status: 'expired', events });
    await emitLinkEvent(s, trx, { ...row, status: 'expired', events }, 'verification_link.expired', summary);
    return true;
  });
}

/** The durable sweep (worker.ts): every active link past its `expires_at` becomes expired. Returns how many. */
/**
 * Expires the links past their time and not yet swept, 100 at a time: every account's (the worker's sweep) or, with
 * `auth`, one account's in one mode (before a list reads them, so that the list never shows an expired link active).
 */
export async function expireDueLinks(s: Services, auth?: Auth): Promise<number> {
  let n = 0;
  for (;;) {
    let query = s.db
      .selectFrom('verification_links')
      .select('id')
      .where('status', 'in', [...ACTIVE])
      .where('expires_at', '<=', s.clock.now());
    if (auth) query = query.where('account_id', '=', auth.account.id).where('livemode', '=', auth.livemode);
    const due = await query.orderBy('expires_at').limit(100).execute();
    if (due.length === 0) return n;
    let moved = 0;
    for (const { id } of due) if (await expireLink(s, id)) moved++;
    n += moved;
    if (moved === 0) return n;
  }
}

// Used by page.ts.
export { lockLink, updateLink };
