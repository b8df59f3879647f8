// Reviews (#19 part 2, docs/dashboard.md "Reviews"): the queue of the mode shown (GET /v1/reviews's filters, plus
// "assigned to me"), the analysis page (the original with every field's box drawn over it, the fields, checks,
// warnings and verdict reasons, the review state), the decision (the API's decideReview: same events, retention and
// audit record, the member as the actor), a decision changed by an owner or administrator, and assignment.
// The original is served here, behind the session and `reviews.view`, never cached: `/file` as stored, and
// `/pages/{n}.png` (a PDF's page rendered, or the image turned upright) for the viewer's <image>.
import sharp from 'sharp';
import { findAnalysis } from '../../../db/analyses.ts';
import type { ReviewStatusFilter } from '../../../db/reviews.ts';
import type { AnalysisRow, MemberRow } from '../../../db/schema.ts';
import { presentWithExports } from '../../../domain/analysis/pipeline.ts';
import type { Analysis } from '../../../domain/analysis/presenter.ts';
import { assignReview, changeReviewDecision, decideReview, listReviews } from '../../../domain/reviews/service.ts';
import { ApiError } from '../../../errors.ts';
import { readPdf, renderPdfPage } from '../../../providers/local/pdf.ts';
import { teamOf } from '../members.ts';
import { typeName, word } from '../words.ts';
import { fieldLabel } from '../../../catalogue/field-labels.ts';
import { t, type MessageKey } from '../messages.ts';
import { can } from '../permissions.ts';
import { banner, csrfField, esc, formatDate, message, type Notice } from '../render.ts';
import { page, type DashboardRoute, type PageContext, type PageResult } from '../context.ts';

const PAGE_SIZE = 20;
/** Pages of a PDF shown in the viewer (the rest: download the original). */
const MAX_VIEWER_PAGES = 20;
/** The longer side of a rendered page, in pixels: sharp enough to read a DNI, small enough to send. */
const RENDER_SIDE = 1600;
const STATUSES: readonly ReviewStatusFilter[] = ['pending', 'decided', 'approved', 'rejected', 'all'];
const WARNINGS = ['low_quality', 'blurry', 'cropped', 'glare', 'screen_photo_suspected', 'photocopy_suspected', 'edited_suspected', 'multiple_documents', 'side_missing', 'language_mismatch'] as const;

const notFound = (ctx: PageContext): PageResult => page(ctx, 'reviews', t(ctx.shell.language, 'notfound.title'), message(t(ctx.shell.language, 'reviews.not_found'), '/dashboard/reviews', t(ctx.shell.language, 'reviews.back')), 404);

/** An analysis of this account and mode that entered review, or undefined (another account's or mode's: the same). */
async function reviewed(ctx: PageContext): Promise<AnalysisRow | undefined> {
  if (!/^an_[0-9A-Za-z]{10,40}$/.test(ctx.params.id ?? '')) return undefined;
  const row = await findAnalysis(ctx.services.db, { account_id: ctx.account.id, livemode: ctx.session.livemode }, 'analysis', ctx.params.id);
  return row?.review_status && row.keep_results ? row : undefined;
}

const nameOf = (members: MemberRow[], id: string | null | undefined): string => (id ? (members.find((m) => m.id === id)?.name ?? id) : '');
const isPdf = (row: AnalysisRow) => row.file_mime === 'application/pdf';
const statusTag = (L: PageContext['shell']['language'], status: string) => `<span class="tag tag-review-${esc(status)}">${esc(t(L, `reviews.status.${status}` as MessageKey))}</span>`;

// ------------------------------------------------------------------ the queue

