// Per-character confidence of the offline MRZ reader, on genuine images and on deliberately broken copies
// (bench/lib/forge-mrz.ts), to choose the threshold below which a check-digit failure is a `low_confidence` warning
// rather than an error (server/src/validators/confidence.ts, issue #27).
//
// Usage: node bench/check-confidence.ts [--validate]   (node_modules/.bin on PATH) -> bench/results/check-confidence.md
// Genuine images: the 32 PassportEye specimens (bench/data/mrz-truth.json) and the `tune` split of documents-dev
// `mrz/` + `mrz-flagged/`. --validate adds the `validate` split, reported only as totals beside tune (no per-file
// rows: that split is for measuring, not for looking at).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { dniSpan, forgeField, readZoneCells, type ForgeField, type Forgery } from './lib/forge-mrz.ts';
import { readMrz } from '../server/src/providers/local/mrz/index.ts';
import type { MrzReading } from '../server/src/providers/local/types.ts';
import { CHECK_CHAR_CONFIDENCE, mrzCheckPositions } from '../server/src/validators/confidence.ts';
import { parseMrz, type MrzCheckName } from '../server/src/validators/mrz.ts';
import { checkNif } from '../server/src/validators/nif.ts';
import { loadPage } from '../test/unit/local/support-mrz.ts';

const SHARED = join(import.meta.dirname, '../../shared/testdata');
const OUT = join(import.meta.dirname, 'results/check-confidence.md');
const THRESHOLDS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
const FIELDS: ForgeField[] = ['document_number', 'birth_date', 'expiry_date', 'dni_letter', 'dni_number'];
const withValidate = process.argv.includes('--validate');
/** The check a forged field breaks first. */
const OWN: Record<ForgeField, Failure['check']> = { document_number: 'document_number', birth_date: 'birth_date', expiry_date: 'expiry_date', dni_letter: 'nif', dni_number: 'nif' };

interface Item {
  set: 'id-images' | 'tune' | 'validate';
  file: string;
  lines: string[];
}

function items(): Item[] {
  const out: Item[] = [];
  for (const t of JSON.parse(readFileSync(join(import.meta.dirname, 'data/mrz-truth.json'), 'utf8')) as Array<{ file: string; lines: string[] }>) {
    out.push({ set: 'id-images', file: join(SHARED, 'documents', t.file), lines: t.lines });
  }
  const dev = JSON.parse(readFileSync(join(SHARED, 'documents-dev/ground-truth.json'), 'utf8')) as Array<{ path: string; category: string; split: string; expected: { mrz_lines: string[] } }>;
  for (const e of dev) {
    if (e.category !== 'mrz' && e.category !== 'mrz-flagged') continue;
    if (e.split === 'tune' || (withValidate && e.split === 'validate')) out.push({ set: e.split as Item['set'], file: join(SHARED, 'documents-dev', e.path), lines: e.expected.mrz_lines });
  }
  return out;
}

/** A failing check of a reading: which characters it covers (indices into the joined zone) and how sure they are. */
interface Failure {
  check: MrzCheckName | 'nif';
  /** The least confidence over the check's characters, and which character that is. */
  min: number;
  at: string;
  /** The same check passes on the printed zone (so the failure is the reader's). */
  printedOk: boolean;
}

/** The Spanish DNI number in a TD1 zone's optional data, as indices into the joined zone (9 characters), or null. */
function dniAt(lines: string[]): number[] | null {
  const s = dniSpan({ lines });
  return s ? Array.from({ length: 9 }, (_, k) => s.from + k) : null;
}

