// The type reason of a verdict, always its first: does the document read match the type the request expected?
// (Split out of checks.ts, which runs the checks on the fields; judge.ts puts both together.)
import { getEntry, labelOf, type CatalogueEntry, type Language } from '../../catalogue/index.ts';
import type { Reading } from '../../providers/types.ts';
import { CHECK_CHAR_CONFIDENCE } from '../../validators/confidence.ts';
import type { Reason } from './checks.ts';
import { t } from './messages.ts';

/**
 * The type reason, always first: match, mismatch, or unknown (generic type, confidence below 0.5, or another type
 * read on evidence that does not rule the expected one out).
 */
export function typeReason(expected: string[], reading: Pick<Reading, 'document' | 'candidates' | 'fields'>, entry: CatalogueEntry | undefined, language: Language): Reason {
  const detected = reading.document;
  if (!detected || !entry || entry.generic || detected.confidence < 0.5) {
    return { code: 'type_unknown', severity: 'warning', message: t(language, 'type_unknown') };
  }
  const label = labelOf(entry.type, language) ?? entry.type;
  if (expected.includes(entry.type)) return { code: 'type_match', severity: 'info', message: t(language, 'type_match', { label }) };
  const expectedLabels = expected.map((e) => labelOf(e, language) ?? e).join(' / ');
  if (!mismatchIsDecisive(expected, reading, entry)) {
    return { code: 'type_unknown', severity: 'warning', message: t(language, 'type_unknown.plausible', { label, expected: expectedLabels }) };
  }
  return { code: 'type_mismatch', severity: 'error', message: t(language, 'type_mismatch', { expected: expectedLabels, label }) };
}

/** Text (or a model) rules the expected types out only this far above them, and only across categories. */
const TEXT_DECISIVE_CONFIDENCE = 0.85;
const TEXT_EXPECTED_CEILING = 0.1;

/**
 * Whether the evidence for the detected type rules the expected types out (docs/live-mode.md, "How the type is
 * decided"): a machine-readable zone whose document code and issuing state were read with confidence, a barcode, an
 * embedded invoice XML, test mode's deliberate scenario; or text far above every expected type and of another
 * category (an invoice is not a payslip; a receipt may well be the invoice that was expected).
 */
export function mismatchIsDecisive(expected: string[], reading: Pick<Reading, 'document' | 'candidates' | 'fields'>, entry: CatalogueEntry): boolean {
  const detected = reading.document!;
  switch (detected.basis) {
    case 'simulated':
    case 'barcode':
    case 'xml':
      return true;
    case 'zone': {
      // The zone's document code and issuing state read with confidence, and no expected type among the types the
      // zone leaves possible (a card of one state held by a national of another may be an identity card or a
      // residence document: the zone does not tell).
      const head = reading.fields.mrz?.chars?.slice(0, 5) ?? [];
      return head.every((c) => c >= CHECK_CHAR_CONFIDENCE) && !reading.candidates.some((c) => expected.includes(c.type));
    }
    default: {
      const expectedBest = Math.max(0, ...reading.candidates.filter((c) => expected.includes(c.type)).map((c) => c.confidence));
      const categories = new Set(expected.map((e) => getEntry(e)?.category));
      return detected.confidence >= TEXT_DECISIVE_CONFIDENCE && expectedBest <= TEXT_EXPECTED_CEILING && !categories.has(entry.category);
    }
  }
}
