/**
 * Images in, pixels out: every accepted image (JPEG, PNG, WEBP, HEIC) and every rendered PDF page becomes the
 * readers' `PageImage` (8-bit RGB + grey, orientation applied, longer side ≤ MAX_READ_SIDE).
 *
 * - Decompression bombs are refused from the header, before any pixel is allocated: the declared (oriented)
 *   dimensions are read first (sharp `metadata()`, libheif's image handle) and checked against the intake limit
 *   (`MAX_IMAGE_PIXELS`, 16383²) — HEIC against a tighter one, `MAX_HEIC_PIXELS`, because libheif-js decodes the
 *   whole picture into its WebAssembly heap at 4 bytes a pixel.
 * - JPEG/PNG/WEBP: sharp (libvips), streaming (`sequentialRead`) straight into the downscale, so libjpeg's
 *   shrink-on-load applies: a 50 MP JPEG is decoded at 1/2 or 1/4 size and never exists at full size in memory.
 * - HEIC: libheif-js (sharp's prebuilt libvips has no HEVC decoder), the helpers of intake/inspect.ts; libheif
 *   applies the HEIF transformations (irot/imir/clap) itself; its RGBA is copied out of the WebAssembly heap and
 *   goes through the same sharp pipeline.
 * - Alpha is flattened on white (a transparent PNG background reads as paper, not as black).
 */
import sharp, { type OutputInfo } from 'sharp';
import { ApiError } from '../../errors.ts';
import {
  MAX_HEIC_PIXELS,
  MAX_IMAGE_PIXELS,
  unreadableImage,
  withDecodedHeic,
  type HeifDecoded,
  type LibHeif,
} from '../../domain/intake/inspect.ts';
import { MAX_READ_SIDE, type Box, type PageImage } from './types.ts';

export type ImageMime = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic';

/**
 * Largest HEIC decoded, in pixels (64 Mi ≈ 8192 × 8192: a 48 MP phone HEIF passes): intake's limit, so a HEIC that
 * intake accepts is one the readers can decode. libheif-js has no shrink-on-load: the full RGBA picture lives in the
 * WebAssembly heap (256 MiB at this limit), and that heap never shrinks again.
 */
export { MAX_HEIC_PIXELS };

const WHITE = { r: 255, g: 255, b: 255 };

// libvips keeps up to 50 MB of recent operations and 20 open files for reuse (sharp's default); every image here is
// decoded once, so the cache only holds memory between readings.
sharp.cache(false);

/**
 * Decodes an accepted image into a `PageImage` (page 1). Throws `ApiError(422, 'unreadable_image')` for a
 * damaged file or declared dimensions over the limits (checked before decoding).
 */
export async function decodeImage(bytes: Uint8Array, mime: ImageMime): Promise<PageImage> {
  if (mime === 'image/heic') return decodeHeicPage(bytes);
  return decodeWithSharp(bytes);
}

/**
 * An image's dimensions from its header (no pixels decoded; turned as its orientation says), or null when sharp cannot
 * tell them (HEIC, a damaged header).
 */
export async function imageSize(bytes: Uint8Array): Promise<{ width: number; height: number } | null> {
  try {
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    return width && height ? { width, height } : null;
  } catch {
    return null;
  }
}

/**
 * A page of more pixels than this, once fitted to MAX_READ_SIDE, is read alone in the page lane (a scanned A4 page at
 * 200-300 dpi; the photos of receipts, ID documents and MRZ pages of the dev set are all under it): what two such pages
 * hold at once (decoded copies, both OCR engines' working sets) is what made a burst's peak memory.
 */
export const LARGE_PAGE_PIXELS = 4_000_000;

/** The page-lane units an image's reading takes (of `max`): all of them for a large page or one of unknown size. */
export async function pageLaneWeight(bytes: Uint8Array, max: number): Promise<number> {
  const size = await imageSize(bytes);
  if (!size) return max;
  const { outW, outH } = fitInside(size.width, size.height);
  return outW * outH > LARGE_PAGE_PIXELS ? max : 1;
}

/**
 * A PDF page rendered to RGBA (by pdf.js + @napi-rs/canvas, or anything else) as a `PageImage`. Alpha is
 * flattened on white; pages larger than MAX_READ_SIDE are downscaled.
 */
export async function pageImageFromRgba(
  raw: { width: number; height: number; rgba: Uint8ClampedArray | Buffer | Uint8Array },
  page: number,
): Promise<PageImage> {
  const { width, height } = raw;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`pageImageFromRgba: invalid size ${width}×${height}`);
  }
  if (raw.rgba.length !== width * height * 4) {
    throw new RangeError(`pageImageFromRgba: ${raw.rgba.length} bytes for ${width}×${height} RGBA`);
  }
  const input = Buffer.from(raw.rgba.buffer, raw.rgba.byteOffset, raw.rgba.byteLength);
  return fromRawRgba(input, width, height, page);
}

