// The dashboard in real headless Chromium (Debian's, driven by playwright-core) at desktop size (1280x800): the first
// owner accepts the invitation the CLI would print, signs in, opens Keys, creates a key (shown once), revokes it,
// changes a setting, looks at Usage and invites a teammate. axe-core at every page (no serious or critical
// violation); the console must show no CSP report or error.
//
// Screenshots go to a temporary directory; with UPDATE_SCREENSHOTS=1 keys-created.png to docs/dashboard/ (every other page's picture is every-page.test.ts's).
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invite } from '../../server/src/web/dashboard/members.ts';
import { findAccount, listApiKeys } from '../../server/src/db/accounts.ts';
import { recordUsage } from '../../server/src/db/usage.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { axe, CHROMIUM, launchChromium, screenshot, screenshotsDir } from '../support/browser.ts';

const shots = screenshotsDir('dashboard', 'cotejo-dashboard-shots');
const SHOTS = shots.dir;
const PASSWORD = 'a long and private passphrase';

describe.skipIf(!CHROMIUM)('the dashboard in headless Chromium (1280x800)', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startTestApp('pglite');
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    shots.cleanup();
  });

  it('an owner accepts the invitation, signs in, makes and revokes a key, changes a setting, invites a teammate', async () => {
    const accountId = app.account.account;
    const inv = await invite({ ...app.services, baseUrl: app.baseUrl }, accountId, null, { email: 'owner@example.com', role: 'owner' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB', extraHTTPHeaders: { 'Accept-Language': 'en' } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    const check = async (name: string, shot = false) => {
      expect(await axe(page), `axe on ${name}`).toEqual([]);
      if (shot) await screenshot(page, path.join(SHOTS, `${name}.png`));
    };

    await page.goto(inv.url);
    expect(await page.locator('h1').textContent()).toBe('Join the Test account dashboard');
    await check('invitation');
    await page.fill('#name', 'Olga Owner');
    await page.fill('#password', PASSWORD);
    await page.fill('#confirm', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard\/sign-in\?joined=1$/);
    expect(await page.locator('.banner').textContent()).toContain('You can sign in now.');
    await page.fill('#email', 'owner@example.com');
    await page.fill('#password', PASSWORD);
    await check('sign-in');
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard\/usage$/);

    await page.click('nav >> text=Keys');
    await page.waitForURL(/\/dashboard\/keys$/);
    await check('keys');
    await page.fill('#key-name', 'Back office');
    await page.click('form[action="/dashboard/keys"] button[type=submit]');
    const secret = (await page.locator('#new-key').textContent())!;
    expect(secret).toMatch(/^ck_test_[0-9A-Za-z]{32}$/);
    await check('keys-created', true);
    // Shown once: the list does not have it.
    await page.click('nav >> text=Keys');
    expect(await page.content()).not.toContain(secret);
    const row = page.locator('tr', { hasText: 'Back office' });
    await row.locator('button', { hasText: 'Revoke' }).click();
    await page.waitForURL(/\/dashboard\/keys\?done=revoked$/);
    expect(await page.locator('tr', { hasText: 'Back office' }).locator('.tag').textContent()).toContain('Revoked');
    expect((await listApiKeys(app.services.db, accountId)).find((k) => k.name === 'Back office')!.revoked_at).not.toBeNull();
    expect((await app.request('GET', '/v1/balance', { key: secret })).status).toBe(401);

    await page.click('nav >> text=Settings');
    await page.fill('#review-days', '14');
    await page.check('#show-result');
    await page.click('form[action="/dashboard/settings"] button[type=submit]');
    await page.waitForURL(/\/dashboard\/settings\?done=saved$/);
    expect(await page.locator('.banner').textContent()).toContain('Settings saved.');
    await check('settings');
    expect(await findAccount(app.services.db, accountId)).toMatchObject({ review_max_days: 14, link_show_result: true });

    // Some days of test-mode usage for the chart (as the pipeline records them).
    for (let day = 0; day < 30; day++) {
      for (let n = 0; n < ((day * 7) % 5) + (day % 3); n++) {
        const date = new Date(Date.now() - day * 86_400_000);
        await recordUsage(app.services.db, { analysis_id: `an_e2e_${day}_${n}`, account_id: accountId, livemode: false, day: date.toISOString().slice(0, 10), document_type: 'es_dni', kind: 'analysis', pages: 1, credits_milli: 0, created_at: date });
      }
    }
    await page.click('nav >> text=Usage');
    expect(await page.locator('svg.chart rect.bar').count()).toBe(30);
    await check('usage');

    await page.click('nav >> text=Team');
    await page.fill('#invite-email', 'reviewer@example.com');
    await page.click('form[action="/dashboard/team/invitations"] button[type=submit]');
    expect(await page.locator('#invitation-link').textContent()).toMatch(/\/dashboard\/invitations\//);
    await check('team');

    await page.click('nav >> text=Reviews');
    expect(await page.locator('main h1').textContent()).toBe('Review queue');
    await check('reviews');
    // The mode switch, then signing out.
    await page.click('button:has-text("Show live mode")');
    expect(await page.locator('.mode').textContent()).toBe('Live mode');
    await page.click('button:has-text("Sign out")');
    await page.waitForURL(/\/dashboard\/sign-in\?out=1$/);
    await page.goto(`${app.baseUrl}/dashboard/keys`);
    await page.waitForURL(/\/dashboard\/sign-in$/);

    expect(problems).toEqual([]);
    await context.close();
  }, 180_000);
});
