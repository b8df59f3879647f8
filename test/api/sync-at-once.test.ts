/**
 * A synchronous test-mode analysis is read first and stored already finished, in one transaction with its event and
 * usage record (issue #13): no job, and no original written unless its storage keeps it. What cannot finish there
 * (exports to render, a simulated reading slower than the synchronous wait) takes the durable path with a job.
 * Either way the answer, the stored analysis, the event and the usage are the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

describe.each(DATABASES)('synchronous test-mode analyses stored at once on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(async () => {
    await app?.close();
  });

  const analyze = (name: string, options: Record<string, unknown>) =>
    app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify(options)]]) });
  const jobsOf = async (id: string) =>
    (await app.services.db.selectFrom('jobs').selectAll().where('queue', '=', 'analysis').execute())
      .filter((j) => (j.payload as { analysis_id?: string }).analysis_id === id)
      .map((j) => ({ status: j.status, attempts: j.attempts }));
  const eventsOf = (id: string) => app.services.db.selectFrom('events').select('type').where('subject_id', '=', id).execute();
  const usageOf = (id: string) => app.services.db.selectFrom('usage_records').selectAll().where('analysis_id', '=', id).execute();

  it('storage none: 200 completed, stored as answered, its event and usage recorded, no job, no original kept', async () => {
    const res = await analyze('dni_valid.jpg', { expect: 'es_dni' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', document: { type: 'es_dni' }, verdict: { status: 'valid' }, storage: { mode: 'none' } });
    expect(res.body.storage.file_deleted_at).toBe(res.body.completed_at);
    const got = await app.request('GET', `/v1/analyses/${res.body.id}`);
    expect(got.body).toEqual(res.body);
    expect(await jobsOf(res.body.id)).toEqual([]);
    expect((await eventsOf(res.body.id)).map((e) => e.type)).toEqual(['analysis.completed']);
    expect(await usageOf(res.body.id)).toHaveLength(1);
    const row = await app.services.db.selectFrom('analyses').select(['account_id', 'file_key', 'started_at', 'created_at']).where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(row.file_key).toBeNull();
    expect(await app.services.blobs.get(`${row.account_id}/${res.body.id}/original`)).toBeNull();
    expect(new Date(row.started_at!).getTime()).toBe(new Date(row.created_at).getTime());
    expect((await app.request('GET', `/v1/analyses/${res.body.id}/file`)).status).toBe(404);
  });

  it('storage temporary: the original is stored with the row and served back', async () => {
    const res = await analyze('dni_valid.jpg', { expect: 'es_dni', storage: 'temporary', ttl_hours: 2 });
    expect(res.status).toBe(200);
    expect(res.body.storage).toMatchObject({ mode: 'temporary', file_deleted_at: null });
    expect(res.body.storage.expires_at).not.toBeNull();
    expect(await jobsOf(res.body.id)).toEqual([]);
    const file = await app.request('GET', `/v1/analyses/${res.body.id}/file`);
    expect(file.status).toBe(200);
    expect(Buffer.from(file.bytes).equals(fixtures.jpeg())).toBe(true);
  });

  it('a failed simulated reading is stored failed at once, not charged, with analysis.failed', async () => {
    const res = await analyze('dni_failed.jpg', { expect: 'es_dni' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', usage: { credits: 0 } });
    expect(await jobsOf(res.body.id)).toEqual([]);
    expect((await eventsOf(res.body.id)).map((e) => e.type)).toEqual(['analysis.failed']);
  });

  it('a verdict of review enters review in the same insert, with analysis.review_required', async () => {
    const res = await analyze('dni_low_confidence.jpg', { expect: 'es_dni' });
    expect(res.status).toBe(200);
    expect(res.body.verdict.status).toBe('review');
    expect(res.body.review).toMatchObject({ status: 'pending' });
    expect((await eventsOf(res.body.id)).map((e) => e.type).sort()).toEqual(['analysis.completed', 'analysis.review_required']);
  });

  it('keep_results: false answers the analysis and keeps nothing readable', async () => {
    const res = await analyze('dni_valid.jpg', { expect: 'es_dni', keep_results: false });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    expect((await app.request('GET', `/v1/analyses/${res.body.id}`)).status).toBe(404);
  });

  it('exports to render take the durable path: a job, run once by the request, and the export ids in the answer', async () => {
    const res = await analyze('dni_valid.jpg', { expect: 'es_dni', export: ['json'] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.exports)).toEqual(['json']);
    expect(await jobsOf(res.body.id)).toEqual([{ status: 'done', attempts: 1 }]);
  });

  it('a simulated reading slower than the wait: 202 with a job, as before', async () => {
    const res = await analyze('dni_slow.jpg', { expect: 'es_dni' });
    expect(res.status).toBe(202);
    expect(['queued', 'processing']).toContain(res.body.status);
    expect(await jobsOf(res.body.id)).toHaveLength(1);
  });
});
