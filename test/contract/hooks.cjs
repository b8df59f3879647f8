// Dredd hooks of `npm run contract` (scripts/contract.ts starts the server and Dredd; docs/contract.md explains the
// whole run). Dredd turns every (operation, request body type, response status, response media type) of
// generated/openapi-3.0.json into one transaction: the example request, and the response it expects. These hooks
// make each transaction's request one that really gets that response from the real server, or skip it with the
// reason why it cannot, and they restore two facts Dredd's OpenAPI 3 parser loses (see `relax`).
//
// CommonJS and plain JavaScript: Dredd loads hook files with require(). Runs inside the Dredd process.
'use strict';

const hooks = require('hooks');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

/** Set by scripts/contract.ts: base URL, keys, fixture paths, the operations still answering 501, the spec path. */
const ctx = JSON.parse(process.env.COTEJO_CONTRACT || 'null');
if (!ctx) throw new Error('COTEJO_CONTRACT is not set: run the contract through `npm run contract`.');

const spec = JSON.parse(fs.readFileSync(ctx.spec, 'utf8'));
const pending = new Set(ctx.pending);
const file = (name) => fs.readFileSync(ctx.fixtures[name]);

/** COTEJO_CONTRACT_SCHEMA=off leaves only Dredd's own checks (to see what Gavel catches by itself). */
const schemaCheck = process.env.COTEJO_CONTRACT_SCHEMA !== 'off';

// ---------------------------------------------------------------------------------------------------------------
// What a transaction is: its operation (from the spec), the status and media types it expects.

