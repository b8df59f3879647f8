/**
 * Requests Node's HTTP parser refuses before the app (issue #12): over-long headers, bytes that are not HTTP, a body
 * cut short, a request too slow. Each gets the contract's envelope with a request id, not Node's bare answer; the
 * server goes on answering. Sent over raw sockets, since fetch will not send most of them.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';

/** Writes raw bytes, reads until the server closes; returns status, headers and parsed body. */
async function raw(baseUrl: string, request: string | Buffer, opts: { keepOpenMs?: number } = {}) {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (c) => chunks.push(c));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write(request);
  if (!opts.keepOpenMs) socket.end();
  await closed;
  const text = Buffer.concat(chunks).toString('utf8');
  // One response, and nothing after it.
  expect(text.match(/^HTTP\/1\.1 /gm)?.length ?? 0).toBeLessThanOrEqual(1);
  const [head, body = ''] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : null };
}

describe.each(DATABASES)('answers from the HTTP layer on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  const expectEnvelope = (r: Awaited<ReturnType<typeof raw>>, status: number, code: string, type = 'invalid_request') => {
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(r.body.error).toMatchObject({ type, code, request_id: r.headers['x-request-id'] });
    expect(typeof r.body.error.message).toBe('string');
  };

  it('headers over 16 KiB: 431 headers_too_large in the envelope', async () => {
    const r = await raw(app.baseUrl, `GET /v1/document-types HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(r, 431, 'headers_too_large');
  });

  it('a NUL in a header, or a request line that is not HTTP: 400 malformed_request', async () => {
    expectEnvelope(await raw(app.baseUrl, 'GET /v1/document-types HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n'), 400, 'malformed_request');
    expectEnvelope(await raw(app.baseUrl, 'HELLO\r\n\r\n'), 400, 'malformed_request');
  });

  it('a body shorter than its Content-Length: 400 malformed_request; after an early answer, nothing more', async () => {
    const cut = (auth: string) =>
      raw(app.baseUrl, `POST /v1/webhook-endpoints HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`);
    // With a key the app waits for the body, which never completes: the parser's error is the answer.
    expectEnvelope(await cut(`Authorization: Bearer ${app.account.keys.test}\r\n`), 400, 'malformed_request');
    // Without one the app answers 401 early (on PostgreSQL after the shared rate limiter's one statement, by which time
    // the cut may already be known: then 400). Either way one answer, and no second, unsolicited one for the cut body.
    const early = await cut('');
    if (early.status === 401) expectEnvelope(early, 401, 'missing_api_key', 'authentication');
    else expectEnvelope(early, 400, 'malformed_request');
  });

  it('the server answers normally afterwards', async () => {
    const res = await app.request('GET', '/v1/document-types/es_dni');
    expect(res.status).toBe(200);
  });
});
