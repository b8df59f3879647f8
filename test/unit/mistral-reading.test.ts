/**
 * The pieces of live mode's Mistral reader that need no server: the strict schemas sent to the model, the check of
 * its answers, how SDK failures are classified, when the model is called at all, and how its reading is merged with
 * the local readers' (test/api/live-mistral.test.ts drives the whole through HTTP against a fake of the API).
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { merge, needsModel, sameValue } from '../../server/src/providers/live.ts';
import { classifyFailure } from '../../server/src/providers/mistral/client.ts';
import { modeFor } from '../../server/src/providers/mistral/index.ts';
import { checkAnswer, readingSchema, strictValue, typeChoices, type ModelAnswer } from '../../server/src/providers/mistral/schema.ts';
import type { ReadInput, Reading } from '../../server/src/providers/types.ts';

/** Every object closed and every property required: Mistral's strict mode. */
function assertStrict(s: any, where = '$'): void {
  if (!s || typeof s !== 'object') return;
  if (s.type === 'object' || s.properties) {
    expect(s.additionalProperties, `${where}.additionalProperties`).toBe(false);
    expect([...(s.required ?? [])].sort(), `${where}.required`).toEqual(Object.keys(s.properties ?? {}).sort());
  }
  for (const [k, v] of Object.entries(s)) {
    if (Array.isArray(v)) v.forEach((x, i) => assertStrict(x, `${where}.${k}[${i}]`));
    else if (v && typeof v === 'object') assertStrict(v, `${where}.${k}`);
  }
}

const input = (over: Partial<ReadInput> = {}): ReadInput => ({
  bytes: new Uint8Array(), filename: 'x.jpg', mime: 'image/jpeg', pages: 1, kind: 'analysis', expect: null, extract: true,
  language: 'en', holder: null, referenceDate: '2026-11-24', precise_bboxes: false, ...over,
});

describe('schemas sent to the model', () => {
  it('a caller schema becomes strict (closed, all required, nullable), keeping descriptions and dropping what strict mode refuses', () => {
    const s = strictValue({
      type: 'object',
      properties: { name: { type: 'string', description: 'who' }, lines: { type: 'array', items: { type: 'object', properties: { qty: { type: 'number', multipleOf: 1 } }, patternProperties: { x: {} } } } },
      $ref: '#/x',
    });
    assertStrict(s);
    expect(JSON.stringify(s)).toContain('"description":"who"');
    expect(JSON.stringify(s)).not.toMatch(/multipleOf|patternProperties|\$ref/);
    const ajv = new Ajv({ strict: false });
    expect(ajv.validate(s, null)).toBe(true);
    expect(ajv.validate(s, { name: null, lines: [{ qty: null }] })).toBe(true);
    expect(ajv.validate(s, { name: 'a' })).toBe(false); // lines is required
  });

  it('the reading schema: every catalogue type plus unknown, boxes in vlm, block ids in ocr+llm, strict throughout', () => {
    for (const mode of ['vlm', 'ocr+llm'] as const) {
      const s = readingSchema({ fields: { total_amount: { type: 'number' } }, mode }) as any;
      assertStrict(s);
      expect(s.properties.document.properties.type.enum).toEqual(typeChoices());
      expect(typeChoices()).toContain('es_dni');
      expect(typeChoices().at(-1)).toBe('unknown');
      const where = Object.keys(s.properties.fields.properties.total_amount.properties);
      expect(where).toEqual(mode === 'vlm' ? ['value', 'confidence', 'page', 'bbox'] : ['value', 'confidence', 'block']);
    }
  });

  it('answers: not the schema -> null (asked again); a value its own schema refuses -> null; a box turned inside out -> no box', () => {
    const schemas = { total: { type: 'number', minimum: 0, multipleOf: 0.01 }, date: { type: 'string', format: 'date' } };
    const base = {
      document: { type: 'invoice', confidence: 0.9, alternatives: [], side: null, country: null },
      quality: { blurry: false, glare: false, cropped: false, screen_photo: false, photocopy: false, edited: false, multiple_documents: false },
      visual: { signed: null, stamped: null },
      language: 'es',
    };
    expect(checkAnswer({ ...base, fields: {} }, 'vlm', schemas)).toBeNull();
    expect(checkAnswer({ ...base, document: { ...base.document, type: 'not_a_type' }, fields: {} }, 'vlm', schemas)).toBeNull();
    const a = checkAnswer(
      { ...base, fields: { total: { value: 12.345, confidence: 0.9, page: 1, bbox: [0.1, 0.1, 0.2, 0.2] }, date: { value: '2026-02-30', confidence: 0.9, page: 1, bbox: [0.5, 0.5, 0.4, 0.6] } } },
      'vlm',
      schemas,
    )!;
    expect(a.fields.total).toEqual({ value: null, confidence: 0, page: null, bbox: null, block: null });
    expect(a.fields.date.value).toBeNull(); // not a calendar date
    const b = checkAnswer({ ...base, fields: { total: { value: 12.5, confidence: 0.9, page: 1, bbox: [0.5, 0.5, 0.4, 0.6] }, date: { value: '2026-02-28', confidence: 0.8, page: 1, bbox: null } } }, 'vlm', schemas)!;
    expect(b.fields.total).toEqual({ value: 12.5, confidence: 0.9, page: 1, bbox: null, block: null });
    expect(b.fields.date.value).toBe('2026-02-28');
  });
});

