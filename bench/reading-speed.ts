// Issue #28 "Speed stays": how long live mode's local readers take per kind of document, where the seconds go, and
// how much memory they hold: in this process (every file read one at a time, engines warm) and in a real server
// process on PostgreSQL while 8 live readings run at once.
//
// Files: every file of ../shared/testdata/documents-dev (both splits: timing is not tuning; nothing is scored here)
// and of ../shared/testdata/documents (PassportEye ID photos, invoice2data PDFs and scans, Mustang e-invoices).
// Kinds (from the set's own categories and the file, never from a reading's result, except text PDF vs scanned PDF,
// told apart by whether page OCR ran):
//   mrz         a photo or scan of an MRZ document (documents-dev mrz and mrz-flagged, PassportEye)
//   id-front    an ID front without a zone (documents-dev id-fronts)
//   receipt     a photo or scan of a receipt or invoice, as an image (documents-dev receipts and invoices, images)
//   text-pdf    a PDF read through its text layer or embedded XML, no page OCR
//   scanned     a scanned page: an image-only PDF (rendered, then page OCR) or a page scan of the older set (invoice2data PNG)
//
// Usage: node bench/reading-speed.ts [--skip-server] [--server-only] [--only KIND] [--limit N] [--default-allocator]
//   (node 24, node_modules/.bin first on PATH). The server part makes a fresh database on the PostgreSQL of
//   DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and drops it at the end. Only a full run (every
//   kind, the server part; with --limit N a sample of N files of each kind, said so) writes bench/results/reading-speed.md,
//   The server runs with the allocator settings of docs/deployment.md (bench/lib/server.ts ALLOCATOR_ENV) unless
//   --default-allocator; this process (the per-kind part) runs with whatever it was started with.
//   BENCH_SMAPS_AT_PEAK=file keeps the server's /proc/<pid>/smaps at its highest sample of the 8 readings (where the peak is).
//   keeping bench/live-batch.ts's section and the hand-written notes between their markers; others print their tables.
import { execSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, extname, join, relative, resolve } from 'node:path';
import { loadConfig } from '../server/src/config.ts';
import { detectFileType } from '../server/src/domain/intake/detect.ts';
import { inspectFile } from '../server/src/domain/intake/inspect.ts';
import { ApiError } from '../server/src/errors.ts';
import { createLocalProvider, type LocalProviderOptions } from '../server/src/providers/local/index.ts';
import type { ReadInput, Reading } from '../server/src/providers/types.ts';
import { ALLOCATOR_ENV, allocatorEnv, allocatorNote, cleanup, freshDatabase, liveAccount, peakRss, ROOT, startServer, tempDir } from './lib/server.ts';

const SETS = resolve(ROOT, '../shared/testdata');
const DEV = join(SETS, 'documents-dev');
const DOCS = join(SETS, 'documents');
const OUT = join(import.meta.dirname, 'results/reading-speed.md');
const REF = '2026-11-24';

const KINDS = ['mrz', 'id-front', 'receipt', 'text-pdf', 'scanned'] as const;
type Kind = (typeof KINDS)[number];
const KIND_LABEL: Record<Kind, string> = {
  mrz: 'MRZ photo',
  'id-front': 'ID front (no zone)',
  receipt: 'receipt or invoice image',
  'text-pdf': 'text PDF',
  scanned: 'scanned page',
};
/** The goals of issue #28 (p95, seconds). */
const GOAL_P95: Partial<Record<Kind, number>> = { mrz: 1.5, 'text-pdf': 0.5, receipt: 4 };

function arg(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log('usage: node bench/reading-speed.ts [--skip-server] [--server-only] [--only mrz|id-front|receipt|text-pdf|scanned] [--limit N] [--default-allocator]\n' +
    '  (a run with neither --skip-server nor --only and the server part writes bench/results/reading-speed.md; see the head of the file)');
  process.exit(0);
}
const only = arg('--only') as Kind | null;
const limit = Number(arg('--limit') ?? Infinity);
const skipServer = process.argv.includes('--skip-server');
const serverOnly = process.argv.includes('--server-only');
if (only && !KINDS.includes(only)) {
  console.error(`--only ${KINDS.join('|')}`);
  process.exit(2);
}
/** A run of every kind with the server part writes the results (with --limit: a sample of each kind, said so). */
const full = !only && !skipServer && !serverOnly;

