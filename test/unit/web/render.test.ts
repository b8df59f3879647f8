// The hosted verification page's HTML, state by state and locale by locale (pure rendering, no server).
import { describe, expect, it } from 'vitest';
import type { PageDocument, PageView } from '../../../server/src/domain/links/page.ts';
import { MESSAGE_KEYS, t, uploadErrorCode, warningText } from '../../../server/src/web/messages.ts';
import { esc, pageKind, renderPage, type PageKind } from '../../../server/src/web/render.ts';

const LOCALES = ['es', 'en', 'pt', 'fr'] as const;
const TOKEN = 'tok_abcdefghijklmnop0123456789';

function doc(over: Partial<PageDocument> = {}): PageDocument {
  return { key: 'dni', label: 'DNI', status: 'pending', outcome: null, attempts: 0, attempts_left: 5, warnings: [], verdict_status: null, ...over };
}

function view(over: Partial<PageView> = {}): PageView {
  return {
    status: 'pending',
    locale: 'es',
    requester: 'Acme Seguros',
    consent_text: 'Acepto que Acme trate mis documentos.\n\nPuedo retirar mi consentimiento.',
    consent_accepted: false,
    show_result: false,
    documents: [doc(), doc({ key: 'nomina', label: 'Nómina' })],
    redirect_url: null,
    expires_at: '2026-11-27T10:00:00.000Z',
    livemode: false,
    ...over,
  };
}

/** Text of the page without tags (what a person reads). */
const text = (html: string): string =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** A view in each state the page distinguishes, and what it must show. */
const STATES: Array<{ name: string; kind: PageKind; status: number; v: (l: (typeof LOCALES)[number]) => PageView | null; query?: Record<string, string> }> = [
  { name: 'welcome', kind: 'welcome', status: 200, v: (locale) => view({ locale }) },
  { name: 'consent', kind: 'consent', status: 200, v: (locale) => view({ locale }), query: { step: 'consent' } },
  { name: 'first document', kind: 'document', status: 200, v: (locale) => view({ locale, consent_accepted: true, status: 'in_progress' }) },
  {
    name: 'retry',
    kind: 'document',
    status: 200,
    v: (locale) => view({ locale, consent_accepted: true, status: 'in_progress', documents: [doc({ status: 'completed', attempts: 1, attempts_left: 4, warnings: ['blurry', 'glare'] })] }),
  },
  { name: 'processing', kind: 'processing', status: 200, v: (locale) => view({ locale, consent_accepted: true, status: 'in_progress', documents: [doc({ status: 'processing', attempts: 1, attempts_left: 4 })] }) },
  {
    name: 'completed',
    kind: 'final',
    status: 410,
    v: (locale) => view({ locale, consent_accepted: true, status: 'completed', redirect_url: 'https://shop.example/done?link_id=vl_1&status=completed', documents: [doc({ status: 'completed', outcome: 'accepted', attempts: 2, attempts_left: 3 })] }),
  },
  { name: 'expired', kind: 'expired', status: 410, v: (locale) => view({ locale, status: 'expired' }) },
  { name: 'cancelled', kind: 'cancelled', status: 410, v: (locale) => view({ locale, status: 'cancelled' }) },
  { name: 'unknown', kind: 'unknown', status: 404, v: () => null },
];

describe('hosted page messages', () => {
  it('has every text in the four languages, non-empty, with the same placeholders', () => {
    for (const key of MESSAGE_KEYS) {
      const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(',');
      const texts = LOCALES.map((l) => t(l, key));
      for (const s of texts) expect(s.trim(), key).not.toBe('');
      for (const s of texts) expect(placeholders(s), key).toBe(placeholders(texts[0]));
    }
  });

  it('maps intake error codes to words for a person, and unknown ones to a general text', () => {
    expect(uploadErrorCode('unsupported_file_type', 415)).toBe('unsupported_file_type');
    expect(uploadErrorCode('file_too_large', 413)).toBe('file_too_large');
    expect(uploadErrorCode('request_too_large', 413)).toBe('file_too_large');
    expect(uploadErrorCode('insufficient_credits', 402)).toBe('unavailable');
    expect(uploadErrorCode('provider_unavailable', 503)).toBe('unavailable');
    expect(uploadErrorCode('<script>', 400)).toBe('generic');
    expect(warningText('en', 'blurry')).toMatch(/blurry/);
    expect(warningText('fr', 'something_new')).toBe(t('fr', 'warning.other'));
  });
});

