// Per-character confidences carried on an MRZ reading (ReadField.chars), and deliberately broken copies made by
// bench/lib/forge-mrz.ts: the changed character is read as changed, confidently, and fails its check digit.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgedPassportFixture, forgeField, readZoneCells } from '../../../bench/lib/forge-mrz.ts';
import { readingFromMrz } from '../../../server/src/providers/local/id-documents.ts';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { CHECK_CHAR_CONFIDENCE, mrzCheckPositions, readSurely } from '../../../server/src/validators/confidence.ts';
import { checkNif } from '../../../server/src/validators/nif.ts';
import { parseMrz } from '../../../server/src/validators/mrz.ts';
import { loadPage } from './support-mrz.ts';

const DOCS = path.resolve('../shared/testdata/documents');
const truth = JSON.parse(readFileSync(path.resolve('bench/data/mrz-truth.json'), 'utf8')) as Array<{ file: string; lines: string[] }>;
const spec = (name: string) => {
  const t = truth.find((x) => x.file.endsWith('/' + name))!;
  return { ...t, path: path.join(DOCS, t.file) };
};

async function reading(input: string | Buffer) {
  const m = await readMrz(await loadPage(input));
  expect(m).not.toBeNull();
  const r = readingFromMrz({ lines: m!.lines, charConfidence: m!.charConfidence, lineBoxes: m!.lineBoxes, page: 1 }, { expect: null, referenceDate: '2026-01-01' });
  expect(r).not.toBeNull();
  return { m: m!, r: r! };
}

describe('ReadField.chars on a reading from a real image', () => {
  for (const name of ['0_id-esp.png', 'passport-td3.jpg', '100_id-che.jpg', '53_id-d.jpg']) {
    it(`${name}: every field from the zone carries one confidence per character of its value`, async () => {
      const { m, r } = await reading(spec(name).path);
      const fields = Object.entries(r.fields);
      expect(fields.length).toBeGreaterThan(5);
      for (const [k, f] of fields) {
        expect(typeof f.value, k).toBe('string');
        expect(f.chars, k).toBeDefined();
        expect(f.chars!.length, k).toBe((f.value as string).length);
        expect(f.chars!.every((c) => c >= 0 && c <= 1), k).toBe(true);
      }
      // mrz: the lines joined by \n, each \n a 1, every other entry the reader's own confidence
      const mrz = r.fields.mrz;
      expect(mrz.value).toBe(m.lines.join('\n'));
      expect(mrz.chars).toEqual(m.charConfidence.flatMap((l, i) => (i > 0 ? [1, ...l] : l)));
      [...(mrz.value as string)].forEach((ch, i) => ch === '\n' && expect(mrz.chars![i]).toBe(1));
      // a contiguous value: the confidences of its own cells
      const dn = r.fields.document_number;
      const at = (mrz.value as string).indexOf(dn.value as string);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(dn.chars).toEqual(mrz.chars!.slice(at, at + (dn.value as string).length));
      // a date: YYMMDD -> YYYY-MM-DD, digits aligned, the century the lesser of the year's two, the dashes 1
      const bd = r.fields.birth_date;
      const rawAt = m.lines[0].length + 1 + (m.format === 'TD1' ? 0 : 13);
      expect(m.lines[1].slice(rawAt - m.lines[0].length - 1, rawAt - m.lines[0].length + 5)).toBe(parseMrz(m.lines).fields!.birth_date_raw);
      const yy = mrz.chars!.slice(rawAt, rawAt + 6);
      expect(bd.chars).toEqual([Math.min(yy[0], yy[1]), Math.min(yy[0], yy[1]), yy[0], yy[1], 1, yy[2], yy[3], 1, yy[4], yy[5]]);
    });
  }

  it("the Spanish specimen's DNI check letter is read as printed, surely, not changed to satisfy a check digit printed wrong", async () => {
    // 0_id-esp prints 00000023T and a composite check digit that fails; the repair used to make the T (96 %) an I (4 %)
    // to satisfy the composite, a DNI that fails its own letter check. A repair takes no character under 10 % now.
    const { m, r } = await reading(spec('0_id-esp.png').path);
    const dni = r.fields.document_number;
    expect(dni.value).toBe('00000023T');
    expect(checkNif(dni.value as string).valid).toBe(true);
    expect(dni.chars![8]).toBeGreaterThan(0.9);
    expect(parseMrz(m.lines).checks.find((c) => c.name === 'composite')!.valid).toBe(false);
  });
});

