/**
 * Offline MRZ reader (TD1, TD2, TD3, MRV-A, MRV-B, French identity card 1988-2021) for live mode: locate the zone in any of the 4 orientations,
 * deskew, cut each line on the format's character grid, classify the cells with our own OCR-B glyph model
 * (model.json, see PROVENANCE.md), repair confusions with the position classes and the check digits, and gate out
 * anything that is not plausibly an MRZ. Pure JS (no native code, no network, no files written); the model loads
 * once, on first use, and is shared read-only, so concurrent calls are safe. readMrz yields to the event loop
 * between zone candidates; one call is a few hundred ms of CPU on a small photo (see bench/results/mrz-reader.md).
 */
import type { Box, MrzReading, PageImage, TextLine } from '../types.ts';
import { classify, model } from './classify.ts';
import { zonesFromText } from './from-text.ts';
import { decode, type Decoded, type MrzFormat } from './decode.ts';
import { cellAt, lineFeatures, type LineGeom } from './features.ts';
import { cleanedCopy, greyFrom, sample, type Grey } from './image.ts';
import { bandSets, fitGrid, flipGeom, zoneStrip, type Band, type Strip } from './lines.ts';
import { LOCATE_SIDE, locateZones, type LineBlob, type ZoneCandidate } from './locate.ts';

export { decode } from './decode.ts';

/** How many zone candidates and band sets per zone are read at most. */
const MAX_ZONES = 6;
const MAX_SETS = 4;

export interface Hypothesis {
  d: Decoded;
  geoms: LineGeom[];
  /** Class probabilities per line per cell (what d was decoded from). */
  probs: Float32Array[][];
  zone: number;
}

const FORMATS: Record<number, MrzFormat[]> = { 30: ['TD1'], 36: ['TD2', 'MRVB', 'FRENCH_NATIONAL_ID'], 44: ['TD3', 'MRVA'] };

function readLines(img: Grey, geoms: LineGeom[]): Float32Array[][] {
  const m = model();
  const hidden = new Float32Array(m.nh);
  return geoms.map((g) => lineFeatures(img, g).map((f) => classify(m, f, hidden)));
}

function lineCorners(g: LineGeom): Array<[number, number]> {
  // half the line's height at each end (under perspective the glyphs are smaller at one end: cellAt)
  const h0 = 0.6 * g.cap * cellAt(g, 0).scale;
  const h1 = 0.6 * g.cap * cellAt(g, g.n).scale;
  const L = g.n * g.pitch;
  const ex = g.ox + L * g.ux;
  const ey = g.oy + L * g.uy;
  return [
    [g.ox - h0 * g.vx, g.oy - h0 * g.vy],
    [g.ox + h0 * g.vx, g.oy + h0 * g.vy],
    [ex - h1 * g.vx, ey - h1 * g.vy],
    [ex + h1 * g.vx, ey + h1 * g.vy],
  ];
}

function boxOf(points: Array<[number, number]>, w: number, h: number): Box {
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const c = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 10000) / 10000;
  return [c(Math.min(...xs) / w), c(Math.min(...ys) / h), c(Math.max(...xs) / w), c(Math.max(...ys) / h)];
}

function meanGrey(img: Grey): number {
  let mean = 0;
  for (let i = 0; i < img.d.length; i += 7) mean += img.d[i];
  return mean / Math.ceil(img.d.length / 7);
}

/**
 * The lines of a zone are printed on one grid: same left edge, same pitch. A line fitted on its own may start a cell
 * early or late (a pattern or a mark beside it taken for a glyph, the last filler too faint); when the lines disagree
 * by more than 0.4 of a cell, each line's grid is also tried on all of them (read as further hypotheses; the
 * likeliest reading wins). None when they already agree.
 */
