/** Test/bench helper: a PageImage from an image file, as the live decoder will hand it over (EXIF applied, <= 3000 px). */
import sharp from 'sharp';
import { ALPHABET } from '../../../server/src/providers/local/mrz/features.ts';
import { mrzCheckDigit } from '../../../server/src/validators/mrz.ts';
import { MAX_READ_SIDE, type PageImage } from '../../../server/src/providers/local/types.ts';

/** Decode, apply EXIF orientation, optionally rotate by a multiple of 90 degrees clockwise, fit into 3000 px. */
export async function loadPage(input: string | Buffer, rotate = 0): Promise<PageImage> {
  const { data, info } = await sharp(input).autoOrient().rotate(rotate).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const scale = Math.min(1, MAX_READ_SIDE / Math.max(info.width, info.height));
  const width = Math.round(info.width * scale);
  const height = Math.round(info.height * scale);
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
  const rgb = scale < 1 ? await sharp(data, raw).resize(width, height, { fit: 'fill' }).raw().toBuffer() : data;
  const grey = await sharp(rgb, { raw: { width, height, channels: 3 } }).greyscale().raw().toBuffer();
  return { page: 1, width, height, grey, rgb, scale, originalWidth: info.width, originalHeight: info.height };
}

/** What a rendered identity card carries: its MRZ lines and, optionally, printed captions and values above them. */
export interface CardSpec {
  lines: string[];
  /** Printed text lines of the visual zone (caption: value), top to bottom. */
  printed?: string[];
  /** Card width in px (ID-1, 85.6 x 54 mm); 1000 by default. */
  width?: number;
  /** Rotation of the card in the photo, degrees (counter-clockwise). */
  angle?: number;
  /** Photo background around the card (grey level) and margin in card widths; no margin: the card fills the image. */
  background?: number;
  margin?: number;
  /** JPEG quality of the result (PNG when absent). */
  jpegQuality?: number;
  /** A microtext rule printed between the zone's lines (German and Danish passports have one). */
  microtext?: boolean;
  /** A stray glyph one cell before the first line's first character (a pattern or a scratch beside the zone). */
  markBeforeFirstLine?: boolean;
  /** The same before the last line (a TD1 card's name line, which no check digit covers). */
  markBeforeLastLine?: boolean;
  /** false: no photo box (a TD1 zone's three large lines reach up into it at the default size). */
  photo?: boolean;
  /** Baseline to baseline, in font sizes (1.25 by default; a rendered data page may set its lines much further apart). */
  lineGap?: number;
}

/**
 * A card-like test image rendered at test time (no binary in the repository): a light guilloche card with a photo
 * box, printed captions, and the MRZ at the bottom in DejaVu Sans Mono (a monospace face close to OCR-B, one of the
 * faces the glyph model is trained on; OCR-B itself is not installed on CI machines), placed in a photo when a margin
 * is given. Deterministic for a given spec.
 */
