/**
 * Live mode's local readers, composed into one Provider (`sovereign` profile: everything runs on the service's own
 * machine, nothing leaves it, nothing is downloaded). docs/live-mode.md describes what each reader reads.
 *
 *   input ─┬─ image ──> decode (orientation, downscale, bombs refused) ─┐
 *          └─ PDF ────> text layer + embedded invoice XML; pages        ├─> per page: MRZ ─> else PDF417 ─> else page OCR
 *                       without text rendered to pixels ───────────────┘             + quality signals
 *   evidence ─> type: MRZ / AAMVA / embedded XML decide alone; otherwise the text rules classify
 *            ─> fields: what the deterministic evidence carries wins; text rules fill the rest; the rest stays null
 *
 * A reader that throws or runs past its budget is left out (logged) and the reading goes on without it; when no
 * reader could look at the document at all, the reading fails (`processing_failed`, not charged). Mistral reads
 * after them, for what they leave open (providers/live.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { getEntry, FIELD_DICTIONARY, type CatalogueEntry } from '../../catalogue/index.ts';
import { isTwoSided } from '../../catalogue/sides.ts';
import type { LocalReaderName, OcrEngineSetting, OcrLanguage } from '../../config.ts';
import { t } from '../../domain/analysis/messages.ts';
import type { Provider, ReadField, ReadInput, Reading, Warning } from '../types.ts';
import { readingFromAamva, readingFromMrz, type Candidate, type IdEvidenceReading } from './id-documents.ts';
import { Limiter } from './limiter.ts';
import { rotatePage, unrotateBox } from './rotate.ts';
import type { EmbeddedInvoice, IdFrontClassification, TextClassification } from './text/index.ts';
import type { Box, MrzReading, PageImage, TextLine } from './types.ts';
import { MAX_READ_SIDE } from './types.ts';

/** The readers' modules (and through them their engines: OCR workers, wasm, pdf.js) load on the first live reading. */
let modules: Promise<Modules> | null = null;
async function loadModules() {
  const [image, mrz, ocr, pdf, quality, text, pdf417] = await Promise.all([
    import('./image.ts'),
    import('./mrz/index.ts'),
    import('./ocr.ts'),
    import('./pdf.ts'),
    import('./quality.ts'),
    import('./text/index.ts'),
    import('../../validators/barcode/pdf417.ts'),
  ]);
  return { ...image, ...mrz, ...ocr, ...pdf, ...quality, ...text, readPdf417Pixels: pdf417.readPdf417Pixels };
}
type Modules = Awaited<ReturnType<typeof loadModules>>;
function readers(): Promise<Modules> {
  modules ??= loadModules().catch((err) => {
    modules = null;
    throw err;
  });
  return modules;
}

type ProviderInfo = Reading['providers'][number];

/** Page OCR reads at most this many pixels on the longer side (an A4 page at ~200 dpi): memory grows with pixels. */
const OCR_MAX_SIDE = 2400;
/** At most this many pages of a PDF without a text layer are rendered and read as images. */
export const MAX_SCANNED_PAGES = 4;
/**
 * Below this a best guess reads no field. Between it and 0.5 the type is reported but not trusted (the verdict says
 * `type_unknown`), and the guessed type's fields are still read from the text: they are real values of the document.
 */
const EXTRACT_FLOOR = 0.3;

/** Budget of each reader on one page; past it the reading goes on without that reader. */
const BUDGET_MS = { decode: 15_000, mrz: 20_000, pdf417: 10_000, pdf: 20_000, render: 15_000, ocr: 25_000 } as const;

/** How each reader names itself in `processing.providers`. */
function describe(m: Modules, languages: readonly string[]): Record<string, ProviderInfo> {
  return {
    mrz: { name: 'local-mrz', region: 'local', role: 'local', model: 'cotejo-ocrb-mlp-1' },
    pdf417: { name: 'local-pdf417', region: 'local', role: 'local', model: 'zxing-cpp (zxing-wasm 3)' },
    pdfText: { name: 'local-pdf-text', region: 'local', role: 'local', model: 'pdf.js' },
    xml: { name: 'local-invoice-xml', region: 'local', role: 'local', model: 'CII/UBL' },
    ocr: { name: 'local-ocr', region: 'local', role: 'local', model: `tesseract 5 lstm (${languages.join('+')})` },
    ocrPaddle: { name: 'local-ocr', region: 'local', role: 'local', model: m.PADDLE_MODEL },
    rules: { name: 'local-rules', region: 'local', role: 'local', model: 'cotejo-rules-1' },
  };
}

