// Soak (#31): many test-mode analyses with `storage: none` and `keep_results: false` and a webhook endpoint on,
// through a real server process on a fresh PostgreSQL database (created and dropped here). Reports the database
// size and row counts per table before, at checkpoints during, after the run, and after the retention sweeps (forced:
// the server is restarted with the shortest COTEJO_RETENTION_* periods, 1 minute, once a minute has passed).
// What is not a kept result must not grow with the number of analyses.
//
// Usage: node bench/soak.ts [--count 100000] [--concurrency 4] [--checkpoints 5] [--no-write]
// Writes bench/results/soak.md (replaced).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { noiseRgb } from '../test/support/noise.ts';
import { arg, createAccountWithCli, freshStore, dropStore, machine, ROOT, sleep, startCotejo, stop, tempDir, utcMinute, type Cotejo } from './lib/harness.ts';
import { startBenchReceiver } from './lib/webhook-receiver.ts';

const COUNT = Number(arg('--count')) || 100_000;
const CONCURRENCY = Number(arg('--concurrency')) || 4;
const CHECKPOINTS = Number(arg('--checkpoints')) || 5;
const WRITE = !process.argv.includes('--no-write');
const OUT = join(import.meta.dirname, 'results/soak.md');
/** Test-mode names (the name selects the simulated reading): `blurry.jpg` also makes an `analysis.review_required`. */
const NAMES = ['dni_valid.jpg', 'passport.jpg', 'blurry.jpg', 'es_passport.jpg', 'driving_license.jpg'];

