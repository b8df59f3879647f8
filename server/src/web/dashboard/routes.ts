// The dashboard (#19, docs/dashboard.md): the web console served by the service itself at /dashboard, outside /v1
// and outside the OpenAPI document, like the hosted verification page (web/routes.ts) and /docs.
//
//   GET  /dashboard/assets/dashboard.css      the stylesheet (no session; cacheable)
//   GET  /dashboard/sign-in, POST the same    email and password to a session cookie
//   GET  /dashboard/invitations/:token, POST  accept an invitation: name and password
//   everything else                           the route table below: a session, CSRF on POST, one permission check
//
// Sessions live in the database (any process checks them); the cookie holds a random token whose SHA-256 is the
// session's key. Every POST carries the session's CSRF token (and, when the browser sends one, an Origin or Referer
// of this site); before sign-in the forms use a double-submit cookie instead. A refusal is a page, never JSON.
import crypto from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { findAccount } from '../../db/accounts.ts';
import { sendPrecompressed } from '../../http/compression.ts';
import type { Services } from '../../http/context.ts';
import { preferredLanguage } from '../routes.ts';
import { DASHBOARD_ASSETS } from './assets.ts';
import * as members from './members.ts';
import { isDashboardLanguage, type DashboardLanguage } from './members.ts';
import { t } from './messages.ts';
import { dossierRoutes } from './pages/dossiers.ts';
import { keysRoutes } from './pages/keys.ts';
import { linkRoutes } from './pages/links.ts';
import { reviewRoutes } from './pages/reviews.ts';
import { webhookRoutes } from './pages/webhooks.ts';
import { invitationRoutes } from './pages/invitation.ts';
import { settingsRoutes } from './pages/settings.ts';
import { teamRoutes } from './pages/team.ts';
import { usageRoutes } from './pages/usage.ts';
import { UNAVAILABLE_RETRY_AFTER_S, unavailableDependency } from '../../storage/unavailable.ts';
import { can } from './permissions.ts';
import { page, type DashboardRoute, type PageContext } from './context.ts';
import { message, renderBare, renderShell, renderSignIn, type Shell } from './render.ts';


/** A path inside the console to come back to (never elsewhere: no open redirect). */
function backTo(value: string | undefined): string {
  return value && /^\/dashboard(\/[A-Za-z0-9_\-/]*)?(\?[A-Za-z0-9_=&%.-]*)?$/.test(value) ? value : '/dashboard';
}

const selfRoutes: DashboardRoute[] = [
  { method: 'GET', path: '/', action: 'usage.view', section: null, handle: async () => ({ redirect: '/dashboard/usage' }) },
  {
    method: 'POST',
    path: '/mode',
    action: 'self.preferences',
    section: null,
    handle: async (ctx) => {
      await members.setSessionMode(ctx.services, ctx.session.token_hash, ctx.form.mode === 'live');
      return { redirect: backTo(ctx.form.back) };
    },
  },
  {
    method: 'POST',
    path: '/language',
    action: 'self.preferences',
    section: null,
    handle: async (ctx) => {
      if (isDashboardLanguage(ctx.form.language)) await members.setLanguage(ctx.services, ctx.member.id, ctx.form.language);
      return { redirect: backTo(ctx.form.back) };
    },
  },
  {
    method: 'POST',
    path: '/sign-out',
    action: 'self.preferences',
    section: null,
    handle: async (ctx) => {
      await members.signOut(ctx.services, ctx.session.token_hash);
      return { redirect: '/dashboard/sign-in?out=1', cookies: [clearCookie(SESSION_COOKIE)] };
    },
  },
];

/** Every signed-in route. */
export const ROUTES: DashboardRoute[] = [
  ...selfRoutes,
  ...reviewRoutes,
  ...webhookRoutes,
  ...linkRoutes,
  ...dossierRoutes,
  ...keysRoutes,
  ...usageRoutes,
  ...settingsRoutes,
  ...teamRoutes,
];

/**
 * No script at all, styles only from this origin, nothing framed, forms post only here. The review page's document
 * viewer needs nothing more: an SVG whose <image> is a same-origin page image (`img-src 'self'`) and whose boxes
 * are SVG attributes, not inline styles.
 */
export const DASHBOARD_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"].join('; ');

const SESSION_COOKIE = 'cotejo_session';
/** Before sign-in (the sign-in and invitation forms): a double-submit token, cookie and form field equal. */
const PRE_COOKIE = 'cotejo_form';

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    if (!(name in out)) out[name] = part.slice(i + 1).trim();
  }
  return out;
}

function cookie(req: Request, name: string, value: string, maxAgeS?: number): string {
  return [`${name}=${value}`, 'Path=/dashboard', 'HttpOnly', 'SameSite=Lax', ...(req.secure ? ['Secure'] : []), ...(maxAgeS !== undefined ? [`Max-Age=${maxAgeS}`] : [])].join('; ');
}
function clearCookie(name: string): string {
  return `${name}=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0`;
}

