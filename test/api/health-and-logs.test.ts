/**
 * Liveness and readiness probes (GET /healthz, GET /readyz), and the request log's one path form (issue #14): an
 * answer and an error of the same API both log the path the client sent, /v1 included.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';

describe.each(DATABASES)('health probes and request logs on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('GET /healthz answers 200 without a key, never cached', async () => {
    const res = await fetch(`${app.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 while the database answers, and 503 shutting_down once the process stops', async () => {
    const ready = await fetch(`${app.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({ status: 'ready', database: kind });
    // Probes that arrive together share the check; all of them are answered.
    const many = await Promise.all(Array.from({ length: 8 }, () => fetch(`${app.baseUrl}/readyz`).then((r) => r.status)));
    expect(many).toEqual(Array(8).fill(200));

    app.services.stopping = true;
    try {
      const stopping = await fetch(`${app.baseUrl}/readyz`);
      expect(stopping.status).toBe(503);
      expect(await stopping.json()).toEqual({ status: 'unavailable', reason: 'shutting_down' });
      // Liveness is not readiness: the process still answers.
      expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      app.services.stopping = false;
    }
  });

  it('logs successes and errors with the same path form, /v1 included; probes only at debug', async () => {
    const info = vi.spyOn(app.services.logger, 'info');
    const debug = vi.spyOn(app.services.logger, 'debug');
    try {
      expect((await app.request('GET', '/v1/webhook-endpoints')).status).toBe(200);
      expect((await app.request('GET', '/v1/analyses/ana_01JZ0000000000000000000000')).status).toBe(404);
      expect((await app.request('GET', '/v1/nowhere')).status).toBe(404);
      expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
      // 'finish' fires after the client has its answer: wait for the lines.
      await vi.waitFor(() => expect(info.mock.calls.filter((c) => c[1] === 'request')).toHaveLength(3));
      const paths = info.mock.calls.filter((c) => c[1] === 'request').map((c) => (c[0] as { path: string; status: number }));
      expect(paths.map((p) => [p.path, p.status])).toEqual([
        ['/v1/webhook-endpoints', 200],
        ['/v1/analyses/ana_01JZ0000000000000000000000', 404],
        ['/v1/nowhere', 404],
      ]);
      await vi.waitFor(() => expect(debug.mock.calls.some((c) => c[1] === 'request' && (c[0] as { path: string }).path === '/healthz')).toBe(true));
    } finally {
      info.mockRestore();
      debug.mockRestore();
    }
  });
});

describe('readiness when the database is gone', () => {
  it('GET /readyz answers 503 database_unreachable', async () => {
    const app = await startTestApp('pglite');
    const close = app.services.database.close;
    try {
      await close();
      app.services.database.close = async () => {}; // already closed: the app's own close must not fail on it
      const res = await fetch(`${app.baseUrl}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'unavailable', reason: 'database_unreachable' });
    } finally {
      await app.close();
    }
  });
});
