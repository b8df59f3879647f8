/**
 * Decompression bombs in PDFs are refused at intake (issue #12), before pdf.js or any reader inflates them: every
 * stream is measured with counting decoders, never held whole.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inspectFile } from '../../../server/src/domain/intake/inspect.ts';
import { assertNoPdfBomb, MAX_PDF_INFLATED_BYTES, MAX_PDF_STREAM_INFLATED_BYTES } from '../../../server/src/domain/intake/pdf-guard.ts';
import { fixtures } from '../../support/files.ts';
import { deflatedZeros, pdfWith } from '../../support/pdf-bombs.ts';

const MiB = 1024 * 1024;
const small = deflateSync(Buffer.from('<x:xmpmeta/>'));

/** Runs `work`, and reports how long it took, the longest event-loop stall meanwhile and the RSS growth. */
async function watched<T>(work: () => Promise<T>): Promise<{ ms: number; stallMs: number; rssMiB: number; result: T | unknown }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  h.enable();
  const t0 = performance.now();
  let result: T | unknown;
  try {
    result = await work();
  } catch (err) {
    result = err;
  }
  const ms = performance.now() - t0;
  h.disable();
  clearInterval(sampler);
  return { ms, stallMs: h.max / 1e6, rssMiB: (peak - rss0) / MiB, result };
}

describe('PDF decompression bombs at intake', () => {
  it('a page content stream that inflates to 1 GiB: 422 unreadable_pdf in well under 2 s, memory and event loop untouched', async () => {
    const content = await deflatedZeros(1024 * MiB);
    const pdf = pdfWith(small, [], { content });
    expect(pdf.length).toBeLessThan(1.1 * MiB);
    const r = await watched(() => inspectFile(pdf, 'application/pdf', { maxPages: 30, param: 'file' }));
    expect(r.result).toMatchObject({ status: 422, code: 'unreadable_pdf', param: 'file' });
    expect((r.result as Error).message).toMatch(/32 MiB/);
    expect(r.ms).toBeLessThan(2_000);
    expect(r.stallMs).toBeLessThan(300);
    expect(r.rssMiB).toBeLessThan(64);
  }, 60_000);

  it('streams each under the stream limit but together past the document limit are refused too', async () => {
    const each = await deflatedZeros(30 * MiB);
    const n = Math.ceil(MAX_PDF_INFLATED_BYTES / (30 * MiB)) + 1;
    const r = await watched(() => assertNoPdfBomb(pdfWith(small, Array(n).fill(each))));
    expect(r.result).toMatchObject({ status: 422, code: 'unreadable_pdf' });
    expect((r.result as Error).message).toMatch(/en total/);
    expect(r.ms).toBeLessThan(2_000 * (process.env.CI ? 2 : 1)); // ~512 MiB counted in the thread pool
    expect(r.stallMs).toBeLessThan(300);
    expect(r.rssMiB).toBeLessThan(64);
  }, 60_000);

  it('an image XObject that declares more pixels than an image upload may have is refused without decoding it', async () => {
    const image = { dict: '/Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode', data: small };
    await expect(assertNoPdfBomb(pdfWith(small, [], { image }))).rejects.toMatchObject({ code: 'unreadable_pdf', message: expect.stringMatching(/100000×100000/) });
    const fine = { dict: '/Width 2480 /Height 3508 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode', data: await deflatedZeros(2480 * 3508 * 3) };
    expect(await assertNoPdfBomb(pdfWith(small, [], { image: fine }))).toBeGreaterThanOrEqual(2480 * 3508 * 3);
  }, 60_000);

  it('a stream just under the limit is fine, and so are real PDFs (counted, not refused)', async () => {
    const under = await deflatedZeros(MAX_PDF_STREAM_INFLATED_BYTES - MiB);
    expect(await assertNoPdfBomb(pdfWith(small, [], { content: under }))).toBe(MAX_PDF_STREAM_INFLATED_BYTES - MiB + 12);
    const signed = fixtures.signedPdf();
    const counted = await assertNoPdfBomb(signed);
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(50 * signed.length);
    await expect(inspectFile(signed, 'application/pdf', { maxPages: 30 })).resolves.toMatchObject({ pages: expect.any(Number) });
  }, 60_000);

  it('LZW, RunLength and ASCII filters are counted as they decode', async () => {
    // What the rest of the test PDF decodes to: the metadata (12 bytes) and the page's plain content stream (35).
    const base = 12 + 35;
    // RunLength: n = 129 repeats the next byte 128 times, 2 input bytes for 128 out: 64x expansion.
    const rl = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < rl.length; i += 2) rl[i] = 129;
    // A 10 x 10 image may not decode to 64 MiB; a 4096 x 4096 one may (up to 8 bytes a pixel).
    const runLength = pdfWith(small, [], { image: { dict: '/Width 10 /Height 10 /Filter /RunLengthDecode', data: rl } });
    await expect(assertNoPdfBomb(runLength)).rejects.toMatchObject({ code: 'unreadable_pdf' });
    const bigger = pdfWith(small, [], { image: { dict: '/Width 4096 /Height 4096 /Filter /RunLengthDecode', data: rl } });
    expect(await assertNoPdfBomb(bigger)).toBe(64 * MiB + base);
    // ASCIIHex in front of Flate: the hex is decoded, then the inflated size counted.
    const hex = Buffer.from((await deflatedZeros(8 * MiB)).toString('hex') + '>', 'latin1');
    const chained = pdfWith(small, [], { image: { dict: '/Width 10 /Height 10 /Filter [/ASCIIHexDecode /FlateDecode]', data: hex } });
    expect(await assertNoPdfBomb(chained)).toBe(8 * MiB + base);
    await expect(assertNoPdfBomb(chained, { perStream: 4 * MiB })).rejects.toMatchObject({ code: 'unreadable_pdf' });
    // LZW: a code stream that repeats one growing string (each code one longer than the last).
    const lzw = lzwRepeat(4000);
    const lzwPdf = pdfWith(small, [], { image: { dict: '/Width 10 /Height 10 /Filter /LZWDecode', data: lzw } });
    const decoded = await assertNoPdfBomb(lzwPdf);
    expect(decoded - base).toBe(expectedLzwRepeat(4000));
  });
});

/** LZW codes for "a", then the KwKwK case again and again: code 258 = "aa", 259 = "aaa", ... (9 to 12-bit codes). */
function lzwRepeat(codes: number): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  let width = 9;
  let next = 258;
  const emit = (code: number) => {
    acc = (acc << width) | code;
    bits += width;
    while (bits >= 8) {
      out.push((acc >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    acc &= (1 << bits) - 1;
  };
  emit(0x61);
  for (let i = 0; i < codes && next < 4095; i++) {
    emit(next);
    next++;
    if (next + 1 >= 1 << width && width < 12) width++;
  }
  emit(257);
  if (bits > 0) out.push((acc << (8 - bits)) & 0xff);
  return Buffer.from(out);
}

function expectedLzwRepeat(codes: number): number {
  let total = 1;
  let next = 258;
  for (let i = 0; i < codes && next < 4095; i++, next++) total += i + 2;
  return total;
}
