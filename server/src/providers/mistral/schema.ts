/**
 * The JSON Schemas Mistral is asked to answer with (structured output, `strict: true`), and the check of its answers.
 *
 * Strict mode wants every object closed (`additionalProperties: false`) with every property required; a value the
 * model cannot read is therefore `null`, never left out, and never invented (the prompt says so too). Field value
 * schemas come from the catalogue (the type's JSON Schema) or from the caller's `extract` schema; their
 * `description`s stay, they are what guides the model. Every answer is validated here before it becomes a reading:
 * the envelope against the schema that was sent, each field value against its own property schema (a value that does
 * not match is dropped, not repaired).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { allEntries } from '../../catalogue/index.ts';

type Schema = Record<string, unknown>;

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const compiled = new Map<string, ValidateFunction>();

/** Whether `value` satisfies `schema` (compiled once per distinct schema). A schema ajv cannot compile accepts nothing. */
export function matches(schema: unknown, value: unknown): boolean {
  const key = JSON.stringify(schema);
  let fn = compiled.get(key);
  if (!fn) {
    try {
      fn = ajv.compile(schema as Schema);
    } catch {
      fn = (() => false) as unknown as ValidateFunction;
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, fn);
  }
  return fn(value) as boolean;
}

/** Keywords kept from caller and catalogue schemas; the rest (`$ref`, `patternProperties`, `if`...) is not sent. */
const KEPT = ['type', 'description', 'enum', 'const', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems'] as const;

/**
 * A property schema in strict form, accepting null as well: objects closed with all properties required (each
 * nullable in turn), arrays of strict items. Only the keywords above are kept, so the model gets a schema that strict
 * mode accepts whatever the caller wrote; the caller's full schema still validates the answer (`matches`).
 */
export function strictValue(schema: unknown, nullable = true): Schema {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Schema;
  const out: Schema = {};
  for (const k of KEPT) if (s[k] !== undefined) out[k] = s[k];
  const props = s.properties && typeof s.properties === 'object' ? (s.properties as Record<string, unknown>) : null;
  if (props || s.type === 'object') {
    out.type = 'object';
    const entries = Object.entries(props ?? {});
    out.properties = Object.fromEntries(entries.map(([k, v]) => [k, strictValue(v)]));
    out.required = entries.map(([k]) => k);
    out.additionalProperties = false;
  }
  if (s.type === 'array' || s.items) {
    out.type = 'array';
    out.items = strictValue(s.items, false);
  }
  return nullable ? { anyOf: [out, { type: 'null' }] } : out;
}

export type ReadMode = 'vlm' | 'ocr+llm';

/** One field's answer: the value (or null), how sure, and where (a box on a page image, or an OCR block id). */
function fieldSchema(valueSchema: unknown, mode: ReadMode): Schema {
  const where: Record<string, Schema> =
    mode === 'vlm'
      ? {
          page: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], description: '1-based page (image) the value is printed on' },
          bbox: {
            anyOf: [{ type: 'array', items: { type: 'number', minimum: 0, maximum: 1 }, minItems: 4, maxItems: 4 }, { type: 'null' }],
            description: '[x0, y0, x1, y1] of the printed value as fractions of the image width and height, origin top-left',
          },
        }
      : { block: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'id of the OCR block the value was read from, such as "p1b3"' } };
  const properties: Record<string, Schema> = {
    value: strictValue(valueSchema),
    confidence: { type: 'number', minimum: 0, maximum: 1, description: 'how sure you are that value is exactly what the document says (0 when null)' },
    ...where,
  };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** Every catalogue type id, plus `unknown` for a document none of them describes. */
export function typeChoices(): string[] {
  return [...allEntries().map((e) => e.type), 'unknown'];
}

const bool = (description: string): Schema => ({ type: 'boolean', description });
const nullableBool = (description: string): Schema => ({ anyOf: [{ type: 'boolean' }, { type: 'null' }], description });

/**
 * The schema of one reading: the document's type among the catalogue's (with up to 3 alternatives), its side and
 * country, the wanted fields, quality and authenticity signals, what is visibly on the page, and its language.
 */
