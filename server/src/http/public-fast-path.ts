import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from './context.ts';
import { memoizedResponse } from './conditional.ts';
import type { RateLimiter } from './rate-limit.ts';

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
  private readonly urls = new Map<string, { key: string; cacheControl: string }>();
  private readonly services: Services;
  private readonly limiter: RateLimiter;
  private readonly newRequestId: () => string;

  constructor(services: Services, limiter: RateLimiter, newRequestId: () => string) {
    this.services = services;
    this.limiter = limiter;
    this.newRequestId = newRequestId;
  }

  /** Called by the pipeline for a public GET answered from memory (200 or 304). */
  remember(url: string, key: string, cacheControl: string): void {
    if (this.urls.has(url)) return;
    if (this.urls.size >= MAX_URLS) this.urls.delete(this.urls.keys().next().value!);
    this.urls.set(url, { key, cacheControl });
  }

  /** Answers the request and returns true, or returns false (and touches nothing) for the full pipeline to answer. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || req.url === undefined) return false;
    const known = this.urls.get(req.url);
    if (!known) return false;
    const result = memoizedResponse(known.key, req.headers['if-none-match'], known.cacheControl);
    if (!result) return false;
    const decision = this.limiter.hit(`public:${req.socket.remoteAddress ?? 'unknown'}`, this.services.config.publicRateLimitPerSecond);
    // Over the limit: the pipeline answers the 429 (a refused hit is not counted, so it is not counted twice).
    if (!decision.allowed) return false;
    const requestId = this.newRequestId();
    const started = process.hrtime.bigint();
    // One writeHead with every header (the order the pipeline sets them in), rather than a setHeader call each.
    res.writeHead(result.status, {
      'X-Request-Id': requestId,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': EXPOSED,
      ...decision.headers,
      ...result.headers,
      ...(result.status === 304 ? {} : { 'Content-Length': String(result.raw!.length) }),
    });
    res.end(result.raw);
    served++;
    const logger = this.services.logger;
    if (logger.isLevelEnabled('info')) {
      const path = req.url.split('?')[0];
      logger.info({ request_id: requestId, method: req.method, path, status: result.status, ms: Number(process.hrtime.bigint() - started) / 1e6, key_id: undefined }, 'request');
    }
    // The request has no body to read (a GET); whatever was sent is drained by Node.
    return true;
  }
}