// ---------------------------------------------------------------- the files

interface File {
  /** Path under ../shared/testdata. */
  rel: string;
  /** The kind before reading; a PDF is `text-pdf` until page OCR runs on it. */
  kind: Kind;
}
const IMAGE = /\.(jpe?g|png|webp|heic)$/i;
function listFiles(): File[] {
  const files: File[] = [];
  const dev = JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Array<{ path: string; category: string }>;
  for (const e of dev) {
    const rel = relative(SETS, join(DEV, e.path));
    const pdf = e.path.toLowerCase().endsWith('.pdf');
    const kind: Kind = e.category === 'mrz' || e.category === 'mrz-flagged' ? 'mrz' : e.category === 'id-fronts' ? 'id-front' : pdf ? 'text-pdf' : 'receipt';
    files.push({ rel, kind });
  }
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
  for (const path of walk(DOCS).sort()) {
    const rel = relative(SETS, path);
    if (rel.includes('id-images/') && IMAGE.test(path)) files.push({ rel, kind: 'mrz' });
    else if (rel.includes('invoices/') && extname(path).toLowerCase() === '.pdf') files.push({ rel, kind: 'text-pdf' });
    else if (rel.includes('invoices/') && IMAGE.test(path)) files.push({ rel, kind: 'scanned' });
  }
  return files;
}

// ---------------------------------------------------------------- reading in this process

/** The provider's per-reader timings (its `local reader timing` debug lines), collected for the reading in hand. */
let stages: Array<{ reader: string; ms: number }> = [];
/** A logger that keeps the provider's timing lines and drops the rest (the provider only calls debug and warn). */
const timingLogger = {
  debug(o: { reader?: string; ms?: number }, msg?: string) {
    if (msg === 'local reader timing' && o.reader && typeof o.ms === 'number') stages.push({ reader: o.reader, ms: o.ms });
  },
  warn() {},
  info() {},
  error() {},
  child() {
    return timingLogger;
  },
} as unknown as LocalProviderOptions['logger'];
const config = loadConfig(); // the COTEJO_* variables apply, as in the server
const provider = createLocalProvider({
  readers: config.liveReaders,
  ocrLanguages: config.ocrLanguages,
  concurrency: 1,
  logger: timingLogger,
})!;

/** The files the service refuses at intake (422 before any reading, e.g. a PDF that cannot be parsed): not timed. */
const refused: string[] = [];

async function read(rel: string): Promise<{ reading: Reading; ms: number; cpuMs: number; stages: Array<{ reader: string; ms: number }> } | null> {
  const bytes = new Uint8Array(readFileSync(join(SETS, rel)));
  const mime = detectFileType(bytes)!.mime;
  let pages: number;
  try {
    ({ pages } = await inspectFile(bytes, mime, { maxPages: 200 }));
  } catch (err) {
    if (err instanceof ApiError) {
      refused.push(`${rel} (${err.code})`);
      return null;
    }
    throw err;
  }
  const input: ReadInput = {
    bytes, filename: basename(rel), mime, pages, kind: 'analysis', expect: null, extract: true, language: 'en', holder: null, referenceDate: REF, precise_bboxes: false,
  };
  stages = [];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const reading = await provider.read(input);
  const ms = performance.now() - t0;
  // The whole process's CPU (the OCR worker threads included): what the reading costs, whatever else the machine runs.
  const c = process.cpuUsage(c0);
  return { reading, ms, cpuMs: (c.user + c.system) / 1000, stages };
}

