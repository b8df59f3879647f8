// The hosted verification page: the URL of a verification link, opened by a person on a phone. Outside /v1 and
// outside the OpenAPI document (like /docs and /healthz): no API key, the secret token in the path is the only
// credential, so it is never logged (see logPath), never cached (no-store) and never sent on as a Referer.
//
//   GET  /l/assets/page.css|page.js    the page's own stylesheet and script (no token; cacheable)
//   GET  /l/:token                     the page for the link's state (records `opened` on the first visit)
//   GET  /l/:token/state               JSON for the script's polling while a document is being checked
//   POST /l/:token/consent             accepts the consent (the request's IP is recorded), then 303 to the page
//   POST /l/:token/documents/:key      multipart upload of one document (field `file`), analyze's intake and limits
//
// Uploads answer a plain form post with 303 to the page (?last=<key>, ?error=<code> when refused) and a script's
// request (Accept: application/json) with JSON: { result, next } or { error: { code, message } } in the link's
// language, never the API's error envelope.
import { isIP } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { isLanguage, type Language } from '../catalogue/index.ts';
import * as links from '../domain/links/page.ts';
import { ConsentRequired, DocumentClosed, LinkUnavailable, type PageView } from '../domain/links/page.ts';
import { ApiError } from '../errors.ts';
import { mediaTypeOf, readMultipartBody, uploadsDir, type ParsedBody } from '../http/body.ts';
import { sendPrecompressed } from '../http/compression.ts';
import type { Services } from '../http/context.ts';
import { UNAVAILABLE_RETRY_AFTER_S, unavailableDependency } from '../storage/unavailable.ts';
import { ASSETS } from './assets.ts';
import { t, uploadErrorCode } from './messages.ts';
import { basePath, renderMessage, renderNotFound, renderPage, type PageQuery } from './render.ts';

/** What the page needs from verification links (domain/links/page.ts); tests of the HTTP layer may pass their own. */
export interface LinkPages {
  viewByToken: typeof links.viewByToken;
  openByToken: typeof links.openByToken;
  acceptConsent: typeof links.acceptConsent;
  uploadByToken: typeof links.uploadByToken;
}

const defaultPages: LinkPages = {
  viewByToken: (s, tk) => links.viewByToken(s, tk),
  openByToken: (s, tk) => links.openByToken(s, tk),
  acceptConsent: (s, tk, ip) => links.acceptConsent(s, tk, ip),
  uploadByToken: (s, tk, k, f) => links.uploadByToken(s, tk, k, f),
};

/**
 * The page's Content-Security-Policy: nothing from anywhere but this origin, no inline script or style at all
 * (the page has none), no framing, forms post only here.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers of every /l/ answer (the assets then relax Cache-Control: they carry no token). */
function secure(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Permissions-Policy', 'geolocation=(), microphone=(), payment=()');
}

/** Tokens are URL-safe random strings; anything else is unknown without asking the database. */
const TOKEN = /^[A-Za-z0-9_~.-]{8,256}$/;

/**
 * The path as the request log writes it: the token replaced, so logs never hold a working link
 * (`/l/abc.../documents/dni` is logged as `/l/{token}/documents/dni`; the assets keep their name).
 */
export function logPath(path: string): string {
  if (!path.startsWith('/l/') || path.startsWith('/l/assets/')) return path;
  return path.replace(/^\/l\/[^/]+/, '/l/{token}');
}

/**
 * The client's address for the consent record: req.ip, which is the connection's address, or the client's behind a
 * proxy that COTEJO_TRUST_PROXY trusts (docs/deployment.md). Something forwarded that is not an address is not recorded
 * as one: the connection's address is.
 */
function clientIp(req: Request): string {
  const strip = (ip: string) => (ip.startsWith('::ffff:') ? ip.slice(7) : ip);
  const ip = strip(req.ip ?? '');
  return isIP(ip) ? ip : strip(req.socket.remoteAddress ?? '');
}

