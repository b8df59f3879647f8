// False rejections (#27): every genuine document of ../shared/testdata/documents analysed in live mode (the local
// readers, no AI provider) through a real server, with its right type in `expect` and `not_expired: false`, and
// deliberately broken copies (a changed character in the MRZ, invoice amounts that do not add up, a PDF edited after
// signing). Per category: genuine judged valid / review / invalid; broken judged invalid / review / valid.
// Goals: 0 genuine `invalid`; at least 70 % of genuine documents with a sharp capture `valid`; every broken copy whose
// flaw was read with confidence `invalid`.
// Also every genuine document of the development set ../shared/testdata/documents-dev (#28: MRZ documents, ID fronts,
// receipts, invoices; its flagged zones and SIDTD forgeries set apart), with its right type in `expect`: the `tune`
// split file by file, the `validate` split in counts only (verdicts and the codes of their reasons, never a file or a
// value: it stays unseen). `--no-dev` leaves the development set out.
// Usage: node bench/false-rejections.ts [--db pglite|postgres] [--only SUBSTRING] [--no-dev]   (node_modules/.bin first on PATH)
// Writes bench/results/false-rejections.md.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import PDFDocument from 'pdfkit';
import { PDFDocument as PdfLibDocument } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { forgeField, readZoneCells } from './lib/forge-mrz.ts';
import { CHECK_CHAR_CONFIDENCE, mrzCheckPositions } from '../server/src/validators/confidence.ts';
import { arg, dbOption, dropStore, freshStore, machine, ROOT, startCotejo, stop, utcMinute } from './lib/harness.ts';
import { appendUpdate } from '../test/support/pdf-update.ts';

const DOCS = join(ROOT, '../shared/testdata/documents');
const DEV = join(ROOT, '../shared/testdata/documents-dev');
const SIGS = join(ROOT, '../shared/testdata/pdf-signatures');
const OUT = join(import.meta.dirname, 'results/false-rejections.md');
const only = arg('--only');
const db = dbOption();
const withDev = !process.argv.includes('--no-dev');

interface Case {
  name: string;
  category: string;
  kind: 'genuine' | 'broken' | 'defect';
  /** The development set's split (documents-dev); absent for ../shared/testdata/documents. */
  split?: 'tune' | 'validate';
  bytes: Uint8Array;
  filename: string;
  options: Record<string, unknown>;
  /** What was broken, for broken copies; why it is set apart, for printed defects. */
  note?: string;
  /** The zone as printed (ID documents). */
  lines?: string[];
  /**
   * Broken copies: whether the flaw was read with confidence (the changed character read as changed, and every
   * character of the check it breaks read at CHECK_CHAR_CONFIDENCE or more), i.e. whether `invalid` is owed. Invoice
   * XML and signatures are read exactly: true; printed amounts: false (a reading may miss a part).
   */
  sure?: boolean;
  /** Why the flaw was not read with confidence. */
  unsureWhy?: string;
}

interface Analysis {
  status: string;
  document: { type: string; confidence: number } | null;
  verdict: { status: 'valid' | 'invalid' | 'review'; reasons: Array<{ code: string; severity: string; message: string }> } | null;
  checks: Array<{ code: string; passed: boolean }>;
  warnings: string[];
}

const read = (rel: string) => new Uint8Array(readFileSync(join(DOCS, rel)));
const QUALITY = new Set(['blurry', 'low_quality', 'glare', 'cropped', 'photocopy_suspected', 'screen_photo_suspected']);

/** Sample invoices that really carry a defect (the issue does not count them: `invalid` or a refusal is right). */
const INVOICE_DEFECTS: Record<string, string> = {
  'Facture_F20180027.pdf': 'its sample IBAN FR76 1254 2547 2569 8542 5874 698 fails mod-97 (check digits 20, printed 76)',
  'invalidPDF.pdf': 'a damaged PDF (Mustang\'s "invalid PDF" sample): 422 unreadable_pdf is the right answer',
};

// ---- genuine documents --------------------------------------------------------------------------------------