export interface LocalProviderOptions {
  readers: ReadonlySet<LocalReaderName>;
  ocrLanguages: OcrLanguage[];
  /** Page OCR engine (`COTEJO_OCR_ENGINE`); default `auto`. */
  ocrEngine?: OcrEngineSetting;
  concurrency: number;
  logger: Logger;
  /**
   * Multiplies every reader's time budget (and page OCR's own): for benches on a machine so loaded that a budget would
   * turn into misses the readers do not have (bench/dev-reading.ts --budget-scale). Default 1.
   */
  budgetScale?: number;
}

/** The live provider of the local readers, or null when the configuration leaves none (live mode is then 503). */
export function createLocalProvider(opts: LocalProviderOptions): Provider | null {
  if (opts.readers.size === 0) return null;
  // Two lanes of `concurrency` readings each. Images (page OCR: seconds of CPU and hundreds of MB each) take the page
  // lane; PDFs take their own lane, so that a text PDF (0.1 s) does not wait behind page-OCR readings, and the pages
  // of a PDF that need rendering and page OCR take the page lane for that part: the pixels in memory stay bounded by
  // the page lane. A large page (image.ts LARGE_PAGE_PIXELS) and a PDF's rendered pages take the whole lane (read
  // alone), so that two large pages' working sets are never resident at once; photos take one slot each.
  const pages = new Limiter(opts.concurrency);
  const pdfs = new Limiter(opts.concurrency);
  return {
    name: 'local',
    read: async (input) =>
      input.mime === 'application/pdf'
        ? pdfs.run(() => readLocally(input, opts, pages))
        : pages.run(() => readLocally(input, opts, null), readers().then((m) => m.pageLaneWeight(input.bytes, pages.max))),
  };
}

class Timeout extends Error {}

/** Runs one reader under its budget: its result, or null when it threw or ran late (the reading goes on). */
export async function attempt<T>(log: Logger, reader: string, budgetMs: number, fn: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const t0 = performance.now();
  try {
    return await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Timeout(`${reader} ran past ${budgetMs} ms`)), budgetMs);
      }),
    ]);
  } catch (err) {
    log.warn({ err, reader }, err instanceof Timeout ? 'local reader timed out; reading goes on without it' : 'local reader failed; reading goes on without it');
    return null;
  } finally {
    clearTimeout(timer);
    // Where a reading's seconds go (bench/reading-speed.ts collects these; queue time for the OCR workers included).
    log.debug({ reader, ms: Math.round(performance.now() - t0) }, 'local reader timing');
  }
}

interface PageEvidence {
  image: PageImage;
  mrz: MrzReading | null;
  pdf417: { text: string; bbox: Box | null } | null;
  lines: TextLine[];
  warnings: Warning[];
}

interface Evidence {
  pages: PageEvidence[];
  /** Text of the document: the PDF text layer and the OCR of pages read as images. */
  lines: TextLine[];
  xml: EmbeddedInvoice | null;
  /** Pages of the original (1 for an image). */
  pageCount: number;
  /** At least one reader looked at the content and answered (found something or nothing), rather than failing. */
  looked: boolean;
  /** Pages read turned a quarter (true: clockwise): their text's boxes are on the turned page. */
  rotated: Map<number, boolean>;
  /**
   * PP-OCR's reading of ID-front pages tesseract read first (no zone, no barcode): the second engine whose fields are
   * combined with the first's (text/id-front.ts readIdFrontFieldsBoth). Empty when no page had one.
   */
  second: TextLine[];
}

/**
 * `pageLane`: the page lane a PDF's rendered pages are read under (null when the reading already holds a slot of it).
 */
