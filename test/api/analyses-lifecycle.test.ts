import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOneAnalysisJob, sweepRetention } from '../../server/src/jobs/worker.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

describe.each(DATABASES)('analysis lifecycle on %s', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-05-04T09:00:00.000Z');
  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
  });
  afterAll(() => app?.close());

  const analyze = (name: string, options: Record<string, unknown> = {}, bytes: Uint8Array = fixtures.jpeg()) =>
    app.request('POST', '/v1/analyze', { body: form({ bytes, name }, [['options', JSON.stringify(options)]]) });
  const drain = async () => {
    let n = 0;
    while (await runOneAnalysisJob(app.services)) n++;
    return n;
  };
  const path = (url: string) => new URL(url).pathname + new URL(url).search;

  it('async: 202 queued at once, completed by the worker, announced by analysis.completed', async () => {
    const res = await analyze('dni_valid.jpg', { async: true, expect: 'es_dni' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', completed_at: null, document: null, verdict: null, processing: null, fields: {} });
    const queued = await app.request('GET', `/v1/analyses/${res.body.id}`);
    expect(queued.body.status).toBe('queued');
    expect(await drain()).toBe(1);
    const done = await app.request('GET', `/v1/analyses/${res.body.id}`);
    expect(done.body).toMatchObject({ status: 'completed', verdict: { status: 'valid' } });
    const events = await app.services.db.selectFrom('events').selectAll().where('type', '=', 'analysis.completed').execute();
    expect(events.map((e) => (e.payload as any).data.id)).toContain(res.body.id);
  });

  it('_slow: the synchronous call answers 202 past the 30 s wait, and the work finishes later', async () => {
    const res = await analyze('dni_slow.jpg', { expect: 'es_dni' });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('processing');
    expect(await drain()).toBe(0); // its remaining simulated time has not passed
    clock.advance(20_000);
    expect(await drain()).toBe(1);
    const done = await app.request('GET', `/v1/analyses/${res.body.id}`);
    expect(done.body.status).toBe('completed');
  });

  it('allows 200 pages only asynchronously: too_many_pages beyond 30 in a synchronous call', async () => {
    const { PDFDocument } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    for (let i = 0; i < 31; i++) doc.addPage([200, 200]);
    const pdf = await doc.save();
    const sync = await analyze('long.pdf', {}, pdf);
    expect(sync.status).toBe(422);
    expect(sync.body.error.code).toBe('too_many_pages');
    const async = await analyze('long.pdf', { async: true }, pdf);
    expect(async.status).toBe(202);
    expect(async.body.file.pages).toBe(31);
    await drain();
  });

  it('lists newest first, filters before paging (status, type, metadata), and pages with starting_after', async () => {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const key = acct.keys.test;
    const made: string[] = [];
    for (const [name, meta] of [['dni_valid.jpg', { shop: 'a' }], ['passport.jpg', { shop: 'b' }], ['dni_valid.jpg', { shop: 'b' }], ['es_dni_failed.jpg', { shop: 'b' }]] as const) {
      clock.advance(1000);
      const r = await app.request('POST', '/v1/analyze', { key, body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify({ metadata: meta })]]) });
      made.push(r.body.id);
    }
    const all = await app.request('GET', '/v1/analyses', { key });
    expect(all.body).toMatchObject({ object: 'list', url: '/v1/analyses', has_more: false });
    expect(all.body.data.map((a: { id: string }) => a.id)).toEqual([...made].reverse());
    const dnis = await app.request('GET', '/v1/analyses?type=es_dni', { key });
    expect(dnis.body.data.map((a: { id: string }) => a.id)).toEqual([made[2], made[0]]);
    const shopB = await app.request('GET', '/v1/analyses?metadata[shop]=b&status=completed', { key });
    expect(shopB.body.data.map((a: { id: string }) => a.id)).toEqual([made[2], made[1]]);
    const p1 = await app.request('GET', '/v1/analyses?limit=2', { key });
    expect(p1.body.has_more).toBe(true);
    const p2 = await app.request('GET', `/v1/analyses?limit=2&starting_after=${p1.body.data[1].id}`, { key });
    expect([...p1.body.data, ...p2.body.data].map((a: { id: string }) => a.id)).toEqual([...made].reverse());
    expect(p2.body.has_more).toBe(false);
    const failed = await app.request('GET', '/v1/analyses?status=failed', { key });
    expect(failed.body.data.map((a: { id: string }) => a.id)).toEqual([made[3]]);
    // Live mode sees none of them; bad parameters are 422; a cursor is a position in the (time-ordered) ids.
    expect((await app.request('GET', '/v1/analyses', { key: acct.keys.live })).body.data).toEqual([]);
    for (const q of ['limit=0', 'limit=101', 'status=done']) expect((await app.request('GET', `/v1/analyses?${q}`, { key })).status).toBe(422);
    const older = await app.request('GET', '/v1/analyses?starting_after=an_01JC0000000000000000000000', { key });
    expect(older.body.data).toEqual([]);
    const afterDeleted = await app.request('GET', `/v1/analyses?starting_after=${made[2].slice(0, -1)}Z`, { key });
    expect(afterDeleted.body.data.map((a: { id: string }) => a.id)).toEqual([made[2], made[1], made[0]].filter((id) => id < `${made[2].slice(0, -1)}Z`));
  });

  it('deletes file, results and exports', async () => {
    const res = await analyze('dni_valid.jpg', { storage: 'persistent', export: ['pdf'] });
    const del = await app.request('DELETE', `/v1/analyses/${res.body.id}`);
    expect(del.body).toEqual({ id: res.body.id, object: 'analysis', deleted: true });
    expect((await app.request('GET', `/v1/analyses/${res.body.id}`)).status).toBe(404);
    expect((await app.request('DELETE', `/v1/analyses/${res.body.id}`)).status).toBe(404);
    expect((await app.request('GET', path(res.body.exports.pdf), { key: null })).status).toBe(404);
    expect((await app.request('GET', path(res.body.file_url), { key: null })).status).toBe(404);
  });

  it('storage none deletes the original at once: no file_url, GET /file is 404 file_not_stored', async () => {
    const res = await analyze('dni_valid.jpg');
    expect(res.body.storage).toMatchObject({ mode: 'none', expires_at: null });
    expect(res.body.storage.file_deleted_at).not.toBeNull();
    expect(res.body.file_url).toBeUndefined();
    const file = await app.request('GET', `/v1/analyses/${res.body.id}/file`);
    expect(file.status).toBe(404);
    expect(file.body.error).toMatchObject({ code: 'file_not_stored', param: 'id' });
  });

  it('temporary storage serves the original (by key and by signed URL) until the sweep deletes it on time', async () => {
    const res = await analyze('dni_valid.jpg', { storage: 'temporary', ttl_hours: 2 });
    expect(res.body.storage.expires_at).toBe(new Date(clock.now().getTime() + 2 * 3600_000).toISOString());
    const file = await app.request('GET', `/v1/analyses/${res.body.id}/file`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(file.headers.get('cache-control')).toBe('private, no-store');
    expect(file.headers.get('content-disposition')).toMatch(/^inline; filename="dni_valid.jpg"/);
    expect(Buffer.from(file.bytes).equals(fixtures.jpeg())).toBe(true);
    const signed = await app.request('GET', path(res.body.file_url), { key: null });
    expect(signed.status).toBe(200);
    expect(Buffer.from(signed.bytes).equals(fixtures.jpeg())).toBe(true);
    // A key sent anyway (as an SDK does on every call) is ignored: the token is the credential.
    expect((await app.request('GET', path(res.body.file_url))).status).toBe(200);
    expect((await app.request('GET', path(res.body.file_url), { key: 'ck_test_not_a_real_key' })).status).toBe(200);

    clock.advance(3600_000);
    expect(await sweepRetention(app.services)).toBe(0);
    clock.advance(3600_000 + 1);
    expect(await sweepRetention(app.services)).toBe(1);
    const after = await app.request('GET', `/v1/analyses/${res.body.id}`);
    expect(after.body.storage.file_deleted_at).toBe(clock.now().toISOString());
    expect(after.body.file_url).toBeUndefined();
    expect((await app.request('GET', `/v1/analyses/${res.body.id}/file`)).body.error.code).toBe('file_not_stored');
  });

  it('signed file URLs expire after 15 minutes and refuse any tampering', async () => {
    const res = await analyze('dni_valid.jpg', { storage: 'persistent' });
    expect(res.body.storage.expires_at).toBeNull();
    const url = path(res.body.file_url);
    const token = url.split('/').pop()!;
    const forged = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    expect((await app.request('GET', `/v1/files/${forged}`, { key: null })).status).toBe(404);
    clock.advance(15 * 60_000 + 1000);
    const late = await app.request('GET', url, { key: null });
    expect(late.status).toBe(404);
    expect(late.body.error.code).toBe('resource_missing');
    expect((await app.request('GET', `/v1/analyses/${res.body.id}/file`)).status).toBe(200); // the key still works
  });

  it('exports every format on demand, and through the export option as signed URLs valid 24 h', async () => {
    const res = await analyze('dni_valid.jpg', { expect: 'es_dni', export: ['json', 'csv', 'xlsx', 'xml', 'vcard', 'pdf'] });
    const types: Record<string, string> = {
      json: 'application/json', csv: 'text/csv', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      xml: 'application/xml', vcard: 'text/vcard', pdf: 'application/pdf',
    };
    for (const [format, type] of Object.entries(types)) {
      const r = await app.request('GET', `/v1/analyses/${res.body.id}/export?format=${format}`);
      expect(r.status, format).toBe(200);
      expect(r.headers.get('content-type')).toContain(type);
      expect(r.headers.get('content-disposition')).toContain(`attachment; filename="${res.body.id}.`);
      const viaUrl = await app.request('GET', path(res.body.exports[format]), { key: null });
      expect(viaUrl.status, format).toBe(200);
      expect(viaUrl.headers.get('content-type')).toContain(type);
    }
    const json = await app.request('GET', `/v1/analyses/${res.body.id}/export`);
    expect(JSON.parse(json.text).id).toBe(res.body.id);
    const xlsx = await app.request('GET', `/v1/analyses/${res.body.id}/export?format=xlsx`);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(xlsx.bytes) as never);
    expect(wb.worksheets.map((w) => w.name)).toContain('Fields');
    expect((await app.request('GET', `/v1/analyses/${res.body.id}/export?format=docx`)).status).toBe(422);
    clock.advance(24 * 3600_000 + 1000);
    expect((await app.request('GET', path(res.body.exports.pdf), { key: null })).status).toBe(404);
    const later = await app.request('GET', `/v1/analyses/${res.body.id}`);
    expect(later.body.exports).toEqual({});
  });

  it('409 analysis_not_completed when exporting an unfinished analysis', async () => {
    const res = await analyze('dni_valid.jpg', { async: true });
    const r = await app.request('GET', `/v1/analyses/${res.body.id}/export?format=csv`);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('analysis_not_completed');
    await drain();
  });
});

