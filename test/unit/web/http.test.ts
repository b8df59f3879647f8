// The hosted page's HTTP layer (server/src/web/routes.ts): headers, status codes, redirects, multipart handling
// and localised refusals. The verification-link domain is replaced by a small in-memory implementation of the
// page contract (domain/links/page.ts) so every state can be reached directly; the real links are exercised by
// test/unit/web/app.test.ts and the browser test.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LinkUnavailable, type PageView, type UploadOutcome } from '../../../server/src/domain/links/page.ts';
import { ApiError } from '../../../server/src/errors.ts';
import type { Services } from '../../../server/src/http/context.ts';
import { t } from '../../../server/src/web/messages.ts';
import { logPath, mountHosted, PAGE_CSP, preferredLanguage, type LinkPages } from '../../../server/src/web/routes.ts';

const TOKEN = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA';

function freshView(): PageView {
  return {
    status: 'pending',
    locale: 'en',
    requester: 'Acme',
    consent_text: 'I agree.',
    consent_accepted: false,
    show_result: true,
    documents: [{ key: 'dni', label: 'ID card', status: 'pending', outcome: null, attempts: 0, attempts_left: 5, warnings: [], verdict_status: null }],
    redirect_url: 'https://shop.example/back',
    expires_at: '2030-01-01T00:00:00.000Z',
    livemode: false,
  };
}

/** One link in memory, behaving as the contract says (blurry names ask for another photo). */
class MemoryLinks implements LinkPages {
  view = freshView();
  opened = 0;
  consentIp: string | null = null;
  uploads: Array<{ key: string; filename: string; size: number }> = [];
  private find(token: string): PageView | null {
    return token === TOKEN ? this.view : null;
  }
  private active(token: string): PageView {
    const v = this.find(token);
    if (!v) throw new LinkUnavailable('unknown');
    if (v.status === 'completed' || v.status === 'expired' || v.status === 'cancelled') throw new LinkUnavailable(v.status);
    return v;
  }
  viewByToken = async (_s: Services, token: string) => structuredClone(this.find(token));
  openByToken = async (_s: Services, token: string) => {
    if (this.find(token)) this.opened++;
    return structuredClone(this.find(token));
  };
  acceptConsent = async (_s: Services, token: string, ip: string) => {
    const v = this.active(token);
    v.consent_accepted = true;
    this.consentIp = ip;
    return structuredClone(v);
  };
  uploadByToken = async (_s: Services, token: string, key: string, file: { bytes: Uint8Array; filename: string }): Promise<UploadOutcome> => {
    const v = this.active(token);
    if (file.bytes[0] !== 0xff) throw new ApiError(415, 'unsupported_file_type', 'Tipo de archivo no admitido.');
    this.uploads.push({ key, filename: file.filename, size: file.bytes.length });
    const d = v.documents.find((x) => x.key === key)!;
    d.attempts++;
    d.attempts_left--;
    d.status = 'completed';
    if (file.filename.includes('blurry')) {
      d.warnings = ['blurry'];
      return { view: structuredClone(v), key, result: 'retry', warnings: ['blurry'] };
    }
    d.warnings = [];
    d.outcome = 'accepted';
    d.verdict_status = 'valid';
    v.status = 'completed';
    return { view: structuredClone(v), key, result: 'accepted', warnings: [] };
  };
}

const jpeg = (size = 64): Uint8Array => {
  const b = new Uint8Array(size);
  b.set([0xff, 0xd8, 0xff]);
  return b;
};