async function gather(m: Modules, R: Record<string, ProviderInfo>, input: ReadInput, opts: LocalProviderOptions, used: Map<string, ProviderInfo>, pageLane: Limiter | null): Promise<Evidence> {
  const log = opts.logger;
  const on = (r: LocalReaderName) => opts.readers.has(r);
  const scale = opts.budgetScale ?? 1;
  const budget = Object.fromEntries(Object.entries(BUDGET_MS).map(([k, v]) => [k, v * scale])) as Record<keyof typeof BUDGET_MS, number>;
  const ev: Evidence = { pages: [], lines: [], xml: null, pageCount: Math.max(1, input.pages), looked: false, rotated: new Map(), second: [] };
  // The pages of one document queue together for the OCR workers, fairly among documents.
  const readingId = randomUUID();
  /** A reader under its budget; one that answered (found something or not) means the document was looked at. */
  const run = async <T>(reader: string, budgetMs: number, fn: () => Promise<T>): Promise<T | null> => {
    let answered = false;
    const value = await attempt(log, reader, budgetMs, async () => {
      const v = await fn();
      answered = true;
      return v;
    });
    if (answered) ev.looked = true;
    return value;
  };
  const images: PageImage[] = [];
  /** Renders the PDF's pages without text, when it has some to read: done under a page-lane slot. */
  let render: (() => Promise<void>) | null = null;
  if (input.mime === 'application/pdf') {
    const content = on('text') ? await run('pdf', budget.pdf, () => m.readPdf(input.bytes, { maxPages: input.pages })) : null;
    let scanned = Array.from({ length: Math.min(input.pages, MAX_SCANNED_PAGES) }, (_, i) => i + 1);
    if (content) {
      const text = content.pages.flatMap((p) => p.lines);
      if (text.length > 0) {
        used.set('pdfText', R.pdfText);
        ev.lines.push(...text);
      }
      ev.xml = m.readEmbeddedInvoice(content.attachments);
      if (ev.xml) used.set('xml', R.xml);
      scanned = content.pages.filter((p) => !p.hasText).map((p) => p.page).slice(0, MAX_SCANNED_PAGES);
    }
    // Pages without text are rendered and read as images, unless an embedded invoice already says everything.
    if ((on('mrz') || on('pdf417') || on('ocr')) && !ev.xml?.isInvoice && scanned.length > 0) {
      render = async () => {
        for (const page of scanned) {
          const raw = await attempt(log, 'render', budget.render, () => m.renderPdfPage(input.bytes, page, { maxSide: MAX_READ_SIDE }));
          if (raw) images.push(await m.pageImageFromRgba(raw, page));
        }
      };
    }
  } else {
    // Intake has already decoded this image once: a failure here is unexpected, and the reading fails honestly.
    const image = await attempt(log, 'decode', budget.decode, () => m.decodeImage(input.bytes, input.mime as never));
    if (image) images.push(image);
  }

  const timeoutMs = scale === 1 ? undefined : m.OCR_PAGE_BUDGET_MS * scale;
  /** Page OCR of `page` (downscaled for the engine) by one engine, under the OCR budget. */
  const ocr = (page: () => Promise<PageImage>, engine: 'paddle' | 'tesseract') =>
    run('ocr', budget.ocr, async () => m.ocrPage(await page(), { languages: opts.ocrLanguages, group: readingId, timeoutMs, engine }));
  const readText = async (image: PageImage): Promise<TextLine[] | null> => {
    const engine = ocrEngineFor(opts.ocrEngine ?? 'auto', input.mime, image);
    // downscaled once, for tesseract and for PP-OCR's second look
    let shrunk: Promise<PageImage> | undefined;
    const small = () => (shrunk ??= m.shrinkPage(image, OCR_MAX_SIDE));
    const auto = engine === 'tesseract' && (opts.ocrEngine ?? 'auto') === 'auto' && input.mime !== 'application/pdf';
    // A landscape photo: which way its text runs first (PP-OCR's detector and a few lines, a fraction of a reading).
    // A till receipt photographed sideways (its lines run down the photo) is read turned upright at once, in the
    // direction its lines say (the other way only if that reads nothing), without tesseract's pass over sideways
    // text (up to 10 s of CPU, for nothing). Null when the probe failed: every pass below, as without it.
    const direction = auto ? await run('ocr', budget.ocr, async () => m.pageTextDirection(await small(), { group: readingId, timeoutMs })) : null;
    if (direction?.runs === 'down') {
      const turned = await readTurned(image, direction.turn !== 'ccw');
      if (turned) return turned;
    }
    // Then PP-OCR's reading, upright: a landscape receipt or invoice photo it reads as one is done (tesseract's pass
    // over a photo, up to 10 s of CPU, would be set aside anyway); an ID card's face is read by tesseract too, below.
    const upright = auto && direction?.runs !== 'none' ? await ocr(small, 'paddle') : undefined;
    if (upright && saysReceiptOrInvoice(m, upright) && m.classifyIdFront(upright) === null) {
      used.set('ocr', R.ocrPaddle);
      return upright;
    }
    const lines = await ocr(small, engine);
    used.set('ocr', engine === 'paddle' ? R.ocrPaddle : R.ocr);
    // A portrait photo (PP-OCR first) whose text is an ID card's printed face: tesseract reads it too, and its reading
    // is the first of the two combined (its spaces and accents), PP-OCR's the second.
    if (engine === 'paddle' && (opts.ocrEngine ?? 'auto') === 'auto' && input.mime !== 'application/pdf' && lines && lines.length > 0 && !saysReceiptOrInvoice(m, lines) && m.classifyIdFrontBoth([], lines) !== null) {
      const first = await ocr(small, 'tesseract');
      if (first && first.length > 0) {
        ev.second.push(...lines);
        used.set('ocr', R.ocr);
        used.set('ocrPaddle', R.ocrPaddle);
        return first;
      }
      return lines;
    }
    // A landscape photo tesseract read into nothing sure (or past its budget) takes PP-OCR's upright reading (read
    // above) when it says receipt or invoice (so the ID-card path, where tesseract's spaces matter, keeps tesseract's).
    // A photo whose text is the printed face of an ID card keeps both readings: the fields of both are combined (what
    // both read alike is surer, what they dispute is unsure; issue #28).
    const idFront = auto && !!lines && lines.length > 0 && m.classifyIdFront(lines) !== null && !saysReceiptOrInvoice(m, lines);
    if (auto && (!lines || !saysSomething(m, lines) || idFront)) {
      // (PP-OCR's reading is `upright`, read above; there is none when its detector found no text at all.)
      const again = upright;
      if (again === undefined) return lines;
      if (!idFront && again && saysReceiptOrInvoice(m, again)) {
        used.set('ocr', R.ocrPaddle);
        return again;
      }
      if (again && again.length > 0 && (idFront || m.classifyIdFront(again) !== null)) {
        // Tesseract read nothing at all: PP-OCR's reading is the page's text (there is nothing to combine).
        if (!lines || lines.length === 0) {
          used.set('ocr', R.ocrPaddle);
          return again;
        }
        ev.second.push(...again);
        used.set('ocrPaddle', R.ocrPaddle);
        return lines;
      }
      // Still nothing: a till receipt photographed sideways (its lines run down the photo) is read turned upright,
      // a quarter turn each way; the boxes of the fields read from it are turned back (ev.rotated).
      // A page whose text runs across is never turned; one whose lines run down was turned already (above).
      if (!idFront && (direction === null || direction.runs === 'mixed') && (!again || !saysSomething(m, again))) return (await readTurned(image, direction?.turn !== 'ccw')) ?? lines;
    }
    return lines;
  };
  /** The page read by PP-OCR turned a quarter (`first` way, then the other): the first reading that says receipt or invoice. */
  const readTurned = async (image: PageImage, first: boolean): Promise<TextLine[] | null> => {
    for (const cw of [first, !first]) {
      const turned = await ocr(() => m.shrinkPage(rotatePage(image, cw), OCR_MAX_SIDE), 'paddle');
      if (turned && saysReceiptOrInvoice(m, turned)) {
        used.set('ocr', R.ocrPaddle);
        ev.rotated.set(image.page, cw);
        return turned;
      }
    }
    return null;
  };

  /**
   * The document whose text is in box `a` cut out of the page (a margin around its text, never past half the way to
   * the next document's, in `b`) and read alone by PP-OCR; its lines on the whole page. Null when that reads no
   * receipt or invoice.
   */
  const readAlone = async (image: PageImage, a: Box, b: Box): Promise<TextLine[] | null> => {
    const gap = Math.max(0, b[0] - a[2]);
    const px = (x: number, size: number, round: (x: number) => number) => round(Math.min(1, Math.max(0, x)) * size) / size;
    const box: Box = [
      px(a[0] - 0.02, image.width, Math.floor), px(a[1] - 0.02, image.height, Math.floor),
      px(a[2] + Math.min(0.02, gap / 2), image.width, Math.ceil), px(a[3] + 0.02, image.height, Math.ceil),
    ];
    const alone = await ocr(async () => m.shrinkPage(await m.cropPage(image, box), OCR_MAX_SIDE), 'paddle');
    if (!alone || alone.length < 6 || !saysReceiptOrInvoice(m, alone)) return null;
    used.set('ocrPaddle', R.ocrPaddle);
    const [w, h] = [box[2] - box[0], box[3] - box[1]];
    const back = (b: Box): Box => [box[0] + b[0] * w, box[1] + b[1] * h, box[0] + b[2] * w, box[1] + b[3] * h];
    return alone.map((l) => ({ ...l, bbox: back(l.bbox), words: l.words?.map((x) => ({ ...x, bbox: back(x.bbox) })) }));
  };

  const readPages = async (): Promise<void> => {
    if (render) await render();
    for (const image of images) {
      const page: PageEvidence = { image, mrz: null, pdf417: null, lines: [], warnings: [] };
      // A blank page (a scan's blank back, a page holding a bar or a box): nothing to search, nothing to assess.
      // (Looked at all the same: a blank page is read as holding nothing, an answer, not a failure to read.)
      if (m.blankPage(image)) {
        ev.looked = true;
        ev.pages.push(page);
        continue;
      }
      // A page of a till receipt's shape (no MRZ document or card is this tall) is read first: when its text says
      // receipt or invoice, the zone and barcode searches (up to a second of CPU on a receipt) are not run.
      let early: { lines: TextLine[] | null } | null = null;
      if (on('ocr') && (on('mrz') || on('pdf417')) && image.height >= TALL_PAGE * image.width) early = { lines: await readText(image) };
      const zones = !early?.lines || !saysReceiptOrInvoice(m, early.lines);
      if (on('mrz') && zones) {
        page.mrz = await run('mrz', budget.mrz, () => m.readMrz(image));
        used.set('mrz', R.mrz);
      }
      if (!page.mrz && on('pdf417') && zones) {
        const found = await run('pdf417', budget.pdf417, () => m.readPdf417Pixels(image));
        used.set('pdf417', R.pdf417);
        if (found) page.pdf417 = found;
      }
      // No zone to read: the page's text is what classifies it (and what the rules extract from).
      // (The text read first is dropped when a zone or barcode was found after all: the reading is what it was.)
      let lines = !page.mrz && !page.pdf417 && on('ocr') ? (early ? early.lines : await readText(image)) : null;
      // Still no zone: the MRZ-like lines page OCR found (both engines' when both read the page) are read as zone
      // candidates by the MRZ reader (issue #28; taken only when all check digits pass). Not on a page read turned.
      if (lines && on('mrz') && zones && !ev.rotated.has(image.page)) {
        const text = [...lines, ...ev.second.filter((l) => l.page === image.page)];
        const found = await run('mrz', budget.mrz, () => m.readMrzFromText(image, text));
        if (found) {
          page.mrz = found;
          lines = null;
          ev.second = ev.second.filter((l) => l.page !== image.page);
        }
      }
      // Several receipts photographed side by side (columns of text with the desk between them, not one page's
      // columns): `multiple_documents`, and the first (leftmost) one is read again on its own (text that shares a
      // photo with another document is small for the OCR); its lines, put back on the page, are the page's text.
      if (lines && lines.length > 0 && ev.pageCount === 1 && on('text') && !ev.rotated.has(image.page)) {
        const documents = m.splitDocuments(lines);
        const [first, second] = documents.slice(0, 2).map((d) => m.union(d.map((l) => l.bbox)));
        if (second && m.backgroundBetween(image, first, second)) {
          page.warnings.push('multiple_documents');
          lines = (await readAlone(image, first, second)) ?? documents[0];
        }
      }
      // Identity documents are printed in colour: a grey one is a photocopy or a grey scan.
      const idEvidence = page.mrz !== null || page.pdf417 !== null;
      const quality = await attempt(log, 'quality', budget.decode, async () =>
        m.assessQuality(image, { mrzBoxes: page.mrz ? [page.mrz.bbox] : [], colourDocument: idEvidence }),
      );
      if (quality) page.warnings.push(...quality.warnings);
      if (lines) {
        page.lines = lines;
        ev.lines.push(...lines);
      }
      ev.pages.push(page);
    }
  };
  // Only a PDF with pages to render takes the page lane; a text PDF is read without it. Rendered pages are large
  // (300 dpi up to MAX_READ_SIDE): they are read alone, as a large image is.
  if (render && pageLane) await pageLane.run(readPages, pageLane.max);
  else await readPages();
  return ev;
}

