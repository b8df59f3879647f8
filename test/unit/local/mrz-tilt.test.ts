/**
 * Phone photos taken at an angle (issue #28, the study of public captures): a zone tilted up to 25 degrees is found
 * (locate.ts) and read, and a weak band of background ink above a zone does not swallow the zone's first line
 * (lines.ts findBands: bands measured strongest first). Images are rendered or built at test time.
 */
import { describe, expect, it } from 'vitest';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { findBands } from '../../../server/src/providers/local/mrz/lines.ts';
import { loadPage, renderIdCard } from './support-mrz.ts';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

describe('a zone photographed at an angle', () => {
  it('reads a card tilted 20 degrees (the locator used to drop line blobs past 15)', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, margin: 0.15, angle: 20, background: 170 })));
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  }, 30_000);

  it('and tilted the other way', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, margin: 0.15, angle: -22, background: 170 })));
    expect(r?.lines).toEqual(TD3);
  }, 30_000);
});

describe('text bands of a strip', () => {
  it('a weak band of background ink above the zone does not take the first line\'s rows', () => {
    // the ink of a strip 900 x 160: two text lines (rows 72-93 and 120-145, glyph columns from x 300 to 860); left of
    // them a texture (x 0-217, rows 12-86, thinner from row 45: a table's grain beside a tilted document), a word above
    // (rows 0-20) and faint print (rows 21-52). The band the texture and the word make, refined on the texture's
    // columns, reaches row 84: measured first (it comes first from the top), it used to take the first line's rows.
    const w = 900;
    const h = 160;
    const ink = new Float32Array(w * h);
    const set = (x: number, y: number) => (ink[y * w + x] = 30);
    for (const [t, b] of [[72, 93], [120, 145]]) for (let y = t; y <= b; y++) for (let x = 300; x < 860; x++) if (x % 14 < 9) set(x, y);
    for (let y = 12; y <= 86; y++) for (let x = 0; x < 218; x++) if ((x * 37 + y * 11) % 100 < (y < 45 ? 26 : 13)) set(x, y);
    for (let y = 0; y <= 20; y++) for (let x = 430; x < 553; x++) if ((x * 13 + y * 7) % 100 < 49) set(x, y);
    for (let y = 21; y <= 52; y++) for (let x = 600; x < 700; x++) if ((x * 13 + y * 7) % 100 < 24) set(x, y);
    const lines = findBands(ink, w, h).filter((b) => b.left >= 250);
    expect(lines.map((b) => [b.top, b.bottom])).toEqual([
      [72, 93],
      [120, 145],
    ]);
  });
});