function aligned(geoms: LineGeom[]): LineGeom[][] {
  const along = (g: LineGeom) => (g.ox - geoms[0].ox) * g.ux + (g.oy - geoms[0].oy) * g.uy;
  const a = geoms.map(along);
  if (Math.max(...a) - Math.min(...a) <= 0.4 * geoms[0].pitch) return [];
  return geoms.map((ref, j) =>
    geoms.map((g, i) => (i === j ? g : { ...g, ox: g.ox + (a[j] - a[i]) * g.ux, oy: g.oy + (a[j] - a[i]) * g.uy, pitch: ref.pitch, chirp: ref.chirp })),
  );
}

/**
 * Perspectives searched when a flat grid reads a zone-like line as nothing (features.ts cellAt): a coarse pass, then
 * finer around the best. ±0.30: glyphs at the far end down to about half the near end's height (a card turned 45° or
 * more); the study's 70 % capture fits near 0.15-0.2.
 */
const CHIRPS = Array.from({ length: 21 }, (_, i) => Math.round((i - 10) * 0.03 * 100) / 100);
const CHIRP_STEPS = [-0.015, -0.0075, 0, 0.0075, 0.015];

/**
 * A bent grid's reading is taken only with every check digit passing and at most this many characters other than the
 * classifier's first choice (check-digit repairs, letter/digit context, code lists). A line cut wrong reads many
 * unsure cells, and repairs over enough of them make any check pass: a rendered TD1 card whose first line ran into its
 * photo was read `IIRF<CTZZCRR0J2F5` "valid" with 5 such changes; the angled tune capture (MRZScanner img3) needs 1.
 * Study (bench/mrz-study.ts, angled-80 and angled-70-left): exact 22/62 with 2 readings valid but a checked character
 * wrong; 27 and 8 with no limit; 14 and 6 before session 16.
 */
const BENT_MAX_CHANGED = 2;

/** A bent grid is read only when it crosses much less ink than the flat one (a photo at an angle, not noise). */
const BENT_GAIN = 0.6;

/**
 * The lines' grids with perspective (a card photographed at an angle: its glyphs grow along the line, and a flat
 * grid drifts off them by half a cell or more in the middle), or null when no line is clearly better fitted so.
 */
function bentGrids(strip: Strip, set: Band[], n: number, flat: Array<LineGeom & { cost: number }>): LineGeom[] | null {
  const bent = set.map((b) => {
    const coarse = fitGrid(strip, b, n, CHIRPS);
    return coarse.chirp === 0 ? coarse : fitGrid(strip, b, n, CHIRP_STEPS.map((d) => coarse.chirp + d));
  });
  if (!bent.some((g, i) => g.chirp !== 0 && g.cost < BENT_GAIN * flat[i].cost)) return null;
  return bent;
}

/**
 * A reading that looks like an MRZ gone wrong (sure glyphs, names) rather than other text. The document code is not
 * asked for: on a card whose far side is at the lines' start, it is the worst-cut cell of a flat grid.
 */
const zoneLike = (h: Hypothesis) => !h.d.gateReasons.some((r) => r === 'confidence' || r === 'names');

