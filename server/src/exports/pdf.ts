/**
 * PDF report (pdfkit, standard Helvetica with WinAnsi encoding): one A4 page with the analysis summary, verdict and
 * reasons, a fields table (each field by its label in the report's language, `catalogue/field-labels.ts`, not by the
 * API's snake_case name), checks, warnings, signature, metadata and a footer with the generation time.
 *
 * One page, always: every text is drawn at explicit coordinates without wrapping, values are cut to their column
 * width with an ellipsis, lists are capped (reasons 8, checks 10; fields get the space that is left, at least a few
 * rows) and a line that would not fit above the footer is replaced by "… and N more" or left out.
 * Characters outside WinAnsi (Latin-1 plus a few typographic signs) lose their accents when that makes them
 * encodable (ő -> o, č -> c) and are otherwise replaced with "?" (Ł, Cyrillic, CJK, emoji).
 * Deterministic given `generatedAt`: creation and modification dates, and the file id pdfkit derives from them.
 */
import PDFDocument from 'pdfkit';
import { fieldLabel } from '../catalogue/field-labels.ts';
import { warningText } from '../domain/analysis/messages.ts';
import { humanTimestamp, LABELS, labelsFor, valueText, word, type Analysis, type ExportLanguage, type ExportOptions, type Labels } from './common.ts';

type Doc = InstanceType<typeof PDFDocument>;

const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const MARGIN = 40;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const FOOTER_Y = PAGE_HEIGHT - MARGIN - 10;
const BOTTOM = FOOTER_Y - 14;
const BODY = 9;
const LINE = 12.5;
const SECTION_GAP = 8;
const MAX_REASONS = 8;
const MAX_CHECKS = 10;
const MIN_FIELD_ROWS = 4;
const REGULAR = 'Helvetica';
const BOLD = 'Helvetica-Bold';

const COLORS = { text: '#1f2328', muted: '#6e7781', rule: '#d0d7de', valid: '#1a7f37', invalid: '#cf222e', review: '#9a6700' };

/** Unicode code points outside Latin-1 that WinAnsi (CP1252) still encodes. */
const WINANSI_EXTRA = new Set(
  Array.from('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ').map((c) => c.codePointAt(0) as number),
);

function winAnsiChar(ch: string): boolean {
  const cp = ch.codePointAt(0) as number;
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || WINANSI_EXTRA.has(cp);
}

/** Text the standard fonts can draw: one line, WinAnsi only. */
export function toWinAnsi(value: string): string {
  let out = '';
  for (const ch of value.replace(/[\r\n\t]+/g, ' ')) {
    if (winAnsiChar(ch)) {
      out += ch;
      continue;
    }
    const base = ch.normalize('NFD').replace(/\p{M}+/gu, '');
    out += base && Array.from(base).every(winAnsiChar) ? base : '?';
  }
  return out;
}

class Report {
  doc: Doc;
  y = MARGIN;
  labels: Labels;

  constructor(doc: Doc, labels: Labels) {
    this.doc = doc;
    this.labels = labels;
  }

