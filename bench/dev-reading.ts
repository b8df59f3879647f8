// Issue #28's measurement: live mode's local readers on the development set ../shared/testdata/documents-dev
// (MRZ documents, flagged MRZs, ID fronts, receipts, invoices), scored per file and per check against its
// ground-truth.json, the `tune` and `validate` splits side by side.
//
// A file of its own rather than an option of bench/live-reading.ts: that one scores the older set with its own truth
// files and also starts a server for the memory part; this one reads another set with another truth format, runs
// minutes (page OCR of the receipts), and must be re-run after every reader change without the server part. It reads
// each file exactly as live-reading.ts does (createLocalProvider, concurrency 1, engines warm, the same ReadInput,
// `expect: null` so the type is scored) and writes its section at the top of bench/results/live-reading.md, between
// the markers below, keeping the older sections.
//
// Usage: node bench/dev-reading.ts [--split tune|validate|both] [--only mrz|mrz-flagged|id-fronts|receipts|invoices]
//                                  [--save READINGS.json] [--from READINGS.json] [--budget-scale N]
//   (node 24 with node_modules/.bin first on PATH). Progress on stderr. Only a full run (both splits, every category)
//   writes the results file; a partial run prints its tables on stdout. --save keeps the readings (outside the repo:
//   they hold the validate split's read values); --from scores saved readings again without reading (for changing
//   the scoring rules only: the timings are the saved ones). --budget-scale multiplies every reader's time budget: on a
//   machine so loaded that readers run past their budgets, the checks then measure the readers, not the load (the
//   seconds are still the loaded machine's).
//
// The validate split stays unseen: for its misses only the mechanical class is printed (decided by
// bench/lib/dev-scoring.ts from the reading and the truth), never the read value; tune misses are printed in full.
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { getEntry } from '../server/src/catalogue/index.ts';
import { loadConfig } from '../server/src/config.ts';
import { detectFileType } from '../server/src/domain/intake/detect.ts';
import { inspectFile } from '../server/src/domain/intake/inspect.ts';
import { createLogger } from '../server/src/logger.ts';
import { createLocalProvider } from '../server/src/providers/local/index.ts';
import type { ReadInput, Reading } from '../server/src/providers/types.ts';
import { validateMrzChecksums } from '../server/src/validators/mrz.ts';
import {
  amountMissClass, dateMissClass, isoToYymmdd, mrzMissClass, normaliseDate, normaliseId, normaliseName, pct, sameAmount, sameVatId, textMissClass, typeMissClass,
} from './lib/dev-scoring.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DEV = resolve(ROOT, '../shared/testdata/documents-dev');
const OUT = join(import.meta.dirname, 'results/live-reading.md');
const REF = '2026-11-24';
const START = '<!-- dev-reading:start -->';
const END = '<!-- dev-reading:end -->';

const CATEGORIES = ['mrz', 'mrz-flagged', 'id-fronts', 'receipts', 'invoices'] as const;
type Category = (typeof CATEGORIES)[number];
type Split = 'tune' | 'validate';

function arg(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}
const splitArg = arg('--split') ?? 'both';
const only = arg('--only') as Category | null;
const KNOWN = new Set(['--split', '--only', '--save', '--from', '--budget-scale']);
const unknown = process.argv.slice(2).filter((a, i, all) => a.startsWith('--') && !KNOWN.has(a) && !KNOWN.has(all[i - 1] ?? ''));
if (unknown.length > 0 || !['tune', 'validate', 'both'].includes(splitArg) || (only && !CATEGORIES.includes(only))) {
  console.error('usage: node bench/dev-reading.ts [--split tune|validate|both] [--only mrz|mrz-flagged|id-fronts|receipts|invoices]');
  process.exit(2);
}
const full = splitArg === 'both' && !only;
const saveTo = arg('--save');
const from = arg('--from');

interface Entry {
  path: string;
  category: Category;
  split: Split;
  expected: Record<string, unknown> & { parsed?: Record<string, string>; mrz_lines?: string[] };
}
const all = JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Entry[];
const types = JSON.parse(readFileSync(join(import.meta.dirname, 'data/dev-types.json'), 'utf8')) as Record<string, string[]>;
const files = all.filter((e) => (splitArg === 'both' || e.split === splitArg) && (!only || e.category === only));