/** Read one zone candidate: every band set, grid size, direction and format; appends to `out`. */
/** `merged`: the zone's lines seen merged into its one blob (mergedLines): read from a finer strip. */
function readZone(img: Grey, z: ZoneCandidate, zi: number, mean: number, out: Hypothesis[], merged = false): void {
  const strip = zoneStrip(img, z, mean, merged);
  for (const set of bandSets(strip).slice(0, MAX_SETS)) {
    let done = false;
    const ns = set.length === 3 ? [30] : [44, 36];
    for (const n of ns) {
      // `validOnly`: keep only readings whose check digits all pass (a grid of a hard capture: see the bent grids below)
      const read = (fwd: LineGeom[], validOnly = false) => {
        for (const geoms of [fwd, fwd.map(flipGeom).reverse()]) {
          const probs = readLines(img, geoms);
          for (const f of FORMATS[n]) {
            const d = decode(f, probs);
            if (validOnly && !(d.gate && d.valid && d.repaired <= BENT_MAX_CHANGED)) continue;
            out.push({ d, geoms, probs, zone: zi });
            if (d.gate && d.valid) done = true;
          }
        }
      };
      const own = set.map((b) => fitGrid(strip, b, n));
      const first = out.length;
      let doneOwn = false;
      for (const fwd of [own, ...aligned(own)]) {
        // the other grids only when the lines' own grids gave nothing that passes the gate but something close to it
        // (text that is no MRZ, a receipt's lines, is not read three more times), or a zone whose checks all pass
        // although its lines disagree: a name line fitted a cell off reads a stray mark as its first letter, and no
        // check digit covers names (the likeliest reading wins)
        if (fwd !== own && !doneOwn && (out.slice(first).some((h) => h.d.gate) || !out.slice(first).some(nearGate))) break;
        read(fwd);
        if (fwd === own) doneOwn = done;
        else if (done && !doneOwn) break;
      }
      // last, with perspective: nothing passed the gate, and what was read looks like a zone misread. Only a reading
      // whose check digits all pass, with at most BENT_MAX_CHANGED characters changed, is taken (as from the cleaned
      // copy): an angled capture misreads more, and a misread digit read sure would fail a genuine document's checks
      // (no zone is a review; a failing zone can be invalid)
      const tried = out.slice(first);
      if (!done && !tried.some((h) => h.d.gate) && tried.some(zoneLike)) {
        const bent = bentGrids(strip, set, n, own);
        // (the lines' bent grids, then each line's grid on all of them, as for the flat grids)
        if (bent) for (const fwd of [bent, ...aligned(bent)]) if (!done) read(fwd, true);
      }
    }
    if (done) break;
  }
}

/**
 * In the double-resolution pass, only zones the first pass did not read are new: a zone too thin for it, or a zone of
 * two lines or more it did not read as such: its lines seen merged into one (a card's zone beside another card in one
 * image: its lines 13 px apart at the first pass's scale), or the same lines with another line taken in or left out.
 * A zone every line of which lies within two line heights of a line of one zone already read (the same zone) is skipped;
 * so is one without two lines of a zone's shape, as long as each other and one above the other (a receipt's text).
 */
function secondPassFilter(img: Grey, zones: ZoneCandidate[], side: number, seen: readonly ZoneCandidate[]): ZoneCandidate[] {
  if (side === LOCATE_SIDE) return zones;
  const s = LOCATE_SIDE / Math.max(img.w, img.h);
  const near = (a: LineBlob, b: LineBlob) => Math.hypot(a.cx - b.cx, a.cy - b.cy) < 2 * Math.max(a.thickness, b.thickness);
  const read = (z: ZoneCandidate) => seen.some((k) => k.lines.length === z.lines.length && z.lines.every((l) => k.lines.some((m) => near(l, m))));
  // A zone's shape: two lines of one length, one above the other (their middles within a tenth of the length apart along
  // the line, lengths within 5 %), each 15 times as long as it is thick (30 characters and more).
  const long = (l: LineBlob) => l.length >= 15 * l.thickness;
  const alike = (a: LineBlob, b: LineBlob) =>
    Math.abs(a.length - b.length) <= 0.05 * Math.max(a.length, b.length) && Math.abs((b.cx - a.cx) * a.ux + (b.cy - a.cy) * a.uy) <= 0.1 * a.length;
  const zoneShaped = (z: ZoneCandidate) => z.lines.some((a, i) => long(a) && z.lines.some((b, j) => j !== i && long(b) && alike(a, b)));
  return zones.filter((z) => Math.min(...z.lines.map((l) => l.thickness)) * s < 6 || (zoneShaped(z) && !read(z)));
}

/**
 * The band of a line comes from its ink profile, which fillers dominate on a name line; in faces where `<` is
 * shorter than the capitals the band is then too low and too short for the letters. Re-measure the band on the
 * letter and digit cells only and read the line again; keep whichever reading is more likely.
 */
