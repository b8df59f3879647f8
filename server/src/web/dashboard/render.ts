// The dashboard's HTML: one layout (header with mode and language switches, the section nav, the page) and small
// helpers. Pure functions of what they are given; every value is escaped here. Forms carry the session's CSRF token.
import type { MemberRow } from '../../db/schema.ts';
import { DASHBOARD_ASSET_VERSION } from './assets.ts';
import { LANGUAGES, type DashboardLanguage } from './members.ts';
import { LANGUAGE_NAMES, t, type MessageKey } from './messages.ts';
import { can, type Action } from './permissions.ts';

const escapeMap: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => escapeMap[c]);
}

/** The sections of the nav, in order, with the action that lets a member see each (part 2 fills in the first four). */
export const SECTIONS = [
  { id: 'reviews', label: 'nav.reviews', view: 'reviews.view' },
  { id: 'webhooks', label: 'nav.webhooks', view: 'webhooks.view' },
  { id: 'links', label: 'nav.links', view: 'links.view' },
  { id: 'dossiers', label: 'nav.dossiers', view: 'dossiers.view' },
  { id: 'keys', label: 'nav.keys', view: 'keys.manage' },
  { id: 'usage', label: 'nav.usage', view: 'usage.view' },
  { id: 'settings', label: 'nav.settings', view: 'settings.view' },
  { id: 'team', label: 'nav.team', view: 'team.view' },
] as const satisfies ReadonlyArray<{ id: string; label: MessageKey; view: Action }>;
export type SectionId = (typeof SECTIONS)[number]['id'];

/** What every signed-in page knows. */
export interface Shell {
  language: DashboardLanguage;
  member: MemberRow;
  accountName: string;
  csrf: string;
  livemode: boolean;
  /** The path of this page, where the mode and language switches come back to. */
  path: string;
}

export const csrfField = (csrf: string): string => `<input type="hidden" name="csrf" value="${esc(csrf)}">`;

export function formatDate(value: Date | string, language: DashboardLanguage, withTime = true): string {
  const d = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(d.getTime())) return String(value);
  const opts: Intl.DateTimeFormatOptions = withTime ? { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' } : { dateStyle: 'medium', timeZone: 'UTC' };
  return `${new Intl.DateTimeFormat(language, opts).format(d)}${withTime ? ' UTC' : ''}`;
}

export function formatNumber(n: number, language: DashboardLanguage): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 3 }).format(n);
}

export type Notice = { kind: 'ok' | 'warn' | 'error'; text: string; extra?: string };

export function banner(n: Notice | null | undefined): string {
  if (!n) return '';
  return `<div class="banner banner-${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}"><p>${esc(n.text)}</p>${n.extra ?? ''}</div>`;
}

export function errorList(language: DashboardLanguage, errors: string[]): string {
  if (errors.length === 0) return '';
  return `<div class="banner banner-error" role="alert"><p>${esc(t(language, 'errors.heading'))}</p><ul>${errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul></div>`;
}

function head(language: DashboardLanguage, title: string): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="data:,">
<title>${esc(title)} · ${esc(t(language, 'app.name'))}</title>
<link rel="stylesheet" href="/dashboard/assets/dashboard.css?v=${DASHBOARD_ASSET_VERSION}">
</head>`;
}

/** A signed-in page: header, nav (only the sections the member's role may see), the page's body. */
export function renderShell(s: Shell, section: SectionId | null, title: string, body: string): string {
  const L = s.language;
  const nav = SECTIONS.filter((x) => can(s.member.role, x.view))
    .map((x) => `<li><a href="/dashboard/${x.id}"${x.id === section ? ' aria-current="page"' : ''}>${esc(t(L, x.label))}</a></li>`)
    .join('');
  const langs = LANGUAGES.map((l) => `<option value="${l}"${l === L ? ' selected' : ''}>${esc(LANGUAGE_NAMES[l])}</option>`).join('');
  const back = `<input type="hidden" name="back" value="${esc(s.path)}">`;
  return `${head(L, title)}
<body>
<a class="skip" href="#main">${esc(t(L, 'app.skip'))}</a>
<header class="top">
<p class="brand" title="${esc(s.accountName)}">${esc(s.accountName)} · ${esc(t(L, 'app.name'))}</p>
<form method="post" action="/dashboard/mode">${csrfField(s.csrf)}${back}
<span class="mode mode-${s.livemode ? 'live' : 'test'}">${esc(t(L, s.livemode ? 'mode.live' : 'mode.test'))}</span>
<input type="hidden" name="mode" value="${s.livemode ? 'test' : 'live'}">
<button class="button secondary small" type="submit">${esc(t(L, s.livemode ? 'mode.to_test' : 'mode.to_live'))}</button>
</form>
<form method="post" action="/dashboard/language">${csrfField(s.csrf)}${back}
<label for="lang">${esc(t(L, 'lang.label'))}</label>
<select id="lang" name="language">${langs}</select>
<button class="button secondary small" type="submit">${esc(t(L, 'lang.apply'))}</button>
</form>
<p class="who" title="${esc(s.member.name)}">${esc(t(L, 'account.signed_in', { name: s.member.name, role: t(L, `role.${s.member.role}`) }))}</p>
<form method="post" action="/dashboard/sign-out">${csrfField(s.csrf)}
<button class="button secondary small" type="submit">${esc(t(L, 'signout'))}</button>
</form>
</header>
<div class="frame">
<nav class="nav" aria-label="${esc(t(L, 'nav.label'))}"><ul>${nav}</ul></nav>
<main id="main">
<h1>${esc(title)}</h1>
${body}
</main>
</div>
</body>
</html>
`;
}

/** A page outside the console (sign-in, an invitation, an error before sign-in): one narrow card. */
export function renderBare(language: DashboardLanguage, title: string, body: string): string {
  return `${head(language, title)}
<body>
<header class="top"><p class="brand">${esc(t(language, 'app.name'))}</p></header>
<main id="main" class="narrow">
<h1>${esc(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

export function renderSignIn(language: DashboardLanguage, csrf: string, opts: { email?: string; notice?: Notice | null } = {}): string {
  const L = language;
  return renderBare(
    L,
    t(L, 'signin.title'),
    `${banner(opts.notice)}
<form method="post" action="/dashboard/sign-in">${csrfField(csrf)}
<div class="field"><label for="email">${esc(t(L, 'signin.email'))}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${esc(opts.email ?? '')}"></div>
<div class="field"><label for="password">${esc(t(L, 'signin.password'))}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required></div>
<button class="button" type="submit">${esc(t(L, 'signin.submit'))}</button>
</form>`,
  );
}

/** The body of a page that says one thing (forbidden, expired form, not found). */
export function message(text: string, backHref?: string, backLabel?: string): string {
  return `<p>${esc(text)}</p>${backHref ? `<p><a href="${esc(backHref)}">${esc(backLabel ?? '')}</a></p>` : ''}`;
}