describe.each(LOCALES)('hosted page in %s', (locale) => {
  it.each(STATES)('$name: status, language, no inline script or style', ({ v, query, kind, status }) => {
    const page = renderPage(v(locale), TOKEN, query ?? {}, locale);
    expect(page.kind).toBe(kind);
    expect(page.status).toBe(status);
    expect(page.html).toMatch(new RegExp(`<html lang="${locale}">`));
    // Strict CSP: the only script is the page's own file; no inline scripts, handlers or style attributes.
    expect(page.html.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(/^<script src="\/l\/assets\/page\.js\?v=[0-9a-f]{12}" defer>$/)]);
    expect(page.html).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/);
    expect(page.html).not.toMatch(/\son[a-z]+=/i);
    expect(page.html).not.toMatch(/\sstyle=/i);
    expect(page.html).not.toMatch(/<style/i);
    expect(page.html).not.toMatch(/https?:\/\/(?!shop\.example)/); // no third-party asset
    // One h1, main landmark, the viewport for phones.
    expect(page.html.match(/<h1>/g)).toHaveLength(1);
    expect(page.html).toContain('<main id="main">');
    expect(page.html).toContain('name="viewport" content="width=device-width, initial-scale=1"');
  });

  it('welcome: who asks, what is needed, the expiry, a Start link to the consent step', () => {
    const html = renderPage(view({ locale }), TOKEN).html;
    expect(text(html)).toContain(t(locale, 'welcome.heading', { requester: 'Acme Seguros' }));
    expect(html).toContain('<li>DNI</li>');
    expect(html).toContain('<li>Nómina</li>');
    expect(html).toContain(`href="/l/${TOKEN}?step=consent"`);
    expect(text(html)).toContain(t(locale, 'page.test_mode'));
    expect(text(html)).toMatch(/2026/);
  });

  it('consent: the text in paragraphs and a form that posts to /consent', () => {
    const html = renderPage(view({ locale }), TOKEN, { step: 'consent' }).html;
    expect(html).toContain('<p>Acepto que Acme trate mis documentos.</p>');
    expect(html).toContain('<p>Puedo retirar mi consentimiento.</p>');
    expect(html).toMatch(new RegExp(`<form method="post" action="/l/${TOKEN}/consent">`));
    expect(html).toContain(`>${esc(t(locale, 'consent.accept'))}</button>`);
  });

  it('document: camera and file inputs with labels, multipart form to the document, the checklist', () => {
    const html = renderPage(view({ locale, consent_accepted: true, status: 'in_progress' }), TOKEN).html;
    expect(html).toContain(`action="/l/${TOKEN}/documents/dni" enctype="multipart/form-data"`);
    expect(html).toContain('<input type="file" name="file" accept="image/*,application/pdf" capture="environment"');
    expect(html.match(/<input type="file"/g)).toHaveLength(2);
    expect(html).toContain(`<label class="file-button primary"><span>${esc(t(locale, 'doc.take_photo'))}</span>`);
    expect(html).toContain(t(locale, 'doc.choose_file'));
    expect(html).toContain('<progress id="upload-progress" max="100" value="0"></progress>');
    expect(html).toContain('<label for="upload-progress">');
    expect(text(html)).toContain(t(locale, 'doc.count', { n: 1, total: 2 }));
    expect(text(html)).toContain(t(locale, 'list.todo'));
  });

  it('retry: the warnings as advice and the attempts left', () => {
    const v = view({ locale, consent_accepted: true, status: 'in_progress', documents: [doc({ status: 'completed', attempts: 4, attempts_left: 1, warnings: ['blurry', 'blurry', 'cropped'] })] });
    const html = renderPage(v, TOKEN).html;
    expect(text(html)).toContain(t(locale, 'retry.heading', { label: 'DNI' }));
    expect(html).toContain(`<li>${esc(warningText(locale, 'blurry'))}</li>`);
    expect(html.split(esc(warningText(locale, 'blurry'))).length - 1).toBe(1); // once, not per repeat
    expect(text(html)).toContain(warningText(locale, 'cropped'));
    expect(text(html)).toContain(t(locale, 'retry.attempts_left_one'));
  });

  it('the outcome of the last upload: accepted, with the verdict only when show_result', () => {
    const docs = [doc({ status: 'completed', outcome: 'accepted', attempts: 1, attempts_left: 4, verdict_status: 'valid' }), doc({ key: 'nomina', label: 'Nómina' })];
    const shown = renderPage(view({ locale, consent_accepted: true, status: 'in_progress', show_result: true, documents: docs }), TOKEN, { last: 'dni' }).html;
    expect(text(shown)).toContain(t(locale, 'outcome.accepted', { label: 'DNI' }));
    expect(text(shown)).toContain(t(locale, 'outcome.verdict', { verdict: t(locale, 'verdict.valid') }));
    expect(text(shown)).toContain('Nómina'); // now on the second document
    const hidden = renderPage(view({ locale, consent_accepted: true, status: 'in_progress', show_result: false, documents: [{ ...docs[0], verdict_status: null }, docs[1]] }), TOKEN, { last: 'dni' }).html;
    expect(text(hidden)).toContain(t(locale, 'outcome.accepted', { label: 'DNI' }));
    expect(text(hidden)).not.toContain(t(locale, 'outcome.verdict', { verdict: t(locale, 'verdict.valid') }));
  });

  it('a refused upload: the reason in words, in the role=alert banner', () => {
    const html = renderPage(view({ locale, consent_accepted: true, status: 'in_progress' }), TOKEN, { last: 'dni', error: 'unsupported_file_type' }).html;
    expect(html).toMatch(/<div class="banner banner-error" role="alert"><p>[^<]+<\/p><\/div>/);
    expect(html).toContain(esc(t(locale, 'error.unsupported_file_type')));
  });

  it('final: thanks, and the redirect as a Continue link', () => {
    const v = STATES.find((s) => s.name === 'completed')!.v(locale)!;
    const html = renderPage(v, TOKEN).html;
    expect(text(html)).toContain(t(locale, 'final.heading'));
    expect(html).toContain('href="https://shop.example/done?link_id=vl_1&amp;status=completed" data-redirect rel="noreferrer"');
    expect(renderPage({ ...v, redirect_url: null }, TOKEN).html).not.toContain('data-redirect');
  });

  it('expired, cancelled and unknown links say so', () => {
    expect(text(renderPage(view({ locale, status: 'expired' }), TOKEN).html)).toContain(t(locale, 'gone.expired.heading'));
    expect(text(renderPage(view({ locale, status: 'cancelled' }), TOKEN).html)).toContain(t(locale, 'gone.cancelled.heading'));
    const unknown = renderPage(null, TOKEN, {}, locale).html;
    expect(text(unknown)).toContain(t(locale, 'gone.unknown.heading'));
    expect(unknown).not.toContain(TOKEN);
    // No upload form on a page that takes no documents.
    for (const status of ['expired', 'cancelled', 'completed'] as const) expect(renderPage(view({ locale, status }), TOKEN).html).not.toContain('<form');
  });
});

describe('hosted page escaping and state', () => {
  it('escapes what the business wrote (requester, labels, consent text, redirect)', () => {
    const evil = '<img src=x onerror=alert(1)>"\'&';
    const v = view({ requester: evil, consent_text: evil, documents: [doc({ label: evil })] });
    for (const html of [renderPage(v, TOKEN).html, renderPage(v, TOKEN, { step: 'consent' }).html, renderPage({ ...v, consent_accepted: true }, TOKEN).html]) {
      expect(html).not.toContain('<img');
      expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
    }
  });

  it('derives the step from the link', () => {
    expect(pageKind(view({ consent_accepted: true, documents: [doc({ outcome: 'accepted' }), doc({ key: 'b', outcome: 'rejected' })] }))).toBe('final');
    expect(pageKind(view({ consent_accepted: true }), { step: 'consent' })).toBe('document');
    expect(pageKind(view({ status: 'expired', consent_accepted: true }))).toBe('expired');
    // The page's status wins over a stale query.
    expect(renderPage(view({ status: 'cancelled' }), TOKEN, { step: 'consent' }).status).toBe(410);
  });
});
