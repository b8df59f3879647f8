// Every page a person reads, in real headless Chromium (Debian's, driven by playwright-core), in es, en, pt and fr, at
// 390, 1280 and 1440 px (#29 "Done when"): every dashboard page (usage, keys, settings, team, the review queue and a
// review in each state, webhook endpoints and their deliveries, links and dossiers in each state, sign-in, an
// invitation, not found) and the hosted verification page in each state (welcome, consent, a document, a retry, a
// document not accepted after its last attempt, a document being checked, a refused upload, the thank-you page with the verdict, expired, cancelled, unknown link),
// with test-mode data in every state: analyses valid, invalid, to review and failed, reviews open and decided,
// dossiers complete, invalid, to review and incomplete with cross-document checks passed and failed, link events.
//
// A page fails on any visible text outside <code>/<pre> that is an API enum value (every `enum` string of the served
// /openapi.json that is snake_case or one lower-case word, when a piece of text is just that value), any snake_case
// code at all, or a `{`...`}` blob; on a page wider than the window; and, at 1280 px and wider, on a console header
// that wraps to a second row. One browser, pages opened once per language and looked at in the three widths.
//
// Screenshots (each dashboard page at 1280 px in en and es, the hosted page at 390 px in all four languages) go to a
// temporary directory; with UPDATE_SCREENSHOTS=1 (`npm run screenshots`) to docs/dashboard/ and
// docs/verification-links/, palette-compressed, the ones docs/dashboard.md and docs/verification-links.md show.
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../server/src/db/accounts.ts';
import { issueKey } from '../../server/src/domain/accounts.ts';
import { expireDueLinks } from '../../server/src/domain/links/service.ts';
import { acceptInvitation, invite, LANGUAGES } from '../../server/src/web/dashboard/members.ts';
import type { DashboardLanguage } from '../../server/src/web/dashboard/members.ts';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { CHROMIUM, launchChromium, screenshot, screenshotsDir } from '../support/browser.ts';
import { PASSWORD } from '../support/dashboard.ts';
import { fixtures, form } from '../support/files.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

const dashboardShots = screenshotsDir('dashboard', 'cotejo-every-page-dashboard');
const hostedShots = screenshotsDir('verification-links', 'cotejo-every-page-hosted');
const WIDTHS = [1280, 390, 1440] as const;
/** Languages whose dashboard pages are photographed (at 1280 px). */
const DASHBOARD_SHOT_LANGUAGES: readonly string[] = ['en', 'es'];
/** The pages photographed: one of each kind (docs/dashboard.md and docs/verification-links.md show them). */
const SHOTS = new Set(['sign-in', 'usage', 'keys', 'settings', 'team', 'reviews', 'review-open', 'webhooks', 'webhook-deliveries', 'links', 'link-completed', 'dossiers', 'dossier-invalid']);
const HOSTED_SHOTS = new Set(['welcome', 'consent', 'document', 'retry', 'not-accepted', 'processing', 'done', 'expired', 'cancelled']);

/** Every `enum` string of the served OpenAPI document that a person should not read: snake_case or one lower-case word. */
function enumValues(doc: unknown): string[] {
  const out = new Set<string>();
  const walk = (o: unknown): void => {
    if (Array.isArray(o)) return o.forEach(walk);
    if (!o || typeof o !== 'object') return;
    const e = (o as { enum?: unknown }).enum;
    if (Array.isArray(e)) for (const v of e) if (typeof v === 'string' && /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(v)) out.add(v);
    Object.values(o).forEach(walk);
  };
  walk(doc);
  return [...out];
}

interface Finding {
  kind: 'enum' | 'code' | 'json';
  text: string;
}

/**
 * What a person reads on the page that they should not: visible text nodes outside code/pre (a select's options
 * count: they are read when it opens). A snake_case token anywhere in the text; a lower-case enum word when a piece of
 * the text (split at punctuation) is only that word; a `{`...`}` blob.
 */
