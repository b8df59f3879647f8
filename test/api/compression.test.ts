// Compression of what the service sends (issue #29: /docs and /openapi.json went out uncompressed, also to clients
// that asked for gzip). Through the real app on a real database, with raw HTTP requests (fetch would decode the body
// and hide what was on the wire): the coding the request takes, Vary, Content-Length of the bytes sent, the ETag of
// each coding and 304 for either, bodies identical once decoded, small answers and HEAD as they were.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { redocBundle } from '../../server/src/http/docs.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_BYTES, negotiate } from '../../server/src/http/compression.ts';
import { publicFastPathServed } from '../../server/src/http/public-fast-path.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures, form } from '../support/files.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OPENAPI = fs.readFileSync(path.join(ROOT, 'generated/openapi.json'));
// The bundle as served: Redoc's, with its CDN logo taken out (http/docs.ts).
const REDOC = redocBundle();

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes on the wire. */
  wire: Buffer;
  /** Decoded from Content-Encoding. */
  body: Buffer;
}

function get(base: string, pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathname}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const wire = Buffer.concat(chunks);
        const coding = res.headers['content-encoding'];
        const body = coding === 'br' ? zlib.brotliDecompressSync(wire) : coding === 'gzip' ? zlib.gunzipSync(wire) : wire;
        resolve({ status: res.statusCode!, headers: res.headers, wire, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Asks until the response comes in `coding` (br is made in the background after a first gzip answer). */
async function until(base: string, pathname: string, headers: Record<string, string>, coding: string): Promise<Raw> {
  for (let i = 0; i < 600; i++) {
    const r = await get(base, pathname, headers);
    if (r.headers['content-encoding'] === coding) return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${pathname} never came in ${coding}`);
}

describe('negotiate (Accept-Encoding)', () => {
  it('takes the acceptable coding of highest q, br on a tie; * stands for the others; q=0 refuses', () => {
    expect(negotiate(undefined)).toBeNull();
    expect(negotiate('')).toBeNull();
    expect(negotiate('identity')).toBeNull();
    expect(negotiate('gzip, deflate')).toBe('gzip');
    expect(negotiate('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiate('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(negotiate('BR;Q=1, GZIP;q=1')).toBe('br');
    expect(negotiate('*')).toBe('br');
    expect(negotiate('*;q=0.1, br;q=0')).toBe('gzip');
    expect(negotiate('gzip;q=0, br;q=0')).toBeNull();
    expect(negotiate('x-gzip')).toBe('gzip');
    expect(negotiate(['deflate', 'gzip;q=0.3'])).toBe('gzip');
    expect(negotiate('gzip;q=nonsense')).toBe('gzip');
    expect(negotiate('gzip, br', ['gzip'])).toBe('gzip');
    expect(negotiate('br', ['gzip'])).toBeNull();
  });
});

describe.each(DATABASES)('compressed responses (%s)', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  }, 60_000);
  afterAll(() => app?.close());

  it('/openapi.json: br or gzip as asked, byte-identical to generated/openapi.json once decoded; identity without asking', async () => {
    const plain = await get(app.baseUrl, '/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.wire.equals(OPENAPI)).toBe(true);
    expect(plain.headers.vary).toContain('Accept-Encoding');
    expect(plain.headers['content-length']).toBe(String(OPENAPI.length));

    const gzip = await get(app.baseUrl, '/openapi.json', { 'Accept-Encoding': 'gzip, deflate' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.body.equals(OPENAPI)).toBe(true);
    expect(gzip.headers['content-length']).toBe(String(gzip.wire.length));
    expect(gzip.wire.length).toBeLessThan(OPENAPI.length / 10);
    expect(gzip.headers.vary).toContain('Accept-Encoding');

    // Only br: waits for it; both: gzip until br is made, br from then on.
    const br = await get(app.baseUrl, '/openapi.json', { 'Accept-Encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.body.equals(OPENAPI)).toBe(true);
    expect(br.wire.length).toBeLessThan(gzip.wire.length);
    const both = await until(app.baseUrl, '/openapi.json', { 'Accept-Encoding': 'gzip, deflate, br' }, 'br');
    // (The first client that prefers br while br is being made gets gzip: the Redoc bundle, asked for the first time.)
    const first = await get(app.baseUrl, '/docs/redoc.standalone.js', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(both.wire.equals(br.wire)).toBe(true);

    // One ETag per coding; either one, sent back, answers 304.
    const tags = [plain, gzip, br].map((r) => r.headers.etag!);
    expect(new Set(tags).size).toBe(3);
    expect(tags[1]).toBe(`${tags[0].slice(0, -1)}-gzip"`);
    for (const tag of tags) expect((await get(app.baseUrl, '/openapi.json', { 'Accept-Encoding': 'br', 'If-None-Match': tag })).status).toBe(304);
    const refused = await get(app.baseUrl, '/openapi.json', { 'Accept-Encoding': 'br;q=0, gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    const head = await get(app.baseUrl, '/openapi.json', { 'Accept-Encoding': 'gzip' }, 'HEAD');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.wire.length).toBe(0);
  }, 120_000);

  it('/docs and Redoc: the bundle in gzip (and br once made), identical once decoded', async () => {
    const bundle = await get(app.baseUrl, '/docs/redoc.standalone.js', { 'Accept-Encoding': 'gzip, br' });
    expect(['gzip', 'br']).toContain(bundle.headers['content-encoding']);
    expect(bundle.body.equals(REDOC)).toBe(true);
    expect(bundle.wire.length).toBeLessThan(REDOC.length / 3);
    expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const page = await get(app.baseUrl, '/docs', { 'Accept-Encoding': 'gzip, br' });
    expect(page.status).toBe(200);
    expect(page.body.toString()).toContain('/docs/redoc.standalone.js');
    // The page itself is under MIN_BYTES: sent as it is.
    expect(page.wire.length < MIN_BYTES).toBe(page.headers['content-encoding'] === undefined);
  }, 120_000);

  it('/v1 JSON: a page of analyses compressed as it is sent; a small answer as it was, with Vary', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await app.request('POST', '/v1/analyze', { body: form({ bytes: fixtures.jpeg(), name: 'dni_valid.jpg', type: 'image/jpeg' }, [['options', JSON.stringify({ expect: 'es_dni' })]]) });
      expect(r.status).toBe(200);
    }
    const auth = { Authorization: `Bearer ${app.account.keys.test}` };
    const plain = await get(app.baseUrl, '/v1/analyses?limit=12', auth);
    expect(plain.wire.length).toBeGreaterThan(MIN_BYTES);
    const br = await get(app.baseUrl, '/v1/analyses?limit=12', { ...auth, 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-length']).toBe(String(br.wire.length));
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(JSON.parse(br.body.toString()).data).toHaveLength(12);
    expect(br.wire.length).toBeLessThan(plain.wire.length / 4);
    expect(br.headers['x-request-id']).toMatch(/^req_/);

    const small = await get(app.baseUrl, '/v1/webhook-endpoints', { ...auth, 'Accept-Encoding': 'gzip, br' });
    expect(small.status).toBe(200);
    expect(small.wire.length).toBeLessThan(MIN_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toContain('Accept-Encoding');
    // Errors too: small, as they were.
    const missing = await get(app.baseUrl, '/v1/analyses/an_01JPB2M4N6P8Q0R2S4T6V8W0X2', { ...auth, 'Accept-Encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(missing.body.toString()).error.code).toBe('resource_missing');
  }, 120_000);

  it('the catalogue (memoized, then the public fast path): each coding made once, its ETag, 304 for either', async () => {
    const url = '/v1/document-types?limit=100&language=es';
    const plain = await get(app.baseUrl, url);
    expect(plain.status).toBe(200);
    const before = publicFastPathServed();
    const br = await until(app.baseUrl, url, { 'Accept-Encoding': 'gzip, br' }, 'br');
    expect(publicFastPathServed()).toBeGreaterThan(before);
    expect(br.body.equals(plain.wire)).toBe(true);
    expect(br.headers.etag).toBe(`${plain.headers.etag!.slice(0, -1)}-br"`);
    expect(br.headers.vary).toContain('Accept-Encoding');
    expect(br.headers['content-length']).toBe(String(br.wire.length));
    const again = await get(app.baseUrl, url, { 'Accept-Encoding': 'gzip, br' });
    expect(again.wire.equals(br.wire)).toBe(true);
    for (const tag of [plain.headers.etag!, br.headers.etag!]) {
      const r = await get(app.baseUrl, url, { 'Accept-Encoding': 'gzip, br', 'If-None-Match': tag });
      expect(r.status).toBe(304);
      expect(r.wire.length).toBe(0);
      expect(r.headers.etag).toBe(br.headers.etag);
    }
  }, 120_000);

  it('the hosted page, its assets and the dashboard', async () => {
    const css = await get(app.baseUrl, '/l/assets/page.css', { 'Accept-Encoding': 'br' });
    expect(css.status).toBe(200);
    expect(css.headers['content-encoding']).toBe('br');
    expect(css.body.equals(fs.readFileSync(path.join(ROOT, 'server/src/web/assets/page.css')))).toBe(true);
    const dashboardCss = await get(app.baseUrl, '/dashboard/assets/dashboard.css', { 'Accept-Encoding': 'gzip' });
    expect(dashboardCss.headers['content-encoding']).toBe('gzip');
    expect(dashboardCss.body.equals(fs.readFileSync(path.join(ROOT, 'server/src/web/dashboard/assets/dashboard.css')))).toBe(true);
    const signIn = await get(app.baseUrl, '/dashboard/sign-in', { 'Accept-Encoding': 'gzip', 'Accept-Language': 'es' });
    expect(signIn.status).toBe(200);
    expect(signIn.headers['content-encoding']).toBe(signIn.body.length >= MIN_BYTES ? 'gzip' : undefined);
    expect(signIn.body.toString()).toContain('action="/dashboard/sign-in"');
    expect(signIn.headers['set-cookie']).toBeDefined();
    const link = await app.request('POST', '/v1/verification-links', { json: { documents: [{ key: 'id', expect: 'es_dni' }] } });
    const page = await get(app.baseUrl, `/l/${(link.body as { url: string }).url.split('/l/')[1]}`, { 'Accept-Encoding': 'br', 'Accept-Language': 'es' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.body.toString()).toContain('te pide unos documentos');
    expect(page.headers['cache-control']).toContain('no-store');
  }, 120_000);
});
