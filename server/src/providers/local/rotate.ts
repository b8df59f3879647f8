/**
 * Quarter turns of a page image, for a till receipt photographed sideways (its text runs down a landscape photo):
 * the page is read turned upright, and the boxes the reading reports are turned back onto the original image.
 */
import type { Box, PageImage } from './types.ts';

/** The page turned a quarter: clockwise (`cw`) or counter-clockwise. */
export function rotatePage(image: PageImage, cw: boolean): PageImage {
  const { width: w, height: h } = image;
  const grey = Buffer.alloc(w * h);
  const rgb = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const nx = cw ? h - 1 - y : y;
      const ny = cw ? x : w - 1 - x;
      const o = ny * h + nx;
      const i = y * w + x;
      grey[o] = image.grey[i];
      rgb[o * 3] = image.rgb[i * 3];
      rgb[o * 3 + 1] = image.rgb[i * 3 + 1];
      rgb[o * 3 + 2] = image.rgb[i * 3 + 2];
    }
  }
  return { ...image, width: h, height: w, grey, rgb };
}

/** A box (normalised 0..1) of the page turned by `rotatePage(…, cw)`, on the original page. */
export function unrotateBox(b: Box, cw: boolean): Box {
  return cw ? [b[1], 1 - b[2], b[3], 1 - b[0]] : [1 - b[3], b[0], 1 - b[1], b[2]];
}
