/**
 * The fuzzer's request model: every operation of generated/openapi.json, an arbitrary of requests for each (path,
 * query, headers, JSON or multipart body, API key), valid-looking or mutated, and their encoding on the wire.
 *
 * Values that depend on the running app (ids it created, its signed tokens, ETags, the small files) are read from a
 * `Pools` object filled in by the suite's setup, when a request is generated or encoded; the arbitraries themselves
 * are built once, from the document.
 */
import fc from 'fast-check';
import { ALIASES, MODIFIERS } from '../../server/src/providers/test-mode/scenario.ts';
import { anyJson, applyJsonMutation, badValue, jsonMutation, oddString, SchemaArbitraries, type JsonMutation, type Schema } from './schema-arbitrary.ts';

// ---------------------------------------------------------------------------------------------------------------------
// Operations

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  style?: string;
  schema: Schema;
}

export interface Operation {
  id: string;
  method: string;
  /** The path template, `/v1/analyses/{id}`. */
  path: string;
  isPublic: boolean;
  idempotent: boolean;
  params: Param[];
  json?: Schema;
  multipart?: Schema;
}

export function loadOperations(doc: Schema): Operation[] {
  const globalSecurity = (doc.security ?? []) as Array<Record<string, unknown>>;
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !op.operationId) continue;
      const security = (op.security ?? globalSecurity) as Array<Record<string, unknown>>;
      const params: Param[] = ((op.parameters ?? []) as Schema[]).map((p) => {
        const resolved = p.$ref ? (doc.components.parameters[(p.$ref as string).split('/').pop()!] as Schema) : p;
        return { name: resolved.name, in: resolved.in, required: !!resolved.required, style: resolved.style, schema: resolved.schema ?? {} };
      });
      const content = (op.requestBody?.content ?? {}) as Record<string, { schema?: Schema }>;
      ops.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        isPublic: security.length === 0 || security.some((s) => Object.keys(s).length === 0),
        idempotent: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
        params,
        json: content['application/json']?.schema,
        multipart: content['multipart/form-data']?.schema,
      });
    }
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------------------------------
// What the running app provides

export interface FileSample {
  bytes: Uint8Array;
  mime: string;
}

export interface Pools {
  /** Ids per path parameter kind (`analysis`, `classification`, `batch`, `webhook_endpoint`, `file_token`...). */
  ids: Record<string, string[]>;
  /** Catalogue type ids and slugs. */
  types: string[];
  etags: string[];
  files: Record<string, FileSample>;
}

export const pools: Pools = { ids: {}, types: ['es_dni', 'passport'], etags: [], files: {} };

/** The small files requests carry (filled in by the suite; names here so arbitraries can pick them). */
export const FILE_SAMPLES = [
  'jpeg', 'png', 'webp', 'pdf', 'pdf_31_pages', 'pdf_201_pages', 'pdf_garbage', 'jpeg_truncated', 'png_corrupt', 'png_huge_dims',
  'fake_heic', 'gif', 'zip', 'svg', 'text', 'empty', 'random',
] as const;
export type FileSampleName = (typeof FILE_SAMPLES)[number];
/** Samples that are readable documents. */
const GOOD_SAMPLES: FileSampleName[] = ['jpeg', 'png', 'webp', 'pdf'];

// ---------------------------------------------------------------------------------------------------------------------
// Domain hints

const BASE64_VARIANTS = ['plain', 'dataurl', 'wrapped', 'urlsafe', 'nopad', 'spaced', 'bad_chars'] as const;

/** A placeholder replaced by the file's base64 text when the request is encoded (keeps descriptions short). */
const b64Placeholder = (sample: string, variant: string) => `@@b64:${sample}:${variant}@@`;
const B64_RE = /"@@b64:([a-z0-9_]+):([a-z_]+)@@"/g;

export function encodeBase64(bytes: Uint8Array, variant: string, mime: string): string {
  const plain = Buffer.from(bytes).toString('base64');
  switch (variant) {
    case 'dataurl':
      return `data:${mime};base64,${plain}`;
    case 'wrapped':
      return plain.replace(/(.{76})/g, '$1\r\n');
    case 'urlsafe':
      return plain.replace(/\+/g, '-').replace(/\//g, '_');
    case 'nopad':
      return plain.replace(/=+$/, '');
    case 'spaced':
      return ` ${plain.slice(0, 10)} ${plain.slice(10)} `;
    case 'bad_chars':
      return `${plain.slice(0, 8)}!*#${plain.slice(8)}`;
    default:
      return plain;
  }
}

/** `arb` in `percent`% of cases, else undefined. */
export const maybe = <T>(arb: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary: arb });

const goodSample = () => fc.constantFrom(...GOOD_SAMPLES);
const anySample = () => fc.oneof({ weight: 3, arbitrary: goodSample() }, { weight: 2, arbitrary: fc.constantFrom(...FILE_SAMPLES) });

const fileBase64 = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.tuple(goodSample(), fc.constantFrom('plain', 'plain', 'dataurl', 'wrapped', 'nopad')).map(([s, v]) => b64Placeholder(s, v)) },
    { weight: 3, arbitrary: fc.tuple(anySample(), fc.constantFrom(...BASE64_VARIANTS)).map(([s, v]) => b64Placeholder(s, v)) },
    { weight: 1, arbitrary: fc.constantFrom('', '=', '====', 'data:;base64,', 'data:image/png;base64,', '!!!!', 'aGVsbG8', 'AAAA') },
    { weight: 1, arbitrary: fc.base64String({ maxLength: 40 }) },
  );

