// A reviewer's day in real headless Chromium (Debian's, driven by playwright-core) at 1280x800: a member signs in,
// opens the queue, opens a document and sees its boxes over the loaded image, approves one and rejects another (the
// `analysis.reviewed` webhooks are delivered to a local receiver and shown in the endpoint's delivery history), cannot change a decision; an administrator
// changes one. axe-core on every page (no serious or critical violation); no CSP report or console error.
//
// Screenshots go to a temporary directory; with UPDATE_SCREENSHOTS=1 review-document.png (the whole page) to
// docs/dashboard/, shown in docs/dashboard.md (the queue's picture is every-page.test.ts's).
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditRecords } from '../../server/src/db/reviews.ts';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { axe, CHROMIUM, launchChromium, screenshot, screenshotsDir } from '../support/browser.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';
import { makeMember, PASSWORD } from '../support/dashboard.ts';
import { fixtures, form } from '../support/files.ts';

const shots = screenshotsDir('dashboard', 'cotejo-reviewer-shots');
const SHOTS = shots.dir;

describe.skipIf(!CHROMIUM)("a reviewer's day in headless Chromium (1280x800)", () => {
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

  it('a member works the queue (approve, reject, no change of decision); an admin changes one', async () => {
    const accountId = app.account.account;
    const member = await makeMember(app, accountId, 'member', 'mia@example.com', 'Mia Member');
    const admin = await makeMember(app, accountId, 'admin', 'adam@example.com', 'Adam Admin');
    const endpoint = await app.request('POST', '/v1/webhook-endpoints', { json: { url: rx.url('/ok/reviews'), events: ['analysis.reviewed'] } });
    expect(endpoint.status).toBe(201);
    const tpl = await app.request('POST', '/v1/templates', { json: { name: 'Reviewed DNI', expect: ['es_dni'], storage: 'review' } });
    expect(tpl.status, tpl.text).toBe(201);
    const ids: string[] = [];
    for (const name of ['dni_low_confidence.jpg', 'dni_blurry.jpg', 'dni_low_confidence.pdf']) {
      const pdf = name.endsWith('.pdf');
      const res = await app.request('POST', '/v1/analyze', { body: form({ bytes: pdf ? fixtures.pdf() : fixtures.jpeg(), name, type: pdf ? 'application/pdf' : 'image/jpeg' }, [['options', JSON.stringify({ template: tpl.body.id })]]) });
      expect(res.body.review?.status, res.text).toBe('pending');
      ids.push(res.body.id);
    }

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB', extraHTTPHeaders: { 'Accept-Language': 'en' } });
    const problems: string[] = [];
    const open = async () => {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      return page;
    };
    const signIn = async (page: Page, email: string) => {
      await page.goto(`${app.baseUrl}/dashboard/sign-in`);
      await page.fill('#email', email);
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForURL(/\/dashboard\/usage$/);
    };
    const check = async (page: Page, name: string, shot = false) => {
      expect(await axe(page), `axe on ${name}`).toEqual([]);
      if (shot) await screenshot(page, path.join(SHOTS, `${name}.png`), name === 'review-document');
    };

    // The member's day.
    const page = await open();
    await signIn(page, 'mia@example.com');
    await page.click('nav >> text=Reviews');
    await page.waitForURL(/\/dashboard\/reviews$/);
    const rows = page.locator('table.queue tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.first().textContent()).toContain(ids[0]); // oldest first
    await check(page, 'review-queue');

    await page.click(`a[href="/dashboard/reviews/${ids[0]}"]`);
    await page.waitForURL(new RegExp(`/dashboard/reviews/${ids[0]}$`));
    // The overlay: one <rect> per field with a source, over an image that loaded.
    const rects = page.locator('svg.doc rect');
    expect(await rects.count()).toBeGreaterThan(0);
    const loaded = await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return img.naturalWidth > 0;
    }, `/dashboard/reviews/${ids[0]}/pages/1.png`);
    expect(loaded).toBe(true);
    const box = await page.locator('svg.doc').boundingBox();
    expect(box!.width).toBeGreaterThan(200);
    await check(page, 'review-document', true);
    await page.fill('#r-reason', 'Legible');
    await page.click('button[name=decision][value=approve]');
    await page.waitForURL(/\?done=approved$/);
    expect(await page.locator('.banner').textContent()).toContain('Approved.');
    await check(page, 'review-approved');

    // The PDF: each page rendered, its boxes drawn; rejected with a reason.
    await page.goto(`${app.baseUrl}/dashboard/reviews/${ids[2]}`);
    expect(await page.locator('svg.doc image').count()).toBeGreaterThan(0);
    await page.fill('#r-reason', 'Photo of a screen');
    await page.click('button[name=decision][value=reject]');
    await page.waitForURL(/\?done=rejected$/);
    // A member cannot change it: no form, the page says who can.
    expect(await page.locator(`form[action="/dashboard/reviews/${ids[2]}/change"]`).count()).toBe(0);
    expect(await page.content()).toContain('Only an owner or administrator can change the decision.');

    // The decisions' webhooks were recorded (the Webhooks section is another's: read the table).
    const deliveries = await app.services.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.body.id).execute();
    const about = deliveries.map((d) => JSON.parse(typeof d.payload === 'string' ? d.payload : JSON.stringify(d.payload)) as { type: string; data: { id: string; review: { status: string } } });
    expect(about.map((p) => [p.type, p.data.id, p.data.review.status]).sort()).toEqual(
      [
        ['analysis.reviewed', ids[0], 'approved'],
        ['analysis.reviewed', ids[2], 'rejected'],
      ].sort(),
    );
    const api = (await app.request('GET', `/v1/analyses/${ids[0]}`)).body;
    expect(api.review.reviewed_by).toBe(member.id);
    // They arrive (the worker's pass, run here) and the reviewer sees them in the endpoint's delivery history.
    expect(await runDueDeliveries(app.services, { sender: { ca: rx.ca }, limit: 50 })).toBe(2);
    await page.goto(`${app.baseUrl}/dashboard/webhooks/${endpoint.body.id}`);
    const history = page.locator('section.delivery');
    expect(await history.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      expect(await history.nth(i).locator('h3').textContent()).toContain('analysis.reviewed');
      expect(await history.nth(i).locator('h3').textContent()).toContain('Delivered');
      expect(await history.nth(i).locator('.http-status').first().textContent()).toBe('200');
    }

    // The administrator changes the rejection.
    const adminPage = await open();
    await context.clearCookies();
    await signIn(adminPage, 'adam@example.com');
    await adminPage.goto(`${app.baseUrl}/dashboard/reviews/${ids[2]}`);
    await adminPage.fill('#r-reason', 'Second look: fine');
    await adminPage.click(`form[action="/dashboard/reviews/${ids[2]}/change"] button[type=submit]`);
    await adminPage.waitForURL(/\?done=changed$/);
    expect(await adminPage.locator('.tag-review-approved').first().textContent()).toBe('Approved');
    await check(adminPage, 'review-changed');
    const audit = await listAuditRecords(app.services.db, { analysis_id: ids[2], limit: 10 });
    expect(audit.map((r) => [r.action, r.actor])).toEqual([
      ['review.changed', admin.id],
      ['review.rejected', member.id],
    ]);

    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