function genuine(): Case[] {
  const cases: Case[] = [];
  const truth = JSON.parse(readFileSync(join(import.meta.dirname, 'data/mrz-truth.json'), 'utf8')) as Array<{ file: string; lines: string[]; checks_valid?: boolean; notes?: string }>;
  const types = JSON.parse(readFileSync(join(import.meta.dirname, 'data/id-types.json'), 'utf8')) as Record<string, string[]>;
  for (const t of truth) {
    const printedDefect = t.checks_valid === false;
    cases.push({
      name: basename(t.file),
      category: 'ID documents (MRZ)',
      kind: printedDefect ? 'defect' : 'genuine',
      bytes: read(t.file),
      filename: basename(t.file),
      options: { expect: types[t.file], checks: { not_expired: false } },
      lines: t.lines,
      note: printedDefect ? `the specimen prints an MRZ that fails its own check digits (${t.notes ?? ''})` : undefined,
    });
  }
  const invoices = JSON.parse(readFileSync(join(import.meta.dirname, 'data/invoice-truth.json'), 'utf8')) as Array<{ file: string; invoice: boolean }>;
  for (const inv of invoices) {
    if (!inv.invoice) continue; // an Order-X order is not an invoice
    const text = inv.file.endsWith('.pdf');
    const defect = INVOICE_DEFECTS[basename(inv.file)];
    cases.push({
      name: basename(inv.file),
      category: inv.file.includes('mustang') ? 'e-invoices (embedded XML)' : text ? 'invoices (text PDF)' : 'invoices (scan)',
      kind: defect ? 'defect' : 'genuine',
      note: defect,
      bytes: read(inv.file),
      filename: basename(inv.file),
      options: { expect: 'invoice', checks: { not_expired: false } },
    });
  }
  return cases;
}

/** The development set's documents (#28), by its ground truth: genuine ones, and its printed defects set apart. */
function devCases(): Case[] {
  const truth = JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Array<{ path: string; category: string; split: 'tune' | 'validate'; expected: { tampered?: boolean } }>;
  const types = JSON.parse(readFileSync(join(import.meta.dirname, 'data/dev-types.json'), 'utf8')) as Record<string, string[]>;
  const category: Record<string, string> = { mrz: 'dev: ID documents (MRZ)', 'mrz-flagged': 'dev: ID documents (MRZ)', 'id-fronts': 'dev: ID fronts', receipts: 'dev: receipts', invoices: 'dev: invoices' };
  const expect: Record<string, string[]> = { receipts: ['payment_receipt', 'es_payment_receipt'], invoices: ['invoice'] };
  return truth.map((e) => {
    const defect = e.category === 'mrz-flagged' ? 'the specimen prints an MRZ that fails its own check digits' : e.expected.tampered ? 'a forgery (SIDTD): a field re-rendered' : undefined;
    return {
      name: basename(e.path),
      category: category[e.category],
      kind: defect ? 'defect' : 'genuine',
      split: e.split,
      note: defect,
      bytes: new Uint8Array(readFileSync(join(DEV, e.path))),
      filename: basename(e.path),
      options: { expect: types[e.path] ?? expect[e.category], checks: { not_expired: false } },
    } satisfies Case;
  });
}

// ---- broken copies ----------------------------------------------------------------------------------------

/** The first XML attachment of a PDF (pdf.js). */
async function xmlAttachment(bytes: Uint8Array): Promise<{ name: string; xml: string } | null> {
  const task = getDocument({ data: bytes.slice(), useSystemFonts: false });
  try {
    const doc = await task.promise;
    const att = (await doc.getAttachments()) as Record<string, { filename: string; content: Uint8Array }> | null;
    for (const a of Object.values(att ?? {})) if (/\.xml$/i.test(a.filename)) return { name: a.filename, xml: Buffer.from(a.content).toString('utf8') };
    return null;
  } finally {
    await task.destroy();
  }
}

/** A one-page PDF that says what it is, carrying `xml` as its e-invoice attachment. */
async function pdfWithXml(name: string, xml: string, title: string): Promise<Uint8Array> {
  const pdf = await PdfLibDocument.create();
  const page = pdf.addPage([595, 842]);
  page.drawText(title, { x: 50, y: 780, size: 14 });
  await pdf.attach(Buffer.from(xml, 'utf8'), name, { mimeType: 'text/xml', description: 'Factur-X/ZUGFeRD invoice' });
  return pdf.save();
}

