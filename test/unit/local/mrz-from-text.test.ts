/**
 * The MRZ fallback of issue #28 (mrz/from-text.ts, readMrzFromText): on a page where the locator found no zone, the
 * MRZ-like lines page OCR found are read as zone candidates by the dedicated reader. Here the lines' boxes are given
 * as an OCR would give them (text and box), on rendered cards; a zone is taken only when all its check digits pass.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shrinkPage } from '../../../server/src/providers/local/image.ts';
import { ocrPage, terminateOcr } from '../../../server/src/providers/local/ocr.ts';
import { mrzLike, mrzPart, mrzText, zonesFromText } from '../../../server/src/providers/local/mrz/from-text.ts';
import { readMrz, readMrzFromText } from '../../../server/src/providers/local/mrz/index.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { loadPage, mapRgb, renderIdCard } from './support-mrz.ts';

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
// the same zone with the birth date's check digit wrong (2 -> 3): a zone whose checks fail
const TD3_BAD = [TD3[0], 'L898902C36UTO7408123F1204159ZE184226B<<<<<10'];

/** The zone's lines as page OCR gives them: its (imperfect) text and an axis-aligned box around each line. */
async function ocrLikeLines(lines: string[]): Promise<{ page: Awaited<ReturnType<typeof loadPage>>; text: TextLine[] }> {
  const page = await loadPage(await renderIdCard({ lines, margin: 0.1 }));
  const found = await readMrz(page);
  expect(found).not.toBeNull();
  const text: TextLine[] = found!.lineBoxes.map((bbox, i) => ({ page: 1, text: lines[i].replace(/<<</g, '« <'), bbox, confidence: 0.8 }));
  // a printed line of the face above the zone: not MRZ-like, not a candidate
  text.unshift({ page: 1, text: 'Nom / Surname ERIKSSON', bbox: [0.3, 0.25, 0.6, 0.29], confidence: 0.9 });
  return { page, text };
}

describe('MRZ through page text (issue #28 fallback)', () => {
  afterAll(() => terminateOcr());

  it('picks the MRZ-like lines of a page text and stacks them into one zone', () => {
    expect(mrzText('P<UTO ERIKSSON«ANNA(MARIA« «')).toBe('P<UTOERIKSSON<ANNA<MARIA<<');
    const lines: TextLine[] = [
      { page: 1, text: 'REPUBLIQUE FRANCAISE CARTE NATIONALE', bbox: [0.1, 0.05, 0.9, 0.09], confidence: 0.9 },
      { page: 1, text: TD3[0], bbox: [0.05, 0.8, 0.95, 0.84], confidence: 0.8 },
      { page: 1, text: TD3[1], bbox: [0.05, 0.87, 0.95, 0.91], confidence: 0.8 },
    ];
    expect(lines.map((l) => mrzLike(l, 1000, 1000))).toEqual([false, true, true]);
    const zones = zonesFromText(lines, 1000, 1000);
    expect(zones).toHaveLength(1);
    expect(zones[0].lines).toHaveLength(2);
  });

  it('cuts a zone line out of a box it shares with the text beside it, and tries a tilted box both ways', () => {
    // 10 characters of page text, then the 26 of the zone's first line: the part starts 11/36 into the box
    const glued: TextLine = { page: 1, text: 'A210 CTpaH PCAZEARGEDAS<<CEYLA<<<<<<', bbox: [0, 0.69, 0.6, 0.74], confidence: 0.8 };
    const part = mrzPart(glued, 1000, 1000);
    expect(part?.text).toBe('PCAZEARGEDAS<<CEYLA<<<<<<');
    expect(part?.bbox[0]).toBeCloseTo((0.6 * 11) / 36, 5);
    // a short word alone never starts a zone line; a lone date line is no MRZ
    expect(mrzPart({ ...glued, text: 'NOM DUPONT PRENOM JEAN' }, 1000, 1000)).toBeNull();
    const second: TextLine = { page: 1, text: 'C051777748AZE7611175F2201133S2SSBW3<<<<<<<26', bbox: [0.18, 0.73, 0.98, 0.8], confidence: 0.8 };
    const zones = zonesFromText([glued, second], 1000, 1000);
    // one stacked zone, straight and at the tilt its tall boxes imply, both signs
    expect(zones).toHaveLength(3);
    expect(zones.every((z) => z.lines.length === 2)).toBe(true);
    expect(zones[1].lines[0].uy).toBeCloseTo(-zones[2].lines[0].uy, 6);
    expect(zones[1].lines[0].uy).toBeGreaterThan(0.02);
  });

  it('reads the zone exactly from the boxes of page OCR lines', async () => {
    const { page, text } = await ocrLikeLines(TD3);
    const r = await readMrzFromText(page, text);
    expect(r?.lines).toEqual(TD3);
    expect(r?.valid).toBe(true);
  }, 30_000);

  it('never reports a zone whose check digits fail (no sure reading of a failing zone)', async () => {
    const { page, text } = await ocrLikeLines(TD3_BAD);
    // the locator's own path reports it, not valid (the checks then judge it); the fallback does not report it at all
    expect((await readMrz(page))?.valid).toBe(false);
    expect(await readMrzFromText(page, text)).toBeNull();
  }, 30_000);

  it('finds nothing in a page text without MRZ-like lines', async () => {
    const { page } = await ocrLikeLines(TD3);
    const text: TextLine[] = [{ page: 1, text: 'TOTAL 12.40 EUR', bbox: [0.1, 0.5, 0.5, 0.55], confidence: 0.9 }];
    expect(await readMrzFromText(page, text)).toBeNull();
  }, 30_000);

  it('reads, through tesseract lines, the zone of an ultraviolet-like capture the locator misses (tune file)', async () => {
    // a tune file of the dev set (never validate) made ultraviolet-like as bench/mrz-study.ts makes it: dark violet,
    // print and paper a few dozen levels apart, noise
    const dev = path.resolve('../shared/testdata/documents-dev');
    const file = 'mrz/os2datascanner__Erika_Mustermann.jpeg';
    const truth = (JSON.parse(readFileSync(path.join(dev, 'ground-truth.json'), 'utf8')) as Array<{ path: string; split: string; expected: { mrz_lines: string[] } }>).find((d) => d.path.endsWith(file))!;
    expect(truth.split).toBe('tune');
    const uv = await mapRgb(readFileSync(path.join(dev, file)), (r, g, b) => {
      const v = (0.299 * r + 0.587 * g + 0.114 * b) / 255;
      return [25 + 55 * v, 10 + 30 * v, 60 + 120 * v];
    }, 10);
    const page = await loadPage(uv);
    expect(await readMrz(page)).toBeNull();
    const lines = await ocrPage(await shrinkPage(page, 2400), { engine: 'tesseract', timeoutMs: 120_000 });
    const r = await readMrzFromText(page, lines);
    expect(r?.lines).toEqual(truth.expected.mrz_lines);
    expect(r?.valid).toBe(true);
  }, 180_000);
});
