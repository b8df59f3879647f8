import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeImage, shrinkPage } from '../../../server/src/providers/local/image.ts';
import { ocrEngineFor } from '../../../server/src/providers/local/index.ts';
import { OcrAbortedError, OcrTimeoutError, ocrPage, pageTextDirection, terminateOcr } from '../../../server/src/providers/local/ocr.ts';
import { ctcDecode } from '../../../server/src/providers/local/paddle-engine.ts';
import { paddleStats } from '../../../server/src/providers/local/paddle.ts';
import { rotatePage } from '../../../server/src/providers/local/rotate.ts';
import type { PageImage, TextLine } from '../../../server/src/providers/local/types.ts';

const INVOICE = path.resolve('../shared/testdata/documents/invoices/invoice2data/SammyMaystoneLinesTest.png');
/** A till receipt photo of the development set's `tune` split. */
const RECEIPT = path.resolve('../shared/testdata/documents-dev/receipts/SROIE__001.jpg');
const NODE = path.resolve('node_modules/.bin/node');

const inside = (inner: number[], outer: number[], slack = 0.002) =>
  inner[0] >= outer[0] - slack && inner[1] >= outer[1] - slack && inner[2] <= outer[2] + slack && inner[3] <= outer[3] + slack;

function wellFormed(lines: TextLine[]): void {
  for (const l of lines) {
    expect(l.page).toBe(1);
    expect(l.confidence).toBeGreaterThanOrEqual(0);
    expect(l.confidence).toBeLessThanOrEqual(1);
    expect(l.bbox[0]).toBeLessThan(l.bbox[2]);
    expect(l.bbox[1]).toBeLessThan(l.bbox[3]);
    expect(l.text).toBe(l.words!.map((w) => w.text).join(' '));
    for (const w of l.words!) {
      expect(w.text).not.toMatch(/\s/);
      expect(inside(w.bbox, l.bbox)).toBe(true);
      expect(w.confidence).toBeGreaterThan(0);
      expect(w.confidence).toBeLessThanOrEqual(1);
    }
  }
  // Lines top to bottom.
  for (let i = 1; i < lines.length; i++) expect(lines[i].bbox[1]).toBeGreaterThanOrEqual(lines[i - 1].bbox[1] - 0.01);
}

describe('ocrPage with the PP-OCR engine (onnxruntime, models from the npm package)', { timeout: 120_000 }, () => {
  let invoice: PageImage;
  let receipt: PageImage;
  let invoiceLines: TextLine[];
  let receiptLines: TextLine[];

  beforeAll(async () => {
    invoice = await decodeImage(fs.readFileSync(INVOICE), 'image/png');
    receipt = await shrinkPage(await decodeImage(fs.readFileSync(RECEIPT), 'image/jpeg'), 2400);
    invoiceLines = await ocrPage(invoice, { engine: 'paddle', timeoutMs: 100_000 });
    receiptLines = await ocrPage(receipt, { engine: 'paddle', timeoutMs: 100_000 });
  }, 240_000);

  afterAll(async () => {
    await terminateOcr();
    expect(paddleStats()).toEqual({ loaded: false, pending: 0 });
  });

  it('reads the invoice: its number and the balance due on one line with the amount as its own word, right of the label', () => {
    const all = invoiceLines.map((l) => l.text).join('\n');
    expect(all).toContain('invoice_number_1');
    const balance = invoiceLines.find((l) => /Balance Due/i.test(l.text));
    expect(balance, all).toBeDefined();
    const amount = balance!.words!.find((w) => w.text.endsWith('127.50'));
    expect(amount, balance!.text).toBeDefined();
    const label = balance!.words!.find((w) => /^Balance$/i.test(w.text))!;
    expect(label).toBeDefined();
    expect(amount!.bbox[0]).toBeGreaterThan(label.bbox[2]);
    expect(amount!.bbox[0]).toBeGreaterThan(0.5);
    expect(amount!.confidence).toBeGreaterThan(0.6);
    wellFormed(invoiceLines);
  });

  it('keeps a label and its value on one line when the page is photographed a few degrees off (rows along its slant)', async () => {
    const sharp = (await import('sharp')).default;
    for (const angle of [-5, 7]) {
      const turned = await sharp(fs.readFileSync(INVOICE)).rotate(angle, { background: '#ffffff' }).png().toBuffer();
      const lines = await ocrPage(await decodeImage(turned, 'image/png'), { engine: 'paddle', timeoutMs: 100_000 });
      const all = lines.map((l) => l.text).join('\n');
      const balance = lines.find((l) => /Balance Due/i.test(l.text));
      expect(balance, `${angle}°\n${all}`).toBeDefined();
      expect(balance!.words!.some((w) => w.text.endsWith('127.50')), `${angle}°: ${balance!.text}`).toBe(true);
      // Word boxes follow the slanted line (not the whole box's upright extent): about a line high.
      const label = balance!.words!.find((w) => /^Balance$/i.test(w.text))!;
      expect(label.bbox[3] - label.bbox[1]).toBeLessThan(0.04);
    }
  });

  it('reads the receipt photo: merchant, date, and the total with its amount on the same line', () => {
    const all = receiptLines.map((l) => l.text).join('\n');
    expect(all).toContain('INDAH GIFT');
    expect(all).toContain('19/10/2018');
    const total = receiptLines.find((l) => /^TOTAL AMT/i.test(l.text));
    expect(total, all).toBeDefined();
    expect(total!.words!.at(-1)!.text).toMatch(/^60\.3\d$/);
    // Words the recogniser ran together are split where it left a gap: "JALAN DEDAP", not "JALANDEDAP".
    expect(all).toMatch(/JALAN DEDAP/);
    wellFormed(receiptLines);
  });

  it('tells which way a page\'s text runs: across, down or up the page (a receipt photographed sideways), or no text', async () => {
    const opts = { timeoutMs: 100_000 };
    expect((await pageTextDirection(receipt, opts)).runs).toBe('across');
    expect((await pageTextDirection(invoice, opts)).runs).toBe('across');
    // turned clockwise, its lines run down the page: a counter-clockwise turn sets it upright, and the other way round
    expect(await pageTextDirection(rotatePage(receipt, true), opts)).toEqual({ runs: 'down', turn: 'ccw' });
    expect(await pageTextDirection(rotatePage(receipt, false), opts)).toEqual({ runs: 'down', turn: 'cw' });
    const blank: PageImage = { ...invoice, width: 400, height: 300, grey: Buffer.alloc(400 * 300, 250), rgb: Buffer.alloc(400 * 300 * 3, 250) };
    expect(await pageTextDirection(blank, opts)).toEqual({ runs: 'none', turn: null });
    expect(paddleStats().pending).toBe(0);
  });

  it('honours the budget and the caller\'s signal, and reads the next page after either', async () => {
    await expect(ocrPage(receipt, { engine: 'paddle', timeoutMs: 1 })).rejects.toBeInstanceOf(OcrTimeoutError);
    const ctl = new AbortController();
    const aborted = ocrPage(receipt, { engine: 'paddle', signal: ctl.signal, timeoutMs: 100_000 });
    setTimeout(() => ctl.abort(), 20);
    await expect(aborted).rejects.toBeInstanceOf(OcrAbortedError);
    const before = new AbortController();
    before.abort();
    await expect(ocrPage(receipt, { engine: 'paddle', signal: before.signal })).rejects.toBeInstanceOf(OcrAbortedError);
    const again = await ocrPage(invoice, { engine: 'paddle', timeoutMs: 100_000 });
    expect(again.map((l) => l.text).join('\n')).toContain('invoice_number_1');
    expect(paddleStats()).toEqual({ loaded: true, pending: 0 });
  });
});

