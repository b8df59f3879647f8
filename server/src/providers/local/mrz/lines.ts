/**
 * From a zone candidate to line geometry: the zone is resampled into a deskewed strip (cap height ~ 18 px),
 * text bands come from the row profile of a black top-hat, each band's extent from its column profile, and sets of
 * 2 or 3 aligned bands of equal extent become MRZ hypotheses. A line is cut on a grid of n cells whose pitch and
 * offset minimise the ink crossed by the cell boundaries (robust where glyphs touch; no insertions or deletions).
 */
import { bentOffset, type LineGeom } from './features.ts';
import { blackTopHat, openRows, type Grey } from './image.ts';
import type { ZoneCandidate } from './locate.ts';

const STRIP_CAP = 18;

/** Thickness of one line of a zone whose lines the locator saw merged into one blob, as a share of the blob's. */
export const MERGED_SHARE = 2.5;

export interface Band {
  /** Rows (strip px) of the glyph band and its centre. */
  top: number;
  bottom: number;
  cy: number;
  /** Extent along the line (strip px). */
  left: number;
  right: number;
  /** Column ink profile (strip px), for the grid fit. */
  col: Float32Array;
}

export interface Strip {
  img: Grey;
  /** Original-image point of strip pixel (0, 0); unit vectors; original px per strip px. */
  ox: number;
  oy: number;
  ux: number;
  uy: number;
  vx: number;
  vy: number;
  r: number;
  bands: Band[];
  /** The strip's text ink (top-hat minus its horizontally long part), what the bands are measured on. */
  ink: Float32Array;
}

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
}

/** Resample the neighbourhood of a zone candidate into a strip, reading direction along +x. */
/**
 * `merged`: the zone's lines were seen merged into the one blob (its thickness is two lines' and more): the strip is
 * scaled to one line's thickness (MERGED_SHARE of the blob's), and reaches along the line only a fifth of the blob's
 * length past its ends, not 60 % (the blob's ends are the zone's: it is no line found in pieces).
 */
export function zoneStrip(img: Grey, z: ZoneCandidate, meanGrey: number, merged = false): Strip {
  let ux = 0;
  let uy = 0;
  let px = 0;
  let py = 0;
  let wsum = 0;
  for (const l of z.lines) {
    ux += l.ux * l.length;
    uy += l.uy * l.length;
    px += l.cx * l.length;
    py += l.cy * l.length;
    wsum += l.length;
  }
  const n = Math.hypot(ux, uy);
  ux /= n;
  uy /= n;
  px /= wsum;
  py /= wsum;
  const vx = -uy;
  const vy = ux;
  const T = median(z.lines.map((l) => l.thickness));
  const r = Math.max(0.25, (merged ? T / MERGED_SHARE : T) / STRIP_CAP);
  // across: the member lines plus room for missed MRZ lines on either side
  const corners = [
    [0, 0],
    [img.w, 0],
    [0, img.h],
    [img.w, img.h],
  ].map(([x, y]) => ({ a: (x - px) * ux + (y - py) * uy, b: (x - px) * vx + (y - py) * vy }));
  // along: the member lines plus 60 % of the longest on each side (a line found in pieces), within the image
  const L = Math.max(...z.lines.map((l) => l.length));
  const along = z.lines.flatMap((l) => {
    const a = (l.cx - px) * ux + (l.cy - py) * uy;
    return [a - l.length / 2, a + l.length / 2];
  });
  const reach = merged ? 0.2 : 0.6;
  const amin = Math.max(Math.min(...corners.map((c) => c.a)), Math.min(...along) - reach * L);
  const amax = Math.min(Math.max(...corners.map((c) => c.a)), Math.max(...along) + reach * L);
  const offs = z.lines.map((l) => (l.cx - px) * vx + (l.cy - py) * vy);
  const bmin = Math.max(Math.min(...corners.map((c) => c.b)), Math.min(...offs) - 4.5 * T);
  const bmax = Math.min(Math.max(...corners.map((c) => c.b)), Math.max(...offs) + 4.5 * T);
  const W = Math.max(8, Math.round((amax - amin) / r));
  const H = Math.max(8, Math.round((bmax - bmin) / r));
  const ox = px + amin * ux + bmin * vx;
  const oy = py + amin * uy + bmin * vy;
  const d = new Float32Array(W * H);
  const k = Math.min(3, Math.max(1, Math.ceil(r)));
  const inv = 1 / (k * k);
  for (let j = 0; j < H; j++) {
    for (let i = 0; i < W; i++) {
      let s = 0;
      for (let b = 0; b < k; b++) {
        const jj = (j + (b + 0.5) / k - 0.5) * r;
        for (let a = 0; a < k; a++) {
          const ii = (i + (a + 0.5) / k - 0.5) * r;
          const x = ox + ii * ux + jj * vx;
          const y = oy + ii * uy + jj * vy;
          if (x < -0.5 || y < -0.5 || x > img.w - 0.5 || y > img.h - 0.5) s += meanGrey;
          else {
            const xi = x < 0 ? 0 : x > img.w - 1 ? img.w - 1 : x;
            const yi = y < 0 ? 0 : y > img.h - 1 ? img.h - 1 : y;
            const x0 = Math.floor(xi);
            const y0 = Math.floor(yi);
            const x1 = x0 + 1 < img.w ? x0 + 1 : x0;
            const y1 = y0 + 1 < img.h ? y0 + 1 : y0;
            const fx = xi - x0;
            const fy = yi - y0;
            const D = img.d;
            const top = D[y0 * img.w + x0] + (D[y0 * img.w + x1] - D[y0 * img.w + x0]) * fx;
            const bot = D[y1 * img.w + x0] + (D[y1 * img.w + x1] - D[y1 * img.w + x0]) * fx;
            s += top + (bot - top) * fy;
          }
        }
      }
      d[j * W + i] = s * inv;
    }
  }
  const ink = textInk({ w: W, h: H, d });
  return { img: { w: W, h: H, d }, ox, oy, ux, uy, vx, vy, r, bands: findBands(ink, W, H), ink };
}

