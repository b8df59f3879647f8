// The public catalogue, `GET /v1/document-types` (first page, no query, no key), against nginx serving the very
// same bytes from a file: how close the server comes to a static file server, for the full body (200) and for
// a revalidation (304 with If-None-Match), at 32 keep-alive connections (and optionally 1).
// Usage: node bench/catalogue.ts [--server DIR] [--label TEXT] [--rounds N] [--duration S] [--connections 32[,1]]
//                                [--generators N]
//   --server: another checkout to measure (e.g. a `git worktree` of an older commit, with node_modules linked);
//   default this one. --rounds (default 3): each round runs Cotejo 200, nginx 200, Cotejo 304, nginx 304 in turn,
//   --duration seconds each (default 10) after a 2 s warm-up. --generators: load generator processes (default 1;
//   on 2 cores one generator is the limit for nginx's 200s, not for Cotejo's). Appends rows to
//   bench/results/catalogue.md.
//
// The server runs on a fresh embedded database with COTEJO_PUBLIC_RATE_LIMIT=1000000 (the per-address limit on
// public routes would otherwise answer 429 past 1,000/s); 429s are counted all the same. nginx is Debian's
// /usr/sbin/nginx, one process (`daemon off; master_process off`, so one core like the one Node event loop),
// access log off, sendfile on, its own ETag (`etag on`), no gzip on either side (the generator sends no
// Accept-Encoding). The load generator is bench/lib/load.ts in a child process of its own; its CPU use is
// reported (a value near 1.0 core means the generator, not the server, set the pace).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { appendResults, arg, fmt, freePort, freshStore, machine, median, ms, sleep, spawnTracked, startCotejo, stop, target, tempDir, utcMinute } from './lib/harness.ts';
import { runLoad, type LoadResult } from './lib/load.ts';

const { server: SERVER, label: LABEL } = target();
const ROUNDS = Number(arg('--rounds')) || 3;
const DURATION = Number(arg('--duration')) || 10;
const CONNECTIONS = (arg('--connections') ?? '32').split(',').map(Number);
const GENERATORS = Number(arg('--generators')) || 1;
const OUT = join(import.meta.dirname, 'results/catalogue.md');
const PATH = '/v1/document-types';

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((ok, fail) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }));
        res.on('error', fail);
      })
      .on('error', fail);
  });
}

const store = freshStore('pglite', 'cotejo-bench-catalogue-');
const cotejo = await startCotejo(SERVER, store, { env: { COTEJO_PUBLIC_RATE_LIMIT: '1000000' } });
const first = await get(`${cotejo.baseUrl}${PATH}`);
const cotejoEtag = String(first.headers.etag ?? '');
if (first.status !== 200 || !cotejoEtag) throw new Error(`Cotejo answered ${first.status} (ETag ${cotejoEtag || 'none'})`);

// nginx, serving the exact body.
const dir = tempDir('cotejo-bench-nginx-');
mkdirSync(join(dir, 'www/v1'), { recursive: true });
mkdirSync(join(dir, 'tmp'));
writeFileSync(join(dir, `www${PATH}`), first.body);
const nginxPort = await freePort();
writeFileSync(
  join(dir, 'nginx.conf'),
  `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_timeout 65;
  keepalive_requests 100000000;
  types { }
  default_type application/json;
  server {
    listen 127.0.0.1:${nginxPort};
    root ${dir}/www;
    etag on;
  }
}
`,
);
const nginx = spawnTracked('/usr/sbin/nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {});
let nginxOut = '';
nginx.stderr!.on('data', (d) => (nginxOut += String(d)));
nginx.stdout!.on('data', (d) => (nginxOut += String(d)));
const nginxUrl = `http://127.0.0.1:${nginxPort}`;
let fromNginx: Awaited<ReturnType<typeof get>> | undefined;
for (let i = 0; i < 100 && !fromNginx; i++) {
  if (nginx.exitCode !== null) throw new Error(`nginx exited: ${nginxOut}`);
  fromNginx = await get(`${nginxUrl}${PATH}`).catch(() => undefined);
  if (!fromNginx) await sleep(50);
}
if (!fromNginx || fromNginx.status !== 200 || !fromNginx.body.equals(first.body)) throw new Error(`nginx does not serve the same body (${fromNginx?.status})`);
const nginxEtag = String(fromNginx.headers.etag);
// Both must answer 304 to their own ETag.
for (const [url, etag] of [
  [cotejo.baseUrl, cotejoEtag],
  [nginxUrl, nginxEtag],
] as const) {
  const r = await get(`${url}${PATH}`, { 'If-None-Match': etag });
  if (r.status !== 304) throw new Error(`${url} answered ${r.status} to If-None-Match: ${etag}`);
}
process.stdout.write(`body ${first.body.length} bytes; Cotejo ETag ${cotejoEtag}, nginx ETag ${nginxEtag}\n`);

type Case = { name: string; target: 'Cotejo' | 'nginx'; baseUrl: string; status: 200 | 304; headers: Record<string, string> };
const cases: Case[] = [
  { name: 'Cotejo 200', target: 'Cotejo', baseUrl: cotejo.baseUrl, status: 200, headers: {} },
  { name: 'nginx 200', target: 'nginx', baseUrl: nginxUrl, status: 200, headers: {} },
  { name: 'Cotejo 304', target: 'Cotejo', baseUrl: cotejo.baseUrl, status: 304, headers: { 'If-None-Match': cotejoEtag } },
  { name: 'nginx 304', target: 'nginx', baseUrl: nginxUrl, status: 304, headers: { 'If-None-Match': nginxEtag } },
];

type Row = { round: number; c: Case; connections: number; r: LoadResult };
const rows: Row[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const connections of CONNECTIONS) {
      for (const c of cases) {
        const r = await runLoad({ baseUrl: c.baseUrl, request: { method: 'GET', path: PATH, headers: c.headers }, connections, durationS: DURATION, warmupS: 2, processes: GENERATORS });
        rows.push({ round, c, connections, r });
        const other = Object.entries(r.statuses).filter(([s]) => Number(s) !== c.status);
        process.stdout.write(
          `round ${round} ${c.name} c=${connections}: ${fmt(r.rps)} req/s, p50 ${ms(r.latencyMs.p50)} ms, p99 ${ms(r.latencyMs.p99)} ms, ` +
            `${fmt(r.bytes / DURATION / 2 ** 20)} MiB/s, generator ${fmt(r.generatorCpu, 2)} core${other.length ? `, other answers ${JSON.stringify(Object.fromEntries(other))}` : ''}${r.errors ? `, ${r.errors} errors` : ''}\n`,
        );
        for (const [s] of other) process.stdout.write(`  first ${s}: ${(r.samples[s] ?? '').slice(0, 400).replace(/\r\n/g, ' | ')}\n`);
      }
    }
  }
} finally {
  await stop(nginx);
  await stop(cotejo.child);
}