export async function renderIdCard(spec: CardSpec): Promise<Buffer> {
  const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas');
  if (!GlobalFonts.has('DejaVu Sans Mono')) GlobalFonts.registerFromPath('/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf', 'DejaVu Sans Mono');
  const W = spec.width ?? 1000;
  const H = Math.round((W * 54) / 85.6);
  const card = createCanvas(W, H);
  const ctx = card.getContext('2d');
  ctx.fillStyle = 'rgb(236, 232, 240)';
  ctx.fillRect(0, 0, W, H);
  // guilloche: faint interlaced waves, as on a laminated card
  ctx.strokeStyle = 'rgba(150, 140, 190, 0.35)';
  ctx.lineWidth = 1;
  for (let k = 0; k < 26; k++) {
    ctx.beginPath();
    for (let x = 0; x <= W; x += 6) {
      const y = (k * H) / 26 + 9 * Math.sin((x / W) * 9 + k * 0.7) + 5 * Math.sin((x / W) * 23 + k);
      if (x === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    ctx.stroke();
  }
  // photo box
  if (spec.photo !== false) {
    ctx.fillStyle = 'rgb(120, 112, 108)';
    ctx.fillRect(0.04 * W, 0.2 * H, 0.26 * W, 0.5 * H);
  }
  ctx.fillStyle = 'rgb(40, 40, 60)';
  ctx.font = `bold ${Math.round(0.032 * W)}px DejaVu Sans`;
  ctx.fillText('RÉPUBLIQUE FRANÇAISE', 0.34 * W, 0.1 * H);
  ctx.font = `${Math.round(0.022 * W)}px DejaVu Sans`;
  (spec.printed ?? []).forEach((t, i) => ctx.fillText(t, 0.34 * W, 0.2 * H + i * 0.075 * H));
  // the zone: monospace on an exact grid, cap height ~ 2.4 % of the card width, lines 1.5 cap heights apart
  const n = spec.lines[0].length;
  const pitch = (0.92 * W) / n;
  const fontPx = pitch / 0.6;
  ctx.font = `${fontPx}px DejaVu Sans Mono`;
  ctx.fillStyle = 'rgb(20, 20, 24)';
  const gap = fontPx * (spec.lineGap ?? 1.25);
  const base0 = H - 0.06 * H - gap * (spec.lines.length - 1);
  spec.lines.forEach((line, li) => {
    for (let k = 0; k < line.length; k++) {
      const cw = ctx.measureText(line[k]).width;
      ctx.fillText(line[k], 0.04 * W + k * pitch + (pitch - cw) / 2, base0 + li * gap);
    }
  });
  if (spec.markBeforeFirstLine) ctx.fillText('I', 0.04 * W - pitch + 0.2 * pitch, base0);
  if (spec.markBeforeLastLine) ctx.fillText('I', 0.04 * W - pitch + 0.2 * pitch, base0 + (spec.lines.length - 1) * gap);
  if (spec.microtext) {
    ctx.font = `${Math.round(fontPx * 0.28)}px DejaVu Sans`;
    ctx.fillStyle = 'rgb(90, 110, 100)';
    const words = 'REPUBLIQUE FRANCAISE LIBERTE EGALITE FRATERNITE '.repeat(12);
    for (let li = 0; li + 1 < spec.lines.length; li++) ctx.fillText(words, 0, base0 + li * gap + 0.3 * gap);
  }
  let out = card.toBuffer('image/png');
  const margin = spec.margin ?? 0;
  if (margin > 0 || spec.angle) {
    const bg = spec.background ?? 90;
    const pw = Math.round(W * (1 + 2 * margin));
    const ph = Math.round(H + 2 * margin * W);
    const photo = createCanvas(pw, ph);
    const p = photo.getContext('2d');
    p.fillStyle = `rgb(${bg}, ${bg}, ${bg + 6})`;
    p.fillRect(0, 0, pw, ph);
    p.translate(pw / 2, ph / 2);
    p.rotate((-(spec.angle ?? 0) * Math.PI) / 180);
    p.drawImage(card, -W / 2, -H / 2);
    out = photo.toBuffer('image/png');
  }
  return spec.jpegQuality ? sharp(out).jpeg({ quality: spec.jpegQuality }).toBuffer() : out;
}

/** Class probabilities for a text: `p` on the printed character, the rest spread; overrides per "line:index". */
export function probsFor(lines: string[], overrides: Record<string, Record<string, number>> = {}, p = 0.97): Float32Array[][] {
  return lines.map((line, l) =>
    Array.from(line, (ch, i) => {
      const o = overrides[`${l}:${i}`] ?? { [ch]: p };
      const rest = 1 - Object.values(o).reduce((a, b) => a + b, 0);
      const v = new Float32Array(ALPHABET.length).fill(rest / (ALPHABET.length - Object.keys(o).length));
      for (const [c, q] of Object.entries(o)) v[ALPHABET.indexOf(c)] = q;
      return v;
    }),
  );
}

/** A French 1988 zone with its check digits computed (the card number is issue YYMM, department, sequence). */
export function frenchZone(o: { surname: string; given: string; issue: string; dept: string; seq: string; birth: string; sex: 'M' | 'F'; admin?: string }): string[] {
  const l1 = ('IDFRA' + o.surname.replace(/ /g, '<')).padEnd(30, '<').slice(0, 30) + (o.admin ?? '').padEnd(6, '<');
  const num = o.issue + o.dept + o.seq;
  const given = o.given.replace(/ /g, '<').padEnd(14, '<').slice(0, 14);
  const head = num + mrzCheckDigit(num) + given + o.birth + mrzCheckDigit(o.birth) + o.sex;
  return [l1, head + mrzCheckDigit(l1 + head)];
}

/** A deterministic noise source (the same images on every run). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) - 0.5;
}

export async function rawOf(buf: Buffer): Promise<{ data: Buffer; w: number; h: number }> {
  const { data, info } = await sharp(buf).autoOrient().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, w: info.width, h: info.height };
}

/**
 * Each pixel's colour mapped by f (given r, g, b and the pixel's place x, y in a w × h image), plus deterministic noise
 * of ± noise levels (the study's derived captures).
 */
export async function mapRgb(
  buf: Buffer,
  f: (r: number, g: number, b: number, x: number, y: number, w: number, h: number) => [number, number, number],
  noise = 0,
): Promise<Buffer> {
  const { data, w, h } = await rawOf(buf);
  const rnd = lcg(7);
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < w * h; i++) {
    const [r, g, b] = f(data[3 * i], data[3 * i + 1], data[3 * i + 2], i % w, Math.floor(i / w), w, h);
    const n = noise ? rnd() * 2 * noise : 0;
    out[3 * i] = Math.max(0, Math.min(255, Math.round(r + n)));
    out[3 * i + 1] = Math.max(0, Math.min(255, Math.round(g + n)));
    out[3 * i + 2] = Math.max(0, Math.min(255, Math.round(b + n)));
  }
  return sharp(out, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
}

/** Bilinear sample of channel c of an RGB buffer w x h at (x, y), clamped to the image. */
export function rgbAt(rgb: Uint8Array, w: number, h: number, x: number, y: number, c: number): number {
  const xi = Math.min(w - 1, Math.max(0, x));
  const yi = Math.min(h - 1, Math.max(0, y));
  const x0 = Math.floor(xi);
  const y0 = Math.floor(yi);
  const x1 = Math.min(w - 1, x0 + 1);
  const y1 = Math.min(h - 1, y0 + 1);
  const fx = xi - x0;
  const fy = yi - y0;
  const at = (xx: number, yy: number) => rgb[(yy * w + xx) * 3 + c];
  return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy;
}

/** The 3x3 homography (row-major, h33 = 1) that maps the four points `from` onto `to`. */
function homography(from: number[][], to: number[][]): number[] {
  const A: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i];
    const [u, v] = to[i];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < 9; k++) A[r][k] -= f * A[c][k];
    }
  }
  return [...A.map((row, i) => row[8] / row[i]), 1];
}

