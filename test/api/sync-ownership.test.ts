/**
 * A synchronous analyze owns its job from the moment the job exists (issue #13): with workers polling as fast as they
 * can, every synchronous request whose reading finishes in time answers 200 with the completed analysis, never 202.
 * (Before, a worker could claim the freshly committed job before the request did: 1-3% of answers were 202 under load.)
 * The requests ask for an export: a plain test-mode analysis is stored finished with no job at all (sync-at-once.test.ts),
 * while one with exports to render takes the durable path with its job, which is what this watches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type Worker } from '../../server/src/jobs/worker.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

describe.each(DATABASES)('synchronous analyses under polling workers on %s', (kind) => {
  let app: TestApp;
  const workers: Worker[] = [];
  beforeAll(async () => {
    app = await startTestApp(kind, { logLevel: 'warn' });
    // Two eager workers, as two other processes would be.
    for (let i = 0; i < 2; i++) workers.push(startWorker(app.services, { pollMs: 1 }));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await app?.close();
  });

  it('60 synchronous analyses, 6 at a time: every one answers 200 completed, its job run once', async () => {
    const statuses: number[] = [];
    const ids: string[] = [];
    // An answer that is not 200 completed, with its job's state and last error (what went wrong, when it happens).
    const strays: unknown[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < 60) {
          next++;
          const res = await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg' }, [['options', JSON.stringify({ expect: 'es_dni', export: ['json'] })]]) });
          statuses.push(res.status);
          ids.push(res.body.id);
          if (res.status !== 200 || res.body.status !== 'completed') {
            const jobs = await app.services.db.selectFrom('jobs').select(['status', 'attempts', 'last_error', 'payload']).where('queue', '=', 'analysis').execute();
            const job = jobs.find((j) => (j.payload as { analysis_id?: string }).analysis_id === res.body.id);
            strays.push({ answer: res.status, status: res.body.status, job: job && { status: job.status, attempts: job.attempts, last_error: job.last_error } });
          }
        }
      }),
    );
    expect(strays).toEqual([]);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const jobs = await app.services.db.selectFrom('jobs').select(['status', 'attempts']).where('queue', '=', 'analysis').execute();
    expect(jobs).toHaveLength(60);
    expect(jobs.filter((j) => j.status !== 'done' || j.attempts !== 1)).toEqual([]);
    expect(new Set(ids).size).toBe(60);
  });
});
