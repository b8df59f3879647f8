// Hand-built text lines with word boxes, as a PDF text layer or an OCR engine gives them, for the text rules' tests
// (invoice-layout, invoice-labels, invoice-generalise, id-front).
import type { Box, TextLine } from '../../../server/src/providers/local/types.ts';

/** Width of one character, as a share of the page width. */
const CHAR = 0.009;

/**
 * A page of rows; each row is a list of cells placed at an x (0..1): `[[0.05, 'Seller'], [0.55, 'Buyer']]`. Words get
 * boxes from their position, so columns line up across rows as on a printed page.
 */
export function page(rows: Array<Array<[number, string]>>, opts: { top?: number; step?: number; confidence?: number } = {}): TextLine[] {
  const top = opts.top ?? 0.05;
  const step = opts.step ?? 0.025;
  return rows.map((cells, i) => {
    const y0 = top + i * step;
    const words: NonNullable<TextLine['words']> = [];
    for (const [x0, text] of cells) {
      let x = x0;
      for (const w of text.split(' ').filter(Boolean)) {
        words.push({ text: w, bbox: [x, y0, x + CHAR * w.length, y0 + 0.014], confidence: opts.confidence ?? 1 });
        x += CHAR * (w.length + 1);
      }
    }
    return {
      page: 1,
      text: words.map((w) => w.text).join(' '),
      bbox: [Math.min(...words.map((w) => w.bbox[0])), y0, Math.max(...words.map((w) => w.bbox[2])), y0 + 0.014],
      words,
      confidence: opts.confidence ?? 1,
    };
  });
}

/** One cell per row, at the left margin. */
export const left = (rows: string[], opts?: Parameters<typeof page>[1]) => page(rows.map((r) => [[0.05, r]]), opts);

/** An ID card's line of words laid out left to right at height y (boxes proportional to the text, 0.03 high). */
export function line(y: number, ...cells: Array<[number, string]>): TextLine {
  const words = cells.flatMap(([x, text]) => {
    let at = x;
    return text.split(' ').map((w) => {
      const bbox: Box = [at, y, at + w.length * 0.012, y + 0.03];
      at += w.length * 0.012 + 0.01;
      return { text: w, bbox, confidence: 0.9 };
    });
  });
  return { page: 1, text: words.map((w) => w.text).join(' '), bbox: [words[0].bbox[0], y, words.at(-1)!.bbox[2], y + 0.03], confidence: 0.9, words };
}
