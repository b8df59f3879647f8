import type { AnalyzeOptions } from '../domain/analysis/options.ts';
import { optionsFromMultipart } from '../domain/analysis/options.ts';
import * as batches from '../domain/batches.ts';
import { ApiError } from '../errors.ts';
import { requireAuth, type Handler } from '../http/context.ts';

type JsonItem = { file_url?: string; file_base64?: string; filename?: string; options?: AnalyzeOptions };

export const createBatch: Handler = async (ctx) => {
  const auth = requireAuth(ctx);
  if (ctx.body.kind === 'multipart') {
    const stray = ctx.body.files.find((f) => f.field !== 'files[]' && f.field !== 'files');
    if (stray) throw new ApiError(422, 'invalid_parameter', `Campo de archivo desconocido '${stray.field}'; usa 'files[]'.`, stray.field);
    const unknown = ctx.body.fields.find((f) => f.name !== 'options');
    if (unknown) throw new ApiError(422, 'invalid_parameter', `Campo desconocido '${unknown.name}'.`, unknown.name);
    const { raw } = optionsFromMultipart(ctx.body.fields);
    const items = ctx.body.files.map((f) => ({ source: { kind: 'upload' as const, read: f.read, filename: f.filename, size: f.size }, options: undefined }));
    return { status: 202, body: await batches.createBatch(ctx.services, auth, raw as AnalyzeOptions, items, (i) => `files[].${i}`) };
  }
  const body = (ctx.body.kind === 'json' ? ctx.body.value : {}) as { items?: JsonItem[]; options?: AnalyzeOptions };
  const items = (body.items ?? []).map((it) => ({
    source: it.file_url !== undefined
      ? { kind: 'url' as const, url: it.file_url, filename: it.filename }
      : it.file_base64 !== undefined
        ? { kind: 'base64' as const, value: it.file_base64, filename: it.filename }
        : null,
    options: it.options,
  }));
  return { status: 202, body: await batches.createBatch(ctx.services, auth, body.options ?? {}, items, (i) => `items.${i}`) };
};

export const getBatch: Handler = async (ctx) => ({ status: 200, body: await batches.getBatch(ctx.services, requireAuth(ctx), ctx.params.id) });