/** The browser's preferred page language among the four (for pages with no link to take it from). */
export function preferredLanguage(header: string | undefined): Language {
  const ranked = (header ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { lang: tag.trim().slice(0, 2).toLowerCase(), q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked.map((x) => x.lang).find((l): l is Language => isLanguage(l)) ?? 'es';
}

function queryOf(req: Request): PageQuery {
  const q = req.query as Record<string, unknown>;
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= 64 ? v : undefined);
  return { step: str(q.step), last: str(q.last), error: str(q.error) };
}

function sendHtml(res: Response, status: number, html: string): void {
  res.status(status);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.end(html);
}

function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

const wantsJson = (req: Request): boolean => (req.headers.accept ?? '').includes('application/json');

/** What the polling script needs, and nothing of the documents' content. */
function stateOf(view: PageView): Record<string, unknown> {
  return {
    status: view.status,
    consent_accepted: view.consent_accepted,
    processing: view.documents.some((d) => d.status === 'processing'),
    documents: view.documents.map((d) => ({ key: d.key, status: d.status, outcome: d.outcome, attempts_left: d.attempts_left })),
  };
}

export function mountHosted(app: Express, services: Services, pages: LinkPages = defaultPages): void {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.use((_req, res, next) => {
    secure(res);
    next();
  });

  router.get('/assets/:name', (req, res, next) => {
    const asset = Object.hasOwn(ASSETS, req.params.name) ? ASSETS[req.params.name] : undefined;
    if (!asset) return sendHtml(res, 404, renderNotFound(preferredLanguage(req.headers['accept-language'])));
    sendPrecompressed(req, res, asset.compressed, { 'Cache-Control': 'public, max-age=86400', 'Content-Type': asset.type }).catch(next);
  });

  /** The view for a token, or null (unknown, or not a token at all). */
  const view = async (token: string, open: boolean): Promise<PageView | null> => {
    if (!TOKEN.test(token)) return null;
    return open ? pages.openByToken(services, token) : pages.viewByToken(services, token);
  };

  router.get('/:token', async (req, res, next) => {
    try {
      const token = req.params.token;
      const v = await view(token, true);
      const page = renderPage(v, token, queryOf(req), preferredLanguage(req.headers['accept-language']));
      sendHtml(res, page.status, page.html);
    } catch (err) {
      next(err);
    }
  });

  router.get('/:token/state', async (req, res, next) => {
    try {
      const v = await view(req.params.token, false);
      if (!v) return sendJson(res, 404, { error: { code: 'link_unavailable', reason: 'unknown' } });
      sendJson(res, 200, stateOf(v));
    } catch (err) {
      next(err);
    }
  });

  router.post('/:token/consent', async (req, res, next) => {
    req.resume(); // the form carries nothing: the button is the whole answer
    const token = req.params.token;
    try {
      if (TOKEN.test(token)) await pages.acceptConsent(services, token, clientIp(req));
    } catch (err) {
      // An inactive or unknown link: the page itself says which.
      if (!(err instanceof LinkUnavailable)) return next(err);
    }
    res.redirect(303, basePath(token));
  });

  router.post('/:token/documents/:key', async (req, res, next) => {
    const { token, key } = req.params;
    const base = basePath(token);
    const json = wantsJson(req);
    const gone = (): void => {
      req.resume();
      if (json) sendJson(res, 410, { error: { code: 'link_unavailable' }, next: base });
      else res.redirect(303, base);
    };
    let cleanup: (() => Promise<void>) | undefined;
    try {
      // Looked up before the body is read: an inactive link does not get 20 MB streamed into it first.
      const v = await view(token, false);
      if (!v || v.status === 'completed' || v.status === 'expired' || v.status === 'cancelled') return gone();
      const refuse = (code: string, status: number): void => {
        req.resume();
        const word = uploadErrorCode(code, status);
        if (json) return sendJson(res, status, { error: { code: word, message: t(v.locale, `error.${word}`) } });
        res.redirect(303, `${base}?last=${encodeURIComponent(key)}&error=${word}`);
      };
      if (!v.consent_accepted) return refuse('consent_required', 409);
      // A key the link does not ask for, or a document that takes no more uploads (accepted, out of attempts, being
      // checked): nothing to upload, so back to the page, which shows where the person is.
      const closed = (): void => {
        req.resume();
        if (json) return sendJson(res, 409, { error: { code: 'document_closed' }, next: base });
        res.redirect(303, base);
      };
      const target = v.documents.find((d) => d.key === key);
      if (!target || target.outcome !== null || target.status === 'processing') return closed();
      if (mediaTypeOf(req.headers['content-type']) !== 'multipart/form-data') return refuse('invalid_multipart', 400);
      let body: ParsedBody;
      try {
        body = await readMultipartBody(req, uploadsDir(services.config.dataDir));
      } catch (err) {
        if (err instanceof ApiError) return refuse(err.code, err.status);
        throw err;
      }
      if (body.kind !== 'multipart') return refuse('invalid_multipart', 400);
      cleanup = body.cleanup;
      // A form with two file inputs (camera, file) sends an empty part for the one not used.
      const file = body.files.find((f) => f.field === 'file' && !(f.size === 0 && f.filename === ''));
      if (!file) return refuse('missing_file', 400);
      try {
        const bytes = await file.read();
        const outcome = await pages.uploadByToken(services, token, key, { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), filename: file.filename || 'upload' });
        const nextUrl = `${base}?last=${encodeURIComponent(key)}`;
        if (json) sendJson(res, 200, { result: outcome.result, key: outcome.key, warnings: outcome.warnings, status: outcome.view.status, next: nextUrl });
        else res.redirect(303, nextUrl);
      } catch (err) {
        if (err instanceof LinkUnavailable) return gone();
        if (err instanceof ConsentRequired) return refuse('consent_required', 409);
        // Closed while its body arrived (another upload of it claimed the attempt, or the last one was spent).
        if (err instanceof DocumentClosed) return closed();
        if (err instanceof ApiError) {
          if (err.status >= 500) services.logger.warn({ request_id: res.locals.requestId, status: err.status, code: err.code }, 'hosted page upload refused');
          return refuse(err.code, err.status);
        }
        throw err;
      }
    } catch (err) {
      next(err);
    } finally {
      await cleanup?.();
    }
  });

  router.all('/{*rest}', (req, res) => {
    req.resume();
    sendHtml(res, 404, renderNotFound(preferredLanguage(req.headers['accept-language'])));
  });

  // Anything unexpected: logged (without the path: it holds the token) and shown as a page, never as JSON.
  // The database or the file store briefly away: 503 with Retry-After, and a page (or the polling script's JSON) that
  // says to try again in a moment, in the person's language (issue #31).
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    req.resume();
    const dependency = unavailableDependency(err);
    if (dependency) {
      services.logger.warn({ request_id: res.locals.requestId, status: 503, dependency, cause: String((err as Error)?.message ?? err) }, 'hosted page answered 503: a dependency is away');
      if (res.headersSent) return void res.end();
      const language = preferredLanguage(req.headers['accept-language']);
      res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_S));
      if (wantsJson(req)) return sendJson(res, 503, { error: { code: 'service_unavailable', message: t(language, 'error.service_unavailable') } });
      return sendHtml(res, 503, renderMessage(language, t(language, 'error.service_unavailable')));
    }
    const status = err instanceof ApiError ? err.status : 500;
    if (status >= 500) services.logger.error({ request_id: res.locals.requestId, err }, 'hosted page error');
    if (res.headersSent) return void res.end();
    const language = preferredLanguage(req.headers['accept-language']);
    if (wantsJson(req)) return sendJson(res, status >= 500 ? 500 : status, { error: { code: 'generic', message: t(language, 'error.generic') } });
    sendHtml(res, status === 400 ? 404 : status >= 500 ? 500 : status, errorPage(language, status));
  });

  app.use('/l', router);
}

function errorPage(language: Language, status: number): string {
  if (status < 500) return renderNotFound(language);
  return renderMessage(language, t(language, 'error.generic'));
}
