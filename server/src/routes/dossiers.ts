import type { components } from '../../../generated/api.d.ts';
import { accountDefaults, normaliseOptions, optionsFromMultipart, type AnalyzeOptions } from '../domain/analysis/options.ts';
import * as dossiers from '../domain/dossiers/service.ts';
import { listOf } from '../domain/pagination.ts';
import type { Template } from '../domain/templates.ts';
import { ApiError } from '../errors.ts';
import { requireAuth, type Handler, type RequestContext } from '../http/context.ts';

type CreateBody = components['schemas']['CreateDossierRequest'];
type AddJsonBody = components['schemas']['AddDossierDocumentJsonRequest'];

const KEY_RE = /^[A-Za-z0-9_-]{1,40}$/;

export const createDossier: Handler = async (ctx) => {
  const body = (ctx.body.kind === 'json' ? ctx.body.value : {}) as CreateBody;
  return { status: 201, body: await dossiers.createDossier(ctx.services, requireAuth(ctx), body) };
};

export const listDossiers: Handler = async (ctx) => {
  const q = ctx.query as Record<string, unknown>;
  const { data, has_more } = await dossiers.listDossiers(ctx.services, requireAuth(ctx), {
    limit: (q.limit as number | undefined) ?? 10,
    starting_after: q.starting_after as string | undefined,
    reference: q.reference as string | undefined,
  });
  return { status: 200, body: listOf('/v1/dossiers', data, has_more) };
};

export const getDossier: Handler = async (ctx) => ({ status: 200, body: await dossiers.getDossier(ctx.services, requireAuth(ctx), ctx.params.id) });

export const deleteDossier: Handler = async (ctx) => ({ status: 200, body: await dossiers.deleteDossier(ctx.services, requireAuth(ctx), ctx.params.id) });

/** The document of POST /v1/dossiers/{id}/documents, from either content type (the intake of analyze). */
function readAddRequest(ctx: RequestContext): dossiers.AddInput {
  const auth = requireAuth(ctx);
  const normalise = (raw: AnalyzeOptions, template: Template | null) => normaliseOptions(raw, 'options.', accountDefaults(ctx.services, auth), template);
  if (ctx.body.kind === 'multipart') {
    const stray = ctx.body.files.find((f) => f.field !== 'file');
    if (stray) throw new ApiError(422, 'invalid_parameter', `Campo de archivo desconocido '${stray.field}'; usa 'file'.`, stray.field);
    const unknown = ctx.body.fields.find((f) => f.name !== 'key' && f.name !== 'options');
    if (unknown) throw new ApiError(422, 'invalid_parameter', `Campo desconocido '${unknown.name}'.`, unknown.name);
    const files = ctx.body.files;
    if (files.length === 0) throw new ApiError(400, 'missing_file', "Falta el archivo: envía el campo 'file'.", 'file');
    if (files.length > 1) throw new ApiError(422, 'invalid_parameter', 'Envía un solo documento por petición.', 'file');
    const keys = ctx.body.fields.filter((f) => f.name === 'key');
    if (keys.length > 1) throw new ApiError(422, 'invalid_parameter', "El campo 'key' aparece más de una vez.", 'key');
    const key = keys[0]?.value;
    if (key !== undefined && !KEY_RE.test(key)) throw new ApiError(422, 'invalid_parameter', "'key' no tiene el formato esperado.", 'key');
    const { raw } = optionsFromMultipart(ctx.body.fields.filter((f) => f.name === 'options'));
    return { kind: 'file', source: { kind: 'upload', read: files[0].read, filename: files[0].filename, size: files[0].size }, options: raw as AnalyzeOptions, key, normalise };
  }
  const body = (ctx.body.kind === 'json' ? ctx.body.value : {}) as AddJsonBody;
  const file = body.file_url !== undefined || body.file_base64 !== undefined;
  if (body.analysis_id !== undefined) {
    if (file) throw new ApiError(422, 'invalid_parameter', 'Envía analysis_id o un archivo, no ambos.', 'analysis_id');
    if (body.options !== undefined || body.filename !== undefined) {
      throw new ApiError(422, 'invalid_parameter', 'options y filename solo se aplican a un archivo nuevo, no a analysis_id.', body.options !== undefined ? 'options' : 'filename');
    }
    return { kind: 'analysis', analysisId: body.analysis_id, key: body.key };
  }
  if (body.file_url !== undefined && body.file_base64 !== undefined) {
    throw new ApiError(422, 'invalid_parameter', 'Envía file_url o file_base64, no ambos.', 'file_base64');
  }
  const filename = typeof body.filename === 'string' && body.filename !== '' ? body.filename : undefined;
  const options = (body.options ?? {}) as AnalyzeOptions;
  if (typeof body.file_url === 'string') return { kind: 'file', source: { kind: 'url', url: body.file_url, filename }, options, key: body.key, normalise };
  if (typeof body.file_base64 === 'string') return { kind: 'file', source: { kind: 'base64', value: body.file_base64, filename }, options, key: body.key, normalise };
  throw new ApiError(400, 'missing_file', 'Falta el documento: envía analysis_id, file (multipart), file_url o file_base64.', 'file');
}

export const addDossierDocument: Handler = async (ctx) => {
  const input = readAddRequest(ctx);
  const result = await dossiers.addDocument(ctx.services, requireAuth(ctx), ctx.params.id, input);
  return { status: result.status, body: result.body };
};
