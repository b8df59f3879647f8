import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { model } from '../../../server/src/providers/local/mrz/classify.ts';
import { decode } from '../../../server/src/providers/local/mrz/decode.ts';
import { ALPHABET } from '../../../server/src/providers/local/mrz/features.ts';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { parseMrz } from '../../../server/src/validators/mrz.ts';
import { loadPage, probsFor } from './support-mrz.ts';

const DOCS = path.resolve('../shared/testdata/documents');
const truth = JSON.parse(readFileSync(path.resolve('bench/data/mrz-truth.json'), 'utf8')) as Array<{ file: string; format: string; lines: string[]; checks_valid: boolean }>;
const spec = (name: string) => {
  const t = truth.find((x) => x.file.endsWith('/' + name));
  if (!t) throw new Error(`no truth for ${name}`);
  return { ...t, path: path.join(DOCS, t.file) };
};

describe('readMrz on specimen images', () => {
  for (const name of ['passport-td3.png', 'passport-td2.jpg', '53_id-d.jpg', '100_visa-polx.jpg', '100_visa-usa.jpg', '27_pass-gbr.jpg']) {
    it(`reads ${name} exactly`, async () => {
      const t = spec(name);
      const r = await readMrz(await loadPage(t.path));
      expect(r).not.toBeNull();
      expect(r!.format).toBe(t.format);
      expect(r!.lines).toEqual(t.lines);
      expect(r!.valid).toBe(parseMrz(t.lines).valid);
      expect(r!.charConfidence.map((l) => l.length)).toEqual(t.lines.map((l) => l.length));
      expect(r!.charConfidence.flat().every((c) => c >= 0 && c <= 1)).toBe(true);
      expect(r!.lineBoxes).toHaveLength(t.lines.length);
      // lines stacked top to bottom inside the zone box, all normalised
      const [x0, y0, x1, y1] = r!.bbox;
      expect(0 <= x0 && x0 < x1 && x1 <= 1 && 0 <= y0 && y0 < y1 && y1 <= 1).toBe(true);
      for (let i = 1; i < r!.lineBoxes.length; i++) expect(r!.lineBoxes[i][1]).toBeGreaterThan(r!.lineBoxes[i - 1][1]);
      expect(Math.abs(r!.rotation)).toBeLessThan(3);
      expect(r!.otherZones).toBe(0);
    });
  }

  it('keeps a specimen printed with a failing check digit invalid (77_card-cmw)', async () => {
    const t = spec('77_card-cmw.png');
    const r = await readMrz(await loadPage(t.path));
    expect(r).not.toBeNull();
    expect(r!.format).toBe('TD1');
    // not OCR-B, and a name line of short fillers: read after re-measuring the band on the letters
    expect(r!.lines).toEqual(t.lines);
    expect(t.checks_valid).toBe(false);
    expect(r!.valid).toBe(false);
  });

  it('reads an image rotated by 90 degrees and says how it turned it', async () => {
    const t = spec('53_id-d.jpg');
    const r = await readMrz(await loadPage(t.path, 90));
    expect(r?.lines).toEqual(t.lines);
    // the image was turned 90 clockwise, so the reader turned it 270 clockwise to read it
    expect(Math.abs(r!.rotation - 270)).toBeLessThan(3);
    // the zone is now a tall box on the left of the image
    expect(r!.bbox[2] - r!.bbox[0]).toBeLessThan(r!.bbox[3] - r!.bbox[1]);
    expect(r!.bbox[2]).toBeLessThan(0.5);
  });

  it('reads an upside-down image', async () => {
    const t = spec('100_pass-cze.jpg');
    const r = await readMrz(await loadPage(t.path, 180));
    expect(r?.lines).toEqual(t.lines);
    expect(Math.abs(r!.rotation - 180)).toBeLessThan(3);
    expect(r!.bbox[3]).toBeLessThan(0.5); // the zone is at the top now
  });

  it('deskews a photo taken at an angle (100_pass-lux, about 5.5 degrees)', async () => {
    const t = spec('100_pass-lux.jpg');
    const r = await readMrz(await loadPage(t.path));
    expect(r?.lines).toEqual(t.lines);
    expect(Math.abs(Math.abs(r!.rotation) - 5.5)).toBeLessThan(1.5);
  });

  it('flags a zone cut by the image edge', async () => {
    const t = spec('passport-td3.png');
    const meta = await sharp(t.path).metadata();
    // crop away the right end of the MRZ lines (the last characters, then a quarter of the line)
    const cutAt = async (frac: number) => readMrz(await loadPage(await sharp(t.path).extract({ left: 0, top: 0, width: Math.round(meta.width! * frac), height: meta.height! }).png().toBuffer()));
    const slightly = await cutAt(0.85);
    expect(slightly).not.toBeNull();
    expect(slightly!.touchesEdge).toBe(true);
    expect(slightly!.lines).not.toEqual(t.lines);
    const badly = await cutAt(0.75);
    if (badly) expect(badly.touchesEdge).toBe(true);
    const whole = await readMrz(await loadPage(t.path));
    expect(whole?.touchesEdge).toBe(false);
  });

  it('counts a second MRZ on the same image', async () => {
    const a = spec('passport-td3.png');
    const b = spec('passport-td2.png');
    const [ma, mb] = await Promise.all([sharp(a.path).metadata(), sharp(b.path).metadata()]);
    const w = Math.max(ma.width!, mb.width!);
    const both = await sharp({ create: { width: w, height: ma.height! + mb.height!, channels: 3, background: '#ffffff' } })
      .composite([
        { input: a.path, left: 0, top: 0 },
        { input: b.path, left: 0, top: ma.height! },
      ])
      .png()
      .toBuffer();
    const r = await readMrz(await loadPage(both));
    expect(r).not.toBeNull();
    expect([a.lines, b.lines]).toContainEqual(r!.lines);
    expect(r!.otherZones).toBe(1);
  });

  it('returns null for images without an MRZ', async () => {
    const inv = path.join(DOCS, 'invoices/invoice2data');
    for (const f of ['FlipkartInvoice.png', 'SammyMaystoneLinesTest.png']) expect(await readMrz(await loadPage(path.join(inv, f)))).toBeNull();
    const blank = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#ffffff' } }).png().toBuffer();
    expect(await readMrz(await loadPage(blank))).toBeNull();
    const noise = Buffer.alloc(700 * 500 * 3);
    let s = 7;
    for (let i = 0; i < noise.length; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      noise[i] = s >>> 24;
    }
    expect(await readMrz(await loadPage(await sharp(noise, { raw: { width: 700, height: 500, channels: 3 } }).png().toBuffer()))).toBeNull();
  });

  it('loads the model once and gives the same answers to concurrent calls', async () => {
    expect(model()).toBe(model());
    const pages = await Promise.all(['passport-td2.jpg', '53_id-d.jpg'].map((n) => loadPage(spec(n).path)));
    const together = await Promise.all([...pages, ...pages].map((p) => readMrz(p)));
    expect(together[0]?.lines).toEqual(spec('passport-td2.jpg').lines);
    expect(together[1]?.lines).toEqual(spec('53_id-d.jpg').lines);
    expect(together[2]).toEqual(together[0]);
    expect(together[3]).toEqual(together[1]);
  });
});