function refineBands(img: Grey, h: Hypothesis): Hypothesis {
  const geoms = h.geoms.map((g, li) => {
    const chars = h.d.lines[li];
    const cells: number[] = [];
    for (let k = 0; k < g.n; k++) if (chars[k] !== '<') cells.push(k);
    if (cells.length < 3) return g;
    const steps = 40;
    const prof = new Float64Array(steps + 1);
    const all: number[] = [];
    for (let s = 0; s <= steps; s++) {
      const t = (s / steps - 0.5) * 2 * g.cap;
      let acc = 0;
      for (const k of cells) {
        for (let a = -2; a <= 2; a++) {
          const u = cellAt(g, k + 0.5 + a * 0.12).t;
          const v = sample(img, g.ox + u * g.ux + t * g.vx, g.oy + u * g.uy + t * g.vy);
          acc += v;
          all.push(v);
        }
      }
      prof[s] = acc / (cells.length * 5);
    }
    all.sort((x, y) => x - y);
    const bg = all[Math.floor(all.length * 0.9)];
    // the band holding the middle 94 % of the ink (letters have uneven strokes: a quantile band is steadier than a
    // threshold on the profile)
    let total = 0;
    for (let s = 0; s <= steps; s++) {
      prof[s] = Math.max(0, bg - prof[s] - 0.1 * (bg - all[Math.floor(all.length * 0.02)]));
      total += prof[s];
    }
    if (total <= 0) return g;
    let cum = 0;
    let top = -1;
    let bottom = steps;
    for (let s = 0; s <= steps; s++) {
      cum += prof[s];
      if (top < 0 && cum >= 0.03 * total) top = s;
      if (cum <= 0.97 * total) bottom = s + 1;
    }
    const toT = (s: number) => (s / steps - 0.5) * 2 * g.cap;
    const shift = (toT(top) + toT(bottom)) / 2;
    const cap = (toT(bottom) - toT(top)) / 0.94;
    if (Math.abs(cap - g.cap) < 0.08 * g.cap && Math.abs(shift) < 0.06 * g.cap) return g;
    if (cap < 0.6 * g.cap || cap > 1.6 * g.cap) return g;
    return { ...g, ox: g.ox + shift * g.vx, oy: g.oy + shift * g.vy, cap };
  });
  if (geoms.every((g, i) => g === h.geoms[i])) return h;
  // a re-cut line is kept only if the classifier is surer of its cells (mean log of the best class)
  const sure = (probs: Float32Array[]) => probs.reduce((t, p) => t + Math.log(Math.max(1e-9, ...p)), 0) / probs.length;
  const before = h.probs;
  const after = geoms.map((g, i) => (g === h.geoms[i] ? before[i] : readLines(img, [g])[0]));
  const kept = geoms.map((g, i) => (g !== h.geoms[i] && sure(after[i]) > sure(before[i]) ? g : h.geoms[i]));
  if (kept.every((g, i) => g === h.geoms[i])) return h;
  const probs = kept.map((g, i) => (g === h.geoms[i] ? before[i] : after[i]));
  const d = decode(h.d.format, probs);
  return d.score > h.d.score ? { d, geoms: kept, probs, zone: h.zone } : h;
}

const byScore = (a: Hypothesis, b: Hypothesis) => b.d.score - a.d.score;

/**
 * Below this mean grey an image may be a negative (light print on dark: some infrared and ultraviolet captures, a
 * scanner's inverted output): when nothing was found, it is searched again inverted. Light images are not (a page
 * without a zone would pay for a second search for nothing).
 */
const DARK_MEAN = 110;

/** The image with its grey levels inverted (same geometry: boxes and lines stay valid). */
function inverted(img: Grey): Grey {
  const d = new Float32Array(img.d.length);
  for (let i = 0; i < d.length; i++) d[i] = 255 - img.d[i];
  return { w: img.w, h: img.h, d };
}