/**
 * The page OCR engine for one page (docs/live-mode.md, "Page OCR engines"). `auto`: PP-OCR for upright photos and
 * image scans (receipts, invoice pages: bench/results/ocr-engines.md, more of their values read, in less time);
 * tesseract for landscape images (ID cards: the ID-front rules find `CITY, ST 12345` and label-value pairs by the
 * spaces tesseract keeps and PP-OCR's `ch` recogniser drops on small card text) and for PDF pages rendered without a
 * text layer (clean renders: tesseract reads them as well, faster).
 */
export function ocrEngineFor(setting: OcrEngineSetting, mime: string, page: { width: number; height: number }): 'paddle' | 'tesseract' {
  if (setting !== 'auto') return setting;
  if (mime === 'application/pdf') return 'tesseract';
  return page.height >= page.width ? 'paddle' : 'tesseract';
}

/** Height over width from which a page is a till receipt's shape: read first, zones searched only if not one. */
const TALL_PAGE = 1.8;

/** The page's text classifies as some type with confidence (0.5 or more), or as the printed face of an ID card. */
function saysSomething(m: Modules, lines: TextLine[]): boolean {
  if (lines.length === 0) return false;
  const top = m.classifyText(lines).candidates[0];
  return (top !== undefined && top.confidence >= 0.5) || m.classifyIdFront(lines) !== null;
}

