import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEntries } from '../../server/src/catalogue/index.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';

type DT = { type: string; label: string; labels: Record<string, string>; countries: string[]; category: string; description: string };

describe.each(DATABASES)('document types on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());
  const get = (path: string, headers?: Record<string, string>) => app.request('GET', path, { key: null, headers });

  it('lists the whole catalogue publicly, sorted, with total, cache headers and an ETag', async () => {
    const res = await get('/v1/document-types');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, url: '/v1/document-types' });
    expect(res.body.total).toBe(allEntries().length);
    expect(res.body.total).toBeGreaterThanOrEqual(167);
    expect(res.body.data).toHaveLength(res.body.total);
    const ids = res.body.data.map((d: DT) => d.type);
    expect(ids).toEqual([...ids].sort());
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('etag')).toMatch(/^"[\w-]+"$/);
    const dni = res.body.data.find((d: DT) => d.type === 'es_dni');
    expect(dni.label).toBe(dni.labels.es); // Spanish by default
  });

  it('answers in the requested language', async () => {
    const en = await get('/v1/document-types?language=en&limit=5');
    for (const d of en.body.data as DT[]) expect(d.label).toBe(d.labels.en);
    const bad = await get('/v1/document-types?language=de');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'language' });
  });

  it('filters by country, including universal types unless strict=true', async () => {
    const loose = await get('/v1/document-types?country=ESP');
    const strict = await get('/v1/document-types?country=ESP&strict=true');
    expect(loose.body.total).toBeGreaterThan(strict.body.total);
    for (const d of loose.body.data as DT[]) expect(d.countries.includes('ESP') || d.countries.includes('*')).toBe(true);
    for (const d of strict.body.data as DT[]) expect(d.countries).toContain('ESP');
    expect((loose.body.data as DT[]).some((d) => d.countries.includes('*'))).toBe(true);
    const lower = await get('/v1/document-types?country=esp&strict=true');
    expect(lower.body.total).toBe(strict.body.total);
  });

  it('422 invalid_parameter for a country that is not ISO alpha-3', async () => {
    for (const c of ['US', 'ES1', 'SPAIN', '']) {
      const res = await get(`/v1/document-types?country=${c}`);
      expect(res.status, c).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'country' });
    }
  });

  it('filters by category and rejects unknown categories', async () => {
    const res = await get('/v1/document-types?category=identity');
    expect(res.body.total).toBeGreaterThan(10);
    for (const d of res.body.data as DT[]) expect(d.category).toBe('identity');
    const bad = await get('/v1/document-types?category=weapons');
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('category');
  });

  it('searches accent- and case-insensitively, every word having to match', async () => {
    const a = await get('/v1/document-types?q=pasaporte');
    const b = await get(`/v1/document-types?q=${encodeURIComponent('PASAPÓRTE')}`);
    expect(a.body.total).toBeGreaterThan(0);
    expect(b.body.data.map((d: DT) => d.type)).toEqual(a.body.data.map((d: DT) => d.type));
    const both = await get(`/v1/document-types?q=${encodeURIComponent('dni trasera')}`);
    expect(both.body.data.map((d: DT) => d.type)).toContain('es_dni_back');
    expect(both.body.data.map((d: DT) => d.type)).not.toContain('es_dni_front');
    const none = await get('/v1/document-types?q=zzqqxx');
    expect(none.body).toMatchObject({ data: [], total: 0, has_more: false });
    const long = await get(`/v1/document-types?q=${'a'.repeat(101)}`);
    expect(long.status).toBe(422);
    expect(long.body.error.param).toBe('q');
    // The search is over every language: an English word finds Spanish types.
    const en = await get('/v1/document-types?q=payslip&country=ESP&strict=true');
    expect(en.body.data.map((d: DT) => d.type).some((t: string) => t.startsWith('es_'))).toBe(true);
  });

  it('pages with limit and starting_after; total counts every match; filters apply before paging', async () => {
    const all = (await get('/v1/document-types?category=tax')).body.data.map((d: DT) => d.type);
    const walked: string[] = [];
    let after: string | undefined;
    for (;;) {
      const res = await get(`/v1/document-types?category=tax&limit=7${after ? `&starting_after=${after}` : ''}`);
      expect(res.body.total).toBe(all.length);
      walked.push(...res.body.data.map((d: DT) => d.type));
      if (!res.body.has_more) break;
      expect(res.body.data).toHaveLength(7);
      after = res.body.data.at(-1).type;
    }
    expect(walked).toEqual(all);
    for (const [q, param] of [['limit=0', 'limit'], ['limit=501', 'limit'], ['limit=ten', 'limit'], [`starting_after=${'x'.repeat(101)}`, 'starting_after'], ['colour=red', 'colour']]) {
      const res = await get(`/v1/document-types?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect((await get('/v1/document-types?limit=500')).status).toBe(200);
  });

  it('answers 304 Not Modified to a matching If-None-Match', async () => {
    const first = await get('/v1/document-types?country=PRT');
    const etag = first.headers.get('etag')!;
    const again = await get('/v1/document-types?country=PRT', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const other = await get('/v1/document-types?country=PRT&language=fr', { 'If-None-Match': etag });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).not.toBe(etag);
    const detail = await get('/v1/document-types/es_dni');
    expect((await get('/v1/document-types/es_dni', { 'If-None-Match': `W/${detail.headers.get('etag')}, "nope"` })).status).toBe(304);
  });

  it('returns one type with every field of the DocumentType resource', async () => {
    const res = await get('/v1/document-types/es_dni?language=en');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.body).toMatchObject({ object: 'document_type', type: 'es_dni', category: 'identity', countries: ['ESP'] });
    expect(res.body.label).toBe(res.body.labels.en);
    for (const k of ['labels', 'descriptions', 'slugs']) expect(Object.keys(res.body[k]).sort()).toEqual(['en', 'es', 'fr', 'pt']);
    for (const f of res.body.fields) expect(res.body.schema.properties).toHaveProperty(f);
    expect(res.body.validators).toContain('nif_check_digit');
    expect(res.body.expiry_check_default).toBe(true);
  });

  it('404 resource_missing for an unknown type; only `language` is accepted', async () => {
    const res = await get('/v1/document-types/xx_unicorn_licence');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'not_found', code: 'resource_missing', param: 'type' });
    const extra = await get('/v1/document-types/es_dni?country=ESP');
    expect(extra.status).toBe(422);
    expect(extra.body.error.param).toBe('country');
  });

  it('needs no key, and ignores one if sent', async () => {
    const res = await app.request('GET', '/v1/document-types/passport', { key: 'ck_test_garbage' });
    expect(res.status).toBe(200);
  });
});