describe('the PP-OCR worker thread', { timeout: 120_000 }, () => {
  let receipt: PageImage;
  let receiptLines: TextLine[];

  beforeAll(async () => {
    receipt = await shrinkPage(await decodeImage(fs.readFileSync(RECEIPT), 'image/jpeg'), 2400);
    receiptLines = await ocrPage(receipt, { engine: 'paddle', timeoutMs: 100_000 });
  }, 240_000);

  afterAll(async () => {
    await terminateOcr();
    expect(paddleStats()).toEqual({ loaded: false, pending: 0 });
  });

  it('reads in the worker: ONNX Runtime is never loaded on the calling thread', () => {
    expect(receiptLines.map((l) => l.text).join('\n')).toContain('INDAH GIFT');
    expect(paddleStats()).toEqual({ loaded: true, pending: 0 });
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.some((f) => f.includes(`${path.sep}onnxruntime-node${path.sep}`))).toBe(false);
  });

  it('a page aborted while it waits behind another is dropped at once, and the one being read is not disturbed', async () => {
    const first = ocrPage(receipt, { engine: 'paddle', timeoutMs: 100_000 });
    const ctl = new AbortController();
    const second = ocrPage(receipt, { engine: 'paddle', signal: ctl.signal, timeoutMs: 100_000 });
    const secondSettled = Promise.allSettled([second]);
    // ocr.ts hands the page to paddle.ts after a microtask (its lazy import).
    await vi.waitFor(() => expect(paddleStats().pending).toBe(2));
    ctl.abort();
    const [r] = await secondSettled;
    expect(r.status === 'rejected' && r.reason).toBeInstanceOf(OcrAbortedError);
    expect(paddleStats().pending).toBe(1);
    expect(await first).toEqual(receiptLines);
    expect(paddleStats()).toEqual({ loaded: true, pending: 0 });
  });

  it('shutdown while a page is read and another waits: both reject as aborted, the thread ends; the next page starts a new one and reads the same', async () => {
    const reading = ocrPage(receipt, { engine: 'paddle', timeoutMs: 100_000 });
    const waiting = ocrPage(receipt, { engine: 'paddle', timeoutMs: 100_000 });
    const settled = Promise.allSettled([reading, waiting]);
    await terminateOcr();
    for (const r of await settled) expect(r.status === 'rejected' && r.reason).toBeInstanceOf(OcrAbortedError);
    expect(paddleStats()).toEqual({ loaded: false, pending: 0 });
    expect(await ocrPage(receipt, { engine: 'paddle', timeoutMs: 100_000 })).toEqual(receiptLines);
    expect(paddleStats()).toEqual({ loaded: true, pending: 0 });
  });

  it('leaves no worker behind: a process exits by itself after reading (with or without terminateOcr), and its threads do not grow from one engine start to the next', () => {
    const root = process.cwd();
    const code = (terminate: boolean) => `
      import fs from 'node:fs';
      import { decodeImage } from '${root}/server/src/providers/local/image.ts';
      import { ocrPage, terminateOcr } from '${root}/server/src/providers/local/ocr.ts';
      const workers = () => fs.readdirSync('/proc/self/task').filter((t) => fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').trim() === 'cotejo-pp-ocr').length;
      const img = await decodeImage(fs.readFileSync('${INVOICE}'), 'image/png');
      const counts = [];
      for (let i = 0; i < 2; i++) {
        const lines = await ocrPage(img, { engine: 'paddle', timeoutMs: 100000 });
        if (!lines.some((l) => l.text.includes('invoice_number_1'))) throw new Error('not read');
        counts.push(workers());
        if (${terminate}) {
          await terminateOcr();
          counts.push(workers());
        }
      }
      console.log(JSON.stringify(counts));
    `;
    for (const terminate of [true, false]) {
      // No process.exit in the child: it ends only if nothing (no thread, no timer) holds its event loop.
      const run = spawnSync(NODE, ['--input-type=module', '-e', code(terminate)], { encoding: 'utf8', timeout: 110_000 });
      expect(run.status, run.stderr).toBe(0);
      const counts = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as number[];
      if (terminate) {
        // While reading: the worker's thread (and what ONNX Runtime starts in it); after terminateOcr: no more than
        // ONNX Runtime's own process-wide thread, the same after the second start.
        const [reading1, after1, reading2, after2] = counts;
        expect(reading1).toBeGreaterThanOrEqual(1);
        expect(after1).toBeLessThan(reading1);
        expect(reading2).toBe(reading1);
        expect(after2).toBe(after1);
      } else expect(counts[0]).toBe(counts[1]);
    }
  }, 240_000);
});