async function queuePage(ctx: PageContext): Promise<PageResult> {
  const L = ctx.shell.language;
  const q = ctx.query;
  const status = (STATUSES as readonly string[]).includes(q.status ?? '') ? (q.status as ReviewStatusFilter) : 'pending';
  const type = /^[a-z0-9_]{1,60}$/.test(q.type ?? '') ? q.type : undefined;
  const template = /^tpl_[0-9A-Za-z]{10,40}$/.test(q.template ?? '') ? q.template : undefined;
  const mine = q.mine === '1';
  const after = /^an_[0-9A-Za-z]{10,40}$/.test(q.starting_after ?? '') ? q.starting_after : undefined;
  const { data, has_more } = await listReviews(ctx.services, ctx.auth, { status, type, template, assignee: mine ? ctx.member.id : undefined, starting_after: after, limit: PAGE_SIZE });
  const { members } = await teamOf(ctx.services, ctx.account.id);
  const row = (a: Analysis) =>
    `<tr><td><a href="/dashboard/reviews/${esc(a.id)}"><code>${esc(a.id)}</code></a></td><td>${esc(formatDate(a.created_at, L))}</td><td>${esc(typeName(L, a.document?.type))}</td><td>${esc(a.file.name ?? '')}</td><td>${a.verdict ? esc(t(L, `reviews.verdict.${a.verdict.status}` as MessageKey)) : ''}</td><td>${statusTag(L, a.review?.status ?? 'pending')}</td><td>${esc(nameOf(members, a.review?.assignee))}</td></tr>`;
  const table = data.length
    ? `<table class="queue"><thead><tr>${['reviews.col.id', 'reviews.col.created', 'reviews.col.type', 'reviews.col.file', 'reviews.col.verdict', 'reviews.col.status', 'reviews.col.assignee'].map((k) => `<th scope="col">${esc(t(L, k as MessageKey))}</th>`).join('')}</tr></thead><tbody>${data.map(row).join('')}</tbody></table>`
    : `<p>${esc(t(L, 'reviews.empty'))}</p>`;
  const keep = new URLSearchParams({ status, ...(type ? { type } : {}), ...(template ? { template } : {}), ...(mine ? { mine: '1' } : {}) });
  const next = has_more && data.length ? `<p><a class="button secondary" href="/dashboard/reviews?${esc(`${keep.toString()}&starting_after=${data[data.length - 1].id}`)}">${esc(t(L, 'reviews.next'))}</a></p>` : '';
  const options = STATUSES.map((s) => `<option value="${s}"${s === status ? ' selected' : ''}>${esc(t(L, `reviews.filter.${s}` as MessageKey))}</option>`).join('');
  const filters = `<form method="get" action="/dashboard/reviews" class="row filters">
<div class="field"><label for="f-status">${esc(t(L, 'reviews.col.status'))}</label><select id="f-status" name="status">${options}</select></div>
<div class="field"><label for="f-type">${esc(t(L, 'reviews.col.type'))}</label><input id="f-type" name="type" type="text" maxlength="60" value="${esc(type ?? '')}" placeholder="es_dni"></div>
<div class="field"><label for="f-template">${esc(t(L, 'reviews.template'))}</label><input id="f-template" name="template" type="text" maxlength="45" value="${esc(template ?? '')}" placeholder="tpl_..."></div>
<div class="field check"><input id="f-mine" name="mine" type="checkbox" value="1"${mine ? ' checked' : ''}><label for="f-mine">${esc(t(L, 'reviews.mine'))}</label></div>
<button class="button secondary" type="submit">${esc(t(L, 'reviews.filter'))}</button>
</form>`;
  const intro = `<p class="muted">${esc(t(L, status === 'pending' ? 'reviews.intro' : 'reviews.intro_other', { mode: t(L, ctx.session.livemode ? 'mode.live' : 'mode.test').toLowerCase() }))}</p>`;
  return page(ctx, 'reviews', t(L, 'reviews.title'), `${intro}${filters}${table}${next}`);
}

// ------------------------------------------------------------------ the analysis page

/** Each page's size (for the SVG's viewBox): a PDF's pages in points, an image's pixels upright. Null: unreadable. */
async function pageSizes(row: AnalysisRow, bytes: Uint8Array): Promise<Array<{ width: number; height: number }> | null> {
  try {
    if (isPdf(row)) return (await readPdf(bytes, { maxPages: MAX_VIEWER_PAGES })).pages.map((p) => ({ width: p.width, height: p.height }));
    const m = await sharp(bytes).metadata();
    const turned = (m.orientation ?? 1) >= 5;
    return m.width && m.height ? [{ width: turned ? m.height : m.width, height: turned ? m.width : m.height }] : null;
  } catch {
    return null;
  }
}

const num = (n: number) => String(Math.round(n * 100) / 100);

