/**
 * Cell features of an MRZ line: the line is cut on a fixed grid (MRZ text is monospaced, every position holds a
 * glyph), each cell is resampled from the original image to FW x FH and contrast-normalised to ink 1 / paper 0.
 * The training script (scripts/mrz-model/train.ts) calls the same function on synthetic lines, so training and
 * reading see cells made the same way.
 */
import { percentiles, sample, type Grey } from './image.ts';

export const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<';
export const FW = 16;
export const FH = 20;
export const NFEAT = FW * FH;
/** Cell window relative to the pitch (width) and the cap height (height). */
const WIN_W = 1.1;
const WIN_H = 1.35;

/** Geometry of one MRZ line in image coordinates. */
export interface LineGeom {
  /** Point on the line's centre line at the left edge of cell 0. */
  ox: number;
  oy: number;
  /** Unit vector along the line (reading direction) and across it (pointing down the text). */
  ux: number;
  uy: number;
  vx: number;
  vy: number;
  /** Cell pitch and cap height, in image pixels. */
  pitch: number;
  cap: number;
  /** Number of cells. */
  n: number;
  /**
   * Perspective along the line (a card photographed at an angle: its glyphs grow from one end to the other). The
   * line's ends stay where pitch and n put them; the cells follow a projective map (what a camera does to a plane),
   * under which the glyphs' height runs from about (1 − chirp) to (1 + chirp) of the cap height and the pitch by the
   * square of that ratio (see cellAt). Absent or 0: a flat grid.
   */
  chirp?: number;
}

/**
 * Where cell position u (in cells from the line's start; k + 0.5 is cell k's centre) lies along the line, in image
 * pixels, the local scale of the glyphs' height there and that of the pitch (`along`), both 1 on a flat grid.
 */
export function cellAt(g: LineGeom, u: number): { t: number; scale: number; along: number } {
  const c = g.chirp ?? 0;
  if (c === 0) return { t: u * g.pitch, scale: 1, along: 1 };
  // the local pitch is the map's derivative; a glyph's height goes as its square root (foreshortening shrinks a
  // receding line's cells along it twice as fast as across it)
  const a = (1 + c) / (1 - c);
  const n = g.n;
  const d = u + a * (n - u);
  return { t: g.pitch * bentOffset(u, n, c), scale: (n * Math.sqrt(a)) / d, along: (a * n * n) / (d * d) };
}

/**
 * Position u of a line of n cells, in pitches from its start, under perspective `chirp` (both ends fixed): the 1-D
 * projective map with pitch 1/a at the start and a at the end, a = (1 + chirp) / (1 − chirp). Read from the other end
 * the map is the same with −chirp (flipGeom).
 */
export function bentOffset(u: number, n: number, chirp: number): number {
  if (chirp === 0) return u;
  const a = (1 + chirp) / (1 - chirp);
  return (n * u) / (u + a * (n - u));
}

/** Raw (un-normalised) grey window of one cell, centred at (cx, cy). */
function rawCell(img: Grey, g: LineGeom, cx: number, cy: number, scale: number, along: number, out: Float32Array): void {
  const sx = (WIN_W * g.pitch * along) / FW;
  const sy = (WIN_H * g.cap * scale) / FH;
  const k = Math.min(3, Math.max(1, Math.ceil(Math.max(sx, sy))));
  const inv = 1 / (k * k);
  for (let j = 0; j < FH; j++) {
    for (let i = 0; i < FW; i++) {
      let s = 0;
      for (let b = 0; b < k; b++) {
        const dv = (j - FH / 2 + (b + 0.5) / k) * sy;
        for (let a = 0; a < k; a++) {
          const du = (i - FW / 2 + (a + 0.5) / k) * sx;
          s += sample(img, cx + du * g.ux + dv * g.vx, cy + du * g.uy + dv * g.vy);
        }
      }
      out[j * FW + i] = s * inv;
    }
  }
}

/** Features of every cell of a line (n arrays of NFEAT values in 0..1, 1 = ink). */
export function lineFeatures(img: Grey, g: LineGeom): Float32Array[] {
  const raws: Float32Array[] = [];
  const all = new Float32Array(g.n * NFEAT);
  for (let k = 0; k < g.n; k++) {
    const r = new Float32Array(NFEAT);
    const { t, scale, along } = cellAt(g, k + 0.5);
    rawCell(img, g, g.ox + t * g.ux, g.oy + t * g.uy, scale, along, r);
    raws.push(r);
    all.set(r, k * NFEAT);
  }
  const [lineInk, lineBg] = percentiles(all, 0.02, 0.85);
  const lineRange = Math.max(12, lineBg - lineInk);
  return raws.map((r) => {
    const [cellInk, cellBg] = percentiles(r, 0.02, 0.9);
    const bg = Math.max(cellBg, lineInk + 12);
    const ink = Math.min(cellInk, bg - 0.5 * lineRange);
    const inv = 1 / Math.max(8, bg - ink);
    const f = new Float32Array(NFEAT);
    for (let i = 0; i < NFEAT; i++) {
      const v = (bg - r[i]) * inv;
      f[i] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
    return f;
  });
}
