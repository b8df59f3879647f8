import type { APIClient, RequestOptions } from './core.ts';
import { PagePromise, type ListBody } from './pagination.ts';
import { isRemote, toBlob, type FileInput, type Uploadable } from './uploads.ts';
import type { AnalyzeOptions, BatchItem, JsonBodyOf, QueryOf, ResponseOf, Schemas } from './types.ts';

const enc = encodeURIComponent;

/** Params of `analyses.create` and `classifications.create`: a file plus the options of POST /v1/analyze. */
export type AnalyzeParams = AnalyzeOptions & {
  /** The document: a path, bytes, Blob/File, readable stream, `{ url }` (sent as `file_url`) or `{ base64 }`. */
  file?: FileInput;
  /** File name sent with the file (in test mode it selects the simulated reading, e.g. `dni_valid.jpg`). */
  filename?: string;
  file_url?: string;
  file_base64?: string;
};

export interface PollOptions extends RequestOptions {
  /** Wait between polls. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Give up (throw) after this long. Default: no limit. */
  maxWaitMs?: number;
}

abstract class Resource {
  protected readonly client: APIClient;
  constructor(client: APIClient) {
    this.client = client;
  }

  protected paginate<L extends ListBody<unknown>>(
    path: string,
    query: Record<string, unknown> | undefined,
    cursorOf: (item: L extends ListBody<infer I> ? I : never) => string,
    options?: RequestOptions,
    auth = true,
  ): PagePromise<L> {
    const { starting_after, ...rest } = (query ?? {}) as { starting_after?: string };
    return new PagePromise<L>(
      (cursor) =>
        this.client.request<L>(
          { method: 'GET', path, query: { ...(rest as Record<string, never>), starting_after: cursor }, auth },
          options,
        ),
      cursorOf,
      starting_after,
    );
  }
}

const byId = (item: { id: string }) => item.id;

/** Builds the body of analyze / classify / add-document: multipart for a local file, JSON for a URL or base64. */
async function documentBody(
  params: AnalyzeParams,
  extra: Record<string, string | undefined> = {},
): Promise<{ json: unknown } | { form: () => FormData }> {
  const { file, filename, file_url, file_base64, ...options } = params;
  const hasOptions = Object.keys(options).length > 0;
  if (file === undefined || isRemote(file)) {
    const remote = file as { url?: string; base64?: string } | undefined;
    return {
      json: {
        file_url: file_url ?? remote?.url,
        file_base64: file_base64 ?? remote?.base64,
        filename,
        ...extra,
        ...(hasOptions ? { options } : {}),
      },
    };
  }
  const { blob, name } = await toBlob(file as Uploadable, filename);
  return {
    form: () => {
      const fd = new FormData();
      fd.append('file', blob, name);
      for (const [k, v] of Object.entries(extra)) if (v !== undefined) fd.append(k, v);
      if (hasOptions) fd.append('options', JSON.stringify(options));
      return fd;
    },
  };
}

async function pollUntil<T>(
  client: APIClient,
  first: T,
  done: (value: T) => boolean,
  next: () => Promise<T>,
  opts: PollOptions,
): Promise<T> {
  const interval = opts.pollIntervalMs ?? 1000;
  const deadline = opts.maxWaitMs === undefined ? Infinity : Date.now() + opts.maxWaitMs;
  let value = first;
  while (!done(value)) {
    if (Date.now() + interval > deadline) throw new Error(`Polling gave up after ${opts.maxWaitMs} ms.`);
    await client.wait(interval);
    value = await next();
  }
  return value;
}

const finished = (a: { status: string }) => a.status === 'completed' || a.status === 'failed';

function pollOnly(opts: PollOptions): RequestOptions {
  const { pollIntervalMs: _p, maxWaitMs: _m, ...rest } = opts;
  return rest;
}

export class Analyses extends Resource {
  /** POST /v1/analyze (`createAnalysis`). Check `status` before reading `verdict` or `fields`. */
  async create(params: AnalyzeParams, options?: RequestOptions): Promise<ResponseOf<'createAnalysis'>> {
    return this.client.request({ method: 'POST', path: '/v1/analyze', body: await documentBody(params) }, options);
  }

  /** Creates an analysis (pass `async: true` for long documents) and polls it until `completed` or `failed`. */
  async createAndPoll(params: AnalyzeParams, opts: PollOptions = {}): Promise<ResponseOf<'getAnalysis'>> {
    const reqOpts = pollOnly(opts);
    const created = await this.create(params, reqOpts);
    return pollUntil(this.client, created, finished, () => this.retrieve(created.id, reqOpts), opts);
  }

