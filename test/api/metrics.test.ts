/**
 * GET /metrics (issue #18): the Prometheus text format, its access rule (a bearer token, else loopback only), the
 * request counters and latency histogram labelled by operation, the queue gauges read from the database at scrape
 * time, webhook delivery outcomes, readings by provider; and nothing in it that names an account, a key or an id.
 * Time moves only through the ManualClock (queue ages are exact).
 */
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/src/app.ts';
import { ConfigError, loadConfig } from '../../server/src/config.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { runDueDeliveries } from '../../server/src/webhooks/deliveries.ts';
import type { SenderOptions } from '../../server/src/webhooks/sender.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';
import { startReceiver, type Receiver } from '../unit/webhooks/receiver.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an exposition text (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** The value of the one sample with this name and (at least) these labels; 0 when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

const TOKEN = 'metrics-token-0123456789abcdef';

describe.each(DATABASES)('metrics on %s', (kind) => {
  let app: TestApp;
  let rx: Receiver;
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    rx = await startReceiver();
    app = await startTestApp(kind, { clock, config: { allowPrivateUrls: true } });
  });
  afterAll(async () => {
    await app?.close();
    await rx?.close();
  });

  const scrape = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${app.baseUrl}/metrics`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    return { text, samples: parse(text) };
  };
  /** A request's metrics are recorded on 'finish', right after the client has its answer: scrape until they show. */
  const scrapeUntil = async (ready: (s: Sample[]) => boolean) => {
    for (let i = 0; ; i++) {
      const got = await scrape();
      if (ready(got.samples) || i === 50) return got;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const analyze = async (key: string, name: string, options: Record<string, unknown> = {}) => {
    const res = await app.request('POST', '/v1/analyze', { key, body: form({ bytes: fixtures.jpeg(), name }, [['options', JSON.stringify(options)]]) });
    return res;
  };

  it('counts requests by operationId or route template and status code, with a latency histogram, and names no account, key or id', async () => {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const before = (await scrape()).samples;
    const requests = (operation: string, code: string, s: Sample[]) => value(s, 'cotejo_http_requests_total', { operation, code });

    const done = await analyze(acct.keys.test, 'dni_valid.jpg', { expect: 'es_dni' });
    expect(done.status).toBe(200);
    const failed = await analyze(acct.keys.test, 'dni_failed.jpg');
    expect(failed.status).toBe(200);
    expect(failed.body.status).toBe('failed');
    expect((await app.request('GET', `/v1/analyses/${done.body.id}`, { key: acct.keys.test })).status).toBe(200);
    expect((await app.request('GET', '/v1/analyses/ana_01JZ0000000000000000000000', { key: acct.keys.test })).status).toBe(404);
    expect((await app.request('GET', '/v1/balance', { key: 'ck_test_not_a_real_key_000000000000' })).status).toBe(401);
    expect((await app.request('GET', `/v1/nowhere/${acct.account}`, { key: acct.keys.test })).status).toBe(404);
    expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
    const preflight = await fetch(`${app.baseUrl}/v1/analyze`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect((await fetch(`${app.baseUrl}/l/lnk_not_a_token_${acct.account}`)).status).toBe(404);
    expect((await fetch(`${app.baseUrl}/dashboard/sign-in`)).status).toBe(200);
    // The catalogue twice: the second answer comes from the fast path (http/public-fast-path.ts), counted all the same.
    for (let i = 0; i < 2; i++) expect((await app.request('GET', '/v1/document-types?limit=1', { key: null })).status).toBe(200);

    const { text, samples } = await scrapeUntil((s) => requests('listDocumentTypes', '200', s) - requests('listDocumentTypes', '200', before) >= 2);
    const delta = (operation: string, code: string) => requests(operation, code, samples) - requests(operation, code, before);
    expect(delta('createAnalysis', '200')).toBe(2);
    expect(delta('getAnalysis', '200')).toBe(1);
    expect(delta('getAnalysis', '404')).toBe(1);
    expect(delta('getBalance', '401')).toBe(1);
    expect(delta('v1_unmatched', '404')).toBe(1);
    expect(delta('/healthz', '200')).toBe(1);
    expect(delta('v1_preflight', '204')).toBe(1);
    expect(delta('/l/:token', '404')).toBe(1);
    expect(delta('/dashboard/sign-in', '200')).toBe(1);
    expect(delta('listDocumentTypes', '200')).toBe(2);
    expect(value(samples, 'cotejo_http_requests_total', { operation: 'createAnalysis', code: '200' })).toBeGreaterThanOrEqual(2);
    expect(samples.find((s) => s.labels.operation === 'createAnalysis')?.labels.method).toBe('POST');

    // The latency histogram: as many observations as answers, every one within the last (+Inf) bucket.
    const count = value(samples, 'cotejo_http_request_duration_seconds_count', { operation: 'createAnalysis' });
    expect(count).toBeGreaterThanOrEqual(2);
    expect(value(samples, 'cotejo_http_request_duration_seconds_bucket', { operation: 'createAnalysis', le: '+Inf' })).toBe(count);
    expect(value(samples, 'cotejo_http_request_duration_seconds_sum', { operation: 'createAnalysis' })).toBeGreaterThan(0);
    expect(text).toContain('le="30"');

    // Readings by mode, outcome and provider (test mode's simulated reader is "mock").
    expect(value(samples, 'cotejo_readings_total', { mode: 'test', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'cotejo_readings_total', { mode: 'test', outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(value(samples, 'cotejo_provider_readings_total', { mode: 'test', provider: 'mock', outcome: 'completed' })).toBeGreaterThanOrEqual(1);

    // Default process metrics (prom-client's), loaded at the first scrape.
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');

    // Nothing that names an account, a key, a resource or a raw path.
    for (const secret of [acct.account, acct.keys.test, acct.key_ids.test, done.body.id, 'ck_test_not_a_real_key', 'lnk_not_a_token', 'ana_01JZ']) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/(acct|ana|ck|sk|pk|whk|we|msg|job|lnk)_[0-9A-Za-z_]{8,}/);
    const operations = new Set(samples.filter((s) => s.name === 'cotejo_http_requests_total').map((s) => s.labels.operation));
    for (const op of operations) expect(op).toMatch(/^([a-zA-Z]+|\/[a-zA-Z0-9/:._-]*|v1_unmatched|v1_preflight|unmatched)$/);
  });

  it('reports queue depth and the age of the oldest due job from the database, per queue', async () => {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const jobs = (s: Sample[], queue: string, state: string) => value(s, 'cotejo_queue_jobs', { queue, state });
    const age = (s: Sample[], queue: string) => value(s, 'cotejo_queue_oldest_due_age_seconds', { queue });

    // Every known queue is reported, empty ones at 0.
    let { samples } = await scrape();
    for (const queue of ['analysis', 'link_email', 'webhook_delivery']) for (const state of ['due', 'scheduled', 'running']) expect(samples.some((s) => s.name === 'cotejo_queue_jobs' && s.labels.queue === queue && s.labels.state === state)).toBe(true);
    expect(jobs(samples, 'analysis', 'due')).toBe(0);
    expect(age(samples, 'analysis')).toBe(0);

    // Two async analyses and no worker: both wait.
    for (let i = 0; i < 2; i++) expect((await analyze(acct.keys.test, 'dni_valid.jpg', { async: true })).status).toBe(202);
    ({ samples } = await scrape());
    expect(jobs(samples, 'analysis', 'due')).toBe(2);
    expect(jobs(samples, 'analysis', 'running')).toBe(0);
    expect(age(samples, 'analysis')).toBe(0);
    clock.advance(90_000);
    ({ samples } = await scrape());
    expect(age(samples, 'analysis')).toBe(90);

    // A worker takes them: the queue is empty again.
    while (await runOneAnalysisJob(app.services));
    ({ samples } = await scrape());
    expect(jobs(samples, 'analysis', 'due')).toBe(0);
    expect(age(samples, 'analysis')).toBe(0);
  });

  it('counts webhook delivery outcomes: refused, retry, succeeded; and pending deliveries as a queue', async () => {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const run = (sender: Partial<SenderOptions> = {}) => runDueDeliveries(app.services, { limit: 50, sender: { ca: rx.ca, ...sender } });
    const attempts = (s: Sample[], outcome: string) => value(s, 'cotejo_webhook_delivery_attempts_total', { outcome, target: 'endpoint' });
    // Deliveries other tests left behind go first, so that this test's figures are its own.
    while ((await run()) > 0);
    const before = (await scrape()).samples;

    for (const path of ['/ok/metrics', '/fail/metrics']) {
      const res = await app.request('POST', '/v1/webhook-endpoints', { key: acct.keys.test, json: { url: rx.url(path), events: ['analysis.completed'] } });
      expect(res.status).toBe(201);
    }
    expect((await analyze(acct.keys.test, 'dni_valid.jpg')).status).toBe(200);
    let { samples } = await scrape();
    expect(value(samples, 'cotejo_queue_jobs', { queue: 'webhook_delivery', state: 'due' })).toBe(2);

    // Private targets not allowed: nothing is sent, both attempts are refused (and retried later).
    expect(await run({ allowPrivate: false })).toBe(2);
    ({ samples } = await scrape());
    expect(attempts(samples, 'refused') - attempts(before, 'refused')).toBe(2);
    expect(value(samples, 'cotejo_queue_jobs', { queue: 'webhook_delivery', state: 'due' })).toBe(0);
    expect(value(samples, 'cotejo_queue_jobs', { queue: 'webhook_delivery', state: 'scheduled' })).toBe(2);

    clock.advance(6_000);
    expect(await run()).toBe(2);
    ({ samples } = await scrape());
    expect(attempts(samples, 'succeeded') - attempts(before, 'succeeded')).toBe(1);
    expect(attempts(samples, 'retry') - attempts(before, 'retry')).toBe(1);
    expect(value(samples, 'cotejo_queue_jobs', { queue: 'webhook_delivery', state: 'scheduled' })).toBe(1);
  });

  it('answers loopback clients only without a token, and refuses what came through a proxy', async () => {
    await scrape();
    for (const headers of [{ 'X-Forwarded-For': '203.0.113.7' }, { Forwarded: 'for=203.0.113.7' }, { 'X-Real-IP': '203.0.113.7' }] as Record<string, string>[]) {
      const res = await fetch(`${app.baseUrl}/metrics`, { headers });
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/COTEJO_METRICS_TOKEN/);
    }
  });

  it.skipIf(!externalAddress())('refuses a client that is not on loopback', async () => {
    // The same services behind a listener on this machine's non-loopback address: the client is not local.
    const address = externalAddress()!;
    const server = http.createServer(buildApp(app.services));
    await new Promise<void>((resolve) => server.listen(0, address, resolve));
    try {
      const res = await fetch(`http://${address}:${(server.address() as AddressInfo).port}/metrics`);
      expect(res.status).toBe(403);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

function externalAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
}

describe('metrics with COTEJO_METRICS_TOKEN', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('pglite', { config: { metricsToken: TOKEN } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('requires the bearer token, from loopback too', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const res = await fetch(`${app.baseUrl}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.text()).not.toContain(TOKEN);
    }
    const ok = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}`, 'X-Forwarded-For': '203.0.113.7' } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('cotejo_http_requests_total');
  });

  it('validates the token at start, never quoting it', () => {
    const short = 'tooshort';
    expect(() => loadConfig({ COTEJO_METRICS_TOKEN: short })).toThrow(ConfigError);
    try {
      loadConfig({ COTEJO_METRICS_TOKEN: short });
    } catch (err) {
      expect(String((err as Error).message)).toMatch(/COTEJO_METRICS_TOKEN must be at least 16 characters/);
      expect(String((err as Error).message)).not.toContain(short);
    }
    expect(() => loadConfig({ COTEJO_METRICS_TOKEN: 'has a space in it 0123456789' })).toThrow(/printable ASCII/);
    expect(loadConfig({ COTEJO_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadConfig({}).metricsToken).toBeNull();
  });
});