describe('repair and gate (synthetic probabilities)', () => {
  const td3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

  it('reads a clean zone as printed, without repairs', () => {
    const d = decode('TD3', probsFor(td3));
    expect(d.lines).toEqual(td3);
    expect(d.valid).toBe(true);
    expect(d.repaired).toBe(0);
    expect(d.gate).toBe(true);
  });

  it('coerces a letter read in a date to its digit (position class)', () => {
    // birth date 740812: the 0 read as O
    const d = decode('TD3', probsFor(td3, { '1:15': { O: 0.7, '0': 0.25 } }));
    expect(d.lines).toEqual(td3);
    expect(d.valid).toBe(true);
    expect(d.repaired).toBe(1);
  });

  it('fixes a confusable digit in a date with its check digit', () => {
    // birth date 740812 read as 740817 (7 slightly preferred over 2); the check digit 2 is read confidently
    const d = decode('TD3', probsFor(td3, { '1:18': { '7': 0.55, '2': 0.4 } }));
    expect(d.lines[1].slice(13, 19)).toBe('740812');
    expect(d.lines).toEqual(td3);
    expect(d.valid).toBe(true);
    expect(d.repaired).toBe(1);
  });

  it("gives a coerced or repaired character the confidence of the final character, not the classifier's first choice", () => {
    // the O of a date is a 0 (its OCR-B twin): the twin's share counts for the 0
    const coerced = decode('TD3', probsFor(td3, { '1:15': { O: 0.7, '0': 0.25 } }));
    expect(coerced.conf[1][15]).toBeGreaterThan(0.9);
    // a half-legible digit (mass on letters that are not its twins) stays unsure, unless a check digit read surely
    // settles it: the 0 of the birth date is the only digit its check digit allows
    const smudged = decode('TD3', probsFor(td3, { '1:15': { '0': 0.5, K: 0.25, X: 0.2 } }));
    expect(smudged.lines).toEqual(td3);
    expect(smudged.conf[1][15]).toBeGreaterThan(0.95);
    // ... but not when the check digit hesitates between the two readings that pass (0 with 2, 6 with 8)
    const hesitating = decode('TD3', probsFor(td3, { '1:15': { '0': 0.5, '6': 0.45 }, '1:19': { '2': 0.5, '8': 0.45 } }));
    expect(hesitating.lines).toEqual(td3);
    expect(hesitating.conf[1][15]).toBeLessThan(0.6);
    expect(hesitating.conf[1][19]).toBeLessThan(0.6);
    // 740817 -> 740812 by the birth-date check digit, read confidently: the 2 is sure given the digit agrees
    const repaired = decode('TD3', probsFor(td3, { '1:18': { '7': 0.55, '2': 0.4 } }));
    expect(repaired.lines).toEqual(td3);
    expect(repaired.conf[1][18]).toBeGreaterThan(0.95);
    // the same repair with a hesitant check digit is less sure
    const hesitant = decode('TD3', probsFor(td3, { '1:18': { '7': 0.55, '2': 0.4 }, '1:19': { '2': 0.6, '7': 0.35 } }));
    expect(hesitant.lines).toEqual(td3);
    expect(hesitant.conf[1][18]).toBeLessThan(repaired.conf[1][18]);
    expect(hesitant.conf[1][18]).toBeGreaterThan(0.5);
  });

  it('keeps a confident character that contradicts its check digit confident', () => {
    const wrong = [td3[0], td3[1].slice(0, 19) + '3' + td3[1].slice(20)];
    const d = decode('TD3', probsFor(wrong));
    expect(d.valid).toBe(false);
    expect(Math.min(...d.conf[1].slice(13, 20))).toBeGreaterThan(0.9);
  });

  it('never changes a check digit, and leaves a wrong one invalid', () => {
    // the birth-date check digit printed (or read) as 3 instead of 2, everything else confident
    const wrong = [td3[0], td3[1].slice(0, 19) + '3' + td3[1].slice(20)];
    const d = decode('TD3', probsFor(wrong));
    expect(d.lines).toEqual(wrong);
    expect(d.valid).toBe(false);
    expect(d.repaired).toBe(0);
    // an uncertain check digit is not "fixed" by changing the field either
    const d2 = decode('TD3', probsFor(wrong, { '1:19': { '3': 0.5, '2': 0.45 }, '1:18': { '2': 0.9, '7': 0.05 } }));
    expect(d2.lines[1][19]).toBe('3');
    expect(d2.lines[1].slice(13, 19)).toBe('740812');
    expect(d2.valid).toBe(false);
  });

  it('keeps a clear digit in a document number from turning into a letter to satisfy a check digit', () => {
    // 33_id-usa style: the printed check digit fails; S would "fix" it but the 5 is read clearly
    const td1 = ['C1USA0223456791EAC9730051220<<', '4910040M9411014CAN<<<<<<<<<<<0', 'CRITTENDEN<<LEE<W<<<<<<<<<<<<<'];
    const d = decode('TD1', probsFor(td1, { '0:10': { '5': 0.9, S: 0.08 } }));
    expect(d.lines).toEqual(td1);
    expect(d.valid).toBe(false);
  });

  it('does not make a forged document number pass by changing another character (issue #27)', () => {
    // 100_pass-hrv prints 007007007 (check 1); a forger makes the last 7 a 9. Making the first 0 an O (+24 x 7)
    // satisfies the check digit again: with the O at 40 % the repair used to take it, a forged zone read as valid
    const hrv = ['P<HRVSPECIMEN<<SPECIMEN<<<<<<<<<<<<<<<<<<<<<', '0070070071HRV8212258F1407019<<<<<<<<<<<<<<06'];
    const forged = [hrv[0], '007007009' + hrv[1].slice(9)];
    const d = decode('TD3', probsFor(forged, { '1:0': { '0': 0.55, O: 0.4 } }));
    expect(d.lines).toEqual(forged);
    expect(d.valid).toBe(false);
    expect(d.repaired).toBe(0);
    expect(d.conf[1][8]).toBeGreaterThan(0.9);
    // the other way round, a letter read where the digit is printed, is still repaired by the check digit
    const misread = decode('TD3', probsFor(hrv, { '1:0': { O: 0.55, '0': 0.4 } }));
    expect(misread.lines).toEqual(hrv);
    expect(misread.valid).toBe(true);
    // an alternative the classifier gives under 10 % is not taken, even to satisfy a check digit read surely
    const sure = decode('TD3', probsFor(td3, { '1:18': { '7': 0.95, '2': 0.03 } }));
    expect(sure.lines[1].slice(13, 19)).toBe('740817');
    expect(sure.valid).toBe(false);
    expect(sure.repaired).toBe(0);
  });

  it('reads O or 0 in a number field from its neighbours', () => {
    const mrva = ['VIUSATRAVELER<<HAPPYPERSON<<<<<<<<<<<<<<<<<<', '555123ABC6GBR6502056F0412236IFLNDOOAMS803085'];
    // the classifier hesitates on both O of IFLNDOOAMS, slightly preferring 0: letters on both sides make them O
    const d = decode('MRVA', probsFor(mrva, { '1:33': { '0': 0.5, O: 0.45 }, '1:34': { '0': 0.5, O: 0.45 } }));
    expect(d.lines).toEqual(mrva);
    // but a 0 the classifier is sure of (O under 10 %) stays a 0 where no check digit covers it (a visa's optional data)
    const zeros = ['VIUSATRAVELER<<HAPPYPERSON<<<<<<<<<<<<<<<<<<', '555123ABC6GBR6502056F0412236IFLND00AMS803085'];
    const sure = decode('MRVA', probsFor(zeros, { '1:33': { '0': 0.94, O: 0.05 }, '1:34': { '0': 0.96, O: 0.03 } }));
    expect(sure.lines).toEqual(zeros);
    // where a check digit covers it (a passport's personal number), the letters around it still decide
    const td3o = ['P<CZEERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36CZE7408122F1204159ZEOO05HL<<<<<<60'];
    const covered = decode('TD3', probsFor(td3o, { '1:30': { '0': 0.94, O: 0.05 } }));
    expect(covered.lines[1].slice(28, 34)).toBe('ZEOO05');
    // and 0 between digits stays a digit
    const td3b = ['P<CZESPECIMEN<<VZOR<<<<<<<<<<<<<<<<<<<<<<<<<', '99003853<1CZE1101018M1207046110101111<<<<<94'];
    const d2 = decode('TD3', probsFor(td3b, { '1:2': { O: 0.5, '0': 0.45 } }));
    expect(d2.lines).toEqual(td3b);
  });

  it('gate: garbage does not become an MRZ', () => {
    let s = 3;
    const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    let passed = 0;
    for (let k = 0; k < 200; k++) {
      const lines = [0, 1].map(() => Array.from({ length: 44 }, () => ALPHABET[Math.floor(rnd() * 37)]).join(''));
      const soft = lines.map((l) => Array.from(l, () => 0.4 + 0.5 * rnd()));
      const probs = probsFor(lines).map((l, li) => l.map((v, i) => {
        const out = new Float32Array(37).fill((1 - soft[li][i]) / 36);
        out[ALPHABET.indexOf(lines[li][i])] = soft[li][i];
        return out;
      }));
      for (const f of ['TD3', 'MRVA'] as const) if (decode(f, probs).gate) passed++;
    }
    expect(passed).toBe(0);
  });

  it('gate: an impossible date or sex stops an otherwise valid-looking zone', () => {
    // month 13 in the birth date, check digit recomputed so that only the calendar is wrong
    const l2 = 'L898902C36UTO7413122F1204159ZE184226B<<<<<10';
    const fixed = l2.slice(0, 19) + String(mrzCd('741312')) + l2.slice(20);
    const d = decode('TD3', probsFor([td3[0], fixed]));
    expect(d.gate).toBe(false);
    expect(d.gateReasons).toContain('birth_date');
  });

  it('gate: no state code on any list and checks that do not all pass is no zone (a sideways bill read as one)', () => {
    // The phantom a bill photographed sideways gave: two check digits pass by chance, `HHG` and `96J` are no state.
    const phantom = ['CGHHGVGGEGWGGHG<AG<W<H<<HEBHW<<W<HHW', '<S00T7X8H096J8212188X7005069XXXO0101'];
    const d = decode('TD2', probsFor(phantom));
    expect(d.valid).toBe(false);
    expect(d.gate).toBe(false);
    expect(d.gateReasons).toContain('state_codes');
    // the same lines with real state codes: not this reason (a genuine zone may print a wrong check digit)
    const listed = ['CGUTOVGGEGWGGHG<AG<W<H<<HEBHW<<W<HHW', '<S00T7X8H0UTO8212188X7005069XXXO0101'];
    expect(decode('TD2', probsFor(listed)).gateReasons).not.toContain('state_codes');
  });
});

function mrzCd(s: string): number {
  const w = [7, 3, 1];
  let t = 0;
  for (let i = 0; i < s.length; i++) t += (s[i] === '<' ? 0 : parseInt(s[i], 36)) * w[i % 3];
  return t % 10;
}
