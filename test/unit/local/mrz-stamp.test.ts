/**
 * A coloured stamp over the zone (a specimen's red SPECIMEN stamp across the name, a visa's entry stamp in blue or
 * violet over the numbers): the zone is printed in black, the stamp's ink multiplies over it, and in the grey image
 * the stamp's strokes are as dark as glyph strokes. The best reading's unsure cells are read again from the ink-only
 * copy (mrz/index.ts inkOnly: the brightest channel lightened by the colour), where the stamp is white and the glyphs
 * stay black. Rendered at test time (support-mrz.ts renderIdCard), the stamp composited with sharp (multiply).
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { loadPage, renderIdCard } from './support-mrz.ts';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

/** The card with a stamp's oval outline and a stroke across the first line's surname, in the given colour. */
async function stamped(colour: string, width: number): Promise<Buffer> {
  const card = await renderIdCard({ lines: TD3, margin: 0.1 });
  const clean = await readMrz(await loadPage(card));
  const { width: W, height: H } = await sharp(card).metadata();
  const [x0, y0, x1, y1] = clean!.lineBoxes[0];
  const lx = x0 * W!;
  const ly = y0 * H!;
  const lw = (x1 - x0) * W!;
  const lh = (y1 - y0) * H!;
  const svg =
    `<svg width="${W}" height="${H}"><ellipse cx="${lx + lw * 0.2}" cy="${ly + lh * 1.6}" rx="${lw * 0.1}" ry="${lh * 1.4}" fill="none" stroke="${colour}" stroke-width="${width}"/>` +
    `<path d="M ${lx + lw * 0.1} ${ly + lh * 0.5} L ${lx + lw * 0.3} ${ly + lh * 0.6}" stroke="${colour}" stroke-width="${width}"/></svg>`;
  return sharp(card).composite([{ input: Buffer.from(svg), blend: 'multiply' }]).png().toBuffer();
}

describe('MRZ under a coloured stamp', () => {
  it('reads a name under a red stamp from the ink-only copy', async () => {
    const r = await readMrz(await loadPage(await stamped('rgb(210,40,50)', 3)));
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  });

  it('reads the numbers under a blue stamp: a genuine zone is not made to fail its checks', async () => {
    const r = await readMrz(await loadPage(await stamped('rgb(40,60,200)', 4)));
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  });

  it('reads a grey capture of the same stamp as before (no colour to remove: the copy is not made)', async () => {
    const grey = await sharp(await stamped('rgb(210,40,50)', 3)).greyscale().toColourspace('srgb').png().toBuffer();
    const r = await readMrz(await loadPage(grey));
    // the stamp stays on the glyphs: whatever is read, a letter it hides is not sure
    expect(r?.lines[1]).toEqual(TD3[1]);
    const wrong = r!.lines[0].split('').flatMap((c, i) => (c !== TD3[0][i] ? [r!.charConfidence[0][i]] : []));
    expect(Math.max(0, ...wrong)).toBeLessThan(0.9);
  });
});
