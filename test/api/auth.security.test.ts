import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../server/src/db/accounts.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';

describe.each(DATABASES)('authentication on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('401 missing_api_key without an Authorization header', async () => {
    const res = await app.request('GET', '/v1/webhook-endpoints', { key: null });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication', code: 'missing_api_key' });
  });

  it('401 invalid_api_key for a malformed, unknown or non-Bearer credential', async () => {
    const variants: Record<string, string> = {
      malformed: 'Bearer not-a-key',
      unknown: `Bearer ck_test_${'A'.repeat(32)}`,
      wrongScheme: `Basic ${Buffer.from(`${app.account.keys.test}:`).toString('base64')}`,
      emptyBearer: 'Bearer ',
    };
    for (const [name, header] of Object.entries(variants)) {
      const res = await app.request('GET', '/v1/webhook-endpoints', { key: null, headers: { Authorization: header } });
      expect(res.status, name).toBe(401);
      expect(res.body.error.code, name).toBe('invalid_api_key');
    }
  });

  it('401 invalid_api_key once a key is revoked', async () => {
    const other = await app.newAccount();
    expect((await app.request('GET', '/v1/webhook-endpoints', { key: other.keys.test })).status).toBe(200);
    await revokeApiKey(app.services.db, other.key_ids.test, new Date());
    const res = await app.request('GET', '/v1/webhook-endpoints', { key: other.keys.test });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
  });

  it('403 publishable_key_not_allowed for publishable keys on authenticated routes', async () => {
    for (const key of [app.account.keys.test_publishable, app.account.keys.live_publishable]) {
      for (const [method, path] of [['GET', '/v1/reviews'], ['POST', '/v1/analyses/an_01JC0000000000000000000000/review'], ['GET', '/v1/webhook-endpoints']] as const) {
        const res = await app.request(method, path, { key, ...(method === 'POST' ? { json: { decision: 'approve' } } : {}) });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.error).toMatchObject({ type: 'permission', code: 'publishable_key_not_allowed' });
      }
    }
  });

  it('lets the public routes through without a key', async () => {
    for (const path of ['/v1/document-types', '/v1/document-types/es_dni']) {
      const res = await app.request('GET', path, { key: null });
      expect(res.status, path).not.toBe(401);
    }
    const spec = await app.request('GET', '/openapi.json', { key: null, unchecked: true /* not an API operation */ });
    expect(spec.status).toBe(200);
  });

  it('scopes by the key: mode sets the endpoint mode, other accounts see nothing', async () => {
    const live = await app.request('POST', '/v1/webhook-endpoints', { key: app.account.keys.live, json: { url: 'https://hooks.example/live', events: ['*'] } });
    expect(live.status).toBe(201);
    expect(live.body.mode).toBe('live');
    const test = await app.request('POST', '/v1/webhook-endpoints', { json: { url: 'https://hooks.example/test', events: ['analysis.completed'] } });
    expect(test.body.mode).toBe('test');

    const other = await app.newAccount();
    const foreign = await app.request('GET', `/v1/webhook-endpoints/${live.body.id}`, { key: other.keys.live });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_missing');
    const otherList = await app.request('GET', '/v1/webhook-endpoints', { key: other.keys.test });
    expect(otherList.body.data).toEqual([]);
  });

  it('never stores keys in clear: only hashes reach the database', async () => {
    const rows = await app.services.db.selectFrom('api_keys').selectAll().execute();
    const all = JSON.stringify(rows);
    for (const key of Object.values(app.account.keys)) expect(all).not.toContain(key);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key_hash))).toBe(true);
  });
});
