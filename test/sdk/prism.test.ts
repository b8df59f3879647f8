// @cotejo/sdk against the Prism mock of generated/openapi.json: every request the SDK builds must pass Prism's
// validation of the contract (a request Prism rejects answers 4xx and fails here), and every typed error is mapped
// from the contract's own error examples (`Prefer: code=...`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../support/files.ts';
import {
  AuthenticationError,
  ConflictError,
  Cotejo,
  NotFoundError,
  NotImplementedError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../sdk/src/index.ts';
import { startPrism, type RunningPrism } from '../support/prism.ts';

let prism: RunningPrism | undefined;
let cotejo: Cotejo;

beforeAll(async () => {
  prism = await startPrism();
  cotejo = new Cotejo({ apiKey: 'ck_test_prism', baseURL: prism.baseUrl, maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await prism?.stop();
});

const ID = 'an_01JPB4X9R2C8H5M7P3Q6S9T1VZ';

describe('requests the contract accepts', () => {
  it('analyses.create from a path, Buffer, Blob, stream, { url } and { base64 }', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-sdk-prism-'));
    const file = path.join(dir, 'dni_valid.jpg');
    fs.writeFileSync(file, fixtures.jpeg());
    try {
      const inputs = [
        { file },
        { file: fixtures.jpeg(), filename: 'dni_valid.jpg' },
        { file: new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>]), filename: 'dni_valid.jpg' },
        { file: Readable.from([fixtures.jpeg()]), filename: 'dni_valid.jpg' },
        { file: { url: 'https://files.example.com/dni_valid.jpg' } },
        { file: { base64: fixtures.jpeg().toString('base64') }, filename: 'dni_valid.jpg' },
      ];
      for (const input of inputs) {
        const a = await cotejo.analyses.create({ ...input, expect: 'es_dni', checks: { min_age_years: 18 }, metadata: { user: 'u_1' } });
        expect(a.object).toBe('analysis');
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('analyses: retrieve, list (awaited and iterated), del, export, createAndPoll', async () => {
    expect((await cotejo.analyses.retrieve(ID)).object).toBe('analysis');
    const page = await cotejo.analyses.list({ limit: 2, status: 'completed', metadata: { user: 'u_1' } });
    expect(page.object).toBe('list');
    for await (const a of cotejo.analyses.list({ limit: 2 })) {
      expect(a.object).toBe('analysis');
      break; // the mock's example page is static
    }
    expect(await cotejo.analyses.del(ID)).toMatchObject({ deleted: true });
    expect((await cotejo.analyses.export(ID, { format: 'json' })).status).toBe(200);
    // analyses.file is left to the real-server suite: Prism answers 500 for a binary body without an example.
    const done = await cotejo.analyses.createAndPoll({ file: fixtures.jpeg(), filename: 'dni_valid.jpg', async: true }, { pollIntervalMs: 10, maxWaitMs: 5_000 });
    expect(['completed', 'failed']).toContain(done.status);
  });

  it('classifications, batches (JSON items)', async () => {
    const c = await cotejo.classifications.create({ file: fixtures.jpeg(), filename: 'passport.jpg' });
    expect(c.object).toBe('classification');
    expect((await cotejo.classifications.retrieve(c.id)).object).toBe('classification');
    // Batches as JSON `items` here; multipart `files[]` below (a known Prism limitation) and in test/sdk/resources.test.ts.
    const j = await cotejo.batches.create({ items: [{ file_url: 'https://files.example.com/a.jpg' }], options: { expect: 'es_dni' } });
    expect(j.object).toBe('batch');
    expect((await cotejo.batches.retrieve(j.id)).object).toBe('batch');
  });

  it('webhook endpoints, verification links, reviews, balance, usage, templates, dossiers', async () => {
    const we = await cotejo.webhookEndpoints.create({ url: 'https://hooks.example.com/x', events: ['analysis.completed'] });
    expect(we.secret).toBeTypeOf('string');
    expect((await cotejo.webhookEndpoints.list()).object).toBe('list');
    expect((await cotejo.webhookEndpoints.retrieve(we.id)).object).toBe('webhook_endpoint');
    expect(await cotejo.webhookEndpoints.del(we.id)).toMatchObject({ deleted: true });

    // expires_in_hours, redirect_with_status and include_results have defaults: optional (test/sdk/types.test.ts).
    const link = await cotejo.verificationLinks.create({ documents: [{ key: 'dni', expect: 'es_dni' }], reference: 'EXP-1' });
    expect(link.object).toBe('verification_link');
    expect((await cotejo.verificationLinks.list({ limit: 5 })).object).toBe('list');
    expect((await cotejo.verificationLinks.retrieve(link.id)).object).toBe('verification_link');
    expect((await cotejo.verificationLinks.cancel(link.id)).object).toBe('verification_link');

    expect((await cotejo.reviews.list({ status: 'pending' })).object).toBe('list');
    expect((await cotejo.analyses.review(ID, { decision: 'approve', reason: null, note: null })).object).toBe('analysis');
    expect((await cotejo.balance.retrieve()).object).toBe('balance');
    expect((await cotejo.usage.retrieve()).object).toBe('usage');

    const tpl = await cotejo.templates.create({ name: 'Alta', expect: 'es_dni' });
    expect(tpl.object).toBe('template');
    expect((await cotejo.templates.list()).object).toBe('list');
    expect((await cotejo.templates.retrieve(tpl.id)).object).toBe('template');
    expect((await cotejo.templates.update(tpl.id, { name: 'Alta 2' })).object).toBe('template');
    expect(await cotejo.templates.del(tpl.id)).toMatchObject({ deleted: true });

    const dos = await cotejo.dossiers.create({});
    expect(dos.object).toBe('dossier');
    expect((await cotejo.dossiers.list()).object).toBe('list');
    expect((await cotejo.dossiers.retrieve(dos.id)).object).toBe('dossier');
    expect(await cotejo.dossiers.addDocument(dos.id, { analysis_id: ID })).toBeTypeOf('object');
    expect(await cotejo.dossiers.addDocument(dos.id, { file: fixtures.jpeg(), filename: 'dni_valid.jpg', key: 'dni' })).toBeTypeOf('object');
    expect(await cotejo.dossiers.del(dos.id)).toMatchObject({ deleted: true });
  });
});

describe('multipart batches against the mock', () => {
  // The contract's multipart batch is one `files[]` part per document (an array of binary parts). Prism 5 parses
  // multipart bodies into an object where a repeated name overwrites the previous part, so `files[]` is never an
  // array and every multipart batch gets 422 "Request body property files[] must be array", however it is sent
  // (one part or many). Mapping repeated keys to arrays is stoplightio/prism PR #2654, open and unreleased; no
  // Prism option changes it, and declaring `files[]` as one binary would make the contract lie about the server.
  // This test pins the limitation so that it is noticed when Prism fixes it; the real-server suite
  // (test/sdk/resources.test.ts, 'create (multipart files[]) and poll until completed') covers the SDK's request.
  it('Prism refuses repeated files[] parts (stoplightio/prism#2654), JSON items pass', async () => {
    const err = await cotejo.batches
      .create({ files: [{ file: fixtures.jpeg(), filename: 'dni_valid.jpg' }, { file: fixtures.jpeg(), filename: 'dni_expired.jpg' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    const items = await cotejo.batches.create({ items: [{ file_base64: fixtures.jpeg().toString('base64'), filename: 'dni_valid.jpg' }] });
    expect(items.object).toBe('batch');
  });
});

describe('the public catalogue', () => {
  // Its security is "none, or Bearer" ([{}, {BearerAuth: []}]): with `[{}]` alone Prism refused any request that
  // carried an Authorization header (401 "Invalid security scheme used"), though the server ignores a key there.
  it('answers without a key (the SDK sends none) and with one', async () => {
    const withKey = { headers: { Authorization: 'Bearer ck_test_prism' } };
    for (const options of [undefined, withKey]) {
      expect((await cotejo.documentTypes.list({ country: 'ESP', limit: 2 }, options)).object).toBe('list');
      expect((await cotejo.documentTypes.retrieve('es_dni', { language: 'en' }, options)).object).toBe('document_type');
    }
  });
});

describe('typed errors from the contract examples', () => {
  const cases: Array<[number, abstract new (...a: never[]) => Error]> = [
    [401, AuthenticationError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [501, NotImplementedError],
  ];
  it.each(cases)('%i', async (status, Cls) => {
    const err = await cotejo.analyses.export(ID, {}, { headers: { Prefer: `code=${status}` } }).catch((e) => e);
    expect(err).toBeInstanceOf(Cls);
    expect(err.status).toBe(status);
    expect(err.code).toBeTypeOf('string');
  });
});
