/**
 * What a failed check rests on, and how sure the reading of it was (#27, docs/validators.md "Passed, failed, not
 * run"). A check-digit failure on characters read below CHECK_CHAR_CONFIDENCE proves nothing about the document:
 * our reading may be what is wrong. Pure functions over a reading and a validator result.
 */
import type { ReadField, Reading } from '../../providers/types.ts';
import { CHECK_CHAR_CONFIDENCE, mrzCheckPositions, readSurely } from '../../validators/confidence.ts';
import type { MrzCheckName } from '../../validators/mrz.ts';
import type { ValidatorResult } from '../../validators/index.ts';

/** Characters (or a whole field) a failure rests on that were read below the threshold. */
export interface Unsure {
  field: string;
  /** The unsure characters as read (the whole value when the reading has no per-character confidences). */
  chars: string;
  /** The lowest confidence among them. */
  confidence: number;
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Per-character confidences of a field: its own, or its confidence for every character. */
function charsOf(f: ReadField): number[] {
  const text = isText(f.value) ? f.value : String(f.value ?? '');
  if (f.chars && f.chars.length === text.length) return f.chars;
  return Array.from(text, () => f.confidence);
}

/** The unsure characters of `field` (optionally only those in [from, to)). */
function unsureIn(reading: Reading, field: string, range?: [number, number]): Unsure | null {
  const f = reading.fields[field];
  if (!f || f.value === null || f.value === undefined) return null;
  const text = isText(f.value) ? f.value : String(f.value);
  const conf = charsOf(f);
  const [from, to] = range ?? [0, text.length];
  let min = 1;
  let chars = '';
  for (let i = from; i < Math.min(to, text.length); i++) {
    if (text[i] === '\n') continue;
    if (conf[i] < CHECK_CHAR_CONFIDENCE) chars += text[i];
    min = Math.min(min, conf[i]);
  }
  return chars ? { field, chars, confidence: Math.round(min * 100) / 100 } : null;
}

/** A field read unsure as a whole (a date, an amount, a name): its confidence below the threshold. */
export function fieldUnsure(reading: Reading, field: string): Unsure | null {
  const f = reading.fields[field];
  if (!f || f.value === null || f.value === undefined) return null;
  const conf = Math.min(f.confidence, ...(f.chars ?? []));
  if (conf >= CHECK_CHAR_CONFIDENCE) return null;
  return { field, chars: isText(f.value) ? f.value : JSON.stringify(f.value), confidence: Math.round(conf * 100) / 100 };
}

/** The other side of a visual comparison: the printed face's reading of a field the zone or barcode also carries. */
function visualUnsure(reading: Reading, field: string): Unsure | null {
  const f = reading.fields[field];
  if (!f) return null;
  if (f.visual) {
    return f.visual.confidence < CHECK_CHAR_CONFIDENCE ? { field, chars: String(f.visual.value ?? ''), confidence: Math.round(f.visual.confidence * 100) / 100 } : null;
  }
  return f.origin === 'mrz' || f.origin === 'barcode' ? null : fieldUnsure(reading, field);
}

/** Visual comparison keys (validator side) -> reading fields. */
const COMPARED_FIELD: Record<string, string[]> = {
  surname: ['last_name', 'second_last_name'],
  given_names: ['first_name'],
  full_name: ['full_name'],
  birth_date: ['birth_date'],
  expiry_date: ['expiry_date'],
  issue_date: ['issue_date'],
  document_number: ['document_number'],
  nationality: ['nationality'],
  sex: ['sex'],
  state: ['region'],
  postal_code: ['postal_code'],
};

/**
 * What a passed MRZ check rests on that was read unsure (issue #28): a check digit that passes on characters read
 * below CHECK_CHAR_CONFIDENCE proves nothing either (one digit passes one misreading in ten, and a reader picks the
 * reading that passes among several). The reader gives a character a check digit settles the confidence it has given
 * that its field agrees with its digit (providers/local/mrz/decode.ts checkedConfidence), so a field unsure in one cell
 * that its digit settles is sure, and one of several unsure cells is not. Only a zone read with per-character
 * confidences: empty when every character the checks cover was read sure, or when there are none.
 */
export function unsurePassEvidence(r: ValidatorResult, reading: Reading): Unsure[] {
  if (r.code !== 'mrz_checksums' || r.outcome !== 'passed') return [];
  const mrz = reading.fields.mrz;
  if (!mrz?.chars) return [];
  const ev = r.evidence as { lines: string[]; checks: Array<{ name: string }> };
  const text = String(mrz.value ?? '');
  const conf = charsOf(mrz);
  const at = new Set<number>();
  for (const c of ev.checks ?? []) {
    for (const i of mrzCheckPositions(ev.lines ?? [], c.name as MrzCheckName) ?? []) if (i < text.length && text[i] !== '\n' && conf[i] < CHECK_CHAR_CONFIDENCE) at.add(i);
  }
  const sorted = [...at].sort((a, b) => a - b);
  return sorted.length ? [{ field: 'mrz', chars: sorted.map((i) => text[i]).join(''), confidence: Math.round(Math.min(...sorted.map((i) => conf[i])) * 100) / 100 }] : [];
}

/** Amount fields an invoice's arithmetic reads. */
const AMOUNT_FIELDS = ['total_amount', 'tax_base', 'tax_amount', 'tax_rate', 'withholding_amount', 'subtotal', 'amount_due', 'tip_amount', 'discount_amount'];

/**
 * What a failed result rests on that was read unsure; empty when every character it rests on was read with
 * confidence (the failure is then evidence against the document).
 */
export function unsureEvidence(r: ValidatorResult, reading: Reading): Unsure[] {
  const out: Unsure[] = [];
  const push = (u: Unsure | null) => {
    if (u) out.push(u);
  };
  switch (r.code) {
    case 'mrz_checksums': {
      const ev = r.evidence as { lines: string[]; checks: Array<{ name: string; valid: boolean }> };
      const mrz = reading.fields.mrz;
      if (!mrz) break;
      // Each failing check digit is evidence on its own: one whose every character (its field and its digit; the
      // composite: all it covers) was read sure proves the zone wrong, whatever the others. Only when every failing
      // digit rests on some unsure character is the failure our reading's: then those characters are named, once.
      const text = String(mrz.value ?? '');
      const conf = charsOf(mrz);
      const unsureAt = new Set<number>();
      let proven = false;
      for (const c of (ev.checks ?? []).filter((x) => !x.valid)) {
        const span = mrzCheckPositions(ev.lines ?? [], c.name as MrzCheckName) ?? [];
        const at = (span.length ? span : Array.from(text, (_, k) => k)).filter((i) => i < text.length && text[i] !== '\n');
        if (readSurely(conf, mrz.confidence, at)) proven = true;
        else for (const i of at) if (conf[i] < CHECK_CHAR_CONFIDENCE) unsureAt.add(i);
      }
      const at = [...unsureAt].sort((a, b) => a - b);
      if (!proven && at.length) push({ field: 'mrz', chars: at.map((i) => text[i]).join(''), confidence: Math.round(Math.min(...at.map((i) => conf[i])) * 100) / 100 });
      break;
    }
    case 'mrz_matches_visual':
    case 'aamva_matches_visual': {
      const compared = (r.evidence as { compared?: Record<string, { ok: boolean }> }).compared ?? {};
      for (const [k, c] of Object.entries(compared)) {
        if (c.ok) continue;
        for (const field of COMPARED_FIELD[k] ?? [k]) {
          push(visualUnsure(reading, field));
          // The zone's own characters of that field (a barcode is error-corrected: sure when decoded).
          if (r.code === 'mrz_matches_visual' && reading.fields[field]?.origin === 'mrz') push(unsureIn(reading, field));
        }
      }
      break;
    }
    case 'invoice_totals':
      for (const field of AMOUNT_FIELDS) push(fieldUnsure(reading, field));
      push(fieldUnsure(reading, 'line_items'));
      break;
    default:
      for (const field of r.fields ?? []) push(reading.fields[field] && isText(reading.fields[field].value) ? unsureIn(reading, field) : fieldUnsure(reading, field));
  }
  // One entry per field: the lowest confidence, the characters together.
  const byField = new Map<string, Unsure>();
  for (const u of out) {
    const prev = byField.get(u.field);
    byField.set(u.field, prev ? { field: u.field, chars: prev.chars + u.chars, confidence: Math.min(prev.confidence, u.confidence) } : u);
  }
  return [...byField.values()];
}