/** Failing checks of a reading (the zone's check digits, and the DNI's letter on a Spanish card), with the characters' confidences. */
function failures(r: MrzReading, printed: string[]): Failure[] {
  const joined = r.lines.join('\n');
  const chars = r.charConfidence.flatMap((l, i) => (i > 0 ? [1, ...l] : l));
  const printedChecks = parseMrz(printed).checks;
  const out: Failure[] = [];
  const add = (check: Failure['check'], at: number[], printedOk: boolean) => {
    let min = 1;
    let where = -1;
    for (const i of at) if (chars[i] < min || where < 0) [min, where] = [chars[i], i];
    const line = joined.slice(0, where).split('\n').length;
    const col = where - joined.lastIndexOf('\n', where - 1) - 1;
    out.push({ check, min, at: `L${line}:${col + 1} ${joined[where]}`, printedOk });
  };
  for (const c of parseMrz(r.lines).checks) {
    if (c.valid) continue;
    add(c.name, mrzCheckPositions(r.lines, c.name), printedChecks.find((p) => p.name === c.name)?.valid ?? true);
  }
  // the DNI where it is printed (a reading that turns one of its digits into a letter no longer shows a DNI there,
  // and readingFromMrz would not take it for one: the NIF fails on format)
  const dni = dniAt(printed);
  if (dni && !checkNif(dni.map((i) => joined[i]).join('')).valid) {
    add('nif', dni, checkNif(dni.map((i) => printed.join('\n')[i]).join('')).valid);
  }
  return out;
}

/** The verdict of a reading's failures at a threshold: `error` when some failing check's characters are all sure. */
const judged = (fs: Failure[], t: number): 'error' | 'review' | 'pass' => (fs.length === 0 ? 'pass' : fs.some((f) => f.min >= t) ? 'error' : 'review');

interface Genuine {
  item: Item;
  name: string;
  r: MrzReading | null;
  exact: boolean;
  right: number[];
  wrong: Array<{ at: string; conf: number }>;
  fails: Failure[];
}

interface Forged {
  item: Item;
  name: string;
  field: ForgeField;
  f: Forgery;
  r: MrzReading | null;
  /** The changed character as read, and its confidence. */
  readAs: string | null;
  conf: number | null;
  asForged: boolean;
  /** Other characters the reading changed (the reader's repair), as `L1:8 0→O (0.47)`. */
  others: string[];
  fails: Failure[];
}

