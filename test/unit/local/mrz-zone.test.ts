/**
 * Zone finding and line cutting on rendered cards (support-mrz.ts renderIdCard, made at test time): a microtext rule
 * printed between the lines (German and Danish passports) does not hide the zone, and a stray glyph beside a line
 * does not shift its grid by a cell (the lines of a zone share one grid), a negative (light print on dark, as some
 * infrared and ultraviolet captures come) and a faded scan are read.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { loadPage, renderIdCard } from './support-mrz.ts';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

describe('MRZ zone finding on rendered cards', () => {
  it('reads a zone with a microtext rule between its lines', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, microtext: true, margin: 0.1 })));
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  }, 20_000);

  it('keeps the lines on one grid when a stray glyph sits before the first line', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, markBeforeFirstLine: true, margin: 0.1 })));
    expect(r?.lines).toEqual(TD3);
  }, 20_000);

  it('both at once, tilted and compressed', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, microtext: true, markBeforeFirstLine: true, margin: 0.1, angle: 2, jpegQuality: 80 })));
    expect(r?.lines).toEqual(TD3);
  }, 20_000);

  it('reads a negative (light print on a dark ground)', async () => {
    const card = await renderIdCard({ lines: TD3, margin: 0.15, angle: 2 });
    const r = await readMrz(await loadPage(await sharp(card).negate({ alpha: false }).png().toBuffer()));
    expect(r?.lines).toEqual(TD3);
  }, 30_000);

  it('reads a faded scan (print and paper 15 grey levels apart)', async () => {
    const card = await renderIdCard({ lines: TD3, margin: 0.15, angle: 2 });
    const r = await readMrz(await loadPage(await sharp(card).linear(0.06, 190).png().toBuffer()));
    expect(r?.lines).toEqual(TD3);
  }, 30_000);
});
