/**
 * COTEJO_SMTP_URL and COTEJO_MAIL_FROM (docs/emails.md): parsed and checked at start like every variable, and the
 * SMTP password never shown: not in a problem, not in the display form used by logs and errors.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_MAIL_FROM, loadConfig } from '../../../server/src/config.ts';
import { isEmailAddress, parseMailbox } from '../../../server/src/mail/address.ts';

const SECRET = 'Sup3r-S3cret';
const FROM = { COTEJO_MAIL_FROM: 'Cotejo <no-reply@cotejo.example>' };

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    // The whole message (what the start prints) as well as each problem: never the password.
    expect((err as Error).message).not.toContain(SECRET);
    return (err as ConfigError).problems;
  }
  throw new Error(`no problem with ${JSON.stringify(env)}`);
}

describe('COTEJO_SMTP_URL', () => {
  it('none: no SMTP (emails go to the local outbox) and the default sender', () => {
    const c = loadConfig({});
    expect(c.smtp).toBeNull();
    expect(c.mailFrom).toEqual({ name: 'Cotejo', address: 'no-reply@localhost' });
    expect(DEFAULT_MAIL_FROM).toEqual(c.mailFrom);
    expect(loadConfig({ COTEJO_SMTP_URL: '  ' }).smtp).toBeNull();
  });

  it('smtp:// and smtps://: host, port (587 and 465 by default), percent-decoded credentials, require_tls', () => {
    expect(loadConfig({ ...FROM, COTEJO_SMTP_URL: `smtp://mailer%40acme.example:${encodeURIComponent('p@ss:w/rd')}@smtp.acme.example` }).smtp).toEqual({
      secure: false,
      host: 'smtp.acme.example',
      port: 587,
      user: 'mailer@acme.example',
      password: 'p@ss:w/rd',
      requireTls: false,
      display: 'smtp://mailer%40acme.example@smtp.acme.example:587',
    });
    expect(loadConfig({ ...FROM, COTEJO_SMTP_URL: `smtps://u:${SECRET}@smtp.acme.example` }).smtp).toMatchObject({ secure: true, port: 465, display: 'smtps://u@smtp.acme.example:465' });
    expect(loadConfig({ ...FROM, COTEJO_SMTP_URL: 'smtp://127.0.0.1:2525/' }).smtp).toEqual({
      secure: false, host: '127.0.0.1', port: 2525, user: null, password: null, requireTls: false, display: 'smtp://127.0.0.1:2525',
    });
    expect(loadConfig({ ...FROM, COTEJO_SMTP_URL: `smtp://u:${SECRET}@[::1]:25?require_tls=true` }).smtp).toMatchObject({ host: '::1', port: 25, requireTls: true, display: 'smtp://u@[::1]:25' });
    // The display form is what logs and errors show: the password is not in it.
    expect(loadConfig({ ...FROM, COTEJO_SMTP_URL: `smtp://u:${SECRET}@h:25` }).smtp!.display).not.toContain(SECRET);
  });

  it('refuses what is not an SMTP URL, naming the mistake but never the password', () => {
    const cases: [string, RegExp][] = [
      [`http://u:${SECRET}@smtp.acme.example`, /must be an smtp:\/\/ or smtps:\/\/ URL \(got protocol "http:"\)/],
      [`u:${SECRET}@smtp.acme.example`, /must be an smtp:\/\/ or smtps:\/\/ URL/],
      [`smtp://u:${SECRET}@`, /COTEJO_SMTP_URL is not a valid URL/],
      [`smtp://u:${SECRET}@h:99999`, /COTEJO_SMTP_URL is not a valid URL/],
      [`smtp://u:${SECRET}@h:0`, /port from 1 to 65535/],
      [`smtp://u:${SECRET}@h/inbox`, /must not have a path/],
      [`smtp://u:${SECRET}@h#x`, /must not have a #fragment/],
      [`smtp://:${SECRET}@h`, /has a password but no user/],
      [`smtp://u:${SECRET}%ZZ@h`, /badly percent-encoded/],
      [`smtp://u:${SECRET}@h?pool=true`, /unknown parameter "pool"/],
      [`smtp://u:${SECRET}@h?require_tls=yes`, /require_tls must be true or false/],
    ];
    for (const [url, expected] of cases) {
      const problems = problemsOf({ ...FROM, COTEJO_SMTP_URL: url });
      expect(problems.join('\n'), url).toMatch(expected);
      expect(problems.join('\n'), url).not.toContain(SECRET);
    }
    expect(problemsOf({ ...FROM, COTEJO_SMTP_URL: 'smtp://mailer@h' })).toEqual(['COTEJO_SMTP_URL names the user "mailer" but no password']);
  });
});

describe('COTEJO_MAIL_FROM', () => {
  it('an address or "Name <address>" (quotes allowed around the name)', () => {
    expect(loadConfig({ COTEJO_MAIL_FROM: 'no-reply@acme.example' }).mailFrom).toEqual({ name: null, address: 'no-reply@acme.example' });
    expect(loadConfig({ COTEJO_MAIL_FROM: ' Acme Verificación <verify@acme.example> ' }).mailFrom).toEqual({ name: 'Acme Verificación', address: 'verify@acme.example' });
    expect(loadConfig({ COTEJO_MAIL_FROM: '"Acme, Inc." <verify@acme.example>' }).mailFrom).toEqual({ name: 'Acme, Inc.', address: 'verify@acme.example' });
  });

  it('refuses anything else, and is required with SMTP (a real server refuses no-reply@localhost)', () => {
    for (const bad of ['acme', 'Acme <acme>', 'a@b.example, c@d.example', 'A <a@b.example>, C <c@d.example>', 'A\r\nBcc: x@y.example <a@b.example>', '<>', 'a@-b.example']) {
      expect(problemsOf({ COTEJO_MAIL_FROM: bad }).join('\n'), bad).toMatch(/^COTEJO_MAIL_FROM must be an address or "Name <address>"/);
    }
    expect(problemsOf({ COTEJO_SMTP_URL: `smtp://u:${SECRET}@smtp.acme.example` })).toEqual([
      'COTEJO_MAIL_FROM must be set when COTEJO_SMTP_URL is (e.g. "Cotejo <no-reply@your-domain.example>", an address your SMTP server may send from)',
    ]);
  });
});

describe('addresses', () => {
  it('one plain local@domain, nothing a header could be smuggled through', () => {
    for (const ok of ['ana@example.com', 'ana.garcia+kyc@mail.example.es', "o'brien@example.ie", 'x@localhost']) expect(isEmailAddress(ok), ok).toBe(true);
    for (const bad of ['', 'ana', '@example.com', 'ana@', 'ana@@example.com', 'ana@example.com\r\nBcc: x@y.z', 'a@b.c, d@e.f', '"ana"@example.com', 'ana@exa mple.com', 'ana..x@example.com', `${'a'.repeat(65)}@example.com`, `a@${'b'.repeat(250)}.com`, 'ana@-example.com']) {
      expect(isEmailAddress(bad), JSON.stringify(bad)).toBe(false);
    }
    expect(isEmailAddress(42)).toBe(false);
    expect(parseMailbox('Name <>')).toBeNull();
    expect(parseMailbox(`${'n'.repeat(101)} <a@b.example>`)).toBeNull();
    expect(parseMailbox('<a@b.example>')).toEqual({ name: null, address: 'a@b.example' });
  });
});
