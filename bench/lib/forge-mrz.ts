/**
 * Deliberately broken copies of a document image, at the pixel level: one character of the MRZ replaced the way a
 * forger would, by a glyph cut from elsewhere in the same zone (same font, ink, size and print), so that the printed
 * check digit no longer agrees. For the false-rejection benchmark (bench/check-confidence.ts) and for tests that need
 * a forged zone read confidently (forgedPassportFixture, made at test time: no binary in the repository).
 *
 * The cells come from the MRZ reader's own geometry (readHypotheses: the same search readMrz makes, best reading
 * first): each line is a grid of `n` cells of width `pitch` along `u`, cap height `cap` across `v`. A cell is copied
 * onto another with its surroundings (a window 1 pitch wide and 1.5 cap heights high, mapped cell to cell so a
 * slightly different pitch or skew between lines follows), its outer tenth feathered into the background. The
 * result is the page as the reader sees it (EXIF applied, longer side <= 3000 px), in RGB, written as PNG (lossless)
 * unless `jpegQuality` is given.
 */
import sharp from 'sharp';
import { checkDefs, type MrzFormat } from '../../server/src/providers/local/mrz/decode.ts';
import type { LineGeom } from '../../server/src/providers/local/mrz/features.ts';
import { greyFrom } from '../../server/src/providers/local/mrz/image.ts';
import { readHypotheses } from '../../server/src/providers/local/mrz/index.ts';
import type { PageImage } from '../../server/src/providers/local/types.ts';
import { loadPage, rgbAt } from '../../test/unit/local/support-mrz.ts';

/** The zone as the reader cut it: its reading, per-character confidences and the geometry of each line. */
export interface ZoneCells {
  format: MrzFormat;
  lines: string[];
  conf: number[][];
  geoms: LineGeom[];
  page: PageImage;
}

/** What was changed: 0-based line and position in the zone, the printed character and its replacement. */
export interface MrzChange {
  /** The MRZ field the position belongs to (`document_number`, `birth_date`, `expiry_date`, `dni_number`...). */
  field: string;
  line: number;
  pos: number;
  old: string;
  new: string;
  /** The cell the new glyph was cut from. */
  from: { line: number; pos: number };
}

export interface Forgery {
  /** The forged page image (PNG, or JPEG with `jpegQuality`). */
  bytes: Buffer;
  /** The zone as now printed (the reader's reading of the original with the one character changed). */
  lines: string[];
  change: MrzChange;
}

/** Fields a forger changes, by name. `dni_letter` / `dni_number` exist on Spanish TD1 cards (DNI in the optional data). */
export type ForgeField = 'document_number' | 'birth_date' | 'expiry_date' | 'dni_letter' | 'dni_number';

/** Read the zone of an image and keep the reader's geometry; null when the reader finds no plausible MRZ. */
export async function readZoneCells(image: string | Buffer | PageImage): Promise<ZoneCells | null> {
  const page = typeof image === 'string' || Buffer.isBuffer(image) ? await loadPage(image) : image;
  // the same search as readMrz (its synchronous twin, with the colour readMrz re-reads unsure cells from), keeping what
  // readMrz drops: the cells' geometry
  const best = readHypotheses(greyFrom(page.grey, page.width, page.height), page.rgb)[0];
  if (!best || !best.d.gate) return null;
  return { format: best.d.format, lines: best.d.lines, conf: best.d.conf, geoms: best.geoms, page };
}

/**
 * The Spanish DNI number (8 digits and its letter) in the optional data of a TD1 card's first line (from position 15,
 * after fillers on older cards such as PassportEye's 0_id-esp: `<00000023T`), or null.
 */
export function dniSpan(z: Pick<ZoneCells, 'lines'>): { line: number; from: number } | null {
  if (z.lines.length !== 3 || z.lines[0].slice(2, 5) !== 'ESP') return null;
  const m = /^(<*)\d{8}[A-Z]/.exec(z.lines[0].slice(15));
  return m ? { line: 0, from: 15 + m[1].length } : null;
}

/**
 * The position a forger would change in a field: a digit of the document number (the last digit), the second digit
 * of the year of a date (the date stays plausible, so the zone still reads as an MRZ), the DNI's check letter, the
 * last digit of the DNI number. Null when the zone has no such field.
 */
