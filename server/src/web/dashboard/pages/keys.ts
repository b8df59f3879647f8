// Keys: the account's API keys of the mode shown (prefix only), a new one (its secret shown once, in the answer to
// the POST: never stored, never in a URL), revocation. The same domain functions as the CLI's `keys` commands.
import { listApiKeys, revokeApiKey } from '../../../db/accounts.ts';
import { issueKey } from '../../../domain/accounts.ts';
import type { ApiKeyRow } from '../../../db/schema.ts';
import { t } from '../messages.ts';
import { banner, csrfField, esc, formatDate, type Notice } from '../render.ts';
import { page, type DashboardRoute, type PageContext, type PageResult } from '../context.ts';

async function keysPage(ctx: PageContext, notice: Notice | null, status = 200): Promise<PageResult> {
  const L = ctx.shell.language;
  const mode = ctx.session.livemode ? 'live' : 'test';
  const keys = (await listApiKeys(ctx.services.db, ctx.account.id)).filter((k) => k.livemode === ctx.session.livemode);
  const row = (k: ApiKeyRow) => {
    const prefix = `${k.display_prefix}…`;
    const state = k.revoked_at ? `<span class="tag tag-revoked">${esc(t(L, 'keys.revoked', { date: formatDate(k.revoked_at, L) }))}</span>` : `<span class="tag tag-active">${esc(t(L, 'keys.active'))}</span>`;
    const action = k.revoked_at
      ? ''
      : `<form method="post" action="/dashboard/keys/${esc(k.id)}/revoke">${csrfField(ctx.shell.csrf)}<button class="button danger small" type="submit" aria-label="${esc(t(L, 'keys.revoke_label', { prefix }))}">${esc(t(L, 'keys.revoke'))}</button></form>`;
    return `<tr><td><code>${esc(prefix)}</code></td><td>${esc(t(L, k.kind === 'secret' ? 'keys.secret' : 'keys.publishable'))}</td><td>${esc(k.name ?? '')}</td><td>${esc(formatDate(k.created_at, L))}</td><td class="muted">${esc(t(L, 'keys.not_recorded'))}</td><td>${state}</td><td>${action}</td></tr>`;
  };
  const table = keys.length
    ? `<table><thead><tr><th scope="col">${esc(t(L, 'keys.prefix'))}</th><th scope="col">${esc(t(L, 'keys.kind'))}</th><th scope="col">${esc(t(L, 'keys.name'))}</th><th scope="col">${esc(t(L, 'keys.created'))}</th><th scope="col">${esc(t(L, 'keys.last_used'))}</th><th scope="col">${esc(t(L, 'keys.status'))}</th><th scope="col"><span class="muted">${esc(t(L, 'team.actions'))}</span></th></tr></thead><tbody>${keys.map(row).join('')}</tbody></table>`
    : `<p>${esc(t(L, 'keys.none'))}</p>`;
  const create = `<h2>${esc(t(L, 'keys.create'))}</h2>
<form method="post" action="/dashboard/keys" class="row">${csrfField(ctx.shell.csrf)}
<div class="field"><label for="key-name">${esc(t(L, 'keys.name'))}</label><input id="key-name" name="name" type="text" maxlength="100"></div>
<div class="field"><label for="key-kind">${esc(t(L, 'keys.kind'))}</label><select id="key-kind" name="kind"><option value="secret">${esc(t(L, 'keys.secret'))}</option><option value="publishable">${esc(t(L, 'keys.publishable'))}</option></select></div>
<button class="button" type="submit">${esc(t(L, 'keys.create'))}</button>
</form>`;
  const body = `${banner(notice)}<p class="muted">${esc(t(L, 'keys.intro', { mode: t(L, `mode.${mode}`).toLowerCase() }))}</p>${table}${create}`;
  return page(ctx, 'keys', t(L, 'keys.title'), body, status);
}

export const keysRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/keys',
    action: 'keys.manage',
    section: 'keys',
    handle: (ctx) => keysPage(ctx, ctx.query.done === 'revoked' ? { kind: 'ok', text: t(ctx.shell.language, 'keys.revoked_done') } : null),
  },
  {
    method: 'POST',
    path: '/keys',
    action: 'keys.manage',
    section: 'keys',
    handle: async (ctx) => {
      const L = ctx.shell.language;
      const name = (ctx.form.name ?? '').trim();
      if (name.length > 100) return keysPage(ctx, { kind: 'error', text: t(L, 'keys.err.name') }, 422);
      const kind = ctx.form.kind === 'publishable' ? 'publishable' : 'secret';
      const key = await issueKey(ctx.services.db, ctx.services.clock, ctx.account.id, kind, ctx.session.livemode ? 'live' : 'test', name || null);
      ctx.services.logger.info({ account_id: ctx.account.id, member_id: ctx.member.id, key_id: key.id }, 'dashboard: key created');
      return keysPage(ctx, { kind: 'warn', text: t(L, 'keys.shown_once'), extra: `<code class="secret" id="new-key">${esc(key.key)}</code>` }, 201);
    },
  },
  {
    method: 'POST',
    path: '/keys/:id/revoke',
    action: 'keys.manage',
    section: 'keys',
    handle: async (ctx) => {
      // Only a key of this account: another account's key id is "not found" like one that does not exist.
      const key = (await listApiKeys(ctx.services.db, ctx.account.id)).find((k) => k.id === ctx.params.id);
      if (!key) return page(ctx, 'keys', t(ctx.shell.language, 'notfound.title'), '', 404);
      await revokeApiKey(ctx.services.db, key.id, ctx.services.clock.now());
      ctx.services.logger.info({ account_id: ctx.account.id, member_id: ctx.member.id, key_id: key.id }, 'dashboard: key revoked');
      return { redirect: '/dashboard/keys?done=revoked' };
    },
  },
];
