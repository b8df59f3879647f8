/**
 * The webhook sender against a local HTTPS receiver (self-signed, 127.0.0.1). Refused targets must
 * be refused before any connection: the receiver counts connections.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postWebhook, refuseTarget } from '../../../server/src/webhooks/sender.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx?.close());
beforeEach(() => rx.reset());

const HEADERS = { 'content-type': 'application/json', 'user-agent': 'Cotejo-Webhooks/1.0', 'webhook-id': 'msg_x' };

describe('postWebhook', () => {
  it('POSTs the exact body and headers; a 2xx succeeds', async () => {
    const body = '{"type":"test","created_at":"2026-01-01T00:00:00.000Z","data":{"ñ":1}}';
    const r = await postWebhook(rx.url('/ok'), HEADERS, body, { allowPrivate: true, ca: rx.ca });
    expect(r).toMatchObject({ ok: true, statusCode: 200, error: null, refused: false });
    expect(rx.requests).toHaveLength(1);
    expect(rx.requests[0]).toMatchObject({ method: 'POST', path: '/ok', body });
    expect(rx.requests[0].headers).toMatchObject({ ...HEADERS, 'content-length': String(Buffer.byteLength(body)) });
  });

  it('fails on 5xx, on a redirect (not followed) and on a time-out', async () => {
    rx.script.push('500', '302', 'slow');
    rx.slowMs = 800;
    expect(await postWebhook(rx.url('/script'), HEADERS, '{}', { allowPrivate: true, ca: rx.ca })).toMatchObject({ ok: false, statusCode: 500, error: 'HTTP 500' });
    expect(await postWebhook(rx.url('/script'), HEADERS, '{}', { allowPrivate: true, ca: rx.ca })).toMatchObject({ ok: false, statusCode: 302, error: 'redirect (HTTP 302) not followed' });
    const slow = await postWebhook(rx.url('/script'), HEADERS, '{}', { allowPrivate: true, ca: rx.ca, timeoutMs: 200 });
    expect(slow).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 200 ms' });
    expect(slow.durationMs).toBeGreaterThanOrEqual(190);
    expect(rx.to('/ok')).toHaveLength(0); // the redirect was not followed
  });

  it('fails on an untrusted certificate and on a closed port', async () => {
    const tls = await postWebhook(rx.url('/ok'), HEADERS, '{}', { allowPrivate: true });
    expect(tls.ok).toBe(false);
    expect(tls.error).toMatch(/^TLS error: /);
    expect(rx.requests).toHaveLength(0);
    const closed = await postWebhook('https://127.0.0.1:1/ok', HEADERS, '{}', { allowPrivate: true, ca: rx.ca });
    expect(closed).toMatchObject({ ok: false, error: 'network error: ECONNREFUSED' });
  });

  it('refuses non-https, credentials, private literals, localhost and names resolving to private addresses, without connecting', async () => {
    const cases: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${rx.port}/ok`, /not https/],
      [`https://user:pw@127.0.0.1:${rx.port}/ok`, /credentials/],
      [rx.url('/ok'), /127\.0\.0\.1 \(loopback\)/],
      [`https://[::1]:${rx.port}/ok`, /loopback/],
      [`https://[::ffff:127.0.0.1]:${rx.port}/ok`, /not a public address/],
      [`https://169.254.169.254/latest/meta-data`, /metadata/],
      [`https://10.0.0.8/hook`, /private/],
      [`https://localhost:${rx.port}/ok`, /loopback name/],
    ];
    for (const [url, why] of cases) {
      const r = await postWebhook(url, HEADERS, '{}', { allowPrivate: false, ca: rx.ca });
      expect(r, url).toMatchObject({ ok: false, refused: true, statusCode: null });
      expect(r.error, url).toMatch(why);
    }
    const named = await postWebhook(`https://hooks.example.com:${rx.port}/ok`, HEADERS, '{}', {
      allowPrivate: false,
      ca: rx.ca,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(named).toMatchObject({ ok: false, refused: true });
    expect(named.error).toMatch(/hooks\.example\.com resolves to 127\.0\.0\.1/);
    expect(rx.connections()).toBe(0);
    // Non-https stays refused even when private targets are allowed.
    expect(refuseTarget(`http://127.0.0.1:${rx.port}/ok`, true)).toMatch(/not https/);
    // The same name is delivered to when private targets are allowed (development).
    const allowed = await postWebhook(`https://hooks.example.com:${rx.port}/ok`, HEADERS, '{}', {
      allowPrivate: true,
      ca: rx.ca,
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(allowed).toMatchObject({ ok: true, statusCode: 200 });
  });
});
