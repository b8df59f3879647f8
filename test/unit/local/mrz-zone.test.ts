/**
 * Zone finding and line cutting on rendered cards (support-mrz.ts renderIdCard, made at test time): a microtext rule
 * printed between the lines (German and Danish passports) does not hide the zone, and a stray glyph beside a line
 * does not shift its grid by a cell (the lines of a zone share one grid), a negative (light print on dark, as some
 * infrared and ultraviolet captures come) and a faded scan are read; so are an ultraviolet-like capture (dark violet,
 * print and paper ~50 grey levels apart, noisy) and a worn noisy scan (image.ts cleanedCopy: the copy searched when
 * the first search finds nothing); and a card's zone beside another card in one image, whose lines the first pass saw
 * merged (read at the double-resolution pass); a small zone printed sideways under a specimen's outlined word, whose
 * lines and the word's strokes the locator sees as one blob (read from a strip scaled to one line, strictly).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { cleanedCopy, greyFrom } from '../../../server/src/providers/local/mrz/image.ts';
import { bandSets, zoneStrip } from '../../../server/src/providers/local/mrz/lines.ts';
import { locateZones } from '../../../server/src/providers/local/mrz/locate.ts';
import { loadPage, renderIdCard, renderSidewaysZonePage } from './support-mrz.ts';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

describe('MRZ zone finding on rendered cards', () => {
  it('reads a zone whose lines are printed three and a half cap heights apart (a rendered data page)', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, lineGap: 2.6, margin: 0.1, photo: false })));
    expect(r?.lines).toEqual(TD3);
  });

  it('reads a zone with a microtext rule between its lines', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, microtext: true, margin: 0.1 })));
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  }, 20_000);

  it('keeps the lines on one grid when a stray glyph sits before the first line', async () => {
    const r = await readMrz(await loadPage(await renderIdCard({ lines: TD3, markBeforeFirstLine: true, margin: 0.1 })));
    expect(r?.lines).toEqual(TD3);
  }, 20_000);

  it('keeps a TD1 name line on the zone\'s grid when a stray glyph before it would start it a cell early (its checks pass either way)', async () => {
    const td1 = ['IDD<<T220001293<<<<<<<<<<<<<<<', '6408125<2010315D<<<<<<<<<<<<<4', 'MUSTERMANN<<ERIKA<<<<<<<<<<<<<'];
    const r = await readMrz(await loadPage(await renderIdCard({ lines: td1, markBeforeLastLine: true, margin: 0.1, photo: false })));
    expect(r?.lines).toEqual(td1);
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

describe('a worn zone beside dark print', () => {
  it('finds a zone much paler than the page\'s other ink (the faint search), and reads it', async () => {
    // the zone washed out to about 45 grey levels on its paper while the photo box and the title stay dark: Otsu's
    // threshold follows the dark print and the first search sees no zone
    const card = await renderIdCard({ lines: TD3 });
    const { width: W, height: H } = await sharp(card).metadata();
    const veil = `<svg width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg"><rect x="0" y="${0.6 * H!}" width="${W}" height="${0.4 * H!}" fill="rgb(236,232,240)" fill-opacity="0.8"/></svg>`;
    const washed = await sharp(await sharp(card).composite([{ input: Buffer.from(veil) }]).png().toBuffer())
      .extend({ top: 60, bottom: 60, left: 60, right: 60, background: { r: 60, g: 60, b: 64 } })
      .jpeg({ quality: 85 })
      .toBuffer();
    const page = await loadPage(washed);
    const img = greyFrom(page.grey, page.width, page.height);
    const lineOf = (z: { lines: Array<{ cy: number }> }) => z.lines.some((l) => l.cy > 0.6 * page.height);
    expect(locateZones(img).filter((z) => z.lines.length >= 2).some(lineOf)).toBe(false);
    expect(locateZones(img, undefined, true).some((z) => z.lines.length >= 2 && lineOf(z))).toBe(true);
    const r = await readMrz(page);
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  }, 30_000);
});

describe('a TD1 zone with one line lost', () => {
  it('measures the missing third line one line pitch from a TD1-long pair, on the pair cap and extent', async () => {
    // A watermark or a pattern across a line can cut its band short (German residence permit specimen): the two
    // lines found say where the third must be.
    const TD1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
    const page = await loadPage(await renderIdCard({ lines: TD1, margin: 0.1 }));
    const img = greyFrom(page.grey, page.width, page.height);
    let mean = 0;
    for (const v of img.d) mean += v;
    const zone = locateZones(img)[0];
    const strip = zoneStrip(img, zone, mean / img.d.length);
    const lines = bandSets(strip).find((s) => s.length === 3)!;
    expect(lines).toBeDefined();
    for (const lost of [0, 2]) {
      const kept = lines.filter((_, i) => i !== lost);
      const sets = bandSets({ ...strip, bands: kept });
      const three = sets.find((s) => s.length === 3 && !kept.includes(s[lost]));
      expect(three, `line ${lost} lost`).toBeDefined();
      const made = three![lost];
      const cap = lines[lost].bottom - lines[lost].top + 1;
      expect(Math.abs(made.cy - lines[lost].cy)).toBeLessThan(0.3 * cap);
      expect([made.left, made.right]).toEqual([Math.min(kept[0].left, kept[1].left), Math.max(kept[0].right, kept[1].right)]);
      // tried before the pair alone
      expect(sets.indexOf(three!)).toBeLessThan(sets.findIndex((s) => s.length === 2));
    }
    // a TD3 pair (44 characters) is not given a third line
    const td3 = await loadPage(await renderIdCard({ lines: TD3, margin: 0.1 }));
    const g3 = greyFrom(td3.grey, td3.width, td3.height);
    const s3 = zoneStrip(g3, locateZones(g3)[0], 200);
    expect(bandSets(s3).every((s) => s.length === 2)).toBe(true);
  }, 30_000);
});

describe('a mark beside one line of the zone', () => {
  // MRV-B (2 x 36), as visa vignettes print it
  const MRVB = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'];

  it('reads the zone when a stamp just before the second line joins its extent (its left end then sits two cells out)', async () => {
    const card = await renderIdCard({ lines: MRVB, margin: 0.1 });
    const clean = await readMrz(await loadPage(card));
    expect(clean?.lines).toEqual(MRVB);
    // a stamp's strokes (thin bars a third of a cell apart) from 2.5 cells before the second line to half a cell
    // before it: the band's extent joins them, its left end then lies about 2.3 cap heights left of the first line's
    const { width: W, height: H } = await sharp(card).metadata();
    const [x0, y0, x1, y1] = clean!.lineBoxes[1];
    const cell = ((x1 - x0) * W!) / 36;
    const left = x0 * W! - 2.5 * cell;
    const bars = Array.from({ length: 6 }, (_, k) => `<rect x="${left + (k * cell) / 3}" y="${y0 * H! + 0.2 * (y1 - y0) * H!}" width="${0.12 * cell}" height="${0.6 * (y1 - y0) * H!}" fill="rgb(40,40,40)"/>`).join('');
    const mark = `<svg width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">${bars}</svg>`;
    const marked = await sharp(card).composite([{ input: Buffer.from(mark) }]).png().toBuffer();
    const page = await loadPage(marked);
    const img = greyFrom(page.grey, page.width, page.height);
    const zone = locateZones(img)[0];
    let mean = 0;
    for (const v of img.d) mean += v;
    const strip = zoneStrip(img, zone, mean / img.d.length);
    const lines = strip.bands.filter((b) => b.right - b.left > 20 * (b.bottom - b.top + 1));
    // what the rule covers: the two lines' left ends differ by more than 1.5 cap heights (the pair used to be refused)
    expect(lines).toHaveLength(2);
    expect(Math.abs(lines[0].left - lines[1].left)).toBeGreaterThan(1.5 * (lines[0].bottom - lines[0].top + 1));
    expect(bandSets(strip).length).toBeGreaterThan(0);
    const r = await readMrz(page);
    expect(r?.lines).toEqual(MRVB);
    expect(r?.valid).toBe(true);
  }, 30_000);
});

/** A deterministic noisy per-pixel map of an image (the same bytes on every run). */
async function remap(png: Buffer, f: (v: number) => [number, number, number], noise: number): Promise<Buffer> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let seed = 7;
  const rnd = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32 - 0.5) * 2 * noise;
  const out = Buffer.alloc(info.width * info.height * 3);
  for (let i = 0; i < info.width * info.height; i++) {
    const v = (0.299 * data[3 * i] + 0.587 * data[3 * i + 1] + 0.114 * data[3 * i + 2]) / 255;
    const n = rnd();
    f(v).forEach((c, k) => (out[3 * i + k] = Math.max(0, Math.min(255, Math.round(c + n)))));
  }
  return sharp(out, { raw: { width: info.width, height: info.height, channels: 3 } }).png().toBuffer();
}

