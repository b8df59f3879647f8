/**
 * A page turned a quarter (a receipt photographed sideways is read upright, #28): pixels move as a quarter turn
 * moves them, and a box found on the turned page is turned back onto the original.
 */
import { describe, expect, it } from 'vitest';
import { rotatePage, unrotateBox } from '../../../server/src/providers/local/rotate.ts';
import type { Box, PageImage } from '../../../server/src/providers/local/types.ts';

function image(w: number, h: number, mark: [number, number]): PageImage {
  const grey = Buffer.alloc(w * h);
  const rgb = Buffer.alloc(w * h * 3);
  grey[mark[1] * w + mark[0]] = 255;
  rgb[(mark[1] * w + mark[0]) * 3] = 255;
  return { page: 1, width: w, height: h, grey, rgb, scale: 1 } as PageImage;
}
const find = (p: PageImage): [number, number] => {
  const i = p.grey.indexOf(255);
  return [i % p.width, Math.floor(i / p.width)];
};

describe('quarter turns of a page', () => {
  for (const cw of [true, false]) {
    it(`${cw ? 'clockwise' : 'counter-clockwise'}: the page's size swaps, the mark moves, its box turns back`, () => {
      const w = 40;
      const h = 20;
      const mark: [number, number] = [30, 5];
      const turned = rotatePage(image(w, h, mark), cw);
      expect([turned.width, turned.height]).toEqual([h, w]);
      const [tx, ty] = find(turned);
      expect(turned.rgb[(ty * turned.width + tx) * 3]).toBe(255);
      // Clockwise, the top-right of the page goes to the bottom-right; counter-clockwise to the top-left.
      expect([tx, ty]).toEqual(cw ? [h - 1 - mark[1], mark[0]] : [mark[1], w - 1 - mark[0]]);
      // The mark's pixel as a normalised box on the turned page, back on the original: the mark's pixel.
      const onTurned: Box = [tx / turned.width, ty / turned.height, (tx + 1) / turned.width, (ty + 1) / turned.height];
      const back = unrotateBox(onTurned, cw);
      expect(back[0]).toBeCloseTo(mark[0] / w, 6);
      expect(back[1]).toBeCloseTo(mark[1] / h, 6);
      expect(back[2]).toBeCloseTo((mark[0] + 1) / w, 6);
      expect(back[3]).toBeCloseTo((mark[1] + 1) / h, 6);
    });
  }
});
