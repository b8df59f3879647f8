import type { NextFunction, Request, Response } from 'express';
import type { ErrorObject } from 'ajv';
import type { Operation } from 'openapi-backend';
import { retryWhileUnavailable } from '../jobs/unavailable.ts';
import type { LoadedSpec } from '../openapi.ts';
import { unavailableDependency } from '../storage/unavailable.ts';
import { authenticate } from './auth.ts';
import { hasBody, mediaTypeOf, readJsonBody, readMultipartBody, uploadsDir, type ParsedBody } from './body.ts';
import type { Handler, RequestContext, Services } from './context.ts';
import { ApiError } from '../errors.ts';
import { toErrorResponse } from './errors.ts';
import { assertCleanRequest } from './clean-strings.ts';
import { encodeMemoized } from './compression.ts';
import { beginIdempotent, IDEMPOTENCY_LOCK_MS, readIdempotencyKey, requestFingerprint, type StoredResponse } from './idempotency.ts';
import type { PublicFastPath } from './public-fast-path.ts';
import { addressBucket, type RateLimiter } from './rate-limit.ts';
import { validationError } from '../input/validation.ts';

/**
 * Requests whose key fails authentication are limited per client address (it slows down key guessing). The public
 * routes have their own per-address limit, `COTEJO_PUBLIC_RATE_LIMIT` (1,000/s by default: a public, cacheable
 * catalogue behind one NAT must not starve).
 */
export const FAILED_AUTH_RATE_LIMIT_PER_SECOND = 50;

interface OperationInfo {
  operation: Operation;
  isPublic: boolean;
  idempotent: boolean;
  bodyTypes: string[];
}

