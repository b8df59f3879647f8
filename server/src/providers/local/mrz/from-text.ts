/**
 * MRZ-shaped lines in a page's OCR text (issue #28): when the zone locator found no zone on a page (infrared or
 * ultraviolet captures, both sides of a card in one image, worn low-contrast scans), page OCR has often still found
 * the zone's lines (PP-OCR's detector is robust on tinted and cluttered photos). Their boxes become zone candidates
 * for the dedicated reader (grid fit, glyph model, check-digit repairs): the OCR's characters are only used to pick
 * the lines, never read as the zone's content.
 */
import type { TextLine } from '../types.ts';
import type { LineBlob, ZoneCandidate } from './locate.ts';

/** The OCR's text of a line with the usual misreadings of `<` runs folded, spaces dropped. */
export function mrzText(text: string): string {
  return text
    .toUpperCase()
    .replace(/[«‹<(){}\[\]]/g, '<')
    .replace(/\s+/g, '');
}

/**
 * A line of OCR text that may be an MRZ line: long, mostly A-Z 0-9 `<`, with a filler or many digits, wide and
 * thin. (The reader decides: a zone is taken only when its check digits pass.)
 */
export function mrzLike(l: TextLine, pageW: number, pageH: number): boolean {
  return mrzPart(l, pageW, pageH) !== null;
}

/**
 * The MRZ-like part of an OCR line and its share of the line's box: an engine may box a zone line together with text
 * beside it (the page a card lies on), so the part is the longest run of words in A-Z 0-9 `<` (after mrzText), and
 * its box the line's box cut in proportion to the characters. Null when the line holds no MRZ-like part: long, with
 * fillers or many digits, wide and thin.
 */
export function mrzPart(l: TextLine, pageW: number, pageH: number): { text: string; bbox: TextLine['bbox'] } | null {
  const raw = l.text.toUpperCase();
  const words = raw.split(/(\s+)/);
  let best = { from: 0, to: 0, text: '' };
  let at = 0;
  let run = { from: 0, text: '' };
  for (const w of words) {
    const t = mrzText(w);
    if (/^\s*$/.test(w)) {
      at += w.length;
      continue;
    }
    const ok = t.replace(/[^A-Z0-9<]/g, '').length >= 0.85 * t.length && /[A-Z0-9<]/.test(t);
    // a run starts at a word that looks like a zone line's start (a filler, or 8 characters or more: not a short word of
    // the text beside it) and goes on over the words after it (an engine's space inside a filler run)
    if (ok && (run.text || t.includes('<') || t.length >= 8)) {
      if (!run.text) run = { from: at, text: '' };
      run.text += t;
      if (run.text.length > best.text.length) best = { from: run.from, to: at + w.length, text: run.text };
    } else run = { from: 0, text: '' };
    at += w.length;
  }
  const t = best.text;
  if (t.length < 18 || t.length > 52) return null;
  const fillers = (t.match(/</g) ?? []).length;
  const digits = (t.match(/[0-9]/g) ?? []).length;
  if (fillers < 2 && digits < 6) return null;
  const [x0, y0, x1, y1] = l.bbox;
  const n = Math.max(1, raw.length);
  const bbox: TextLine['bbox'] = [x0 + ((x1 - x0) * best.from) / n, y0, x0 + ((x1 - x0) * best.to) / n, y1];
  const w = (bbox[2] - bbox[0]) * pageW;
  const h = (y1 - y0) * pageH;
  return w > 6 * h && w > 0.12 * Math.max(pageW, pageH) ? { text: t, bbox } : null;
}

const blobOf = (l: { bbox: TextLine['bbox'] }, pageW: number, pageH: number): LineBlob => ({
  cx: ((l.bbox[0] + l.bbox[2]) / 2) * pageW,
  cy: ((l.bbox[1] + l.bbox[3]) / 2) * pageH,
  ux: 1,
  uy: 0,
  length: (l.bbox[2] - l.bbox[0]) * pageW,
  // an OCR box holds the line's ascenders and some margin; the locator's blob thickness is about the cap height
  thickness: 0.7 * (l.bbox[3] - l.bbox[1]) * pageH,
});

/** At most this many candidates are read from the text (each is a few tens of ms of the reader). */
export const MAX_TEXT_ZONES = 3;

/**
 * Zone candidates from the MRZ-like lines of a page's OCR (both engines' lines may be given: duplicates are merged by
 * place): lines of similar width stacked at line spacing make one candidate, a lone line one of its own (the strip
 * around it leaves room for the lines OCR missed). Largest groups first, lower on the page first (zones sit at the
 * bottom of a card or a passport page).
 */
export function zonesFromText(lines: TextLine[], pageW: number, pageH: number): ZoneCandidate[] {
  const blobs: Array<LineBlob & { tilt: number }> = [];
  for (const l of lines) {
    const part = mrzPart(l, pageW, pageH);
    if (!part) continue;
    const b = blobOf(part, pageW, pageH);
    if (blobs.some((o) => Math.abs(o.cy - b.cy) < 0.8 * Math.max(o.thickness, b.thickness) && Math.abs(o.cx - b.cx) < 0.3 * o.length)) continue;
    // a tilted line's axis-aligned box is taller than its glyphs (about 1.8 pitches with the box's margin): the excess
    // over the length is the tilt's sine, its sign unknown
    const h = (part.bbox[3] - part.bbox[1]) * pageH;
    const pitch = b.length / part.text.length;
    blobs.push({ ...b, tilt: Math.max(0, Math.min(0.2, (h - 1.8 * pitch) / b.length)) });
  }
  blobs.sort((a, b) => a.cy - b.cy);
  const groups: Array<typeof blobs> = [];
  for (const b of blobs) {
    const g = groups.find((g) => {
      const last = g[g.length - 1];
      const r = Math.min(last.length, b.length) / Math.max(last.length, b.length);
      const gap = b.cy - last.cy;
      const T = Math.max(last.thickness, b.thickness);
      // (an engine may cut a line short where its filler run fades: left edges aligned, or centres)
      const left = Math.abs(last.cx - last.length / 2 - (b.cx - b.length / 2));
      const aligned = left < 0.1 * Math.max(last.length, b.length) || Math.abs(last.cx - b.cx) < 0.15 * last.length;
      return g.length < 3 && r > 0.4 && gap > 0.6 * T && gap < 3.5 * T && aligned;
    });
    if (g) g.push(b);
    else groups.push([b]);
  }
  return groups
    .sort((a, b) => b.length - a.length || b[0].cy - a[0].cy)
    .slice(0, MAX_TEXT_ZONES)
    .flatMap((g) => {
      const tilt = Math.max(...g.map((b) => b.tilt));
      // the box is then taller than the glyphs by about the tilt; the thickness is the glyphs' (the tilt taken off)
      const at = (sin: number): ZoneCandidate => ({
        axis: 'h',
        lines: g.map(({ tilt: _, ...b }) => ({ ...b, ux: Math.sqrt(1 - sin * sin), uy: sin, thickness: sin === 0 ? b.thickness : Math.max(0.3 * b.thickness, b.thickness - 0.7 * Math.abs(sin) * b.length) })),
        score: g.length,
      });
      return tilt > 0.015 ? [at(0), at(tilt), at(-tilt)] : [at(0)];
    });
}
