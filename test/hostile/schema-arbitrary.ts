/**
 * A small, approximate JSON Schema (OpenAPI 3.1) -> fast-check arbitrary deriver, and generic mutations that turn a
 * conforming value into a malformed one. Enough of the vocabulary for generated/openapi.json: type (and type arrays),
 * enum, const, format, minimum/maximum, minLength/maxLength, pattern, items/minItems/maxItems/uniqueItems,
 * properties/required/additionalProperties/maxProperties/propertyNames, anyOf/oneOf/allOf, $ref, `nullable`.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;

export interface HintContext {
  /** Property name the value is for (the last segment of `path`), if any. */
  name: string | undefined;
  /** Name of the `#/components/schemas/X` the schema came through, if any. */
  refName: string | undefined;
  path: string[];
  schema: Schema;
  /** The arbitrary the deriver would build without the hint (to mix with the hint's own values). */
  derived: () => fc.Arbitrary<unknown>;
}

export interface DeriveOptions {
  /** Domain knowledge: an arbitrary for this place in the document, or undefined to derive from the schema. */
  hint?: (ctx: HintContext) => fc.Arbitrary<unknown> | undefined;
  maxDepth?: number;
  /** Cap on generated string lengths when the schema allows more (long strings come from mutations). */
  maxStringLength?: number;
}

/** Shallow merge of a parent schema's sibling keywords into an anyOf/oneOf branch (`{anyOf:[...], maxLength}`). */
function mergeInto(parent: Schema, branch: Schema): Schema {
  const { anyOf: _a, oneOf: _o, allOf: _all, ...rest } = parent;
  return { ...rest, ...branch };
}

const ISO_DATE_MIN = new Date('1900-01-01T00:00:00Z');
const ISO_DATE_MAX = new Date('2100-12-31T00:00:00Z');

/** Any small JSON value. */
export const anyJson = (): fc.Arbitrary<unknown> => fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>;

export class SchemaArbitraries {
  private readonly doc: Schema;
  private readonly opts: Required<Pick<DeriveOptions, 'maxDepth' | 'maxStringLength'>> & DeriveOptions;

  constructor(doc: Schema, opts: DeriveOptions = {}) {
    this.doc = doc;
    this.opts = { maxDepth: 6, maxStringLength: 24, ...opts };
  }