// ---------------------------------------------------------------- types

/** Receipt types of the catalogue (a till receipt is not an invoice); an invoice type is any type named `*invoice*`. */
const RECEIPT_TYPES = new Set(['payment_receipt', 'es_payment_receipt']);
const isInvoiceType = (t: string | null) => t !== null && /invoice/.test(t);
/** The family of a type, for classing a wrong type: invoice, receipt, else its catalogue category. */
const family = (t: string) => (isInvoiceType(t) ? 'invoice' : RECEIPT_TYPES.has(t) ? 'receipt' : (getEntry(t)?.category ?? 'unknown'));

// ---------------------------------------------------------------- reading

const config = loadConfig(); // the COTEJO_* variables apply, as in the server
const budgetScale = Number(arg('--budget-scale') ?? 1);
if (!(budgetScale >= 1)) {
  console.error('--budget-scale: a number, at least 1');
  process.exit(2);
}
const provider = createLocalProvider({ readers: config.liveReaders, ocrLanguages: config.ocrLanguages, ocrEngine: config.ocrEngine, concurrency: 1, logger: createLogger('silent'), budgetScale })!;

/** What the scoring and the report use of a reading (what --save keeps). */
type Kept = Pick<Reading, 'document' | 'fields' | 'providers'>;
interface Meta { nproc: string; cpu: string; load0: string; load1: string; wall: number; commit: string; at: string }
const savedAll = from ? (JSON.parse(readFileSync(from, 'utf8')) as Record<string, { reading: Kept; ms: number }> & { _meta?: Meta }) : null;
const saved = savedAll;

async function read(rel: string): Promise<{ reading: Kept; ms: number }> {
  if (saved) return saved[rel] ?? (() => { throw new Error(`${rel}: not in ${from}`); })();
  const bytes = new Uint8Array(readFileSync(join(DEV, rel)));
  const mime = detectFileType(bytes)!.mime;
  const { pages } = await inspectFile(bytes, mime, { maxPages: 200 });
  const input: ReadInput = {
    bytes, filename: basename(rel), mime, pages, kind: 'analysis', expect: null, extract: true, language: 'en', holder: null, referenceDate: REF, precise_bboxes: false,
  };
  const t0 = performance.now();
  const reading = await provider.read(input);
  return { reading, ms: performance.now() - t0 };
}

const value = (r: Kept, ...names: string[]): unknown => {
  for (const n of names) if (r.fields[n] && r.fields[n].value !== null && r.fields[n].value !== undefined) return r.fields[n].value;
  return null;
};

// ---------------------------------------------------------------- scoring

interface Check {
  check: string;
  ok: boolean;
  /** Mechanical class of a miss. */
  cls?: string;
  /** What was read vs the truth (printed for tune misses only). */
  detail?: string;
}
const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v.replace(/\n/g, ' / ')) : JSON.stringify(v));

function scoreType(check: string, r: Kept, expected: readonly string[]): Check {
  const got = r.document?.type ?? null;
  const ok = got !== null && expected.includes(got);
  return { check, ok, cls: ok ? undefined : typeMissClass(got, expected, family), detail: `type ${got ?? 'none'}, expected ${expected.join(' or ')}` };
}

function scoreText(check: string, got: unknown, want: unknown, kind: 'name' | 'id', zoneless = false): Check | null {
  if (want === null || want === undefined || want === '') return null;
  const norm = kind === 'name' ? normaliseName : normaliseId;
  const ok = norm(got) !== null && norm(got) === norm(want);
  const cls = ok ? undefined : zoneless && (got === null || got === undefined) ? 'zone not found' : textMissClass(got, String(want), kind);
  return { check, ok, cls, detail: `read ${show(got)}, truth ${show(want)}` };
}

function scoreDate(check: string, got: unknown, want: unknown): Check | null {
  if (typeof want !== 'string' || !want) return null;
  const ok = normaliseDate(got) === want;
  return { check, ok, cls: ok ? undefined : dateMissClass(got, want), detail: `read ${show(got)}, truth ${want}` };
}

function scoreAmount(check: string, got: unknown, want: unknown, others: Record<string, unknown>): Check | null {
  if (want === null || want === undefined) return null;
  const ok = sameAmount(got, want);
  return { check, ok, cls: ok ? undefined : amountMissClass(got, want, others), detail: `read ${show(got)}, truth ${show(want)}` };
}

