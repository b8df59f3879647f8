/**
 * Quality warnings measured from the pixels of one `PageImage` (rules, thresholds and their calibration:
 * docs/quality-warnings.md). Hints, not proof: each rule is a cheap measure with a threshold set on the clean
 * ID specimen photos against degraded copies of them (test/unit/local/quality.test.ts).
 *
 * Everything is measured on a working copy whose longer side is at most `WORK_SIDE` pixels (box-averaged from
 * the page image), restricted to the document when its box is given: a 3000-px page costs a few tens of ms.
 */
import type { Warning } from '../types.ts';
import type { Box, PageImage } from './types.ts';

export interface QualityHints {
  /** The document's box on the page, when a locator found it; measures then look only inside it. */
  documentBox?: Box | null;
  /** MRZ zones found on the page: blur is measured on them (the text that matters), and they tell `cropped`. */
  mrzBoxes?: Box[];
  /**
   * The document is printed in colour (identity documents, passports, driving licences): only then does an image
   * with no chroma at all mean a photocopy or a grey scan. Invoices and letters are often black on white.
   */
  colourDocument?: boolean;
}

export interface QualityAssessment {
  warnings: Warning[];
  measures: Record<string, number | boolean>;
}

/** Longer side of the grey working copy (blur, exposure). */
export const WORK_SIDE = 1000;
/** Longer side of the colour working copy (glare, chroma). */
export const COLOUR_SIDE = 600;

/** Thresholds (see docs/quality-warnings.md for why each value). */
export const QUALITY_THRESHOLDS = {
  /** `blurry`: blur effect (Crété-Roffet, 0 sharp .. 1 flat) of the measured region above this. */
  blurEffect: 0.4,
  /** `low_quality`: the document's longer side in the original image below this many pixels. */
  minDocumentSide: 320,
  /** `low_quality`: 8×8 JPEG block-grid strength (steps between flat runs on the strongest grid phase / median phase). */
  blockiness: 8,
  /** `low_quality`: too dark when the 98th percentile of grey is below this. */
  darkP98: 100,
  /** `low_quality`: washed out when the 0.5th percentile of grey is above this (no dark ink anywhere)... */
  washedOutP005: 150,
  /** ...or when the 0.5th-99.5th percentile spread is below this. */
  minContrast: 60,
  /** `glare`: a clipped near-white blob (every channel ≥ this) ... */
  glareLevel: 240,
  /** ... covering at least this share of the document ... */
  glareMinArea: 0.003,
  /** ... and at most this share (larger is the paper itself) ... */
  glareMaxArea: 0.3,
  /** ... surrounded by pixels whose mean grey is at most this (white paper around a white cell is not glare) ... */
  glareRingMax: 215,
  /**
   * ... with a soft edge: the pixels just outside the blob have a mean grey of at least this (a glare fades out
   * into a halo; a printed white box, a portrait's white background or a table cell ends in a step).
   */
  glareEdgeMin: 222,
  /** ... compact: bounding box no more elongated than this, and filled at least this much ... */
  glareMaxAspect: 6,
  glareMinFill: 0.5,
  /** ... and featureless: at most this share of the blob's central half darker than `glareInkLevel`. */
  glareMaxInk: 0.005,
  glareInkLevel: 200,
  /** `cropped`: a box closer than this (share of the side) to an edge of the image touches it. */
  edgeMargin: 0.005,
  /** `photocopy_suspected`: share of pixels with chroma > `chromaMin` (after removing the colour cast) below this. */
  colourShareMin: 0.005,
  chromaMin: 24,
} as const;

