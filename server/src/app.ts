import type { RequestListener } from 'node:http';
import cors from 'cors';
import express, { type NextFunction, type Request, type Response } from 'express';
import { newId } from './ids.ts';
import type { Services } from './context.ts';
import type { Handler } from './http/context.ts';
import { compressResponses, Precompressed, sendPrecompressed } from './http/compression.ts';
import { ApiError } from './errors.ts';
import { asApiError, toErrorResponse } from './http/errors.ts';
import { mountDocs } from './http/docs.ts';
import { mountHealth } from './http/health.ts';
import { mountMetrics, routeLabel } from './metrics.ts';
import { logPath as hostedLogPath, mountHosted } from './web/routes.ts';
import { logPath as dashboardLogPath, mountDashboard } from './web/dashboard/routes.ts';
import { apiPipeline } from './http/pipeline.ts';
import { EXPOSED_HEADERS, PublicFastPath } from './http/public-fast-path.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { loadSpec } from './openapi.ts';
import { handlers as defaultHandlers } from './routes/index.ts';

export interface AppOptions {
  handlers?: Record<string, Handler>;
}

/**
 * Builds the request listener: a repeat of a public GET already answered from memory is served at once
 * (http/public-fast-path.ts); everything else goes through the Express app: request id, logging, CORS, the OpenAPI
 * document, the /v1 pipeline, errors.
 */
export function buildApp(services: Services, opts: AppOptions = {}): RequestListener {
  const spec = loadSpec();
  // Counted in the database every process shares on PostgreSQL, in memory on PGlite (COTEJO_RATE_LIMIT_STORE).
  const limiter = createRateLimiter(services.config.rateLimitStore, services.database, services.clock, services.logger);
  const app = express();
  app.disable('x-powered-by');
  // Off unless COTEJO_TRUST_PROXY says whose X-Forwarded-For to believe (docs/deployment.md): req.ip is then the client's
  // address behind a load balancer, for per-address rate limits and the hosted page's consent record.
  app.set('trust proxy', services.config.trustProxy);
  const fast = new PublicFastPath(services, limiter, () => newId('request'), app.get('trust proxy fn'));
  app.set('etag', false);

  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = newId('request');
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    // The path as the client sent it, read now: Express strips a mount point (/v1) from req.path while a mounted
    // router handles the request, so reading it at 'finish' gave /analyze for answers and /v1/analyze for errors.
    const sent = req.path;
    // Signed file tokens and verification link tokens (the hosted page, /l/<token>) are credentials: never logged.
    const path = sent.startsWith('/v1/files/') ? '/v1/files/{token}' : dashboardLogPath(hostedLogPath(sent));
    // Health probes come every few seconds from a load balancer, scrapes from Prometheus: logged only at debug.
    const level = sent === '/healthz' || sent === '/readyz' || sent === '/metrics' ? 'debug' : 'info';
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // By operationId (set by the /v1 pipeline once it matched the route) or route template: never by the path.
      services.metrics?.request((res.locals.operationId as string | undefined) ?? routeLabel(req, sent), req.method, res.statusCode, ms / 1e3);
      services.logger[level](
        {
          request_id: requestId,
          method: req.method,
          path,
          status: res.statusCode,
          ms,
          key_id: res.locals.keyId,
        },
        'request',
      );
    });
    next();
  });

  // Every compressible body sent whole goes out in br or gzip when the client takes it (http/compression.ts).
  app.use(compressResponses());

  // Byte-identical to generated/openapi.json once decoded; its br and gzip codings are made once per process.
  const openapi = new Precompressed(spec.raw);
  app.get('/openapi.json', (req, res, next) => {
    sendPrecompressed(req, res, openapi, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' }).catch(next);
  });

  mountDocs(app);
  mountHealth(app, services);
  mountMetrics(app, services);
  mountHosted(app, services);
  mountDashboard(app, services);

  app.use(
    '/v1',
    cors({
      origin: '*',
      methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    }),
  );
  app.use('/v1', apiPipeline(spec, opts.handlers ?? defaultHandlers, services, limiter, fast));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError(404, 'route_not_found', `No existe la ruta ${req.method} ${req.path}. Consulta /openapi.json.`));
  });

  // The one place where errors become the envelope on the wire.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const requestId = res.locals.requestId as string;
    const { status, headers, body } = toErrorResponse(err, requestId);
    // An ApiError is an answer the contract specifies (501 not_implemented, 503 provider_unavailable...), not a
    // crash: one line without a stack. Anything else that reaches here is a bug, logged with its stack.
    const known = asApiError(err);
    if (known) {
      // A dependency away (503 service_unavailable) says why in `cause`: refused, timed out, disk full...
      if (status >= 500) services.logger.warn({ request_id: requestId, status, code: known.code, ...(known !== err ? { cause: String((err as Error)?.message ?? err) } : {}) }, `answered ${status} ${known.code}`);
    } else if (status >= 500) services.logger.error({ request_id: requestId, err }, 'unhandled error');
    req.resume();
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status);
    for (const [k, v] of Object.entries({ ...((res.locals.rateHeaders as Record<string, string>) ?? {}), ...headers })) res.setHeader(k, v);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(body));
  });

  return (req, res) => {
    const served = fast.serve(req, res);
    if (served === false) app(req, res);
    // The database store counts asynchronously; the request waits, unread, for the answer.
    else if (served !== true) served.then((ok) => ok || app(req, res), () => app(req, res));
  };
}