/** file_url values that never leave this machine: refused by shape or by the private-address policy before any connection. */
const SAFE_FILE_URLS = [
  'https://127.0.0.1/dni_valid.jpg', 'https://localhost/passport.jpg', 'https://a.localhost/x.pdf', 'https://[::1]/x.jpg',
  'https://10.0.0.1/x.jpg', 'https://192.168.1.10/x.jpg', 'https://169.254.169.254/latest/meta-data/', 'https://0.0.0.0/x.jpg',
  'https://[::ffff:127.0.0.1]/x.jpg', 'https://2130706433/x.jpg', 'https://0x7f.0.0.1/x.jpg', 'https://user:pw@127.0.0.1/x.jpg',
  'http://example.com/dni.jpg', 'ftp://example.com/x.jpg', 'file:///etc/passwd', 'data:image/jpeg;base64,AAAA', 'javascript:alert(1)',
  'https://', 'https:///x.jpg', '//example.com/x.jpg', 'not a url', '', ' ', 'https://[::1', 'https://%00/x', `https://127.0.0.1/${'a'.repeat(3000)}`,
  'https://127.0.0.1:0/x.jpg', 'https://127.0.0.1:99999/x.jpg', 'HTTPS://LOCALHOST/X.JPG', 'https://localhost./x.jpg',
];

const fileUrl = (): fc.Arbitrary<unknown> => fc.constantFrom(...SAFE_FILE_URLS);

/** Scenario words of test mode, file extensions, and names that are odd on their own. */
const FILENAMES = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(ALIASES)), maybe(fc.constantFrom(...Object.keys(MODIFIERS)), 40), fc.constantFrom('.jpg', '.png', '.pdf', '.webp', '.heic', '', '.JPG', '.exe'))
        .map(([a, m, ext]) => `${a}${m ? `_${m}` : ''}${ext}`),
    },
    { weight: 2, arbitrary: fc.constantFrom('', ' ', '.', '..', '../../etc/passwd', 'C:\\x\\dni.jpg', 'a/b/dni_valid.jpg', 'dni\u0000.jpg', 'ñandú_pasaporte.jpg', '🧾.pdf', 'CON', 'x'.repeat(255), `${'y'.repeat(252)}.jpg`, 'dni_valid.jpg\r\nX-Evil: 1', '%2e%2e%2f.jpg') },
    { weight: 1, arbitrary: oddString() },
  );

const typeId = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.nat().map((i) => pools.types[i % pools.types.length]) },
    { weight: 1, arbitrary: fc.nat().map((i) => pools.types[i % pools.types.length].toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom('unknown_document', 'es_dnii', '', '*', 'es_dni ', 'ES_DNI', 'dni', 'passport', 'pasaporte', 'x'.repeat(100), 'x'.repeat(101)) },
    { weight: 1, arbitrary: oddString() },
  );

const prefixedUlid = (prefix: string) => fc.ulid().map((u) => `${prefix}${u}`);

const webhookUrl = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('https://example.com/hooks/cotejo', 'https://hooks.example.org/a?b=c#frag', 'https://xn--bcher-kva.example/hook', 'https://example.com:8443/x') },
    { weight: 2, arbitrary: fc.webUrl({ validSchemes: ['https'], withQueryParameters: true, withFragments: true }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'http://example.com/hook', 'https://127.0.0.1/hook', 'https://localhost/hook', 'ftp://example.com', 'example.com/hook', 'https://', 'https:// example.com',
        `https://example.com/${'a'.repeat(2048 - 20)}`, `https://example.com/${'a'.repeat(2100)}`, 'https://exämple.com/hook', 'https://example.com/ñ?q=🧾', 'HTTPS://EXAMPLE.COM',
      ),
    },
  );

/** A small JSON Schema for `extract` (or a boolean, or whatever the schema allows). */
const extractSchema = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.boolean() },
    {
      weight: 2,
      arbitrary: fc
        .dictionary(fc.constantFrom('name', 'total', 'iban', 'fecha', 'número', 'a', ''), fc.record({ type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'nonsense'), description: fc.string({ maxLength: 20 }) }, { requiredKeys: ['type'] }), { maxKeys: 4 })
        .map((properties) => ({ type: 'object', properties })),
    },
    { weight: 1, arbitrary: anyJson() },
  );

function hintFor(name: string | undefined, refName: string | undefined, path: string[], derived: () => fc.Arbitrary<unknown>): fc.Arbitrary<unknown> | undefined {
  const mix = (hint: fc.Arbitrary<unknown>, weight = 4) => fc.oneof({ weight, arbitrary: hint }, { weight: 1, arbitrary: derived() });
  // A document source for the objects that carry one, most of the time (else nearly every request is missing_file).
  if (refName === 'AnalyzeJsonRequest' || refName === 'BatchItem' || refName === 'AddDossierDocumentJsonRequest') {
    const source = fc.oneof(
      { weight: 6, arbitrary: fc.record({ file_base64: fileBase64(), filename: maybe(FILENAMES(), 80) }) },
      { weight: 1, arbitrary: fc.record({ file_url: fileUrl() }) },
    );
    return fc.tuple(derived(), maybe(source, 85)).map(([body, src]) => {
      if (!src || typeof body !== 'object' || body === null) return body;
      const { file_url: _u, file_base64: _b, ...rest } = body as Record<string, unknown>;
      return Object.fromEntries(Object.entries({ ...rest, ...src }).filter(([, v]) => v !== undefined));
    });
  }
  switch (name) {
    case 'file_base64':
      return fileBase64();
    case 'file_url':
      return fileUrl();
    case 'filename':
      return FILENAMES();
    case 'extract':
      return extractSchema();
    case 'template':
      return mix(fc.oneof(prefixedUlid('tpl_'), fc.constantFrom('tpl_', 'tpl_x', null)));
    case 'analysis_id':
      return mix(fc.oneof(idFrom('analysis'), prefixedUlid('an_')));
    case 'reference_date':
    case 'birth_date':
      return mix(fc.constantFrom('2024-02-29', '2023-02-29', '2024-02-30', '2024-13-01', '0000-01-01', '9999-12-31', '2024-1-1', '20240101', '2024-01-01T00:00:00Z'), 1);
    default:
      break;
  }
  if (refName === 'DocumentTypeId') return typeId();
  if (name === 'url' && path.length === 1) return webhookUrl();
  return undefined;
}

