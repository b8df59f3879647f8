/**
 * A loopback fake of Mistral's HTTP API (`POST /v1/ocr`, `POST /v1/chat/completions`) for tests that drive the real
 * `@mistralai/mistralai` SDK with `serverURL: fake.url`.
 *
 * It is a contract test in both directions:
 * - outbound: every request is checked the way Mistral would (auth, model, data URIs with the right magic numbers,
 *   json_schema response formats that compile and follow strict-mode rules); what is wrong goes to `problems`, which
 *   tests assert stays [] (the request is still answered, so one bug does not hide the next);
 * - inbound: answers are built in Mistral's wire format (snake_case) and must pass the SDK's own zod schemas, so a
 *   shape drift surfaces as the SDK's ResponseValidationError (see test/unit/fake-mistral.test.ts).
 *
 * Wire facts (shapes, error envelopes, headers) come from the SDK 2.7.0 sources and Mistral's docs, summarised in
 * /work/shared/research/live-mode-spike.md sections 1 and 2.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export interface FakeMistralRequest { method: string; path: string; headers: IncomingHttpHeaders; body: any }
export type FakeFault =
  | { status: 429; retryAfter?: number }
  | { status: 500 | 502 | 503 | 504 }
  | { status: 400 | 401 | 403 | 422 }
  | { delayMs: number }
  | { malformed: true }
  | { invalidJson: true };
export interface FakeMistral {
  url: string;
  apiKey: string;
  requests: FakeMistralRequest[];
  /** FIFO of faults, consumed one per request (any path), before the normal answer. */
  faults: FakeFault[];
  /** Problems the fake found in requests it received (wrong auth, missing model, bad schema, bad data URI...). Tests assert it stays []. */
  problems: string[];
  /** Optional answer builders. ocr(body) returns the OCR response in WIRE format (snake_case) or undefined for the default;
   *  chat(body) returns the object to put (JSON-stringified) in choices[0].message.content, or undefined for the default. */
  onOcr?: (body: any) => unknown | undefined;
  onChat?: (body: any) => unknown | undefined;
  close(): Promise<void>;
}

/** Requests per minute the fake claims in its x-ratelimit-* headers (a plausible tier value; nothing enforces it). */
const RATE_LIMIT_REQ_MINUTE = 720;
const RATE_LIMIT_TOKENS_MINUTE = 2_000_000;

