/**
 * Full-page OCR with tesseract.js 7, offline: lines with normalised boxes, word boxes and 0..1 confidences.
 *
 * Offline by construction:
 * - language data from the installed `@tesseract.js-data/<lang>/4.0.0_best_int/<lang>.traineddata.gz` (`langPath`
 *   is a local directory, `gzip: true`); `cacheMethod: 'none'`, so nothing is read from or written to the working
 *   directory (tesseract.js's default caches `<lang>.traineddata` in cwd);
 * - worker script and core: tesseract.js's Node worker (`src/worker-script/node/index.js`, a worker_thread)
 *   `require`s `tesseract.js-core` from node_modules; `workerPath` is set explicitly to the installed file, and no
 *   `corePath` URL is ever used in Node.
 *
 * Pool: at most `COTEJO_OCR_WORKERS` workers (1 or 2, default 1; each costs ~130 MB with `eng`, up to ~215 MB with the four languages: bench/results/image-reader.md), created lazily on first
 * use and reused. Jobs queue fairly: round robin over `group` (one analysis), FIFO inside a group, so a 30-page
 * scan cannot starve a photo that arrives after it. Each page has a time budget (`timeoutMs`, default
 * `OCR_PAGE_BUDGET_MS`): tesseract cannot be interrupted, so a page over budget terminates its worker (a fresh one
 * is created for the next job) and rejects with `OcrTimeoutError`; a caller's `signal` abort rejects with
 * `OcrAbortedError` (removed from the queue, or its worker terminated if already running).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { OCR_LANGUAGES, type OcrLanguage } from '../../config.ts';
import type { Box, PageImage, TextLine } from './types.ts';
import type { TextDirection } from './paddle-engine.ts';

export { OCR_LANGUAGES, type OcrLanguage };

/**
 * Default languages: the four the product reads (the composition passes `config.ocrLanguages`). A worker is
 * initialised per language set; changing the set replaces a worker (~1-3 s).
 */
export const DEFAULT_OCR_LANGUAGES: readonly OcrLanguage[] = OCR_LANGUAGES;

/** Default time budget of one page's recognition, once a worker has it (queue time not included). */
export const OCR_PAGE_BUDGET_MS = 20_000;

export interface OcrOptions {
  languages?: OcrLanguage[];
  /** Recognition budget for this page, ms. */
  timeoutMs?: number;
  /** The reading's deadline: aborts while queued or running. */
  signal?: AbortSignal;
  /** Fairness key (e.g. the analysis id): the queue serves groups in turn. Default: each call its own group. */
  group?: string;
  /**
   * `tesseract` (default: tesseract.js, this module's pool) or `paddle` (PP-OCRv4 through ONNX Runtime, paddle.ts,
   * loaded on first use; it reads Latin script whatever `languages` says).
   */
  engine?: OcrEngine;
}

export type OcrEngine = 'tesseract' | 'paddle';

/** How `processing.providers` names the PP-OCR engine. */
export const PADDLE_MODEL = 'PP-OCRv4 mobile det+rec (onnxruntime)';

/** The page took longer than its budget; its worker was terminated. The reading goes on without this page's text. */
export class OcrTimeoutError extends Error {
  readonly code = 'ocr_timeout';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`OCR de la página superó su presupuesto de ${timeoutMs} ms`);
    this.name = 'OcrTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's signal aborted before the page was read. */
export class OcrAbortedError extends Error {
  readonly code = 'ocr_aborted';
  constructor() {
    super('OCR cancelado');
    this.name = 'OcrAbortedError';
  }
}

// ---------------------------------------------------------------------------------------------
// tesseract.js, loaded from node_modules (CommonJS)