export function makeDeriver(doc: Schema): SchemaArbitraries {
  return new SchemaArbitraries(doc, { hint: ({ name, refName, path, derived }) => hintFor(name, refName, path, derived) });
}

// ---------------------------------------------------------------------------------------------------------------------
// Path parameters

/** What a path parameter names, from the route. */
function idKind(op: Operation, name: string): string {
  if (name === 'token') return 'file_token';
  if (name === 'type') return 'document_type';
  const first = op.path.split('/')[2];
  return (
    {
      analyses: 'analysis', classifications: 'classification', batches: 'batch', 'webhook-endpoints': 'webhook_endpoint',
      'verification-links': 'verification_link', templates: 'template', dossiers: 'dossier',
    } as Record<string, string>
  )[first] ?? first;
}

const PREFIX: Record<string, string> = {
  analysis: 'an_', classification: 'an_', batch: 'bat_', webhook_endpoint: 'we_', verification_link: 'vl_', template: 'tpl_', dossier: 'dos_',
};

const idFrom = (kind: string) =>
  fc.nat().map((i) => {
    const list = pools.ids[kind] ?? [];
    return list.length > 0 ? list[i % list.length] : 'none_yet';
  });

/** Raw segments (not encoded again): bad percent-encoding, encoded separators and controls, dot segments. */
const RAW_SEGMENTS = ['%', '%Z', '%ZZ', '%FF', '%FE%FF', '%C0%AF', '%ED%A0%80', '%00', 'an_%00', '%0A', '%2F', 'a%2Fb', '..%2F..', '%2e%2e', '%252F', '.', ';', 'a;b=c', '%20', '+', '~', '*', '%E2%80%AE', '%EF%BB%BF'];

export interface Segment {
  value: string;
  /** True when `value` goes on the wire as it is (already encoded, or deliberately malformed). */
  raw: boolean;
}

/** A path parameter: a valid-looking value (known id, unknown id of the right shape) and a malformed one. */
function pathParamArb(op: Operation, p: Param, d: SchemaArbitraries): fc.Arbitrary<{ valid: Segment; odd: Segment }> {
  const kind = idKind(op, p.name);
  const known =
    kind === 'document_type'
      ? fc.nat().map((i) => pools.types[i % pools.types.length])
      : kind === 'file_token'
        ? fc.tuple(idFrom('file_token'), fc.constantFrom('same', 'same', 'flip', 'cut', 'append')).map(([t, how]) =>
            how === 'flip' ? t.slice(0, -3) + (t.slice(-3, -2) === 'A' ? 'B' : 'A') + t.slice(-2) : how === 'cut' ? t.slice(0, Math.floor(t.length / 2)) : how === 'append' ? `${t}x` : t,
          )
        : idFrom(kind);
  const valid = fc.oneof(
    { weight: 6, arbitrary: known },
    { weight: 2, arbitrary: PREFIX[kind] ? prefixedUlid(PREFIX[kind]) : fc.constantFrom('es_dnii', 'unknown') },
    { weight: 1, arbitrary: d.of(p.schema).map(String) },
  );
  const odd = fc.oneof(
    { weight: 2, arbitrary: oddString().map((v): Segment => ({ value: v, raw: false })) },
    { weight: 1, arbitrary: fc.constantFrom('a'.repeat(300), 'an_'.repeat(1000), '0', '-1', 'null', 'undefined', 'es_dni.json', 'an_01JC0000000000000000000000').map((v): Segment => ({ value: v, raw: false })) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((v): Segment => ({ value: v, raw: true })) },
  );
  return fc.record({ valid: valid.map((v): Segment => ({ value: v, raw: false })), odd });
}

