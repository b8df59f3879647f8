// Issue #16's SDK resources (analyses.review, reviews, templates, dossiers) against the Prism mock of
// generated/openapi.json. Prism validates every request against the contract (a body the strict schemas refuse, a
// wrong path or a wrong content type answers 4xx and fails here), so these tests prove the SDK builds requests the
// API accepts; a recording `fetch` in front of Prism checks what the SDK chose to send (JSON or multipart, the
// Idempotency-Key of POSTs, query strings), and `expectTypeOf` that each result has the generated type.
// The same methods against the real server: test/sdk/resources-16-server.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { fixtures } from '../support/files.ts';
import { startPrism, type RunningPrism } from '../support/prism.ts';
import {
  ConflictError,
  Cotejo,
  NotFoundError,
  PermissionDeniedError,
  UnprocessableEntityError,
  type AddDossierDocumentParams,
  type Analysis,
  type AnalysisList,
  type DeletedDossier,
  type DeletedTemplate,
  type Dossier,
  type Page,
  type Schemas,
  type Template,
} from '../../sdk/src/index.ts';

interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  /** Parsed JSON, or the FormData of a multipart request. */
  body: unknown;
}

/** Records every attempt before handing it to Prism. */
class RecordingCotejo extends Cotejo {
  readonly sent: Sent[] = [];
  readonly sleeps: number[] = [];
  constructor(baseURL: string, maxRetries = 0) {
    super({
      apiKey: 'ck_test_prism',
      baseURL,
      maxRetries,
      fetch: async (input, init) => {
        const body = typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body;
        this.sent.push({ method: String(init?.method), url: new URL(String(input)), headers: new Headers(init?.headers), body });
        return fetch(input, init);
      },
    });
  }
  protected override sleep(ms: number): Promise<void> {
    this.sleeps.push(ms); // retries are not waited for
    return Promise.resolve();
  }
  last(): Sent {
    return this.sent.at(-1)!;
  }
}

let prism: RunningPrism | undefined;
let cotejo: RecordingCotejo;

beforeAll(async () => {
  prism = await startPrism();
  cotejo = new RecordingCotejo(prism.baseUrl);
}, 60_000);

afterAll(async () => {
  await prism?.stop();
});

const AN = 'an_01JPB4X9R2C8H5M7P3Q6S9T1VZ';
const TPL = 'tpl_01JPB2M4N6P8Q0R2S4T6V8W0X2';
const DOS = 'dos_01JPB6A1B3C5D7E9F2G4H6J8K1';
const SDK_KEY = /^cotejo-sdk-[0-9a-f-]{36}$/;

describe('analyses.review', () => {
  it('POSTs the decision as JSON with an Idempotency-Key and returns the Analysis', async () => {
    const a = await cotejo.analyses.review(AN, { decision: 'reject', reason: 'Foto ilegible', note: 'Segunda revisión.' });
    expectTypeOf(a).toEqualTypeOf<Analysis>();
    expect(a.object).toBe('analysis');
    const req = cotejo.last();
    expect(`${req.method} ${req.url.pathname}`).toBe(`POST /v1/analyses/${AN}/review`);
    expect(req.headers.get('content-type')).toBe('application/json');
    expect(req.headers.get('idempotency-key')).toMatch(SDK_KEY);
    expect(req.body).toEqual({ decision: 'reject', reason: 'Foto ilegible', note: 'Segunda revisión.' });

    await cotejo.analyses.review(AN, { decision: 'approve' }, { idempotencyKey: 'review-an-1' });
    expect(cotejo.last().headers.get('idempotency-key')).toBe('review-an-1');
    expect(cotejo.last().body).toEqual({ decision: 'approve' });
  });

  it('the body type: decision required, approve or reject only', () => {
    type Body = Parameters<Cotejo['analyses']['review']>[1];
    expectTypeOf<Body['decision']>().toEqualTypeOf<'approve' | 'reject'>();
    expectTypeOf<{ decision: 'approve' }>().toExtend<Body>();
    // @ts-expect-error decision is required
    expectTypeOf<{ reason: string }>().toExtend<Body>();
    // @ts-expect-error not a decision
    expectTypeOf<{ decision: 'maybe' }>().toExtend<Body>();
  });

  it.each([
    [409, ConflictError, 'already_reviewed'],
    [403, PermissionDeniedError, 'publishable_key_not_allowed'],
    [404, NotFoundError, 'resource_missing'],
  ] as const)('%i from the contract example is a %o with its code', async (status, Cls, code) => {
    const err = await cotejo.analyses.review(AN, { decision: 'reject' }, { headers: { Prefer: `code=${status}` } }).catch((e) => e);
    expect(err).toBeInstanceOf(Cls);
    expect(err).toMatchObject({ status, code });
  });
});

