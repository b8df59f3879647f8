// Compression (issue #29): bytes and time of what /docs loads (the page, Redoc's bundle, /openapi.json) and of a page
// of 100 analyses, as sent without Accept-Encoding, with gzip and with br; and the small JSON answers under load, to
// show they did not get slower (run it with --server on a checkout before the change for the baseline rows).
// Usage: node bench/compression.ts [--server DIR] [--label TEXT] [--repeat N] [--duration S] [--connections N]
//   --repeat: timed requests per resource and coding after the first (default 20; the median is reported, and the
//   first request apart: it pays for making a precompressed coding). --duration (default 5 s, after 2 s of warm-up)
//   and --connections (default 8): the small-answer load. Appends rows to bench/results/compression.md.
import http from 'node:http';
import { join } from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { appendResults, arg, createAccountWithCli, dropStore, fmt, freshStore, machine, median, ms, startCotejo, stop, target, utcMinute } from './lib/harness.ts';
import { runLoad } from './lib/load.ts';

const { server: SERVER, label: LABEL } = target();
const REPEAT = Number(arg('--repeat')) || 20;
const DURATION = Number(arg('--duration')) || 5;
const CONNECTIONS = Number(arg('--connections')) || 8;
const OUT = join(import.meta.dirname, 'results/compression.md');
const CODINGS = [
  { name: 'none', header: undefined },
  { name: 'gzip', header: 'gzip, deflate' },
  { name: 'br', header: 'gzip, deflate, br' },
] as const;

function get(url: string, headers: Record<string, string>): Promise<{ status: number; coding: string; wire: number; decoded: number; ms: number }> {
  return new Promise((ok, fail) => {
    const t0 = process.hrtime.bigint();
    http
      .get(url, { headers, agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          const t1 = process.hrtime.bigint();
          const wire = Buffer.concat(parts);
          const coding = String(res.headers['content-encoding'] ?? 'none');
          const decoded = coding === 'br' ? zlib.brotliDecompressSync(wire) : coding === 'gzip' ? zlib.gunzipSync(wire) : wire;
          ok({ status: res.statusCode!, coding, wire: wire.length, decoded: decoded.length, ms: Number(t1 - t0) / 1e6 });
        });
        res.on('error', fail);
      })
      .on('error', fail);
  });
}

