// The hosted verification page, the whole phone flow in real headless Chromium (Debian's, driven by playwright-core)
// at a 390x844 viewport, in Spanish and English: a link created through the API, opened, consent accepted, a blurry
// photo that asks for another one, a good one, completion, the redirect to the business's page (a loopback HTTPS
// receiver); axe-core in the page at every step (no serious or critical violation); then the link, its dossier, the
// webhook and the signed callback checked through the API. A second test runs the same flow with JavaScript off.
//
// Screenshots of every step go to a temporary directory (each must be a real picture); the ones
// docs/verification-links.md shows, in four languages, are every-page.test.ts's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callbackSecretOf } from '../../server/src/domain/links/service.ts';
import { t } from '../../server/src/web/messages.ts';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { axe, CHROMIUM, launchChromium } from '../support/browser.ts';
import { fixtures } from '../support/files.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../unit/webhooks/receiver.ts';

const shots = { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-hosted-shots-')), cleanup: () => fs.rmSync(shots.dir, { recursive: true, force: true }) };
const SHOTS = shots.dir;

function verifySigned(req: ReceivedRequest, secret: string): Record<string, any> {
  vi.useFakeTimers({ toFake: ['Date'], now: Number(req.headers['webhook-timestamp']) * 1000 + 500 });
  try {
    return new StandardWebhook(secret).verify(req.body, req.headers) as Record<string, any>;
  } finally {
    vi.useRealTimers();
  }
}

describe.skipIf(!CHROMIUM)('the hosted verification page in headless Chromium (390x844)', () => {
  let app: TestApp;
  let rx: Receiver;
  let browser: Browser;
  beforeAll(async () => {
    rx = await startReceiver();
    // Loopback callback and redirect URLs (the receiver) are private addresses: allowed for this test.
    app = await startTestApp('pglite', { config: { allowPrivateUrls: true } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rx?.close();
    shots.cleanup();
  });

  const drain = async (): Promise<number> => {
    let n = 0;
    for (let k; (k = await runDueDeliveries(app.services, { limit: 50, sender: { ca: rx.ca } })) > 0; ) n += k;
    return n;
  };

  /** A page at phone size that records what a test must assert never happened. */
  async function phone(locale: string, javaScriptEnabled = true) {
    // ignoreHTTPSErrors: the redirect target is the loopback receiver's self-signed certificate.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, locale, javaScriptEnabled, ignoreHTTPSErrors: true, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      // A link that is done answers its thank-you page with 410 Gone, which Chromium reports on the console.
      if (/status of 410 \(Gone\)/.test(m.text())) return;
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    const uploads: Array<{ accept: string }> = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (!['127.0.0.1', 'localhost'].includes(u.hostname) && u.protocol !== 'data:') problems.push(`outside request: ${r.url()}`);
      if (r.method() === 'POST' && u.pathname.includes('/documents/')) uploads.push({ accept: r.headers().accept ?? '' });
    });
    return { context, page, problems, uploads };
  }

  async function step(page: Page, name: string): Promise<void> {
    expect(await axe(page), `axe on ${name}`).toEqual([]);
    const file = path.join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file });
    expect(fs.statSync(file).size).toBeGreaterThan(5_000);
  }

  it.each(['es', 'en'] as const)('the phone flow in %s: consent, a blurry photo, a good one, completion, redirect', async (locale) => {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const key = acct.keys.test;
    // Who asks, as the page shows it (the account's name).
    const requester = locale === 'es' ? 'Inmobiliaria Sol' : 'Sunrise Lettings';
    await app.services.db.updateTable('accounts').set({ name: requester }).where('id', '=', acct.account).execute();
    const hooks = `/ok/hooks-${locale}`;
    const ep = await app.request('POST', '/v1/webhook-endpoints', { key, json: { url: rx.url(hooks), events: ['verification_link.completed'] } });
    expect(ep.status).toBe(201);
    const created = await app.request('POST', '/v1/verification-links', {
      key,
      json: {
        documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni' }],
        locale,
        reference: `e2e-${locale}`,
        show_result: true,
        redirect_url: rx.url(`/ok/back-${locale}`),
        redirect_with_status: true,
        callback_url: rx.url(`/ok/callback-${locale}`),
      },
    });
    expect(created.status).toBe(201);
    const link = created.body;
    // The API's url is built on the configured public base URL; the test server listens elsewhere on loopback.
    const url = app.baseUrl + new URL(link.url).pathname;

    const { context, page, problems, uploads } = await phone(locale);
    // 1. Welcome: who asks, what is needed.
    const res = await page.goto(url);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(await page.locator('html').getAttribute('lang')).toBe(locale);
    await page.getByRole('heading', { level: 1, name: t(locale, 'welcome.heading', { requester }) }).waitFor();
    expect(await page.locator('ul.needed li').allInnerTexts()).toEqual([expect.stringMatching(/DNI/)]);
    // The page is phone-sized: nothing wider than the viewport.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await step(page, `01-welcome-${locale}`);

    // 2. Consent.
    await page.getByRole('link', { name: t(locale, 'welcome.start') }).click();
    await page.getByRole('heading', { level: 1, name: t(locale, 'consent.heading') }).waitFor();
    await step(page, `02-consent-${locale}`);
    await page.getByRole('button', { name: t(locale, 'consent.accept') }).click();

    // 3. The document: take a photo (camera) or choose a file.
    await page.getByRole('heading', { level: 1, name: 'DNI' }).waitFor();
    const camera = page.getByLabel(t(locale, 'doc.take_photo'));
    expect(await camera.getAttribute('capture')).toBe('environment');
    expect(await camera.getAttribute('accept')).toBe('image/*,application/pdf');
    // Keyboard: the camera input is reachable with Tab (focus order follows the page).
    await page.keyboard.press('Tab');
    let reached = false;
    for (let i = 0; i < 10 && !reached; i++) {
      reached = await camera.evaluate((el) => el === document.activeElement);
      if (!reached) await page.keyboard.press('Tab');
    }
    expect(reached).toBe(true);
    await step(page, `03-document-${locale}`);

    // 4. A blurry photo: uploaded by the script (with progress), the page asks for another one.
    await page.getByLabel(t(locale, 'doc.choose_file')).setInputFiles({ name: 'blurry.jpg', mimeType: 'image/jpeg', buffer: fixtures.jpeg() });
    await page.getByRole('heading', { level: 1, name: t(locale, 'retry.heading', { label: 'DNI' }) }).waitFor({ timeout: 30_000 });
    await page.getByText(t(locale, 'retry.attempts_left', { n: 4 })).waitFor();
    await page.getByText(t(locale, 'warning.blurry')).waitFor();
    await step(page, `04-retry-${locale}`);

    // 5. A good photo: accepted, the link is complete, the thank-you page (with the verdict: show_result).
    await camera.setInputFiles({ name: 'dni_valid.jpg', mimeType: 'image/jpeg', buffer: fixtures.jpeg() });
    await page.getByRole('heading', { level: 1, name: t(locale, 'final.heading') }).waitFor({ timeout: 30_000 });
    await page.getByText(t(locale, 'outcome.verdict', { verdict: t(locale, 'verdict.valid') })).waitFor();
    await step(page, `05-done-${locale}`);
    // Both uploads went through the script (XMLHttpRequest with progress), not a form post.
    expect(uploads).toHaveLength(2);
    for (const u of uploads) expect(u.accept).toContain('application/json');

    // 6. Then the business's page, with link_id and status.
    await page.waitForURL((u) => u.href.startsWith(rx.url(`/ok/back-${locale}`)), { timeout: 30_000 });
    const back = new URL(page.url());
    expect(back.searchParams.get('link_id')).toBe(link.id);
    expect(back.searchParams.get('status')).toBe('completed');
    expect(rx.to(`/ok/back-${locale}`)).toHaveLength(1);
    // The token never went to the business's page as a Referer.
    expect(rx.to(`/ok/back-${locale}`)[0].headers.referer).toBeUndefined();
    // The old URL now says the link is done (410) and takes no more uploads.
    const again = await page.goto(url);
    expect(again?.status()).toBe(410);
    await context.close();
    expect(problems).toEqual([]);

    // The link: completed, every event, the counted attempt and its verdict.
    const got = (await app.request('GET', `/v1/verification-links/${link.id}`, { key })).body;
    expect(got.status).toBe('completed');
    expect(got.consent).toMatchObject({ ip: '127.0.0.1' });
    expect(got.events.map((e: { type: string }) => e.type)).toEqual(['created', 'opened', 'consent_accepted', 'document_uploaded', 'document_uploaded', 'document_accepted', 'completed']);
    expect(got.documents[0]).toMatchObject({ key: 'dni', status: 'completed', attempts: 2, verdict_status: 'valid', warnings: [] });
    const analysis = (await app.request('GET', `/v1/analyses/${got.documents[0].analysis_id}`, { key })).body;
    expect(analysis).toMatchObject({ status: 'completed', verdict: { status: 'valid' } });
    const dossier = (await app.request('GET', `/v1/dossiers/${link.dossier_id}`, { key })).body;
    expect(dossier.verdict.status).toBe('complete_valid');

    // The webhook and the signed callback: the same completed link.
    await drain();
    const hook = rx.to(hooks);
    const cb = rx.to(`/ok/callback-${locale}`);
    expect(hook).toHaveLength(1);
    expect(cb).toHaveLength(1);
    const body = verifySigned(cb[0], await callbackSecretOf(app.services.db, acct.account, false));
    expect(verifySigned(hook[0], ep.body.secret)).toEqual(body);
    expect(body.type).toBe('verification_link.completed');
    expect(body.data).toMatchObject({ id: link.id, status: 'completed', dossier: { id: link.dossier_id, verdict: { status: 'complete_valid' } } });
  }, 120_000);

  it('works without JavaScript: plain links and a plain form upload', async () => {
    const created = await app.request('POST', '/v1/verification-links', { json: { documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni' }], locale: 'en' } });
    const url = app.baseUrl + new URL(created.body.url).pathname;
    const { context, page, problems, uploads } = await phone('en', false);
    await page.goto(url);
    await page.getByRole('link', { name: t('en', 'welcome.start') }).click();
    await page.getByRole('button', { name: t('en', 'consent.accept') }).click();
    await page.getByRole('heading', { level: 1, name: 'DNI' }).waitFor();
    // Without the script the inputs are plain file inputs with a Send button.
    await page.getByLabel(t('en', 'doc.choose_file')).setInputFiles({ name: 'blurry.jpg', mimeType: 'image/jpeg', buffer: fixtures.jpeg() });
    await page.getByRole('button', { name: t('en', 'doc.send') }).click();
    await page.getByRole('heading', { level: 1, name: t('en', 'retry.heading', { label: 'DNI' }) }).waitFor();
    // (No axe here: with JavaScript off, page.evaluate cannot run it; the flow above checks the same pages.)
    await page.getByLabel(t('en', 'doc.choose_file')).setInputFiles({ name: 'pasted.txt', mimeType: 'text/plain', buffer: Buffer.from('not a document') });
    await page.getByRole('button', { name: t('en', 'doc.send') }).click();
    await page.getByRole('alert').filter({ hasText: t('en', 'error.unsupported_file_type') }).waitFor();
    await page.getByLabel(t('en', 'doc.take_photo')).setInputFiles({ name: 'dni_valid.jpg', mimeType: 'image/jpeg', buffer: fixtures.jpeg() });
    await page.getByRole('button', { name: t('en', 'doc.send') }).click();
    await page.getByRole('heading', { level: 1, name: t('en', 'final.heading') }).waitFor();
    // The same page on a desktop: centred, nothing wider than the window.
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(await page.locator('main').evaluate((m) => m.getBoundingClientRect().width)).toBeLessThanOrEqual(660);
    expect(uploads.every((u) => !u.accept.includes('application/json'))).toBe(true);
    expect(uploads).toHaveLength(3);
    await context.close();
    expect(problems).toEqual([]);
    expect((await app.request('GET', `/v1/verification-links/${created.body.id}`)).body).toMatchObject({ status: 'completed', documents: [{ attempts: 2 }] });
  }, 120_000);
});