/** The glibc allocator variables this process was started with (they apply to the per-kind part; the server part sets its own). */
const ownAllocator = () => {
  const set = Object.keys(ALLOCATOR_ENV).filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`);
  return set.length ? set.join(' ') : "glibc's defaults";
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};
const sec = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : '-');
const rssMb = () => process.memoryUsage.rss() / 2 ** 20;

interface Row { rel: string; kind: Kind; ms: number; cpuMs: number; stages: Record<string, number>; readers: string }
const STAGES = ['decode', 'render', 'pdf', 'mrz', 'pdf417', 'quality', 'ocr'] as const;

async function readAll(files: File[]): Promise<{ rows: Row[]; peak: Record<Kind, number>; wall: number }> {
  const rows: Row[] = [];
  const peak = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  // Warm-up (not counted): engines and models load on first use and stay (an MRZ photo, a text PDF, a receipt).
  for (const k of ['mrz', 'text-pdf', 'receipt'] as const) {
    const f = files.find((x) => x.kind === k);
    if (f) await read(f.rel);
  }
  const t0 = performance.now();
  let i = 0;
  for (const f of files) {
    let current: Kind = f.kind;
    const sampler = setInterval(() => (peak[current] = Math.max(peak[current], rssMb())), 50);
    const r = await read(f.rel);
    clearInterval(sampler);
    if (!r) continue;
    const readers = r.reading.providers.map((p) => p.name.replace('local-', '')).join(',');
    // A PDF whose pages went through page OCR is a scanned page, not a text PDF.
    if (f.kind === 'text-pdf' && r.stages.some((s) => s.reader === 'render')) current = 'scanned';
    peak[current] = Math.max(peak[current], rssMb());
    const byStage: Record<string, number> = {};
    for (const s of r.stages) byStage[s.reader] = (byStage[s.reader] ?? 0) + s.ms;
    rows.push({ rel: f.rel, kind: current, ms: r.ms, cpuMs: r.cpuMs, stages: byStage, readers });
    console.error(`[${++i}/${files.length}] ${current.padEnd(8)} ${f.rel} ${sec(r.ms)} s (CPU ${sec(r.cpuMs)} s) ${STAGES.filter((s) => byStage[s] !== undefined).map((s) => `${s} ${byStage[s]}`).join(' ')}`);
  }
  return { rows, peak, wall: performance.now() - t0 };
}

function kindTable(rows: Row[], peak: Record<Kind, number>): string {
  const out = ['| kind | files | p50 s | p95 s | max s | goal (p95) | CPU s p50 / p95 | peak RSS of this process, MB |', '|---|---|---|---|---|---|---|---|'];
  for (const k of KINDS) {
    const ms = rows.filter((r) => r.kind === k).map((r) => r.ms);
    const cpu = rows.filter((r) => r.kind === k).map((r) => r.cpuMs);
    if (ms.length === 0) continue;
    const goal = GOAL_P95[k];
    const p95 = pct(ms, 95);
    out.push(`| ${KIND_LABEL[k]} | ${ms.length} | ${sec(pct(ms, 50))} | **${sec(p95)}** | ${sec(Math.max(...ms))} | ${goal ? `≤ ${goal} s: ${p95 / 1000 <= goal ? 'met' : 'not met'}` : ''} | ${sec(pct(cpu, 50))} / ${sec(pct(cpu, 95))} | ${peak[k].toFixed(0)} |`);
  }
  return out.join('\n');
}

function stageTable(rows: Row[]): string {
  const out = [`| kind | ${STAGES.join(' | ')} | rest (rules, classification) |`, `|---|${STAGES.map(() => '---|').join('')}---|`];
  for (const k of KINDS) {
    const rs = rows.filter((r) => r.kind === k);
    if (rs.length === 0) continue;
    const mean = (f: (r: Row) => number) => rs.reduce((a, r) => a + f(r), 0) / rs.length;
    const cells = STAGES.map((s) => {
      const ran = rs.filter((r) => r.stages[s] !== undefined);
      return ran.length === 0 ? '-' : `${sec(ran.reduce((a, r) => a + r.stages[s], 0) / ran.length)} (${ran.length})`;
    });
    const rest = mean((r) => r.ms - STAGES.reduce((a, s) => a + (r.stages[s] ?? 0), 0));
    out.push(`| ${KIND_LABEL[k]} | ${cells.join(' | ')} | ${sec(rest)} |`);
  }
  return out.join('\n');
}

function slowest(rows: Row[], n = 10): string {
  return [
    '| file | kind | seconds | CPU s | readers | stages (ms) |',
    '|---|---|---|---|---|---|',
    ...[...rows].sort((a, b) => b.ms - a.ms).slice(0, n).map((r) =>
      `| ${r.rel.replace(/^documents(-dev)?\//, '')} | ${r.kind} | ${sec(r.ms)} | ${sec(r.cpuMs)} | ${r.readers} | ${STAGES.filter((s) => r.stages[s] !== undefined).map((s) => `${s} ${r.stages[s]}`).join(', ')} |`),
  ].join('\n');
}

// ---------------------------------------------------------------- a server process on PostgreSQL, 8 readings at once

async function serverMemory(files: File[]): Promise<string> {
  const dbUrl = await freshDatabase('cotejo_speed');
  const env: NodeJS.ProcessEnv = { ...process.env, ...allocatorEnv(process.argv), DATABASE_URL: dbUrl, COTEJO_DATA_DIR: tempDir('cotejo-speed-'), MISTRAL_API_KEY: '' };
  const server = await startServer('server', env);
  const acc = liveAccount(env, 1000);
  const post = async (rel: string) => {
    const fd = new FormData();
    fd.append('file', new Blob([readFileSync(join(SETS, rel))]), basename(rel));
    const t0 = performance.now();
    const res = await fetch(`${server.url}/v1/analyze`, { method: 'POST', headers: { Authorization: `Bearer ${acc.keys.live}` }, body: fd });
    let body = (await res.json()) as { id?: string; status?: string; document?: { type: string } | null };
    const answered = { status: res.status, state: body.status ?? '-', ms: performance.now() - t0 };
    // A reading past the synchronous wait (202) goes on in the server: it counts until it has finished.
    while (body.id && (body.status === 'processing' || body.status === 'queued')) {
      await new Promise((r) => setTimeout(r, 500));
      body = (await (await fetch(`${server.url}/v1/analyses/${body.id}`, { headers: { Authorization: `Bearer ${acc.keys.live}` } })).json()) as typeof body;
    }
    return { ...answered, final: body.status ?? '-', type: body.document?.type ?? null, done: performance.now() - t0 };
  };
  const pick = (k: Kind, n: number, from = 0) => files.filter((f) => f.kind === k).slice(from, from + n).map((f) => f.rel);
  const scannedPdf = files.filter((f) => f.kind === 'text-pdf' && /handwritten|scanned|-hw\./i.test(f.rel)).map((f) => f.rel);
  const mix = [...pick('mrz', 2, 3), ...pick('text-pdf', 2, 5), ...pick('receipt', 2, 10), ...pick('scanned', 1), ...scannedPdf.slice(0, 1)];
  const idle0 = server.rss();
  // Warm the engines (they load on first use and stay): an MRZ photo, a text PDF, a receipt (page OCR).
  for (const rel of [pick('mrz', 1)[0], pick('text-pdf', 1)[0], pick('receipt', 1)[0]]) await post(rel);
  await new Promise((r) => setTimeout(r, 1000));
  const warm = server.rss();
  const t0 = performance.now();
  // The server's responsiveness meanwhile: GET /healthz one after another (10 ms apart) until every reading has
  // finished; its slowest answers are how long the event loop was held (a synchronous model run, a long decode...).
  let reading = true;
  const health: number[] = [];
  const probe = (async () => {
    while (reading) {
      const h0 = performance.now();
      await (await fetch(`${server.url}/healthz`)).arrayBuffer();
      health.push(performance.now() - h0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  // BENCH_SMAPS_AT_PEAK=file: the server's /proc/<pid>/smaps at the highest sample (where the peak's memory is).
  const smapsOut = process.env.BENCH_SMAPS_AT_PEAK;
  let highest = 0;
  const sampleRss = () => {
    const mb = server.rss();
    if (smapsOut && mb > highest + 4) {
      highest = mb;
      writeFileSync(smapsOut, readFileSync(`/proc/${server.child.pid}/smaps`, 'utf8'));
    }
    return mb;
  };
  const { value: results, peak } = await peakRss(sampleRss, () => Promise.all(mix.map(post)).finally(() => (reading = false)));
  await probe;
  const wall = performance.now() - t0;
  const rows = results.map((r, i) => `| ${basename(mix[i])} | ${r.status} ${r.state} after ${sec(r.ms)} s | ${r.final} | ${r.type ?? '-'} | ${sec(r.done)} |`);
  return [
    `One \`node server/src/main.ts\` on PostgreSQL (a fresh database, dropped afterwards), COTEJO_READING_CONCURRENCY=${config.readingConcurrency}, ` +
      `OCR languages ${config.ocrLanguages.join('+')}, COTEJO_OCR_WORKERS=${process.env.COTEJO_OCR_WORKERS ?? 1}, ${allocatorNote(process.argv)}; 8 synchronous live \`POST /v1/analyze\` sent at once ` +
      `(2 MRZ photos, 2 text PDFs, 2 receipt images, 2 scanned pages), resident set sampled every 50 ms.`,
    '',
    `- started: ${idle0.toFixed(0)} MB; engines warm (one MRZ photo, one text PDF, one receipt read first): ${warm.toFixed(0)} MB`,
    `- **8 live readings at once: peak ${peak.toFixed(0)} MB** (goal: under 600 MB), sampled until every reading had finished (${sec(wall)} s; ` +
      'a reading past the 30 s synchronous wait answers 202 and goes on in the server)',
    `- \`GET /healthz\` meanwhile (${health.length} requests one after another): p50 ${pct(health, 50).toFixed(0)} ms, p95 ${pct(health, 95).toFixed(0)} ms, slowest ${Math.max(...health).toFixed(0)} ms (how long the event loop was held)`,
    '',
    '| file | answer | final status | type | seconds to finished |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

// ---------------------------------------------------------------- run

const load0 = loadavg().map((x) => x.toFixed(2)).join(' ');
/** With --limit N: N files of each kind spread evenly over the kind's list (not its first N). */
function sample(list: File[]): File[] {
  if (limit === Infinity) return list;
  return KINDS.flatMap((k) => {
    const of = list.filter((f) => f.kind === k);
    const n = Math.min(limit, of.length);
    return Array.from({ length: n }, (_, i) => of[Math.floor((i * of.length) / n)]);
  });
}
const files = sample(listFiles().filter((f) => !only || f.kind === only || (only === 'scanned' && f.kind === 'text-pdf')));
let body = '';
try {
  let readPart = '';
  if (!serverOnly) {
    const { rows, peak, wall } = await readAll(files);
    const kept = only ? rows.filter((r) => r.kind === only) : rows;
    readPart = [
      `Run \`node bench/reading-speed.ts\` (commit ${execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim()}${execSync('git status --porcelain server/src', { cwd: ROOT }).toString().trim() ? ' with uncommitted changes' : ''}, ${new Date().toISOString().slice(0, 16)}Z): ${rows.length} files read one at a time in ${(wall / 1000).toFixed(0)} s${limit === Infinity ? '' : ` (a sample: ${limit} files of each kind, spread over its list, --limit ${limit})`}.${refused.length ? ` Refused at intake (422, no reading, not timed): ${refused.join(', ')}.` : ''}`,
      `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, **busy with other engineers' work** (load average ${load0} at start, ` +
        `${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end): seconds are upper bounds. Readers ${[...config.liveReaders].join(', ')}; OCR languages ${config.ocrLanguages.join('+')}; ` +
        `this process's allocator: ${ownAllocator()}; ` +
        '`createLocalProvider`, concurrency 1, engines warm (an MRZ photo, a text PDF and a receipt read first, not counted), wall seconds per `read()`; ' +
        'CPU seconds are the whole process\'s (OCR worker threads included) during the reading: on a loaded machine they, not the wall seconds, say what a reading costs.',
      '',
      kindTable(kept, peak),
      '',
      'Where the seconds go: mean seconds in each reader over the files it ran on (how many in brackets); `ocr` includes the downscale and the wait for the OCR worker; the rest (mean over every file) is the text rules, classification and fields.',
      '',
      stageTable(kept),
      '',
      'The slowest files:',
      '',
      slowest(kept),
    ].join('\n');
    console.log(readPart);
  }
  let memory = '';
  if (!skipServer) {
    memory = await serverMemory(listFiles());
    console.log(memory);
  }
  body = `# Reading speed and memory (issue #28, "Speed stays")

## Per kind of document, in this process

${readPart}

## Memory: a server process on PostgreSQL with 8 live readings at once

${memory}
`;
} finally {
  await cleanup();
}
if (full) {
  // The live batch's section (bench/live-batch.ts) is kept as it is.
  let previous = '';
  try {
    previous = readFileSync(OUT, 'utf8');
  } catch {
    // first run
  }
  const batch = /<!-- live-batch:start -->[\s\S]*<!-- live-batch:end -->/.exec(previous)?.[0];
  // Hand-written notes (what was changed and what it did) between their markers are kept too.
  const notes = /<!-- notes:start -->[\s\S]*<!-- notes:end -->/.exec(previous)?.[0];
  writeFileSync(OUT, `${body}${batch ? `\n${batch}\n` : ''}${notes ? `\n${notes}\n` : ''}`);
  console.error(`wrote ${relative(ROOT, OUT)}`);
}
process.exit(0);