interface TessBbox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
interface TessWord {
  text: string;
  confidence: number;
  bbox: TessBbox;
}
interface TessLine {
  text: string;
  confidence: number;
  bbox: TessBbox;
  words: TessWord[];
}
interface TessBlock {
  paragraphs: Array<{ lines: TessLine[] }>;
}
interface TessWorker {
  recognize(image: Buffer, options?: Record<string, unknown>, output?: Record<string, boolean>): Promise<{ data: { blocks: TessBlock[] | null } }>;
  setParameters(params: Record<string, string>): Promise<unknown>;
  terminate(): Promise<unknown>;
}
interface Tesseract {
  createWorker(langs: string[], oem: number, options: Record<string, unknown>): Promise<TessWorker>;
}

const require = createRequire(import.meta.url);
let tesseract: Tesseract | undefined;
function tesseractModule(): Tesseract {
  tesseract ??= require('tesseract.js') as Tesseract;
  return tesseract;
}

/** Local directory of a language's traineddata (`4.0.0_best_int`: LSTM only, integer, the small one). */
export function langDir(lang: OcrLanguage): string {
  return path.join(path.dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`)), '4.0.0_best_int');
}

/** The worker script of tesseract.js's Node build, from node_modules. */
export function workerScriptPath(): string {
  return path.join(path.dirname(require.resolve('tesseract.js/package.json')), 'src', 'worker-script', 'node', 'index.js');
}

/**
 * tesseract.js reads every language from one `langPath` directory (`<langPath>/<lang>.traineddata.gz`), but each
 * language is its own npm package. (Its `{ code, data }` language objects would avoid that, but tesseract.js 7
 * initialises them with the data instead of the code: broken.) So: `COTEJO_TESSDATA_DIR` when set (a directory
 * holding `<lang>.traineddata.gz`), else a directory under the OS temporary directory holding symbolic links to the
 * installed files: one per user and installation (its name carries a hash of the node_modules path), made on first
 * use, checked every time (owned by this user, mode 0700, each link pointing at the installed file) and reused, so
 * that processes killed by a signal leave nothing new behind.
 */
let linkedDir: string | undefined;
export function tessdataDir(): string {
  const configured = process.env.COTEJO_TESSDATA_DIR;
  if (configured) return configured;
  if (linkedDir && linksOk(linkedDir)) return linkedDir;
  const uid = process.getuid?.() ?? 0;
  const tag = createHash('sha256').update(langDir('eng')).digest('hex').slice(0, 12);
  const stable = path.join(os.tmpdir(), `cotejo-tessdata-${uid}-${tag}`);
  if (!linksOk(stable)) {
    const fresh = mkdtempSync(path.join(os.tmpdir(), 'cotejo-tessdata-tmp-'));
    for (const lang of OCR_LANGUAGES) symlinkSync(linkTarget(lang), path.join(fresh, `${lang}.traineddata.gz`));
    try {
      renameSync(fresh, stable);
    } catch {
      // Another process made it first (fine if it is right), or something else sits there: use the fresh one.
      if (linksOk(stable)) rmSync(fresh, { recursive: true, force: true });
      else return (linkedDir = fresh);
    }
  }
  return (linkedDir = stable);
}

const linkTarget = (lang: OcrLanguage) => path.join(langDir(lang), `${lang}.traineddata.gz`);

function linksOk(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== (process.getuid?.() ?? st.uid) || (st.mode & 0o077) !== 0) return false;
    return OCR_LANGUAGES.every((lang) => readlinkSync(path.join(dir, `${lang}.traineddata.gz`)) === linkTarget(lang));
  } catch {
    return false;
  }
}

const OEM_LSTM_ONLY = 1;

async function createTessWorker(langs: readonly OcrLanguage[]): Promise<TessWorker> {
  const worker = await tesseractModule().createWorker(
    [...langs],
    OEM_LSTM_ONLY,
    {
      workerPath: workerScriptPath(),
      langPath: tessdataDir(),
      gzip: true,
      cacheMethod: 'none',
      workerBlobURL: false,
      logger: () => undefined,
      errorHandler: () => undefined,
    },
  );
  // No DPI in a PGM: say 300 (tesseract would guess 70 and warn); keep interword spaces as single spaces.
  await worker.setParameters({ user_defined_dpi: '300' });
  return worker;
}

// ---------------------------------------------------------------------------------------------
// Pool

interface Slot {
  key: string;
  langs: readonly OcrLanguage[];
  worker: Promise<TessWorker>;
  busy: boolean;
  /** Set while the worker waits for work: when it fires, the worker is released. */
  idleTimer?: NodeJS.Timeout;
}

/**
 * A worker left without work this long (`COTEJO_OCR_IDLE_MS`, default 30 s) is terminated: its WebAssembly heap (the bulk of the ~200 MB a warm worker
 * holds, and it never shrinks while the worker lives) goes back to the system. The next page starts a new one
 * (about 2 s).
 */
export const OCR_IDLE_RELEASE_MS = 30_000;

function idleReleaseMs(): number {
  const n = Number(process.env.COTEJO_OCR_IDLE_MS ?? OCR_IDLE_RELEASE_MS);
  return Number.isFinite(n) && n >= 0 ? n : OCR_IDLE_RELEASE_MS;
}

function releaseWhenIdle(slot: Slot): void {
  clearTimeout(slot.idleTimer);
  slot.idleTimer = setTimeout(() => {
    if (slot.busy) return;
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    void slot.worker.then((w) => w.terminate()).catch(() => undefined);
  }, idleReleaseMs());
  slot.idleTimer.unref();
}
interface Job {
  image: Buffer;
  width: number;
  height: number;
  page: number;
  langs: readonly OcrLanguage[];
  key: string;
  timeoutMs: number;
  signal?: AbortSignal;
  resolve: (lines: TextLine[]) => void;
  reject: (err: unknown) => void;
  onAbort?: () => void;
}

function poolSize(): number {
  const n = Number(process.env.COTEJO_OCR_WORKERS ?? 1);
  return Number.isFinite(n) ? Math.min(2, Math.max(1, Math.floor(n))) : 1;
}

const slots: Slot[] = [];
/** Round robin over groups: `order` is the service order, each group a FIFO. */
const queues = new Map<string, Job[]>();
const order: string[] = [];
let groupCounter = 0;

export interface OcrPoolStats {
  workers: number;
  busy: number;
  queued: number;
}
export function ocrPoolStats(): OcrPoolStats {
  let queued = 0;
  for (const q of queues.values()) queued += q.length;
  return { workers: slots.length, busy: slots.filter((s) => s.busy).length, queued };
}

function paddleOptions(opts: OcrOptions) {
  const timeoutMs = opts.timeoutMs ?? OCR_PAGE_BUDGET_MS;
  return { timeoutMs, signal: opts.signal, timeoutError: () => new OcrTimeoutError(timeoutMs), abortError: () => new OcrAbortedError() };
}

/**
 * Which way a page's text runs, by PP-OCR's detector and a few line recognitions (paddle.ts `paddleDirection`):
 * across, down, mixed or no text, and the quarter turn that sets its up-and-down lines upright. Same budget and
 * abort as `ocrPage`.
 */
export function pageTextDirection(image: PageImage, opts: OcrOptions = {}): Promise<TextDirection> {
  if (opts.signal?.aborted) return Promise.reject(new OcrAbortedError());
  return paddleModule().then((p) => p.paddleDirection(image, paddleOptions(opts)));
}

/**
 * OCR of one page: lines in reading order (tesseract's blocks → paragraphs → lines), boxes normalised to the page
 * image, confidences 0..1, words with their boxes. Empty lines are dropped. Rejects with `OcrTimeoutError` when
 * the page exceeds its budget, `OcrAbortedError` when `signal` aborts.
 */
export function ocrPage(image: PageImage, opts: OcrOptions = {}): Promise<TextLine[]> {
  const langs = normaliseLangs(opts.languages);
  if (opts.signal?.aborted) return Promise.reject(new OcrAbortedError());
  if (opts.engine === 'paddle') return paddleModule().then((p) => p.paddlePage(image, paddleOptions(opts)));
  return new Promise<TextLine[]>((resolve, reject) => {
    const job: Job = {
      image: toPgm(image),
      width: image.width,
      height: image.height,
      page: image.page,
      langs,
      key: langs.join('+'),
      timeoutMs: opts.timeoutMs ?? OCR_PAGE_BUDGET_MS,
      signal: opts.signal,
      resolve,
      reject,
    };
    const group = opts.group ?? `call-${++groupCounter}`;
    let q = queues.get(group);
    if (!q) {
      q = [];
      queues.set(group, q);
      order.push(group);
    }
    q.push(job);
    if (opts.signal) {
      job.onAbort = () => {
        // Still queued: just leave the queue. Running: handled by run().
        const list = queues.get(group);
        const i = list?.indexOf(job) ?? -1;
        if (list && i >= 0) {
          list.splice(i, 1);
          if (list.length === 0) dropGroup(group);
          reject(new OcrAbortedError());
        }
      };
      opts.signal.addEventListener('abort', job.onAbort, { once: true });
    }
    pump();
  });
}

function normaliseLangs(langs: OcrLanguage[] | undefined): readonly OcrLanguage[] {
  const set = new Set(langs && langs.length > 0 ? langs : DEFAULT_OCR_LANGUAGES);
  for (const l of set) if (!(OCR_LANGUAGES as readonly string[]).includes(l)) throw new RangeError(`ocrPage: unsupported language ${l}`);
  // Canonical order, so that ['spa', 'eng'] and ['eng', 'spa'] share a worker.
  return OCR_LANGUAGES.filter((l) => set.has(l));
}

function dropGroup(group: string): void {
  queues.delete(group);
  const i = order.indexOf(group);
  if (i >= 0) order.splice(i, 1);
}

/** Next job in round-robin order; its group goes to the back of the line. */
function takeJob(): Job | undefined {
  while (order.length > 0) {
    const group = order.shift()!;
    const q = queues.get(group);
    if (!q || q.length === 0) {
      queues.delete(group);
      continue;
    }
    const job = q.shift()!;
    if (q.length > 0) order.push(group);
    else queues.delete(group);
    return job;
  }
  return undefined;
}

function pump(): void {
  for (;;) {
    const idle = slots.filter((s) => !s.busy);
    if (idle.length === 0 && slots.length >= poolSize()) return;
    const job = takeJob();
    if (!job) return;
    // An idle worker with the job's languages; else a new worker while the pool has room; else replace an idle
    // worker of another language set (reinitialising costs about as much as a new one).
    let slot = idle.find((s) => s.key === job.key);
    if (!slot && slots.length < poolSize()) {
      slot = { key: job.key, langs: job.langs, worker: createTessWorker(job.langs), busy: false };
      slots.push(slot);
    } else if (!slot) {
      slot = idle[0];
      const old = slot.worker;
      void old.then((w) => w.terminate()).catch(() => undefined);
      slot.key = job.key;
      slot.langs = job.langs;
      slot.worker = createTessWorker(job.langs);
    }
    clearTimeout(slot.idleTimer);
    slot.busy = true;
    void run(slot, job);
  }
}

async function run(slot: Slot, job: Job): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let settled = false;
  const finish = (kill: boolean) => {
    settled = true;
    if (timer) clearTimeout(timer);
    if (job.signal && job.onAbort) job.signal.removeEventListener('abort', job.onAbort);
    if (job.signal && onAbortRunning) job.signal.removeEventListener('abort', onAbortRunning);
    if (kill) {
      // The only way to stop tesseract mid-page: end its thread. The next job gets a fresh worker.
      const i = slots.indexOf(slot);
      if (i >= 0) slots.splice(i, 1);
      void slot.worker.then((w) => w.terminate()).catch(() => undefined);
    } else {
      slot.busy = false;
    }
    pump();
    if (!kill && !slot.busy) releaseWhenIdle(slot);
  };
  const onAbortRunning = () => {
    if (settled) return;
    finish(true);
    job.reject(new OcrAbortedError());
  };
  if (job.signal?.aborted) {
    finish(false);
    job.reject(new OcrAbortedError());
    return;
  }
  job.signal?.addEventListener('abort', onAbortRunning, { once: true });
  try {
    const worker = await slot.worker;
    if (settled) return;
    // The budget starts when the page reaches a ready worker (worker creation is not the page's fault).
    timer = setTimeout(() => {
      if (settled) return;
      finish(true);
      job.reject(new OcrTimeoutError(job.timeoutMs));
    }, job.timeoutMs);
    const { data } = await worker.recognize(job.image, {}, { text: false, blocks: true });
    if (settled) return;
    finish(false);
    job.resolve(toLines(data.blocks ?? [], job.width, job.height, job.page));
  } catch (err) {
    if (settled) return;
    // A failed worker (creation or recognition) is not reused.
    finish(true);
    job.reject(err instanceof Error ? err : new Error(`tesseract: ${String(err)}`));
  }
}

/** The PP-OCR engine's module, imported on first use (it loads ONNX Runtime's native library). */
let paddle: Promise<typeof import('./paddle.ts')> | undefined;
function paddleModule(): Promise<typeof import('./paddle.ts')> {
  paddle ??= import('./paddle.ts');
  return paddle;
}

/** Terminates every worker and releases the PP-OCR engine (shutdown, tests). Queued jobs are rejected with `OcrAbortedError`. */
export async function terminateOcr(): Promise<void> {
  if (paddle) await (await paddle).releasePaddle();
  for (const q of queues.values()) for (const job of q) job.reject(new OcrAbortedError());
  queues.clear();
  order.length = 0;
  const all = slots.splice(0, slots.length);
  for (const s of all) clearTimeout(s.idleTimer);
  await Promise.all(all.map((s) => s.worker.then((w) => w.terminate()).catch(() => undefined)));
}

// ---------------------------------------------------------------------------------------------
// Image in, lines out

/**
 * The page's grey pixels as a binary PGM (no encoding cost; Leptonica reads PNM). The header carries a comment
 * padded to 512 bytes: tesseract.js scans the first 500 bytes of any image for an EXIF orientation pattern, and raw
 * pixels there could match it by chance and rotate the page.
 */
export function toPgm(image: PageImage): Buffer {
  const dims = `${image.width} ${image.height}\n255\n`;
  const header = Buffer.from(`P5\n#${' '.repeat(512 - 5 - dims.length)}\n${dims}`, 'latin1');
  return Buffer.concat([header, image.grey.subarray(0, image.width * image.height)]);
}

function box(b: TessBbox, w: number, h: number): Box {
  const c = (v: number) => Math.min(1, Math.max(0, v));
  return [c(b.x0 / w), c(b.y0 / h), c(b.x1 / w), c(b.y1 / h)];
}

function toLines(blocks: TessBlock[], w: number, h: number, page: number): TextLine[] {
  const lines: TextLine[] = [];
  for (const block of blocks) {
    for (const para of block.paragraphs) {
      for (const line of para.lines) {
        const words = line.words
          .filter((wd) => wd.text.trim() !== '')
          .map((wd) => ({ text: wd.text.trim(), bbox: box(wd.bbox, w, h), confidence: clamp01(wd.confidence / 100) }));
        if (words.length === 0) continue;
        lines.push({
          page,
          text: words.map((wd) => wd.text).join(' '),
          bbox: box(line.bbox, w, h),
          confidence: clamp01(line.confidence / 100),
          words,
        });
      }
    }
  }
  return lines;
}

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
