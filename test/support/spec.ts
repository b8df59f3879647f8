import type { Document } from 'openapi-backend';
import { loadSpec, makeSchemaValidator } from '../../server/src/openapi.ts';

const spec = loadSpec();
const ajv = makeSchemaValidator(spec.document);

export class SpecMismatch extends Error {}

/** `{$ref: '#/components/...'}` inside the document, as a ref the validator's registry resolves. */
function resolveRef(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/'));
}

function declaredStatus(responses: Record<string, unknown>, status: number): string | undefined {
  const s = String(status);
  if (responses[s]) return s;
  const range = `${s[0]}XX`;
  if (responses[range]) return range;
  if (responses.default) return 'default';
  return undefined;
}

/**
 * Every response a test receives must be one the OpenAPI document declares: the status, the
 * headers it requires, and the JSON body's schema. Drift between server and spec fails the suite.
 */
export function assertMatchesSpec(method: string, path: string, res: { status: number; headers: Headers; body: unknown }): void {
  const url = new URL(path, 'http://x');
  const op = spec.api.router.matchOperation({ method, path: url.pathname, headers: {}, query: url.search.slice(1) });
  const headerObj = Object.fromEntries(res.headers.entries());
  const problems: string[] = [];
  if (!res.headers.get('x-request-id')?.match(/^req_[0-9A-HJKMNP-TV-Z]{26}$/)) problems.push('missing or malformed X-Request-Id');
  const isJson = (res.headers.get('content-type') ?? '').includes('application/json');

  if (!op) {
    // Unknown routes: the error envelope.
    if (res.status !== 404 && !(method === 'OPTIONS' && res.status === 204)) problems.push(`unmatched route answered ${res.status}`);
    if (res.status === 404) {
      const ok = ajv.validate({ $ref: 'openapi.json#/components/schemas/ErrorResponse' }, res.body);
      if (!ok) problems.push(`error envelope: ${ajv.errorsText(ajv.errors)}`);
    }
  } else if (method !== 'OPTIONS') {
    const responses = (op.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
    const declared = declaredStatus(responses, res.status);
    if (!declared) problems.push(`status ${res.status} is not declared for ${op.operationId}`);
    else {
      const content = responses[declared].content ?? {};
      if (isJson) {
        if (!content['application/json']) problems.push(`${op.operationId} ${res.status}: JSON body not declared`);
        const v = spec.api.validateResponse(res.body, op, res.status);
        if (v.errors) problems.push(`${op.operationId} ${res.status} body: ${JSON.stringify(v.errors.slice(0, 3))}`);
      }
      const declaredHeaders = ((responses[declared] as { headers?: Record<string, { required?: boolean; schema?: object }> }).headers ?? {});
      for (const [name, h] of Object.entries(declaredHeaders)) {
        const value = res.headers.get(name);
        if (value === null) {
          if (h.required) problems.push(`${op.operationId} ${res.status}: required header ${name} missing`);
          continue;
        }
        const schema = (h.schema ?? {}) as { type?: string };
        const typed = schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
        if (!ajv.validate(resolveRef(schema), typed)) {
          problems.push(`${op.operationId} ${res.status}: header ${name}=${value}: ${ajv.errorsText(ajv.errors)}`);
        }
      }
    }
  }
  if (res.status >= 400 && isJson) {
    const body = res.body as { error?: { request_id?: string } };
    if (body.error?.request_id !== res.headers.get('x-request-id')) problems.push('error.request_id differs from X-Request-Id');
  }
  if (problems.length > 0) {
    throw new SpecMismatch(`${method} ${path} -> ${res.status} does not match the spec:\n  ${problems.join('\n  ')}\n  body: ${JSON.stringify(res.body).slice(0, 500)}`);
  }
}

export const specDocument: Document = spec.document;
export const operationIds = spec.operationIds;
