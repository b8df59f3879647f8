// `npm run mock`: Prism on generated/openapi.json, as a frontend team prototyping against it sees it. Each error
// status answers its own example (it once answered one 422 body about the type 'es_dnii' for every status, 401 and
// 404 included) and each list its own `url` (it once said `"url": "string"`). test/unit/openapi-examples.test.ts
// checks the examples in the document; this checks that Prism really answers them.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.ts';
import { startPrism, type RunningPrism } from '../support/prism.ts';
import { isList, mediaExamples, pathExample, readDocument, responses, specErrors, strings, type Response } from '../support/examples.ts';

const doc = readDocument();
const { typeByStatus } = specErrors();

let prism: RunningPrism | undefined;
let base = '';

beforeAll(async () => {
  prism = await startPrism();
  base = prism.baseUrl;
}, 60_000);

afterAll(async () => {
  await prism?.stop();
});

const isPublic = (r: Response) => ((r.operation.security ?? doc.security ?? []) as object[]).some((s) => Object.keys(s).length === 0);

/** The route with each path parameter replaced by its example. */
const url = (r: Response) => base + r.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(pathExample(r.operation, name) ?? name));

async function call(r: Response, headers: Record<string, string> = {}) {
  const res = await fetch(url(r), {
    method: r.method,
    headers: { ...(isPublic(r) ? {} : { Authorization: 'Bearer ck_test_mock' }), ...headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const all = responses(doc);
// Operations without a request body: Prism answers them with no more than their path examples.
const noBody = all.filter((r) => !r.operation.requestBody);

describe('the mock (npm run mock)', () => {
  it('answers a request without a key with 401 missing_api_key', async () => {
    const r = all.find((x) => x.operationId === 'getAnalysis' && x.status === 401)!;
    const res = await call(r, { Authorization: '' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication', code: 'missing_api_key', param: 'Authorization' });
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('answers every error status with its own example (Prefer: code=<status>)', async () => {
    const errors = noBody.filter((r) => r.status >= 400);
    expect(errors.length).toBeGreaterThan(150);
    const problems: string[] = [];
    for (const r of errors) {
      const res = await call(r, { Prefer: `code=${r.status}` });
      const at = `${r.method} ${r.path} ${r.status}`;
      const expected = mediaExamples(doc, r.content['application/json']).answered;
      if (res.status !== r.status) problems.push(`${at}: answered ${res.status}`);
      else if (JSON.stringify(res.body) !== JSON.stringify(expected)) problems.push(`${at}: answered ${JSON.stringify(res.body)}`);
      else if (res.body.error.type !== typeByStatus.get(r.status)) problems.push(`${at}: type ${res.body.error.type}`);
      else if (res.body.error.request_id !== res.headers.get('x-request-id')) problems.push(`${at}: request_id differs from X-Request-Id`);
    }
    expect(problems).toEqual([]);
    // One operation's statuses, answered: all different.
    const codes = await Promise.all(
      errors.filter((r) => r.operationId === 'getAnalysis').map(async (r) => (await call(r, { Prefer: `code=${r.status}` })).body.error.code),
    );
    expect(codes).toEqual(['missing_api_key', 'publishable_key_not_allowed', 'resource_missing', 'invalid_parameter', 'rate_limited', 'internal_error', 'not_implemented', 'service_unavailable']);
  });

  it('answers the other example of a status with Prefer: example=<code>', async () => {
    const r = all.find((x) => x.operationId === 'getAnalysis' && x.status === 401)!;
    const res = await call(r, { Prefer: 'code=401, example=invalid_api_key' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication', code: 'invalid_api_key' });
  });

  it('answers errors of a POST with a valid body (402, 413, 503 on POST /v1/analyze)', async () => {
    // A 503 is a dependency away (service_unavailable, the first example) or live mode off (its other example).
    const expected = { 402: 'insufficient_credits', 413: 'file_too_large', 503: 'service_unavailable', '503, example=live_mode_unavailable': 'live_mode_unavailable' } as const;
    for (const [status, code] of Object.entries(expected)) {
      const res = await fetch(`${base}/v1/analyze`, {
        method: 'POST',
        headers: { Authorization: 'Bearer ck_test_mock', 'Content-Type': 'application/json', Prefer: `code=${status}` },
        body: JSON.stringify({ file_url: 'https://files.example.com/dni_valid.jpg', options: { expect: 'es_dni' } }),
      });
      expect(res.status).toBe(Number(status.split(',')[0]));
      expect((await res.json()).error.code).toBe(code);
    }
  });

  it('answers every list with real items and its own path as url', async () => {
    const lists = noBody.filter((r) => r.status === 200 && r.content['application/json'] && isList(doc, r.content['application/json']));
    expect(lists.length).toBe(7);
    for (const r of lists) {
      const res = await call(r);
      expect(res.status, r.path).toBe(200);
      expect(res.body, r.path).toMatchObject({ object: 'list', url: r.path, has_more: false });
      expect(res.body.data.length, r.path).toBeGreaterThan(0);
      expect(strings(res.body).filter(([at, s]) => s === 'string' && !at.endsWith('.type')), r.path).toEqual([]);
    }
  });
});

describe('npm run mock -- --port N', () => {
  it('listens on that port alone (the script once hard-coded --port 4010 and Prism crashed on two ports)', async () => {
    const port = await freePort();
    // npm and the script under it in their own process group, stopped together.
    const npm = spawn('npm', ['run', 'mock', '--', '--port', String(port)], { cwd: path.resolve(import.meta.dirname, '../..'), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no Prism on ${port}:\n${out}`)), 60_000);
        const onData = (d: Buffer) => {
          out += String(d);
          if (out.includes(`Prism is listening on http://127.0.0.1:${port}`)) {
            clearTimeout(timer);
            resolve();
          }
        };
        npm.stdout.on('data', onData);
        npm.stderr.on('data', onData);
        npm.once('exit', (code) => reject(new Error(`npm run mock exited (${code}):\n${out}`)));
      });
      const res = await fetch(`http://127.0.0.1:${port}/v1/analyses/an_01JPB2M4N6P8Q0R2S4T6V8W0X2`, { headers: { Authorization: 'Bearer ck_test_mock' } });
      expect(res.status).toBe(200);
      expect((await res.json()).object).toBe('analysis');
    } finally {
      process.kill(-npm.pid!, 'SIGTERM');
      await exited;
    }
  }, 90_000);

  it('refuses a port that is not one, before starting Prism', () => {
    const r = spawnSync(process.execPath, ['scripts/mock.ts', '--port', 'eighty'], { cwd: path.resolve(import.meta.dirname, '../..'), encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('npm run mock: --port must be an integer from 1 to 65535 (got "eighty")\n');
  });
});
