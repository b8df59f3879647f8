// Webhooks: the endpoints of the mode shown, and per endpoint what the API leaves to the dashboard (spec: "Editing,
// disabling, test events and delivery history (last 100 deliveries) are dashboard-only"): disable / re-enable, a
// `test` event and resending a failed delivery (webhooks/manage.ts: all through the normal delivery queue), and the
// history with every attempt (webhook_delivery_attempts, written by the worker, pruned with the deliveries).
import { attemptsOf, findDelivery, listDeliveriesOfEndpoint } from '../../../db/webhook-deliveries.ts';
import { findWebhookEndpoint, listWebhookEndpoints } from '../../../db/webhook-endpoints.ts';
import type { WebhookDeliveryAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '../../../db/schema.ts';
import { DELIVERIES_KEPT_PER_ENDPOINT } from '../../../webhooks/deliveries.ts';
import { queueTestEvent, resendDelivery, resendRefusal, setEndpointStatus } from '../../../webhooks/manage.ts';
import { t, type MessageKey } from '../messages.ts';
import { can } from '../permissions.ts';
import { banner, csrfField, esc, formatDate, message, type Notice } from '../render.ts';
import { page, type DashboardRoute, type PageContext, type PageResult } from '../context.ts';

/** An endpoint of this account and of the mode shown, or undefined (another account's, or the other mode's: not found). */
async function endpointOf(ctx: PageContext): Promise<WebhookEndpointRow | undefined> {
  const e = await findWebhookEndpoint(ctx.services.db, ctx.account.id, ctx.params.id);
  return e && e.livemode === ctx.session.livemode ? e : undefined;
}

const notFound = (ctx: PageContext): PageResult =>
  page(ctx, 'webhooks', t(ctx.shell.language, 'notfound.title'), message('', '/dashboard/webhooks', t(ctx.shell.language, 'back')), 404);

const statusTag = (L: PageContext['shell']['language'], status: WebhookEndpointRow['status']): string =>
  `<span class="tag ${status === 'active' ? 'tag-active' : 'tag-revoked'}">${esc(t(L, status === 'active' ? 'wh.active' : 'wh.disabled'))}</span>`;

async function listPage(ctx: PageContext): Promise<PageResult> {
  const L = ctx.shell.language;
  const endpoints = (await listWebhookEndpoints(ctx.services.db, ctx.account.id)).filter((e) => e.livemode === ctx.session.livemode);
  const row = (e: WebhookEndpointRow) =>
    `<tr><td><a href="/dashboard/webhooks/${esc(e.id)}" aria-label="${esc(t(L, 'wh.open', { url: e.url }))}">${esc(e.url)}</a>${e.description ? `<br><span class="muted">${esc(e.description)}</span>` : ''}</td><td>${e.events.map((x) => `<code>${esc(x)}</code>`).join(' ')}</td><td>${statusTag(L, e.status)}</td><td>${esc(formatDate(e.created_at, L))}</td></tr>`;
  const table = endpoints.length
    ? `<table><thead><tr><th scope="col">${esc(t(L, 'wh.url'))}</th><th scope="col">${esc(t(L, 'wh.events'))}</th><th scope="col">${esc(t(L, 'wh.status'))}</th><th scope="col">${esc(t(L, 'wh.created'))}</th></tr></thead><tbody>${endpoints.map(row).join('')}</tbody></table>`
    : `<p>${esc(t(L, 'wh.none'))}</p>`;
  // In a sentence, the mode is a common noun ("Keys of test mode", "Claves del modo de prueba").
  const mode = t(L, ctx.session.livemode ? 'mode.live' : 'mode.test').toLowerCase();
  return page(ctx, 'webhooks', t(L, 'wh.title'), `<p class="muted">${esc(t(L, 'wh.intro', { mode }))}</p>${table}`);
}

const DONE: Record<string, MessageKey> = { disabled: 'wh.done.disabled', enabled: 'wh.done.enabled', test: 'wh.done.test', resent: 'wh.done.resent' };

async function endpointPage(ctx: PageContext, notice: Notice | null = null, status = 200): Promise<PageResult> {
  const L = ctx.shell.language;
  const e = await endpointOf(ctx);
  if (!e) return notFound(ctx);
  const manage = can(ctx.member.role, 'webhooks.manage');
  const deliveries = await listDeliveriesOfEndpoint(ctx.services.db, e.id, DELIVERIES_KEPT_PER_ENDPOINT);
  const attempts = new Map<string, WebhookDeliveryAttemptRow[]>(await Promise.all(deliveries.map(async (d) => [d.id, await attemptsOf(ctx.services.db, d.id)] as const)));
  const form = (action: string, label: string, cls = 'secondary') =>
    `<form method="post" action="/dashboard/webhooks/${esc(e.id)}/${action}">${csrfField(ctx.shell.csrf)}<button class="button ${cls} small" type="submit">${esc(label)}</button></form>`;
  const actions = manage
    ? `<div class="row">${e.status === 'active' ? form('disable', t(L, 'wh.disable'), 'danger') : form('enable', t(L, 'wh.enable'))}${e.status === 'active' ? form('test', t(L, 'wh.send_test')) : ''}</div>`
    : `<p class="muted">${esc(t(L, 'wh.readonly'))}</p>`;
  const attemptRows = (d: WebhookDeliveryRow) => {
    const list = attempts.get(d.id) ?? [];
    if (list.length === 0) return `<p class="muted">${esc(t(L, 'wh.no_attempts'))}</p>`;
    return `<table class="attempts"><thead><tr><th scope="col">#</th><th scope="col">${esc(t(L, 'wh.attempt_time'))}</th><th scope="col">${esc(t(L, 'wh.http'))}</th><th scope="col">${esc(t(L, 'wh.duration'))}</th><th scope="col">${esc(t(L, 'wh.response'))}</th></tr></thead><tbody>${list
      .map(
        (a) =>
          `<tr class="attempt"><td>${a.attempt}</td><td>${esc(formatDate(a.sent_at, L))}</td><td class="http-status">${a.status_code === null ? '—' : a.status_code}</td><td class="duration">${esc(t(L, 'wh.ms', { n: a.duration_ms }))}</td><td>${a.error && !a.succeeded ? `<span class="muted">${esc(a.error.slice(0, 300))}</span> ` : ''}${a.response_excerpt ? `<code class="excerpt">${esc(a.response_excerpt)}</code>` : ''}</td></tr>`,
      )
      .join('')}</tbody></table>`;
  };
  const delivery = (d: WebhookDeliveryRow) => {
    const resend =
      manage && resendRefusal(d) === null
        ? `<form method="post" action="/dashboard/webhooks/${esc(e.id)}/deliveries/${esc(d.id)}/resend">${csrfField(ctx.shell.csrf)}<button class="button secondary small" type="submit" aria-label="${esc(t(L, 'wh.resend_label', { id: d.id }))}">${esc(t(L, 'wh.resend'))}</button></form>`
        : '';
    const stTag = d.status === 'succeeded' ? 'tag-active' : d.status === 'failed' ? 'tag-revoked' : '';
    return `<section class="delivery" id="${esc(d.id)}"><h3><code>${esc(d.id)}</code> · <code>${esc(d.event_type)}</code> · <span class="tag ${stTag}">${esc(t(L, `wh.st.${d.status}`))}</span></h3><p class="muted">${esc(formatDate(d.created_at, L))}${d.status === 'failed' && d.last_error ? ` · ${esc(d.last_error)}` : ''}</p>${attemptRows(d)}${resend}</section>`;
  };
  const history = deliveries.length ? deliveries.map(delivery).join('') : `<p>${esc(t(L, 'wh.no_deliveries'))}</p>`;
  const body = `${banner(notice)}
<dl class="facts"><dt>${esc(t(L, 'wh.url'))}</dt><dd><code>${esc(e.url)}</code></dd><dt>${esc(t(L, 'wh.status'))}</dt><dd>${statusTag(L, e.status)}</dd><dt>${esc(t(L, 'wh.events'))}</dt><dd>${e.events.map((x) => `<code>${esc(x)}</code>`).join(' ')}</dd><dt>${esc(t(L, 'wh.created'))}</dt><dd>${esc(formatDate(e.created_at, L))}</dd></dl>
<p class="muted">${esc(t(L, 'wh.disabled_note'))}</p>
${actions}
<h2>${esc(t(L, 'wh.history'))}</h2>
${history}`;
  return page(ctx, 'webhooks', e.description ?? e.url, body, status);
}

/** A manage action on an endpoint: found (else 404), done, back to its page with a notice. */
function endpointAction(path: string, act: (ctx: PageContext, e: WebhookEndpointRow) => Promise<PageResult | string>): DashboardRoute {
  return {
    method: 'POST',
    path: `/webhooks/:id/${path}`,
    action: 'webhooks.manage',
    section: 'webhooks',
    handle: async (ctx) => {
      const e = await endpointOf(ctx);
      if (!e) return notFound(ctx);
      const out = await act(ctx, e);
      if (typeof out !== 'string') return out;
      ctx.services.logger.info({ account_id: ctx.account.id, member_id: ctx.member.id, endpoint_id: e.id, done: out }, 'dashboard: webhook endpoint');
      return { redirect: `/dashboard/webhooks/${e.id}?done=${out}` };
    },
  };
}

export const webhookRoutes: DashboardRoute[] = [
  { method: 'GET', path: '/webhooks', action: 'webhooks.view', section: 'webhooks', handle: listPage },
  {
    method: 'GET',
    path: '/webhooks/:id',
    action: 'webhooks.view',
    section: 'webhooks',
    handle: (ctx) => endpointPage(ctx, Object.hasOwn(DONE, ctx.query.done ?? '') ? { kind: 'ok', text: t(ctx.shell.language, DONE[ctx.query.done]) } : null),
  },
  endpointAction('disable', async (ctx, e) => {
    await setEndpointStatus(ctx.services.db, ctx.account.id, e.id, 'disabled');
    return 'disabled';
  }),
  endpointAction('enable', async (ctx, e) => {
    await setEndpointStatus(ctx.services.db, ctx.account.id, e.id, 'active');
    return 'enabled';
  }),
  endpointAction('test', async (ctx, e) => {
    if (e.status !== 'active') return endpointPage(ctx, { kind: 'error', text: t(ctx.shell.language, 'wh.err.disabled') }, 409);
    await queueTestEvent(ctx.services.db, ctx.services.clock, e);
    return 'test';
  }),
  endpointAction('deliveries/:delivery/resend', async (ctx, e) => {
    const d = await findDelivery(ctx.services.db, ctx.params.delivery);
    if (!d || d.endpoint_id !== e.id) return notFound(ctx);
    if (e.status !== 'active') return endpointPage(ctx, { kind: 'error', text: t(ctx.shell.language, 'wh.err.disabled') }, 409);
    const refusal = resendRefusal(d);
    if (refusal || !(await resendDelivery(ctx.services.db, ctx.services.clock, d.id))) {
      return endpointPage(ctx, { kind: 'error', text: t(ctx.shell.language, refusal === 'no_body' ? 'wh.err.no_body' : 'wh.err.not_failed') }, 409);
    }
    return 'resent';
  }),
];
