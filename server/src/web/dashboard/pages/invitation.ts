// The invitation link's page (no session: the token in the path is the credential, never logged): name and password,
// then the member exists and signs in. The form is protected by the pre-session double-submit token (routes.ts).
import { findAccount } from '../../../db/accounts.ts';
import type { Services } from '../../../http/context.ts';
import { acceptInvitation, openInvitation, type DashboardLanguage } from '../members.ts';
import { t } from '../messages.ts';
import { csrfField, errorList, esc, message, renderBare } from '../render.ts';

export interface InvitationContext {
  services: Services;
  token: string;
  form: Record<string, string>;
  language: DashboardLanguage;
  csrf: string;
}

type Result = { status?: number; html: string } | { redirect: string };

async function form(c: InvitationContext, errors: string[], status: number): Promise<Result> {
  const L = c.language;
  const inv = await openInvitation(c.services, c.token);
  if (!inv) return { status: 404, html: renderBare(L, t(L, 'notfound.title'), message(t(L, 'invite.gone'), '/dashboard/sign-in', t(L, 'signin.title'))) };
  const account = await findAccount(c.services.db, inv.account_id);
  const body = `${errorList(L, errors)}<p>${esc(t(L, 'invite.intro', { role: t(L, `role.${inv.role}`), email: inv.email }))}</p>
<form method="post" action="/dashboard/invitations/${esc(encodeURIComponent(c.token))}">${csrfField(c.csrf)}
<input type="hidden" name="language" value="${L}">
<div class="field"><label for="name">${esc(t(L, 'invite.name'))}</label><input id="name" name="name" type="text" autocomplete="name" maxlength="200" required value="${esc(c.form.name ?? inv.name ?? '')}"></div>
<div class="field"><label for="password">${esc(t(L, 'invite.password'))}</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required></div>
<div class="field"><label for="confirm">${esc(t(L, 'invite.confirm'))}</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" required></div>
<button class="button" type="submit">${esc(t(L, 'invite.submit'))}</button>
</form>`;
  return { status, html: renderBare(L, t(L, 'invite.title', { account: account?.name ?? '' }), body) };
}

export const invitationRoutes: Array<{ method: 'GET' | 'POST'; path: string; handle(c: InvitationContext): Promise<Result> }> = [
  { method: 'GET', path: '/invitations/:token', handle: (c) => form(c, [], 200) },
  {
    method: 'POST',
    path: '/invitations/:token',
    handle: async (c) => {
      const r = await acceptInvitation(c.services, c.token, { name: c.form.name ?? '', password: c.form.password ?? '', confirm: c.form.confirm ?? '', language: c.language });
      if (r.ok) return { redirect: '/dashboard/sign-in?joined=1' };
      if (r.problem === 'gone') return form(c, [], 404);
      return form(c, [t(c.language, `invite.err.${r.problem}`)], r.problem === 'already_member' ? 409 : 422);
    },
  },
];