/** The grand total (CII GrandTotalAmount / UBL TaxInclusiveAmount) and the amount due raised by 10.00. */
function raiseTotals(xml: string): string | null {
  let changed = false;
  const out = xml.replace(/(<(?:[\w-]+:)?(GrandTotalAmount|DuePayableAmount|TaxInclusiveAmount|PayableAmount)\b[^>]*>)\s*(-?\d+(?:\.\d+)?)\s*(<\/)/g, (_m, open: string, _tag: string, amount: string, close: string) => {
    changed = true;
    return `${open}${(Number(amount) + 10).toFixed(2)}${close}`;
  });
  return changed ? out : null;
}

/** A plain text-layer invoice: lines, base, VAT and total as printed (`total` may be made not to add up). */
function textInvoice(total: string): Promise<Uint8Array> {
  return new Promise((ok) => {
    const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: 'Factura', CreationDate: new Date('2026-01-15T10:00:00Z'), ModDate: new Date('2026-01-15T10:00:00Z') } });
    const parts: Buffer[] = [];
    doc.on('data', (d: Buffer) => parts.push(d));
    doc.on('end', () => ok(new Uint8Array(Buffer.concat(parts))));
    doc.fontSize(18).text('FACTURA');
    doc.fontSize(11).moveDown();
    doc.text('Número de factura: F-2026-0042');
    doc.text('Fecha de factura: 15/01/2026');
    doc.text('Emisor: Talleres Ebro S.L.  NIF: B12345674');
    doc.text('Cliente: Ana Martín López');
    doc.moveDown();
    doc.text('Reparación de persiana          2 x 50,00          100,00 €');
    doc.moveDown();
    doc.text('Base imponible: 100,00 €');
    doc.text('IVA 21%: 21,00 €');
    doc.text(`Total factura: ${total} €`);
    doc.end();
  });
}


/**
 * Reads a forged copy with the local MRZ reader, in this process, as the server will: was the flaw read with
 * confidence? The changed zone must be read as printed, and every character the broken check covers at least
 * CHECK_CHAR_CONFIDENCE sure.
 */
async function flawReadSurely(bytes: Buffer, printed: string[], field: 'document_number' | 'birth_date'): Promise<{ sure: boolean; why?: string }> {
  const z = await readZoneCells(bytes);
  if (!z) return { sure: false, why: 'no zone found on the copy' };
  if (z.lines.join('\n') !== printed.join('\n')) return { sure: false, why: `zone read as ${z.lines.join(' / ')}` };
  const conf = z.conf.flatMap((l) => [...l, 1]);
  const weakest = Math.min(...mrzCheckPositions(z.lines, field).map((i) => conf[i] ?? 0));
  return weakest >= CHECK_CHAR_CONFIDENCE ? { sure: true } : { sure: false, why: `a character of the ${field.replace('_', ' ')} read at ${weakest.toFixed(2)}` };
}

