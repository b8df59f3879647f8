/**
 * Calls to Mistral's API through the official SDK (`@mistralai/mistralai`), loaded once and only when the first live
 * reading needs it: importing it costs seconds and ~140 MB (docs/live-mode.md). Its standalone functions are used
 * (`ocrProcess`, `chatComplete`): they return `{ ok, value | error }` and load less than the `Mistral` class.
 *
 * Failures come out as a `ProviderError`:
 * - `transient`: 429, 5xx, time-outs, lost connections (the SDK already retried them with backoff, jitter and
 *   `Retry-After`, for at most `retryMs`), and answers that are not what was asked (malformed, not JSON, not the
 *   schema) after one more try: the job is retried later (pipeline.ts), the analysis is charged once, at the end;
 * - `permanent`: 400/401/403/404/422: the same request would fail again; the analysis fails, not charged.
 *
 * Nothing of the document is logged: errors carry the HTTP status and the SDK's error class, never a body.
 */
import type { MistralConfig } from '../../config.ts';
import { Limiter } from '../local/limiter.ts';

export class ProviderError extends Error {
  readonly kind: 'transient' | 'permanent';
  readonly status: number | null;
  constructor(kind: 'transient' | 'permanent', status: number | null, message: string) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = status;
  }
}

async function loadSdk() {
  const [core, ocr, chat, http] = await Promise.all([
    import('@mistralai/mistralai/core.js'),
    import('@mistralai/mistralai/funcs/ocrProcess.js'),
    import('@mistralai/mistralai/funcs/chatComplete.js'),
    import('@mistralai/mistralai/lib/http.js'),
  ]);
  return { MistralCore: core.MistralCore, ocrProcess: ocr.ocrProcess, chatComplete: chat.chatComplete, HTTPClient: http.HTTPClient };
}

/**
 * `fetch` with a deadline on the whole exchange, answer and body, held by a plain timer.
 *
 * The SDK's own `timeoutMs` is an `AbortSignal.timeout()` on the request it builds, and every try sends a clone of it.
 * Node's fetch links a clone's signal to the original's through weak references: after a garbage collection during
 * the call, the time-out no longer reaches it and the call waits for the server forever (nodejs/undici#4068). So the
 * SDK gets no `timeoutMs`; this fetcher cuts each try after `timeoutMs` itself, with a `TimeoutError` the SDK maps to
 * `RequestTimeoutError` (and retries within `retryMs`, like a lost connection).
 */