  /** Cuts `text` with an ellipsis so that it fits in `width` points. */
  fit(text: string, width: number, font = REGULAR, size = BODY): string {
    const t = toWinAnsi(text);
    this.doc.font(font).fontSize(size);
    if (this.doc.widthOfString(t) <= width) return t;
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (this.doc.widthOfString(`${t.slice(0, mid)}…`) <= width) lo = mid;
      else hi = mid - 1;
    }
    return `${t.slice(0, lo).trimEnd()}…`;
  }

  /** Draws one unwrapped line (never triggers a page break). */
  draw(text: string, x: number, y: number, width: number, opts: { font?: string; size?: number; color?: string } = {}): void {
    const font = opts.font ?? REGULAR;
    const size = opts.size ?? BODY;
    const fitted = this.fit(text, width, font, size);
    this.doc.font(font).fontSize(size).fillColor(opts.color ?? COLORS.text).text(fitted, x, y, { lineBreak: false });
  }

  fits(height: number): boolean {
    return this.y + height <= BOTTOM;
  }

  section(title: string): boolean {
    if (!this.fits(LINE * 2 + SECTION_GAP)) return false;
    this.y += SECTION_GAP;
    this.draw(title, MARGIN, this.y, CONTENT_WIDTH, { font: BOLD, size: 11 });
    this.y += LINE + 2;
    this.doc.moveTo(MARGIN, this.y - 3).lineTo(MARGIN + CONTENT_WIDTH, this.y - 3).lineWidth(0.5).strokeColor(COLORS.rule).stroke();
    return true;
  }

  keyValue(key: string, value: string, color?: string, placeholder = '—'): boolean {
    if (!this.fits(LINE)) return false;
    this.draw(key, MARGIN, this.y, 105, { font: BOLD });
    if (value || placeholder) this.draw(value || placeholder, MARGIN + 110, this.y, CONTENT_WIDTH - 110, { color });
    this.y += LINE;
    return true;
  }

  /** Splits `text` at spaces into at most `max` lines of `width` points (the last one cut with an ellipsis). */
  wrap(text: string, width: number, max: number): string[] {
    const t = toWinAnsi(text);
    this.doc.font(REGULAR).fontSize(BODY);
    const lines: string[] = [];
    let rest = t;
    while (rest && lines.length < max - 1 && this.doc.widthOfString(rest) > width) {
      const words = rest.split(' ');
      let n = words.length - 1;
      while (n > 1 && this.doc.widthOfString(words.slice(0, n).join(' ')) > width) n--;
      lines.push(words.slice(0, n).join(' '));
      rest = words.slice(n).join(' ');
    }
    if (rest) lines.push(rest);
    return lines;
  }

  /**
   * Bulleted lines; caps at `max` and at the space left (keeping `reserve` points free), then "… and N more". An item
   * may take up to `linesOf(i)` lines (a reason that names its evidence), within the same space.
   */
  list(items: string[], max: number, reserve = 0, colorOf?: (i: number) => string | undefined, linesOf?: (i: number) => number): void {
    const room = Math.max(1, Math.floor((BOTTOM - reserve - this.y) / LINE));
    const cap = Math.min(max, room);
    const shown = items.length > cap ? Math.max(0, cap - 1) : items.length;
    for (let i = 0; i < shown; i++) {
      if (!this.fits(LINE)) return;
      const lines = this.wrap(items[i], CONTENT_WIDTH - 12, linesOf?.(i) ?? 1);
      lines.forEach((line, k) => {
        if (k > 0 && !this.fits(LINE)) return;
        this.draw(k === 0 ? `• ${line}` : line, MARGIN + (k === 0 ? 4 : 12), this.y, CONTENT_WIDTH - (k === 0 ? 4 : 12), { color: colorOf?.(i) });
        this.y += LINE;
      });
    }
    if (shown < items.length && this.fits(LINE)) {
      this.draw(this.labels.more(items.length - shown), MARGIN + 4, this.y, CONTENT_WIDTH - 4, { color: COLORS.muted });
      this.y += LINE;
    }
  }
}

function verdictColor(status: string | null | undefined): string | undefined {
  return status === 'valid' ? COLORS.valid : status === 'invalid' ? COLORS.invalid : status === 'review' ? COLORS.review : undefined;
}

function percent(confidence: number | null | undefined): string {
  return typeof confidence === 'number' && Number.isFinite(confidence) ? `${Math.round(confidence * 100)} %` : '—';
}