  /** GET /v1/analyses/{id} (`getAnalysis`). */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseOf<'getAnalysis'>> {
    return this.client.request({ method: 'GET', path: `/v1/analyses/${enc(id)}` }, options);
  }

  /** GET /v1/analyses (`listAnalyses`): await for one page, or `for await` over every analysis. */
  list(query: QueryOf<'listAnalyses'> = {}, options?: RequestOptions): PagePromise<ResponseOf<'listAnalyses'>> {
    return this.paginate('/v1/analyses', query, byId, options);
  }

  /** DELETE /v1/analyses/{id} (`deleteAnalysis`). */
  del(id: string, options?: RequestOptions): Promise<ResponseOf<'deleteAnalysis'>> {
    return this.client.request({ method: 'DELETE', path: `/v1/analyses/${enc(id)}` }, options);
  }

  /** GET /v1/analyses/{id}/export (`exportAnalysis`): the file as a fetch `Response` (`arrayBuffer()`, `text()`...). */
  export(id: string, query: QueryOf<'exportAnalysis'> = {}, options?: RequestOptions): Promise<Response> {
    return this.client.request({ method: 'GET', path: `/v1/analyses/${enc(id)}/export`, query, raw: true }, options);
  }

  /** GET /v1/analyses/{id}/file (`getAnalysisFile`): the original file as a fetch `Response`. */
  file(id: string, options?: RequestOptions): Promise<Response> {
    return this.client.request({ method: 'GET', path: `/v1/analyses/${enc(id)}/file`, raw: true }, options);
  }

  /**
   * POST /v1/analyses/{id}/review (`reviewAnalysis`): decides a pending human review (`approve` or `reject`, with an
   * optional `reason` and internal `note`) and returns the analysis. Repeating the same decision answers 200 again;
   * a different one is a `ConflictError` with code `already_reviewed`.
   */
  review(id: string, body: JsonBodyOf<'reviewAnalysis'>, options?: RequestOptions): Promise<ResponseOf<'reviewAnalysis'>> {
    return this.client.request({ method: 'POST', path: `/v1/analyses/${enc(id)}/review`, body: { json: body } }, options);
  }
}

export class Classifications extends Resource {
  /** POST /v1/classify (`createClassification`). */
  async create(params: AnalyzeParams, options?: RequestOptions): Promise<ResponseOf<'createClassification'>> {
    return this.client.request({ method: 'POST', path: '/v1/classify', body: await documentBody(params) }, options);
  }

  /** GET /v1/classifications/{id} (`getClassification`). */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseOf<'getClassification'>> {
    return this.client.request({ method: 'GET', path: `/v1/classifications/${enc(id)}` }, options);
  }
}

/** Params of `batches.create`: local `files` (multipart `files[]`) or JSON `items`, plus common `options`. */
export type BatchCreateParams =
  | { files: Array<Uploadable | { file: Uploadable; filename?: string }>; options?: AnalyzeOptions }
  | { items: BatchItem[]; options?: AnalyzeOptions };

export class Batches extends Resource {
  /** POST /v1/batches (`createBatch`); always asynchronous (202). */
  async create(params: BatchCreateParams, options?: RequestOptions): Promise<ResponseOf<'createBatch'>> {
    if ('items' in params) {
      return this.client.request({ method: 'POST', path: '/v1/batches', body: { json: params } }, options);
    }
    const parts = await Promise.all(
      params.files.map((f) =>
        typeof f === 'object' && f !== null && 'file' in f ? toBlob(f.file, f.filename) : toBlob(f as Uploadable),
      ),
    );
    const form = () => {
      const fd = new FormData();
      for (const { blob, name } of parts) fd.append('files[]', blob, name);
      if (params.options) fd.append('options', JSON.stringify(params.options));
      return fd;
    };
    return this.client.request({ method: 'POST', path: '/v1/batches', body: { form } }, options);
  }

  /** GET /v1/batches/{id} (`getBatch`). */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseOf<'getBatch'>> {
    return this.client.request({ method: 'GET', path: `/v1/batches/${enc(id)}` }, options);
  }

  /** Polls a batch until `status: completed`. */
  async poll(id: string, opts: PollOptions = {}): Promise<ResponseOf<'getBatch'>> {
    const reqOpts = pollOnly(opts);
    const first = await this.retrieve(id, reqOpts);
    return pollUntil(this.client, first, (b) => b.status === 'completed', () => this.retrieve(id, reqOpts), opts);
  }
}

