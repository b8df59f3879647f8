import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { detectFileType } from '../../../server/src/domain/intake/detect.ts';
import { identifyUpload } from '../../../server/src/domain/intake/inspect.ts';
import { expectApiError, FIXTURES, SHARED } from './helpers.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
};

/** An ISO-BMFF `ftyp` box with these brands, followed by some filler. */
function ftyp(major: string, ...compatible: string[]): Uint8Array {
  const size = 16 + 4 * compatible.length;
  const box = new Uint8Array(size + 16);
  new DataView(box.buffer).setUint32(0, size);
  box.set(enc('ftyp'), 4);
  box.set(enc(major), 8);
  compatible.forEach((b, i) => box.set(enc(b), 16 + 4 * i));
  box.set(enc('\0\0\0\x10meta\0\0\0\0\0\0\0\0'), size);
  return box;
}

const images: Record<string, Uint8Array> = {};
let pdf: Uint8Array;

beforeAll(async () => {
  const raw = { raw: { width: 24, height: 16, channels: 3 as const } };
  const pixels = Buffer.alloc(24 * 16 * 3, 0x80);
  images.jpeg = await sharp(pixels, raw).jpeg().toBuffer();
  images.png = await sharp(pixels, raw).png().toBuffer();
  images.webp = await sharp(pixels, raw).webp().toBuffer();
  images.webpLossless = await sharp(pixels, raw).webp({ lossless: true }).toBuffer();
  images.avif = await sharp(pixels, raw).avif().toBuffer();
  images.gif = await sharp(pixels, raw).gif().toBuffer();
  images.tiff = await sharp(pixels, raw).tiff().toBuffer();
  const doc = await PDFDocument.create();
  doc.addPage();
  pdf = await doc.save();
});

describe('detectFileType: generated images', () => {
  it('JPEG, PNG, WEBP (lossy and lossless)', () => {
    expect(detectFileType(images.jpeg)).toEqual({ mime: 'image/jpeg', ext: 'jpg' });
    expect(detectFileType(images.png)).toEqual({ mime: 'image/png', ext: 'png' });
    expect(detectFileType(images.webp)).toEqual({ mime: 'image/webp', ext: 'webp' });
    expect(detectFileType(images.webpLossless)).toEqual({ mime: 'image/webp', ext: 'webp' });
  });

  it('AVIF, GIF and TIFF are not accepted', () => {
    expect(images.avif.subarray(4, 12).toString()).toBe('ftypavif');
    expect(detectFileType(images.avif)).toBeNull();
    expect(detectFileType(images.gif)).toBeNull();
    expect(detectFileType(images.tiff)).toBeNull();
  });
});

describe('detectFileType: real files', () => {
  it('ICAO specimen passports (JPEG and PNG) from shared testdata', () => {
    const dir = join(SHARED, 'id-images/PassportEye/tests-data');
    expect(detectFileType(readFileSync(join(dir, 'passport-td3.jpg')))?.mime).toBe('image/jpeg');
    expect(detectFileType(readFileSync(join(dir, 'passport-td3.png')))?.mime).toBe('image/png');
  });

  it('an invoice PDF from shared testdata', () => {
    expect(detectFileType(readFileSync(join(SHARED, 'invoices/invoice2data/oyo.pdf')))).toEqual({ mime: 'application/pdf', ext: 'pdf' });
  });

  it('a real HEIC (libheif/x265) fixture', () => {
    expect(detectFileType(readFileSync(join(FIXTURES, 'sample.heic')))).toEqual({ mime: 'image/heic', ext: 'heic' });
  });
});

describe('detectFileType: HEIF brands', () => {
  it.each(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis'])('major brand %s is HEIC', (brand) => {
    expect(detectFileType(ftyp(brand, 'mif1'))?.mime).toBe('image/heic');
  });

  it('generic mif1/msf1 is HEIC unless it declares AV1', () => {
    expect(detectFileType(ftyp('mif1', 'heic'))?.mime).toBe('image/heic');
    expect(detectFileType(ftyp('msf1', 'hevc'))?.mime).toBe('image/heic');
    expect(detectFileType(ftyp('mif1', 'miaf'))?.mime).toBe('image/heic');
    expect(detectFileType(ftyp('mif1', 'avif', 'miaf'))).toBeNull();
    expect(detectFileType(ftyp('msf1', 'avis'))).toBeNull();
  });

  it('AVIF and other ISO-BMFF files (MP4, QuickTime) are not HEIC', () => {
    expect(detectFileType(ftyp('avif', 'mif1', 'miaf'))).toBeNull();
    expect(detectFileType(ftyp('avis', 'msf1'))).toBeNull();
    expect(detectFileType(ftyp('isom', 'iso2', 'mp41'))).toBeNull();
    expect(detectFileType(ftyp('qt  '))).toBeNull();
  });
});

describe('detectFileType: PDF header position', () => {
  it('at offset 0 and after leading garbage within the first 1024 bytes', () => {
    expect(detectFileType(pdf)?.mime).toBe('application/pdf');
    expect(detectFileType(concat(new Uint8Array(1019).fill(0x20), pdf))?.mime).toBe('application/pdf');
    expect(detectFileType(concat(enc('garbage from a mail gateway\r\n'), pdf))?.mime).toBe('application/pdf');
  });

  it('not when the header starts past byte 1024, nor without the dash', () => {
    expect(detectFileType(concat(new Uint8Array(1024).fill(0x20), pdf))).toBeNull();
    expect(detectFileType(enc('%PDF1.7 no dash'))).toBeNull();
  });
});

describe('detectFileType: what is not accepted', () => {
  it('empty, tiny and unrelated content', () => {
    expect(detectFileType(new Uint8Array())).toBeNull();
    expect(detectFileType(new Uint8Array([0xff, 0xd8]))).toBeNull();
    expect(detectFileType(enc('hello, world'))).toBeNull();
    expect(detectFileType(enc('<html><body>not a pdf</body></html>'))).toBeNull();
    expect(detectFileType(enc('PK\x03\x04zip'))).toBeNull();
    expect(detectFileType(enc('RIFF\0\0\0\0WAVEfmt '))).toBeNull();
  });
});

describe('identifyUpload', () => {
  it('returns the detected MIME type', () => {
    expect(identifyUpload(images.png, 'file')).toBe('image/png');
    expect(identifyUpload(pdf, 'file_base64')).toBe('application/pdf');
  });

  it('empty => 400 empty_file; unknown => 415 unsupported_file_type, with the given param', async () => {
    await expectApiError(() => identifyUpload(new Uint8Array(), 'file'), 400, 'empty_file', 'file');
    await expectApiError(() => identifyUpload(images.gif, 'file_url'), 415, 'unsupported_file_type', 'file_url');
    await expectApiError(() => identifyUpload(images.avif, 'file'), 415, 'unsupported_file_type', 'file');
  });
});
