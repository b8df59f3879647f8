/**
 * Verification links (#17), the API and its domain, through the real app on both databases: every field, default,
 * bound and error of the create table; list filters and pages; the single GET with a decodable QR code; cancel;
 * tenancy and idempotency; the token kept only as a hash; the page functions of domain/links/page.ts (open, consent,
 * uploads with retries and attempts, completion, refusals); expiry by the durable sweep with a moved clock; the
 * `verification_link.completed` / `.expired` webhooks and the signed callback; the two emails (local outbox).
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jsqrModule from 'jsqr';
import sharp from 'sharp';
import { sql } from 'kysely';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { findAccount } from '../../server/src/db/accounts.ts';
import { addCredits } from '../../server/src/domain/accounts.ts';
import { acceptConsent, ConsentRequired, LinkUnavailable, openByToken, uploadByToken, viewByToken } from '../../server/src/domain/links/page.ts';
import { callbackSecretOf, expireDueLinks, runOneLinkEmailJob } from '../../server/src/domain/links/service.ts';
import { migrateToLatest, openDatabase } from '../../server/src/db/database.ts';
import { runOneAnalysisJob, sweepRetention } from '../../server/src/jobs/worker.ts';
import { createMailer, MailError, setMailer } from '../../server/src/mail/index.ts';
import { runDueEmails, runOneDueEmail } from '../../server/src/mail/queue.ts';
import { listOutbox, outboxDir, readOutbox } from '../../server/src/mail/outbox.ts';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp, type TestResponse } from '../support/app.ts';
import { fixtures } from '../support/files.ts';
import { standInLiveProvider } from '../support/live-provider.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../unit/webhooks/receiver.ts';

const HOUR = 3_600_000;
type Res = TestResponse<any>;

/** Rasterises an SVG QR code with sharp and decodes it with jsQR. */
async function decodeQr(svg: string): Promise<string | null> {
  const { data, info } = await sharp(Buffer.from(svg), { density: 300 }).resize(600, 600, { fit: 'contain', background: '#ffffff' }).flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  // jsqr is CommonJS with a default-export typing: the function is the module itself or its `default`.
  const jsQR = ((jsqrModule as unknown as { default?: typeof jsqrModule }).default ?? jsqrModule) as unknown as (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null;
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null;
}

const tokenOfUrl = (url: string): string => url.slice(url.lastIndexOf('/l/') + 3);

function verifySigned(req: ReceivedRequest, secret: string): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: Number(req.headers['webhook-timestamp']) * 1000 + 500 });
  try {
    return new StandardWebhook(secret).verify(req.body, req.headers);
  } finally {
    vi.useRealTimers();
  }
}