async function findings(page: Page, enums: string[]): Promise<Finding[]> {
  return page.evaluate((values) => {
    const set = new Set(values);
    const out: Array<{ kind: 'enum' | 'code' | 'json'; text: string }> = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('code, pre, script, style, noscript, template, title')) continue;
      const holder = el.closest('select') ?? el;
      if (!holder.checkVisibility({ visibilityProperty: true })) continue;
      const text = (n.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (text === '') continue;
      if (/\{[^}]*\}/.test(text)) out.push({ kind: 'json', text });
      for (const m of text.matchAll(/(?<![\p{L}\p{N}_@.\/-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\p{L}\p{N}_\/-]|\.[A-Za-z0-9])/gu)) out.push({ kind: set.has(m[0]) ? 'enum' : 'code', text: `${m[0]} in "${text.slice(0, 120)}"` });
      for (const part of text.split(/[·:()[\],;|—–/]/)) {
        const p = part.trim();
        if (/^[a-z]+$/.test(p) && set.has(p)) out.push({ kind: 'enum', text: `${p} in "${text.slice(0, 120)}"` });
      }
    }
    return out;
  }, enums);
}

/** The page's layout problems at its current width: wider than the window; a console header on two rows (>= 1280). */
async function layoutProblems(page: Page, width: number): Promise<string[]> {
  return page.evaluate((w) => {
    const problems: string[] = [];
    const sw = document.documentElement.scrollWidth;
    if (sw > w) {
      const wide = [...document.querySelectorAll('main *, header *')].filter((e) => e.getBoundingClientRect().right > w + 1).slice(0, 3);
      problems.push(`page ${sw} px wide in a ${w} px window (${wide.map((e) => `${e.tagName.toLowerCase()}.${e.className}`).join(', ')})`);
    }
    const header = [...document.querySelectorAll('header.top > *')];
    if (w >= 1280 && header.length > 1) {
      const first = header[0].getBoundingClientRect();
      const below = header.filter((e) => e.getBoundingClientRect().top >= first.bottom);
      if (below.length) problems.push(`header on two rows: ${below.map((e) => (e.textContent ?? '').trim().slice(0, 40)).join(' | ')}`);
    }
    return problems;
  }, width);
}

