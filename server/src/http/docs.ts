import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Express } from 'express';
import { Precompressed, sendPrecompressed } from './compression.ts';

const require = createRequire(import.meta.url);
/** Redoc's self-contained browser bundle, served from the installed package (nothing from a CDN). */
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Cotejo API reference</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/redoc.standalone.js"></script>
  <script>
    Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200,201,202', pathInMiddlePanel: true }, document.getElementById('reference'));
  </script>
</body>
</html>
`;

/** GET /docs: the API reference rendered by Redoc from the same /openapi.json the server routes by. */
export function mountDocs(app: Express): void {
  app.get('/docs', (_req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Content-Security-Policy', "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src blob:; font-src 'self' data:");
    res.end(PAGE);
  });
  // 1.1 MB read once, on first request, and sent in br or gzip (made once: http/compression.ts).
  let bundle: Precompressed | undefined;
  app.get('/docs/redoc.standalone.js', (req, res, next) => {
    bundle ??= new Precompressed(readFileSync(REDOC_BUNDLE));
    sendPrecompressed(req, res, bundle, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' }).catch(next);
  });
}
