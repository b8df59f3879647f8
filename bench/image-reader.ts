/**
 * Image reader bench: decode times and peak RSS (JPEG specimen, the HEIC fixture, a generated 12 MP JPEG, a 50 MP
 * JPEG), quality assessment time on a 3000-px page, and page OCR seconds per invoice PNG (p50/p95) with RSS while
 * the worker pool is warm. Appends one dated section to bench/results/image-reader.md.
 *
 *   node bench/image-reader.ts [--runs 5]
 *
 * Each decode case runs in its own child process, so that its peak RSS (VmHWM) is its own.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(ROOT, 'bench/results/image-reader.md');
const IDS = path.resolve(ROOT, '../shared/testdata/documents/id-images/PassportEye/testdata');
const INVOICES = path.resolve(ROOT, '../shared/testdata/documents/invoices/invoice2data');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;

function vm(field: 'VmHWM' | 'VmRSS'): number {
  const m = fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

// ------------------------------------------------------------------------------------------------
// Child modes

async function childDecode(file: string, mime: string, n: number): Promise<void> {
  const { decodeImage } = await import('../server/src/providers/local/image.ts');
  const bytes = fs.readFileSync(file);
  const base = vm('VmRSS');
  const times: number[] = [];
  let size = '';
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const img = await decodeImage(bytes, mime as 'image/jpeg');
    times.push(performance.now() - t0);
    size = `${img.originalWidth}×${img.originalHeight} → ${img.width}×${img.height}`;
  }
  console.log(JSON.stringify({ times, size, base, hwm: vm('VmHWM'), bytes: bytes.length }));
}

async function childOcr(n: number): Promise<void> {
  const { decodeImage } = await import('../server/src/providers/local/image.ts');
  const { ocrPage, terminateOcr } = await import('../server/src/providers/local/ocr.ts');
  const { assessQuality } = await import('../server/src/providers/local/quality.ts');
  const files = fs.readdirSync(INVOICES).filter((f) => f.endsWith('.png')).sort();
  const pages = await Promise.all(files.map(async (f) => ({ f, img: await decodeImage(fs.readFileSync(path.join(INVOICES, f)), 'image/png') })));
  const out: Record<string, unknown> = {};
  // quality on the 3000-px page
  const big = pages.find((p) => Math.max(p.img.width, p.img.height) === 3000)!;
  assessQuality(big.img);
  const qt: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    assessQuality(big.img);
    qt.push(performance.now() - t0);
  }
  out.quality = { file: big.f, size: `${big.img.width}×${big.img.height}`, p50: pct(qt, 0.5), p95: pct(qt, 0.95) };
  const rssBefore = vm('VmRSS');
  for (const langs of [['eng'], ['eng', 'spa', 'fra', 'por']] as const) {
    const t0 = performance.now();
    const first = await ocrPage(pages[0].img, { languages: [...langs] });
    const firstMs = performance.now() - t0;
    const per: Record<string, { times: number[]; cpu: number[]; lines: number; words: number }> = {};
    for (const { f, img } of pages) {
      per[f] = { times: [], cpu: [], lines: 0, words: 0 };
      for (let i = 0; i < n; i++) {
        const c0 = process.cpuUsage();
        const t = performance.now();
        const lines = await ocrPage(img, { languages: [...langs] });
        per[f].times.push(performance.now() - t);
        const c = process.cpuUsage(c0);
        per[f].cpu.push((c.user + c.system) / 1000);
        per[f].lines = lines.length;
        per[f].words = lines.reduce((s, l) => s + (l.words?.length ?? 0), 0);
      }
    }
    out[langs.join('+')] = { firstMs, firstLines: first.length, per, rssWarm: vm('VmRSS'), hwm: vm('VmHWM'), sizes: Object.fromEntries(pages.map((p) => [p.f, `${p.img.width}×${p.img.height}`])) };
    await terminateOcr();
  }
  out.rssBefore = rssBefore;
  console.log(JSON.stringify(out));
}

// ------------------------------------------------------------------------------------------------
// Parent

function child(args: string[]): any {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], { encoding: 'utf8', maxBuffer: 1 << 24, cwd: ROOT });
  if (r.status !== 0) throw new Error(`child ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === '--decode') return childDecode(process.argv[3], process.argv[4], Number(process.argv[5]));
  if (mode === '--ocr') return childOcr(Number(process.argv[3]));

  const sharp = (await import('sharp')).default;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cotejo-bench-img-'));
  try {
    // A 12 MP phone-sized JPEG (4032×3024) and a 50 MP one (8160×6120), made from a specimen (real texture, not noise).
    const spec = fs.readFileSync(path.join(IDS, '100_pass-bdr.jpg'));
    const j12 = path.join(tmp, '12mp.jpg');
    fs.writeFileSync(j12, await sharp(spec).resize(4032, 3024, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer());
    const j50 = path.join(tmp, '50mp.jpg');
    fs.writeFileSync(j50, await sharp(spec).resize(8160, 6120, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer());
    const cases: Array<[string, string, string]> = [
      ['JPEG specimen 100_pass-cze.jpg', path.join(IDS, '100_pass-cze.jpg'), 'image/jpeg'],
      ['JPEG specimen 100_pass-bdr.jpg', path.join(IDS, '100_pass-bdr.jpg'), 'image/jpeg'],
      ['HEIC fixture sample.heic', path.join(ROOT, 'test/fixtures/intake/sample.heic'), 'image/heic'],
      ['JPEG 12 MP (generated)', j12, 'image/jpeg'],
      ['JPEG 50 MP (generated)', j50, 'image/jpeg'],
      ['PNG invoice AmazonWebServices.png', path.join(INVOICES, 'AmazonWebServices.png'), 'image/png'],
    ];
    if (spawnSync('heif-enc', ['--help']).status !== null) {
      const png = path.join(tmp, '12mp.png');
      await sharp(j12).png().toFile(png);
      const enc = spawnSync('heif-enc', ['-q', '80', '-o', path.join(tmp, '12mp.heic'), png]);
      if (enc.status === 0) cases.push(['HEIC 12 MP (heif-enc, generated)', path.join(tmp, '12mp.heic'), 'image/heic']);
    }
    const rows: string[] = [];
    for (const [name, file, mime] of cases) {
      const r = child(['--decode', file, mime, String(runs)]);
      rows.push(
        `| ${name} | ${(r.bytes / 1024).toFixed(0)} KB | ${r.size} | ${r.times[0].toFixed(0)} | ${pct(r.times.slice(1), 0.5).toFixed(0)} | ${r.base} | ${r.hwm} |`,
      );
      console.log(rows.at(-1));
    }
    const ocr = child(['--ocr', String(runs)]);
    const cpu = os.cpus();
    const machine = `${cpu.length} CPUs (${cpu[0]?.model.trim()}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM; Node ${process.version}; load average at start ${os.loadavg()[0].toFixed(1)}`;
    const ocrRows: string[] = [];
    for (const langs of ['eng', 'eng+spa+fra+por']) {
      const o = ocr[langs];
      for (const [f, p] of Object.entries(o.per as Record<string, { times: number[]; cpu: number[]; lines: number; words: number }>)) {
        ocrRows.push(
          `| ${langs} | ${f} | ${o.sizes[f]} | ${(pct(p.times, 0.5) / 1000).toFixed(2)} | ${(pct(p.times, 0.95) / 1000).toFixed(2)} | ${(pct(p.cpu, 0.5) / 1000).toFixed(2)} | ${p.lines} / ${p.words} |`,
        );
      }
      const all = Object.values(o.per as Record<string, { times: number[] }>).flatMap((p) => p.times);
      ocrRows.push(`| ${langs} | **all pages** | | **${(pct(all, 0.5) / 1000).toFixed(2)}** | **${(pct(all, 0.95) / 1000).toFixed(2)}** | | first call incl. worker start ${(o.firstMs / 1000).toFixed(2)} s; RSS warm ${o.rssWarm} MB, peak ${o.hwm} MB |`);
    }
    const section = [
      `\n## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (${runs} runs per case)`,
      '',
      `Machine: ${machine}. Commit ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()}.`,
      '',
      '### decodeImage (each case in a fresh process)',
      '',
      '| input | file | size → PageImage | first ms (cold: module + libvips/libheif load) | median ms (warm) | RSS before MB | peak RSS MB (VmHWM) |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `### assessQuality: ${ocr.quality.file} (${ocr.quality.size}): p50 ${ocr.quality.p50.toFixed(1)} ms, p95 ${ocr.quality.p95.toFixed(1)} ms`,
      '',
      `### ocrPage: one worker (COTEJO_OCR_WORKERS=1), RSS before OCR ${ocr.rssBefore} MB (pages decoded)`,
      '',
      '| languages | page | PageImage | wall s p50 | wall s p95 | CPU s p50 (main thread + worker) | lines / words |',
      '|---|---|---|---|---|---|---|',
      ...ocrRows,
      '',
    ].join('\n');
    if (!fs.existsSync(RESULTS)) {
      fs.writeFileSync(
        RESULTS,
        '# Image reader: decode, quality and page OCR\n\nGenerated by `node bench/image-reader.ts` (one section per run, appended). Readings by hand are marked as such.\n',
      );
    }
    fs.appendFileSync(RESULTS, section);
    console.log(section);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