describe('provider failures', () => {
  it('429, 5xx, 408, malformed 200s and lost connections are transient; other 4xx permanent', () => {
    expect(classifyFailure({ name: 'SDKError', statusCode: 429 }).kind).toBe('transient');
    expect(classifyFailure({ name: 'SDKError', statusCode: 503 }).kind).toBe('transient');
    expect(classifyFailure({ name: 'ResponseValidationError', statusCode: 200 }).kind).toBe('transient');
    expect(classifyFailure({ name: 'RequestTimeoutError' }).kind).toBe('transient');
    expect(classifyFailure({ name: 'ConnectionError' }).kind).toBe('transient');
    for (const status of [400, 401, 403, 404, 422]) expect(classifyFailure({ name: 'SDKError', statusCode: status }).kind).toBe('permanent');
    expect(classifyFailure({ name: 'SDKError', statusCode: 401, body: 'document text' }).message).not.toContain('document');
  });
});

describe('when the model is called, and which mode', () => {
  const reading = (fields: Reading['fields'], confidence = 0.97): Reading => ({
    document: { type: 'passport', confidence, side: null, country: null }, candidates: [], fields, warnings: [], visual: { signed: null, stamped: null },
    mode: 'ocr+llm', providers: [], latencyMs: 1, failure: null,
  });
  it('settled locally: an embedded invoice XML, or a confident type with every field read from text; otherwise called', () => {
    expect(needsModel(null, input())).toBe(true);
    expect(needsModel(reading({}, 0.5), input())).toBe(true);
    expect(needsModel(reading({}, 0.95), input({ kind: 'classification' }))).toBe(false);
    expect(needsModel(reading({ total_amount: { value: 1, confidence: 1, source: null, origin: 'xml' }, customer_address: { value: null, confidence: 0, source: null } }), input())).toBe(false);
    expect(needsModel(reading({ total_amount: { value: 1, confidence: 1, source: null, origin: 'text' } }), input())).toBe(false);
    expect(needsModel(reading({ total_amount: { value: 1, confidence: 1, source: null, origin: 'text' }, date: { value: null, confidence: 0, source: null } }), input())).toBe(true);
    // The zone says nothing of the printed face: the model reads it for the cross-check.
    expect(needsModel(reading({ document_number: { value: 'X', confidence: 1, source: null, origin: 'mrz' } }), input())).toBe(true);
  });
  it('vlm unless precise_bboxes or a PDF over 10 pages', () => {
    expect(modeFor({ precise_bboxes: false, mime: 'image/jpeg', pages: 1 })).toBe('vlm');
    expect(modeFor({ precise_bboxes: true, mime: 'image/jpeg', pages: 1 })).toBe('ocr+llm');
    expect(modeFor({ precise_bboxes: false, mime: 'application/pdf', pages: 10 })).toBe('vlm');
    expect(modeFor({ precise_bboxes: false, mime: 'application/pdf', pages: 11 })).toBe('ocr+llm');
  });
});