/** encodeURIComponent that survives lone surrogates (they become their raw, invalid UTF-8 bytes). */
export function encodeComponent(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s
      .split(/([\ud800-\udfff])/)
      .map((part) => (/^[\ud800-\udfff]$/.test(part) ? `%ED%${(0xa0 + ((part.charCodeAt(0) - 0xd800) >> 6)).toString(16).toUpperCase()}%80` : encodeURIComponent(part)))
      .join('');
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Query

export type QueryPair = [string, string, boolean /* raw */];

function toQueryValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

const BAD_QUERY_VALUES = ['', 'abc', '-1', '0', '1.5', '1e2', '101', '501', '9'.repeat(30), 'null', 'true', 'TRUE', '1', '[]', '{}', ' 5', '5 ', '0x10', 'Infinity', 'NaN'];
const RAW_QUERY_VALUES = ['%', '%ZZ', '%00', '%C0%AF', '%ED%A0%80', '%FF', 'a+b', '%2B', '&', '=', '==', 'a=b=c'];

/** Query pairs: valid-looking ones (declared parameters, values from their schemas) and malformed ones. */
function queryArb(op: Operation, d: SchemaArbitraries): fc.Arbitrary<{ valid: QueryPair[]; mutated: { pairs: QueryPair[]; labels: string[] } }> {
  const params = op.params.filter((p) => p.in === 'query');
  const one = (p: Param): fc.Arbitrary<QueryPair[]> => {
    if (p.style === 'deepObject') {
      return fc
        .dictionary(fc.oneof(fc.constantFrom('customer_id', 'case', 'k'), fc.string({ minLength: 1, maxLength: 8 }), oddString()), fc.oneof(fc.constantFrom('cus_4821', 'x'), fc.string({ maxLength: 10 }), oddString()), { maxKeys: 3 })
        .map((m) => Object.entries(m).map(([k, v]) => [`${p.name}[${k}]`, v, false] as QueryPair));
    }
    return d.of(p.schema, [p.name]).map((v) => [[p.name, toQueryValue(v), false]]);
  };
  const valid = fc.tuple(...params.map((p) => maybe(one(p), 40))).map((parts) => parts.flatMap((x) => x ?? []));
  const names = params.map((p) => p.name);
  const declared = names.length > 0;
  const mutation = fc.oneof(
    // A declared parameter with a value of the wrong kind or out of range.
    ...(declared ? [fc.tuple(fc.constantFrom(...names), fc.oneof(fc.constantFrom(...BAD_QUERY_VALUES), oddString())).map(([n, v]) => ({ label: 'bad-value', pairs: [[n, v, false]] as QueryPair[] }))] : []),
    // The same key twice.
    ...(declared ? [fc.tuple(fc.constantFrom(...names), fc.constantFrom(...BAD_QUERY_VALUES), fc.constantFrom(...BAD_QUERY_VALUES)).map(([n, a, b]) => ({ label: 'duplicate-key', pairs: [[n, a, false], [n, b, false]] as QueryPair[] }))] : []),
    // Raw, malformed percent-encoding.
    fc.tuple(fc.constantFrom(...(declared ? names : ['q'])), fc.constantFrom(...RAW_QUERY_VALUES)).map(([n, v]) => ({ label: 'raw-value', pairs: [[n, v, true]] as QueryPair[] })),
    // Unknown parameters, array and nested forms.
    fc.constantFrom<QueryPair[]>(
      [['unknown', '1', false]], [['limit[]', '5', false]], [['metadata', 'flat', false]], [['metadata[a][b]', 'c', false]], [['metadata[]', 'x', false]],
      [['metadata[__proto__]', 'x', false]], [['metadata[constructor]', 'x', false]], [['__proto__[x]', 'y', false]], [['', 'x', false]], [['%00', '1', true]], [['limit', '', true]], [['&&&', '', true]],
    ).map((pairs) => ({ label: 'odd-key', pairs })),
  );
  return fc.record({ valid, muts: fc.array(mutation, { minLength: 1, maxLength: 2 }) }).map(({ valid: v, muts }) => ({
    valid: v,
    mutated: { pairs: [...v, ...muts.flatMap((m) => m.pairs)], labels: muts.map((m) => `query:${m.label}`) },
  }));
}

// ---------------------------------------------------------------------------------------------------------------------
// Authentication

export type AuthChoice =
  | { kind: 'key'; which: 'test' | 'live' | 'live_funded' | 'test_publishable' | 'live_publishable' | 'other_test' }
  | { kind: 'none' }
  /** A header that is never a valid key. */
  | { kind: 'malformed'; header: string }
  /** A valid key written unusually (`bearer` lower case, spaces): must be accepted like the plain form. */
  | { kind: 'variant'; template: string };

const MALFORMED_AUTH = [
  'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Token ck_test_x', 'ck_test_abcdefghijklmnopqrstuvwx', 'Bearer ck_test_short', 'Bearer ck_test_abcdefghijklmnopqrstuvwxyz0123',
  `Bearer ck_live_${'A'.repeat(129)}`, `Bearer ck_test_${'A'.repeat(5000)}`, 'Bearer sk_test_abcdefghijklmnopqrstuvwxyz', 'Bearer pk_test_abcdefghijklmnopqrstuvwx',
  'Bearer ck_test_abcdefghijklmnopqrstuvwx ck_test_abcdefghijklmnopqrstuvwx', 'Bearer null', 'Bearer undefined', "Bearer ' OR 1=1 --", 'Bearer ck_test_ñññññññññññññññññññññññññ',
  'Bearer\tck_test_abcdefghijklmnopqrstuvwx_', 'Bearer ck_test_abcdefghijklmnopqrstuvwx%00',
];

const authArb = (): fc.Arbitrary<AuthChoice> =>
  fc.oneof(
    { weight: 56, arbitrary: fc.constant<AuthChoice>({ kind: 'key', which: 'test' }) },
    { weight: 6, arbitrary: fc.constant<AuthChoice>({ kind: 'key', which: 'live' }) },
    { weight: 5, arbitrary: fc.constant<AuthChoice>({ kind: 'key', which: 'live_funded' }) },
    { weight: 3, arbitrary: fc.constant<AuthChoice>({ kind: 'key', which: 'test_publishable' }) },
    { weight: 2, arbitrary: fc.constant<AuthChoice>({ kind: 'key', which: 'live_publishable' }) },
    { weight: 4, arbitrary: fc.constant<AuthChoice>({ kind: 'key', which: 'other_test' }) },
    { weight: 6, arbitrary: fc.constant<AuthChoice>({ kind: 'none' }) },
    { weight: 6, arbitrary: fc.constantFrom(...MALFORMED_AUTH).map((header): AuthChoice => ({ kind: 'malformed', header })) },
    { weight: 2, arbitrary: fc.constantFrom('bearer {key}', 'BEARER {key}', 'Bearer   {key}', '  Bearer {key}  ', 'Bearer\t{key}').map((template): AuthChoice => ({ kind: 'variant', template })) },
  );

// ---------------------------------------------------------------------------------------------------------------------
// Bodies

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  /** Text, or a file sample by name. */
  data: string | { sample: FileSampleName };
  /** A Content-Disposition written by hand (replaces the generated one). */
  disposition?: string;
}

