import type { components } from '../../../../generated/api.d.ts';
import { resolveExpect, type Language } from '../../catalogue/index.ts';
import type { Auth, Services } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { firstUncleanPath } from '../../input/clean-strings.ts';
import { assertJsonDepth } from '../../input/json-depth.ts';
import { validationError } from '../../input/validation.ts';
import { loadSpec, makeSchemaValidator } from '../../openapi.ts';
import { profilesServed, type ProcessingProfile } from '../../providers/types.ts';

export type AnalyzeOptions = components['schemas']['AnalyzeOptions'];
export type Template = components['schemas']['Template'];
export type Checks = components['schemas']['Checks'];
export type ExportFormat = components['schemas']['ExportFormat'];

/** Options with every default applied and `expect` resolved to catalogue type ids. */
export interface NormalisedOptions {
  expect: string[] | null;
  extract: boolean | Record<string, unknown>;
  checks: Checks;
  /** `review` (from a template) keeps the original while its review is pending (docs/reviews.md). */
  storage: 'none' | 'temporary' | 'persistent' | 'review';
  /**
   * Whether the request or its template chose `storage`. When neither did, an analysis that enters human review keeps
   * its original as storage `review` does, so that the reviewer has the document to look at (docs/reviews.md); an
   * explicit `none` keeps nothing even then. Rows stored before this existed lack it: read as chosen.
   */
  storage_chosen?: boolean;
  ttl_hours: number;
  keep_results: boolean;
  async: boolean;
  export: ExportFormat[];
  metadata: Record<string, string>;
  language: Language;
  processing: ProcessingProfile;
  precise_bboxes: boolean;
  /**
   * Fields its events mask: the `mask_fields` of the verification link the analysis was uploaded through (#29).
   * Absent on every other analysis.
   */
  mask_fields?: string[];
  /** The template the request named (`tpl_...`), or null. Rows stored before templates existed lack it: read as null. */
  template: string | null;
  /**
   * When the analysis enters human review and how long its original is kept there (the template's, else the
   * defaults: only `review` verdicts, account retention values). Rows stored before reviews existed lack it.
   */
  review: ReviewPolicy;
}

export interface ReviewPolicy {
  /** Verdict `invalid` enters review too. */
  on_invalid: boolean;
  /** Verdict `valid` does not enter review (false: it does). */
  auto_approve_valid: boolean;
  /** Hours the original is kept after the decision; null: the account's value (24 by default). */
  retention_hours_after_decision: number | null;
  /** Days a pending original is kept at most; null: the account's value (30 by default). */
  max_days: number | null;
}

export const DEFAULT_REVIEW_POLICY: ReviewPolicy = { on_invalid: false, auto_approve_valid: true, retention_hours_after_decision: null, max_days: null };

/** What the account and the key's mode decide about options the request leaves out or cannot have. */
export interface AccountDefaults {
  /** The account's profile: the `processing` of a request that does not ask for one. */
  processing: ProcessingProfile;
  /** The profiles the mode's reader serves; null when the mode has no reader (the request then gets a 503). */
  served: readonly ProcessingProfile[] | null;
}

export function accountDefaults(s: Services, auth: Auth): AccountDefaults {
  const provider = auth.livemode ? s.providers.live : s.providers.test;
  return { processing: auth.account.default_processing, served: provider ? profilesServed(provider) : null };
}

/** Keys of a JSON body that are never options. */
const FILE_KEYS = new Set(['file_url', 'file_base64', 'filename', 'options']);

let validateOptions: ((v: unknown) => boolean) & { errors?: unknown } | undefined;

function checkAgainstSchema(options: unknown, prefix: string): void {
  if (!validateOptions) {
    const ajv = makeSchemaValidator(loadSpec().document);
    validateOptions = ajv.compile({ $ref: 'openapi.json#/components/schemas/AnalyzeOptions' });
  }
  if (!validateOptions(options)) {
    // The shared mapper expects request paths (`/requestBody/...`); these errors are relative to the options.
    const errors = (validateOptions.errors as Array<{ instancePath: string }>).map((e) => ({ ...e, instancePath: `/requestBody${e.instancePath}` }));
    const err = validationError(errors as never);
    throw new ApiError(422, 'invalid_parameter', err.message, err.param ? `${prefix}${err.param}` : prefix.replace(/\.$/, ''));
  }
}

/** Options from a JSON body: `options` when present (root keys then not read), else the root keys. */
export function optionsFromJson(body: Record<string, unknown>): { raw: Record<string, unknown>; prefix: string } {
  if (body.options !== undefined) return { raw: body.options as Record<string, unknown>, prefix: 'options.' };
  return { raw: Object.fromEntries(Object.entries(body).filter(([k]) => !FILE_KEYS.has(k))), prefix: '' };
}

