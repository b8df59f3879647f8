import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { ApiError } from '../errors.ts';
import { assertJsonDepth } from '../input/json-depth.ts';
import { MAX_FILE_BYTES } from '../input/limits.ts';

/** A JSON body carries at most one file in base64 (4/3 of 20 MB) plus options. */
export const MAX_JSON_BYTES = 30 * 1024 * 1024;
/** Operations whose JSON body holds one document: past MAX_JSON_BYTES, that document is what is too large. */
const SINGLE_DOCUMENT_OPERATIONS = new Set(['createAnalysis', 'createClassification', 'addDossierDocument']);
/** Multipart bodies carry up to 100 files (batches); one more is read so the handler can say batch_too_large. */
export const MAX_MULTIPART_FILES = 101;
const MAX_MULTIPART_FIELD_BYTES = 1024 * 1024;
/** What one request's uploads may hold in memory; past it they go to disk (a single document stays in memory). */
export const UPLOAD_MEMORY_BUDGET_BYTES = 32 * 1024 * 1024;
/**
 * What the uploads of all requests together may hold in memory: past it every upload goes to disk as it streams in,
 * so sixteen concurrent 20 MB uploads hold 48 MiB, not 320 MiB.
 */
export const PROCESS_UPLOAD_MEMORY_BYTES = 48 * 1024 * 1024;
const processBudget = { left: PROCESS_UPLOAD_MEMORY_BYTES };

/** Bytes of uploads held in memory by all requests now (tests). */
export const uploadMemoryHeld = (): number => PROCESS_UPLOAD_MEMORY_BYTES - processBudget.left;

/**
 * Where one uploaded file goes: memory while both the request's and the process's budgets last, else a temporary
 * file (what it had in memory is written first and its budget given back). `release()` gives back what it holds in
 * memory once the request is done with it.
 */
class Spool extends Writable {
  private chunks: Buffer[] = [];
  private held = 0;
  private handle: fs.promises.FileHandle | undefined;
  private file: string | undefined;
  private readonly budgets: Array<{ left: number }>;
  private readonly target: () => string;

  constructor(budget: { left: number }, target: () => string) {
    super();
    this.budgets = [budget, processBudget];
    this.target = target;
  }

  private giveBack(): void {
    for (const b of this.budgets) b.left += this.held;
    this.held = 0;
  }

  release(): void {
    this.giveBack();
    this.chunks = [];
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.take(chunk).then(() => callback(), callback);
  }

  private async take(chunk: Buffer): Promise<void> {
    if (!this.handle && this.budgets.every((b) => b.left >= chunk.length)) {
      this.chunks.push(chunk);
      this.held += chunk.length;
      for (const b of this.budgets) b.left -= chunk.length;
      return;
    }
    if (!this.handle) {
      this.file = this.target();
      this.handle = await fs.promises.open(this.file, 'w');
      for (const b of this.chunks) await this.handle.write(b);
      this.giveBack();
      this.chunks = [];
    }
    await this.handle.write(chunk);
  }

  override _final(callback: (error?: Error | null) => void): void {
    (this.handle ? this.handle.close() : Promise.resolve()).then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    (this.handle ? this.handle.close().catch(() => undefined) : Promise.resolve()).then(() => callback(error));
  }

  /** The whole file, from memory (joined once: the chunks are not held twice) or from disk. */
  read(): Promise<Buffer> {
    if (this.file) return fs.promises.readFile(this.file);
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks)];
    return Promise.resolve(this.chunks[0] ?? Buffer.alloc(0));
  }
}

/**
 * An uploaded file, kept in memory up to the request's budget and otherwise spooled to a temporary file
 * while the request streams in (a batch of 100 × 20 MB never sits in memory); read it when it is needed.
 * Temporary files are removed with the body's `cleanup()`.
 */
export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  size: number;
  /** SHA-256 (hex) of the content, computed while streaming. */
  sha256: string;
  read(): Promise<Buffer>;
}

/** Where multipart files are spooled while their request runs (one directory per request, removed after it). */
export function uploadsDir(dataDir: string): string {
  return path.join(dataDir, 'uploads');
}

export interface MultipartField {
  name: string;
  value: string;
}

export type ParsedBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'multipart'; fields: MultipartField[]; files: UploadedFile[]; cleanup(): Promise<void> };

export type BodyMediaType = 'application/json' | 'multipart/form-data';

export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** True when the request carries a body at all (a length above 0, or chunked). */
export function hasBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

async function readRaw(req: IncomingMessage, limit: number, tooLarge: () => ApiError): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const fileTooLarge = (): ApiError =>
  new ApiError(413, 'file_too_large', 'El archivo supera el tamaño máximo de 20 MB.', 'file_base64');

/** Any other JSON body (a batch's base64 items add up): the request, not one file, is over the limit. */
const requestTooLarge = (operationId: string) => (): ApiError =>
  new ApiError(
    413,
    'request_too_large',
    operationId === 'createBatch'
      ? 'Un cuerpo JSON admite como máximo 30 MB. Envía los lotes más grandes como multipart/form-data (files[]) o con file_url en cada documento.'
      : 'Un cuerpo JSON admite como máximo 30 MB.',
  );

