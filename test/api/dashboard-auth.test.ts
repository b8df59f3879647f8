// The dashboard through HTTP (forms, cookies, CSRF tokens), on both databases: sign-in and its refusals, lockout and
// the per-address limit, sign-out, idle and absolute expiry, CSRF refusals, an invitation accepted, every role rule
// of the permission table for the actions that exist (keys, settings, team, usage), keys made and revoked, settings
// validated, the usage page. docs/dashboard.md's permission table is checked against the code's.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepRetention } from '../../server/src/jobs/worker.ts';
import { ABSOLUTE_MS, IDLE_MS, LOCK_MS } from '../../server/src/web/dashboard/members.ts';
import { PERMISSIONS, ROLES } from '../../server/src/web/dashboard/permissions.ts';
import { logPath, ROUTES } from '../../server/src/web/dashboard/routes.ts';
import { findAccount, listApiKeys } from '../../server/src/db/accounts.ts';
import { findMember, listMembers } from '../../server/src/db/dashboard.ts';
import { recordUsage } from '../../server/src/db/usage.ts';
import { listOutbox, outboxDir } from '../../server/src/mail/outbox.ts';
import { runDueEmails } from '../../server/src/mail/queue.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { csrfOf, DashboardClient, makeMember, PASSWORD, signedIn } from '../support/dashboard.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the request log', () => {
  it('never writes an invitation token', () => {
    expect(logPath('/dashboard/invitations/abcdefghijklmnopqrstuvwxyz')).toBe('/dashboard/invitations/{token}');
    expect(logPath('/dashboard/keys')).toBe('/dashboard/keys');
  });
});

describe('the permission table', () => {
  it('names an action for every route, and docs/dashboard.md shows the same table', () => {
    for (const r of ROUTES) expect(Object.keys(PERMISSIONS), `${r.method} ${r.path}`).toContain(r.action);
    const doc = fs.readFileSync(path.join(ROOT, 'docs/dashboard.md'), 'utf8');
    const rows = new Map<string, string[]>();
    for (const m of doc.matchAll(/^\| `([a-z_.]+)` \|([^|]*)\|([^|]*)\|([^|]*)\|/gm)) {
      rows.set(m[1], ROLES.filter((_, i) => m[i + 2].includes('yes')));
    }
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(PERMISSIONS).map(([k, v]) => [k, [...v]])));
  });
});