describe('the PP-OCR engine offline', () => {
  it('reads with no network at all and an empty working directory (child process in a network namespace)', () => {
    const probe = spawnSync('unshare', ['-rn', 'true']);
    if (probe.status !== 0) {
      console.warn('unshare -rn not available here: network isolation not tested (the models are read from node_modules)');
      return;
    }
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-paddle-cwd-'));
    try {
      const root = process.cwd();
      const code = `
        import fs from 'node:fs';
        import { decodeImage } from '${root}/server/src/providers/local/image.ts';
        import { ocrPage, terminateOcr } from '${root}/server/src/providers/local/ocr.ts';
        const img = await decodeImage(fs.readFileSync('${INVOICE}'), 'image/png');
        const lines = await ocrPage(img, { engine: 'paddle', timeoutMs: 100000 });
        await terminateOcr();
        console.log(JSON.stringify(lines.map((l) => l.text)));
      `;
      const run = spawnSync('unshare', ['-rn', NODE, '--input-type=module', '-e', code], { cwd, encoding: 'utf8', timeout: 110_000 });
      expect(run.status, run.stderr).toBe(0);
      const texts = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as string[];
      expect(texts.join('\n')).toContain('invoice_number_1');
      expect(fs.readdirSync(cwd)).toEqual([]);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('PP-OCR pieces', () => {
  it('CTC decoding merges repeats, drops blanks and keeps each character\'s first step', () => {
    const dict = ['', 'A', 'B', ' '];
    // steps: A A blank B B blank blank A
    const best = [1, 1, 0, 2, 2, 0, 0, 1];
    const logits = new Float32Array(best.length * dict.length);
    best.forEach((c, t) => (logits[t * dict.length + c] = 0.9));
    expect(ctcDecode(logits, best.length, dict.length, dict)).toEqual([
      { text: 'A', step: 0, p: expect.closeTo(0.9, 5) },
      { text: 'B', step: 3, p: expect.closeTo(0.9, 5) },
      { text: 'A', step: 7, p: expect.closeTo(0.9, 5) },
    ]);
  });

  it('COTEJO_OCR_ENGINE=auto reads upright photos with PP-OCR, landscape ones and rendered PDF pages with tesseract; a named engine reads everything', () => {
    const receipt = { width: 900, height: 2000 };
    const card = { width: 1000, height: 630 };
    expect(ocrEngineFor('auto', 'image/jpeg', receipt)).toBe('paddle');
    expect(ocrEngineFor('auto', 'image/heic', { width: 1000, height: 1000 })).toBe('paddle');
    expect(ocrEngineFor('auto', 'image/png', card)).toBe('tesseract');
    expect(ocrEngineFor('auto', 'application/pdf', receipt)).toBe('tesseract');
    expect(ocrEngineFor('paddle', 'application/pdf', card)).toBe('paddle');
    expect(ocrEngineFor('tesseract', 'image/png', receipt)).toBe('tesseract');
  });
});
