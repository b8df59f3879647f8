// Issue #28 "Speed stays": a live batch of 100 mixed documents (ID photos, text PDFs, receipt photos, scanned pages)
// from the 202 of `POST /v1/batches` to `batch.completed`, read by two worker processes sharing one PostgreSQL.
//
// Everything is real: a fresh PostgreSQL database (created here, dropped at the end) on DATABASE_URL's server (default
// postgres://postgres@127.0.0.1:5432/test); two `node server/src/main.ts` processes with the documented variables of
// an N-process deployment (docs/deployment.md), both running their worker (default `COTEJO_WORKER`), sharing the
// database and one files directory (one machine: the local store stands for the S3 bucket); a live account made with
// the operator's CLI; a webhook endpoint subscribed to `batch.completed` that is this bench's own HTTPS receiver
// (bench/lib/webhook-receiver.ts: self-signed certificate given to the servers through NODE_EXTRA_CA_CERTS, every
// delivery's signature verified); the batch posted as multipart `files[]` as the contract says.
//
// Seconds per document kind: each worker process reads one analysis job at a time (jobs/worker.ts), so a process's
// documents, in the order they completed, follow one another: a document's time is from the previous completion by
// the same process (the 202, for its first) to its own (the reading plus the job's own work: fetching the original,
// checks, writes). The process of each job is the jobs table's `locked_by`.
//
// Usage: node bench/live-batch.ts [--size N] [--timeout-min M] [--default-allocator]
//   (node 24, node_modules/.bin first on PATH); the servers run with the allocator settings of docs/deployment.md
//   (bench/lib/server.ts ALLOCATOR_ENV) unless --default-allocator.
// Writes its section of bench/results/reading-speed.md (a run with --size other than 100 prints it only).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { execSync } from 'node:child_process';
import pg from 'pg';
import { allocatorEnv, allocatorNote, cleanup, freshDatabase, liveAccount, ROOT, startServer, tempDir, type Server } from './lib/server.ts';
import { startBenchReceiver, type Received } from './lib/webhook-receiver.ts';

const SETS = resolve(ROOT, '../shared/testdata');
const DEV = join(SETS, 'documents-dev');
const OUT = join(import.meta.dirname, 'results/reading-speed.md');
const START = '<!-- live-batch:start -->';
const END = '<!-- live-batch:end -->';
const GOAL_S = 120;
/** How long the bench waits for `batch.completed` (--timeout-min, default 60: a loaded machine takes many times the goal). */
const timeoutArg = process.argv.indexOf('--timeout-min');
const COMPLETION_TIMEOUT_MS = (timeoutArg >= 0 ? Number(process.argv[timeoutArg + 1]) : 60) * 60_000;

const sizeArg = process.argv.indexOf('--size');
const SIZE = sizeArg >= 0 ? Number(process.argv[sizeArg + 1]) : 100;

// ---------------------------------------------------------------- the documents

const KINDS = ['id-photo', 'text-pdf', 'receipt-photo', 'scanned-page'] as const;
type Kind = (typeof KINDS)[number];
/** Shares of the batch: ID photos, text PDFs, receipt photos, scanned pages. */
const SHARE: Record<Kind, number> = { 'id-photo': 0.3, 'text-pdf': 0.25, 'receipt-photo': 0.3, 'scanned-page': 0.15 };

const dev = JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Array<{ path: string; category: string; capture?: string }>;
const devRel = (p: string) => relative(SETS, join(DEV, p));
const pools: Record<Kind, string[]> = {
  'id-photo': dev.filter((e) => ['mrz', 'mrz-flagged', 'id-fronts'].includes(e.category)).map((e) => devRel(e.path)),
  'text-pdf': [
    ...dev.filter((e) => e.path.endsWith('.pdf') && !/image-only|scanned/i.test(e.capture ?? '')).map((e) => devRel(e.path)),
    ...['documents/invoices/mustang-zugferd', 'documents/invoices/invoice2data'].flatMap((d) =>
      execSync(`ls ${join(SETS, d)}`).toString().split('\n').filter((n) => n.endsWith('.pdf')).map((n) => `${d}/${n}`)),
  ],
  'receipt-photo': dev.filter((e) => e.category === 'receipts' && !e.path.endsWith('.pdf')).map((e) => devRel(e.path)),
  'scanned-page': [
    ...dev.filter((e) => /image-only|scanned/i.test(e.capture ?? '') || (e.category === 'invoices' && !e.path.endsWith('.pdf'))).map((e) => devRel(e.path)),
    ...execSync(`ls ${join(SETS, 'documents/invoices/invoice2data')}`).toString().split('\n').filter((n) => n.endsWith('.png')).map((n) => `documents/invoices/invoice2data/${n}`),
  ],
};
/** `n` files spread evenly over a pool (deterministic), repeating the pool when it is shorter. */
const spread = (pool: string[], n: number) => Array.from({ length: n }, (_, i) => pool[Math.floor((i * pool.length) / n) % pool.length]);
const counts = Object.fromEntries(KINDS.map((k) => [k, Math.round(SHARE[k] * SIZE)])) as Record<Kind, number>;
counts['receipt-photo'] += SIZE - KINDS.reduce((a, k) => a + counts[k], 0);
// Interleaved, as a client's batch would be: not all the slow ones at the end.
const byKind = Object.fromEntries(KINDS.map((k) => [k, spread(pools[k], counts[k])])) as Record<Kind, string[]>;
const docs: Array<{ rel: string; kind: Kind }> = [];
for (let i = 0; docs.length < SIZE; i++) for (const k of KINDS) if (i < byKind[k].length) docs.push({ rel: byKind[k][i], kind: k });

