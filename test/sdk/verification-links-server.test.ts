// The SDK's `verificationLinks` resource against the real server (test mode, worker on), on PGlite and PostgreSQL
// when DATABASE_URL is set: create, retrieve (with qr_svg), list with auto-pagination and filters, cancel, and the
// typed errors. Every answer the SDK reads is checked against the OpenAPI document first. The page flow itself is
// tested through HTTP (test/api/verification-links.test.ts) and in the browser (test/e2e/hosted-page.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { assertMatchesSpec } from '../support/spec.ts';
import { Cotejo, NotFoundError, UnprocessableEntityError } from '../../sdk/src/index.ts';

const specCheckedFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  const url = new URL(String(input));
  const text = await res.clone().text();
  const isJson = (res.headers.get('content-type') ?? '').includes('json') && text !== '';
  assertMatchesSpec(String(init?.method ?? 'GET'), url.pathname + url.search, { status: res.status, headers: res.headers, body: isJson ? JSON.parse(text) : text });
  return res;
};

describe.each(DATABASES)('SDK verificationLinks on %s', (kind) => {
  let app: TestApp;
  let cotejo: Cotejo;
  let stranger: Cotejo;
  const client = (apiKey: string) => new Cotejo({ apiKey, baseURL: app.baseUrl, maxRetries: 0, fetch: specCheckedFetch });

  beforeAll(async () => {
    app = await startTestApp(kind, { worker: true });
    cotejo = client(app.account.keys.test);
    stranger = client((await app.newAccount({ rateLimitPerSecond: 100_000 })).keys.test);
  }, 60_000);
  afterAll(() => app?.close());

  it('create, retrieve, list (auto-pagination, filters), cancel; typed errors', async () => {
    const made = await cotejo.verificationLinks.create(
      { documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni' }], reference: 'sdk-1', metadata: { crm: '9' }, locale: 'en' },
      { idempotencyKey: 'sdk-link-1' },
    );
    expect(made).toMatchObject({ object: 'verification_link', status: 'pending', reference: 'sdk-1', locale: 'en', documents: [{ key: 'dni', expect: ['es_dni'] }] });
    expect(made.qr_svg).toContain('<svg');
    expect(made.url).toMatch(/\/l\/[A-Za-z0-9_-]{43}$/);
    // The same Idempotency-Key replays the same link.
    const again = await cotejo.verificationLinks.create({ documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni' }], reference: 'sdk-1', metadata: { crm: '9' }, locale: 'en' }, { idempotencyKey: 'sdk-link-1' });
    expect(again.id).toBe(made.id);

    const got = await cotejo.verificationLinks.retrieve(made.id);
    expect(got).toMatchObject({ id: made.id, dossier_id: made.dossier_id });
    expect(got.qr_svg).toBe(made.qr_svg);

    for (let i = 2; i <= 3; i++) await cotejo.verificationLinks.create({ documents: [{ key: 'dni', expect: 'es_dni' }], reference: `sdk-${i}` });
    const all: string[] = [];
    for await (const l of cotejo.verificationLinks.list({ limit: 1 })) {
      expect(l).not.toHaveProperty('qr_svg');
      all.push(l.reference!);
    }
    expect(all.slice(0, 3)).toEqual(['sdk-3', 'sdk-2', 'sdk-1']);
    const filtered = await cotejo.verificationLinks.list({ reference: 'sdk-2' });
    expect(filtered.data.map((l) => l.reference)).toEqual(['sdk-2']);

    const cancelled = await cotejo.verificationLinks.cancel(made.id);
    expect(cancelled).toMatchObject({ id: made.id, status: 'cancelled' });
    expect((await cotejo.verificationLinks.cancel(made.id)).status).toBe('cancelled');

    await expect(stranger.verificationLinks.retrieve(made.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(cotejo.verificationLinks.create({ reference: 'no documents' } as never)).rejects.toMatchObject({ code: 'documents_required' });
    await expect(cotejo.verificationLinks.create({ documents: [{ key: 'dni' }], callback_url: 'http://example.com/cb' })).rejects.toBeInstanceOf(UnprocessableEntityError);
  });
});
