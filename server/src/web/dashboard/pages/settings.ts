// Settings: the account's name (what people see on the hosted page, in emails and in the console header), and the account settings the specification sends to the dashboard and that exist as columns (the link
// consent text and show_result, the default processing profile, the review retention defaults, the credits.low
// threshold), validated with the CLI's rules (`accounts update`). Everyone sees them; owners and admins change them.
import { updateAccount } from '../../../db/accounts.ts';
import { ACCOUNT_NAME_MAX, accountName } from '../../../domain/account-name.ts';
import type { AccountRow } from '../../../db/schema.ts';
import { page, type DashboardRoute, type PageContext, type PageResult } from '../context.ts';
import type { DashboardLanguage } from '../members.ts';
import { t } from '../messages.ts';
import { can } from '../permissions.ts';
import { banner, csrfField, errorList, esc, type Notice } from '../render.ts';

type Patch = Parameters<typeof updateAccount>[2];
type Values = Record<string, string>;

/** The form's values to a patch, or the problems (in the member's language). The CLI's limits. */
export function parseSettings(form: Values, L: DashboardLanguage): { patch: Patch; errors: string[] } {
  const errors: string[] = [];
  const patch: Patch = {};
  // Absent (a form of before the field existed): the name stays; present, it must be a name.
  if (form.name !== undefined) {
    const name = accountName(form.name);
    if (name === null) errors.push(t(L, 'settings.err.name'));
    else patch.name = name;
  }
  const text = form.link_consent_text ?? '';
  if ([...text].length > 2000) errors.push(t(L, 'settings.err.consent'));
  else patch.link_consent_text = text.trim() === '' ? null : text.replace(/\r\n/g, '\n');
  patch.link_show_result = form.link_show_result === 'on';
  if (form.default_processing !== 'sovereign' && form.default_processing !== 'standard') errors.push(t(L, 'settings.err.processing'));
  else patch.default_processing = form.default_processing;
  const int = (v: string | undefined, min: number, max: number): number | null => (v !== undefined && /^\s*\d+\s*$/.test(v) && Number(v) >= min && Number(v) <= max ? Number(v) : null);
  const days = int(form.review_max_days, 1, 90);
  if (days === null) errors.push(t(L, 'settings.err.days'));
  else patch.review_max_days = days;
  const hours = int(form.review_retention_hours, 0, 720);
  if (hours === null) errors.push(t(L, 'settings.err.hours'));
  else patch.review_retention_hours_after_decision = hours;
  const credits = Number((form.low_credit_threshold ?? '').replace(',', '.'));
  if ((form.low_credit_threshold ?? '').trim() === '' || !Number.isFinite(credits) || credits < 0 || credits > 1e9) errors.push(t(L, 'settings.err.credits'));
  else patch.low_credit_threshold_milli = Math.round(credits * 1000);
  return { patch, errors };
}

function valuesOf(a: AccountRow): Values {
  return {
    name: a.name,
    link_consent_text: a.link_consent_text ?? '',
    link_show_result: a.link_show_result ? 'on' : '',
    default_processing: a.default_processing,
    review_max_days: String(a.review_max_days),
    review_retention_hours: String(a.review_retention_hours_after_decision),
    low_credit_threshold: String(a.low_credit_threshold_milli / 1000),
  };
}

function settingsPage(ctx: PageContext, v: Values, notice: Notice | null, errors: string[], status = 200): PageResult {
  const L = ctx.shell.language;
  const editable = can(ctx.member.role, 'settings.edit');
  const off = editable ? '' : ' disabled';
  const opt = (value: string, key: 'settings.sovereign' | 'settings.standard') => `<option value="${value}"${v.default_processing === value ? ' selected' : ''}>${esc(t(L, key))}</option>`;
  const num = (id: string, name: string, label: Parameters<typeof t>[1], min: number, max: number, step = '1') =>
    `<div class="field"><label for="${id}">${esc(t(L, label))}</label><input id="${id}" name="${name}" type="number" min="${min}" max="${max}" step="${step}" required value="${esc(v[name] ?? '')}"${off}></div>`;
  const body = `${banner(notice)}${errorList(L, errors)}<p class="muted">${esc(t(L, 'settings.intro'))}${editable ? '' : ` ${esc(t(L, 'settings.readonly'))}`}</p>
<form method="post" action="/dashboard/settings">${csrfField(ctx.shell.csrf)}
<div class="field"><label for="account-name">${esc(t(L, 'settings.name'))}</label>
<input id="account-name" name="name" type="text" maxlength="${ACCOUNT_NAME_MAX}" required aria-describedby="name-hint" value="${esc(v.name ?? '')}"${off}>
<p class="muted" id="name-hint">${esc(t(L, 'settings.name_hint'))}</p></div>
<div class="field"><label for="consent">${esc(t(L, 'settings.consent_text'))}</label>
<textarea id="consent" name="link_consent_text" aria-describedby="consent-hint" maxlength="2000"${off}>${esc(v.link_consent_text ?? '')}</textarea>
<p class="muted" id="consent-hint">${esc(t(L, 'settings.consent_hint'))}</p></div>
<div class="check"><input id="show-result" name="link_show_result" type="checkbox"${v.link_show_result === 'on' ? ' checked' : ''}${off}><label for="show-result">${esc(t(L, 'settings.show_result'))}</label></div>
<div class="field"><label for="processing">${esc(t(L, 'settings.processing'))}</label><select id="processing" name="default_processing"${off}>${opt('sovereign', 'settings.sovereign')}${opt('standard', 'settings.standard')}</select></div>
${num('review-days', 'review_max_days', 'settings.review_max_days', 1, 90)}
${num('review-hours', 'review_retention_hours', 'settings.review_retention', 0, 720)}
${num('low-credit', 'low_credit_threshold', 'settings.low_credit', 0, 1_000_000_000, 'any')}
${editable ? `<button class="button" type="submit">${esc(t(L, 'settings.save'))}</button>` : ''}
</form>`;
  return page(ctx, 'settings', t(L, 'settings.title'), body, status);
}

export const settingsRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/settings',
    action: 'settings.view',
    section: 'settings',
    handle: async (ctx) => settingsPage(ctx, valuesOf(ctx.account), ctx.query.done === 'saved' ? { kind: 'ok', text: t(ctx.shell.language, 'settings.saved') } : null, []),
  },
  {
    method: 'POST',
    path: '/settings',
    action: 'settings.edit',
    section: 'settings',
    handle: async (ctx) => {
      const { patch, errors } = parseSettings(ctx.form, ctx.shell.language);
      if (errors.length) return settingsPage(ctx, ctx.form, null, errors, 422);
      await updateAccount(ctx.services.db, ctx.account.id, patch);
      ctx.services.logger.info({ account_id: ctx.account.id, member_id: ctx.member.id, updated: Object.keys(patch) }, 'dashboard: settings updated');
      return { redirect: '/dashboard/settings?done=saved' };
    },
  },
];