/** Reads and parses a JSON body of at most MAX_JSON_BYTES (413 `file_too_large` on one-document operations, else `request_too_large`). */
export async function readJsonBody(req: IncomingMessage, operationId = ''): Promise<ParsedBody> {
  const raw = await readRaw(req, MAX_JSON_BYTES, SINGLE_DOCUMENT_OPERATIONS.has(operationId) ? fileTooLarge : requestTooLarge(operationId));
  if (raw.length === 0) return { kind: 'json', value: {} };
  const text = raw.toString('utf8');
  // Depth first, in one pass over the text: a body nested thousands deep is refused before it is built.
  assertJsonDepth(text);
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch {
    throw new ApiError(400, 'invalid_json', 'El cuerpo de la petición no es JSON válido.');
  }
}

/**
 * Streams a multipart body. Files are hashed on the way and kept in memory up to
 * UPLOAD_MEMORY_BUDGET_BYTES for the whole request; past it they go to temporary files under `spoolDir`, so
 * memory stays bounded whatever the batch. Files are limited to 20 MB each while reading
 * (413 `file_too_large` as soon as one passes it). On any failure the temporary files are removed
 * before the error is thrown; on success the caller removes them with `cleanup()` once answered.
 */
export function readMultipartBody(req: IncomingMessage, spoolDir: string): Promise<ParsedBody> {
  let dir: string | undefined;
  const spools: Spool[] = [];
  const cleanup = async (): Promise<void> => {
    for (const spool of spools.splice(0)) spool.release();
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  };
  const parsed = new Promise<ParsedBody>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        // busboy reports `limit` when a file *reaches* fileSize: one byte more, so exactly 20 MiB passes.
        limits: { fileSize: MAX_FILE_BYTES + 1, files: MAX_MULTIPART_FILES, fields: 100, fieldSize: MAX_MULTIPART_FIELD_BYTES, parts: 300 },
        preservePath: false,
        defParamCharset: 'utf8',
      });
    } catch {
      req.resume();
      reject(new ApiError(400, 'invalid_multipart', 'El cuerpo multipart no se puede leer (falta el boundary o es inválido).'));
      return;
    }
    const fields: MultipartField[] = [];
    // In the order the parts came (a batch's order), whenever each one finishes writing.
    const files: Array<UploadedFile | undefined> = [];
    const writes: Array<Promise<void>> = [];
    const budget = { left: UPLOAD_MEMORY_BUDGET_BYTES };
    let failure: ApiError | undefined;
    const fail = (err: ApiError): void => {
      if (!failure) failure = err;
    };
    bb.on('file', (name, stream, info) => {
      if (failure) {
        stream.resume();
        return;
      }
      const slot = files.length;
      files.push(undefined);
      const spool = new Spool(budget, () => {
        if (!dir) {
          fs.mkdirSync(spoolDir, { recursive: true });
          dir = fs.mkdtempSync(path.join(spoolDir, 'req-'));
        }
        return path.join(dir, String(slot));
      });
      spools.push(spool);
      const hash = crypto.createHash('sha256');
      let size = 0;
      stream.on('data', (c: Buffer) => {
        hash.update(c);
        size += c.length;
      });
      stream.on('limit', () => fail(new ApiError(413, 'file_too_large', 'El archivo supera el tamaño máximo de 20 MB.', name)));
      writes.push(
        pipeline(stream, spool).then(
          () => {
            files[slot] = { field: name, filename: info.filename ?? '', mimeType: info.mimeType, size, sha256: hash.digest('hex'), read: () => spool.read() };
          },
          () => fail(new ApiError(400, 'invalid_multipart', 'El cuerpo multipart no se puede leer.')),
        ),
      );
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new ApiError(400, 'invalid_multipart', `El campo '${name}' es demasiado largo.`, name));
      fields.push({ name, value });
    });
    bb.on('error', () => {
      req.unpipe(bb);
      req.resume();
      reject(failure ?? new ApiError(400, 'invalid_multipart', 'El cuerpo multipart no se puede leer.'));
    });
    bb.on('partsLimit', () => fail(new ApiError(400, 'invalid_multipart', 'El cuerpo multipart tiene demasiadas partes.')));
    bb.on('fieldsLimit', () => fail(new ApiError(400, 'invalid_multipart', 'El cuerpo multipart tiene demasiados campos.')));
    bb.on('close', () => {
      void Promise.all(writes).then(() => {
        if (failure) reject(failure);
        else resolve({ kind: 'multipart', fields, files: files as UploadedFile[], cleanup });
      });
    });
    // A client that goes away mid-upload: nothing more will come, so the parser and the files being written stop now
    // (their memory and temporary files are given back by the cleanup below), rather than waiting forever.
    let ended = false;
    req.on('end', () => (ended = true));
    req.on('close', () => {
      if (ended || req.complete) return;
      fail(new ApiError(400, 'invalid_multipart', 'La petición se interrumpió antes de terminar.'));
      for (const spool of spools) spool.destroy();
      bb.destroy();
    });
    req.pipe(bb);
  });
  return parsed.catch(async (err: unknown) => {
    await cleanup();
    throw err;
  });
}