const store = freshStore('pglite', 'cotejo-bench-compression-');
// A key whose rate limit (10/s by default) does not pace the load.
const key = createAccountWithCli(SERVER, store, 10_000);
const cotejo = await startCotejo(SERVER, store, { env: { COTEJO_LIVE_READERS: 'none' } });
const rows: string[] = [];
try {
  const auth = { Authorization: `Bearer ${key}` };
  // 100 analyses (test mode reads only the file name: a small grey JPEG), for a page of them.
  const jpeg = await sharp({ create: { width: 200, height: 120, channels: 3, background: '#808080' } }).jpeg().toBuffer();
  for (let i = 0; i < 100; i++) {
    const body = new FormData();
    body.append('file', new Blob([new Uint8Array(jpeg)]), 'dni_valid.jpg');
    body.append('options', JSON.stringify({ expect: 'es_dni' }));
    const r = await fetch(`${cotejo.baseUrl}/v1/analyze`, { method: 'POST', headers: auth, body });
    if (r.status !== 200) throw new Error(`analyze answered ${r.status}: ${await r.text()}`);
    await r.arrayBuffer();
  }
  const resources = [
    { name: '/docs (page + Redoc + /openapi.json)', paths: ['/docs', '/docs/redoc.standalone.js', '/openapi.json'], headers: {} },
    { name: '/v1/analyses?limit=100', paths: ['/v1/analyses?limit=100'], headers: auth },
  ];
  // Bytes, and the time to load every path of a resource in turn (loopback: what the server adds, not a network).
  for (const r of resources) {
    for (const c of CODINGS) {
      const headers: Record<string, string> = { ...r.headers, ...(c.header ? { 'Accept-Encoding': c.header } : {}) };
      const once = async () => {
        let wire = 0;
        let decoded = 0;
        let total = 0;
        const codings = new Set<string>();
        for (const p of r.paths) {
          const res = await get(`${cotejo.baseUrl}${p}`, headers);
          if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
          wire += res.wire;
          decoded += res.decoded;
          total += res.ms;
          codings.add(res.coding);
        }
        return { wire, decoded, ms: total, codings: [...codings].join('+') };
      };
      const first = await once();
      // br is made in the background after a first gzip answer: give it the time it takes before timing.
      await new Promise((resolve) => setTimeout(resolve, c.name === 'br' ? 3000 : 200));
      const timed = [];
      for (let i = 0; i < REPEAT; i++) timed.push(await once());
      const last = timed[timed.length - 1]!;
      const at10Mbit = (last.wire * 8) / 10e6 * 1000;
      rows.push(
        `| ${utcMinute()} | ${LABEL} | ${r.name} | ${c.name} | ${last.codings} | ${fmt(last.decoded / 1024)} KiB | ${fmt(last.wire / 1024)} KiB | ${ms(first.ms)} (${first.codings}) | ${ms(median(timed.map((t) => t.ms)))} | ${fmt(at10Mbit)} ms | ${machine('pglite')} |`,
      );
      process.stdout.write(`${rows[rows.length - 1]}\n`);
    }
  }
  // Small answers under load: an empty list (under 1 KiB), as a browser or the SDK asks (gzip, deflate, br) and
  // without Accept-Encoding.
  for (const c of [CODINGS[0], CODINGS[2]]) {
    const load = await runLoad({
      baseUrl: cotejo.baseUrl,
      request: { method: 'GET', path: '/v1/webhook-endpoints', headers: { ...auth, ...(c.header ? { 'Accept-Encoding': c.header } : {}) } },
      connections: CONNECTIONS,
      durationS: DURATION,
    });
    rows.push(
      `| ${utcMinute()} | ${LABEL} | small JSON under load: GET /v1/webhook-endpoints, ${CONNECTIONS} connections, ${DURATION} s | ${c.name} | ${load.non2xx + load.errors === 0 ? 'none' : `${load.non2xx} non-2xx, ${load.errors} errors`} | - | ${fmt(load.bytes / Math.max(1, load.requests))} B (head included) | - | p50 ${ms(load.latencyMs.p50)}, p99 ${ms(load.latencyMs.p99)}; ${fmt(load.rps)} req/s | - | ${machine('pglite')} |`,
    );
    process.stdout.write(`${rows[rows.length - 1]}\n`);
  }
} finally {
  await stop(cotejo.child);
  dropStore(store);
}

appendResults(
  OUT,
  [
    '# Compression: bytes and time of /docs and of a page of analyses, and the small answers',
    '',
    'Generated by `node bench/compression.ts` (rows appended per run). A real server process (`node server/src/main.ts`,',
    'PORT=0, fresh embedded PGlite, test mode, 100 analyses made first). For each resource and each `Accept-Encoding`',
    '(none; `gzip, deflate`; `gzip, deflate, br` as browsers send it): the coding answered, the body size decoded and on the',
    'wire, the time of the first load (it makes the precompressed codings: gzip at once, br in the background), the',
    'median of the next `--repeat` loads (loopback: what the server adds, no network), and the time those bytes take on',
    'a 10 Mbit/s link. /docs is what the page loads: the page, Redoc\'s bundle and /openapi.json. The last rows: the small',
    'JSON answers (under 1 KiB, sent as they are) under load, with and without Accept-Encoding; compare with the rows',
    'of a checkout before compression (`--server`). Machine ends with the share of the CPUs busy before the run.',
    '',
    '| Date (UTC) | Server | Resource | Accept-Encoding | Answered | Decoded | On the wire | First load ms | Median load ms | At 10 Mbit/s | Machine |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ],
  rows,
);