/** Options from multipart fields: `options` (a JSON string), else the repeatable `expect` shortcut. */
export function optionsFromMultipart(fields: ReadonlyArray<{ name: string; value: string }>): { raw: Record<string, unknown>; prefix: string } {
  const optionFields = fields.filter((f) => f.name === 'options');
  if (optionFields.length > 1) throw new ApiError(400, 'invalid_options', "El campo 'options' aparece más de una vez.", 'options');
  if (optionFields.length === 1) {
    let parsed: unknown;
    assertJsonDepth(optionFields[0].value, 'options.');
    try {
      parsed = JSON.parse(optionFields[0].value);
    } catch {
      throw new ApiError(400, 'invalid_options', "El campo 'options' no es JSON válido.", 'options');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ApiError(400, 'invalid_options', "El campo 'options' debe ser un objeto JSON.", 'options');
    }
    const unclean = firstUncleanPath(parsed);
    if (unclean !== undefined) {
      throw new ApiError(422, 'invalid_parameter', `El valor 'options.${unclean}' contiene un carácter NUL o Unicode no válido (un sustituto UTF-16 suelto).`, `options.${unclean}`);
    }
    checkAgainstSchema(parsed, 'options.');
    return { raw: parsed as Record<string, unknown>, prefix: 'options.' };
  }
  const expect = fields.filter((f) => f.name === 'expect' || f.name === 'expect[]').map((f) => f.value);
  const unknown = fields.find((f) => !['options', 'expect', 'expect[]'].includes(f.name));
  if (unknown) throw new ApiError(422, 'invalid_parameter', `Campo desconocido '${unknown.name}'.`, unknown.name);
  const raw = expect.length > 0 ? { expect } : {};
  checkAgainstSchema(raw, 'options.');
  return { raw, prefix: 'options.' };
}

/** Most metadata keys an analysis carries (the schema's `maxProperties`), the template's included. */
const MAX_METADATA_KEYS = 20;

/**
 * Applies the template, then defaults (the account's for `processing`), resolves `expect` (type ids or slugs in any
 * language) and refuses what the schema cannot: unknown types, and a profile the mode's reader does not serve (422
 * `processing_unavailable`, also when it is the account's and the request did not name it).
 *
 * The template merge rule (docs/templates.md), the one code path for analyze, classify and batches: a value the request
 * sends wins over the template's, the template's wins over the default. `checks` merge key by key (the request's check
 * wins per key; `holder` is one key, replaced whole), `metadata` key by key (the request's value wins). `keep_results`,
 * `async` and `export` are request-only. The template's human-review policy and retention become
 * `review`. `template` must be the one `raw.template` names, resolved by the caller (the lookup needs the database):
 * when it is missing this throws 422 `template_not_found`, so a caller that forgets to resolve it fails closed.
 */
export function normaliseOptions(raw: AnalyzeOptions, prefix: string, account: AccountDefaults, template: Template | null = null): NormalisedOptions {
  let expect: string[] | null = null;
  if (raw.expect !== undefined) {
    const list = Array.isArray(raw.expect) ? raw.expect : [raw.expect];
    expect = [];
    list.forEach((value, i) => {
      const entry = resolveExpect(value);
      if (!entry) {
        const param = Array.isArray(raw.expect) ? `${prefix}expect.${i}` : `${prefix}expect`;
        throw new ApiError(422, 'invalid_parameter', `'${value}' no es un tipo de documento del catálogo (GET /v1/document-types).`, param);
      }
      if (!expect!.includes(entry.type)) expect!.push(entry.type);
    });
  }
  if (raw.template !== undefined && template?.id !== raw.template) {
    throw new ApiError(422, 'template_not_found', `No existe la plantilla '${raw.template}'.`, `${prefix}template`);
  }
  const tpl = raw.template !== undefined ? template : null;
  // The template's `expect` is stored resolved (type ids).
  if (expect === null && tpl?.expect) expect = [...tpl.expect];
  const processing = raw.processing ?? tpl?.processing ?? account.processing;
  if (account.served && !account.served.includes(processing)) {
    const offered = account.served.join(', ');
    const fromTemplate = raw.processing === undefined && tpl?.processing != null;
    throw new ApiError(
      422,
      'processing_unavailable',
      raw.processing !== undefined
        ? `El perfil de procesamiento '${processing}' no está disponible en este servicio (disponible: ${offered}).`
        : fromTemplate
          ? `El perfil de procesamiento de la plantilla ('${processing}') no está disponible en este servicio: indica processing (disponible: ${offered}).`
          : `El perfil de procesamiento de la cuenta ('${processing}') no está disponible en este servicio: indica processing (disponible: ${offered}).`,
      fromTemplate ? `${prefix}template` : `${prefix}processing`,
    );
  }
  const metadata = { ...(tpl?.metadata ?? {}), ...((raw.metadata as Record<string, string> | undefined) ?? {}) };
  if (Object.keys(metadata).length > MAX_METADATA_KEYS) {
    throw new ApiError(
      422,
      'invalid_parameter',
      `Con la metadata de la plantilla serían ${Object.keys(metadata).length} claves (máximo ${MAX_METADATA_KEYS}).`,
      `${prefix}metadata`,
    );
  }
  return {
    expect,
    extract: (raw.extract as boolean | Record<string, unknown> | undefined) ?? (tpl?.extract as boolean | Record<string, unknown> | undefined) ?? true,
    checks: { ...(tpl?.checks ?? {}), ...(raw.checks ?? {}) },
    storage: raw.storage ?? tpl?.storage ?? 'none',
    storage_chosen: raw.storage !== undefined || (tpl?.storage !== undefined && tpl?.storage !== null),
    ttl_hours: raw.ttl_hours ?? tpl?.ttl_hours ?? 24,
    keep_results: raw.keep_results ?? true,
    async: raw.async ?? false,
    export: [...new Set(raw.export ?? [])],
    metadata,
    language: raw.language ?? tpl?.language ?? 'es',
    processing,
    precise_bboxes: raw.precise_bboxes ?? tpl?.precise_bboxes ?? false,
    template: tpl?.id ?? null,
    review: tpl
      ? {
          on_invalid: tpl.human_review.on_invalid,
          auto_approve_valid: tpl.human_review.auto_approve_valid,
          retention_hours_after_decision: tpl.review_retention_hours_after_decision,
          max_days: tpl.review_max_days,
        }
      : { ...DEFAULT_REVIEW_POLICY },
  };
}
