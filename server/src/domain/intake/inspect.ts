/**
 * Intake inspection: what kind of file arrived, whether it can really be read, and how many
 * pages it has. Images are decoded (not only their headers read); PDFs are opened with pdf.js.
 * See docs/intake.md for the choice of decoders.
 */
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { ApiError } from '../../errors.ts';
import { detectFileType, type AcceptedMime } from './detect.ts';
import { assertNoPdfBomb } from './pdf-guard.ts';

/** PDF page limits of the specification: synchronous requests, and `async: true` or batches. */
export const MAX_PAGES_SYNC = 30;
export const MAX_PAGES_ASYNC = 200;

/**
 * Largest image accepted, in pixels (sharp's default `limitInputPixels`, 16383 × 16383). Guards
 * against decompression bombs: a 20 MB PNG can declare far more pixels than that.
 */
export const MAX_IMAGE_PIXELS = 0x3fff * 0x3fff;

/**
 * Largest HEIC accepted, in pixels (64 Mi: every phone camera's HEIC fits). libheif-js decodes in WebAssembly, whose
 * heap never shrinks: a 268 MP HEIC would hold about 1 GB for the life of the process.
 */
export const MAX_HEIC_PIXELS = 64 * 1024 * 1024;

export interface InspectOptions {
  /** Page limit for PDFs: `MAX_PAGES_SYNC` or `MAX_PAGES_ASYNC` (see `maxPagesFor`). */
  maxPages: number;
  /** Request parameter named in errors (`file`, `file_base64`, `file_url`). Default `file`. */
  param?: string;
}

export interface FileInspection {
  /** Pages of a PDF; 1 for an image. */
  pages: number;
  /** HEIC width in pixels, after the HEIF orientation is applied (other images are checked without it). */
  width?: number;
  /** HEIC height in pixels, after the HEIF orientation is applied. */
  height?: number;
}

/** The page limit for a request: 200 when the analysis is asynchronous or part of a batch, else 30. */
export function maxPagesFor(opts: { async?: boolean; batch?: boolean }): number {
  return opts.async || opts.batch ? MAX_PAGES_ASYNC : MAX_PAGES_SYNC;
}

/**
 * The one call for any upload path: empty => 400 `empty_file`; not JPEG/PNG/WEBP/HEIC/PDF by
 * content => 415 `unsupported_file_type`. `paramName` is the request parameter that carried the
 * file (`file`, `file_base64`, `file_url`, or a batch item's field).
 */
export function identifyUpload(bytes: Uint8Array, paramName: string): AcceptedMime {
  if (bytes.length === 0) throw new ApiError(400, 'empty_file', 'El archivo está vacío.', paramName);
  const type = detectFileType(bytes);
  if (!type) {
    throw new ApiError(
      415,
      'unsupported_file_type',
      'Tipo de archivo no admitido: el contenido no es JPEG, PNG, WEBP, HEIC ni PDF.',
      paramName,
    );
  }
  return type.mime;
}

/**
 * Checks that the file can be read and counts its pages. Throws 422 `unreadable_pdf`,
 * `too_many_pages` or `unreadable_image`.
 */
export async function inspectFile(bytes: Uint8Array, mime: AcceptedMime, opts: InspectOptions): Promise<FileInspection> {
  const param = opts.param ?? 'file';
  try {
    switch (mime) {
      case 'application/pdf': {
        // Bombs first: nothing below (pdf.js here, the readers later) inflates a stream it has not been measured.
        await assertNoPdfBomb(bytes);
        const pages = await countPdfPages(bytes);
        if (pages > opts.maxPages) throw tooManyPages(pages, opts.maxPages);
        return { pages };
      }
      case 'image/heic':
        return { pages: 1, ...(await decodeHeic(bytes)) };
      case 'image/jpeg':
      case 'image/png':
      case 'image/webp':
        return { pages: 1, ...(await decodeWithSharp(bytes)) };
      default:
        throw new ApiError(415, 'unsupported_file_type', 'Tipo de archivo no admitido.');
    }
  } catch (err) {
    // The helpers below name no parameter; the caller knows which one carried the file.
    if (err instanceof ApiError && err.param === undefined) throw new ApiError(err.status, err.code, err.message, param);
    throw err;
  }
}