const cpuModel = (readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? cpus()[0]?.model ?? 'unknown';
const loadStart = loadavg().map((x) => x.toFixed(2)).join(' ');
const t0 = performance.now();

const genuine: Genuine[] = [];
const forged: Forged[] = [];
for (const item of items()) {
  const name = item.file.split('/').pop()!;
  const page = await loadPage(item.file);
  const r = await readMrz(page);
  const g: Genuine = { item, name, r, exact: !!r && r.lines.join('\n') === item.lines.join('\n'), right: [], wrong: [], fails: [] };
  genuine.push(g);
  if (!r) continue;
  g.fails = failures(r, item.lines);
  if (r.lines.length === item.lines.length && r.lines.every((l, i) => l.length === item.lines[i].length)) {
    r.lines.forEach((l, li) => {
      for (let k = 0; k < l.length; k++) {
        if (l[k] === item.lines[li][k]) g.right.push(r.charConfidence[li][k]);
        else g.wrong.push({ at: `L${li + 1}:${k + 1} ${item.lines[li][k]}→${l[k]}`, conf: r.charConfidence[li][k] });
      }
    });
  }
  // broken copies: of an image read exactly; a Spanish card's DNI also when its 8 digits are read right (the
  // specimen's check letter is the misread one: the forgery replaces it)
  const z = await readZoneCells(page);
  if (!z) continue;
  for (const field of FIELDS) {
    const dni = dniAt(item.lines);
    if (field.startsWith('dni') && !dni) continue;
    const digitsRight = !!dni && dni.slice(0, 8).every((i) => z.lines[0][i] === item.lines[0][i]);
    if (!(g.exact || (field.startsWith('dni') && digitsRight))) continue;
    // never "forge" the printed character back (the specimen's check letter is the misread one)
    const printed = field === 'dni_letter' ? [item.lines[0][dni![8]]] : field === 'dni_number' ? [item.lines[0][dni![7]]] : [];
    const f = await forgeField(z, field, { exclude: printed });
    if (!f) continue;
    const rf = await readMrz(await loadPage(f.bytes));
    const { line, pos } = f.change;
    forged.push({
      item,
      name,
      field,
      f,
      r: rf,
      readAs: rf?.lines[line]?.[pos] ?? null,
      conf: rf?.charConfidence[line]?.[pos] ?? null,
      asForged: !!rf && rf.lines[line][pos] === f.change.new,
      others: rf ? rf.lines.flatMap((l, li) => [...l].flatMap((ch, k) => (ch !== f.lines[li][k] && !(li === line && k === pos) ? [`L${li + 1}:${k + 1} ${f.lines[li][k]}→${ch} (${rf.charConfidence[li][k].toFixed(2)})`] : []))) : [],
      fails: rf ? failures(rf, f.lines) : [],
    });
  }
}
const elapsed = (performance.now() - t0) / 1000;
const loadEnd = loadavg().map((x) => x.toFixed(2)).join(' ');

// ---------------------------------------------------------------------------------------------- report
const pct = (a: number[], p: number) => {
  if (a.length === 0) return NaN;
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};
const f2 = (x: number | null) => (x === null || Number.isNaN(x) ? '—' : x.toFixed(2));
const f3 = (x: number | null) => (x === null || Number.isNaN(x) ? '—' : x.toFixed(3));
const PCTS = [0.01, 0.05, 0.1, 0.25, 0.5];
const distRow = (label: string, a: number[]) => `| ${label} | ${a.length} | ${f3(a.length ? Math.min(...a) : NaN)} | ${PCTS.map((p) => f3(pct(a, p))).join(' | ')} |\n`;

function section(sets: Array<Item['set']>, title: string, detail: boolean): string {
  const G = genuine.filter((g) => sets.includes(g.item.set));
  const F = forged.filter((f) => sets.includes(f.item.set));
  const right = G.flatMap((g) => g.right);
  const wrong = G.flatMap((g) => g.wrong.map((w) => w.conf));
  const forgedConf = F.filter((f) => f.asForged).map((f) => f.conf!);
  const misreadFail = G.filter((g) => g.fails.some((f) => f.printedOk));
  const printedBad = G.filter((g) => g.fails.some((f) => !f.printedOk));
  const breaking = F.filter((f) => f.fails.length > 0);
  let md = `## ${title}\n\n`;
  md += `${G.length} genuine images: ${G.filter((g) => g.r).length} read (${G.filter((g) => g.exact).length} exactly), ${G.filter((g) => !g.r).length} without a reading (no zone found: nothing to judge). `;
  md += `${F.length} broken copies of the images read exactly (plus the Spanish card's DNI, see below): ${F.filter((f) => f.asForged).length} read with the changed character, ${breaking.length} fail a check digit, ${F.filter((f) => f.r && f.fails.length === 0).length} pass every check (${F.filter((f) => f.r && f.fails.length === 0 && f.others.length > 0).length} of them because the reader's check-digit repair changed another character to compensate: a forgery read as a valid zone), ${F.filter((f) => !f.r).length} without a reading (the gate refused the zone).\n\n`;
  md += `### Confidence of characters (ReadField.chars)\n\n| characters | n | min | p1 | p5 | p10 | p25 | p50 |\n|---|---|---|---|---|---|---|---|\n`;
  md += distRow('genuine, read right', right);
  md += distRow('genuine, misread', wrong);
  md += distRow('forged (changed character, read as forged)', forgedConf);
  md += `\n### Verdict per threshold\n\n`;
  md += `A failing check is judged \`error\` when every character it covers (its field and its check digit; for the DNI, its 9 characters) is read at least at the threshold, else \`low_confidence\` (review); a document is \`error\` when any failing check is. ` +
    `"Misread" documents: a check fails on the reading but passes on the printed zone (the failure is the reader's): every \`error\` there is a false rejection. "Printed wrong": specimens printed with failing check digits, where \`error\` is the right answer when read right.\n\n`;
  md += `| threshold | genuine misread, still \`error\` (false rejections; goal 0) of ${misreadFail.length} | printed wrong, \`error\` of ${printedBad.length} | broken copies \`error\` (caught) of ${breaking.length} failing a check | broken copies \`review\` |\n|---|---|---|---|---|\n`;
  for (const t of THRESHOLDS) {
    const fr = misreadFail.filter((g) => judged(g.fails.filter((f) => f.printedOk), t) === 'error').length;
    const pb = printedBad.filter((g) => judged(g.fails, t) === 'error').length;
    const caught = breaking.filter((f) => judged(f.fails, t) === 'error').length;
    const mark = t === CHECK_CHAR_CONFIDENCE ? ' **(chosen)**' : '';
    md += `| ${t.toFixed(1)}${mark} | ${fr} | ${pb} | ${caught} | ${breaking.length - caught} |\n`;
  }
  const byField = new Map<ForgeField, Forged[]>();
  for (const f of F) byField.set(f.field, [...(byField.get(f.field) ?? []), f]);
  const validZone = (f: Forged) => !!f.r && f.fails.length === 0;
  md += `\n**Forgeries read as a valid zone (every check passes; goal 0): ${F.filter(validZone).length} of ${F.length}** (${F.filter((f) => validZone(f) && f.others.length > 0).length} through the reader's check-digit repair changing another character).\n`;
  md += `\nBroken copies by field (at the chosen ${CHECK_CHAR_CONFIDENCE}; "own check": the changed field's check alone, i.e. \`document_number\`, \`birth_date\`, \`expiry_date\`, or for the DNI rows \`nif_check_digit\`, the "flip one character of a true NIF" case):\n\n| field changed | copies | read as forged | fail a check | \`error\` | own check fails | own check \`error\` | read as a valid zone (goal 0) | changed character's confidence, min / p50 |\n|---|---|---|---|---|---|---|---|---|\n`;
  for (const [field, fs] of byField) {
    const c = fs.filter((f) => f.asForged).map((f) => f.conf!);
    const own = (f: Forged) => f.fails.filter((x) => x.check === OWN[field]);
    md += `| ${field} | ${fs.length} | ${fs.filter((f) => f.asForged).length} | ${fs.filter((f) => f.fails.length).length} | ${fs.filter((f) => judged(f.fails, CHECK_CHAR_CONFIDENCE) === 'error').length} | ${fs.filter((f) => own(f).length).length} | ${fs.filter((f) => judged(own(f), CHECK_CHAR_CONFIDENCE) === 'error').length} | ${fs.filter(validZone).length} | ${f2(c.length ? Math.min(...c) : NaN)} / ${f2(pct(c, 0.5))} |\n`;
  }
  if (!detail) return md;
  md += `\n### Genuine readings that fail a check\n\n| set | file | check | printed passes | least sure character | its confidence | at ${CHECK_CHAR_CONFIDENCE} |\n|---|---|---|---|---|---|---|\n`;
  for (const g of G) for (const f of g.fails) md += `| ${g.item.set} | ${g.name} | ${f.check} | ${f.printedOk ? 'yes (misread)' : 'no (printed wrong)'} | ${f.at} | ${f3(f.min)} | ${f.min >= CHECK_CHAR_CONFIDENCE ? 'error' : 'review'} |\n`;
  md += `\n### Genuine misread characters\n\n| set | file | line:pos printed→read | confidence |\n|---|---|---|---|\n`;
  for (const g of G) for (const w of g.wrong) md += `| ${g.item.set} | ${g.name} | ${w.at} | ${f3(w.conf)} |\n`;
  md += `\nImages without a reading: ${G.filter((g) => !g.r).map((g) => g.name).join(', ') || 'none'}.\n`;
  md += `\n### Broken copies\n\n| set | file | field | changed (line:pos old→new, glyph from) | read as | confidence | failing checks (least sure character's confidence) | at ${CHECK_CHAR_CONFIDENCE} |\n|---|---|---|---|---|---|---|---|\n`;
  for (const f of F) {
    const c = f.f.change;
    const fails = f.fails.map((x) => `${x.check} (${f2(x.min)})`).join(', ') || (f.r ? `none: passes, the reader changed ${f.others.join(', ') || 'nothing else'}` : 'no reading');
    md += `| ${f.item.set} | ${f.name} | ${f.field} | L${c.line + 1}:${c.pos + 1} ${c.old}→${c.new} (L${c.from.line + 1}:${c.from.pos + 1}) | ${f.readAs ?? '—'} | ${f3(f.conf)} | ${fails} | ${judged(f.fails, CHECK_CHAR_CONFIDENCE)} |\n`;
  }
  return md;
}

let md = `# Check digits on unsure characters: per-character confidence, genuine vs forged\n\n`;
md += `Run: \`node bench/check-confidence.ts${withValidate ? ' --validate' : ''}\` on ${new Date().toISOString().slice(0, 10)}, ${elapsed.toFixed(0)} s. Machine: ${cpus().length} CPUs (nproc), ${cpuModel}; load average at start ${loadStart}, at end ${loadEnd}.\n\n`;
md += `What: the offline MRZ reader (server/src/providers/local/mrz) reads each genuine image; each character's confidence (MrzReading.charConfidence, which readingFromMrz carries as ReadField.chars) is compared with the ground truth. `;
md += `Then, on every image it reads exactly, bench/lib/forge-mrz.ts makes one broken copy per field (the last digit of the document number, the second digit of the birth year, of the expiry year, and on a Spanish DNI the check letter and the last digit of the DNI number), each by pasting a glyph cut from elsewhere in the same zone, and the copy is read again. `;
md += `Question: below which confidence is a check-digit failure a misreading rather than a forgery? Chosen: **CHECK_CHAR_CONFIDENCE = ${CHECK_CHAR_CONFIDENCE}** (server/src/validators/confidence.ts).\n\n`;
md += `Sets: \`id-images\` = the 32 PassportEye specimens (bench/data/mrz-truth.json); \`tune\` = documents-dev \`mrz/\` + \`mrz-flagged/\`, tune split (its ground-truth.json).${withValidate ? ' `validate`: the same, validate split, totals only.' : ''}\n\n`;
md += section(['id-images', 'tune'], 'id-images + tune', true);
if (withValidate) md += '\n' + section(['validate'], 'validate (measured once with the threshold chosen on tune; totals only)', false);
{
  const G = genuine.filter((g) => g.item.set !== 'validate');
  const F = forged.filter((f) => f.item.set !== 'validate' && f.fails.length > 0);
  const t = CHECK_CHAR_CONFIDENCE;
  const misreadMins = G.flatMap((g) => g.fails.filter((f) => f.printedOk).map((f) => f.min));
  const forgedMin = Math.min(...forged.filter((f) => f.item.set !== 'validate' && f.asForged).map((f) => f.conf!));
  const review = F.filter((f) => judged(f.fails, t) === 'review');
  const falseRejections = (x: number) => G.filter((g) => judged(g.fails.filter((f) => f.printedOk), x) === 'error').length;
  const clean = THRESHOLDS.filter((x) => THRESHOLDS.every((y) => y < x || falseRejections(y) === 0));
  const lower = clean[0] < t ? clean[0] : null;
  md += `\n## Recommendation: ${t}\n\n`;
  md += `The two populations barely overlap: every genuine check failure that is the reader's (the printed zone passes) fails on a character read at ${misreadMins.map(f3).join(', ')} ` +
    `(the least sure character of the failing check), and the reader's misreadings in general sit low (p50 ${f3(pct(G.flatMap((g) => g.wrong.map((w) => w.conf)), 0.5))}), ` +
    `while a glyph pasted by a forger is read at ${f3(forgedMin)} or more, because it is a clean glyph of the same print. Any threshold from ${clean[0]?.toFixed(1)} to 0.9 makes no false rejection here; ` +
    `${t} leaves a margin of ${(t - Math.max(...misreadMins)).toFixed(2)} above the highest genuine failure (unseen photos will misread with more confidence than these specimens) and still calls ${F.length - review.length} of ${F.length} broken copies \`error\`. ` +
    `The ${review.length} others become \`review\`, not \`valid\`: the forged digit is read sure, but another character of the same field is not (mostly an O/0 in a document number, which OCR-B prints nearly alike), so the rule cannot tell the forgery from a misreading there; raising the threshold trades more of these for margin${lower === null ? '' : `, lowering it (${lower.toFixed(1)}) catches ${F.length - F.filter((f) => judged(f.fails, lower) === 'review').length} but sits just above the highest genuine failure`}. ` +
    `Two things the threshold cannot fix: specimens printed with wrong check digits are \`error\` when read surely (right: that is what a forgery looks like), and a broken copy read as a valid zone (${forged.filter((f) => f.item.set !== 'validate' && f.r && f.fails.length === 0).length} here) never reaches the rule; ` +
    `the reader's check-digit repair no longer makes those (it only puts in a character the glyph model gives 10 % or more and never makes a digit a letter: REPAIR_MIN_P in server/src/providers/local/mrz/decode.ts).\n`;
}
writeFileSync(OUT, md);
console.log(md.split('### Genuine readings')[0]);
