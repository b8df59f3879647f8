/**
 * What the hosted verification page (server/src/web/) needs from verification links, and nothing more. The page
 * never sees a link id or an account: only the secret token of its URL. Every function answers `null` (or throws
 * `LinkUnavailable`) for a token that is unknown, or whose link is no longer active, so the page can say so.
 *
 * Contract between the links work (implements these in server/src/domain/links/) and the hosted page work (uses
 * them). Signatures are fixed; implementations replace the bodies.
 */
import type { Language } from '../../catalogue/index.ts';
import crypto from 'node:crypto';
import type { LinkDocumentState, VerificationLinkRow } from '../../db/schema.ts';
import type { Auth, Services } from '../../context.ts';
import { accountDefaults, normaliseOptions, type AnalyzeOptions } from '../analysis/options.ts';
import { addDocument } from '../dossiers/service.ts';
import type { Template } from '../templates.ts';
import { documentLabel } from './mail-hooks.ts';
import { findLinkByToken, isPastExpiry, lockLink, MAX_ATTEMPTS, settleAttempt, updateLink, expireLink } from './service.ts';

export type LinkStatus = 'pending' | 'in_progress' | 'completed' | 'expired' | 'cancelled';

/** Why an upload or a step is refused on the page (the page shows a localised message for each). */
export class LinkUnavailable extends Error {
  readonly reason: 'unknown' | 'expired' | 'cancelled' | 'completed';
  constructor(reason: LinkUnavailable['reason']) {
    super(`verification link ${reason}`);
    this.reason = reason;
  }
}

/**
 * An upload before consent was given (the page shows the consent step again). Not a LinkUnavailable: the link is
 * active. (Added by the links work: the contract's reasons name link states only.)
 */
export class ConsentRequired extends Error {
  constructor() {
    super('consent not given');
  }
}

/**
 * An upload for a key the link does not ask for (`reason: 'unknown_key'`), or for a document that takes no more
 * uploads: accepted, out of attempts, or an attempt still being checked (`reason: 'closed'`). (Added by the links work.)
 */
export class DocumentClosed extends Error {
  readonly reason: 'unknown_key' | 'closed';
  constructor(reason: DocumentClosed['reason']) {
    super(reason === 'unknown_key' ? 'unknown document key' : 'document closed');
    this.reason = reason;
  }
}

export interface PageDocument {
  key: string;
  /** The link's label, else the first expected type's label in the link's locale. */
  label: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  /** `accepted` once a good attempt counts; `rejected` when attempts ran out without one. */
  outcome: 'accepted' | 'rejected' | null;
  attempts: number;
  attempts_left: number;
  /** Quality warnings of the last attempt (blurry, glare, cropped...). */
  warnings: string[];
  /** Shown only when the link's `show_result` is true; null otherwise or while unfinished. */
  verdict_status: 'valid' | 'invalid' | 'review' | null;
}

/** Everything the page renders for one link. */
export interface PageView {
  status: LinkStatus;
  locale: Language;
  /** Who asks: the account's name. */
  requester: string;
  /** Consent text to accept (the link's, else the account's, else the default in the locale). */
  consent_text: string;
  consent_accepted: boolean;
  show_result: boolean;
  documents: PageDocument[];
  /** Where to send the person at the end (with `link_id` and `status` when `redirect_with_status`), or null. */
  redirect_url: string | null;
  expires_at: string;
  livemode: boolean;
}

/** The outcome of one upload for the page. */
export interface UploadOutcome {
  view: PageView;
  key: string;
  /** `accepted`: it counts; `retry`: quality warnings ask for another photo and attempts remain; `rejected`: no attempts left. `processing`: still running (the page polls the view). */
  result: 'accepted' | 'retry' | 'rejected' | 'processing';
  warnings: string[];
}

