/**
 * Page OCR with PaddleOCR's PP-OCRv4 mobile detector and recogniser through ONNX Runtime, offline: the second engine
 * beside tesseract.js (ocr.ts chooses between them: `COTEJO_OCR_ENGINE`). Same output as tesseract's: `TextLine[]`
 * with words, boxes normalised to the page and 0..1 confidences, so every reader after it works unchanged. The engine
 * (models, sessions, pre/post-processing) is paddle-engine.ts.
 *
 * It runs in one worker thread per process (paddle-worker.ts): ONNX Runtime's model runs are synchronous (up to ~1 s
 * each on a loaded machine) and would otherwise hold the event loop, and with it every other reading and request of
 * the process. The thread is started on the first page (the engine loads there, ~0.5 s, ~120 MB), reads the pages one
 * at a time in arrival order (this module keeps the queue and sends the next page when the previous one has really
 * stopped), and is ended after `COTEJO_OCR_IDLE_MS` without work like the tesseract pool, and at shutdown
 * (`releasePaddle`, through ocr.ts `terminateOcr`): it releases its sessions and exits; nothing stays behind.
 *
 * Budget and abort: ONNX Runtime cannot be interrupted inside one model run, so the budget (from when the engine is
 * ready and the page's turn has come) and the caller's signal are checked between runs: the caller's promise rejects
 * at once (`OcrTimeoutError` / `OcrAbortedError`), and the page stops at the next check (a shared memory cell the
 * worker reads between runs). A page aborted while queued never reaches the worker.
 */
import { Worker } from 'node:worker_threads';
import type { RgbPage } from './paddle-engine.ts';
import type { Direction, FromWorker, PaddleWorkerData, ToWorker } from './paddle-worker.ts';
import type { PageImage, TextLine } from './types.ts';

export interface PaddleOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Errors of ocr.ts, passed in (ocr.ts imports this module lazily). */
  timeoutError: () => Error;
  abortError: () => Error;
}

interface Job {
  id: number;
  /** Until the page is sent to the worker. */
  image: PageImage | null;
  opts: PaddleOptions;
  task: 'read' | 'direction';
  settle: PromiseWithResolvers<TextLine[] | Direction>;
  settled: boolean;
  /** The worker it was sent to. */
  sentTo: Thread | null;
  timer?: NodeJS.Timeout;
  onAbort: () => void;
}

interface Thread {
  worker: Worker;
  /** The shared cell: the id of the page asked to stop. */
  cancel: Int32Array;
  exited: Promise<void>;
}

let thread: Thread | null = null;
const queue: Job[] = [];
let current: Job | null = null;
let pending = 0;
let nextId = 0;
let idleTimer: NodeJS.Timeout | undefined;

/** How long the worker may wait for a page before it is ended, ms. */
function idleReleaseMs(): number {
  const n = Number(process.env.COTEJO_OCR_IDLE_MS ?? 30_000);
  return Number.isFinite(n) && n >= 0 ? n : 30_000;
}

/**
 * The process's Node options for the worker, less those that are about the main script only (`node --input-type=module
 * -e '...'` would fail the worker's start).
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const args = process.execArgv;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') i++;
    else if (!a.startsWith('--input-type')) out.push(a);
  }
  return out;
}

/**
 * The PP-OCR thread's young generation, MB. What the thread allocates is mostly typed arrays (pixels, tensors: outside
 * the V8 heap) and short-lived small objects; V8's default nursery (up to 16 MB a semi-space) only holds memory.
 * 8 live readings at once in one server peaked at 758-800 MB with 4 MB against 795-894 MB with the default, the
 * burst no slower (bench/results/reading-speed.md, session 17).
 */
const YOUNG_GENERATION_MB = 4;

