/**
 * The catalogue's repeat requests are served before Express from memory (issue #13): the answer must be the one the
 * full pipeline gives (status, body, every header but the request id and the remaining count), 304s included, and
 * the per-address public limit still holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicFastPathServed } from '../../server/src/http/public-fast-path.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';

const comparable = (h: Headers): Record<string, string> => {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    if (!['x-request-id', 'ratelimit-remaining', 'date', 'ratelimit-reset'].includes(k)) out[k] = v;
  });
  return out;
};

describe.each(DATABASES)('public fast path on %s', (kind) => {
  let app: TestApp;
  // The limiter's windows follow this clock: a test moves it to a fresh window, and no window ends mid-test.
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    app = await startTestApp(kind, { clock, config: { publicRateLimitPerSecond: 30 } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('a repeat gets the same answer as the first, through the pipeline: 200 and 304, headers and body', async () => {
    clock.advance(1000);
    const path = '/v1/document-types?limit=3&language=en';
    const before = publicFastPathServed();
    const first = await app.request('GET', path, { key: null });
    expect(publicFastPathServed()).toBe(before);
    const second = await app.request('GET', path, { key: null });
    expect(publicFastPathServed()).toBe(before + 1);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(comparable(second.headers)).toEqual(comparable(first.headers));
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    expect(second.headers.get('x-request-id')).toMatch(/^req_/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(Number(second.headers.get('ratelimit-remaining'))).toBeLessThan(Number(first.headers.get('ratelimit-remaining')));

    const etag = first.headers.get('etag')!;
    const a = await app.request('GET', path, { key: null, headers: { 'If-None-Match': etag } });
    const b = await app.request('GET', path, { key: null, headers: { 'If-None-Match': `W/"other", ${etag}` } });
    expect([a.status, b.status]).toEqual([304, 304]);
    expect(a.bytes.length + b.bytes.length).toBe(0);
    expect(comparable(b.headers)).toEqual(comparable(a.headers));
    // A 304 the pipeline gives (a new URL, If-None-Match: *) and its repeat on the fast path: the same.
    const other = '/v1/document-types?limit=4&language=en';
    const viaPipeline = await app.request('GET', other, { key: null, headers: { 'If-None-Match': '*' } });
    const viaFastPath = await app.request('GET', other, { key: null, headers: { 'If-None-Match': '*' } });
    expect([viaPipeline.status, viaFastPath.status]).toEqual([304, 304]);
    expect(comparable(viaFastPath.headers)).toEqual(comparable(viaPipeline.headers));
    // A different If-None-Match is a 200 again.
    expect((await app.request('GET', path, { key: null, headers: { 'If-None-Match': '"stale"' } })).status).toBe(200);
  });

  it('a different URL (another query, invalid parameters) still goes the whole way', async () => {
    clock.advance(1000);
    expect((await app.request('GET', '/v1/document-types?limit=2&language=en', { key: null })).status).toBe(200);
    const before = publicFastPathServed();
    const bad = await app.request('GET', '/v1/document-types?limit=0', { key: null });
    expect(bad.status).toBe(422);
    expect((await app.request('GET', '/v1/document-types?limit=0', { key: null })).status).toBe(422);
    expect(publicFastPathServed()).toBe(before);
  });

  it('the public limit per address holds on the fast path: 429 in the envelope once it is spent', async () => {
    clock.advance(1000); // a fresh one-second window, which lasts as long as the test
    const path = '/v1/document-types?limit=1';
    const statuses: number[] = [];
    let limited;
    for (let i = 0; i < 40; i++) {
      const res = await app.request('GET', path, { key: null });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.filter((s) => s === 200).length).toBe(30);
    expect(limited?.body.error.code).toBe('rate_limited');
    expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