/** Default consent texts, when neither the link nor the account has one. */
const DEFAULT_CONSENT: Record<Language, string> = {
  es: 'Acepto que {name} trate los documentos que suba aquí para verificar mi identidad y mi documentación, conforme a su política de privacidad.',
  en: 'I agree that {name} may process the documents I upload here to verify my identity and documents, under its privacy policy.',
  pt: 'Aceito que {name} trate os documentos que carregar aqui para verificar a minha identidade e documentação, nos termos da sua política de privacidade.',
  fr: "J'accepte que {name} traite les documents que je télécharge ici pour vérifier mon identité et mes documents, conformément à sa politique de confidentialité.",
};

async function accountOf(s: Services, accountId: string) {
  return s.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
}

function consentTextOf(row: VerificationLinkRow, account: { name: string; link_consent_text: string | null }): string {
  return row.consent_text ?? account.link_consent_text ?? DEFAULT_CONSENT[row.locale].replace('{name}', account.name);
}

/** The status the page shows: an active link past its time is expired even before the sweep gets to it. */
function statusOf(s: Services, row: VerificationLinkRow): LinkStatus {
  return isPastExpiry(s, row) ? 'expired' : row.status;
}

function redirectOf(row: VerificationLinkRow, status: LinkStatus): string | null {
  if (!row.redirect_url) return null;
  if (!row.redirect_with_status) return row.redirect_url;
  const u = new URL(row.redirect_url);
  u.searchParams.set('link_id', row.id);
  u.searchParams.set('status', status);
  return u.toString();
}

async function viewOf(s: Services, row: VerificationLinkRow): Promise<PageView> {
  const account = await accountOf(s, row.account_id);
  const status = statusOf(s, row);
  return {
    status,
    locale: row.locale,
    requester: account.name,
    consent_text: consentTextOf(row, account),
    consent_accepted: row.consent !== null,
    show_result: row.show_result,
    documents: row.documents.map((d) => (staleClaim(s, d) ? released(d) : d)).map((d) => ({
      key: d.key,
      label: documentLabel(d, row.locale),
      status: d.status,
      outcome: d.outcome,
      attempts: d.attempts,
      attempts_left: d.outcome !== null ? 0 : Math.max(0, MAX_ATTEMPTS - d.attempts),
      warnings: d.warnings,
      verdict_status: row.show_result && d.outcome !== null ? d.verdict_status : null,
    })),
    redirect_url: redirectOf(row, status),
    expires_at: row.expires_at.toISOString(),
    livemode: row.livemode,
  };
}

/** Active, or why not (an active link past its time is expired on the spot). */
async function mustBeActive(s: Services, row: VerificationLinkRow): Promise<void> {
  if (isPastExpiry(s, row)) {
    await expireLink(s, row.id);
    throw new LinkUnavailable('expired');
  }
  if (row.status !== 'pending' && row.status !== 'in_progress') throw new LinkUnavailable(row.status);
}

/** The page's view of the link, or null for an unknown token. Never changes the link. */
export async function viewByToken(s: Services, token: string): Promise<PageView | null> {
  const row = await findLinkByToken(s.db, token);
  return row ? viewOf(s, row) : null;
}

/** The person opened the page: records `opened` once (first open) and answers the view; null for an unknown token. */
export async function openByToken(s: Services, token: string): Promise<PageView | null> {
  const found = await findLinkByToken(s.db, token);
  if (!found) return null;
  if (statusOf(s, found) !== found.status || found.events.some((e) => e.type === 'opened') || (found.status !== 'pending' && found.status !== 'in_progress')) {
    return viewOf(s, found);
  }
  const row = await s.db.transaction().execute(async (trx) => {
    const locked = (await lockLink(trx, found.id))!;
    if (locked.events.some((e) => e.type === 'opened')) return locked;
    const events = [...locked.events, { type: 'opened', at: s.clock.now().toISOString() }];
    await updateLink(trx, locked.id, { events });
    return { ...locked, events };
  });
  return viewOf(s, row);
}

