/** Decompression-bomb PDFs for the intake guard and the signature reader (issue #12). */
import { createDeflate } from 'node:zlib';

/** Deflated zeros, streamed (the inflated size never exists in memory here either). */
export async function deflatedZeros(bytes: number): Promise<Buffer> {
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

export interface BombPdfOptions {
  /** Deflated data of the page's content stream (default: a tiny, real one). */
  content?: Buffer;
  /** A stream dictionary (without /Length) and data for an image XObject on the page. */
  image?: { dict: string; data: Buffer };
}

/**
 * A one-page PDF whose catalogue has a /Metadata stream (and `extra` more streams) of the given deflated data, and
 * whose page has the given content stream and image.
 */
export function pdfWith(metadata: Buffer, extra: Buffer[] = [], opts: BombPdfOptions = {}): Uint8Array {
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
  const first = 7;
  const extraRefs = extra.map((_, i) => `${first + i} 0 R`).join(' ');
  const content = opts.content ?? Buffer.from('BT /F1 12 Tf 72 720 Td (Hola) Tj ET', 'latin1');
  obj(1, `<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R /Extra [${extraRefs}] >>`);
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(3, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R /Resources << ${opts.image ? '/XObject << /Im1 6 0 R >>' : ''} >> >>`);
  obj(4, `<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length ${metadata.length} >>`, metadata);
  obj(5, `<< ${opts.content ? '/Filter /FlateDecode ' : ''}/Length ${content.length} >>`, content);
  if (opts.image) obj(6, `<< /Type /XObject /Subtype /Image ${opts.image.dict} /Length ${opts.image.data.length} >>`, opts.image.data);
  else obj(6, '<< >>');
  extra.forEach((e, i) => obj(first + i, `<< /Filter /FlateDecode /Length ${e.length} >>`, e));
  const count = first + extra.length;
  const xref = length;
  add(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) add(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  add(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts));
}