export type MultipartDamage = 'none' | 'truncate' | 'no-boundary-param' | 'wrong-boundary' | 'lf-only' | 'no-closing' | 'preamble' | 'empty-boundary' | 'quoted-boundary';

export type Body =
  | { kind: 'json'; value: unknown; contentType: string }
  | { kind: 'text'; text: string; contentType?: string }
  | { kind: 'bytes'; bytes: number[]; contentType?: string; note: string }
  | { kind: 'multipart'; parts: Part[]; damage: MultipartDamage; contentType?: string };

const JSON_CONTENT_TYPES = ['application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=latin1', 'application/json; boundary=x', ' application/json '];
const WRONG_CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/xml', 'multipart/mixed; boundary=x', 'application/vnd.api+json', 'application/json-patch+json', ';', 'application', '*/*', 'text/json', 'image/jpeg'];

const BAD_JSON_TEXTS = [
  '{', '}', '{"a":', '[', '"str"', '123', 'true', 'null', '[]', '[{}]', '{"a":1,}', "{'a':1}", '{"a":1}{"b":2}', '\ufeff{}', '{"a":NaN}', '{"a":Infinity}', '{"a":undefined}',
  '{"a":1e999}', '{"file_base64":"\\ud800"}', '{"filename":"\\u0000"}', '{"a" 1}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"x":1}}}', '\u0000', ' ', '\n\n',
  '{"a":"\\x41"}', '{"a":"\\u12"}', '{"a":01}', '{"a":-}', '{"a":.5}', '{"a":"unterminated}', '{"a":1}garbage', '{"url":"https://example.com/h","events":["*"],"events":"*"}',
];

/** A body with the JSON text damaged: one of the classic broken texts, or the valid text cut short. */
const badJsonText = (valid: unknown): fc.Arbitrary<Body> =>
  fc.oneof(
    fc.constantFrom(...BAD_JSON_TEXTS).map((text): Body => ({ kind: 'text', text, contentType: 'application/json' })),
    fc.nat().map((n): Body => {
      const text = JSON.stringify(valid) ?? '';
      return { kind: 'text', text: text.slice(0, text.length === 0 ? 0 : n % text.length), contentType: 'application/json' };
    }),
    // Invalid UTF-8 inside a string.
    fc.constant<Body>({ kind: 'bytes', bytes: [...Buffer.from('{"filename":"'), 0xff, 0xfe, 0xc0, 0xaf, ...Buffer.from('.jpg"}')], contentType: 'application/json', note: 'invalid UTF-8' }),
    // Duplicate keys, the second of the wrong kind.
    fc.constant(valid).map((v): Body => {
      const text = JSON.stringify(v) ?? '{}';
      const m = /^\{"([^"]+)":/.exec(text);
      return { kind: 'text', text: m ? `{"${m[1]}":[1,{}],${text.slice(1)}` : text, contentType: 'application/json' };
    }),
  );

const MULTIPART_DAMAGE: MultipartDamage[] = ['truncate', 'no-boundary-param', 'wrong-boundary', 'lf-only', 'no-closing', 'preamble', 'empty-boundary', 'quoted-boundary'];

const fileContentType = () => fc.constantFrom(undefined, 'application/octet-stream', 'image/jpeg', 'application/pdf', 'text/plain', 'image/png; charset=utf-8', '');

interface BodyChoice {
  valid: Body | undefined;
  mutated: { body: Body | undefined; labels: string[] };
}

