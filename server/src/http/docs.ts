import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Express, Response } from 'express';
import { Precompressed, sendPrecompressed } from './compression.ts';

const require = createRequire(import.meta.url);
/** Redoc's self-contained browser bundle, served from the installed package (nothing from a CDN). */
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');

/**
 * The one thing the bundle would fetch from elsewhere: the small logo of its "API docs by Redocly" footer link, from
 * Redocly's CDN. The policy would block it (a violation on every visit); an empty `src` makes no request, and Redoc
 * then drops the image (its onError) and keeps the link's text.
 */
const REDOC_CDN_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';

let bundle: Buffer | undefined;
/** The bundle as served: read once, its CDN logo taken out. */
export function redocBundle(): Buffer {
  bundle ??= Buffer.from(fs.readFileSync(REDOC_BUNDLE, 'utf8').replaceAll(REDOC_CDN_LOGO, '""'));
  return bundle;
}

/** The page: no inline script or style at all (its start-up script is /docs/init.js). */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Cotejo API reference</title>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/redoc.standalone.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/** Starts Redoc on the page's one element, from the same /openapi.json the server routes by. */
const INIT = `Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200,201,202', pathInMiddlePanel: true }, document.getElementById('reference'));
`;

/**
 * The policy of the other pages (web/routes.ts, web/dashboard/): scripts only from this origin and never inline, no
 * base URL, no framing (with X-Frame-Options for older browsers), nothing fetched from elsewhere. What Redoc needs on
 * top, and no more: its search index runs in a worker it makes from a `blob:` of its own code (`worker-src blob:`), and
 * its styles (styled-components) go into empty `<style>` elements filled through the CSSOM: the hash of the empty
 * string allows those empty elements and nothing with content; the second hash is the one fixed style element the
 * bundle writes with content (perfect-scrollbar's stylesheet). No `'unsafe-inline'` anywhere. test/e2e/docs.test.ts fails on any violation.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' 'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",
  "img-src 'self' data:",
  "worker-src blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function secure(res: Response): void {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/** GET /docs: the API reference rendered by Redoc from the same /openapi.json the server routes by. */
export function mountDocs(app: Express): void {
  app.get('/docs', (_req, res) => {
    secure(res);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.end(PAGE);
  });
  app.get('/docs/init.js', (_req, res) => {
    secure(res);
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.end(INIT);
  });
  // 1.1 MB read once, on first request, and sent in br or gzip (made once: http/compression.ts).
  let precompressed: Precompressed | undefined;
  app.get('/docs/redoc.standalone.js', (req, res, next) => {
    secure(res);
    precompressed ??= new Precompressed(redocBundle());
    sendPrecompressed(req, res, precompressed, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' }).catch(next);
  });
}