/** One search of an image: zones at LOCATE_SIDE, then at twice that for large images where nothing was found. */
function* searchSteps(img: Grey, hyps: Hypothesis[], zi: { n: number }, seen: ZoneCandidate[] = [], maxZones = MAX_ZONES, sides = [LOCATE_SIDE, 2 * LOCATE_SIDE]): Generator<void> {
  const mean = meanGrey(img);
  for (const side of sides) {
    // second pass at double resolution only for large images where nothing was found (a small document far away)
    if (side > LOCATE_SIDE && (Math.max(img.w, img.h) < 1.5 * LOCATE_SIDE || hyps.some((h) => h.d.gate))) break;
    for (const z of secondPassFilter(img, locateZones(img, side), side, seen).slice(0, maxZones)) {
      yield;
      seen.push(z);
      const first = hyps.length;
      const n = zi.n++;
      readZone(img, z, n, mean, hyps);
      // (only where the double-resolution pass does not run: a larger image reads its merged lines there)
      for (const m of Math.max(img.w, img.h) < 1.5 * LOCATE_SIDE ? mergedLines(z) : []) {
        if (hyps.slice(first).some((h) => h.d.gate)) break;
        yield;
        // only readings whose checks all pass with at most BENT_MAX_CHANGED characters changed are kept, as from the
        // bent grids: what merged the lines, a watermark's stroke, also lies across glyphs (a stroke through two 0s of
        // a number read them 6 and passed its check by chance)
        const found: Hypothesis[] = [];
        readZone(img, m, n, mean, found, true);
        hyps.push(...found.filter((h) => h.d.gate && h.d.valid && h.d.repaired <= BENT_MAX_CHANGED));
      }
    }
  }
}

/** A line blob shorter than this many times its thickness is no MRZ line (30 characters and more): lines merged. */
const MERGED_RATIO = 15;

/**
 * A zone whose lines the locator saw merged into one blob (lines a few pixels apart at its scale, a watermark's outline
 * across them: a substitute card's small zone printed sideways on a booklet page): the blob is too thick for one line
 * (under MERGED_RATIO times as long), and its strip, scaled to the blob, shrinks the glyphs below reading size. Read
 * again as merged lines (zoneStrip), along the blob's own direction and along its axis (what merged the lines also
 * turns the blob). None for a blob of a line's shape or a zone of several blobs.
 */
function mergedLines(z: ZoneCandidate): ZoneCandidate[] {
  if (z.lines.length !== 1) return [];
  const l = z.lines[0];
  if (l.length >= MERGED_RATIO * l.thickness) return [];
  const [ax, ay] = z.axis === 'h' ? [1, 0] : [0, 1];
  return l.ux === ax && l.uy === ay ? [z] : [z, { ...z, lines: [{ ...l, ux: ax, uy: ay }] }];
}

/** How many zone candidates the search of the cleaned copy reads at most. */
const MAX_CLEAN_ZONES = 3;

/** How many new zone candidates the faint search reads at most. */
const MAX_FAINT_ZONES = 3;

/**
 * The faint search, when the first found nothing: the locator's mask at a lower threshold finds a zone much paler than
 * the page's other ink (a worn or washed-out zone beside a dark photo). Only candidates of two lines or more that the
 * first search did not read already (the same place) are read.
 */
function* faintSteps(img: Grey, hyps: Hypothesis[], zi: { n: number }, seen: ZoneCandidate[]): Generator<void> {
  const mean = meanGrey(img);
  const centre = (z: ZoneCandidate) => [z.lines.reduce((t, l) => t + l.cx, 0) / z.lines.length, z.lines.reduce((t, l) => t + l.cy, 0) / z.lines.length];
  const known = seen.map(centre);
  const fresh = locateZones(img, LOCATE_SIDE, true).filter((z) => {
    if (z.lines.length < 2) return false;
    const [x, y] = centre(z);
    return !known.some(([kx, ky]) => Math.hypot(kx - x, ky - y) < 2 * z.lines[0].thickness);
  });
  for (const z of fresh.slice(0, MAX_FAINT_ZONES)) {
    yield;
    readZone(img, z, zi.n++, mean, hyps);
  }
}

