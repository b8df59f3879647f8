/** What `file` accepts: a path, bytes, a Blob or File, a Node readable stream (or any async iterable of bytes). */
export type Uploadable =
  | string
  | Uint8Array
  | ArrayBuffer
  | Blob
  | AsyncIterable<Uint8Array | string>;

/** Any file input, or `{ url }` (sent as `file_url`) or `{ base64 }` (sent as `file_base64`). */
export type FileInput = Uploadable | { url: string } | { base64: string };

export function isRemote(file: FileInput): file is { url: string } | { base64: string } {
  return typeof file === 'object' && file !== null && !isBytes(file) && !isBlob(file) && !isAsyncIterable(file) &&
    ('url' in file || 'base64' in file);
}

function isBytes(v: unknown): v is Uint8Array | ArrayBuffer {
  return v instanceof Uint8Array || v instanceof ArrayBuffer;
}

function isBlob(v: unknown): v is Blob {
  return typeof Blob !== 'undefined' && v instanceof Blob;
}

function isAsyncIterable(v: unknown): v is AsyncIterable<Uint8Array | string> {
  return typeof v === 'object' && v !== null && typeof (v as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function';
}

function basename(p: string): string {
  return p.split(/[\\/]/).pop() || 'file';
}

/** Reads any upload into a Blob and its file name (an explicit `filename` wins). */
export async function toBlob(file: Uploadable, filename?: string): Promise<{ blob: Blob; name: string }> {
  if (typeof file === 'string') {
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(file);
    return { blob: new Blob([bytes]), name: filename ?? basename(file) };
  }
  if (isBlob(file)) {
    const own = (file as { name?: unknown }).name;
    return { blob: file, name: filename ?? (typeof own === 'string' && own !== '' ? own : 'file') };
  }
  if (isBytes(file)) return { blob: new Blob([file as Uint8Array<ArrayBuffer>]), name: filename ?? 'file' };
  if (isAsyncIterable(file)) {
    const chunks: BlobPart[] = [];
    const encoder = new TextEncoder();
    for await (const chunk of file) chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : (chunk as Uint8Array<ArrayBuffer>));
    const path = (file as { path?: unknown }).path; // fs.ReadStream
    return { blob: new Blob(chunks), name: filename ?? (typeof path === 'string' ? basename(path) : 'file') };
  }
  throw new TypeError('Unsupported `file`: pass a path, a Buffer/Uint8Array, a Blob/File, a readable stream, { url } or { base64 }.');
}
