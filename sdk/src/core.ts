import {
  APIConnectionError,
  APITimeoutError,
  CotejoError,
} from './errors.ts';

export const DEFAULT_BASE_URL = 'https://api.cotejo.eu';
export const VERSION = '0.1.0';

export interface ClientOptions {
  /** Secret key (`ck_test_...` or `ck_live_...`). Default: `process.env.COTEJO_API_KEY`. */
  apiKey?: string | undefined;
  /** Default: `process.env.COTEJO_BASE_URL`, else `https://api.cotejo.eu`. */
  baseURL?: string | undefined;
  /** Retries after the first attempt for retryable failures (see `isRetryable`). Default 2. */
  maxRetries?: number;
  /** Time-out of each attempt in milliseconds. Default 60 000. */
  timeout?: number;
  /** A `fetch` implementation. Default: `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Allow a secret key in a browser. Never do this in production: the key would be public. Default false. */
  dangerouslyAllowBrowser?: boolean;
}

/** Per-request options, the last argument of every method. */
export interface RequestOptions {
  /** `Idempotency-Key` of a POST. Default: `cotejo-sdk-<uuid>`, the same for every retry of the call. */
  idempotencyKey?: string;
  maxRetries?: number;
  timeout?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export type QueryValue = string | number | boolean | null | undefined | Record<string, string> | readonly (string | number)[];

export interface FinalRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue> | undefined;
  /** A JSON body, or a function building FormData (called again for every attempt: a FormData is single use only in some runtimes). */
  body?: { json: unknown } | { form: () => FormData };
  /** false for the public routes (the catalogue): no `Authorization` header is sent. Default true. */
  auth?: boolean;
  /** Return the `Response` itself (binary downloads) instead of its parsed JSON. */
  raw?: boolean;
}

const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 8_000;

/** Retry guidance of the specification: 429, 409 `idempotency_in_progress`, 408, 500, 502, 503, 504. */
export function isRetryable(status: number, code: string | undefined): boolean {
  if (status === 409) return code === 'idempotency_in_progress';
  return status === 408 || status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Jittered exponential back-off: 0.5 s, 1 s, 2 s... at most 8 s, each reduced by up to 25 %. */
export function backoffMs(retry: number): number {
  const delay = Math.min(RETRY_BASE_MS * 2 ** retry, RETRY_MAX_MS);
  return delay * (1 - Math.random() * 0.25);
}

function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown };
  return typeof g.window !== 'undefined' && typeof g.document !== 'undefined';
}

function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const v = p?.env?.[name];
  return v === undefined || v === '' ? undefined : v;
}

export class APIClient {
  readonly apiKey: string;
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly #fetch: typeof fetch;

