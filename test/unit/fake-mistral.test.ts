/**
 * The loopback Mistral fake (test/support/fake-mistral.ts) driven by the REAL `@mistralai/mistralai` SDK: every answer
 * the fake builds must pass the SDK's own zod schemas (else ResponseValidationError), and every fault must come out of
 * the SDK as the error class production code will map. This file is what makes the fake trustworthy as a contract.
 */
import { MistralCore } from '@mistralai/mistralai/core.js';
import { chatComplete } from '@mistralai/mistralai/funcs/chatComplete.js';
import { ocrProcess } from '@mistralai/mistralai/funcs/ocrProcess.js';
import { HTTPValidationError, MistralError, RequestTimeoutError, ResponseValidationError } from '@mistralai/mistralai/models/errors';
import { isUnknown } from '@mistralai/mistralai/types/discriminatedUnion.js';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeMistral, sampleFor, startFakeMistral } from '../support/fake-mistral.ts';

/** A strict-mode schema as production code will send it: closed objects, every property required, nulls via unions. */
const passportSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['document_type', 'surname', 'date_of_birth', 'expiry', 'confidence', 'signed', 'remarks', 'holder'],
  properties: {
    document_type: { type: 'string', enum: ['passport', 'id_card'] },
    surname: { type: 'string' },
    date_of_birth: { type: 'string', format: 'date' },
    expiry: { type: ['string', 'null'], format: 'date' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    signed: { type: 'boolean' },
    remarks: { type: 'array', items: { type: 'string' } },
    holder: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['nationality'],
      properties: { nationality: { type: 'string' } },
    },
  },
};

const retries = {
  strategy: 'backoff' as const,
  backoff: { initialInterval: 100, maxInterval: 1000, exponent: 1.5, maxElapsedTime: 5000 },
  retryConnectionErrors: true,
};