/**
 * The images to search in turn: the image; then (nothing found) a cleaner copy of it (brightest channel of a tinted
 * photo, contrast stretched, noise smoothed: see cleanedCopy), then (dark images, still nothing) the negative.
 * Every step is a fixed sequence of work on the pixels alone: no clock, no shared state, the same answer under any load.
 */
function* searches(img: Grey, hyps: Hypothesis[], rgb?: Uint8Array): Generator<void, Grey> {
  const zi = { n: 0 };
  const seen: ZoneCandidate[] = [];
  yield* searchSteps(img, hyps, zi, seen);
  if (!hyps.some((h) => h.d.gate)) yield* faintSteps(img, hyps, zi, seen);
  if (hyps.some((h) => h.d.gate)) return img;
  const clean = cleanedCopy(img, rgb);
  if (clean) {
    yield;
    const found: Hypothesis[] = [];
    // one size and the three likeliest candidates only: the copy is searched on every photo without a zone (a receipt
    // scanned pale, an ID front in colour), it should not cost as much as the first search
    yield* searchSteps(clean, found, zi, [], MAX_CLEAN_ZONES, [LOCATE_SIDE]);
    // (the leading readings with their bands re-measured first: on a soft capture that is often what passes the gate)
    // Only a reading whose check digits all pass is taken from the copy: a smoothed, stretched capture misreads more,
    // and a misread digit would fail a genuine document's checks (no zone is a review; a failing zone can be invalid).
    const best = finish(clean, found)[0];
    if (best?.d.gate && best.d.valid) {
      hyps.length = 0;
      hyps.push(...found);
      return clean;
    }
  }
  if (meanGrey(img) >= DARK_MEAN) return img;
  const neg = inverted(img);
  const found: Hypothesis[] = [];
  yield* searchSteps(neg, found, zi);
  if (!finish(neg, found).some((h) => h.d.gate)) return img;
  hyps.length = 0;
  hyps.push(...found);
  return neg;
}

/**
 * How much of a pixel's colour (its channels' spread) lightens it in the ink-only copy, beyond its brightest channel:
 * a stamp's stroke in a strong red (210, 40, 50) on a pale card (236, 232, 240) is no lighter than the card in its
 * red channel alone, and its trace still bends a glyph; with half its spread added it is white. Black ink has none.
 */
const INK_CHROMA = 0.5;

/** A character kept below this confidence is unsure: the zone is worth reading again from the ink-only copy. */
const INK_UNSURE = 0.9;

/**
 * The zone's ink only: a colour photo's brightest channel at each pixel, lightened by its colour (INK_CHROMA). A zone is printed in black (an ink that also
 * absorbs infrared); a stamp, a signature or a guilloche over it is coloured, and bright in one channel at least (a
 * red SPECIMEN stamp across a name, a visa stamp in blue or violet over the numbers), so it fades there while the
 * zone's glyphs stay dark. Null for a grey capture (nothing to remove).
 */
function inkOnly(rgb: Uint8Array | undefined, w: number, h: number, box: [number, number, number, number]): Grey | null {
  const n = w * h;
  if (!rgb || rgb.length !== 3 * n) return null;
  const x0 = Math.max(0, Math.floor(box[0]));
  const y0 = Math.max(0, Math.floor(box[1]));
  const x1 = Math.min(w, Math.ceil(box[2]));
  const y1 = Math.min(h, Math.ceil(box[3]));
  // colour under the zone: the largest channel spread there (a grey zone has none to remove)
  let coloured = 0;
  let count = 0;
  for (let y = y0; y < y1; y += 2) {
    for (let x = x0; x < x1; x += 2) {
      const i = 3 * (y * w + x);
      if (Math.max(rgb[i], rgb[i + 1], rgb[i + 2]) - Math.min(rgb[i], rgb[i + 1], rgb[i + 2]) >= 40) coloured++;
      count++;
    }
  }
  if (count === 0 || coloured < 0.001 * count) return null;
  const d = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const hi = Math.max(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    d[i] = Math.min(255, hi + INK_CHROMA * (hi - Math.min(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])));
  }
  return { w, h, d };
}

