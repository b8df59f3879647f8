// Issue #16's SDK resources (analyses.review, reviews, templates, dossiers) against the real server in test mode,
// with the background worker on, on PGlite (and PostgreSQL when DATABASE_URL is set). Every response the SDK
// receives is also checked against the OpenAPI document (the `fetch` below), so a typed result is the shape the
// types promise. The route-level behaviour (every transition, error and rule) is the HTTP suites' job
// (test/api/*); here each SDK method is exercised end to end with the inputs it offers.
// The same methods against the Prism mock: test/sdk/resources-16.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';
import { startHttpsFiles, type HttpsFiles } from '../support/https-files.ts';
import { assertMatchesSpec } from '../support/spec.ts';
import {
  ConflictError,
  Cotejo,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  type Analysis,
  type Dossier,
} from '../../sdk/src/index.ts';

/** A fetch that checks each answer against the OpenAPI document before the SDK reads it. */
const specCheckedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = new URL(String(input));
  const text = await res.clone().text();
  const isJson = (res.headers.get('content-type') ?? '').includes('json') && text !== '';
  assertMatchesSpec(String(init?.method ?? 'GET'), url.pathname + url.search, { status: res.status, headers: res.headers, body: isJson ? JSON.parse(text) : text });
  return res;
};

const jpeg = () => fixtures.jpeg();

