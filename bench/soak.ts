// Soak (#31): many test-mode analyses with `storage: none` and `keep_results: false` and a webhook endpoint on,
// through a real server process on a fresh database: the embedded PGlite in a fresh data directory (`--db pglite`,
// the default) or a fresh PostgreSQL database (`--db postgres`, created and dropped here). Reports the database size
// and row counts per table before, at checkpoints during, after the run, and after the retention sweeps (forced: the
// server is restarted with the shortest COTEJO_RETENTION_* periods, 1 minute, once a minute has passed).
// What is not a kept result must not grow with the number of analyses.
//
// PGlite belongs to the server process alone: the server is started with `--import bench/lib/pglite-stats.ts`, which
// answers the bench's row counts and sizes from inside it (under the driver's lock); the data directory's size on
// disk is read too (`du`).
//
// Usage: node bench/soak.ts [--db pglite|postgres] [--count 100000] [--concurrency 4] [--checkpoints 5]
//                           [--out bench/results/soak.md] [--no-write]
// Writes the report to --out (replaced), also after every checkpoint (marked partial) so a stopped run leaves what
// it reached.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { noiseRgb } from '../test/support/noise.ts';
import { arg, createAccountWithCli, dbOption, freePort, freshStore, dropStore, machine, ROOT, sleep, startCotejo, stop, tempDir, utcMinute, type Cotejo } from './lib/harness.ts';
import { startBenchReceiver } from './lib/webhook-receiver.ts';

const DB = dbOption();
const COUNT = Number(arg('--count')) || 100_000;
const CONCURRENCY = Number(arg('--concurrency')) || 4;
const CHECKPOINTS = Number(arg('--checkpoints')) || 5;
const WRITE = !process.argv.includes('--no-write');
const OUT = resolve(arg('--out') ?? join(import.meta.dirname, 'results/soak.md'));
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
  /** The embedded database's data directory on disk (`du -sb`), PGlite only. */
  diskBytes?: number;
  tables: Map<string, { rows: number; bytes: number }>;
}

interface Stats {
  dbBytes: number;
  tables: Record<string, { rows: number; bytes: number }>;
  pending: { jobs: number; deliveries: number };
}

/** Reads the database: a client of its own on PostgreSQL, the server's own PGlite through bench/lib/pglite-stats.ts. */
interface Probe {
  stats(): Promise<Stats>;
  close(): Promise<void>;
}

function postgresProbe(url: string): Probe {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    async stats() {
      await connected;
      const { rows: names } = await client.query<{ t: string; bytes: string }>(
        `select c.relname as t, pg_total_relation_size(c.oid) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where c.relkind = 'r' and n.nspname = 'public' order by c.relname`,
      );
      const tables: Stats['tables'] = {};
      for (const { t, bytes } of names) {
        const { rows } = await client.query<{ n: string }>(`select count(*) as n from "${t.replace(/"/g, '""')}"`);
        tables[t] = { rows: Number(rows[0].n), bytes: Number(bytes) };
      }
      const { rows } = await client.query<{ b: string }>('select pg_database_size(current_database()) as b');
      const j = await client.query<{ n: string }>(`select count(*) as n from jobs where status in ('pending', 'running')`);
      const d = await client.query<{ n: string }>(`select count(*) as n from webhook_deliveries where status = 'pending'`);
      return { dbBytes: Number(rows[0].b), tables, pending: { jobs: Number(j.rows[0].n), deliveries: Number(d.rows[0].n) } };
    },
    close: () => client.end().catch(() => undefined),
  };
}