  constructor(opts: ClientOptions = {}) {
    const apiKey = opts.apiKey ?? env('COTEJO_API_KEY');
    if (!apiKey) {
      throw new CotejoError(
        'Missing API key: pass `apiKey` to `new Cotejo({ apiKey })` or set the COTEJO_API_KEY environment variable.',
      );
    }
    if (isBrowser() && !opts.dangerouslyAllowBrowser && apiKey.startsWith('ck_')) {
      throw new CotejoError(
        'Refusing to use a secret Cotejo key (ck_...) in a browser: anyone could read it. Call Cotejo from your backend, ' +
          'or pass `dangerouslyAllowBrowser: true` if you really understand the risk.',
      );
    }
    this.apiKey = apiKey;
    this.baseURL = (opts.baseURL ?? env('COTEJO_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.maxRetries = opts.maxRetries ?? 2;
    this.timeout = opts.timeout ?? 60_000;
    const f = opts.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new CotejoError('No `fetch` available: pass `fetch` to `new Cotejo({ fetch })`.');
    this.#fetch = f;
  }

  /** Waits between retries; overridable (tests). */
  protected sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** @internal Waits `ms` (between polls); uses the overridable `sleep`. */
  wait(ms: number): Promise<void> {
    return this.sleep(ms);
  }

  buildURL(path: string, query?: Record<string, QueryValue>): string {
    const url = new URL(this.baseURL + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else if (typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) url.searchParams.append(`${key}[${k}]`, String(v));
      } else url.searchParams.append(key, String(value));
    }
    return url.toString();
  }

  async request<T>(req: FinalRequest, options: RequestOptions = {}): Promise<T> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const idempotencyKey =
      req.method === 'POST' ? (options.idempotencyKey ?? `cotejo-sdk-${globalThis.crypto.randomUUID()}`) : undefined;
    const url = this.buildURL(req.path, req.query);

    for (let attempt = 0; ; attempt++) {
      const retriesLeft = maxRetries - attempt;
      const headers: Record<string, string> = {
        Accept: req.raw ? '*/*' : 'application/json',
        ...(req.auth === false ? {} : { Authorization: `Bearer ${this.apiKey}` }),
        ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
        ...options.headers,
      };
      let body: BodyInit | undefined;
      if (req.body && 'json' in req.body) {
        body = JSON.stringify(req.body.json);
        headers['Content-Type'] = 'application/json';
      } else if (req.body) {
        body = req.body.form(); // fetch sets the multipart Content-Type with its boundary
      }

      let response: Response;
      try {
        response = await this.#fetchWithTimeout(url, { method: req.method, headers, body }, options, attempt);
      } catch (err) {
        if (options.signal?.aborted) throw err;
        if (retriesLeft > 0) {
          await this.sleep(backoffMs(attempt));
          continue;
        }
        throw err;
      }

      if (response.ok) {
        if (req.raw) return response as T;
        const text = await response.text();
        return (text === '' ? undefined : JSON.parse(text)) as T;
      }

      const errBody = await readBody(response);
      const error = CotejoError.fromResponse(response.status, errBody, response.headers);
      if (retriesLeft > 0 && isRetryable(response.status, error.code)) {
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        await this.sleep(retryAfter ?? backoffMs(attempt));
        continue;
      }
      throw error;
    }
  }

  /** One attempt. A failure without a response becomes an `APIConnectionError` (or `APITimeoutError`) naming the request. */
  async #fetchWithTimeout(url: string, init: RequestInit & { method: string }, options: RequestOptions, attempt: number): Promise<Response> {
    const timeout = options.timeout ?? this.timeout;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#fetch(url, { ...init, signal: controller.signal });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const request = `${init.method} ${url}`;
      const retried = attempt === 0 ? '' : ` (retried ${attempt} ${attempt === 1 ? 'time' : 'times'})`;
      if (timedOut) {
        throw new APITimeoutError(`Request timed out after ${timeout} ms: ${request}${retried}.`, { cause: err, method: init.method, url });
      }
      throw new APIConnectionError(
        `Connection error: ${request} failed: ${describeFailure(err)}${retried}. Check the base URL (baseURL or COTEJO_BASE_URL) and that the server is reachable.`,
        { cause: err, method: init.method, url },
      );
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * The cause of a failed fetch in one line, e.g. `connect ECONNREFUSED 127.0.0.1:8080`,
 * `getaddrinfo ENOTFOUND api.example`, `self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`. Node's fetch throws
 * a bare `TypeError: fetch failed` whose `cause` says what happened; a connection to a name with several addresses
 * fails with an `AggregateError` (empty message) holding one error per address.
 */
function describeFailure(err: unknown, depth = 0): string {
  if (depth > 5) return '';
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  if (err instanceof AggregateError && err.errors.length > 0) {
    return [...new Set(err.errors.map((e: unknown) => describeFailure(e, depth + 1)))].join('; ');
  }
  let text = err.message;
  if (typeof code === 'string' && code !== '' && !text.includes(code)) text = text === '' ? code : `${text} (${code})`;
  if (err.cause !== undefined && err.cause !== err) {
    const cause = describeFailure(err.cause, depth + 1);
    // "fetch failed" says nothing its cause does not say better.
    if (cause !== '') text = text === '' || text === 'fetch failed' ? cause : `${text}: ${cause}`;
  }
  return text === '' ? err.name : text;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