/** Records consent (`consent` object, `consent_accepted` event; `ip` of the request). Throws LinkUnavailable. */
export async function acceptConsent(s: Services, token: string, ip: string): Promise<PageView> {
  const found = await findLinkByToken(s.db, token);
  if (!found) throw new LinkUnavailable('unknown');
  await mustBeActive(s, found);
  const account = await accountOf(s, found.account_id);
  const row = await s.db.transaction().execute(async (trx) => {
    const locked = (await lockLink(trx, found.id))!;
    if (locked.status !== 'pending' && locked.status !== 'in_progress') throw new LinkUnavailable(locked.status);
    if (locked.consent) return locked; // accepted once: the first acceptance stands
    const at = s.clock.now().toISOString();
    const consent = { accepted_at: at, ip, text: consentTextOf(locked, account) };
    const events = [...locked.events, { type: 'consent_accepted', at }];
    // Consent starts the person's work on the link: pending -> in_progress.
    await updateLink(trx, locked.id, { consent, events, status: 'in_progress' });
    return { ...locked, consent, events, status: 'in_progress' as const };
  });
  return viewOf(s, row);
}

/**
 * How long an upload may hold its document (claimed, no analysis yet) before another upload may take it over: far
 * more than intake and the 30 s synchronous wait take; only a process that died in between leaves a claim this old.
 */
export const UPLOAD_CLAIM_TTL_MS = 15 * 60_000;

/** A claim left behind by a process that died mid-upload: it no longer holds the document. */
const staleClaim = (s: Services, d: LinkDocumentState): boolean => !!d.upload && s.clock.now().getTime() - Date.parse(d.upload.at) > UPLOAD_CLAIM_TTL_MS;

/** The document as it was before `d`'s claim: not processing, the claim's attempt not counted. */
const released = (d: LinkDocumentState): LinkDocumentState => ({ ...d, status: 'pending', attempts: Math.max(0, d.attempts - 1), upload: null });

/**
 * Claims the next attempt of the document `key` under the link's row lock, before any analysis is made: the attempt is
 * counted and the document is `processing`, so every other upload of it is refused (DocumentClosed) until this one is
 * judged or released. At most MAX_ATTEMPTS ever, and one in flight per document. Returns the claim's id.
 */
async function claimUpload(s: Services, linkId: string, key: string): Promise<string> {
  return s.db.transaction().execute(async (trx) => {
    const locked = await lockLink(trx, linkId);
    if (!locked) throw new LinkUnavailable('unknown');
    if (isPastExpiry(s, locked)) throw new LinkUnavailable('expired');
    if (locked.status !== 'pending' && locked.status !== 'in_progress') throw new LinkUnavailable(locked.status);
    if (!locked.consent) throw new ConsentRequired();
    const idx = locked.documents.findIndex((d) => d.key === key);
    if (idx < 0) throw new DocumentClosed('unknown_key');
    const doc = staleClaim(s, locked.documents[idx]) ? released(locked.documents[idx]) : locked.documents[idx];
    if (doc.outcome !== null || doc.attempts >= MAX_ATTEMPTS || doc.status === 'processing') throw new DocumentClosed('closed');
    const claim = { id: crypto.randomUUID(), at: s.clock.now().toISOString() };
    const documents = locked.documents.map((d, i) => (i === idx ? { ...doc, status: 'processing' as const, attempts: doc.attempts + 1, upload: claim } : d));
    await updateLink(trx, linkId, { documents, ...(locked.status === 'pending' ? { status: 'in_progress' as const } : {}) });
    return claim.id;
  });
}

/** Intake refused the claimed upload (or it failed before its analysis existed): not an attempt, the document open again. */
async function releaseUpload(s: Services, linkId: string, key: string, claimId: string): Promise<void> {
  await s.db.transaction().execute(async (trx) => {
    const locked = await lockLink(trx, linkId);
    const doc = locked?.documents.find((d) => d.key === key);
    if (!locked || doc?.upload?.id !== claimId) return;
    await updateLink(trx, linkId, { documents: locked.documents.map((d) => (d.key === key ? released(d) : d)) });
  });
}