/** The page's text classifies as a receipt or an invoice (a finance type, sure). */
function saysReceiptOrInvoice(m: Modules, lines: TextLine[]): boolean {
  return lines.length > 0 && sureFinance(m.classifyText(lines));
}

/** The text's best type is a receipt or an invoice (category `finance`) at 0.5 or more. */
function sureFinance(text: TextClassification): boolean {
  const top = text.candidates[0];
  return top !== undefined && top.confidence >= 0.5 && getEntry(top.type)?.category === 'finance';
}

/** What the identity evidence (MRZ, barcode) says, from the page that carries the clearest one. */
function identity(ev: Evidence, input: ReadInput): { reading: IdEvidenceReading; page: PageEvidence } | null {
  const withMrz = ev.pages.filter((p) => p.mrz).sort((a, b) => Number(b.mrz!.valid) - Number(a.mrz!.valid));
  for (const page of withMrz) {
    const m = page.mrz!;
    const reading = readingFromMrz({ lines: m.lines, charConfidence: m.charConfidence, lineBoxes: m.lineBoxes, page: page.image.page }, { expect: input.expect, referenceDate: input.referenceDate });
    if (reading) return { reading, page };
  }
  for (const page of ev.pages) {
    if (!page.pdf417) continue;
    const reading = readingFromAamva(page.pdf417.text, { page: page.image.page, bbox: page.pdf417.bbox }, { expect: input.expect });
    if (reading) return { reading, page };
  }
  return null;
}