export function forgeryPosition(z: Pick<ZoneCells, 'format' | 'lines'>, field: ForgeField): { line: number; pos: number } | null {
  const defs = checkDefs(z.format).individual;
  const def = (name: string) => defs.find((d) => d.name === name);
  if (field === 'birth_date' || field === 'expiry_date') {
    const d = def(field);
    return d ? { line: d.field[1][0], pos: d.field[1][1] } : null;
  }
  if (field === 'document_number') {
    const d = def('document_number');
    if (!d) return null;
    const digits = d.field.filter(([l, i]) => /\d/.test(z.lines[l][i]));
    const last = digits[digits.length - 1];
    return last ? { line: last[0], pos: last[1] } : null;
  }
  const dni = dniSpan(z);
  if (!dni) return null;
  return { line: dni.line, pos: dni.from + (field === 'dni_letter' ? 8 : 7) };
}

/**
 * The replacement a forger would pick: a character of the same kind (digit for a digit, letter for a letter) that
 * differs from the printed one and appears elsewhere in the zone, the one whose best copy the reader read most
 * confidently. `exclude`: replacements not wanted (e.g. ones already used).
 */
export function pickReplacement(z: Pick<ZoneCells, 'lines' | 'conf'>, at: { line: number; pos: number }, exclude: string[] = []): { to: string; from: { line: number; pos: number } } | null {
  const old = z.lines[at.line][at.pos];
  const kind = /\d/.test(old) ? /\d/ : /[A-Z]/;
  let best: { to: string; from: { line: number; pos: number }; c: number } | null = null;
  z.lines.forEach((l, li) => {
    for (let i = 0; i < l.length; i++) {
      const ch = l[i];
      if (ch === old || !kind.test(ch) || exclude.includes(ch) || (li === at.line && i === at.pos)) continue;
      const c = z.conf[li][i];
      if (!best || c > best.c) best = { to: ch, from: { line: li, pos: i }, c };
    }
  });
  const b = best as { to: string; from: { line: number; pos: number }; c: number } | null;
  return b ? { to: b.to, from: b.from } : null;
}

/** Copy the glyph of one cell onto another, in place, on an RGB buffer. */
function pasteCell(rgb: Buffer, w: number, h: number, src: { g: LineGeom; k: number }, dst: { g: LineGeom; k: number }): void {
  const centre = (g: LineGeom, k: number) => ({ x: g.ox + (k + 0.5) * g.pitch * g.ux, y: g.oy + (k + 0.5) * g.pitch * g.uy });
  const cs = centre(src.g, src.k);
  const cd = centre(dst.g, dst.k);
  const A = 0.5 * dst.g.pitch;
  const B = 0.75 * dst.g.cap;
  const feather = 0.1;
  const sx = src.g.pitch / dst.g.pitch;
  const sy = src.g.cap / dst.g.cap;
  const src0 = Buffer.from(rgb);
  const sample = (x: number, y: number, c: number) => rgbAt(src0, w, h, x, y, c);
  const r = Math.ceil(Math.hypot(A, B)) + 1;
  for (let y = Math.max(0, Math.floor(cd.y - r)); y <= Math.min(h - 1, Math.ceil(cd.y + r)); y++) {
    for (let x = Math.max(0, Math.floor(cd.x - r)); x <= Math.min(w - 1, Math.ceil(cd.x + r)); x++) {
      const dx = x - cd.x;
      const dy = y - cd.y;
      const a = dx * dst.g.ux + dy * dst.g.uy;
      const b = dx * dst.g.vx + dy * dst.g.vy;
      if (Math.abs(a) > A || Math.abs(b) > B) continue;
      const edge = Math.min((A - Math.abs(a)) / (feather * 2 * A), (B - Math.abs(b)) / (feather * 2 * B), 1);
      const wgt = edge * edge * (3 - 2 * edge);
      const px = cs.x + a * sx * src.g.ux + b * sy * src.g.vx;
      const py = cs.y + a * sx * src.g.uy + b * sy * src.g.vy;
      for (let c = 0; c < 3; c++) {
        const i = (y * w + x) * 3 + c;
        rgb[i] = Math.round(src0[i] * (1 - wgt) + sample(px, py, c) * wgt);
      }
    }
  }
}

