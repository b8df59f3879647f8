// The hosted page in the real app, on the real verification links (domain/links/page.ts) and a real database:
// what the page does to the link (opened, consent with the IP, attempts), refusals shown in the link's language,
// inactive and unknown links, the token never in the request log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../../server/src/http/context.ts';
import { t } from '../../../server/src/web/messages.ts';
import { DATABASES, startTestApp, type TestApp } from '../../support/app.ts';
import { fixtures } from '../../support/files.ts';

/**
 * The app's own logger, with every line written at a level method also kept as JSON (everything else, child loggers
 * included, is the real logger's).
 */
function captureLogger(real: Services['logger'], lines: string[]): Services['logger'] {
  const levels = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
  return new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !levels.has(prop)) return value;
      return (obj: unknown, ...rest: unknown[]) => {
        lines.push(JSON.stringify({ obj, rest }, (_k, v) => (v instanceof Error ? v.message : v)));
        return (value as (...a: unknown[]) => void).call(target, obj, ...rest);
      };
    },
  });
}

describe.each(DATABASES)('hosted page on real links (%s)', (kind) => {
  let app: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    app = await startTestApp(kind);
    app.services.logger = captureLogger(app.services.logger, lines);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Creates a link and answers it with the page's path on the test server (the API's url uses the configured base). */
  async function newLink(json: Record<string, unknown>) {
    const res = await app.request('POST', '/v1/verification-links', { json });
    expect(res.status).toBe(201);
    const path = new URL(res.body.url).pathname;
    return { id: res.body.id as string, path, token: path.slice(3) };
  }
  const page = (path: string, init: RequestInit = {}) => fetch(app.baseUrl + path, { redirect: 'manual', ...init });
  const upload = (path: string, key: string, name: string, bytes: Uint8Array = fixtures.jpeg()) => {
    const fd = new FormData();
    fd.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), name);
    return page(`${path}/documents/${key}`, { method: 'POST', body: fd, headers: { Accept: 'application/json' } });
  };
  const link = async (id: string) => (await app.request('GET', `/v1/verification-links/${id}`)).body;

  it('opens, takes consent with the IP, refuses a wrong file in words, counts a blurry photo and asks again', async () => {
    lines.length = 0;
    const l = await newLink({ documents: [{ key: 'dni', expect: 'es_dni' }], locale: 'pt', redirect_url: 'https://shop.example/back' });
    const open = await page(l.path);
    expect(open.status).toBe(200);
    expect(open.headers.get('cache-control')).toBe('no-store');
    expect(open.headers.get('referrer-policy')).toBe('no-referrer');
    expect(open.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await open.text();
    expect(html).toContain('<html lang="pt">');
    expect(html).toContain(t('pt', 'welcome.heading', { requester: 'Test account' }));
    expect((await link(l.id)).events.map((e: { type: string }) => e.type)).toEqual(['created', 'opened']);

    // Before consent: refused, nothing counted.
    const early = await upload(l.path, 'dni', 'dni_valid.jpg');
    expect(early.status).toBe(409);
    expect((await early.json()).error.message).toBe(t('pt', 'error.consent_required'));

    const consent = await page(`${l.path}/consent`, { method: 'POST' });
    expect(consent.status).toBe(303);
    expect(consent.headers.get('location')).toBe(l.path);
    const afterConsent = await link(l.id);
    expect(afterConsent.consent).toMatchObject({ ip: '127.0.0.1' });
    expect(afterConsent.status).toBe('in_progress');

    // Not an image or PDF: analyze's 415, in Portuguese, not an attempt.
    const wrong = await upload(l.path, 'dni', 'dni_valid.jpg', new TextEncoder().encode('just some text, not a document'));
    expect(wrong.status).toBe(415);
    expect(await wrong.json()).toEqual({ error: { code: 'unsupported_file_type', message: t('pt', 'error.unsupported_file_type') } });
    expect((await link(l.id)).documents[0].attempts).toBe(0);

    // Blurry: another photo, with the attempts left, on the page it points to.
    const blurry = await upload(l.path, 'dni', 'blurry.jpg');
    expect(blurry.status).toBe(200);
    const out = await blurry.json();
    expect(out).toMatchObject({ result: 'retry', key: 'dni', status: 'in_progress', next: `${l.path}?last=dni` });
    expect(out.warnings).toContain('blurry');
    const retry = await (await page(out.next)).text();
    expect(retry).toContain(t('pt', 'retry.heading', { label: 'DNI' }).split(' DNI')[0]);
    expect(retry).toContain(t('pt', 'retry.attempts_left', { n: 4 }));
    expect((await link(l.id)).documents[0]).toMatchObject({ attempts: 1, status: 'pending' });

    // The token is in no log line; the page's requests are there, as /l/{token}.
    const log = lines.join('\n');
    expect(log).not.toContain(l.token);
    expect(log).toContain('"path":"/l/{token}/documents/dni"');
    expect(log).toContain('"path":"/l/{token}/consent"');
  });

  it('a good photo completes the link: the page is the 410 thank-you page and uploads are refused', async () => {
    const l = await newLink({ documents: [{ key: 'dni', expect: 'es_dni' }], locale: 'en', redirect_url: 'https://shop.example/back', redirect_with_status: true });
    await page(l.path);
    await page(`${l.path}/consent`, { method: 'POST' });
    // A plain form post (no script): 303 to the page.
    const fd = new FormData();
    fd.append('file', new Blob([new Uint8Array(0)]), ''); // the unused camera input
    fd.append('file', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), 'dni_valid.jpg');
    const res = await page(`${l.path}/documents/dni`, { method: 'POST', body: fd });
    expect(res.status).toBe(303);
    const done = await page(res.headers.get('location')!);
    expect(done.status).toBe(410);
    const html = await done.text();
    expect(html).toContain(t('en', 'final.heading'));
    expect(html).toContain(`href="https://shop.example/back?link_id=${l.id}&amp;status=completed" data-redirect`);
    expect((await link(l.id)).status).toBe('completed');
    const again = await upload(l.path, 'dni', 'dni_valid.jpg');
    expect(again.status).toBe(410);
    expect((await link(l.id)).documents[0].attempts).toBe(1);
  });

  it('a cancelled link says so (410) and refuses consent and uploads; an unknown token is 404', async () => {
    const l = await newLink({ documents: [{ key: 'dni', expect: 'es_dni' }], locale: 'fr' });
    expect((await app.request('DELETE', `/v1/verification-links/${l.id}`)).status).toBe(200);
    const res = await page(l.path);
    expect(res.status).toBe(410);
    expect(await res.text()).toContain(t('fr', 'gone.cancelled.heading'));
    expect((await page(`${l.path}/consent`, { method: 'POST' })).status).toBe(303);
    expect((await link(l.id)).consent).toBeNull();
    expect((await upload(l.path, 'dni', 'dni_valid.jpg')).status).toBe(410);

    const unknown = await page(`/l/${'A'.repeat(43)}`, { headers: { 'Accept-Language': 'en-GB,en;q=0.9' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain(t('en', 'gone.unknown.heading'));
    // Paths under /l/ that are no page: the page's 404, not the API's JSON.
    const stray = await page('/l/');
    expect(stray.status).toBe(404);
    expect(stray.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});