function score(e: Entry, r: Kept): Check[] {
  const x = e.expected;
  const out: Array<Check | null> = [];
  const mrz = value(r, 'mrz') as string | null;
  if (e.category === 'mrz') {
    const lines = x.mrz_lines!;
    const exact = mrz === lines.join('\n');
    out.push({ check: 'MRZ exact', ok: exact, cls: exact ? undefined : mrzMissClass(mrz, lines), detail: `read ${show(mrz)}, truth ${show(lines.join('\n'))}` });
    const p = x.parsed!;
    const mrzFields: Array<Check | null> = [];
    mrzFields.push(scoreText('MRZ document number', value(r, 'document_number'), p.document_number, 'id', !mrz));
    for (const [check, field, want] of [['MRZ birth date', 'birth_date', p.birth_date_yymmdd], ['MRZ expiry date', 'expiry_date', p.expiry_date_yymmdd]] as const) {
      if (!want) continue;
      const got = value(r, field);
      const ok = isoToYymmdd(got) === want;
      mrzFields.push({ check, ok, cls: ok ? undefined : !mrz && got === null ? 'zone not found' : got === null ? 'field not found' : 'date parsed wrong or misread', detail: `read ${show(got)}, truth ${want}` });
    }
    mrzFields.push(scoreText('MRZ surname', value(r, 'last_name'), p.surname, 'name', !mrz));
    // A field wrong from a zone read exactly is the mapping's miss (or the truth's parse), not a misreading.
    for (const c of mrzFields) if (c && !c.ok && exact) c.cls = 'zone read exactly, field taken from it differently';
    out.push(...mrzFields);
    out.push(scoreType('MRZ type', r, types[e.path]));
  } else if (e.category === 'mrz-flagged') {
    const v = mrz ? validateMrzChecksums(mrz, { referenceDate: REF }) : null;
    const ok = v?.outcome === 'failed';
    const cls = ok ? undefined : !v ? 'zone not found' : v.outcome === 'passed' ? 'check digits pass (read as the check digits want)' : `zone misread (check not run: ${v.message_key})`;
    out.push({ check: 'flagged MRZ reported failing', ok, cls, detail: `read ${show(mrz)}, truth ${show(x.mrz_lines!.join('\n'))}, outcome ${v?.outcome ?? 'none'}` });
    out.push(scoreType('MRZ type', r, types[e.path]));
  } else if (e.category === 'id-fronts') {
    out.push(scoreType('ID front type', r, types[e.path]));
    out.push(scoreText('ID front number', value(r, 'document_number'), x.document_number, 'id'));
    out.push(scoreText('ID front surname', value(r, 'last_name'), x.surname, 'name'));
    out.push(scoreText('ID front given names', value(r, 'first_name'), x.given_names, 'name'));
    out.push(scoreDate('ID front birth date', value(r, 'birth_date'), x.birth_date));
    out.push(scoreDate('ID front expiry date', value(r, 'expiry_date'), x.expiry_date));
  } else if (e.category === 'invoices') {
    const t = r.document?.type ?? null;
    out.push({ check: 'invoice type', ok: isInvoiceType(t), cls: isInvoiceType(t) ? undefined : t && t !== 'unknown_document' ? `wrong type (${family(t)} instead of invoice)` : 'no type', detail: `type ${t ?? 'none'}` });
    out.push(scoreAmount('invoice total', value(r, 'total_amount', 'amount'), x.total, { tax: x.tax_total }));
    out.push(scoreDate('invoice issue date', value(r, 'issue_date', 'payment_date'), x.issue_date));
    out.push(scoreText('invoice number', value(r, 'invoice_number', 'reference'), x.number, 'id'));
    if (x.seller_vat_id) {
      const got = value(r, 'issuer_tax_id');
      const ok = sameVatId(got, x.seller_vat_id);
      out.push({ check: 'invoice seller VAT id', ok, cls: ok ? undefined : textMissClass(got, String(x.seller_vat_id), 'id'), detail: `read ${show(got)}, truth ${show(x.seller_vat_id)}` });
    }
  } else {
    const t = r.document?.type ?? null;
    const ok = t !== null && RECEIPT_TYPES.has(t);
    out.push({ check: 'receipt type', ok, cls: ok ? undefined : t && t !== 'unknown_document' ? `wrong type (${family(t)} instead of receipt)` : 'no type', detail: `type ${t ?? 'none'}` });
    out.push(scoreAmount('receipt total', value(r, 'total_amount', 'amount'), x.total, { tax: x.tax_total }));
    out.push(scoreDate('receipt date', value(r, 'issue_date', 'payment_date'), x.date));
  }
  return out.filter((c): c is Check => c !== null);
}

