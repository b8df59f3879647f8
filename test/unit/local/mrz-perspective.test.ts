/**
 * A card photographed at an angle (issue #28): its zone's glyphs grow from the far end to the near one, and a flat
 * grid of 44 cells drifts off them by half a cell or more in the middle. When the flat grid reads nothing, a grid with
 * perspective (features.ts cellAt, a projective map; lines.ts fitGrid's chirps) is fitted and read; only a reading
 * whose check digits all pass is taken from it. Cards are rendered and warped at test time.
 */
import { describe, expect, it } from 'vitest';
import { cellAt, type LineGeom } from '../../../server/src/providers/local/mrz/features.ts';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { flipGeom } from '../../../server/src/providers/local/mrz/lines.ts';
import { CHECK_CHAR_CONFIDENCE } from '../../../server/src/validators/confidence.ts';
import { angled, loadPage, renderIdCard } from './support-mrz.ts';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

describe('a grid with perspective', () => {
  const g: LineGeom = { ox: 100, oy: 50, ux: 1, uy: 0, vx: 0, vy: 1, pitch: 20, cap: 24, n: 44, chirp: 0.1 };

  it('keeps the line\'s ends and grows the cells from one end to the other, as a camera sees a receding plane', () => {
    // chirp 0.1: the ends' pitches are in the ratio a = 1.1 / 0.9 each way of the mean, squared between the ends;
    // the glyphs' height goes as the square root of the pitch (foreshortening acts along the line, not across it)
    const a = 1.1 / 0.9;
    expect(cellAt(g, 0).t).toBe(0);
    expect(cellAt(g, 0).along).toBeCloseTo(1 / a, 9);
    expect(cellAt(g, 0).scale).toBeCloseTo(1 / Math.sqrt(a), 9);
    expect(cellAt(g, 44).t).toBeCloseTo(880, 9);
    expect(cellAt(g, 44).along).toBeCloseTo(a, 9);
    expect(cellAt(g, 44).scale).toBeCloseTo(Math.sqrt(a), 9);
    // the local pitch is the derivative of the position
    const e = 1e-4;
    expect((cellAt(g, 20 + e).t - cellAt(g, 20 - e).t) / (2 * e * g.pitch)).toBeCloseTo(cellAt(g, 20).along, 6);
    expect(cellAt({ ...g, chirp: 0 }, 10.5)).toEqual({ t: 210, scale: 1, along: 1 });
    // the cells' widths grow steadily
    const widths = Array.from({ length: 44 }, (_, k) => cellAt(g, k + 1).t - cellAt(g, k).t);
    for (let k = 1; k < 44; k++) expect(widths[k]).toBeGreaterThan(widths[k - 1]);
  });

  it('read from the other end (flipGeom) puts every cell where it was, the scale with it', () => {
    const f = flipGeom(g);
    for (let k = 0; k < 44; k++) {
      const a = cellAt(g, k + 0.5);
      const b = cellAt(f, 44 - k - 0.5);
      expect(f.ox + b.t * f.ux).toBeCloseTo(g.ox + a.t * g.ux, 9);
      expect(b.scale).toBeCloseTo(a.scale, 9);
      expect(b.along).toBeCloseTo(a.along, 9);
    }
  });
});

describe('a card photographed at an angle', () => {
  it('is read when its far side is 80 % of the near side (a flat grid read nothing)', async () => {
    const card = await renderIdCard({ lines: TD3, margin: 0.05, background: 150 });
    for (const flip of [false, true]) {
      const r = await readMrz(await loadPage(await angled(card, 0.8, flip)));
      const side = flip ? 'far side left' : 'far side right';
      // every character a check digit covers, exactly
      expect(r?.lines[1], side).toBe(TD3[1]);
      expect(r?.valid, side).toBe(true);
      // the names (no check digit covers them): a letter misread is one the reader says it is unsure of
      const misread = [...TD3[0]].flatMap((ch, k) => (r!.lines[0][k] === ch ? [] : [r!.charConfidence![0][k]]));
      for (const c of misread) expect(c, side).toBeLessThan(CHECK_CHAR_CONFIDENCE);
      expect(misread.length, side).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it('far side 70 % of the near side and on the left: read right where a check digit covers it, or not at all', async () => {
    // the flat grid misreads the document code first here; bent grids are tried anyway (zoneLike), and a bent reading
    // that needed more than BENT_MAX_CHANGED characters changed is not taken (never a wrong number passed as valid)
    const r = await readMrz(await loadPage(await angled(await renderIdCard({ lines: TD3, margin: 0.05, background: 150 }), 0.7, true)));
    if (r?.valid) expect(r.lines[1]).toBe(TD3[1]);
  }, 60_000);

  it('a zone with a wrong check digit, read only with perspective, is not taken (no zone: a review, never an invalid from a misreading)', async () => {
    const forged = [TD3[0], TD3[1].slice(0, 9) + '7' + TD3[1].slice(10)];
    const r = await readMrz(await loadPage(await angled(await renderIdCard({ lines: forged, margin: 0.05, background: 150 }), 0.8, false)));
    expect(r).toBeNull();
  }, 60_000);
});