// ---------------------------------------------------------------- run

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};
const s1 = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : '-');
const s2 = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : '-');

const load0 = loadavg().map((x) => x.toFixed(2)).join(' ');
const rx = await startBenchReceiver();
let section = '';
try {
  const dir = tempDir('cotejo-live-batch-');
  writeFileSync(join(dir, 'receiver-ca.pem'), rx.ca);
  const dbUrl = await freshDatabase('cotejo_live_batch');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...allocatorEnv(process.argv),
    DATABASE_URL: dbUrl,
    COTEJO_DATA_DIR: join(dir, 'data'),
    COTEJO_SIGNING_SECRET: 'b'.repeat(40),
    // The receiver is a loopback HTTPS server with its own certificate.
    COTEJO_ALLOW_PRIVATE_URLS: 'true',
    NODE_EXTRA_CA_CERTS: join(dir, 'receiver-ca.pem'),
    MISTRAL_API_KEY: '',
  };
  // The first process migrates the database; the second finds it done.
  const a = await startServer('a', env);
  const b = await startServer('b', env);
  const procs: Server[] = [a, b];
  const acc = liveAccount(env, 10_000);
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(a.url + route, {
      method,
      headers: { Authorization: `Bearer ${acc.keys.live}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const endpoint = await call('POST', '/v1/webhook-endpoints', { url: rx.url('/batch'), events: ['batch.completed'] });
  if (endpoint.status !== 201 && endpoint.status !== 200) throw new Error(`webhook endpoint: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
  rx.secrets.set('/batch', endpoint.body.secret);

  // Both processes warm, as a running service's are: each reads an ID photo, a text PDF and a receipt first (the
  // engines load on first use and stay), synchronously, not counted.
  const warm = [pools['id-photo'][0], pools['text-pdf'][0], pools['receipt-photo'][0]];
  for (const p of procs) {
    for (const rel of warm) {
      const fd = new FormData();
      fd.append('file', new Blob([readFileSync(join(SETS, rel))]), basename(rel));
      const r = await fetch(`${p.url}/v1/analyze`, { method: 'POST', headers: { Authorization: `Bearer ${acc.keys.live}` }, body: fd });
      await r.arrayBuffer();
    }
  }

  // Resident sets of both processes while the batch runs.
  const peaks = [0, 0];
  const sampler = setInterval(() => procs.forEach((p, i) => {
    try {
      peaks[i] = Math.max(peaks[i], p.rss());
    } catch {
      // ended
    }
  }), 100);
  const idle = procs.map((p) => p.rss());
  const cpu0 = procs.map((p) => p.cpu());

  let done: (r: Received) => void;
  const completed = new Promise<Received>((ok) => (done = ok));
  rx.onReceive = (r) => {
    if (r.body?.type === 'batch.completed') done(r);
  };
  const fd = new FormData();
  for (const d of docs) fd.append('files[]', new Blob([readFileSync(join(SETS, d.rel))]), basename(d.rel));
  const bytes = docs.reduce((n, d) => n + readFileSync(join(SETS, d.rel)).length, 0);
  const t0 = performance.now();
  const res = await fetch(`${a.url}/v1/batches`, { method: 'POST', headers: { Authorization: `Bearer ${acc.keys.live}` }, body: fd });
  const batch = (await res.json()) as { id: string; analyses: string[]; status: string };
  const t202 = performance.now();
  const at202 = Date.now();
  if (res.status !== 202) throw new Error(`POST /v1/batches: ${res.status} ${JSON.stringify(batch)}`);
  console.error(`202 ${batch.id} after ${s2(t202 - t0)} s; waiting for batch.completed`);
  const progress = setInterval(async () => {
    const c = await call('GET', `/v1/batches/${batch.id}`).catch(() => null);
    if (c) console.error(`${s1(performance.now() - t202)} s: ${JSON.stringify(c.body.counts)}`);
  }, 15_000);
  const event = await Promise.race([
    completed,
    new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`no batch.completed in ${COMPLETION_TIMEOUT_MS / 60_000} minutes`)), COMPLETION_TIMEOUT_MS)),
  ]);
  const tDone = performance.now();
  clearInterval(progress);
  clearInterval(sampler);
  const cpu = procs.map((p, i) => p.cpu() - cpu0[i]);
  const cpuAll = cpu[0] + cpu[1];
  const final = await call('GET', `/v1/batches/${batch.id}`);

  // Per document: which process read it, when it completed.
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const { rows } = await db.query<{ id: string; file_name: string; status: string; document_type: string | null; completed_at: Date; locked_by: string; attempts: number }>(
    `select a.id, a.file_name, a.status, a.document_type, a.completed_at, j.locked_by, j.attempts
       from analyses a join jobs j on j.payload->>'analysis_id' = a.id
      where a.batch_id = $1`,
    [batch.id],
  );
  await db.end();
  const kindOf = new Map(batch.analyses.map((id, i) => [id, docs[i].kind]));
  const secondsOf = new Map<string, number>();
  const byProcess = new Map<string, typeof rows>();
  for (const r of rows) byProcess.set(r.locked_by, [...(byProcess.get(r.locked_by) ?? []), r]);
  for (const list of byProcess.values()) {
    list.sort((x, y) => x.completed_at.getTime() - y.completed_at.getTime());
    let prev = at202;
    for (const r of list) {
      secondsOf.set(r.id, r.completed_at.getTime() - prev);
      prev = r.completed_at.getTime();
    }
  }
  const kindRows = KINDS.map((k) => {
    const ms = rows.filter((r) => kindOf.get(r.id) === k).map((r) => secondsOf.get(r.id)!);
    const sum = ms.reduce((x, y) => x + y, 0);
    return `| ${k} | ${ms.length} | ${s2(sum / ms.length)} | ${s2(pct(ms, 50))} | ${s2(pct(ms, 95))} | ${s2(Math.max(...ms))} | ${s1(sum)} |`;
  });
  const wall = tDone - t202;
  const statuses = rows.reduce<Record<string, number>>((o, r) => ((o[r.status] = (o[r.status] ?? 0) + 1), o), {});
  const perProcess = [...byProcess.values()].map((l) => l.length).join(' and ');
  const retried = rows.filter((r) => r.attempts > 1).length;
  section = [
    START,
    '## A live batch of 100 mixed documents, two worker processes on one PostgreSQL (`bench/live-batch.ts`)',
    '',
    `Run \`node bench/live-batch.ts\` (commit ${execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim()}, ${new Date().toISOString().slice(0, 16)}Z). Machine: ${cpus().length} cores ` +
      `(${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, **busy with other engineers' work** (load average ${load0} at start, ` +
      `${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end).`,
    `Two \`node server/src/main.ts\` processes, each with its worker (one analysis job at a time each, COTEJO_READING_CONCURRENCY default), ${allocatorNote(process.argv)}, ` +
      'both warm (each read an ID photo, a text PDF and a receipt first, not counted), ' +
      'one fresh PostgreSQL database and one files directory; a live account made with the CLI; a webhook endpoint for `batch.completed` at the ' +
      `bench's own HTTPS receiver. ${SIZE} documents (${(bytes / 2 ** 20).toFixed(1)} MB) in one multipart \`POST /v1/batches\` (\`files[]\`): ` +
      KINDS.map((k) => `${counts[k]} ${k}`).join(', ') + ', interleaved; files from ../shared/testdata/documents-dev and documents (repeated where a pool is smaller).',
    '',
    `- upload to 202: ${s2(t202 - t0)} s`,
    `- **202 to \`batch.completed\` at the receiver: ${s1(wall)} s** (goal: at most ${GOAL_S} s: ${wall / 1000 <= GOAL_S ? 'met' : 'not met'}); signature verified: ${event.verified ? 'yes' : 'NO'}; ` +
      `the batch says ${final.body.status}, counts ${JSON.stringify(final.body.counts)}`,
    `- analyses: ${JSON.stringify(statuses)}; read by the two processes: ${perProcess}${retried ? `; ${retried} retried` : ''}`,
    `- CPU used by the two processes during the batch: ${cpu.map((x) => x.toFixed(0)).join(' + ')} = **${cpuAll.toFixed(0)} CPU seconds** (${(cpuAll / SIZE).toFixed(2)} a document): ` +
      `with 2 cores to themselves the batch needs at least ${(cpuAll / 2).toFixed(0)} s`,
    `- resident set per process: ${idle.map((x) => x.toFixed(0)).join(' and ')} MB at the start, peak ${peaks.map((x) => x.toFixed(0)).join(' and ')} MB`,
    '',
    'Seconds per document kind (a document\'s time: from the previous completion by the same process, or the 202, to its own):',
    '',
    '| kind | documents | mean s | p50 s | p95 s | max s | seconds in all |',
    '|---|---|---|---|---|---|---|',
    ...kindRows,
    END,
  ].join('\n');
  console.log(section);
} finally {
  await rx.close();
  await cleanup();
}
if (SIZE === 100) {
  let previous = '';
  try {
    previous = readFileSync(OUT, 'utf8');
  } catch {
    previous = '# Reading speed and memory (issue #28, "Speed stays")\n';
  }
  const re = new RegExp(`${START}[\\s\\S]*${END}`);
  writeFileSync(OUT, re.test(previous) ? previous.replace(re, section) : `${previous.trimEnd()}\n\n${section}\n`);
  console.error(`wrote ${relative(ROOT, OUT)}`);
}
process.exit(0);