// ---------------------------------------------------------------- run

const nproc = execSync('nproc').toString().trim();
const cpu = cpus()[0]?.model ?? 'unknown';
const load0 = loadavg().map((x) => x.toFixed(2)).join(' ');
// Warm-up (not counted): one MRZ image, one PDF and one receipt scan (page OCR), all from the tune split.
for (const cat of saved ? [] : (['mrz', 'invoices', 'receipts'] as const)) {
  const w = all.find((e) => e.category === cat && e.split === 'tune' && (cat !== 'invoices' || e.path.endsWith('.pdf')))!;
  await read(w.path);
}
interface Result { e: Entry; checks: Check[]; ms: number; type: string | null; basis: string | null; readers: string }
const results: Result[] = [];
const kept: Record<string, { reading: Kept; ms: number }> = {};
const t0 = performance.now();
for (const [i, e] of files.entries()) {
  const { reading, ms } = await read(e.path);
  kept[e.path] = { reading: { document: reading.document, fields: Object.fromEntries(Object.entries(reading.fields).map(([k, f]) => [k, { value: f.value, confidence: f.confidence, source: null }])), providers: reading.providers }, ms };
  if (saveTo) writeFileSync(saveTo, JSON.stringify(kept));
  const checks = score(e, reading);
  results.push({ e, checks, ms, type: reading.document?.type ?? null, basis: reading.document?.basis ?? null, readers: reading.providers.map((p) => p.name.replace('local-', '')).join('+') });
  const hits = checks.filter((c) => c.ok).length;
  // A validate file's own score is not printed: where the misses are is what the split must not show while tuning.
  const shown = e.split === 'validate' ? 'validate (score not shown)' : `${e.split.padEnd(8)} ${e.path} ${hits}/${checks.length}`;
  console.error(`[${i + 1}/${files.length}] ${shown} ${(ms / 1000).toFixed(2)} s`);
}
const meta: Meta = savedAll?._meta ?? {
  nproc, cpu, load0, load1: loadavg().map((x) => x.toFixed(2)).join(' '), wall: (performance.now() - t0) / 1000,
  commit: execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim(), at: new Date().toISOString().slice(0, 16),
};
if (saveTo) writeFileSync(saveTo, JSON.stringify({ ...kept, _meta: meta }));

// ---------------------------------------------------------------- report

const CHECK_ORDER = [
  'MRZ exact', 'MRZ document number', 'MRZ birth date', 'MRZ expiry date', 'MRZ surname', 'MRZ type', 'flagged MRZ reported failing',
  'ID front type', 'ID front number', 'ID front surname', 'ID front given names', 'ID front birth date', 'ID front expiry date',
  'invoice type', 'invoice total', 'invoice issue date', 'invoice number', 'invoice seller VAT id',
  'receipt type', 'receipt total', 'receipt date',
];
const GOALS: Record<string, string> = {
  'MRZ exact': '≥ 95 %', 'MRZ document number': '≥ 97 %', 'MRZ birth date': '≥ 97 %', 'MRZ expiry date': '≥ 97 %', 'MRZ surname': '≥ 97 %',
  'MRZ type': '≥ 97 %', 'flagged MRZ reported failing': 'all', 'ID front type': '≥ 8/9',
  'invoice type': '≥ 95 %', 'invoice total': '≥ 95 %', 'invoice issue date': '≥ 95 %', 'invoice number': '≥ 95 %', 'invoice seller VAT id': '≥ 95 %',
  'receipt type': '≥ 90 %', 'receipt total': '≥ 90 %', 'receipt date': '≥ 90 %',
};
const count = (split: Split, pred: (c: Check) => boolean) => {
  let n = 0;
  let d = 0;
  for (const r of results) if (r.e.split === split) for (const c of r.checks) if (pred(c)) { d++; if (c.ok) n++; }
  return [n, d] as const;
};
const rate = ([n, d]: readonly [number, number]) => (d ? `${n}/${d} (${((100 * n) / d).toFixed(0)} %)` : '-');
const checkRows = CHECK_ORDER.map((name) => `| ${name} | ${rate(count('tune', (c) => c.check === name))} | **${rate(count('validate', (c) => c.check === name))}** | ${GOALS[name] ?? '(not in the goals)'} |`);
const allRow = `| **all scored checks** | ${rate(count('tune', () => true))} | **${rate(count('validate', () => true))}** | ≥ 90 % |`;
const timeRows = CATEGORIES.map((cat) => {
  const ms = results.filter((r) => r.e.category === cat).map((r) => r.ms);
  return ms.length ? `| ${cat} | ${ms.length} | ${(pct(ms, 50) / 1000).toFixed(2)} | ${(pct(ms, 95) / 1000).toFixed(2)} | ${(Math.max(...ms) / 1000).toFixed(2)} |` : null;
}).filter(Boolean);

