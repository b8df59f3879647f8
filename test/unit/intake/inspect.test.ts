import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  MAX_PAGES_ASYNC,
  MAX_PAGES_SYNC,
  inspectFile,
  maxPagesFor,
} from '../../../server/src/domain/intake/inspect.ts';
import { expectApiError, FIXTURES, hugePng, SHARED } from './helpers.ts';

const SYNC = { maxPages: MAX_PAGES_SYNC };
const ASYNC = { maxPages: MAX_PAGES_ASYNC };

async function pdfWithPages(n: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < n; i++) doc.addPage([200, 200]);
  return doc.save();
}

/** A noisy 120×80 picture, so compressed data is spread over the whole file. */
function noise(width: number, height: number): Buffer {
  const px = Buffer.alloc(width * height * 3);
  let x = 12345;
  for (let i = 0; i < px.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    px[i] = x >> 16;
  }
  return px;
}

const img: Record<string, Buffer> = {};
beforeAll(async () => {
  const raw = { raw: { width: 120, height: 80, channels: 3 as const } };
  const px = noise(120, 80);
  img.jpeg = await sharp(px, raw).jpeg({ quality: 90 }).toBuffer();
  img.progressive = await sharp(px, raw).jpeg({ quality: 90, progressive: true }).toBuffer();
  img.png = await sharp(px, raw).png().toBuffer();
  img.webp = await sharp(px, raw).webp({ quality: 80 }).toBuffer();
  img.rotated = await sharp(px, raw).jpeg().withMetadata({ orientation: 6 }).toBuffer();
});

const cut = (b: Uint8Array, fraction: number): Uint8Array => b.subarray(0, Math.floor(b.length * fraction));

describe('inspectFile: images', () => {
  it.each(['jpeg', 'progressive', 'png', 'webp'] as const)('a whole %s decodes: 1 page', async (kind) => {
    const mime = kind === 'progressive' ? 'image/jpeg' : (`image/${kind}` as const);
    // One decoding pipeline and no header pass: intake needs only to know the pixels decode (no size is kept).
    expect(await inspectFile(img[kind], mime, SYNC)).toEqual({ pages: 1 });
  });

  it('an EXIF-rotated JPEG decodes', async () => {
    expect(await inspectFile(img.rotated, 'image/jpeg', SYNC)).toEqual({ pages: 1 });
  });

  it('real ICAO specimen passports (JPEG, PNG)', async () => {
    const dir = join(SHARED, 'id-images/PassportEye');
    const jpg = await inspectFile(readFileSync(join(dir, 'testdata/43_pass-fra.jpg')), 'image/jpeg', SYNC);
    expect(jpg.pages).toBe(1);
    const png = await inspectFile(readFileSync(join(dir, 'tests-data/passport-td3.png')), 'image/png', SYNC);
    expect(png.pages).toBe(1);
  });

  it.each([0.95, 0.6, 0.3])('a JPEG truncated to %s of its size => 422 unreadable_image', async (f) => {
    await expectApiError(() => inspectFile(cut(img.jpeg, f), 'image/jpeg', SYNC), 422, 'unreadable_image', 'file');
    await expectApiError(() => inspectFile(cut(img.progressive, f), 'image/jpeg', SYNC), 422, 'unreadable_image', 'file');
  });

  it('a JPEG that only lacks its final EOI marker is truncated too', async () => {
    await expectApiError(() => inspectFile(img.jpeg.subarray(0, img.jpeg.length - 2), 'image/jpeg', SYNC), 422, 'unreadable_image');
  });

  it('a real passport JPEG cut in half => unreadable_image', async () => {
    const jpg = readFileSync(join(SHARED, 'id-images/PassportEye/testdata/43_pass-fra.jpg'));
    await expectApiError(() => inspectFile(cut(jpg, 0.5), 'image/jpeg', SYNC), 422, 'unreadable_image');
  });

  it.each([0.9, 0.5])('a PNG truncated inside its image data (%s) => unreadable_image', async (f) => {
    await expectApiError(() => inspectFile(cut(img.png, f), 'image/png', SYNC), 422, 'unreadable_image', 'file');
  });

  it('a PNG with corrupted compressed data => unreadable_image', async () => {
    const bad = Buffer.from(img.png);
    for (let i = 100; i < bad.length - 100; i += 7) bad[i] ^= 0xff;
    await expectApiError(() => inspectFile(bad, 'image/png', SYNC), 422, 'unreadable_image');
  });

  it('a truncated WEBP => unreadable_image', async () => {
    await expectApiError(() => inspectFile(cut(img.webp, 0.8), 'image/webp', SYNC), 422, 'unreadable_image');
  });

  it('a header with nothing after it => unreadable_image', async () => {
    await expectApiError(() => inspectFile(img.jpeg.subarray(0, 20), 'image/jpeg', SYNC), 422, 'unreadable_image');
    await expectApiError(() => inspectFile(img.png.subarray(0, 16), 'image/png', SYNC), 422, 'unreadable_image');
  });

  it('a PNG declaring more pixels than the limit is refused without decoding it', async () => {
    const bomb = hugePng(30_000, 30_000);
    expect(bomb.length).toBeLessThan(100_000);
    const err = await expectApiError(() => inspectFile(bomb, 'image/png', SYNC), 422, 'unreadable_image');
    expect(err.message).toContain('30000×30000');
  });

  it('names the parameter given by the caller', async () => {
    await expectApiError(() => inspectFile(cut(img.png, 0.5), 'image/png', { ...SYNC, param: 'file_url' }), 422, 'unreadable_image', 'file_url');
  });
});

