// A tiny browser for the dashboard's HTTP tests: a cookie jar, form posts with the page's CSRF token, redirects
// followed by hand (so each answer can be looked at). No HTML parser: the pages' forms are regular enough to read
// with a regular expression.
import { acceptInvitation, invite } from '../../server/src/web/dashboard/members.ts';
import type { MemberRole, MemberRow } from '../../server/src/db/schema.ts';
import type { TestApp } from './app.ts';

export interface Page {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

export class DashboardClient {
  readonly jar = new Map<string, string>();
  readonly baseUrl: string;
  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  /** A header given as '' is not sent (to post without Origin, say). */
  async request(method: string, path: string, form?: Record<string, string>, extra: Record<string, string> = {}): Promise<Page> {
    const headers = Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== ''));
    const res = await fetch(this.baseUrl + path, {
      method,
      redirect: 'manual',
      headers: { 'Accept-Language': 'en', ...(this.jar.size ? { Cookie: this.cookieHeader() } : {}), ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    this.remember(res);
    return { status: res.status, location: res.headers.get('location'), html: await res.text(), headers: res.headers };
  }

  get(path: string): Promise<Page> {
    return this.request('GET', path);
  }

  /** Opens `pagePath`, takes its CSRF token, posts `form` with it to `action` (the token can be overridden). */
  async submit(pagePath: string, action: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Page> {
    const page = await this.get(pagePath);
    const csrf = csrfOf(page.html);
    return this.request('POST', action, { csrf, ...form }, { Origin: this.baseUrl, ...headers });
  }

  async signIn(email: string, password: string): Promise<Page> {
    return this.submit('/dashboard/sign-in', '/dashboard/sign-in', { email, password });
  }
}

export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF token in the page:\n${html.slice(0, 500)}`);
  return m[1];
}

export const PASSWORD = 'correct horse battery staple';

/** A member made the way the product makes them: an invitation, accepted (through the domain, for speed). */
export async function makeMember(app: TestApp, accountId: string, role: MemberRole, email: string, name = email.split('@')[0]): Promise<MemberRow> {
  const inv = await invite({ ...app.services, baseUrl: app.baseUrl }, accountId, null, { email, role });
  const r = await acceptInvitation(app.services, inv.token, { name, password: PASSWORD, confirm: PASSWORD, language: 'en' });
  if (!r.ok) throw new Error(`could not make ${email}: ${r.problem}`);
  return r.member;
}

export async function signedIn(app: TestApp, email: string): Promise<DashboardClient> {
  const c = new DashboardClient(app.baseUrl);
  const r = await c.signIn(email, PASSWORD);
  if (r.status !== 303) throw new Error(`sign-in of ${email} answered ${r.status}`);
  return c;
}