  /** Follows a local `$ref` (`#/components/schemas/X`, `#/components/parameters/Y`). */
  resolve(schema: Schema): { schema: Schema; refName: string | undefined } {
    let refName: string | undefined;
    let s = schema;
    for (let i = 0; i < 10 && s && typeof s.$ref === 'string'; i++) {
      const parts = (s.$ref as string).replace(/^#\//, '').split('/');
      refName = parts[parts.length - 1];
      let target: any = this.doc;
      for (const p of parts) target = target?.[p];
      if (!target) throw new Error(`unresolvable $ref ${s.$ref}`);
      const { $ref: _r, ...siblings } = s;
      s = { ...target, ...siblings };
    }
    return { schema: s, refName };
  }

  /** An arbitrary of values that (approximately) conform to `schema`. */
  of(schema: Schema | boolean | undefined, path: string[] = [], refName?: string, depth = 0): fc.Arbitrary<unknown> {
    if (schema === undefined || schema === true) return anyJson();
    if (schema === false) return fc.constant(null);
    const r = this.resolve(schema);
    const s = r.schema;
    const ref = r.refName ?? refName;
    const derived = () => this.derive(s, path, ref, depth);
    if (this.opts.hint) {
      const hinted = this.opts.hint({ name: path[path.length - 1], refName: ref, path, schema: s, derived });
      if (hinted) return hinted;
    }
    return derived();
  }

  private derive(s: Schema, path: string[], refName: string | undefined, depth: number): fc.Arbitrary<unknown> {
    if (depth > this.opts.maxDepth) return fc.constant(null);
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    if (s.nullable === true) {
      const { nullable: _n, ...rest } = s;
      return fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: this.of(rest, path, refName, depth) });
    }
    if (Array.isArray(s.allOf)) {
      const merged = (s.allOf as Schema[]).reduce<Schema>((acc, b) => ({ ...acc, ...this.resolve(b).schema }), mergeInto(s, {}));
      return this.of(merged, path, refName, depth + 1);
    }
    const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (Array.isArray(union)) {
      return fc.oneof(...union.map((b) => this.of(mergeInto(s, this.resolve(b).schema), path, refName, depth + 1)));
    }
    if (Array.isArray(s.type)) {
      return fc.oneof(...(s.type as string[]).map((t) => this.of({ ...s, type: t }, path, refName, depth + 1)));
    }
    const type = s.type ?? (s.properties || s.additionalProperties ? 'object' : s.items ? 'array' : undefined);
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? -1000);
        const max = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : (s.maximum ?? 1_000_000);
        return fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
      }
      case 'number': {
        const min = s.minimum ?? -1e6;
        const max = s.maximum ?? 1e6;
        return fc.oneof(
          fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
          fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
        );
      }
      case 'string':
        return this.string(s);
      case 'array': {
        const minLength = s.minItems ?? 0;
        const maxLength = Math.min(s.maxItems ?? minLength + 4, minLength + 4);
        const item = this.of(s.items, [...path, '0'], undefined, depth + 1);
        return s.uniqueItems
          ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(item, { minLength, maxLength });
      }
      case 'object':
        return this.object(s, path, depth);
      default:
        return anyJson();
    }
  }

  private string(s: Schema): fc.Arbitrary<string> {
    const minLength = s.minLength ?? 0;
    const maxLength = Math.max(minLength, Math.min(s.maxLength ?? this.opts.maxStringLength, this.opts.maxStringLength));
    const fits = (v: string) => [...v].length >= minLength && (s.maxLength === undefined || [...v].length <= s.maxLength);
    switch (s.format) {
      case 'date':
        // Well-formed dates at the ends of what the format admits too (year 0000 and 9999, leap days).
        return fc.oneof(
          { weight: 4, arbitrary: fc.date({ min: ISO_DATE_MIN, max: ISO_DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)) },
          { weight: 1, arbitrary: fc.constantFrom('0000-01-01', '0001-01-01', '1000-02-29', '2000-02-29', '9999-12-31', '1969-12-31', '1970-01-01') },
        );
      case 'date-time':
        return fc.date({ min: ISO_DATE_MIN, max: ISO_DATE_MAX, noInvalidDate: true }).map((d) => d.toISOString());
      case 'email':
        return fc.emailAddress().filter(fits);
      case 'uri':
      case 'url':
        return fc.webUrl({ validSchemes: ['https'] }).filter(fits);
      case 'uuid':
        return fc.uuid();
      default:
        break;
    }
    if (typeof s.pattern === 'string') {
      const re = new RegExp(s.pattern as string);
      return fc.stringMatching(re, { size: 'xsmall' }).filter(fits);
    }
    // Odd strings (NUL, lone surrogates, bidi controls...) are strings too: a schema that says `string` admits them.
    return fc.oneof(
      { weight: 6, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme-ascii' }) },
      { weight: 2, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
      { weight: 2, arbitrary: oddString().filter(fits) },
    );
  }

  private object(s: Schema, path: string[], depth: number): fc.Arbitrary<unknown> {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    const required = new Set<string>(((s.required ?? []) as string[]).filter((k) => k in props));
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [k, v] of Object.entries(props)) model[k] = this.of(v, [...path, k], undefined, depth + 1);
    // Required properties always; a few optional ones (every optional key at 50% would make a valid request rare:
    // one bad option is enough to refuse it).
    const optional = Object.keys(props).filter((k) => !required.has(k));
    const record = fc
      .tuple(fc.record(model) as fc.Arbitrary<Record<string, unknown>>, fc.subarray(optional, { maxLength: Math.min(optional.length, 3) }))
      .map(([all, chosen]) => Object.fromEntries(Object.entries(all).filter(([k]) => required.has(k) || chosen.includes(k))));
    const extra = s.additionalProperties;
    if (extra === undefined || extra === false || Object.keys(props).length > 0 && extra === true) return record;
    const names = (s.propertyNames ?? {}) as Schema;
    const key = fc.string({ minLength: 1, maxLength: Math.min(names.maxLength ?? 12, 12), unit: 'grapheme-ascii' });
    const maxKeys = Math.min(s.maxProperties ?? 3, 3);
    const dict = fc.dictionary(key, this.of(extra === true ? {} : extra, [...path, '*'], undefined, depth + 1), { maxKeys });
    return fc.tuple(record, dict).map(([r, d]) => ({ ...d, ...r }));
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Malformed values

/** Strings that have broken servers before: NUL, lone surrogates, bidi overrides, BOMs, combining marks, injections. */
export const ODD_STRINGS = [
  '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\u202e', '\ufeff', '\u200b', 'e\u0301', '🧾📄', '\u0085', '\u2028',
  '%00', '%', '%ZZ', '../../etc/passwd', '..\\..\\boot.ini', '<script>alert(1)</script>', "' OR 1=1 --", '${jndi:ldap://x}',
  '\\', '"', "'", 'ＮＩＥ', 'İı', 'ßẞ', '\r\n', '\t', 'null', 'undefined', '__proto__', 'constructor', 'es_dni\u0000',
  'ES_DNI', ' es_dni ', 'Ω'.repeat(120), '\u{10FFFF}', '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}', 'tpl_', 'an_', 'NaN', '-0', '1e999',
] as const;

export const oddString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...ODD_STRINGS), fc.string({ maxLength: 6 })).map(([a, b]) => a + b) },
  );