function startThread(): Thread {
  const cancel = new SharedArrayBuffer(4);
  const worker = new Worker(new URL('./paddle-worker.ts', import.meta.url), {
    name: 'cotejo-pp-ocr',
    execArgv: workerExecArgv(),
    workerData: { cancel } satisfies PaddleWorkerData,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  const exited = Promise.withResolvers<void>();
  const t: Thread = { worker, cancel: new Int32Array(cancel), exited: exited.promise };
  worker.on('message', (msg: FromWorker) => onMessage(t, msg));
  // An uncaught error ends the thread: the page it was reading fails with it; the next page starts a new thread.
  let failure: Error | null = null;
  worker.on('error', (err) => (failure = err));
  worker.on('exit', (code) => {
    if (thread === t) thread = null;
    if (current?.sentTo === t) finishCurrent(failure ?? new Error(`PP-OCR worker ended (exit code ${code})`));
    exited.resolve();
  });
  return t;
}

function onMessage(t: Thread, msg: FromWorker): void {
  const job = current;
  if (!job || job.sentTo !== t || job.id !== msg.id) return;
  if (msg.type === 'started') {
    job.timer = setTimeout(() => stop(job, job.opts.timeoutError()), job.opts.timeoutMs);
  } else if (msg.type === 'done') {
    finishCurrent(null, msg.lines);
  } else if (msg.type === 'direction') {
    finishCurrent(null, msg.direction);
  } else if (msg.type === 'stopped') {
    finishCurrent(new Error('PP-OCR page stopped'));
  } else {
    finishCurrent(new Error(`PP-OCR: ${msg.message}`));
  }
}

/** Rejects the caller at once; a page being read stops at its next check, a queued one is dropped. */
function stop(job: Job, err: Error): void {
  reject(job, err);
  if (job === current) {
    if (job.sentTo) Atomics.store(job.sentTo.cancel, 0, job.id);
    return;
  }
  const i = queue.indexOf(job);
  if (i >= 0) {
    queue.splice(i, 1);
    done(job);
  }
}

function reject(job: Job, err: Error): void {
  if (job.settled) return;
  job.settled = true;
  job.settle.reject(err);
}

/** The job leaves the process's count (queued or read, it no longer holds the worker). */
function done(job: Job): void {
  clearTimeout(job.timer);
  job.opts.signal?.removeEventListener('abort', job.onAbort);
  job.image = null;
  pending--;
  if (pending === 0) {
    thread?.worker.unref();
    releaseWhenIdle();
  }
}

function finishCurrent(err: Error | null, result?: TextLine[] | Direction): void {
  const job = current;
  if (!job) return;
  current = null;
  if (err) reject(job, err);
  else if (!job.settled) {
    job.settled = true;
    job.settle.resolve(result ?? []);
  }
  done(job);
  pump();
}

/** Sends the next queued page to the worker (started on first use) when none is being read. */
function pump(): void {
  if (current || queue.length === 0) return;
  const job = queue.shift()!;
  current = job;
  thread ??= startThread();
  thread.worker.ref();
  const image = job.image!;
  job.image = null;
  job.sentTo = thread;
  // The worker gets its own copy of the RGB pixels (transferred, not copied twice); the caller keeps its image.
  const n = image.width * image.height * 3;
  const rgb = new Uint8Array(n);
  rgb.set(image.rgb.subarray(0, n));
  const page: RgbPage = { page: image.page, width: image.width, height: image.height, rgb };
  thread.worker.postMessage({ type: 'page', id: job.id, page, task: job.task } satisfies ToWorker, [rgb.buffer]);
}

function releaseWhenIdle(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (pending === 0) void endThread();
  }, idleReleaseMs());
  idleTimer.unref();
}

/** Asks the worker to release its sessions and end; ends it by force if it has not within 10 s. */
async function endThread(): Promise<void> {
  const t = thread;
  thread = null;
  if (!t) return;
  t.worker.ref();
  t.worker.postMessage({ type: 'close' } satisfies ToWorker);
  const force = setTimeout(() => void t.worker.terminate(), 10_000);
  await t.exited;
  clearTimeout(force);
}

/**
 * Ends the worker thread (shutdown, tests): queued pages and the one being read reject with the caller's abort error;
 * resolves once the thread has released its sessions and exited. The next page starts a new thread.
 */
export async function releasePaddle(): Promise<void> {
  clearTimeout(idleTimer);
  for (const job of [...queue]) stop(job, job.opts.abortError());
  if (current) stop(current, current.opts.abortError());
  await endThread();
}

export function paddleStats(): { loaded: boolean; pending: number } {
  return { loaded: thread !== null, pending };
}

/** OCR of one page with PP-OCR: lines in reading order, words with their boxes, confidences 0..1. */
export function paddlePage(image: PageImage, opts: PaddleOptions): Promise<TextLine[]> {
  return enqueue(image, opts, 'read') as Promise<TextLine[]>;
}

/**
 * Which way the page's text runs (across, down, mixed or no text, and the quarter turn that sets its up-and-down lines upright), from
 * PP-OCR's detector and a few line recognitions: a fraction of a page's reading (paddle-engine.ts `textDirection`).
 */
export function paddleDirection(image: PageImage, opts: PaddleOptions): Promise<Direction> {
  return enqueue(image, opts, 'direction') as Promise<Direction>;
}

function enqueue(image: PageImage, opts: PaddleOptions, task: Job['task']): Promise<TextLine[] | Direction> {
  if (opts.signal?.aborted) return Promise.reject(opts.abortError());
  clearTimeout(idleTimer);
  const job: Job = {
    id: ++nextId,
    image,
    opts,
    task,
    settle: Promise.withResolvers<TextLine[] | Direction>(),
    settled: false,
    sentTo: null,
    onAbort: () => stop(job, opts.abortError()),
  };
  pending++;
  queue.push(job);
  opts.signal?.addEventListener('abort', job.onAbort, { once: true });
  pump();
  return job.settle.promise;
}