function fetchWithDeadline(timeoutMs: number): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError');
        controller.abort(err); // frees the socket when the link holds; the race below ends the call when it does not
        reject(err);
      }, timeoutMs);
    });
    const exchange = (async () => {
      const res = await fetch(input, { ...init, signal: controller.signal });
      const body = await res.arrayBuffer();
      return new Response(body.byteLength > 0 ? body : null, { status: res.status, statusText: res.statusText, headers: res.headers });
    })();
    exchange.catch(() => undefined); // past the deadline nobody awaits it
    try {
      return await Promise.race([exchange, expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;
let sdkPromise: Promise<Sdk> | null = null;
function sdk(): Promise<Sdk> {
  sdkPromise ??= loadSdk().catch((err) => {
    sdkPromise = null;
    throw err;
  });
  return sdkPromise;
}

/** Wire shapes this module hands to the rest (the SDK's camelCase types, reduced to what is read). */
export interface OcrBlock {
  type: string;
  content: string;
  /** Pixels of the page image. */
  box: [number, number, number, number];
}
export interface OcrPage {
  /** 1-based. */
  page: number;
  markdown: string;
  width: number;
  height: number;
  blocks: OcrBlock[];
  confidence: number | null;
}
export interface OcrResult {
  model: string;
  pages: OcrPage[];
}

export type ChatContent = Array<{ type: 'text'; text: string } | { type: 'image_url'; imageUrl: string }>;

export interface MistralClient {
  readonly config: MistralConfig;
  /** OCR of an image or PDF given as a data URI. */
  ocr(document: { kind: 'image' | 'pdf'; dataUri: string }, opts?: { pages?: number[] }): Promise<OcrResult>;
  /** A chat completion with a JSON Schema response format; returns the parsed JSON answer (not yet validated). */
  chatJson(req: { system: string; content: ChatContent; schemaName: string; schema: Record<string, unknown> }): Promise<{ model: string; answer: unknown }>;
}

/** How a failed SDK call maps to a ProviderError (by HTTP status and error class, never by body). */
export function classifyFailure(error: unknown): ProviderError {
  const e = error as { name?: string; statusCode?: number; constructor?: { name?: string } };
  const name = e?.name ?? e?.constructor?.name ?? 'Error';
  const status = typeof e?.statusCode === 'number' ? e.statusCode : null;
  // A 2xx the SDK's schemas reject (ResponseValidationError carries the 200): a malformed answer, worth another try.
  if (status !== null && status < 300) return new ProviderError('transient', status, `Mistral answer is malformed (${name})`);
  if (status !== null) {
    const kind = status === 429 || status >= 500 || status === 408 ? 'transient' : 'permanent';
    return new ProviderError(kind, status, `Mistral answered HTTP ${status} (${name})`);
  }
  // Time-outs, aborted or lost connections, and 200s the SDK's schemas reject: worth another try later.
  return new ProviderError('transient', null, `Mistral call failed: ${name}`);
}

/**
 * One OCR block as this module hands it on. The SDK does not reject a block it does not know (a type added by a newer
 * OCR model, a fractional coordinate): it passes it as `{ type: 'UNKNOWN', isUnknown: true, raw }`, with the wire
 * (snake_case) object in `raw`; such a block is read from `raw` when it has the usual fields, and dropped otherwise.
 */
function toBlock(b: Record<string, unknown>): OcrBlock | null {
  const raw = b.isUnknown === true && b.raw && typeof b.raw === 'object' ? (b.raw as Record<string, unknown>) : null;
  const get = (camel: string, snake: string): unknown => (raw ? raw[snake] : b[camel]);
  const box = [get('topLeftX', 'top_left_x'), get('topLeftY', 'top_left_y'), get('bottomRightX', 'bottom_right_x'), get('bottomRightY', 'bottom_right_y')].map(Number);
  const content = raw ? raw.content : b.content;
  const type = raw ? raw.type : b.type;
  if (b.isUnknown === true && (!raw || typeof content !== 'string')) return null;
  return { type: typeof type === 'string' ? type : 'text', content: typeof content === 'string' ? content : '', box: box as [number, number, number, number] };
}

/** Builds the client; the SDK itself loads on the first call. */
export function createMistralClient(config: MistralConfig): MistralClient {
  const limiter = new Limiter(config.concurrency);
  let core: InstanceType<Sdk['MistralCore']> | null = null;
  const retries = {
    strategy: 'backoff' as const,
    backoff: { initialInterval: 500, maxInterval: 8_000, exponent: 1.5, maxElapsedTime: config.retryMs },
    retryConnectionErrors: true,
  };
  const client = async (): Promise<{ s: Sdk; core: InstanceType<Sdk['MistralCore']> }> => {
    const s = await sdk();
    core ??= new s.MistralCore({
      apiKey: config.apiKey,
      ...(config.baseUrl ? { serverURL: config.baseUrl } : { server: 'eu' as const }),
      // The time-out is the fetcher's, per try (fetchWithDeadline says why the SDK's is not used).
      httpClient: new s.HTTPClient({ fetcher: fetchWithDeadline(config.timeoutMs) }),
      retryConfig: config.retryMs > 0 ? retries : { strategy: 'none' },
    });
    return { s, core };
  };

  return {
    config,
    ocr: (document, opts = {}) =>
      limiter.run(async () => {
        const { s, core: c } = await client();
        const res = await s.ocrProcess(c, {
          model: config.ocrModel,
          document: document.kind === 'pdf' ? { type: 'document_url', documentUrl: document.dataUri } : { type: 'image_url', imageUrl: document.dataUri },
          ...(opts.pages ? { pages: opts.pages } : {}),
          includeImageBase64: false,
          includeBlocks: true,
          confidenceScoresGranularity: 'page',
        });
        if (!res.ok) throw classifyFailure(res.error);
        const v = res.value;
        return {
          model: v.model,
          pages: v.pages.map((p) => ({
            page: p.index + 1,
            markdown: p.markdown,
            width: p.dimensions?.width ?? 0,
            height: p.dimensions?.height ?? 0,
            blocks: ((p as { blocks?: Array<Record<string, unknown>> }).blocks ?? []).map(toBlock).filter((b): b is OcrBlock => b !== null),
            confidence: p.confidenceScores?.averagePageConfidenceScore ?? null,
          })),
        };
      }),
    chatJson: (req) =>
      limiter.run(async () => {
        const { s, core: c } = await client();
        const res = await s.chatComplete(c, {
          model: config.chatModel,
          temperature: 0,
          messages: [
            { role: 'system', content: req.system },
            { role: 'user', content: req.content },
          ],
          responseFormat: { type: 'json_schema', jsonSchema: { name: req.schemaName, schemaDefinition: req.schema, strict: true } },
        });
        if (!res.ok) throw classifyFailure(res.error);
        const choice = res.value.choices?.[0];
        const content = choice?.message?.content;
        const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => ('text' in c ? c.text : '')).join('') : '';
        if (choice?.finishReason === 'length') throw new ProviderError('transient', null, 'Mistral answer was cut at the length limit');
        try {
          return { model: res.value.model, answer: JSON.parse(text) as unknown };
        } catch {
          throw new ProviderError('transient', null, 'Mistral answer is not JSON');
        }
      }),
  };
}