describe.each(DATABASES)('the dashboard over HTTP (%s)', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-03-10T09:00:00Z');
  let accountId: string;
  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
    accountId = app.account.account;
    await makeMember(app, accountId, 'owner', 'owner@example.com', 'Olga Owner');
    await makeMember(app, accountId, 'admin', 'admin@example.com', 'Adam Admin');
    await makeMember(app, accountId, 'member', 'member@example.com', 'Mia Member');
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it('serves the sign-in page with its security headers and a form token cookie', async () => {
    const c = new DashboardClient(app.baseUrl);
    const r = await c.get('/dashboard/sign-in');
    expect(r.status).toBe(200);
    expect(r.html).toContain('action="/dashboard/sign-in"');
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.getSetCookie().join('\n')).toMatch(/cotejo_form=[^;]+; Path=\/dashboard; HttpOnly; SameSite=Lax/);
    // Not signed in: every console page sends to the sign-in page.
    expect((await c.get('/dashboard/keys')).location).toBe('/dashboard/sign-in');
  });

  it('signs in with a session cookie (HttpOnly, SameSite=Lax, Path=/dashboard, not Secure on http) and shows the console', async () => {
    const c = new DashboardClient(app.baseUrl);
    const r = await c.signIn('OWNER@example.com', PASSWORD); // emails match whatever their case
    expect(r.status).toBe(303);
    expect(r.location).toBe('/dashboard');
    const set = r.headers.getSetCookie().find((l) => l.startsWith('cotejo_session='))!;
    expect(set).toMatch(/; Path=\/dashboard; HttpOnly; SameSite=Lax/);
    expect(set).not.toContain('Secure');
    const token = /cotejo_session=([^;]+)/.exec(set)![1];
    // Only the token's hash is stored.
    const stored = await app.services.db.selectFrom('dashboard_sessions').select('token_hash').execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(token);
    const usage = await c.get('/dashboard/usage');
    expect(usage.status).toBe(200);
    expect(usage.html).toContain('Olga Owner');
    for (const section of ['reviews', 'webhooks', 'links', 'dossiers', 'keys', 'usage', 'settings', 'team']) expect(usage.html).toContain(`href="/dashboard/${section}"`);
    const reviews = await c.get('/dashboard/reviews');
    expect(reviews.status).toBe(200);
    expect(reviews.html).toContain('Review queue');
  });

  it('refuses a wrong password and an unknown email with the same words', async () => {
    const c = new DashboardClient(app.baseUrl);
    const wrong = await c.signIn('admin@example.com', 'not the password at all');
    const unknown = await c.signIn('nobody@example.com', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.html).toContain('The email or password is wrong.');
    expect(wrong.html.replace(/value="[^"]*"/g, '')).toBe(unknown.html.replace(/value="[^"]*"/g, ''));
    expect(c.jar.has('cotejo_session')).toBe(false);
    // A good sign-in clears the count.
    expect((await c.signIn('admin@example.com', PASSWORD)).status).toBe(303);
    expect((await findMember(app.services.db, (await listMembers(app.services.db, accountId)).find((m) => m.email === 'admin@example.com')!.id))!.failed_sign_ins).toBe(0);
  });

  it('locks a member for 15 minutes after 5 failures in a row, with the same message', async () => {
    const m = await makeMember(app, accountId, 'member', 'locked@example.com');
    const c = new DashboardClient(app.baseUrl);
    for (let i = 0; i < 5; i++) expect((await c.signIn('locked@example.com', `wrong password ${i}`)).status).toBe(401);
    const row = await findMember(app.services.db, m.id);
    expect(row!.locked_until!.getTime()).toBe(clock.now().getTime() + LOCK_MS);
    const refused = await c.signIn('locked@example.com', PASSWORD);
    expect(refused.status).toBe(401);
    expect(refused.html).toContain('The email or password is wrong.');
    clock.advance(LOCK_MS - 1000);
    expect((await c.signIn('locked@example.com', PASSWORD)).status).toBe(401);
    clock.advance(2000);
    expect((await c.signIn('locked@example.com', PASSWORD)).status).toBe(303);
  });

  it('signs out: the cookie is cleared and the session is gone from the database', async () => {
    const c = await signedIn(app, 'member@example.com');
    const token = c.jar.get('cotejo_session')!;
    const r = await c.submit('/dashboard/usage', '/dashboard/sign-out', {});
    expect(r.status).toBe(303);
    expect(r.location).toBe('/dashboard/sign-in?out=1');
    expect(c.jar.has('cotejo_session')).toBe(false);
    const replay = new DashboardClient(app.baseUrl);
    replay.jar.set('cotejo_session', token);
    const after = await replay.get('/dashboard/usage');
    expect(after.status).toBe(303);
    expect(after.location).toBe('/dashboard/sign-in?expired=1');
  });

  it('ends a session after 2 idle hours, and 12 hours after sign-in however busy', async () => {
    const idle = await signedIn(app, 'member@example.com');
    clock.advance(IDLE_MS - 60_000);
    expect((await idle.get('/dashboard/usage')).status).toBe(200);
    clock.advance(IDLE_MS - 60_000); // seen a moment ago: still within the idle time
    expect((await idle.get('/dashboard/usage')).status).toBe(200);
    clock.advance(IDLE_MS);
    expect((await idle.get('/dashboard/usage')).location).toBe('/dashboard/sign-in?expired=1');

    const busy = await signedIn(app, 'member@example.com');
    for (let t = 0; t < ABSOLUTE_MS - 3_600_000; t += 3_600_000) {
      clock.advance(3_600_000);
      expect((await busy.get('/dashboard/usage')).status).toBe(200);
    }
    clock.advance(3_600_000);
    expect((await busy.get('/dashboard/usage')).location).toBe('/dashboard/sign-in?expired=1');
  });

  it('the retention sweep deletes ended sessions and passed address windows, and keeps live ones', async () => {
    const count = async (table: 'dashboard_sessions' | 'dashboard_sign_in_addresses') =>
      Number((await app.services.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    await app.services.db.deleteFrom('dashboard_sessions').execute();
    await app.services.db.deleteFrom('dashboard_sign_in_addresses').execute();
    await signedIn(app, 'member@example.com');
    await new DashboardClient(app.baseUrl).signIn('nobody@example.com', 'not the password at all');
    expect(await count('dashboard_sessions')).toBe(1);
    expect(await count('dashboard_sign_in_addresses')).toBe(1);
    await sweepRetention(app.services);
    expect(await count('dashboard_sessions')).toBe(1);
    expect(await count('dashboard_sign_in_addresses')).toBe(1);
    clock.advance(IDLE_MS + 60_000);
    const live = await signedIn(app, 'member@example.com');
    await sweepRetention(app.services);
    expect(await count('dashboard_sessions')).toBe(1);
    expect(await count('dashboard_sign_in_addresses')).toBe(0);
    expect((await live.get('/dashboard/usage')).status).toBe(200);
  });

  it('refuses a POST without the CSRF token, with a wrong one, or from another origin: 403, nothing done', async () => {
    const c = await signedIn(app, 'owner@example.com');
    const before = await findAccount(app.services.db, accountId);
    const form = { link_consent_text: 'changed', default_processing: 'standard', review_max_days: '5', review_retention_hours: '1', low_credit_threshold: '3' };
    const missing = await c.request('POST', '/dashboard/settings', form, { Origin: app.baseUrl });
    const wrong = await c.request('POST', '/dashboard/settings', { ...form, csrf: 'x'.repeat(43) }, { Origin: app.baseUrl });
    const foreign = await c.submit('/dashboard/settings', '/dashboard/settings', form, { Origin: 'https://evil.example' });
    const foreignReferer = await c.submit('/dashboard/settings', '/dashboard/settings', form, { Origin: '', Referer: 'https://evil.example/page' });
    for (const r of [missing, wrong, foreign, foreignReferer]) {
      expect(r.status).toBe(403);
      expect(r.html).toContain('The form has expired');
    }
    expect(await findAccount(app.services.db, accountId)).toEqual(before);
    // Without Origin, a Referer of this site with the right token passes (the mode switch: harmless).
    expect((await c.submit('/dashboard/usage', '/dashboard/mode', { mode: 'test' }, { Origin: '', Referer: `${app.baseUrl}/dashboard/usage` })).status).toBe(303);
    // Before sign-in: the sign-in form's own token (cookie and field must match).
    const fresh = new DashboardClient(app.baseUrl);
    expect((await fresh.request('POST', '/dashboard/sign-in', { email: 'owner@example.com', password: PASSWORD })).status).toBe(403);
    await fresh.get('/dashboard/sign-in');
    expect((await fresh.request('POST', '/dashboard/sign-in', { email: 'owner@example.com', password: PASSWORD, csrf: 'y'.repeat(32) })).status).toBe(403);
    expect(fresh.jar.has('cotejo_session')).toBe(false);
    // A token from another session does not work either.
    const other = await signedIn(app, 'admin@example.com');
    const otherToken = csrfOf((await other.get('/dashboard/settings')).html);
    expect((await c.request('POST', '/dashboard/settings', { ...form, csrf: otherToken }, { Origin: app.baseUrl })).status).toBe(403);
  });

  it('invites by email; the link (shown once, emailed) sets name and password, then works no more', async () => {
    const owner = await signedIn(app, 'owner@example.com');
    const r = await owner.submit('/dashboard/team', '/dashboard/team/invitations', { email: 'New.Person@example.com', role: 'admin' });
    expect(r.status).toBe(201);
    const url = /id="invitation-link">([^<]+)</.exec(r.html)![1];
    expect(url).toMatch(/\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
    // Queued in the shared outbox; the sender (a worker, here called directly) writes it to the local outbox directory.
    await runDueEmails(app.services);
    const { emails } = await listOutbox(outboxDir(app.services.config.dataDir), 10);
    expect(emails.some((e) => e.to === 'New.Person@example.com')).toBe(true);
    // Pending in the list, without its link.
    const team = await owner.get('/dashboard/team');
    expect(team.html).toContain('New.Person@example.com');
    expect(team.html).not.toContain(url);

    const linkPath = new URL(url).pathname;
    const guest = new DashboardClient(app.baseUrl);
    const open = await guest.get(linkPath);
    expect(open.status).toBe(200);
    const csrf = csrfOf(open.html);
    const post = (form: Record<string, string>) => guest.request('POST', linkPath, { csrf, ...form }, { Origin: app.baseUrl });
    expect((await post({ name: 'Nora', password: 'short', confirm: 'short' })).status).toBe(422);
    expect((await post({ name: 'Nora', password: PASSWORD, confirm: `${PASSWORD}!` })).status).toBe(422);
    expect((await post({ name: '', password: PASSWORD, confirm: PASSWORD })).status).toBe(422);
    const ok = await post({ name: 'Nora New', password: PASSWORD, confirm: PASSWORD });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/dashboard/sign-in?joined=1');
    expect((await guest.get(linkPath)).status).toBe(404);
    expect((await post({ name: 'Again', password: PASSWORD, confirm: PASSWORD })).status).toBe(404);
    const nora = await signedIn(app, 'new.person@example.com');
    expect((await nora.get('/dashboard/keys')).html).toContain('Nora New');
    const row = (await listMembers(app.services.db, accountId)).find((m) => m.name === 'Nora New')!;
    expect(row.role).toBe('admin');
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('a member cannot manage keys, settings or the team; sees usage, settings and the team read-only', async () => {
    const m = await signedIn(app, 'member@example.com');
    const keysBefore = (await listApiKeys(app.services.db, accountId)).length;
    expect((await m.get('/dashboard/keys')).status).toBe(403);
    expect((await m.get('/dashboard/usage')).html).not.toContain('href="/dashboard/keys"');
    const token = csrfOf((await m.get('/dashboard/usage')).html);
    const post = (p: string, form: Record<string, string>) => m.request('POST', p, { csrf: token, ...form }, { Origin: app.baseUrl });
    expect((await post('/dashboard/keys', { name: 'nope' })).status).toBe(403);
    expect((await listApiKeys(app.services.db, accountId)).length).toBe(keysBefore);
    const settings = await m.get('/dashboard/settings');
    expect(settings.status).toBe(200);
    expect(settings.html).toContain('disabled');
    expect((await post('/dashboard/settings', { default_processing: 'standard', review_max_days: '3', review_retention_hours: '0', low_credit_threshold: '1' })).status).toBe(403);
    expect((await findAccount(app.services.db, accountId))!.review_max_days).toBe(30);
    const team = await m.get('/dashboard/team');
    expect(team.status).toBe(200);
    expect(team.html).not.toContain('action="/dashboard/team/invitations"');
    expect((await post('/dashboard/team/invitations', { email: 'x@example.com', role: 'member' })).status).toBe(403);
    const admin = (await listMembers(app.services.db, accountId)).find((x) => x.email === 'admin@example.com')!;
    expect((await post(`/dashboard/team/members/${admin.id}/remove`, {})).status).toBe(403);
    expect((await post(`/dashboard/team/members/${admin.id}/role`, { role: 'member' })).status).toBe(403);
  });

  it('an admin cannot make, change or remove an owner; the last owner cannot be removed or demoted', async () => {
    const all = async () => await listMembers(app.services.db, accountId);
    const id = async (email: string) => (await all()).find((x) => x.email === email)!.id;
    const admin = await signedIn(app, 'admin@example.com');
    const invited = await admin.submit('/dashboard/team', '/dashboard/team/invitations', { email: 'boss@example.com', role: 'owner' });
    expect(invited.status).toBe(403);
    expect(invited.html).toContain('Only an owner can make or remove owners.');
    expect((await admin.submit('/dashboard/team', `/dashboard/team/members/${await id('member@example.com')}/role`, { role: 'owner' })).status).toBe(403);
    expect((await admin.submit('/dashboard/team', `/dashboard/team/members/${await id('owner@example.com')}/role`, { role: 'member' })).status).toBe(403);
    expect((await admin.submit('/dashboard/team', `/dashboard/team/members/${await id('owner@example.com')}/remove`, {})).status).toBe(403);
    // An admin may manage members and admins.
    const temp = await makeMember(app, accountId, 'member', 'temp@example.com');
    const promoted = await admin.submit('/dashboard/team', `/dashboard/team/members/${temp.id}/role`, { role: 'admin' });
    expect(promoted.status).toBe(303);
    expect((await findMember(app.services.db, temp.id))!.role).toBe('admin');
    expect((await admin.submit('/dashboard/team', `/dashboard/team/members/${temp.id}/remove`, {})).status).toBe(303);
    expect(await findMember(app.services.db, temp.id)).toBeUndefined();

    const owner = await signedIn(app, 'owner@example.com');
    const ownerId = await id('owner@example.com');
    const lastOwner = await owner.submit('/dashboard/team', `/dashboard/team/members/${ownerId}/role`, { role: 'admin' });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.html).toContain('The account needs at least one owner.');
    expect((await owner.submit('/dashboard/team', `/dashboard/team/members/${ownerId}/remove`, {})).status).toBe(422); // not oneself
    // An owner makes a second owner; then either may step down, but not both.
    const second = await makeMember(app, accountId, 'admin', 'second@example.com');
    expect((await owner.submit('/dashboard/team', `/dashboard/team/members/${second.id}/role`, { role: 'owner' })).status).toBe(303);
    const s = await signedIn(app, 'second@example.com');
    expect((await s.submit('/dashboard/team', `/dashboard/team/members/${ownerId}/role`, { role: 'admin' })).status).toBe(303);
    const back = await s.submit('/dashboard/team', `/dashboard/team/members/${second.id}/role`, { role: 'admin' });
    expect(back.status).toBe(409);
    expect((await s.submit('/dashboard/team', `/dashboard/team/members/${ownerId}/role`, { role: 'owner' })).status).toBe(303);
    expect((await s.submit('/dashboard/team', `/dashboard/team/members/${second.id}/remove`, {})).status).toBe(422);
    expect((await owner.submit('/dashboard/team', `/dashboard/team/members/${second.id}/remove`, {})).status).toBe(303);
    expect((await all()).filter((m) => m.role === 'owner').map((m) => m.email)).toEqual(['owner@example.com']);
  });

  it('creates a key (shown once) that works on the API, revokes it; live mode shows live keys', async () => {
    const admin = await signedIn(app, 'admin@example.com');
    const made = await admin.submit('/dashboard/keys', '/dashboard/keys', { name: 'Back office', kind: 'secret' });
    expect(made.status).toBe(201);
    const key = /id="new-key">([^<]+)</.exec(made.html)![1];
    expect(key).toMatch(/^ck_test_/);
    expect((await app.request('GET', '/v1/balance', { key })).status).toBe(200);
    const list = await admin.get('/dashboard/keys');
    expect(list.html).toContain('Back office');
    expect(list.html).not.toContain(key);
    const row = (await listApiKeys(app.services.db, accountId)).find((k) => k.name === 'Back office')!;
    const revoked = await admin.submit('/dashboard/keys', `/dashboard/keys/${row.id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect((await app.request('GET', '/v1/balance', { key })).status).toBe(401);
    // Another account's key: not found, not revoked.
    const other = await app.newAccount();
    const foreign = (await listApiKeys(app.services.db, other.account))[0];
    expect((await admin.submit('/dashboard/keys', `/dashboard/keys/${foreign.id}/revoke`, {})).status).toBe(404);
    expect((await listApiKeys(app.services.db, other.account))[0].revoked_at).toBeNull();
    // Live mode: the keys page lists live keys and makes live ones.
    expect((await admin.submit('/dashboard/keys', '/dashboard/mode', { mode: 'live', back: '/dashboard/keys' })).location).toBe('/dashboard/keys');
    const live = await admin.get('/dashboard/keys');
    expect(live.html).toContain('ck_live_');
    expect(live.html).not.toContain('ck_test_');
    const liveKey = /id="new-key">([^<]+)</.exec((await admin.submit('/dashboard/keys', '/dashboard/keys', { name: '', kind: 'publishable' })).html)![1];
    expect(liveKey).toMatch(/^pk_live_/);
    expect((await admin.submit('/dashboard/keys', '/dashboard/keys', { name: 'x'.repeat(101) })).status).toBe(422);
  });

  it('validates settings like the CLI and saves good ones', async () => {
    const owner = await signedIn(app, 'owner@example.com');
    const bad = await owner.submit('/dashboard/settings', '/dashboard/settings', {
      link_consent_text: 'x'.repeat(2001),
      default_processing: 'fast',
      review_max_days: '0',
      review_retention_hours: '721',
      low_credit_threshold: '-1',
    });
    expect(bad.status).toBe(422);
    for (const text of ['at most 2000 characters', 'Choose sovereign or standard', 'from 1 to 90', 'from 0 to 720', '0 or more']) expect(bad.html).toContain(text);
    expect((await findAccount(app.services.db, accountId))!.review_max_days).toBe(30);
    const good = await owner.submit('/dashboard/settings', '/dashboard/settings', {
      link_consent_text: 'We keep your documents 30 days.',
      link_show_result: 'on',
      default_processing: 'standard',
      review_max_days: '14',
      review_retention_hours: '0',
      low_credit_threshold: '2.5',
    });
    expect(good.status).toBe(303);
    const a = (await findAccount(app.services.db, accountId))!;
    expect(a).toMatchObject({ link_consent_text: 'We keep your documents 30 days.', link_show_result: true, default_processing: 'standard', review_max_days: 14, review_retention_hours_after_decision: 0, low_credit_threshold_milli: 2500 });
    const page = await owner.get('/dashboard/settings?done=saved');
    expect(page.html).toContain('Settings saved.');
    expect(page.html).toContain('We keep your documents 30 days.');
    // The account's name: renamed here, shown at once in the console header; an empty or too long one is refused.
    const form = { default_processing: 'standard', review_max_days: '14', review_retention_hours: '0', low_credit_threshold: '2.5', link_show_result: 'on', link_consent_text: 'We keep your documents 30 days.' };
    expect(page.html).toMatch(/<input id="account-name" name="name" type="text" maxlength="100" required [^>]*value="[^"]+"/);
    for (const name of ['', ' ', 'x'.repeat(101)]) {
      const refused = await owner.submit('/dashboard/settings', '/dashboard/settings', { ...form, name });
      expect(refused.status).toBe(422);
      expect(refused.html).toContain('The name must be 1 to 100 characters.');
    }
    expect((await owner.submit('/dashboard/settings', '/dashboard/settings', { ...form, name: '  Mi Empresa  ' })).status).toBe(303);
    expect((await findAccount(app.services.db, accountId))!.name).toBe('Mi Empresa');
    const renamed = await owner.get('/dashboard/settings');
    expect(renamed.html).toContain('<p class="brand" title="Mi Empresa">Mi Empresa · ');
    expect(renamed.html).toContain('value="Mi Empresa"');
    // Empty consent text and no checkbox: the default text, no verdict shown.
    await owner.submit('/dashboard/settings', '/dashboard/settings', { link_consent_text: '', default_processing: 'sovereign', review_max_days: '30', review_retention_hours: '24', low_credit_threshold: '2.5' });
    expect(await findAccount(app.services.db, accountId)).toMatchObject({ link_consent_text: null, link_show_result: false, default_processing: 'sovereign' });
  });

  it('shows the balance and the usage by day of the mode shown, with a chart', async () => {
    const today = clock.now().toISOString().slice(0, 10);
    const yesterday = new Date(clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
    for (const [i, day] of [today, today, yesterday].entries()) {
      await recordUsage(app.services.db, { analysis_id: `an_usage_${kind}_${i}`, account_id: accountId, livemode: false, day, document_type: 'es_dni', kind: 'analysis', pages: 2, credits_milli: 0, created_at: clock.now() });
    }
    const m = await signedIn(app, 'member@example.com');
    const r = await m.get('/dashboard/usage');
    expect(r.status).toBe(200);
    expect(r.html).toContain('<svg class="chart"');
    // Nothing the strict CSP would refuse: no inline script or style.
    expect(r.html).not.toMatch(/<script|<style|\sstyle=/);
    expect((r.html.match(/<rect class="bar"/g) ?? []).length).toBe(30);
    expect(r.html).toContain(`<title>${today}: 2</title>`);
    expect(r.html).toContain(`<title>${yesterday}: 1</title>`);
    expect(r.html).toContain('Credits spendable');
    expect(r.html).toMatch(/<tfoot><tr><th scope="row">Total<\/th><td class="num">3<\/td><td class="num">6<\/td>/);
    const range = await m.get(`/dashboard/usage?from=${today}&to=${today}`);
    expect((range.html.match(/<rect class="bar"/g) ?? []).length).toBe(1);
    expect((await m.get(`/dashboard/usage?from=${today}&to=${yesterday}`)).status).toBe(422);
    await m.submit('/dashboard/usage', '/dashboard/mode', { mode: 'live', back: '/dashboard/usage' });
    const live = await m.get('/dashboard/usage');
    expect(live.html).toContain('No usage in these dates.');
    // The language switch: the member's own, kept for the next sign-in.
    await m.submit('/dashboard/usage', '/dashboard/language', { language: 'fr', back: '/dashboard/usage' });
    expect((await m.get('/dashboard/usage')).html).toContain('<html lang="fr">');
    expect((await (await signedIn(app, 'member@example.com')).get('/dashboard/usage')).html).toContain('Consommation et solde');
    await m.submit('/dashboard/usage', '/dashboard/language', { language: 'en', back: '/dashboard/usage' });
  });

  it('limits failed sign-ins per client address, whatever the emails', async () => {
    const c = new DashboardClient(app.baseUrl);
    let last = 0;
    for (let i = 0; i < 25 && last !== 429; i++) last = (await c.signIn(`someone${i}@example.com`, 'wrong password here')).status;
    expect(last).toBe(429);
    // Even a good password from that address waits for the window to pass.
    expect((await c.signIn('owner@example.com', PASSWORD)).status).toBe(429);
    clock.advance(15 * 60_000 + 1000);
    expect((await c.signIn('owner@example.com', PASSWORD)).status).toBe(303);
  });
});

describe('the session cookie behind a trusted proxy that says https', () => {
  it('is Secure', async () => {
    const app = await startTestApp('pglite', { config: { trustProxy: ['loopback'] } });
    try {
      await makeMember(app, app.account.account, 'owner', 'tls@example.com');
      const c = new DashboardClient(app.baseUrl);
      const https = { 'X-Forwarded-Proto': 'https' };
      const page = await c.request('GET', '/dashboard/sign-in', undefined, https);
      expect(page.headers.getSetCookie()[0]).toContain('; Secure');
      const origin = app.baseUrl.replace('http:', 'https:');
      const r = await c.request('POST', '/dashboard/sign-in', { csrf: csrfOf(page.html), email: 'tls@example.com', password: PASSWORD }, { ...https, Origin: origin });
      expect(r.status).toBe(303);
      expect(r.headers.getSetCookie().find((l) => l.startsWith('cotejo_session='))).toContain('; Secure');
    } finally {
      await app.close();
    }
  }, 60_000);
});