export function assessQuality(image: PageImage, hints: QualityHints = {}): QualityAssessment {
  const T = QUALITY_THRESHOLDS;
  const warnings = new Set<Warning>();
  const measures: Record<string, number | boolean> = {};
  const work = workingCopy(image);
  const docBox = hints.documentBox ?? null;
  const region = toRect(docBox ?? [0, 0, 1, 1], work.width, work.height);

  // --- low_quality: resolution of the original
  const docSide = Math.max(
    (region.x1 - region.x0) / work.width * image.originalWidth,
    (region.y1 - region.y0) / work.height * image.originalHeight,
  );
  measures.documentSidePx = Math.round(docSide);
  measures.resolutionLow = docSide < T.minDocumentSide;

  // --- blurry: blur effect on the MRZ zones when given (text at its own scale), else on the document
  const blurRects = (hints.mrzBoxes ?? []).map((b) => toRect(b, work.width, work.height)).filter((r) => r.x1 - r.x0 >= 16 && r.y1 - r.y0 >= 8);
  const blurs = blurRects.length > 0 ? blurRects.map((r) => blurEffect(work.grey, work.width, padRect(r, 4, work))) : [blurEffect(work.grey, work.width, region)];
  measures.blurEffect = round(Math.max(...blurs));
  measures.blurRegion = blurRects.length > 0 ? 1 : 0;
  if (measures.blurEffect > T.blurEffect) warnings.add('blurry');

  // --- low_quality: exposure and contrast
  const { p005, p50, p98, p995 } = percentiles(work.grey, work.width, region);
  measures.greyP005 = p005;
  measures.greyP50 = p50;
  measures.greyP98 = p98;
  measures.greyP995 = p995;
  measures.tooDark = p98 < T.darkP98;
  measures.washedOut = p005 > T.washedOutP005 || p995 - p005 < T.minContrast;

  // --- low_quality: JPEG blockiness, only where the 8×8 grid survives (the page image is the original size)
  if (image.scale === 1 && image.width >= 64 && image.height >= 64) {
    measures.blockiness = round(blockiness(image.grey, image.width, image.height));
    measures.blocky = measures.blockiness > T.blockiness;
  }
  if (measures.resolutionLow || measures.tooDark || measures.washedOut || measures.blocky === true) warnings.add('low_quality');

  // --- glare
  const colour = colourCopy(image);
  const colourRegion = toRect(docBox ?? [0, 0, 1, 1], colour.width, colour.height);
  const glare = findGlare(colour, colourRegion);
  measures.glareArea = round(glare.area);
  measures.glareBlobs = glare.blobs;
  if (glare.blobs > 0) warnings.add('glare');

  // --- cropped: the document's box, or an MRZ zone, touching the frame
  const touch = (b: Box) => {
    const m = T.edgeMargin;
    return [b[0] <= m, b[1] <= m, b[2] >= 1 - m, b[3] >= 1 - m];
  };
  let cropped = false;
  if (docBox) {
    const sides = touch(docBox).filter(Boolean).length;
    measures.documentEdgesTouching = sides;
    // All four sides: the image is the document, tightly cropped (a scan or a cut-out), not cut.
    if (sides >= 1 && sides <= 3) cropped = true;
  }
  for (const b of hints.mrzBoxes ?? []) if (touch(b).some(Boolean)) cropped = true;
  if (docBox || (hints.mrzBoxes?.length ?? 0) > 0) measures.cropped = cropped;
  if (cropped) warnings.add('cropped');

  // --- photocopy_suspected: a colour document with no chroma
  const chroma = colourShare(colour, colourRegion);
  measures.colourShare = round(chroma);
  if (hints.colourDocument && chroma < T.colourShareMin) warnings.add('photocopy_suspected');

  return { warnings: [...warnings], measures };
}

// ---------------------------------------------------------------------------------------------
// Working copy

interface Work {
  width: number;
  height: number;
  grey: Uint8Array;
  rgb: Uint8Array;
}
interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Grey working copy: box average by an integer factor, longer side ≤ WORK_SIDE (blur and exposure). */
function workingCopy(image: PageImage): Work {
  const f = Math.max(1, Math.ceil(Math.max(image.width, image.height) / WORK_SIDE));
  if (f === 1) return { width: image.width, height: image.height, grey: image.grey, rgb: image.rgb };
  const w = Math.floor(image.width / f);
  const h = Math.floor(image.height / f);
  const grey = new Uint8Array(w * h);
  const n = f * f;
  const acc = new Uint32Array(w);
  const src = image.grey;
  for (let y = 0; y < h; y++) {
    acc.fill(0);
    for (let dy = 0; dy < f; dy++) {
      let p = (y * f + dy) * image.width;
      for (let x = 0; x < w; x++) {
        let g = 0;
        for (let dx = 0; dx < f; dx++) g += src[p++];
        acc[x] += g;
      }
    }
    const o = y * w;
    for (let x = 0; x < w; x++) grey[o + x] = (acc[x] + (n >> 1)) / n;
  }
  return { width: w, height: h, grey, rgb: new Uint8Array(0) };
}

/**
 * Colour working copy (glare, chroma): every f-th pixel of the page image, longer side ≤ COLOUR_SIDE. Sampled, not
 * averaged, so that clipped whites stay clipped and edges stay sharp; blobs that matter are ≥ 0.3 % of the document.
 */