function multipartArb(schema: Schema, d: SchemaArbitraries, optionsSchema: Schema): fc.Arbitrary<BodyChoice> {
  const s = d.resolve(schema).schema;
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const fileField = (name: string) =>
    fc.record({ sample: fc.oneof({ weight: 4, arbitrary: goodSample() }, { weight: 1, arbitrary: anySample() }), filename: FILENAMES(), contentType: fileContentType() }).map(
      ({ sample, filename, contentType }): Part => ({ name, filename: String(filename), contentType, data: { sample } }),
    );
  const partsFor: Array<fc.Arbitrary<Part[]>> = [];
  for (const [name, propSchema] of Object.entries(props)) {
    const ps = d.resolve(propSchema).schema;
    const required = ((s.required ?? []) as string[]).includes(name);
    const isFile = Object.keys(ps).filter((k) => k !== 'description').length === 0 || ps.format === 'binary' || ps.contentMediaType !== undefined;
    const isFileArray = ps.type === 'array' && (Object.keys(d.resolve(ps.items ?? {}).schema).filter((k) => k !== 'description').length === 0 || ps.items?.format === 'binary');
    let arb: fc.Arbitrary<Part[]>;
    if (isFile) arb = fileField(name).map((p) => [p]);
    else if (isFileArray) arb = fc.array(fileField(name), { minLength: 1, maxLength: 4 });
    else if (name === 'options') arb = d.of(optionsSchema, ['options']).map((v) => [{ name, data: JSON.stringify(v) }]);
    else if (ps.type === 'array') arb = fc.array(d.of(ps.items, [name]), { maxLength: 3 }).map((vs) => vs.map((v) => ({ name, data: String(v) })));
    else arb = d.of(ps, [name]).map((v) => [{ name, data: typeof v === 'string' ? v : JSON.stringify(v) }]);
    partsFor.push(required ? arb : maybe(arb, 50).map((x) => x ?? []));
  }
  const fileNames: string[] = Object.keys(props).filter((n) => n === 'file' || n === 'files[]');
  const fileName = fileNames[0] ?? 'file';
  const change = fc.oneof(
    fc.constantFrom<{ label: string; parts: Part[] }>(
      { label: 'unknown-field', parts: [{ name: 'unknown', data: 'x' }] },
      { label: 'unknown-file', parts: [{ name: 'document', filename: 'dni.jpg', data: { sample: 'jpeg' } }] },
      { label: 'duplicate-options', parts: [{ name: 'options', data: '{}' }, { name: 'options', data: '{}' }] },
      { label: 'file-as-field', parts: [{ name: fileName, data: 'not a file' }] },
      { label: 'second-file', parts: [{ name: fileName, filename: 'passport.jpg', data: { sample: 'png' } }] },
      { label: 'expect-bracket', parts: [{ name: 'expect[]', data: 'es_dni' }, { name: 'expect', data: 'passport' }] },
      { label: 'files-plain', parts: [{ name: 'files', filename: 'nie.jpg', data: { sample: 'jpeg' } }] },
      { label: 'filename-star', parts: [{ name: fileName, data: { sample: 'jpeg' }, disposition: `form-data; name="${fileName}"; filename*=UTF-8''dni%00%2F..%2F%E2%80%AE.jpg` }] },
      { label: 'no-disposition-name', parts: [{ name: '', data: { sample: 'jpeg' }, disposition: 'form-data; filename="x.jpg"' }] },
      { label: 'empty-name', parts: [{ name: '', filename: 'x.jpg', data: { sample: 'jpeg' } }] },
      { label: 'huge-field', parts: [{ name: 'options', data: `{"metadata":{"a":"${'x'.repeat(1024 * 1024)}"}}` }] },
      { label: 'many-fields', parts: Array.from({ length: 120 }, (_, i) => ({ name: 'expect', data: i % 2 ? 'es_dni' : 'passport' })) },
      { label: 'unicode-name', parts: [{ name: 'fïlé', filename: 'ñ.jpg', data: { sample: 'jpeg' } }] },
      { label: 'bad-options', parts: [{ name: 'options', data: '{' }] },
    ),
    fc.tuple(fc.constantFrom('options', 'expect', 'key', ...fileNames), fc.oneof(oddString(), fc.constantFrom('', 'null', '[]', '"x"', '{"expect":', "{'a':1}", '{"unknown":1}', '{"async":"yes"}', '{"expect":"es_dnii"}', '1'))).map(([name, v]) => ({ label: 'odd-field', parts: [{ name, data: v }] })),
  );
  type Damage = { label: string; apply: (parts: Part[]) => { parts: Part[]; damage: MultipartDamage; contentType?: string } };
  const damage: fc.Arbitrary<Damage> = fc.oneof(
    { weight: 4, arbitrary: change.map((c): Damage => ({ label: c.label, apply: (parts) => ({ parts: [...parts, ...c.parts], damage: 'none' }) })) },
    { weight: 1, arbitrary: fc.constant<Damage>({ label: 'missing-file', apply: (parts) => ({ parts: parts.filter((p) => !fileNames.includes(p.name)), damage: 'none' }) }) },
    { weight: 1, arbitrary: fc.constant<Damage>({ label: 'no-parts', apply: () => ({ parts: [], damage: 'none' }) }) },
    { weight: 2, arbitrary: fc.constantFrom(...MULTIPART_DAMAGE).map((dmg): Damage => ({ label: dmg, apply: (parts) => ({ parts, damage: dmg }) })) },
    { weight: 1, arbitrary: fc.constantFrom(...WRONG_CONTENT_TYPES).map((ct): Damage => ({ label: 'wrong-content-type', apply: (parts) => ({ parts, damage: 'none', contentType: ct }) })) },
  );
  return fc.record({ parts: fc.tuple(...partsFor).map((g) => g.flat()), damages: fc.array(damage, { minLength: 1, maxLength: 2 }) }).map(({ parts, damages }) => {
    let out: { parts: Part[]; damage: MultipartDamage; contentType?: string } = { parts, damage: 'none' };
    for (const dmg of damages) {
      const next = dmg.apply(out.parts);
      out = { parts: next.parts, damage: next.damage !== 'none' ? next.damage : out.damage, contentType: next.contentType ?? out.contentType };
    }
    return {
      valid: { kind: 'multipart', parts, damage: 'none' },
      mutated: { body: { kind: 'multipart', ...out }, labels: damages.map((x) => `multipart:${x.label}`) },
    };
  });
}

function jsonBodyArb(schema: Schema, d: SchemaArbitraries): fc.Arbitrary<BodyChoice> {
  return d.of(schema).chain((value) => {
    const mutated = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.array(jsonMutation(), { minLength: 1, maxLength: 2 }).map((ms: JsonMutation[]) => ({
          body: { kind: 'json', value: ms.reduce((v, m) => applyJsonMutation(v, m), value), contentType: 'application/json' } as Body,
          labels: ms.map((m) => `json:${m.kind}`),
        })),
      },
      { weight: 2, arbitrary: badJsonText(value).map((body) => ({ body, labels: ['json:bad-text'] })) },
      { weight: 1, arbitrary: fc.constantFrom(...WRONG_CONTENT_TYPES).map((contentType) => ({ body: { kind: 'json', value, contentType } as Body, labels: ['content-type:wrong'] })) },
      { weight: 1, arbitrary: fc.constantFrom<Body | undefined>(undefined, { kind: 'text', text: '', contentType: 'application/json' }, { kind: 'bytes', bytes: [], note: 'empty, no type' }).map((body) => ({ body, labels: ['body:empty'] })) },
      { weight: 1, arbitrary: fc.constant({ body: { kind: 'bytes', bytes: [...Buffer.from(JSON.stringify(value) ?? '')], note: 'JSON, no Content-Type' } as Body, labels: ['content-type:missing'] }) },
    ) as fc.Arbitrary<BodyChoice['mutated']>;
    return fc.record({ contentType: fc.constantFrom(...JSON_CONTENT_TYPES), mutated }).map(({ contentType, mutated: m }): BodyChoice => ({ valid: { kind: 'json', value, contentType }, mutated: m }));
  });
}