export function readingSchema(opts: { fields: Record<string, unknown>; mode: ReadMode }): Schema {
  const types = typeChoices();
  const fieldEntries = Object.entries(opts.fields);
  const candidate: Schema = {
    type: 'object',
    properties: { type: { type: 'string', enum: types }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
    required: ['type', 'confidence'],
    additionalProperties: false,
  };
  const properties: Record<string, Schema> = {
    document: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: types, description: 'the catalogue type of the document; unknown when none fits' },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
        alternatives: { type: 'array', items: candidate, maxItems: 3, description: 'other plausible types, most likely first' },
        side: { anyOf: [{ type: 'string', enum: ['front', 'back', 'both'] }, { type: 'null' }], description: 'for cards: the side(s) visible; null for other documents' },
        country: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'issuing country, ISO 3166-1 alpha-3 (three capital letters)' },
      },
      required: ['type', 'confidence', 'alternatives', 'side', 'country'],
      additionalProperties: false,
    },
    fields: {
      type: 'object',
      properties: Object.fromEntries(fieldEntries.map(([name, s]) => [name, fieldSchema(s, opts.mode)])),
      required: fieldEntries.map(([name]) => name),
      additionalProperties: false,
    },
    quality: {
      type: 'object',
      properties: {
        blurry: bool('text is blurred or out of focus'),
        glare: bool('a reflection hides part of the document'),
        cropped: bool('part of the document is outside the image'),
        screen_photo: bool('the image is a photo of a screen (moire, pixels, bezel)'),
        photocopy: bool('a photocopy or a grey print rather than the original'),
        edited: bool('signs of digital editing: pasted text, mismatched fonts or backgrounds'),
        multiple_documents: bool('more than one document is visible'),
      },
      required: ['blurry', 'glare', 'cropped', 'screen_photo', 'photocopy', 'edited', 'multiple_documents'],
      additionalProperties: false,
    },
    visual: {
      type: 'object',
      properties: { signed: nullableBool('a handwritten or drawn signature is present'), stamped: nullableBool('an official stamp or seal is present') },
      required: ['signed', 'stamped'],
      additionalProperties: false,
    },
    // No `pattern`s: their support in strict mode is not documented; merging ignores a country or language not in form.
    language: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'main language of the text, ISO 639-1 (two lower-case letters)' },
  };
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

export interface ModelField {
  value: unknown;
  confidence: number;
  page: number | null;
  bbox: [number, number, number, number] | null;
  block: string | null;
}

export interface ModelAnswer {
  document: { type: string; confidence: number; alternatives: Array<{ type: string; confidence: number }>; side: 'front' | 'back' | 'both' | null; country: string | null };
  fields: Record<string, ModelField>;
  quality: { blurry: boolean; glare: boolean; cropped: boolean; screen_photo: boolean; photocopy: boolean; edited: boolean; multiple_documents: boolean };
  visual: { signed: boolean | null; stamped: boolean | null };
  language: string | null;
}

/**
 * The model's answer checked against the shape that was sent, field values aside (null when it does not conform: the
 * call is tried again), then each field value against its own property schema: a value that does not match it
 * becomes null, and the rest of the reading stands (one misread date does not sink the others).
 */
export function checkAnswer(answer: unknown, mode: ReadMode, valueSchemas: Record<string, unknown>): ModelAnswer | null {
  const shape = readingSchema({ fields: Object.fromEntries(Object.keys(valueSchemas).map((k) => [k, {}])), mode });
  if (!matches(shape, answer)) return null;
  const a = answer as ModelAnswer;
  const fields: Record<string, ModelField> = {};
  for (const [name, f] of Object.entries(a.fields)) {
    const ok = f.value !== null && matches(valueSchemas[name] ?? {}, f.value);
    fields[name] = ok
      ? { value: f.value, confidence: f.confidence, page: f.page ?? null, bbox: validBox(f.bbox ?? null), block: f.block ?? null }
      : { value: null, confidence: 0, page: null, bbox: null, block: null };
  }
  return { ...a, fields };
}

function validBox(b: [number, number, number, number] | null): [number, number, number, number] | null {
  if (!b) return null;
  const [x0, y0, x1, y1] = b;
  return x1 > x0 && y1 > y0 ? b : null;
}
