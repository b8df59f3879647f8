/**
 * Issue #28: a TD1 card with a thick watermark across its first line. The reader misreads several cells of the
 * document number, and the number's check digit passes anyway (one misreading in ten does, more often among the
 * hypotheses the reader chooses from; TD1's composite digit then passes too, its document-number part weighted as the
 * number's own digit). Such a zone must not pass as sure: the misread cells stay unsure (their confidence given that
 * the field agrees with its digit), and a check digit passing on unsure cells is no proof (low_confidence, review).
 * Cards rendered at test time (support-mrz.ts renderIdCard), deterministic.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { runChecks, statusOf } from '../../../server/src/domain/analysis/checks.ts';
import { normaliseOptions } from '../../../server/src/domain/analysis/options.ts';
import { readingFromMrz } from '../../../server/src/providers/local/id-documents.ts';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import type { Reading } from '../../../server/src/providers/types.ts';
import { CHECK_CHAR_CONFIDENCE } from '../../../server/src/validators/confidence.ts';
import { loadPage, renderIdCard } from './support-mrz.ts';

const TD1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];

/** The card with `mark` (SVG elements) drawn over it, in card pixels; the centre of line 1 and its cap height given. */
async function marked(mark: (y1: number, cap: number, W: number) => string, margin = 0): Promise<Buffer> {
  const W = 1000;
  const H = Math.round((W * 54) / 85.6);
  // the zone's geometry as renderIdCard draws it
  const fontPx = (0.92 * W) / 30 / 0.6;
  const cap = 0.73 * fontPx;
  const y1 = H - 0.06 * H - fontPx * 1.25 * 2 - cap / 2;
  const svg = `<svg width="${W}" height="${H}" xmlns="http://www.w3.org/2000/svg">${mark(y1, cap, W)}</svg>`;
  const img = await sharp(await renderIdCard({ lines: TD1 })).composite([{ input: Buffer.from(svg) }]).png().toBuffer();
  return margin ? sharp(img).extend({ top: 80, bottom: 80, left: 80, right: 80, background: { r: 90, g: 90, b: 96 } }).png().toBuffer() : img;
}

const CASES: Array<[string, () => Promise<Buffer>]> = [
  // a translucent band through the middle of line 1
  ['a band', () => marked((y1, cap, W) => `<rect x="${0.2 * W}" y="${y1 - 0.15 * cap}" width="${0.6 * W}" height="${0.3 * cap}" fill="rgb(120,110,160)" fill-opacity="0.7"/>`)],
  // the thick outline of large watermark lettering across line 1, the card in a photo
  [
    'outlined lettering',
    () =>
      marked(
        (y1, cap, W) =>
          `<text x="${0.05 * W}" y="${y1 + (0.5 * cap) / 0.73}" font-family="DejaVu Sans" font-weight="bold" font-size="${(2.2 * cap) / 0.73}" fill="none" stroke="rgb(110,100,150)" stroke-width="${0.22 * cap}">SPECIMEN</text>`,
        0.1,
      ),
  ],
];

function judge(lines: string[], charConfidence: number[][]) {
  const ev = readingFromMrz({ lines, charConfidence, page: 1 }, { expect: null, referenceDate: '2026-11-27' })!;
  const reading: Reading = { document: { ...ev.document, basis: 'zone' }, candidates: ev.candidates, fields: ev.fields, warnings: [], visual: { signed: null, stamped: null }, mode: 'ocr+llm', providers: [], latencyMs: 0, failure: null };
  const type = ev.document.type;
  const options = normaliseOptions({ expect: [type], checks: { not_expired: false } } as never, 'options.', { processing: 'sovereign', served: ['sovereign', 'standard'] });
  return { reading, out: runChecks({ entry: getEntry(type), reading, options, referenceDate: '2026-11-27', language: 'en', signature: null }) };
}

describe('a TD1 first line under a watermark', () => {
  for (const [name, image] of CASES) {
    it(`${name}: the misread cells are unsure and the zone is not judged valid`, async () => {
      const r = await readMrz(await loadPage(await image()));
      expect(r).not.toBeNull();
      // the watermark does what it is here for: the document number is misread (else this proves nothing)
      expect(r!.lines[0].slice(5, 14)).not.toBe(TD1[0].slice(5, 14));
      // every misread character of the zone is unsure
      r!.lines.forEach((l, li) => Array.from(l).forEach((c, i) => {
        if (c !== TD1[li][i]) expect(r!.charConfidence[li][i], `${li}:${i} ${TD1[li][i]} read ${c}`).toBeLessThan(CHECK_CHAR_CONFIDENCE);
      }));
      const { reading, out } = judge(r!.lines, r!.charConfidence);
      expect(reading.fields.document_number.confidence).toBeLessThan(CHECK_CHAR_CONFIDENCE);
      // whether its digits pass or not, the zone is not proven: no passed MRZ check, a warning, review
      expect(out.checks).not.toContainEqual(expect.objectContaining({ code: 'mrz_checksums', passed: true }));
      expect(out.reasons).toContainEqual(expect.objectContaining({ code: 'low_confidence', severity: 'warning' }));
      expect(statusOf(out.reasons)).toBe('review');
    }, 30_000);
  }
});
