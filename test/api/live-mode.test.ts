/**
 * Live mode with the local readers, through HTTP, on real specimen documents: a `ck_live_` key reads an ICAO passport
 * photo, a text-layer invoice PDF and an embedded Factur-X invoice; classify and a batch go the same way; credits are
 * held and charged once as docs/billing.md says; a reading slower than the synchronous wait answers 202 and finishes
 * in the same process, once; and with every reader switched off live keys get 503.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../server/src/db/accounts.ts';
import type { CreatedAccount } from '../../server/src/domain/accounts.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import type { Provider } from '../../server/src/providers/types.ts';
import { newLiveAccount } from '../support/live-account.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';

const DOCS = path.resolve(import.meta.dirname, '../../../shared/testdata/documents');
const file = (rel: string) => fs.readFileSync(path.join(DOCS, rel));
const PASSPORT = 'id-images/PassportEye/tests-data/passport-td3.jpg';
const INVOICE = 'invoices/invoice2data/AmazonWebServices.pdf';
const FACTURX = 'invoices/mustang-zugferd/Facture_F20180027.pdf';

describe.each(DATABASES)('live mode with the local readers on %s', (kind) => {
  let app: TestApp;
  let acc: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp(kind);
    acc = await newLiveAccount(app, 20);
  }, 60_000);
  afterAll(() => app?.close());

  const analyze = (rel: string, options: Record<string, unknown> = {}, route = '/v1/analyze') =>
    app.request('POST', route, { key: acc.keys.live, body: form({ bytes: file(rel), name: path.basename(rel) }, [['options', JSON.stringify(options)]]) });
  const balance = async () => (await app.request('GET', '/v1/balance', { key: acc.keys.live })).body;

  it('reads a passport photo: the MRZ, its fields and checks, a verdict, one charge, local providers only', async () => {
    const before = await balance();
    const res = await analyze(PASSPORT, { expect: 'passport', checks: { reference_date: '2010-01-01' } });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const a = res.body;
    expect(a).toMatchObject({ status: 'completed', livemode: true, document: { type: 'passport', side: null, country: null } });
    expect(a.document.confidence).toBeGreaterThanOrEqual(0.9); // a universal type (Utopia has none of its own)
    expect(a.fields.document_number).toMatchObject({ value: 'L898902C3', validated: true });
    expect(a.fields.last_name.value).toBe('ERIKSSON');
    expect(a.fields.first_name.value).toBe('ANNA MARIA');
    expect(a.fields.birth_date.value).toBe('1974-08-12');
    expect(a.fields.expiry_date.value).toBe('2012-04-15');
    expect(a.fields.mrz.value).toBe('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10');
    const box = a.fields.mrz.source.bbox;
    expect(box[1]).toBeGreaterThan(0.5); // the zone is at the bottom of the data page
    // Nothing read from the visual zone: the fields a local reader cannot see are null, never invented.
    expect(a.fields.birth_place).toEqual({ value: null, confidence: 0, validated: null, source: null });
    expect(a.checks).toContainEqual(expect.objectContaining({ code: 'mrz_checksums', passed: true }));
    expect(a.checks.map((c: { code: string }) => c.code)).not.toContain('mrz_matches_visual');
    expect(a.verdict).toMatchObject({ match: true, status: 'valid' });
    expect(a.processing.providers.length).toBeGreaterThan(0);
    for (const p of a.processing.providers) expect(p).toMatchObject({ region: 'local', role: 'local' });
    expect(a.processing.providers.map((p: { name: string }) => p.name)).toContain('local-mrz');
    expect(a.usage).toEqual({ credits: 1, pages: 1 });
    const after = await balance();
    expect(after.credits_spendable).toBeCloseTo(before.credits_spendable - 1, 5);
    expect(after.credits_reserved).toBe(0);
  });

  it('classify: the same photo is a passport for 0.2 credits', async () => {
    const res = await analyze(PASSPORT, { expect: ['passport', 'es_dni'] }, '/v1/classify');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'classification', status: 'completed', document: { type: 'passport' }, verdict: { match: true, status: 'valid' }, usage: { credits: 0.2 } });
    expect(res.body.candidates[0].type).toBe('passport');
  });

  it('reads a text-layer invoice PDF: an invoice, with its total and date exact', async () => {
    const res = await analyze(INVOICE, { expect: ['invoice', 'es_invoice'] });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const a = res.body;
    expect(a.status).toBe('completed');
    expect(['invoice', 'es_invoice']).toContain(a.document.type);
    expect(a.fields.total_amount.value).toBe(4.11);
    expect(a.fields.issue_date.value).toBe('2014-08-03');
    expect(a.fields.total_amount.source.page).toBe(1);
    expect(a.fields.total_amount.source.bbox).toHaveLength(4);
    expect(a.processing.providers.map((p: { name: string }) => p.name)).toContain('local-pdf-text');
  });

  it('reads an embedded Factur-X invoice exactly', async () => {
    const res = await analyze(FACTURX, { expect: 'invoice' });
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a.document.type).toMatch(/invoice/);
    expect(a.fields.invoice_number.value).toBe('F20180027');
    expect(a.fields.issue_date.value).toBe('2018-12-31');
    expect(a.fields.total_amount.value).toBe(110);
    expect(a.processing.providers.map((p: { name: string }) => p.name)).toContain('local-invoice-xml');
  });

  it('what no reader can read gets an honest answer: no type it cannot support, review, nothing invented', async () => {
    const sharp = (await import('sharp')).default;
    const blank = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#f4f4f0' } }).jpeg().toBuffer();
    const res = await app.request('POST', '/v1/analyze', { key: acc.keys.live, body: form({ bytes: blank, name: 'scan.jpg' }, [['options', JSON.stringify({ expect: 'es_dni' })]]) });
    expect(res.status).toBe(200);
    const a = res.body;
    expect(a.status).toBe('completed');
    if (a.document) expect(a.document.confidence).toBeLessThan(0.5);
    expect(a.verdict.status).toBe('review');
    expect(a.verdict.reasons[0].code).toBe('type_unknown');
    for (const f of Object.values(a.fields) as Array<{ value: unknown }>) expect(f.value).toBeNull();
  });

  it('a batch of real documents: each read, batch.completed, one charge each', async () => {
    const fd = new FormData();
    for (const rel of [PASSPORT, INVOICE]) fd.append('files[]', new Blob([file(rel)]), path.basename(rel));
    const before = await balance();
    const res = await app.request('POST', '/v1/batches', { key: acc.keys.live, body: fd });
    expect(res.status).toBe(202);
    while (await runOneAnalysisJob(app.services));
    const b = (await app.request('GET', `/v1/batches/${res.body.id}`, { key: acc.keys.live })).body;
    expect(b).toMatchObject({ status: 'completed', total: 2 });
    const types = [];
    for (const id of b.analyses) {
      const a = (await app.request('GET', `/v1/analyses/${id}`, { key: acc.keys.live })).body;
      expect(a.status).toBe('completed');
      types.push(a.document.type);
    }
    expect(types[0]).toBe('passport');
    expect(types[1]).toMatch(/invoice/);
    const events = await app.services.db.selectFrom('events').select('type').where('account_id', '=', acc.account).where('type', '=', 'batch.completed').execute();
    expect(events.length).toBe(1);
    expect((await balance()).credits_spendable).toBeCloseTo(before.credits_spendable - 2, 5);
  });
});

describe.each(DATABASES)('the synchronous wait on %s', (kind) => {
  let app: TestApp;
  let acc: CreatedAccount;
  let reads = 0;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const local = app.services.providers.live!;
    // The real local readers behind a slow start: the reading outlasts the (shortened) synchronous wait.
    const slow: Provider = {
      name: 'slow-local',
      read: async (input) => {
        reads++;
        await new Promise((r) => setTimeout(r, 1500));
        return local.read(input);
      },
    };
    app.services.providers.live = slow;
    app.services.syncWaitMs = 300;
    acc = await app.newAccount({ rateLimitPerSecond: 100_000 });
    await updateAccount(app.services.db, acc.account, { email: 'ops@example.com', email_verified: true });
  }, 60_000);
  afterAll(() => app?.close());

  it('answers 202 when the wait runs out; the same reading finishes in the process, once, charged once', async () => {
    const res = await app.request('POST', '/v1/analyze', { key: acc.keys.live, body: form({ bytes: file(PASSPORT), name: 'passport.jpg' }) });
    expect(res.status).toBe(202);
    expect(['queued', 'processing']).toContain(res.body.status);
    expect((await app.request('GET', '/v1/balance', { key: acc.keys.live })).body.credits_reserved).toBe(1);
    // No worker runs in this app: only the request's own work can finish it.
    await Promise.allSettled([...app.services.inflight]);
    const a = (await app.request('GET', `/v1/analyses/${res.body.id}`, { key: acc.keys.live })).body;
    expect(a).toMatchObject({ status: 'completed', document: { type: 'passport' }, usage: { credits: 1 } });
    expect(reads).toBe(1);
    // The job is done: no worker will read it again.
    expect(await runOneAnalysisJob(app.services)).toBe(false);
    const completed = await app.services.db.selectFrom('events').select('type').where('account_id', '=', acc.account).where('type', '=', 'analysis.completed').execute();
    expect(completed.length).toBe(1);
    const balance = (await app.request('GET', '/v1/balance', { key: acc.keys.live })).body;
    expect(balance).toMatchObject({ credits_reserved: 0, free_tier_remaining: 49 });
  });
});

describe.each(DATABASES)('live mode switched off on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind, { config: { liveReaders: new Set() } });
  });
  afterAll(() => app?.close());

  it('answers 503 live_mode_unavailable on analyze, classify and batches, and creates nothing', async () => {
    const key = app.account.keys.live;
    const bytes = file(PASSPORT);
    const cases = [
      app.request('POST', '/v1/analyze', { key, body: form({ bytes, name: 'p.jpg' }) }),
      app.request('POST', '/v1/classify', { key, body: form({ bytes, name: 'p.jpg' }) }),
      app.request('POST', '/v1/batches', { key, json: { items: [{ file_base64: bytes.toString('base64'), filename: 'p.jpg' }] } }),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'live_mode_unavailable' });
    }
    expect(await app.services.db.selectFrom('analyses').select('id').execute()).toEqual([]);
    // Test keys are untouched.
    expect((await app.request('POST', '/v1/analyze', { body: form({ bytes, name: 'passport.jpg' }) })).status).toBe(200);
  });
});
