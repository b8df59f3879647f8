/**
 * The app on an S3-compatible store (issue #18): originals and exports go to the bucket (never the data dir), are
 * served from it, and leave it on retention, on DELETE and with their analysis; a write the store refuses fails the
 * request cleanly (503 service_unavailable with Retry-After, #31); /readyz says 503 blob_store_unreachable while the
 * store is down; async work and batches are accepted meanwhile and finished once it is back. A real S3 server on loopback (s3rver).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOneAnalysisJob, sweepRetention } from '../../server/src/jobs/worker.ts';
import { SpoolingBlobStore } from '../../server/src/storage/spooling-blob-store.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import { startS3rver, type TestS3 } from '../support/s3rver.ts';

describe.each(DATABASES)('blob storage in S3 on %s', (kind) => {
  let s3: TestS3;
  let app: TestApp;
  const clock = new ManualClock('2026-06-01T09:00:00.000Z');
  // One bucket, a prefix per database: the two suites could share a server and never see each other's objects.
  const prefix = `suite-${kind}/`;
  beforeAll(async () => {
    s3 = await startS3rver();
    app = await startTestApp(kind, { clock, config: { s3: s3.config({ prefix }) } });
  });
  afterAll(async () => {
    await app?.close(); // destroys the store's S3 client too
    await s3?.close();
  });

  const analyze = (name: string, options: Record<string, unknown> = {}, bytes: Uint8Array = fixtures.jpeg()) =>
    app.request('POST', '/v1/analyze', { body: form({ bytes, name }, [['options', JSON.stringify(options)]]) });
  const path_ = (url: string) => new URL(url).pathname + new URL(url).search;
  /** The bucket's keys of one analysis, without the prefix. */
  const objectsOf = async (id: string) => (await s3.keys()).filter((k) => k.includes(`/${id}/`)).map((k) => k.slice(prefix.length));

  it('picks the S3 store from the configuration (spooling the originals of work that can wait through an outage)', () => {
    expect(app.services.blobs).toBeInstanceOf(SpoolingBlobStore);
  });

  it('stores the original in the bucket under the prefix, serves it from there, never in the data dir', async () => {
    const res = await analyze('dni_valid.jpg', { storage: 'persistent' });
    expect(res.status).toBe(200);
    expect(await objectsOf(res.body.id)).toEqual([`${app.account.account}/${res.body.id}/original`]);
    const file = await app.request('GET', `/v1/analyses/${res.body.id}/file`);
    expect(file.status).toBe(200);
    expect(Buffer.from(file.bytes).equals(fixtures.jpeg())).toBe(true);
    const signed = await app.request('GET', path_(res.body.file_url), { key: null });
    expect(Buffer.from(signed.bytes).equals(fixtures.jpeg())).toBe(true);
    expect(fs.existsSync(path.join(app.services.config.dataDir, 'files'))).toBe(false);
    // storage none (the default): the original leaves the bucket once the analysis is done.
    const none = await analyze('dni_valid.jpg');
    expect(none.body.storage.mode).toBe('none');
    expect(await objectsOf(none.body.id)).toEqual([]);
  });

  it('stores exports in the bucket and downloads them from it through their signed URLs', async () => {
    const res = await analyze('dni_valid.jpg', { expect: 'es_dni', export: ['csv', 'pdf'] });
    expect(res.status).toBe(200);
    const exports = (await objectsOf(res.body.id)).filter((k) => k.includes('/exports/'));
    expect(exports).toHaveLength(2);
    for (const k of exports) expect(k).toMatch(new RegExp(`^${app.account.account}/${res.body.id}/exports/exp_`));
    const csv = await app.request('GET', path_(res.body.exports.csv), { key: null });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    // The bytes served are the object in the bucket.
    const stored = await Promise.all(exports.map((k) => app.services.blobs.get(k)));
    expect(stored.some((b) => b !== null && Buffer.from(b).equals(Buffer.from(csv.bytes)))).toBe(true);
    const pdf = await app.request('GET', path_(res.body.exports.pdf), { key: null });
    expect(pdf.status).toBe(200);
    expect(Buffer.from(pdf.bytes.slice(0, 5)).toString()).toBe('%PDF-');
  });

  it('the retention sweep deletes a temporary original from the bucket when it is due, not before', async () => {
    const res = await analyze('dni_valid.jpg', { storage: 'temporary', ttl_hours: 1 });
    const key = `${app.account.account}/${res.body.id}/original`;
    expect(await objectsOf(res.body.id)).toEqual([key]);
    clock.advance(30 * 60_000);
    await sweepRetention(app.services);
    expect(await objectsOf(res.body.id)).toEqual([key]);
    clock.advance(30 * 60_000 + 1);
    expect(await sweepRetention(app.services)).toBeGreaterThanOrEqual(1);
    expect(await objectsOf(res.body.id)).toEqual([]);
    const after = await app.request('GET', `/v1/analyses/${res.body.id}/file`);
    expect(after.status).toBe(404);
    expect(after.body.error.code).toBe('file_not_stored');
  });

  it('DELETE /v1/analyses/{id} removes the original and every export from the bucket', async () => {
    const res = await analyze('dni_valid.jpg', { storage: 'persistent', export: ['json', 'pdf'] });
    expect(await objectsOf(res.body.id)).toHaveLength(3);
    const del = await app.request('DELETE', `/v1/analyses/${res.body.id}`);
    expect(del.body).toEqual({ id: res.body.id, object: 'analysis', deleted: true });
    expect(await objectsOf(res.body.id)).toEqual([]);
    expect((await app.request('GET', path_(res.body.exports.pdf), { key: null })).status).toBe(404);
  });

  it('/readyz checks the bucket: 200 naming it, 503 blob_store_unreachable while the server is down, 200 once back', async () => {
    const ready = await fetch(`${app.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: kind, blob_store: 's3' });
    await s3.stop();
    try {
      const down = await fetch(`${app.baseUrl}/readyz`);
      expect(down.status).toBe(503);
      expect(down.headers.get('cache-control')).toBe('no-store');
      expect(await down.json()).toEqual({ status: 'unavailable', reason: 'blob_store_unreachable' });
      // Liveness is not readiness: the process still answers.
      expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
      // A synchronous write the store cannot take answers 503 service_unavailable with Retry-After (#31, never a
      // 500), and leaves no half-made analysis and no charge.
      const before = await app.services.db.selectFrom('analyses').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      const failed = await analyze('dni_valid.jpg', { storage: 'persistent' });
      expect(failed.status).toBe(503);
      expect(failed.headers.get('retry-after')).toBe('5');
      expect(failed.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
      const after = await app.services.db.selectFrom('analyses').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
    } finally {
      await s3.restart();
    }
    const back = await fetch(`${app.baseUrl}/readyz`);
    expect(back.status).toBe(200);
  });

  it('an S3 outage (#31): async work and batch documents are accepted (202), kept in the database, finished and moved to the bucket once it is back; a sync one gets 503 and costs nothing', async () => {
    const balance = async () => (await app.request('GET', '/v1/balance')).body;
    await s3.stop();
    let asyncId: string;
    let batchId: string;
    try {
      const credits = await balance();
      const sync = await analyze('dni_valid.jpg', { storage: 'persistent', expect: 'es_dni' });
      expect(sync.status).toBe(503);
      expect(sync.headers.get('retry-after')).toBe('5');
      expect(await balance()).toEqual(credits);
      const accepted = await analyze('dni_valid.jpg', { storage: 'persistent', async: true, expect: 'es_dni', export: ['json'] });
      expect(accepted.status).toBe(202);
      asyncId = accepted.body.id;
      const items = new FormData();
      items.append('files[]', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'dni_valid.jpg');
      items.append('options', JSON.stringify({ storage: 'persistent' }));
      const batch = await app.request('POST', '/v1/batches', { body: items });
      expect(batch.status).toBe(202);
      batchId = batch.body.id;
      // The job reads its original from the database and reads the document, but its export cannot be written: the
      // job waits for the store, spending no attempt; the analysis is not failed (its exports follow once it is back).
      await runOneAnalysisJob(app.services);
      const waiting = await app.request('GET', `/v1/analyses/${asyncId}`);
      expect(waiting.body.status).not.toBe('failed');
      expect(waiting.body.exports?.json ?? null).toBeNull();
      const jobs = await app.services.db.selectFrom('jobs').select(['status', 'attempts']).where('payload', '@>', JSON.stringify({ analysis_id: asyncId }) as never).execute();
      expect(jobs).toEqual([{ status: 'pending', attempts: 0 }]);
      const spooled = (await app.services.db.selectFrom('blob_spool').select('key').execute()).map((r) => r.key);
      expect(spooled).toContain(`${app.account.account}/${asyncId}/original`);
      expect(spooled).toHaveLength(2);
    } finally {
      await s3.restart();
    }
    // Back: the jobs run (their wait is due once the clock moves) and the spooled originals go to the bucket.
    clock.advance(120_000);
    while (await runOneAnalysisJob(app.services));
    const done = await app.request('GET', `/v1/analyses/${asyncId}`);
    expect(done.body.status).toBe('completed');
    expect(done.body.exports.json).toBeTruthy();
    const file = await app.request('GET', `/v1/analyses/${asyncId}/file`);
    expect(Buffer.from(file.bytes).equals(fixtures.jpeg())).toBe(true);
    expect(await (app.services.blobs as SpoolingBlobStore).flushSpool()).toBe(2);
    expect(await app.services.db.selectFrom('blob_spool').select('key').execute()).toEqual([]);
    expect((await objectsOf(asyncId)).sort()).toEqual(expect.arrayContaining([`${app.account.account}/${asyncId}/original`]));
    const batch = await app.request('GET', `/v1/batches/${batchId}`);
    expect(batch.body.status).toBe('completed');
  });
});