describe('inspectFile: HEIC', () => {
  const heic = readFileSync(join(FIXTURES, 'sample.heic'));

  it('decodes a real HEIC (HEVC) image', async () => {
    expect(await inspectFile(heic, 'image/heic', SYNC)).toEqual({ pages: 1, width: 96, height: 64 });
  });

  it.each([heic.length - 2, 1500, 300, 40])('a HEIC truncated to %i bytes => unreadable_image', async (n) => {
    await expectApiError(() => inspectFile(heic.subarray(0, n), 'image/heic', SYNC), 422, 'unreadable_image', 'file');
  });
});

describe('inspectFile: PDF', () => {
  it('counts pages', async () => {
    expect(await inspectFile(await pdfWithPages(1), 'application/pdf', SYNC)).toEqual({ pages: 1 });
    expect(await inspectFile(await pdfWithPages(7), 'application/pdf', SYNC)).toEqual({ pages: 7 });
  });

  it('real invoices from shared testdata', async () => {
    for (const name of ['oyo.pdf', 'AmazonWebServices.pdf', 'FlipkartInvoice.pdf']) {
      const r = await inspectFile(readFileSync(join(SHARED, 'invoices/invoice2data', name)), 'application/pdf', SYNC);
      expect(r.pages, name).toBeGreaterThanOrEqual(1);
    }
  });

  it('30 pages pass synchronously, 31 do not; 200 pass async, 201 do not', async () => {
    const p30 = await pdfWithPages(30);
    const p31 = await pdfWithPages(31);
    expect((await inspectFile(p30, 'application/pdf', SYNC)).pages).toBe(30);
    const sync = await expectApiError(() => inspectFile(p31, 'application/pdf', SYNC), 422, 'too_many_pages', 'file');
    expect(sync.message).toContain('31');
    expect(sync.message).toContain('30');
    expect(sync.message).toContain('200');
    expect((await inspectFile(p31, 'application/pdf', ASYNC)).pages).toBe(31);
    const p200 = await pdfWithPages(200);
    const p201 = await pdfWithPages(201);
    expect((await inspectFile(p200, 'application/pdf', ASYNC)).pages).toBe(200);
    const asyncErr = await expectApiError(() => inspectFile(p201, 'application/pdf', ASYNC), 422, 'too_many_pages', 'file');
    expect(asyncErr.message).toContain('200');
  });

  it('maxPagesFor: 30 sync, 200 async or in a batch', () => {
    expect(maxPagesFor({})).toBe(30);
    expect(maxPagesFor({ async: true })).toBe(200);
    expect(maxPagesFor({ batch: true })).toBe(200);
  });

  it('tolerates garbage before the header, as PDF readers do', async () => {
    const pdf = await pdfWithPages(2);
    const withJunk = Buffer.concat([Buffer.from('X-Mailer junk\r\n\r\n'), pdf]);
    expect(await inspectFile(withJunk, 'application/pdf', SYNC)).toEqual({ pages: 2 });
  });

  it('a password-protected PDF => 422 unreadable_pdf', async () => {
    const pdf = readFileSync(join(FIXTURES, 'encrypted-user-password.pdf'));
    const err = await expectApiError(() => inspectFile(pdf, 'application/pdf', SYNC), 422, 'unreadable_pdf', 'file');
    expect(err.message).toContain('contraseña');
  });

  it('a PDF encrypted only with an owner password (opens without one) is readable', async () => {
    const pdf = readFileSync(join(FIXTURES, 'encrypted-owner-only.pdf'));
    expect(await inspectFile(pdf, 'application/pdf', SYNC)).toEqual({ pages: 2 });
  });

  it('damaged PDFs => 422 unreadable_pdf', async () => {
    const pdf = await pdfWithPages(3);
    for (const bad of [
      pdf.subarray(0, Math.floor(pdf.length / 2)),
      new TextEncoder().encode('%PDF-1.7\nthis is not a PDF at all\n%%EOF'),
      new TextEncoder().encode('%PDF-'),
    ]) {
      await expectApiError(() => inspectFile(bad, 'application/pdf', SYNC), 422, 'unreadable_pdf', 'file');
    }
  });

  it('leaves the caller\'s bytes intact (pdf.js gets a copy)', async () => {
    const pdf = await pdfWithPages(2);
    const before = Buffer.from(pdf).toString('base64');
    await inspectFile(pdf, 'application/pdf', SYNC);
    expect(pdf.byteLength).toBeGreaterThan(0);
    expect(Buffer.from(pdf).toString('base64')).toBe(before);
  });
});

describe('quiet decoders', () => {
  afterEach(() => vi.restoreAllMocks());

  it('pdf.js and libheif print nothing, even on damaged input', async () => {
    const spies = [
      vi.spyOn(console, 'log'),
      vi.spyOn(console, 'info'),
      vi.spyOn(console, 'warn'),
      vi.spyOn(console, 'error'),
      vi.spyOn(process.stdout, 'write'),
      vi.spyOn(process.stderr, 'write'),
    ];
    const pdf = await pdfWithPages(3);
    const heic = readFileSync(join(FIXTURES, 'sample.heic'));
    const damaged = Buffer.from(pdf);
    damaged.write('xref garbage', damaged.lastIndexOf('xref'));
    await inspectFile(damaged, 'application/pdf', SYNC).catch(() => undefined);
    await inspectFile(pdf.subarray(0, 300), 'application/pdf', SYNC).catch(() => undefined);
    await inspectFile(readFileSync(join(FIXTURES, 'encrypted-user-password.pdf')), 'application/pdf', SYNC).catch(() => undefined);
    await inspectFile(heic.subarray(0, 1500), 'image/heic', SYNC).catch(() => undefined);
    await inspectFile(heic.subarray(0, 300), 'image/heic', SYNC).catch(() => undefined);
    await inspectFile(img.jpeg.subarray(0, 500), 'image/jpeg', SYNC).catch(() => undefined);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });
});
