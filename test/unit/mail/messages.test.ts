/**
 * The two emails' texts (docs/emails.md): the link email and the results summary in es, en, pt and fr, plain text and
 * HTML, every value escaped in the HTML, nothing remote, and the summary holding no document data.
 */
import { describe, expect, it } from 'vitest';
import { escapeHtml, formatEmailDate, linkEmail, resultsEmail } from '../../../server/src/mail/index.ts';
import type { LinkEmailArgs, ResultsEmailArgs } from '../../../server/src/mail/index.ts';

const LOCALES = ['es', 'en', 'pt', 'fr'] as const;
const URL_ = 'https://verify.cotejo.example/l/vlt_9f8e7d6c5b4a?x=1&y=2';

const link = (locale: LinkEmailArgs['locale'], over: Partial<LinkEmailArgs> = {}): LinkEmailArgs => ({
  requester: 'Acme Seguros',
  url: URL_,
  expires_at: '2026-11-27T10:00:00Z',
  documents: [{ label: 'DNI (ambas caras)' }, { label: 'Justificante de domicilio' }],
  locale,
  ...over,
});

const results = (locale: ResultsEmailArgs['locale'], over: Partial<ResultsEmailArgs> = {}): ResultsEmailArgs => ({
  requester: 'Acme Seguros',
  reference: 'POLIZA-2026-0042',
  link_id: 'vl_01JD0000000000000000000000',
  status: 'completed',
  dossier_verdict_status: 'complete_valid',
  documents: [
    { label: 'DNI', outcome: 'accepted' },
    { label: 'Nómina', outcome: 'rejected' },
    { label: 'Recibo', outcome: null },
  ],
  completed_at: '2026-11-25T09:30:00Z',
  locale,
  ...over,
});

