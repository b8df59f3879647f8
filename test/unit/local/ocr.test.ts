import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '../../../server/src/providers/local/image.ts';
import {
  OcrAbortedError,
  OcrTimeoutError,
  ocrPage,
  ocrPoolStats,
  terminateOcr,
  tessdataDir,
  toPgm,
} from '../../../server/src/providers/local/ocr.ts';
import type { PageImage, TextLine } from '../../../server/src/providers/local/types.ts';

const INVOICE = path.resolve('../shared/testdata/documents/invoices/invoice2data/SammyMaystoneLinesTest.png');
const NODE = path.resolve('node_modules/.bin/node');

const inside = (inner: number[], outer: number[], slack = 0.002) =>
  inner[0] >= outer[0] - slack && inner[1] >= outer[1] - slack && inner[2] <= outer[2] + slack && inner[3] <= outer[3] + slack;

/** A small white image with one line of text (rendered by librsvg), for cheap OCR calls. */
async function textImage(text: string): Promise<PageImage> {
  const svg = `<svg width="520" height="80"><rect width="100%" height="100%" fill="#fff"/><text x="12" y="52" font-family="DejaVu Sans, sans-serif" font-size="36" fill="#000">${text}</text></svg>`;
  return decodeImage(await sharp(Buffer.from(svg)).png().toBuffer(), 'image/png');
}

