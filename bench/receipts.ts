// Measures the text rules on receipts and invoices of ../shared/testdata/documents-dev (per field, counts), on the
// text lines captured by bench/receipts-capture.ts (run it first with the same --split).
// Usage: node bench/receipts.ts [--split tune|validate] [--dir DIR] [--misses]
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getEntry } from '../server/src/catalogue/index.ts';
import { classifyText } from '../server/src/providers/local/text/classify.ts';
import { extractFields } from '../server/src/providers/local/text/extract.ts';
import { splitDocuments } from '../server/src/providers/local/text/receipt.ts';
import type { TextLine } from '../server/src/providers/local/types.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DEV = resolve(ROOT, '../shared/testdata/documents-dev');
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const SPLIT = arg('--split', 'tune');
const DIR = arg('--dir', '/tmp/cotejo-receipts-ocr');
const misses = process.argv.includes('--misses');

/** Catalogue types that a till or purchase receipt may correctly get (the catalogue has no till-receipt type). */
export const RECEIPT_TYPES = new Set(['payment_receipt', 'es_payment_receipt', 'es_simplified_invoice']);
const INVOICE_TYPES = new Set(['invoice', 'es_invoice', 'fr_invoice', 'pt_invoice', 'it_invoice', 'es_simplified_invoice']);

interface Truth { path: string; category: string; split: string; expected: Record<string, string | null> }
const truth = (JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Truth[]).filter(
  (t) => (t.category === 'receipts' || t.category === 'invoices') && t.split === SPLIT,
);

const counts: Record<string, Record<string, [number, number]>> = { receipts: {}, invoices: {} };
const missLines: string[] = [];
const score = (cat: string, field: string, ok: boolean, detail: string) => {
  const c = (counts[cat][field] ??= [0, 0]);
  c[1]++;
  if (ok) c[0]++;
  else missLines.push(`${cat}\t${field}\t${detail}`);
};
const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : null);
const normId = (v: unknown) => String(v ?? '').replace(/[\s.\-/]/g, '').toUpperCase();
const ms: number[] = [];

for (const t of truth) {
  const file = join(DIR, `${t.path.replace(/\//g, '__')}.json`);
  if (!existsSync(file)) {
    console.error(`not captured: ${t.path}`);
    continue;
  }
  const cap = JSON.parse(readFileSync(file, 'utf8')) as { lines: TextLine[]; ms: number };
  ms.push(cap.ms);
  const t0 = performance.now();
  const cls = classifyText(cap.lines);
  const type = cls.candidates[0]?.type ?? 'unknown_document';
  const entry = getEntry(type);
  const fields = entry ? extractFields(entry, cap.lines, [], { language: cls.language?.code, country: cls.country }) : {};
  const multi = splitDocuments(cap.lines).length;
  const rulesMs = performance.now() - t0;
  const v = (...names: string[]) => names.map((n) => fields[n]?.value).find((x) => x !== undefined && x !== null) ?? null;
  const e = t.expected;
  const cat = t.category;
  const name = t.path;
  const okType = cat === 'receipts' ? RECEIPT_TYPES.has(type) : INVOICE_TYPES.has(type);
  score(cat, 'type', okType, `${name}: ${type} (${cls.candidates[0]?.confidence})`);
  score(cat, 'type >= 0.5', okType && (cls.candidates[0]?.confidence ?? 0) >= 0.5, `${name}: ${type} (${cls.candidates[0]?.confidence})`);
  const total = num(v('total_amount', 'amount'));
  if (e.total != null) score(cat, 'total', total !== null && Math.abs(total - Number(e.total)) < 0.005, `${name}: expected ${e.total}, got ${total}`);
  const date = v('issue_date', 'payment_date');
  if (e.date != null || e.issue_date != null) score(cat, 'date', date === (e.date ?? e.issue_date), `${name}: expected ${e.date ?? e.issue_date}, got ${date}`);
  if (e.tax_total != null && entry?.fields.includes('tax_amount')) {
    const tax = num(v('tax_amount'));
    score(cat, 'tax', tax !== null && Math.abs(tax - Number(e.tax_total)) < 0.005, `${name}: expected ${e.tax_total}, got ${tax}`);
  }
  if (e.number != null) score(cat, 'number', normId(v('invoice_number')) === normId(e.number), `${name}: expected ${e.number}, got ${v('invoice_number')}`);
  if (e.seller_vat_id != null) score(cat, 'seller_vat_id', normId(v('issuer_tax_id')).endsWith(normId(e.seller_vat_id).replace(/^[A-Z]{2}(?=\d)/, '')), `${name}: expected ${e.seller_vat_id}, got ${v('issuer_tax_id')}`);
  if (e.currency != null) score(cat, 'currency', v('currency') === e.currency, `${name}: expected ${e.currency}, got ${v('currency')}`);
  score(cat, 'single document (no multiple_documents)', multi <= 1, `${name}: ${multi} documents`);
  score(cat, 'rules under 200 ms', rulesMs < 200, `${name}: ${rulesMs.toFixed(0)} ms`);
}

console.log(`split: ${SPLIT}`);
for (const [cat, fields] of Object.entries(counts)) {
  console.log(`\n${cat}`);
  for (const [f, [ok, n]] of Object.entries(fields)) console.log(`  ${f.padEnd(42)} ${ok}/${n}`);
}
const s = [...ms].sort((a, b) => a - b);
if (s.length) console.log(`\ncapture (OCR) seconds p50 ${(s[Math.floor(s.length / 2)] / 1000).toFixed(1)} p95 ${(s[Math.ceil(0.95 * s.length) - 1] / 1000).toFixed(1)}`);
if (misses) console.log(`\n${missLines.join('\n')}`);
