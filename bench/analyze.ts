// Synchronous analysis, `POST /v1/analyze` (multipart: a 2 KB JPEG named dni_valid.jpg, options
// {"expect":"es_dni"}, test key), against the Prism mock of the same contract: throughput and latency at 1 and
// at 32 keep-alive connections, the reference being what a mock that only validates the request and returns an
// example costs.
// Usage: node bench/analyze.ts [--server DIR] [--label TEXT] [--db pglite|postgres] [--rounds N] [--duration S]
//                              [--connections 1,32] [--rate-limit N] [--baseline DIR]
//   --server: another checkout to measure (e.g. a `git worktree` of an older commit, with node_modules linked);
//   default this one. --db: embedded PGlite in a fresh data dir (default), or a fresh PostgreSQL database made
//   with createdb on 127.0.0.1 as postgres (BENCH_PG_HOST / BENCH_PG_USER), dropped at the end.
//   --rounds (default 3): each round measures both targets (Cotejo first in odd rounds, Prism first in even
//   ones) at each connection count, --duration seconds each (default 10) after a 2 s warm-up.
//   --rate-limit (default 10000, the CLI's maximum): the bench account's per-key limit, raised with the
//   checkout's own CLI before the server starts (`accounts update --rate-limit`); at the default 10/s a
//   throughput test measures the limiter. 0 leaves the default.
//   --baseline: another checkout (e.g. a worktree of the commit before a change) measured in the same run as a third
//   target, with its own server, database and account; the order of the targets rotates each round, and a summary
//   line per connection count gives this checkout's rate over the baseline's (no slowdown: about 100 % or more).
// Appends rows to bench/results/analyze.md.
//
// Every answer that is not a 200 from Cotejo is counted; a 202 (an analysis left pending although the call is
// synchronous) is a bug and has a column of its own. Prism is started on the checkout's generated/openapi.json,
// one process, `-v error`; it is checked to answer 200 to the very same request before anything is measured.
import { execSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import {
  appendResults,
  arg,
  createAccountWithCli,
  dbOption,
  fmt,
  freshStore,
  machine,
  median,
  ms,
  startCotejo,
  startPrism,
  stop,
  target,
  utcMinute,
} from './lib/harness.ts';
import { noiseRgb } from '../test/support/noise.ts';
import { runLoad, type LoadRequest, type LoadResult } from './lib/load.ts';

const { server: SERVER, label: LABEL } = target();
const DB = dbOption();
const ROUNDS = Number(arg('--rounds')) || 3;
const DURATION = Number(arg('--duration')) || 10;
const CONNECTIONS = (arg('--connections') ?? '1,32').split(',').map(Number);
const RATE_LIMIT = arg('--rate-limit') !== undefined ? Number(arg('--rate-limit')) : 10_000;
const OUT = join(import.meta.dirname, 'results/analyze.md');
const BASELINE = arg('--baseline') !== undefined ? resolve(arg('--baseline')!) : null;
const BASELINE_LABEL = BASELINE ? execSync('git rev-parse --short HEAD', { cwd: BASELINE }).toString().trim() : null;

/** A 200x120 JPEG of about 2 KB (blurred noise); test mode reads only the file name. */
async function smallJpeg(): Promise<Buffer> {
  const { raw, info } = noiseRgb(200, 120);
  return sharp(raw, info).blur(3).jpeg({ quality: 70 }).toBuffer();
}

function multipart(file: Buffer, filename: string, options: string): { body: Buffer; contentType: string } {
  const boundary = `----cotejo-bench-${Math.random().toString(36).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="options"\r\n\r\n${options}\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

const jpeg = await smallJpeg();
const { body, contentType } = multipart(jpeg, 'dni_valid.jpg', '{"expect":"es_dni"}');

const store = freshStore(DB, 'cotejo-bench-analyze-');
const key = createAccountWithCli(SERVER, store, RATE_LIMIT);
const cotejo = await startCotejo(SERVER, store);
const baselineStore = BASELINE ? freshStore(DB, 'cotejo-bench-analyze-base-') : null;
const baselineKey = BASELINE && baselineStore ? createAccountWithCli(BASELINE, baselineStore, RATE_LIMIT) : null;
const baseline = BASELINE && baselineStore ? await startCotejo(BASELINE, baselineStore) : null;
const prism = await startPrism(SERVER);
const request = (k: string): LoadRequest => ({
  method: 'POST',
  path: '/v1/analyze',
  headers: { Authorization: `Bearer ${k}`, 'Content-Type': contentType },
  body,
});
const BASELINE_NAME = `Cotejo ${BASELINE_LABEL} (baseline)`;
const targets = [
  { name: 'Cotejo', baseUrl: cotejo.baseUrl, request: request(key) },
  ...(baseline && baselineKey ? [{ name: BASELINE_NAME, baseUrl: baseline.baseUrl, request: request(baselineKey) }] : []),
  { name: 'Prism', baseUrl: prism.baseUrl, request: request('ck_test_prism') },
];

type Row = { round: number; target: string; connections: number; r: LoadResult };
const rows: Row[] = [];
try {
  // Both must answer 200 (completed) to this very request before anything is measured.
  for (const t of targets) {
    const res = await fetch(`${t.baseUrl}/v1/analyze`, { method: 'POST', headers: t.request.headers, body: new Uint8Array(body) });
    const json = (await res.json()) as { status?: string; document?: { type?: string } };
    if (res.status !== 200 || json.status !== 'completed') throw new Error(`${t.name} answered ${res.status}: ${JSON.stringify(json).slice(0, 400)}`);
    process.stdout.write(`${t.name} answers 200 (${json.status}, ${json.document?.type})\n`);
  }
  process.stdout.write(`request: ${body.length} bytes of multipart, JPEG ${jpeg.length} bytes\n`);
  for (let round = 1; round <= ROUNDS; round++) {
    // Two targets: the order alternates; three (--baseline): it rotates, so each goes first once in three rounds.
    const order = targets.length === 2 ? (round % 2 ? targets : [...targets].reverse()) : targets.map((_, i) => targets[(i + round - 1) % targets.length]);
    for (const t of order) {
      for (const connections of CONNECTIONS) {
        const r = await runLoad({ baseUrl: t.baseUrl, request: t.request, connections, durationS: DURATION, warmupS: 2 });
        rows.push({ round, target: t.name, connections, r });
        const other = Object.entries(r.statuses).filter(([s]) => s !== '200');
        process.stdout.write(
          `round ${round} ${t.name} c=${connections}: ${fmt(r.rps, 1)} req/s, p50 ${ms(r.latencyMs.p50)} ms, p99 ${ms(r.latencyMs.p99)} ms, max ${ms(r.latencyMs.max)} ms, ` +
            `generator ${fmt(r.generatorCpu, 2)} core${other.length ? `, other answers ${JSON.stringify(Object.fromEntries(other))}` : ''}${r.errors ? `, ${r.errors} errors` : ''}\n`,
        );
        for (const [s] of other) process.stdout.write(`  first ${s}: ${(r.samples[s] ?? '').slice(0, 600).replace(/\r\n/g, ' | ')}\n`);
      }
    }
  }
} finally {
  await stop(prism.child);
  if (baseline) await stop(baseline.child);
  await stop(cotejo.child);
}

const when = utcMinute();
const m = machine(DB === 'pglite' ? 'embedded PGlite' : 'PostgreSQL (local, fresh database)');
const non200 = (r: LoadResult) => {
  const others = Object.entries(r.statuses).filter(([s]) => s !== '200' && s !== '202');
  const n = others.reduce((t, [, k]) => t + k, 0) + r.errors;
  return n === 0 ? '0' : `${n} (${others.map(([s, k]) => `${k}x${s}`).concat(r.errors ? [`${r.errors} errors`] : []).join(', ')})`;
};
const out: string[] = rows.map(
  (row) =>
    `| ${when} | ${LABEL} | ${DB} | ${row.round} | ${row.target === BASELINE_NAME ? `Cotejo ${BASELINE_LABEL}` : row.target} | ${row.connections} | ${fmt(row.r.rps, 1)} | ${ms(row.r.latencyMs.p50)} | ${ms(row.r.latencyMs.p99)} | ${ms(row.r.latencyMs.max)} | ${row.target === 'Cotejo' ? (row.r.statuses['202'] ?? 0) : '-'} | ${non200(row.r)} | ${fmt(row.r.generatorCpu, 2)} | ${m} |`,
);
for (const connections of CONNECTIONS) {
  const pick = (t: string) => rows.filter((row) => row.target === t && row.connections === connections).map((row) => row.r);
  const c = pick('Cotejo');
  const p = pick('Prism');
  const med = (rs: LoadResult[], f: (r: LoadResult) => number) => median(rs.map(f));
  out.push(
    `| ${when} | ${LABEL} | ${DB} | median of ${ROUNDS} | **Cotejo / Prism** | ${connections} | **${fmt(med(c, (r) => r.rps), 1)} / ${fmt(med(p, (r) => r.rps), 1)} = ${fmt((100 * med(c, (r) => r.rps)) / med(p, (r) => r.rps))} %** | ${ms(med(c, (r) => r.latencyMs.p50))} / ${ms(med(p, (r) => r.latencyMs.p50))} | ${ms(med(c, (r) => r.latencyMs.p99))} / ${ms(med(p, (r) => r.latencyMs.p99))} | | ${c.reduce((t, r) => t + (r.statuses['202'] ?? 0), 0)} | ${c.reduce((t, r) => t + r.requests - (r.statuses['200'] ?? 0) - (r.statuses['202'] ?? 0) + r.errors, 0)} | | |`,
  );
  if (BASELINE) {
    const b = pick(BASELINE_NAME);
    out.push(
      `| ${when} | ${LABEL} | ${DB} | median of ${ROUNDS} | **Cotejo / Cotejo ${BASELINE_LABEL}** | ${connections} | **${fmt(med(c, (r) => r.rps), 1)} / ${fmt(med(b, (r) => r.rps), 1)} = ${fmt((100 * med(c, (r) => r.rps)) / med(b, (r) => r.rps))} %** | ${ms(med(c, (r) => r.latencyMs.p50))} / ${ms(med(b, (r) => r.latencyMs.p50))} | ${ms(med(c, (r) => r.latencyMs.p99))} / ${ms(med(b, (r) => r.latencyMs.p99))} | | ${b.reduce((t, r) => t + (r.statuses['202'] ?? 0), 0)} | ${b.reduce((t, r) => t + r.requests - (r.statuses['200'] ?? 0) - (r.statuses['202'] ?? 0) + r.errors, 0)} | | |`,
    );
  }
}
appendResults(
  OUT,
  [
    '# Synchronous analysis: POST /v1/analyze against the Prism mock of the same contract',
    '',
    'Generated by `node bench/analyze.ts` (rows appended per run). A real server process (`node server/src/main.ts`,',
    'PORT=0, LOG_LEVEL=silent; a fresh embedded PGlite data dir, or a fresh PostgreSQL database) answers',
    '`POST /v1/analyze` in test mode: multipart, `file` = a 200x120 JPEG of about 2 KB named `dni_valid.jpg`, `options` =',
    '`{"expect":"es_dni"}`, `Authorization: Bearer ck_test_...`. The account is made with the checkout\'s CLI and its',
    'per-key rate limit raised to 10,000/s (the default, 10/s, would make this a test of the limiter). The reference is',
    '`prism mock generated/openapi.json` of the same checkout (one process, `-v error`), which answers 200 with the',
    'example to the same request. Each round measures both (the order alternates) at 1 and 32 keep-alive connections,',
    '2 s warm-up then the measured seconds; the load generator is `bench/lib/load.ts` in a child process of its own',
    '("Generator CPU", in cores over the window). Client and servers share the same 2 cores. Latencies in ms.',
    '"202" counts analyses answered as pending by a synchronous call (a bug); "Other non-200" every other answer',
    'that is not 200 (429, 5xx...) and socket errors. The summary lines are medians over the rounds.',
    'Machine ends with the share of the CPUs busy in the second before the run started (others\' work: the machine is shared).',
    '',
    '| Measured (UTC) | Code | DB | Round | Target | Conns | req/s | p50 ms | p99 ms | max ms | 202 | Other non-200 | Generator CPU | Machine |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ],
  out,
);
process.stdout.write(`${out.join('\n')}\n`);