describe('forge-mrz: one character of the zone changed at the pixel level', () => {
  it('the fixture (specimen passport, a document number digit) reads as forged, confidently, and fails its check digit', async () => {
    const f = await forgedPassportFixture();
    expect(f.change.field).toBe('document_number');
    expect(f.change.new).not.toBe(f.change.old);
    const m = await readMrz(await loadPage(f.bytes));
    expect(m).not.toBeNull();
    expect(m!.lines).toEqual(f.lines);
    expect(m!.lines[f.change.line][f.change.pos]).toBe(f.change.new);
    expect(m!.charConfidence[f.change.line][f.change.pos]).toBeGreaterThan(0.9);
    const failed = parseMrz(m!.lines).checks.filter((c) => !c.valid).map((c) => c.name);
    expect(failed).toContain('document_number');
  });

  it('a birth-date digit of a German ID card, forged with a glyph from the same zone, breaks the birth-date check', async () => {
    const t = spec('53_id-d.jpg');
    const z = await readZoneCells(t.path);
    expect(z!.lines).toEqual(t.lines);
    const f = await forgeField(z!, 'birth_date', { expected: t.lines });
    expect(f).not.toBeNull();
    const m = await readMrz(await loadPage(f!.bytes));
    expect(m!.lines).toEqual(f!.lines);
    expect(parseMrz(m!.lines).checks.find((c) => c.name === 'birth_date')!.valid).toBe(false);
  });

  it('a forged digit next to a 0 of an alphanumeric document number is read as forged, with a failing check, not repaired away', async () => {
    // 100_pass-polx prints AA0000000: the forger changes its last digit; the check-digit repair used to make the 0
    // after AA an O (the O at 11 %), which makes the check pass again: a forged passport read as a valid zone
    const t = spec('100_pass-polx.jpg');
    const z = await readZoneCells(t.path);
    expect(z!.lines).toEqual(t.lines);
    const f = (await forgeField(z!, 'document_number', { expected: t.lines }))!;
    const { line, pos } = f.change;
    const number = f.lines[line].slice(0, 9);
    expect(number).toMatch(/^[A-Z]+\d*0\d$/);
    expect(f.lines[line][pos - 1]).toBe('0');
    const m = await readMrz(await loadPage(f.bytes));
    expect(m).not.toBeNull();
    // read as forged, nothing else changed
    expect(m!.lines).toEqual(f.lines);
    expect(m!.charConfidence[line][pos]).toBeGreaterThan(0.9);
    expect(m!.valid).toBe(false);
    expect(parseMrz(m!.lines).checks.find((c) => c.name === 'document_number')!.valid).toBe(false);
    // the 0 the repair used to change is kept, read surely; the check's only unsure character is the second A (about
    // 0.7 by the glyph model): the forgery adds none. On the genuine zone the passing check digit settles that A (its
    // confidence given the field agrees with its digit), so every character of the number is sure there.
    expect(m!.charConfidence[line][2]).toBeGreaterThanOrEqual(CHECK_CHAR_CONFIDENCE);
    const chars = m!.charConfidence.flatMap((l, i) => (i > 0 ? [1, ...l] : l));
    const genuine = z!.conf.flatMap((l, i) => (i > 0 ? [1, ...l] : l));
    const at = mrzCheckPositions(m!.lines, 'document_number');
    expect(at.filter((i) => chars[i] < CHECK_CHAR_CONFIDENCE)).toEqual([at[1]]);
    expect(readSurely(genuine, 1, at)).toBe(true);
  });

  it('refuses an image whose zone the reader does not read exactly', async () => {
    const t = spec('0_id-esp.png');
    await expect(forgeField(t.path, 'birth_date', { expected: t.lines })).rejects.toThrow(/exactly/);
  });
});
