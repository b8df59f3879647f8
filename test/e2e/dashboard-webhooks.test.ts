// The dashboard's Webhooks, Links and Dossiers sections in real headless Chromium (Debian's, driven by playwright-core)
// at 1280x800: an admin signs in, opens Webhooks, disables and re-enables an endpoint, sends a test event (the delivery
// worker is run by the test, to a local HTTPS receiver) and sees it in the history; opens a link and a dossier.
// axe-core on every page (no serious or critical violation); no CSP report or console error.
//
// The pictures of these pages in docs/dashboard/ are every-page.test.ts's.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { axe, CHROMIUM, launchChromium, screenshotsDir } from '../support/browser.ts';
import { makeMember, PASSWORD } from '../support/dashboard.ts';
import { fixtures, form } from '../support/files.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

const shots = screenshotsDir('dashboard', 'cotejo-dashboard-wh-shots');
const SHOTS = shots.dir;

describe.skipIf(!CHROMIUM)('the dashboard webhooks, links and dossiers in headless Chromium (1280x800)', () => {
  let app: TestApp;
  let browser: Browser;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp('pglite', { config: { allowPrivateUrls: true } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await rx?.close();
    shots.cleanup();
  });

  it('disables and re-enables an endpoint, sends a test event and sees it in the history, opens a link and a dossier', async () => {
    const key = app.account.keys.test;
    await makeMember(app, app.account.account, 'admin', 'admin@example.com', 'Adam Admin');
    const ep = (await app.request('POST', '/v1/webhook-endpoints', { key, json: { url: rx.url('/ok/hooks'), events: ['analysis.completed', 'dossier.verdict_changed'], description: 'Back office' } })).body as { id: string };
    const link = (await app.request('POST', '/v1/verification-links', { key, json: { documents: [{ key: 'id', label: 'ID card', expect: 'es_dni' }], reference: 'CASE-7' } })).body as { id: string };
    const dossier = (await app.request('POST', '/v1/dossiers', { key, json: { reference: 'DOS-1', language: 'en', documents: [{ key: 'id', label: 'ID card', expect: 'dni' }, { key: 'payslip', expect: ['nomina'] }] } })).body as { id: string };
    const added = await app.request('POST', `/v1/dossiers/${dossier.id}/documents`, { key, body: form({ bytes: fixtures.jpeg(), name: 'blurry.jpg', type: 'image/jpeg' }, [['key', 'id']]) });
    expect(added.status).toBeLessThan(300);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB', extraHTTPHeaders: { 'Accept-Language': 'en' } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const check = async (name: string, shot?: string) => {
      expect(await axe(page), `axe on ${name}`).toEqual([]);
      if (shot) await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
    };

    await page.goto(`${app.baseUrl}/dashboard/sign-in`);
    await page.fill('#email', 'admin@example.com');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.click('nav >> text=Webhooks');
    await check('webhooks list');
    await page.click(`a[href="/dashboard/webhooks/${ep.id}"]`);
    expect(await page.locator('h1').textContent()).toBe('Back office');

    await page.click('button:has-text("Disable")');
    expect(await page.locator('.banner').textContent()).toContain('Endpoint disabled.');
    expect(await page.locator('dd .tag').textContent()).toBe('Disabled');
    await check('endpoint disabled');
    await page.click('button:has-text("Re-enable")');
    expect(await page.locator('.banner').textContent()).toContain('Endpoint re-enabled.');

    await page.click('button:has-text("Send a test event")');
    expect(await page.locator('.banner').textContent()).toContain('Test event queued');
    // The dossier's events were queued earlier: the worker sends them with the test event (the newest).
    expect(await runDueDeliveries(app.services, { sender: { ca: rx.ca }, limit: 50 })).toBeGreaterThanOrEqual(1);
    expect(rx.to('/ok/hooks').filter((r) => JSON.parse(r.body).type === 'test')).toHaveLength(1);
    await page.reload();
    const delivery = page.locator('section.delivery').first();
    expect(await delivery.locator('h3').textContent()).toContain('test');
    expect(await delivery.locator('h3').textContent()).toContain('Delivered');
    expect(await delivery.locator('.http-status').textContent()).toBe('200');
    await check('endpoint history');

    await page.click('nav >> text=Links');
    await check('links list');
    await page.click(`a[href="/dashboard/links/${link.id}"]`);
    expect(await page.locator('#link-status').textContent()).toBe('Pending');
    await check('link');

    await page.click('nav >> text=Dossiers');
    await check('dossiers list');
    await page.click(`a[href="/dashboard/dossiers/${dossier.id}"]`);
    expect(await page.locator('#dossier-verdict').textContent()).toBe('Incomplete'); // the payslip is missing
    // The ID card's analysis waits for a human: linked to its page in the Reviews section.
    expect(await page.locator('main a[href^="/dashboard/reviews/an_"]').count()).toBe(1);
    await check('dossier');

    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