/** Magic numbers of the image formats Mistral takes. Chat vision: PNG, JPEG, GIF, WEBP (docs: vision.md). */
const IMAGE_MAGIC: Record<string, (b: Buffer) => boolean> = {
  'image/jpeg': (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/gif': (b) => ['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1')),
  'image/webp': (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
};
/** OCR also takes TIFF and BMP (docs: known-limitations.md), but no HEIC. */
const OCR_EXTRA_MAGIC: Record<string, (b: Buffer) => boolean> = {
  'image/tiff': (b) => ['49492a00', '4d4d002a'].includes(b.subarray(0, 4).toString('hex')),
  'image/bmp': (b) => b.subarray(0, 2).toString('latin1') === 'BM',
};

const ERROR_TEXT: Record<number, { message: string; type: string }> = {
  400: { message: 'Invalid request', type: 'invalid_request_error' },
  401: { message: 'Unauthorized', type: 'authentication_error' },
  403: { message: 'Invalid model: this model is not available for your tier', type: 'invalid_request_error' },
  404: { message: 'Not Found', type: 'invalid_request_error' },
  500: { message: 'Internal server error', type: 'server_error' },
  502: { message: 'Bad gateway', type: 'server_error' },
  503: { message: 'Service unavailable', type: 'server_error' },
  504: { message: 'Gateway timeout', type: 'server_error' },
};

const envelope = (status: number) => ({
  object: 'error',
  message: ERROR_TEXT[status]?.message ?? `Error ${status}`,
  type: ERROR_TEXT[status]?.type ?? 'invalid_request_error',
  param: null,
  code: null,
});

export async function startFakeMistral(opts: { apiKey?: string } = {}): Promise<FakeMistral> {
  const apiKey = opts.apiKey ?? 'fake-mistral-key';
  // Pending `delayMs` waits: aborted by close() so a test's afterAll never waits for a slow answer nobody reads.
  const closing = new AbortController();
  let served = 0;

  const fake: FakeMistral = {
    url: '',
    apiKey,
    requests: [],
    faults: [],
    problems: [],
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = (req.url ?? '/').split('?')[0];
    served += 1;

    const send = (status: number, payload: unknown, extra: Record<string, string> = {}) => {
      if (res.destroyed || res.headersSent) return; // the client gave up (time-out) or close() cut it
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
      res.writeHead(status, {
        'content-type': 'application/json',
        // Mistral sends these on every answer (mistralai/client-ts#169); the SDK only exposes them on errors.
        'x-ratelimit-limit-req-minute': String(RATE_LIMIT_REQ_MINUTE),
        'x-ratelimit-remaining-req-minute': String(Math.max(0, RATE_LIMIT_REQ_MINUTE - served)),
        'x-ratelimit-limit-tokens-minute': String(RATE_LIMIT_TOKENS_MINUTE),
        'x-ratelimit-remaining-tokens-minute': String(RATE_LIMIT_TOKENS_MINUTE - 1000 * served),
        ...extra,
      });
      res.end(text);
    };

    let body: any = null;
    let badJson = false;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      badJson = true;
    }
    fake.requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    const route = `${req.method} ${path}`;

    // Auth comes first and does not consume a fault: a request Mistral would refuse never reaches the model.
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${apiKey}`) {
      fake.problems.push(`${route}: ${auth ? 'wrong bearer token in Authorization' : 'no Authorization header'}`);
      return send(401, envelope(401));
    }
    if (badJson) {
      fake.problems.push(`${route}: body is not JSON`);
      return send(400, envelope(400));
    }

    const isOcr = route === 'POST /v1/ocr';
    const isChat = route === 'POST /v1/chat/completions';
    if (isOcr) checkOcrRequest(body, fake.problems);
    if (isChat) checkChatRequest(body, fake.problems);

    const fault = fake.faults.shift();
    if (fault) {
      if ('delayMs' in fault) {
        try {
          await sleep(fault.delayMs, undefined, { signal: closing.signal });
        } catch {
          return; // closed meanwhile
        }
      } else if ('malformed' in fault) {
        // Valid JSON, wrong shape: the SDK's zod schema must reject it (ResponseValidationError).
        return send(200, isChat ? { choices: 'nope' } : { pages: 'nope' });
      } else if ('invalidJson' in fault) {
        if (!isChat) fake.problems.push(`${route}: an invalidJson fault was consumed by a non-chat request (test set-up)`);
        else return send(200, chatCompletion(body, '{oops'));
      } else if (fault.status === 429) {
        return send(
          429,
          { object: 'error', message: 'Rate limit exceeded', type: 'rate_limited', param: null, code: '1300' },
          fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {},
        );
      } else if (fault.status === 422) {
        return send(422, { detail: [{ loc: ['body', 'model'], msg: 'Field required', type: 'missing' }] });
      } else {
        return send(fault.status, envelope(fault.status));
      }
    }

    if (isOcr) return send(200, fake.onOcr?.(body) ?? defaultOcrAnswer(body));
    if (isChat) {
      const answer = fake.onChat?.(body);
      return send(200, chatCompletion(body, answer !== undefined ? JSON.stringify(answer) : defaultChatContent(body)));
    }
    return send(404, envelope(404));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

// ---------------------------------------------------------------------------------------------------------------------
// Answers

const PAGE_DIMENSIONS = { dpi: 200, height: 1100, width: 1700 };

function defaultOcrAnswer(body: any) {
  const doc = body?.document ?? {};
  const decoded = decodeDocument(doc);
  let indices = [0];
  if (doc.type === 'document_url' && decoded?.mime === 'application/pdf') {
    const total = pdfPageCount(decoded.bytes);
    indices = Array.from({ length: total }, (_, i) => i);
    const wanted = requestedPages(body.pages);
    if (wanted) indices = indices.filter((i) => wanted.has(i));
  }
  const granularity: string | undefined = body?.confidence_scores_granularity ?? undefined;
  const pages = indices.map((index) => {
    const text = `Sample text on page ${index + 1} read by the fake Mistral OCR.`;
    const markdown = `# Page ${index + 1}\n\n${text}`;
    const page: Record<string, unknown> = {
      index,
      markdown,
      images: [],
      tables: [],
      hyperlinks: [],
      header: null,
      footer: null,
      dimensions: PAGE_DIMENSIONS,
    };
    if (body?.include_blocks !== false) {
      const blockScores = granularity === 'block'
        ? { average_content_confidence_score: 0.97, minimum_content_confidence_score: 0.91, block_type_confidence_score: 0.99 }
        : undefined;
      page.blocks = [
        { type: 'title', content: `Page ${index + 1}`, top_left_x: 120, top_left_y: 80, bottom_right_x: 600, bottom_right_y: 140, ...(blockScores && { confidence_scores: blockScores }) },
        { type: 'text', content: text, top_left_x: 120, top_left_y: 200, bottom_right_x: 1580, bottom_right_y: 260, ...(blockScores && { confidence_scores: blockScores }) },
      ];
    }
    if (granularity) {
      const scores: Record<string, unknown> = { average_page_confidence_score: 0.97, minimum_page_confidence_score: 0.91 };
      if (granularity === 'word') {
        scores.word_confidence_scores = [...markdown.matchAll(/\S+/g)].map((m) => ({ text: m[0], confidence: 0.97, start_index: m.index }));
      }
      page.confidence_scores = scores;
    }
    return page;
  });
  const schema = body?.document_annotation_format?.json_schema?.schema;
  return {
    pages,
    model: typeof body?.model === 'string' ? body.model : 'mistral-ocr-latest',
    document_annotation: body?.document_annotation_format ? JSON.stringify(sampleFor(schema)) : null,
    usage_info: { pages_processed: pages.length, doc_size_bytes: decoded?.bytes.length ?? null },
  };
}

