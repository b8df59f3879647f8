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
  const t = mrzText(l.text);
  if (t.length < 18 || t.length > 52) return false;
  const ok = t.replace(/[^A-Z0-9<]/g, '').length;
  if (ok < 0.85 * t.length) return false;
  const fillers = (t.match(/</g) ?? []).length;
  const digits = (t.match(/[0-9]/g) ?? []).length;
  if (fillers < 2 && digits < 6) return false;
  const w = (l.bbox[2] - l.bbox[0]) * pageW;
  const h = (l.bbox[3] - l.bbox[1]) * pageH;
  return w > 8 * h && w > 0.15 * Math.max(pageW, pageH);
}

const blobOf = (l: TextLine, pageW: number, pageH: number): LineBlob => ({
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
  const blobs: LineBlob[] = [];
  for (const l of lines) {
    if (!mrzLike(l, pageW, pageH)) continue;
    const b = blobOf(l, pageW, pageH);
    if (blobs.some((o) => Math.abs(o.cy - b.cy) < 0.8 * Math.max(o.thickness, b.thickness) && Math.abs(o.cx - b.cx) < 0.3 * o.length)) continue;
    blobs.push(b);
  }
  blobs.sort((a, b) => a.cy - b.cy);
  const groups: LineBlob[][] = [];
  for (const b of blobs) {
    const g = groups.find((g) => {
      const last = g[g.length - 1];
      const r = Math.min(last.length, b.length) / Math.max(last.length, b.length);
      const gap = b.cy - last.cy;
      const T = Math.max(last.thickness, b.thickness);
      return g.length < 3 && r > 0.7 && gap > 1.2 * T && gap < 3.5 * T && Math.abs(last.cx - b.cx) < 0.15 * last.length;
    });
    if (g) g.push(b);
    else groups.push([b]);
  }
  return groups
    .sort((a, b) => b.length - a.length || b[0].cy - a[0].cy)
    .slice(0, MAX_TEXT_ZONES)
    .map((g) => ({ axis: 'h' as const, lines: g, score: g.length }));
}
