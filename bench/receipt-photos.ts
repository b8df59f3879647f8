// Till receipts photographed at a slant (issue #28): the dev set's receipt images (flatbed scans, mostly SROIE) read
// as they are and as a phone photo of them (light falling off across the slip, turned a few degrees on a desk,
// compressed), through the local provider with the dev bench's settings, and scored as the dev bench scores
// receipts (type is a receipt type; total; date). The held-out set's receipts are photos; the dev set's are scans:
// this shows what a slant costs. `pair` puts two receipts of the split side by side in one photo (each turned its own
// way, on a desk): the reading must warn `multiple_documents` and read the left one; every other capture must not warn.
//
//   node bench/receipt-photos.ts [--split tune|validate] [--angle 3] [--files substr] [--captures as-is,photo,pair] [--misses] [--dump DIR]
//
// The photo of the n-th file is turned by +angle or -angle alternately; the n-th pair is the files 2n and 2n+1.
// `validate` is counted only: its misses are not printed (it stays unseen).
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join } from 'node:path';
import sharp from 'sharp';
import { invoiceChecks } from './lib/dev-scoring.ts';
import { captureTable, localReader } from './lib/local-read.ts';

const DEV = join(import.meta.dirname, '../../shared/testdata/documents-dev');
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const split = arg('--split') ?? 'tune';
const angle = Number(arg('--angle') ?? 3);
const only = arg('--files');
const showMisses = process.argv.includes('--misses') && split !== 'validate';
const dump = split === 'validate' ? undefined : arg('--dump');
const captures = (arg('--captures') ?? 'as-is,photo,pair').split(',').map((c) => c.replace('-', ' '));

interface Doc { path: string; category: string; split: string; expected: { total?: string | null; date?: string | null } }
const docs = (JSON.parse(readFileSync(join(DEV, 'ground-truth.json'), 'utf8')) as Doc[]).filter(
  (d) => d.category === 'receipts' && d.split === split && /\.(jpe?g|png)$/i.test(d.path) && (!only || d.path.includes(only)),
);

/** A phone photo of the slip on a desk: light falling to 60 % across it, turned `deg`, a margin of desk, JPEG 70. */
async function photo(bytes: Buffer, deg: number): Promise<Buffer> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: W, height: H } = info;
  const ch = info.channels;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const k = 1 - 0.4 * Math.min(1, (x / W + y / H) / 2);
      const i = (y * W + x) * ch;
      for (let c = 0; c < Math.min(3, ch); c++) data[i + c] = Math.round(data[i + c] * k * [0.97, 0.95, 0.9][c]);
    }
  }
  const lit = await sharp(data, { raw: { width: W, height: H, channels: ch } }).png().toBuffer();
  const turned = await sharp(lit).rotate(deg, { background: '#5a4a3a' }).png().toBuffer();
  const t = await sharp(turned).metadata();
  const m = Math.round(Math.max(t.width!, t.height!) * 0.04);
  return sharp({ create: { width: t.width! + 2 * m, height: t.height! + 2 * m, channels: 3, background: '#5a4a3a' } })
    .composite([{ input: turned, left: m, top: m }])
    .blur(0.5)
    .jpeg({ quality: 70 })
    .toBuffer();
}

/**
 * Two slips photographed side by side on a desk: each brought to the same height, turned its own way (`degA`, `degB`),
 * the right one a little lower, light falling across the photo, JPEG 75.
 */
async function pair(a: Buffer, b: Buffer, degA: number, degB: number): Promise<Buffer> {
  const H = 1400;
  const turn = async (x: Buffer, deg: number) =>
    sharp(await sharp(x).removeAlpha().resize({ height: H }).png().toBuffer()).rotate(deg, { background: '#5a4a3a' }).png().toBuffer();
  const [A, B] = [await turn(a, degA), await turn(b, degB)];
  const [ma, mb] = [await sharp(A).metadata(), await sharp(B).metadata()];
  const gap = 40 + Math.round(Math.abs(degA - degB) * 10);
  const m = 50;
  const W = ma.width! + mb.width! + gap + 2 * m;
  const HH = Math.max(ma.height!, mb.height! + 30) + 2 * m;
  const { data, info } = await sharp({ create: { width: W, height: HH, channels: 3, background: '#5a4a3a' } })
    .composite([{ input: A, left: m, top: m }, { input: B, left: m + ma.width! + gap, top: m + 30 }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const k = 1 - 0.3 * (x / info.width);
      const i = (y * info.width + x) * info.channels;
      for (let c = 0; c < 3; c++) data[i + c] = Math.round(data[i + c] * k);
    }
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).removeAlpha().blur(0.5).jpeg({ quality: 75 }).toBuffer();
}