// ---------------------------------------------------------------------------------------------
// JPEG, PNG, WEBP

async function decodeWithSharp(bytes: Uint8Array): Promise<PageImage> {
  let width: number;
  let height: number;
  try {
    // Header only (no pixels): the dimensions a bomb declares are known before anything is allocated.
    const meta = await sharp(bytes, { limitInputPixels: false, failOn: 'error' }).metadata();
    width = meta.autoOrient?.width ?? meta.width;
    height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) throw new Error('no dimensions');
  } catch {
    throw unreadableImage('la cabecera está dañada o no es una imagen válida');
  }
  if (width * height > MAX_IMAGE_PIXELS) throw tooLarge(width, height);
  const { outW, outH } = fitInside(width, height);
  let data: Buffer;
  let info: OutputInfo;
  try {
    ({ data, info } = await sharp(bytes, {
      failOn: 'error',
      sequentialRead: true,
      limitInputPixels: MAX_IMAGE_PIXELS,
      autoOrient: true,
    })
      // Exact target size (not `fit: inside`), so that scale and size agree to the pixel.
      .resize(outW, outH, { fit: 'fill', kernel: 'lanczos3' })
      .flatten({ background: WHITE })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true }));
  } catch {
    throw unreadableImage('está truncada o dañada');
  }
  return assemble(data, info, 1, width, height);
}

// ---------------------------------------------------------------------------------------------
// HEIC

type LibHeifPixels = LibHeif & { heif_channel_interleaved: unknown };
interface HeifChannel {
  id: unknown;
  stride: number;
  width: number;
  height: number;
  data: Uint8Array;
}

async function decodeHeicPage(bytes: Uint8Array): Promise<PageImage> {
  const { rgba, width, height } = await withDecodedHeic(bytes, (decoded, lib) => {
    const heif = lib as LibHeifPixels;
    const channels = (decoded as HeifDecoded & { channels?: HeifChannel[] }).channels ?? [];
    const ch = channels.find((c) => c.id === heif.heif_channel_interleaved);
    if (!ch || ch.width !== decoded.width || ch.height !== decoded.height) throw unreadableImage('está truncada o dañada');
    // `ch.data` is a view into the WebAssembly heap: copy it out (row by row when rows are padded).
    const row = ch.width * 4;
    const out = Buffer.allocUnsafe(row * ch.height);
    if (ch.stride === row) out.set(ch.data.subarray(0, row * ch.height));
    else for (let y = 0; y < ch.height; y++) out.set(ch.data.subarray(y * ch.stride, y * ch.stride + row), y * row);
    return { rgba: out, width: ch.width, height: ch.height };
  });
  return fromRawRgba(rgba, width, height, 1);
}

// ---------------------------------------------------------------------------------------------
// Shared

async function fromRawRgba(rgba: Buffer, width: number, height: number, page: number): Promise<PageImage> {
  const { outW, outH } = fitInside(width, height);
  const { data, info } = await sharp(rgba, { raw: { width, height, channels: 4 }, limitInputPixels: false })
    .resize(outW, outH, { fit: 'fill', kernel: 'lanczos3' })
    .flatten({ background: WHITE })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return assemble(data, info, page, width, height);
}

/** Target size: the longer side at most MAX_READ_SIDE, aspect kept, never enlarged. */
export function fitInside(width: number, height: number, maxSide = MAX_READ_SIDE): { outW: number; outH: number } {
  const longer = Math.max(width, height);
  if (longer <= maxSide) return { outW: width, outH: height };
  const s = maxSide / longer;
  return { outW: Math.max(1, Math.round(width * s)), outH: Math.max(1, Math.round(height * s)) };
}

function assemble(rgb: Buffer, info: OutputInfo, page: number, originalWidth: number, originalHeight: number): PageImage {
  if (info.channels !== 3) throw new Error(`image: expected 3 channels, got ${info.channels}`);
  const { width, height } = info;
  return {
    page,
    width,
    height,
    grey: greyFromRgb(rgb, width * height),
    rgb,
    scale: width / originalWidth,
    originalWidth,
    originalHeight,
  };
}

/** Rec. 601 luma (0.299 R + 0.587 G + 0.114 B) in integer arithmetic: what "grey" means for every reader. */
export function greyFromRgb(rgb: Uint8Array, pixels: number): Buffer {
  const grey = Buffer.allocUnsafe(pixels);
  for (let i = 0, j = 0; i < pixels; i++, j += 3) {
    grey[i] = (rgb[j] * 19595 + rgb[j + 1] * 38470 + rgb[j + 2] * 7471 + 32768) >>> 16;
  }
  return grey;
}

