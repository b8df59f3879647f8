// The printed face of ID cards without a zone or barcode (issue #28): type, country, state and printed fields of the
// files of ../shared/testdata/documents-dev/id-fronts/ read through the real local provider (decode, page OCR,
// rules), with the seconds per file (wall, OCR worker warm after the first file). Prints a table; the figures go
// into bench/results/id-fronts.md by hand.
// Usage: node bench/id-fronts.ts --split tune|validate   (the validate split is held out: run it once, at the end)
//        node bench/id-fronts.ts --extra DIR   (a study set outside the dev data: DIR/truth.json, an array of
//        { path, source, expected }, and the files DIR/<path>; scored the same way)
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { loadConfig } from '../server/src/config.ts';
import { createLogger } from '../server/src/logger.ts';
import { detectFileType } from '../server/src/domain/intake/detect.ts';
import { createLocalProvider } from '../server/src/providers/local/index.ts';
import { terminateOcr } from '../server/src/providers/local/ocr.ts';
import type { ReadInput, Reading } from '../server/src/providers/types.ts';

const DEV = resolve(import.meta.dirname, '../../shared/testdata/documents-dev');
const extra = process.argv.includes('--extra') ? resolve(process.argv[process.argv.indexOf('--extra') + 1] ?? '') : null;
const split = process.argv[process.argv.indexOf('--split') + 1];
if (!extra && split !== 'tune' && split !== 'validate') throw new Error('--split tune|validate, or --extra DIR');

interface Truth { path: string; split?: string; expected: Record<string, string | null> }
const ROOT = extra ?? DEV;
const docs = extra
  ? (JSON.parse(readFileSync(join(extra, 'truth.json'), 'utf8')) as Truth[])
  : (JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Truth[]).filter((d) => d.path.startsWith('id-fronts/') && d.split === split);

/** Countries whose national identity card has its own catalogue type (server/src/catalogue/types/eu.ts, es, it, pt). */
const OWN_ID_CARD: Record<string, string> = {
  DEU: 'de_id_card', NLD: 'nl_id_card', BEL: 'be_id_card', AUT: 'at_id_card', POL: 'pl_id_card', ROU: 'ro_id_card', SWE: 'se_id_card',
  ESP: 'es_dni', ITA: 'it_cie', PRT: 'pt_citizen_card',
};

/** Countries whose driving licence has its own catalogue type (server/src/catalogue/types: gb, es, fr, it, pt, br). */
const OWN_DRIVING: Record<string, string> = {
  GBR: 'gb_driving_licence', ESP: 'es_driving_license', FRA: 'fr_driving_license', ITA: 'it_driving_license', PRT: 'pt_driving_license', BRA: 'br_cnh',
};

/** The catalogue type a careful human picks for a ground-truth entry. */
function expectedType(e: Truth['expected']): string {
  const kind = String(e.doc_kind);
  if (e.country === 'USA') return /driver/i.test(kind) ? 'us_drivers_license' : /passport card/i.test(kind) ? 'us_passport_card' : /permanent resident/i.test(kind) ? 'us_permanent_resident_card' : 'us_state_id';
  if (e.country === 'FRA' && /identity card/i.test(kind)) return 'fr_cni';
  if (/identity card/i.test(kind) && OWN_ID_CARD[String(e.country)]) return OWN_ID_CARD[String(e.country)];
  if (/driv/i.test(kind) && OWN_DRIVING[String(e.country)]) return OWN_DRIVING[String(e.country)];
  return /identity card/i.test(kind) ? 'national_id_card' : /driv/i.test(kind) ? 'driving_license' : 'unknown';
}

const fold = (v: unknown) => String(v ?? '').normalize('NFD').replace(/\p{M}+/gu, '').toUpperCase().replace(/[^A-Z0-9]/g, '');
const FIELDS: Array<[string, string]> = [
  ['document_number', 'document_number'], ['surname', 'last_name'], ['given_names', 'first_name'], ['birth_date', 'birth_date'],
  ['expiry_date', 'expiry_date'], ['issue_date', 'issue_date'], ['sex', 'sex'], ['state', 'region'],
];

const config = loadConfig();
const provider = createLocalProvider({ readers: config.liveReaders, ocrLanguages: config.ocrLanguages, concurrency: 1, logger: createLogger('silent') })!;
let typeOk = 0;
const fieldOk: Record<string, [number, number]> = {};
const confOf: Array<{ conf: number; ok: boolean }> = [];
const times: number[] = [];
const misses: string[] = [];
console.log(`| file | expected | read (confidence) | country | ${FIELDS.map((f) => f[0]).join(' | ')} | s |`);
console.log(`|---|---|---|---|${FIELDS.map(() => '---').join('|')}|---|`);
for (const d of docs) {
  const bytes = new Uint8Array(readFileSync(join(ROOT, d.path)));
  const mime = detectFileType(bytes)!.mime as ReadInput['mime'];
  const input: ReadInput = { bytes, filename: basename(d.path), mime, pages: 1, kind: 'analysis', expect: null, extract: true, language: 'en', holder: null, referenceDate: '2026-11-27', precise_bboxes: false };
  const t0 = performance.now();
  const r: Reading = await provider.read(input);
  const s = (performance.now() - t0) / 1000;
  times.push(s);
  const want = expectedType(d.expected);
  const ok = r.document?.type === want;
  if (ok) typeOk++;
  else misses.push(`${basename(d.path)} type: want ${want}, read ${r.document ? `${r.document.type} (${r.document.confidence})` : '-'} [${d.expected.doc_kind}]`);
  if (r.document) confOf.push({ conf: r.document.confidence, ok });
  const cells = FIELDS.map(([truthKey, field]) => {
    const exp = d.expected[truthKey];
    if (exp === undefined) return '';
    const got = r.fields[field];
    const hit = fold(got?.value) === fold(exp);
    const c = (fieldOk[truthKey] ??= [0, 0]);
    c[1]++;
    if (hit) c[0]++;
    else misses.push(`${basename(d.path)} ${truthKey}: want ${JSON.stringify(exp)}, read ${got?.value != null ? `${JSON.stringify(got.value)} (${got.confidence})` : '-'}`);
    if (got && got.value !== null) confOf.push({ conf: got.confidence, ok: hit });
    return `${hit ? 'ok' : 'miss'}${got?.value != null ? ` ${JSON.stringify(got.value)} (${got.confidence})` : ''}`;
  });
  console.log(`| ${basename(d.path)} | ${want} | ${r.document ? `${r.document.type} (${r.document.confidence})` : '-'} | ${r.document?.country ?? '-'} | ${cells.join(' | ')} | ${s.toFixed(2)} |`);
}
if (misses.length) console.log(`\nmisses:\n${misses.map((m) => `  ${m}`).join('\n')}`);
console.log(`\ntype: ${typeOk}/${docs.length}`);
for (const [k, [a, b]] of Object.entries(fieldOk)) console.log(`${k}: ${a}/${b}`);
for (const [lo, hi] of [[0, 0.5], [0.5, 0.7], [0.7, 0.85], [0.85, 1.01]]) {
  const xs = confOf.filter((x) => x.conf >= lo && x.conf < hi);
  console.log(`confidence ${lo}-${hi}: ${xs.filter((x) => x.ok).length}/${xs.length} right`);
}
const sorted = [...times].sort((a, b) => a - b);
console.log(`seconds per file: ${times.map((t) => t.toFixed(2)).join(' ')}; p50 ${sorted[Math.floor((sorted.length - 1) / 2)].toFixed(2)}, max ${sorted.at(-1)!.toFixed(2)}`);
await terminateOcr();
