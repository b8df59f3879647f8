import type { ErrorObject } from './types.ts';

/** Base class of every error the SDK throws for a request. Logic should rely on `code` (stable), not `message`. */
export class CotejoError extends Error {
  /** HTTP status; undefined for connection errors and time-outs. */
  readonly status: number | undefined;
  /** `error.code` of the envelope, e.g. `resource_missing`. */
  readonly code: ErrorObject['code'] | undefined;
  /** `error.type` of the envelope, e.g. `invalid_request`. */
  readonly type: ErrorObject['type'] | undefined;
  /** `error.param`: the parameter or header involved, e.g. `options.expect`. */
  readonly param: string | undefined;
  /** `error.request_id`, else the `X-Request-Id` header. */
  readonly requestId: string | undefined;
  /** Response headers (undefined for connection errors). */
  readonly headers: Headers | undefined;
  /** The parsed error envelope's `error` object, when the body was one. */
  readonly error: ErrorObject | undefined;

  constructor(
    message: string,
    init: { status?: number; error?: ErrorObject; headers?: Headers; requestId?: string; cause?: unknown } = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.error = init.error;
    this.code = init.error?.code;
    this.type = init.error?.type;
    this.param = init.error?.param;
    this.headers = init.headers;
    this.requestId = init.error?.request_id ?? init.requestId ?? init.headers?.get('x-request-id') ?? undefined;
  }

  /** Builds the subclass matching an HTTP error response. */
  static fromResponse(status: number, body: unknown, headers: Headers): CotejoError {
    const error = isEnvelope(body) ? body.error : undefined;
    const message = error
      ? `${status} ${error.code}: ${error.message}`
      : `${status} ${typeof body === 'string' && body !== '' ? body.slice(0, 500) : 'status code (no body)'}`;
    const Cls = errorClassFor(status);
    return new Cls(message, { status, error, headers });
  }
}

function isEnvelope(body: unknown): body is { error: ErrorObject } {
  return typeof body === 'object' && body !== null && typeof (body as { error?: { code?: unknown } }).error?.code === 'string';
}

export class BadRequestError extends CotejoError {}
export class AuthenticationError extends CotejoError {}
export class InsufficientCreditsError extends CotejoError {}
export class PermissionDeniedError extends CotejoError {}
export class NotFoundError extends CotejoError {}
export class ConflictError extends CotejoError {}
export class PayloadTooLargeError extends CotejoError {}
export class UnsupportedMediaTypeError extends CotejoError {}
export class UnprocessableEntityError extends CotejoError {}
export class RateLimitError extends CotejoError {}
/** 500 and other 5xx except 501. */
export class InternalServerError extends CotejoError {}
/** 501 `not_implemented`: the operation is not available yet. Not retried. */
export class NotImplementedError extends CotejoError {}

/**
 * The request never got an HTTP response: DNS failure, refused or reset connection, TLS failure. The message names
 * the request (`GET https://api.cotejo.eu/v1/balance`) and the underlying cause (e.g. `connect ECONNREFUSED`);
 * `cause` holds the original error.
 */
export class APIConnectionError extends CotejoError {
  /** The method of the request that failed, e.g. `POST` (undefined if not known). */
  readonly method: string | undefined;
  /** The full URL the request was sent to (undefined if not known). */
  readonly url: string | undefined;

  constructor(message = 'Connection error.', init: { cause?: unknown; method?: string; url?: string } = {}) {
    super(message, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
  }
}

/** The request took longer than `timeout` (per attempt). */
export class APITimeoutError extends APIConnectionError {
  constructor(message = 'Request timed out.', init: { cause?: unknown; method?: string; url?: string } = {}) {
    super(message, init);
  }
}

type ErrorClass = new (message: string, init: ConstructorParameters<typeof CotejoError>[1]) => CotejoError;

function errorClassFor(status: number): ErrorClass {
  switch (status) {
    case 400: return BadRequestError;
    case 401: return AuthenticationError;
    case 402: return InsufficientCreditsError;
    case 403: return PermissionDeniedError;
    case 404: return NotFoundError;
    case 409: return ConflictError;
    case 413: return PayloadTooLargeError;
    case 415: return UnsupportedMediaTypeError;
    case 422: return UnprocessableEntityError;
    case 429: return RateLimitError;
    case 501: return NotImplementedError;
    default: return status >= 500 ? InternalServerError : CotejoError;
  }
}
