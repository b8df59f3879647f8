import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from './context.ts';
import { encodeMemoized } from './compression.ts';
import { memoizedResponse } from './conditional.ts';
import { clientAddress, type TrustFn } from './client-address.ts';
import { addressBucket, type RateLimitDecision, type RateLimiter } from './rate-limit.ts';

/** Headers a browser may read from our responses (CORS). */
export const EXPOSED_HEADERS = [
  'X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After',
  'Idempotent-Replayed', 'Content-Disposition',
];
const EXPOSED = EXPOSED_HEADERS.join(',');

let served = 0;
/** Requests this process answered on the fast path (tests). */
export const publicFastPathServed = (): number => served;

/** At most this many distinct public URLs are remembered (`q` is free text); the oldest is forgotten first. */
const MAX_URLS = 2_000;

/**
 * Public GETs (the catalogue) whose exact URL the full pipeline has already routed, validated and answered from
 * memory: the same URL always gets the same answer (the catalogue is code), so a repeat is served here, before
 * Express, with what the pipeline would add (request id, CORS, the per-address public limit, the request log line).
 * Anything else (a new URL, a body no longer in memory, a request over the limit) goes the full way.
 */
export class PublicFastPath {
  private readonly urls = new Map<string, { key: string; cacheControl: string; operationId: string }>();
  private readonly services: Services;
  private readonly limiter: RateLimiter;
  private readonly newRequestId: () => string;
  /** Express's compiled `trust proxy`, so that this path counts the client's address as `req.ip` does. */
  private readonly trust: TrustFn;

  constructor(services: Services, limiter: RateLimiter, newRequestId: () => string, trust: TrustFn = () => false) {
    this.services = services;
    this.limiter = limiter;
    this.newRequestId = newRequestId;
    this.trust = trust;
  }

  /** Called by the pipeline for a public GET answered from memory (200 or 304); `operationId` labels its metrics. */
  remember(url: string, key: string, cacheControl: string, operationId: string): void {
    if (this.urls.has(url)) return;
    if (this.urls.size >= MAX_URLS) this.urls.delete(this.urls.keys().next().value!);
    this.urls.set(url, { key, cacheControl, operationId });
  }

  /**
   * Answers the request and returns true, or returns false (and touches nothing) for the full pipeline to answer; with
   * the database rate-limit store, the same as a promise once the request is counted (the request is not read
   * meanwhile: a GET has no body to wait for).
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
    if (req.method !== 'GET' || req.url === undefined) return false;
    const known = this.urls.get(req.url);
    if (!known) return false;
    const result = memoizedResponse(known.key, req.headers['if-none-match'], known.cacheControl);
    if (!result?.precompressed) return false;
    // In the coding the client takes, made once per body (http/compression.ts): at once after the first requests.
    const encoded = encodeMemoized({ ...result, precompressed: result.precompressed }, req.headers['accept-encoding']);
    const decision = this.limiter.hit(`public:${addressBucket(clientAddress(req, this.trust))}`, this.services.config.publicRateLimitPerSecond);
    if (decision instanceof Promise || encoded instanceof Promise) {
      return Promise.all([decision, encoded]).then(([d, e]) => this.answer(req, res, result.status, e, d));
    }
    return this.answer(req, res, result.status, encoded, decision);
  }

  private answer(req: IncomingMessage, res: ServerResponse, status: number, result: Awaited<ReturnType<typeof encodeMemoized>>, decision: RateLimitDecision): boolean {
    // Over the limit: the pipeline answers the 429 (the memory store does not count a refused hit, and the database
    // store remembers the bucket refused for the rest of the second: either way the pipeline's hit costs nothing more).
    if (!decision.allowed || req.url === undefined) return false;
    const requestId = this.newRequestId();
    const started = process.hrtime.bigint();
    // One writeHead with every header (the order the pipeline sets them in), rather than a setHeader call each.
    res.writeHead(status, {
      'X-Request-Id': requestId,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': EXPOSED,
      ...decision.headers,
      ...result.headers,
      ...(status === 304 ? {} : { 'Content-Length': String(result.body.length) }),
    });
    res.end(result.body);
    served++;
    // Counted like the pipeline's answers (metrics.ts), under the operation that first answered this URL.
    this.services.metrics?.request(this.urls.get(req.url)?.operationId ?? 'v1_unmatched', 'GET', status, Number(process.hrtime.bigint() - started) / 1e9);
    const logger = this.services.logger;
    if (logger.isLevelEnabled('info')) {
      const path = req.url.split('?')[0];
      logger.info({ request_id: requestId, method: req.method, path, status, ms: Number(process.hrtime.bigint() - started) / 1e6, key_id: undefined }, 'request');
    }
    // The request has no body to read (a GET); whatever was sent is drained by Node.
    return true;
  }
}