export class DocumentTypes extends Resource {
  /** GET /v1/document-types (`listDocumentTypes`), public (sent without the key); the cursor is the type id. */
  list(query: QueryOf<'listDocumentTypes'> = {}, options?: RequestOptions): PagePromise<ResponseOf<'listDocumentTypes'>> {
    return this.paginate('/v1/document-types', query, (t) => t.type, options, false);
  }

  /** GET /v1/document-types/{type} (`getDocumentType`). */
  retrieve(type: string, query: QueryOf<'getDocumentType'> = {}, options?: RequestOptions): Promise<ResponseOf<'getDocumentType'>> {
    return this.client.request({ method: 'GET', path: `/v1/document-types/${enc(type)}`, query, auth: false }, options);
  }
}

export class WebhookEndpoints extends Resource {
  /** POST /v1/webhook-endpoints (`createWebhookEndpoint`); the answer includes the signing `secret`. */
  create(body: JsonBodyOf<'createWebhookEndpoint'>, options?: RequestOptions): Promise<ResponseOf<'createWebhookEndpoint'>> {
    return this.client.request({ method: 'POST', path: '/v1/webhook-endpoints', body: { json: body } }, options);
  }

  /** GET /v1/webhook-endpoints (`listWebhookEndpoints`). */
  list(options?: RequestOptions): PagePromise<ResponseOf<'listWebhookEndpoints'>> {
    return this.paginate('/v1/webhook-endpoints', undefined, byId, options);
  }

  /** GET /v1/webhook-endpoints/{id} (`getWebhookEndpoint`). */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseOf<'getWebhookEndpoint'>> {
    return this.client.request({ method: 'GET', path: `/v1/webhook-endpoints/${enc(id)}` }, options);
  }

  /** DELETE /v1/webhook-endpoints/{id} (`deleteWebhookEndpoint`). */
  del(id: string, options?: RequestOptions): Promise<ResponseOf<'deleteWebhookEndpoint'>> {
    return this.client.request({ method: 'DELETE', path: `/v1/webhook-endpoints/${enc(id)}` }, options);
  }
}

export class VerificationLinks extends Resource {
  /** POST /v1/verification-links (`createVerificationLink`). */
  create(body: JsonBodyOf<'createVerificationLink'>, options?: RequestOptions): Promise<ResponseOf<'createVerificationLink'>> {
    return this.client.request({ method: 'POST', path: '/v1/verification-links', body: { json: body } }, options);
  }

  /** GET /v1/verification-links (`listVerificationLinks`). */
  list(query: QueryOf<'listVerificationLinks'> = {}, options?: RequestOptions): PagePromise<ResponseOf<'listVerificationLinks'>> {
    return this.paginate('/v1/verification-links', query, byId, options);
  }

  /** GET /v1/verification-links/{id} (`getVerificationLink`). */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseOf<'getVerificationLink'>> {
    return this.client.request({ method: 'GET', path: `/v1/verification-links/${enc(id)}` }, options);
  }

  /** DELETE /v1/verification-links/{id} (`cancelVerificationLink`). */
  cancel(id: string, options?: RequestOptions): Promise<ResponseOf<'cancelVerificationLink'>> {
    return this.client.request({ method: 'DELETE', path: `/v1/verification-links/${enc(id)}` }, options);
  }
}

export class Reviews extends Resource {
  /**
   * GET /v1/reviews (`listReviews`): analyses in human review, `status: 'pending'` (oldest first) by default; await
   * for one page, or `for await` over every analysis.
   */
  list(query: QueryOf<'listReviews'> = {}, options?: RequestOptions): PagePromise<ResponseOf<'listReviews'>> {
    return this.paginate('/v1/reviews', query, byId, options);
  }
}

export class BalanceResource extends Resource {
  /** GET /v1/balance (`getBalance`). */
  retrieve(options?: RequestOptions): Promise<ResponseOf<'getBalance'>> {
    return this.client.request({ method: 'GET', path: '/v1/balance' }, options);
  }
}

export class UsageResource extends Resource {
  /** GET /v1/usage (`getUsage`). */
  retrieve(query: QueryOf<'getUsage'> = {}, options?: RequestOptions): Promise<ResponseOf<'getUsage'>> {
    return this.client.request({ method: 'GET', path: '/v1/usage', query }, options);
  }
}

export class Templates extends Resource {
  /** POST /v1/templates (`createTemplate`). */
  create(body: JsonBodyOf<'createTemplate'>, options?: RequestOptions): Promise<ResponseOf<'createTemplate'>> {
    return this.client.request({ method: 'POST', path: '/v1/templates', body: { json: body } }, options);
  }