/** Languages a national document is written in (for `language_mismatch`); universal types have none. */
const COUNTRY_LANGUAGES: Record<string, string[]> = {
  ESP: ['es', 'en', 'ca', 'gl', 'eu'], FRA: ['fr', 'en'], PRT: ['pt', 'en'], BRA: ['pt'], ITA: ['it', 'en'], DEU: ['de', 'en'], AUT: ['de', 'en'],
  BEL: ['fr', 'nl', 'de', 'en'], NLD: ['nl', 'en'], GBR: ['en'], IRL: ['en', 'ga'], USA: ['en', 'es'], POL: ['pl', 'en'], ROU: ['ro', 'en'], SWE: ['sv', 'en'],
};

export function languageMismatch(entry: CatalogueEntry, text: TextClassification | null): boolean {
  const lang = text?.language;
  if (!lang || lang.share < 0.6 || entry.countries.includes('*')) return false;
  const allowed = entry.countries.flatMap((c) => COUNTRY_LANGUAGES[c] ?? []);
  return allowed.length > 0 && !allowed.includes(lang.code);
}

/**
 * Side of a two-sided card seen through its zone: a TD1 zone or a barcode is on the back, a TD2 zone on the front;
 * `both` for a document of several pages; null where the image holds another card's worth of content above a back
 * zone (a scan of both sides), where the side cannot be told.
 */
function sideFromZone(page: PageEvidence, pageCount: number): 'front' | 'back' | 'both' | null {
  if (pageCount >= 2) return 'both';
  // TD2 (and TD3) zones are on the data page of a card: its front.
  if (page.mrz && page.mrz.format !== 'TD1') return 'front';
  const zone = page.mrz?.bbox ?? page.pdf417?.bbox;
  if (!zone) return 'back';
  const img = page.image;
  const zoneWidthPx = (zone[2] - zone[0]) * img.width;
  // ID-1 card: 85.6 x 54 mm; the zone spans ~93 % of its width. Room for another card above it means both sides.
  const cardHeightPx = zoneWidthPx / 0.93 / 1.585;
  const above = zone[1] * img.height;
  return above > cardHeightPx * 1.6 ? null : 'back';
}

