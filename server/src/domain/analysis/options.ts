import type { components } from '../../../../generated/api.d.ts';
import { resolveExpect, type Language } from '../../catalogue/index.ts';
import type { MultipartField } from '../../http/body.ts';
import { firstUncleanPath } from '../../http/clean-strings.ts';
import { ApiError } from '../../http/errors.ts';
import { assertJsonDepth } from '../../http/json-depth.ts';
import { validationError } from '../../http/validation.ts';
import { loadSpec, makeSchemaValidator } from '../../openapi.ts';

export type AnalyzeOptions = components['schemas']['AnalyzeOptions'];
export type Checks = components['schemas']['Checks'];
export type ExportFormat = components['schemas']['ExportFormat'];

/** Options with every default applied and `expect` resolved to catalogue type ids. */
export interface NormalisedOptions {
  expect: string[] | null;
  extract: boolean | Record<string, unknown>;
  checks: Checks;
  storage: 'none' | 'temporary' | 'persistent';
  ttl_hours: number;
  keep_results: boolean;
  async: boolean;
  export: ExportFormat[];
  metadata: Record<string, string>;
  language: Language;
  processing: 'sovereign' | 'standard';
  precise_bboxes: boolean;
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
export function optionsFromMultipart(fields: MultipartField[]): { raw: Record<string, unknown>; prefix: string } {
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

/**
 * Applies defaults, resolves `expect` (type ids or slugs in any language) and refuses what the schema
 * cannot: unknown types, and templates (none exist yet).
 */
export function normaliseOptions(raw: AnalyzeOptions, prefix: string): NormalisedOptions {
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
  if (raw.template !== undefined) {
    throw new ApiError(422, 'template_not_found', `No existe la plantilla '${raw.template}'.`, `${prefix}template`);
  }
  return {
    expect,
    extract: (raw.extract as boolean | Record<string, unknown> | undefined) ?? true,
    checks: raw.checks ?? {},
    storage: raw.storage ?? 'none',
    ttl_hours: raw.ttl_hours ?? 24,
    keep_results: raw.keep_results ?? true,
    async: raw.async ?? false,
    export: [...new Set(raw.export ?? [])],
    metadata: (raw.metadata as Record<string, string> | undefined) ?? {},
    language: raw.language ?? 'es',
    processing: raw.processing ?? 'sovereign',
    precise_bboxes: raw.precise_bboxes ?? false,
  };
}