function tooManyPages(pages: number, max: number): ApiError {
  const limit =
    max < MAX_PAGES_ASYNC
      ? `el máximo es ${max} en un análisis síncrono (${MAX_PAGES_ASYNC} con async: true o en un lote)`
      : `el máximo es ${max}`;
  return new ApiError(422, 'too_many_pages', `El PDF tiene ${pages} páginas; ${limit}.`);
}

export const unreadableImage = (detail: string): ApiError =>
  new ApiError(422, 'unreadable_image', `No se puede leer la imagen: ${detail}.`);

const unreadablePdf = (detail: string): ApiError =>
  new ApiError(422, 'unreadable_pdf', `No se puede leer el PDF: ${detail}.`);

// ---------------------------------------------------------------------------------------------
// JPEG, PNG, WEBP: sharp (libvips)

/**
 * Decodes every pixel, streaming (`sequentialRead`) into a tiny thumbnail so memory stays low, in one sharp pipeline
 * (libvips checks the pixel limit from the header before decoding). `failOn: 'error'` rejects truncated or corrupt
 * pixel data but tolerates mere warnings (e.g. extraneous bytes before a JPEG marker), as image viewers do. Only a
 * refused image has its header read again, to say why.
 */
async function decodeWithSharp(bytes: Uint8Array): Promise<Record<string, never>> {
  try {
    await sharp(bytes, { failOn: 'error', sequentialRead: true, limitInputPixels: MAX_IMAGE_PIXELS }).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
    return {};
  } catch {
    throw await whyUnreadable(bytes);
  }
}

async function whyUnreadable(bytes: Uint8Array): Promise<ApiError> {
  let width: number | undefined;
  let height: number | undefined;
  try {
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    width = meta.autoOrient?.width ?? meta.width;
    height = meta.autoOrient?.height ?? meta.height;
  } catch {
    /* the header itself */
  }
  if (!width || !height) return unreadableImage('la cabecera está dañada o no es una imagen válida');
  if (width * height > MAX_IMAGE_PIXELS) return unreadableImage(`sus dimensiones (${width}×${height}) superan el máximo admitido`);
  return unreadableImage('está truncada o dañada');
}

// ---------------------------------------------------------------------------------------------
// HEIC: libheif-js (libheif + libde265 compiled to WebAssembly). sharp's prebuilt libvips has
// libheif with AV1 only: no HEVC decoder, so it cannot read HEIC.

export interface HeifError {
  code: unknown;
  message?: string;
}
export interface HeifDecoded {
  image: unknown;
  width: number;
  height: number;
}
/** The embind functions of libheif-js used here (its low-level API; its `HeifDecoder` wrapper logs to the console). */
export interface LibHeif {
  ready: Promise<unknown>;
  heif_error_Ok: unknown;
  heif_colorspace_RGB: unknown;
  heif_chroma_interleaved_RGBA: unknown;
  heif_context_alloc(): unknown;
  heif_context_free(ctx: unknown): void;
  heif_context_read_from_memory(ctx: unknown, data: Uint8Array): HeifError;
  heif_js_context_get_primary_image_handle(ctx: unknown): unknown;
  heif_image_handle_get_width(handle: unknown): number;
  heif_image_handle_get_height(handle: unknown): number;
  heif_image_handle_release(handle: unknown): void;
  heif_js_decode_image2(handle: unknown, colorspace: unknown, chroma: unknown): Promise<HeifDecoded | HeifError | null> | HeifDecoded | HeifError | null;
  heif_image_release(image: unknown): void;
}

let libheifPromise: Promise<LibHeif> | undefined;