/** Two bands share more than half of the smaller one's rows. */
function overlap(a: Band, b: Band): boolean {
  const o = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) + 1;
  return o > 0.5 * Math.min(a.bottom - a.top + 1, b.bottom - b.top + 1);
}

/** Dark strokes of a strip minus their horizontally long part: text rows stay, rules and card edges go. */
function textInk(s: Grey): Float32Array {
  const ink = blackTopHat(s, 7);
  const long = openRows(ink, s.w, s.h, 2 * STRIP_CAP + 1);
  for (let i = 0; i < ink.length; i++) ink[i] = Math.max(0, ink[i] - long[i]);
  return ink;
}

export function findBands(ink: Float32Array, w: number, h: number): Band[] {
  const row = new Float32Array(h);
  for (let j = 0; j < h; j++) {
    let t = 0;
    for (let i = 0; i < w; i++) t += ink[j * w + i];
    row[j] = t / w;
  }
  const sm = new Float32Array(h);
  for (let j = 0; j < h; j++) sm[j] = (row[Math.max(0, j - 1)] + row[j] + row[Math.min(h - 1, j + 1)]) / 3;
  let max = 0;
  for (let j = 0; j < h; j++) if (sm[j] > max) max = sm[j];
  if (max <= 0) return [];
  // the row regions first, then measured strongest first: a faint region (a photo's background, small print) whose
  // refined band reaches into a line's rows must not take those rows before the line does
  const regions: Array<{ top: number; bottom: number; P: number }> = [];
  let j = 0;
  while (j < h) {
    if (sm[j] < 0.25 * max) {
      j++;
      continue;
    }
    let e = j;
    let peak = j;
    while (e < h && sm[e] >= 0.25 * max) {
      if (sm[e] > sm[peak]) peak = e;
      e++;
    }
    const P = sm[peak];
    let top = peak;
    while (top > 0 && sm[top - 1] >= 0.35 * P) top--;
    let bottom = peak;
    while (bottom < h - 1 && sm[bottom + 1] >= 0.35 * P) bottom++;
    j = Math.max(e, bottom + 1);
    if (bottom - top + 1 >= 6) regions.push({ top, bottom, P });
  }
  regions.sort((a, b) => b.P - a.P);
  const bands: Band[] = [];
  for (const { top, bottom } of regions) {
    const first = bandAt(ink, w, h, top, bottom);
    if (!first) continue;
    // refine on the band's own columns (a bracket or a card edge beside the zone no longer counts); this may
    // also split two lines that the full-width profile merged
    const lo = Math.max(0, Math.round(top - 0.6 * (bottom - top + 1)));
    const hi = Math.min(h - 1, Math.round(bottom + 0.6 * (bottom - top + 1)));
    const prof: number[] = [];
    for (let y = lo; y <= hi; y++) {
      let t = 0;
      for (let x = first.left; x < first.right; x++) t += ink[y * w + x];
      prof.push(t);
    }
    const pk = Math.max(...prof);
    let y = 0;
    let refined = 0;
    while (y < prof.length) {
      if (prof[y] < 0.35 * pk) {
        y++;
        continue;
      }
      let e = y;
      while (e < prof.length && prof[e] >= 0.35 * pk) e++;
      if (e - y >= 6) {
        const b = bandAt(ink, w, h, lo + y, lo + e - 1);
        if (b && b.right - b.left >= 0.6 * (first.right - first.left) && !bands.some((o) => overlap(o, b))) {
          bands.push(b);
          refined++;
        }
      }
      y = e;
    }
    if (!refined && !bands.some((o) => overlap(o, first))) bands.push(first);
  }
  bands.sort((a, b) => a.cy - b.cy);
  return bands;
}