function colourCopy(image: PageImage): Work {
  const f = Math.max(1, Math.ceil(Math.max(image.width, image.height) / COLOUR_SIDE));
  if (f === 1) return { width: image.width, height: image.height, grey: image.grey, rgb: image.rgb };
  const w = Math.floor(image.width / f);
  const h = Math.floor(image.height / f);
  const grey = new Uint8Array(w * h);
  const rgb = new Uint8Array(w * h * 3);
  const off = f >> 1;
  for (let y = 0; y < h; y++) {
    const row = (y * f + off) * image.width + off;
    for (let x = 0; x < w; x++) {
      const p = row + x * f;
      const o = y * w + x;
      grey[o] = image.grey[p];
      rgb[o * 3] = image.rgb[p * 3];
      rgb[o * 3 + 1] = image.rgb[p * 3 + 1];
      rgb[o * 3 + 2] = image.rgb[p * 3 + 2];
    }
  }
  return { width: w, height: h, grey, rgb };
}

function toRect(b: Box, w: number, h: number): Rect {
  const c = (v: number) => Math.min(1, Math.max(0, v));
  let x0 = Math.floor(c(Math.min(b[0], b[2])) * w);
  let y0 = Math.floor(c(Math.min(b[1], b[3])) * h);
  let x1 = Math.ceil(c(Math.max(b[0], b[2])) * w);
  let y1 = Math.ceil(c(Math.max(b[1], b[3])) * h);
  if (x1 - x0 < 2) (x0 = 0), (x1 = w);
  if (y1 - y0 < 2) (y0 = 0), (y1 = h);
  return { x0, y0, x1, y1 };
}

function padRect(r: Rect, p: number, work: Work): Rect {
  return { x0: Math.max(0, r.x0 - p), y0: Math.max(0, r.y0 - p), x1: Math.min(work.width, r.x1 + p), y1: Math.min(work.height, r.y1 + p) };
}

const round = (v: number) => Math.round(v * 1000) / 1000;

// ---------------------------------------------------------------------------------------------
// Measures

/**
 * Blur effect of Crété-Roffet et al. (2007, "The blur effect: perception and estimation with a new no-reference
 * perceptual blur metric"), as in scikit-image's `blur_effect`: re-blur the image with a 1×9 box filter and see
 * how much of its neighbour-to-neighbour variation survives. A sharp image loses much (0), a blurred one little
 * (1). Worst of the horizontal and vertical directions. Largely independent of content and contrast.
 */
export function blurEffect(grey: Uint8Array, width: number, r: Rect): number {
  const k = 9;
  const h = 4;
  let worst = 0;
  for (const dir of [0, 1] as const) {
    let sumF = 0;
    let sumV = 0;
    const outer = dir === 0 ? r.y1 - r.y0 : r.x1 - r.x0;
    const inner = dir === 0 ? r.x1 - r.x0 : r.y1 - r.y0;
    if (inner < k + 2) continue;
    const line = new Float64Array(inner);
    const blurred = new Float64Array(inner);
    for (let o = 0; o < outer; o++) {
      for (let i = 0; i < inner; i++) {
        line[i] = dir === 0 ? grey[(r.y0 + o) * width + r.x0 + i] : grey[(r.y0 + i) * width + r.x0 + o];
      }
      // 1×9 box blur, edges replicated
      let s = 0;
      for (let i = -h; i <= h; i++) s += line[Math.min(inner - 1, Math.max(0, i))];
      for (let i = 0; i < inner; i++) {
        blurred[i] = s / k;
        s += line[Math.min(inner - 1, i + h + 1)] - line[Math.max(0, i - h)];
      }
      for (let i = 1; i < inner; i++) {
        const dF = Math.abs(line[i] - line[i - 1]);
        const dB = Math.abs(blurred[i] - blurred[i - 1]);
        sumF += dF;
        sumV += Math.max(0, dF - dB);
      }
    }
    if (sumF > 0) worst = Math.max(worst, (sumF - sumV) / sumF);
    else worst = 1;
  }
  return worst;
}

function percentiles(grey: Uint8Array, width: number, r: Rect): { p005: number; p50: number; p98: number; p995: number } {
  const hist = new Uint32Array(256);
  let n = 0;
  for (let y = r.y0; y < r.y1; y++) for (let x = r.x0; x < r.x1; x++, n++) hist[grey[y * width + x]]++;
  const at = (q: number) => {
    const target = q * n;
    let c = 0;
    for (let v = 0; v < 256; v++) if ((c += hist[v]) >= target) return v;
    return 255;
  };
  return { p005: at(0.005), p50: at(0.5), p98: at(0.98), p995: at(0.995) };
}

