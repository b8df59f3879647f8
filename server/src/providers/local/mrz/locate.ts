/**
 * MRZ locator: on a copy whose longer side is LOCATE_SIDE px, a black top-hat brings out small dark strokes, Otsu
 * makes them a mask, a closing along each axis merges the characters of a line into one long blob; blobs that are
 * long, thin and parallel, at line spacing from each other, form zone candidates. Both axes are searched, so zones
 * in portrait and landscape images are found alike; the reading direction (0 vs 180) is left to the classifier.
 */
import { blackTopHat, closeMask, components, otsu, resize, type Component, type Grey } from './image.ts';

export const LOCATE_SIDE = 720;

/** How far off its axis (degrees) a line blob may run. */
const MAX_TILT = 25;

/** A line blob in original image coordinates. */
export interface LineBlob {
  cx: number;
  cy: number;
  /** Unit major axis, pointing right (horizontal zones) or down (vertical zones). */
  ux: number;
  uy: number;
  length: number;
  thickness: number;
}

export interface ZoneCandidate {
  axis: 'h' | 'v';
  lines: LineBlob[];
  score: number;
}

function blobsOf(comps: Component[], axis: 'h' | 'v', scale: number, side: number): LineBlob[] {
  const out: LineBlob[] = [];
  for (const c of comps) {
    let ux = c.ux;
    let uy = c.uy;
    if (axis === 'h' && ux < 0) [ux, uy] = [-ux, -uy];
    if (axis === 'v' && uy < 0) [ux, uy] = [-ux, -uy];
    const along = axis === 'h' ? Math.abs(ux) : Math.abs(uy);
    // up to 25 degrees off the axis: a phone photo of a passport held at an angle (the strip is deskewed from the
    // blob's own direction; the two axes' ranges stay apart, a blob is never taken for both)
    if (along < Math.cos((MAX_TILT * Math.PI) / 180)) continue;
    if (c.length < 0.14 * side) continue;
    if (c.length / c.thickness < 7) continue;
    if (c.thickness < 2.5) continue; // image borders, rules

    // centre of the extent (the centroid can sit off-centre on a blob with a bump)
    const mid = (c.a0 + c.a1) / 2;
    out.push({ cx: (c.cx + mid * ux) / scale, cy: (c.cy + mid * uy) / scale, ux, uy, length: c.length / scale, thickness: c.thickness / scale });
  }
  return out;
}

function groupLines(blobs: LineBlob[], axis: 'h' | 'v'): ZoneCandidate[] {
  const n = blobs.length;
  const parent = blobs.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = blobs[i];
      const b = blobs[j];
      if (a.ux * b.ux + a.uy * b.uy < Math.cos((4 * Math.PI) / 180)) continue;
      const r = Math.min(a.length, b.length) / Math.max(a.length, b.length);
      if (r < 0.55) continue;
      const dx = b.cx - a.cx;
      const dy = b.cy - a.cy;
      const across = Math.abs(-dx * a.uy + dy * a.ux);
      const along = Math.abs(dx * a.ux + dy * a.uy);
      const t = (a.thickness + b.thickness) / 2;
      if (across < 0.9 * t || across > 4 * t) continue;
      if (along > 0.3 * Math.max(a.length, b.length)) continue;
      parent[find(i)] = find(j);
    }
  }
  const groups = new Map<number, LineBlob[]>();
  for (let i = 0; i < n; i++) {
    const r = find(i);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(blobs[i]);
  }
  const out: ZoneCandidate[] = [];
  for (const lines of groups.values()) {
    const len = lines.reduce((s, l) => s + l.length, 0);
    const count = Math.min(3, lines.length);
    out.push({ axis, lines, score: (len / lines.length) * (count === 1 ? 0.6 : count) });
  }
  return out;
}

function centre(z: ZoneCandidate): { x: number; y: number } {
  let x = 0;
  let y = 0;
  for (const l of z.lines) {
    x += l.cx;
    y += l.cy;
  }
  return { x: x / z.lines.length, y: y / z.lines.length };
}

