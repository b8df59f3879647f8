import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/** Debian's Chromium (.ci/run installs it); without it this suite is skipped, visibly. */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

describe.skipIf(!CHROMIUM)('GET /docs in headless Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startTestApp('pglite');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders the API reference from /openapi.json, with no request leaving the machine', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Nothing outside the machine is ever fetched: count the requests that got a response or failed otherwise.
    const outside: string[] = [];
    const isOutside = (url: string) => {
      const u = new URL(url);
      return !['127.0.0.1', 'localhost'].includes(u.hostname) && u.protocol !== 'data:' && u.protocol !== 'blob:';
    };
    page.on('response', (r) => {
      if (isOutside(r.url())) outside.push(r.url());
    });
    const blocked: string[] = [];
    page.on('requestfailed', (r) => {
      if (isOutside(r.url())) blocked.push(`${r.url()} ${r.failure()?.errorText}`);
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Every Content-Security-Policy violation, as the page itself reports it (the event fires for blocked scripts,
    // styles, workers, frames...) and as the console says it.
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.exposeFunction('reportCspViolation', (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { reportCspViolation: (v: string) => void }).reportCspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber} ${e.sample}`);
      });
    });
    const res = await page.goto(`${app.baseUrl}/docs`);
    expect(res?.status()).toBe(200);
    // The policy of the other pages: no inline script, no base URL, no framing.
    const csp = res!.headers()['content-security-policy'];
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    for (const d of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) expect(csp).toContain(d);
    expect(res!.headers()['x-frame-options']).toBe('DENY');
    await page.getByText('Cotejo Document Analysis API').first().waitFor({ timeout: 30_000 });
    await page.getByText('/v1/analyze').first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    for (const s of ['Analyses', 'Webhook endpoints', 'Document types']) expect(text).toContain(s);
    const shot = path.join(os.tmpdir(), 'cotejo-docs.png');
    await page.screenshot({ path: shot });
    expect(fs.statSync(shot).size).toBeGreaterThan(20_000);
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    // Nothing even tried to leave: Redoc's CDN logo is taken out of the bundle as served.
    expect(blocked).toEqual([]);
    // Search works (its worker is allowed), and the page broke no rule of its policy on the way.
    await page.getByPlaceholder('Search...').fill('batches');
    const results = page.locator('[data-role="search:results"] li');
    await results.first().waitFor({ timeout: 30_000 });
    expect(await results.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/batch/i)]));
    expect(violations).toEqual([]);
  }, 60_000);
});