/**
 * JPEG 8×8 block grid. A "step" is a change of grey between two neighbouring pixels where the image is flat on
 * both sides (the pixel before and the pixel after change by at most 1): what heavy quantisation leaves at block
 * borders, and what smooth content, text edges and line art do not make. Steps are counted per phase of the 8-pixel
 * grid, columns and rows apart; the result is the busiest phase over the median phase (worst direction). Clean
 * photos and PNG scans give 1-3 (steps fall on any phase), heavy JPEG compression far more. Phase-free, so a crop
 * after compression is still caught.
 */
export function blockiness(grey: Uint8Array, width: number, height: number): number {
  const col = new Float64Array(8);
  const row = new Float64Array(8);
  for (let y = 2; y < height - 1; y++) {
    const o = y * width;
    for (let x = 2; x < width - 1; x++) {
      const p = o + x;
      const g = grey[p];
      const l = grey[p - 1];
      if (g !== l && Math.abs(l - grey[p - 2]) <= 1 && Math.abs(grey[p + 1] - g) <= 1) col[x & 7]++;
      const u = grey[p - width];
      if (g !== u && Math.abs(u - grey[p - 2 * width]) <= 1 && Math.abs(grey[p + width] - g) <= 1) row[y & 7]++;
    }
  }
  const ratio = (counts: Float64Array) => {
    const sorted = [...counts].sort((a, b) => a - b);
    return (sorted[7] + 1) / ((sorted[3] + sorted[4]) / 2 + 1);
  };
  return Math.max(ratio(col), ratio(row));
}

/** Clipped near-white connected blobs of meaningful size inside the region, darker all around. */
function findGlare(work: Work, r: Rect): { blobs: number; area: number } {
  const T = QUALITY_THRESHOLDS;
  const { width, rgb, grey } = work;
  const rw = r.x1 - r.x0;
  const rh = r.y1 - r.y0;
  const regionArea = rw * rh;
  const mask = new Uint8Array(rw * rh);
  for (let y = 0; y < rh; y++) {
    for (let x = 0; x < rw; x++) {
      const p = ((r.y0 + y) * width + r.x0 + x) * 3;
      if (rgb[p] >= T.glareLevel && rgb[p + 1] >= T.glareLevel && rgb[p + 2] >= T.glareLevel) mask[y * rw + x] = 1;
    }
  }
  const labels = new Int32Array(rw * rh);
  const stack = new Int32Array(rw * rh);
  let top = 0;
  let blobs = 0;
  let area = 0;
  let next = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || labels[start]) continue;
    next++;
    let size = 0;
    let touches = false;
    let bx0 = rw;
    let by0 = rh;
    let bx1 = 0;
    let by1 = 0;
    labels[start] = next;
    stack[top++] = start;
    while (top > 0) {
      const p = stack[--top];
      size++;
      const x = p % rw;
      const y = (p - x) / rw;
      if (x === 0 || y === 0 || x === rw - 1 || y === rh - 1) touches = true;
      if (x < bx0) bx0 = x;
      if (x > bx1) bx1 = x;
      if (y < by0) by0 = y;
      if (y > by1) by1 = y;
      if (x > 0 && mask[p - 1] && !labels[p - 1]) (labels[p - 1] = next), (stack[top++] = p - 1);
      if (x < rw - 1 && mask[p + 1] && !labels[p + 1]) (labels[p + 1] = next), (stack[top++] = p + 1);
      if (y > 0 && mask[p - rw] && !labels[p - rw]) (labels[p - rw] = next), (stack[top++] = p - rw);
      if (y < rh - 1 && mask[p + rw] && !labels[p + rw]) (labels[p + rw] = next), (stack[top++] = p + rw);
    }
    const share = size / regionArea;
    if (touches || share < T.glareMinArea || share > T.glareMaxArea) continue;
    // Compact: a glare is a spot, not a band (table stripes, margins) nor a lace (paper between words).
    const bw = bx1 - bx0 + 1;
    const bh = by1 - by0 + 1;
    const fill = size / (bw * bh);
    if (Math.max(bw, bh) / Math.min(bw, bh) > T.glareMaxAspect || fill < T.glareMinFill) continue;
    // Featureless: nothing printed shows through the middle of a glare (white paper between text lines does).
    let ink = 0;
    let core = 0;
    for (let y = by0 + (bh >> 2); y <= by1 - (bh >> 2); y++) {
      for (let x = bx0 + (bw >> 2); x <= bx1 - (bw >> 2); x++, core++) if (grey[(r.y0 + y) * width + r.x0 + x] < T.glareInkLevel) ink++;
    }
    if (core === 0 || ink / core > T.glareMaxInk) continue;
    // Soft edge: mean grey of the non-blob 4-neighbours of the blob's pixels (inside its bounding box ± 1).
    let edgeSum = 0;
    let edgeCnt = 0;
    for (let y = Math.max(0, by0 - 1); y <= Math.min(rh - 1, by1 + 1); y++) {
      for (let x = Math.max(0, bx0 - 1); x <= Math.min(rw - 1, bx1 + 1); x++) {
        const p = y * rw + x;
        if (mask[p]) continue;
        if ((x > 0 && labels[p - 1] === next) || (x < rw - 1 && labels[p + 1] === next) || (y > 0 && labels[p - rw] === next) || (y < rh - 1 && labels[p + rw] === next)) {
          edgeSum += grey[(r.y0 + y) * width + r.x0 + x];
          edgeCnt++;
        }
      }
    }
    if (edgeCnt === 0 || edgeSum / edgeCnt < T.glareEdgeMin) continue;
    // Ring around the blob's bounding box (a quarter of its size, at least 3 px): mean grey of the pixels
    // that are not part of any bright blob.
    const pad = Math.max(3, Math.round(Math.max(bx1 - bx0, by1 - by0) / 4));
    const rx0 = Math.max(0, bx0 - pad);
    const ry0 = Math.max(0, by0 - pad);
    const rx1 = Math.min(rw - 1, bx1 + pad);
    const ry1 = Math.min(rh - 1, by1 + pad);
    let sum = 0;
    let cnt = 0;
    for (let y = ry0; y <= ry1; y++) {
      for (let x = rx0; x <= rx1; x++) {
        if (x >= bx0 && x <= bx1 && y >= by0 && y <= by1) continue;
        if (mask[y * rw + x]) continue;
        sum += grey[(r.y0 + y) * width + r.x0 + x];
        cnt++;
      }
    }
    if (cnt === 0 || sum / cnt > T.glareRingMax) continue;
    blobs++;
    area += share;
  }
  return { blobs, area };
}