async function broken(genuineCases: Case[]): Promise<Case[]> {
  const cases: Case[] = [];
  // A changed character in the zone of every ID specimen the reader reads exactly (bench/lib/forge-mrz.ts): a glyph
  // cut from elsewhere in the same zone pasted over a digit of the document number and of the birth date.
  for (const g of genuineCases.filter((c) => c.category === 'ID documents (MRZ)' && c.kind === 'genuine')) {
    for (const field of ['document_number', 'birth_date'] as const) {
      const f = await forgeField(Buffer.from(g.bytes), field, { expected: g.lines }).catch(() => null);
      if (!f) continue;
      const what = `${field.replace('_', ' ')} ${f.change.old}→${f.change.new} at line ${f.change.line + 1}, position ${f.change.pos + 1}`;
      const { sure, why } = await flawReadSurely(f.bytes, f.lines, field);
      cases.push({ ...g, name: `${g.name} (${what})`, kind: 'broken', bytes: new Uint8Array(f.bytes), filename: g.filename.replace(/\.\w+$/, '-forged.png'), note: what, sure, unsureWhy: why });
    }
  }
  // Amounts that do not add up: each e-invoice's embedded XML with its grand total and amount due raised by 10.00.
  for (const g of genuineCases.filter((c) => c.category === 'e-invoices (embedded XML)')) {
    const att = await xmlAttachment(g.bytes).catch(() => null);
    const xml = att ? raiseTotals(att.xml) : null;
    if (!att || !xml) continue;
    cases.push({ ...g, name: `${g.name} (total +10.00)`, kind: 'broken', bytes: await pdfWithXml(att.name, xml, 'Invoice (altered copy)'), filename: g.filename.replace(/\.pdf$/, '-altered.pdf'), note: 'grand total and amount due +10.00 in the XML', sure: true });
  }
  // A text-layer invoice that adds up, and its copy whose total does not.
  cases.push({ name: 'factura-texto.pdf', category: 'invoices (text PDF)', kind: 'genuine', bytes: await textInvoice('121,00'), filename: 'factura-texto.pdf', options: { expect: 'invoice', checks: { not_expired: false } } });
  cases.push({ name: 'factura-texto.pdf (total 131,00)', category: 'invoices (text PDF)', kind: 'broken', bytes: await textInvoice('131,00'), filename: 'factura-texto-mal.pdf', options: { expect: 'invoice', checks: { not_expired: false } }, note: 'printed total 131,00 for a base of 100,00 and VAT of 21,00', sure: false, unsureWhy: 'printed amounts: a reading may have missed a part (a tip, another rate), so it is a warning' });
  // A signed PDF changed after signing (pyHanko's PAdES sample, its page content replaced in an incremental update).
  const signed = new Uint8Array(readFileSync(join(SIGS, 'pyhanko/pades-with-old-style-signing-cert-attr.pdf')));
  const content = 'BT /F1 24 Tf 72 700 Td (Changed after signing) Tj ET';
  cases.push({
    name: 'pades-with-old-style-signing-cert-attr.pdf (page changed after signing)',
    category: 'signed PDF',
    kind: 'broken',
    bytes: appendUpdate(signed, { 4: `<< /Length ${content.length} >>\nstream\n${content}\nendstream` }),
    filename: 'signed-then-edited.pdf',
    options: { expect: 'invoice', checks: { not_expired: false, require_valid_signature: true } },
    note: 'an incremental update after the signature replaces the page content',
    sure: true,
  });
  return cases;
}

// ---- run ----------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const store = freshStore(db, 'cotejo-false-rejections-');
  const env = { ...process.env, LOG_LEVEL: 'silent', COTEJO_DATA_DIR: store.dataDir, DATABASE_URL: store.databaseUrl };
  const cli = (...args: string[]) => execFileSync(process.execPath, ['server/src/cli.ts', ...args], { cwd: ROOT, env }).toString();
  const created = JSON.parse(cli('accounts', 'create', '--name', 'bench', '--json')) as { account: string; keys: { live: string } };
  cli('credits', 'add', '--account', created.account, '--amount', '5000', '--reason', 'bench');
  cli('accounts', 'update', '--account', created.account, '--rate-limit', '1000', '--live-pages-per-minute', '100000', '--live-concurrency', '10');
  const server = await startCotejo(ROOT, store, { env: { COTEJO_READING_CONCURRENCY: '2' } });
  const started = utcMinute();
  const g = genuine();
  const all = [...g, ...(await broken(g)), ...(withDev ? devCases() : [])].filter((c) => !only || c.name.includes(only));
  const rows: Array<{ c: Case; a: Analysis | null; error?: string }> = [];
  try {
    for (const c of all) {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from(c.bytes)]), c.filename);
      form.append('options', JSON.stringify(c.options));
      const res = await fetch(`${server.baseUrl}/v1/analyze`, { method: 'POST', headers: { authorization: `Bearer ${created.keys.live}` }, body: form });
      const body = (await res.json()) as Analysis & { error?: { code: string } };
      if (res.status !== 200 || body.status !== 'completed') rows.push({ c, a: null, error: `${res.status} ${body.status ?? ''} ${body.error?.code ?? ''}` });
      else rows.push({ c, a: body });
      // The validate split stays unseen: its progress line names neither the file nor the verdict.
      process.stderr.write(c.split === 'validate' ? '.' : `${c.kind} ${c.name}: ${rows.at(-1)!.a?.verdict?.status ?? rows.at(-1)!.error}\n`);
    }
  } finally {
    await stop(server.child);
    dropStore(store);
  }
  writeFileSync(OUT, report(rows, started));
  process.stdout.write(`wrote ${OUT}\n`);
}

