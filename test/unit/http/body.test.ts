import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../server/src/errors.ts';
import { readMultipartBody, UPLOAD_MEMORY_BUDGET_BYTES } from '../../../server/src/http/body.ts';
import { MAX_FILE_BYTES } from '../../../server/src/input/limits.ts';

/** A real multipart request stream, encoded by the platform's FormData (as a client would send it). */
async function multipart(parts: Array<[string, Uint8Array | string, string?]>): Promise<IncomingMessage> {
  const fd = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') fd.append(name, value);
    else fd.append(name, new Blob([value as Uint8Array<ArrayBuffer>]), filename ?? 'file.bin');
  }
  const encoded = new Request('http://localhost/', { method: 'POST', body: fd });
  const bytes = Buffer.from(await encoded.arrayBuffer());
  // Several chunks, as a socket would deliver them.
  const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
  return Object.assign(Readable.from(chunks), { headers: { 'content-type': encoded.headers.get('content-type')!, 'content-length': String(bytes.length) } }) as unknown as IncomingMessage;
}

const sha = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');
const dirs: string[] = [];
const spool = () => {
  const d = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-body-')), 'uploads');
  dirs.push(path.dirname(d));
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('multipart bodies: memory up to a budget, then disk', () => {
  it('keeps small uploads in memory: files in order with their size and hash, nothing on disk', async () => {
    const files = [crypto.randomBytes(300_000), crypto.randomBytes(10), crypto.randomBytes(150_000)];
    const dir = spool();
    const body = await readMultipartBody(
      await multipart([['options', '{"language":"en"}'], ['files[]', files[0], 'a.jpg'], ['files[]', files[1], 'b.pdf'], ['files[]', files[2], 'c.png']]),
      dir,
    );
    if (body.kind !== 'multipart') throw new Error('expected multipart');
    expect(body.fields).toEqual([{ name: 'options', value: '{"language":"en"}' }]);
    expect(body.files.map((f) => [f.field, f.filename, f.size, f.sha256])).toEqual([
      ['files[]', 'a.jpg', 300_000, sha(files[0])],
      ['files[]', 'b.pdf', 10, sha(files[1])],
      ['files[]', 'c.png', 150_000, sha(files[2])],
    ]);
    for (const [i, f] of body.files.entries()) expect(Buffer.compare(await f.read(), files[i])).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
    await body.cleanup();
  });

  it('past the request\'s memory budget the rest goes to disk (mid-file too), readable until cleanup removes it', async () => {
    const third = Math.ceil(UPLOAD_MEMORY_BUDGET_BYTES / 2.2);
    const files = [crypto.randomBytes(third), crypto.randomBytes(third), crypto.randomBytes(third), crypto.randomBytes(1000)];
    const dir = spool();
    const body = await readMultipartBody(await multipart(files.map((f, i) => ['files[]', f, `${i}.jpg`] as [string, Uint8Array, string])), dir);
    if (body.kind !== 'multipart') throw new Error('expected multipart');
    expect(body.files.map((f) => [f.filename, f.size, f.sha256])).toEqual(files.map((f, i) => [`${i}.jpg`, f.length, sha(f)]));
    for (const [i, f] of body.files.entries()) expect(Buffer.compare(await f.read(), files[i]), `file ${i}`).toBe(0);
    // Two fit in memory; the third crossed the budget while streaming and went to disk with what it had; the
    // small fourth fits in what the third gave back.
    const [requestDir] = fs.readdirSync(dir);
    expect(fs.readdirSync(path.join(dir, requestDir))).toEqual(['2']);
    await body.cleanup();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a file over 20 MB: 413 file_too_large naming its field, and nothing left on disk', async () => {
    const dir = spool();
    // The first fills most of the memory budget, so the second is on its way to disk when it passes 20 MB.
    const req = await multipart([['files[]', crypto.randomBytes(MAX_FILE_BYTES), 'ok.jpg'], ['files[]', new Uint8Array(MAX_FILE_BYTES + 1), 'big.jpg']]);
    const err = await readMultipartBody(req, dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 413, code: 'file_too_large', param: 'files[]' });
    expect(fs.existsSync(dir), 'it had spilled to disk').toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('exactly 20 MiB passes (busboy reports its limit when a file reaches it, so the limit given is one byte more)', async () => {
    const exact = crypto.randomBytes(MAX_FILE_BYTES);
    const body = await readMultipartBody(await multipart([['file', exact, 'exact.jpg']]), spool());
    if (body.kind !== 'multipart') throw new Error('expected multipart');
    expect(body.files[0]).toMatchObject({ size: MAX_FILE_BYTES, sha256: sha(exact) });
    await body.cleanup();
  });

  it('a body without files writes nothing', async () => {
    const dir = spool();
    const body = await readMultipartBody(await multipart([['expect', 'es_dni']]), dir);
    expect(body).toMatchObject({ kind: 'multipart', files: [], fields: [{ name: 'expect', value: 'es_dni' }] });
    expect(fs.existsSync(dir)).toBe(false);
  });
});
