import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../server/src/errors.ts';
import { MAX_HEIC_PIXELS, blankPage, decodeImage, fitInside, greyFromRgb, pageImageFromRgba } from '../../../server/src/providers/local/image.ts';
import { renderPdfPage } from '../../../server/src/providers/local/pdf.ts';
import { MAX_READ_SIDE, type PageImage } from '../../../server/src/providers/local/types.ts';

const IDS = path.resolve('../shared/testdata/documents/id-images/PassportEye/testdata');
const HEIC = path.resolve('test/fixtures/intake/sample.heic');

function checkShape(img: PageImage): void {
  expect(img.grey.length).toBe(img.width * img.height);
  expect(img.rgb.length).toBe(img.width * img.height * 3);
  expect(Math.max(img.width, img.height)).toBeLessThanOrEqual(MAX_READ_SIDE);
  // grey is the luma of rgb, pixel for pixel
  for (const i of [0, Math.floor(img.grey.length / 2), img.grey.length - 1]) {
    const [r, g, b] = [img.rgb[i * 3], img.rgb[i * 3 + 1], img.rgb[i * 3 + 2]];
    expect(Math.abs(img.grey[i] - (0.299 * r + 0.587 * g + 0.114 * b))).toBeLessThanOrEqual(1);
  }
}

async function expectUnreadable(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(422);
  expect((err as ApiError).code).toBe('unreadable_image');
  return err as ApiError;
}

/** A PNG whose header declares width × height, with a few bytes of (garbage-free) zlib data: a decompression bomb's shape. */
function pngDeclaring(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  // A 100 KB file of zeros inflates to far more: the body of a real bomb.
  const idat = zlib.deflateSync(Buffer.alloc(2_000_000));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

describe('decodeImage', () => {
  it('decodes a JPEG specimen at its own size', async () => {
    const bytes = fs.readFileSync(path.join(IDS, '100_pass-cze.jpg'));
    const meta = await sharp(bytes).metadata();
    const img = await decodeImage(bytes, 'image/jpeg');
    expect([img.width, img.height]).toEqual([meta.width, meta.height]);
    expect(img).toMatchObject({ page: 1, scale: 1, originalWidth: meta.width, originalHeight: meta.height });
    checkShape(img);
    // Same pixels as sharp's own decode (no colour shift on the way).
    const ref = await sharp(bytes).removeAlpha().raw().toBuffer();
    expect(img.rgb.equals(ref)).toBe(true);
  });

  it('decodes an RGBA PNG, flattening transparency on white', async () => {
    const bytes = fs.readFileSync(path.join(IDS, '0_id-esp.png'));
    const meta = await sharp(bytes).metadata();
    expect(meta.channels).toBe(4);
    const img = await decodeImage(bytes, 'image/png');
    expect([img.width, img.height]).toEqual([meta.width, meta.height]);
    checkShape(img);
    const transparent = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    const t = await decodeImage(transparent, 'image/png');
    expect(t.grey.every((v) => v === 255)).toBe(true);
  });

  it('decodes a WEBP and a 16-bit greyscale PNG into 8-bit RGB', async () => {
    const src = fs.readFileSync(path.join(IDS, '100_pass-hrv.jpg'));
    const webp = await sharp(src).webp({ quality: 90 }).toBuffer();
    const w = await decodeImage(webp, 'image/webp');
    checkShape(w);
    expect([w.width, w.height]).toEqual([600, 421]);
    const grey16 = await sharp(src).greyscale().toColourspace('grey16').png().toBuffer();
    expect((await sharp(grey16).metadata()).depth).toBe('ushort');
    const g = await decodeImage(grey16, 'image/png');
    checkShape(g);
    // grey input: the three channels are equal
    expect(g.rgb[300 * 3]).toBe(g.rgb[300 * 3 + 1]);
  });

  it('decodes the HEIC fixture (libheif)', async () => {
    const img = await decodeImage(fs.readFileSync(HEIC), 'image/heic');
    expect([img.width, img.height, img.scale]).toEqual([96, 64, 1]);
    checkShape(img);
    // a gradient, not a blank
    expect(new Set(img.grey).size).toBeGreaterThan(20);
  });

  it('applies EXIF orientation 6: the page image is upright-sized and rotated', async () => {
    // Stored 600×400 landscape with a red block at the stored top-left; orientation 6 = rotate 90° clockwise to show.
    const stored = await sharp({ create: { width: 600, height: 400, channels: 3, background: '#ffffff' } })
      .composite([{ input: { create: { width: 100, height: 100, channels: 3, background: '#ff0000' } }, left: 0, top: 0 }])
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(stored).metadata()).orientation).toBe(6);
    const img = await decodeImage(stored, 'image/jpeg');
    expect([img.width, img.height, img.originalWidth, img.originalHeight]).toEqual([400, 600, 400, 600]);
    const px = (x: number, y: number) => [...img.rgb.subarray((y * img.width + x) * 3, (y * img.width + x) * 3 + 3)];
    // After a clockwise quarter turn the stored top-left lands top-right.
    expect(px(img.width - 20, 20)[0]).toBeGreaterThan(200);
    expect(px(img.width - 20, 20)[1]).toBeLessThan(60);
    expect(px(20, 20).every((v) => v > 240)).toBe(true);
    expect(px(20, img.height - 20).every((v) => v > 240)).toBe(true);
  });

  it('downscales a large image so that the longer side is MAX_READ_SIDE', async () => {
    // 24 MP, a black block in the bottom-right quarter.
    const big = await sharp({ create: { width: 6000, height: 4000, channels: 3, background: '#ffffff' } })
      .composite([{ input: { create: { width: 3000, height: 2000, channels: 3, background: '#000000' } }, left: 3000, top: 2000 }])
      .jpeg({ quality: 80 })
      .toBuffer();
    const img = await decodeImage(big, 'image/jpeg');
    expect([img.width, img.height]).toEqual([3000, 2000]);
    expect(img).toMatchObject({ scale: 0.5, originalWidth: 6000, originalHeight: 4000 });
    checkShape(img);
    expect(img.grey[1500 * 3000 + 2250]).toBeLessThan(10);
    expect(img.grey[500 * 3000 + 750]).toBeGreaterThan(245);
    expect(fitInside(4032, 3024)).toEqual({ outW: 3000, outH: 2250 });
  });

  it('refuses a PNG declaring 30000×30000 from its header, in milliseconds and without allocating', async () => {
    const bomb = pngDeclaring(30000, 30000);
    expect(bomb.length).toBeLessThan(200_000);
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const err = await expectUnreadable(decodeImage(bomb, 'image/png'));
    const ms = performance.now() - t0;
    expect(err.message).toContain('30000×30000');
    expect(ms).toBeLessThan(500);
    expect(process.memoryUsage().rss - rss0).toBeLessThan(50 * 1024 * 1024);
  });

  it('refuses a HEIC whose container declares too many pixels, before libheif decodes', async () => {
    const bytes = Buffer.from(fs.readFileSync(HEIC));
    // Rewrite the `ispe` (image spatial extents) property: 4 bytes version/flags, then width and height.
    const at = bytes.indexOf('ispe', 0, 'latin1');
    expect(at).toBeGreaterThan(0);
    bytes.writeUInt32BE(40000, at + 8);
    bytes.writeUInt32BE(40000, at + 12);
    const t0 = performance.now();
    const err = await expectUnreadable(decodeImage(bytes, 'image/heic'));
    expect(err.message).toContain('40000×40000');
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(40000 * 40000).toBeGreaterThan(MAX_HEIC_PIXELS);
  });

  it('refuses truncated and non-image bytes with 422 unreadable_image', async () => {
    const bytes = fs.readFileSync(path.join(IDS, '100_pass-cze.jpg'));
    await expectUnreadable(decodeImage(bytes.subarray(0, Math.floor(bytes.length / 2)), 'image/jpeg'));
    await expectUnreadable(decodeImage(Buffer.from('not an image at all'), 'image/png'));
    await expectUnreadable(decodeImage(fs.readFileSync(HEIC).subarray(0, 400), 'image/heic'));
  });
});