/**
 * A copy of the image with the character at `at` replaced by `to`, cut from the cell `from` (default: the zone's
 * most confidently read `to`). `expected`: the zone as printed; the forgery refuses an image whose zone the reader
 * does not read exactly (a forgery of a misread zone measures nothing). Throws when there is no zone or no `to`.
 */
export async function forgeMrz(
  image: string | Buffer | ZoneCells,
  at: { line: number; pos: number; to: string; from?: { line: number; pos: number }; field?: string },
  opts: { expected?: string[]; jpegQuality?: number } = {},
): Promise<Forgery> {
  const z = typeof image === 'object' && 'geoms' in image ? image : await readZoneCells(image);
  if (!z) throw new Error('forge-mrz: the reader finds no MRZ on this image');
  if (opts.expected && z.lines.join('\n') !== opts.expected.join('\n')) throw new Error('forge-mrz: the reader does not read this zone exactly');
  const old = z.lines[at.line]?.[at.pos];
  if (old === undefined) throw new Error(`forge-mrz: no position ${at.line}:${at.pos}`);
  let from = at.from;
  if (!from) {
    let c = -1;
    z.lines.forEach((l, li) => {
      for (let i = 0; i < l.length; i++) {
        if (l[i] === at.to && !(li === at.line && i === at.pos) && z.conf[li][i] > c) {
          c = z.conf[li][i];
          from = { line: li, pos: i };
        }
      }
    });
  }
  if (!from) throw new Error(`forge-mrz: no ${at.to} in the zone to cut a glyph from`);
  const { page } = z;
  const rgb = Buffer.from(page.rgb);
  pasteCell(rgb, page.width, page.height, { g: z.geoms[from.line], k: from.pos }, { g: z.geoms[at.line], k: at.pos });
  const out = sharp(rgb, { raw: { width: page.width, height: page.height, channels: 3 } });
  const bytes = opts.jpegQuality ? await out.jpeg({ quality: opts.jpegQuality }).toBuffer() : await out.png().toBuffer();
  const lines = z.lines.map((l, li) => (li === at.line ? l.slice(0, at.pos) + at.to + l.slice(at.pos + 1) : l));
  return { bytes, lines, change: { field: at.field ?? 'other', line: at.line, pos: at.pos, old, new: at.to, from } };
}

/** One forgery of a named field (position by forgeryPosition, glyph by pickReplacement); null if the zone has no such field or glyph. */
export async function forgeField(
  image: string | Buffer | ZoneCells,
  field: ForgeField,
  opts: { expected?: string[]; exclude?: string[]; jpegQuality?: number } = {},
): Promise<Forgery | null> {
  const z = typeof image === 'object' && 'geoms' in image ? image : await readZoneCells(image);
  if (!z) throw new Error('forge-mrz: the reader finds no MRZ on this image');
  const at = forgeryPosition(z, field);
  if (!at) return null;
  const rep = pickReplacement(z, at, opts.exclude);
  if (!rep) return null;
  return forgeMrz(z, { ...at, ...rep, field }, { expected: opts.expected, jpegQuality: opts.jpegQuality });
}

/** The ICAO 9303 specimen passport of the shared test data (PassportEye `passport-td3.jpg`), read exactly by the reader. */
export const SPECIMEN_PASSPORT = {
  path: new URL('../../../shared/testdata/documents/id-images/PassportEye/tests-data/passport-td3.jpg', import.meta.url).pathname,
  lines: ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'],
};

/**
 * Test fixture, made at test time: the specimen passport with the last digit of its document number (L898902C3 ->
 * L898902C + another digit cut from the zone) replaced, so that the document number's check digit, read
 * confidently, no longer agrees. Deterministic (same reader, same pixels, same choice).
 */
export async function forgedPassportFixture(opts: { jpegQuality?: number } = {}): Promise<Forgery> {
  const f = await forgeField(SPECIMEN_PASSPORT.path, 'document_number', { expected: SPECIMEN_PASSPORT.lines, jpegQuality: opts.jpegQuality });
  if (!f) throw new Error('forge-mrz: the specimen passport has no document number digit to change');
  return f;
}
