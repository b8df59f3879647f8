// Issue #28 "Speed stays": what the landscape re-read costs (providers/local/index.ts `readText`): a landscape photo
// with no zone or barcode whose tesseract text classifies as nothing sure is read again by PP-OCR, and when that is
// still unsure, turned a quarter each way (up to 3 more OCR passes).
//
// Every landscape image (wider than tall, as decoded) of ../shared/testdata/documents-dev (both splits: timing is not
// tuning; nothing is scored and no file is named here, only counts and seconds), read one at a time by the provider
// (concurrency 1, engines warm). Per reading: how many page-OCR passes ran, the seconds in each, the process's CPU.
//
// Usage: node bench/landscape-reread.ts   (node 24, node_modules/.bin first on PATH). Prints its table (Markdown).
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../server/src/config.ts';
import { detectFileType } from '../server/src/domain/intake/detect.ts';
import { createLocalProvider, type LocalProviderOptions } from '../server/src/providers/local/index.ts';
import { terminateOcr } from '../server/src/providers/local/ocr.ts';
import { releasePaddle } from '../server/src/providers/local/paddle.ts';
import type { ReadInput } from '../server/src/providers/types.ts';
import { ROOT } from './lib/server.ts';

const DEV = resolve(ROOT, '../shared/testdata/documents-dev');
const IMAGE = /\.(jpe?g|png|webp)$/i;

let stages: Array<{ reader: string; ms: number }> = [];
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
const config = loadConfig();
const provider = createLocalProvider({ readers: config.liveReaders, ocrLanguages: config.ocrLanguages, concurrency: 1, logger: timingLogger })!;

async function read(path: string) {
  const bytes = new Uint8Array(readFileSync(path));
  const mime = detectFileType(bytes)!.mime;
  const input: ReadInput = {
    bytes, filename: basename(path), mime, pages: 1, kind: 'analysis', expect: null, extract: true, language: 'en', holder: null, referenceDate: '2026-11-24', precise_bboxes: false,
  };
  stages = [];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await provider.read(input);
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, ocr: stages.filter((s) => s.reader === 'ocr').map((s) => s.ms) };
}

const entries = JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Array<{ path: string; category: string }>;
const landscape: Array<{ path: string; category: string }> = [];
for (const e of entries) {
  if (!IMAGE.test(e.path)) continue;
  const meta = await sharp(join(DEV, e.path)).metadata();
  const turned = (meta.orientation ?? 1) >= 5;
  const [w, h] = turned ? [meta.height!, meta.width!] : [meta.width!, meta.height!];
  if (w > h) landscape.push({ path: join(DEV, e.path), category: e.category });
}
const load0 = loadavg().map((x) => x.toFixed(2)).join(' ');
// Warm: the engines load on the first readings.
for (const p of landscape.slice(0, 2)) await read(p.path);

const rows: Array<{ category: string; passes: number; ms: number; cpuMs: number; firstMs: number; moreMs: number }> = [];
for (const p of landscape) {
  const r = await read(p.path);
  rows.push({ category: p.category, passes: r.ocr.length, ms: r.ms, cpuMs: r.cpuMs, firstMs: r.ocr[0] ?? 0, moreMs: r.ocr.slice(1).reduce((a, b) => a + b, 0) });
}
const load1 = loadavg().map((x) => x.toFixed(2)).join(' ');
await terminateOcr();
await releasePaddle();

const sec = (ms: number) => (ms / 1000).toFixed(2);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
console.log(`Landscape images of documents-dev (both splits): ${landscape.length}; machine ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average ${load0} at start, ${load1} at the end.\n`);
console.log('| page-OCR passes | readings | by category | mean s a reading | mean CPU s | mean s of the first pass | mean s of the passes after it | s after the first, in all |');
console.log('|---|---|---|---|---|---|---|---|');
for (const n of [...new Set(rows.map((r) => r.passes))].sort()) {
  const rs = rows.filter((r) => r.passes === n);
  const cats = Object.entries(rs.reduce<Record<string, number>>((a, r) => ({ ...a, [r.category]: (a[r.category] ?? 0) + 1 }), {})).map(([c, k]) => `${c} ${k}`).join(', ');
  console.log(`| ${n} | ${rs.length} | ${cats} | ${sec(mean(rs.map((r) => r.ms)))} | ${sec(mean(rs.map((r) => r.cpuMs)))} | ${sec(mean(rs.map((r) => r.firstMs)))} | ${sec(mean(rs.map((r) => r.moreMs)))} | ${sec(rs.reduce((a, r) => a + r.moreMs, 0))} |`);
}
