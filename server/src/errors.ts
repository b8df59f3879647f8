/**
 * The service's error: the contract's error code (`ErrorCode`, declared once in spec/errors.tsp), the status the
 * specification gives it, a message in Spanish, the parameter it names and the headers it asks for (Retry-After).
 * Thrown anywhere (domain, jobs, providers, routes); the HTTP layer turns it into the envelope in one place
 * (`toErrorResponse` in http/errors.ts), which adds the error `type` and the request id.
 */
import type { components } from '../../generated/api.d.ts';

export type ErrorCode = components['schemas']['ErrorCode'];

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  constructor(status: number, code: ErrorCode, message: string, param?: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.param = param;
    this.headers = headers;
  }
}

export const notImplemented = (what: string): ApiError =>
  new ApiError(501, 'not_implemented', `Esta funcionalidad aún no está disponible: ${what}.`);

export const resourceMissing = (id: string, param = 'id'): ApiError =>
  new ApiError(404, 'resource_missing', `No existe el recurso '${id}'.`, param);
