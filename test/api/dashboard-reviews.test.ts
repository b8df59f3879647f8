/**
 * The dashboard's Reviews section through HTTP (forms, cookies, CSRF) on a real database (PGlite, and PostgreSQL
 * when DATABASE_URL is set): the queue (pending oldest first, filters, "assigned to me"), the analysis page with its
 * boxes, decisions (the API then shows reviewed_by = the member, the `analysis.reviewed` event exists, the audit
 * record names the member), a decision changed by an admin and refused to a member, assignment, tenancy and mode,
 * CSRF, and the original's routes (session, permission, bytes, PNG, no cache).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditRecords } from '../../server/src/db/reviews.ts';
import type { MemberRow } from '../../server/src/db/schema.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { DashboardClient, makeMember, signedIn } from '../support/dashboard.ts';
import { fixtures, form } from '../support/files.ts';

describe.each(DATABASES)('dashboard reviews on %s', (kind) => {
  let app: TestApp;
  let owner: DashboardClient;
  let admin: DashboardClient;
  let member: DashboardClient;
  let adminRow: MemberRow;
  let memberRow: MemberRow;
  let template: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const acc = app.account.account;
    await makeMember(app, acc, 'owner', 'owner@example.com', 'Olga Owner');
    adminRow = await makeMember(app, acc, 'admin', 'admin@example.com', 'Adam Admin');
    memberRow = await makeMember(app, acc, 'member', 'member@example.com', 'Mia Member');
    [owner, admin, member] = await Promise.all(['owner@example.com', 'admin@example.com', 'member@example.com'].map((e) => signedIn(app, e)));
    // Storage `review`: the original is kept while the review is pending (docs/reviews.md).
    const tpl = await app.request('POST', '/v1/templates', { json: { name: 'Reviewed DNI', expect: ['es_dni'], storage: 'review' } });
    expect(tpl.status, tpl.text).toBe(201);
    template = tpl.body.id;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const analyze = async (name: string, opts: { key?: string; pdf?: boolean; options?: Record<string, unknown> } = {}) => {
    const file = opts.pdf ? { bytes: fixtures.pdf(), name, type: 'application/pdf' } : { bytes: fixtures.jpeg(), name, type: 'image/jpeg' };
    const res = await app.request('POST', '/v1/analyze', { key: opts.key, body: form(file, [['options', JSON.stringify(opts.options ?? { template })]]) });
    expect(res.status, res.text).toBeLessThan(300);
    expect(res.body.review?.status, res.text).toBe('pending');
    return res.body as { id: string; fields: Record<string, { source: { page: number; bbox: number[] } | null }> };
  };
  const decide = (c: DashboardClient, id: string, form: Record<string, string>, action = 'decide') => c.submit(`/dashboard/reviews/${id}`, `/dashboard/reviews/${id}/${action}`, form);
  /** The `analysis.reviewed` events about an analysis (a changed decision's has no subject: read the payload). */
  const events = async (id: string) => {
    const rows = await app.services.db.selectFrom('events').select(['type', 'payload']).where('type', '=', 'analysis.reviewed').execute();
    return rows.filter((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload).data?.id === id);
  };

  it('the queue: pending ones oldest first, filters, the assignee, and paging', async () => {
    const first = await analyze('dni_low_confidence.jpg');
    const second = await analyze('dni_blurry.jpg', { options: { template, metadata: { case: 'second' } } });
    const page = await member.get('/dashboard/reviews');
    expect(page.status).toBe(200);
    expect(page.html).toContain('Review queue');
    const i1 = page.html.indexOf(first.id);
    const i2 = page.html.indexOf(second.id);
    expect(i1).toBeGreaterThan(0);
    expect(i2).toBeGreaterThan(i1);
    // A type that matches nothing empties it; the decided filter has neither (both pending).
    expect((await member.get('/dashboard/reviews?type=fr_cni')).html).not.toContain(first.id);
    expect((await member.get('/dashboard/reviews?status=decided')).html).not.toContain(first.id);
    expect((await member.get(`/dashboard/reviews?template=${template}`)).html).toContain(second.id);
    // Assigned to me: nothing, then the one an admin assigned.
    expect((await member.get('/dashboard/reviews?mine=1')).html).not.toContain(first.id);
    const assigned = await decide(admin, second.id, { assignee: memberRow.id }, 'assign');
    expect(assigned.status).toBe(303);
    const mine = await member.get('/dashboard/reviews?mine=1');
    expect(mine.html).toContain(second.id);
    expect(mine.html).not.toContain(first.id);
    expect(mine.html).toContain('Mia Member');
    expect((await app.request('GET', `/v1/analyses/${second.id}`)).body.review.assignee).toBe(memberRow.id);
    // A member may not assign; an assignee from outside the account is refused.
    expect((await decide(member, second.id, { assignee: memberRow.id }, 'assign')).status).toBe(403);
    expect((await decide(admin, second.id, { assignee: 'mem_01JC8Z6Q4H2N3V5X7Z9B1D3F5H' }, 'assign')).status).toBe(422);
    // Two pending: one page, no next link.
    expect(page.html).not.toContain('starting_after');
  });

  it('pages of 20: the next link continues after the last one shown, with the filters kept', async () => {
    const made: string[] = [];
    for (let i = 0; i < 21; i++) made.push((await analyze('dni_low_confidence.jpg', { options: { template, metadata: { batch: 'paging' } } })).id);
    const rowsOf = (html: string) => [...html.matchAll(/<tr><td><a href="\/dashboard\/reviews\/(an_[0-9A-Za-z]+)"/g)].map((m) => m[1]);
    const first = await member.get(`/dashboard/reviews?template=${template}`);
    const ids = rowsOf(first.html);
    expect(ids).toHaveLength(20);
    const next = /href="(\/dashboard\/reviews\?[^"]+starting_after=[^"]+)"/.exec(first.html)![1].replaceAll('&amp;', '&');
    expect(next).toContain(`template=${template}`);
    const second = rowsOf((await member.get(next)).html);
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((id) => ids.includes(id))).toEqual([]);
    // Every one made is on one of the two pages, in creation order.
    const all = [...ids, ...second];
    expect(made.every((id) => all.includes(id))).toBe(true);
    expect([...all].sort()).toEqual(all);
  });

  it('the analysis page: the boxes over the original, the fields, the verdict reasons, the review state', async () => {
    const a = await analyze('dni_low_confidence.jpg');
    const boxes = Object.values(a.fields).filter((f) => f.source).length;
    expect(boxes).toBeGreaterThan(0);
    const page = await member.get(`/dashboard/reviews/${a.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<image href="/dashboard/reviews/${a.id}/pages/1.png"`);
    expect(page.html.match(/<rect /g)?.length).toBe(boxes);
    expect(page.html).toContain('Verdict reasons');
    expect(page.html).toContain('name="decision" value="approve"');
    // No inline style anywhere (the CSP forbids it).
    expect(page.html).not.toMatch(/ style=/);
    // The member's language labels the page.
    const es = await signedIn(app, 'owner@example.com');
    await es.submit('/dashboard/reviews', '/dashboard/language', { language: 'es', back: '/dashboard/reviews' });
    expect((await es.get(`/dashboard/reviews/${a.id}`)).html).toContain('Motivos del veredicto');
    await es.submit('/dashboard/reviews', '/dashboard/language', { language: 'en', back: '/dashboard/reviews' });
  });

  it('the analysis page shows what the verdict rests on: the unsure characters a check could not judge (#27)', async () => {
    const a = await analyze('dni_bad_checksum_low_confidence.jpg', { options: { expect: 'es_dni', language: 'en' } });
    const page = await member.get(`/dashboard/reviews/${a.id}`);
    expect(page.status).toBe(200);
    // The reason names the check, the field and the characters, as the API gives it (HTML-escaped).
    expect(page.html).toMatch(/<code>low_confidence<\/code> Could not check the NIF: the characters &quot;\d{8}[A-Z]&quot; \(document number\) were read with low confidence \(0\.\d\d\)/);
  });

  it('a member approves: reviewed_by is the member, the event exists, the audit record names the member', async () => {
    const a = await analyze('dni_low_confidence.jpg');
    const r = await decide(member, a.id, { decision: 'approve', reason: 'Legible', note: 'Looked at it' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/dashboard/reviews/${a.id}?done=approved`);
    expect((await member.get(r.location!)).html).toContain('Approved.');
    const api = await app.request('GET', `/v1/analyses/${a.id}`);
    expect(api.body.review).toMatchObject({ status: 'approved', decision: 'approve', reviewed_by: memberRow.id, reason: 'Legible', note: 'Looked at it' });
    expect(api.body.verdict.final_status).toBe('valid');
    expect(await events(a.id)).toHaveLength(1);
    const audit = await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'review.approved', decision: 'approve', actor: memberRow.id, reason: 'Legible' });
    // Retention after the decision (storage review): kept 24 hours more.
    expect(api.body.storage).toMatchObject({ mode: 'review', kept: true, reason: 'retained_after_decision' });
  });

  it('a rejection with a reason; a member cannot change it (403, nothing changed); an admin can (audit record, new event)', async () => {
    const a = await analyze('dni_low_confidence.jpg');
    expect((await decide(member, a.id, { decision: 'reject', reason: 'Photo of a screen' })).status).toBe(303);
    const rejected = (await app.request('GET', `/v1/analyses/${a.id}`)).body;
    expect(rejected.review).toMatchObject({ status: 'rejected', reason: 'Photo of a screen', reviewed_by: memberRow.id });
    expect(rejected.verdict.final_status).toBe('invalid');

    // The member sees it decided, with no form to change it; posting anyway is refused and changes nothing.
    const seen = await member.get(`/dashboard/reviews/${a.id}`);
    expect(seen.html).toContain('Only an owner or administrator can change the decision.');
    expect(seen.html).not.toContain(`/reviews/${a.id}/change`);
    expect((await decide(member, a.id, { decision: 'approve' }, 'change')).status).toBe(403);
    // Deciding again the other way (as through the API) is the 409-like page.
    const again = await decide(member, a.id, { decision: 'approve' });
    expect(again.status).toBe(409);
    expect(again.html).toContain('Someone else already decided this review');
    expect((await app.request('GET', `/v1/analyses/${a.id}`)).body.review.status).toBe('rejected');
    expect(await events(a.id)).toHaveLength(1);

    const changed = await decide(admin, a.id, { decision: 'approve', reason: 'Second look: fine' }, 'change');
    expect(changed.status).toBe(303);
    const after = (await app.request('GET', `/v1/analyses/${a.id}`)).body;
    expect(after.review).toMatchObject({ status: 'approved', decision: 'approve', reviewed_by: adminRow.id, reason: 'Second look: fine' });
    expect(after.verdict.final_status).toBe('valid');
    const audit = await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 });
    expect(audit.map((r) => [r.action, r.actor])).toEqual([
      ['review.changed', adminRow.id],
      ['review.rejected', memberRow.id],
    ]);
    expect(audit[0]).toMatchObject({ previous_state: { review_status: 'rejected' }, new_state: { review_status: 'approved', final_status: 'valid' } });
    expect(await events(a.id)).toHaveLength(2);
  });

  it('CSRF: a post without the token or with another is refused and changes nothing', async () => {
    const a = await analyze('dni_low_confidence.jpg');
    expect((await member.request('POST', `/dashboard/reviews/${a.id}/decide`, { decision: 'approve' }, { Origin: app.baseUrl })).status).toBe(403);
    expect((await member.request('POST', `/dashboard/reviews/${a.id}/decide`, { decision: 'approve', csrf: 'x'.repeat(43) }, { Origin: app.baseUrl })).status).toBe(403);
    expect((await app.request('GET', `/v1/analyses/${a.id}`)).body.review.status).toBe('pending');
    expect(await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 })).toHaveLength(0);
    // With the page's token it goes through.
    expect((await decide(member, a.id, { decision: 'approve' })).status).toBe(303);
    expect(await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 })).toHaveLength(1);
  });

  it("another account's analysis and the other mode's are 404 everywhere", async () => {
    const other = await app.newAccount();
    const theirs = await analyze('dni_low_confidence.jpg', { key: other.keys.test, options: { expect: ['es_dni'] } });
    const live = await app.request('POST', '/v1/analyze', { key: app.account.keys.live, body: form({ bytes: fixtures.jpeg(), name: 'dni_low_confidence.jpg', type: 'image/jpeg' }, [['options', '{"expect":["es_dni"]}']]), unchecked: true });
    for (const id of [theirs.id, ...(live.status < 300 ? [live.body.id as string] : [])]) {
      expect((await member.get(`/dashboard/reviews/${id}`)).status).toBe(404);
      expect((await member.get(`/dashboard/reviews/${id}/file`)).status).toBe(404);
      expect((await member.get(`/dashboard/reviews/${id}/pages/1.png`)).status).toBe(404);
      expect((await decide(admin, id, { decision: 'approve' })).status).toBe(404);
    }
    expect((await app.request('GET', `/v1/analyses/${theirs.id}`, { key: other.keys.test })).body.review.status).toBe('pending');
    expect((await member.get('/dashboard/reviews/an_nothere000000000000')).status).toBe(404);
    // The console in live mode does not show a test-mode analysis (nor list it).
    const mine = await analyze('dni_low_confidence.jpg');
    const live2 = await signedIn(app, 'member@example.com');
    await live2.submit('/dashboard/reviews', '/dashboard/mode', { mode: 'live', back: '/dashboard/reviews' });
    expect((await live2.get(`/dashboard/reviews/${mine.id}`)).status).toBe(404);
    expect((await live2.get(`/dashboard/reviews/${mine.id}/pages/1.png`)).status).toBe(404);
    expect((await live2.get('/dashboard/reviews')).html).not.toContain(mine.id);
    expect((await member.get(`/dashboard/reviews/${mine.id}`)).status).toBe(200);
  });

  it('the original and its page images: a session needed, the right bytes, a PNG, never cached; a PDF page rendered', async () => {
    const a = await analyze('dni_low_confidence.jpg');
    const file = await fetch(`${app.baseUrl}/dashboard/reviews/${a.id}/file`, { headers: { Cookie: `cotejo_session=${member.jar.get('cotejo_session')}` } });
    expect(file.status).toBe(200);
    expect(file.headers.get('cache-control')).toBe('private, no-store');
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await file.arrayBuffer()).equals(fixtures.jpeg())).toBe(true);
    const png = await fetch(`${app.baseUrl}/dashboard/reviews/${a.id}/pages/1.png`, { headers: { Cookie: `cotejo_session=${member.jar.get('cotejo_session')}` } });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(png.headers.get('cache-control')).toBe('private, no-store');
    const meta = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
    expect(meta.format).toBe('png');
    expect((await member.get(`/dashboard/reviews/${a.id}/pages/2.png`)).status).toBe(404);
    // Without a session: to the sign-in page, no bytes.
    const anon = new DashboardClient(app.baseUrl);
    for (const path of [`/dashboard/reviews/${a.id}/file`, `/dashboard/reviews/${a.id}/pages/1.png`]) {
      const r = await anon.get(path);
      expect(r.status).toBe(303);
      expect(r.location).toBe('/dashboard/sign-in');
    }
    // A PDF: each page rendered to PNG, its boxes over it.
    const pdf = await analyze('dni_low_confidence.pdf', { pdf: true });
    const view = await member.get(`/dashboard/reviews/${pdf.id}`);
    expect(view.html).toContain(`/dashboard/reviews/${pdf.id}/pages/1.png`);
    const page1 = await fetch(`${app.baseUrl}/dashboard/reviews/${pdf.id}/pages/1.png`, { headers: { Cookie: `cotejo_session=${member.jar.get('cotejo_session')}` } });
    expect(page1.status).toBe(200);
    expect((await sharp(Buffer.from(await page1.arrayBuffer())).metadata()).format).toBe('png');
    const pdfFile = await fetch(`${app.baseUrl}/dashboard/reviews/${pdf.id}/file`, { headers: { Cookie: `cotejo_session=${member.jar.get('cotejo_session')}` } });
    expect(pdfFile.headers.get('content-disposition')).toBe(`attachment; filename="${pdf.id}.pdf"`);
  });

  it('the original gone: the page says so and still allows the decision', async () => {
    // An explicit storage none keeps no original, even in review.
    const a = await analyze('dni_low_confidence.jpg', { options: { expect: ['es_dni'], storage: 'none' } });
    const page = await member.get(`/dashboard/reviews/${a.id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('The original is no longer kept (it was not to be kept)');
    expect(page.html).not.toContain('storage_none');
    expect(page.html).not.toContain('<image ');
    expect((await member.get(`/dashboard/reviews/${a.id}/pages/1.png`)).status).toBe(404);
    expect((await decide(member, a.id, { decision: 'approve' })).status).toBe(303);
  });
});