/** A band between two rows: its column profile (in-band ink minus ink just above and below, so that glyphs stay
 * and rules or borders cancel out) and its extent. */
function bandAt(ink: Float32Array, w: number, h: number, top: number, bottom: number): Band | null {
  const capH = bottom - top + 1;
  const col = new Float32Array(w);
  const outside = new Float32Array(w);
  for (let y = top; y <= bottom; y++) for (let x = 0; x < w; x++) col[x] += ink[y * w + x];
  const m0 = Math.round(0.2 * capH);
  const m1 = Math.round(0.5 * capH);
  let rows = 0;
  for (const y0 of [top - m1, bottom + m0]) {
    for (let y = Math.max(0, y0); y <= Math.min(h - 1, y0 + m1 - m0); y++) {
      rows++;
      for (let x = 0; x < w; x++) outside[x] += ink[y * w + x];
    }
  }
  if (rows) for (let x = 0; x < w; x++) col[x] = Math.max(0, col[x] - (1.5 * capH * outside[x]) / rows);
  const ext = extent(col, capH);
  if (!ext) return null;
  return { top, bottom, cy: (top + bottom + 1) / 2, left: ext[0], right: ext[1], col };
}

/** The longest run of inked columns, joining gaps shorter than about one character. */
function extent(col: Float32Array, cap: number): [number, number] | null {
  const w = col.length;
  const pos = Array.from(col).filter((v) => v > 0).sort((a, b) => a - b);
  if (pos.length < 4) return null;
  const thr = 0.1 * pos[Math.floor(pos.length * 0.9)];
  const runs: Array<[number, number, number]> = [];
  let i = 0;
  while (i < w) {
    if (col[i] <= thr) {
      i++;
      continue;
    }
    let e = i;
    let mass = 0;
    while (e < w && col[e] > thr) mass += col[e++];
    const last = runs[runs.length - 1];
    if (last && i - last[1] < 0.95 * cap) {
      last[1] = e;
      last[2] += mass;
    } else runs.push([i, e, mass]);
    i = e;
  }
  let best: [number, number, number] | null = null;
  for (const r of runs) if (!best || r[1] - r[0] > best[1] - best[0]) best = r;
  return best ? [best[0], best[1]] : null;
}

/**
 * Sets of 2 or 3 bands that look like an MRZ: same cap, aligned ends, regular spacing. Not necessarily consecutive:
 * a band of another cap height between two lines (the microtext rule printed between the lines of German and Danish
 * passports) is passed over.
 */
