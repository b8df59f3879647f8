// Generates generated/openapi.json (OpenAPI 3.1.0) from spec/main.tsp, then generated/api.d.ts, and
// generated/openapi-3.0.json (the same model emitted as OpenAPI 3.0.0, read only by Dredd: docs/contract.md).
//
//   npm run generate        (node scripts/generate.ts)
//
// Steps:
//   1. compile spec/main.tsp with the TypeSpec compiler; ANY diagnostic (error or warning) fails the run;
//   2. build the OpenAPI 3.1.0 and 3.0.0 documents in memory with the @typespec/openapi3 emitter (options below:
//      they live here rather than in a tspconfig.yaml so that this script is the only entry point);
//   3. post-process (see postProcess) and write them as JSON (2 spaces, trailing newline; key order is the emitter's, which is stable);
//   4. run openapi-typescript on the 3.1.0 one and write generated/api.d.ts;
//   5. refresh webhooks-verifier/src/events.gen.ts from it (webhooks-verifier/scripts/sync-types.ts);
//   6. write the Python SDK's models, sdk-python/src/cotejo/models.py (scripts/generate-python.ts).
// The output depends only on spec/: running the script twice gives byte-identical files.
//
// generated/openapi.json is THE contract: the server routes and validates with it and serves it byte for byte at
// GET /openapi.json; Prism, the SDK types and the tests read it. generated/openapi-3.0.json exists only because
// Dredd 14 reads OpenAPI 2 and 3.0, not 3.1; it is emitted by the same emitter from the same model (not converted
// from the 3.1 document), so the two cannot drift apart.

import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compile, formatDiagnostic, NodeHost } from "@typespec/compiler";
import type { Diagnostic, Program } from "@typespec/compiler";
import { getAllHttpServices } from "@typespec/http";
import { getOperationId } from "@typespec/openapi";
import { getOpenAPI3 } from "@typespec/openapi3";
import openapiTS, { astToString } from "openapi-typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const mainFile = path.join(root, "spec", "main.tsp");
const outDir = path.join(root, "generated");
const openapiFile = path.join(outDir, "openapi.json");
const openapi30File = path.join(outDir, "openapi-3.0.json");
const dtsFile = path.join(outDir, "api.d.ts");
const eventsGenFile = path.join(root, "webhooks-verifier", "src", "events.gen.ts");

type EmitterOptions = NonNullable<Parameters<typeof getOpenAPI3>[1]>;
type OpenApiVersion = "3.1.0" | "3.0.0";

const emitterOptions: Omit<EmitterOptions, "openapi-versions"> = {
  // Every operation carries an explicit @operationId (the server routes by them; checked in
  // checkExplicitOperationIds). "explicit-only" is not used: with it the emitter drops the id of
  // operations merged by @sharedRoute.
  "operation-id-strategy": "parent-container",
  // Keep every model declared in the namespace (webhook event payloads are not reachable from any route).
  "omit-unreachable-types": false,
  // Emit the parameter values of @opExample (spec/examples.tsp) as each parameter's `example`: every path
  // parameter has one, which Dredd needs to build a request (docs/contract.md).
  "experimental-parameter-examples": "data",
};

// Diagnostics tolerated on purpose. Each entry: code, and a justification. (Empty: none is needed today.)
const allowedDiagnostics: ReadonlyArray<{ code: string; why: string }> = [];

function fail(message: string): never {
  process.stderr.write(`generate: ${message}\n`);
  process.exit(1);
}

