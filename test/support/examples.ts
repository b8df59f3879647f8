// What generated/openapi.json shows as examples, read the way the mock reads them, and what the specification
// (../shared/spec/document-analysis-service.md) says error bodies must be. Shared by test/unit/openapi-examples.test.ts
// (the document) and test/e2e/mock.test.ts (Prism answering from it).
import fs from 'node:fs';
import path from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../../generated/openapi.json');
export const OPENAPI_30_FILE = path.resolve(import.meta.dirname, '../../generated/openapi-3.0.json');
const SPEC_FILE = path.resolve(import.meta.dirname, '../../../shared/spec/document-analysis-service.md');

export const readDocument = (file = OPENAPI_FILE): JsonObject => JSON.parse(fs.readFileSync(file, 'utf8')) as JsonObject;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema with its `$ref`s followed (component schemas only). */
export function resolveSchema(doc: JsonObject, schema: unknown): JsonObject {
  let s = schema;
  for (let i = 0; isObject(s) && typeof s.$ref === 'string' && i < 10; i++) {
    s = s.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), doc);
  }
  return isObject(s) ? s : {};
}

export interface MediaExamples {
  /** Every example of the media type, by key (`example` alone counts as key `default`). */
  own: Array<{ key: string; value: Json }>;
  /**
   * The body Prism answers when no `Prefer: example=` is sent. @stoplight/http-spec puts the media type's `example`,
   * else the (resolved) schema's `examples[0]`, first; then the media type's `examples` in order; Prism answers the first.
   */
  answered: Json | undefined;
}

export function mediaExamples(doc: JsonObject, content: JsonObject): MediaExamples {
  const own: Array<{ key: string; value: Json }> = [];
  if ('example' in content) own.push({ key: 'default', value: content.example });
  if (isObject(content.examples)) {
    for (const [key, ex] of Object.entries(content.examples)) if (isObject(ex) && 'value' in ex) own.push({ key, value: ex.value });
  }
  const schemaExamples = resolveSchema(doc, content.schema).examples;
  const fromSchema = Array.isArray(schemaExamples) && schemaExamples.length > 0 ? schemaExamples[0] : undefined;
  const answered = 'example' in content ? content.example : (fromSchema ?? own[0]?.value);
  return { own, answered };
}

export interface Response {
  operationId: string;
  method: string;
  /** The path template, e.g. `/v1/analyses/{id}`. */
  path: string;
  status: number;
  description: string;
  /** The operation object (parameters, security...). */
  operation: JsonObject;
  content: Record<string, JsonObject>;
}

/** Every response of every operation of the document. */
export function responses(doc: JsonObject): Response[] {
  const out: Response[] = [];
  for (const [p, item] of Object.entries(doc.paths as JsonObject)) {
    for (const [method, op] of Object.entries(item as JsonObject)) {
      if (!isObject(op) || typeof op.operationId !== 'string' || !isObject(op.responses)) continue;
      for (const [status, res] of Object.entries(op.responses)) {
        if (!isObject(res)) continue;
        out.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          path: p,
          status: Number(status),
          description: typeof res.description === 'string' ? res.description : '',
          operation: op,
          content: (isObject(res.content) ? res.content : {}) as Record<string, JsonObject>,
        });
      }
    }
  }
  return out;
}

/** The codes a response's description lists in backticks (`Not found: \`resource_missing\`, ...`): the contract's list. */
export const describedCodes = (description: string): string[] => [...description.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]);

/** The example value of a path parameter (every one has one: docs/contract.md). */
export function pathExample(op: JsonObject, name: string): string | undefined {
  const params = Array.isArray(op.parameters) ? op.parameters : [];
  const p = params.find((x) => isObject(x) && x.in === 'path' && x.name === name);
  return isObject(p) && typeof p.example === 'string' ? p.example : undefined;
}

/** Whether the response's schema is a list envelope (`object: "list"`). */
export function isList(doc: JsonObject, content: JsonObject): boolean {
  const props = resolveSchema(doc, content.schema).properties;
  if (!isObject(props) || !isObject(props.object)) return false;
  const o = props.object;
  return o.const === 'list' || (Array.isArray(o.enum) && o.enum.length === 1 && o.enum[0] === 'list');
}

export interface SpecErrors {
  /** HTTP status to error `type` ("Types and statuses"). */
  typeByStatus: Map<number, string>;
  /** HTTP status to the codes of the "Codes" table. */
  codesByStatus: Map<number, Set<string>>;
}

/** The two tables of the specification's Errors section. */
export function specErrors(): SpecErrors {
  const text = fs.readFileSync(SPEC_FILE, 'utf8');
  const section = (title: string): string => {
    const start = text.indexOf(`### ${title}`);
    if (start < 0) throw new Error(`no "### ${title}" in ${SPEC_FILE}`);
    const end = text.indexOf('\n#', start + 4);
    return text.slice(start, end < 0 ? undefined : end);
  };
  const rows = (s: string) =>
    s
      .split('\n')
      .filter((l) => /^\|\s*\d/.test(l))
      .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
  const typeByStatus = new Map<number, string>();
  for (const [statuses, type] of rows(section('Types and statuses'))) {
    for (const s of statuses.split(',')) typeByStatus.set(Number(s.trim()), type);
  }
  const codesByStatus = new Map<number, Set<string>>();
  for (const [status, code] of rows(section('Codes'))) {
    const set = codesByStatus.get(Number(status)) ?? new Set<string>();
    set.add(code);
    codesByStatus.set(Number(status), set);
  }
  return { typeByStatus, codesByStatus };
}

/** Every string inside a JSON value, with its JSON path. */
export function strings(value: unknown, at = '$'): Array<[string, string]> {
  if (typeof value === 'string') return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${at}[${i}]`));
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => strings(v, `${at}.${k}`));
  return [];
}