/** No image, stylesheet, script, frame or CSS url(): an email that loads nothing from anywhere. */
function expectNothingRemote(html: string) {
  expect(html).not.toMatch(/<(img|link|script|iframe|object|embed|video|audio|source|style)\b/i);
  // In a real tag (escaped text has &lt;, not <): no attribute that loads something.
  expect(html).not.toMatch(/<[^>]*\s(src|srcset|background|poster|data)\s*=/i);
  expect(html).not.toMatch(/url\(|@import/i);
  // The only links are the ones given (the link email's URL).
  for (const m of html.matchAll(/href="([^"]*)"/g)) expect(m[1]).toBe(URL_.replace(/&/g, '&amp;'));
}

describe('linkEmail', () => {
  const expected = {
    es: { subject: 'Acme Seguros te pide verificar tus documentos', date: '27 de noviembre de 2026', open: 'Abre este enlace' },
    en: { subject: 'Acme Seguros asks you to verify your documents', date: '27 November 2026', open: 'Open this link' },
    pt: { subject: 'Acme Seguros pede-lhe que verifique os seus documentos', date: '27 de novembro de 2026', open: 'Abra este link' },
    fr: { subject: 'Acme Seguros vous demande de vérifier vos documents', date: '27 novembre 2026', open: 'Ouvrez ce lien' },
  };

  it.each(LOCALES)('%s: who asks, what is needed, the URL and until when, in text and HTML', (locale) => {
    const e = linkEmail(link(locale));
    const x = expected[locale];
    expect(e.subject).toBe(x.subject);
    expect(e.text).toContain(`${x.open}`);
    expect(e.text).toContain('  - DNI (ambas caras)\n  - Justificante de domicilio\n');
    expect(e.text).toContain(`\n${URL_}\n`);
    expect(e.text).toContain(x.date);
    expect(e.text).toContain('10:00 UTC');
    expect(e.html).toContain(`<html lang="${locale}">`);
    expect(e.html).toContain(`<a href="${URL_.replace(/&/g, '&amp;')}"`);
    expect(e.html).toContain('<li>DNI (ambas caras)</li>');
    expect(e.html).toContain(x.date);
    expectNothingRemote(e.html);
  });

  it('escapes every value in the HTML and keeps each on one line in the text and the subject', () => {
    const e = linkEmail(
      link('en', {
        requester: 'Evil <script>alert(1)</script> & "Co"\r\nBcc: victim@example.com',
        documents: [{ label: '<img src=x onerror=alert(1)>' }, { label: "O'Brien's\nform" }],
      }),
    );
    expect(e.subject).toBe('Evil <script>alert(1)</script> & "Co" Bcc: victim@example.com asks you to verify your documents');
    expect(e.subject).not.toMatch(/[\r\n]/);
    expect(e.html).not.toContain('<script>');
    expect(e.html).not.toContain('<img');
    expect(e.html).toContain('Evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot; Bcc: victim@example.com');
    expect(e.html).toContain('<li>&lt;img src=x onerror=alert(1)&gt;</li>');
    expect(e.html).toContain('<li>O&#39;Brien&#39;s form</li>');
    expect(e.text).toContain("  - O'Brien's form\n");
    expectNothingRemote(e.html);
  });

  it('refuses a URL that is not http(s): the button could otherwise run script', () => {
    expect(() => linkEmail(link('en', { url: 'javascript:alert(1)' }))).toThrow(/http\(s\) URL/);
    expect(() => linkEmail(link('en', { url: '/l/relative' }))).toThrow(/absolute URL/);
    expect(() => linkEmail(link('en', { expires_at: 'soon' }))).toThrow(/valid date/);
  });
});

describe('resultsEmail', () => {
  it('en: the exact summary (link, reference, status and date, verdict, one line per document) and nothing else', () => {
    const e = resultsEmail(results('en'));
    expect(e.subject).toBe('Verification completed: POLIZA-2026-0042');
    expect(e.text).toBe(
      [
        'Summary of the verification requested by Acme Seguros.',
        '',
        'Verification link: vl_01JD0000000000000000000000',
        'Reference: POLIZA-2026-0042',
        'Status: completed (25 November 2026 at 09:30 UTC)',
        'Overall result: complete and valid',
        '',
        'Documents:',
        '  - DNI: accepted',
        '  - Nómina: not accepted (no attempts left)',
        '  - Recibo: not received',
        '',
        '-- ',
        'This summary holds no document data. The details are in the API: GET /v1/verification-links/vl_01JD0000000000000000000000',
        '',
      ].join('\n'),
    );
    expectNothingRemote(e.html);
  });

  const words = {
    es: { subject: 'Verificación completada: POLIZA-2026-0042', verdict: 'Resultado global: completo y válido', accepted: 'DNI: aceptado', none: 'Recibo: no recibido', expired: 'Enlace de verificación caducado' },
    en: { subject: 'Verification completed: POLIZA-2026-0042', verdict: 'Overall result: complete and valid', accepted: 'DNI: accepted', none: 'Recibo: not received', expired: 'Verification link expired' },
    pt: { subject: 'Verificação concluída: POLIZA-2026-0042', verdict: 'Resultado global: completo e válido', accepted: 'DNI: aceite', none: 'Recibo: não recebido', expired: 'Link de verificação expirado' },
    fr: { subject: 'Vérification terminée : POLIZA-2026-0042', verdict: 'Résultat global : complet et valide', accepted: 'DNI : accepté', none: 'Recibo : non reçu', expired: 'Lien de vérification expiré' },
  };

  it.each(LOCALES)('%s: subject, verdict and outcomes in the locale; an expired link without reference is named by its id', (locale) => {
    const w = words[locale];
    const e = resultsEmail(results(locale));
    expect(e.subject).toBe(w.subject);
    expect(e.text).toContain(w.verdict);
    expect(e.text).toContain(w.accepted);
    expect(e.text).toContain(w.none);
    expect(e.html).toContain(`<html lang="${locale}">`);
    expect(e.html).toContain(escapeHtml(w.accepted));
    const expired = resultsEmail(results(locale, { status: 'expired', reference: null, dossier_verdict_status: null }));
    expect(expired.subject).toBe(`${w.expired}${locale === 'fr' ? ' :' : ':'} vl_01JD0000000000000000000000`);
    expect(expired.text).not.toContain('POLIZA');
  });

  it('every verdict has its words, and values are escaped in the HTML', () => {
    const v = (s: ResultsEmailArgs['dossier_verdict_status']) => resultsEmail(results('es', { dossier_verdict_status: s })).text;
    expect(v('incomplete')).toContain('Resultado global: incompleto');
    expect(v('invalid')).toContain('Resultado global: no válido');
    expect(v('review')).toContain('Resultado global: necesita revisión humana');
    expect(v(null)).toContain('Resultado global: sin veredicto');
    const e = resultsEmail(results('en', { reference: '<b>ref</b>', requester: 'A&B', documents: [{ label: '<i>x</i>', outcome: 'accepted' }] }));
    expect(e.html).toContain('&lt;b&gt;ref&lt;/b&gt;');
    expect(e.html).toContain('A&amp;B');
    expect(e.html).toContain('<li>&lt;i&gt;x&lt;/i&gt;: accepted</li>');
    expect(e.html).not.toMatch(/<b>|<i>/);
  });
});

describe('formatEmailDate', () => {
  it('the locale words, always in UTC and saying so', () => {
    expect(formatEmailDate('2026-03-01T23:30:00Z', 'en')).toBe('1 March 2026 at 23:30 UTC');
    expect(formatEmailDate(new Date('2026-03-01T23:30:00Z'), 'fr')).toBe('1 mars 2026 à 23:30 UTC');
  });
});