/** Numbers at and past the bounds the contract uses (limits 0/1 to 100/150/500/720/36500; int32; safe integers). */
export const EDGE_NUMBERS = [
  -1, 0, 1, 1.5, -0.5, 19, 20, 21, 51, 100, 101, 150, 151, 255, 256, 500, 501, 720, 721, 36500, 36501,
  2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, -(2 ** 53), 1e21, 1e308, -1e308, 5e-324,
];

/** A value of the wrong kind for (almost) any place. */
export const badValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom<unknown>(null, true, false, '', ' ', '0', 'true', [], {}, [null], { '': '' }, [[[]]], { a: { b: { c: {} } } }) },
    { weight: 3, arbitrary: fc.constantFrom<unknown>(...EDGE_NUMBERS) },
    { weight: 3, arbitrary: oddString() },
    { weight: 2, arbitrary: anyJson() },
  );

/** Lengths at the contract's string limits and past them, up to a few hundred KB. */
export const LONG_LENGTHS = [41, 101, 141, 201, 256, 501, 1001, 2001, 2049, 10_000, 120_000];

export type JsonMutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: unknown }
  | { kind: 'stretch'; at: number; length: number; unit: string }
  | { kind: 'edge'; at: number; value: number };

const ODD_KEYS = ['zz_unknown', '__proto__', 'constructor', 'prototype', 'toString', '', ' ', 'options', 'file', 'expect ', 'EXPECT', 'a.b', 'items[0]', '\u0000', 'é'];

export const jsonMutation = (): fc.Arbitrary<JsonMutation> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: badValue() }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('add' as const),
        at: fc.nat(),
        key: fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ minLength: 1, maxLength: 10 })),
        value: badValue(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('stretch' as const), at: fc.nat(), length: fc.constantFrom(...LONG_LENGTHS), unit: fc.constantFrom('x', 'é', '🧾', '\u0301', ' ') }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('edge' as const), at: fc.nat(), value: fc.constantFrom(...EDGE_NUMBERS) }) },
  );

type Path = Array<string | number>;

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

function getAt(value: unknown, path: Path): unknown {
  let v: any = value;
  for (const p of path) v = v?.[p];
  return v;
}

/** Sets an own property even for `__proto__` (a plain assignment would change the prototype instead). */
function setOwn(target: any, key: string | number, v: unknown): void {
  Object.defineProperty(target, key, { value: v, enumerable: true, writable: true, configurable: true });
}

function setAt(root: unknown, path: Path, v: unknown): unknown {
  if (path.length === 0) return v;
  const parent = getAt(root, path.slice(0, -1)) as any;
  setOwn(parent, path[path.length - 1], v);
  return root;
}

/** Applies a mutation to a deep copy of `value` (indices into the list of paths wrap around). */
export function applyJsonMutation(value: unknown, m: JsonMutation): unknown {
  const copy = value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  const all = pathsOf(copy);
  const pick = (paths: Path[]): Path | undefined => (paths.length === 0 ? undefined : paths[m.at % paths.length]);
  switch (m.kind) {
    case 'replace':
      return setAt(copy, pick(all)!, m.value);
    case 'edge': {
      const numbers = all.filter((p) => typeof getAt(copy, p) === 'number');
      return setAt(copy, pick(numbers.length > 0 ? numbers : all)!, m.value);
    }
    case 'stretch': {
      const strings = all.filter((p) => typeof getAt(copy, p) === 'string');
      const p = pick(strings.length > 0 ? strings : all)!;
      const s = getAt(copy, p);
      return setAt(copy, p, (typeof s === 'string' ? s : '') + m.unit.repeat(m.length));
    }
    case 'delete': {
      const keys = all.filter((p) => p.length > 0 && typeof p[p.length - 1] === 'string');
      const p = pick(keys);
      if (!p) return copy;
      delete (getAt(copy, p.slice(0, -1)) as any)[p[p.length - 1]];
      return copy;
    }
    case 'add': {
      const objects = all.filter((p) => {
        const v = getAt(copy, p);
        return v !== null && typeof v === 'object' && !Array.isArray(v);
      });
      const p = pick(objects);
      if (!p) return { [m.key]: m.value };
      setOwn(getAt(copy, p), m.key, m.value);
      return copy;
    }
  }
}
