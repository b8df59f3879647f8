import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { ApiError } from './errors.ts';

/** 20 MB, counted as MiB (20 × 1024 × 1024 bytes): the file size limit of the specification. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** A JSON body carries at most one file in base64 (4/3 of 20 MB) plus options. */
export const MAX_JSON_BYTES = 30 * 1024 * 1024;
/** Multipart bodies carry up to 100 files (batches); one more is read so the handler can say batch_too_large. */
export const MAX_MULTIPART_FILES = 101;
const MAX_MULTIPART_FIELD_BYTES = 1024 * 1024;

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

export interface MultipartField {
  name: string;
  value: string;
}

export type ParsedBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'multipart'; fields: MultipartField[]; files: UploadedFile[] };

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

async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw fileTooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw fileTooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const fileTooLarge = (): ApiError =>
  new ApiError(413, 'file_too_large', 'El archivo supera el tamaño máximo de 20 MB.', 'file');

export async function readJsonBody(req: IncomingMessage): Promise<ParsedBody> {
  const raw = await readRaw(req, MAX_JSON_BYTES);
  if (raw.length === 0) return { kind: 'json', value: {} };
  try {
    return { kind: 'json', value: JSON.parse(raw.toString('utf8')) };
  } catch {
    throw new ApiError(400, 'invalid_json', 'El cuerpo de la petición no es JSON válido.');
  }
}

/**
 * Streams a multipart body. Files are limited to 20 MB each while reading (413 `file_too_large`
 * as soon as one passes it, without reading the rest into memory).
 */
export function readMultipartBody(req: IncomingMessage): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { fileSize: MAX_FILE_BYTES, files: MAX_MULTIPART_FILES, fields: 100, fieldSize: MAX_MULTIPART_FIELD_BYTES, parts: 300 },
        preservePath: false,
        defParamCharset: 'utf8',
      });
    } catch {
      req.resume();
      reject(new ApiError(400, 'invalid_multipart', 'El cuerpo multipart no se puede leer (falta el boundary o es inválido).'));
      return;
    }
    const fields: MultipartField[] = [];
    const files: UploadedFile[] = [];
    let failure: ApiError | undefined;
    const fail = (err: ApiError): void => {
      if (!failure) failure = err;
    };
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => {
        if (!failure) chunks.push(c);
      });
      stream.on('limit', () => fail(new ApiError(413, 'file_too_large', 'El archivo supera el tamaño máximo de 20 MB.', name)));
      stream.on('end', () => {
        if (failure) return;
        files.push({ field: name, filename: info.filename ?? '', mimeType: info.mimeType, data: Buffer.concat(chunks) });
      });
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
      if (failure) reject(failure);
      else resolve({ kind: 'multipart', fields, files });
    });
    req.on('aborted', () => fail(new ApiError(400, 'invalid_multipart', 'La petición se interrumpió antes de terminar.')));
    req.pipe(bb);
  });
}
