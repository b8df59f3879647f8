// Dossiers: the list and one dossier of the mode shown, through the API's domain functions (listDossiers,
// getDossier with the console's Auth): requirements and what fills them, the verdict with its reasons, the
// analyses (one pending human review links to its page in the Reviews section).
import { getDossier, listDossiers, type Dossier } from '../../../domain/dossiers/service.ts';
import { ApiError } from '../../../errors.ts';
import { t } from '../messages.ts';
import { typeName, word } from '../words.ts';
import { esc, formatDate, message } from '../render.ts';
import { page, type DashboardRoute, type PageContext, type PageResult } from '../context.ts';

const PAGE_SIZE = 50;

async function listPage(ctx: PageContext): Promise<PageResult> {
  const L = ctx.shell.language;
  const after = /^dos_[A-Za-z0-9]+$/.test(ctx.query.after ?? '') ? ctx.query.after : undefined;
  const { data, has_more } = await listDossiers(ctx.services, ctx.auth, { limit: PAGE_SIZE, starting_after: after });
  const row = (d: Dossier) =>
    `<tr><td><a href="/dashboard/dossiers/${esc(d.id)}"><code>${esc(d.id)}</code></a></td><td><span class="tag">${esc(word(L, 'dossier', d.verdict.status))}</span></td><td>${esc(d.reference ?? '')}</td><td>${d.documents.length}/${d.requirements.length}</td><td>${esc(formatDate(d.created_at, L))}</td></tr>`;
  const table = data.length
    ? `<table><thead><tr><th scope="col">${esc(t(L, 'ln.id'))}</th><th scope="col">${esc(t(L, 'ds.verdict'))}</th><th scope="col">${esc(t(L, 'ln.reference'))}</th><th scope="col">${esc(t(L, 'ln.documents'))}</th><th scope="col">${esc(t(L, 'ln.created'))}</th></tr></thead><tbody>${data.map(row).join('')}</tbody></table>`
    : `<p>${esc(t(L, 'ds.none'))}</p>`;
  const more = has_more ? `<p><a href="/dashboard/dossiers?after=${esc(data[data.length - 1].id)}">${esc(t(L, 'ln.more'))}</a></p>` : '';
  // In a sentence, the mode is a common noun ("Keys of test mode", "Claves del modo de prueba").
  const mode = t(L, ctx.session.livemode ? 'mode.live' : 'mode.test').toLowerCase();
  return page(ctx, 'dossiers', t(L, 'ds.title'), `<p class="muted">${esc(t(L, 'ds.intro', { mode }))}</p>${table}${more}`);
}

async function detailPage(ctx: PageContext): Promise<PageResult> {
  const L = ctx.shell.language;
  let d: Dossier;
  try {
    d = await getDossier(ctx.services, ctx.auth, ctx.params.id);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return page(ctx, 'dossiers', t(L, 'notfound.title'), message('', '/dashboard/dossiers', t(L, 'back')), 404);
    throw err;
  }
  const byKey = new Map(d.documents.map((x) => [x.key, x]));
  const reqs = d.requirements
    .map((r) => {
      const doc = byKey.get(r.key);
      return `<tr><td><code>${esc(r.key)}</code>${r.label ? ` ${esc(r.label)}` : ''}</td><td>${r.expect.map((x) => `<code>${esc(x)}</code>`).join(' ')}</td><td>${doc ? `<code>${esc(doc.analysis_id)}</code>` : `<span class="muted">${esc(t(L, 'ds.unfilled'))}</span>`}</td></tr>`;
    })
    .join('');
  const reasons = d.verdict.reasons.length
    ? `<ul>${d.verdict.reasons.map((r) => `<li><span class="tag">${esc(word(L, 'severity', r.severity))}</span> ${esc(r.message)} <code>${esc(r.code)}</code></li>`).join('')}</ul>`
    : `<p class="muted">${esc(t(L, 'ds.no_reasons'))}</p>`;
  const analyses = d.documents
    .map((x) => {
      const review = x.verdict_status === 'review' ? `<a href="/dashboard/reviews/${esc(x.analysis_id)}" aria-label="${esc(t(L, 'ds.review_label', { id: x.analysis_id }))}">${esc(t(L, 'ds.review'))}</a>` : '';
      return `<tr><td><code>${esc(x.key)}</code></td><td><code>${esc(x.analysis_id)}</code></td><td>${esc(typeName(L, x.type))}</td><td>${esc(word(L, 'analysis', x.status))}</td><td>${esc(x.verdict_status ? word(L, 'verdict', x.verdict_status) : '')}</td><td>${esc(formatDate(x.added_at, L))}</td><td>${review}</td></tr>`;
    })
    .join('');
  const checks = d.checks.length ? `<h2>${esc(t(L, 'ds.checks'))}</h2><ul>${d.checks.map((c) => `<li><span class="tag">${esc(t(L, c.passed ? 'reviews.check_passed' : 'reviews.check_failed'))}</span> ${esc(c.message)} <code>${esc(c.code)}</code></li>`).join('')}</ul>` : '';
  const body = `<dl class="facts"><dt>${esc(t(L, 'ds.verdict'))}</dt><dd><span class="tag" id="dossier-verdict">${esc(word(L, 'dossier', d.verdict.status))}</span></dd><dt>${esc(t(L, 'ln.reference'))}</dt><dd>${esc(d.reference ?? t(L, 'ln.none_value'))}</dd><dt>${esc(t(L, 'ln.created'))}</dt><dd>${esc(formatDate(d.created_at, L))}</dd>${d.verification_link_id ? `<dt>${esc(t(L, 'ds.link'))}</dt><dd><a href="/dashboard/links/${esc(d.verification_link_id)}"><code>${esc(d.verification_link_id)}</code></a></dd>` : ''}</dl>
<h2>${esc(t(L, 'ds.reasons'))}</h2>
${reasons}
<h2>${esc(t(L, 'ds.required'))}</h2>
<table><thead><tr><th scope="col">${esc(t(L, 'ln.key'))}</th><th scope="col">${esc(t(L, 'ln.expect'))}</th><th scope="col">${esc(t(L, 'ds.filled_by'))}</th></tr></thead><tbody>${reqs}</tbody></table>
<h2>${esc(t(L, 'ds.analyses'))}</h2>
<table><thead><tr><th scope="col">${esc(t(L, 'ln.key'))}</th><th scope="col">${esc(t(L, 'ln.analysis'))}</th><th scope="col">${esc(t(L, 'ds.type'))}</th><th scope="col">${esc(t(L, 'ln.status'))}</th><th scope="col">${esc(t(L, 'ds.verdict'))}</th><th scope="col">${esc(t(L, 'ds.added'))}</th><th scope="col"><span class="muted">${esc(t(L, 'team.actions'))}</span></th></tr></thead><tbody>${analyses}</tbody></table>
${checks}`;
  return page(ctx, 'dossiers', d.id, body);
}

export const dossierRoutes: DashboardRoute[] = [
  { method: 'GET', path: '/dossiers', action: 'dossiers.view', section: 'dossiers', handle: listPage },
  { method: 'GET', path: '/dossiers/:id', action: 'dossiers.view', section: 'dossiers', handle: detailPage },
];
