// Server-side rendering of the hosted verification page: pure functions from a PageView (domain/links/page.ts) to
// HTML. Every step is a whole page the server renders, so the page works without JavaScript (plain links and form
// posts); page.js only enhances it (upload progress, auto-upload on pick, polling, the final redirect).
import type { Language } from '../catalogue/index.ts';
import type { PageDocument, PageView } from '../domain/links/page.ts';
import { t, uploadErrorCode, warningText, type UploadErrorCode } from './messages.ts';
import { ASSET_VERSION } from './assets.ts';

/** Which page to show. */
export type PageKind = 'welcome' | 'consent' | 'document' | 'processing' | 'final' | 'expired' | 'cancelled' | 'unknown';

export interface PageQuery {
  /** `?step=consent`: the person pressed Start on the welcome page. */
  step?: string;
  /** `?last=<key>`: the document just uploaded (its outcome is shown as a banner). */
  last?: string;
  /** `?error=<code>`: why the last upload was refused (plain form posts; the script shows it in place). */
  error?: string;
}

export interface Rendered {
  status: number;
  kind: PageKind;
  html: string;
}

const escapeMap: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => escapeMap[c]);
}

/** The page's own base path for a token (the token is URL-safe, encoded anyway). */
export function basePath(token: string): string {
  return `/l/${encodeURIComponent(token)}`;
}

/** The first document still waiting for an upload that counts (none: every document is accepted or rejected). */
export function currentDocument(view: PageView): PageDocument | undefined {
  return view.documents.find((d) => d.outcome === null);
}

/** Which page a view and the query ask for. Inactive links get their own page whatever the query says. */
export function pageKind(view: PageView | null, query: PageQuery = {}): PageKind {
  if (!view) return 'unknown';
  if (view.status === 'expired' || view.status === 'cancelled') return view.status;
  if (view.status === 'completed') return 'final';
  if (!view.consent_accepted) return query.step === 'consent' ? 'consent' : 'welcome';
  const doc = currentDocument(view);
  if (!doc) return 'final';
  return doc.status === 'processing' ? 'processing' : 'document';
}

/**
 * HTTP status of each page: an unknown token is 404; a link that can no longer take documents (expired, cancelled,
 * completed) is 410 Gone, with a page that says why (the completed one is the flow's thank-you page).
 */
export function statusOf(kind: PageKind, view: PageView | null): number {
  if (kind === 'unknown') return 404;
  if (kind === 'expired' || kind === 'cancelled') return 410;
  if (kind === 'final' && view?.status === 'completed') return 410;
  return 200;
}