function pgliteProbe(port: number): Probe {
  return {
    async stats() {
      for (let attempt = 0; ; attempt++) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/stats`);
          if (res.ok) return (await res.json()) as Stats;
          if (attempt >= 20) throw new Error(`stats: ${res.status} ${await res.text()}`);
        } catch (err) {
          if (attempt >= 20) throw err;
        }
        await sleep(1000);
      }
    },
    close: async () => undefined,
  };
}

const kb = (b: number) => `${Math.round(b / 1024)}`;

const machineLine = machine(DB === 'postgres' ? 'PostgreSQL 127.0.0.1 (server process on the same machine)' : 'embedded PGlite in the server process');
const store = freshStore(DB, 'cotejo-soak-');
const statsPort = DB === 'pglite' ? await freePort() : 0;
const receiver = await startBenchReceiver();
const caFile = join(tempDir('cotejo-soak-ca-'), 'ca.pem');
writeFileSync(caFile, receiver.ca);
const serverEnv = (extra: Record<string, string> = {}) => ({
  COTEJO_ALLOW_PRIVATE_URLS: 'true',
  NODE_EXTRA_CA_CERTS: caFile,
  ...(DB === 'pglite' ? { SOAK_STATS_PORT: String(statsPort) } : {}),
  ...extra,
});
const nodeArgs = DB === 'pglite' ? ['--import', join(import.meta.dirname, 'lib/pglite-stats.ts')] : [];
let cotejo: Cotejo | null = null;
const probe = DB === 'postgres' ? postgresProbe(store.databaseUrl) : pgliteProbe(statsPort);
const snaps: Snapshot[] = [];
let failures = 0;
const statuses = new Map<number, number>();
let runSeconds = 0;
let runStarted = 0;
let doneCount = 0;

function diskBytes(): number | undefined {
  if (DB !== 'pglite') return undefined;
  try {
    return Number(execFileSync('du', ['-sb', join(store.dataDir, 'pgdata')]).toString().split(/\s/)[0]);
  } catch {
    return undefined;
  }
}

async function snapshot(label: string, analyses: number): Promise<Snapshot> {
  const s = await probe.stats();
  return { label, analyses, dbBytes: s.dbBytes, diskBytes: diskBytes(), tables: new Map(Object.entries(s.tables)) };
}

function report(state: 'partial' | 'final'): string {
  const before = snaps[0];
  const last = snaps[snaps.length - 1];
  const all = [...new Set(snaps.flatMap((s) => [...s.tables.keys()]))].filter((t) => !t.startsWith('kysely_')).sort();
  // Tables that never changed (accounts, keys, dossiers...) are named once instead of filling the tables.
  const moved = all.filter((t) => snaps.some((s) => JSON.stringify(s.tables.get(t)) !== JSON.stringify(before.tables.get(t))));
  const still = all.filter((t) => !moved.includes(t));
  const head = `| table | ${snaps.map((s) => s.label).join(' | ')} |`;
  const sep = `|---|${snaps.map(() => '---:').join('|')}|`;
  const rowsTable = moved.map((t) => `| ${t} | ${snaps.map((s) => s.tables.get(t)?.rows ?? 0).join(' | ')} |`);
  const sizeTable = moved.map((t) => `| ${t} | ${snaps.map((s) => kb(s.tables.get(t)?.bytes ?? 0)).join(' | ')} |`);
  const grows = moved
    .map((t) => ({ t, rows: (last.tables.get(t)?.rows ?? 0) - (before.tables.get(t)?.rows ?? 0), bytes: (last.tables.get(t)?.bytes ?? 0) - (before.tables.get(t)?.bytes ?? 0) }))
    .filter((g) => g.rows > 0);
  const unique = new Set(receiver.received.map((r) => r.webhookId)).size;
  const elapsed = runSeconds || (Date.now() - runStarted) / 1000;
  const dbName = DB === 'postgres' ? 'a fresh PostgreSQL database created and dropped by the bench' : 'the embedded PGlite in a fresh data directory';
  return [
    `# Soak on ${DB === 'postgres' ? 'PostgreSQL' : 'PGlite'}: test-mode analyses with \`storage: none\`, \`keep_results: false\` and a webhook endpoint`,
    '',
    ...(state === 'partial' ? [`**Partial**: written at a checkpoint; the run had reached ${last.analyses} of ${COUNT} analyses.`, ''] : []),
    `Generated by \`node bench/soak.ts --db ${DB} --count ${COUNT} --concurrency ${CONCURRENCY}\` (${utcMinute()} UTC). Machine: ${machineLine}. The 2 cores are shared`,
    "with other engineers' work: the rate is what this busy machine gave, not a capacity figure.",
    '',
    `A real server process (\`node server/src/main.ts\`, worker on, defaults) on ${dbName}; one account, one HTTPS`,
    'webhook endpoint (a local receiver answering 200) for `analysis.completed` and `analysis.review_required`. Each',
    `analysis: \`POST /v1/analyze\`, a 2 KB JPEG named after one of ${NAMES.length} test-mode scenarios, half synchronous and half`,
    '`async: true`. "After the run" is taken once no job and no delivery is pending and every `analysis.completed` arrived.',
    'The sweeps are then forced: the server is restarted with `COTEJO_RETENTION_JOBS=1m`, `COTEJO_RETENTION_EVENTS=1m`,',
    '`COTEJO_RETENTION_EXPORTS=1m`, `COTEJO_RETENTION_USAGE_DETAIL=1m` (the shortest periods) a minute after the last',
    'analysis; deliveries keep their default, the newest 100 final ones per endpoint.',
    '',
    `Run: ${doneCount} analyses in ${elapsed.toFixed(0)} s (${(doneCount / elapsed).toFixed(1)} per second${runSeconds ? ' including the wait for the last deliveries' : ''});`,
    `answers ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}; ${receiver.received.length} webhooks received (${unique} distinct ids,`,
    `${receiver.received.filter((r) => !r.verified).length} failing verification).`,
    '',
    `Tables that never changed (left out below): ${still.map((t) => `\`${t}\``).join(', ') || 'none'}.`,
    '',
    '## Database size (KiB)',
    '',
    `| | ${snaps.map((s) => s.label).join(' | ')} |`,
    `|---|${snaps.map(() => '---:').join('|')}|`,
    `| pg_database_size | ${snaps.map((s) => kb(s.dbBytes)).join(' | ')} |`,
    ...(DB === 'pglite' ? [`| data directory on disk (du) | ${snaps.map((s) => (s.diskBytes === undefined ? '-' : kb(s.diskBytes))).join(' | ')} |`] : []),
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
    `## What is left ${state === 'final' ? 'after the sweeps' : 'at the last checkpoint'}`,
    '',
    grows.length === 0
      ? 'No table holds more rows than before the run.'
      : grows.map((g) => `- \`${g.t}\`: ${g.rows} rows more than before the run (${kb(g.bytes)} KiB), ${(g.rows / Math.max(1, last.analyses)).toFixed(4)} per analysis.`).join('\n'),
    '',
  ].join('\n');
}