/** The claimed upload's analysis exists: it is the document's attempt now (event `document_uploaded`). */
async function recordUpload(s: Services, linkId: string, key: string, claimId: string, analysisId: string): Promise<void> {
  await s.db.transaction().execute(async (trx) => {
    const locked = (await lockLink(trx, linkId))!;
    // Taken over after UPLOAD_CLAIM_TTL_MS: the document has moved on without this one.
    if (locked.documents.find((d) => d.key === key)?.upload?.id !== claimId) return;
    const at = s.clock.now().toISOString();
    const documents = locked.documents.map((d) =>
      d.key === key ? { ...d, analysis_id: analysisId, status: 'processing' as const, warnings: [], verdict_status: null, upload: null } : d,
    );
    const events = [...locked.events, { type: 'document_uploaded', at, document_key: key }];
    await updateLink(trx, locked.id, { documents, events });
  });
}

/**
 * One upload for the document `key`: claims the attempt under the link's row lock (claimUpload), then runs the same
 * intake and analysis as analyze (test links: test mode, where the file NAME picks the reading; live links: live mode
 * and credits), and decides accepted / retry / rejected. Intake errors throw the same `ApiError`s as analyze
 * (400/413/415/422, 402) and release the claim (intake refusals are not attempts): the page shows them localised.
 * Throws LinkUnavailable when the link is not active, ConsentRequired when consent was not given, and DocumentClosed
 * for a key the link does not ask for or a document that takes no more uploads (accepted, out of attempts, or an
 * upload of it in flight).
 */
export async function uploadByToken(s: Services, token: string, key: string, file: { bytes: Uint8Array; filename: string }): Promise<UploadOutcome> {
  const row = await findLinkByToken(s.db, token);
  if (!row) throw new LinkUnavailable('unknown');
  await mustBeActive(s, row);
  const claimId = await claimUpload(s, row.id, key);

  let analysisId: string | undefined;
  try {
    // The analysis, as the link's account in the link's mode, through the dossier (same intake, pipeline and slot).
    const account = await accountOf(s, row.account_id);
    const auth: Auth = { account, keyId: `link:${row.id}`, kind: 'secret', livemode: row.livemode };
    // The link's masked fields go with its analyses, whose own events then mask them too.
    const mask = row.mask_fields ?? [];
    const normalise = (raw: AnalyzeOptions, template: Template | null) => ({
      ...normaliseOptions(raw, 'options.', accountDefaults(s, auth), template),
      ...(mask.length ? { mask_fields: mask } : {}),
    });
    const options = { metadata: row.metadata, language: row.locale } as AnalyzeOptions;
    const bytes = file.bytes;
    const added = await addDocument(s, auth, row.dossier_id!, {
      kind: 'file',
      source: { kind: 'upload', read: async () => bytes, filename: file.filename || 'document', size: bytes.length },
      options,
      key,
      normalise,
    });
    analysisId = added.body.documents.find((d) => d.key === key)?.analysis_id ?? undefined;
    if (!analysisId) throw new Error('the uploaded document is not in the dossier');
  } catch (err) {
    await releaseUpload(s, row.id, key, claimId).catch((releaseErr: unknown) => {
      // Left claimed: the next upload after UPLOAD_CLAIM_TTL_MS takes it over.
      s.logger.error({ err: releaseErr, link: row.id }, 'could not release a refused hosted page upload');
    });
    throw err;
  }

  await recordUpload(s, row.id, key, claimId, analysisId);
  const result = (await settleAttempt(s, row.id, analysisId)) ?? 'processing';
  const after = (await findLinkByToken(s.db, token))!;
  const view = await viewOf(s, after);
  const warnings = after.documents.find((d) => d.key === key)?.warnings ?? [];
  return { view, key, result, warnings };
}