const when = utcMinute();
const m = machine(`embedded PGlite (COTEJO_PUBLIC_RATE_LIMIT=1000000); ${GENERATORS} generator process${GENERATORS > 1 ? 'es' : ''}`);
const unexpected = (row: Row) => {
  const n = Object.entries(row.r.statuses).reduce((t, [s, k]) => (Number(s) === row.c.status ? t : t + k), 0) + row.r.errors;
  return n === 0 ? '0' : `${n} (${Object.entries(row.r.statuses).filter(([s]) => Number(s) !== row.c.status).map(([s, k]) => `${k}x${s}`).concat(row.r.errors ? [`${row.r.errors} errors`] : []).join(', ')})`;
};
const out: string[] = rows.map(
  (row) =>
    `| ${when} | ${LABEL} | ${row.round} | ${row.c.name} | ${row.connections} | ${fmt(row.r.rps)} | ${ms(row.r.latencyMs.p50)} | ${ms(row.r.latencyMs.p99)} | ${ms(row.r.latencyMs.max)} | ${fmt(row.r.bytes / DURATION / 2 ** 20)} | ${unexpected(row)} | ${fmt(row.r.generatorCpu, 2)} | ${m} |`,
);
// Summary: medians over the rounds, with Cotejo/nginx ratios.
for (const connections of CONNECTIONS) {
  for (const status of [200, 304] as const) {
    const pick = (t: 'Cotejo' | 'nginx') => rows.filter((row) => row.c.target === t && row.c.status === status && row.connections === connections).map((row) => row.r);
    const med = (rs: LoadResult[], f: (r: LoadResult) => number) => median(rs.map(f));
    const c = pick('Cotejo');
    const n = pick('nginx');
    const ratio = med(c, (r) => r.rps) / med(n, (r) => r.rps);
    out.push(
      `| ${when} | ${LABEL} | median of ${ROUNDS} | **Cotejo/nginx ${status}** | ${connections} | **${fmt(med(c, (r) => r.rps))} / ${fmt(med(n, (r) => r.rps))} = ${fmt(ratio * 100)} %** | ${ms(med(c, (r) => r.latencyMs.p50))} / ${ms(med(n, (r) => r.latencyMs.p50))} | ${ms(med(c, (r) => r.latencyMs.p99))} / ${ms(med(n, (r) => r.latencyMs.p99))} | | | | | |`,
    );
  }
}
appendResults(
  OUT,
  [
    '# Catalogue: GET /v1/document-types against nginx serving the same bytes',
    '',
    'Generated by `node bench/catalogue.ts` (rows appended per run). A real server process (`node server/src/main.ts`,',
    'PORT=0, fresh embedded PGlite, `COTEJO_PUBLIC_RATE_LIMIT=1000000` so the per-address limit on public routes does not',
    "answer 429 past 1,000/s) answers `GET /v1/document-types` (first page, no key). Its body is saved once and served by",
    "nginx 1.22 (Debian, `daemon off; master_process off`: one process, like the server's one event loop; sendfile on,",
    "access log off, its own `etag on`). Each round runs, in turn, Cotejo 200, nginx 200, Cotejo 304 and nginx 304 (the",
    'last two with `If-None-Match` of each one\'s ETag), 2 s of warm-up then the measured seconds, at the given number',
    'of keep-alive connections. Load: `bench/lib/load.ts` (raw keep-alive HTTP/1.1, one request in flight per connection,',
    'bodies counted not kept) in a child process of its own; "Generator CPU" is its CPU time over the window in cores:',
    'near 1.00 the generator, not the server, was the limit. Client and servers share the same 2 cores.',
    'Latencies are in ms, from the first byte written to the last byte read; "Unexpected" counts answers other than',
    'the status aimed at (200 or 304; 429 would be the rate limit) and socket errors.',
    'Machine ends with the share of the CPUs busy in the second before the run started (others\' work: the machine is shared).',
    '',
    '| Measured (UTC) | Code | Round | Case | Conns | req/s | p50 ms | p99 ms | max ms | MiB/s | Unexpected | Generator CPU | Machine |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ],
  out,
);
process.stdout.write(`${out.join('\n')}\n`);