/**
 * The best reading read again on the same grids from the ink-only copy (inkOnly), where it is unsure of a character or
 * was gated out near the gate: a coloured mark over the zone made a glyph unsure (a red stamp's stroke through the M of
 * a name read it H at 0.54). Only the cells the first reading was unsure of (best class under INK_UNSURE) take the
 * copy's evidence, averaged with their own (a sure cell is never changed by the copy); the reading replaces the first
 * when it is likelier and loses no check (a valid reading stays valid). One that did not pass the gate is replaced only
 * by a reading whose check digits all pass (as from the cleaned copy: a derived image must not make a failing zone).
 */
function inkReread(img: Grey, hyps: Hypothesis[], rgb?: Uint8Array): Hypothesis[] {
  const h = hyps[0];
  if (!rgb || !h) return hyps;
  const unsure = h.probs.map((line) => line.map((p) => Math.max(...p) < INK_UNSURE));
  if (!(h.d.gate ? unsure.some((l) => l.some(Boolean)) : nearGate(h))) return hyps;
  const corners = h.geoms.flatMap(lineCorners);
  const box: [number, number, number, number] = [Math.min(...corners.map((c) => c[0])), Math.min(...corners.map((c) => c[1])), Math.max(...corners.map((c) => c[0])), Math.max(...corners.map((c) => c[1]))];
  const ink = inkOnly(rgb, img.w, img.h, box);
  if (!ink) return hyps;
  const again = readLines(ink, h.geoms);
  const probs = h.probs.map((line, l) =>
    line.map((p, i) => {
      if (!unsure[l][i]) return p;
      const q = new Float32Array(p.length);
      for (let k = 0; k < p.length; k++) q[k] = (p[k] + again[l][i][k]) / 2;
      return q;
    }),
  );
  const d = decode(h.d.format, probs);
  if (!d.gate || d.score <= h.d.score || (h.d.gate ? h.d.valid && !d.valid : !d.valid)) return hyps;
  hyps[0] = { d, geoms: h.geoms, probs, zone: h.zone };
  return hyps.sort(byScore);
}

/** Read every hypothesis of the image; best first (synchronous; for tools and tests). */
export function readHypotheses(img: Grey, rgb?: Uint8Array): Hypothesis[] {
  const out: Hypothesis[] = [];
  const it = searches(img, out, rgb);
  let step = it.next();
  while (!step.done) step = it.next();
  finish(step.value, out);
  return step.value === img ? inkReread(img, out, rgb) : out;
}

/** Gated out for at most two reasons, none of them a low mean confidence: worth re-measuring the bands of. */
const nearGate = (h: Hypothesis) => h.d.gateReasons.length <= 2 && !h.d.gateReasons.includes('confidence');

/** Best first, the leading gated readings with their bands re-measured. */
function finish(img: Grey, hyps: Hypothesis[]): Hypothesis[] {
  hyps.sort(byScore);
  // the leading readings, also those gated out near the gate: a name line of fillers may have pulled the band off
  // the letters so far that the letters were misread and the gate failed (a French 1988 card whose surname is short)
  for (let i = 0; i < Math.min(3, hyps.length); i++) if (hyps[i].d.gate || nearGate(hyps[i])) hyps[i] = refineBands(img, hyps[i]);
  return hyps.sort(byScore);
}