describe.skipIf(!CHROMIUM)('every page in four languages and three widths, in headless Chromium', () => {
  let app: TestApp;
  let rx: Receiver;
  let browser: Browser;
  let enums: string[];
  const key = () => app.account.keys.test;
  /** Dashboard paths (with a name for the screenshots), made by the seed. */
  const dashboard: Array<{ name: string; path: string }> = [];
  /** Per link locale: the hosted pages (name, path under /l/). */
  const hosted: Record<string, Array<{ name: string; path: string }>> = {};

  const upload = async (linkUrl: string, docKey: string, filename: string): Promise<Record<string, unknown>> => {
    const res = await fetch(`${linkUrl}/documents/${docKey}`, { method: 'POST', headers: { Accept: 'application/json' }, body: form({ bytes: fixtures.jpeg(), name: filename, type: 'image/jpeg' }) });
    expect(res.status, `upload ${filename}`).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  };
  const consent = async (linkUrl: string) => {
    const res = await fetch(`${linkUrl}/consent`, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(303);
  };

  /** A link through the API; answers its id and the hosted page's URL on this server. */
  const link = async (body: Record<string, unknown>): Promise<{ id: string; url: string; path: string }> => {
    const r = await app.request('POST', '/v1/verification-links', { json: body });
    expect(r.status, r.text).toBe(201);
    const p = new URL(r.body.url).pathname;
    return { id: r.body.id, url: app.baseUrl + p, path: p };
  };

  const analyze = async (name: string, options: Record<string, unknown>): Promise<any> => {
    const r = await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name, type: 'image/jpeg' }, [['options', JSON.stringify(options)]]) });
    expect(r.status, r.text).toBeLessThan(300);
    return r.body;
  };

  async function seed(): Promise<void> {
    const accountId = app.account.account;
    await app.services.db.updateTable('accounts').set({ name: 'Inmobiliaria Sol y Mar' }).where('id', '=', accountId).execute();
    // Members, one per language, and an invitation still open.
    for (const language of LANGUAGES) {
      const inv = await invite({ ...app.services, baseUrl: app.baseUrl }, accountId, null, { email: `owner-${language}@example.com`, role: 'owner' });
      const r = await acceptInvitation(app.services, inv.token, { name: `Olga ${language.toUpperCase()}`, password: PASSWORD, confirm: PASSWORD, language });
      if (!r.ok) throw new Error(r.problem);
    }
    const open = await invite({ ...app.services, baseUrl: app.baseUrl }, accountId, null, { email: 'newcomer@example.com', role: 'member' });
    await invite({ ...app.services, baseUrl: app.baseUrl }, accountId, null, { email: 'admin@example.com', role: 'admin' });
    // Keys: one named, one revoked (as the console's Keys page makes and revokes them).
    await issueKey(app.services.db, app.services.clock, accountId, 'secret', 'test', 'Back office');
    const old = await issueKey(app.services.db, app.services.clock, accountId, 'publishable', 'test', 'Old site');
    await revokeApiKey(app.services.db, old.id, new Date());

    // Reviews: a template that keeps originals for review; one open, one approved, one rejected.
    const tpl = await app.request('POST', '/v1/templates', { json: { name: 'DNI con revisión', expect: ['es_dni'], storage: 'review' } });
    expect(tpl.status, tpl.text).toBe(201);
    const pending = await analyze('dni_low_confidence.jpg', { template: tpl.body.id });
    const approved = await analyze('dni_blurry.jpg', { template: tpl.body.id });
    const rejected = await analyze('dni_low_confidence_3.jpg', { template: tpl.body.id });
    for (const [a, decision] of [[approved, 'approve'], [rejected, 'reject']] as const) {
      const r = await app.request('POST', `/v1/analyses/${a.id}/review`, { json: { decision, reason: decision === 'reject' ? 'Número ilegible' : 'Comprobado a mano' } });
      expect(r.status, r.text).toBe(200);
    }
    dashboard.push(
      { name: 'reviews', path: '/dashboard/reviews' },
      { name: 'reviews-decided', path: '/dashboard/reviews?status=decided' },
      { name: 'review-open', path: `/dashboard/reviews/${pending.id}` },
      { name: 'review-approved', path: `/dashboard/reviews/${approved.id}` },
      { name: 'review-rejected', path: `/dashboard/reviews/${rejected.id}` },
    );

    // Webhooks: an endpoint that answers, one that fails, one disabled; deliveries of several events.
    const okEp = await app.request('POST', '/v1/webhook-endpoints', { json: { url: rx.url('/ok/hooks'), events: ['analysis.completed', 'analysis.failed', 'dossier.verdict_changed', 'verification_link.completed'], description: 'Back office' } });
    const failEp = await app.request('POST', '/v1/webhook-endpoints', { json: { url: rx.url('/fail/hooks'), events: ['analysis.completed'] } });
    const offEp = await app.request('POST', '/v1/webhook-endpoints', { json: { url: rx.url('/ok/off'), events: ['analysis.review_required'] } });
    expect(offEp.status).toBe(201);
    await app.services.db.updateTable('webhook_endpoints').set({ status: 'disabled' }).where('id', '=', offEp.body.id).execute();

    // Analyses: valid, invalid, to review, failed (through dossiers, so the console shows them).
    const dossier = async (reference: string, language: string, docs: Array<[string, string]>, holder?: Record<string, string>) => {
      const d = await app.request('POST', '/v1/dossiers', { json: { reference, language, documents: [{ key: 'id', label: 'DNI', expect: 'es_dni' }, { key: 'payslip', label: 'Nómina', expect: ['es_payslip'] }] } });
      expect(d.status, d.text).toBe(201);
      for (const [slot, name] of docs) {
        const fields: Array<[string, string]> = [['key', slot]];
        if (holder) fields.push(['options', JSON.stringify({ checks: { holder } })]);
        const r = await app.request('POST', `/v1/dossiers/${d.body.id}/documents`, { body: form({ bytes: fixtures.jpeg(), name, type: 'image/jpeg' }, fields) });
        expect(r.status, r.text).toBeLessThan(300);
      }
      return d.body.id as string;
    };
    const holder = { full_name: 'María José García López', birth_date: '1988-07-21', document_number: '12345678Z' };
    const valid = await dossier('EXP-VALIDO', 'es', [['id', 'dni_valid.jpg'], ['payslip', 'nomina.pdf']], holder);
    const invalid = await dossier('EXP-TITULAR', 'en', [['id', 'dni_expired.jpg'], ['payslip', 'nomina_2.pdf']]);
    const review = await dossier('EXP-REVISAR', 'pt', [['id', 'dni_blurry.jpg'], ['payslip', 'nomina.pdf']], holder);
    const failed = await dossier('EXP-FALLO', 'fr', [['id', 'dni_failed.jpg']]);
    const empty = await dossier('EXP-VACIO', 'es', []);
    await analyze('passport_mismatch_mrz.jpg', {});
    // The states the walk is meant to see, as the API has them.
    const verdictOf = async (id: string) => (await app.request('GET', `/v1/dossiers/${id}`)).body as { verdict: { status: string }; checks: Array<{ passed: boolean }>; documents: Array<{ status: string }> };
    const seen = { valid: await verdictOf(valid), invalid: await verdictOf(invalid), review: await verdictOf(review), failed: await verdictOf(failed), empty: await verdictOf(empty) };
    expect(seen.valid.verdict.status, JSON.stringify(seen.valid)).toBe('complete_valid');
    expect(seen.valid.checks.length > 0 && seen.valid.checks.every((c) => c.passed)).toBe(true);
    expect(seen.invalid.verdict.status).toBe('invalid');
    expect(seen.invalid.checks.some((c) => !c.passed)).toBe(true);
    expect(seen.review.verdict.status).toBe('review');
    expect(seen.failed.documents.map((d) => d.status)).toContain('failed');
    expect(seen.empty.verdict.status).toBe('incomplete');

    // Links, per locale, in every state the hosted page has.
    for (const locale of LANGUAGES) {
      const docs = [{ key: 'dni', label: locale === 'en' ? 'ID card' : 'DNI', expect: 'es_dni' }];
      const pages: Array<{ name: string; path: string }> = [];
      const fresh = await link({ documents: docs, locale, reference: `ALQ-${locale}` });
      pages.push({ name: 'welcome', path: fresh.path }, { name: 'consent', path: `${fresh.path}?step=consent` });
      const doc = await link({ documents: [...docs, { key: 'payslip', label: locale === 'en' ? 'Payslip' : 'Nómina', expect: 'es_payslip' }], locale, metadata: { case: '7' } });
      await consent(doc.url);
      await upload(doc.url, 'dni', 'dni_valid.jpg');
      pages.push({ name: 'document', path: `${doc.path}?last=dni` }, { name: 'refused', path: `${doc.path}?error=unsupported_file_type` });
      const retry = await link({ documents: docs, locale });
      await consent(retry.url);
      await upload(retry.url, 'dni', 'blurry.jpg');
      pages.push({ name: 'retry', path: retry.path });
      // Out of attempts: five blurry photos, the document not accepted; the next one's page says so.
      const spent = await link({ documents: [...docs, { key: 'payslip', label: locale === 'en' ? 'Payslip' : 'Nómina', expect: 'es_payslip' }], locale });
      await consent(spent.url);
      for (let i = 0; i < 5; i++) await upload(spent.url, 'dni', 'blurry.jpg');
      pages.push({ name: 'not-accepted', path: `${spent.path}?last=dni` });
      const slow = await link({ documents: docs, locale });
      await consent(slow.url);
      await upload(slow.url, 'dni', 'dni_slow.jpg');
      pages.push({ name: 'processing', path: slow.path });
      const done = await link({ documents: docs, locale, show_result: true });
      await consent(done.url);
      await upload(done.url, 'dni', 'dni_expired.jpg');
      pages.push({ name: 'done', path: done.path });
      const expired = await link({ documents: docs, locale });
      await app.services.db.updateTable('verification_links').set({ expires_at: new Date(Date.now() - 60_000) }).where('id', '=', expired.id).execute();
      pages.push({ name: 'expired', path: expired.path });
      const cancelled = await link({ documents: docs, locale });
      expect((await app.request('DELETE', `/v1/verification-links/${cancelled.id}`)).status).toBeLessThan(300);
      pages.push({ name: 'cancelled', path: cancelled.path });
      pages.push({ name: 'unknown', path: '/l/an-unknown-token-that-is-long-enough' });
      // A link past its expiry is marked expired by the worker's sweep (the worker does not run here).
      await expireDueLinks(app.services);
      const statusOf = async (id: string) => (await app.request('GET', `/v1/verification-links/${id}`)).body.status as string;
      expect([await statusOf(fresh.id), await statusOf(doc.id), await statusOf(done.id), await statusOf(expired.id), await statusOf(cancelled.id)]).toEqual(['pending', 'in_progress', 'completed', 'expired', 'cancelled']);
      hosted[locale] = pages;
      if (locale === 'en') {
        dashboard.push(
          { name: 'link-pending', path: `/dashboard/links/${fresh.id}` },
          { name: 'link-in-progress', path: `/dashboard/links/${doc.id}` },
          { name: 'link-completed', path: `/dashboard/links/${done.id}` },
          { name: 'link-expired', path: `/dashboard/links/${expired.id}` },
          { name: 'link-cancelled', path: `/dashboard/links/${cancelled.id}` },
        );
      }
    }
    // Opened (the welcome page once), so `opened` is among the events.
    await fetch(app.baseUrl + hosted.en[0].path);

    // Deliveries: succeeded, failed (retrying), a test event.
    for (let k; (k = await runDueDeliveries(app.services, { limit: 100, sender: { ca: rx.ca } })) > 0; ) void k;
    dashboard.push(
      { name: 'links', path: '/dashboard/links' },
      { name: 'dossiers', path: '/dashboard/dossiers' },
      { name: 'dossier-valid', path: `/dashboard/dossiers/${valid}` },
      { name: 'dossier-invalid', path: `/dashboard/dossiers/${invalid}` },
      { name: 'dossier-review', path: `/dashboard/dossiers/${review}` },
      { name: 'dossier-failed', path: `/dashboard/dossiers/${failed}` },
      { name: 'dossier-incomplete', path: `/dashboard/dossiers/${empty}` },
      { name: 'webhooks', path: '/dashboard/webhooks' },
      { name: 'webhook-deliveries', path: `/dashboard/webhooks/${okEp.body.id}` },
      { name: 'webhook-failing', path: `/dashboard/webhooks/${failEp.body.id}` },
      { name: 'webhook-disabled', path: `/dashboard/webhooks/${offEp.body.id}` },
      { name: 'usage', path: '/dashboard/usage' },
      { name: 'keys', path: '/dashboard/keys' },
      { name: 'settings', path: '/dashboard/settings' },
      { name: 'team', path: '/dashboard/team' },
      { name: 'not-found', path: '/dashboard/no-such-page' },
      { name: 'invitation', path: new URL(open.url).pathname },
    );
  }

  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp('pglite', { config: { allowPrivateUrls: true } });
    browser = await launchChromium();
    enums = enumValues(await (await fetch(`${app.baseUrl}/openapi.json`)).json());
    await seed();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rx?.close();
    dashboardShots.cleanup();
    hostedShots.cleanup();
  });

  /** Opens each path in `context`, looks at it in the three widths; answers every problem found (all of them, not the first). */
  async function walk(context: BrowserContext, label: string, paths: Array<{ name: string; path: string }>, shotAt: { width: number; dir: string; suffix: string } | null): Promise<string[]> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`${label}: page error ${e.message}`));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) problems.push(`${label}: ${m.text()}`);
    });
    for (const p of paths) {
      await page.setViewportSize({ width: WIDTHS[0], height: 800 });
      const res = await page.goto(app.baseUrl + p.path);
      expect(res, `${label} ${p.name}`).not.toBeNull();
      for (const f of await findings(page, enums)) problems.push(`${label} ${p.name}: ${f.kind} ${f.text}`);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        for (const l of await layoutProblems(page, width)) problems.push(`${label} ${p.name} at ${width}: ${l}`);
        if (shotAt && width === shotAt.width && (SHOTS.has(p.name) || HOSTED_SHOTS.has(p.name))) await screenshot(page, path.join(shotAt.dir, `${p.name}${shotAt.suffix}.png`));
      }
    }
    await page.close();
    return problems;
  }

  it.each(LANGUAGES.map((l) => [l]))('the dashboard and the hosted page in %s', async (language: DashboardLanguage) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, extraHTTPHeaders: { 'Accept-Language': language }, locale: language });
    const page = await context.newPage();
    // The pages before sign-in, in the browser's language.
    const problems = await walk(context, `${language} dashboard`, [{ name: 'sign-in', path: '/dashboard/sign-in' }], DASHBOARD_SHOT_LANGUAGES.includes(language) ? { width: 1280, dir: dashboardShots.dir, suffix: `-${language}` } : null);
    await page.goto(`${app.baseUrl}/dashboard/sign-in`);
    await page.fill('#email', `owner-${language}@example.com`);
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard\/usage$/);
    await page.close();
    problems.push(...(await walk(context, `${language} dashboard`, dashboard, DASHBOARD_SHOT_LANGUAGES.includes(language) ? { width: 1280, dir: dashboardShots.dir, suffix: `-${language}` } : null)));
    await context.close();

    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, extraHTTPHeaders: { 'Accept-Language': language }, locale: language });
    problems.push(...(await walk(phone, `${language} hosted`, hosted[language], { width: 390, dir: hostedShots.dir, suffix: `-${language}` })));
    await phone.close();
    expect(problems).toEqual([]);
  }, 180_000);
});