function formatDate(iso: string, language: Language): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${new Intl.DateTimeFormat(language, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(d)} UTC`;
}

function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n|\r\n\s*\r\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => `<p>${esc(p).replace(/\r?\n/g, '<br>')}</p>`)
    .join('\n');
}

interface Layout {
  language: Language;
  title: string;
  requester: string | null;
  livemode: boolean;
  body: string;
}

function layout(l: Layout): string {
  const L = l.language;
  const footer = [
    l.requester ? `<p>${esc(t(L, 'page.for', { requester: l.requester }))}</p>` : '',
    !l.livemode && l.requester ? `<p class="test-mode">${esc(t(L, 'page.test_mode'))}</p>` : '',
  ].join('');
  return `<!doctype html>
<html lang="${L}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${esc(l.title)} · ${esc(t(L, 'page.title'))}</title>
<link rel="stylesheet" href="/l/assets/page.css?v=${ASSET_VERSION}">
<script src="/l/assets/page.js?v=${ASSET_VERSION}" defer></script>
</head>
<body>
<header class="top"><p class="brand">${esc(l.requester ?? t(L, 'page.title'))}</p></header>
<main id="main">
${l.body}
</main>
<footer class="foot">${footer}</footer>
</body>
</html>
`;
}

function stepLine(language: Language, n: number, total: number, extra = ''): string {
  return `<p class="step">${esc(t(language, 'page.step', { n, total }))}${extra ? ` · ${esc(extra)}` : ''}</p>`;
}

const tagKey = (d: PageDocument): string =>
  d.outcome === 'accepted' ? 'list.accepted' : d.outcome === 'rejected' ? 'list.rejected' : d.status === 'processing' ? 'list.processing' : 'list.todo';

function checklist(view: PageView, heading = 'list.heading'): string {
  const L = view.locale;
  const items = view.documents
    .map((d) => {
      const cls = d.outcome ?? (d.status === 'processing' ? 'processing' : 'todo');
      const verdict = view.show_result && d.verdict_status ? ` <span class="verdict">${esc(t(L, 'outcome.verdict', { verdict: t(L, `verdict.${d.verdict_status}`) }))}</span>` : '';
      return `<li><span class="label">${esc(d.label)}</span> <span class="tag tag-${cls}">${esc(t(L, tagKey(d)))}</span>${verdict}</li>`;
    })
    .join('\n');
  return `<section class="checklist" aria-labelledby="checklist-h">
<h2 id="checklist-h">${esc(t(L, heading))}</h2>
<ul>
${items}
</ul>
</section>`;
}

/** The banner about the last upload (`?last=key`, `?error=code`): accepted, out of attempts, or why it was refused. */
function lastBanner(view: PageView, query: PageQuery): string {
  const L = view.locale;
  if (query.error) {
    const code: UploadErrorCode = uploadErrorCode(query.error, 400);
    return `<div class="banner banner-error" role="alert"><p>${esc(t(L, `error.${code}`))}</p></div>`;
  }
  const doc = query.last ? view.documents.find((d) => d.key === query.last) : undefined;
  if (!doc || !doc.outcome) return '';
  const verdict = view.show_result && doc.verdict_status ? `<p>${esc(t(L, 'outcome.verdict', { verdict: t(L, `verdict.${doc.verdict_status}`) }))}</p>` : '';
  if (doc.outcome === 'accepted') return `<div class="banner banner-ok" role="status"><p>${esc(t(L, 'outcome.accepted', { label: doc.label }))}</p>${verdict}</div>`;
  return `<div class="banner banner-warn" role="status"><p>${esc(t(L, 'outcome.rejected', { label: doc.label, requester: view.requester }))}</p>${verdict}</div>`;
}

function welcome(view: PageView, token: string): string {
  const L = view.locale;
  const labels = view.documents.map((d) => `<li>${esc(d.label)}</li>`).join('\n');
  return `${stepLine(L, 1, 2 + view.documents.length)}
<h1>${esc(t(L, 'welcome.heading', { requester: view.requester }))}</h1>
<p>${esc(t(L, 'welcome.intro'))}</p>
<ul class="needed">
${labels}
</ul>
<p>${esc(t(L, 'welcome.how'))}</p>
<p class="muted">${esc(t(L, 'page.expires', { date: formatDate(view.expires_at, L) }))}</p>
<p><a class="button" href="${basePath(token)}?step=consent">${esc(t(L, 'welcome.start'))}</a></p>`;
}

function consent(view: PageView, token: string): string {
  const L = view.locale;
  return `${stepLine(L, 2, 2 + view.documents.length)}
<h1>${esc(t(L, 'consent.heading'))}</h1>
<p>${esc(t(L, 'consent.intro'))}</p>
<div class="consent-text">
${paragraphs(view.consent_text)}
</div>
<form method="post" action="${basePath(token)}/consent">
<button type="submit" class="button">${esc(t(L, 'consent.accept'))}</button>
</form>
<p><a href="${basePath(token)}">${esc(t(L, 'consent.back'))}</a></p>`;
}

function documentStep(view: PageView, token: string, doc: PageDocument, query: PageQuery): string {
  const L = view.locale;
  const index = view.documents.indexOf(doc);
  const total = view.documents.length;
  // A document with attempts, still open: the last photo was not good enough (quality warnings, or characters read
  // too unsure to check them).
  const retry = doc.attempts > 0 && doc.outcome === null && doc.status !== 'processing';
  const heading = retry ? t(L, 'retry.heading', { label: doc.label }) : doc.label;
  const retryBlock = retry
    ? `<div class="banner banner-warn" role="status">
<ul class="warnings">
${[...new Set(doc.warnings)].map((w) => `<li>${esc(warningText(L, w))}</li>`).join('\n') || `<li>${esc(t(L, 'retry.unclear'))}</li>`}
</ul>
<p><strong>${esc(doc.attempts_left === 1 ? t(L, 'retry.attempts_left_one') : t(L, 'retry.attempts_left', { n: doc.attempts_left }))}</strong></p>
</div>`
    : '';
  const action = `${basePath(token)}/documents/${encodeURIComponent(doc.key)}`;
  return `${lastBanner(view, query)}
${stepLine(L, 3 + index, 2 + total, total > 1 ? t(L, 'doc.count', { n: index + 1, total }) : '')}
<h1>${esc(heading)}</h1>
${retryBlock}
<p>${esc(t(L, 'doc.tips'))}</p>
<form class="upload" method="post" action="${action}" enctype="multipart/form-data"
 data-uploading="${esc(t(L, 'doc.uploading'))}" data-checking="${esc(t(L, 'doc.checking'))}"
 data-network-error="${esc(t(L, 'doc.network_error'))}" data-missing="${esc(t(L, 'error.missing_file'))}">
<div class="pick">
<label class="file-button primary"><span>${esc(t(L, 'doc.take_photo'))}</span>
<input type="file" name="file" accept="image/*,application/pdf" capture="environment" aria-describedby="formats"></label>
<label class="file-button"><span>${esc(t(L, 'doc.choose_file'))}</span>
<input type="file" name="file" accept="image/*,application/pdf" aria-describedby="formats"></label>
</div>
<p class="muted" id="formats">${esc(t(L, 'doc.formats'))}</p>
<p class="send-row"><button type="submit" class="button send">${esc(t(L, 'doc.send'))}</button></p>
<div class="progress" hidden>
<label for="upload-progress">${esc(t(L, 'doc.progress'))}</label>
<progress id="upload-progress" max="100" value="0"></progress>
<p class="progress-text" role="status" aria-live="polite"></p>
</div>
<div class="banner banner-error upload-error" role="alert" hidden></div>
</form>
${checklist(view)}`;
}

function processing(view: PageView, token: string, doc: PageDocument, query: PageQuery): string {
  const L = view.locale;
  return `${lastBanner(view, query)}
<h1>${esc(doc.label)}</h1>
<p role="status" data-poll="${basePath(token)}/state">${esc(t(L, 'doc.checking'))}</p>
<p><a class="button" href="${basePath(token)}">${esc(t(L, 'doc.refresh'))}</a></p>
${checklist(view)}`;
}

function final(view: PageView): string {
  const L = view.locale;
  const redirect = view.redirect_url
    ? `<p>${esc(t(L, 'final.redirecting'))}</p>
<p><a class="button" href="${esc(view.redirect_url)}" data-redirect rel="noreferrer">${esc(t(L, 'final.continue'))}</a></p>`
    : '';
  return `<div class="done" aria-hidden="true">✓</div>
<h1>${esc(t(L, 'final.heading'))}</h1>
<p>${esc(t(L, 'final.body', { requester: view.requester }))}</p>
${checklist(view, 'list.heading_done')}
${redirect}`;
}

function gone(view: PageView, kind: 'expired' | 'cancelled'): string {
  const L = view.locale;
  return `<h1>${esc(t(L, `gone.${kind}.heading`))}</h1>
<p>${esc(t(L, `gone.${kind}.body`, { requester: view.requester }))}</p>`;
}

/** The whole page for a view (null: unknown token, shown in `fallback`, the language the browser asks for). */
export function renderPage(view: PageView | null, token: string, query: PageQuery = {}, fallback: Language = 'es'): Rendered {
  const kind = pageKind(view, query);
  const status = statusOf(kind, view);
  if (!view) {
    const L = fallback;
    const body = `<h1>${esc(t(L, 'gone.unknown.heading'))}</h1>\n<p>${esc(t(L, 'gone.unknown.body'))}</p>`;
    return { status, kind, html: layout({ language: L, title: t(L, 'gone.unknown.heading'), requester: null, livemode: true, body }) };
  }
  const L = view.locale;
  const doc = currentDocument(view);
  let title: string;
  let body: string;
  switch (kind) {
    case 'welcome':
      title = t(L, 'welcome.start');
      body = welcome(view, token);
      break;
    case 'consent':
      title = t(L, 'consent.heading');
      body = consent(view, token);
      break;
    case 'document':
      title = doc!.label;
      body = documentStep(view, token, doc!, query);
      break;
    case 'processing':
      title = doc!.label;
      body = processing(view, token, doc!, query);
      break;
    case 'final':
      title = t(L, 'final.heading');
      body = final(view);
      break;
    default:
      title = t(L, `gone.${kind}.heading`);
      body = gone(view, kind as 'expired' | 'cancelled');
  }
  return { status, kind, html: layout({ language: L, title, requester: view.requester, livemode: view.livemode, body }) };
}

/** The 404 page for a path under /l/ that is no page at all. */
export function renderNotFound(language: Language): string {
  return renderPage(null, '', {}, language).html;
}

/** A page with one sentence as its title and heading (an error, the service briefly unavailable), in the page's frame. */
export function renderMessage(language: Language, text: string): string {
  return layout({ language, title: text, requester: null, livemode: true, body: `<h1>${esc(text)}</h1>` });
}