function describe(t) {
  const template = t.origin.resourceName; // the path template, e.g. /v1/analyses/{id}
  const method = t.request.method.toLowerCase();
  const operation = spec.paths[template] && spec.paths[template][method];
  if (!operation) throw new Error(`no operation for ${t.request.method} ${template}`);
  const status = Number(t.expected.statusCode);
  const declared = operation.responses[String(status)] || {};
  return {
    op: operation.operationId,
    operation,
    template,
    status,
    declared,
    requestType: t.request.headers['Content-Type'], // application/json, multipart/form-data or undefined
    responseType: t.expected.headers['Content-Type'],
    isPublic: (operation.security || spec.security || []).some((s) => Object.keys(s).length === 0),
    hasBody: Boolean(operation.requestBody),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Ids and URLs made earlier in the run. Dredd runs with --sorted: every POST first, then GET, DELETE last, so the
// resources the later transactions need exist by then (and are deleted only at the end).

const made = {
  analysis: undefined, // a completed es_dni analysis of a JPEG, stored, with every export as a signed URL
  analysisByType: {}, // media type of the original -> analysis id (image/jpeg, image/png, application/pdf)
  classification: undefined,
  batch: undefined,
  webhookEndpoint: undefined,
  template: undefined,
  dossier: undefined,
  link: undefined,
  etag: {}, // operationId -> ETag of its 200
};

const EXPORT_FORMAT = {
  'application/json': 'json',
  'text/csv': 'csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/xml': 'xml',
  'text/vcard': 'vcard',
  'application/pdf': 'pdf',
};

// ---------------------------------------------------------------------------------------------------------------
// Request building.

function setJson(t, value) {
  t.request.headers['Content-Type'] = 'application/json';
  t.request.body = JSON.stringify(value);
  delete t.request.bodyEncoding;
}

/** A real multipart/form-data body: parts are [name, string] or [name, { bytes, filename, type }]. */
function setMultipart(t, parts) {
  const boundary = `----cotejo-contract-${crypto.randomUUID()}`;
  const chunks = [];
  for (const [name, value] of parts) {
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.type}\r\n\r\n`));
      chunks.push(value.bytes, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  t.request.headers['Content-Type'] = `multipart/form-data; boundary=${boundary}`;
  t.request.body = Buffer.concat(chunks).toString('base64');
  t.request.bodyEncoding = 'base64'; // Dredd sends the decoded bytes: the JPEG arrives intact
}

const jpegPart = (filename = 'dni_valid.jpg') => ({ bytes: file('jpeg'), filename, type: 'image/jpeg' });
const pdfPart = (filename = 'invoice.pdf') => ({ bytes: file('pdf'), filename, type: 'application/pdf' });

function setPathId(t, id) {
  const [pathname, query] = t.fullPath.split('?');
  const parts = pathname.split('/');
  parts[3] = encodeURIComponent(id); // /v1/<collection>/<id>[/...]
  t.fullPath = parts.join('/') + (query ? `?${query}` : '');
  t.request.uri = t.fullPath;
}

function setQuery(t, params) {
  const [pathname, query] = t.fullPath.split('?');
  const search = new URLSearchParams(query || '');
  for (const [k, v] of Object.entries(params)) search.set(k, v);
  t.fullPath = `${pathname}?${search}`;
  t.request.uri = t.fullPath;
}

const auth = (t, key) => {
  t.request.headers.Authorization = `Bearer ${key}`;
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The one-second window whose per-address budget a public 429 transaction spent: later transactions wait it out. */
let addressSpentIn = -1;

async function api(method, urlPath, { key = ctx.keys.test, json } = {}) {
  const res = await fetch(ctx.baseUrl + urlPath, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(json ? { 'Content-Type': 'application/json' } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Waits until an analysis has finished (the async ones are done by the server's worker). */
async function finished(id) {
  for (let i = 0; i < 300; i++) {
    const { body } = await api('GET', `/v1/analyses/${id}`);
    if (body && (body.status === 'completed' || body.status === 'failed')) return body;
    await sleep(100);
  }
  throw new Error(`analysis ${id} did not finish in 30 s`);
}

/** The signed-URL token of a URL `${baseUrl}/v1/files/<token>`. */
const tokenOf = (url) => new URL(url).pathname.split('/').pop();

// ---------------------------------------------------------------------------------------------------------------
// The success transactions, one builder per operation: the request, and what to remember from the answer.

const ANALYZE_OPTIONS = { expect: 'es_dni', checks: { min_age_years: 18 }, metadata: { customer_id: 'cus_4821' }, storage: 'persistent' };

const success = {
  // 200: the synchronous answer, for the DNI the example shows. 202: `async: true`, with the other originals
  // (PNG by JSON, PDF by multipart) that GET /v1/analyses/{id}/file and /v1/files/{token} need later.
  createAnalysis(t, d) {
    const sync = d.status === 200;
    if (d.requestType === 'application/json') {
      setJson(t, sync
        ? { file_base64: file('jpeg').toString('base64'), filename: 'dni_valid.jpg', options: { ...ANALYZE_OPTIONS, export: Object.values(EXPORT_FORMAT) } }
        : { file_base64: file('png').toString('base64'), filename: 'dni_valid.png', options: { ...ANALYZE_OPTIONS, async: true } });
    } else {
      setMultipart(t, sync
        ? [['file', jpegPart()], ['options', JSON.stringify(ANALYZE_OPTIONS)]]
        : [['file', pdfPart('es_invoice_valid.pdf')], ['options', JSON.stringify({ storage: 'persistent', async: true })]]);
    }
    return (body) => {
      if (sync && d.requestType === 'application/json') {
        made.analysis = body;
        made.analysisByType['image/jpeg'] = body.id;
      } else if (!sync) {
        made.analysisByType[d.requestType === 'application/json' ? 'image/png' : 'application/pdf'] = body.id;
      }
    };
  },
  listAnalyses(t) {
    // Completed ones: an analysis still running (a dossier's async document, say) has no `document` yet, and Gavel
    // compares the first item with the example's shape.
    setQuery(t, { status: 'completed' });
  },
  getAnalysis(t) {
    setPathId(t, made.analysis.id);
  },
  deleteAnalysis(t) {
    setPathId(t, made.analysis.id);
  },
  exportAnalysis(t, d) {
    setPathId(t, made.analysis.id);
    setQuery(t, { format: EXPORT_FORMAT[d.responseType] });
  },
  async getAnalysisFile(t, d) {
    const id = made.analysisByType[d.responseType];
    await finished(id);
    setPathId(t, id);
  },
  createClassification(t, d) {
    const options = d.status === 202 ? { async: true } : {};
    if (d.requestType === 'application/json') setJson(t, { file_base64: file('jpeg').toString('base64'), filename: 'passport.jpg', options });
    else setMultipart(t, [['file', jpegPart('passport.jpg')], ['options', JSON.stringify(options)]]);
    return (body) => {
      made.classification ??= body.id;
    };
  },
  getClassification(t) {
    setPathId(t, made.classification);
  },
  createBatch(t, d) {
    if (d.requestType === 'application/json') {
      setJson(t, {
        items: [
          { file_base64: file('jpeg').toString('base64'), filename: 'dni_valid.jpg' },
          { file_base64: file('pdf').toString('base64'), filename: 'invoice.pdf' },
        ],
        options: { expect: 'es_dni' },
      });
    } else {
      // Repeated `files[]` parts: the array of the multipart schema.
      setMultipart(t, [['files[]', jpegPart()], ['files[]', jpegPart('dni_expired.jpg')], ['options', JSON.stringify({ expect: 'es_dni' })]]);
    }
    return (body) => {
      made.batch ??= body.id;
    };
  },
  getBatch(t) {
    setPathId(t, made.batch);
  },
  listDocumentTypes() {
    return (_body, real) => {
      made.etag.listDocumentTypes = real.headers.etag;
    };
  },
  getDocumentType() {
    return (_body, real) => {
      made.etag.getDocumentType = real.headers.etag;
    };
  },
  createWebhookEndpoint() {
    // The example request as it is (an https URL on a public name; nothing is delivered during the run).
    return (body) => {
      made.webhookEndpoint ??= body.id;
    };
  },
  listWebhookEndpoints() {},
  getWebhookEndpoint(t) {
    setPathId(t, made.webhookEndpoint);
  },
  deleteWebhookEndpoint(t) {
    setPathId(t, made.webhookEndpoint);
  },
  getBalance() {},
  getUsage() {},
  // Human review: a blurry DNI photo finishes with verdict `review` and waits in the queue; it is approved.
  async reviewAnalysis(t) {
    const res = await api('POST', '/v1/analyze', { json: { file_base64: file('jpeg').toString('base64'), filename: 'blurry.jpg', options: { expect: 'es_dni' } } });
    if (res.status !== 200 || !res.body.review) throw new Error(`no analysis in review: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    setPathId(t, res.body.id);
    setJson(t, { decision: 'approve', reason: 'Documento legible en el original' });
  },
  listReviews() {},
  // Templates: one is made by the create transaction, then read, updated and (last, with DELETE) deleted.
  createTemplate(t) {
    setJson(t, VALID_BODY.createTemplate);
    return (body) => {
      made.template ??= body.id;
    };
  },
  listTemplates() {},
  async getTemplate(t) {
    setPathId(t, await ensure('template', '/v1/templates', VALID_BODY.createTemplate));
  },
  async updateTemplate(t) {
    setPathId(t, await ensure('template', '/v1/templates', VALID_BODY.createTemplate));
    setJson(t, { description: 'DNI en vigor de un titular mayor de edad.', checks: { min_age_years: 18 } });
  },
  async deleteTemplate(t) {
    setPathId(t, await ensure('template', '/v1/templates', VALID_BODY.createTemplate));
  },
  // Dossiers: one, with a DNI added by JSON and by multipart (synchronously: 200, or `async`: 202).
  createDossier(t) {
    setJson(t, VALID_BODY.createDossier);
    return (body) => {
      made.dossier ??= body.id;
    };
  },
  listDossiers() {},
  async getDossier(t) {
    setPathId(t, await ensure('dossier', '/v1/dossiers', VALID_BODY.createDossier));
  },
  async addDossierDocument(t, d) {
    setPathId(t, await ensure('dossier', '/v1/dossiers', VALID_BODY.createDossier));
    const options = d.status === 202 ? { async: true } : {};
    if (d.requestType === 'application/json') setJson(t, { file_base64: file('jpeg').toString('base64'), filename: 'dni_valid.jpg', key: 'dni', options });
    else setMultipart(t, [['file', jpegPart()], ['key', 'dni'], ['options', JSON.stringify(options)]]);
  },
  async deleteDossier(t) {
    setPathId(t, await ensure('dossier', '/v1/dossiers', VALID_BODY.createDossier));
  },
  // Verification links: one is made, read (with its QR code) and, last, cancelled.
  createVerificationLink(t) {
    setJson(t, VALID_BODY.createVerificationLink);
    return (body) => {
      made.link ??= body.id;
    };
  },
  listVerificationLinks() {},
  async getVerificationLink(t) {
    setPathId(t, await ensure('link', '/v1/verification-links', VALID_BODY.createVerificationLink));
  },
  async cancelVerificationLink(t) {
    setPathId(t, await ensure('link', '/v1/verification-links', VALID_BODY.createVerificationLink));
  },
  async downloadFile(t, d) {
    let url;
    if (d.responseType in EXPORT_FORMAT && d.responseType !== 'application/pdf') {
      url = made.analysis.exports[EXPORT_FORMAT[d.responseType]];
    } else if (d.responseType === 'application/pdf') {
      // application/pdf is both an export format and an original; the export (from the DNI analysis) is used.
      url = made.analysis.exports.pdf;
    } else {
      const original = await finished(made.analysisByType[d.responseType]);
      url = original.file_url;
    }
    if (!url) throw new Error(`no signed URL for ${d.responseType}`);
    t.fullPath = `/v1/files/${tokenOf(url)}`;
    t.request.uri = t.fullPath;
  },
};

// ---------------------------------------------------------------------------------------------------------------
// The error transactions that a request can honestly provoke. Anything else is skipped (see `skipReason`).

const INVALID_QUERY = {
  listAnalyses: { limit: '0' },
  listReviews: { limit: '0' },
  listVerificationLinks: { limit: '0' },
  listTemplates: { limit: '0' },
  listDossiers: { limit: '0' },
  listDocumentTypes: { country: 'US' },
  getDocumentType: { language: 'de' },
  exportAnalysis: { format: 'docx' },
  getUsage: { from: 'yesterday' },
};

/** A JSON body that breaks the schema of each operation (422 invalid_parameter), where the error is the schema's. */
const INVALID_BODY = {
  createAnalysis: { file_base64: 'aGVsbG8=', filename: 'x.jpg', options: { expect: 'es_dnii' } },
  createClassification: { file_base64: 'aGVsbG8=', filename: 'x.jpg', options: { storage: 'forever' } },
  createBatch: { items: [{ file_url: 7 }] },
  createWebhookEndpoint: { url: 'https://hooks.example.com/x', events: ['no.such_event'] },
  createVerificationLink: { documents: 'dni' },
  createTemplate: { name: '' },
  updateTemplate: { name: '' },
  createDossier: { reference: 7 },
  addDossierDocument: { key: 7 },
  reviewAnalysis: { decision: 'maybe' },
};

/** Bodies that pass the schema, for the operations whose example body Dredd makes up does not. */
const VALID_BODY = {
  createVerificationLink: { documents: [{ key: 'dni', expect: 'es_dni' }], reference: 'EXP-1' },
  createTemplate: { name: 'Alta de clientes', expect: 'es_dni' },
  createDossier: { reference: 'ALTA-1', documents: [{ key: 'dni', label: 'DNI', expect: 'es_dni' }] },
};

/** The id of a resource made earlier in the run, or of one made now (when its create transaction has not run yet). */
async function ensure(kind, collection, body) {
  if (!made[kind]) {
    const res = await api('POST', collection, { json: body });
    if (res.status !== 201) throw new Error(`POST ${collection}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    made[kind] = res.body.id;
  }
  return made[kind];
}

const isMultipart = (d) => (d.requestType || '').startsWith('multipart/');

async function provoke(t, d) {
  switch (d.status) {
    case 304: {
      const etag = made.etag[d.op];
      if (!etag) throw new Error(`no ETag from the 200 of ${d.op}`);
      t.request.headers['If-None-Match'] = etag;
      return true;
    }
    case 400:
      // Malformed JSON (400 invalid_json). The multipart twin gets a body that is not multipart at all.
      if (d.requestType === 'application/json') t.request.body = '{"file_url": ';
      else t.request.body = 'not a multipart body';
      delete t.request.bodyEncoding;
      if (d.requestType !== 'application/json') t.request.headers['Content-Type'] = 'multipart/form-data; boundary=nothing-here';
      return true;
    case 401:
      delete t.request.headers.Authorization;
      return true;
    case 403:
      auth(t, ctx.keys.publishable); // publishable keys are refused on every authenticated route
      return true;
    case 404:
      // Left as Dredd built it: the example ids of the spec, which a fresh database does not have.
      if (d.op === 'downloadFile') return true; // the example token is not a signature the server made
      if (d.op === 'getDocumentType') setPathId(t, 'xx_no_such_type'); // the example type, es_dni, exists
      // A body the route accepts, so that the missing resource is what the answer is about.
      if (isMultipart(d) && d.template.includes('{')) setMultipart(t, [['file', jpegPart()]]);
      else if (d.op === 'reviewAnalysis') setJson(t, { decision: 'approve' });
      return d.template.includes('{');
    case 409:
      // An analysis without human review (the DNI of the success run, verdict valid) cannot be reviewed.
      if (d.op !== 'reviewAnalysis') return false;
      setPathId(t, made.analysis.id);
      setJson(t, { decision: 'approve' });
      return true;
    case 415:
      t.request.headers['Content-Type'] = 'text/plain';
      t.request.body = 'a document';
      delete t.request.bodyEncoding;
      return true;
    case 422:
      if (isMultipart(d) && INVALID_BODY[d.op]) {
        if (pending.has(d.op)) return 'operation not built yet: multipart bodies are checked by the handler, which answers 501 first';
        setMultipart(t, [[d.op === 'createBatch' ? 'files[]' : 'file', jpegPart()], ['options', JSON.stringify({ expect: 'es_dnii' })]]);
        return true;
      }
      if (INVALID_QUERY[d.op]) {
        setQuery(t, INVALID_QUERY[d.op]);
        return true;
      }
      if (INVALID_BODY[d.op]) {
        setJson(t, INVALID_BODY[d.op]);
        return true;
      }
      // Every operation refuses a query parameter it does not declare.
      setQuery(t, { not_a_parameter: '1' });
      return true;
    case 429: {
      // A key limited to 1 request per second (scripts/contract.ts): align to a fresh one-second window, spend it,
      // then Dredd's request is the second of the window. Public routes are limited per address (50/s).
      // The window is spent on a cheap GET counted in the same bucket (the key's, or the address's).
      const key = d.isPublic ? undefined : ctx.keys.throttled;
      if (key) auth(t, key);
      const burst = d.isPublic ? ctx.publicRateLimit : 1;
      const ms = Date.now() % 1000;
      if (ms > 300) await sleep(1010 - ms);
      const target = ctx.baseUrl + (key ? '/v1/balance' : '/v1/document-types/es_dni');
      await Promise.all(Array.from({ length: burst }, () => fetch(target, { headers: key ? { Authorization: `Bearer ${key}` } : {} }).then((r) => r.arrayBuffer())));
      if (!key) addressSpentIn = Math.floor(Date.now() / 1000);
      return true;
    }
    case 501:
      // Operations not built yet: a request that passes the schema reaches the pending handler.
      if (!pending.has(d.op)) return false;
      if (isMultipart(d)) setMultipart(t, [['file', jpegPart()]]);
      else if (VALID_BODY[d.op]) setJson(t, VALID_BODY[d.op]);
      return true;
    case 503:
      // Live mode switched off (the contract server runs with COTEJO_LIVE_READERS=none): 503 live_mode_unavailable
      // (the account has credits, so the answer is not 402). Only operations that read a document use a provider.
      if (!['createAnalysis', 'createClassification', 'createBatch'].includes(d.op)) return false;
      auth(t, ctx.keys.live);
      await success[d.op](t, { ...d, status: d.op === 'createBatch' ? 202 : 200 });
      return true;
    default:
      return false;
  }
}

/**
 * Why an error transaction is skipped: what Dredd cannot express, or what no honest request can provoke.
 * (`provoke` answers true when it made the request, or a reason of its own.)
 */
function skipReason(d) {
  switch (d.status) {
    case 402:
      return '402 insufficient_credits: only live mode spends credits, and live mode here has no AI provider (503 first)';
    case 409:
      return '409: needs a second request in flight with the same Idempotency-Key, or an analysis caught unfinished; one request per transaction cannot hold that state (test/api/idempotency.test.ts and analyses-lifecycle.test.ts cover both)';
    case 413:
      return '413 file_too_large: a body over 20 MB per transaction (test/api/analyses-options.test.ts covers the limit)';
    case 500:
      return '500 internal_error: no honest request makes the server fail';
    case 501:
      return '501 not_implemented: the operation is built (only operations still pending answer 501)';
    case 503:
      return '503: only operations that read a document need the live-mode provider; service_unavailable needs the database or the store taken away (test/faults/ does that)';
    case 404:
      return '404: the operation has no resource id in its path';
    case 422:
      return '422: no request parameter or JSON body of this operation that its schema refuses';
    default:
      return `${d.status}: no request provokes it`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Dredd's OpenAPI 3 parser drops `required` from Header Objects, so it expects every declared response header;
// the spec marks some optional (Idempotent-Replayed only on replays, Retry-After only when limited, the RateLimit
// headers on answers given before a key is known). Those are removed from the expectation here. Dredd also
// compares Content-Type byte for byte; the server adds `; charset=utf-8` to text types, which is the same media
// type: the parameter is dropped from the real header before Gavel compares (the media type itself still must match).

function relax(t, d) {
  const headers = d.declared.headers || {};
  for (const [name, h] of Object.entries(headers)) {
    if (!h.required) delete t.expected.headers[name];
  }
  // The same loss for bodies: Gavel takes every key of the example (or of the body Dredd makes up from the schema,
  // optional properties included) as a key the answer must have. Keys the schema does not require are removed
  // from the expected body, so Gavel checks that the required ones are present, at every depth.
  const content = d.declared.content && d.declared.content[d.responseType];
  if (content && content.schema && /json/.test(d.responseType || '') && t.expected.body) {
    t.expected.body = JSON.stringify(onlyRequired(JSON.parse(t.expected.body), content.schema));
  }
}

/** A schema with its `$ref`s and `allOf`s merged into one object schema (enough for the walk below). */
function resolve(schema) {
  if (!schema || typeof schema !== 'object') return {};
  if (schema.$ref) return resolve(schema.$ref.split('/').slice(1).reduce((node, key) => node[key], spec));
  if (!schema.allOf) return schema;
  const merged = { ...schema, allOf: undefined, properties: { ...(schema.properties || {}) }, required: [...(schema.required || [])] };
  for (const part of schema.allOf.map(resolve)) {
    Object.assign(merged.properties, part.properties || {});
    merged.required.push(...(part.required || []));
    if (part.type) merged.type = part.type;
    if (part.additionalProperties !== undefined) merged.additionalProperties = part.additionalProperties;
    if (part.items) merged.items = part.items;
    if (part.anyOf || part.oneOf) merged.anyOf = part.anyOf || part.oneOf;
  }
  return merged;
}

function onlyRequired(value, rawSchema) {
  const schema = resolve(rawSchema);
  const variants = schema.anyOf || schema.oneOf;
  if (variants) {
    // The variant whose shape fits the value (objects: the one with properties).
    const kind = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    const fit = variants.map(resolve).find((v) => (kind === 'object' ? v.properties || v.type === 'object' : v.type === kind || (kind === 'number' && v.type === 'integer')));
    return fit ? onlyRequired(value, fit) : value;
  }
  if (Array.isArray(value)) return value.map((item) => onlyRequired(item, schema.items));
  if (value === null || typeof value !== 'object') return value;
  if (!schema.properties) return {}; // a map (Record<T>): none of its keys is required
  const out = {};
  for (const key of schema.required || []) {
    if (key in value) out[key] = onlyRequired(value[key], schema.properties[key]);
  }
  return out;
}

const skipped = new Map(); // reason -> names
const after = new Map(); // transaction name + id -> callback on the real answer
let failures = 0;

function skip(t, reason) {
  t.skip = true;
  const list = skipped.get(reason) || [];
  list.push(`${t.request.method} ${t.origin.resourceName} ${t.expected.statusCode} ${t.expected.headers['Content-Type'] || ''}${t.request.headers['Content-Type'] ? ` (request ${t.request.headers['Content-Type'].split(';')[0]})` : ''}`);
  skipped.set(reason, list);
}

let assertMatchesSpec;
hooks.beforeAll((_transactions, done) => {
  // The same in-process check every HTTP test uses (test/support/spec.ts): status, required headers, and the JSON
  // body's full schema (types, enums, formats), which Gavel does not check for OpenAPI 3 (docs/contract.md).
  import(path.resolve(__dirname, '../support/spec.ts'))
    .then((m) => {
      assertMatchesSpec = m.assertMatchesSpec;
      done();
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
});

hooks.beforeEach((t, done) => {
  (async () => {
    const d = describe(t);
    relax(t, d);
    const now = Date.now();
    if (Math.floor(now / 1000) === addressSpentIn) await sleep(1010 - (now % 1000));
    if (t.request.headers['Idempotency-Key'] !== undefined) t.request.headers['Idempotency-Key'] = `contract-${crypto.randomUUID()}`;
    if (!d.isPublic) auth(t, ctx.keys.test);

    const isSuccess = d.status >= 200 && d.status < 300;
    if (isSuccess) {
      if (pending.has(d.op)) return skip(t, 'operation not built yet: it answers 501 not_implemented (its 501 transaction runs instead)');
      const build = success[d.op];
      if (!build) return void (t.fail = `no request builder for ${d.op} (add one to test/contract/hooks.cjs)`);
      if (d.op === 'downloadFile' && (d.responseType === 'image/webp' || d.responseType === 'image/heic')) {
        return skip(t, 'no WEBP or HEIC original in the test data to store and download');
      }
      if (d.op === 'getAnalysisFile' && (d.responseType === 'image/webp' || d.responseType === 'image/heic')) {
        return skip(t, 'no WEBP or HEIC original in the test data to store and download');
      }
      const onAnswer = await build(t, d);
      if (onAnswer) after.set(t, onAnswer);
      return;
    }
    if (pending.has(d.op) && [402, 404, 409, 503].includes(d.status)) {
      return skip(t, 'operation not built yet: its handler answers 501 before it could find a resource, spend credits or call a provider');
    }
    const provoked = await provoke(t, d);
    if (provoked !== true) skip(t, provoked || skipReason(d));
  })()
    .catch((err) => {
      t.fail = `hook error: ${err && err.stack ? err.stack : err}`;
    })
    .finally(() => done());
});

hooks.beforeEachValidation((t) => {
  const real = t.real;
  const type = real.headers['content-type'];
  const expected = t.expected.headers['Content-Type'];
  if (type && expected && type.split(';')[0].trim() === expected) real.headers['content-type'] = expected;
});

hooks.afterEach((t) => {
  if (t.skip || !t.real) return;
  // The full schema check of the answer (the 3.1 document the server serves).
  const isJson = /json/.test(t.real.headers['content-type'] || '');
  const headers = new Headers();
  for (const [k, v] of Object.entries(t.real.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : String(v));
  let body = t.real.body;
  if (isJson && body) body = JSON.parse(body);
  if (schemaCheck) {
    try {
      assertMatchesSpec(t.request.method, t.fullPath, { status: t.real.statusCode, headers, body });
    } catch (err) {
      // A string in `fail` fails the transaction with that message (Dredd prints it after "Failed in after hook").
      failures++;
      t.fail = err.message;
      if (t.test && !t.test.valid) t.test.message = `${t.test.message}\n${err.message}`;
    }
  }
  const onAnswer = after.get(t);
  if (onAnswer && t.real.statusCode < 300) onAnswer(body, t.real);
});

hooks.afterAll((_transactions, done) => {
  const total = [...skipped.values()].reduce((n, l) => n + l.length, 0);
  console.log(`\ncontract: ${total} transaction(s) skipped, by reason:`);
  for (const [reason, names] of skipped) {
    console.log(`  - ${reason} (${names.length})`);
    if (process.env.COTEJO_CONTRACT_VERBOSE) for (const n of names) console.log(`      ${n}`);
  }
  if (failures) console.log(`contract: ${failures} answer(s) did not match the OpenAPI 3.1 schema`);
  done();
});