describe('captures read through the cleaned copy (image.ts cleanedCopy)', () => {
  it('an ultraviolet-like capture (dark violet, print and paper ~50 grey levels apart, noisy): the copy is the brightest channel, and the zone is read', async () => {
    const card = await renderIdCard({ lines: TD3, width: 800, margin: 0.1, angle: 2 });
    const page = await loadPage(await remap(card, (v) => [25 + 55 * v, 10 + 30 * v, 60 + 120 * v], 14));
    const grey = greyFrom(page.grey, page.width, page.height);
    const clean = cleanedCopy(grey, page.rgb);
    expect(clean).not.toBeNull();
    const mean = (d: Float32Array) => d.reduce((t, v) => t + v, 0) / d.length;
    // the violet ground is dark in grey (~60), light in the copy (blue channel, stretched)
    expect(mean(grey.d)).toBeLessThan(80);
    expect(mean(clean!.d)).toBeGreaterThan(mean(grey.d) + 80);
    const r = await readMrz(page);
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  }, 30_000);

  it('a worn scan (soft, paper and print ~64 levels apart, noisy) is read', async () => {
    const card = await renderIdCard({ lines: TD3, width: 800, margin: 0.1 });
    const worn = await sharp(await remap(card, (v) => [150 + 64 * v, 150 + 64 * v, 142 + 64 * v], 14)).blur(1.1).png().toBuffer();
    const page = await loadPage(worn);
    expect(cleanedCopy(greyFrom(page.grey, page.width, page.height), page.rgb)).not.toBeNull();
    const r = await readMrz(page);
    expect(r?.lines).toEqual(TD3);
  }, 30_000);

  it('a clean grey photo gets no copy (nothing to search twice)', async () => {
    const page = await loadPage(await renderIdCard({ lines: TD3, margin: 0.1 }));
    const { data } = await sharp(page.grey, { raw: { width: page.width, height: page.height, channels: 1 } }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    expect(cleanedCopy(greyFrom(page.grey, page.width, page.height), data)).toBeNull();
  }, 30_000);
});

describe('a card beside another card in one image (both sides photographed together)', () => {
  const DEV = path.resolve(import.meta.dirname, '../../../../shared/testdata/documents-dev');
  const TRUTH = JSON.parse(fs.readFileSync(path.join(DEV, 'ground-truth.json'), 'utf8')) as Array<{ path: string; split: string; expected: { mrz_lines?: string[] } }>;
  it('finds the zone at the double-resolution pass when the first saw its three lines as one (Lithuanian ID beside a US licence)', async () => {
    const [card, other] = ['mrz/Arg0s1080-mrz__id_cards__Lithuania.png', 'id-fronts/zerox__0023.png'].map((p) => {
      expect(TRUTH.find((t) => t.path === p)?.split).toBe('tune');
      return fs.readFileSync(path.join(DEV, p));
    });
    const { width: w, height: h } = await sharp(card).metadata();
    const front = await sharp(other).resize({ height: h, width: Math.round(h! * 1.58), fit: 'fill' }).removeAlpha().png().toBuffer();
    const fw = Math.round(h! * 1.58);
    const both = await sharp({ create: { width: w! + fw + 40, height: h!, channels: 3, background: '#f4f4f4' } })
      .composite([{ input: front, left: 0, top: 0 }, { input: await sharp(card).removeAlpha().png().toBuffer(), left: fw + 40, top: 0 }])
      .png()
      .toBuffer();
    const r = await readMrz(await loadPage(both));
    expect(r?.lines).toEqual(TRUTH.find((t) => t.path === 'mrz/Arg0s1080-mrz__id_cards__Lithuania.png')!.expected.mrz_lines);
    expect(r?.valid).toBe(true);
  }, 30_000);
});

describe('a zone whose lines the locator sees merged into one blob with a watermark (a substitute card printed sideways)', () => {
  const TD2 = ['IXD<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<', 'Q<00000002D<<6408125<2010175<<<<<<<0'];

  it('reads the zone from a strip scaled to one of its lines', async () => {
    const r = await readMrz(await loadPage(await renderSidewaysZonePage(TD2, { pitch: 13, stroke: { alpha: 0.5, width: 1.5 } })));
    expect(r?.lines).toEqual(TD2);
    expect(r?.valid).toBe(true);
  }, 30_000);

  it('a heavier stroke across the number: no zone rather than one passed on a misread number', async () => {
    // the stroke through two 0s of the number reads them 6 and Q 0: "0<0000600" passes the same check digit
    const r = await readMrz(await loadPage(await renderSidewaysZonePage(TD2, { pitch: 13, stroke: { alpha: 0.8, width: 2 } })));
    if (r?.valid) expect(r.lines).toEqual(TD2);
  }, 30_000);
});
