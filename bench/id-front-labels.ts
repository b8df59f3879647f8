// The ID-front label-value rules (server/src/providers/local/text/id-front.ts, readIdFrontFields) on printed faces
// that carry their own truth: the ID specimens of ../shared/testdata/documents (bench/data/mrz-truth.json), whose
// data pages print SURNAME / GIVEN NAMES / DOCUMENT NO. labels in many languages beside a zone that says what the values
// are. Each image is read as live mode reads a landscape card (decode, shrink to the OCR side, tesseract with the four
// languages); the rules read the fields of `passport` (P zones) or `national_id_card` (the others) from those lines,
// without the zone, and are scored against the zone's number, surname and given names (folded: case, accents, spaces
// and `<` ignored). A development measure of the rules beside dev-reading's ID fronts (which are few): this set is not
// a held-out set (the rules were developed looking at it) and live mode does not run these rules on pages with a
// zone. OCR lines are cached under the OS temp directory (`--fresh` reads again).
// Usage: node bench/id-front-labels.ts [--fresh] [-v]   (node 24, node_modules/.bin first on PATH)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parse as parseMrz } from 'mrz';
import { getEntry } from '../server/src/catalogue/index.ts';
import { decodeImage, shrinkPage } from '../server/src/providers/local/image.ts';
import { ocrPage, terminateOcr } from '../server/src/providers/local/ocr.ts';
import { readIdFrontFields } from '../server/src/providers/local/text/id-front.ts';
import type { TextLine } from '../server/src/providers/local/types.ts';

const DOCS = resolve(import.meta.dirname, '../../shared/testdata/documents');
const CACHE = join(tmpdir(), 'cotejo-id-front-labels');
const fresh = process.argv.includes('--fresh');
const verbose = process.argv.includes('-v');
mkdirSync(CACHE, { recursive: true });

const truth = JSON.parse(readFileSync(join(import.meta.dirname, 'data/mrz-truth.json'), 'utf8')) as Array<{ file: string; lines: string[] }>;
const fold = (s: unknown) => String(s ?? '').normalize('NFD').replace(/\p{M}/gu, '').toUpperCase().replace(/[^A-Z0-9]/g, '');
const checks = [['number', 'document_number', 'documentNumber'], ['surname', 'last_name', 'lastName'], ['given names', 'first_name', 'firstName']] as const;
const score = new Map<string, { ok: number; read: number; all: number }>(checks.map(([c]) => [c, { ok: 0, read: 0, all: 0 }]));

for (const t of truth) {
  const cached = join(CACHE, `${basename(t.file)}.json`);
  let lines: TextLine[];
  if (!fresh && existsSync(cached)) lines = JSON.parse(readFileSync(cached, 'utf8')) as TextLine[];
  else {
    const image = await shrinkPage(await decodeImage(readFileSync(join(DOCS, t.file)), t.file.endsWith('.png') ? 'image/png' : 'image/jpeg'), 2400);
    lines = await ocrPage(image, { languages: ['eng', 'spa', 'fra', 'por'] });
    writeFileSync(cached, JSON.stringify(lines));
  }
  let zone;
  try {
    zone = parseMrz(t.lines, { autocorrect: false }).fields as Record<string, string | null>;
  } catch {
    continue; // a zone the mrz package does not parse (a national format): nothing to score against
  }
  const entry = getEntry(t.lines[0][0] === 'P' ? 'passport' : 'national_id_card')!;
  const read = readIdFrontFields(lines, entry, entry.fields, { country: null });
  const row: string[] = [];
  for (const [check, field, key] of checks) {
    const s = score.get(check)!;
    const got = read[field]?.value;
    if (!fold(zone[key])) continue; // the zone carries none (a single name)
    s.all++;
    if (got !== undefined) s.read++;
    if (fold(got) === fold(zone[key])) s.ok++;
    row.push(`${check}: ${fold(got) === fold(zone[key]) ? 'ok' : `${JSON.stringify(got ?? null)} (zone ${zone[key]})`}${got !== undefined ? ` @${read[field].confidence}` : ''}`);
  }
  if (verbose) console.log(basename(t.file).padEnd(22), row.join(' | '));
}
await terminateOcr();
console.log('| field | right | read (right or wrong) | specimens |\n|---|---|---|---|');
for (const [check, s] of score) console.log(`| ${check} | ${s.ok} | ${s.read} | ${s.all} |`);
