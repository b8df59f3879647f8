/**
 * PDF417 decoding (server/src/validators/barcode/pdf417.ts): barcodes are generated at test time
 * with zxing-wasm's writer build (its .wasm also loaded from node_modules) from the AAMVA payloads
 * in shared/testdata, rendered to PNG / JPEG / WEBP with sharp, decoded and parsed back.
 * The whole file runs with `fetch` replaced by a function that throws: no wasm from the CDN.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { prepareZXingModule as prepareWriter, writeBarcode } from 'zxing-wasm/writer';
import { decodePdf417, readPdf417, ZXING_READER_WASM_PATH } from '../../../server/src/validators/barcode/pdf417.ts';
import { parseAamva, aamvaMatchesVisual } from '../../../server/src/validators/aamva.ts';
import { readJson } from './testdata.ts';

interface Sample {
  id: string;
  valid: boolean;
  raw: string;
}
interface JsCase {
  file: string;
  raw: string;
  expected_parse_by_source: Record<string, string>;
}

const samples = readJson<Sample[]>('aamva/aamva-standard-samples.json');
const jsCases = readJson<JsCase[]>('aamva/aamvajs-cases.json');
const V10 = samples.find((s) => s.id === 'aamva-v10-sample')!.raw;
const V1 = samples.find((s) => s.id === 'aamva-v1-sample')!.raw;

const realFetch = globalThis.fetch;
const fetchSpy = vi.fn((..._args: unknown[]): Promise<Response> => {
  throw new Error('network access attempted in barcode test');
});

beforeAll(async () => {
  globalThis.fetch = fetchSpy as unknown as typeof fetch;
  const require = createRequire(import.meta.url);
  const wasm = readFileSync(require.resolve('zxing-wasm/writer/zxing_writer.wasm'));
  await prepareWriter({
    overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
    fireImmediately: true,
  });
});

afterAll(() => {
  expect(fetchSpy).not.toHaveBeenCalled();
  globalThis.fetch = realFetch;
});

/** PDF417 symbol as a PNG (1 channel, black on white, quiet zones), module size `scale` px. */
async function pdf417Png(text: string, scale = 3): Promise<Uint8Array> {
  const res = await writeBarcode(text, { format: 'PDF417', scale });
  expect(res.error).toBe('');
  return new Uint8Array(await res.image!.arrayBuffer());
}

/** The symbol pasted on a larger grey "card", optionally rotated, re-encoded as JPEG or WEBP. */
async function cardPhoto(png: Uint8Array, format: 'jpeg' | 'webp', rotate = 0): Promise<Uint8Array> {
  const meta = await sharp(png).metadata();
  const canvas = sharp({
    create: { width: meta.width + 400, height: meta.height + 300, channels: 3, background: { r: 215, g: 210, b: 200 } },
  }).composite([{ input: Buffer.from(png), left: 180, top: 120 }]);
  const flat = await canvas.png().toBuffer();
  const out = sharp(flat).rotate(rotate, { background: '#888888' });
  return new Uint8Array(format === 'jpeg' ? await out.jpeg({ quality: 80 }).toBuffer() : await out.webp({ quality: 85 }).toBuffer());
}

describe('decodePdf417', () => {
  it('round-trips the AAMVA v10 (2020 Annex D) sample exactly, control characters included', async () => {
    const text = await decodePdf417(await pdf417Png(V10));
    expect(text).toBe(V10);
    const parsed = parseAamva(text!);
    expect(parsed.valid).toBe(true);
    expect(parsed.compliant).toBe(true);
    expect(parsed.header).toMatchObject({ issuer_id: 636000, aamva_version: 10, jurisdiction_version: 1, number_of_entries: 2 });
    expect(parsed.fields).toMatchObject({
      document_number: 'T64235789',
      surname: 'SAMPLE',
      first_name: 'MICHAEL',
      middle_names: 'JOHN',
      suffix: 'JR',
      birth_date: '1986-06-06',
      expiry_date: '2024-12-10',
      issue_date: '2019-06-06',
      sex: 'M',
      street: '2300 WEST BROAD STREET',
      city: 'RICHMOND',
      state: 'VA',
      country: 'USA',
    });
    const match = aamvaMatchesVisual(parsed, {
      document_number: 'T64235789',
      surname: 'SAMPLE',
      given_names: 'MICHAEL JOHN',
      birth_date: '1986-06-06',
      expiry_date: '2024-12-10',
    });
    expect(match.passed).toBe(true);
  });

  it('round-trips the AAMVA v1 sample', async () => {
    const text = await decodePdf417(await pdf417Png(V1, 2));
    expect(text).toBe(V1);
    expect(parseAamva(text!).fields).toMatchObject({ document_number: '0123456789ABC', birth_date: '1976-11-23', state: 'VA' });
  });

  it('reads the symbol from a JPEG photo-like image, rotated 90 degrees', async () => {
    const jpeg = await cardPhoto(await pdf417Png(V10, 4), 'jpeg', 90);
    expect(await decodePdf417(jpeg)).toBe(V10);
  });

  it('reads the symbol from a WEBP image', async () => {
    const webp = await cardPhoto(await pdf417Png(V1, 3), 'webp');
    expect(await decodePdf417(webp)).toBe(V1);
  });

  it('round-trips the aamvajs PDF417 payloads (legacy / stripped headers) and parses their fields', async () => {
    for (const c of jsCases.filter((c) => c.file.startsWith('PDF417_'))) {
      const text = await decodePdf417(await pdf417Png(c.raw, 2));
      expect(text, c.file).toBe(c.raw);
      const fields = parseAamva(text!).fields;
      expect(fields?.state, c.file).toBe(c.expected_parse_by_source.state);
    }
  });

  it('returns null for an image with no barcode', async () => {
    const blank = await sharp({ create: { width: 640, height: 400, channels: 3, background: '#ffffff' } }).png().toBuffer();
    expect(await decodePdf417(new Uint8Array(blank))).toBeNull();
    const noise = Buffer.alloc(300 * 200 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const noisy = await sharp(noise, { raw: { width: 300, height: 200, channels: 3 } }).jpeg().toBuffer();
    expect(await decodePdf417(new Uint8Array(noisy))).toBeNull();
  });

  it('ignores other symbologies (a QR code is not a PDF417)', async () => {
    const qr = await writeBarcode('@ANSI 636000100102DL', { format: 'QRCode', scale: 4 });
    expect(await decodePdf417(new Uint8Array(await qr.image!.arrayBuffer()))).toBeNull();
  });

  it('returns null, without throwing, for garbage, empty and truncated input', async () => {
    expect(await decodePdf417(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))).toBeNull();
    expect(await decodePdf417(new Uint8Array(0))).toBeNull();
    expect(await decodePdf417(new TextEncoder().encode('not an image at all'.repeat(100)))).toBeNull();
    const png = await pdf417Png(V10);
    expect(await decodePdf417(png.slice(0, 40))).toBeNull();
    // JPEG magic followed by junk
    expect(await decodePdf417(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...new Array(500).fill(0x41)]))).toBeNull();
  });

  it('exposes every PDF417 result with metadata via readPdf417', async () => {
    const [r] = await readPdf417(await pdf417Png(V10));
    expect(r.format).toBe('PDF417');
    expect(r.isValid).toBe(true);
    expect(Buffer.from(r.bytes).toString('latin1')).toBe(V10);
  });

  it('loads the reader wasm from node_modules', () => {
    expect(ZXING_READER_WASM_PATH).toMatch(/node_modules\/zxing-wasm\/dist\/reader\/zxing_reader\.wasm$/);
  });
});