/**
 * Share of the region's pixels with real colour: chroma (max − min channel) above `chromaMin` once the image's
 * overall colour cast is removed. The cast (white balance, yellowed paper, a tinted scanner) is a gain per channel:
 * the median R/G and B/G ratios over pixels that are not dark, divided out before measuring.
 */
let ratioTable: Uint16Array | undefined;
/** log2((a+1)/(b+1)) in steps of 1/64, offset 128, clamped to 0..256: a 257×257 table built once. */
function ratioBins(): Uint16Array {
  if (!ratioTable) {
    ratioTable = new Uint16Array(257 * 257);
    for (let a = 1; a <= 256; a++) for (let b = 1; b <= 256; b++) ratioTable[a * 257 + b] = Math.min(256, Math.max(0, Math.round(Math.log2(a / b) * 64) + 128));
  }
  return ratioTable;
}

function colourShare(work: Work, r: Rect): number {
  const { width, rgb } = work;
  // Ratios 0.25..4 in log2 steps of 1/64.
  const BINS = 257;
  const table = ratioBins();
  const bin = (num: number, den: number) => table[num * 257 + den];
  const histR = new Uint32Array(BINS);
  const histB = new Uint32Array(BINS);
  let lit = 0;
  let n = 0;
  for (let y = r.y0; y < r.y1; y++) {
    for (let x = r.x0; x < r.x1; x++, n++) {
      const p = (y * width + x) * 3;
      const g = rgb[p + 1];
      if (g < 48) continue;
      histR[bin(rgb[p] + 1, g + 1)]++;
      histB[bin(rgb[p + 2] + 1, g + 1)]++;
      lit++;
    }
  }
  const medianGain = (h: Uint32Array) => {
    if (lit === 0) return 1;
    let c = 0;
    for (let v = 0; v < BINS; v++) if ((c += h[v]) >= lit / 2) return 2 ** ((v - 128) / 64);
    return 1;
  };
  const gr = medianGain(histR);
  const gb = medianGain(histB);
  let coloured = 0;
  for (let y = r.y0; y < r.y1; y++) {
    for (let x = r.x0; x < r.x1; x++) {
      const p = (y * width + x) * 3;
      const rr = rgb[p] / gr;
      const g = rgb[p + 1];
      const b = rgb[p + 2] / gb;
      const chroma = Math.max(rr, g, b) - Math.min(rr, g, b);
      if (chroma > QUALITY_THRESHOLDS.chromaMin) coloured++;
    }
  }
  return n > 0 ? coloured / n : 0;
}