/** One page: the image with the boxes of the fields read on it, numbered as in the fields table. */
function viewerPage(L: PageContext['shell']['language'], id: string, n: number, size: { width: number; height: number }, boxes: Array<{ index: number; name: string; bbox: number[] }>): string {
  const { width: w, height: h } = size;
  const stroke = Math.max(2, Math.round(Math.max(w, h) / 400));
  const rects = boxes
    .map((b) => {
      const [x0, y0, x1, y1] = b.bbox.map((v) => Math.min(1, Math.max(0, v)));
      return `<g class="box"><title>${esc(`${b.index}. ${b.name}`)}</title><rect x="${num(x0 * w)}" y="${num(y0 * h)}" width="${num(Math.max(0, x1 - x0) * w)}" height="${num(Math.max(0, y1 - y0) * h)}" fill="#1a5fb4" fill-opacity="0.12" stroke="#1a5fb4" stroke-width="${stroke}"/><text x="${num(x0 * w + stroke)}" y="${num(Math.max(y0 * h - stroke, stroke * 6))}" font-size="${stroke * 6}" fill="#1a5fb4" font-family="sans-serif" font-weight="bold">${b.index}</text></g>`;
    })
    .join('');
  const label = t(L, 'reviews.page_label', { n, boxes: boxes.length });
  return `<figure class="doc-page"><svg class="doc" viewBox="0 0 ${num(w)} ${num(h)}" width="100%" role="img" aria-label="${esc(label)}" preserveAspectRatio="xMidYMid meet"><image href="/dashboard/reviews/${esc(id)}/pages/${n}.png" x="0" y="0" width="${num(w)}" height="${num(h)}" preserveAspectRatio="none"/>${rects}</svg><figcaption>${esc(label)}</figcaption></figure>`;
}

const valueText = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

