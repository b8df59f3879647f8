/**
 * Decompression bombs in the PDF signature reader (issue #12): a stream is inflated only up to MAX_STREAM_BYTES and
 * a document's streams together up to MAX_DOCUMENT_INFLATED_BYTES. Before, a 1 MiB PDF whose /Metadata inflated to
 * 1 GiB was inflated whole (and decoded to text): tens of seconds with the event loop blocked, gigabytes of memory.
 */
import { createDeflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_INFLATED_BYTES, MAX_STREAM_BYTES, PdfDocument, PdfError, dictOf, isStream } from '../../../server/src/validators/pdf-signature/pdf.ts';
import { verifyPdfSignatures } from '../../../server/src/validators/pdf-signature/index.ts';

/** Deflated zeros, streamed (the inflated size never exists in memory here either). */
async function deflatedZeros(bytes: number): Promise<Buffer> {
  const z = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((r) => z.on('end', () => r()));
  const chunk = Buffer.alloc(1024 * 1024);
  for (let sent = 0; sent < bytes; sent += chunk.length) if (!z.write(chunk)) await new Promise((r) => z.once('drain', r));
  z.end();
  await done;
  return Buffer.concat(out);
}

/** A one-page PDF whose catalogue has a /Metadata stream (and `extra` more streams) of the given deflated data. */
function pdfWith(metadata: Buffer, extra: Buffer[] = []): Uint8Array {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const add = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const obj = (n: number, body: string, stream?: Buffer) => {
    offsets[n] = length;
    add(`${n} 0 obj\n${body}\n`);
    if (stream) {
      add('stream\n');
      add(stream);
      add('\nendstream\n');
    }
    add('endobj\n');
  };
  add('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const extraRefs = extra.map((_, i) => `${5 + i} 0 R`).join(' ');
  obj(1, `<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R /Extra [${extraRefs}] >>`);
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>');
  obj(4, `<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length ${metadata.length} >>`, metadata);
  extra.forEach((e, i) => obj(5 + i, `<< /Filter /FlateDecode /Length ${e.length} >>`, e));
  const count = 5 + extra.length;
  const xref = length;
  add(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) add(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  add(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts));
}

describe('inflating PDF streams under a limit', () => {
  it('a /Metadata stream that inflates to 256 MiB is unreadable after MAX_STREAM_BYTES, not inflated whole', async () => {
    const bomb = await deflatedZeros(256 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const doc = new PdfDocument(pdfWith(bomb));
    const st = doc.stateAt(doc.buf.length);
    const root = dictOf(doc.resolve(st.trailer?.m.get('Root'), st));
    const md = doc.resolve(root?.m.get('Metadata'), st);
    expect(isStream(md)).toBe(true);
    expect(() => doc.streamData(md as never, st)).toThrow(PdfError);
    expect(() => doc.streamData(md as never, st)).toThrow('inflates past the limit');
  }, 60_000);

  it('a stream just under the limit is read whole; the document budget stops many of them', async () => {
    const under = await deflatedZeros(MAX_STREAM_BYTES - 1024 * 1024);
    const streams = Math.ceil(MAX_DOCUMENT_INFLATED_BYTES / (MAX_STREAM_BYTES - 1024 * 1024)) + 1;
    const doc = new PdfDocument(pdfWith(under, Array(streams).fill(under)));
    const st = doc.stateAt(doc.buf.length);
    const root = dictOf(doc.resolve(st.trailer?.m.get('Root'), st))!;
    const md = doc.resolve(root.m.get('Metadata'), st);
    expect(doc.streamData(md as never, st).length).toBe(MAX_STREAM_BYTES - 1024 * 1024);
    const extra = doc.resolve(root.m.get('Extra'), st) as unknown as Array<{ t: 'ref'; num: number; gen: number }>;
    const outcomes = extra.map((ref) => {
      try {
        return doc.streamData(doc.resolve(ref as never, st) as never, st).length;
      } catch (e) {
        return (e as Error).message;
      }
    });
    // Each read until the document's budget is spent; after that every stream is refused.
    expect(outcomes.filter((o) => typeof o === 'number').length).toBeLessThan(streams);
    expect(outcomes.at(-1)).toBe('stream inflates past the limit');
  }, 60_000);

  it('verifyPdfSignatures on the bomb answers (unsigned), without reading the metadata whole', async () => {
    const pdf = pdfWith(await deflatedZeros(256 * 1024 * 1024));
    const r = await verifyPdfSignatures(pdf, { trustStore: { roots: [], source: 'none' } });
    expect(r).toMatchObject({ status: 'missing', signatures: 0 });
  }, 60_000);
});
