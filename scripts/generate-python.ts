// Generates sdk-python/src/cotejo/models.py (the Python SDK's typed models) from generated/openapi.json.
//
//   node scripts/generate-python.ts        (scripts/generate.ts runs it: `npm run generate`)
//
// Every schema of components.schemas becomes one Python name:
//   - an object with properties      -> a TypedDict (required keys as the schema's `required`, the others optional);
//   - a string enum / const          -> a Literal alias;
//   - anyOf / oneOf                  -> a Union alias (`{type: null}` becomes Optional);
//   - an array, a map, a scalar      -> a list[...] / dict[str, ...] / str, int, float, bool alias.
// Why TypedDicts (docs/sdk-python.md, "Models"): the SDK returns the JSON it received, as the TypeScript SDK does, so
// a field the server adds later is not lost and no conversion runs; a TypedDict is that dict, typed for mypy/pyright
// and editors, at no runtime cost and with no dependency (dataclasses would need a converter and would break or drop
// unknown fields).
// Python 3.10 has no NotRequired, so a model with both required and optional keys is two TypedDicts: the required
// keys in `_<Name>Required`, the optional ones in `<Name>` (total=False) that inherits it. Keys that are not Python
// identifiers (`async`, `from`, `files[]`) force the functional TypedDict syntax for that model.
// The output depends only on the OpenAPI document: running the script twice gives byte-identical files.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const openapiFile = path.join(root, 'generated', 'openapi.json');
export const MODELS_FILE = path.join(root, 'sdk-python', 'src', 'cotejo', 'models.py');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const isObject = (v: Json | undefined): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const PY_KEYWORDS = new Set(
  ('False None True and as assert async await break class continue def del elif else except finally for from global if ' +
    'import in is lambda nonlocal not or pass raise return try while with yield').split(' '),
);
const isIdentifier = (name: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PY_KEYWORDS.has(name);

const refName = (ref: string): string => {
  const m = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(ref);
  if (!m) throw new Error(`unsupported $ref ${ref}`);
  return m[1];
};

/** A Python string literal (JSON's escapes are Python's for the characters that occur). */
const pyString = (s: string): string => JSON.stringify(s);

function literal(values: Json[]): string {
  const items = values.map((v) => {
    if (typeof v === 'string') return pyString(v);
    if (typeof v === 'boolean') return v ? 'True' : 'False';
    if (typeof v === 'number') return String(v);
    if (v === null) return 'None';
    throw new Error(`unsupported enum value ${JSON.stringify(v)}`);
  });
  return `Literal[${items.join(', ')}]`;
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('Any')) return 'Any';
  const nonNull = unique.filter((t) => t !== 'None');
  const inner = nonNull.length === 1 ? nonNull[0] : `Union[${nonNull.join(', ')}]`;
  if (nonNull.length === 0) return 'None';
  return nonNull.length < unique.length ? `Optional[${inner}]` : inner;
}

/**
 * The Python type of a schema used inside another (a property, an item, an alias). References are quoted, so the
 * module may use a name before its definition (aliases and the functional TypedDict syntax are evaluated at import).
 */
function typeOf(schema: Json | undefined, quote = true): string {
  if (schema === true || schema === undefined) return 'Any';
  if (schema === false) return 'NoReturn';
  if (!isObject(schema)) throw new Error(`unsupported schema ${JSON.stringify(schema)}`);
  if (typeof schema.$ref === 'string') return quote ? pyString(refName(schema.$ref)) : refName(schema.$ref);
  if ('const' in schema) return literal([schema.const]);
  if (Array.isArray(schema.enum)) return literal(schema.enum);
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives) return union(alternatives.map((s) => typeOf(s, quote)));
  if (Array.isArray(schema.type)) return union(schema.type.map((t) => typeOf({ ...schema, type: t }, quote)));
  switch (schema.type) {
    case 'string':
      return 'str';
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'null':
      return 'None';
    case 'array':
      return `list[${typeOf(schema.items, quote)}]`;
    case undefined:
      // `{}` (any JSON value), possibly with only annotations.
      if (!isObject(schema.properties) && !('additionalProperties' in schema)) return 'Any';
    // falls through
    case 'object': {
      if (isObject(schema.properties)) throw new Error('an inline object with properties: give it a name in spec/');
      const extra = schema.additionalProperties;
      return `dict[str, ${extra === undefined || extra === false ? 'Any' : typeOf(extra, quote)}]`;
    }
    default:
      throw new Error(`unsupported type ${JSON.stringify(schema.type)}`);
  }
}

/** One line of documentation: the description with its line breaks folded. */
const oneLine = (text: Json | undefined): string | undefined =>
  typeof text === 'string' && text.trim() !== '' ? text.replace(/\s*\n\s*/g, ' ').trim() : undefined;

function docstring(text: string | undefined, indent: string): string[] {
  if (text === undefined) return [];
  const escaped = text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
  return [`${indent}"""${escaped}${escaped.endsWith('"') ? ' ' : ''}"""`];
}

