/**
 * The local provider as the reading benches run it (the configured readers and OCR languages, one reading at a time,
 * every reader's budget ×3 as in bench/dev-reading.ts --budget-scale 3), and one timed reading of a file through it
 * with the dev bench's input (no expected type, fields extracted, reference date 2026-11-24).
 */
import { loadConfig } from '../../server/src/config.ts';
import { inspectFile } from '../../server/src/domain/intake/inspect.ts';
import { createLogger } from '../../server/src/logger.ts';
import { createLocalProvider } from '../../server/src/providers/local/index.ts';
import type { ReadInput, Reading } from '../../server/src/providers/types.ts';

export type LocalRead = (bytes: Uint8Array, filename: string, mime: 'application/pdf' | 'image/jpeg' | 'image/png') => Promise<{ r: Reading; s: number }>;

export function localReader(): LocalRead {
  const config = loadConfig();
  const provider = createLocalProvider({ readers: config.liveReaders, ocrLanguages: config.ocrLanguages, ocrEngine: config.ocrEngine, concurrency: 1, logger: createLogger('silent'), budgetScale: 3 })!;
  return async (bytes, filename, mime) => {
    const { pages } = await inspectFile(bytes, mime, { maxPages: 200 });
    const input: ReadInput = { bytes, filename, mime, pages, kind: 'analysis', expect: null, extract: true, language: 'en', holder: null, referenceDate: '2026-11-24', precise_bboxes: false };
    const t0 = performance.now();
    const r = await provider.read(input);
    return { r, s: (performance.now() - t0) / 1000 };
  };
}

/** The capture benches' table: one row per capture, each check's right / scored, all of them, seconds p50 and p95. */
export function captureTable(checks: readonly string[], captures: readonly string[], tally: Record<string, Record<string, [number, number]>>, seconds: Record<string, number[]>): string {
  const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
  const rows = [`| capture | ${checks.join(' | ')} | all | p50 s | p95 s |`, `|---|${checks.map(() => '---|').join('')}---|---|---|`];
  for (const v of captures) {
    const t = tally[v];
    if (!t) continue;
    const all = checks.reduce((a, c) => [a[0] + t[c][0], a[1] + t[c][1]], [0, 0]);
    rows.push(`| ${v} | ${checks.map((c) => `${t[c][0]}/${t[c][1]}`).join(' | ')} | **${all[0]}/${all[1]}** | ${p(seconds[v], 0.5).toFixed(2)} | ${p(seconds[v], 0.95).toFixed(2)} |`);
  }
  return rows.join('\n');
}
