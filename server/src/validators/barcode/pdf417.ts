/**
 * PDF417 decoding from a photo or scan (JPEG / PNG / WEBP / anything sharp reads), for
 * aamva_matches_visual: the text returned here is what `parseAamva` (../aamva.ts) takes.
 *
 * - Decoder: zxing-wasm's reader build (ZXing-C++ compiled to WebAssembly). Its default
 *   `locateFile` fetches the .wasm from a CDN; here the bytes are read from node_modules with fs
 *   and handed over as `wasmBinary` (plus a `locateFile` that refuses anything remote), so the
 *   network is never used. The module is instantiated once per process, lazily, on first use.
 * - Pixels: sharp decodes the image (EXIF orientation applied, transparency flattened on white)
 *   to RGBA and zxing reads that ImageData-like buffer: one decoder for every format sharp
 *   knows, instead of the few zxing's embedded stb_image supports.
 * - Text: `textMode: 'Plain'` keeps control characters (the AAMVA LF / RS / CR separators) as
 *   they are; without an ECI the bytes are read as ISO-8859-1, the PDF417 default and the
 *   AAMVA character set.
 * - Unreadable input (garbage bytes, empty, unsupported format, no PDF417) gives null: this
 *   function does not throw on bad images. Failure to load the wasm itself does throw.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import {
  prepareZXingModule,
  readBarcodes,
  type ReaderOptions,
  type ReadResult,
  type ZXingModuleOverrides,
  type ZXingReaderModule,
} from 'zxing-wasm/reader';

const require = createRequire(import.meta.url);

/** Absolute path of the reader .wasm inside node_modules (resolved through the package's exports). */
export const ZXING_READER_WASM_PATH: string = require.resolve('zxing-wasm/reader/zxing_reader.wasm');

/** Images larger than this (in pixels) are downscaled before decoding; PDF417 on an ID card needs far less. */
const MAX_PIXELS = 24_000_000;
/** Bound on what sharp will open at all (decompression bombs). */
const LIMIT_INPUT_PIXELS = 200_000_000;

const READER_OPTIONS: ReaderOptions = {
  formats: ['PDF417'],
  tryHarder: true,
  tryRotate: true,
  tryInvert: true,
  tryDownscale: true,
  textMode: 'Plain',
  characterSet: 'ISO8859_1',
  maxNumberOfSymbols: 1,
};

let overridesPromise: Promise<ZXingModuleOverrides> | null = null;

/** The Emscripten overrides (local wasm bytes), built once per process. */
function localOverrides(): Promise<ZXingModuleOverrides> {
  if (!overridesPromise) {
    overridesPromise = readFile(ZXING_READER_WASM_PATH).then((wasm) => ({
      wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer,
      // Only consulted if wasmBinary were ignored: point at the local file, never a URL.
      locateFile: (path: string) => (path.endsWith('.wasm') ? ZXING_READER_WASM_PATH : path),
    }));
    overridesPromise.catch(() => {
      overridesPromise = null; // let a later call retry instead of caching the failure
    });
  }
  return overridesPromise;
}

/**
 * Instantiates the zxing reader wasm from the local file; memoised: zxing-wasm keeps one module
 * per overrides object and this always passes the same object, so repeated calls are free.
 * Called before every read so the module is (re)created from local bytes even if something else
 * in the process purged it (zxing-wasm would otherwise fall back to its CDN default).
 */
export async function initPdf417Reader(): Promise<ZXingReaderModule> {
  const overrides = await localOverrides();
  return prepareZXingModule({ overrides, equalityFn: Object.is, fireImmediately: true });
}

interface Rgba {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

async function toRgba(image: Uint8Array): Promise<Rgba | null> {
  try {
    const img = sharp(image, { limitInputPixels: LIMIT_INPUT_PIXELS, failOn: 'none' });
    const meta = await img.metadata();
    const w = meta.autoOrient?.width ?? meta.width;
    const h = meta.autoOrient?.height ?? meta.height;
    if (!w || !h) return null;
    let pipeline = img.rotate();
    if (w * h > MAX_PIXELS) {
      const k = Math.sqrt(MAX_PIXELS / (w * h));
      pipeline = pipeline.resize(Math.max(1, Math.floor(w * k)), Math.max(1, Math.floor(h * k)));
    }
    const { data, info } = await pipeline
      .flatten({ background: '#ffffff' })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) return null;
    return {
      data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
    };
  } catch {
    return null; // not an image sharp can decode
  }
}

/**
 * All PDF417 symbols zxing finds in the image (at most `maxSymbols`), valid reads only.
 * Returns [] for undecodable input.
 */
export async function readPdf417(image: Uint8Array, maxSymbols = 1): Promise<ReadResult[]> {
  if (!(image instanceof Uint8Array) || image.byteLength === 0) return [];
  const rgba = await toRgba(image);
  if (!rgba) return [];
  await initPdf417Reader();
  const results = await readBarcodes(rgba as unknown as ImageData, { ...READER_OPTIONS, maxNumberOfSymbols: maxSymbols });
  return results.filter((r) => r.isValid && r.format === 'PDF417');
}

/**
 * Raw text of the first PDF417 barcode found in a JPEG/PNG/WEBP (or other sharp-readable) image,
 * or null when there is none or the bytes are not a readable image.
 */
export async function decodePdf417(image: Uint8Array): Promise<string | null> {
  const [first] = await readPdf417(image, 1);
  return first ? first.text : null;
}

/**
 * The first PDF417 symbol of an already decoded page (live mode's PageImage: raw RGB, orientation applied), with
 * its box normalised to the page; null when there is none.
 */
export async function readPdf417Pixels(image: { width: number; height: number; rgb: Uint8Array }): Promise<{ text: string; bbox: [number, number, number, number] } | null> {
  const { width, height, rgb } = image;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0, j = 0; i < width * height; i++, j += 3) {
    data[i * 4] = rgb[j];
    data[i * 4 + 1] = rgb[j + 1];
    data[i * 4 + 2] = rgb[j + 2];
    data[i * 4 + 3] = 255;
  }
  await initPdf417Reader();
  const results = await readBarcodes({ data, width, height } as unknown as ImageData, READER_OPTIONS);
  const hit = results.find((r) => r.isValid && r.format === 'PDF417');
  if (!hit) return null;
  const p = hit.position;
  const xs = [p.topLeft.x, p.topRight.x, p.bottomLeft.x, p.bottomRight.x];
  const ys = [p.topLeft.y, p.topRight.y, p.bottomLeft.y, p.bottomRight.y];
  const clamp = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 10_000) / 10_000;
  return { text: hit.text, bbox: [clamp(Math.min(...xs) / width), clamp(Math.min(...ys) / height), clamp(Math.max(...xs) / width), clamp(Math.max(...ys) / height)] };
}
