import type { components } from '../../../generated/api.d.ts';
import { resolveExpect } from '../catalogue/index.ts';
import { FIELD_DICTIONARY } from '../catalogue/fields.ts';
import * as repo from '../db/templates.ts';
import type { TemplateDocument, TemplateRow } from '../db/schema.ts';
import type { Auth, Services } from '../context.ts';
import { ApiError, resourceMissing } from '../errors.ts';
import { isId, newId } from '../ids.ts';

export type Template = components['schemas']['Template'];
export type DeletedTemplate = components['schemas']['DeletedTemplate'];
type CreateBody = components['schemas']['CreateTemplateRequest'];
type UpdateBody = components['schemas']['UpdateTemplateRequest'];
type DocumentInput = components['schemas']['RequiredDocumentInput'];
type Expect = components['schemas']['Expect'];

/** Most metadata keys a template (like any object) holds: the schema's `maxProperties`. */
const MAX_METADATA_KEYS = 20;

const scopeOf = (auth: Auth) => ({ account_id: auth.account.id, livemode: auth.livemode });

export function toTemplate(row: TemplateRow): Template {
  return {
    id: row.id,
    object: 'template',
    livemode: row.livemode,
    name: row.name,
    description: row.description,
    expect: row.expect,
    checks: row.checks as Template['checks'],
    extract: row.extract,
    storage: row.storage,
    ttl_hours: row.ttl_hours,
    language: row.language,
    processing: row.processing,
    precise_bboxes: row.precise_bboxes,
    human_review: { on_invalid: row.review_on_invalid, auto_approve_valid: row.review_auto_approve_valid },
    review_retention_hours_after_decision: row.review_retention_hours_after_decision,
    review_max_days: row.review_max_days,
    documents: row.documents as Template['documents'],
    mask_fields: row.mask_fields ?? null,
    face_verification: row.face_verification ?? null,
    metadata: row.metadata,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * The template `id` of the key's account and mode, as the API shows it; 422 `template_not_found` (with `param`)
 * otherwise: another account's template, the other mode's, a deleted one and a malformed id all look the same, so
 * an id never tells whether it exists elsewhere.
 */
export async function getTemplateForRequest(s: Services, auth: Auth, id: string, param: string): Promise<Template> {
  const row = isId('template', id) ? await repo.findTemplate(s.db, scopeOf(auth), id) : undefined;
  if (!row) throw new ApiError(422, 'template_not_found', `No existe la plantilla '${id}'.`, param);
  return toTemplate(row);
}

/** Slugs or type ids to catalogue type ids (deduplicated, in order); 422 `invalid_parameter` at `param` (or `param.i`). */
export function resolveExpectList(value: Expect, param: string): string[] {
  const list = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  list.forEach((v, i) => {
    const entry = resolveExpect(v);
    if (!entry) {
      throw new ApiError(422, 'invalid_parameter', `'${v}' no es un tipo de documento del catálogo (GET /v1/document-types).`, Array.isArray(value) ? `${param}.${i}` : param);
    }
    if (!out.includes(entry.type)) out.push(entry.type);
  });
  return out;
}

/** Catalogue field names to mask (deduplicated, in order); 422 `invalid_parameter` at `param.i` for an unknown one. */
export function resolveMaskFields(names: string[], param: string): string[] {
  names.forEach((n, i) => {
    if (!(n in FIELD_DICTIONARY)) throw new ApiError(422, 'invalid_parameter', `'${n}' no es un campo del catálogo (los campos de GET /v1/document-types).`, `${param}.${i}`);
  });
  return [...new Set(names)];
}

/**
 * The selfie module's setting as stored (null: off); 403 `face_verification_not_enabled` when it is asked for and the
 * account does not have the module (the same rule as on links, which inherit it).
 */
export function faceVerificationOf(auth: Auth, input: { enabled: boolean; required?: boolean } | null | undefined): { enabled: boolean; required: boolean } | null {
  if (!input?.enabled) return null;
  if (!auth.account.face_verification_enabled) {
    throw new ApiError(403, 'face_verification_not_enabled', 'El módulo de verificación facial no está activado en esta cuenta.', 'face_verification');
  }
  return { enabled: true, required: input.required ?? false };
}

function resolveDocuments(docs: DocumentInput[]): TemplateDocument[] {
  const seen = new Set<string>();
  return docs.map((d, i) => {
    if (seen.has(d.key)) throw new ApiError(422, 'invalid_parameter', `La clave de documento '${d.key}' está repetida: cada documento necesita una clave única.`, `documents.${i}.key`);
    seen.add(d.key);
    return { key: d.key, label: d.label ?? null, expect: resolveExpectList(d.expect, `documents.${i}.expect`), checks: (d.checks ?? {}) as Record<string, unknown> };
  });
}

export async function createTemplate(s: Services, auth: Auth, body: CreateBody): Promise<Template> {
  const now = s.clock.now();
  const row: TemplateRow = {
    id: newId('template', now.getTime()),
    account_id: auth.account.id,
    livemode: auth.livemode,
    name: body.name,
    description: body.description ?? null,
    expect: body.expect == null ? null : resolveExpectList(body.expect, 'expect'),
    checks: (body.checks ?? {}) as Record<string, unknown>,
    extract: (body.extract as TemplateRow['extract'] | undefined) ?? true,
    storage: body.storage ?? null,
    ttl_hours: body.ttl_hours ?? null,
    language: body.language ?? null,
    processing: body.processing ?? null,
    precise_bboxes: body.precise_bboxes ?? null,
    review_on_invalid: body.human_review?.on_invalid ?? false,
    review_auto_approve_valid: body.human_review?.auto_approve_valid ?? true,
    review_retention_hours_after_decision: body.review_retention_hours_after_decision ?? null,
    review_max_days: body.review_max_days ?? null,
    documents: body.documents == null ? null : resolveDocuments(body.documents),
    mask_fields: body.mask_fields == null ? null : resolveMaskFields(body.mask_fields, 'mask_fields'),
    face_verification: faceVerificationOf(auth, body.face_verification),
    metadata: withoutEmptyValues(body.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  await repo.insertTemplate(s.db, row);
  return toTemplate(row);
}

/** Stripe's metadata rule: an empty value means "no such key" (on update it removes the key). */
function withoutEmptyValues(m: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== ''));
}

export async function listTemplates(s: Services, auth: Auth, q: { limit: number; starting_after?: string }): Promise<{ data: Template[]; has_more: boolean }> {
  const rows = await repo.listTemplates(s.db, scopeOf(auth), q);
  return { data: rows.slice(0, q.limit).map(toTemplate), has_more: rows.length > q.limit };
}

export async function getTemplate(s: Services, auth: Auth, id: string): Promise<Template> {
  const row = await repo.findTemplate(s.db, scopeOf(auth), id);
  if (!row) throw resourceMissing(id);
  return toTemplate(row);
}

/**
 * Partial update: only the fields sent change; null resets a nullable field to its default (not set). `checks`,
 * `extract`, `expect` and `documents` are replaced whole when sent; `human_review` changes only the flags sent;
 * `metadata` merges key by key (Stripe style: a key with an empty value is removed). Read and written under a row
 * lock, so two concurrent updates of different fields both land.
 */
export async function updateTemplate(s: Services, auth: Auth, id: string, body: UpdateBody): Promise<Template> {
  const row = await s.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('templates')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', auth.account.id)
      .where('livemode', '=', auth.livemode)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw resourceMissing(id);
    const patch: Partial<TemplateRow> = {};
    if (body.name !== undefined) patch.name = body.name;
    if (body.description !== undefined) patch.description = body.description;
    if (body.expect !== undefined) patch.expect = body.expect === null ? null : resolveExpectList(body.expect, 'expect');
    if (body.checks !== undefined) patch.checks = body.checks as Record<string, unknown>;
    if (body.extract !== undefined) patch.extract = body.extract as TemplateRow['extract'];
    if (body.storage !== undefined) patch.storage = body.storage;
    if (body.ttl_hours !== undefined) patch.ttl_hours = body.ttl_hours;
    if (body.language !== undefined) patch.language = body.language;
    if (body.processing !== undefined) patch.processing = body.processing;
    if (body.precise_bboxes !== undefined) patch.precise_bboxes = body.precise_bboxes;
    if (body.human_review?.on_invalid !== undefined) patch.review_on_invalid = body.human_review.on_invalid;
    if (body.human_review?.auto_approve_valid !== undefined) patch.review_auto_approve_valid = body.human_review.auto_approve_valid;
    if (body.review_retention_hours_after_decision !== undefined) patch.review_retention_hours_after_decision = body.review_retention_hours_after_decision;
    if (body.review_max_days !== undefined) patch.review_max_days = body.review_max_days;
    if (body.documents !== undefined) patch.documents = body.documents === null ? null : resolveDocuments(body.documents);
    if (body.mask_fields !== undefined) patch.mask_fields = body.mask_fields === null ? null : resolveMaskFields(body.mask_fields, 'mask_fields');
    if (body.face_verification !== undefined) patch.face_verification = faceVerificationOf(auth, body.face_verification);
    if (body.metadata !== undefined) {
      const merged = withoutEmptyValues({ ...current.metadata, ...body.metadata });
      if (Object.keys(merged).length > MAX_METADATA_KEYS) {
        throw new ApiError(422, 'invalid_parameter', `La plantilla tendría ${Object.keys(merged).length} claves de metadata (máximo ${MAX_METADATA_KEYS}); elimina alguna enviándola vacía.`, 'metadata');
      }
      patch.metadata = merged;
    }
    // An empty body changes nothing, not even updated_at.
    if (Object.keys(body).length === 0) return current;
    patch.updated_at = s.clock.now();
    await repo.updateTemplate(trx, scopeOf(auth), id, patch);
    return { ...current, ...patch };
  });
  return toTemplate(row);
}

/**
 * Deletes the template (its row). Work already done with it is untouched: every analysis stored the options it
 * resolved (and the template id) when it was created, queued ones included; later requests naming it get 422
 * `template_not_found`.
 */
export async function deleteTemplate(s: Services, auth: Auth, id: string): Promise<DeletedTemplate> {
  if (!(await repo.deleteTemplate(s.db, scopeOf(auth), id))) throw resourceMissing(id);
  return { id, object: 'template', deleted: true };
}