async function analysisPage(ctx: PageContext, notice: Notice | null = null, status = 200): Promise<PageResult> {
  const L = ctx.shell.language;
  const row = await reviewed(ctx);
  if (!row) return notFound(ctx);
  const a = (await presentWithExports(ctx.services, row)) as Analysis;
  const { members } = await teamOf(ctx.services, ctx.account.id);
  const review = a.review!;
  const fields = Object.entries(a.fields ?? {});
  const indexOf = new Map(fields.map(([name], i) => [name, i + 1]));

  // The document.
  let doc: string;
  const bytes = row.file_key ? await ctx.services.blobs.get(row.file_key) : null;
  if (!bytes) {
    doc = banner({ kind: 'warn', text: t(L, 'reviews.file_gone', { reason: word(L, 'kept', a.storage.reason ?? `storage_${a.storage.mode}`) }) });
  } else {
    const sizes = await pageSizes(row, bytes);
    const download = `<p><a href="/dashboard/reviews/${esc(a.id)}/file">${esc(t(L, 'reviews.download'))}</a></p>`;
    doc = sizes
      ? sizes
          .map((size, i) => {
            const n = i + 1;
            const boxes = fields.filter(([, f]) => f.source && f.source.page === n && f.source.bbox.length === 4).map(([name, f]) => ({ index: indexOf.get(name)!, name, bbox: f.source!.bbox }));
            return viewerPage(L, a.id, n, size, boxes);
          })
          .join('') + download
      : banner({ kind: 'warn', text: t(L, 'reviews.unreadable') }) + download;
  }

  const fieldRows = fields
    .map(([name, f], i) => `<tr><td>${i + 1}</td><th scope="row">${esc(fieldLabel(name, L))} <code class="muted">${esc(name)}</code></th><td class="value">${esc(valueText(f.value))}</td><td>${esc(num(f.confidence))}</td><td>${f.validated === null ? '' : esc(t(L, f.validated ? 'reviews.yes' : 'reviews.no'))}</td><td>${f.source ? esc(f.source.page) : ''}</td></tr>`)
    .join('');
  const fieldsTable = fields.length
    ? `<table><thead><tr><th scope="col">#</th><th scope="col">${esc(t(L, 'reviews.field'))}</th><th scope="col">${esc(t(L, 'reviews.value'))}</th><th scope="col">${esc(t(L, 'reviews.confidence'))}</th><th scope="col">${esc(t(L, 'reviews.validated'))}</th><th scope="col">${esc(t(L, 'reviews.page'))}</th></tr></thead><tbody>${fieldRows}</tbody></table>`
    : `<p>${esc(t(L, 'reviews.no_fields'))}</p>`;
  const reasons = a.verdict?.reasons.length
    ? `<ul class="reasons">${a.verdict.reasons.map((r) => `<li><span class="tag">${esc(t(L, `reviews.severity.${r.severity}` as MessageKey))}</span> <code>${esc(r.code)}</code> ${esc(r.message)}</li>`).join('')}</ul>`
    : `<p>${esc(t(L, 'reviews.none'))}</p>`;
  const checks = a.checks.length
    ? `<ul class="checks">${a.checks.map((c) => `<li>${esc(t(L, c.passed ? 'reviews.check_passed' : 'reviews.check_failed'))}: <code>${esc(c.code)}</code> ${esc(c.message)}</li>`).join('')}</ul>`
    : `<p>${esc(t(L, 'reviews.none'))}</p>`;
  const warnings = a.warnings.length
    ? `<ul>${a.warnings.map((w) => `<li>${esc((WARNINGS as readonly string[]).includes(w) ? t(L, `reviews.warning.${w}` as MessageKey) : w)}</li>`).join('')}</ul>`
    : `<p>${esc(t(L, 'reviews.none'))}</p>`;

  // The review state and what this member may do with it.
  const dl = (pairs: Array<[MessageKey, string]>) => `<dl class="facts">${pairs.filter(([, v]) => v !== '').map(([k, v]) => `<dt>${esc(t(L, k))}</dt><dd>${v}</dd>`).join('')}</dl>`;
  const state = dl([
    ['reviews.col.status', statusTag(L, review.status)],
    ['reviews.col.verdict', a.verdict ? esc(t(L, `reviews.verdict.${a.verdict.status}` as MessageKey)) : ''],
    ['reviews.col.assignee', esc(nameOf(members, review.assignee))],
    ['reviews.reviewed_by', esc(nameOf(members, review.reviewed_by))],
    ['reviews.reviewed_at', review.reviewed_at ? esc(formatDate(review.reviewed_at, L)) : ''],
    ['reviews.reason', esc(review.reason ?? '')],
    ['reviews.note', esc(review.note ?? '')],
  ]);
  const reasonFields = `<div class="field"><label for="r-reason">${esc(t(L, 'reviews.reason'))}</label><input id="r-reason" name="reason" type="text" maxlength="200"></div>
<div class="field"><label for="r-note">${esc(t(L, 'reviews.note'))}</label><textarea id="r-note" name="note" maxlength="2000" rows="3"></textarea></div>`;
  let actions = '';
  if (review.status === 'pending' && can(ctx.member.role, 'reviews.decide')) {
    actions = `<h2>${esc(t(L, 'reviews.decide'))}</h2><form method="post" action="/dashboard/reviews/${esc(a.id)}/decide">${csrfField(ctx.shell.csrf)}${reasonFields}
<div class="row"><button class="button" type="submit" name="decision" value="approve">${esc(t(L, 'reviews.approve'))}</button><button class="button danger" type="submit" name="decision" value="reject">${esc(t(L, 'reviews.reject'))}</button></div></form>`;
  } else if (review.status !== 'pending' && can(ctx.member.role, 'reviews.change_decision')) {
    const other = review.decision === 'approve' ? 'reject' : 'approve';
    actions = `<h2>${esc(t(L, 'reviews.change'))}</h2><p class="muted">${esc(t(L, 'reviews.change_intro'))}</p><form method="post" action="/dashboard/reviews/${esc(a.id)}/change">${csrfField(ctx.shell.csrf)}${reasonFields}
<input type="hidden" name="decision" value="${other}"><button class="button ${other === 'reject' ? 'danger' : ''}" type="submit">${esc(t(L, other === 'approve' ? 'reviews.change_to_approve' : 'reviews.change_to_reject'))}</button></form>`;
  } else if (review.status !== 'pending') {
    actions = `<p class="muted">${esc(t(L, 'reviews.decided_only_managers'))}</p>`;
  }
  if (can(ctx.member.role, 'reviews.assign')) {
    const opts = [`<option value="">${esc(t(L, 'reviews.nobody'))}</option>`, ...members.map((m) => `<option value="${esc(m.id)}"${m.id === review.assignee ? ' selected' : ''}>${esc(m.name)} (${esc(m.email)})</option>`)].join('');
    actions += `<h2>${esc(t(L, 'reviews.assign'))}</h2><form method="post" action="/dashboard/reviews/${esc(a.id)}/assign" class="row">${csrfField(ctx.shell.csrf)}<div class="field"><label for="r-assignee">${esc(t(L, 'reviews.col.assignee'))}</label><select id="r-assignee" name="assignee">${opts}</select></div><button class="button secondary" type="submit">${esc(t(L, 'reviews.assign'))}</button></form>`;
  }

  const body = `${banner(notice)}<p><a href="/dashboard/reviews">${esc(t(L, 'reviews.back'))}</a></p>
<p class="muted"><code>${esc(a.id)}</code> · ${esc(a.file.name ?? '')} · ${esc(typeName(L, a.document?.type))} · ${esc(formatDate(a.created_at, L))}</p>
<div class="review-layout"><section class="review-doc" aria-labelledby="h-doc"><h2 id="h-doc">${esc(t(L, 'reviews.document'))}</h2>${doc}</section>
<section class="review-data"><h2>${esc(t(L, 'reviews.state'))}</h2>${state}${actions}
<h2>${esc(t(L, 'reviews.reasons'))}</h2>${reasons}
<h2>${esc(t(L, 'reviews.warnings'))}</h2>${warnings}</section></div>
<h2>${esc(t(L, 'reviews.fields'))}</h2>${fieldsTable}
<h2>${esc(t(L, 'reviews.checks'))}</h2>${checks}`;
  return page(ctx, 'reviews', t(L, 'reviews.analysis_title', { id: a.id }), body, status);
}