const classCount = new Map<string, number>();
const validateMisses: string[] = [];
const tuneMisses: string[] = [];
for (const r of results) {
  for (const c of r.checks) {
    if (c.ok) continue;
    if (r.e.split === 'validate') {
      validateMisses.push(`- \`${basename(r.e.path)}\` ${c.check}: ${c.cls}`);
      const k = `${c.check}: ${c.cls!.replace(/ \(\d+ characters?.*\)$/, '')}`;
      classCount.set(k, (classCount.get(k) ?? 0) + 1);
    } else tuneMisses.push(`- \`${basename(r.e.path)}\` ${c.check}: ${c.cls}; ${c.detail}`);
  }
}
const classRows = [...classCount.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, n]) => `| ${k} | ${n} |`);

const perFile = (split: Split) => results.filter((r) => r.e.split === split).map((r) => {
  const hits = r.checks.filter((c) => c.ok).length;
  const type = split === 'tune' ? ` ${r.type ?? '-'} |` : ''; // the validate split's readings stay unseen
  return `| ${r.e.category} | ${basename(r.e.path)} | ${r.readers} |${type} ${hits}/${r.checks.length} | ${(r.ms / 1000).toFixed(2)} |`;
});

const section = `${START}
## Development set (issue #28): \`../shared/testdata/documents-dev\`, tune and validate

Run \`node bench/dev-reading.ts\` (readings at commit ${meta.commit}, ${meta.at}Z${saved ? `; scored again at commit ${execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim()} from the saved readings` : ''}), ${results.length} files read one at a time in
${meta.wall.toFixed(0)} s. Machine: \`nproc\` ${meta.nproc}, ${meta.cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${meta.load0} at start, ${meta.load1} at the end
(other engineers' work shares the 2 cores: seconds are upper bounds). Readers: ${[...config.liveReaders].join(', ')}; OCR languages
${config.ocrLanguages.join('+')}; \`createLocalProvider\` with concurrency 1${budgetScale !== 1 ? ` and every reader's budget ×${budgetScale} (--budget-scale)` : ''}, engines warm (one MRZ image, one PDF and one receipt read first, not
counted), the same \`ReadInput\` as \`bench/live-reading.ts\` with \`expect: null\` (the type is scored), reference date ${REF}.
Truth: the set's \`ground-truth.json\`; expected catalogue types of MRZ documents and ID fronts: \`bench/data/dev-types.json\` (from the
truth's document code, issuing state, format and kind, never from a reading). The split is the set's own (by file hash).

| check | tune | validate | goal (validate) |
|---|---|---|---|
${checkRows.join('\n')}
${allRow}

Seconds per file (wall, engines warm), both splits:

| kind | files | p50 | p95 | max |
|---|---|---|---|---|
${timeRows.join('\n')}

### Scoring rules (\`bench/lib/dev-scoring.ts\`, unit-tested in \`test/unit/bench/dev-scoring.test.ts\`)

A field whose truth is \`null\` (not printed, not determinable) is not scored; a check with nothing to score is left out of its count.

- **MRZ exact**: the \`mrz\` field equals the truth's \`mrz_lines\` joined by a newline, every character (category \`mrz\`).
- **MRZ fields**: \`document_number\` equals the truth's parsed number (upper case, spaces and \`<\` removed); \`birth_date\` /
  \`expiry_date\` (ISO) as \`YYMMDD\` equal the printed \`YYMMDD\` (so a century guess is never counted); \`last_name\` equals the
  parsed surname as a name (below).
- **MRZ type** (categories \`mrz\` and \`mrz-flagged\`): \`document.type\` is one of the file's types in \`dev-types.json\`.
- **Flagged MRZ reported failing**: the \`mrz\` read, run through the service's own \`validateMrzChecksums\`, fails (outcome
  \`failed\`). A reader that "corrects" the printed digits into passing ones, reads no zone, or reads one whose checks cannot run, misses.
- **ID fronts**: type as for MRZ types; \`document_number\` as an identifier; \`last_name\` / \`first_name\` as names against
  \`surname\` / \`given_names\`; \`birth_date\` / \`expiry_date\` equal the ISO truth.
- **Invoices**: type is any type named \`*invoice*\`; total: \`total_amount\` (else \`amount\`) equals \`total\` to the cent (signed:
  a credit note's negative total must be negative); issue date: \`issue_date\` (else \`payment_date\`) equals the ISO truth; number:
  \`invoice_number\` (else \`reference\`) as an identifier (\`#\`, \`/\`, \`-\` count); seller VAT id: \`issuer_tax_id\` equals
  \`seller_vat_id\` on letters and digits, a read value without the truth's 2-letter country prefix also counts.
- **Receipts**: type is \`payment_receipt\` or \`es_payment_receipt\` (an invoice type misses); total and date as for invoices.
- **Amounts**: a number is kept; a string's last \`.\`/\`,\` followed by 1-2 digits is the decimal point, other separators, spaces,
  signs of currency dropped. **Dates**: ISO \`YYYY-MM-DD\` compared as strings. **Names**: diacritics removed (ß → SS, Æ → AE,
  Ø → O), upper case, every run of non-letters one space. **Identifiers**: upper case, spaces and \`<\` removed.

Miss classes (mechanical, from the reading and the truth only): *zone not found* (no MRZ read), *zone misread (wrong format or
line length)*, *zone read exactly, field taken from it differently* (an MRZ field wrong although every character of the zone is right), *character misread* (same shape, n characters differ; a value within a quarter of its length in edits), *check
digits pass* (a flagged zone read as passing), *no type*, *wrong type (family instead of family)* / *(generic where a national type
exists)* / *(same family)*, *field not found*, *label taken as value* (a value made only of label words: NAME, DOB, TOTAL...),
*read in part* / *read with extra text* (one contains the other), *other text taken*, *tax taken as total*, *amount parsed wrong*
(same digits, other scale or sign), *other amount taken*, *day and month swapped*, *century wrong*, *date parsed wrong*, *other date taken*.

### Validation misses by class

| check: class | misses |
|---|---|
${classRows.join('\n')}

### Every validation miss (class only: the validate split stays unseen)

${validateMisses.join('\n') || 'None.'}

### Tune misses (in full: tune on these)

${tuneMisses.join('\n') || 'None.'}

### Per file

| kind | file (tune) | readers | type | checks | s |
|---|---|---|---|---|---|
${perFile('tune').join('\n')}

| kind | file (validate) | readers | checks | s |
|---|---|---|---|---|
${perFile('validate').join('\n')}
${END}
`;

if (full) {
  const old = readFileSync(OUT, 'utf8');
  let next: string;
  if (old.includes(START)) next = old.slice(0, old.indexOf(START)) + section.trimEnd() + old.slice(old.indexOf(END) + END.length);
  else {
    const at = old.indexOf('\n') + 1; // after the title line
    next = `${old.slice(0, at)}\n${section}${old.slice(at)}`;
  }
  writeFileSync(OUT, next);
  console.error(`wrote ${OUT}`);
}
console.log(section);
// The summary as JSON on stderr's last line, for comparisons across runs (no read values of the validate split).
console.error(JSON.stringify(Object.fromEntries(CHECK_ORDER.map((c) => [c, { tune: count('tune', (x) => x.check === c), validate: count('validate', (x) => x.check === c) }]))));
process.exit(0);