function report(rows: Array<{ c: Case; a: Analysis | null; error?: string }>, started: string): string {
  const status = (r: { a: Analysis | null }) => r.a?.verdict?.status ?? 'error';
  const sharp = (r: { a: Analysis | null }) => r.a !== null && !r.a.warnings.some((w) => QUALITY.has(w));
  const why = (a: Analysis | null) =>
    (a?.verdict?.reasons ?? [])
      .filter((x) => x.severity !== 'info')
      .map((x) => `${x.severity === 'error' ? '**' : ''}${x.code}${x.severity === 'error' ? '**' : ''}: ${x.message}`)
      .join('<br>')
      .replace(/\|/g, '\\|');
  const lines: string[] = [];
  lines.push('# False rejections: genuine documents and broken copies, live mode (#27)', '');
  lines.push(`Run \`node bench/false-rejections.ts${db === 'postgres' ? ' --db postgres' : ''}\` (${started} UTC, commit ${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim()}).`);
  lines.push(`Machine: ${machine(db)}. Live mode with the local readers only (no AI provider), through a real server process.`, '');
  lines.push('Each genuine document is analysed with its right type in `expect` and `checks.not_expired: false`; each broken copy');
  lines.push('with the same options (the signed PDF also with `require_valid_signature: true`). "Sharp" = the reader reported no');
  lines.push('quality warning (`blurry`, `low_quality`, `glare`, `cropped`, `photocopy_suspected`, `screen_photo_suspected`).', '');
  const seen = rows.filter((r) => r.c.split !== 'validate');
  const unseen = rows.filter((r) => r.c.split === 'validate');
  const gen = seen.filter((r) => r.c.kind === 'genuine');
  const brk = seen.filter((r) => r.c.kind === 'broken');
  const count = (rs: typeof rows, s: string) => rs.filter((r) => status(r) === s).length;
  const sets = [
    ['documents', rows.filter((r) => r.c.kind === 'genuine' && !r.c.split)],
    ['dev tune', rows.filter((r) => r.c.kind === 'genuine' && r.c.split === 'tune')],
    ['dev validate', unseen.filter((r) => r.c.kind === 'genuine')],
  ] as const;
  const shown = sets.filter(([, rs]) => rs.length > 0);
  const per = (f: (rs: typeof rows) => string) => shown.map(([, rs]) => f(rs)).join(' | ');
  const sharpValid = (rs: typeof rows) => {
    const sh = rs.filter(sharp);
    return `**${count(sh, 'valid')} / ${sh.length}** (${sh.length ? Math.round((100 * count(sh, 'valid')) / sh.length) : 0} %)`;
  };
  lines.push(`| measure | ${shown.map(([n]) => n).join(' | ')} | goal |`, `|---|${shown.map(() => '---|').join('')}---|`);
  lines.push(`| genuine documents judged \`invalid\` | ${per((rs) => `**${count(rs, 'invalid')} / ${rs.length}**`)} | 0 |`);
  lines.push(`| genuine documents with a sharp capture judged \`valid\` | ${per(sharpValid)} | at least 70 % |`);
  lines.push(`| genuine documents judged \`valid\` (all captures) | ${per((rs) => `${count(rs, 'valid')} / ${rs.length}`)} | |`);
  lines.push(`| genuine documents not read (an error, no verdict) | ${per((rs) => `${count(rs, 'error')} / ${rs.length}`)} | |`);
  lines.push('');
  lines.push('| broken copies (of `documents`) | result | goal |', '|---|---|---|');
  const sureBrk = brk.filter((r) => r.c.sure);
  lines.push(`| broken copies whose flaw was read with confidence, judged \`invalid\` | **${count(sureBrk, 'invalid')} / ${sureBrk.length}** | all |`);
  lines.push(`| broken copies judged \`valid\` (a flaw nobody would be told of) | **${count(brk, 'valid')} / ${brk.length}** | 0 |`);
  lines.push(`| all broken copies: \`invalid\` / \`review\` / \`valid\` | ${count(brk, 'invalid')} / ${count(brk, 'review')} / ${count(brk, 'valid')} of ${brk.length} | |`);
  lines.push('');
  lines.push('## Per category', '', '`dev:` rows are the development set (`documents-dev`), by split.', '');
  lines.push('| category | genuine: valid / review / invalid | broken: invalid / review / valid |', '|---|---|---|');
  const catOf = (r: (typeof rows)[number]) => (r.c.split ? `${r.c.category} (${r.c.split})` : r.c.category);
  for (const cat of [...new Set(rows.map(catOf))]) {
    const gc = rows.filter((r) => r.c.kind === 'genuine' && catOf(r) === cat);
    const bc = rows.filter((r) => r.c.kind === 'broken' && catOf(r) === cat);
    lines.push(`| ${cat} | ${gc.length ? `${count(gc, 'valid')} / ${count(gc, 'review')} / ${count(gc, 'invalid')}${count(gc, 'error') ? ` (+${count(gc, 'error')} not read)` : ''}` : '-'} | ${bc.length ? `${count(bc, 'invalid')} / ${count(bc, 'review')} / ${count(bc, 'valid')}` : '-'} |`);
  }
  if (unseen.length) {
    // Counts only: which reasons the validate split's verdicts rest on, never which file or what was read.
    const codes = (rs: typeof rows, sev: string) => {
      const n = new Map<string, number>();
      for (const r of rs) for (const x of new Set((r.a?.verdict?.reasons ?? []).filter((y) => y.severity === sev).map((y) => y.code))) n.set(x, (n.get(x) ?? 0) + 1);
      return [...n].sort((a, b) => b[1] - a[1]).map(([c, k]) => `${c} ${k}`).join(', ') || '-';
    };
    const ug = unseen.filter((r) => r.c.kind === 'genuine');
    lines.push('', '## Validate split (measured only)', '');
    lines.push('The development set\'s `validate` split in counts: how many verdicts carry each reason (errors, then warnings). No file');
    lines.push('and no value is shown (the split stays unseen).', '');
    lines.push('| verdicts | documents | errors (code: verdicts) | warnings (code: verdicts) |', '|---|---|---|---|');
    for (const st of ['invalid', 'review']) {
      const rs = ug.filter((r) => status(r) === st);
      lines.push(`| genuine \`${st}\` | ${rs.length} | ${codes(rs, 'error')} | ${codes(rs, 'warning')} |`);
    }
    const ud = unseen.filter((r) => r.c.kind === 'defect');
    if (ud.length) lines.push(`| printed defects (set apart): invalid / review / valid | ${count(ud, 'invalid')} / ${count(ud, 'review')} / ${count(ud, 'valid')} of ${ud.length} | | |`);
  }
  const defects = seen.filter((r) => r.c.kind === 'defect');
  if (defects.length) {
    lines.push('', '## Set apart: specimens that print a defect', '');
    lines.push('Not counted above: `invalid` would be right for them (the issue counts no document that really carries a defect).', '');
    lines.push('| file | verdict | why | reasons |', '|---|---|---|---|');
    for (const r of defects) lines.push(`| ${r.c.name} | ${status(r)} | ${r.c.note ?? ''} | ${why(r.a)} |`);
  }
  for (const [title, rs] of [['Genuine documents', gen], ['Broken copies', brk]] as const) {
    const broken = title === 'Broken copies';
    lines.push('', `## ${title}`, '', `| file | category | type read | verdict | ${broken ? 'flaw read with confidence' : 'sharp'} | warnings and errors |`, '|---|---|---|---|---|---|');
    for (const r of rs) {
      const col = broken ? (r.c.sure ? 'yes' : `no: ${r.c.unsureWhy ?? ''}`) : sharp(r) ? 'yes' : 'no';
      lines.push(`| ${r.c.name} | ${catOf(r)} | ${r.a?.document ? `${r.a.document.type} (${r.a.document.confidence})` : '-'} | ${status(r)}${r.error ? ` (${r.error})` : ''} | ${col} | ${why(r.a)} |`);
    }
  }
  return lines.join('\n') + '\n';
}

await main();
