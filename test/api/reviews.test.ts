/**
 * Human review through the real app on a real database (PGlite, and PostgreSQL when DATABASE_URL is set): entering
 * review, POST /v1/analyses/{id}/review (every transition and error of the specification's table), its audit record
 * and its `analysis.reviewed` event, GET /v1/reviews (filters, order, pagination, tenancy), and the retention of the
 * original under storage `review`, proven by moving a ManualClock and running the durable retention sweep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../server/src/db/accounts.ts';
import { listAuditRecords } from '../../server/src/db/reviews.ts';
import { DEFAULT_REVIEW_POLICY } from '../../server/src/domain/analysis/options.ts';
import { entersReview, reviewOnFinish } from '../../server/src/domain/analysis/review-entry.ts';
import { runOneAnalysisJob, sweepRetention } from '../../server/src/jobs/worker.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

describe('entersReview (the transition table, first row)', () => {
  const policy = (on_invalid: boolean, auto_approve_valid: boolean) => ({ ...DEFAULT_REVIEW_POLICY, on_invalid, auto_approve_valid });
  it('verdict review always enters; without a template nothing else does', () => {
    expect(entersReview('review', DEFAULT_REVIEW_POLICY, false)).toBe(true);
    expect(entersReview('review', policy(false, true), true)).toBe(true);
    expect(entersReview('invalid', policy(true, false), false)).toBe(false);
    expect(entersReview('valid', policy(true, false), false)).toBe(false);
    expect(entersReview(null, policy(true, false), true)).toBe(false);
  });
  it('with a template: invalid when it asks review of invalid results, valid when it does not auto-approve', () => {
    expect(entersReview('invalid', policy(true, true), true)).toBe(true);
    expect(entersReview('invalid', policy(false, true), true)).toBe(false);
    expect(entersReview('valid', policy(false, false), true)).toBe(true);
    expect(entersReview('valid', policy(false, true), true)).toBe(false);
  });
});

describe.each(DATABASES)('human review on %s', (kind) => {
  let app: TestApp;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
  });
  afterAll(async () => {
    await app?.close();
  });

  const analyze = async (name: string, options: Record<string, unknown> = {}, key?: string) => {
    const res = await app.request('POST', '/v1/analyze', { key, body: form({ bytes: fixtures.jpeg(), name, type: 'image/jpeg' }, [['options', JSON.stringify(options)]]) });
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };
  const review = (id: string, json: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
    app.request('POST', `/v1/analyses/${id}/review`, { json, ...opts });
  const countEvents = async (subject: string, type = 'analysis.reviewed') =>
    Number((await app.services.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('subject_id', '=', subject).where('type', '=', type).executeTakeFirstOrThrow()).n);
  const createTemplate = async (body: Record<string, unknown>, key?: string) => {
    const res = await app.request('POST', '/v1/templates', { key, json: { name: 'Review template', ...body } });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };

  it('a review verdict enters review: pending, final_status null, the review object, storage in a review context', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    expect(a.status).toBe('completed');
    expect(a.verdict.status).toBe('review');
    expect(a.verdict.final_status).toBeNull();
    expect(a.review).toEqual({ status: 'pending', decision: null, assignee: null, reviewed_by: null, reviewed_at: null, reason: null, note: null });
    // No storage chosen: entering review keeps the original (storage `review`) so that a reviewer can see it, for
    // at most review_max_days (30 by default), with a signed file_url.
    expect(a.storage).toMatchObject({ mode: 'review', kept: true, reason: 'pending_review', file_deleted_at: null });
    expect(Date.parse(a.storage.expires_at) - Date.parse(a.completed_at)).toBe(30 * 24 * 3600 * 1000);
    expect(a.file_url).toMatch(/^http/);
    const file = await app.request('GET', `/v1/analyses/${a.id}/file`);
    expect(file.status).toBe(200);
    // The same on a later read.
    expect((await app.request('GET', `/v1/analyses/${a.id}`)).body.review.status).toBe('pending');
  });

  it('an explicit storage none keeps nothing even in review; an analysis that does not enter review keeps nothing either', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'], storage: 'none' });
    expect(a.verdict.status).toBe('review');
    expect(a.review.status).toBe('pending');
    // The caller chose none: the original followed its own mode (deleted at the end) and no file_url is offered.
    expect(a.storage).toMatchObject({ mode: 'none', kept: false, reason: 'storage_none' });
    expect(a.file_url).toBeUndefined();
    const b = await analyze('dni_valid.jpg', { expect: ['es_dni'] });
    expect(b.verdict.status).toBe('valid');
    expect(b.storage).toEqual({ mode: 'none', file_deleted_at: b.completed_at, expires_at: null });
    expect((await app.request('GET', `/v1/analyses/${b.id}/file`)).body.error.code).toBe('file_not_stored');
  });

  it('no template: valid and invalid verdicts do not enter review; no expect, no review', async () => {
    for (const name of ['dni_valid.jpg', 'dni_expired.jpg']) {
      const a = await analyze(name, { expect: ['es_dni'] });
      expect(['valid', 'invalid']).toContain(a.verdict.status);
      expect(a.review).toBeNull();
      expect(a.verdict.final_status).toBeNull();
      expect(a.storage).not.toHaveProperty('kept');
    }
    expect((await analyze('dni_blurry.jpg')).review).toBeNull();
  });

  it('approve: approved, final_status valid, reviewed_by the key id, audit record, one webhook; the same again changes nothing; reject then 409', async () => {
    const endpoint = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'https://hooks.example/reviews', events: ['analysis.reviewed'] } });
    expect(endpoint.status).toBe(201);
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'], metadata: { case: 'approve' } });
    const before = clock.now();
    const res = await review(a.id, { decision: 'approve', reason: 'Legible a simple vista', note: 'Comprobado por María' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(a.id);
    expect(res.body.review).toEqual({
      status: 'approved',
      decision: 'approve',
      assignee: null,
      reviewed_by: app.account.key_ids.test,
      reviewed_at: before.toISOString(),
      reason: 'Legible a simple vista',
      note: 'Comprobado por María',
    });
    expect(res.body.verdict).toMatchObject({ status: 'review', final_status: 'valid' });
    expect(await countEvents(a.id)).toBe(1);
    const deliveries = await app.services.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpoint.body.id).execute();
    expect(deliveries).toHaveLength(1);
    const payload = JSON.parse(deliveries[0].payload);
    expect(payload.type).toBe('analysis.reviewed');
    expect(payload.data).toMatchObject({ id: a.id, object: 'analysis', review: { status: 'approved' }, verdict: { final_status: 'valid' } });

    const audit = await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      account_id: app.account.account,
      livemode: false,
      action: 'review.approved',
      decision: 'approve',
      actor: app.account.key_ids.test,
      reason: 'Legible a simple vista',
      previous_state: { review_status: 'pending', final_status: null, verdict_status: 'review' },
      new_state: { review_status: 'approved', final_status: 'valid', verdict_status: 'review' },
    });
    expect(audit[0].id).toMatch(/^aud_/);

    // The same decision again: 200, unchanged (its first reason stays), no new webhook, no new audit record.
    const again = await review(a.id, { decision: 'approve', reason: 'otra vez' });
    expect(again.status).toBe(200);
    expect(again.body.review).toEqual(res.body.review);
    expect(await countEvents(a.id)).toBe(1);
    expect(await app.services.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint.body.id).execute()).toHaveLength(1);
    expect(await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 })).toHaveLength(1);

    const other = await review(a.id, { decision: 'reject' });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ type: 'invalid_request', code: 'already_reviewed' });
    expect((await app.request('GET', `/v1/analyses/${a.id}`)).body.review.status).toBe('approved');
    await app.request('DELETE', `/v1/webhook-endpoints/${endpoint.body.id}`);
  });

  it('reject: rejected, final_status invalid; approve afterwards is 409 already_reviewed', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    const res = await review(a.id, { decision: 'reject', reason: null, note: null });
    expect(res.status).toBe(200);
    expect(res.body.review).toMatchObject({ status: 'rejected', decision: 'reject', reason: null, note: null });
    expect(res.body.verdict.final_status).toBe('invalid');
    expect(await countEvents(a.id)).toBe(1);
    expect((await review(a.id, { decision: 'reject' })).status).toBe(200);
    const other = await review(a.id, { decision: 'approve' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('already_reviewed');
    expect(await countEvents(a.id)).toBe(1);
  });

  it('409 not_reviewable: no verdict, unfinished, or a verdict that did not enter review', async () => {
    const noVerdict = await analyze('dni_blurry.jpg');
    const valid = await analyze('dni_valid.jpg', { expect: ['es_dni'] });
    const queued = await analyze('dni_blurry.jpg', { expect: ['es_dni'], async: true });
    expect(queued.status).toBe('queued');
    for (const id of [noVerdict.id, valid.id, queued.id]) {
      const res = await review(id, { decision: 'approve' });
      expect(res.status, id).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'not_reviewable', param: 'id' });
    }
    // Once it has finished (its verdict is review) it can be decided.
    while (await runOneAnalysisJob(app.services));
    expect((await review(queued.id, { decision: 'approve' })).status).toBe(200);
  });

  it('404 for another account, the other mode or an unknown id; 403 for publishable keys', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    const other = await app.newAccount({ rateLimitPerSecond: 100_000 });
    for (const key of [other.keys.test, app.account.keys.live]) {
      const res = await review(a.id, { decision: 'approve' }, { key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('resource_missing');
    }
    expect((await review('an_01HZZZZZZZZZZZZZZZZZZZZZZZ', { decision: 'approve' })).status).toBe(404);
    for (const key of [app.account.keys.test_publishable, app.account.keys.live_publishable]) {
      const res = await review(a.id, { decision: 'approve' }, { key });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('publishable_key_not_allowed');
      const list = await app.request('GET', '/v1/reviews', { key });
      expect(list.status).toBe(403);
      expect(list.body.error.code).toBe('publishable_key_not_allowed');
    }
    // Nothing was decided by any of them.
    expect((await app.request('GET', `/v1/analyses/${a.id}`)).body.review.status).toBe('pending');
  });

  it('422 invalid_parameter for a bad body: reason over 200, note over 2000, unknown decision, unknown field, no decision', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    const cases: Array<[unknown, string]> = [
      [{ decision: 'approve', reason: 'x'.repeat(201) }, 'reason'],
      [{ decision: 'approve', note: 'x'.repeat(2001) }, 'note'],
      [{ decision: 'maybe' }, 'decision'],
      [{ decision: 'approve', assignee: 'me' }, 'assignee'],
      [{}, 'decision'],
    ];
    for (const [json, param] of cases) {
      const res = await review(a.id, json);
      expect(res.status, JSON.stringify(json)).toBe(422);
      expect(res.body.error.code).toBe('invalid_parameter');
      expect(res.body.error.param).toContain(param);
    }
    // The limits themselves are accepted.
    const ok = await review(a.id, { decision: 'approve', reason: 'r'.repeat(200), note: 'n'.repeat(2000) });
    expect(ok.status).toBe(200);
    expect(ok.body.review.note).toHaveLength(2000);
  });

  it('Idempotency-Key: a retry replays the answer; the same key with another body is 422 idempotency_key_reused', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    const headers = { 'Idempotency-Key': `review-${a.id}` };
    const first = await review(a.id, { decision: 'reject', reason: 'Foto ilegible' }, { headers });
    expect(first.status).toBe(200);
    const retry = await review(a.id, { decision: 'reject', reason: 'Foto ilegible' }, { headers });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.review).toEqual(first.body.review);
    const reused = await review(a.id, { decision: 'approve' }, { headers });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    expect(await countEvents(a.id)).toBe(1);
    expect(await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 })).toHaveLength(1);
  });

  it('two different decisions at once: one wins, the other is 409, one event and one audit record', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    const [x, y] = await Promise.all([review(a.id, { decision: 'approve' }), review(a.id, { decision: 'reject' })]);
    expect([x.status, y.status].sort()).toEqual([200, 409]);
    expect(await countEvents(a.id)).toBe(1);
    expect(await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 })).toHaveLength(1);
  });

  it('the audit record survives DELETE /v1/analyses/{id}', async () => {
    const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    expect((await review(a.id, { decision: 'reject', reason: 'Documento no válido' })).status).toBe(200);
    expect((await app.request('DELETE', `/v1/analyses/${a.id}`)).status).toBe(200);
    expect((await app.request('GET', `/v1/analyses/${a.id}`)).status).toBe(404);
    const audit = await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 10 });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'review.rejected', reason: 'Documento no válido', new_state: { final_status: 'invalid' } });
    expect((await listAuditRecords(app.services.db, { account_id: app.account.account, limit: 1000 })).some((r) => r.analysis_id === a.id)).toBe(true);
  });

  describe('GET /v1/reviews', () => {
    let acct: Awaited<ReturnType<TestApp['newAccount']>>;
    const ids: Record<string, string> = {};
    const list = async (query: string, key = acct.keys.test) => {
      const res = await app.request('GET', `/v1/reviews${query}`, { key });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ object: 'list', url: '/v1/reviews' });
      return res.body as { data: Array<{ id: string; object: string; review: { status: string } }>; has_more: boolean };
    };

    beforeAll(async () => {
      acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
      const k = acct.keys.test;
      ids.p1 = (await analyze('dni_blurry.jpg', { expect: ['es_dni'], metadata: { team: 'a', case: '1' } }, k)).id;
      ids.p2 = (await analyze('passport_blurry.jpg', { expect: ['passport'], metadata: { team: 'b' } }, k)).id;
      ids.p3 = (await analyze('dni_blurry.jpg', { expect: ['es_dni'], metadata: { team: 'a', case: '3' } }, k)).id;
      ids.ap = (await analyze('dni_blurry.jpg', { expect: ['es_dni'], metadata: { team: 'a' } }, k)).id;
      ids.rj = (await analyze('dni_blurry.jpg', { expect: ['es_dni'], metadata: { team: 'b' } }, k)).id;
      ids.none = (await analyze('dni_valid.jpg', { expect: ['es_dni'] }, k)).id;
      ids.live = (await analyze('dni_blurry.jpg', { expect: ['es_dni'] }, app.account.keys.test)).id;
      expect((await review(ids.ap, { decision: 'approve' }, { key: k })).status).toBe(200);
      expect((await review(ids.rj, { decision: 'reject' }, { key: k })).status).toBe(200);
    });

    it('pending by default, oldest first, full Analysis objects', async () => {
      const page = await list('');
      expect(page.data.map((a) => a.id)).toEqual([ids.p1, ids.p2, ids.p3]);
      expect(page.has_more).toBe(false);
      expect(page.data.every((a) => a.object === 'analysis' && a.review.status === 'pending')).toBe(true);
      expect((await list('?status=pending')).data.map((a) => a.id)).toEqual([ids.p1, ids.p2, ids.p3]);
    });

    it('decided, approved, rejected and all: newest first', async () => {
      expect((await list('?status=decided')).data.map((a) => a.id)).toEqual([ids.rj, ids.ap]);
      expect((await list('?status=approved')).data.map((a) => a.id)).toEqual([ids.ap]);
      expect((await list('?status=rejected')).data.map((a) => a.id)).toEqual([ids.rj]);
      expect((await list('?status=all')).data.map((a) => a.id)).toEqual([ids.rj, ids.ap, ids.p3, ids.p2, ids.p1]);
    });

    it('type and metadata filters (all keys must match), applied before pagination', async () => {
      const passport = (await app.request('GET', `/v1/analyses/${ids.p2}`, { key: acct.keys.test })).body.document.type as string;
      expect((await list(`?type=${passport}`)).data.map((a) => a.id)).toEqual([ids.p2]);
      expect((await list('?type=es_dni&status=all')).data.map((a) => a.id)).toEqual([ids.rj, ids.ap, ids.p3, ids.p1]);
      expect((await list('?metadata[team]=a')).data.map((a) => a.id)).toEqual([ids.p1, ids.p3]);
      expect((await list('?metadata[team]=a&metadata[case]=3')).data.map((a) => a.id)).toEqual([ids.p3]);
      expect((await list('?metadata[team]=b&status=decided')).data.map((a) => a.id)).toEqual([ids.rj]);
      const filtered = await list('?metadata[team]=a&limit=1');
      expect(filtered.data.map((a) => a.id)).toEqual([ids.p1]);
      expect(filtered.has_more).toBe(true);
      expect((await list('?template=tpl_01HZZZZZZZZZZZZZZZZZZZZZZZ')).data).toEqual([]);
    });

    it('cursor pagination in both orders', async () => {
      const first = await list('?limit=2');
      expect(first.data.map((a) => a.id)).toEqual([ids.p1, ids.p2]);
      expect(first.has_more).toBe(true);
      const second = await list(`?limit=2&starting_after=${ids.p2}`);
      expect(second.data.map((a) => a.id)).toEqual([ids.p3]);
      expect(second.has_more).toBe(false);
      const allFirst = await list('?status=all&limit=2');
      expect(allFirst.data.map((a) => a.id)).toEqual([ids.rj, ids.ap]);
      const allNext = await list(`?status=all&limit=2&starting_after=${ids.ap}`);
      expect(allNext.data.map((a) => a.id)).toEqual([ids.p3, ids.p2]);
      expect(allNext.has_more).toBe(true);
    });

    it('tenancy: the other mode and other accounts see none of them; limit bounds are 1 to 100', async () => {
      expect((await list('?status=all', acct.keys.live)).data).toEqual([]);
      const mine = (await list('?status=all', app.account.keys.test)).data.map((a) => a.id);
      expect(mine).toContain(ids.live);
      for (const id of Object.values(ids).filter((x) => x !== ids.live)) expect(mine).not.toContain(id);
      for (const q of ['?limit=0', '?limit=101', '?status=open']) {
        const res = await app.request('GET', `/v1/reviews${q}`, { key: acct.keys.test });
        expect(res.status, q).toBe(422);
        expect(res.body.error.code).toBe('invalid_parameter');
      }
    });
  });

  describe('templates and storage review (retention with a moved clock)', () => {
    it('a template asking review of invalid results, and not auto-approving valid ones', async () => {
      const tpl = await createTemplate({ expect: ['es_dni'], human_review: { on_invalid: true, auto_approve_valid: false } });
      const invalid = await analyze('dni_expired.jpg', { template: tpl });
      expect(invalid.verdict.status).toBe('invalid');
      expect(invalid.review.status).toBe('pending');
      const valid = await analyze('dni_valid.jpg', { template: tpl });
      expect(valid.verdict.status).toBe('valid');
      expect(valid.review.status).toBe('pending');
      // The template filter of the queue.
      const queue = await app.request('GET', `/v1/reviews?template=${tpl}`);
      expect(queue.body.data.map((a: { id: string }) => a.id)).toEqual([invalid.id, valid.id]);
      const res = await review(valid.id, { decision: 'reject', reason: 'Foto de una pantalla' });
      expect(res.body.verdict).toMatchObject({ status: 'valid', final_status: 'invalid' });

      const defaults = await createTemplate({ expect: ['es_dni'] });
      expect((await analyze('dni_expired.jpg', { template: defaults })).review).toBeNull();
      expect((await analyze('dni_valid.jpg', { template: defaults })).review).toBeNull();
      expect((await analyze('dni_blurry.jpg', { template: defaults })).review.status).toBe('pending');
    });

    it('reviewOnFinish with a policy: the columns written when an analysis enters review', async () => {
      const row = { account_id: app.account.account, kind: 'analysis' as const, keep_results: true };
      const policy = { on_invalid: true, auto_approve_valid: false, retention_hours_after_decision: null, max_days: 7 };
      const now = clock.now().getTime();
      expect(await reviewOnFinish(app.services, row, { review: policy, template: 'tpl_x', storage: 'review' }, 'invalid')).toEqual({
        review_status: 'pending',
        review_entered_at: new Date(now),
        storage_expires_at: new Date(now + 7 * DAY),
      });
      expect(await reviewOnFinish(app.services, row, { review: policy, template: 'tpl_x', storage: 'none' }, 'valid')).toEqual({ review_status: 'pending', review_entered_at: new Date(now) });
      expect(await reviewOnFinish(app.services, row, { review: policy, template: null, storage: 'none' }, 'valid')).toBeNull();
      expect(await reviewOnFinish(app.services, { ...row, keep_results: false }, {}, 'review')).toBeNull();
      // Options stored before reviews existed: no `review`, no `template`.
      expect(await reviewOnFinish(app.services, row, { storage: 'none' } as never, 'review')).not.toBeNull();
    });

    it('pending: the original is kept at most review_max_days (template), then the sweep deletes it', async () => {
      const tpl = await createTemplate({ expect: ['es_dni'], storage: 'review', review_max_days: 5 });
      const a = await analyze('dni_blurry.jpg', { template: tpl });
      const entered = new Date(a.completed_at).getTime();
      expect(a.storage).toEqual({ mode: 'review', file_deleted_at: null, expires_at: new Date(entered + 5 * DAY).toISOString(), kept: true, reason: 'pending_review' });
      expect(a.file_url).toMatch(/\/v1\/files\//);
      expect((await app.request('GET', `/v1/analyses/${a.id}/file`)).status).toBe(200);

      clock.advance(5 * DAY - 60_000);
      await sweepRetention(app.services);
      expect((await app.request('GET', `/v1/analyses/${a.id}`)).body.storage.kept).toBe(true);
      clock.advance(2 * 60_000);
      expect(await sweepRetention(app.services)).toBeGreaterThanOrEqual(1);
      const after = (await app.request('GET', `/v1/analyses/${a.id}`)).body;
      expect(after.storage).toMatchObject({ mode: 'review', kept: false, reason: 'review_max_days_elapsed', file_deleted_at: clock.now().toISOString() });
      expect(after.file_url).toBeUndefined();
      expect(after.review.status).toBe('pending');
      const file = await app.request('GET', `/v1/analyses/${a.id}/file`);
      expect(file.status).toBe(404);
      expect(file.body.error.code).toBe('file_not_stored');
      // A decision is still possible and recorded; the expiry stays the one that deleted it.
      const res = await review(a.id, { decision: 'approve' });
      expect(res.body.storage).toMatchObject({ kept: false, reason: 'deleted_after_decision', expires_at: after.storage.expires_at });
    });

    it('after the decision: kept review_retention_hours_after_decision hours (template), then deleted by the sweep', async () => {
      const tpl = await createTemplate({ expect: ['es_dni'], storage: 'review', review_retention_hours_after_decision: 2 });
      const a = await analyze('dni_blurry.jpg', { template: tpl });
      clock.advance(HOUR);
      const decidedAt = clock.now().getTime();
      const res = await review(a.id, { decision: 'approve' });
      expect(res.body.storage).toEqual({ mode: 'review', file_deleted_at: null, expires_at: new Date(decidedAt + 2 * HOUR).toISOString(), kept: true, reason: 'retained_after_decision' });
      expect(res.body.file_url).toBeDefined();
      clock.advance(2 * HOUR - 60_000);
      await sweepRetention(app.services);
      expect((await app.request('GET', `/v1/analyses/${a.id}/file`)).status).toBe(200);
      clock.advance(2 * 60_000);
      await sweepRetention(app.services);
      const after = (await app.request('GET', `/v1/analyses/${a.id}`)).body;
      expect(after.storage).toMatchObject({ kept: false, reason: 'deleted_after_decision' });
      expect(after.file_url).toBeUndefined();
      const audit = await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 1 });
      expect(audit[0]).toMatchObject({ previous_state: { file_kept: true }, new_state: { file_kept: true, storage_expires_at: new Date(decidedAt + 2 * HOUR).toISOString() } });
    });

    it('review_retention_hours_after_decision 0: the original is deleted at the decision, storage.kept false', async () => {
      const tpl = await createTemplate({ expect: ['es_dni'], storage: 'review', review_retention_hours_after_decision: 0 });
      const a = await analyze('dni_blurry.jpg', { template: tpl });
      expect(a.storage.kept).toBe(true);
      const res = await review(a.id, { decision: 'reject' });
      const now = clock.now().toISOString();
      expect(res.body.storage).toEqual({ mode: 'review', file_deleted_at: now, expires_at: now, kept: false, reason: 'deleted_after_decision' });
      expect(res.body.file_url).toBeUndefined();
      expect((await app.request('GET', `/v1/analyses/${a.id}/file`)).body.error.code).toBe('file_not_stored');
      // The signed URL handed out before the decision no longer yields the file.
      const signed = await app.request('GET', new URL(a.file_url).pathname, { key: null });
      expect(signed.status).toBe(404);
      expect(signed.body.error.code).toBe('file_not_stored');
      const audit = await listAuditRecords(app.services.db, { analysis_id: a.id, limit: 1 });
      expect(audit[0]).toMatchObject({ previous_state: { file_kept: true }, new_state: { file_kept: false } });
    });

    it('the account values apply when the template sets none (30 days, 24 hours by default; settable)', async () => {
      const tpl = await createTemplate({ expect: ['es_dni'], storage: 'review' });
      const a = await analyze('dni_blurry.jpg', { template: tpl });
      expect(a.storage.expires_at).toBe(new Date(new Date(a.completed_at).getTime() + 30 * DAY).toISOString());
      const decided = await review(a.id, { decision: 'approve' });
      expect(decided.body.storage.expires_at).toBe(new Date(clock.now().getTime() + 24 * HOUR).toISOString());

      const other = await app.newAccount({ rateLimitPerSecond: 100_000 });
      await updateAccount(app.services.db, other.account, { review_max_days: 3, review_retention_hours_after_decision: 0 });
      const tpl2 = await createTemplate({ expect: ['es_dni'], storage: 'review' }, other.keys.test);
      const b = await analyze('dni_blurry.jpg', { template: tpl2 }, other.keys.test);
      expect(b.storage.expires_at).toBe(new Date(new Date(b.completed_at).getTime() + 3 * DAY).toISOString());
      const rb = await review(b.id, { decision: 'approve' }, { key: other.keys.test });
      expect(rb.body.storage).toMatchObject({ kept: false, reason: 'deleted_after_decision' });
    });

    it('storage review while queued, then pending: the analysis.completed event already shows the review', async () => {
      const tpl = await createTemplate({ expect: ['es_dni'], storage: 'review' });
      const queued = await analyze('dni_blurry.jpg', { template: tpl, async: true });
      expect(queued.storage).toMatchObject({ mode: 'review', kept: true, reason: 'pending_result', expires_at: null });
      expect(queued.review).toBeNull();
      while (await runOneAnalysisJob(app.services));
      const event = await app.services.db.selectFrom('events').select('payload').where('subject_id', '=', queued.id).where('type', '=', 'analysis.completed').executeTakeFirstOrThrow();
      const data = (event.payload as { data: { review: { status: string }; storage: { reason: string }; verdict: { final_status: unknown } } }).data;
      expect(data.review.status).toBe('pending');
      expect(data.storage.reason).toBe('pending_review');
      expect(data.verdict.final_status).toBeNull();
    });

    it('storage review without a review: the original is not kept', async () => {
      const tpl = await createTemplate({ expect: ['es_dni'], storage: 'review' });
      const a = await analyze('dni_valid.jpg', { template: tpl });
      expect(a.review).toBeNull();
      expect(a.storage).toMatchObject({ mode: 'review', kept: false, reason: 'review_not_required', file_deleted_at: clock.now().toISOString() });
      expect(a.file_url).toBeUndefined();
    });

    it('storage temporary entering review: the original follows its own period', async () => {
      const a = await analyze('dni_blurry.jpg', { expect: ['es_dni'], storage: 'temporary', ttl_hours: 1 });
      expect(a.storage).toMatchObject({ mode: 'temporary', kept: true, reason: 'storage_temporary' });
      expect(a.file_url).toBeDefined();
      const res = await review(a.id, { decision: 'approve' });
      expect(res.body.storage.expires_at).toBe(a.storage.expires_at);
      clock.advance(HOUR + 1000);
      await sweepRetention(app.services);
      const after = (await app.request('GET', `/v1/analyses/${a.id}`)).body;
      expect(after.storage).toMatchObject({ kept: false, reason: 'storage_temporary' });
      expect(after.file_url).toBeUndefined();
    });
  });

  it('batch documents enter review too', async () => {
    const fd = new FormData();
    for (const name of ['dni_blurry.jpg', 'dni_valid.jpg']) fd.append('files[]', new Blob([fixtures.jpeg()], { type: 'image/jpeg' }), name);
    fd.append('options', JSON.stringify({ expect: ['es_dni'] }));
    const batch = await app.request('POST', '/v1/batches', { body: fd });
    expect(batch.status, batch.text).toBe(202);
    while (await runOneAnalysisJob(app.services));
    const ids: string[] = (await app.request('GET', `/v1/batches/${batch.body.id}`)).body.analyses.map((a: { id: string } | string) => (typeof a === 'string' ? a : a.id));
    const reviews = await Promise.all(ids.map(async (id) => (await app.request('GET', `/v1/analyses/${id}`)).body.review));
    expect(reviews.map((r) => r?.status ?? null).sort()).toEqual(['pending', null].sort());
  });
});