function write(state: 'partial' | 'final'): string {
  const md = report(state);
  if (WRITE) writeFileSync(OUT, md);
  return md;
}

try {
  const key = createAccountWithCli(ROOT, store, 10_000);
  cotejo = await startCotejo(ROOT, store, { env: serverEnv(), nodeArgs });
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
  snaps.push(await snapshot('before', 0));
  log(`server pid ${cotejo.pid} on ${cotejo.baseUrl}, ${DB} ${store.database ?? store.dataDir}; ${COUNT} analyses, ${CONCURRENCY} at a time`);

  let next = 0;
  let expectedEvents = 0;
  runStarted = Date.now();
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
      doneCount++;
      if (doneCount === nextCheckpoint && doneCount < COUNT) {
        nextCheckpoint += step;
        const rate = doneCount / ((Date.now() - runStarted) / 1000);
        log(`${doneCount} analyses (${rate.toFixed(1)}/s)`);
        snaps.push(await snapshot(`${doneCount} analyses`, doneCount));
        write('partial');
      }
    }
  });
  await Promise.all(lanes);
  // Every analysis has settled and every delivery has been sent before "after" is taken.
  for (;;) {
    const p = (await probe.stats()).pending;
    const completed = receiver.received.filter((r) => r.body?.type === 'analysis.completed').length;
    if (p.jobs === 0 && p.deliveries === 0 && completed >= expectedEvents) break;
    log(`waiting: ${p.jobs} jobs, ${p.deliveries} deliveries pending, ${completed}/${expectedEvents} analysis.completed received`);
    await sleep(5_000);
  }
  runSeconds = (Date.now() - runStarted) / 1000;
  log(`${COUNT} analyses in ${runSeconds.toFixed(0)} s; ${receiver.received.length} webhooks received`);
  snaps.push(await snapshot('after the run', COUNT));
  write('partial');

  // The sweeps, forced: every period at its minimum (1 minute), once a minute has passed since the last analysis.
  await stop(cotejo.child);
  await sleep(62_000);
  cotejo = await startCotejo(ROOT, store, {
    env: serverEnv({ COTEJO_RETENTION_JOBS: '1m', COTEJO_RETENTION_EVENTS: '1m', COTEJO_RETENTION_EXPORTS: '1m', COTEJO_RETENTION_USAGE_DETAIL: '1m' }),
    nodeArgs,
  });
  // The worker sweeps at start, then every minute: wait until two snapshots 20 s apart agree.
  let prev = '';
  for (let i = 0; i < 30; i++) {
    await sleep(20_000);
    const s = await snapshot('after the retention sweeps', COUNT);
    const sig = [...s.tables].map(([t, v]) => `${t}=${v.rows}`).join(',');
    if (sig === prev) {
      snaps.push(s);
      break;
    }
    prev = sig;
  }
  const unique = new Set(receiver.received.map((r) => r.webhookId)).size;
  log(`webhooks: ${receiver.received.length} received, ${unique} distinct ids, ${receiver.received.filter((r) => !r.verified).length} unverified`);
  process.stdout.write(`\n${write('final')}\n`);
} finally {
  await probe.close();
  if (cotejo) await stop(cotejo.child);
  await receiver.close();
  dropStore(store);
}