const equal = (a: string | undefined, b: string): boolean => {
  if (typeof a !== 'string' || a === '') return false;
  const da = crypto.createHash('sha256').update(a).digest();
  return crypto.timingSafeEqual(da, crypto.createHash('sha256').update(b).digest());
};

/**
 * The request comes from a page of this site: Origin (or, without it, Referer) names this origin, as the browser
 * reached it (req.protocol and Host, which COTEJO_TRUST_PROXY lets a proxy set) or as COTEJO_BASE_URL says.
 * A request with neither header passes this check (some privacy settings strip both); the CSRF token still decides.
 */
function sameOrigin(req: Request, baseUrl: string): boolean {
  let origin = req.headers.origin;
  if (origin === undefined) {
    const referer = req.headers.referer;
    if (referer === undefined) return true;
    try {
      origin = new URL(referer).origin;
    } catch {
      return false;
    }
  }
  const own = [`${req.protocol}://${req.get('host') ?? ''}`];
  try {
    own.push(new URL(baseUrl).origin);
  } catch {
    // baseUrl is validated by the config; nothing to add.
  }
  return own.includes(origin);
}

/** The client's address (req.ip: the connection's, or the client's behind a proxy COTEJO_TRUST_PROXY trusts). */
function clientIp(req: Request): string | null {
  const ip = req.ip ?? req.socket.remoteAddress ?? null;
  return ip?.startsWith('::ffff:') ? ip.slice(7) : ip;
}

function secure(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
}

function sendHtml(res: Response, status: number, html: string, cookies: string[] = []): void {
  if (cookies.length) res.append('Set-Cookie', cookies);
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(html);
}

const browserLanguage = (req: Request): DashboardLanguage => {
  const l = preferredLanguage(req.headers['accept-language']);
  return isDashboardLanguage(l) ? l : 'es';
};

function formOf(req: Request): Record<string, string> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

function queryOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query as Record<string, unknown>)) if (typeof v === 'string' && v.length <= 200) out[k] = v;
  return out;
}

/** The path as the request log writes it: an invitation's token replaced (it is a credential). */
export function logPath(path: string): string {
  return path.startsWith('/dashboard/invitations/') ? '/dashboard/invitations/{token}' : path;
}

/** The pre-session form token of this browser (made now when it has none). */
function preToken(req: Request, res: Response): string {
  const have = parseCookies(req.headers.cookie)[PRE_COOKIE];
  if (have && /^[A-Za-z0-9_-]{20,100}$/.test(have)) return have;
  const token = crypto.randomBytes(24).toString('base64url');
  res.append('Set-Cookie', cookie(req, PRE_COOKIE, token));
  return token;
}

/** Checks a POST made before sign-in; false when refused (the 403 page is sent). */
function prePostOk(req: Request, res: Response, services: Services): boolean {
  const have = parseCookies(req.headers.cookie)[PRE_COOKIE];
  if (have && sameOrigin(req, services.config.baseUrl) && equal(formOf(req).csrf, have)) return true;
  const L = browserLanguage(req);
  sendHtml(res, 403, renderBare(L, t(L, 'csrf.title'), message(t(L, 'csrf.body'), '/dashboard/sign-in', t(L, 'signin.title'))));
  return false;
}

