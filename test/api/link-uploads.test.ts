/**
 * The hosted page under concurrency and failure (#31), through the page's own endpoint (POST /l/<token>/documents/<key>)
 * on the real app and both databases: uploads sent at once to one document make one analysis and one attempt (the
 * attempt is claimed under the link's row lock before anything is read); at most 5 attempts ever; an upload whose body
 * arrives after the document closed gets the page's `document_closed`, never a 500; and a follow-up of a settled
 * analysis that fails (the link attempt's judgement) is queued as a durable job and done when it is tried again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLLOW_UP_QUEUE, runOneFollowUpJob, settledFollowUps } from '../../server/src/domain/lifecycle.ts';
import { UPLOAD_CLAIM_TTL_MS } from '../../server/src/domain/links/page.ts';
import type { Services } from '../../server/src/http/context.ts';
import { runOneAnalysisJob } from '../../server/src/jobs/worker.ts';
import { DATABASES, ManualClock, startTestApp, type TestApp } from '../support/app.ts';
import { fixtures } from '../support/files.ts';

/** The app's logger, every line at a level method also kept (as JSON) in `lines`. */
function captureLogger(real: Services['logger'], lines: string[]): Services['logger'] {
  const levels = new Set(['warn', 'error', 'fatal']);
  return new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof prop !== 'string' || !levels.has(prop)) return value;
      return (obj: unknown, ...rest: unknown[]) => {
        lines.push(JSON.stringify({ level: prop, obj, rest }, (_k, v) => (v instanceof Error ? v.message : v)));
        return (value as (...a: unknown[]) => void).call(target, obj, ...rest);
      };
    },
  });
}

