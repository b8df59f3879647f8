// Team: the account's members and pending invitations; owners and admins invite (the link shown once on the page and
// emailed with the mail module), change roles and remove members. The rules (only owners touch owners, one owner
// always) are in members.ts, checked inside the change's transaction.
import type { MemberRow } from '../../../db/schema.ts';
import { sendMail } from '../../../mail/index.ts';
import { page, type DashboardRoute, type PageContext, type PageResult } from '../context.ts';
import { changeMember, invite, teamOf, TeamError } from '../members.ts';
import { t } from '../messages.ts';
import { can, canSetRole, ROLES } from '../permissions.ts';
import { banner, csrfField, esc, formatDate, type Notice } from '../render.ts';

async function teamPage(ctx: PageContext, notice: Notice | null, status = 200): Promise<PageResult> {
  const L = ctx.shell.language;
  const me = ctx.member;
  const { members, invitations } = await teamOf(ctx.services, ctx.account.id);
  const manage = can(me.role, 'team.manage');
  const roleName = (r: string) => esc(t(L, `role.${r}` as 'role.owner'));
  const actions = (m: MemberRow): string => {
    if (!manage) return '';
    const choices = ROLES.filter((r) => r === m.role || canSetRole(me.role, m.role, r));
    const change =
      choices.length > 1
        ? `<form method="post" action="/dashboard/team/members/${esc(m.id)}/role">${csrfField(ctx.shell.csrf)}<select name="role" aria-label="${esc(t(L, 'team.role_of', { name: m.name }))}">${choices
            .map((r) => `<option value="${r}"${r === m.role ? ' selected' : ''}>${roleName(r)}</option>`)
            .join('')}</select><button class="button secondary small" type="submit">${esc(t(L, 'team.change'))}</button></form>`
        : '';
    const remove =
      m.id !== me.id && canSetRole(me.role, m.role, null)
        ? ` <form method="post" action="/dashboard/team/members/${esc(m.id)}/remove">${csrfField(ctx.shell.csrf)}<button class="button danger small" type="submit" aria-label="${esc(t(L, 'team.remove_label', { name: m.name }))}">${esc(t(L, 'team.remove'))}</button></form>`
        : '';
    return change + remove;
  };
  const rows = members
    .map((m) => `<tr><td>${esc(m.name)}${m.id === me.id ? ` <span class="muted">${esc(t(L, 'team.you'))}</span>` : ''}</td><td>${esc(m.email)}</td><td>${roleName(m.role)}</td><td>${actions(m)}</td></tr>`)
    .join('');
  const table = `<h2>${esc(t(L, 'team.members'))}</h2><table><thead><tr><th scope="col">${esc(t(L, 'team.name'))}</th><th scope="col">${esc(t(L, 'team.email'))}</th><th scope="col">${esc(t(L, 'team.role'))}</th><th scope="col">${esc(t(L, 'team.actions'))}</th></tr></thead><tbody>${rows}</tbody></table>`;
  const pending = invitations.length
    ? `<h2>${esc(t(L, 'team.invitations'))}</h2><table><thead><tr><th scope="col">${esc(t(L, 'team.email'))}</th><th scope="col">${esc(t(L, 'team.role'))}</th><th scope="col">${esc(t(L, 'team.expires'))}</th></tr></thead><tbody>${invitations
        .map((i) => `<tr><td>${esc(i.email)}</td><td>${roleName(i.role)}</td><td>${esc(formatDate(i.expires_at, L))}</td></tr>`)
        .join('')}</tbody></table>`
    : '';
  const inviteForm = manage
    ? `<h2>${esc(t(L, 'team.invite'))}</h2><form method="post" action="/dashboard/team/invitations" class="row">${csrfField(ctx.shell.csrf)}
<div class="field"><label for="invite-email">${esc(t(L, 'team.email'))}</label><input id="invite-email" name="email" type="email" required></div>
<div class="field"><label for="invite-role">${esc(t(L, 'team.role'))}</label><select id="invite-role" name="role">${ROLES.filter((r) => canSetRole(me.role, null, r))
        .map((r) => `<option value="${r}"${r === 'member' ? ' selected' : ''}>${roleName(r)}</option>`)
        .join('')}</select></div>
<button class="button" type="submit">${esc(t(L, 'team.invite_send'))}</button></form>`
    : '';
  return page(ctx, 'team', t(L, 'team.title'), `${banner(notice)}${table}${pending}${inviteForm}`, status);
}

const refusal = (ctx: PageContext, err: unknown): Promise<PageResult> => {
  if (!(err instanceof TeamError)) throw err;
  const status = err.code === 'forbidden' ? 403 : err.code === 'not_found' ? 404 : err.code === 'last_owner' || err.code === 'already_member' ? 409 : 422;
  return teamPage(ctx, { kind: 'error', text: t(ctx.shell.language, `team.err.${err.code}`) }, status);
};

export const teamRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/team',
    action: 'team.view',
    section: 'team',
    handle: (ctx) => {
      const done = ctx.query.done;
      return teamPage(ctx, done === 'role' ? { kind: 'ok', text: t(ctx.shell.language, 'team.saved') } : done === 'removed' ? { kind: 'ok', text: t(ctx.shell.language, 'team.removed') } : null);
    },
  },
  {
    method: 'POST',
    path: '/team/invitations',
    action: 'team.manage',
    section: 'team',
    handle: async (ctx) => {
      const L = ctx.shell.language;
      let inv;
      try {
        inv = await invite({ ...ctx.services, baseUrl: ctx.services.config.baseUrl }, ctx.account.id, ctx.member, { email: ctx.form.email ?? '', role: ctx.form.role ?? '' });
      } catch (err) {
        return refusal(ctx, err);
      }
      const vars = { account: ctx.account.name, role: t(L, `role.${inv.role}`), date: formatDate(inv.expires_at, L), url: inv.url };
      let mailed = true;
      try {
        await sendMail(ctx.services, { to: inv.email, subject: t(L, 'mail.invite.subject', vars), text: t(L, 'mail.invite.body', vars) });
      } catch (err) {
        mailed = false;
        ctx.services.logger.warn({ account_id: ctx.account.id, err: err instanceof Error ? err.message : String(err) }, 'dashboard: invitation email not sent');
      }
      const extra = `<code class="secret" id="invitation-link">${esc(inv.url)}</code>${mailed ? '' : `<p>${esc(t(L, 'team.mail_failed'))}</p>`}`;
      return teamPage(ctx, { kind: 'warn', text: t(L, 'team.link_once', { email: inv.email }), extra }, 201);
    },
  },
  {
    method: 'POST',
    path: '/team/members/:id/role',
    action: 'team.manage',
    section: 'team',
    handle: async (ctx) => {
      try {
        await changeMember(ctx.services, ctx.member, ctx.params.id, (ctx.form.role ?? '') as MemberRow['role']);
      } catch (err) {
        return refusal(ctx, err);
      }
      return { redirect: '/dashboard/team?done=role' };
    },
  },
  {
    method: 'POST',
    path: '/team/members/:id/remove',
    action: 'team.manage',
    section: 'team',
    handle: async (ctx) => {
      try {
        if (ctx.params.id === ctx.member.id) throw new TeamError('self');
        await changeMember(ctx.services, ctx.member, ctx.params.id, null);
      } catch (err) {
        return refusal(ctx, err);
      }
      return { redirect: '/dashboard/team?done=removed' };
    },
  },
];
