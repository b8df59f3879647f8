/**
 * The PDF reader of the local (offline) engine: the text layer as lines with normalised boxes, the embedded files
 * (ZUGFeRD / Factur-X / XRechnung XML) with a bound on their inflated size, and rendering of a page to pixels for
 * pages without a text layer (they go to OCR).
 *
 * pdf.js (legacy build, in-process "fake" worker) is opened as in domain/intake/inspect.ts: no font faces, no
 * eval, no fetching. The few binary resources pdf.js may want (standard font programs, CMaps, the JPX/JBIG2
 * decoders) are read from the files packaged with pdfjs-dist on this machine, never from a network.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import type { Box, TextLine } from './types.ts';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfDoc = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
type PdfPage = Awaited<ReturnType<PdfDoc['getPage']>>;

/** One page of a PDF's text layer. */
export interface PdfPageText {
  /** 1-based page number. */
  page: number;
  /** Page size in PDF points (1/72 in) after the page's rotation. */
  width: number;
  height: number;
  /** Whether the page carries a real text layer (at least `MIN_TEXT_CHARS` letters or digits). */
  hasText: boolean;
  /** Lines of text, top to bottom; boxes normalised to the page, origin top-left; `words` are the text's runs. */
  lines: TextLine[];
}

export interface PdfAttachment {
  /** File name as the PDF gives it (basename). */
  name: string;
  bytes: Uint8Array;
}

export interface PdfContent {
  /** Total pages of the document (may exceed `pages.length` when `maxPages` cut the reading short). */
  numPages: number;
  pages: PdfPageText[];
  attachments: PdfAttachment[];
  /** Names of embedded files that were not read: larger than `MAX_ATTACHMENT_BYTES` or of unverifiable size. */
  refusedAttachments: string[];
}

/** Largest embedded file read, inflated (a Factur-X XML is typically 10-100 KB). */
export const MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024;
/** At most this many embedded files are read. */
export const MAX_ATTACHMENTS = 16;
/** A page "has text" when its text layer holds at least this many letters or digits. */
export const MIN_TEXT_CHARS = 20;
/** Pages read by default. */
export const DEFAULT_MAX_PAGES = 200;
/** Rendering bounds: the longer side in pixels, and the scale (4.17 = 300 dpi). */
export const MAX_RENDER_SIDE = 5000;
export const MAX_RENDER_SCALE = 300 / 72;
/** Largest embedded image pdf.js decodes (a 600 dpi A4 scan is 35 Mpx). */
export const MAX_IMAGE_PIXELS = 64 * 1024 * 1024;

// ------------------------------------------------------------------ pdf.js, loaded once

const require = createRequire(import.meta.url);
const PDFJS_DIR = path.dirname(require.resolve('pdfjs-dist/package.json'));
/** Local directories of pdf.js resources (trailing slash required by pdf.js); read from disk in Node. */
const STANDARD_FONTS = path.join(PDFJS_DIR, 'standard_fonts') + path.sep;
const CMAPS = path.join(PDFJS_DIR, 'cmaps') + path.sep;
const WASM = path.join(PDFJS_DIR, 'wasm') + path.sep;

let pdfjsPromise: Promise<PdfJs> | undefined;
function loadPdfjs(): Promise<PdfJs> {
  pdfjsPromise ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsPromise;
}

async function openPdf(bytes: Uint8Array, forRendering: boolean) {
  const pdfjs = await loadPdfjs();
  return pdfjs.getDocument({
    // A plain copy: pdf.js refuses Buffers and may transfer (detach) what it is given.
    data: new Uint8Array(bytes),
    verbosity: pdfjs.VerbosityLevel.ERRORS,
    // The JPX/JBIG2 decoders matter only for the pixels of scanned pages.
    useWasm: forRendering,
    wasmUrl: WASM,
    standardFontDataUrl: STANDARD_FONTS,
    cMapUrl: CMAPS,
    cMapPacked: true,
    useSystemFonts: false,
    disableFontFace: true,
    // Images above this many pixels are skipped, not decoded (memory bound: 4 bytes per pixel while rendering).
    maxImageSize: MAX_IMAGE_PIXELS,
    // (pdf.js 6 has no `isEvalSupported` any more: it never compiles fonts with eval.)
    useWorkerFetch: false,
    enableXfa: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
  });
}

