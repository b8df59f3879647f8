// Captures the text lines (OCR words with boxes, or a PDF's text layer) of the `tune` receipts and invoices of
// ../shared/testdata/documents-dev, exactly as live mode's local readers produce them, into a cache directory, so
// that bench/receipts.ts measures the text rules in seconds instead of re-running page OCR.
// Usage: node bench/receipts-capture.ts [--out DIR] [--split tune|validate] [--fixtures FILE...]
//   --fixtures: also writes test/unit/local/fixtures/receipts/<name>.json for the named files (unit-test fixtures).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { loadConfig } from '../server/src/config.ts';
import { decodeImage, pageImageFromRgba, shrinkPage } from '../server/src/providers/local/image.ts';
import { ocrPage, terminateOcr } from '../server/src/providers/local/ocr.ts';
import { readPdf, renderPdfPage } from '../server/src/providers/local/pdf.ts';
import { MAX_READ_SIDE, type TextLine } from '../server/src/providers/local/types.ts';
import { detectFileType } from '../server/src/domain/intake/detect.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const DEV = resolve(ROOT, '../shared/testdata/documents-dev');
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const OUT = arg('--out', '/tmp/cotejo-receipts-ocr');
const SPLIT = arg('--split', 'tune');
const fixtureIdx = process.argv.indexOf('--fixtures');
const fixtures = fixtureIdx >= 0 ? process.argv.slice(fixtureIdx + 1) : [];
/** The same as providers/local/index.ts (OCR_MAX_SIDE). */
const OCR_MAX_SIDE = 2400;

interface Truth { path: string; category: string; split: string }
const truth = (JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Truth[]).filter(
  (t) => (t.category === 'receipts' || t.category === 'invoices') && t.split === SPLIT,
);
const config = loadConfig();

async function linesOf(path: string): Promise<TextLine[]> {
  const bytes = new Uint8Array(readFileSync(path));
  const mime = detectFileType(bytes)!.mime;
  if (mime === 'application/pdf') {
    const content = await readPdf(bytes, { maxPages: 4 });
    const lines = content.pages.flatMap((p) => p.lines);
    for (const p of content.pages.filter((x) => !x.hasText).slice(0, 4)) {
      const raw = await renderPdfPage(bytes, p.page, { maxSide: MAX_READ_SIDE });
      const image = await pageImageFromRgba(raw, p.page);
      lines.push(...(await ocrPage(await shrinkPage(image, OCR_MAX_SIDE), { languages: config.ocrLanguages })));
    }
    return lines;
  }
  const image = await decodeImage(bytes, mime as never);
  return ocrPage(await shrinkPage(image, OCR_MAX_SIDE), { languages: config.ocrLanguages });
}

const round = (v: number) => Math.round(v * 10000) / 10000;
function compact(lines: TextLine[]): TextLine[] {
  return lines.map((l) => ({
    page: l.page, text: l.text, bbox: l.bbox.map(round) as TextLine['bbox'], confidence: round(l.confidence),
    ...(l.words ? { words: l.words.map((w) => ({ text: w.text, bbox: w.bbox.map(round) as TextLine['bbox'], confidence: round(w.confidence) })) } : {}),
  }));
}

mkdirSync(OUT, { recursive: true });
for (const t of truth) {
  const file = join(OUT, `${t.path.replace(/\//g, '__')}.json`);
  const fixture = fixtures.includes(basename(t.path));
  if (existsSync(file)) {
    if (fixture) writeFixture(t.path, (JSON.parse(readFileSync(file, 'utf8')) as { lines: TextLine[] }).lines);
    continue;
  }
  const t0 = performance.now();
  // A page OCR that fails or runs past its budget gives no text in live mode either: recorded as such.
  let error: string | null = null;
  const lines = compact(await linesOf(join(DEV, t.path)).catch((e: Error) => ((error = e.message), [])));
  const ms = performance.now() - t0;
  writeFileSync(file, JSON.stringify({ path: t.path, ms: Math.round(ms), lines, error }));
  console.log(`${t.path}\t${lines.length} lines\t${(ms / 1000).toFixed(1)} s${error ? `\t${error}` : ''}`);
  if (fixture) writeFixture(t.path, lines);
}

function writeFixture(path: string, lines: TextLine[]): void {
  const dir = join(ROOT, 'test/unit/local/fixtures/receipts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${basename(path).replace(/\.[^.]+$/, '')}.json`), `${JSON.stringify({ source: `documents-dev/${path}`, lines })}\n`);
}
await terminateOcr();
