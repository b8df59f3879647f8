import type { components } from '../../../generated/api.d.ts';
import { ApiError } from '../errors.ts';
import { UNAVAILABLE_RETRY_AFTER_S, unavailableDependency } from '../storage/unavailable.ts';

export type ErrorType = components['schemas']['ErrorType'];
export type ErrorEnvelope = components['schemas']['ErrorResponse'];

/** HTTP status to error `type`, as in the specification's "Types and statuses" table. */
const TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'invalid_request',
  401: 'authentication',
  402: 'insufficient_credits',
  403: 'permission',
  404: 'not_found',
  409: 'invalid_request',
  413: 'invalid_request',
  415: 'invalid_request',
  422: 'invalid_request',
  501: 'invalid_request',
  429: 'rate_limited',
  500: 'api_error',
  503: 'api_error',
};

export function errorTypeFor(status: number): ErrorType {
  return TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request');
}

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorEnvelope;
}

const UNAVAILABLE_MESSAGE = {
  database: 'El servicio no puede acceder a su base de datos en este momento. No se ha hecho nada: vuelve a intentarlo pasados los segundos de Retry-After.',
  blob_store: 'El servicio no puede acceder a su almacenamiento de ficheros en este momento. No se ha hecho nada: vuelve a intentarlo pasados los segundos de Retry-After.',
} as const;

/**
 * A thrown value as the ApiError it answers: itself, or 503 `service_unavailable` with Retry-After when it says the
 * database or the blob store is away for now (issue #31: never a 500 for a passing outage); null for anything else.
 */
export function asApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  const dependency = unavailableDependency(err);
  if (!dependency) return null;
  return new ApiError(503, 'service_unavailable', UNAVAILABLE_MESSAGE[dependency], undefined, { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) });
}

/** The single place where any thrown value becomes the error envelope. Unknown errors never leak. */
export function toErrorResponse(thrown: unknown, requestId: string): ErrorResponse {
  const err = asApiError(thrown);
  if (err) {
    const error: ErrorEnvelope['error'] = {
      type: errorTypeFor(err.status),
      code: err.code,
      message: err.message,
      request_id: requestId,
    };
    if (err.param !== undefined) error.param = err.param;
    return { status: err.status, headers: err.headers, body: { error } };
  }
  return {
    status: 500,
    headers: {},
    body: {
      error: {
        type: 'api_error',
        code: 'internal_error',
        message: 'Error interno inesperado. Vuelve a intentarlo; si persiste, contacta con soporte indicando el request_id.',
        request_id: requestId,
      },
    },
  };
}