/**
 * A card photographed at an angle (turned about its vertical axis): the far side `shrink` of the near side's height,
 * foreshortened; `flip`: the far side is the left one. Inverse mapping, bilinear, grey background.
 */
export async function angled(buf: Buffer, shrink: number, flip: boolean): Promise<Buffer> {
  const { data, info } = await sharp(buf).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const { width: W, height: H } = info;
  const m = (1 - shrink) / 2;
  const near = flip ? W : 0;
  const far = flip ? 0.1 * W : 0.9 * W;
  const dst = flip
    ? [[far, m * H], [near, 0], [near, H], [far, (1 - m) * H]]
    : [[near, 0], [far, m * H], [far, (1 - m) * H], [near, H]];
  // destination to source
  const h = homography(dst, [[0, 0], [W, 0], [W, H], [0, H]]);
  const out = Buffer.alloc(W * H * 3, 112);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const z = h[6] * x + h[7] * y + h[8];
      const sx = (h[0] * x + h[1] * y + h[2]) / z;
      const sy = (h[3] * x + h[4] * y + h[5]) / z;
      if (sx < 0 || sy < 0 || sx > W - 1 || sy > H - 1) continue;
      for (let c = 0; c < 3; c++) out[(y * W + x) * 3 + c] = Math.round(rgbAt(data, W, H, sx, sy, c));
    }
  }
  return sharp(out, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
}

/**
 * A booklet page with a small zone printed sideways (read top to bottom), as a substitute identity card prints it,
 * beside a few sideways captions, and a large outlined word (a specimen's MUSTER) across the zone at 60 degrees: at the
 * locator's scale the zone's lines and the word's strokes merge into one blob. `pitch`: cell width in px; `stroke`:
 * the word's opacity and line width. Rendered at test time (DejaVu Sans Mono, as renderIdCard).
 */
export async function renderSidewaysZonePage(lines: string[], o: { pitch: number; stroke?: { alpha: number; width: number } }): Promise<Buffer> {
  const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas');
  if (!GlobalFonts.has('DejaVu Sans Mono')) GlobalFonts.registerFromPath('/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf', 'DejaVu Sans Mono');
  const W = 1000;
  const H = 1070;
  const c = createCanvas(W, H);
  const ctx = c.getContext('2d');
  ctx.fillStyle = 'rgb(226, 236, 222)';
  ctx.fillRect(0, 0, W, H);
  ctx.strokeStyle = 'rgba(150, 170, 150, 0.15)';
  for (let k = 0; k < 40; k++) {
    ctx.beginPath();
    for (let x = 0; x <= W; x += 6) {
      const y = (k * H) / 40 + 9 * Math.sin((x / W) * 9 + k * 0.7);
      if (x === 0) ctx.moveTo(x, y);
      else ctx.lineTo(x, y);
    }
    ctx.stroke();
  }
  ctx.fillStyle = 'rgb(50, 50, 50)';
  ctx.save();
  ctx.translate(W * 0.5, H * 0.02);
  ctx.rotate(Math.PI / 2);
  ctx.font = `${Math.round(o.pitch * 1.3)}px DejaVu Sans`;
  ['Amtliche Vermerke', 'Official remarks', 'Observations officielles'].forEach((t, i) => ctx.fillText(t, 0, -i * o.pitch * 1.8));
  ctx.restore();
  const fontPx = o.pitch / 0.6;
  ctx.save();
  ctx.translate(W * 0.37, H * 0.55);
  ctx.rotate(Math.PI / 2);
  ctx.font = `${fontPx}px DejaVu Sans Mono`;
  ctx.fillStyle = 'rgb(30, 30, 34)';
  lines.forEach((line, li) => {
    for (let k = 0; k < line.length; k++) ctx.fillText(line[k], k * o.pitch + (o.pitch - ctx.measureText(line[k]).width) / 2, li * fontPx * 1.25);
  });
  ctx.restore();
  if (o.stroke) {
    ctx.save();
    ctx.translate(W * 0.3, H * 0.8);
    ctx.rotate(-Math.PI / 3);
    ctx.font = `bold ${Math.round(fontPx * 5)}px DejaVu Sans`;
    ctx.strokeStyle = `rgba(60, 60, 60, ${o.stroke.alpha})`;
    ctx.lineWidth = o.stroke.width;
    ctx.strokeText('MUSTER', 0, 0);
    ctx.restore();
  }
  return c.toBuffer('image/png');
}
