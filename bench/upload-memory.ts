// Server memory while 16 large documents are analysed at once: 16 concurrent `POST /v1/analyze` (multipart, each a
// distinct valid 4000x3000 noise JPEG of about 19.7 MB, just under the 20 MB file limit; options
// {"expect":"es_dni"}; test key) against a real server process on a fresh embedded database. The resident set
// (VmRSS) is sampled every 10 ms from before the first byte is sent until the last answer is read.
// Usage: node bench/upload-memory.ts [--server DIR] [--label TEXT] [--uploads N] [--db pglite|postgres]
//   --server: another checkout to measure (e.g. a `git worktree` of an older commit, with node_modules linked);
//   default this one. --uploads: how many concurrent requests (default 16). Appends a row to
//   bench/results/upload-memory.md. --db: embedded PGlite in a fresh data dir (default), or a fresh PostgreSQL database
//   (createdb on 127.0.0.1, dropped at the end).
//
// The account is made with the checkout's CLI and its per-key rate limit raised to 10,000/s before the server
// starts: at the default 10/s, 6 of the 16 would be refused with 429 (and their bodies perhaps never read).
import http from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { noiseRgb } from '../test/support/noise.ts';
import { appendResults, arg, createAccountWithCli, dbOption, dropStore, freshStore, machine, mb, procKb, sleep, startCotejo, stop, target, utcMinute } from './lib/harness.ts';

const { server: SERVER, label: LABEL } = target();
const UPLOADS = Number(arg('--uploads')) || 16;
const DB = dbOption();
const OUT = join(import.meta.dirname, 'results/upload-memory.md');
/** The spec's limit is "20 MB"; the server's is 20 MiB. Stay under both. */
const LIMIT = 20_000_000;

/** A distinct, valid 4000x3000 JPEG of about 19.7 MB (noise, quality 90, no chroma subsampling). */
async function bigJpeg(i: number): Promise<Buffer> {
  const { raw, info } = noiseRgb(4000, 3000, i + 1);
  const jpeg = await sharp(raw, info).jpeg({ quality: 90, chromaSubsampling: '4:4:4' }).toBuffer();
  if (jpeg.length >= LIMIT) throw new Error(`JPEG ${i} is ${jpeg.length} bytes, over ${LIMIT}`);
  return jpeg;
}