/** The fields the caller asked for: the type's (extract: true) or a schema's properties; unread ones are null. */
function wantedFields(entry: CatalogueEntry | undefined, extract: ReadInput['extract']): string[] {
  if (extract === false) return [];
  if (extract === true) return entry ? [...entry.fields] : [];
  const props = (extract as { properties?: Record<string, unknown> }).properties;
  return props && typeof props === 'object' ? Object.keys(props) : [];
}

async function readLocally(input: ReadInput, opts: LocalProviderOptions, pageLane: Limiter | null): Promise<Reading> {
  const started = performance.now();
  const m = await readers();
  const R = describe(m, opts.ocrLanguages);
  const used = new Map<string, ProviderInfo>();
  const ev = await gather(m, R, input, opts, used, pageLane);
  const warnings = new Set<Warning>(ev.pages.flatMap((p) => p.warnings));
  const base = { visual: { signed: null, stamped: null }, mode: 'ocr+llm' as const };
  const done = (r: Omit<Reading, 'visual' | 'mode' | 'providers' | 'latencyMs'>): Reading => ({
    ...base,
    ...r,
    warnings: WARNING_ORDER.filter((w) => (r.warnings as Warning[]).includes(w)),
    providers: [...used.values()],
    latencyMs: Math.round(performance.now() - started),
  });

  if (!ev.looked) {
    return done({
      document: null, candidates: [], fields: {}, warnings: [],
      failure: { code: 'processing_failed', message: t(input.language, 'failure.no_local_reader') },
    });
  }

  let document: Reading['document'] = null;
  let candidates: Candidate[] = [];
  let found: Record<string, ReadField> = {};
  let entry: CatalogueEntry | undefined;
  let text: TextClassification | null = null;
  /** The embedded e-invoice's amounts, whole: what invoice_totals checks (Reading.invoice). */
  let invoice: Reading['invoice'];
  /** The printed face of an identity document, when the text is one (text/id-front.ts). */
  let front: IdFrontClassification | null = null;
  // (Several receipts in one photo were told apart when the page was read: its lines are the first one's.)
  if (ev.lines.length > 0 && opts.readers.has('text')) {
    text = m.classifyText(ev.lines);
    front = m.classifyIdFrontBoth(ev.lines, ev.second);
    used.set('rules', R.rules);
  }

  const id = identity(ev, input);
  if (id) {
    ({ document, candidates } = id.reading);
    found = id.reading.fields;
    document = { ...document, basis: Object.values(found).some((f) => f.origin === 'barcode') ? 'barcode' : 'zone' };
    entry = getEntry(document.type);
    if (entry && isTwoSided(entry)) {
      const side = sideFromZone(id.page, ev.pageCount);
      document = { ...document, side };
      if (side === 'back' || side === 'front') warnings.add('side_missing');
    }
    if (id.page.mrz?.touchesEdge) warnings.add('cropped');
    const zones = ev.pages.reduce((n, p) => n + (p.mrz ? 1 + p.mrz.otherZones : 0), 0);
    if (zones > 1 && ev.pageCount === 1) warnings.add('multiple_documents');
  } else if (ev.xml?.isInvoice) {
    const invoiceTypes = (text?.candidates ?? []).filter((c) => getEntry(c.type)?.fields.includes('total_amount') && getEntry(c.type)?.category === 'finance');
    const type = invoiceTypes[0]?.type && /invoice/.test(invoiceTypes[0].type) ? invoiceTypes[0].type : 'invoice';
    entry = getEntry(type)!;
    document = { type, confidence: 0.97, side: null, country: text?.country ?? null, basis: 'xml' };
    candidates = [{ type, confidence: 0.97 }, ...(text?.candidates ?? []).filter((c) => c.type !== type).slice(0, 2).map((c) => ({ type: c.type, confidence: Math.min(c.confidence, 0.03) }))];
    invoice = ev.xml.amounts;
    found = Object.fromEntries(
      Object.entries(ev.xml.fields)
        .filter(([k, v]) => v !== null && v !== undefined && (entry!.fields.includes(k) || k in FIELD_DICTIONARY))
        .map(([k, v]) => [k, { value: v, confidence: 0.99, source: null, origin: 'xml' as const }]),
    );
  } else if (front && text && frontWins(front, text)) {
    entry = getEntry(front.type);
    document = { type: front.type, confidence: front.confidence, side: entry && isTwoSided(entry) && ev.pageCount === 1 ? 'front' : null, country: front.country, basis: 'text' };
    candidates = [...front.candidates, ...text.candidates.filter((c) => !front!.candidates.some((f) => f.type === c.type))].slice(0, 3);
  } else if (text && text.candidates.length > 0) {
    candidates = text.candidates.slice(0, 3);
    const top = text.candidates[0];
    entry = getEntry(top.type);
    document = { type: top.type, confidence: top.confidence, side: null, country: text.country ?? (entry && !entry.countries.includes('*') ? entry.countries[0] : null), basis: 'text' };
  }

  if (entry && document && text && languageMismatch(entry, text)) warnings.add('language_mismatch');

  // Fields: deterministic evidence first, then the text rules for what is still missing, then null.
  const fields: Record<string, ReadField> = {};
  const guessed = document !== null && document.confidence >= EXTRACT_FLOOR;
  if (input.kind === 'analysis' && input.extract !== false && entry && guessed) {
    const wanted = wantedFields(entry, input.extract);
    if (ev.lines.length > 0 && opts.readers.has('text') && ID_CATEGORIES.has(entry.category)) {
      // The printed face: fields the zone or barcode did not carry, and beside those it did, the printed value as
      // the visual reading that mrz_matches_visual / aamva_matches_visual compare (the zone's value is kept).
      const printed = m.readIdFrontFieldsBoth(ev.lines, ev.second, entry, wanted, { country: document?.country ?? null, region: front?.region ?? null });
      for (const [k, f] of Object.entries(printed)) {
        const have = found[k];
        if (!have) found[k] = f;
        else if ((have.origin === 'mrz' || have.origin === 'barcode') && !have.visual && k !== 'region' && k !== 'issuing_country') found[k] = { ...have, visual: { value: f.value, confidence: f.confidence } };
      }
      used.set('rules', R.rules);
    }
    // A face the ID-front rules classified is theirs alone: the general text rules do not know its layout.
    const faceOnly = front !== null && document?.basis === 'text' && document.type === front.type;
    const missing = wanted.filter((f) => !(f in found));
    if (missing.length > 0 && ev.lines.length > 0 && opts.readers.has('text') && !faceOnly) {
      const extracted = m.extractFields(entry, ev.lines, missing, { language: text?.language?.code, country: text?.country ?? undefined });
      for (const [k, f] of Object.entries(extracted)) if (f && f.value !== null && f.value !== undefined) found[k] = { ...f, origin: f.origin ?? (ev.pages.some((p) => p.lines.length) ? 'ocr' : 'text') };
      used.set('rules', R.rules);
    }
    for (const name of wanted) fields[name] = found[name] ?? { value: null, confidence: 0, source: null };
    // Fields read from a page turned upright: their boxes back on the page as it was sent.
    for (const [name, f] of Object.entries(fields)) {
      const cw = f.source?.bbox && f.origin !== 'mrz' && f.origin !== 'barcode' ? ev.rotated.get(f.source.page) : undefined;
      if (cw !== undefined) fields[name] = { ...f, source: { ...f.source!, bbox: unrotateBox(f.source!.bbox!, cw) } };
    }
  } else if (input.kind === 'analysis' && input.extract !== false && typeof input.extract === 'object') {
    for (const name of wantedFields(undefined, input.extract)) fields[name] = { value: null, confidence: 0, source: null };
  }

  return done({ document, candidates, fields, warnings: [...warnings], failure: null, ...(invoice ? { invoice } : {}) });
}