describe.each(DATABASES)('SDK reviews, templates and dossiers on %s', (kind) => {
  let app: TestApp;
  let files: HttpsFiles;
  let tmp: string;
  let cotejo: Cotejo;
  /** Same account, live mode; and another account (test mode): neither may see this account's test objects. */
  let live: Cotejo;
  let stranger: Cotejo;
  const client = (apiKey: string) => new Cotejo({ apiKey, baseURL: app.baseUrl, maxRetries: 0, fetch: specCheckedFetch });

  beforeAll(async () => {
    files = await startHttpsFiles((req, res) => {
      if (req.url === '/dni_valid.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg());
      else res.writeHead(404).end();
    });
    app = await startTestApp(kind, { worker: true, config: { allowPrivateUrls: true }, fileUrlCa: files.cert });
    cotejo = client(app.account.keys.test);
    live = client(app.account.keys.live);
    stranger = client((await app.newAccount({ rateLimitPerSecond: 100_000 })).keys.test);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-sdk-16-'));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await files?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** An analysis in test mode; `blurry.jpg` reads as a DNI whose verdict is `review`. */
  const analyze = (filename: string, extra: Parameters<Cotejo['analyses']['create']>[0] = {}) =>
    cotejo.analyses.create({ file: jpeg(), filename, expect: 'es_dni', ...extra });

  describe('templates', () => {
    it('create, retrieve, update (a field, then null back to the default), del', async () => {
      const tpl = await cotejo.templates.create({
        name: 'Alta de clientes',
        description: 'DNI en vigor de un titular mayor de edad.',
        expect: 'es_dni',
        checks: { not_expired: true, min_age_years: 18 },
        human_review: { on_invalid: true, auto_approve_valid: false },
        review_max_days: 7,
        metadata: { producto: 'cuenta-online' },
      });
      expect(tpl).toMatchObject({
        object: 'template',
        livemode: false,
        name: 'Alta de clientes',
        description: 'DNI en vigor de un titular mayor de edad.',
        expect: ['es_dni'],
        checks: { not_expired: true, min_age_years: 18 },
        human_review: { on_invalid: true, auto_approve_valid: false },
        review_max_days: 7,
        metadata: { producto: 'cuenta-online' },
      });
      expect(tpl.id).toMatch(/^tpl_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(await cotejo.templates.retrieve(tpl.id)).toEqual(tpl);

      const renamed = await cotejo.templates.update(tpl.id, { name: 'Alta 2' });
      expect(renamed).toMatchObject({ id: tpl.id, name: 'Alta 2', expect: ['es_dni'], review_max_days: 7, created_at: tpl.created_at });
      expect(Date.parse(renamed.updated_at)).toBeGreaterThanOrEqual(Date.parse(tpl.updated_at));
      const reset = await cotejo.templates.update(tpl.id, { review_max_days: null });
      expect(reset).toMatchObject({ name: 'Alta 2', review_max_days: null });
      expect(await cotejo.templates.retrieve(tpl.id)).toEqual(reset);

      await expect(cotejo.templates.del(tpl.id)).resolves.toEqual({ id: tpl.id, object: 'template', deleted: true });
      const err = await cotejo.templates.retrieve(tpl.id).catch((e) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.code).toBe('resource_missing');
    });

    it('list: a page when awaited, every template with for await; only this account and mode', async () => {
      const made = [];
      for (const name of ['A', 'B', 'C']) made.push((await cotejo.templates.create({ name: `Paginada ${name}` })).id);
      const page = await cotejo.templates.list({ limit: 2 });
      expect(page.object).toBe('list');
      expect(page.data).toHaveLength(2);
      expect(page.has_more).toBe(true);
      const seen: string[] = [];
      for await (const t of cotejo.templates.list({ limit: 2 })) seen.push(t.id);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(expect.arrayContaining(made));
      // Newest first.
      expect(seen.indexOf(made[2])).toBeLessThan(seen.indexOf(made[0]));

      for (const other of [live, stranger]) {
        expect((await other.templates.list({ limit: 100 })).data.map((t) => t.id)).not.toEqual(expect.arrayContaining([made[0]]));
        await expect(other.templates.retrieve(made[0])).rejects.toBeInstanceOf(NotFoundError);
        await expect(other.templates.del(made[0])).rejects.toBeInstanceOf(NotFoundError);
      }
    });

    it('create with the same idempotencyKey replays the template', async () => {
      const body = { name: 'Idempotente', expect: ['es_dni', 'passport'] };
      const a = await cotejo.templates.create(body, { idempotencyKey: `tpl-replay-${kind}` });
      const b = await cotejo.templates.create(body, { idempotencyKey: `tpl-replay-${kind}` });
      expect(b).toEqual(a);
    });

    it('an unknown template is 422 template_not_found where `template` is taken', async () => {
      for (const call of [
        () => analyze('dni_valid.jpg', { template: 'tpl_01JPB2M4N6P8Q0R2S4T6V8W0X2' }),
        () => cotejo.dossiers.create({ template: 'tpl_01JPB2M4N6P8Q0R2S4T6V8W0X2' }),
      ]) {
        const err = await call().catch((e) => e);
        expect(err).toBeInstanceOf(UnprocessableEntityError);
        expect(err.code).toBe('template_not_found');
      }
    });
  });

  describe('reviews', () => {
    it('analyses.review approves a pending review; the same decision again is 200, another is already_reviewed', async () => {
      const a = await analyze('blurry.jpg');
      expect(a.verdict).toMatchObject({ status: 'review', final_status: null });
      expect(a.review).toMatchObject({ status: 'pending', decision: null, reviewed_by: null, reviewed_at: null });
      expect((await cotejo.reviews.list({ limit: 100 })).data.map((x) => x.id)).toContain(a.id);

      const approved = await cotejo.analyses.review(a.id, { decision: 'approve', reason: 'Legible al ampliar', note: 'Revisado por el equipo KYC.' });
      expect(approved.id).toBe(a.id);
      expect(approved.verdict?.final_status).toBe('valid');
      expect(approved.review).toMatchObject({
        status: 'approved',
        decision: 'approve',
        reviewed_by: app.account.key_ids.test,
        reason: 'Legible al ampliar',
        note: 'Revisado por el equipo KYC.',
      });
      expect(approved.review?.reviewed_at).toEqual(expect.any(String));

      const again = await cotejo.analyses.review(a.id, { decision: 'approve' });
      expect(again.review).toMatchObject({ status: 'approved', reviewed_at: approved.review?.reviewed_at });
      const err = await cotejo.analyses.review(a.id, { decision: 'reject' }).catch((e) => e);
      expect(err).toBeInstanceOf(ConflictError);
      expect(err.code).toBe('already_reviewed');
      expect((await cotejo.analyses.retrieve(a.id)).review?.status).toBe('approved');

      const ids = async (status: 'pending' | 'approved' | 'decided' | 'all') =>
        (await cotejo.reviews.list({ status, limit: 100 })).data.map((x) => x.id);
      expect(await ids('pending')).not.toContain(a.id);
      expect(await ids('approved')).toContain(a.id);
      expect(await ids('decided')).toContain(a.id);
      expect(await ids('all')).toContain(a.id);
    });

    it('reject: final_status invalid, listed as rejected', async () => {
      const a = await analyze('blurry.jpg', { metadata: { caso: `rechazo-${kind}` } });
      const rejected = await cotejo.analyses.review(a.id, { decision: 'reject', reason: 'Foto ilegible' });
      expect(rejected.verdict?.final_status).toBe('invalid');
      expect(rejected.review).toMatchObject({ status: 'rejected', decision: 'reject', reason: 'Foto ilegible', note: null });
      const page = await cotejo.reviews.list({ status: 'rejected', metadata: { caso: `rechazo-${kind}` } });
      expect(page.data.map((x) => x.id)).toEqual([a.id]);
    });

    it('an analysis without a verdict is not reviewable (409)', async () => {
      const a = await cotejo.analyses.create({ file: jpeg(), filename: 'dni_valid.jpg' }); // no expect: no verdict
      const err = await cotejo.analyses.review(a.id, { decision: 'approve' }).catch((e) => e);
      expect(err).toBeInstanceOf(ConflictError);
      expect(err.code).toBe('not_reviewable');
    });

    it('the caller idempotencyKey reaches the server: a replay answers the same, another body under it is refused', async () => {
      const a = await analyze('blurry.jpg');
      const key = `review-${a.id}`;
      const first = await cotejo.analyses.review(a.id, { decision: 'approve', note: 'uno' }, { idempotencyKey: key });
      const replay = await cotejo.analyses.review(a.id, { decision: 'approve', note: 'uno' }, { idempotencyKey: key });
      expect(replay).toEqual(first);
      const err = await cotejo.analyses.review(a.id, { decision: 'reject' }, { idempotencyKey: key }).catch((e) => e);
      expect(err).toBeInstanceOf(UnprocessableEntityError);
      expect(err.code).toBe('idempotency_key_reused');
    });

    it('list: pending oldest first, paginated with for await, filtered by metadata, type and template', async () => {
      const tag = { lote: `cola-${kind}` };
      const queued: Analysis[] = [];
      for (let i = 0; i < 3; i++) queued.push(await analyze(`blurry_${i}.jpg`, { metadata: tag }));
      const page = await cotejo.reviews.list({ metadata: tag, limit: 2 });
      expect(page.data.map((x) => x.id)).toEqual([queued[0].id, queued[1].id]);
      expect(page.hasNextPage()).toBe(true);
      const seen: string[] = [];
      for await (const x of cotejo.reviews.list({ metadata: tag, limit: 2 })) seen.push(x.id);
      expect(seen).toEqual(queued.map((x) => x.id));
      expect((await cotejo.reviews.list({ metadata: tag, type: 'es_dni' })).data).toHaveLength(3);
      expect((await cotejo.reviews.list({ metadata: tag, type: 'passport' })).data).toHaveLength(0);

      // A template that does not auto-approve valid results sends a valid DNI to review.
      const tpl = await cotejo.templates.create({ name: 'Revisar todo', expect: 'es_dni', human_review: { auto_approve_valid: false } });
      const valid = await cotejo.analyses.create({ file: jpeg(), filename: 'dni_valid.jpg', template: tpl.id });
      expect(valid.verdict?.status).toBe('valid');
      expect(valid.review?.status).toBe('pending');
      expect((await cotejo.reviews.list({ template: tpl.id })).data.map((x) => x.id)).toEqual([valid.id]);
    });

    it('secret keys of this account and mode only', async () => {
      const a = await analyze('blurry.jpg');
      const publishable = client(app.account.keys.test_publishable);
      for (const call of [() => publishable.reviews.list(), () => publishable.analyses.review(a.id, { decision: 'approve' })]) {
        const err = await call().catch((e) => e);
        expect(err).toBeInstanceOf(PermissionDeniedError);
        expect(err.code).toBe('publishable_key_not_allowed');
      }
      for (const other of [live, stranger]) {
        expect((await other.reviews.list({ status: 'all', limit: 100 })).data.map((x) => x.id)).not.toContain(a.id);
        await expect(other.analyses.review(a.id, { decision: 'approve' })).rejects.toBeInstanceOf(NotFoundError);
      }
      expect((await cotejo.analyses.retrieve(a.id)).review?.status).toBe('pending');
    });
  });

  describe('dossiers', () => {
    /** A dossier that needs one Spanish DNI under the key `dni`. */
    const dniDossier = (extra: Parameters<Cotejo['dossiers']['create']>[0] = {}) =>
      cotejo.dossiers.create({ documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni' }], ...extra });

    const onlyDocument = (d: Dossier) => {
      expect(d.documents).toHaveLength(1);
      return d.documents[0];
    };

    it('create, addDocument with a Buffer (multipart), retrieve: incomplete, then complete_valid', async () => {
      const dos = await dniDossier({ reference: `EXP-${kind}-1`, metadata: { expediente: '1' } });
      expect(dos).toMatchObject({
        object: 'dossier',
        livemode: false,
        reference: `EXP-${kind}-1`,
        template: null,
        language: 'es',
        documents: [],
        metadata: { expediente: '1' },
      });
      expect(dos.id).toMatch(/^dos_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(dos.requirements).toEqual([expect.objectContaining({ key: 'dni', label: 'DNI', expect: ['es_dni'] })]);
      expect(dos.verdict.status).toBe('incomplete');

      const added = await cotejo.dossiers.addDocument(dos.id, { file: jpeg(), filename: 'dni_valid.jpg', key: 'dni' });
      expect(onlyDocument(added)).toMatchObject({ key: 'dni', type: 'es_dni', status: 'completed', verdict_status: 'valid' });
      expect(added.verdict.status).toBe('complete_valid');
      // updated_at may move after the answer (the verdict is recomputed when the member analysis's completion is
      // processed); the content may not.
      expect(await cotejo.dossiers.retrieve(dos.id)).toEqual({ ...added, updated_at: expect.any(String) });
      const analysis = await cotejo.analyses.retrieve(added.documents[0].analysis_id);
      expect(analysis.file.name).toBe('dni_valid.jpg');
    });

    it('addDocument by analysis_id (expect shorthand: the key defaults to the detected type)', async () => {
      const a = await analyze('dni_valid.jpg');
      const dos = await cotejo.dossiers.create({ expect: ['es_dni'] });
      expect(dos.requirements.map((r) => r.key)).toEqual(['es_dni']);
      const added = await cotejo.dossiers.addDocument(dos.id, { analysis_id: a.id });
      expect(onlyDocument(added)).toMatchObject({ key: 'es_dni', analysis_id: a.id, verdict_status: 'valid' });
      expect(added.verdict.status).toBe('complete_valid');
    });

    it('addDocument by { base64 } (JSON): an expired DNI makes the dossier invalid', async () => {
      const dos = await dniDossier();
      const added = await cotejo.dossiers.addDocument(dos.id, { file: { base64: jpeg().toString('base64') }, filename: 'dni_expired.jpg', key: 'dni' });
      expect(onlyDocument(added)).toMatchObject({ key: 'dni', verdict_status: 'invalid' });
      expect(added.verdict.status).toBe('invalid');
      expect(added.verdict.reasons.length).toBeGreaterThan(0);
    });

    it('addDocument by file_url (JSON), by path, Blob and stream (multipart)', async () => {
      const file = path.join(tmp, 'dni_valid.jpg');
      fs.writeFileSync(file, jpeg());
      const blob = new Blob([jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' });
      const inputs = [
        { file_url: `${files.base}/dni_valid.jpg`, key: 'dni' },
        { file, key: 'dni' },
        { file: blob, filename: 'dni_valid.jpg', key: 'dni' },
        { file: Readable.from([jpeg()]), filename: 'dni_valid.jpg', key: 'dni' },
      ];
      for (const input of inputs) {
        const dos = await dniDossier();
        const added = await cotejo.dossiers.addDocument(dos.id, input);
        expect(onlyDocument(added), JSON.stringify(Object.keys(input))).toMatchObject({ key: 'dni', type: 'es_dni', verdict_status: 'valid' });
        expect(added.verdict.status).toBe('complete_valid');
      }
    });

    it('addDocument with async: true, then poll until the document is analysed', async () => {
      const dos = await dniDossier();
      const added = await cotejo.dossiers.addDocument(dos.id, { file: jpeg(), filename: 'dni_valid.jpg', key: 'dni', async: true }, { idempotencyKey: `dos-async-${kind}` });
      expect(onlyDocument(added).key).toBe('dni');
      const done = await cotejo.dossiers.poll(dos.id, { pollIntervalMs: 50, maxWaitMs: 30_000 });
      expect(onlyDocument(done)).toMatchObject({ status: 'completed', verdict_status: 'valid' });
      expect(done.verdict.status).toBe('complete_valid');
    });

    it('a document in review counts by its human decision once reviewed', async () => {
      const dos = await dniDossier();
      const added = await cotejo.dossiers.addDocument(dos.id, { file: jpeg(), filename: 'blurry.jpg', key: 'dni' });
      expect(onlyDocument(added).verdict_status).toBe('review');
      expect(added.verdict.status).toBe('review');
      await cotejo.analyses.review(added.documents[0].analysis_id, { decision: 'approve' });
      const after = await cotejo.dossiers.retrieve(dos.id);
      expect(onlyDocument(after).verdict_status).toBe('valid');
      expect(after.verdict.status).toBe('complete_valid');
    });

    it('create with the same idempotencyKey replays the dossier', async () => {
      const body = { reference: `replay-${kind}`, expect: 'es_dni' };
      const first = await cotejo.dossiers.create(body, { idempotencyKey: `dos-replay-${kind}` });
      const second = await cotejo.dossiers.create(body, { idempotencyKey: `dos-replay-${kind}` });
      expect(second).toEqual(first);
      expect((await cotejo.dossiers.list({ reference: `replay-${kind}` })).data).toHaveLength(1);
    });

    it('list by reference, every dossier with for await, del; other account and mode see nothing', async () => {
      const reference = `LISTA-${kind}`;
      const a = await analyze('dni_valid.jpg');
      const made: string[] = [];
      for (let i = 0; i < 3; i++) made.push((await dniDossier({ reference })).id);
      const page = await cotejo.dossiers.list({ reference, limit: 2 });
      expect(page.data).toHaveLength(2);
      expect(page.has_more).toBe(true);
      const seen: string[] = [];
      for await (const d of cotejo.dossiers.list({ reference, limit: 2 })) seen.push(d.id);
      expect(seen).toEqual([...made].reverse()); // newest first

      for (const other of [live, stranger]) {
        expect((await other.dossiers.list({ reference })).data).toEqual([]);
        await expect(other.dossiers.retrieve(made[0])).rejects.toBeInstanceOf(NotFoundError);
        // By analysis_id, so that a live key meets no live-mode intake question (credits, provider) before the 404.
        await expect(other.dossiers.addDocument(made[0], { analysis_id: a.id })).rejects.toBeInstanceOf(NotFoundError);
        await expect(other.dossiers.del(made[0])).rejects.toBeInstanceOf(NotFoundError);
      }

      await expect(cotejo.dossiers.del(made[0])).resolves.toEqual({ id: made[0], object: 'dossier', deleted: true });
      await expect(cotejo.dossiers.retrieve(made[0])).rejects.toBeInstanceOf(NotFoundError);
      expect((await cotejo.dossiers.list({ reference })).data.map((d) => d.id)).toEqual([made[2], made[1]]);
    });
  });
});
