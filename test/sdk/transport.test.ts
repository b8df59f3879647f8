// Transport of @cotejo/sdk with an injected `fetch`: retries per the spec's guidance, Retry-After, idempotency keys,
// time-outs, error mapping, the missing-key message and the browser refusal. No network.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  Cotejo,
  CotejoError,
  InsufficientCreditsError,
  InternalServerError,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError,
  backoffMs,
  type ClientOptions,
} from '../../sdk/src/index.ts';

interface Call {
  url: string;
  method: string;
  headers: Headers;
  body: unknown;
}

type Reply = Response | Error | ((call: Call, init: RequestInit) => Promise<Response> | Response);

function errorReply(status: number, code: string, extra: { param?: string; headers?: Record<string, string> } = {}): Response {
  const requestId = `req_${status}${code}`;
  return new Response(
    JSON.stringify({ error: { type: 'invalid_request', code, message: `mensaje ${code}`, param: extra.param, request_id: requestId } }),
    { status, headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...extra.headers } },
  );
}

const ok = (body: unknown = { id: 'an_1', object: 'analysis', status: 'completed' }) =>
  new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'req_ok' } });

/** A client whose fetch answers the scripted replies in order, and whose sleeps are recorded, not waited. */
class TestCotejo extends Cotejo {
  readonly sleeps: number[] = [];
  protected override sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    return Promise.resolve();
  }
}

function client(replies: Reply[], opts: ClientOptions = {}) {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    const call: Call = { url: String(input), method: init.method ?? 'GET', headers: new Headers(init.headers), body: init.body };
    calls.push(call);
    const reply = replies.shift();
    if (reply === undefined) throw new Error('unexpected call');
    if (reply instanceof Error) throw reply;
    if (typeof reply === 'function') return reply(call, init);
    return reply;
  };
  const c = new TestCotejo({ apiKey: 'ck_test_x', baseURL: 'http://api.test', fetch: fetch as typeof globalThis.fetch, ...opts });
  return { c, calls };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

describe('retries', () => {
  const retryable: Array<[number, string]> = [
    [429, 'rate_limited'],
    [409, 'idempotency_in_progress'],
    [408, 'request_timeout'],
    [500, 'internal_error'],
    [502, 'bad_gateway'],
    [503, 'live_mode_unavailable'],
    [504, 'gateway_timeout'],
  ];
  it.each(retryable)('retries %i %s up to maxRetries, then throws', async (status, code) => {
    const { c, calls } = client([errorReply(status, code), errorReply(status, code), errorReply(status, code)]);
    const err = await c.balance.retrieve().catch((e) => e);
    expect(err).toBeInstanceOf(CotejoError);
    expect(err.status).toBe(status);
    expect(calls).toHaveLength(3);
    expect(c.sleeps).toHaveLength(2);
  });

  it.each(retryable)('succeeds after a %i %s', async (status, code) => {
    const { c, calls } = client([errorReply(status, code), ok({ object: 'balance' })]);
    await expect(c.balance.retrieve()).resolves.toMatchObject({ object: 'balance' });
    expect(calls).toHaveLength(2);
  });

  const never: Array<[number, string]> = [
    [400, 'invalid_json'],
    [401, 'invalid_api_key'],
    [402, 'insufficient_credits'],
    [403, 'forbidden'],
    [404, 'resource_missing'],
    [409, 'analysis_not_completed'],
    [409, 'already_reviewed'],
    [413, 'file_too_large'],
    [415, 'unsupported_file_type'],
    [422, 'invalid_parameter'],
    [501, 'not_implemented'],
  ];
  it.each(never)('never retries %i %s', async (status, code) => {
    const { c, calls } = client([errorReply(status, code), ok()]);
    await expect(c.analyses.retrieve('an_1')).rejects.toMatchObject({ status, code });
    expect(calls).toHaveLength(1);
    expect(c.sleeps).toEqual([]);
  });

  it('retries network errors as APIConnectionError', async () => {
    const { c, calls } = client([new TypeError('fetch failed'), new TypeError('fetch failed'), ok()]);
    await expect(c.analyses.retrieve('an_1')).resolves.toMatchObject({ id: 'an_1' });
    expect(calls).toHaveLength(3);
    const again = client([new TypeError('fetch failed')], { maxRetries: 0 });
    const err = await again.c.analyses.retrieve('an_1').catch((e) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err.cause).toBeInstanceOf(TypeError);
  });

  it('honours Retry-After (seconds and HTTP date) instead of the back-off', async () => {
    const date = new Date(Date.now() + 3_000).toUTCString();
    const { c } = client([
      errorReply(429, 'rate_limited', { headers: { 'Retry-After': '7' } }),
      errorReply(503, 'live_mode_unavailable', { headers: { 'Retry-After': date } }),
      ok(),
    ]);
    await c.analyses.retrieve('an_1');
    expect(c.sleeps[0]).toBe(7_000);
    expect(c.sleeps[1]).toBeGreaterThan(1_000);
    expect(c.sleeps[1]).toBeLessThanOrEqual(3_000);
  });

  it('backs off exponentially with jitter from 0.5 s up to 8 s', () => {
    for (let i = 0; i < 50; i++) {
      expect(backoffMs(0)).toBeGreaterThan(375 - 1e-9);
      expect(backoffMs(0)).toBeLessThanOrEqual(500);
      expect(backoffMs(1)).toBeLessThanOrEqual(1000);
      expect(backoffMs(1)).toBeGreaterThanOrEqual(750);
      expect(backoffMs(10)).toBeLessThanOrEqual(8000);
      expect(backoffMs(10)).toBeGreaterThanOrEqual(6000);
    }
  });

  it('maxRetries per request and per client', async () => {
    const a = client([errorReply(500, 'internal_error'), ok()], { maxRetries: 0 });
    await expect(a.c.analyses.retrieve('an_1')).rejects.toBeInstanceOf(InternalServerError);
    const b = client([errorReply(500, 'internal_error'), errorReply(500, 'internal_error'), errorReply(500, 'internal_error'), errorReply(500, 'internal_error'), ok()]);
    await expect(b.c.analyses.retrieve('an_1', { maxRetries: 4 })).resolves.toMatchObject({ id: 'an_1' });
    expect(b.calls).toHaveLength(5);
  });
});

