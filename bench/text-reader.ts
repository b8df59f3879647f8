/**
 * Bench of the local text readers on the invoice PDFs of the shared test data (invoice2data + Mustang):
 * classification (is an invoice type first?), field-by-field exact match against invoice2data's expected JSON and
 * against the embedded CII/UBL XML (Mustang), and speed per text PDF (read + classify + extract).
 *
 *   node bench/text-reader.ts            -> writes bench/results/text-reader.md
 *
 * Expected values come from the test data, never from this code. Run alone: it measures wall time.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getEntry } from '../server/src/catalogue/index.ts';
import { readPdf, warmPdf } from '../server/src/providers/local/pdf.ts';
import { classifyText, isInvoiceType } from '../server/src/providers/local/text/classify.ts';
import { readEmbeddedInvoice } from '../server/src/providers/local/text/embedded.ts';
import { extractFields } from '../server/src/providers/local/text/extract.ts';
import { foldPhrase } from '../server/src/providers/local/text/normalize.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DATA = path.resolve(ROOT, '../shared/testdata/documents');
const OUT = path.join(ROOT, 'bench/results/text-reader.md');

interface ManifestItem {
  file: string;
  expected_extraction?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.join(DATA, 'invoices/manifest.json'), 'utf8')) as ManifestItem[];
const pdfs = manifest.filter((m) => m.file.endsWith('.pdf'));

const entry = getEntry('invoice')!;
const WANT = entry.fields;

type Row = {
  file: string;
  set: 'invoice2data' | 'mustang';
  ms: number;
  hasText: boolean;
  top: string;
  topConf: number;
  invoiceFirst: boolean;
  embedded: string;
  checks: Array<{ field: string; expected: unknown; got: unknown; ok: boolean }>;
};

const norm = (s: unknown) => foldPhrase(String(s ?? '')).replace(/[^a-z0-9]+/g, ' ').trim();

function compare(field: string, expected: unknown, got: unknown): boolean {
  if (expected === undefined || expected === null) return true;
  if (typeof expected === 'number') return typeof got === 'number' && Math.abs(got - expected) < 0.005;
  if (field === 'issuer_name') {
    // invoice2data's `issuer` is its template's name: it matches when one contains the other.
    const a = norm(expected);
    const b = norm(got);
    return !!b && (a.includes(b) || b.includes(a));
  }
  return String(got ?? '') === String(expected);
}

await warmPdf();
const rows: Row[] = [];
for (const item of pdfs) {
  const file = path.join(DATA, item.file);
  const bytes = fs.readFileSync(file);
  const t0 = performance.now();
  const content = await readPdf(bytes);
  const lines = content.pages.flatMap((p) => p.lines);
  const cls = classifyText(lines);
  const fields = extractFields(entry, lines, WANT, { language: cls.language?.code ?? null, country: cls.country });
  const ms = performance.now() - t0;
  const embedded = readEmbeddedInvoice(content.attachments);
  const got = (f: string) => fields[f]?.value;
  const checks: Row['checks'] = [];
  if (item.expected_extraction) {
    const exp = (JSON.parse(fs.readFileSync(path.join(DATA, item.expected_extraction), 'utf8')) as Array<Record<string, unknown>>)[0];
    const pairs: Array<[string, unknown]> = [
      ['total_amount', exp.amount],
      ['issue_date', exp.date],
      ['invoice_number', exp.invoice_number],
      ['issuer_name', exp.issuer],
      ['tax_base', exp.amount_untaxed !== exp.amount ? exp.amount_untaxed : undefined],
      ['tax_amount', exp.amount_tax],
      ['currency', exp.currency],
      ['iban', exp.iban],
      ['due_date', exp.date_due],
    ];
    for (const [field, expected] of pairs) {
      if (expected === undefined) continue;
      checks.push({ field, expected, got: got(field), ok: compare(field, expected, got(field)) });
    }
  } else if (embedded?.isInvoice) {
    for (const field of ['total_amount', 'issue_date', 'invoice_number', 'issuer_name', 'tax_base', 'tax_amount', 'currency', 'iban', 'due_date']) {
      const expected = embedded.fields[field];
      if (expected === undefined) continue;
      checks.push({ field, expected, got: got(field), ok: compare(field, expected, got(field)) });
    }
  }
  rows.push({
    file: path.basename(item.file),
    set: item.file.includes('mustang') ? 'mustang' : 'invoice2data',
    ms,
    hasText: content.pages.some((p) => p.hasText),
    top: cls.candidates[0]?.type ?? '-',
    topConf: cls.candidates[0]?.confidence ?? 0,
    invoiceFirst: isInvoiceType(cls.candidates[0]?.type ?? '') && (cls.candidates[0]?.confidence ?? 0) >= 0.5,
    embedded: embedded ? `${embedded.syntax} ${embedded.isInvoice ? 'invoice' : 'not an invoice'} (${embedded.source})` : '-',
    checks,
  });
}

// ------------------------------------------------------------------ report

const textRows = rows.filter((r) => r.hasText);
const times = textRows.map((r) => r.ms).sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)];
const cpu = os.cpus()[0]?.model ?? 'unknown';
let nproc = String(os.cpus().length);
try {
  nproc = execSync('nproc').toString().trim();
} catch {
  /* keep os.cpus() */
}
const load = os.loadavg().map((v) => v.toFixed(2)).join(' ');
const fieldStats = new Map<string, { ok: number; n: number; set: Set<string> }>();
for (const r of rows) {
  for (const c of r.checks) {
    const k = `${r.set}|${c.field}`;
    const s = fieldStats.get(k) ?? { ok: 0, n: 0, set: new Set() };
    s.n++;
    if (c.ok) s.ok++;
    fieldStats.set(k, s);
  }
}