const read = localReader();

const RECEIPT_TYPES = new Set(['payment_receipt', 'es_payment_receipt']);
const CHECKS = ['type', 'total', 'date', 'documents'] as const;
type Check = (typeof CHECKS)[number];

// Warm-up, not counted: the first receipt as it is.
if (docs[0]) await read(new Uint8Array(readFileSync(join(DEV, docs[0].path))), 'warm.jpg', /\.png$/i.test(docs[0].path) ? 'image/png' : 'image/jpeg');
const started = loadavg().map((x) => x.toFixed(2)).join(' ');
const tally: Record<string, Record<Check, [number, number]>> = {};
const seconds: Record<string, number[]> = {};
const misses: string[] = [];
for (const [n, d] of docs.entries()) {
  const original = readFileSync(join(DEV, d.path));
  const name = basename(d.path);
  const deg = n % 2 === 0 ? angle : -angle;
  // The n-th pair: this file (left) and the next one (right), read once for every two files.
  const right = n % 2 === 0 ? docs[n + 1] : undefined;
  for (const v of captures) {
    if (v === 'pair' && !right) continue;
    const bytes = v === 'as is' ? original : v === 'photo' ? await photo(original, deg) : await pair(original, readFileSync(join(DEV, right!.path)), 1 + (n % 4), -2 - (n % 3));
    const label = v === 'pair' ? `${name} + ${basename(right!.path)}` : name;
    const mime = v === 'as is' && /\.png$/i.test(name) ? 'image/png' : 'image/jpeg';
    if (dump) writeFileSync(join(dump, `${name}.${v.replace(' ', '-')}.${mime === 'image/png' ? 'png' : 'jpg'}`), bytes);
    const { r, s } = await read(new Uint8Array(bytes), v === 'as is' ? name : `${name}.${v}.jpg`, mime);
    (seconds[v] ??= []).push(s);
    const t = (tally[v] ??= { type: [0, 0], total: [0, 0], date: [0, 0], documents: [0, 0] });
    const type = r.document?.type ?? null;
    const warned = r.warnings.includes('multiple_documents');
    const rows: Array<{ check: Check; ok: boolean; detail: string }> = [
      { check: 'type', ok: type !== null && RECEIPT_TYPES.has(type), detail: `type ${type}` },
      ...invoiceChecks(r, { total: d.expected.total, issue_date: d.expected.date }).map((x) => ({
        check: x.check as Check,
        ok: x.ok,
        detail: `${x.check}: read ${JSON.stringify(x.got)}, truth ${JSON.stringify(x.want)}`,
      })),
      { check: 'documents', ok: warned === (v === 'pair'), detail: warned ? 'multiple_documents warned' : 'multiple_documents not warned' },
    ];
    const bad: string[] = [];
    for (const x of rows) {
      t[x.check][0] += x.ok ? 1 : 0;
      t[x.check][1] += 1;
      if (!x.ok) bad.push(x.detail);
    }
    if (showMisses && bad.length) misses.push(`- ${v === 'photo' ? `photo ${deg > 0 ? '+' : ''}${deg}°` : v} ${label}: ${bad.join('; ')}`);
    process.stderr.write(`${v} ${label} ${s.toFixed(1)} s ${bad.length ? bad.length + ' missed' : 'ok'}\n`);
  }
}

console.log(`Split ${split}, ${docs.length} receipt images, photos turned ±${angle}°, pairs of them side by side (a pair is scored on its left receipt; \`documents\`: \`multiple_documents\` warned on a pair and only there); load average at start ${started}, at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
console.log(captureTable(CHECKS, captures, tally, seconds));
if (misses.length) console.log(`\nMisses (${split}):\n${misses.join('\n')}`);
process.exit(0);