export function bandSets(strip: Strip): Band[][] {
  // only bands long enough to be an MRZ line (a 30-character line is about 30 cap heights long)
  const b = strip.bands.filter((x) => x.right - x.left >= 12 * (x.bottom - x.top + 1));
  const out: Array<{ set: Band[]; score: number }> = [];
  const consider = (set: Band[]) => {
    const m = set.length;
    const caps = set.map((x) => x.bottom - x.top + 1);
    const cap = median(caps);
    if (Math.min(...caps) < 0.6 * cap || Math.max(...caps) > 1.6 * cap) return;
    const lens = set.map((x) => x.right - x.left);
    if (Math.min(...lens) < 10 * cap) return;
    const gaps: number[] = [];
    for (let i = 1; i < m; i++) {
      const gap = set[i].cy - set[i - 1].cy;
      // up to 4 cap heights apart: a rendered data page may print its lines far apart (a public Russian specimen: 3.5
      // measured caps of its thin face); a text line between them of this cap still rules the pair out (below)
      if (gap < 1.1 * cap || gap > 4 * cap) return;
      // both ends within 1.5 cap heights, or one end so and the other within 3 (a mark or a border just beside one
      // line's end joined to its extent; the grids of the lines are reconciled later, see index.ts aligned())
      const dl = Math.abs(set[i].left - set[0].left);
      const dr = Math.abs(set[i].right - set[0].right);
      if (Math.max(dl, dr) > 1.5 * cap && (Math.min(dl, dr) > 1.5 * cap || Math.max(dl, dr) > 3 * cap)) return;
      gaps.push(gap);
    }
    if (m === 3 && Math.abs(gaps[0] - gaps[1]) > 0.3 * Math.max(...gaps)) return;
    // a band skipped between two members must be of another size (a rule, microtext), not a text line of this cap
    for (const o of b) {
      if (set.includes(o) || o.cy < set[0].cy || o.cy > set[m - 1].cy) continue;
      const oc = o.bottom - o.top + 1;
      if (oc >= 0.6 * cap && oc <= 1.6 * cap) return;
    }
    out.push({ set, score: lens.reduce((x, y) => x + y, 0) / m + m });
  };
  for (let i = 0; i < b.length; i++) {
    for (let j = i + 1; j < b.length; j++) {
      consider([b[i], b[j]]);
      for (let k = j + 1; k < b.length; k++) consider([b[i], b[j], b[k]]);
    }
  }
  // A pair of TD1-long lines (30 characters: about 30 cap heights) with no third line beside it: a TD1 zone has three
  // lines on one grid, so the missing one is measured where it must be, one line pitch above or below, on the pair's
  // cap height and extent (a line crossed by a watermark or a pattern, whose own band was cut short, or a faint one).
  // Read before the pair itself; a band that holds no line reads as nothing and the pair is read next.
  for (const o of [...out]) {
    const set = o.set;
    if (set.length !== 2) continue;
    const cap = (set[0].bottom - set[0].top + set[1].bottom - set[1].top + 2) / 2;
    const len = (set[0].right - set[0].left + set[1].right - set[1].left) / 2;
    if (len > TD1_MAX_LENGTH * cap) continue;
    if (out.some((x) => x.set.length === 3 && x.set.includes(set[0]) && x.set.includes(set[1]))) continue;
    const gap = set[1].cy - set[0].cy;
    for (const cy of [set[0].cy - gap, set[1].cy + gap]) {
      const top = Math.round(cy - cap / 2);
      const bottom = top + Math.round(cap) - 1;
      if (top < 0 || bottom >= strip.img.h) continue;
      const third = lineBand(strip, top, bottom, Math.min(set[0].left, set[1].left), Math.max(set[0].right, set[1].right));
      if (!third) continue;
      out.push({ set: cy < set[0].cy ? [third, ...set] : [...set, third], score: o.score + 0.5 });
    }
  }
  out.sort((x, y) => y.score - x.score);
  return out.map((o) => o.set);
}

/** Longest line, in cap heights, of a band pair taken for two lines of a TD1 zone (30 characters, ~30 cap heights). */
const TD1_MAX_LENGTH = 34;

/** A band measured between two rows of a strip on a given extent (a line of the zone where the others say it is). */
function lineBand(strip: Strip, top: number, bottom: number, left: number, right: number): Band | null {
  const band = bandAt(strip.ink, strip.img.w, strip.img.h, top, bottom);
  if (!band) return null;
  // some ink inside the extent: an empty band (no line there) is not read
  let ink = 0;
  for (let x = left; x < right; x++) ink += band.col[x];
  return ink > 0 ? { ...band, left, right } : null;
}

/**
 * Grid fit of n cells on a band; returns the line geometry in original-image coordinates. `chirps`: the perspectives
 * searched (features.ts cellAt); [0], a flat grid, unless the caller asks for more.
 */
