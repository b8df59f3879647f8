/**
 * #12: a path parameter that is not valid percent-encoded UTF-8, or that decodes to a NUL or another control
 * character, is 404 resource_missing on every route that has one (public ones included), never a 500.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';

const spec = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../generated/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};
const ROUTES = Object.entries(spec.paths)
  .filter(([p]) => p.includes('{'))
  .flatMap(([p, ops]) => Object.keys(ops).filter((m) => ['get', 'post', 'delete'].includes(m)).map((m) => [m.toUpperCase(), p] as const));
const BAD = ['%', '%Z', '%ZZ', '%FF', '%FE%FF', '%C0%AF', '%ED%A0%80', '%00', 'an_%00', '%0A'];

describe.each(DATABASES)('malformed path parameters on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('covers every route with a path parameter', () => expect(ROUTES.length).toBeGreaterThanOrEqual(19));

  it.each(BAD)('segment %s: 404 resource_missing everywhere, in the envelope', async (bad) => {
    for (const [method, route] of ROUTES) {
      const url = route.replace(/\{[^}]+\}/g, bad);
      const res = await app.request(method, url, method === 'POST' ? { json: {} } : {});
      expect(res.status, `${method} ${url}`).toBe(404);
      expect(res.body.error, `${method} ${url}`).toMatchObject({ code: 'resource_missing', type: 'not_found' });
      expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    }
  });

  it('a valid but unknown id is still an ordinary 404', async () => {
    const res = await app.request('GET', '/v1/analyses/an_01JC0000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_missing');
  });
});
