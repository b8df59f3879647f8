import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';

describe.each(DATABASES)('webhook endpoints on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('creates with the secret once, then lists (both modes, newest first, no secret), gets and deletes', async () => {
    const a = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'https://hooks.example/a', events: ['analysis.completed', 'batch.completed'], description: 'Main' } });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ object: 'webhook_endpoint', url: 'https://hooks.example/a', description: 'Main', status: 'active', enabled: true, mode: 'test' });
    expect(a.body.id).toMatch(/^we_/);
    expect(a.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(a.body.secret.slice(6), 'base64').length).toBe(24);
    const b = await app.request('POST', '/v1/webhook-endpoints', { key: app.account.keys.live, json: { url: 'https://hooks.example/b', events: ['*'] } });
    expect(b.body.description).toBeNull();

    const list = await app.request('GET', '/v1/webhook-endpoints');
    expect(list.body).toMatchObject({ object: 'list', has_more: false, url: '/v1/webhook-endpoints' });
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([b.body.id, a.body.id]);
    for (const e of list.body.data) expect(e).not.toHaveProperty('secret');

    const got = await app.request('GET', `/v1/webhook-endpoints/${a.body.id}`);
    const { secret: _secret, ...withoutSecret } = a.body;
    expect(got.body).toEqual(withoutSecret);

    const del = await app.request('DELETE', `/v1/webhook-endpoints/${a.body.id}`);
    expect(del.body).toEqual({ id: a.body.id, object: 'webhook_endpoint', deleted: true });
    const again = await app.request('DELETE', `/v1/webhook-endpoints/${a.body.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect((await app.request('GET', `/v1/webhook-endpoints/${a.body.id}`)).status).toBe(404);
  });

  it('400 invalid_url for a URL that is not https; 422 invalid_parameter for one that is not a URL', async () => {
    const http = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'http://hooks.example/a', events: ['*'] } });
    expect(http.status).toBe(400);
    expect(http.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_url', param: 'url' });
    const junk = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'not a url', events: ['*'] } });
    expect(junk.status).toBe(422);
    expect(junk.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
  });

  it('keeps the events as given, without duplicates', async () => {
    const res = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'https://hooks.example/d', events: ['analysis.failed', 'analysis.failed', '*'] } });
    expect(res.body.events).toEqual(['analysis.failed', '*']);
  });
});