/** Loaded on first use: the WebAssembly bundle is 8 MB and most deployments see few HEIC files. */
export function loadLibheif(): Promise<LibHeif> {
  libheifPromise ??= (async () => {
    const require = createRequire(import.meta.url);
    const lib = require('libheif-js/wasm-bundle') as LibHeif;
    await lib.ready;
    return lib;
  })();
  return libheifPromise;
}

export function isHeifError(v: unknown): v is HeifError {
  return typeof v === 'object' && v !== null && 'code' in v && !('image' in v);
}

/**
 * Opens the HEIF container, checks the primary image's declared size (before anything is decoded: bombs), decodes it
 * (HEVC) completely and hands the decoded image to `use` while it lives in the WebAssembly heap; everything is
 * released afterwards. Intake only checks that it decodes; the live readers copy its pixels out.
 */
export async function withDecodedHeic<T>(bytes: Uint8Array, use: (decoded: HeifDecoded, heif: LibHeif) => T): Promise<T> {
  const heif = await loadLibheif();
  const ctx = heif.heif_context_alloc();
  if (!ctx) throw new Error('libheif: no se pudo crear el contexto');
  try {
    const err = heif.heif_context_read_from_memory(ctx, bytes);
    if (err.code !== heif.heif_error_Ok) throw unreadableImage('el contenedor HEIC está dañado o truncado');
    const handle = heif.heif_js_context_get_primary_image_handle(ctx);
    if (!handle || isHeifError(handle)) throw unreadableImage('el archivo HEIC no contiene una imagen principal');
    try {
      // The handle's size is the displayed one (after irot/clap), read from the container: nothing decoded yet.
      const width = heif.heif_image_handle_get_width(handle);
      const height = heif.heif_image_handle_get_height(handle);
      if (!width || !height) throw unreadableImage('la imagen HEIC no tiene dimensiones');
      if (width * height > MAX_HEIC_PIXELS) throw unreadableImage(`sus dimensiones (${width}×${height}) superan el máximo admitido`);
      let decoded: HeifDecoded | HeifError | null;
      try {
        decoded = await heif.heif_js_decode_image2(handle, heif.heif_colorspace_RGB, heif.heif_chroma_interleaved_RGBA);
      } catch {
        decoded = null;
      }
      if (!decoded || isHeifError(decoded)) throw unreadableImage('está truncada o dañada');
      try {
        return use(decoded, heif);
      } finally {
        heif.heif_image_release(decoded.image);
      }
    } finally {
      heif.heif_image_handle_release(handle);
    }
  } finally {
    heif.heif_context_free(ctx);
  }
}

/** Decodes the primary image completely (that it decodes is what intake checks). */
function decodeHeic(bytes: Uint8Array): Promise<{ width: number; height: number }> {
  return withDecodedHeic(bytes, (decoded) => ({ width: decoded.width, height: decoded.height }));
}

// ---------------------------------------------------------------------------------------------
// PDF: pdf.js (legacy build, for Node): in-process ("fake") worker, no fonts, no WebAssembly
// image decoders, no fetching of anything.

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsPromise: Promise<PdfJs> | undefined;

function loadPdfjs(): Promise<PdfJs> {
  pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsPromise;
}

/** Opens the PDF and returns its page count. Damaged or password-protected => 422 `unreadable_pdf`. */
export async function countPdfPages(bytes: Uint8Array): Promise<number> {
  const pdfjs = await loadPdfjs();
  const task = pdfjs.getDocument({
    // A plain Uint8Array copy: pdf.js refuses Buffers, and may transfer (detach) what it is given.
    data: new Uint8Array(bytes),
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    useWasm: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    enableXfa: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
  });
  try {
    const doc = await task.promise;
    const pages = doc.numPages;
    if (!Number.isInteger(pages) || pages < 1) throw unreadablePdf('no tiene páginas');
    // The page tree must lead to a real first page; a PDF that says it has pages but has none is damaged.
    await doc.getPage(1);
    return pages;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof pdfjs.PasswordException) throw unreadablePdf('está protegido con contraseña');
    throw unreadablePdf('está dañado o no es un PDF válido');
  } finally {
    await task.destroy().catch(() => undefined);
  }
}