function multipart(file: Buffer, filename: string): { body: Buffer; contentType: string } {
  const boundary = `----cotejo-bench-${Math.random().toString(36).slice(2)}`;
  return {
    body: Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="options"\r\n\r\n{"expect":"es_dni"}\r\n--${boundary}--\r\n`),
    ]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

function post(baseUrl: string, key: string, m: { body: Buffer; contentType: string }): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const req = http.request(
      `${baseUrl}/v1/analyze`,
      { method: 'POST', agent: false, headers: { Authorization: `Bearer ${key}`, 'Content-Type': m.contentType, 'Content-Length': m.body.length } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => ok({ status: res.statusCode!, ms: performance.now() - t0, body }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(m.body);
  });
}

process.stdout.write(`making ${UPLOADS} JPEGs...\n`);
const images: Buffer[] = [];
for (let i = 0; i < UPLOADS; i++) images.push(await bigJpeg(i));
const bodies = images.map((b, i) => multipart(b, `dni_valid_${i}.jpg`));
const uploadBytes = images.reduce((t, b) => t + b.length, 0);

const store = freshStore(DB, 'cotejo-bench-upload-memory-');
const key = createAccountWithCli(SERVER, store, 10_000);
const cotejo = await startCotejo(SERVER, store);
try {
  const pid = cotejo.pid;
  // Warm the server (first request compiles routes, opens caches) and settle.
  const warm = await fetch(`${cotejo.baseUrl}/v1/balance`, { headers: { Authorization: `Bearer ${key}` } });
  if (warm.status !== 200) throw new Error(`GET /v1/balance answered ${warm.status}`);
  await sleep(5000);
  const idleRss = procKb(pid, 'VmRSS');

  let peak = idleRss;
  let samples = 0;
  let last = performance.now();
  let maxGap = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    samples++;
    peak = Math.max(peak, procKb(pid, 'VmRSS'));
  }, 10);
  const t0 = performance.now();
  const answers = await Promise.all(bodies.map((m) => post(cotejo.baseUrl, key, m)));
  const total = performance.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, procKb(pid, 'VmRSS'));
  const hwm = procKb(pid, 'VmHWM');
  await sleep(1000);
  const after = procKb(pid, 'VmRSS');

  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  const completed = answers.filter((a) => a.status === 200 && (JSON.parse(a.body) as { status?: string }).status === 'completed').length;
  for (const a of answers.filter((x) => x.status !== 200).slice(0, 3)) process.stdout.write(`  ${a.status}: ${a.body.slice(0, 300)}\n`);
  const times = answers.map((a) => a.ms).sort((a, b) => a - b);
  const statusText = Object.entries(statuses).map(([s, k]) => `${k}x${s}`).join(', ') + (completed !== statuses['200'] ? ` (${completed} completed)` : '');
  const s = (v: number) => `${(v / 1000).toFixed(1)} s`;
  const row =
    `| ${utcMinute()} | ${LABEL} | ${UPLOADS} x ${(uploadBytes / UPLOADS / 1e6).toFixed(1)} MB | ${Math.round(uploadBytes / 2 ** 20)} MiB | ${mb(idleRss)} | ${mb(peak)} | ${mb(peak - idleRss)} | ${mb(hwm)} | ${mb(after)} | ${statusText} | ` +
    `${s(times[0]!)} / ${s(times[Math.floor(times.length / 2)]!)} / ${s(times[times.length - 1]!)} | ${s(total)} | ${samples} (max gap ${Math.round(maxGap)} ms) | ${machine(DB === 'pglite' ? 'embedded PGlite' : 'PostgreSQL (local, fresh database)')} |`;
  appendResults(
    OUT,
    [
      '# Server memory during 16 concurrent 20 MB analyses',
      '',
      'Generated by `node bench/upload-memory.ts` (one row per run, appended). A real server process (`node server/src/main.ts`,',
      'PORT=0, LOG_LEVEL=silent, fresh embedded PGlite, or with `--db postgres` a fresh PostgreSQL database; the account made with the checkout\'s CLI, per-key rate limit raised',
      'to 10,000/s so none of the 16 is refused with 429) receives 16 concurrent `POST /v1/analyze`, one connection each,',
      'multipart: `file` = a distinct 4000x3000 noise JPEG of about 19.7 MB (quality 90, 4:4:4; under both the spec\'s 20 MB',
      'and the server\'s 20 MiB), named `dni_valid_<i>.jpg`, `options` = `{"expect":"es_dni"}`, test key. Idle is `VmRSS`',
      '5 s after a warm-up `GET /v1/balance` (as in startup.md); the peak is `VmRSS` sampled every 10 ms (in the',
      'benchmark\'s own event loop, which also sends the bodies: the sample count and the largest gap between samples are',
      'shown) from the first byte sent to the last answer read; `VmHWM` at the end includes the start-up peak. "After" is',
      '`VmRSS` 1 s after the last answer. Answer times: first / median / last request, from its first byte to its answer.',
      'Machine ends with the share of the CPUs busy in the second before the run started (others\' work: the machine is shared).',
      '',
      '| Measured (UTC) | Code | Uploads | Total | Idle RSS | Peak RSS | Added by the requests | VmHWM | After | Answers | Answer times (first / median / last) | All answered | Samples | Machine |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ],
    [row],
  );
  process.stdout.write(`idle ${mb(idleRss)}, peak ${mb(peak)} (+${mb(peak - idleRss)}), hwm ${mb(hwm)}, after ${mb(after)}; ${statusText}; all answered in ${s(total)}\n${row}\n`);
} finally {
  await stop(cotejo.child);
  dropStore(store);
}