// ------------------------------------------------------------------ decisions and assignment

/** The form's decision, reason (200) and note (2000), as the API's ReviewRequest takes them; null when malformed. */
function decisionOf(form: Record<string, string>): { decision: 'approve' | 'reject'; reason: string | null; note: string | null } | null {
  const decision = form.decision;
  const reason = (form.reason ?? '').trim();
  const note = (form.note ?? '').trim();
  if ((decision !== 'approve' && decision !== 'reject') || reason.length > 200 || note.length > 2000) return null;
  return { decision, reason: reason || null, note: note || null };
}

/**
 * A POST that decides (or changes) a review from the form: 404 when the analysis is not under review here, 422 when
 * the form is incomplete, the domain's refusal as a page, else back to the analysis with `?done=`.
 */
function decisionHandler(
  apply: (s: PageContext['services'], auth: PageContext['auth'], id: string, body: NonNullable<ReturnType<typeof decisionOf>>) => Promise<unknown>,
  done: (decision: 'approve' | 'reject') => string,
  after?: (ctx: PageContext, decision: 'approve' | 'reject') => void,
): (ctx: PageContext) => Promise<PageResult> {
  return async (ctx) => {
    const body = decisionOf(ctx.form);
    if (!(await reviewed(ctx))) return notFound(ctx);
    if (!body) return analysisPage(ctx, { kind: 'error', text: t(ctx.shell.language, 'reviews.err.form') }, 422);
    try {
      await apply(ctx.services, ctx.auth, ctx.params.id, body);
    } catch (err) {
      return refused(ctx, err);
    }
    after?.(ctx, body.decision);
    return { redirect: `/dashboard/reviews/${ctx.params.id}?done=${done(body.decision)}` };
  };
}

/** The domain's refusals as this page's notices: 404 stays 404, a decision made meanwhile is a 409 page. */
async function refused(ctx: PageContext, err: unknown): Promise<PageResult> {
  if (!(err instanceof ApiError)) throw err;
  if (err.status === 404) return notFound(ctx);
  const key: MessageKey = err.code === 'already_reviewed' ? 'reviews.err.already' : 'reviews.err.not_reviewable';
  return analysisPage(ctx, { kind: 'error', text: t(ctx.shell.language, key) }, 409);
}