  /** GET /v1/templates (`listTemplates`). */
  list(query: QueryOf<'listTemplates'> = {}, options?: RequestOptions): PagePromise<ResponseOf<'listTemplates'>> {
    return this.paginate('/v1/templates', query, byId, options);
  }

  /** GET /v1/templates/{id} (`getTemplate`). */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseOf<'getTemplate'>> {
    return this.client.request({ method: 'GET', path: `/v1/templates/${enc(id)}` }, options);
  }

  /** POST /v1/templates/{id} (`updateTemplate`). */
  update(id: string, body: JsonBodyOf<'updateTemplate'>, options?: RequestOptions): Promise<ResponseOf<'updateTemplate'>> {
    return this.client.request({ method: 'POST', path: `/v1/templates/${enc(id)}`, body: { json: body } }, options);
  }

  /** DELETE /v1/templates/{id} (`deleteTemplate`). */
  del(id: string, options?: RequestOptions): Promise<ResponseOf<'deleteTemplate'>> {
    return this.client.request({ method: 'DELETE', path: `/v1/templates/${enc(id)}` }, options);
  }
}

/** The slot of a dossier document (`key`): default the detected type; an existing key is replaced. */
type DossierSlot = { key?: Schemas['DossierDocumentKey'] };

/**
 * Params of `dossiers.addDocument`: either an existing analysis (`analysis_id`, JSON), or a document analysed for
 * the dossier, given as `analyses.create` takes it (a local `file` goes as multipart; `{ url }`, `{ base64 }`,
 * `file_url` or `file_base64` as JSON) with the analyze options flat beside it (`expect`, `checks`, `async`...).
 * The two are exclusive (`never` keeps them apart at compile time; the server would refuse the mix).
 */
export type AddDossierDocumentParams =
  | (DossierSlot & { analysis_id: string } & { [K in keyof AnalyzeParams]?: never })
  | (DossierSlot & AnalyzeParams & { analysis_id?: never });

export class Dossiers extends Resource {
  /** POST /v1/dossiers (`createDossier`). */
  create(body: JsonBodyOf<'createDossier'>, options?: RequestOptions): Promise<ResponseOf<'createDossier'>> {
    return this.client.request({ method: 'POST', path: '/v1/dossiers', body: { json: body } }, options);
  }

  /** GET /v1/dossiers (`listDossiers`). */
  list(query: QueryOf<'listDossiers'> = {}, options?: RequestOptions): PagePromise<ResponseOf<'listDossiers'>> {
    return this.paginate('/v1/dossiers', query, byId, options);
  }

  /** GET /v1/dossiers/{id} (`getDossier`). */
  retrieve(id: string, options?: RequestOptions): Promise<ResponseOf<'getDossier'>> {
    return this.client.request({ method: 'GET', path: `/v1/dossiers/${enc(id)}` }, options);
  }

  /**
   * POST /v1/dossiers/{id}/documents (`addDossierDocument`): 200 with the dossier once the document is analysed (or
   * linked), 202 while it is still being analysed (`async: true`, or a long document); `poll` waits for it.
   */
  async addDocument(id: string, params: AddDossierDocumentParams, options?: RequestOptions): Promise<ResponseOf<'addDossierDocument'>> {
    const { key, analysis_id, ...rest } = params;
    // The same intake as analyze (documentBody): multipart for a local file, JSON otherwise; `analysis_id` only in JSON.
    const body = await documentBody(rest as AnalyzeParams, { key, analysis_id });
    return this.client.request({ method: 'POST', path: `/v1/dossiers/${enc(id)}/documents`, body }, options);
  }

  /** Polls a dossier until none of its documents is `queued` or `processing` (its verdict then counts them all). */
  async poll(id: string, opts: PollOptions = {}): Promise<ResponseOf<'getDossier'>> {
    const reqOpts = pollOnly(opts);
    const first = await this.retrieve(id, reqOpts);
    const settled = (d: ResponseOf<'getDossier'>) => d.documents.every(finished);
    return pollUntil(this.client, first, settled, () => this.retrieve(id, reqOpts), opts);
  }

  /** DELETE /v1/dossiers/{id} (`deleteDossier`). */
  del(id: string, options?: RequestOptions): Promise<ResponseOf<'deleteDossier'>> {
    return this.client.request({ method: 'DELETE', path: `/v1/dossiers/${enc(id)}` }, options);
  }
}