export function mountDashboard(app: Express, services: Services, routes: DashboardRoute[] = ROUTES): void {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.use((_req, res, next) => {
    secure(res);
    next();
  });
  // Forms only: small, flat (no nested objects from `a[b]=`).
  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 }));

  router.get('/assets/:name', (req, res, next) => {
    const asset = Object.hasOwn(DASHBOARD_ASSETS, req.params.name) ? DASHBOARD_ASSETS[req.params.name] : undefined;
    if (!asset) return sendHtml(res, 404, renderBare(browserLanguage(req), t(browserLanguage(req), 'notfound.title'), ''));
    sendPrecompressed(req, res, asset.compressed, { 'Cache-Control': 'public, max-age=86400', 'Content-Type': asset.type }).catch(next);
  });

  router.get('/sign-in', (req, res) => {
    const L = browserLanguage(req);
    const q = queryOf(req);
    const notice = q.out ? { kind: 'ok' as const, text: t(L, 'signin.out') } : q.expired ? { kind: 'warn' as const, text: t(L, 'signin.expired') } : q.joined ? { kind: 'ok' as const, text: t(L, 'invite.done') } : null;
    sendHtml(res, 200, renderSignIn(L, preToken(req, res), { notice }));
  });

  router.post('/sign-in', async (req, res, next) => {
    try {
      if (!prePostOk(req, res, services)) return;
      const form = formOf(req);
      const r = await members.signIn(services, { email: form.email ?? '', password: form.password ?? '', ip: clientIp(req), userAgent: req.headers['user-agent'] ?? null });
      if (!r.ok) {
        const L = browserLanguage(req);
        const text = t(L, r.reason === 'address_limited' ? 'signin.limited' : 'signin.wrong');
        return sendHtml(res, r.reason === 'address_limited' ? 429 : 401, renderSignIn(L, preToken(req, res), { email: form.email, notice: { kind: 'error', text } }));
      }
      res.append('Set-Cookie', cookie(req, SESSION_COOKIE, r.token, members.ABSOLUTE_MS / 1000));
      res.redirect(303, '/dashboard');
    } catch (err) {
      next(err);
    }
  });

  for (const r of invitationRoutes) {
    router[r.method === 'GET' ? 'get' : 'post'](r.path, async (req, res, next) => {
      try {
        if (r.method === 'POST' && !prePostOk(req, res, services)) return;
        const out = await r.handle({ services, token: String(req.params.token), form: formOf(req), language: browserLanguage(req), csrf: preToken(req, res) });
        if ('redirect' in out) return void res.redirect(303, out.redirect);
        sendHtml(res, out.status ?? 200, out.html);
      } catch (err) {
        next(err);
      }
    });
  }

  for (const route of routes) {
    router[route.method === 'GET' ? 'get' : 'post'](route.path, async (req, res, next) => {
      try {
        const token = parseCookies(req.headers.cookie)[SESSION_COOKIE];
        const found = token ? await members.resumeSession(services, token) : null;
        const account = found ? await findAccount(services.db, found.member.account_id) : undefined;
        if (!found || !account) {
          req.resume();
          return void res.append('Set-Cookie', clearCookie(SESSION_COOKIE)).redirect(303, token ? '/dashboard/sign-in?expired=1' : '/dashboard/sign-in');
        }
        const { member, session } = found;
        const language = member.language;
        const shell: Shell = { language, member, accountName: account.name, csrf: session.csrf_token, livemode: session.livemode, path: req.originalUrl.split('?')[0] };
        if (route.method === 'POST' && !(sameOrigin(req, services.config.baseUrl) && equal(formOf(req).csrf, session.csrf_token))) {
          return sendHtml(res, 403, renderShell(shell, route.section, t(language, 'csrf.title'), message(t(language, 'csrf.body'), shell.path, t(language, 'back'))));
        }
        if (!can(member.role, route.action)) {
          return sendHtml(res, 403, renderShell(shell, route.section, t(language, 'forbidden.title'), message(t(language, 'forbidden.body'))));
        }
        const ctx: PageContext = {
          services,
          member,
          account,
          session,
          shell,
          auth: { account, keyId: member.id, kind: 'secret', livemode: session.livemode },
          params: Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, String(v)])),
          query: queryOf(req),
          form: route.method === 'POST' ? formOf(req) : {},
        };
        const out = await route.handle(ctx);
        if ('redirect' in out) {
          if (out.cookies) res.append('Set-Cookie', out.cookies);
          return void res.redirect(303, out.redirect);
        }
        if ('file' in out) {
          res.setHeader('Cache-Control', 'private, no-store');
          res.setHeader('Content-Type', out.type);
          if (out.download) res.setHeader('Content-Disposition', `attachment; filename="${out.download}"`);
          return void res.end(Buffer.from(out.file));
        }
        sendHtml(res, out.status ?? 200, out.html);
      } catch (err) {
        next(err);
      }
    });
  }

  router.all('/{*rest}', (req, res) => {
    req.resume();
    const L = browserLanguage(req);
    sendHtml(res, 404, renderBare(L, t(L, 'notfound.title'), message('', '/dashboard', t(L, 'back'))));
  });

  // Anything unexpected: logged and shown as a page, never as the API's JSON envelope. A form too big is a 413 page.
  // The database or the file store briefly away: 503 with Retry-After and a page that says to try again (issue #31).
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    req.resume();
    const dependency = unavailableDependency(err);
    if (dependency) {
      services.logger.warn({ request_id: res.locals.requestId, status: 503, dependency, cause: String((err as Error)?.message ?? err) }, 'dashboard answered 503: a dependency is away');
      if (res.headersSent) return void res.end();
      const L = browserLanguage(req);
      res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
      return sendHtml(res, 503, renderBare(L, t(L, 'unavailable.title'), message(t(L, 'unavailable.body'), req.method === 'GET' ? req.originalUrl : '/dashboard', t(L, 'unavailable.retry'))));
    }
    const status = typeof (err as { status?: unknown })?.status === 'number' && (err as { status: number }).status < 500 ? (err as { status: number }).status : 500;
    if (status >= 500) services.logger.error({ request_id: res.locals.requestId, err }, 'dashboard error');
    if (res.headersSent) return void res.end();
    const L = browserLanguage(req);
    sendHtml(res, status, renderBare(L, t(L, 'error.title'), message('', '/dashboard', t(L, 'back'))));
  });

  app.use('/dashboard', router);
}