function describeOperation(op: Operation, globalSecurity: unknown[] | undefined): OperationInfo {
  const security = (op.security ?? globalSecurity ?? []) as Array<Record<string, unknown>>;
  const isPublic = security.length === 0 || security.some((s) => Object.keys(s).length === 0);
  const params = (op.parameters ?? []) as Array<{ in?: string; name?: string }>;
  const idempotent = params.some((p) => p.in === 'header' && p.name?.toLowerCase() === 'idempotency-key');
  const content = (op.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  return { operation: op, isPublic, idempotent, bodyTypes: Object.keys(content) };
}

function send(res: Response, status: number, headers: Record<string, string>, body: string | Uint8Array, contentType?: string): void {
  res.status(status);
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (contentType && !res.getHeader('Content-Type')) res.setHeader('Content-Type', contentType);
  res.end(body);
}

/**
 * Every /v1 request flows here: route -> auth -> rate limit -> body -> validation -> idempotency
 * -> handler -> response. openapi-backend matches the route and validates parameters and JSON
 * bodies against generated/openapi.json; multipart bodies are read here and checked by their handlers.
 */
export function apiPipeline(spec: LoadedSpec, handlers: Record<string, Handler>, services: Services, limiter: RateLimiter, fast?: PublicFastPath) {
  const globalSecurity = (spec.document as { security?: unknown[] }).security;
  const infos = new Map<string, OperationInfo>();
  for (const op of spec.api.getOperations()) infos.set(op.operationId as string, describeOperation(op, globalSecurity));

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const requestId = res.locals.requestId as string;
    const rateHeaders: Record<string, string> = {};
    let body: ParsedBody = { kind: 'none' };
    // Uploaded files are spooled to disk for this request only: removed once the handler is done with
    // them, before the response goes out (and on every error path).
    const releaseBody = async (): Promise<void> => {
      if (body.kind !== 'multipart') return;
      const spooled = body;
      body = { kind: 'none' };
      await spooled.cleanup();
    };
    const run = async (ctx: RequestContext): Promise<Awaited<ReturnType<Handler>>> => {
      try {
        return await handlers[ctx.operationId](ctx);
      } finally {
        await releaseBody();
      }
    };
    try {
      const queryString = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      const probe = { method: req.method, path: req.path === '/' ? req.baseUrl : `${req.baseUrl}${req.path}`, headers: req.headers as Record<string, string>, query: queryString };
      const operation = spec.api.router.matchOperation(probe);
      if (!operation) {
        throw new ApiError(404, 'route_not_found', `No existe la ruta ${req.method} ${probe.path}. Consulta /openapi.json.`);
      }
      const info = infos.get(operation.operationId as string)!;
      // The label of this request's metrics (metrics.ts), read when the response ends.
      res.locals.operationId = operation.operationId;

      // Authentication, then the per-key rate limit. Requests without a valid key (public routes,
      // and failed authentication, which also slows down key guessing) are limited per address.
      // req.ip: the connection's address, or the client's behind a trusted proxy (COTEJO_TRUST_PROXY).
      const byAddress = async () =>
        info.isPublic
          ? limiter.hit(`public:${addressBucket(req.ip)}`, services.config.publicRateLimitPerSecond)
          : limiter.hit(`unauthenticated:${addressBucket(req.ip)}`, FAILED_AUTH_RATE_LIMIT_PER_SECOND);
      let auth = null;
      if (!info.isPublic) {
        try {
          auth = await authenticate(services.db, req.headers.authorization);
        } catch (err) {
          const d = await byAddress();
          Object.assign(rateHeaders, d.headers);
          if (!d.allowed) {
            throw new ApiError(429, 'rate_limited', 'Demasiadas peticiones sin una clave válida. Espera y reinténtalo (cabecera Retry-After).', undefined, { 'Retry-After': d.headers['Retry-After'] });
          }
          throw err;
        }
      }
      res.locals.keyId = auth?.keyId;
      const decision = await (auth ? limiter.hit(`key:${auth.keyId}`, auth.account.rate_limit_per_second) : byAddress());
      Object.assign(rateHeaders, decision.headers);
      if (!decision.allowed) {
        throw new ApiError(429, 'rate_limited', 'Has superado el límite de peticiones por segundo. Espera y reinténtalo (cabecera Retry-After).', undefined, { 'Retry-After': decision.headers['Retry-After'] });
      }

      // A path parameter that is not valid percent-encoded UTF-8, or that decodes to a control character (`%00`),
      // names no resource: 404 here, before any decoder or the database meets it (either would fail with a 500).
      if (probe.path.split('/').some(undecodable)) {
        const pathParams = ((operation.parameters ?? []) as Array<{ in?: string; name?: string }>).filter((p) => p.in === 'path');
        throw new ApiError(404, 'resource_missing', 'No existe ese recurso: el identificador de la ruta no es válido.', pathParams.length === 1 ? pathParams[0].name : undefined);
      }

      // Body: only on operations that take one, only in the content types they declare.
      if (info.bodyTypes.length > 0) {
        const media = mediaTypeOf(req.headers['content-type']);
        if (!hasBody(req) && media === '') {
          body = info.bodyTypes.includes('application/json') ? { kind: 'json', value: {} } : { kind: 'none' };
        } else if (!info.bodyTypes.includes(media)) {
          req.resume();
          throw new ApiError(415, 'unsupported_content_type', `Content-Type no admitido${media ? ` (${media})` : ''}: usa ${info.bodyTypes.join(' o ')}.`, 'Content-Type');
        } else if (media === 'application/json') {
          body = await readJsonBody(req, operation.operationId as string);
        } else if (media === 'multipart/form-data') {
          body = await readMultipartBody(req, uploadsDir(services.config.dataDir));
        }
      } else {
        req.resume();
      }

      const idempotencyKey = info.idempotent ? readIdempotencyKey(req.headers['idempotency-key']) : undefined;

      // NUL and lone surrogates: no column can hold them (422, not a 500 from the database).
      assertCleanRequest(new URLSearchParams(queryString), body);

      // Schema validation of path, query, headers and JSON bodies.
      const validation = spec.api.validateRequest(
        { method: req.method, path: probe.path, headers: req.headers as Record<string, string>, query: queryString, body: body.kind === 'json' ? body.value : undefined },
        operation,
      );
      const errors = (validation.errors ?? []).filter((e: ErrorObject) => {
        if (body.kind === 'json') return true;
        // Multipart bodies are read and checked by their own handlers.
        return !e.instancePath.startsWith('/requestBody') && !(e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === 'requestBody');
      });
      if (errors.length > 0) throw validationError(errors);

      const parsed = spec.api.router.parseRequest(probe, operation);
      const ctx: RequestContext = {
        requestId,
        operationId: operation.operationId as string,
        auth,
        params: parsed.params as Record<string, string>,
        query: (validation.coerced?.query as Record<string, unknown> | undefined) ?? (parsed.query as Record<string, unknown>),
        headers: req.headers,
        body,
        services,
      };

      if (idempotencyKey !== undefined && auth) {
        const outcome = await beginIdempotent(
          services.db,
          services.clock,
          { account_id: auth.account.id, livemode: auth.livemode, idempotency_key: idempotencyKey },
          ctx.operationId,
          requestFingerprint(ctx.operationId, probe.path, ctx.query, body),
          services.idempotencyHeartbeatMs,
        );
        if (outcome.kind === 'replay') {
          const stored = outcome.response;
          let replayBody = stored.body;
          if (stored.status >= 400) {
            // The envelope's request_id always names the request that got the response.
            const parsedBody = JSON.parse(stored.body) as { error: { request_id: string } };
            parsedBody.error.request_id = requestId;
            replayBody = JSON.stringify(parsedBody);
          }
          await releaseBody();
          send(res, stored.status, { ...rateHeaders, ...stored.headers, 'Idempotent-Replayed': 'true' }, replayBody, 'application/json; charset=utf-8');
          return;
        }
        let stored: StoredResponse | null = null;
        try {
          const result = await run(ctx);
          const json = JSON.stringify(result.body ?? {});
          stored = { status: result.status, headers: result.headers ?? {}, body: json };
        } catch (err) {
          const { status, headers, body: envelope } = toErrorResponse(err, requestId);
          if (status < 500) stored = { status, headers, body: JSON.stringify(envelope) };
          // A 429 (the live limits) says "not now": the retry with the same key must run again, not replay it.
          if (status >= 500 || status === 429) {
            await outcome.finish(null);
            throw err;
          }
        }
        try {
          await outcome.finish(stored);
        } catch (err) {
          // Done or accepted (an analysis that exists, a charge that will happen), then the database went away before
          // the key recorded it: the answer is still this one, and the key records it once the database is back (a
          // retry meanwhile gets 409 idempotency_in_progress, then the replay). A 503 would say "nothing was done".
          if (stored!.status >= 300 || !unavailableDependency(err)) throw err;
          const keep = stored!;
          void retryWhileUnavailable(services.logger, { request_id: requestId, idempotency: 'complete' }, () => outcome.finish(keep), IDEMPOTENCY_LOCK_MS / 2).catch((again: unknown) =>
            services.logger.warn({ request_id: requestId, err: again }, 'could not record an idempotent answer; a retry after the lock lapses runs again'),
          );
        }
        send(res, stored!.status, { ...rateHeaders, ...stored!.headers }, stored!.body, 'application/json; charset=utf-8');
        return;
      }

      const result = await run(ctx);
      // A public GET answered from memory: its URL will always get this answer, so repeats take the fast path.
      if (fast && info.isPublic && req.method === 'GET' && result.memoKey && (result.status === 200 || result.status === 304)) {
        fast.remember(req.originalUrl, result.memoKey, result.headers?.['Cache-Control'] ?? '', ctx.operationId);
      }
      if (result.precompressed) {
        // A memoized answer: its br or gzip coding is made once (http/compression.ts), not at every request.
        const { headers, body } = await encodeMemoized({ ...result, precompressed: result.precompressed }, req.headers['accept-encoding']);
        send(res, result.status, { ...rateHeaders, ...headers }, body);
      } else if (result.raw) send(res, result.status, { ...rateHeaders, ...(result.headers ?? {}) }, result.raw);
      else send(res, result.status, { ...rateHeaders, ...(result.headers ?? {}) }, JSON.stringify(result.body ?? {}), 'application/json; charset=utf-8');
    } catch (err) {
      await releaseBody();
      res.locals.rateHeaders = rateHeaders;
      next(err);
    } finally {
      await releaseBody();
    }
  };
}

/** A path segment that is not valid percent-encoded UTF-8, or that decodes to a control character. */
function undecodable(segment: string): boolean {
  try {
    return /[\u0000-\u001f\u007f]/.test(decodeURIComponent(segment));
  } catch {
    return true;
  }
}