interface Field {
  name: string;
  /** The type with quoted references (evaluated at import: the functional syntax). */
  type: string;
  /** Unquoted (a class body's annotations are not evaluated: `from __future__ import annotations`). */
  annotation: string;
  doc: string | undefined;
}

/** Class-syntax body lines (`#:` comments carry the descriptions), or `pass`-less docstring-only when empty. */
function classBody(fields: Field[], doc: string | undefined): string[] {
  const lines = docstring(doc, '    ');
  for (const f of fields) {
    if (f.doc !== undefined) lines.push(`    #: ${f.doc}`);
    lines.push(`    ${f.name}: ${f.annotation}`);
  }
  if (lines.length === 0) lines.push('    pass');
  return lines;
}

function functional(name: string, fields: Field[], total: boolean): string[] {
  const lines = [`${name} = TypedDict(`, `    ${pyString(name)},`, '    {'];
  for (const f of fields) {
    if (f.doc !== undefined) lines.push(`        #: ${f.doc}`);
    lines.push(`        ${pyString(f.name)}: ${f.type},`);
  }
  lines.push('    },');
  if (!total) lines.push('    total=False,');
  lines.push(')');
  return lines;
}

function typedDict(name: string, schema: Schema): string[] {
  const props = schema.properties as Schema;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(props).map(([key, s]) => ({ name: key, type: typeOf(s), annotation: typeOf(s, false), doc: oneLine(isObject(s) ? s.description : undefined) }));
  const req = fields.filter((f) => required.has(f.name));
  const opt = fields.filter((f) => !required.has(f.name));
  const doc = oneLine(schema.description);
  const classSyntax = fields.every((f) => isIdentifier(f.name));
  const out: string[] = [];
  if (classSyntax) {
    if (req.length > 0 && opt.length > 0) {
      out.push(`class _${name}Required(TypedDict):`, ...classBody(req, undefined), '', '');
      out.push(`class ${name}(_${name}Required, total=False):`, ...classBody(opt, doc));
    } else {
      out.push(`class ${name}(TypedDict${req.length === 0 && opt.length > 0 ? ', total=False' : ''}):`, ...classBody(fields, doc));
    }
    return out;
  }
  // Functional syntax: some key is not an identifier.
  const parts: string[] = [];
  if (req.length > 0) {
    out.push(...functional(`_${name}Required`, req, true), '', '');
    parts.push(`_${name}Required`);
  }
  if (opt.length > 0) {
    out.push(...functional(`_${name}Optional`, opt, false), '', '');
    parts.push(`_${name}Optional`);
  }
  out.push(`class ${name}(${parts.join(', ')}):`, ...(docstring(doc, '    ').length > 0 ? docstring(doc, '    ') : ['    pass']));
  return out;
}

/** The names of `typing` the generated code uses, sorted. */
function typingNames(blocks: string[][]): string[] {
  const code = blocks.flat().filter((l) => !/^\s*#/.test(l)).join('\n');
  return ['Any', 'Literal', 'NoReturn', 'Optional', 'TypedDict', 'Union'].filter((n) => new RegExp(`\\b${n}\\b`).test(code));
}

export function generateModels(doc: Schema): string {
  const components = doc.components as Schema;
  const schemas = components.schemas as Schema;
  const names = Object.keys(schemas).sort();
  const blocks: string[][] = [];
  for (const name of names) {
    const schema = schemas[name];
    if (!isObject(schema)) throw new Error(`schema ${name} is not an object`);
    if (!isIdentifier(name)) throw new Error(`schema name ${name} is not a Python identifier`);
    if (isObject(schema.properties) && !schema.oneOf && !schema.anyOf) {
      blocks.push(typedDict(name, schema));
    } else {
      const doc = oneLine(schema.description);
      blocks.push([...(doc === undefined ? [] : [`#: ${doc}`]), `${name} = ${typeOf(schema)}`]);
    }
  }
  const header = [
    '# Generated by scripts/generate-python.ts from generated/openapi.json (npm run generate). Do not edit by hand.',
    '"""The Cotejo API\'s models: one TypedDict or alias per schema of the OpenAPI document.',
    '',
    'A response is the JSON object the API returned (a plain ``dict``), typed with these names.',
    '"""',
    '',
    'from __future__ import annotations',
    '',
    `from typing import ${typingNames(blocks).join(', ')}`,
    '',
    `__all__ = [${names.map(pyString).join(', ')}]`,
    '',
    '',
  ];
  return header.join('\n') + blocks.map((b) => b.join('\n')).join('\n\n\n') + '\n';
}

function main(): void {
  const doc = JSON.parse(readFileSync(openapiFile, 'utf8')) as Schema;
  writeFileSync(MODELS_FILE, generateModels(doc));
  process.stdout.write(`generate-python: wrote ${path.relative(root, MODELS_FILE)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
