/**
 * The MRZ reader's grey morphology (mrz/image.ts): the fast running max/min (van Herk / Gil-Werman over a padded copy
 * of each row and column) must give exactly what the definition gives: for every pixel, the max (or min) over its
 * window, edge pixels repeated. Checked against a brute-force window on random images of awkward sizes.
 */
import { describe, expect, it } from 'vitest';
import { blackTopHat, closeMask, openMask, openRows } from '../../../server/src/providers/local/mrz/image.ts';

/** Max or min over a kx x ky window centred on each pixel, coordinates clamped to the image (edge values repeat). */
function bruteRank(src: Float32Array, w: number, h: number, kx: number, ky: number, max: boolean): Float32Array {
  const out = new Float32Array(w * h);
  const rx = kx >> 1;
  const ry = ky >> 1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let v = max ? -Infinity : Infinity;
      for (let dy = -ry; dy <= ry; dy++) {
        const yy = Math.min(h - 1, Math.max(0, y + dy));
        for (let dx = -rx; dx <= rx; dx++) {
          const s = src[yy * w + Math.min(w - 1, Math.max(0, x + dx))];
          v = max ? Math.max(v, s) : Math.min(v, s);
        }
      }
      out[y * w + x] = v;
    }
  }
  return out;
}

function random(w: number, h: number, seed: number): Float32Array {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  // grey levels with flat runs (ties) and fractions, as resampled pages have
  return Float32Array.from({ length: w * h }, () => (next() < 0.3 ? 200 : Math.round(next() * 1020) / 4));
}

const SIZES: Array<[number, number]> = [[1, 1], [1, 7], [7, 1], [2, 3], [13, 5], [41, 29], [64, 3]];

describe('MRZ grey morphology', () => {
  it('black top-hat equals closing minus image, the closing computed by brute force', () => {
    for (const [w, h] of SIZES) {
      for (const k of [1, 3, 7, 15]) {
        const d = random(w, h, w * 31 + h * 7 + k);
        const closed = bruteRank(bruteRank(d, w, h, k, k, true), w, h, k, k, false);
        expect(Array.from(blackTopHat({ w, h, d }, k))).toEqual(Array.from(closed, (c, i) => c - d[i]));
      }
    }
  });

  it('row opening equals a brute-force erosion then dilation along rows', () => {
    for (const [w, h] of SIZES) {
      for (const k of [3, 9, 37]) {
        const d = random(w, h, w * 17 + h * 3 + k);
        const opened = bruteRank(bruteRank(d, w, h, k, 1, false), w, h, k, 1, true);
        expect(Array.from(openRows(d, w, h, k))).toEqual(Array.from(opened));
      }
    }
  });

  it('binary closing and opening of masks equal their brute-force definitions, along either axis', () => {
    for (const [w, h] of SIZES) {
      const d = random(w, h, w + h);
      const mask = Uint8Array.from(d, (v) => (v < 90 ? 1 : 0));
      const f = Float32Array.from(mask);
      for (const [kx, ky] of [[11, 1], [1, 11], [3, 5]] as const) {
        const close = bruteRank(bruteRank(f, w, h, kx, ky, true), w, h, kx, ky, false);
        const open = bruteRank(bruteRank(f, w, h, kx, ky, false), w, h, kx, ky, true);
        expect(Array.from(closeMask(mask, w, h, kx, ky))).toEqual(Array.from(close, (v) => (v > 0.5 ? 1 : 0)));
        expect(Array.from(openMask(mask, w, h, kx, ky))).toEqual(Array.from(open, (v) => (v > 0.5 ? 1 : 0)));
      }
    }
  });
});