describe('idempotency keys', () => {
  it('every POST gets cotejo-sdk-<uuid>, the same across its retries, a new one per call', async () => {
    const { c, calls } = client([errorReply(409, 'idempotency_in_progress'), errorReply(500, 'internal_error'), ok(), ok()]);
    await c.analyses.create({ file: { url: 'https://files.example/dni_valid.jpg' }, expect: 'es_dni' });
    await c.analyses.create({ file: { url: 'https://files.example/dni_valid.jpg' } });
    const keys = calls.map((k) => k.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^cotejo-sdk-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('a caller-provided key wins; GET and DELETE send none', async () => {
    const { c, calls } = client([errorReply(503, 'live_mode_unavailable'), ok(), ok(), ok()]);
    await c.webhookEndpoints.create({ url: 'https://hooks.example/x', events: ['*'] }, { idempotencyKey: 'mine-1' });
    await c.analyses.retrieve('an_1');
    await c.analyses.del('an_1');
    expect(calls.map((k) => k.headers.get('idempotency-key'))).toEqual(['mine-1', 'mine-1', null, null]);
  });

  it('sends JSON for file_url with the options nested, and the bearer key', async () => {
    const { c, calls } = client([ok()]);
    await c.analyses.create({ file: { url: 'https://files.example/a.jpg' }, filename: 'dni_valid.jpg', expect: 'es_dni', async: true });
    expect(calls[0].url).toBe('http://api.test/v1/analyze');
    expect(calls[0].headers.get('authorization')).toBe('Bearer ck_test_x');
    expect(calls[0].headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(calls[0].body as string)).toEqual({
      file_url: 'https://files.example/a.jpg',
      filename: 'dni_valid.jpg',
      options: { expect: 'es_dni', async: true },
    });
  });

  it('sends multipart with `options` JSON for bytes, rebuilt for each retry', async () => {
    const { c, calls } = client([errorReply(502, 'bad_gateway'), ok()]);
    await c.analyses.create({ file: new Uint8Array([1, 2, 3]), filename: 'dni_valid.jpg', expect: ['es_dni'] });
    for (const call of calls) {
      const fd = call.body as FormData;
      expect(fd).toBeInstanceOf(FormData);
      expect((fd.get('file') as File).name).toBe('dni_valid.jpg');
      expect(JSON.parse(fd.get('options') as string)).toEqual({ expect: ['es_dni'] });
    }
    expect(calls[0].body).not.toBe(calls[1].body);
  });
});

describe('time-outs', () => {
  const hang = (_call: Call, init: RequestInit) =>
    new Promise<Response>((_resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    });

  it('throws APITimeoutError after `timeout` (retried like network errors)', async () => {
    const { c, calls } = client([hang, hang], { timeout: 20, maxRetries: 1 });
    const err = await c.balance.retrieve().catch((e) => e);
    expect(err).toBeInstanceOf(APITimeoutError);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(calls).toHaveLength(2);
  });

  it('per-request timeout', async () => {
    const { c } = client([hang]);
    await expect(c.balance.retrieve({ timeout: 10, maxRetries: 0 })).rejects.toBeInstanceOf(APITimeoutError);
  });
});

describe('errors', () => {
  const classes: Array<[number, string, abstract new (...a: never[]) => CotejoError]> = [
    [400, 'invalid_json', BadRequestError],
    [401, 'invalid_api_key', AuthenticationError],
    [402, 'insufficient_credits', InsufficientCreditsError],
    [403, 'forbidden', PermissionDeniedError],
    [404, 'resource_missing', NotFoundError],
    [409, 'analysis_not_completed', ConflictError],
    [413, 'file_too_large', PayloadTooLargeError],
    [415, 'unsupported_content_type', UnsupportedMediaTypeError],
    [422, 'invalid_parameter', UnprocessableEntityError],
    [429, 'rate_limited', RateLimitError],
    [500, 'internal_error', InternalServerError],
    [503, 'live_mode_unavailable', InternalServerError],
    [501, 'not_implemented', NotImplementedError],
  ];
  it.each(classes)('%i %s maps to its class with status, code, param, requestId, headers, type', async (status, code, Cls) => {
    const { c } = client([errorReply(status, code, { param: 'options.expect' })], { maxRetries: 0 });
    const err = await c.analyses.retrieve('an_1').catch((e) => e);
    expect(err).toBeInstanceOf(Cls);
    expect(err).toBeInstanceOf(CotejoError);
    expect(err).toMatchObject({ status, code, param: 'options.expect', requestId: `req_${status}${code}`, type: 'invalid_request' });
    expect(err.headers.get('x-request-id')).toBe(`req_${status}${code}`);
    expect(err.message).toContain(code);
    expect(err.name).toBe(Cls.name);
  });

  it('a non-envelope body still gives the status and the X-Request-Id header', async () => {
    const { c } = client([new Response('<html>bad gateway</html>', { status: 502, headers: { 'X-Request-Id': 'req_gw' } })], { maxRetries: 0 });
    const err = await c.balance.retrieve().catch((e) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err).toMatchObject({ status: 502, code: undefined, requestId: 'req_gw' });
  });
});

describe('construction', () => {
  it('fails at once naming COTEJO_API_KEY when no key', () => {
    vi.stubEnv('COTEJO_API_KEY', '');
    expect(() => new Cotejo()).toThrow(/COTEJO_API_KEY/);
  });

  it('reads COTEJO_API_KEY and COTEJO_BASE_URL; defaults to https://api.cotejo.eu', () => {
    vi.stubEnv('COTEJO_API_KEY', 'ck_test_env');
    vi.stubEnv('COTEJO_BASE_URL', 'http://localhost:8080/');
    const c = new Cotejo();
    expect(c.apiKey).toBe('ck_test_env');
    expect(c.baseURL).toBe('http://localhost:8080');
    vi.stubEnv('COTEJO_BASE_URL', '');
    expect(new Cotejo().baseURL).toBe('https://api.cotejo.eu');
    expect(new Cotejo().maxRetries).toBe(2);
    expect(new Cotejo().timeout).toBe(60_000);
  });

  it('refuses a secret key in a browser unless dangerouslyAllowBrowser', () => {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    expect(() => new Cotejo({ apiKey: 'ck_test_x' })).toThrow(/browser/);
    expect(() => new Cotejo({ apiKey: 'ck_test_x', dangerouslyAllowBrowser: true })).not.toThrow();
  });
});

describe('pagination', () => {
  it('awaits the first page, and `for await` walks starting_after until has_more is false', async () => {
    const page = (ids: string[], hasMore: boolean) => ok({ object: 'list', data: ids.map((id) => ({ id })), has_more: hasMore, url: '/v1/analyses' });
    const { c, calls } = client([page(['an_3', 'an_2'], true), page(['an_3', 'an_2'], true), page(['an_1'], false)]);
    const first = await c.analyses.list({ limit: 2, status: 'completed' });
    expect(first.data.map((a) => a.id)).toEqual(['an_3', 'an_2']);
    expect(first.hasNextPage()).toBe(true);
    const ids: string[] = [];
    for await (const a of c.analyses.list({ limit: 2, status: 'completed' })) ids.push(a.id);
    expect(ids).toEqual(['an_3', 'an_2', 'an_1']);
    expect(calls.map((k) => k.url)).toEqual([
      'http://api.test/v1/analyses?limit=2&status=completed',
      'http://api.test/v1/analyses?limit=2&status=completed',
      'http://api.test/v1/analyses?limit=2&status=completed&starting_after=an_2',
    ]);
  });

  it('encodes metadata filters as metadata[key]', async () => {
    const { c, calls } = client([ok({ object: 'list', data: [], has_more: false, url: '/v1/analyses' })]);
    await c.analyses.list({ metadata: { user: 'u 1' } });
    expect(calls[0].url).toBe('http://api.test/v1/analyses?metadata%5Buser%5D=u+1');
  });
});

describe('public routes', () => {
  it('the catalogue is requested without the key', async () => {
    const { c, calls } = client([ok({ object: 'list', data: [], has_more: false, total: 0, url: '/v1/document-types' }), ok({ object: 'document_type' })]);
    await c.documentTypes.list();
    await c.documentTypes.retrieve('es_dni', { language: 'en' });
    expect(calls.map((k) => k.headers.get('authorization'))).toEqual([null, null]);
    expect(calls[1].url).toBe('http://api.test/v1/document-types/es_dni?language=en');
  });
});