export function fitGrid(strip: Strip, band: Band, n: number, chirps: readonly number[] = [0]): LineGeom & { cost: number; chirp: number } {
  const c = band.col;
  const w = c.length;
  const pre = new Float64Array(w + 1);
  for (let i = 0; i < w; i++) pre[i + 1] = pre[i] + c[i];
  const at = (x: number) => {
    if (x <= 0 || x >= w - 1) return 0;
    const i = Math.floor(x);
    return c[i] + (c[i + 1] - c[i]) * (x - i);
  };
  const inkBetween = (a: number, b: number) => pre[Math.max(0, Math.min(w, Math.round(b)))] - pre[Math.max(0, Math.min(w, Math.round(a)))];
  const L = band.left;
  const R = band.right;
  const p0 = (R - L) / (n - 0.35);
  const total = pre[w];
  // the best grid so far, as plain numbers (see FittedLine)
  let bestX0 = L - 0.2 * p0;
  let bestP = p0;
  let bestChirp = 0;
  let bestCost = Infinity;
  // the cell boundaries of a unit pitch, per chirp (ends fixed: see cellAt)
  const units = chirps.map((ch) => {
    const u = new Float64Array(n);
    for (let k = 1; k < n; k++) u[k] = bentOffset(k, n, ch);
    return u;
  });
  for (let ci = 0; ci < chirps.length; ci++) {
    const u = units[ci];
    for (let ps = -30; ps <= 30; ps++) {
      const p = p0 * (1 + ps * 0.0015);
      for (let xs = 0; xs <= 24; xs++) {
        const x0 = L - 0.55 * p + (xs / 24) * 0.65 * p;
        let cost = 0;
        for (let k = 1; k < n; k++) cost += at(x0 + u[k] * p);
        const outside = total - inkBetween(x0, x0 + n * p);
        // ink left outside the grid, normalised like a boundary crossing
        cost += outside * 0.05;
        if (cost < bestCost) {
          bestX0 = x0;
          bestP = p;
          bestChirp = chirps[ci];
          bestCost = cost;
        }
      }
    }
  }
  const cap = (band.bottom - band.top + 1) * strip.r;
  const ox = strip.ox + bestX0 * strip.r * strip.ux + band.cy * strip.r * strip.vx;
  const oy = strip.oy + bestX0 * strip.r * strip.uy + band.cy * strip.r * strip.vy;
  return new FittedLine(ox, oy, strip.ux, strip.uy, strip.vx, strip.vy, bestP * strip.r, cap, n, bestCost, bestChirp);
}

/**
 * A fitted line. A class, not an object literal, and the search above keeps plain numbers rather than a `best`
 * object: on Node 24.21 (V8 13.6), while fitGrid was being optimised, the literal it returned for one line was
 * sometimes written over with the next call's values (both lines of a passport then had the second line's geometry
 * and the zone read as nothing; about one run in four of the composition tests on a busy machine, never with
 * --no-maglev or --no-turbofan). Built this way it has not happened since: test/unit/local/mrz-determinism.test.ts.
 */
class FittedLine implements LineGeom {
  ox: number;
  oy: number;
  ux: number;
  uy: number;
  vx: number;
  vy: number;
  pitch: number;
  cap: number;
  n: number;
  cost: number;
  chirp: number;
  constructor(ox: number, oy: number, ux: number, uy: number, vx: number, vy: number, pitch: number, cap: number, n: number, cost: number, chirp: number) {
    this.ox = ox;
    this.oy = oy;
    this.ux = ux;
    this.uy = uy;
    this.vx = vx;
    this.vy = vy;
    this.pitch = pitch;
    this.cap = cap;
    this.n = n;
    this.cost = cost;
    this.chirp = chirp;
  }
}

/** The same line read the other way round (image upside down relative to the strip). */
export function flipGeom(g: LineGeom): LineGeom {
  // read from the other end, the glyphs shrink where they grew: the chirp changes sign (cellAt)
  return { ...g, ox: g.ox + g.n * g.pitch * g.ux, oy: g.oy + g.n * g.pitch * g.uy, ux: -g.ux, uy: -g.uy, vx: -g.vx, vy: -g.vy, chirp: -(g.chirp ?? 0) };
}
