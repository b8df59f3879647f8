/**
 * The PP-OCR worker thread (started by paddle.ts, one per process): it owns the engine (ONNX Runtime sessions, models,
 * pre- and post-processing, paddle-engine.ts), loaded on the first page, and reads the pages paddle.ts sends it one
 * at a time. Messages:
 * - in: `{ type: 'page', id, page, task }` (the page's RGB pixels, transferred; `task` `read`, the default, or
 *   `direction`: which way its text runs, paddle-engine.ts `textDirection`); `{ type: 'close' }`: release the sessions
 *   and end the thread, after the page being read, if any, has stopped;
 * - out: `{ type: 'started', id }` when the engine is ready and the page begins (its budget starts then), then
 *   `{ type: 'done', id, lines }` (or `{ type: 'direction', id, direction }`), `{ type: 'stopped', id }` (paddle.ts asked it to stop) or
 *   `{ type: 'failed', id, message }`.
 * paddle.ts asks a page to stop by writing its id into the shared `cancel` cell (workerData): the page checks it
 * between model runs, whatever this thread's event loop is doing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createEngine, type Engine, readPage, releaseEngine, type RgbPage, textDirection, type TextDirection } from './paddle-engine.ts';
import type { TextLine } from './types.ts';

export type ToWorker = { type: 'page'; id: number; page: RgbPage; task?: 'read' | 'direction' } | { type: 'close' };
export type Direction = TextDirection;
export type FromWorker =
  | { type: 'started'; id: number }
  | { type: 'done'; id: number; lines: TextLine[] }
  | { type: 'direction'; id: number; direction: Direction }
  | { type: 'stopped'; id: number }
  | { type: 'failed'; id: number; message: string };
export interface PaddleWorkerData {
  /** One Int32 cell: the id of a page asked to stop. */
  cancel: SharedArrayBuffer;
}

const port = parentPort;
if (!port) throw new Error('paddle-worker.ts runs as a worker thread (paddle.ts starts it)');
const cancel = new Int32Array((workerData as PaddleWorkerData).cancel);

class Stopped extends Error {}

let engine: Promise<Engine> | null = null;
let reading = false;
let closing = false;

function getEngine(): Promise<Engine> {
  engine ??= createEngine().catch((err: unknown) => {
    engine = null;
    throw err;
  });
  return engine;
}

async function close(): Promise<void> {
  const e = await engine?.catch(() => null);
  engine = null;
  if (e) await releaseEngine(e);
  port!.close();
}

function send(msg: FromWorker): void {
  port!.postMessage(msg);
}

async function read(id: number, page: RgbPage, task: 'read' | 'direction'): Promise<void> {
  reading = true;
  const check = () => {
    if (closing || Atomics.load(cancel, 0) === id) throw new Stopped();
  };
  try {
    const e = await getEngine();
    check();
    send({ type: 'started', id });
    if (task === 'direction') send({ type: 'direction', id, direction: await textDirection(e, page, check) });
    else send({ type: 'done', id, lines: await readPage(e, page, check) });
  } catch (err) {
    if (err instanceof Stopped) send({ type: 'stopped', id });
    else send({ type: 'failed', id, message: err instanceof Error ? err.message : String(err) });
  } finally {
    reading = false;
    if (closing) await close();
  }
}

port.on('message', (msg: ToWorker) => {
  if (msg.type === 'close') {
    closing = true;
    if (!reading) void close();
  } else void read(msg.id, msg.page, msg.task ?? 'read');
});