/** Let other work run between zones: a read is a few hundred ms of CPU, the event loop should not wait for all of it. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Find and read the MRZ of a page image; null when there is no plausible MRZ. */
export async function readMrz(image: PageImage): Promise<MrzReading | null> {
  const grey = greyFrom(image.grey, image.width, image.height);
  await yieldToLoop();
  const hyps: Hypothesis[] = [];
  const it = searches(grey, hyps, image.rgb);
  let step = it.next();
  while (!step.done) {
    await yieldToLoop();
    step = it.next();
  }
  const img = step.value;
  finish(img, hyps);
  // (the ink-only copy is the original's: not for a reading of the cleaned copy or of the negative)
  if (img === grey) inkReread(img, hyps, image.rgb);
  return toReading(img, hyps);
}

/**
 * The fallback of issue #28, for a page where readMrz found no zone: the MRZ-like lines page OCR found on it
 * (from-text.ts) are read as zone candidates by the same reader, on the image and then on its cleaned copy. Only a
 * reading whose check digits all pass is taken (like the cleaned-copy search): a zone the locator could not see is a
 * hard capture, and a misread digit would fail a genuine document's checks (no zone is a review, a failing one can be
 * invalid). Null otherwise.
 */
export async function readMrzFromText(image: PageImage, lines: TextLine[]): Promise<MrzReading | null> {
  const grey = greyFrom(image.grey, image.width, image.height);
  const zones = zonesFromText(lines, image.width, image.height);
  if (zones.length === 0) return null;
  // The page as it is, then (when the first finds nothing valid) its cleaned copy.
  const tryCopy = async (img: Grey): Promise<MrzReading | null> => {
    const hyps: Hypothesis[] = [];
    const mean = meanGrey(img);
    for (const [i, z] of zones.entries()) {
      await yieldToLoop();
      readZone(img, z, i, mean, hyps);
      if (hyps.some((h) => h.d.gate && h.d.valid)) break;
    }
    await yieldToLoop();
    const best = finish(img, hyps)[0];
    return best?.d.gate && best.d.valid ? toReading(img, hyps) : null;
  };
  const read = await tryCopy(grey);
  if (read) return read;
  const clean = cleanedCopy(grey, image.rgb);
  return clean ? tryCopy(clean) : null;
}

/** The page's reading from its hypotheses, best first; null when the best is not plausibly an MRZ. */
function toReading(img: Grey, hyps: Hypothesis[]): MrzReading | null {
  const best = hyps[0];
  if (!best || !best.d.gate) return null;
  const { w, h } = img;
  const lineBoxes = best.geoms.map((g) => boxOf(lineCorners(g), w, h));
  const allCorners = best.geoms.flatMap(lineCorners);
  const bbox = boxOf(allCorners, w, h);
  const margin = best.geoms[0].pitch;
  const touchesEdge = allCorners.some(([x, y]) => x < margin || y < margin || x > w - margin || y > h - margin);
  // other zones: gated readings from other candidates whose box does not overlap this one
  const seen: Box[] = [bbox];
  let otherZones = 0;
  for (const o of hyps.slice(1)) {
    if (!o.d.gate || o.zone === best.zone) continue;
    const b = boxOf(o.geoms.flatMap(lineCorners), w, h);
    if (seen.some((s) => b[0] < s[2] && s[0] < b[2] && b[1] < s[3] && s[1] < b[3])) continue;
    seen.push(b);
    otherZones++;
  }
  const g = best.geoms[0];
  const rot = (-Math.atan2(g.uy, g.ux) * 180) / Math.PI;
  let rotation = ((rot % 360) + 360) % 360;
  if (rotation >= 315) rotation -= 360;
  return {
    format: best.d.format,
    lines: best.d.lines,
    valid: best.d.valid,
    repaired: best.d.repaired,
    charConfidence: best.d.conf,
    bbox,
    lineBoxes,
    touchesEdge,
    otherZones,
    rotation: Math.round(rotation * 10) / 10,
  };
}