// ---------------------------------------------------------------------------------------------------------------------
// Requests

export interface FuzzRequest {
  op: string;
  method: string;
  /** Path and query, as sent. */
  url: string;
  auth: AuthChoice;
  headers: Record<string, string>;
  body?: Body;
  /** Labels of what was made malformed (for statistics and for reading a failure). */
  mutated: string[];
}

const IDEMPOTENCY_POOL = ['fuzz-shared-1', 'fuzz-shared-2', 'fuzz-shared-3', 'Fuzz-Shared-1', 'fuzz-shared-1 '];

const idempotencyKey = (): fc.Arbitrary<{ valid: string | undefined; odd: string }> =>
  fc.record({
    valid: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 4, arbitrary: fc.ulid().map((u) => `fz-${u}`) },
      { weight: 1, arbitrary: fc.constantFrom('k'.repeat(255), 'ñ'.repeat(200), 'a,b', 'ключ', '🔑') },
    ),
    odd: fc.oneof(fc.constantFrom(...IDEMPOTENCY_POOL), fc.constantFrom('k'.repeat(256), '', '   ', '\t', 'x'.repeat(4000))),
  });

const extraHeaders = (op: Operation): fc.Arbitrary<Record<string, string>> => {
  const inm = op.params.some((p) => p.in === 'header' && p.name === 'If-None-Match');
  return fc.record(
    {
      ...(inm ? { 'If-None-Match': fc.oneof(fc.nat().map((i) => pools.etags[i % Math.max(1, pools.etags.length)] ?? '"x"'), fc.constantFrom('*', '"x"', 'W/"x"', '', '"a", "b"', 'garbage')) } : {}),
      Accept: fc.constantFrom('application/json', 'application/xml', '*/*', 'text/html', ''),
      'Accept-Language': fc.constantFrom('en', 'fr-FR', 'xx', ''),
      'X-Forwarded-For': fc.constantFrom('1.2.3.4', '::1', 'garbage'),
      'X-Request-Id': fc.constantFrom('req_client_supplied', 'x'),
    },
    { requiredKeys: [] },
  ) as fc.Arbitrary<Record<string, string>>;
};

type Category = 'body' | 'query' | 'path' | 'idempotency' | 'method' | 'shape';

/** Which parts of a request are malformed: none for about 40% of requests, one for half, two for the rest. */
const categories = (): fc.Arbitrary<Category[]> => {
  const one = fc.oneof(
    { weight: 10, arbitrary: fc.constant<Category>('body') },
    { weight: 4, arbitrary: fc.constant<Category>('query') },
    { weight: 3, arbitrary: fc.constant<Category>('path') },
    { weight: 2, arbitrary: fc.constant<Category>('idempotency') },
    { weight: 1, arbitrary: fc.constant<Category>('method') },
    { weight: 1, arbitrary: fc.constant<Category>('shape') },
  );
  return fc.oneof({ weight: 8, arbitrary: fc.constant<Category[]>([]) }, { weight: 10, arbitrary: one.map((c): Category[] => [c]) }, { weight: 2, arbitrary: fc.uniqueArray(one, { minLength: 2, maxLength: 2 }) });
};

/** Everything generated for one request of `op`. */
export function requestArb(op: Operation, doc: Schema, d: SchemaArbitraries): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const optionsSchema = { $ref: '#/components/schemas/AnalyzeOptions' };
  const bodies: Array<fc.Arbitrary<BodyChoice>> = [];
  if (op.json) bodies.push(jsonBodyArb(op.json, d));
  if (op.multipart) bodies.push(multipartArb(op.multipart, d, optionsSchema));
  // No body on an operation that takes none; a JSON one as its mutation (DELETE only: fetch sends no body with GET).
  const bodyArb: fc.Arbitrary<BodyChoice> =
    bodies.length > 0
      ? fc.oneof(...bodies)
      : fc.constant<BodyChoice>({ valid: undefined, mutated: op.method === 'DELETE' ? { body: { kind: 'json', value: { a: 1 }, contentType: 'application/json' }, labels: ['body:unexpected'] } : { body: undefined, labels: [] } });
  return fc
    .record({
      segments: fc.tuple(...pathParams.map((p) => pathParamArb(op, p, d))),
      query: queryArb(op, d),
      auth: authArb(),
      idem: idempotencyKey(),
      headers: extraHeaders(op),
      body: bodyArb,
      otherMethod: fc.constantFrom('PUT', 'PATCH', 'OPTIONS', op.method === 'GET' ? 'POST' : 'GET'),
      shape: fc.constantFrom('trailing-slash', 'double-slash', 'upper-case'),
      bad: categories(),
    })
    .map(({ segments, query, auth, idem, headers, body, otherMethod, shape, bad }) => {
      const is = (c: Category) => bad.includes(c);
      const mutated: string[] = [];
      let i = 0;
      let path = op.path.replace(/\{[^}]+\}/g, () => {
        const s = is('path') ? segments[i++].odd : segments[i++].valid;
        return s.raw ? s.value : encodeComponent(s.value);
      });
      if (is('path') && pathParams.length > 0) mutated.push('path:odd-segment');
      if (is('shape')) {
        if (shape === 'trailing-slash') path += '/';
        if (shape === 'double-slash') path = path.replace('/v1/', '/v1//');
        if (shape === 'upper-case') path = path.toUpperCase();
        mutated.push(`path:${shape}`);
      }
      const pairs = is('query') ? query.mutated.pairs : query.valid;
      if (is('query')) mutated.push(...query.mutated.labels);
      const qs = pairs.map(([k, v, raw]) => (raw ? `${k}=${v}` : `${encodeComponent(k)}=${encodeComponent(v)}`)).join('&');
      const allHeaders: Record<string, string> = { ...headers };
      const idemKey = op.method === 'POST' ? (is('idempotency') ? idem.odd : idem.valid) : undefined;
      if (idemKey !== undefined) allHeaders['Idempotency-Key'] = idemKey;
      if (is('idempotency') && op.method === 'POST') mutated.push('idempotency:odd');
      const chosen = is('body') ? body.mutated.body : body.valid;
      if (is('body')) mutated.push(...body.mutated.labels);
      const method = is('method') ? otherMethod : op.method;
      if (is('method')) mutated.push(`method:${otherMethod}`);
      return { op: op.id, method, url: qs ? `${path}?${qs}` : path, auth, headers: allHeaders, body: chosen, mutated };
    });
}