describe.each(DATABASES)('hosted page uploads under concurrency (%s)', (kind) => {
  let app: TestApp;
  const clock = new ManualClock(Date.now());
  const lines: string[] = [];
  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
    app.services.logger = captureLogger(app.services.logger, lines);
  });
  afterAll(async () => {
    await app?.close();
  });

  async function newLink(documents: Array<Record<string, unknown>>) {
    const acct = await app.newAccount({ rateLimitPerSecond: 100_000 });
    const res = await app.request('POST', '/v1/verification-links', { key: acct.keys.test, json: { documents } });
    expect(res.status).toBe(201);
    const path = new URL(res.body.url).pathname;
    const consent = await page(`${path}/consent`, { method: 'POST' });
    expect(consent.status).toBe(303);
    return { id: res.body.id as string, path, key: acct.keys.test, account: acct.account };
  }
  const page = (path: string, init: RequestInit = {}) => fetch(app.baseUrl + path, { redirect: 'manual', ...init });
  const upload = (path: string, key: string, name: string, opts: { json?: boolean } = { json: true }) => {
    const fd = new FormData();
    fd.append('file', new Blob([fixtures.jpeg() as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), name);
    return page(`${path}/documents/${key}`, { method: 'POST', body: fd, headers: opts.json ? { Accept: 'application/json' } : {} });
  };
  const answer = async (res: Response) => ({ status: res.status, body: res.headers.get('content-type')?.includes('json') ? await res.json() : null });
  const link = async (l: { id: string; key: string }) => (await app.request('GET', `/v1/verification-links/${l.id}`, { key: l.key })).body;
  const analysesOf = async (account: string) => app.services.db.selectFrom('analyses').select('id').where('account_id', '=', account).execute();

  it('ten uploads at once to one document: one answers 200 and makes the one analysis and attempt; the others are 409 document_closed', async () => {
    const l = await newLink([{ key: 'dni', expect: 'es_dni' }, { key: 'other', expect: 'es_dni' }]);
    const answers = await Promise.all(Array.from({ length: 10 }, () => upload(l.path, 'dni', 'dni_valid.jpg').then(answer)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0].body).toMatchObject({ result: 'accepted', key: 'dni' });
    const others = answers.filter((a) => a.status !== 200);
    expect(others).toEqual(Array(9).fill({ status: 409, body: { error: { code: 'document_closed' }, next: l.path } }));
    const got = await link(l);
    expect(got.documents[0]).toMatchObject({ status: 'completed', attempts: 1, verdict_status: 'valid' });
    expect(got.events.filter((e: { type: string }) => e.type === 'document_uploaded')).toHaveLength(1);
    expect(await analysesOf(l.account)).toHaveLength(1);
  });

  it('bursts of blurry photos: exactly 5 attempts and 5 analyses ever, one in flight at a time; every other answer is document_closed or link_unavailable, never a 500', async () => {
    const l = await newLink([{ key: 'dni', expect: 'es_dni' }]);
    const all: Array<{ status: number; body: any }> = [];
    for (let round = 0; round < 8; round++) {
      all.push(...(await Promise.all(Array.from({ length: 4 }, () => upload(l.path, 'dni', 'blurry.jpg').then(answer)))));
    }
    const ok = all.filter((a) => a.status === 200);
    expect(ok.map((a) => a.body.result)).toEqual(['retry', 'retry', 'retry', 'retry', 'rejected']);
    for (const a of all.filter((x) => x.status !== 200)) {
      expect([409, 410]).toContain(a.status);
      expect(a.body.error.code).toBe(a.status === 409 ? 'document_closed' : 'link_unavailable');
    }
    const got = await link(l);
    expect(got.status).toBe('completed');
    expect(got.documents[0]).toMatchObject({ status: 'failed', attempts: 5 });
    expect(got.events.filter((e: { type: string }) => e.type === 'document_uploaded')).toHaveLength(5);
    expect(await analysesOf(l.account)).toHaveLength(5);
  });

  it('an upload whose body arrives after another closed the document gets document_closed (409 to the script, 303 to a form), not a 500', async () => {
    for (const json of [true, false]) {
      const l = await newLink([{ key: 'dni', expect: 'es_dni' }, { key: 'other', expect: 'es_dni' }]);
      // The late upload: its headers now (the page looks the link up before reading a body), its file later.
      const boundary = '----late' + Math.random().toString(36).slice(2);
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="dni_valid.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(head));
          await held;
          controller.enqueue(fixtures.jpeg());
          controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
          controller.close();
        },
      });
      const late = page(`${l.path}/documents/dni`, {
        method: 'POST',
        body,
        duplex: 'half',
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, ...(json ? { Accept: 'application/json' } : {}) },
      } as RequestInit);
      await new Promise((r) => setTimeout(r, 300));
      // Meanwhile another upload is accepted: the document is closed.
      const first = await answer(await upload(l.path, 'dni', 'dni_valid.jpg'));
      expect(first).toMatchObject({ status: 200, body: { result: 'accepted' } });
      release();
      const res = await late;
      if (json) {
        expect(res.status).toBe(409);
        expect(await res.json()).toEqual({ error: { code: 'document_closed' }, next: l.path });
      } else {
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe(l.path);
      }
      const got = await link(l);
      expect(got.documents[0]).toMatchObject({ status: 'completed', attempts: 1 });
      expect(await analysesOf(l.account)).toHaveLength(1);
    }
  });

  it('an intake refusal releases the claimed attempt; a claim left by a process that died is taken over after UPLOAD_CLAIM_TTL_MS', async () => {
    const l = await newLink([{ key: 'dni', expect: 'es_dni' }]);
    const fd = new FormData();
    fd.append('file', new Blob([new TextEncoder().encode('not a document at all')], { type: 'text/plain' }), 'x.txt');
    const refused = await page(`${l.path}/documents/dni`, { method: 'POST', body: fd, headers: { Accept: 'application/json' } });
    expect(refused.status).toBe(415);
    expect((await link(l)).documents[0]).toMatchObject({ status: 'pending', attempts: 0 });

    // A process died between claiming and making the analysis: the claim stays on the row.
    const row = await app.services.db.selectFrom('verification_links').select('documents').where('id', '=', l.id).executeTakeFirstOrThrow();
    const documents = row.documents.map((d) => ({ ...d, status: 'processing' as const, attempts: d.attempts + 1, upload: { id: 'dead', at: clock.now().toISOString() } }));
    await app.services.db.updateTable('verification_links').set({ documents: JSON.stringify(documents) as never }).where('id', '=', l.id).execute();
    expect(await answer(await upload(l.path, 'dni', 'dni_valid.jpg'))).toEqual({ status: 409, body: { error: { code: 'document_closed' }, next: l.path } });
    clock.advance(UPLOAD_CLAIM_TTL_MS + 1000);
    const state = await (await page(`${l.path}/state`)).json();
    expect(state.documents[0]).toMatchObject({ status: 'pending', attempts_left: 5 });
    expect(await answer(await upload(l.path, 'dni', 'dni_valid.jpg'))).toMatchObject({ status: 200, body: { result: 'accepted' } });
    expect((await link(l)).documents[0]).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('a link attempt whose judgement fails when its analysis settles is logged at error level, queued, and judged when tried again', async () => {
    const l = await newLink([{ key: 'dni', expect: 'es_dni' }]);
    // Longer than the synchronous wait: judged when its analysis finishes in the worker.
    const out = await answer(await upload(l.path, 'dni', 'dni_slow.jpg'));
    expect(out).toMatchObject({ status: 200, body: { result: 'processing' } });
    const real = settledFollowUps.links;
    let failures = 2;
    settledFollowUps.links = async (s, id) => {
      if (failures-- > 0) throw new Error('the link could not be judged just now');
      return real(s, id);
    };
    try {
      lines.length = 0;
      clock.advance(60_000);
      while (await runOneAnalysisJob(app.services));
      expect((await link(l)).documents[0]).toMatchObject({ status: 'processing' });
      expect(lines.some((x) => x.includes('"level":"error"') && x.includes('queued to be tried again') && x.includes('"follow_up":"links"'))).toBe(true);
      const queued = await app.services.db.selectFrom('jobs').selectAll().where('queue', '=', FOLLOW_UP_QUEUE).where('status', '=', 'pending').execute();
      expect(queued).toHaveLength(1);

      // Not due yet; then due, and it fails once more (logged, another try later); then it is done.
      expect(await runOneFollowUpJob(app.services)).toBe(false);
      clock.advance(5_000);
      expect(await runOneFollowUpJob(app.services)).toBe(true);
      expect((await link(l)).documents[0]).toMatchObject({ status: 'processing' });
      expect(lines.some((x) => x.includes('"level":"error"') && x.includes('failed again'))).toBe(true);
      clock.advance(30_000);
      expect(await runOneFollowUpJob(app.services)).toBe(true);
      const got = await link(l);
      expect(got.status).toBe('completed');
      expect(got.documents[0]).toMatchObject({ status: 'completed', attempts: 1, verdict_status: 'valid' });
      expect((await app.services.db.selectFrom('jobs').select('status').where('id', '=', queued[0].id).executeTakeFirstOrThrow()).status).toBe('done');
    } finally {
      settledFollowUps.links = real;
    }
  });
});