describe('reviews.list', () => {
  it('sends status, type, template and metadata[key]; the page is a typed list of analyses', async () => {
    const page = await cotejo.reviews.list({ status: 'decided', type: 'es_dni', template: TPL, metadata: { case: 'c-1', team: 'kyc' }, limit: 5 });
    expectTypeOf(page).toEqualTypeOf<Page<AnalysisList>>();
    expect(page.object).toBe('list');
    expect(page.data[0].object).toBe('analysis');
    const q = cotejo.last().url.searchParams;
    expect(cotejo.last().url.pathname).toBe('/v1/reviews');
    expect(Object.fromEntries(q)).toEqual({ status: 'decided', type: 'es_dni', template: TPL, 'metadata[case]': 'c-1', 'metadata[team]': 'kyc', limit: '5' });
    expect(cotejo.last().headers.has('idempotency-key')).toBe(false);
  });

  it('every status filter the contract names is accepted; no query at all too', async () => {
    for (const status of ['pending', 'decided', 'approved', 'rejected', 'all'] as const) {
      expect((await cotejo.reviews.list({ status })).object).toBe('list');
    }
    await cotejo.reviews.list();
    expect(cotejo.last().url.search).toBe('');
    expectTypeOf<NonNullable<Parameters<Cotejo['reviews']['list']>[0]>['status']>().toEqualTypeOf<Schemas['ReviewStatusFilter'] | undefined>();
  });

  it('iterates analyses; the next page starts after the last analysis id', async () => {
    const page = await cotejo.reviews.list({ limit: 1 });
    for await (const a of cotejo.reviews.list({ limit: 1 })) {
      expectTypeOf(a).toEqualTypeOf<Analysis>();
      expect(a.id).toBe(page.data[0].id);
      break; // the mock's example page is static
    }
    if (page.hasNextPage()) {
      await page.getNextPage();
      expect(cotejo.last().url.searchParams.get('starting_after')).toBe(page.data.at(-1)!.id);
    }
  });
});

describe('templates', () => {
  it('create, retrieve, update, del: JSON bodies, typed results', async () => {
    const body = {
      name: 'Alta de clientes',
      description: 'DNI o NIE en vigor de un titular mayor de edad.',
      expect: ['es_dni', 'es_nie'],
      checks: { not_expired: true, min_age_years: 18 },
      storage: 'review',
      human_review: { on_invalid: true, auto_approve_valid: false },
      review_retention_hours_after_decision: 0,
      review_max_days: 7,
      documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni' }],
      metadata: { producto: 'cuenta-online' },
    } satisfies Parameters<Cotejo['templates']['create']>[0];
    const tpl = await cotejo.templates.create(body, { idempotencyKey: 'tpl-create-1' });
    expectTypeOf(tpl).toEqualTypeOf<Template>();
    expect(tpl.object).toBe('template');
    expect(cotejo.last()).toMatchObject({ method: 'POST', body });
    expect(cotejo.last().url.pathname).toBe('/v1/templates');
    expect(cotejo.last().headers.get('idempotency-key')).toBe('tpl-create-1');

    const got = await cotejo.templates.retrieve(tpl.id);
    expectTypeOf(got).toEqualTypeOf<Template>();
    expect(`${cotejo.last().method} ${cotejo.last().url.pathname}`).toBe(`GET /v1/templates/${tpl.id}`);

    // null resets a field to its default (UpdateTemplateRequest).
    const updated = await cotejo.templates.update(tpl.id, { name: 'Alta 2', storage: null, review_max_days: null });
    expectTypeOf(updated).toEqualTypeOf<Template>();
    expect(cotejo.last()).toMatchObject({ method: 'POST', body: { name: 'Alta 2', storage: null, review_max_days: null } });
    expect(cotejo.last().url.pathname).toBe(`/v1/templates/${tpl.id}`);

    const deleted = await cotejo.templates.del(tpl.id);
    expectTypeOf(deleted).toEqualTypeOf<DeletedTemplate>();
    expect(deleted).toMatchObject({ object: 'template', deleted: true });
    expect(`${cotejo.last().method} ${cotejo.last().url.pathname}`).toBe(`DELETE /v1/templates/${tpl.id}`);
  });

  it('list: typed page, cursor params, iteration', async () => {
    const page = await cotejo.templates.list({ limit: 3, starting_after: TPL });
    expectTypeOf(page.data).toEqualTypeOf<Template[]>();
    expect(Object.fromEntries(cotejo.last().url.searchParams)).toEqual({ limit: '3', starting_after: TPL });
    for await (const t of cotejo.templates.list()) {
      expectTypeOf(t).toEqualTypeOf<Template>();
      expect(t.object).toBe('template');
      break;
    }
  });

  it('an id with reserved characters is escaped in the path', async () => {
    const err = await cotejo.templates.retrieve('tpl_a/b?c', { headers: { Prefer: 'code=404' } }).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(cotejo.last().url.pathname).toBe('/v1/templates/tpl_a%2Fb%3Fc');
  });

  it('the contract refuses an unknown field (strict bodies), so do the types', async () => {
    // @ts-expect-error `nombre` is not a template field
    const err = await cotejo.templates.create({ name: 'x', nombre: 'x' }).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
  });
});