describe('ocrPage (tesseract.js, offline)', () => {
  const cwdBefore = fs.readdirSync(process.cwd());
  let page: PageImage;
  let lines: TextLine[];

  beforeAll(async () => {
    page = await decodeImage(fs.readFileSync(INVOICE), 'image/png');
    lines = await ocrPage(page, { languages: ['eng'] });
  });

  afterAll(async () => {
    await terminateOcr();
    expect(ocrPoolStats()).toEqual({ workers: 0, busy: 0, queued: 0 });
  });

  it('reads the invoice: its number and its balance due, with line and word boxes', () => {
    expect(lines.length).toBeGreaterThan(10);
    const numberLine = lines.find((l) => l.text.includes('invoice_number_1'));
    expect(numberLine, lines.map((l) => l.text).join('\n')).toBeDefined();
    const balance = lines.find((l) => /Balance Due/i.test(l.text));
    expect(balance?.text).toContain('$127.50');
    const amount = balance!.words!.find((w) => w.text === '$127.50')!;
    expect(amount).toBeDefined();
    // The amount sits right of "Balance Due:" on the same line, in the right half of the page, near its top.
    expect(inside(amount.bbox, balance!.bbox)).toBe(true);
    expect(amount.bbox[0]).toBeGreaterThan(0.5);
    expect(amount.bbox[1]).toBeLessThan(0.4);
    expect(amount.confidence).toBeGreaterThan(0.6);
    for (const l of lines) {
      expect(l.page).toBe(1);
      expect(l.confidence).toBeGreaterThanOrEqual(0);
      expect(l.confidence).toBeLessThanOrEqual(1);
      expect(l.bbox[0]).toBeLessThan(l.bbox[2]);
      expect(l.bbox[1]).toBeLessThan(l.bbox[3]);
      expect(l.text).toBe(l.words!.map((w) => w.text).join(' '));
      for (const w of l.words!) expect(inside(w.bbox, l.bbox)).toBe(true);
    }
    // reading order: top to bottom, broadly
    expect(lines.indexOf(numberLine!)).toBeLessThan(lines.indexOf(balance!));
  });

  it('writes nothing into the working directory and reads language data from a local directory', () => {
    expect(fs.readdirSync(process.cwd())).toEqual(cwdBefore);
    const dir = tessdataDir();
    expect(path.isAbsolute(dir)).toBe(true);
    for (const lang of ['eng', 'spa', 'fra', 'por']) {
      const target = fs.realpathSync(path.join(dir, `${lang}.traineddata.gz`));
      expect(target).toContain(`@tesseract.js-data/${lang}/4.0.0_best_int/`);
    }
  });

  it('reuses its worker and reads several languages in one worker', async () => {
    const img = await textImage('Fecha de emisión: 12/03/2025');
    const t0 = performance.now();
    const out = await ocrPage(img, { languages: ['spa', 'eng'] });
    expect(out.map((l) => l.text).join(' ')).toMatch(/Fecha de emisi[oó]n/);
    expect(ocrPoolStats().workers).toBe(1);
    // Same language set again: no new worker, and fast.
    const t1 = performance.now();
    await ocrPage(img, { languages: ['eng', 'spa'] });
    expect(performance.now() - t1).toBeLessThan(performance.now() - t0);
    expect(ocrPoolStats().workers).toBe(1);
  });

  it('releases a worker left idle (its memory goes back), and starts a new one for the next page', async () => {
    const img = await textImage('Total 42,00 EUR');
    process.env.COTEJO_OCR_IDLE_MS = '300';
    try {
      await ocrPage(img, { languages: ['eng'] });
      expect(ocrPoolStats().workers).toBe(1);
      await new Promise((r) => setTimeout(r, 1000));
      expect(ocrPoolStats()).toEqual({ workers: 0, busy: 0, queued: 0 });
    } finally {
      delete process.env.COTEJO_OCR_IDLE_MS;
    }
    expect((await ocrPage(img, { languages: ['eng'] })).map((l) => l.text).join(' ')).toMatch(/42/);
    expect(ocrPoolStats().workers).toBe(1);
  });

  it('serves groups in turn: a later single page is not stuck behind a long document', async () => {
    const img = await textImage('Total 42,00 EUR');
    const done: string[] = [];
    const long = [1, 2, 3, 4].map((i) => ocrPage(img, { languages: ['eng', 'spa'], group: 'long' }).then(() => done.push(`long${i}`)));
    const single = ocrPage(img, { languages: ['eng', 'spa'], group: 'single' }).then(() => done.push('single'));
    await Promise.all([...long, single]);
    // long1 was already running or first in line; single comes right after it, not after long4.
    expect(done.indexOf('single')).toBeLessThanOrEqual(2);
    expect(done.at(-1)).toMatch(/^long/);
  });

  it('a page over its time budget is given up, says so, and the pool recovers', async () => {
    const err = await ocrPage(page, { languages: ['eng'], timeoutMs: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OcrTimeoutError);
    expect((err as OcrTimeoutError).code).toBe('ocr_timeout');
    // the next page gets a fresh worker
    const out = await ocrPage(await textImage('Invoice 2025-0042'), { languages: ['eng'] });
    expect(out.map((l) => l.text).join(' ')).toContain('2025-0042');
  });

  it('an aborted signal leaves the queue', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    await expect(ocrPage(page, { signal: ctrl.signal })).rejects.toBeInstanceOf(OcrAbortedError);
    const img = await textImage('abc');
    const ctrl2 = new AbortController();
    const first = ocrPage(img, { languages: ['eng'] });
    const queued = ocrPage(img, { languages: ['eng'], signal: ctrl2.signal });
    ctrl2.abort();
    await expect(queued).rejects.toBeInstanceOf(OcrAbortedError);
    await first;
    expect(ocrPoolStats().queued).toBe(0);
  });

  it('the PGM handed to tesseract keeps raw pixels out of its EXIF sniffing window', async () => {
    const img = await textImage('x');
    const pgm = toPgm(img);
    expect(pgm.indexOf(`\n${img.width} ${img.height}\n255\n`)).toBeGreaterThan(490);
    expect(pgm.length).toBe(512 + img.width * img.height);
  });

  it('works with no network at all and an empty working directory (child process in a network namespace)', () => {
    const probe = spawnSync('unshare', ['-rn', 'true']);
    if (probe.status !== 0) {
      console.warn('unshare -rn not available here: network isolation not tested (tesseract.js still only gets local paths)');
      return;
    }
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-ocr-cwd-'));
    try {
      const root = process.cwd();
      const code = `
        import fs from 'node:fs';
        import { decodeImage } from '${root}/server/src/providers/local/image.ts';
        import { ocrPage, terminateOcr } from '${root}/server/src/providers/local/ocr.ts';
        const img = await decodeImage(fs.readFileSync('${INVOICE}'), 'image/png');
        const lines = await ocrPage(img, { languages: ['eng', 'spa', 'fra', 'por'] });
        await terminateOcr();
        console.log(JSON.stringify(lines.map((l) => l.text)));
      `;
      const run = spawnSync('unshare', ['-rn', NODE, '--input-type=module', '-e', code], { cwd, encoding: 'utf8', timeout: 60_000 });
      expect(run.status, run.stderr).toBe(0);
      const texts = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as string[];
      expect(texts.join('\n')).toContain('invoice_number_1');
      expect(fs.readdirSync(cwd)).toEqual([]);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});