// ---------------------------------------------------------------------------------------------------------------------
// Wire encoding

const BOUNDARY = 'fuzzBoundary7MA4YWxkTrZu0gW';

function partBytes(part: Part): { head: string; data: Buffer } {
  const data = typeof part.data === 'string' ? Buffer.from(part.data, 'utf8') : Buffer.from(pools.files[part.data.sample].bytes);
  const quote = (s: string) => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const disposition = part.disposition ?? `form-data; name="${quote(part.name)}"${part.filename !== undefined ? `; filename="${quote(part.filename)}"` : ''}`;
  const type = part.contentType !== undefined ? part.contentType : part.filename !== undefined ? 'application/octet-stream' : undefined;
  return { head: `Content-Disposition: ${disposition}\r\n${type !== undefined ? `Content-Type: ${type}\r\n` : ''}`, data };
}

export function encodeMultipart(parts: Part[], damage: MultipartDamage): { bytes: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  if (damage === 'preamble') chunks.push(Buffer.from('this is a preamble\r\n--not-the-boundary\r\n'));
  for (const p of parts) {
    const { head, data } = partBytes(p);
    chunks.push(Buffer.from(`--${BOUNDARY}\r\n${head}\r\n`, 'utf8'), data, Buffer.from('\r\n'));
  }
  if (damage !== 'no-closing') chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  let bytes = Buffer.concat(chunks);
  if (damage === 'truncate') bytes = bytes.subarray(0, Math.floor(bytes.length * 0.6));
  if (damage === 'lf-only') bytes = Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
  const contentType =
    damage === 'no-boundary-param'
      ? 'multipart/form-data'
      : damage === 'wrong-boundary'
        ? 'multipart/form-data; boundary=somethingElse'
        : damage === 'empty-boundary'
          ? 'multipart/form-data; boundary='
          : damage === 'quoted-boundary'
            ? `multipart/form-data; boundary="${BOUNDARY}"`
            : `multipart/form-data; boundary=${BOUNDARY}`;
  return { bytes, contentType };
}

/** UTF-8 text as the Latin-1 "byte string" fetch sends, without the characters it refuses (CR, LF, NUL). */
export function headerValue(s: string): string {
  return Buffer.from(s.replace(/[\r\n\u0000]/g, ''), 'utf8').toString('latin1');
}

export function encodeBody(body: Body | undefined): { bytes?: Buffer; contentType?: string } {
  if (!body) return {};
  switch (body.kind) {
    case 'json': {
      const text = (JSON.stringify(body.value) ?? '').replace(B64_RE, (_m, sample: string, variant: string) => {
        const f = pools.files[sample];
        return JSON.stringify(f ? encodeBase64(f.bytes, variant, f.mime) : '');
      });
      return { bytes: Buffer.from(text, 'utf8'), contentType: body.contentType };
    }
    case 'text':
      return { bytes: Buffer.from(body.text, 'utf8'), contentType: body.contentType };
    case 'bytes':
      return { bytes: Buffer.from(body.bytes), contentType: body.contentType };
    case 'multipart': {
      const { bytes, contentType } = encodeMultipart(body.parts, body.damage);
      return { bytes, contentType: body.contentType ?? contentType };
    }
  }
}

/** A readable account of a request (long strings shortened, file samples named), for failure messages. */
export function describeRequest(r: FuzzRequest): string {
  const short = (_k: string, v: unknown) => {
    if (typeof v === 'string' && v.length > 120) return `${v.slice(0, 60)}…(${v.length} chars)…${v.slice(-20)}`;
    if (Array.isArray(v) && v.length > 20 && v.every((x) => typeof x === 'number')) return `<${v.length} bytes: ${Buffer.from(v as number[]).toString('latin1').slice(0, 80)}>`;
    return v;
  };
  const body = r.body?.kind === 'multipart' ? { ...r.body, parts: r.body.parts.length > 10 ? `${r.body.parts.length} parts, first: ${JSON.stringify(r.body.parts[0], short)}` : r.body.parts } : r.body;
  return JSON.stringify({ method: r.method, url: r.url.length > 300 ? `${r.url.slice(0, 300)}…` : r.url, auth: r.auth, headers: r.headers, body, mutated: r.mutated }, short, 1);
}

export { badValue };
