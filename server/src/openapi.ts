import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document } from 'openapi-backend';

/** The committed OpenAPI document: the single source the server routes and validates by. */
export const OPENAPI_PATH = path.resolve(import.meta.dirname, '../../generated/openapi.json');

export interface LoadedSpec {
  /** The exact bytes of generated/openapi.json (served unchanged at GET /openapi.json). */
  raw: Buffer;
  document: Document;
  api: OpenAPIBackend;
  operationIds: string[];
}

let cached: LoadedSpec | undefined;

function makeAjv(opts: Record<string, unknown>): Ajv2020 {
  const ajv = new Ajv2020({ ...opts, strict: false, allErrors: false, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv;
}

/** Loads and initialises once per process (the spec is immutable at run time). */
export function loadSpec(): LoadedSpec {
  if (cached) return cached;
  const raw = fs.readFileSync(OPENAPI_PATH);
  const document = JSON.parse(raw.toString('utf8')) as Document;
  const api = new OpenAPIBackend({
    definition: structuredClone(document),
    // openapi-backend validates definitions against OAS 3.0 only; the document is 3.1 and checked when generated.
    quick: true,
    validate: true,
    coerceTypes: true,
    customizeAjv: (_original, ajvOpts) => makeAjv(ajvOpts as Record<string, unknown>) as never,
  });
  // quick mode initialises synchronously for an object definition
  void api.init();
  const operationIds = api.getOperations().map((o) => o.operationId as string);
  cached = { raw, document, api, operationIds };
  return cached;
}

/** An Ajv 2020 instance that knows every component schema, for validating responses (tests) and events. */
export function makeSchemaValidator(document: Document): Ajv2020 {
  const ajv = makeAjv({});
  ajv.addSchema({ $id: 'openapi.json', components: (document as { components?: unknown }).components ?? {} });
  return ajv;
}