/**
 * Whether a page carries nothing to read: fewer than 4 of its rows (every second row looked at) cross 6 steps of grey
 * or more (a step: 32 grey levels or more between pixels two apart, counted once per run), where one short line of
 * small text makes ten such rows. A blank page, a page holding only a solid bar, a frame or a rule: a scanned PDF's
 * blank backs. Such a page is not searched for a zone, a barcode or text, each of which spends seconds of CPU
 * finding nothing there.
 */
export function blankPage(image: PageImage): boolean {
  const { width: W, height: H, grey } = image;
  let marked = 0;
  for (let y = 0; y < H; y += 2) {
    const row = y * W;
    let inStep = false;
    let steps = 0;
    for (let x = 0; x + 2 < W; x++) {
      const d = grey[row + x + 2] - grey[row + x];
      const step = d >= 32 || d <= -32;
      if (step && !inStep && ++steps >= 6) break;
      inStep = step;
    }
    if (steps >= 6 && ++marked >= 4) return false;
  }
  return true;
}

function tooLarge(width: number, height: number): ApiError {
  return unreadableImage(`sus dimensiones (${width}×${height}) superan el máximo admitido`);
}

/**
 * Whether something other than paper shows between two documents' text (`left` and `right`, boxes of their lines,
 * normalised): the desk between two slips photographed side by side, against the white of one page whose text has
 * a column gap. Some stretch of the band between them, wider than a ruled line, is darker over the text's height than
 * three quarters of the left document's paper (the median grey of its box).
 */
export function backgroundBetween(image: PageImage, left: Box, right: Box): boolean {
  const { width: W, height: H, grey } = image;
  const x0 = Math.max(0, Math.floor(left[2] * W));
  const x1 = Math.min(W, Math.ceil(right[0] * W));
  const y0 = Math.max(0, Math.floor(Math.min(left[1], right[1]) * H));
  const y1 = Math.min(H, Math.ceil(Math.max(left[3], right[3]) * H));
  if (x1 - x0 < 2 || y1 - y0 < 10) return false;
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const step = Math.max(1, Math.floor((y1 - y0) / 200));
  const column = (x: number) => {
    const v: number[] = [];
    for (let y = y0; y < y1; y += step) v.push(grey[y * W + x]);
    return median(v);
  };
  const paperSample: number[] = [];
  const [px0, px1] = [Math.floor(left[0] * W), Math.min(W, Math.ceil(left[2] * W))];
  const [py0, py1] = [Math.floor(left[1] * H), Math.min(H, Math.ceil(left[3] * H))];
  const sx = Math.max(1, Math.floor((px1 - px0) / 60));
  const sy = Math.max(1, Math.floor((py1 - py0) / 120));
  for (let y = py0; y < py1; y += sy) for (let x = px0; x < px1; x += sx) paperSample.push(grey[y * W + x]);
  if (paperSample.length === 0) return false;
  const paper = median(paperSample);
  const columns = Array.from({ length: x1 - x0 }, (_, i) => column(x0 + i));
  // A stretch darker than the paper, wider than a ruled line: the brightest column of every window of this width.
  const win = Math.max(3, Math.round(W * 0.008));
  for (let i = 0; i + win <= columns.length; i++) {
    if (Math.max(...columns.slice(i, i + win)) < paper * 0.75) return true;
  }
  return false;
}

/**
 * The part of a page inside `box` (normalised 0..1, clamped to the page): one document of several photographed
 * together, read again on its own. Same scale as the page.
 */
export async function cropPage(image: PageImage, box: Box): Promise<PageImage> {
  const x0 = Math.max(0, Math.floor(box[0] * image.width));
  const y0 = Math.max(0, Math.floor(box[1] * image.height));
  const x1 = Math.min(image.width, Math.ceil(box[2] * image.width));
  const y1 = Math.min(image.height, Math.ceil(box[3] * image.height));
  const width = Math.max(1, x1 - x0);
  const height = Math.max(1, y1 - y0);
  const { data, info } = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .extract({ left: x0, top: y0, width, height })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return assemble(data, info, image.page, Math.round(width / image.scale), Math.round(height / image.scale));
}

/**
 * A smaller copy of a page for a reader that needs less resolution (page OCR: an A4 page at 2,400 px is about 200 dpi,
 * plenty for printed text, and tesseract's working copies grow with the pixels). The same page when already small.
 */
export async function shrinkPage(image: PageImage, maxSide: number): Promise<PageImage> {
  const { outW, outH } = fitInside(image.width, image.height, maxSide);
  if (outW === image.width && outH === image.height) return image;
  const { data, info } = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(outW, outH, { kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const shrunk = assemble(data, info, image.page, image.originalWidth, image.originalHeight);
  return shrunk;
}
