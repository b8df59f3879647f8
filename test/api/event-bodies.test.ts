// Every event body the service sends validates against the schema it serves (issue #29: the dashboard's `test`
// event sent `data: { endpoint_id, message }` while /openapi.json declared `TestEventData` with `object` and
// `message`). One real flow per event type of the `WebhookEvent` union, in test mode (plus a live account for
// `credits.low`); the bodies are the bytes each delivery sends (webhook_deliveries.payload, and the callbacks of
// verification links), validated against `WebhookEvent` of the document GET /openapi.json answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findWebhookEndpoint } from '../../server/src/db/webhook-endpoints.ts';
import { updateAccount } from '../../server/src/db/accounts.ts';
import { acceptConsent, uploadByToken } from '../../server/src/domain/links/page.ts';
import { runOneAnalysisJob, sweepRetention } from '../../server/src/jobs/worker.ts';
import { makeSchemaValidator } from '../../server/src/openapi.ts';
import { queueTestEvent } from '../../server/src/webhooks/manage.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import { standInLiveProvider } from '../support/live-provider.ts';

const HOUR = 3_600_000;

describe.each(DATABASES)('event bodies against the served /openapi.json (%s)', (kind) => {
  let app: TestApp;
  const clock = new ManualClock('2026-07-15T12:00:00.000Z');
  beforeAll(async () => {
    app = await startTestApp(kind, { clock, liveProvider: standInLiveProvider });
  }, 60_000);
  afterAll(() => app?.close());

  const analyze = async (name: string, options: Record<string, unknown> = {}, key = app.account.keys.test) => {
    const res = await app.request('POST', '/v1/analyze', { key, body: form({ bytes: fixtures.jpeg(), name, type: 'image/jpeg' }, [['options', JSON.stringify(options)]]) });
    expect(res.status, res.text).toBe(200);
    return res.body as { id: string; status: string };
  };
  const drain = async () => {
    while (await runOneAnalysisJob(app.services));
  };

  it('sends each type of WebhookEvent, and every body sent validates against its schema', async () => {
    const served = await fetch(`${app.baseUrl}/openapi.json`);
    const document = await served.json();
    const ajv = makeSchemaValidator(document);
    const union = document.components.schemas.WebhookEvent;
    const types = Object.keys(union.discriminator.mapping);
    expect(types).toContain('test');

    const db = app.services.db;
    const test = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'https://hooks.example.com/all', events: ['*'] } });
    expect(test.status).toBe(201);
    // Live: credits.low, for an account below its threshold.
    const live = await app.newAccount({ rateLimitPerSecond: 100_000 });
    await updateAccount(db, live.account, { email: 'ops@example.com', email_verified: true, low_credit_threshold_milli: 49_500 });
    expect((await app.request('POST', '/v1/webhook-endpoints', { key: live.keys.live, json: { url: 'https://hooks.example.com/live', events: ['*'] } })).status).toBe(201);
    await analyze('dni_valid.jpg', {}, live.keys.live);

    // analysis.completed, .review_required, .failed; analysis.reviewed.
    await analyze('dni_valid.jpg', { expect: 'es_dni' });
    const blurry = await analyze('dni_blurry.jpg', { expect: ['es_dni'] });
    expect((await app.request('POST', `/v1/analyses/${blurry.id}/review`, { json: { decision: 'approve', reason: 'Legible' } })).status).toBe(200);
    expect((await analyze('es_dni_failed.jpg')).status).toBe('failed');
    // batch.completed.
    const fd = new FormData();
    fd.append('files[]', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>]), 'dni_valid.jpg');
    expect((await app.request('POST', '/v1/batches', { body: fd })).status).toBe(202);
    await drain();
    // dossier.verdict_changed.
    const dossier = await app.request('POST', '/v1/dossiers', { json: {} });
    expect(dossier.status).toBe(201);
    const other = await analyze('dni_valid.jpg');
    expect((await app.request('POST', `/v1/dossiers/${(dossier.body as { id: string }).id}/documents`, { json: { analysis_id: other.id } })).status).toBe(200);
    // verification_link.completed (through the hosted page's domain functions) and .expired (the sweep, later).
    const link = async (expires_in_hours: number) => {
      const res = await app.request('POST', '/v1/verification-links', { json: { documents: [{ key: 'id', expect: 'es_dni' }], expires_in_hours, include_results: true } });
      expect(res.status).toBe(201);
      return (res.body as { url: string }).url.split('/l/')[1];
    };
    const done = await link(48);
    await acceptConsent(app.services, done, '203.0.113.7');
    expect((await uploadByToken(app.services, done, 'id', { bytes: fixtures.jpeg(), filename: 'dni_valid.jpg' })).result).toBe('accepted');
    await drain();
    await link(1);
    clock.advance(2 * HOUR);
    await sweepRetention(app.services);
    // test: what the dashboard's "Send a test event" queues.
    await queueTestEvent(db, clock, (await findWebhookEndpoint(db, app.account.account, (test.body as { id: string }).id))!);

    const sent = await db.selectFrom('webhook_deliveries').select(['event_type', 'payload']).where('payload', '<>', '').execute();
    expect(new Set(sent.map((d) => d.event_type))).toEqual(new Set(types));
    const problems: string[] = [];
    for (const d of sent) {
      const body = JSON.parse(d.payload);
      expect(body.type).toBe(d.event_type);
      if (!ajv.validate({ $ref: 'openapi.json#/components/schemas/WebhookEvent' }, body)) problems.push(`${d.event_type}: ${ajv.errorsText(ajv.errors)}`);
    }
    expect(problems).toEqual([]);
    const testBody = JSON.parse(sent.find((d) => d.event_type === 'test')!.payload);
    expect(testBody.data).toEqual({ object: 'test', endpoint_id: (test.body as { id: string }).id, message: 'Test event sent from the Cotejo dashboard.' });
  }, 120_000);
});