const log = (m: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${m}\n`);

/** A 200x120 JPEG of about 2 KB; test mode reads only the file name. */
async function smallJpeg(): Promise<Buffer> {
  const { raw, info } = noiseRgb(200, 120);
  return sharp(raw, info).blur(3).jpeg({ quality: 70 }).toBuffer();
}

function multipart(file: Buffer, filename: string, options: string): { body: Buffer; contentType: string } {
  const boundary = `----cotejo-soak-${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="options"\r\n\r\n${options}\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

interface Snapshot {
  label: string;
  analyses: number;
  dbBytes: number;
  tables: Map<string, { rows: number; bytes: number }>;
}

async function snapshot(client: pg.Client, label: string, analyses: number): Promise<Snapshot> {
  const { rows: names } = await client.query<{ t: string; bytes: string }>(
    `select c.relname as t, pg_total_relation_size(c.oid) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind = 'r' and n.nspname = 'public' order by c.relname`,
  );
  const tables = new Map<string, { rows: number; bytes: number }>();
  for (const { t, bytes } of names) {
    const { rows } = await client.query<{ n: string }>(`select count(*) as n from "${t.replace(/"/g, '""')}"`);
    tables.set(t, { rows: Number(rows[0].n), bytes: Number(bytes) });
  }
  const { rows } = await client.query<{ b: string }>('select pg_database_size(current_database()) as b');
  return { label, analyses, dbBytes: Number(rows[0].b), tables };
}

async function pendingWork(client: pg.Client): Promise<{ jobs: number; deliveries: number }> {
  const j = await client.query<{ n: string }>(`select count(*) as n from jobs where status in ('pending', 'running')`);
  const d = await client.query<{ n: string }>(`select count(*) as n from webhook_deliveries where status = 'pending'`);
  return { jobs: Number(j.rows[0].n), deliveries: Number(d.rows[0].n) };
}

const kb = (b: number) => `${Math.round(b / 1024)}`;

const machineLine = machine('PostgreSQL 127.0.0.1 (server process on the same machine)');
const store = freshStore('postgres', 'cotejo-soak-');
const receiver = await startBenchReceiver();
const caFile = join(tempDir('cotejo-soak-ca-'), 'ca.pem');
writeFileSync(caFile, receiver.ca);
const serverEnv = (extra: Record<string, string> = {}) => ({ COTEJO_ALLOW_PRIVATE_URLS: 'true', NODE_EXTRA_CA_CERTS: caFile, ...extra });
let cotejo: Cotejo | null = null;
const client = new pg.Client({ connectionString: store.databaseUrl });
const snaps: Snapshot[] = [];
let failures = 0;
const statuses = new Map<number, number>();
let runSeconds = 0;
try {
  const key = createAccountWithCli(ROOT, store, 10_000);
  cotejo = await startCotejo(ROOT, store, { env: serverEnv() });
  await client.connect();
  const auth = { Authorization: `Bearer ${key}` };
  const ep = await fetch(`${cotejo.baseUrl}/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url('/soak'), events: ['analysis.completed', 'analysis.review_required'] }),
  });
  const endpoint = (await ep.json()) as { id: string; secret: string };
  if (ep.status !== 201) throw new Error(`endpoint: ${ep.status} ${JSON.stringify(endpoint)}`);
  receiver.secrets.set('/soak', endpoint.secret);

  const jpeg = await smallJpeg();
  // Half synchronous, half `async: true` (a job each): both paths of the pipeline.
  const bodies = NAMES.flatMap((name) =>
    [false, true].map((async) => ({ name, async, ...multipart(jpeg, name, JSON.stringify({ storage: 'none', keep_results: false, async })) })),
  );
  snaps.push(await snapshot(client, 'before', 0));
  log(`server pid ${cotejo.pid} on ${cotejo.baseUrl}, database ${store.database}; ${COUNT} analyses, ${CONCURRENCY} at a time`);

  let next = 0;
  let done = 0;
  let expectedEvents = 0;
  const started = Date.now();
  const step = Math.ceil(COUNT / CHECKPOINTS);
  let nextCheckpoint = step;
  const one = async (i: number) => {
    const b = bodies[i % bodies.length];
    const res = await fetch(`${cotejo!.baseUrl}/v1/analyze`, { method: 'POST', headers: { ...auth, 'Content-Type': b.contentType }, body: new Uint8Array(b.body) });
    const json = (await res.json()) as { status?: string; verdict?: { status?: string } };
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status !== 200 && res.status !== 202) {
      failures++;
      if (failures <= 5) log(`analysis ${i}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
      return;
    }
    expectedEvents += 1;
  };
  const lanes = Array.from({ length: CONCURRENCY }, async () => {
    for (;;) {
      const i = next++;
      if (i >= COUNT) return;
      await one(i);
      done++;
      if (done === nextCheckpoint && done < COUNT) {
        nextCheckpoint += step;
        const rate = done / ((Date.now() - started) / 1000);
        log(`${done} analyses (${rate.toFixed(1)}/s)`);
        snaps.push(await snapshot(client, `${done} analyses`, done));
      }
    }
  });
  await Promise.all(lanes);
  // Every analysis has settled and every delivery has been sent before "after" is taken.
  for (;;) {
    const p = await pendingWork(client);
    const completed = receiver.received.filter((r) => r.body?.type === 'analysis.completed').length;
    if (p.jobs === 0 && p.deliveries === 0 && completed >= expectedEvents) break;
    log(`waiting: ${p.jobs} jobs, ${p.deliveries} deliveries pending, ${completed}/${expectedEvents} analysis.completed received`);
    await sleep(5_000);
  }
  runSeconds = (Date.now() - started) / 1000;
  log(`${COUNT} analyses in ${runSeconds.toFixed(0)} s; ${receiver.received.length} webhooks received`);
  snaps.push(await snapshot(client, 'after the run', COUNT));

  // The sweeps, forced: every period at its minimum (1 minute), once a minute has passed since the last analysis.
  await stop(cotejo.child);
  await sleep(62_000);
  cotejo = await startCotejo(ROOT, store, {
    env: serverEnv({ COTEJO_RETENTION_JOBS: '1m', COTEJO_RETENTION_EVENTS: '1m', COTEJO_RETENTION_EXPORTS: '1m', COTEJO_RETENTION_USAGE_DETAIL: '1m' }),
  });
  // The worker sweeps at start, then every minute: wait until two snapshots 20 s apart agree.
  let prev = '';
  for (let i = 0; i < 30; i++) {
    await sleep(20_000);
    const s = await snapshot(client, 'after the retention sweeps', COUNT);
    const sig = [...s.tables].map(([t, v]) => `${t}=${v.rows}`).join(',');
    if (sig === prev) {
      snaps.push(s);
      break;
    }
    prev = sig;
  }
  const unique = new Set(receiver.received.map((r) => r.webhookId)).size;
  log(`webhooks: ${receiver.received.length} received, ${unique} distinct ids, ${receiver.received.filter((r) => !r.verified).length} unverified`);

  // ---- the report ----
  const last = snaps[snaps.length - 1];
  const afterRun = snaps.find((s) => s.label === 'after the run')!;
  const before = snaps[0];
  const tables = [...afterRun.tables.keys()].filter((t) => !t.startsWith('kysely_'));
  const head = `| table | ${snaps.map((s) => s.label).join(' | ')} |`;
  const sep = `|---|${snaps.map(() => '---:').join('|')}|`;
  const rowsTable = tables.map((t) => `| ${t} | ${snaps.map((s) => s.tables.get(t)?.rows ?? 0).join(' | ')} |`);
  const sizeTable = tables.map((t) => `| ${t} | ${snaps.map((s) => kb(s.tables.get(t)?.bytes ?? 0)).join(' | ')} |`);
  const grows = tables
    .map((t) => ({ t, rows: (last.tables.get(t)?.rows ?? 0) - (before.tables.get(t)?.rows ?? 0), bytes: (last.tables.get(t)?.bytes ?? 0) - (before.tables.get(t)?.bytes ?? 0) }))
    .filter((g) => g.rows > 0);
  const md = [
    '# Soak: test-mode analyses with `storage: none`, `keep_results: false` and a webhook endpoint',
    '',
    `Generated by \`node bench/soak.ts --count ${COUNT} --concurrency ${CONCURRENCY}\` (${utcMinute()} UTC). Machine: ${machineLine}. The 2 cores are shared`,
    'with other engineers\' work: the rate is what this busy machine gave, not a capacity figure.',
    '',
    'A real server process (`node server/src/main.ts`, worker on, defaults) on a fresh PostgreSQL database created and',
    'dropped by the bench; one account, one HTTPS webhook endpoint (a local receiver answering 200) for',
    '`analysis.completed` and `analysis.review_required`. Each analysis: `POST /v1/analyze`, a 2 KB JPEG named after one',
    `of ${NAMES.length} test-mode scenarios, half synchronous and half \`async: true\`. "After the run" is taken once no job and no`,
    'delivery is pending and every `analysis.completed` arrived. The sweeps are then forced: the server is restarted with',
    '`COTEJO_RETENTION_JOBS=1m`, `COTEJO_RETENTION_EVENTS=1m`, `COTEJO_RETENTION_EXPORTS=1m`, `COTEJO_RETENTION_USAGE_DETAIL=1m` (the shortest periods) a',
    'minute after the last analysis; deliveries keep their default, the newest 100 final ones per endpoint.',
    '',
    `Run: ${COUNT} analyses in ${runSeconds.toFixed(0)} s (${(COUNT / runSeconds).toFixed(1)} per second including the wait for the last deliveries);`,
    `answers ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}; ${receiver.received.length} webhooks received (${unique} distinct ids,`,
    `${receiver.received.filter((r) => !r.verified).length} failing verification).`,
    '',
    '## Database size (pg_database_size, KiB)',
    '',
    `| | ${snaps.map((s) => s.label).join(' | ')} |`,
    `|---|${snaps.map(() => '---:').join('|')}|`,
    `| database | ${snaps.map((s) => kb(s.dbBytes)).join(' | ')} |`,
    '',
    '## Rows per table',
    '',
    head,
    sep,
    ...rowsTable,
    '',
    '## Size per table (pg_total_relation_size: heap, indexes and TOAST, KiB)',
    '',
    head,
    sep,
    ...sizeTable,
    '',
    '## What is left after the sweeps',
    '',
    grows.length === 0
      ? 'No table holds more rows than before the run.'
      : grows.map((g) => `- \`${g.t}\`: ${g.rows} rows more than before the run (${kb(g.bytes)} KiB), ${(g.rows / COUNT).toFixed(4)} per analysis.`).join('\n'),
    '',
  ].join('\n');
  if (WRITE) writeFileSync(OUT, md);
  process.stdout.write(`\n${md}\n`);
} finally {
  await client.end().catch(() => undefined);
  if (cotejo) await stop(cotejo.child);
  await receiver.close();
  dropStore(store);
}
