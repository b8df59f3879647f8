/**
 * Small files for the fuzzer, built in memory: a few readable documents of a few hundred bytes (so thousands of
 * requests stay cheap) and a set of damaged or foreign ones that exercise intake's refusals.
 */
import zlib from 'node:zlib';
import sharp from 'sharp';
import type { FileSample, FileSampleName } from './requests.ts';

/** A valid PDF of `pages` empty pages, with a correct cross-reference table. */
export function makePdf(pages: number): Buffer {
  const objects: string[] = [];
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  objects.push('<< /Type /Catalog /Pages 2 0 R >>');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`);
  for (let i = 0; i < pages; i++) objects.push('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>');
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** The PNG with its IHDR claiming `width` x `height` (CRC fixed, so only the decoder's limits refuse it). */
function withDimensions(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(zlib.crc32(out.subarray(12, 29)), 29);
  return out;
}

export async function buildSamples(): Promise<Record<FileSampleName, FileSample>> {
  const base = () => sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 180, g: 120, b: 60 } } });
  const jpeg = await base().jpeg().toBuffer();
  const png = await base().png().toBuffer();
  const webp = await base().webp().toBuffer();
  const corrupt = Buffer.from(png);
  for (let i = 40; i < Math.min(corrupt.length - 12, 60); i++) corrupt[i] ^= 0x5a;
  const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic', 'latin1'), Buffer.alloc(64, 7)]);
  let seed = 12345;
  const random = Buffer.from(Array.from({ length: 256 }, () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff));
  const s = (bytes: Buffer, mime: string): FileSample => ({ bytes: new Uint8Array(bytes), mime });
  return {
    jpeg: s(jpeg, 'image/jpeg'),
    png: s(png, 'image/png'),
    webp: s(webp, 'image/webp'),
    pdf: s(makePdf(1), 'application/pdf'),
    pdf_31_pages: s(makePdf(31), 'application/pdf'),
    pdf_201_pages: s(makePdf(201), 'application/pdf'),
    pdf_garbage: s(Buffer.concat([Buffer.from('%PDF-1.7\n'), random]), 'application/pdf'),
    jpeg_truncated: s(jpeg.subarray(0, Math.floor(jpeg.length * 0.6)), 'image/jpeg'),
    png_corrupt: s(corrupt, 'image/png'),
    png_huge_dims: s(withDimensions(png, 100_000, 100_000), 'image/png'),
    fake_heic: s(heic, 'image/heic'),
    gif: s(Buffer.concat([Buffer.from('GIF89a'), random.subarray(0, 40)]), 'image/gif'),
    zip: s(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), random.subarray(0, 60)]), 'application/zip'),
    svg: s(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'), 'image/svg+xml'),
    text: s(Buffer.from('hello, this is not a document\n'), 'text/plain'),
    empty: s(Buffer.alloc(0), 'application/octet-stream'),
    random: s(random, 'application/octet-stream'),
  };
}