/** Catalogue categories of identity documents: their printed face is read by the ID-front rules. */
const ID_CATEGORIES = new Set(['identity', 'driving', 'residence']);

/**
 * Whether the ID-front reading of the text decides the type rather than the general text rules: when it is at least
 * as sure, or the rules' best guess is itself an identity document or a generic type (they only know the words, not
 * a card's layout). Never against a sure receipt or invoice (0.5 or more, as `saysReceiptOrInvoice`): a card's face
 * has no totals, and a bill's words can name an identity document (`RUC/documento de identidad`, a licence fee) or
 * print a capital word that is an ICAO code (`ES UNA ...`).
 */
function frontWins(front: IdFrontClassification, text: TextClassification): boolean {
  if (sureFinance(text)) return false;
  const top = text.candidates[0];
  const topEntry = top ? getEntry(top.type) : undefined;
  return !top || front.confidence >= top.confidence || !topEntry || topEntry.generic === true || ID_CATEGORIES.has(topEntry.category);
}

/** The order warnings are listed in. */
export const WARNING_ORDER: Warning[] = [
  'low_quality', 'blurry', 'cropped', 'glare', 'screen_photo_suspected', 'photocopy_suspected', 'edited_suspected', 'multiple_documents', 'side_missing', 'language_mismatch',
];