/**
 * A worn or faded scan (print and paper a few dozen grey levels apart) is stretched to the full range before the
 * top-hat, so that its strokes clear the mask's fixed floor; an image of normal contrast is left as it is.
 */
function stretched(img: Grey): Grey {
  const hist = new Uint32Array(256);
  for (let i = 0; i < img.d.length; i++) hist[Math.max(0, Math.min(255, Math.round(img.d[i])))]++;
  const at = (q: number) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]) >= q * img.d.length) return v;
    return 255;
  };
  const lo = at(0.01);
  const hi = at(0.99);
  if (hi - lo >= LOW_CONTRAST || hi <= lo) return img;
  const k = 255 / (hi - lo);
  const d = new Float32Array(img.d.length);
  for (let i = 0; i < d.length; i++) d[i] = Math.max(0, Math.min(255, (img.d[i] - lo) * k));
  return { w: img.w, h: img.h, d };
}

/** Range of grey (1st to 99th percentile) under which the locator stretches the contrast. */
const LOW_CONTRAST = 80;

/** The last top-hat computed for an image (keyed by the image object: nothing is shared between readings). */
const TOP_HATS = new WeakMap<Grey, { side: number; bh: Float32Array }>();

/** Share of the Otsu threshold kept in the faint search (a zone printed or worn paler than the page's other ink). */
const FAINT_SHARE = 0.5;

/**
 * Zone candidates, best first. `faint`: only strokes between half the mask's threshold and the threshold, away from
 * stronger ones: a zone much paler than the rest of the page's ink (a worn zone next to a dark photo, whose strokes
 * Otsu's threshold, following the strongest ones, leaves out).
 */
export function locateZones(img: Grey, locateSide = LOCATE_SIDE, faint = false): ZoneCandidate[] {
  const side = Math.max(img.w, img.h);
  const scale = locateSide / side;
  const w = Math.max(8, Math.round(img.w * scale));
  const h = Math.max(8, Math.round(img.h * scale));
  // the top-hat of an image at a size is kept for the faint search of the same image (same object, same size)
  let memo = TOP_HATS.get(img);
  if (!memo || memo.side !== locateSide) {
    memo = { side: locateSide, bh: blackTopHat(stretched(resize(img, w, h)), 7) };
    TOP_HATS.set(img, memo);
  }
  const bh = memo.bh;
  const strong = Math.max(16, otsu(bh));
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < mask.length; i++) mask[i] = bh[i] > strong ? 1 : 0;
  if (faint) {
    // only the strokes the first search could not see: above the lower threshold, and not within 2 px of a stroke
    // above the usual one (the page's other text, already searched, is left out, so is the faint rim of its strokes)
    const low = Math.max(16, FAINT_SHARE * strong);
    const near = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (!mask[y * w + x]) continue;
        for (let yy = Math.max(0, y - 2); yy <= Math.min(h - 1, y + 2); yy++) near.fill(1, yy * w + Math.max(0, x - 2), yy * w + Math.min(w - 1, x + 2) + 1);
      }
    }
    for (let i = 0; i < mask.length; i++) mask[i] = bh[i] > low && !near[i] ? 1 : 0;
  }
  const out: ZoneCandidate[] = [];
  for (const axis of ['h', 'v'] as const) {
    // two closing lengths: small characters (documents far away) and large ones (a card filling the frame)
    for (const k of [11, 23]) {
      const closed = axis === 'h' ? closeMask(mask, w, h, k, 1) : closeMask(mask, w, h, 1, k);
      const comps = components(closed, w, h, 40);
      out.push(...groupLines(blobsOf(comps, axis, scale, locateSide), axis));
    }
  }
  out.sort((a, b) => b.score - a.score);
  // drop near-duplicates (the same zone seen with both closings)
  const kept: ZoneCandidate[] = [];
  for (const z of out) {
    const c = centre(z);
    if (kept.some((k) => k.axis === z.axis && Math.hypot(centre(k).x - c.x, centre(k).y - c.y) < 2 * z.lines[0].thickness)) continue;
    kept.push(z);
  }
  return kept;
}