describe('hosted page HTTP layer', () => {
  let server: http.Server;
  let base: string;
  let links: MemoryLinks;
  let dataDir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-hosted-'));
    // Every line the app writes, as JSON (the same calls as pino's: an object, then a message).
    const line = (obj: object, msg?: string) => void logs.push(JSON.stringify({ ...obj, msg }));
    const logger = { debug: line, info: line, warn: line, error: line };
    const services = { config: { dataDir }, logger } as unknown as Services;
    const app = express();
    // As app.ts logs requests (the path read on arrival: a mounted router strips /l from req.path meanwhile).
    app.use((req, res, next) => {
      const sent = req.path;
      res.on('finish', () => logger.info({ path: logPath(sent), status: res.statusCode }, 'request'));
      next();
    });
    mountHosted(app, services, {
      viewByToken: (...a) => links.viewByToken(...a),
      openByToken: (...a) => links.openByToken(...a),
      acceptConsent: (...a) => links.acceptConsent(...a),
      uploadByToken: (...a) => links.uploadByToken(...a),
    });
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    links = new MemoryLinks();
  });

  const get = (p: string, headers: Record<string, string> = {}) => fetch(base + p, { headers, redirect: 'manual' });
  const upload = (files: Array<{ bytes: Uint8Array; name: string }>, headers: Record<string, string> = {}, key = 'dni') => {
    const fd = new FormData();
    for (const f of files) fd.append('file', new Blob([f.bytes as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), f.name);
    return fetch(`${base}/l/${TOKEN}/documents/${key}`, { method: 'POST', body: fd, headers, redirect: 'manual' });
  };

  it('serves the page with no-store, no referrer, no framing and a strict CSP', async () => {
    const res = await get(`/l/${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toBe(PAGE_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await res.text()).toContain('Acme is asking you for some documents');
    expect(links.opened).toBe(1);
  });

  it('serves its stylesheet and script from /l/assets/ (cacheable: no token in them)', async () => {
    const css = await get('/l/assets/page.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=86400');
    const js = await get('/l/assets/page.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await js.text()).toContain('XMLHttpRequest');
    expect((await get('/l/assets/nope.js')).status).toBe(404);
  });

  it('answers 404 with a page in the browser language for unknown tokens and paths, 410 for inactive links', async () => {
    const unknown = await get('/l/NotARealTokenButWellFormed123', { 'Accept-Language': 'fr-FR,fr;q=0.9,en;q=0.8' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
    const html = await unknown.text();
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain(t('fr', 'gone.unknown.heading').replace("'", '&#39;'));
    expect((await get('/l/x')).status).toBe(404); // not even a token
    expect((await get(`/l/${TOKEN}/what/ever`)).status).toBe(404);
    for (const status of ['expired', 'cancelled', 'completed'] as const) {
      links.view.status = status;
      expect((await get(`/l/${TOKEN}`)).status).toBe(410);
    }
  });

  it('records consent with the request IP and goes back to the page (303)', async () => {
    expect((await get(`/l/${TOKEN}?step=consent`)).status).toBe(200);
    const res = await fetch(`${base}/l/${TOKEN}/consent`, { method: 'POST', redirect: 'manual', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/l/${TOKEN}`);
    expect(links.consentIp).toBe('127.0.0.1');
    expect(await (await get(`/l/${TOKEN}`)).text()).toContain('capture="environment"');
  });

  it('refuses uploads before consent, in the link language', async () => {
    const res = await upload([{ bytes: jpeg(), name: 'dni.jpg' }], { Accept: 'application/json' });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: { code: 'consent_required', message: t('en', 'error.consent_required') } });
    expect(links.uploads).toEqual([]);
  });

  it('a plain form upload: 303 to the page, which shows the outcome; the unused camera input is ignored', async () => {
    links.view.consent_accepted = true;
    const res = await upload([
      { bytes: new Uint8Array(0), name: '' },
      { bytes: jpeg(), name: 'blurry.jpg' },
    ]);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/l/${TOKEN}?last=dni`);
    expect(links.uploads).toEqual([{ key: 'dni', filename: 'blurry.jpg', size: 64 }]);
    const page = await (await get(res.headers.get('location')!)).text();
    expect(page).toContain(t('en', 'retry.heading', { label: 'ID card' }));
    expect(page).toContain(t('en', 'retry.attempts_left', { n: 4 }));
  });

  it('a script upload: JSON with the outcome and the next page', async () => {
    links.view.consent_accepted = true;
    const res = await upload([{ bytes: jpeg(), name: 'dni_valid.jpg' }], { Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ result: 'accepted', key: 'dni', warnings: [], status: 'completed', next: `/l/${TOKEN}?last=dni` });
    // Completed: the page says so (410) and further uploads are refused without reading them.
    expect((await get(`/l/${TOKEN}?last=dni`)).status).toBe(410);
    const again = await upload([{ bytes: jpeg(), name: 'dni_valid.jpg' }], { Accept: 'application/json' });
    expect(again.status).toBe(410);
    expect(await again.json()).toEqual({ error: { code: 'link_unavailable' }, next: `/l/${TOKEN}` });
    const plain = await upload([{ bytes: jpeg(), name: 'dni_valid.jpg' }]);
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe(`/l/${TOKEN}`);
    expect(links.uploads).toHaveLength(1);
  });

  it('shows intake refusals in words: missing file, wrong type, over 20 MB', async () => {
    links.view.consent_accepted = true;
    const missing = await upload([{ bytes: new Uint8Array(0), name: '' }], { Accept: 'application/json' });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toEqual({ code: 'missing_file', message: t('en', 'error.missing_file') });

    const wrong = await upload([{ bytes: new TextEncoder().encode('hello'), name: 'notes.txt' }]);
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get('location')).toBe(`/l/${TOKEN}?last=dni&error=unsupported_file_type`);
    const page = await (await get(wrong.headers.get('location')!)).text();
    expect(page).toContain(`<div class="banner banner-error" role="alert"><p>${t('en', 'error.unsupported_file_type')}</p></div>`);

    const big = await upload([{ bytes: jpeg(20 * 1024 * 1024 + 1), name: 'huge.jpg' }], { Accept: 'application/json' });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toEqual({ code: 'file_too_large', message: t('en', 'error.file_too_large') });

    const notMultipart = await fetch(`${base}/l/${TOKEN}/documents/dni`, { method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json' }, body: '{}' });
    expect((await notMultipart.json()).error.code).toBe('invalid_multipart');
    expect(links.uploads).toEqual([]);
    // Spooled uploads are removed once answered.
    expect(fs.existsSync(path.join(dataDir, 'uploads')) ? fs.readdirSync(path.join(dataDir, 'uploads')) : []).toEqual([]);
  });

  it('answers the polling script with the state and no document content', async () => {
    const res = await get(`/l/${TOKEN}/state`, { Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'pending', consent_accepted: false, processing: false, documents: [{ key: 'dni', status: 'pending', outcome: null, attempts_left: 5 }] });
    expect((await get('/l/NotARealTokenButWellFormed123/state')).status).toBe(404);
  });

  it('never logs the token', async () => {
    logs.length = 0;
    await get(`/l/${TOKEN}`);
    await get(`/l/${TOKEN}/state`);
    await upload([{ bytes: jpeg(), name: 'dni.jpg' }]);
    expect(logs.length).toBeGreaterThanOrEqual(3);
    expect(logs.join('\n')).not.toContain(TOKEN);
    expect(logs.join('\n')).toContain('"path":"/l/{token}/documents/dni"');
  });

  it('logPath and preferredLanguage', () => {
    expect(logPath(`/l/${TOKEN}`)).toBe('/l/{token}');
    expect(logPath(`/l/${TOKEN}/consent`)).toBe('/l/{token}/consent');
    expect(logPath('/l/assets/page.js')).toBe('/l/assets/page.js');
    expect(logPath('/v1/analyze')).toBe('/v1/analyze');
    expect(preferredLanguage('de-DE,pt-BR;q=0.8,en;q=0.5')).toBe('pt');
    expect(preferredLanguage('en;q=0.1, fr;q=0.9')).toBe('fr');
    expect(preferredLanguage(undefined)).toBe('es');
  });
});