describe.each(DATABASES)('POST /v1/classify on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('classifies without extracting, with candidates and a type verdict, free in test mode', async () => {
    const res = await app.request('POST', '/v1/classify', { body: form({ bytes: fixtures.jpeg(), name: 'passport.jpg' }, [['expect', 'passport']]) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'classification', status: 'completed', usage: { credits: 0 }, document: { type: 'passport' } });
    expect(res.body).not.toHaveProperty('fields');
    expect(res.body.candidates[0].type).toBe('passport');
    expect(res.body.verdict).toMatchObject({ expected: ['passport'], match: true, status: 'valid' });
    const got = await app.request('GET', `/v1/classifications/${res.body.id}`);
    expect(got.body).toEqual(res.body);
    expect((await app.request('GET', `/v1/analyses/${res.body.id}`)).status).toBe(404);
    const async = await app.request('POST', '/v1/classify', { body: form({ bytes: fixtures.jpeg(), name: 'dni.jpg' }, [['options', '{"async":true}']]) });
    expect(async.status).toBe(202);
    expect(async.body).toMatchObject({ object: 'classification', status: 'queued' });
    while (await runOneAnalysisJob(app.services));
    expect((await app.request('GET', `/v1/classifications/${async.body.id}`)).body.status).toBe('completed');
  });

  it('never keeps the original: storage other than none is refused (no route could show or delete it)', async () => {
    for (const storage of ['temporary', 'persistent']) {
      const multipart = await app.request('POST', '/v1/classify', { body: form({ bytes: fixtures.jpeg(), name: 'passport.jpg' }, [['options', JSON.stringify({ storage })]]) });
      expect(multipart.status).toBe(422);
      expect(multipart.body.error).toMatchObject({ code: 'invalid_parameter', param: 'options.storage' });
      const json = await app.request('POST', '/v1/classify', { json: { file_base64: fixtures.jpeg().toString('base64'), filename: 'passport.jpg', storage } });
      expect(json.status).toBe(422);
      expect(json.body.error).toMatchObject({ code: 'invalid_parameter', param: 'storage' });
    }
    const none = await app.request('POST', '/v1/classify', { body: form({ bytes: fixtures.jpeg(), name: 'passport.jpg' }, [['options', '{"storage":"none"}']]) });
    expect(none.status).toBe(200);
    const row = await app.services.db.selectFrom('analyses').selectAll().where('id', '=', none.body.id).executeTakeFirstOrThrow();
    expect(row.file_key).toBeNull();
    const blobs = await app.services.db.selectFrom('analyses').select('file_key').where('kind', '=', 'classification').where('file_key', 'is not', null).execute();
    expect(blobs).toEqual([]);
  });
});
