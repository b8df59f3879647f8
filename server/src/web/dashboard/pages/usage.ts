// Usage: the account's balance and the mode's usage by day (GET /v1/balance and GET /v1/usage's domain functions),
// with a bar chart drawn on the server as SVG (no script, no style attribute: the strict CSP holds).
import { getBalance, getUsage, type Usage } from '../../../domain/billing.ts';
import { page, type DashboardRoute } from '../context.ts';
import type { DashboardLanguage } from '../members.ts';
import { t } from '../messages.ts';
import { banner, esc, formatDate, formatNumber } from '../render.ts';

const DAY_MS = 86_400_000;
const MAX_DAYS = 92;
const isDay = (v: string | undefined): v is string => !!v && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
const iso = (d: Date): string => d.toISOString().slice(0, 10);

interface Day {
  date: string;
  count: number;
  pages: number;
  credits: number;
}

/** Every day from `from` to `to`, with the usage rows (per type and kind) summed per day. */
export function byDay(usage: Usage): Day[] {
  const days: Day[] = [];
  for (let d = Date.parse(`${usage.from}T00:00:00Z`); d <= Date.parse(`${usage.to}T00:00:00Z`); d += DAY_MS) days.push({ date: iso(new Date(d)), count: 0, pages: 0, credits: 0 });
  const index = new Map(days.map((d) => [d.date, d]));
  for (const r of usage.data) {
    const day = index.get(r.date);
    if (!day) continue;
    day.count += r.count;
    day.pages += r.pages;
    day.credits = Math.round((day.credits + r.credits) * 1000) / 1000;
  }
  return days;
}

/** A bar per day (operations); the figure's text alternative is the table under it. */
export function barChart(days: Day[], language: DashboardLanguage, label: string): string {
  const W = 720;
  const H = 200;
  const pad = { left: 36, bottom: 24, top: 8 };
  const max = Math.max(1, ...days.map((d) => d.count));
  const slot = (W - pad.left) / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.7);
  const scale = (H - pad.bottom - pad.top) / max;
  const bars = days
    .map((d, i) => {
      const h = d.count * scale;
      const x = pad.left + i * slot + (slot - bar) / 2;
      return `<rect class="bar" x="${x.toFixed(1)}" y="${(H - pad.bottom - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}"><title>${esc(`${d.date}: ${d.count}`)}</title></rect>`;
    })
    .join('');
  const every = Math.ceil(days.length / 8);
  const ticks = days
    .map((d, i) => (i % every === 0 ? `<text x="${(pad.left + i * slot + slot / 2).toFixed(1)}" y="${H - 6}" text-anchor="middle">${esc(formatDate(`${d.date}T00:00:00Z`, language, false).replace(/,? \d{4}$/, ''))}</text>` : ''))
    .join('');
  return `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg">
<title id="chart-title">${esc(label)}</title>
<line class="axis" x1="${pad.left}" y1="${H - pad.bottom}" x2="${W}" y2="${H - pad.bottom}"/>
<text x="${pad.left - 6}" y="${pad.top + 10}" text-anchor="end">${max}</text><text x="${pad.left - 6}" y="${H - pad.bottom}" text-anchor="end">0</text>
${bars}${ticks}
</svg>`;
}

export const usageRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/usage',
    action: 'usage.view',
    section: 'usage',
    handle: async (ctx) => {
      const L = ctx.shell.language;
      const now = ctx.services.clock.now();
      let to = isDay(ctx.query.to) ? ctx.query.to : iso(now);
      let from = isDay(ctx.query.from) ? ctx.query.from : iso(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS));
      let notice = null;
      const span = (Date.parse(to) - Date.parse(from)) / DAY_MS;
      if (span < 0 || span >= MAX_DAYS || from < '0001-01-01') {
        notice = { kind: 'error' as const, text: t(L, 'usage.err.range') };
        to = iso(now);
        from = iso(new Date(now.getTime() - 29 * DAY_MS));
      }
      const [balance, usage] = await Promise.all([getBalance(ctx.services, ctx.auth), getUsage(ctx.services, ctx.auth, { from, to })]);
      const days = byDay(usage);
      const n = (v: number) => esc(formatNumber(v, L));
      const mode = t(L, ctx.session.livemode ? 'mode.live' : 'mode.test');
      const cards = `<h2>${esc(t(L, 'usage.balance'))}</h2><dl class="cards">
<div><dt>${esc(t(L, 'usage.spendable'))}</dt><dd>${n(balance.credits_spendable)}</dd></div>
<div><dt>${esc(t(L, 'usage.available'))}</dt><dd>${n(balance.credits_available)}</dd></div>
<div><dt>${esc(t(L, 'usage.free'))}</dt><dd>${n(balance.free_tier_remaining)}</dd></div>
<div><dt>${esc(t(L, 'usage.reserved'))}</dt><dd>${n(balance.credits_reserved)}</dd></div>
</dl><p class="muted">${esc(t(L, 'usage.resets', { date: formatDate(balance.free_tier_resets_at, L, false) }))}</p>`;
      const range = `<form method="get" action="/dashboard/usage" class="row">
<div class="field"><label for="from">${esc(t(L, 'usage.from'))}</label><input id="from" name="from" type="date" value="${esc(from)}"></div>
<div class="field"><label for="to">${esc(t(L, 'usage.to'))}</label><input id="to" name="to" type="date" value="${esc(to)}"></div>
<button class="button secondary" type="submit">${esc(t(L, 'usage.show'))}</button></form>`;
      const used = days.filter((d) => d.count > 0);
      const table = used.length
        ? `<table><thead><tr><th scope="col">${esc(t(L, 'usage.date'))}</th><th scope="col" class="num">${esc(t(L, 'usage.count'))}</th><th scope="col" class="num">${esc(t(L, 'usage.pages'))}</th><th scope="col" class="num">${esc(t(L, 'usage.credits'))}</th></tr></thead><tbody>${used
            .map((d) => `<tr><td>${esc(d.date)}</td><td class="num">${n(d.count)}</td><td class="num">${n(d.pages)}</td><td class="num">${n(d.credits)}</td></tr>`)
            .join('')}</tbody><tfoot><tr><th scope="row">${esc(t(L, 'usage.total'))}</th><td class="num">${n(usage.totals.count)}</td><td class="num">${n(usage.totals.pages)}</td><td class="num">${n(usage.totals.credits)}</td></tr></tfoot></table>`
        : `<p>${esc(t(L, 'usage.none'))}</p>`;
      const body = `${banner(notice)}${cards}<h2>${esc(t(L, 'usage.by_day', { mode }))}</h2>${range}${barChart(days, L, t(L, 'usage.chart', { from, to }))}${table}`;
      return page(ctx, 'usage', t(L, 'usage.title'), body, notice ? 422 : 200);
    },
  },
];
