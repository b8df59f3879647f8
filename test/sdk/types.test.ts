// The SDK's parameter and response types, checked by the type checker (`npm run typecheck` includes test/) and run
// against an injected `fetch` so that every call below is also a real request.
//
// generated/api.d.ts is made with openapi-typescript's `defaultNonNullable: false` (scripts/generate.ts): a request
// field that has a default is optional, as the caller may leave it out. Response fields stay as the spec says:
// a field the server always sends is in the schema's `required` list, which wins over defaults either way.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { Cotejo, type Schemas } from '../../sdk/src/index.ts';
import type { JsonBodyOf, QueryOf, ResponseOf } from '../../sdk/src/types.ts';

const sent: Array<{ method: string; url: string; body: unknown }> = [];
const cotejo = new Cotejo({
  apiKey: 'ck_test_types',
  baseURL: 'https://api.example.test',
  maxRetries: 0,
  fetch: async (url, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body;
    sent.push({ method: String(init?.method), url: String(url), body });
    const object = String(url).includes('verification-links') ? 'verification_link' : String(url).includes('/v1/analyses') ? 'list' : 'analysis';
    return new Response(JSON.stringify({ object, data: [], has_more: false, url: '/v1/analyses' }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  },
});

describe('request types: defaulted and optional fields may be left out', () => {
  it('analyses.list() and analyses.create({ file }) with nothing else', async () => {
    await cotejo.analyses.list();
    await cotejo.analyses.create({ file: new Uint8Array([0xff, 0xd8, 0xff]), filename: 'dni_valid.jpg' });
    expect(sent.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual(['GET /v1/analyses', 'POST /v1/analyze']);
  });

  it('verificationLinks.create without expires_in_hours, redirect_with_status or include_results (defaults 72, false, true)', async () => {
    const link = await cotejo.verificationLinks.create({ documents: [{ key: 'dni', expect: 'es_dni' }] });
    expect(link.object).toBe('verification_link');
    expect(sent.at(-1)!.body).toEqual({ documents: [{ key: 'dni', expect: 'es_dni' }] });
  });

  it('the fields are optional in the generated request types', () => {
    type LinkBody = JsonBodyOf<'createVerificationLink'>;
    expectTypeOf<{ documents: NonNullable<LinkBody['documents']> }>().toExtend<LinkBody>();
    expectTypeOf<LinkBody['expires_in_hours']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<LinkBody['redirect_with_status']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<LinkBody['include_results']>().toEqualTypeOf<boolean | undefined>();
    // A query parameter with a default (limit: 10) is optional too.
    expectTypeOf<{}>().toExtend<QueryOf<'listAnalyses'>>();
    // Required request fields are still required.
    // @ts-expect-error `decision` is required
    expectTypeOf<{ note: string }>().toExtend<JsonBodyOf<'reviewAnalysis'>>();
  });
});

describe('response types: what the server always sends is present', () => {
  it('a verification link has include_results and redirect_with_status, an analysis its status and id', () => {
    type Link = ResponseOf<'createVerificationLink'>;
    expectTypeOf<Link['include_results']>().toEqualTypeOf<boolean>();
    expectTypeOf<Link['redirect_with_status']>().toEqualTypeOf<boolean>();
    expectTypeOf<Schemas['Analysis']['status']>().not.toBeUndefined();
    expectTypeOf<Schemas['Analysis']['id']>().toEqualTypeOf<string>();
    expectTypeOf<ResponseOf<'listAnalyses'>['has_more']>().toEqualTypeOf<boolean>();
  });
});
