// The console header in real headless Chromium at 1280 px, in each language: one row (the Spanish one wrapped and
// "Cerrar sesión" dropped to a second row, issue #29), with a long account name and a long member name; at a narrow
// width it may wrap, but nothing overflows the viewport. The header is the layout's (server/src/web/dashboard/render.ts
// and dashboard.css), so the Usage page stands for every page.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../server/src/db/accounts.ts';
import { LANGUAGES } from '../../server/src/web/dashboard/members.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { CHROMIUM, launchChromium } from '../support/browser.ts';
import { makeMember, PASSWORD } from '../support/dashboard.ts';

describe.skipIf(!CHROMIUM)('the console header in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startTestApp('pglite');
    await updateAccount(app.services.db, app.account.account, { name: 'Distribuciones Ibéricas del Norte S.L.' });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The header's children (brand, mode, language, who, sign-out) with their boxes, signed in as `email` in `language`. */
  async function header(email: string, language: string, width: number) {
    const context = await browser.newContext({ viewport: { width, height: 800 }, extraHTTPHeaders: { 'Accept-Language': language } });
    const page = await context.newPage();
    await page.goto(`${app.baseUrl}/dashboard/sign-in`);
    await page.fill('#email', email);
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard\/usage$/);
    // The member's language is their own setting: set it through the header's switch, as a person would.
    await page.selectOption('#lang', language);
    await page.click('form[action="/dashboard/language"] button');
    await page.waitForLoadState('load');
    await page.goto(`${app.baseUrl}/dashboard/usage`);
    const boxes = await page.$$eval('header.top > *', (els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        return { text: (e.textContent ?? '').replace(/\s+/g, ' ').trim(), top: r.top, bottom: r.bottom, right: r.right };
      }),
    );
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    await context.close();
    return { boxes, scrollWidth };
  }

  it.each(LANGUAGES.map((l) => [l]))('is one row at 1280 px in %s, with long names', async (language) => {
    await makeMember(app, app.account.account, 'owner', `owner-${language}@example.com`, 'María José Fernández de la Fuente');
    const { boxes, scrollWidth } = await header(`owner-${language}@example.com`, language, 1280);
    expect(boxes).toHaveLength(5);
    const first = boxes[0];
    for (const b of boxes) expect(b.top, `${language}: "${b.text}" is on another row than "${first.text}"`).toBeLessThan(first.bottom);
    expect(scrollWidth).toBeLessThanOrEqual(1280);
    if (language === 'es') expect(boxes[4].text).toBe('Cerrar sesión');
  }, 60_000);

  it('may wrap on a narrow window, but never wider than it', async () => {
    await makeMember(app, app.account.account, 'owner', 'owner-narrow@example.com', 'María José Fernández de la Fuente');
    const { scrollWidth } = await header('owner-narrow@example.com', 'es', 640);
    expect(scrollWidth).toBeLessThanOrEqual(640);
  }, 60_000);
});