const DONE: Record<string, MessageKey> = { approved: 'reviews.done.approved', rejected: 'reviews.done.rejected', changed: 'reviews.done.changed', assigned: 'reviews.done.assigned' };

async function pageImage(ctx: PageContext): Promise<PageResult> {
  const row = await reviewed(ctx);
  const n = Number(ctx.params.n);
  if (!row || !Number.isInteger(n) || n < 1 || n > MAX_VIEWER_PAGES) return notFound(ctx);
  const bytes = row.file_key ? await ctx.services.blobs.get(row.file_key) : null;
  if (!bytes) return page(ctx, 'reviews', t(ctx.shell.language, 'notfound.title'), message(t(ctx.shell.language, 'reviews.file_gone', { reason: '' })), 404);
  try {
    if (isPdf(row)) {
      const r = await renderPdfPage(bytes, n, { maxSide: RENDER_SIDE });
      return { file: await sharp(Buffer.from(r.rgba.buffer, r.rgba.byteOffset, r.rgba.byteLength), { raw: { width: r.width, height: r.height, channels: 4 } }).png().toBuffer(), type: 'image/png' };
    }
    if (n !== 1) return notFound(ctx);
    return { file: await sharp(bytes).rotate().png().toBuffer(), type: 'image/png' };
  } catch {
    return notFound(ctx);
  }
}

export const reviewRoutes: DashboardRoute[] = [
  { method: 'GET', path: '/reviews', action: 'reviews.view', section: 'reviews', handle: queuePage },
  {
    method: 'GET',
    path: '/reviews/:id',
    action: 'reviews.view',
    section: 'reviews',
    handle: (ctx) => analysisPage(ctx, ctx.query.done && Object.hasOwn(DONE, ctx.query.done) ? { kind: 'ok', text: t(ctx.shell.language, DONE[ctx.query.done]) } : null),
  },
  {
    method: 'GET',
    path: '/reviews/:id/file',
    action: 'reviews.view',
    section: 'reviews',
    handle: async (ctx) => {
      const row = await reviewed(ctx);
      const bytes = row?.file_key ? await ctx.services.blobs.get(row.file_key) : null;
      if (!row || !bytes) return notFound(ctx);
      // A PDF is downloaded, not opened under the console's origin; an image is shown.
      const type = row.file_mime && /^image\/(jpeg|png|webp|gif|tiff|heic|heif)$/.test(row.file_mime) ? row.file_mime : 'application/octet-stream';
      return { file: bytes, type, download: type === 'application/octet-stream' ? `${row.id}${isPdf(row) ? '.pdf' : ''}` : undefined };
    },
  },
  { method: 'GET', path: '/reviews/:id/pages/:n.png', action: 'reviews.view', section: 'reviews', handle: pageImage },
  {
    method: 'POST',
    path: '/reviews/:id/decide',
    action: 'reviews.decide',
    section: 'reviews',
    // The Auth's keyId is the member's id: reviewed_by and the audit record's actor name the member (`mem_...`).
    handle: decisionHandler(decideReview, (decision) => (decision === 'approve' ? 'approved' : 'rejected')),
  },
  {
    method: 'POST',
    path: '/reviews/:id/change',
    action: 'reviews.change_decision',
    section: 'reviews',
    handle: decisionHandler(changeReviewDecision, () => 'changed', (ctx, decision) =>
      ctx.services.logger.info({ account_id: ctx.account.id, member_id: ctx.member.id, analysis: ctx.params.id, decision }, 'dashboard: review decision changed'),
    ),
  },
  {
    method: 'POST',
    path: '/reviews/:id/assign',
    action: 'reviews.assign',
    section: 'reviews',
    handle: async (ctx) => {
      if (!(await reviewed(ctx))) return notFound(ctx);
      const wanted = ctx.form.assignee ?? '';
      const { members } = await teamOf(ctx.services, ctx.account.id);
      if (wanted !== '' && !members.some((m) => m.id === wanted)) return analysisPage(ctx, { kind: 'error', text: t(ctx.shell.language, 'reviews.err.assignee') }, 422);
      await assignReview(ctx.services, ctx.auth, ctx.params.id, wanted || null);
      return { redirect: `/dashboard/reviews/${ctx.params.id}?done=assigned` };
    },
  },
];