function checkDiagnostics(diagnostics: readonly Diagnostic[]): void {
  const blocking = diagnostics.filter((d) => !allowedDiagnostics.some((a) => a.code === d.code));
  if (blocking.length > 0) {
    for (const d of blocking) process.stderr.write(formatDiagnostic(d, { pretty: false }) + "\n");
    fail(`${blocking.length} TypeSpec diagnostic(s); fix them (warnings count too)`);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Depth-first visit of every object of the document (parents before children). */
function walk(node: Json, visit: (obj: JsonObject) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
  } else if (isObject(node)) {
    visit(node);
    for (const key of Object.keys(node)) walk(node[key], visit);
  }
}

/** `{ not: {} }` (the emitter's "nothing allowed") as the plain `false` schema. */
const isNever = (v: Json | undefined): boolean => isObject(v) && Object.keys(v).length === 1 && isObject(v.not) && Object.keys(v.not).length === 0;

/**
 * Post-processing of the emitted document. Every rewrite is keyed on something explicit:
 *
 * 1. `unevaluatedProperties` -> `additionalProperties`. The 3.1 emitter writes `Record<T>` and
 *    `...Record<never>` as `unevaluatedProperties`; openapi-typescript, Prism and openapi-backend (ajv draft-07)
 *    read `additionalProperties`. No schema of this spec uses allOf composition, where the two would differ.
 *    `{ not: {} }` becomes `false` (closed object).
 * 2. `x-cotejo-schema` (an @extension on a model or property): its JSON Schema keywords are merged into
 *    that schema, then the extension is removed. Used for `maxProperties` / `propertyNames` of metadata,
 *    which TypeSpec has no decorator for.
 * 3. `x-cotejo-deep-object` on a query parameter: becomes `style: deepObject, explode: true` (TypeSpec
 *    cannot express deepObject). Used for the `metadata[key]` list filters.
 * 4. Query parameters: the emitter writes `explode: false` unless `@query(#{explode: true})`; every query
 *    parameter is declared with explode true, and this step fails the run if one is not (openapi-backend
 *    mis-parses the explode:false form).
 * 5. See below (empty header-only models).
 *
 * The 3.0.0 document gets the same steps. The 3.0 emitter already writes `additionalProperties` (with `{ not: {} }`
 * for closed objects, made `false` here too), and step 2 leaves out the keywords that OpenAPI 3.0's Schema Object
 * does not have (`propertyNames`), which Dredd's parser would only warn about and ignore.
 */
const NOT_IN_OPENAPI_30 = new Set(["propertyNames"]);

function postProcess(doc: JsonObject, version: OpenApiVersion): void {
  walk(doc, (obj) => {
    if ("unevaluatedProperties" in obj) {
      const value = obj.unevaluatedProperties;
      delete obj.unevaluatedProperties;
      obj.additionalProperties = isNever(value) ? false : value;
    } else if (version === "3.0.0" && isNever(obj.additionalProperties)) {
      obj.additionalProperties = false;
    }
    if (isObject(obj["x-cotejo-schema"])) {
      const extra = obj["x-cotejo-schema"];
      delete obj["x-cotejo-schema"];
      for (const key of Object.keys(extra)) {
        if (version === "3.0.0" && NOT_IN_OPENAPI_30.has(key)) continue;
        obj[key] = extra[key];
      }
    }
  });

  // Query parameters, inline in operations or shared in components.parameters.
  walk(doc, (obj) => {
    if (obj.in !== "query" || typeof obj.name !== "string") return;
    if (obj["x-cotejo-deep-object"] === true) {
      delete obj["x-cotejo-deep-object"];
      obj.style = "deepObject";
      obj.explode = true;
    } else if (obj.explode === false) {
      fail(`query parameter "${obj.name}" must be declared with @query(#{ explode: true })`);
    }
  });

  // 5. Models that only carry HTTP headers (CommonHeaders, RateLimitHeaders...) are spread into responses,
  //    but the emitter also lists them as empty object schemas. Drop the unreferenced empty ones.
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  const text = JSON.stringify(doc);
  for (const [name, schema] of Object.entries(schemas)) {
    if (!isObject(schema) || schema.type !== "object" || "properties" in schema || "additionalProperties" in schema) continue;
    if (Object.keys(schema).some((k) => k !== "type" && k !== "description")) continue;
    if (text.includes(`"#/components/schemas/${name}"`)) continue;
    delete schemas[name];
  }

  // Fixed top-level facts the rest of the system relies on.
  if (doc.openapi !== version) fail(`expected openapi ${version}, got ${String(doc.openapi)}`);
  if (!isObject(doc.info) || doc.info.version !== "1.0.0") fail("expected info.version 1.0.0");
}

/** Every operation must have an operationId, unique per (path, method). */
function checkOperationIds(doc: JsonObject): void {
  const seen = new Map<string, string>();
  for (const [route, item] of Object.entries(doc.paths as JsonObject)) {
    for (const [method, op] of Object.entries(item as JsonObject)) {
      if (!isObject(op) || !["get", "post", "put", "patch", "delete", "head", "options"].includes(method)) continue;
      const id = op.operationId;
      if (typeof id !== "string") fail(`${method.toUpperCase()} ${route} has no operationId`);
      const where = `${method.toUpperCase()} ${route}`;
      if (seen.has(id)) fail(`operationId ${id} used by ${seen.get(id)} and ${where}`);
      seen.set(id, where);
    }
  }
}

/** Every HTTP operation of the TypeSpec program must carry an explicit @operationId. */
function checkExplicitOperationIds(program: Program): void {
  const [services, diagnostics] = getAllHttpServices(program);
  checkDiagnostics(diagnostics);
  for (const service of services) {
    for (const op of service.operations) {
      if (getOperationId(program, op.operation) === undefined) {
        fail(`operation ${op.operation.name} (${op.verb.toUpperCase()} ${op.path}) has no @operationId`);
      }
    }
  }
}

/** One OpenAPI document of the program, post-processed and checked, as the JSON text to write. */
async function emit(program: Program, version: OpenApiVersion): Promise<string> {
  const records = await getOpenAPI3(program, { ...emitterOptions, "openapi-versions": [version] });
  if (records.length !== 1) fail(`expected one service, got ${records.length}`);
  const record = records[0];
  if (record.versioned) fail("the service must not be versioned with @typespec/versioning");
  checkDiagnostics(record.diagnostics);
  // JSON round trip: plain data, no `undefined` members.
  const doc = JSON.parse(JSON.stringify(record.document)) as JsonObject;

  postProcess(doc, version);
  checkOperationIds(doc);
  return JSON.stringify(doc, null, 2) + "\n";
}

async function main(): Promise<void> {
  const program = await compile(NodeHost, mainFile, { noEmit: true, warningAsError: false });
  checkDiagnostics(program.diagnostics);
  checkExplicitOperationIds(program);

  const json = await emit(program, "3.1.0");
  await mkdir(outDir, { recursive: true });
  await writeFile(openapiFile, json);
  await writeFile(openapi30File, await emit(program, "3.0.0"));

  // defaultNonNullable: false. With the default (true) openapi-typescript makes every property that has a `default`
  // required, which forced SDK callers to pass defaulted request fields (expires_in_hours...). A field the server
  // always sends is in its schema's `required` list, which keeps it present in the response types either way
  // (test/sdk/types.test.ts).
  const ast = await openapiTS(pathToFileURL(openapiFile), { alphabetize: false, defaultNonNullable: false });
  const header =
    "/**\n * Generated by scripts/generate.ts from spec/*.tsp (via generated/openapi.json). Do not edit by hand.\n */\n\n";
  await writeFile(dtsFile, header + astToString(ast));

  const sync = spawnSync(process.execPath, [path.join(root, "webhooks-verifier/scripts/sync-types.ts")], { stdio: "inherit" });
  if (sync.status !== 0) fail("webhooks-verifier/scripts/sync-types.ts failed");
  const python = spawnSync(process.execPath, [path.join(root, "scripts/generate-python.ts")], { stdio: "inherit" });
  if (python.status !== 0) fail("scripts/generate-python.ts failed");

  const wrote = [openapiFile, dtsFile, openapi30File, eventsGenFile].map((f) => path.relative(root, f)).join(", ");
  process.stdout.write(`generate: wrote ${wrote}\n`);
}

await main();
