import * as pipeline from '../domain/analysis/pipeline.ts';
import { accountDefaults, normaliseOptions, optionsFromJson, optionsFromMultipart, type AnalyzeOptions } from '../domain/analysis/options.ts';
import * as queries from '../domain/analysis/queries.ts';
import type { ExportFormat } from '../exports/index.ts';
import { requireAuth, type Handler, type HandlerResult, type RequestContext } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { getTemplateForRequest } from '../domain/templates.ts';
import { listOf } from '../domain/pagination.ts';

/**
 * The options of a request with its template (if it names one) applied: the template is looked up first (422
 * `template_not_found` at `options.template` or `template`), then merged by normaliseOptions, the one merge rule.
 */
async function normalise(ctx: RequestContext, raw: AnalyzeOptions, prefix: string): Promise<ReturnType<typeof normaliseOptions>> {
  const auth = requireAuth(ctx);
  const template = raw.template !== undefined ? await getTemplateForRequest(ctx.services, auth, raw.template, `${prefix}template`) : null;
  return normaliseOptions(raw, prefix, accountDefaults(ctx.services, auth), template);
}

/** The document and the options of an analyze or classify request, from either content type. */
async function readRequest(ctx: RequestContext): Promise<{ source: pipeline.Source; options: ReturnType<typeof normaliseOptions>; raw: AnalyzeOptions; prefix: string }> {
  if (ctx.body.kind === 'multipart') {
    const files = ctx.body.files.filter((f) => f.field === 'file');
    const stray = ctx.body.files.find((f) => f.field !== 'file');
    if (stray) throw new ApiError(422, 'invalid_parameter', `Campo de archivo desconocido '${stray.field}'; usa 'file'.`, stray.field);
    if (files.length === 0) throw new ApiError(400, 'missing_file', "Falta el archivo: envía el campo 'file'.", 'file');
    if (files.length > 1) throw new ApiError(422, 'invalid_parameter', 'Envía un solo documento por petición (usa POST /v1/batches para varios).', 'file');
    const { raw, prefix } = optionsFromMultipart(ctx.body.fields);
    const options = await normalise(ctx, raw as AnalyzeOptions, prefix);
    return { source: { kind: 'upload', read: files[0].read, filename: files[0].filename, size: files[0].size }, options, raw: raw as AnalyzeOptions, prefix };
  }
  const body = (ctx.body.kind === 'json' ? ctx.body.value : {}) as Record<string, unknown>;
  const { raw, prefix } = optionsFromJson(body);
  const options = await normalise(ctx, raw as AnalyzeOptions, prefix);
  const filename = typeof body.filename === 'string' && body.filename !== '' ? body.filename : undefined;
  if (body.file_url !== undefined && body.file_base64 !== undefined) {
    throw new ApiError(422, 'invalid_parameter', 'Envía file_url o file_base64, no ambos.', 'file_base64');
  }
  if (typeof body.file_url === 'string') return { source: { kind: 'url', url: body.file_url, filename }, options, raw: raw as AnalyzeOptions, prefix };
  if (typeof body.file_base64 === 'string') return { source: { kind: 'base64', value: body.file_base64, filename }, options, raw: raw as AnalyzeOptions, prefix };
  throw new ApiError(400, 'missing_file', 'Falta el documento: envía file (multipart), file_url o file_base64.', 'file');
}

const create = (kind: pipeline.Kind): Handler => async (ctx) => {
  const read = await readRequest(ctx);
  const { source, raw, prefix } = read;
  let { options } = read;
  if (kind === 'classification') {
    // A Classification has no storage and no file route: a kept original could be neither shown nor deleted.
    if (raw.storage !== undefined && raw.storage !== 'none') {
      throw new ApiError(422, 'invalid_parameter', 'Una clasificación no conserva el archivo: storage solo admite none en POST /v1/classify (usa POST /v1/analyze para conservarlo).', `${prefix}storage`);
    }
    // A template's storage is for its analyses: a classification made with it keeps nothing either.
    options = { ...options, storage: 'none' };
  }
  const result = await pipeline.createAnalysis(ctx.services, requireAuth(ctx), kind, source, options);
  return { status: result.status, body: result.body };
};

export const createAnalysis = create('analysis');
export const createClassification = create('classification');

export const getAnalysis: Handler = async (ctx) => ({ status: 200, body: await queries.getAnalysis(ctx.services, requireAuth(ctx), ctx.params.id) });
export const getClassification: Handler = async (ctx) => ({ status: 200, body: await queries.getClassification(ctx.services, requireAuth(ctx), ctx.params.id) });

export const listAnalyses: Handler = async (ctx) => {
  const q = ctx.query as Record<string, unknown>;
  const { data, has_more } = await queries.listAnalyses(ctx.services, requireAuth(ctx), {
    limit: (q.limit as number | undefined) ?? 10,
    starting_after: q.starting_after as string | undefined,
    status: q.status as never,
    type: q.type as string | undefined,
    metadata: q.metadata as Record<string, string> | undefined,
  });
  return { status: 200, body: listOf('/v1/analyses', data, has_more) };
};

export const deleteAnalysis: Handler = async (ctx) => ({ status: 200, body: await queries.deleteAnalysis(ctx.services, requireAuth(ctx), ctx.params.id) });

function fileResult(f: queries.FileResponse, disposition: 'inline' | 'attachment', extra: Record<string, string> = {}): HandlerResult {
  const safe = f.filename.replace(/["\\\r\n]/g, '_');
  return {
    status: 200,
    raw: f.bytes,
    headers: {
      'Content-Type': f.contentType,
      'Content-Disposition': `${disposition}; filename="${safe.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(f.filename)}`,
      ...extra,
    },
  };
}

export const exportAnalysis: Handler = async (ctx) => {
  const format = ((ctx.query as Record<string, unknown>).format as ExportFormat | undefined) ?? 'json';
  return fileResult(await queries.exportAnalysis(ctx.services, requireAuth(ctx), ctx.params.id, format), 'attachment', { 'Cache-Control': 'private, no-store' });
};

export const getAnalysisFile: Handler = async (ctx) =>
  fileResult(await queries.getAnalysisFile(ctx.services, requireAuth(ctx), ctx.params.id), 'inline', { 'Cache-Control': 'private, no-store' });

export const downloadFile: Handler = async (ctx) =>
  fileResult(await queries.downloadSignedFile(ctx.services, ctx.params.token), 'attachment', { 'Cache-Control': 'private, no-store' });
