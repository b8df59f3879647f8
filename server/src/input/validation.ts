import type { ErrorObject } from 'ajv';
import { ApiError } from '../errors.ts';

/** Ajv instance path (`/requestBody/options/checks/max_age_days`) to the `param` the API reports. */
export function paramFromError(e: ErrorObject): string {
  const parts = e.instancePath.split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const where = parts.shift();
  if (e.keyword === 'additionalProperties') parts.push(String((e.params as { additionalProperty: string }).additionalProperty));
  if (e.keyword === 'required') parts.push(String((e.params as { missingProperty: string }).missingProperty));
  if (where === 'header' && parts.length > 0) {
    parts[0] = parts[0].replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase());
  }
  return parts.join('.');
}

function describe(e: ErrorObject, param: string): string {
  const p = (e.params ?? {}) as Record<string, unknown>;
  const name = param === '' ? 'El cuerpo' : `'${param}'`;
  switch (e.keyword) {
    case 'required':
      return `Falta el parámetro obligatorio '${param}'.`;
    case 'additionalProperties':
      return `Parámetro desconocido '${param}'.`;
    case 'enum':
      return `${name} debe ser uno de: ${(p.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'const':
      return `${name} debe ser ${JSON.stringify(p.allowedValue)}.`;
    case 'type':
      return `${name} debe ser de tipo ${String(p.type)}.`;
    case 'minimum':
    case 'exclusiveMinimum':
    case 'maximum':
    case 'exclusiveMaximum':
      return `${name} debe ser ${String(p.comparison)} ${String(p.limit)}.`;
    case 'minLength':
      return `${name} debe tener al menos ${String(p.limit)} caracteres.`;
    case 'maxLength':
      return `${name} admite como máximo ${String(p.limit)} caracteres.`;
    case 'minItems':
      return `${name} debe tener al menos ${String(p.limit)} elementos.`;
    case 'maxItems':
      return `${name} admite como máximo ${String(p.limit)} elementos.`;
    case 'maxProperties':
      return `${name} admite como máximo ${String(p.limit)} claves.`;
    case 'format':
      return `${name} no tiene el formato esperado (${String(p.format)}).`;
    case 'pattern':
      return `${name} no tiene el formato esperado.`;
    case 'uniqueItems':
      return `${name} no admite elementos repetidos.`;
    default:
      return `${name} no es válido.`;
  }
}

/** The first schema violation as 422 `invalid_parameter` with `param`. */
export function validationError(errors: ErrorObject[]): ApiError {
  // Prefer the most specific error: the deepest path (anyOf/oneOf wrappers report at their parent).
  const sorted = [...errors].sort((a, b) => {
    const wrap = (x: ErrorObject) => (x.keyword === 'anyOf' || x.keyword === 'oneOf' ? 1 : 0);
    return wrap(a) - wrap(b);
  });
  const e = sorted[0];
  const param = paramFromError(e);
  return new ApiError(422, 'invalid_parameter', describe(e, param), param === '' ? undefined : param);
}