function defaultChatContent(body: any): string {
  const format = body?.response_format;
  if (format?.type === 'json_schema') return JSON.stringify(sampleFor(format.json_schema?.schema));
  if (format?.type === 'json_object') return JSON.stringify({ answer: 'A short answer from the fake Mistral.' });
  return 'A short answer from the fake Mistral.';
}

let completionCounter = 0;
function chatCompletion(body: any, content: string) {
  // Token counts: deterministic rough estimates (text / 4, ~1000 per image), only so that cost code sees plausible numbers.
  let promptTokens = 10;
  for (const m of Array.isArray(body?.messages) ? body.messages : []) {
    const chunks = typeof m?.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m?.content) ? m.content : [];
    for (const c of chunks) promptTokens += c?.type === 'image_url' ? 1000 : Math.ceil(String(c?.text ?? '').length / 4);
  }
  const completionTokens = Math.max(1, Math.ceil(content.length / 4));
  completionCounter += 1;
  return {
    id: `cmpl-fake-${completionCounter}`,
    object: 'chat.completion',
    model: typeof body?.model === 'string' ? body.model : 'mistral-small-latest',
    created: Math.floor(Date.now() / 1000),
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Request checks (each failure appends a human-readable string to `problems`)

function checkModel(where: string, body: any, problems: string[]) {
  if (typeof body?.model !== 'string' || body.model.trim() === '') problems.push(`${where}: model must be a non-empty string`);
}

function checkOcrRequest(body: any, problems: string[]) {
  const where = 'POST /v1/ocr';
  checkModel(where, body, problems);
  const doc = body?.document;
  if (doc?.type === 'image_url') {
    const url = typeof doc.image_url === 'string' ? doc.image_url : doc.image_url?.url;
    checkImageDataUri(`${where} document.image_url`, url, { ...IMAGE_MAGIC, ...OCR_EXTRA_MAGIC }, problems);
  } else if (doc?.type === 'document_url') {
    const parsed = parseDataUri(doc.document_url);
    if (!parsed) problems.push(`${where} document.document_url: not a base64 data URI`);
    else if (parsed.mime !== 'application/pdf') problems.push(`${where} document.document_url: media type ${parsed.mime}, expected application/pdf`);
    else if (parsed.bytes.subarray(0, 5).toString('latin1') !== '%PDF-') problems.push(`${where} document.document_url: decoded bytes do not start with %PDF-`);
  } else {
    problems.push(`${where}: document.type is ${JSON.stringify(doc?.type)}, expected image_url or document_url with a data URI`);
  }
  if (body?.pages != null && !requestedPages(body.pages)) problems.push(`${where}: pages ${JSON.stringify(body.pages)} is neither a list of integers nor a "0-5,7" string`);
  if (body?.document_annotation_format != null) checkResponseFormat(`${where} document_annotation_format`, body.document_annotation_format, problems, true);
  if (body?.bbox_annotation_format != null) checkResponseFormat(`${where} bbox_annotation_format`, body.bbox_annotation_format, problems, true);
  if (body?.confidence_scores_granularity != null && !['page', 'word', 'block'].includes(body.confidence_scores_granularity)) {
    problems.push(`${where}: confidence_scores_granularity ${JSON.stringify(body.confidence_scores_granularity)} is not page, word or block`);
  }
}

function checkChatRequest(body: any, problems: string[]) {
  const where = 'POST /v1/chat/completions';
  checkModel(where, body, problems);
  const messages = body?.messages;
  if (!Array.isArray(messages) || messages.length === 0) problems.push(`${where}: messages must be a non-empty array`);
  (Array.isArray(messages) ? messages : []).forEach((m: any, i: number) => {
    if (!['system', 'user', 'assistant', 'tool'].includes(m?.role)) problems.push(`${where} messages[${i}]: role ${JSON.stringify(m?.role)}`);
    if (!Array.isArray(m?.content)) return;
    m.content.forEach((c: any, j: number) => {
      if (c?.type !== 'image_url') return;
      const url = typeof c.image_url === 'string' ? c.image_url : c.image_url?.url;
      checkImageDataUri(`${where} messages[${i}].content[${j}].image_url`, url, IMAGE_MAGIC, problems);
    });
  });
  if (body?.response_format?.type === 'json_schema') checkResponseFormat(`${where} response_format`, body.response_format, problems, false);
}

function checkImageDataUri(where: string, url: unknown, accepted: Record<string, (b: Buffer) => boolean>, problems: string[]) {
  const parsed = parseDataUri(url);
  if (!parsed) return problems.push(`${where}: not a base64 data URI (${describe(url)})`);
  if (parsed.mime === 'image/heic' || parsed.mime === 'image/heif') return problems.push(`${where}: ${parsed.mime} is not accepted by Mistral (transcode HEIC first)`);
  const magic = accepted[parsed.mime];
  if (!magic) return problems.push(`${where}: media type ${parsed.mime} is not one Mistral accepts here (${Object.keys(accepted).join(', ')})`);
  if (!magic(parsed.bytes)) problems.push(`${where}: decoded bytes do not start with the ${parsed.mime} magic number`);
}

/** `{type: 'json_schema', json_schema: {name, schema, strict}}`: the only valid shape for OCR annotations. */
function checkResponseFormat(where: string, format: any, problems: string[], jsonSchemaOnly: boolean) {
  if (format?.type !== 'json_schema') {
    if (jsonSchemaOnly) problems.push(`${where}: type ${JSON.stringify(format?.type)}, only json_schema is valid`);
    return;
  }
  const js = format.json_schema;
  if (!js || typeof js !== 'object') return problems.push(`${where}: json_schema is missing`);
  if (typeof js.name !== 'string' || js.name.trim() === '') problems.push(`${where}: json_schema.name must be a non-empty string`);
  const schema = js.schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return problems.push(`${where}: json_schema.schema must be an object`);
  if (schema.type !== 'object') problems.push(`${where}: json_schema.schema must have type "object" at the root`);
  try {
    compileSchema(schema);
  } catch (e) {
    problems.push(`${where}: json_schema.schema does not compile: ${(e as Error).message}`);
  }
  if (js.strict === true) {
    for (const p of strictViolations(schema)) problems.push(`${where} (strict): ${p}`);
  }
}

/** Compiles with ajv (2020-12 when the schema says so, else ajv's default draft-07) plus ajv-formats. */
function compileSchema(schema: object) {
  const is2020 = String((schema as { $schema?: unknown }).$schema ?? '').includes('2020-12');
  const ajv = is2020 ? new Ajv2020({ strict: false }) : new Ajv({ strict: false });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  return ajv.compile(schema);
}

/**
 * Mistral's strict structured-output rules: every object schema closes itself (`additionalProperties: false`) and
 * lists all its properties in `required` (optional values are expressed as `type: [x, 'null']` instead).
 */
function strictViolations(root: any): string[] {
  const out: string[] = [];
  const visit = (s: any, at: string) => {
    if (!s || typeof s !== 'object' || Array.isArray(s)) return;
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('object') || s.properties) {
      const keys = Object.keys(s.properties ?? {});
      if (s.additionalProperties !== false) out.push(`object at ${at} lacks additionalProperties: false`);
      const required: unknown[] = Array.isArray(s.required) ? s.required : [];
      const missing = keys.filter((k) => !required.includes(k));
      if (missing.length) out.push(`object at ${at} does not list ${missing.join(', ')} in required`);
    }
    for (const [k, v] of Object.entries<any>(s.properties ?? {})) visit(v, `${at}/properties/${k}`);
    for (const key of ['$defs', 'definitions', 'patternProperties'] as const) {
      for (const [k, v] of Object.entries<any>(s[key] ?? {})) visit(v, `${at}/${key}/${k}`);
    }
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
      if (Array.isArray(s[key])) s[key].forEach((v: any, i: number) => visit(v, `${at}/${key}/${i}`));
    }
    if (Array.isArray(s.items)) s.items.forEach((v: any, i: number) => visit(v, `${at}/items/${i}`));
    else visit(s.items, `${at}/items`);
    for (const key of ['additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const) visit(s[key], `${at}/${key}`);
  };
  visit(root, '#');
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// Helpers

function parseDataUri(url: unknown): { mime: string; bytes: Buffer } | undefined {
  if (typeof url !== 'string') return undefined;
  const m = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+);base64,(.*)$/is.exec(url);
  // Strict base64: Buffer.from(…, 'base64') silently skips junk, which would hide a wrongly encoded payload.
  if (!m || m[2].length === 0 || m[2].length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(m[2])) return undefined;
  return { mime: m[1].toLowerCase(), bytes: Buffer.from(m[2], 'base64') };
}

function decodeDocument(doc: any) {
  if (doc?.type === 'image_url') return parseDataUri(typeof doc.image_url === 'string' ? doc.image_url : doc.image_url?.url);
  if (doc?.type === 'document_url') return parseDataUri(doc.document_url);
  return undefined;
}

/**
 * Page objects in the PDF (`/Type /Page`, not `/Pages`), at least 1. Good enough for the uncompressed PDFs tests make
 * (pdfkit, pdf-lib without object streams); a PDF that hides its page objects in object streams counts as 1 page.
 */
function pdfPageCount(bytes: Buffer): number {
  const text = bytes.toString('latin1');
  return Math.max(1, [...text.matchAll(/\/Type\s*\/Page(?![A-Za-z])/g)].length);
}

/** `pages` of an OCR request: `[0, 2]` or `"0-5,7"` (0-based) as a set; undefined when absent or malformed. */
function requestedPages(pages: unknown): Set<number> | undefined {
  if (Array.isArray(pages)) return pages.every((p) => Number.isInteger(p) && p >= 0) ? new Set(pages as number[]) : undefined;
  if (typeof pages !== 'string') return undefined;
  const out = new Set<number>();
  for (const part of pages.split(',').map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return undefined;
    const from = Number(m[1]);
    const to = m[2] !== undefined ? Number(m[2]) : from;
    for (let i = from; i <= to && i - from < 10_000; i += 1) out.add(i);
  }
  return out;
}

function describe(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/** A value conforming to a JSON Schema: first enum member, '2031-04-15' for format date, 0.97 for numbers, true for booleans,
 *  arrays of one item, objects property by property (every property, also with type ['x','null'] unions: pick the non-null). */
export function sampleFor(schema: any): unknown {
  return sample(schema, schema, 0);
}

function sample(s: any, root: any, depth: number): unknown {
  if (!s || typeof s !== 'object' || depth > 32) return null;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) {
    const target = s.$ref
      .slice(1)
      .split('/')
      .filter(Boolean)
      .reduce((node: any, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    return sample(target, root, depth + 1);
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.find((v: unknown) => v !== null) ?? s.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(s[key]) && s[key].length) {
      const branch = s[key].find((b: any) => b?.type !== 'null') ?? s[key][0];
      return sample(branch, root, depth + 1);
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length) {
    const parts = s.allOf.map((b: any) => sample(b, root, depth + 1));
    return parts.every((p: unknown) => p && typeof p === 'object' && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts[0];
  }
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const type = types.find((t) => t !== 'null') ?? (types.length ? 'null' : s.properties ? 'object' : s.items ? 'array' : 'string');
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
      return clamp(1, s);
    case 'number':
      return clamp(0.97, s);
    case 'string': {
      const byFormat: Record<string, string> = {
        date: '2031-04-15',
        'date-time': '2031-04-15T10:00:00Z',
        time: '10:00:00Z',
        email: 'holder@example.com',
        uri: 'https://example.com/',
        uuid: '00000000-0000-4000-8000-000000000000',
      };
      const base = byFormat[s.format] ?? 'sample';
      const padded = base.padEnd(s.minLength ?? 0, 'x');
      return typeof s.maxLength === 'number' ? padded.slice(0, s.maxLength) : padded;
    }
    case 'array': {
      const n = Math.max(1, typeof s.minItems === 'number' ? s.minItems : 0);
      return Array.from({ length: n }, (_, i) =>
        sample(Array.isArray(s.prefixItems) && s.prefixItems[i] ? s.prefixItems[i] : Array.isArray(s.items) ? s.items[i] ?? s.items[0] : s.items, root, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries<any>(s.properties ?? {})) out[k] = sample(v, root, depth + 1);
      return out;
    }
    default:
      return null;
  }
}

function clamp(n: number, s: any): number {
  let v = n;
  if (typeof s.minimum === 'number' && v < s.minimum) v = s.minimum;
  if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) v = s.exclusiveMinimum + (s.type === 'integer' ? 1 : 0.01);
  if (typeof s.maximum === 'number' && v > s.maximum) v = s.maximum;
  if (typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum) v = s.exclusiveMaximum - (s.type === 'integer' ? 1 : 0.01);
  return v;
}
