/**
 * Reads invoices the development set never saw and scores them against a truth written by hand.
 *
 *   node bench/invoice-study.ts TRUTH.json FILE...          scores each FILE (the local provider, as the dev bench)
 *   node bench/invoice-study.ts --text FILE...              prints each PDF's text lines (to write the truth by eye)
 *
 * TRUTH.json: `{ "<file name>": { "number": "...", "issue_date": "YYYY-MM-DD", "total": 12.5, "seller_vat_id": "..." } }`
 * (a key left out or null is not scored; `"type": "any"` for a document that is fairly a receipt or an invoice, such
 * as a till slip titled `Factura`: its type is then not scored; `"type": "receipt"` for a till receipt, right when read
 * as `payment_receipt` or `es_payment_receipt` as in the dev bench; `"multiple": true|false` scores the
 * `multiple_documents` warning). The data and its truth live outside the repository (study material is
 * never committed); this script only reads the paths it is given. Scoring is bench/lib/dev-scoring.ts, the dev
 * bench's own. Prints one line per file (the misses with what was read) and the totals per check.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadConfig } from '../server/src/config.ts';
import { detectFileType } from '../server/src/domain/intake/detect.ts';
import { inspectFile } from '../server/src/domain/intake/inspect.ts';
import { createLogger } from '../server/src/logger.ts';
import { createLocalProvider } from '../server/src/providers/local/index.ts';
import { decodeImage, type ImageMime } from '../server/src/providers/local/image.ts';
import { ocrPage, terminateOcr } from '../server/src/providers/local/ocr.ts';
import { readPdf } from '../server/src/providers/local/pdf.ts';
import type { ReadInput } from '../server/src/providers/types.ts';
import { invoiceChecks } from './lib/dev-scoring.ts';

interface Truth {
  number?: string | null; issue_date?: string | null; total?: number | null; seller_vat_id?: string | null;
  /** `any`: not scored; `receipt`: a till receipt (scored as the dev bench scores receipts); left out: an invoice. */
  type?: 'any' | 'receipt';
  /** Several documents in the one image: the reading must warn `multiple_documents` (scored when given). */
  multiple?: boolean;
}

const args = process.argv.slice(2);
if (args.length < 2) {
  console.error('usage: node bench/invoice-study.ts TRUTH.json FILE... | --text FILE...');
  process.exit(2);
}

if (args[0] === '--text') {
  const config = loadConfig();
  for (const f of args.slice(1)) {
    const bytes = new Uint8Array(readFileSync(f));
    const mime = detectFileType(bytes)!.mime;
    if (mime !== 'application/pdf') {
      // An image: the lines an OCR engine reads from it (the configured one; tesseract when it is `auto`, which the
      // reader decides per image), to write the truth by eye beside the picture.
      const engine = config.ocrEngine === 'auto' ? 'tesseract' : config.ocrEngine;
      // A generous budget: a large photo on a busy machine must not lose its text here (the reader has its own).
      const lines = await ocrPage(await decodeImage(bytes, mime as ImageMime), { languages: config.ocrLanguages, engine, timeoutMs: 90_000 });
      console.log(`===== ${basename(f)} (image, ${engine} OCR)`);
      for (const l of lines) console.log(`${JSON.stringify(l.bbox.map((x) => Math.round(x * 1e4) / 1e4))} | ${l.text}`);
      continue;
    }
    const pdf = await readPdf(bytes, { maxPages: 3 });
    console.log(`===== ${basename(f)} (${pdf.numPages} pages, attachments: ${pdf.attachments.map((a) => a.name).join(', ') || 'none'})`);
    for (const p of pdf.pages) for (const l of p.lines) console.log(`${JSON.stringify(l.bbox)} | ${l.text}`);
  }
  await terminateOcr();
  process.exit(0);
}

const truth = JSON.parse(readFileSync(args[0]!, 'utf8')) as Record<string, Truth>;
const config = loadConfig();
const provider = createLocalProvider({ readers: config.liveReaders, ocrLanguages: config.ocrLanguages, ocrEngine: config.ocrEngine, concurrency: 1, logger: createLogger('silent'), budgetScale: 3 })!;

const totals: Record<string, [number, number]> = {};
const tally = (check: string, ok: boolean) => {
  const t = (totals[check] ??= [0, 0]);
  t[0] += ok ? 1 : 0;
  t[1] += 1;
};

for (const f of args.slice(1)) {
  const t = truth[basename(f)];
  if (!t) {
    console.error(`${basename(f)}: no truth, skipped`);
    continue;
  }
  const bytes = new Uint8Array(readFileSync(f));
  const mime = detectFileType(bytes)!.mime;
  const { pages } = await inspectFile(bytes, mime, { maxPages: 200 });
  const input: ReadInput = {
    bytes, filename: basename(f), mime, pages, kind: 'analysis', expect: null, extract: true, language: 'en', holder: null, referenceDate: '2026-11-24', precise_bboxes: false,
  };
  const r = await provider.read(input);
  const misses: string[] = [];
  const type = r.document?.type ?? null;
  if (t.type === 'receipt') {
    const isReceipt = type === 'payment_receipt' || type === 'es_payment_receipt';
    tally('receipt type', isReceipt);
    if (!isReceipt) misses.push(`receipt type ${type}`);
  } else if (t.type !== 'any') {
    const isInvoice = type !== null && /invoice/.test(type);
    tally('type', isInvoice);
    if (!isInvoice) misses.push(`type ${type}`);
  }
  if (t.multiple !== undefined) {
    const warned = r.warnings.includes('multiple_documents');
    tally('multiple', warned === t.multiple);
    if (warned !== t.multiple) misses.push(`multiple_documents ${warned ? 'warned' : 'not warned'}`);
  }
  for (const { check, ok, got, want } of invoiceChecks(r, t)) {
    tally(check, ok);
    if (!ok) misses.push(`${check}: read ${JSON.stringify(got)}, truth ${JSON.stringify(want)}`);
  }
  console.log(`${basename(f)}: ${misses.length ? misses.join('; ') : 'ok'}`);
}
console.log(Object.entries(totals).map(([k, [ok, n]]) => `${k} ${ok}/${n}`).join(', '));
process.exit(0);