/** A minimal valid one-page PDF with one line of text (warm-up). */
const WARM_PDF = (() => {
  const objs = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const content = 'BT /F1 12 Tf 10 50 Td (Factura 1) Tj ET';
  objs[3] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
})();

let warmPromise: Promise<void> | undefined;
/** Loads pdf.js and reads a tiny PDF once, so that the first real request does not pay for it (~0.8 s). */
export function warmPdf(): Promise<void> {
  warmPromise ??= readPdf(WARM_PDF).then(
    () => undefined,
    () => undefined,
  );
  return warmPromise;
}

// ------------------------------------------------------------------ text layer

interface TextItemLike {
  str: string;
  dir: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
  hasEOL: boolean;
}

interface Run {
  text: string;
  /** Box in viewport pixels (scale 1), origin top-left. */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Baseline y in the viewport, and the font height. */
  base: number;
  size: number;
}

/**
 * Reads the text layer of the first `maxPages` pages and the embedded files. Throws only when the PDF cannot be
 * opened at all (damaged, password); a page that fails to parse is returned empty (`hasText: false`).
 */
export async function readPdf(bytes: Uint8Array, opts: { maxPages?: number } = {}): Promise<PdfContent> {
  const task = await openPdf(bytes, false);
  try {
    const doc = await task.promise;
    const numPages = doc.numPages;
    const limit = Math.min(numPages, Math.max(1, opts.maxPages ?? DEFAULT_MAX_PAGES));
    const pages: PdfPageText[] = [];
    for (let p = 1; p <= limit; p++) pages.push(await readPage(doc, p));
    const { attachments, refused } = await readAttachments(doc, bytes);
    return { numPages, pages, attachments, refusedAttachments: refused };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

async function readPage(doc: PdfDoc, pageNumber: number): Promise<PdfPageText> {
  let page: PdfPage | undefined;
  try {
    page = await doc.getPage(pageNumber);
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
    const styles = content.styles as Record<string, { ascent?: number; descent?: number; vertical?: boolean }>;
    const runs: Run[] = [];
    for (const raw of content.items) {
      const item = raw as TextItemLike;
      if (typeof item.str !== 'string' || !item.transform) continue;
      const text = item.str.replace(/\s+/g, ' ');
      if (text.trim() === '') continue;
      const run = toRun(item, text, viewport, styles[item.fontName]);
      if (run) runs.push(run);
    }
    const lines = groupLines(withoutOverprint(runs), pageNumber, viewport.width, viewport.height);
    const chars = lines.reduce((n, l) => n + (l.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0), 0);
    return { page: pageNumber, width: viewport.width, height: viewport.height, hasText: chars >= MIN_TEXT_CHARS, lines };
  } catch {
    return { page: pageNumber, width: 0, height: 0, hasText: false, lines: [] };
  } finally {
    page?.cleanup();
  }
}

type Viewport = { width: number; height: number; convertToViewportPoint(x: number, y: number): number[] };

/** The item's box in viewport coordinates, from its text matrix, advance width and font ascent/descent. */
function toRun(
  item: TextItemLike,
  text: string,
  viewport: Viewport,
  style: { ascent?: number; descent?: number } | undefined,
): Run | null {
  const [a, b, c, d, e, f] = item.transform;
  const size = Math.hypot(c, d) || Math.hypot(a, b) || item.height;
  if (!Number.isFinite(size) || size <= 0) return null;
  const ascent = style?.ascent && style.ascent > 0 && style.ascent < 2 ? style.ascent : 0.8;
  const descent = style?.descent && style.descent < 0 && style.descent > -1 ? style.descent : -0.2;
  // Unit vectors along the text direction and "up" in PDF space.
  const along = Math.hypot(a, b) > 0 ? [a / Math.hypot(a, b), b / Math.hypot(a, b)] : [1, 0];
  const up = Math.hypot(c, d) > 0 ? [c / Math.hypot(c, d), d / Math.hypot(c, d)] : [-along[1], along[0]];
  const w = item.width > 0 ? item.width : size * 0.5 * text.length;
  const corners = [
    [e + up[0] * size * descent, f + up[1] * size * descent],
    [e + up[0] * size * ascent, f + up[1] * size * ascent],
    [e + along[0] * w + up[0] * size * descent, f + along[1] * w + up[1] * size * descent],
    [e + along[0] * w + up[0] * size * ascent, f + along[1] * w + up[1] * size * ascent],
  ].map(([x, y]) => viewport.convertToViewportPoint(x, y));
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const base = viewport.convertToViewportPoint(e, f);
  const run: Run = {
    text,
    x0: Math.min(...xs),
    x1: Math.max(...xs),
    y0: Math.min(...ys),
    y1: Math.max(...ys),
    base: base[1],
    size,
  };
  if (![run.x0, run.x1, run.y0, run.y1, run.base].every(Number.isFinite)) return null;
  return run;
}

/**
 * Drops a run that repeats another one's text at nearly the same place: "fake bold" and shadowed text are drawn
 * twice (or more) with an offset of a fraction of a point, and a footer may be stamped three times, which pdf.js
 * reports as so many items, and the line would read `TOTALTOTAL` or `USt-ID:USt-ID:USt-ID:`. Same text, baselines within 15 % of the size and starts within 30 % of it: drawn over itself.
 */
function withoutOverprint<R extends { text: string; x0: number; base: number; size: number }>(runs: R[]): R[] {
  const kept: R[] = [];
  const byText = new Map<string, R[]>();
  for (const run of runs) {
    const same = byText.get(run.text) ?? [];
    const near = (k: R) =>
      Math.abs(k.base - run.base) <= 0.15 * run.size && Math.abs(k.x0 - run.x0) <= 0.3 * run.size && Math.abs(k.size - run.size) <= 0.1 * run.size;
    if (same.some(near)) continue;
    same.push(run);
    byText.set(run.text, same);
    kept.push(run);
  }
  return kept;
}

/**
 * Groups runs into lines: runs whose vertical extents overlap mostly (same baseline within 40 % of the height)
 * form one line, read left to right. A line spans the whole page width (label and value far apart stay on one
 * line); its `words` keep the position of every word so that readers can split it into cells.
 */
function groupLines(runs: Run[], page: number, pw: number, ph: number): TextLine[] {
  const sorted = [...runs].sort((r, s) => r.base - s.base || r.x0 - s.x0);
  const groups: Run[][] = [];
  for (const run of sorted) {
    let best: Run[] | null = null;
    let bestDist = Infinity;
    // Only recent groups can share the baseline (runs are sorted by baseline).
    for (let i = groups.length - 1; i >= Math.max(0, groups.length - 4); i--) {
      const g = groups[i];
      const ref = g[0];
      const tol = 0.4 * Math.min(ref.size, run.size);
      const dist = Math.abs(ref.base - run.base);
      if (dist <= tol && dist < bestDist) {
        best = g;
        bestDist = dist;
      }
    }
    if (best) best.push(run);
    else groups.push([run]);
  }
  const lines: TextLine[] = [];
  for (const g of groups) {
    g.sort((r, s) => r.x0 - s.x0);
    const words: NonNullable<TextLine['words']> = [];
    let text = '';
    let prev: Run | null = null;
    for (const run of g) {
      const gap = prev ? run.x0 - prev.x1 : 0;
      const joinNoSpace = prev !== null && gap < 0.12 * run.size && !/\s$/.test(prev.text) && !/^\s/.test(run.text);
      if (prev && !joinNoSpace) text += ' ';
      text += run.text;
      splitWords(run, joinNoSpace ? words : null, words, pw, ph);
      prev = run;
    }
    text = text.replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const bbox = norm(
      Math.min(...g.map((r) => r.x0)),
      Math.min(...g.map((r) => r.y0)),
      Math.max(...g.map((r) => r.x1)),
      Math.max(...g.map((r) => r.y1)),
      pw,
      ph,
    );
    lines.push({ page, text, bbox, confidence: 1, words });
  }
  lines.sort((l, m) => l.bbox[1] - m.bbox[1] || l.bbox[0] - m.bbox[0]);
  return lines;
}

/**
 * Splits a run into words, each with its box estimated by the share of characters before it (pdf.js gives one
 * advance width per run). When `glue` is set, the run's first word continues the previous word (no space between).
 */
function splitWords(
  run: Run,
  glue: NonNullable<TextLine['words']> | null,
  out: NonNullable<TextLine['words']>,
  pw: number,
  ph: number,
): void {
  const n = run.text.length;
  const re = /\S+/g;
  let m: RegExpExecArray | null;
  let first = true;
  while ((m = re.exec(run.text))) {
    const x0 = run.x0 + ((run.x1 - run.x0) * m.index) / n;
    const x1 = run.x0 + ((run.x1 - run.x0) * (m.index + m[0].length)) / n;
    const box = norm(x0, run.y0, x1, run.y1, pw, ph);
    if (first && glue && glue.length > 0 && m.index === 0) {
      const last = glue[glue.length - 1];
      last.text += m[0];
      last.bbox = [
        Math.min(last.bbox[0], box[0]),
        Math.min(last.bbox[1], box[1]),
        Math.max(last.bbox[2], box[2]),
        Math.max(last.bbox[3], box[3]),
      ];
    } else {
      out.push({ text: m[0], bbox: box, confidence: 1 });
    }
    first = false;
  }
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
const r4 = (v: number) => Math.round(v * 10000) / 10000;
function norm(x0: number, y0: number, x1: number, y1: number, pw: number, ph: number): Box {
  return [r4(clamp01(x0 / pw)), r4(clamp01(y0 / ph)), r4(clamp01(x1 / pw)), r4(clamp01(y1 / ph))];
}

// ------------------------------------------------------------------ embedded files

/**
 * Embedded files, read only when their inflated size is known to be bounded. pdf.js inflates a stream fully
 * before handing it over, so the raw file is scanned first: every embedded-file stream (`/Type /EmbeddedFile`)
 * is inflated here with a hard output limit. When pdf.js lists more attachments than the scan could measure
 * (unusual filters, encryption, no `/Type`), or one is too large, the attachments are refused, not read.
 */
async function readAttachments(doc: PdfDoc, bytes: Uint8Array): Promise<{ attachments: PdfAttachment[]; refused: string[] }> {
  let listed: Map<string, { filename?: string }> | Record<string, { filename?: string }> | null;
  try {
    listed = (await doc.getAttachments()) as typeof listed;
  } catch {
    return { attachments: [], refused: [] };
  }
  if (!listed) return { attachments: [], refused: [] };
  const entries: Array<[string, { filename?: string }]> =
    listed instanceof Map ? [...listed.entries()] : Object.entries(listed);
  if (entries.length === 0) return { attachments: [], refused: [] };
  const names = entries.map(([id, meta]) => meta?.filename || id);
  const scan = scanEmbeddedFiles(bytes);
  if (!scan.bounded || scan.count < entries.length || entries.length > MAX_ATTACHMENTS) {
    return { attachments: [], refused: names };
  }
  const attachments: PdfAttachment[] = [];
  const refused: string[] = [];
  for (const [i, [id]] of entries.entries()) {
    try {
      const content = (await doc.getAttachmentContent(id)) as Uint8Array | null;
      if (!content) continue;
      if (content.length > MAX_ATTACHMENT_BYTES) refused.push(names[i]);
      else attachments.push({ name: names[i], bytes: new Uint8Array(content) });
    } catch {
      refused.push(names[i]);
    }
  }
  return { attachments, refused };
}

/**
 * Finds the embedded-file streams of the raw PDF and checks that each one inflates to at most
 * `MAX_ATTACHMENT_BYTES`. `bounded` is false when one is too large or cannot be measured (a filter other than
 * none/FlateDecode, or data that does not inflate, e.g. encrypted).
 */
export function scanEmbeddedFiles(bytes: Uint8Array): { count: number; bounded: boolean } {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const re = /\/Type\s*\/EmbeddedFile\b/g;
  let count = 0;
  let bounded = true;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    // The stream dictionary around the match: from the preceding `obj` to the following `stream` keyword.
    const objAt = text.lastIndexOf(' obj', m.index);
    const streamRe = />>\s*stream(\r\n|\n|\r)/g;
    streamRe.lastIndex = m.index;
    const sm = streamRe.exec(text);
    if (objAt < 0 || !sm || sm.index - objAt > 4096) continue;
    const dict = text.slice(objAt, sm.index);
    count++;
    const start = sm.index + sm[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) {
      bounded = false;
      continue;
    }
    const data = bytes.subarray(start, end);
    const filter = /\/Filter\s*(\[[^\]]*\]|\/\w+)/.exec(dict)?.[1]?.replace(/[[\]\s]/g, '') ?? '';
    if (filter === '' ) {
      if (data.length > MAX_ATTACHMENT_BYTES + 2) bounded = false;
    } else if (filter === '/FlateDecode' || filter === '/Fl') {
      try {
        inflateSync(data, { maxOutputLength: MAX_ATTACHMENT_BYTES, finishFlush: 2 /* Z_SYNC_FLUSH */ });
      } catch {
        bounded = false; // too large (RangeError) or not inflatable (encrypted, damaged)
      }
    } else {
      bounded = false;
    }
    re.lastIndex = end;
  }
  return { count, bounded };
}

// ------------------------------------------------------------------ rendering

export interface RenderedPage {
  width: number;
  height: number;
  /** RGBA pixels, row-major, `width * height * 4` bytes, on a white background. */
  rgba: Uint8ClampedArray;
}

/**
 * Renders one page (1-based) so that its longer side is at most `maxSide` pixels (capped at `MAX_RENDER_SIDE`,
 * and never above 300 dpi). Throws when the PDF cannot be opened or the page does not exist.
 */
export async function renderPdfPage(bytes: Uint8Array, pageNumber: number, opts: { maxSide: number }): Promise<RenderedPage> {
  const maxSide = Math.max(16, Math.min(MAX_RENDER_SIDE, Math.floor(opts.maxSide)));
  const { createCanvas } = await import('@napi-rs/canvas');
  const task = await openPdf(bytes, true);
  try {
    const doc = await task.promise;
    if (!Number.isInteger(pageNumber) || pageNumber < 1 || pageNumber > doc.numPages) {
      throw new RangeError(`page ${pageNumber} out of range 1..${doc.numPages}`);
    }
    const page = await doc.getPage(pageNumber);
    try {
      const base = page.getViewport({ scale: 1 });
      const scale = Math.min(MAX_RENDER_SCALE, maxSide / Math.max(base.width, base.height, 1));
      const viewport = page.getViewport({ scale });
      const width = Math.max(1, Math.min(maxSide, Math.round(viewport.width)));
      const height = Math.max(1, Math.min(maxSide, Math.round(viewport.height)));
      const canvas = createCanvas(width, height);
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, width, height);
      await page.render({
        canvas: canvas as unknown as HTMLCanvasElement,
        canvasContext: ctx as unknown as CanvasRenderingContext2D,
        viewport,
        background: '#ffffff',
      }).promise;
      const rgba = new Uint8ClampedArray(ctx.getImageData(0, 0, width, height).data);
      return { width, height, rgba };
    } finally {
      page.cleanup();
    }
  } finally {
    await task.destroy().catch(() => undefined);
  }
}