describe('pageImageFromRgba', () => {
  it('turns a rendered RGBA page into a PageImage, white under transparency, downscaled when large', async () => {
    const width = 4000;
    const height = 2000;
    const rgba = new Uint8ClampedArray(width * height * 4);
    // left half opaque black, right half fully transparent
    for (let y = 0; y < height; y++) for (let x = 0; x < width / 2; x++) rgba[(y * width + x) * 4 + 3] = 255;
    const img = await pageImageFromRgba({ width, height, rgba }, 3);
    expect(img).toMatchObject({ page: 3, width: 3000, height: 1500, scale: 0.75, originalWidth: 4000, originalHeight: 2000 });
    checkShape(img);
    expect(img.grey[750 * 3000 + 100]).toBe(0);
    expect(img.grey[750 * 3000 + 2900]).toBe(255);
  });

  it('keeps a small page as is and rejects a buffer of the wrong size', async () => {
    const rgba = Buffer.alloc(10 * 8 * 4, 200);
    for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
    const img = await pageImageFromRgba({ width: 10, height: 8, rgba }, 1);
    expect(img).toMatchObject({ width: 10, height: 8, scale: 1 });
    expect(img.rgb[0]).toBe(200);
    await expect(pageImageFromRgba({ width: 10, height: 9, rgba }, 1)).rejects.toThrow(RangeError);
  });

  it('greyFromRgb is Rec. 601 luma', () => {
    expect([...greyFromRgb(Uint8Array.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 10, 10]), 4)]).toEqual([76, 150, 29, 10]);
  });
});

describe('blankPage: a page with nothing to read is not searched', () => {
  /** One A4 page drawn by `draw`, rendered as the readers render a scanned PDF's page. */
  async function a4(draw: (doc: PDFKit.PDFDocument) => void): Promise<PageImage> {
    const pdf = await new Promise<Buffer>((resolve) => {
      const doc = new PDFDocument({ size: 'A4', autoFirstPage: false });
      const chunks: Buffer[] = [];
      doc.on('data', (c: Buffer) => chunks.push(c));
      doc.on('end', () => resolve(Buffer.concat(chunks)));
      draw(doc.addPage());
      doc.end();
    });
    return pageImageFromRgba(await renderPdfPage(new Uint8Array(pdf), 1, { maxSide: MAX_READ_SIDE }), 1);
  }

  it('a blank page, a page with a solid bar or a ruled box is blank', async () => {
    expect(blankPage(await a4(() => {}))).toBe(true);
    expect(blankPage(await a4((d) => d.rect(72, 72, 300, 40).fill('#777777')))).toBe(true);
    expect(blankPage(await a4((d) => d.rect(60, 60, 470, 700).lineWidth(2).stroke('#000000')))).toBe(true);
  });

  it('one short line of small text is not blank, nor is a photo', async () => {
    expect(blankPage(await a4((d) => d.fontSize(9).text('Total 120,00 EUR', 72, 400)))).toBe(false);
    expect(blankPage(await decodeImage(new Uint8Array(fs.readFileSync(path.join(IDS, '100_id-che.jpg'))), 'image/jpeg'))).toBe(false);
  });
});