function validator(schema: object) {
  const ajv = new Ajv({ strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv.compile(schema);
}

async function makePdf(pages: number): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  for (let i = 0; i < pages; i += 1) doc.addPage({ size: 'A4' }).text(`Page ${i + 1}`);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

let fake: FakeMistral;
let client: MistralCore;
let png: Buffer;
let pngUri: string;

beforeAll(async () => {
  fake = await startFakeMistral({ apiKey: 'unit-test-key' });
  client = new MistralCore({ apiKey: fake.apiKey, serverURL: fake.url });
  png = await sharp({ create: { width: 64, height: 40, channels: 3, background: '#ffffff' } }).png().toBuffer();
  pngUri = `data:image/png;base64,${png.toString('base64')}`;
});

afterAll(async () => {
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.problems.length = 0;
  fake.faults.length = 0;
  fake.onOcr = undefined;
  fake.onChat = undefined;
});

describe('fake Mistral with the real SDK: well-formed answers', () => {
  it('OCR of a PNG with blocks and a document annotation parses, camelCased', async () => {
    const res = await ocrProcess(client, {
      model: 'mistral-ocr-latest',
      document: { type: 'image_url', imageUrl: pngUri },
      includeBlocks: true,
      confidenceScoresGranularity: 'page',
      documentAnnotationFormat: { type: 'json_schema', jsonSchema: { name: 'passport', schemaDefinition: passportSchema, strict: true } },
    });
    if (!res.ok) throw res.error;
    const ocr = res.value;
    expect(ocr.model).toBe('mistral-ocr-latest');
    expect(ocr.usageInfo).toEqual({ pagesProcessed: 1, docSizeBytes: png.length });
    expect(ocr.pages).toHaveLength(1);
    const page = ocr.pages[0];
    expect(page.dimensions).toEqual({ dpi: 200, height: 1100, width: 1700 });
    expect(page.markdown).not.toBe('');
    // A block that fails its zod schema does NOT fail the call: the SDK turns it into {type: 'UNKNOWN', isUnknown: true,
    // raw} (types/discriminatedUnion.ts), so the fake's blocks are checked here explicitly.
    expect(page.blocks?.length).toBeGreaterThan(0);
    expect(page.blocks?.filter((b) => isUnknown(b))).toEqual([]);
    const text = page.blocks?.find((b) => b.type === 'text');
    expect(text).toMatchObject({ type: 'text', content: expect.any(String) });
    for (const k of ['topLeftX', 'topLeftY', 'bottomRightX', 'bottomRightY'] as const) {
      expect(Number.isInteger((text as Record<string, unknown>)[k])).toBe(true);
    }
    expect(page.confidenceScores).toMatchObject({ averagePageConfidenceScore: expect.any(Number), minimumPageConfidenceScore: expect.any(Number) });
    const annotation = JSON.parse(ocr.documentAnnotation ?? 'null');
    expect(validator(passportSchema)(annotation)).toBe(true);
    expect(annotation).toMatchObject({ document_type: 'passport', date_of_birth: '2031-04-15', holder: { nationality: expect.any(String) } });
    // The wire request as the SDK sent it (snake_case), and the headers every answer carries.
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/ocr', body: { include_blocks: true, document: { type: 'image_url' } } });
    expect(fake.problems).toEqual([]);
  });

  it('OCR of a 3-page PDF answers 3 pages; a pages list caps them; word confidences parse', async () => {
    const pdf = await makePdf(3);
    const document = { type: 'document_url' as const, documentUrl: `data:application/pdf;base64,${pdf.toString('base64')}` };
    const all = await ocrProcess(client, { model: 'mistral-ocr-latest', document });
    if (!all.ok) throw all.error;
    expect(all.value.pages.map((p) => p.index)).toEqual([0, 1, 2]);
    expect(all.value.usageInfo.pagesProcessed).toBe(3);
    expect(all.value.documentAnnotation).toBeNull();
    expect(all.value.pages.flatMap((p) => p.blocks ?? []).filter((b) => isUnknown(b))).toEqual([]);

    const some = await ocrProcess(client, { model: 'mistral-ocr-latest', document, pages: [0, 2], confidenceScoresGranularity: 'word' });
    if (!some.ok) throw some.error;
    expect(some.value.pages.map((p) => p.index)).toEqual([0, 2]);
    const words = some.value.pages[0].confidenceScores?.wordConfidenceScores ?? [];
    expect(words.length).toBeGreaterThan(0);
    expect(words[0]).toMatchObject({ text: expect.any(String), confidence: expect.any(Number), startIndex: 0 });
    expect(fake.problems).toEqual([]);
  });

  it('chat with an image and a strict json_schema returns JSON that validates', async () => {
    const res = await chatComplete(client, {
      model: 'mistral-small-latest',
      messages: [
        { role: 'system', content: 'Extract the fields.' },
        { role: 'user', content: [{ type: 'text', text: 'What document is this?' }, { type: 'image_url', imageUrl: pngUri }] },
      ],
      responseFormat: { type: 'json_schema', jsonSchema: { name: 'passport', schemaDefinition: passportSchema, strict: true } },
    });
    if (!res.ok) throw res.error;
    const choice = res.value.choices[0];
    expect(choice.finishReason).toBe('stop');
    expect(typeof choice.message?.content).toBe('string');
    const parsed = JSON.parse(choice.message?.content as string);
    expect(validator(passportSchema)(parsed)).toBe(true);
    expect(res.value.usage.totalTokens).toBe((res.value.usage.promptTokens ?? 0) + (res.value.usage.completionTokens ?? 0));
    // The SDK sends `schemaDefinition` as `schema` on the wire.
    expect(fake.requests[0].body.response_format.json_schema.schema).toEqual(passportSchema);
    expect(fake.problems).toEqual([]);
  });

  it('onOcr / onChat builders replace the default answers', async () => {
    fake.onChat = () => ({ document_type: 'id_card' });
    fake.onOcr = (body) => ({
      pages: [{ index: 0, markdown: 'custom', images: [], dimensions: null }],
      model: body.model,
      usage_info: { pages_processed: 1 },
    });
    const chat = await chatComplete(client, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] });
    if (!chat.ok) throw chat.error;
    expect(JSON.parse(chat.value.choices[0].message?.content as string)).toEqual({ document_type: 'id_card' });
    const ocr = await ocrProcess(client, { model: 'mistral-ocr-4-0', document: { type: 'image_url', imageUrl: pngUri } });
    if (!ocr.ok) throw ocr.error;
    expect(ocr.value.pages[0].markdown).toBe('custom');
    expect(fake.problems).toEqual([]);
  });

  it('SDK behaviour production code must handle: a block off its schema becomes UNKNOWN instead of failing the call', async () => {
    fake.onOcr = (body) => ({
      pages: [{
        index: 0, markdown: 'x', images: [], dimensions: { dpi: 200, height: 1100, width: 1700 },
        blocks: [{ type: 'signature', content: '', top_left_x: 10.5, top_left_y: 0, bottom_right_x: 20, bottom_right_y: 20 }],
      }],
      model: body.model,
      usage_info: { pages_processed: 1 },
    });
    const res = await ocrProcess(client, { model: 'mistral-ocr-latest', document: { type: 'image_url', imageUrl: pngUri } });
    if (!res.ok) throw res.error;
    const block = res.value.pages[0].blocks?.[0];
    expect(isUnknown(block)).toBe(true);
    expect(block).toMatchObject({ type: 'UNKNOWN', raw: { type: 'signature', top_left_x: 10.5 } });
  });

  it('unknown paths answer a 404 envelope; every answer carries the rate-limit headers', async () => {
    const r = await fetch(`${fake.url}/v1/nowhere`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKey}` }, body: '{}' });
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ object: 'error', type: 'invalid_request_error' });
    expect(r.headers.get('x-ratelimit-limit-req-minute')).toMatch(/^\d+$/);
    expect(r.headers.get('x-ratelimit-remaining-req-minute')).toMatch(/^\d+$/);
  });
});

describe('fake Mistral with the real SDK: faults', () => {
  it('429 with Retry-After 1, then success when retries are on: 2 requests', async () => {
    fake.faults.push({ status: 429, retryAfter: 1 });
    const res = await ocrProcess(client, { model: 'mistral-ocr-latest', document: { type: 'image_url', imageUrl: pngUri } }, { retries });
    expect(res.ok).toBe(true);
    expect(fake.requests).toHaveLength(2);
    expect(fake.problems).toEqual([]);
  });

  it('429 without retries surfaces status, body and headers', async () => {
    fake.faults.push({ status: 429, retryAfter: 7 });
    const res = await chatComplete(client, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.ok).toBe(false);
    const err = res.ok ? undefined : res.error;
    expect(err).toBeInstanceOf(MistralError);
    const e = err as MistralError;
    expect(e.statusCode).toBe(429);
    expect(e.headers.get('retry-after')).toBe('7');
    expect(e.headers.get('x-ratelimit-remaining-req-minute')).toMatch(/^\d+$/);
    expect(JSON.parse(e.body)).toMatchObject({ type: 'rate_limited', code: '1300' });
  });

  it('503 until the retry budget is spent: an error with statusCode 503', async () => {
    for (let i = 0; i < 50; i += 1) fake.faults.push({ status: 503 });
    const short = { ...retries, backoff: { ...retries.backoff, initialInterval: 50, maxElapsedTime: 600 } };
    const res = await ocrProcess(client, { model: 'mistral-ocr-latest', document: { type: 'image_url', imageUrl: pngUri } }, { retries: short });
    expect(res.ok).toBe(false);
    expect((res.ok ? undefined : res.error) as MistralError).toMatchObject({ statusCode: 503 });
    expect(fake.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('a late answer past timeoutMs is a RequestTimeoutError', async () => {
    fake.faults.push({ delayMs: 1500 });
    const res = await chatComplete(client, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] }, { timeoutMs: 300 });
    expect(res.ok).toBe(false);
    expect(res.ok ? undefined : res.error).toBeInstanceOf(RequestTimeoutError);
  });

  it('422 is an HTTPValidationError with detail', async () => {
    fake.faults.push({ status: 422 });
    const res = await ocrProcess(client, { model: 'mistral-ocr-latest', document: { type: 'image_url', imageUrl: pngUri } });
    const err = res.ok ? undefined : res.error;
    expect(err).toBeInstanceOf(HTTPValidationError);
    expect((err as HTTPValidationError).detail?.[0]).toMatchObject({ loc: ['body', 'model'], type: 'missing' });
  });

  it('a malformed 200 is a ResponseValidationError, for OCR and for chat', async () => {
    fake.faults.push({ malformed: true }, { malformed: true });
    const ocr = await ocrProcess(client, { model: 'mistral-ocr-latest', document: { type: 'image_url', imageUrl: pngUri } });
    expect(ocr.ok ? undefined : ocr.error).toBeInstanceOf(ResponseValidationError);
    const chat = await chatComplete(client, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.ok ? undefined : chat.error).toBeInstanceOf(ResponseValidationError);
  });

  it('invalidJson: the SDK answers ok but the content is not JSON', async () => {
    fake.faults.push({ invalidJson: true });
    const res = await chatComplete(client, {
      model: 'mistral-small-latest',
      messages: [{ role: 'user', content: 'hi' }],
      responseFormat: { type: 'json_schema', jsonSchema: { name: 'passport', schemaDefinition: passportSchema, strict: true } },
    });
    if (!res.ok) throw res.error;
    const content = res.value.choices[0].message?.content as string;
    expect(() => JSON.parse(content)).toThrow();
    expect(fake.problems).toEqual([]);
  });

  it('a wrong API key is a 401 and a recorded problem', async () => {
    const wrong = new MistralCore({ apiKey: 'not-the-key', serverURL: fake.url });
    const res = await chatComplete(wrong, { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hi' }] });
    expect((res.ok ? undefined : res.error) as MistralError).toMatchObject({ statusCode: 401 });
    expect(fake.problems).toHaveLength(1);
    expect(fake.problems[0]).toMatch(/bearer/i);
  });
});

describe('fake Mistral request checks', () => {
  it('records a strict schema whose object lacks additionalProperties: false (and still answers)', async () => {
    const loose = { type: 'object', required: ['a'], properties: { a: { type: 'string' } } };
    const res = await chatComplete(client, {
      model: 'mistral-small-latest',
      messages: [{ role: 'user', content: 'hi' }],
      responseFormat: { type: 'json_schema', jsonSchema: { name: 'loose', schemaDefinition: loose, strict: true } },
    });
    expect(res.ok).toBe(true);
    expect(fake.problems).toEqual([expect.stringMatching(/object at # lacks additionalProperties: false/)]);
  });

  it('records a HEIC data URI sent to OCR', async () => {
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(12)]);
    const res = await ocrProcess(client, { model: 'mistral-ocr-latest', document: { type: 'image_url', imageUrl: `data:image/heic;base64,${heic.toString('base64')}` } });
    expect(res.ok).toBe(true);
    expect(fake.problems).toEqual([expect.stringMatching(/image\/heic is not accepted/)]);
  });

  it('records a chat image whose bytes do not match the declared format, and an empty model', async () => {
    const res = await chatComplete(client, {
      model: '',
      messages: [{ role: 'user', content: [{ type: 'image_url', imageUrl: { url: `data:image/jpeg;base64,${png.toString('base64')}` } }] }],
    });
    expect(res.ok).toBe(true);
    expect(fake.problems).toEqual([expect.stringMatching(/model must be a non-empty string/), expect.stringMatching(/image\/jpeg magic number/)]);
  });

  it('records a PDF data URI whose bytes are not a PDF', async () => {
    const res = await ocrProcess(client, {
      model: 'mistral-ocr-latest',
      document: { type: 'document_url', documentUrl: `data:application/pdf;base64,${png.toString('base64')}` },
    });
    expect(res.ok).toBe(true);
    expect(fake.problems).toEqual([expect.stringMatching(/%PDF-/)]);
  });
});

describe('sampleFor', () => {
  it('builds a value that validates against the schema', () => {
    const schema = {
      type: 'object',
      properties: {
        kind: { enum: ['a', 'b'] },
        when: { type: 'string', format: 'date' },
        score: { type: 'number' },
        count: { type: 'integer', minimum: 3 },
        ok: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        maybe: { type: ['string', 'null'] },
        either: { anyOf: [{ type: 'null' }, { type: 'object', properties: { x: { $ref: '#/$defs/x' } } }] },
      },
      $defs: { x: { type: 'string', minLength: 10 } },
    };
    const v = sampleFor(schema);
    expect(v).toEqual({ kind: 'a', when: '2031-04-15', score: 0.97, count: 3, ok: true, tags: ['sample'], maybe: 'sample', either: { x: 'samplexxxx' } });
    expect(validator(schema)(v)).toBe(true);
  });
});