describe.each(DATABASES)('verification links on %s', (kind) => {
  let app: TestApp;
  let rx: Receiver;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp(kind, { clock, config: { allowPrivateUrls: true } });
  });
  afterAll(async () => {
    await app?.close();
    await rx?.close();
  });
  beforeEach(() => rx.reset());

  const account = () => app.newAccount({ rateLimitPerSecond: 100_000 });
  const create = (json: unknown, opts: { key?: string; headers?: Record<string, string> } = {}): Promise<Res> => app.request('POST', '/v1/verification-links', { json, ...opts });
  const drain = async () => {
    let n = 0;
    for (let k; (k = await runDueDeliveries(app.services, { limit: 50, sender: { ca: rx.ca } })) > 0; ) n += k;
    return n;
  };
  const upload = (url: string, key: string, filename: string) => uploadByToken(app.services, tokenOfUrl(url), key, { bytes: fixtures.jpeg(), filename });

  it('creates a link with every default, a dossier, and a decodable QR of its url', async () => {
    const res = await create({ documents: [{ key: 'id', label: 'Your ID', expect: 'es_dni' }, { key: 'any' }] });
    expect(res.status).toBe(201);
    const l = res.body;
    expect(l.id).toMatch(/^vl_[0-9A-Z]{26}$/);
    expect(l.url).toMatch(new RegExp(`^${app.services.config.baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/l/[A-Za-z0-9_-]{43}$`));
    expect(l).toMatchObject({
      object: 'verification_link',
      status: 'pending',
      livemode: false,
      template: null,
      reference: null,
      metadata: {},
      redirect_url: null,
      redirect_with_status: false,
      callback_url: null,
      include_results: true,
      results_email: null,
      results_email_sent_at: null,
      locale: 'es',
      notify_email: null,
      last_sent_at: null,
      show_result: true,
      consent_text: null,
      consent: null,
      completed_at: null,
      cancelled_at: null,
    });
    expect(l.documents).toEqual([
      { key: 'id', label: 'Your ID', expect: ['es_dni'], checks: {}, status: 'pending', analysis_id: null, attempts: 0, verdict_status: null, final_status: null, warnings: [] },
      { key: 'any', label: null, expect: [], checks: {}, status: 'pending', analysis_id: null, attempts: 0, verdict_status: null, final_status: null, warnings: [] },
    ]);
    expect(l.events).toEqual([{ type: 'created', at: l.created_at }]);
    expect(Date.parse(l.expires_at) - Date.parse(l.created_at)).toBe(72 * HOUR);
    expect(l).not.toHaveProperty('face_verification');
    expect(l).not.toHaveProperty('face_match');
    expect(await decodeQr(l.qr_svg)).toBe(l.url);

    // Its dossier: the link's documents as requirements, the link's id.
    const dos = await app.request('GET', `/v1/dossiers/${l.dossier_id}`);
    expect(dos.status).toBe(200);
    expect(dos.body).toMatchObject({ verification_link_id: l.id, language: 'es', metadata: {} });
    expect(dos.body.requirements.map((r: { key: string }) => r.key)).toEqual(['id', 'any']);

    // GET: the same link, with its QR; the url is the same (recomputed, never stored).
    const got = await app.request('GET', `/v1/verification-links/${l.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(l);
  });

  it('keeps every field given at creation', async () => {
    const res = await create({
      documents: [{ key: 'passport', label: 'Pasaporte', expect: ['passport'], checks: { holder: { full_name: 'ANA' } } }],
      reference: 'cliente-42',
      metadata: { crm: 'c42' },
      expires_in_hours: 1,
      locale: 'fr',
      notify_email: 'persona@example.com',
      consent_text: 'Je consens.',
      show_result: false,
      redirect_url: 'https://example.com/done',
      redirect_with_status: true,
      callback_url: 'https://example.com/cb',
      include_results: false,
      results_email: 'ops@example.com',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      reference: 'cliente-42',
      metadata: { crm: 'c42' },
      locale: 'fr',
      notify_email: 'persona@example.com',
      consent_text: 'Je consens.',
      show_result: false,
      redirect_url: 'https://example.com/done',
      redirect_with_status: true,
      callback_url: 'https://example.com/cb',
      include_results: false,
      results_email: 'ops@example.com',
    });
    expect(res.body.documents[0]).toMatchObject({ key: 'passport', expect: ['passport'], checks: { holder: { full_name: 'ANA' } } });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(HOUR);
    // notify_email: the email is a job committed with the link, which queues it in the shared outbox (the
    // `emails` table); once the sender took it out (local outbox directory: no SMTP configured), event `sent` and
    // last_sent_at, not before.
    expect(res.body.last_sent_at).toBeNull();
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['created']);
    expect(await runOneLinkEmailJob(app.services)).toBe(true);
    while (await runOneLinkEmailJob(app.services));
    const queued = await app.services.db.selectFrom('emails').selectAll().where('ref', '=', res.body.id).execute();
    expect(queued).toMatchObject([{ to_address: 'persona@example.com', status: 'queued', topic: 'link_sent', account_id: expect.stringMatching(/^acct_/) }]);
    expect((await app.request('GET', `/v1/verification-links/${res.body.id}`)).body.last_sent_at).toBeNull();
    expect(await runDueEmails(app.services)).toBeGreaterThanOrEqual(1);
    expect(await app.services.db.selectFrom('emails').select(['status', 'via']).where('id', '=', queued[0].id).executeTakeFirst()).toEqual({ status: 'sent', via: 'outbox' });
    const sent = (await app.request('GET', `/v1/verification-links/${res.body.id}`)).body;
    expect(sent.last_sent_at).toBe(clock.now().toISOString());
    expect(sent.events.map((e: { type: string }) => e.type)).toEqual(['created', 'sent']);
    expect(sent.events[1]).toMatchObject({ email: 'persona@example.com' });
    const dir = outboxDir(app.services.config.dataDir);
    const { emails } = await listOutbox(dir, 100);
    const mail = emails.find((m) => m.to === 'persona@example.com');
    expect(mail).toBeDefined();
    expect((await readOutbox(dir, mail!.id))!.text).toContain(res.body.url);
    // The dossier takes the reference, locale and metadata.
    const dos = await app.request('GET', `/v1/dossiers/${res.body.dossier_id}`);
    expect(dos.body).toMatchObject({ reference: 'cliente-42', language: 'fr', metadata: { crm: 'c42' } });
    // Cancelled: it never expires, so no callback to example.com is ever due in later tests.
    expect((await app.request('DELETE', `/v1/verification-links/${res.body.id}`)).status).toBe(200);
  });

  it('a mail server that is away: the link email is tried again later and goes out once; a permanent refusal ends it', async () => {
    const sentTo: string[] = [];
    let failWith: MailError | null = new MailError('could not send the email: connection refused', { code: 'ECONNECTION', transient: true, via: 'smtp' });
    while (await runOneLinkEmailJob(app.services));
    await runDueEmails(app.services);
    setMailer(app.services, {
      via: 'smtp',
      describe: 'smtp://test@127.0.0.1:1',
      async send(mail) {
        if (failWith) throw failWith;
        sentTo.push(mail.to);
      },
      close() {},
    });
    try {
      const l = (await create({ documents: [{ key: 'id', expect: 'es_dni' }], notify_email: 'away@example.com' })).body;
      expect(await runOneLinkEmailJob(app.services)).toBe(true); // queued in the shared outbox
      expect(await runOneLinkEmailJob(app.services)).toBe(false);
      expect(await runOneDueEmail(app.services)).toBe(true); // refused for now
      expect(await runOneDueEmail(app.services)).toBe(false); // not due yet
      expect((await app.request('GET', `/v1/verification-links/${l.id}`)).body.last_sent_at).toBeNull();
      const row = await app.services.db.selectFrom('emails').selectAll().where('ref', '=', l.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'queued', attempts: 1, error: expect.stringContaining('connection refused') });
      failWith = null;
      clock.advance(6_000);
      expect(await runOneDueEmail(app.services)).toBe(true);
      expect(sentTo).toEqual(['away@example.com']);
      const got = (await app.request('GET', `/v1/verification-links/${l.id}`)).body;
      expect(got.last_sent_at).toBe(clock.now().toISOString());
      expect(got.events.filter((e: { type: string }) => e.type === 'sent')).toHaveLength(1);
      clock.advance(24 * 3600_000);
      expect(await runOneDueEmail(app.services)).toBe(false);
      expect(sentTo).toEqual(['away@example.com']);

      // A refusal that would not change (the address does not exist): no retry, nothing recorded.
      failWith = new MailError('550 no such user', { code: 'EENVELOPE', responseCode: 550, transient: false, via: 'smtp' });
      const m = (await create({ documents: [{ key: 'id', expect: 'es_dni' }], notify_email: 'nobody@example.com' })).body;
      expect(await runOneLinkEmailJob(app.services)).toBe(true);
      expect(await runOneDueEmail(app.services)).toBe(true);
      clock.advance(24 * 3600_000);
      expect(await runOneDueEmail(app.services)).toBe(false);
      expect((await app.request('GET', `/v1/verification-links/${m.id}`)).body.last_sent_at).toBeNull();
      expect(await app.services.db.selectFrom('emails').select(['status', 'attempts']).where('ref', '=', m.id).executeTakeFirst()).toEqual({ status: 'failed', attempts: 1 });
      for (const id of [l.id, m.id]) await app.request('DELETE', `/v1/verification-links/${id}`);
    } finally {
      setMailer(app.services, createMailer(app.services.config));
    }
  });

  it('refuses what the create table refuses, with its exact codes and params', async () => {
    const err = async (json: unknown, status: number, code: string, param?: string) => {
      const res = await create(json);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.error.code).toBe(code);
      if (param !== undefined) expect(res.body.error.param).toBe(param);
    };
    await err({ documents: [{ key: 'a' }], color: 'red' }, 422, 'invalid_parameter', 'color');
    await err({ documents: [{ key: 'a', extra: 1 }] }, 422, 'invalid_parameter');
    await err({ documents: [] }, 422, 'invalid_parameter', 'documents');
    await err({ documents: Array.from({ length: 11 }, (_, i) => ({ key: `k${i}` })) }, 422, 'invalid_parameter', 'documents');
    await err({ documents: [{ key: 'a' }, { key: 'a' }] }, 422, 'invalid_parameter', 'documents.1.key');
    await err({ documents: [{ key: 'bad key' }] }, 422, 'invalid_parameter');
    await err({ documents: [{ key: 'a'.repeat(41) }] }, 422, 'invalid_parameter');
    await err({ documents: [{ key: 'a', label: 'x'.repeat(121) }] }, 422, 'invalid_parameter');
    await err({ documents: [{ key: 'a', expect: 'not_a_type' }] }, 422, 'invalid_parameter', 'documents.0.expect');
    await err({}, 422, 'documents_required', 'documents');
    await err({ reference: 'x' }, 422, 'documents_required');
    await err({ template: 'tpl_01HZZZZZZZZZZZZZZZZZZZZZZZ' }, 422, 'template_not_found', 'template');
    await err({ template: 'nope', documents: [{ key: 'a' }] }, 422, 'template_not_found', 'template');
    await err({ documents: [{ key: 'a' }], redirect_url: 'http://example.com/' }, 422, 'invalid_parameter', 'redirect_url');
    await err({ documents: [{ key: 'a' }], callback_url: 'http://example.com/cb' }, 422, 'invalid_url', 'callback_url');
    await err({ documents: [{ key: 'a' }], callback_url: 'not a url' }, 422, 'invalid_url', 'callback_url');
    await err({ documents: [{ key: 'a' }], callback_url: 'https://user:pw@example.com/cb' }, 422, 'invalid_url', 'callback_url');
    await err({ documents: [{ key: 'a' }], expires_in_hours: 0 }, 422, 'invalid_parameter', 'expires_in_hours');
    await err({ documents: [{ key: 'a' }], expires_in_hours: 721 }, 422, 'invalid_parameter', 'expires_in_hours');
    await err({ documents: [{ key: 'a' }], reference: 'r'.repeat(201) }, 422, 'invalid_parameter', 'reference');
    await err({ documents: [{ key: 'a' }], consent_text: 'c'.repeat(2001) }, 422, 'invalid_parameter', 'consent_text');
    await err({ documents: [{ key: 'a' }], locale: 'de' }, 422, 'invalid_parameter', 'locale');
    await err({ documents: [{ key: 'a' }], notify_email: 'not-an-email' }, 422, 'invalid_parameter', 'notify_email');
    await err({ documents: [{ key: 'a' }], metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 422, 'invalid_parameter');
    await err({ documents: [{ key: 'a' }], face_verification: { enabled: true } }, 403, 'face_verification_not_enabled', 'face_verification');
    // Bounds that pass.
    expect((await create({ documents: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}` })), expires_in_hours: 720 })).status).toBe(201);
    expect((await create({ documents: [{ key: 'a' }], face_verification: null, face_verification_x: undefined })).status).toBe(201);
    expect((await create({ documents: [{ key: 'a' }], face_verification: { enabled: false } })).body).not.toHaveProperty('face_verification');
  });

  it('face_verification: with the module on, stored and echoed; face_match stays pending (no biometric matching)', async () => {
    const acct = await account();
    await app.services.db.updateTable('accounts').set({ face_verification_enabled: true }).where('id', '=', acct.account).execute();
    const res = await create({ documents: [{ key: 'id' }], face_verification: { enabled: true, required: true } }, { key: acct.keys.test });
    expect(res.status).toBe(201);
    expect(res.body.face_verification).toEqual({ enabled: true, required: true });
    expect(res.body.face_match).toEqual({ status: 'pending', score: null, analysis_id: null, checked_at: null });
    const dflt = await create({ documents: [{ key: 'id' }], face_verification: { enabled: true } }, { key: acct.keys.test });
    expect(dflt.body.face_verification).toEqual({ enabled: true, required: false });
  });

  it('a template alone asks for one `document` with its expect, in its language; its documents when it has them', async () => {
    const tpl = await app.request('POST', '/v1/templates', { json: { name: 'KYC', expect: ['es_dni', 'passport'], language: 'en', checks: { not_expired: true } } });
    expect(tpl.status).toBe(201);
    const res = await create({ template: tpl.body.id });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ template: tpl.body.id, locale: 'en' });
    expect(res.body.documents).toEqual([
      { key: 'document', label: null, expect: ['es_dni', 'passport'], checks: { not_expired: true }, status: 'pending', analysis_id: null, attempts: 0, verdict_status: null, final_status: null, warnings: [] },
    ]);
    // The request's documents and locale win over the template's.
    const own = await create({ template: tpl.body.id, documents: [{ key: 'x' }], locale: 'pt' });
    expect(own.body).toMatchObject({ locale: 'pt', documents: [{ key: 'x', expect: [] }] });
    // Another account's template is not found.
    const other = await account();
    expect((await create({ template: tpl.body.id }, { key: other.keys.test })).body.error).toMatchObject({ code: 'template_not_found', param: 'template' });
  });

  it('lists newest first without qr_svg, pages, and filters by status, reference and metadata', async () => {
    const acct = await account();
    const key = acct.keys.test;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await create({ documents: [{ key: 'a' }], reference: i % 2 === 0 ? 'even' : 'odd', metadata: { n: String(i) } }, { key });
      ids.push(r.body.id);
    }
    await app.request('DELETE', `/v1/verification-links/${ids[1]}`, { key });
    const all = await app.request('GET', '/v1/verification-links', { key });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false });
    expect(all.body.data.map((l: { id: string }) => l.id)).toEqual([...ids].reverse());
    for (const l of all.body.data) expect(l).not.toHaveProperty('qr_svg');
    const p1 = await app.request('GET', '/v1/verification-links?limit=2', { key });
    expect(p1.body.data.map((l: { id: string }) => l.id)).toEqual([ids[4], ids[3]]);
    expect(p1.body.has_more).toBe(true);
    const p2 = await app.request('GET', `/v1/verification-links?limit=2&starting_after=${ids[3]}`, { key });
    expect(p2.body.data.map((l: { id: string }) => l.id)).toEqual([ids[2], ids[1]]);
    expect((await app.request('GET', '/v1/verification-links?status=cancelled', { key })).body.data.map((l: { id: string }) => l.id)).toEqual([ids[1]]);
    expect((await app.request('GET', '/v1/verification-links?status=pending&reference=even', { key })).body.data.map((l: { id: string }) => l.id)).toEqual([ids[4], ids[2], ids[0]]);
    expect((await app.request('GET', '/v1/verification-links?metadata[n]=3', { key })).body.data.map((l: { id: string }) => l.id)).toEqual([ids[3]]);
    for (const bad of ['limit=0', 'limit=101', 'status=done']) {
      const r = await app.request('GET', `/v1/verification-links?${bad}`, { key });
      expect(r.status, bad).toBe(422);
      expect(r.body.error.code).toBe('invalid_parameter');
    }
    // Default page size 20.
    for (let i = 0; i < 17; i++) await create({ documents: [{ key: 'a' }] }, { key });
    const dflt = await app.request('GET', '/v1/verification-links', { key });
    expect(dflt.body.data).toHaveLength(20);
    expect(dflt.body.has_more).toBe(true);
  });

  it('tenancy: another account, the other mode and a publishable key see nothing', async () => {
    const acct = await account();
    const other = await account();
    const l = (await create({ documents: [{ key: 'a' }] }, { key: acct.keys.test })).body;
    for (const key of [other.keys.test, acct.keys.live]) {
      expect((await app.request('GET', `/v1/verification-links/${l.id}`, { key })).status).toBe(404);
      expect((await app.request('DELETE', `/v1/verification-links/${l.id}`, { key })).body.error.code).toBe('resource_missing');
      expect((await app.request('GET', '/v1/verification-links', { key })).body.data).toEqual([]);
    }
    expect((await app.request('GET', '/v1/verification-links/vl_nope', { key: acct.keys.test })).status).toBe(404);
    const pk = await app.request('POST', '/v1/verification-links', { key: acct.keys.test_publishable, json: { documents: [{ key: 'a' }] } });
    expect(pk.status).toBe(403);
    expect(pk.body.error.code).toBe('publishable_key_not_allowed');
    expect((await app.request('GET', '/v1/verification-links', { key: null })).status).toBe(401);
  });

  it('Idempotency-Key: the same request answers the same link once', async () => {
    const headers = { 'Idempotency-Key': `vl-${crypto.randomUUID()}` };
    const a = await create({ documents: [{ key: 'a' }] }, { headers });
    const b = await create({ documents: [{ key: 'a' }] }, { headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.id).toBe(a.body.id);
    const c = await create({ documents: [{ key: 'b' }] }, { headers });
    expect(c.status).toBe(422);
    expect(c.body.error.code).toBe('idempotency_key_reused');
  });

  it('stores the token only as a hash: no table holds it in clear while the link is active', async () => {
    // Everything that could keep a copy: an idempotent replay, the email, the page's consent and an upload.
    const l = (await create({ documents: [{ key: 'a' }, { key: 'b' }], notify_email: 'p@example.com', callback_url: rx.url('/ok/none') }, { headers: { 'Idempotency-Key': `tok-${crypto.randomUUID()}` } })).body;
    const token = tokenOfUrl(l.url);
    await openByToken(app.services, token);
    await acceptConsent(app.services, token, '10.9.8.7');
    expect((await upload(l.url, 'a', 'dni_valid.jpg')).result).toBe('accepted');
    expect(token).toHaveLength(43);
    const row = await app.services.db.selectFrom('verification_links').select('token_hash').where('id', '=', l.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(crypto.createHash('sha256').update(token).digest('hex'));
    const tables = await sql<{ table_name: string }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(app.services.db);
    expect(tables.rows.length).toBeGreaterThan(10);
    for (const { table_name } of tables.rows) {
      const hit = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table_name)} t where t::text like ${`%${token}%`}`.execute(app.services.db);
      expect(hit.rows[0].n, table_name).toBe(0);
    }
  });

  it('cancel: cancelled, then returned unchanged; a completed or expired link answers 409 link_not_active', async () => {
    const l = (await create({ documents: [{ key: 'a' }] })).body;
    const c1 = await app.request('DELETE', `/v1/verification-links/${l.id}`);
    expect(c1.status).toBe(200);
    expect(c1.body).toMatchObject({ id: l.id, status: 'cancelled', cancelled_at: clock.now().toISOString() });
    expect(c1.body).not.toHaveProperty('qr_svg');
    expect(c1.body.events.map((e: { type: string }) => e.type)).toEqual(['created', 'cancelled']);
    clock.advance(1000);
    const c2 = await app.request('DELETE', `/v1/verification-links/${l.id}`);
    expect(c2.status).toBe(200);
    expect(c2.body).toEqual(c1.body);
    // The page refuses it.
    await expect(upload(l.url, 'a', 'dni_valid.jpg')).rejects.toMatchObject({ reason: 'cancelled' });
    expect((await viewByToken(app.services, tokenOfUrl(l.url)))!.status).toBe('cancelled');

    const expired = (await create({ documents: [{ key: 'a' }], expires_in_hours: 1 })).body;
    clock.advance(HOUR);
    await sweepRetention(app.services);
    const e = await app.request('DELETE', `/v1/verification-links/${expired.id}`);
    expect(e.status).toBe(409);
    expect(e.body.error.code).toBe('link_not_active');

    const done = (await create({ documents: [{ key: 'a' }] })).body;
    await acceptConsent(app.services, tokenOfUrl(done.url), '203.0.113.9');
    expect((await upload(done.url, 'a', 'dni_valid.jpg')).result).toBe('accepted');
    const d = await app.request('DELETE', `/v1/verification-links/${done.id}`);
    expect(d.status).toBe(409);
    expect(d.body.error.code).toBe('link_not_active');
  });

  it('the page flow: open once, consent, a blurry photo asks for another, a good one counts, 5 bad attempts reject, completion with webhook, callback and results email', async () => {
    const acct = await account();
    const key = acct.keys.test;
    const ep = await app.request('POST', '/v1/webhook-endpoints', { key, json: { url: rx.url('/ok/hooks'), events: ['verification_link.completed', 'verification_link.expired'] } });
    expect(ep.status).toBe(201);
    const res = await create(
      {
        documents: [{ key: 'id', label: 'DNI', expect: 'es_dni' }, { key: 'second', expect: 'es_dni' }],
        metadata: { crm: '77' },
        callback_url: rx.url('/ok/callback'),
        results_email: 'ops@example.com',
        redirect_url: 'https://example.com/back?x=1',
        redirect_with_status: true,
      },
      { key },
    );
    expect(res.status).toBe(201);
    const l = res.body;
    const token = tokenOfUrl(l.url);

    // Unknown tokens.
    expect(await viewByToken(app.services, 'x'.repeat(43))).toBeNull();
    expect(await openByToken(app.services, 'nope')).toBeNull();
    await expect(acceptConsent(app.services, 'x'.repeat(43), '1.2.3.4')).rejects.toMatchObject({ reason: 'unknown' });

    // Opened: once.
    const v1 = (await openByToken(app.services, token))!;
    expect(v1).toMatchObject({ status: 'pending', locale: 'es', requester: 'Other account', consent_accepted: false, show_result: true, livemode: false });
    expect(v1.redirect_url).toBe(`https://example.com/back?x=1&link_id=${l.id}&status=pending`);
    expect(v1.documents[0]).toMatchObject({ key: 'id', label: 'DNI', status: 'pending', attempts: 0, attempts_left: 5, outcome: null });
    expect(v1.documents[1].label).not.toBe('second'); // the catalogue label of es_dni
    await openByToken(app.services, token);
    // Uploading before consent is refused.
    await expect(upload(l.url, 'id', 'dni_valid.jpg')).rejects.toBeInstanceOf(ConsentRequired);

    // Consent: recorded with the ip and the text shown; pending -> in_progress.
    const v2 = await acceptConsent(app.services, token, '203.0.113.7');
    expect(v2).toMatchObject({ status: 'in_progress', consent_accepted: true });
    let got = (await app.request('GET', `/v1/verification-links/${l.id}`, { key })).body;
    expect(got.consent).toEqual({ accepted_at: clock.now().toISOString(), ip: '203.0.113.7', text: v2.consent_text });
    expect(got.events.map((e: { type: string }) => e.type)).toEqual(['created', 'opened', 'consent_accepted']);

    // A blurry photo: the verdict is not valid and its warnings ask for another photo.
    const blurry = await upload(l.url, 'id', 'blurry.jpg');
    expect(blurry.result).toBe('retry');
    expect(blurry.warnings).toEqual(expect.arrayContaining(['blurry']));
    expect(blurry.view.documents[0]).toMatchObject({ status: 'pending', attempts: 1, attempts_left: 4, outcome: null, verdict_status: null });
    // A good one counts.
    const good = await upload(l.url, 'id', 'dni_valid.jpg');
    expect(good.result).toBe('accepted');
    expect(good.view.documents[0]).toMatchObject({ status: 'completed', attempts: 2, outcome: 'accepted', verdict_status: 'valid', attempts_left: 0 });
    await expect(upload(l.url, 'id', 'dni_valid.jpg')).rejects.toMatchObject({ reason: 'closed' });
    await expect(upload(l.url, 'nope', 'dni_valid.jpg')).rejects.toMatchObject({ reason: 'unknown_key' });

    // The second document: four blurry attempts ask again, the fifth has none left.
    for (let i = 1; i <= 4; i++) expect((await upload(l.url, 'second', 'blurry.jpg')).result).toBe('retry');
    const last = await upload(l.url, 'second', 'blurry.jpg');
    expect(last.result).toBe('rejected');
    expect(last.view.status).toBe('completed');
    expect(last.view.redirect_url).toBe(`https://example.com/back?x=1&link_id=${l.id}&status=completed`);
    expect(last.view.documents[1]).toMatchObject({ status: 'failed', attempts: 5, outcome: 'rejected', attempts_left: 0 });

    got = (await app.request('GET', `/v1/verification-links/${l.id}`, { key })).body;
    expect(got).toMatchObject({ status: 'completed', completed_at: clock.now().toISOString() });
    expect(got.documents[0]).toMatchObject({ status: 'completed', attempts: 2, verdict_status: 'valid', final_status: null, warnings: [] });
    expect(got.documents[1]).toMatchObject({ status: 'failed', attempts: 5, verdict_status: 'review', warnings: expect.arrayContaining(['blurry']) });
    expect(got.documents[0].analysis_id).toMatch(/^an_/);
    const types = got.events.map((e: { type: string; document_key?: string }) => (e.document_key ? `${e.type}:${e.document_key}` : e.type));
    expect(types).toEqual([
      'created', 'opened', 'consent_accepted',
      'document_uploaded:id', 'document_uploaded:id', 'document_accepted:id',
      ...Array(5).fill('document_uploaded:second'), 'document_rejected:second',
      'completed',
    ]);
    expect(got.results_email_sent_at).toBeNull();
    // The results email is a job committed with the completion (it queues the email; the sender sends it).
    expect(await runOneLinkEmailJob(app.services)).toBe(true);
    while (await runOneLinkEmailJob(app.services));
    expect((await app.request('GET', `/v1/verification-links/${l.id}`, { key })).body.results_email_sent_at).toBeNull();
    await runDueEmails(app.services);
    got = (await app.request('GET', `/v1/verification-links/${l.id}`, { key })).body;
    expect(got.events.at(-1)).toMatchObject({ type: 'results_sent', email: 'ops@example.com' });
    expect(got.results_email_sent_at).toBe(clock.now().toISOString());
    // The analyses carry the link's metadata; the dossier holds the counted attempts.
    const an = await app.request('GET', `/v1/analyses/${got.documents[0].analysis_id}`, { key });
    expect(an.body.metadata).toEqual({ crm: '77' });
    const dos = (await app.request('GET', `/v1/dossiers/${l.dossier_id}`, { key })).body;
    expect(dos.documents.map((d: { key: string; analysis_id: string }) => [d.key, d.analysis_id])).toEqual([
      ['id', got.documents[0].analysis_id],
      ['second', got.documents[1].analysis_id],
    ]);
    // After completion the page refuses uploads and consent.
    await expect(upload(l.url, 'second', 'dni_valid.jpg')).rejects.toBeInstanceOf(LinkUnavailable);
    await expect(acceptConsent(app.services, token, '1.1.1.1')).rejects.toMatchObject({ reason: 'completed' });

    // The results email: labels and outcomes, no document data.
    const dir = outboxDir(app.services.config.dataDir);
    const mail = (await listOutbox(dir, 100)).emails.find((m) => m.to === 'ops@example.com');
    expect(mail).toBeDefined();
    const text = (await readOutbox(dir, mail!.id))!.text;
    expect(text).toContain('DNI');
    expect(text).not.toContain(an.body.fields.document_number.value);

    // The webhook and the callback: the same body, once each, signed.
    await drain();
    const hook = rx.to('/ok/hooks');
    const cb = rx.to('/ok/callback');
    expect(hook).toHaveLength(1);
    expect(cb).toHaveLength(1);
    expect(cb[0].body).toBe(hook[0].body);
    expect(cb[0].headers['webhook-id']).not.toBe(hook[0].headers['webhook-id']);
    const cbSecret = await callbackSecretOf(app.services.db, acct.account, false);
    expect(cbSecret).toMatch(/^whsec_/);
    const body = verifySigned(cb[0], cbSecret) as Record<string, any>;
    verifySigned(hook[0], ep.body.secret);
    expect(() => verifySigned(cb[0], ep.body.secret)).toThrow();
    expect(body.type).toBe('verification_link.completed');
    expect(body.data).not.toHaveProperty('qr_svg');
    expect(body.data).toMatchObject({ id: l.id, status: 'completed', url: l.url });
    expect(body.data.results.map((r: { document_key: string; label: string | null }) => [r.document_key, r.label])).toEqual([
      ['id', 'DNI'],
      ['second', null],
    ]);
    expect(body.data.results[0].analysis).toMatchObject({ id: got.documents[0].analysis_id, object: 'analysis' });
    expect(body.data.results[0].analysis).not.toHaveProperty('file_url');
    expect(body.data.dossier).toMatchObject({ id: l.dossier_id, verdict: { status: expect.stringMatching(/^(complete_valid|incomplete|invalid|review)$/) } });
    expect(body.data.dossier.verdict.reasons.every((r: { message: string }) => typeof r.message === 'string')).toBe(true);
    // Nothing more, ever: the transition happened once.
    clock.advance(100 * HOUR);
    await sweepRetention(app.services);
    await drain();
    expect(rx.to('/ok/hooks')).toHaveLength(1);
    expect(rx.to('/ok/callback')).toHaveLength(1);
  });

  it('a wrong-type or expired document without quality warnings counts at once (not redoable)', async () => {
    const l = (await create({ documents: [{ key: 'id', expect: 'es_dni' }], show_result: false })).body;
    await acceptConsent(app.services, tokenOfUrl(l.url), '10.0.0.1');
    const out = await upload(l.url, 'id', 'dni_expired.jpg');
    expect(out.result).toBe('accepted');
    expect(out.view.status).toBe('completed');
    // show_result false: the page does not show the verdict.
    expect(out.view.documents[0]).toMatchObject({ outcome: 'accepted', verdict_status: null });
    const got = (await app.request('GET', `/v1/verification-links/${l.id}`)).body;
    expect(got.documents[0]).toMatchObject({ verdict_status: 'invalid', status: 'completed' });
  });

  it('expires by the durable sweep with a moved clock: event, webhook and callback once; include_results false has no results', async () => {
    const acct = await account();
    const key = acct.keys.test;
    await app.request('POST', '/v1/webhook-endpoints', { key, json: { url: rx.url('/ok/exp-hooks'), events: ['*'] } });
    const l = (await create({ documents: [{ key: 'a' }], expires_in_hours: 2, include_results: false, callback_url: rx.url('/ok/exp-cb') }, { key })).body;
    await acceptConsent(app.services, tokenOfUrl(l.url), '10.0.0.2');
    clock.advance(HOUR);
    await sweepRetention(app.services);
    expect((await app.request('GET', `/v1/verification-links/${l.id}`, { key })).body.status).toBe('in_progress');
    clock.advance(HOUR);
    // Past its time, before the sweep: the page already says expired (and refuses).
    expect((await viewByToken(app.services, tokenOfUrl(l.url)))!.status).toBe('expired');
    await sweepRetention(app.services);
    await sweepRetention(app.services);
    const got = (await app.request('GET', `/v1/verification-links/${l.id}`, { key })).body;
    expect(got.status).toBe('expired');
    expect(got.events.map((e: { type: string }) => e.type)).toEqual(['created', 'consent_accepted', 'expired']);
    await expect(upload(l.url, 'a', 'dni_valid.jpg')).rejects.toMatchObject({ reason: 'expired' });
    await drain();
    const hook = rx.to('/ok/exp-hooks');
    expect(hook).toHaveLength(1);
    expect(rx.to('/ok/exp-cb')).toHaveLength(1);
    const body = JSON.parse(hook[0].body);
    expect(body.type).toBe('verification_link.expired');
    expect(body.data).not.toHaveProperty('results');
    expect(body.data.dossier).toMatchObject({ id: l.dossier_id, verdict: { status: 'incomplete' } });
    verifySigned(rx.to('/ok/exp-cb')[0], await callbackSecretOf(app.services.db, acct.account, false));
  });

  it('past its time before the sweep: GET, list and DELETE see it expired (the transition made once, as the sweep makes it)', async () => {
    const acct = await account();
    const key = acct.keys.test;
    await app.request('POST', '/v1/webhook-endpoints', { key, json: { url: rx.url('/ok/lazy-exp'), events: ['verification_link.expired'] } });
    const a = (await create({ documents: [{ key: 'a' }], expires_in_hours: 1 }, { key })).body;
    const b = (await create({ documents: [{ key: 'a' }], expires_in_hours: 1 }, { key })).body;
    const c = (await create({ documents: [{ key: 'a' }], expires_in_hours: 1 }, { key })).body;
    const fresh = (await create({ documents: [{ key: 'a' }], expires_in_hours: 3 }, { key })).body;
    clock.advance(HOUR);
    // No sweep has run.
    const got = await app.request('GET', `/v1/verification-links/${a.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.status).toBe('expired');
    expect(got.body.events.map((e: { type: string }) => e.type)).toEqual(['created', 'expired']);
    expect((await app.request('GET', `/v1/verification-links/${a.id}`, { key })).body).toEqual(got.body);
    const pending = await app.request('GET', '/v1/verification-links?status=pending&limit=100', { key });
    expect(pending.body.data.map((l: { id: string }) => l.id)).toEqual([fresh.id]);
    const expired = await app.request('GET', '/v1/verification-links?status=expired&limit=100', { key });
    expect(expired.body.data.map((l: { id: string }) => l.id)).toEqual([c.id, b.id, a.id]);
    const del = await app.request('DELETE', `/v1/verification-links/${fresh.id}`, { key });
    expect(del.status).toBe(200);
    const c2 = (await create({ documents: [{ key: 'a' }], expires_in_hours: 1 }, { key })).body;
    clock.advance(HOUR);
    const e = await app.request('DELETE', `/v1/verification-links/${c2.id}`, { key });
    expect(e.status).toBe(409);
    expect(e.body.error.code).toBe('link_not_active');
    expect((await app.request('GET', `/v1/verification-links/${c2.id}`, { key })).body.status).toBe('expired');
    // The sweep finds nothing left to do; one webhook a link.
    expect(await expireDueLinks(app.services)).toBe(0);
    await drain();
    const ids = rx.to('/ok/lazy-exp').map((r) => JSON.parse(r.body).data.id).sort();
    expect(ids).toEqual([a.id, b.id, c.id, c2.id].sort());
  });

  it('a failed callback is retried like a webhook delivery', async () => {
    const l = (await create({ documents: [{ key: 'a' }], expires_in_hours: 1, callback_url: rx.url('/fail/cb') })).body;
    clock.advance(HOUR);
    await sweepRetention(app.services);
    expect(await runDueDeliveries(app.services, { sender: { ca: rx.ca } })).toBe(1);
    const d = await app.services.db.selectFrom('webhook_deliveries').selectAll().where('link_id', '=', l.id).executeTakeFirstOrThrow();
    expect(d).toMatchObject({ status: 'pending', attempts: 1, endpoint_id: null, callback_url: rx.url('/fail/cb'), last_status_code: 500 });
    expect(await runDueDeliveries(app.services, { sender: { ca: rx.ca } })).toBe(0);
    clock.advance(5_000);
    expect(await runDueDeliveries(app.services, { sender: { ca: rx.ca } })).toBe(1);
    expect(rx.to('/fail/cb')).toHaveLength(2);
    expect(rx.to('/fail/cb')[0].headers['webhook-id']).toBe(rx.to('/fail/cb')[1].headers['webhook-id']);
    await app.services.db.updateTable('webhook_deliveries').set({ status: 'failed', next_attempt_at: null }).where('id', '=', d.id).execute();
  });

  it('an upload that outlives its request (202) is judged when its analysis finishes in the worker', async () => {
    const l = (await create({ documents: [{ key: 'id', expect: 'es_dni' }] })).body;
    await acceptConsent(app.services, tokenOfUrl(l.url), '10.0.0.3');
    const out = await upload(l.url, 'id', 'dni_slow.jpg');
    expect(out.result).toBe('processing');
    expect(out.view.documents[0]).toMatchObject({ status: 'processing', attempts: 1, outcome: null });
    // No second upload while one runs.
    await expect(upload(l.url, 'id', 'dni_valid.jpg')).rejects.toMatchObject({ reason: 'closed' });
    clock.advance(60_000);
    while (await runOneAnalysisJob(app.services));
    const got = (await app.request('GET', `/v1/verification-links/${l.id}`)).body;
    expect(got.status).toBe('completed');
    expect(got.documents[0]).toMatchObject({ status: 'completed', attempts: 1, verdict_status: 'valid' });
    expect(got.events.map((e: { type: string }) => e.type)).toEqual(['created', 'consent_accepted', 'document_uploaded', 'document_accepted', 'completed']);
  });

  it('a live link reads in live mode and charges credits; intake refusals are not attempts', async () => {
    const acct = await account();
    await addCredits(app.services.db, app.clock, acct.account, 20);
    const before = app.services.providers.live;
    app.services.providers.live = standInLiveProvider;
    try {
      const res = await create({ documents: [{ key: 'id', expect: 'es_dni' }] }, { key: acct.keys.live });
      expect(res.status).toBe(201);
      expect(res.body.livemode).toBe(true);
      const l = res.body;
      await acceptConsent(app.services, tokenOfUrl(l.url), '10.0.0.4');
      // Not an image nor a PDF: refused by intake as analyze refuses it, and no attempt is spent.
      await expect(uploadByToken(app.services, tokenOfUrl(l.url), 'id', { bytes: new TextEncoder().encode('hello'), filename: 'x.txt' })).rejects.toMatchObject({ status: 415 });
      expect((await viewByToken(app.services, tokenOfUrl(l.url)))!.documents[0].attempts).toBe(0);
      const out = await upload(l.url, 'id', 'dni_valid.jpg');
      expect(out.result).toBe('accepted');
      const got = (await app.request('GET', `/v1/verification-links/${l.id}`, { key: acct.keys.live })).body;
      const an = (await app.request('GET', `/v1/analyses/${got.documents[0].analysis_id}`, { key: acct.keys.live })).body;
      expect(an.livemode).toBe(true);
      expect(an.usage.credits).toBeGreaterThan(0);
      expect(an.processing.providers.map((p: { name: string }) => p.name)).toContain('stand-in-eu-vlm');
    } finally {
      app.services.providers.live = before;
    }
  });

  it('consent is recorded once; the account\'s consent text and show_result are the defaults', async () => {
    const acct = await account();
    await app.services.db.updateTable('accounts').set({ link_consent_text: 'Texto de la cuenta.', link_show_result: false }).where('id', '=', acct.account).execute();
    const l = (await create({ documents: [{ key: 'a' }] }, { key: acct.keys.test })).body;
    expect(l).toMatchObject({ consent_text: 'Texto de la cuenta.', show_result: false });
    const own = (await create({ documents: [{ key: 'a' }], consent_text: 'Mío.', show_result: true }, { key: acct.keys.test })).body;
    expect(own).toMatchObject({ consent_text: 'Mío.', show_result: true });
    const token = tokenOfUrl(l.url);
    expect((await viewByToken(app.services, token))!.consent_text).toBe('Texto de la cuenta.');
    await acceptConsent(app.services, token, '198.51.100.1');
    clock.advance(1000);
    await acceptConsent(app.services, token, '198.51.100.2');
    const got = (await app.request('GET', `/v1/verification-links/${l.id}`, { key: acct.keys.test })).body;
    expect(got.consent).toMatchObject({ ip: '198.51.100.1', text: 'Texto de la cuenta.' });
    expect(got.events.filter((e: { type: string }) => e.type === 'consent_accepted')).toHaveLength(1);
  });
});

describe('the operator CLI for links', { timeout: 300_000 }, () => {
  const ROOT = path.resolve(import.meta.dirname, '../..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-links-cli-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, ['server/src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: '', COTEJO_DATA_DIR: dir }, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('accounts update --face-verification true|false, and accounts callback-secret (made once, per mode)', async () => {
    const created = cli(['accounts', 'create', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout).account as string;
    const on = cli(['accounts', 'update', '--account', account, '--face-verification', 'true', '--json']);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ account, updated: ['face_verification_enabled'] });
    const bad = cli(['accounts', 'update', '--account', account, '--face-verification', 'yes']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--face-verification');
    const t1 = JSON.parse(cli(['accounts', 'callback-secret', '--account', account, '--json']).stdout);
    const t2 = JSON.parse(cli(['accounts', 'callback-secret', '--account', account, '--json']).stdout);
    const live = JSON.parse(cli(['accounts', 'callback-secret', '--account', account, '--mode', 'live', '--json']).stdout);
    expect(t1).toMatchObject({ account, mode: 'test', secret: expect.stringMatching(/^whsec_/) });
    expect(t2.secret).toBe(t1.secret);
    expect(live.secret).not.toBe(t1.secret);
    const database = await openDatabase({ dataDir: dir });
    try {
      await migrateToLatest(database.db, database.schema);
      expect(await findAccount(database.db, account)).toMatchObject({ face_verification_enabled: true, callback_secret_test: t1.secret, callback_secret_live: live.secret });
    } finally {
      await database.close();
    }
    expect(cli(['accounts', 'update', '--account', account, '--face-verification', 'false']).code).toBe(0);
  });

  it('accounts update --link-consent-text and --link-show-result set the defaults new links take', async () => {
    const account = JSON.parse(cli(['accounts', 'create', '--json']).stdout).account as string;
    const set = cli(['accounts', 'update', '--account', account, '--link-consent-text', 'Acepto que Inmobiliaria Sol trate mis documentos.', '--link-show-result', 'false', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).updated).toEqual(['link_consent_text', 'link_show_result']);
    expect(cli(['accounts', 'update', '--account', account, '--link-show-result', 'maybe']).code).toBe(1);
    expect(cli(['accounts', 'update', '--account', account, '--link-consent-text', 'x'.repeat(2001)]).code).toBe(1);
    const database = await openDatabase({ dataDir: dir });
    try {
      await migrateToLatest(database.db, database.schema);
      expect(await findAccount(database.db, account)).toMatchObject({ link_consent_text: 'Acepto que Inmobiliaria Sol trate mis documentos.', link_show_result: false });
    } finally {
      await database.close();
    }
    expect(cli(['accounts', 'update', '--account', account, '--link-consent-text', 'none']).code).toBe(0);
  });
});