const md: string[] = [];
md.push('# Text reader bench (PDF text layer, embedded invoices, rules classifier and extractor)');
md.push('');
md.push(`Generated by \`node bench/text-reader.ts\` on ${new Date().toISOString().slice(0, 10)}.`);
md.push(`Machine: ${nproc} cores (nproc), ${cpu}, load average ${load} at the end of the run; Node ${process.version}.`);
md.push('');
md.push('## Summary');
md.push('');
const withText = rows.filter((r) => r.hasText);
const invoicesExpected = withText.filter((r) => !r.file.startsWith('ORDER-X'));
md.push(
  `- Classification: an invoice type first with confidence >= 0.5 for **${invoicesExpected.filter((r) => r.invoiceFirst).length}/${invoicesExpected.length}** invoice PDFs with a text layer ` +
    `(an invoice type first at any confidence: ${invoicesExpected.filter((r) => isInvoiceType(r.top)).length}/${invoicesExpected.length}); ` +
    `${rows.length - withText.length} PDFs have no text layer (they need OCR), the Order-X order is not an invoice.`,
);
md.push(`- Speed per text PDF (read + classify + extract, after warm-up): p50 **${pct(50).toFixed(0)} ms**, p95 **${pct(95).toFixed(0)} ms**, max ${times.at(-1)!.toFixed(0)} ms over ${times.length} PDFs.`);
md.push('');
md.push('| set | field | exact | rate |');
md.push('|---|---|---|---|');
for (const [k, s] of [...fieldStats.entries()].sort()) {
  const [set, field] = k.split('|');
  md.push(`| ${set} | ${field} | ${s.ok}/${s.n} | ${Math.round((100 * s.ok) / s.n)} % |`);
}
md.push('');
md.push('Expected values: invoice2data\'s JSON (`amount`, `date`, `invoice_number`, `issuer`, `amount_untaxed` when it differs from `amount`, `amount_tax`, `currency`, `iban`, `date_due`); for Mustang the invoice\'s own embedded XML (read by `readEmbeddedInvoice`) against what the rules read from the **text layer** alone. `issuer_name` counts as a match when one name contains the other (invoice2data\'s `issuer` is a template name).');
md.push('');
md.push('## Per file');
md.push('');
md.push('| file | text | ms | top type (conf) | embedded XML | misses |');
md.push('|---|---|---|---|---|---|');
for (const r of rows) {
  const misses = r.checks.filter((c) => !c.ok).map((c) => `${c.field}: expected \`${JSON.stringify(c.expected)}\`, got \`${JSON.stringify(c.got ?? null)}\``);
  md.push(
    `| ${r.file} | ${r.hasText ? 'yes' : 'no'} | ${r.ms.toFixed(0)} | ${r.top} (${r.topConf}) | ${r.embedded} | ${misses.length ? misses.join('<br>') : r.checks.length ? 'none' : '-'} |`,
  );
}
md.push('');
md.push(fs.existsSync(path.join(ROOT, 'bench/results/text-reader.notes.md')) ? '' : '');
fs.mkdirSync(path.dirname(OUT), { recursive: true });
const notesStart = '<!-- notes -->';
const previous = fs.existsSync(OUT) ? fs.readFileSync(OUT, 'utf8') : '';
const notes = previous.includes(notesStart) ? previous.slice(previous.indexOf(notesStart)) : `${notesStart}\n## Misses explained\n\n(to be written)\n`;
fs.writeFileSync(OUT, `${md.join('\n')}\n${notes}`);
console.log(md.join('\n'));
