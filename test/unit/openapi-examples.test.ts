// The examples of generated/openapi.json, which are what the mock (Prism, `npm run mock`) answers, what /docs shows
// and what Dredd expects. Before spec/error-examples.tsp every error of the mock had one body (a 422 about the type
// 'es_dnii', also for 401 or 404) and every list said `"url": "string"`; these checks fail on either.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../server/src/openapi.ts';
import {
  describedCodes,
  isList,
  mediaExamples,
  OPENAPI_30_FILE,
  pathExample,
  readDocument,
  resolveSchema,
  responses,
  specErrors,
  strings,
  type JsonObject,
} from '../support/examples.ts';

const doc = readDocument();
const all = responses(doc);
const errors = all.filter((r) => r.status >= 400 && r.content['application/json']);
const spec = specErrors();
const { api } = loadSpec();
const errorCodes = new Set((resolveSchema(doc, { $ref: '#/components/schemas/ErrorCode' }).enum as string[]) ?? []);
const requestIdExample = (resolveSchema(doc, { $ref: '#/components/schemas/RequestId' }).examples as string[])[0];

interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

/** The examples of a media type, and the body the mock answers if it is none of them (a schema's example). */
function answeredAndOwn(content: JsonObject): Array<{ key: string; value: unknown }> {
  const { own, answered } = mediaExamples(doc, content);
  const isOwn = own.some((e) => JSON.stringify(e.value) === JSON.stringify(answered));
  return answered === undefined || isOwn ? own : [...own, { key: 'answered', value: answered }];
}

const where = (r: { method: string; path: string; status: number }, key?: string) =>
  `${r.method} ${r.path} ${r.status}${key ? ` (example ${key})` : ''}`;