function formatBytes(n: number | null | undefined): string {
  if (typeof n !== 'number') return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export async function renderPdf(a: Analysis, opts: ExportOptions = {}): Promise<Uint8Array> {
  const labels = labelsFor(opts.language);
  const language: ExportLanguage = opts.language && opts.language in LABELS ? opts.language : 'es';
  const generatedAt = opts.generatedAt ?? new Date();
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    compress: true,
    lang: language,
    info: {
      Title: `${labels.title}: ${a.id}`,
      Author: 'Cotejo',
      Subject: a.document?.label ?? a.id,
      Creator: 'Cotejo',
      Producer: 'Cotejo',
      CreationDate: generatedAt,
      ModDate: generatedAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });

  const r = new Report(doc, labels);
  const L = labels;

  // Title
  r.draw(L.title, MARGIN, r.y, CONTENT_WIDTH, { font: BOLD, size: 18 });
  r.y += 28;

  // Summary
  r.keyValue(L.analysis, a.id);
  r.keyValue(L.status, word(L.statuses, a.status));
  r.keyValue(L.created, humanTimestamp(a.created_at));
  r.keyValue(L.completed, humanTimestamp(a.completed_at));
  if (a.file) {
    const details = [a.file.mime_type, a.file.pages ? `${a.file.pages} ${a.file.pages === 1 ? L.page : L.pages}` : '', formatBytes(a.file.size_bytes)].filter(Boolean);
    r.keyValue(L.file, details.length ? `${a.file.name} (${details.join(', ')})` : a.file.name);
  }
  if (a.document) {
    const d = a.document;
    const parts = [`${d.label || d.type} (${d.type})`, `${L.confidence}: ${percent(d.confidence)}`];
    if (d.country) parts.push(`${L.country}: ${d.country}`);
    r.keyValue(L.document, parts.join(' · '));
  }
  if (a.error) r.keyValue(L.error, `${a.error.code}: ${a.error.message}`, COLORS.invalid);

  // Sections after the fields table, measured first so that the table gets the space that is left.
  const reasons = a.verdict?.reasons ?? [];
  const checks = a.checks ?? [];
  const warnings = a.warnings ?? [];
  const metadata = Object.entries(a.metadata ?? {});
  const sectionHead = SECTION_GAP + LINE + 2;
  const after =
    (checks.length ? sectionHead + Math.min(checks.length, MAX_CHECKS) * LINE : 0) +
    (warnings.length ? sectionHead + LINE : 0) +
    (a.signature ? sectionHead + 3 * LINE : 0) +
    (metadata.length ? sectionHead + LINE : 0);

  // Verdict
  if (r.section(L.verdict)) {
    if (a.verdict) {
      const v = a.verdict;
      const verdict = (x: string) => word(L.verdicts, x).toUpperCase();
      const status = v.final_status ? `${verdict(v.status)} » ${L.finalStatus}: ${verdict(v.final_status)}` : verdict(v.status);
      r.keyValue(L.status, status, verdictColor(v.final_status ?? v.status));
      r.keyValue(L.expected, (v.expected ?? []).join(', '));
      if (reasons.length) {
        r.keyValue(L.reasons, '', undefined, '');
        r.list(
          reasons.map((x) => `[${word(L.severities, x.severity)}] ${x.code}: ${x.message}`),
          MAX_REASONS,
          after + sectionHead + (MIN_FIELD_ROWS + 1) * LINE,
          (i) => (reasons[i].severity === 'error' ? COLORS.invalid : reasons[i].severity === 'warning' ? COLORS.review : undefined),
          // What the verdict rests on is read whole: an error or a warning names its evidence on up to 3 lines.
          (i) => (reasons[i].severity === 'info' ? 1 : 3),
        );
      }
    } else if (r.fits(LINE)) {
      r.draw(L.noVerdict, MARGIN, r.y, CONTENT_WIDTH, { color: COLORS.muted });
      r.y += LINE;
    }
  }

  // Fields table
  const fields = Object.entries(a.fields ?? {});
  if (r.section(L.fields)) {
    if (fields.length === 0) {
      if (r.fits(LINE)) {
        r.draw(L.noFields, MARGIN, r.y, CONTENT_WIDTH, { color: COLORS.muted });
        r.y += LINE;
      }
    } else {
      const cols = [
        { x: MARGIN, w: 150 },
        { x: MARGIN + 155, w: 245 },
        { x: MARGIN + 405, w: 55 },
        { x: MARGIN + 465, w: 50 },
      ];
      if (r.fits(LINE)) {
        [L.field, L.value, L.confidence, L.validated].forEach((h, i) =>
          r.draw(h, cols[i].x, r.y, cols[i].w, { font: BOLD, color: COLORS.muted }),
        );
        r.y += LINE;
      }
      const room = Math.max(MIN_FIELD_ROWS, Math.floor((BOTTOM - after - r.y) / LINE));
      const shown = fields.length > room ? room - 1 : fields.length;
      for (const [name, f] of fields.slice(0, shown)) {
        if (!r.fits(LINE)) break;
        const validated = f?.validated === true ? L.yes : f?.validated === false ? L.no : '—';
        r.draw(fieldLabel(name, language), cols[0].x, r.y, cols[0].w);
        r.draw(valueText(f?.value, name) || '—', cols[1].x, r.y, cols[1].w);
        r.draw(percent(f?.confidence), cols[2].x, r.y, cols[2].w);
        r.draw(validated, cols[3].x, r.y, cols[3].w, { color: f?.validated === false ? COLORS.invalid : undefined });
        r.y += LINE;
      }
      if (shown < fields.length && r.fits(LINE)) {
        r.draw(L.more(fields.length - shown), MARGIN, r.y, CONTENT_WIDTH, { color: COLORS.muted });
        r.y += LINE;
      }
    }
  }

  // Checks
  if (checks.length && r.section(L.checks)) {
    r.list(
      checks.map((c) => `[${c.passed ? L.passed : L.failed}] ${c.code}: ${c.message}`),
      MAX_CHECKS,
      0,
      (i) => (checks[i].passed ? undefined : COLORS.invalid),
      (i) => (checks[i].passed ? 1 : 3),
    );
  }

  // Warnings
  if (warnings.length && r.section(L.warnings)) {
    if (r.fits(LINE)) {
      r.draw(warnings.map((w) => `${warningText(language, w)} (${w})`).join(', '), MARGIN, r.y, CONTENT_WIDTH, { color: COLORS.review });
      r.y += LINE;
    }
  }

  // Signature
  if (a.signature && r.section(L.signature)) {
    const s = a.signature;
    r.keyValue(L.status, `${word(L.signatures, s.status)} (${s.signatures}) · ${L.trusted}: ${s.trusted ? L.yes : L.no}`, verdictColor(s.status === 'valid' ? 'valid' : s.status === 'invalid' ? 'invalid' : 'review'));
    r.keyValue(L.signer, [s.signer, s.issuer ? `${L.issuer}: ${s.issuer}` : ''].filter(Boolean).join(' · '));
    r.keyValue(L.signedAt, [humanTimestamp(s.signed_at), (s.reasons ?? []).join(', ')].filter(Boolean).join(' · '));
  }

  // Metadata
  if (metadata.length && r.section(L.metadata)) {
    if (r.fits(LINE)) {
      r.draw(metadata.map(([k, v]) => `${k}: ${v}`).join(' · '), MARGIN, r.y, CONTENT_WIDTH);
      r.y += LINE;
    }
  }

  // Footer
  doc.moveTo(MARGIN, FOOTER_Y - 4).lineTo(MARGIN + CONTENT_WIDTH, FOOTER_Y - 4).lineWidth(0.5).strokeColor(COLORS.rule).stroke();
  r.draw(`${L.generated} ${humanTimestamp(generatedAt)} · Cotejo · ${a.id}`, MARGIN, FOOTER_Y, CONTENT_WIDTH, {
    size: 8,
    color: COLORS.muted,
  });

  doc.end();
  await done;
  return new Uint8Array(Buffer.concat(chunks));
}
