// Verification links: the list and one link of the mode shown, through the API's own domain functions (listLinks,
// getLink, cancelLink with the console's Auth), so the page shows what the API shows. The hosted URL (and its QR) is
// never shown: it carries the link's secret token, given once at creation.
import { cancelLink, getLink, listLinks, type VerificationLink } from '../../../domain/links/service.ts';
import { ApiError } from '../../../errors.ts';
import { t } from '../messages.ts';
import { word } from '../words.ts';
import { can } from '../permissions.ts';
import { banner, csrfField, esc, formatDate, message, type Notice } from '../render.ts';
import { page, type DashboardRoute, type PageContext, type PageResult } from '../context.ts';

const PAGE_SIZE = 50;

const notFound = (ctx: PageContext): PageResult => page(ctx, 'links', t(ctx.shell.language, 'notfound.title'), message('', '/dashboard/links', t(ctx.shell.language, 'back')), 404);

const metadataText = (m: Record<string, string>): string =>
  Object.entries(m)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

async function listPage(ctx: PageContext): Promise<PageResult> {
  const L = ctx.shell.language;
  const after = /^vl_[A-Za-z0-9]+$/.test(ctx.query.after ?? '') ? ctx.query.after : undefined;
  const { data, has_more } = await listLinks(ctx.services, ctx.auth, { limit: PAGE_SIZE, starting_after: after });
  const row = (l: VerificationLink) =>
    `<tr><td><a href="/dashboard/links/${esc(l.id)}"><code>${esc(l.id)}</code></a></td><td><span class="tag">${esc(word(L, 'link', l.status))}</span></td><td>${esc(formatDate(l.created_at, L))}</td><td>${esc(formatDate(l.expires_at, L))}</td><td>${esc(l.reference ?? '')}</td><td>${esc(metadataText(l.metadata))}</td></tr>`;
  const table = data.length
    ? `<table><thead><tr><th scope="col">${esc(t(L, 'ln.id'))}</th><th scope="col">${esc(t(L, 'ln.status'))}</th><th scope="col">${esc(t(L, 'ln.created'))}</th><th scope="col">${esc(t(L, 'ln.expires'))}</th><th scope="col">${esc(t(L, 'ln.reference'))}</th><th scope="col">${esc(t(L, 'ln.metadata'))}</th></tr></thead><tbody>${data.map(row).join('')}</tbody></table>`
    : `<p>${esc(t(L, 'ln.none'))}</p>`;
  const more = has_more ? `<p><a href="/dashboard/links?after=${esc(data[data.length - 1].id)}">${esc(t(L, 'ln.more'))}</a></p>` : '';
  // In a sentence, the mode is a common noun ("Keys of test mode", "Claves del modo de prueba").
  const mode = t(L, ctx.session.livemode ? 'mode.live' : 'mode.test').toLowerCase();
  return page(ctx, 'links', t(L, 'ln.title'), `<p class="muted">${esc(t(L, 'ln.intro', { mode }))}</p>${table}${more}`);
}

async function detailPage(ctx: PageContext, notice: Notice | null = null, status = 200): Promise<PageResult> {
  const L = ctx.shell.language;
  let l: VerificationLink;
  try {
    l = await getLink(ctx.services, ctx.auth, ctx.params.id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return notFound(ctx);
    throw err;
  }
  const docs = l.documents
    .map(
      (d) =>
        `<tr><td><code>${esc(d.key)}</code>${d.label ? ` ${esc(d.label)}` : ''}</td><td>${d.expect.map((x) => `<code>${esc(x)}</code>`).join(' ')}</td><td>${esc(word(L, 'document', d.status))}</td><td>${d.attempts}</td><td>${esc(d.final_status ?? d.verdict_status ? word(L, 'verdict', (d.final_status ?? d.verdict_status)!) : '')}</td><td>${d.analysis_id ? `<code>${esc(d.analysis_id)}</code>` : ''}</td></tr>`,
    )
    .join('');
  const events = l.events.map((e) => `<tr><td>${esc(word(L, 'event', e.type))}${e.document_key ? ` <code>${esc(e.document_key)}</code>` : ''}</td><td>${esc(formatDate(e.at, L))}</td></tr>`).join('');
  const cancellable = l.status === 'pending' || l.status === 'in_progress';
  const cancel =
    cancellable && can(ctx.member.role, 'links.cancel')
      ? `<form method="post" action="/dashboard/links/${esc(l.id)}/cancel">${csrfField(ctx.shell.csrf)}<button class="button danger small" type="submit">${esc(t(L, 'ln.cancel'))}</button></form>`
      : '';
  const body = `${banner(notice)}
<dl class="facts"><dt>${esc(t(L, 'ln.status'))}</dt><dd><span class="tag" id="link-status">${esc(word(L, 'link', l.status))}</span></dd><dt>${esc(t(L, 'ln.created'))}</dt><dd>${esc(formatDate(l.created_at, L))}</dd><dt>${esc(t(L, 'ln.expires'))}</dt><dd>${esc(formatDate(l.expires_at, L))}</dd><dt>${esc(t(L, 'ln.reference'))}</dt><dd>${esc(l.reference ?? t(L, 'ln.none_value'))}</dd><dt>${esc(t(L, 'ln.metadata'))}</dt><dd>${esc(metadataText(l.metadata) || t(L, 'ln.none_value'))}</dd>${l.dossier_id ? `<dt>${esc(t(L, 'ln.dossier'))}</dt><dd><a href="/dashboard/dossiers/${esc(l.dossier_id)}"><code>${esc(l.dossier_id)}</code></a></dd>` : ''}</dl>
${cancel}
<h2>${esc(t(L, 'ln.documents'))}</h2>
<table><thead><tr><th scope="col">${esc(t(L, 'ln.key'))}</th><th scope="col">${esc(t(L, 'ln.expect'))}</th><th scope="col">${esc(t(L, 'ln.status'))}</th><th scope="col">${esc(t(L, 'ln.attempts'))}</th><th scope="col">${esc(t(L, 'ln.verdict'))}</th><th scope="col">${esc(t(L, 'ln.analysis'))}</th></tr></thead><tbody>${docs}</tbody></table>
<h2>${esc(t(L, 'ln.events'))}</h2>
<table><thead><tr><th scope="col">${esc(t(L, 'ln.event'))}</th><th scope="col">${esc(t(L, 'ln.at'))}</th></tr></thead><tbody>${events}</tbody></table>`;
  return page(ctx, 'links', l.id, body, status);
}

export const linkRoutes: DashboardRoute[] = [
  { method: 'GET', path: '/links', action: 'links.view', section: 'links', handle: listPage },
  {
    method: 'GET',
    path: '/links/:id',
    action: 'links.view',
    section: 'links',
    handle: (ctx) => detailPage(ctx, ctx.query.done === 'cancelled' ? { kind: 'ok', text: t(ctx.shell.language, 'ln.cancelled') } : null),
  },
  {
    method: 'POST',
    path: '/links/:id/cancel',
    action: 'links.cancel',
    section: 'links',
    handle: async (ctx) => {
      try {
        await cancelLink(ctx.services, ctx.auth, ctx.params.id);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return notFound(ctx);
        if (err instanceof ApiError && err.status === 409) return detailPage(ctx, { kind: 'error', text: t(ctx.shell.language, 'ln.err.not_active') }, 409);
        throw err;
      }
      ctx.services.logger.info({ account_id: ctx.account.id, member_id: ctx.member.id, link_id: ctx.params.id }, 'dashboard: link cancelled');
      return { redirect: `/dashboard/links/${ctx.params.id}?done=cancelled` };
    },
  },
];