describe('merging the model with the local readers', () => {
  const answer = (over: Partial<ModelAnswer> & { fields?: ModelAnswer['fields'] }): ModelAnswer => ({
    document: { type: 'passport', confidence: 0.99, alternatives: [{ type: 'visa', confidence: 0.99 }], side: null, country: 'UTO' },
    fields: {},
    quality: { blurry: false, glare: false, cropped: false, screen_photo: false, photocopy: false, edited: true, multiple_documents: false },
    visual: { signed: true, stamped: null },
    language: null,
    ...over,
  });
  const f = (value: unknown, confidence = 0.99) => ({ value, confidence, page: 1, bbox: [0.1, 0.1, 0.2, 0.2] as [number, number, number, number], block: null });

  it('the zone wins and keeps the face beside it; agreeing text keeps its exact box; disagreement is at most 0.5; model-only values are capped', () => {
    const local: Reading = {
      document: { type: 'passport', confidence: 0.95, side: null, country: null }, candidates: [{ type: 'passport', confidence: 0.95 }],
      fields: {
        last_name: { value: 'ERIKSSON', confidence: 0.99, source: { page: 1, bbox: [0, 0.8, 0.5, 0.9] }, origin: 'mrz' },
        document_number: { value: 'L898902C3', confidence: 0.99, source: null, origin: 'mrz' },
        first_name: { value: 'ANNA', confidence: 0.6, source: { page: 1, bbox: [0, 0, 0.1, 0.1] }, origin: 'ocr' },
      },
      warnings: ['blurry'], visual: { signed: null, stamped: null }, mode: 'ocr+llm', providers: [{ name: 'local-mrz', region: 'local', role: 'local' }], latencyMs: 5, failure: null,
    };
    const m = merge(local, {
      mode: 'vlm', fieldsOf: 'passport', providers: [{ name: 'mistral', region: 'eu', role: 'llm', model: 'm' }],
      answer: answer({ fields: { last_name: f('Eriksson'), document_number: f('L898902C8'), first_name: f('Anna'), birth_place: f('Zenith'), nationality: f(null) } }),
    }, input({ expect: ['passport'] }), 10);
    expect(m.document).toEqual({ type: 'passport', confidence: 0.95, side: null, country: 'UTO' });
    expect(m.candidates[0]).toEqual({ type: 'passport', confidence: 0.95 });
    expect(m.candidates).toContainEqual({ type: 'visa', confidence: 0.9 });
    expect(m.fields.last_name).toMatchObject({ value: 'ERIKSSON', confidence: 0.99, origin: 'mrz', visual: { value: 'Eriksson' } });
    expect(m.fields.document_number).toMatchObject({ value: 'L898902C3', confidence: 0.5, visual: { value: 'L898902C8' } });
    expect(m.fields.first_name).toMatchObject({ value: 'ANNA', confidence: 0.9, source: { page: 1, bbox: [0, 0, 0.1, 0.1] } });
    expect(m.fields.birth_place).toMatchObject({ value: 'Zenith', confidence: 0.9, origin: 'model', source: { page: 1, bbox: [0.1, 0.1, 0.2, 0.2] } });
    expect(m.fields.nationality).toEqual({ value: null, confidence: 0, source: null });
    expect(m.warnings).toEqual(['blurry', 'edited_suspected']);
    expect(m.visual).toEqual({ signed: true, stamped: null });
    expect(m.providers.map((p) => p.name)).toEqual(['local-mrz', 'mistral']);
    expect(m.mode).toBe('vlm');
  });

  it('without hard evidence the more confident reader decides the type; edited_suspected is not taken from a picture of a PDF', () => {
    const local: Reading = {
      document: { type: 'es_payslip', confidence: 0.55, side: null, country: 'ESP' }, candidates: [{ type: 'es_payslip', confidence: 0.55 }], fields: {},
      warnings: [], visual: { signed: null, stamped: null }, mode: 'ocr+llm', providers: [], latencyMs: 5, failure: null,
    };
    const m = merge(local, { mode: 'vlm', fieldsOf: null, providers: [], answer: answer({ document: { type: 'invoice', confidence: 0.8, alternatives: [], side: null, country: null } }) }, input({ mime: 'application/pdf' }), 1);
    expect(m.document?.type).toBe('invoice');
    expect(m.candidates.map((c) => c.type)).toEqual(['invoice', 'es_payslip']);
    expect(m.warnings).not.toContain('edited_suspected');
  });

  it('an embedded e-invoice\'s amounts stay with the merged reading (the model has no structure to replace them)', () => {
    const amounts = { syntax: 'CII' as const, complete: true, subtotal: 100, vat_total: 21, total: 121 };
    const local: Reading = {
      document: { type: 'invoice', confidence: 0.97, side: null, country: null }, candidates: [{ type: 'invoice', confidence: 0.97 }],
      fields: { total_amount: { value: 121, confidence: 0.99, source: null, origin: 'xml' } },
      warnings: [], visual: { signed: null, stamped: null }, mode: 'ocr+llm', providers: [], latencyMs: 5, failure: null, invoice: amounts,
    };
    const m = merge(local, { mode: 'vlm', fieldsOf: null, providers: [], answer: answer({ document: { type: 'invoice', confidence: 0.8, alternatives: [], side: null, country: null } }) }, input({ mime: 'application/pdf', extract: { type: 'object', properties: { total_amount: { type: 'number' } } } }), 1);
    expect(m.invoice).toBe(amounts);
    expect(m.fields.total_amount.value).toBe(121);
  });

  it('sameValue: case, accents, spacing and punctuation aside; numbers to the cent', () => {
    expect(sameValue('García López', 'GARCIA LOPEZ')).toBe(true);
    expect(sameValue('12.345.678-Z', '12345678Z')).toBe(true);
    expect(sameValue(121, '121.00')).toBe(true);
    expect(sameValue(121, 121.02)).toBe(false);
    expect(sameValue('ANNA', 'ANNE')).toBe(false);
  });
});