describe('dossiers', () => {
  it('create (documents or the expect shorthand), retrieve, list with reference, del', async () => {
    const dos = await cotejo.dossiers.create({
      reference: 'ALTA-2025-0193',
      documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni', checks: { not_expired: true } }, { key: 'nomina', expect: ['payslip'] }],
      language: 'en',
      metadata: { expediente: '193' },
    });
    expectTypeOf(dos).toEqualTypeOf<Dossier>();
    expect(dos.object).toBe('dossier');
    expect(cotejo.last().headers.get('idempotency-key')).toMatch(SDK_KEY);
    expect((await cotejo.dossiers.create({ expect: ['es_dni', 'payslip'], template: TPL })).object).toBe('dossier');
    expect(cotejo.last().body).toEqual({ expect: ['es_dni', 'payslip'], template: TPL });

    expectTypeOf(await cotejo.dossiers.retrieve(dos.id)).toEqualTypeOf<Dossier>();
    const page = await cotejo.dossiers.list({ reference: 'ALTA-2025-0193', limit: 2 });
    expectTypeOf(page.data).toEqualTypeOf<Dossier[]>();
    expect(Object.fromEntries(cotejo.last().url.searchParams)).toEqual({ reference: 'ALTA-2025-0193', limit: '2' });
    for await (const d of cotejo.dossiers.list()) {
      expect(d.object).toBe('dossier');
      break;
    }
    const deleted = await cotejo.dossiers.del(dos.id);
    expectTypeOf(deleted).toEqualTypeOf<DeletedDossier>();
    expect(deleted).toMatchObject({ object: 'dossier', deleted: true });
  });

  it('addDocument by analysis_id, file_url, { url }, file_base64 and { base64 }: JSON bodies', async () => {
    const b64 = fixtures.jpeg().toString('base64');
    const cases: Array<[AddDossierDocumentParams, unknown]> = [
      [{ analysis_id: AN, key: 'dni' }, { analysis_id: AN, key: 'dni' }],
      [{ file_url: 'https://files.example.com/dni_valid.jpg' }, { file_url: 'https://files.example.com/dni_valid.jpg' }],
      [{ file: { url: 'https://files.example.com/dni_valid.jpg' }, key: 'dni', expect: 'es_dni' }, { file_url: 'https://files.example.com/dni_valid.jpg', key: 'dni', options: { expect: 'es_dni' } }],
      [{ file_base64: b64, filename: 'dni_valid.jpg', checks: { min_age_years: 18 } }, { file_base64: b64, filename: 'dni_valid.jpg', options: { checks: { min_age_years: 18 } } }],
      [{ file: { base64: b64 }, filename: 'nomina.pdf', key: 'nomina', async: true }, { file_base64: b64, filename: 'nomina.pdf', key: 'nomina', options: { async: true } }],
    ];
    for (const [params, body] of cases) {
      const d = await cotejo.dossiers.addDocument(DOS, params);
      expectTypeOf(d).toEqualTypeOf<Dossier>();
      expect(d.object).toBe('dossier');
      const req = cotejo.last();
      expect(`${req.method} ${req.url.pathname}`).toBe(`POST /v1/dossiers/${DOS}/documents`);
      expect(req.headers.get('content-type')).toBe('application/json');
      expect(req.headers.get('idempotency-key')).toMatch(SDK_KEY);
      expect(req.body).toEqual(body);
    }
  });

  it('addDocument with a local file (path, Buffer, Blob, File, stream): multipart file, key, options', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-sdk-16-'));
    const file = path.join(dir, 'dni_valid.jpg');
    fs.writeFileSync(file, fixtures.jpeg());
    try {
      const blob = new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' });
      const inputs: AddDossierDocumentParams[] = [
        { file, key: 'dni', expect: 'es_dni', checks: { not_expired: true } },
        { file: fixtures.jpeg(), filename: 'dni_valid.jpg', key: 'dni' },
        { file: blob, filename: 'dni_valid.jpg' },
        { file: new File([blob], 'dni_valid.jpg'), key: 'dni' },
        { file: Readable.from([fixtures.jpeg()]), filename: 'dni_valid.jpg', key: 'dni', expect: 'es_dni' },
      ];
      for (const input of inputs) {
        const d = await cotejo.dossiers.addDocument(DOS, input, { idempotencyKey: `add-${inputs.indexOf(input)}` });
        expect(d.object).toBe('dossier');
        const { body, headers } = cotejo.last();
        expect(headers.get('idempotency-key')).toBe(`add-${inputs.indexOf(input)}`);
        expect(body).toBeInstanceOf(FormData);
        const fd = body as FormData;
        const part = fd.get('file') as File;
        expect(part.name).toBe('dni_valid.jpg');
        expect(new Uint8Array(await part.arrayBuffer())).toEqual(new Uint8Array(fixtures.jpeg()));
        expect(fd.get('key')).toBe(input.key ?? null);
        const { file: _f, filename: _n, key: _k, ...options } = input as Record<string, unknown>;
        expect(fd.get('options') === null ? {} : JSON.parse(fd.get('options') as string)).toEqual(options);
        expect(fd.has('analysis_id')).toBe(false);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a 202 (document still being analysed) is the same typed Dossier', async () => {
    const d = await cotejo.dossiers.addDocument(DOS, { file: fixtures.jpeg(), filename: 'dni_valid_slow.jpg', async: true }, { headers: { Prefer: 'code=202' } });
    expect(d.object).toBe('dossier');
  });

  it('analysis_id and a file are exclusive at compile time', () => {
    expectTypeOf<{ analysis_id: string; key: string }>().toExtend<AddDossierDocumentParams>();
    expectTypeOf<{ file: Uint8Array; filename: string; expect: string }>().toExtend<AddDossierDocumentParams>();
    expectTypeOf<{ analysis_id: string; file: Uint8Array }>().not.toExtend<AddDossierDocumentParams>();
    expectTypeOf<{ analysis_id: string; file_url: string }>().not.toExtend<AddDossierDocumentParams>();
  });

  it('poll retrieves until no document is queued or processing', async () => {
    const d = await cotejo.dossiers.poll(DOS, { pollIntervalMs: 1, maxWaitMs: 5_000 });
    expectTypeOf(d).toEqualTypeOf<Dossier>();
    expect(d.documents.every((doc) => doc.status === 'completed' || doc.status === 'failed')).toBe(true);
    expect(`${cotejo.last().method} ${cotejo.last().url.pathname}`).toBe(`GET /v1/dossiers/${DOS}`);
  });

  it('a retried addDocument (409 idempotency_in_progress) resends the same multipart body under the same key', async () => {
    const retrying = new RecordingCotejo(prism!.baseUrl, 1);
    const err = await retrying.dossiers
      .addDocument(DOS, { file: fixtures.jpeg(), filename: 'dni_valid.jpg', key: 'dni' }, { headers: { Prefer: 'code=409' } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.code).toBe('idempotency_in_progress');
    expect(retrying.sent).toHaveLength(2);
    const [first, second] = retrying.sent;
    expect(second.headers.get('idempotency-key')).toBe(first.headers.get('idempotency-key'));
    expect(second.body).not.toBe(first.body); // a fresh FormData per attempt
    expect(((second.body as FormData).get('file') as File).size).toBe(fixtures.jpeg().length);
  });

  it('422 template_not_found from the contract example', async () => {
    const err = await cotejo.dossiers.create({ template: 'tpl_nope' }, { headers: { Prefer: 'code=422' } }).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableEntityError);
    expect(err.code).toBe('template_not_found');
  });
});
