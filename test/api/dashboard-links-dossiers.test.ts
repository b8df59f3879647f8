// The dashboard's Links and Dossiers sections through HTTP, on both databases: lists and detail pages show what the
// API shows for the same objects (and never the link's secret URL); an admin cancels a link, a member is refused
// (403, nothing changed); another account's link or dossier, or the other mode's, is not found.
import { word } from '../../server/src/web/dashboard/words.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { makeMember, signedIn, type DashboardClient } from '../support/dashboard.ts';
import { fixtures, form } from '../support/files.ts';

const escaped = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;');

describe.each(DATABASES)('the dashboard links and dossiers sections (%s)', (kind) => {
  let app: TestApp;
  let admin: DashboardClient;
  let member: DashboardClient;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
    await makeMember(app, app.account.account, 'admin', 'admin@example.com');
    await makeMember(app, app.account.account, 'member', 'member@example.com');
    admin = await signedIn(app, 'admin@example.com');
    member = await signedIn(app, 'member@example.com');
  }, 60_000);
  afterAll(() => app?.close());

  const createLink = async (json: Record<string, unknown>, key = app.account.keys.test) => {
    const res = await app.request('POST', '/v1/verification-links', { key, json });
    expect(res.status).toBe(201);
    return res.body as any;
  };

  it('lists links and shows one as the API does, without its hosted URL', async () => {
    const created = await createLink({ documents: [{ key: 'id', label: 'Your ID', expect: 'es_dni' }], reference: 'CASE-7', metadata: { team: 'north' } });
    const api = (await app.request('GET', `/v1/verification-links/${created.id}`, { key: app.account.keys.test })).body as any;
    const list = await admin.get('/dashboard/links');
    expect(list.status).toBe(200);
    expect(list.html).toContain(`/dashboard/links/${api.id}`);
    expect(list.html).toContain('CASE-7');
    expect(list.html).toContain('team=north');

    const page = await member.get(`/dashboard/links/${api.id}`);
    expect(page.status).toBe(200);
    // Statuses and events in words, in the member's language, never the API's enum values (#29 item 1).
    expect(page.html).toContain(`<span class="tag" id="link-status">${word('en', 'link', api.status)}</span>`);
    expect(word('en', 'link', api.status)).not.toBe(api.status);
    for (const d of api.documents) {
      expect(page.html).toContain(`<code>${d.key}</code> ${escaped(d.label)}`);
      for (const type of d.expect) expect(page.html).toContain(`<code>${type}</code>`);
    }
    for (const e of api.events) {
      expect(page.html).toContain(`<td>${word('en', 'event', e.type)}`);
      expect(page.html).not.toContain(`<code>${e.type}</code>`);
    }
    // The hosted URL carries the link's secret token: never shown again.
    const token = new URL(created.url).pathname.split('/').pop()!;
    expect(page.html).not.toContain(token);
    expect(list.html).not.toContain(token);
    // A member may not cancel: no form.
    expect(page.html).not.toContain('/cancel"');
  });

  it('cancels a link for an admin, refuses a member (403, nothing changed)', async () => {
    const l = await createLink({ documents: [{ key: 'id', expect: 'es_dni' }] });
    const refused = await member.submit(`/dashboard/links/${l.id}`, `/dashboard/links/${l.id}/cancel`, {});
    expect(refused.status).toBe(403);
    expect((await app.request('GET', `/v1/verification-links/${l.id}`, { key: app.account.keys.test })).body.status).toBe('pending');

    const page = await admin.get(`/dashboard/links/${l.id}`);
    expect(page.html).toContain(`action="/dashboard/links/${l.id}/cancel"`);
    const r = await admin.submit(`/dashboard/links/${l.id}`, `/dashboard/links/${l.id}/cancel`, {});
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/dashboard/links/${l.id}?done=cancelled`);
    const api = (await app.request('GET', `/v1/verification-links/${l.id}`, { key: app.account.keys.test })).body as any;
    expect(api.status).toBe('cancelled');
    const after = await admin.get(r.location!);
    expect(after.html).toContain('Link cancelled.');
    expect(after.html).toContain('<td>Cancelled</td>');
    // In Spanish too.
    const es = await signedIn(app, 'admin@example.com');
    await es.submit(`/dashboard/links/${l.id}`, '/dashboard/language', { language: 'es', back: `/dashboard/links/${l.id}` });
    const spanish = await es.get(`/dashboard/links/${l.id}`);
    expect(spanish.html).toContain('id="link-status">Cancelado</span>');
    expect(spanish.html).not.toMatch(/>(pending|cancelled|created)</);
    await es.submit(`/dashboard/links/${l.id}`, '/dashboard/language', { language: 'en', back: `/dashboard/links/${l.id}` });
    expect(after.html).not.toContain('/cancel"');
  });

  it('lists dossiers and shows one as the API does, a document pending review linked to the Reviews section', async () => {
    const created = await app.request('POST', '/v1/dossiers', { key: app.account.keys.test, json: { reference: 'DOS-1', language: 'en', documents: [{ key: 'id', label: 'ID card', expect: 'dni' }, { key: 'payslip', expect: ['nomina'] }] } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const add = await app.request('POST', `/v1/dossiers/${id}/documents`, { key: app.account.keys.test, body: form({ bytes: fixtures.jpeg(), name: 'blurry.jpg', type: 'image/jpeg' }, [['key', 'id']]) });
    expect(add.status).toBeLessThan(300);
    const api = (await app.request('GET', `/v1/dossiers/${id}`, { key: app.account.keys.test })).body as any;
    expect(api.documents).toHaveLength(1);

    const list = await member.get('/dashboard/dossiers');
    expect(list.status).toBe(200);
    expect(list.html).toContain(`/dashboard/dossiers/${id}`);
    expect(list.html).toContain('DOS-1');

    const page = await member.get(`/dashboard/dossiers/${id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<span class="tag" id="dossier-verdict">${word('en', 'dossier', api.verdict.status)}</span>`);
    // No JSON where a person reads.
    expect(page.html).not.toMatch(/\{&quot;|\{"/);
    for (const r of api.verdict.reasons) expect(page.html).toContain(escaped(r.message));
    for (const r of api.requirements) expect(page.html).toContain(`<code>${r.key}</code>`);
    const doc = api.documents[0];
    expect(page.html).toContain(`<code>${doc.analysis_id}</code>`);
    expect(page.html).toContain('not filled'); // the payslip
    expect(doc.verdict_status).toBe('review');
    expect(page.html).toContain(`href="/dashboard/reviews/${doc.analysis_id}"`);
  });

  it("answers 404 for another account's link or dossier and for the other mode's", async () => {
    const other = await app.newAccount();
    const theirLink = await createLink({ documents: [{ key: 'id', expect: 'es_dni' }] }, other.keys.test);
    const liveLink = await createLink({ documents: [{ key: 'id', expect: 'es_dni' }] }, app.account.keys.live);
    const theirDossier = (await app.request('POST', '/v1/dossiers', { key: other.keys.test, json: {} })).body.id as string;
    for (const id of [theirLink.id, liveLink.id]) {
      expect((await admin.get(`/dashboard/links/${id}`)).status).toBe(404);
      expect((await admin.submit('/dashboard/links', `/dashboard/links/${id}/cancel`, {})).status).toBe(404);
    }
    expect((await app.request('GET', `/v1/verification-links/${theirLink.id}`, { key: other.keys.test })).body.status).toBe('pending');
    expect((await admin.get(`/dashboard/dossiers/${theirDossier}`)).status).toBe(404);
    expect((await admin.get('/dashboard/links')).html).not.toContain(theirLink.id);
    expect((await admin.get('/dashboard/dossiers')).html).not.toContain(theirDossier);
  });
});