describe('error examples', () => {
  it('the document declares error responses (sanity)', () => {
    expect(errors.length).toBeGreaterThan(200);
    expect(new Set(errors.map((r) => r.status))).toEqual(new Set([400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 501, 503]));
  });

  it('every error response has examples of its own, and the mock answers one of them', () => {
    const problems: string[] = [];
    for (const r of errors) {
      const { own, answered } = mediaExamples(doc, r.content['application/json']);
      if (own.length === 0) problems.push(`${where(r)}: no example`);
      // A schema-level example would be answered instead of the response's own (it was: ErrorResponse had one).
      else if (!own.some((e) => JSON.stringify(e.value) === JSON.stringify(answered))) problems.push(`${where(r)}: the mock answers a body that is not one of its examples`);
    }
    expect(problems).toEqual([]);
  });

  it('every error example has the type of its status, a code its response lists, and the request id the mock sends', () => {
    const problems: string[] = [];
    for (const r of errors) {
      const listed = describedCodes(r.description);
      if (listed.length === 0) problems.push(`${where(r)}: the description lists no code`);
      for (const { key, value } of answeredAndOwn(r.content['application/json'])) {
        const e = (value as unknown as ErrorBody).error;
        const at = where(r, key);
        if (e.type !== spec.typeByStatus.get(r.status)) problems.push(`${at}: type ${e.type}, the specification says ${spec.typeByStatus.get(r.status)}`);
        if (!listed.includes(e.code)) problems.push(`${at}: code ${e.code} is not one the ${r.status} response lists (${listed.join(', ')})`);
        if (!errorCodes.has(e.code)) problems.push(`${at}: code ${e.code} is not in ErrorCode`);
        if (!['default', 'answered'].includes(key) && key !== e.code) problems.push(`${at}: titled ${key} but its code is ${e.code} (Prefer: example=<code> picks it)`);
        if (typeof e.message !== 'string' || e.message.length < 15) problems.push(`${at}: message ${JSON.stringify(e.message)}`);
        // Prism makes response headers up from their schema: its X-Request-Id is RequestId's example.
        if (e.request_id !== requestIdExample) problems.push(`${at}: request_id ${e.request_id} differs from the X-Request-Id the mock sends`);
        const v = api.validateResponse(value, r.operationId, r.status);
        if (v.errors) problems.push(`${at}: does not match the schema: ${JSON.stringify(v.errors.slice(0, 2))}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the codes each error response lists include every code the specification gives for its status', () => {
    const problems: string[] = [];
    for (const r of errors) {
      const listed = new Set(describedCodes(r.description));
      for (const code of spec.codesByStatus.get(r.status) ?? []) {
        if (!listed.has(code)) problems.push(`${where(r)}: the specification's ${code} is missing from "${r.description}"`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('different statuses of one operation answer different errors', () => {
    const problems: string[] = [];
    const byOperation = Map.groupBy(errors, (r) => r.operationId);
    for (const [operationId, list] of byOperation) {
      const bodies = list.map((r) => JSON.stringify(mediaExamples(doc, r.content['application/json']).answered));
      if (new Set(bodies).size !== bodies.length) problems.push(`${operationId}: two statuses answer the same body`);
    }
    expect(problems).toEqual([]);
  });

  it('a 404 on a route with an {id} names the id of the path example; 401 says the key is missing or invalid', () => {
    const problems: string[] = [];
    for (const r of errors) {
      for (const { key, value } of answeredAndOwn(r.content['application/json'])) {
        const e = (value as unknown as ErrorBody).error;
        const id = pathExample(r.operation, 'id');
        if (r.status === 404 && e.code === 'resource_missing' && id && !e.message.includes(id)) problems.push(`${where(r, key)}: does not name ${id}`);
        if (r.status === 401 && !['missing_api_key', 'invalid_api_key'].includes(e.code)) problems.push(`${where(r, key)}: ${e.code}`);
        if (r.status === 401 && e.param !== 'Authorization') problems.push(`${where(r, key)}: param ${e.param}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the OpenAPI 3.0 document (Dredd) carries the same error examples', () => {
    const doc30 = readDocument(OPENAPI_30_FILE);
    const pick = (d: JsonObject) =>
      responses(d)
        .filter((r) => r.status >= 400 && r.content['application/json'])
        .map((r) => [where(r), mediaExamples(d, r.content['application/json']).own]);
    expect(pick(doc30)).toEqual(pick(doc));
  });
});

describe('success examples', () => {
  const jsonSuccess = all.filter((r) => r.status >= 200 && r.status < 300 && r.content['application/json']);

  it('every list answers a page of real items with its own path as `url`', () => {
    const lists = jsonSuccess.filter((r) => isList(doc, r.content['application/json']));
    expect(lists.map((r) => r.path).sort()).toEqual([
      '/v1/analyses', '/v1/document-types', '/v1/dossiers', '/v1/reviews', '/v1/templates', '/v1/verification-links', '/v1/webhook-endpoints',
    ]);
    const problems: string[] = [];
    for (const r of lists) {
      const body = mediaExamples(doc, r.content['application/json']).answered as JsonObject | undefined;
      if (!body) {
        problems.push(`${where(r)}: no example (the mock makes one up, with "url": "string")`);
        continue;
      }
      if (body.url !== r.path) problems.push(`${where(r)}: url ${JSON.stringify(body.url)}`);
      if (!Array.isArray(body.data) || body.data.length === 0) problems.push(`${where(r)}: empty data`);
      // A client paging through the mock gets the same page again: it must be told to stop.
      if (body.has_more !== false) problems.push(`${where(r)}: has_more ${JSON.stringify(body.has_more)}`);
      const v = api.validateResponse(body, r.operationId, r.status);
      if (v.errors) problems.push(`${where(r)}: does not match the schema: ${JSON.stringify(v.errors.slice(0, 2))}`);
    }
    expect(problems).toEqual([]);
  });

  it('every JSON success response has an example, so the mock never makes one up', () => {
    // exportAnalysis and downloadFile answer a file (the JSON export among their media types), not a resource.
    const files = new Set(['exportAnalysis', 'downloadFile']);
    const missing = jsonSuccess
      .filter((r) => !files.has(r.operationId) && mediaExamples(doc, r.content['application/json']).answered === undefined)
      .map((r) => where(r));
    expect(missing).toEqual([]);
  });

  it('no example anywhere holds a placeholder "string"', () => {
    const found: string[] = [];
    JSON.stringify(doc, (key, value: unknown) => {
      if (key === 'example' || key === 'examples') {
        // `type: "string"` inside a JSON Schema (a document type's `schema`) is a real value.
        for (const [at, s] of strings(value)) if (s === 'string' && !at.endsWith('.type')) found.push(at);
      }
      return value;
    });
    expect(found).toEqual([]);
  });
});
