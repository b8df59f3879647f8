/**
 * Live mode's reader: the local readers first, always (MRZ, PDF417, PDF text and embedded XML, page OCR, quality),
 * then Mistral, when it is configured, for what they leave open. How the two are merged (docs/live-mode.md):
 *
 * - **Hard evidence wins.** Values read from the MRZ, a PDF417 barcode or an embedded invoice XML are kept as read;
 *   the model's reading of the same field is kept beside it as the printed face's (`ReadField.visual`), so that
 *   `mrz_matches_visual` / `aamva_matches_visual` compare the two. A disagreement lowers the field's confidence and
 *   fails that check (a reason in the verdict); it never silently replaces the zone's value.
 * - **Type**: evidence that decides alone (zone, barcode, XML) keeps its type; otherwise the more confident of the
 *   text rules and the model, and agreement raises confidence. The model's own confidence never exceeds
 *   MODEL_CONFIDENCE_CAP.
 * - **Other fields**: where both read a value and agree, the local one (its box is exact); where they disagree, the
 *   more confident one, with confidence at most 0.5; where only one read it, that one.
 * - **Warnings**: the local readers' measured ones, plus what the model can tell and they cannot.
 *
 * The model is not called when the local evidence already settles everything: a confident type, every wanted field
 * read, and no zone whose printed face needs reading (an embedded-XML invoice, a complete text-layer PDF).
 */
import type { Logger } from 'pino';
import { getEntry } from '../catalogue/index.ts';
import { isTwoSided } from '../catalogue/sides.ts';
import { t } from '../domain/analysis/messages.ts';
import { languageMismatch, WARNING_ORDER } from './local/index.ts';
import type { TextClassification } from './local/text/index.ts';
import { ProviderError, type MistralClient } from './mistral/client.ts';
import { MODEL_CONFIDENCE_CAP, readWithMistral, type ModelReading } from './mistral/index.ts';
import type { Provider, ReadField, ReadInput, Reading, Warning } from './types.ts';

export interface LiveProviderOptions {
  /** The local readers (null when COTEJO_LIVE_READERS is `none`). */
  local: Provider | null;
  /** Mistral (null without MISTRAL_API_KEY). */
  mistral: MistralClient | null;
  logger: Logger;
}

/** Confidence at or above which the local type is settled without the model. */
const SETTLED = 0.9;
/** Confidence of a field whose two readings disagree. */
const DISAGREEMENT_CAP = 0.5;
const HARD: ReadonlySet<string> = new Set(['mrz', 'barcode', 'xml']);

/** The live reader of this configuration, or null when there is none (live keys then get 503). */
export function createLiveProvider(opts: LiveProviderOptions): Provider | null {
  if (!opts.mistral) return opts.local;
  const mistral = opts.mistral;
  // Mistral is headquartered and operated in the EU, and the local readers run here: both profiles are served.
  return { name: 'live', profiles: ['sovereign', 'standard'], read: (input) => readLive(input, opts.local, mistral, opts.logger) };
}

/** Whether the local reading leaves something for the model to read. */
export function needsModel(local: Reading | null, input: ReadInput): boolean {
  if (!local || !local.document || local.document.confidence < SETTLED) return true;
  if (input.kind === 'classification' || input.extract === false) return false;
  const fields = Object.values(local.fields);
  const missing = fields.some((f) => f.value === null || f.value === undefined);
  if (typeof input.extract === 'object') return missing;
  // An embedded invoice XML is the invoice's own structured content: what it leaves out is not on the invoice either.
  if (fields.some((f) => f.origin === 'xml')) return false;
  // A zone or barcode says nothing of the printed face it must be compared with.
  return missing || fields.some((f) => f.origin === 'mrz' || f.origin === 'barcode');
}

async function readLive(input: ReadInput, localProvider: Provider | null, mistral: MistralClient, logger: Logger): Promise<Reading> {
  const started = performance.now();
  const localReading = localProvider ? await localProvider.read(input) : null;
  const local = localReading && !localReading.failure ? localReading : null;
  if (local && !needsModel(local, input)) return local;
  const hard = local?.document && Object.values(local.fields).some((f) => f.origin && HARD.has(f.origin)) ? local.document.type : null;
  const hint = hard ?? input.expect?.[0] ?? (local?.document && local.document.confidence >= 0.3 ? local.document.type : null);
  let model: ModelReading;
  try {
    model = await readWithMistral(mistral, input, hint);
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'permanent') {
      // The same request would be refused again (a key, a model or a request the provider does not accept): the
      // analysis fails now, not charged, and the operator sees why in the log (status only, never the document).
      logger.error({ provider: 'mistral', status: err.status }, 'AI provider refused the reading');
      return {
        document: null, candidates: [], fields: {}, warnings: [], visual: { signed: null, stamped: null }, mode: 'vlm',
        providers: localReading?.providers ?? [], latencyMs: Math.round(performance.now() - started),
        failure: { code: 'processing_failed', message: t(input.language, 'failure.provider_refused') },
      };
    }
    if (err instanceof ProviderError) logger.warn({ provider: 'mistral', status: err.status, reason: err.message }, 'AI provider call failed; the job will be retried');
    throw err;
  }
  return merge(local, model, input, Math.round(performance.now() - started));
}

const cap = (c: number, max: number): number => Math.max(0, Math.min(c, max));

/** Values equal for a reader: case, accents, spaces and punctuation aside; numbers to the cent. */
export function sameValue(a: unknown, b: unknown): boolean {
  const na = typeof a === 'number' ? a : typeof a === 'string' && /^-?\d+(\.\d+)?$/.test(a.trim()) ? Number(a) : null;
  const nb = typeof b === 'number' ? b : typeof b === 'string' && /^-?\d+(\.\d+)?$/.test(b.trim()) ? Number(b) : null;
  if (na !== null && nb !== null) return Math.abs(na - nb) < 0.005;
  const fold = (v: unknown) => (typeof v === 'string' ? v.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase().replace(/[^A-Z0-9]/g, '') : JSON.stringify(v));
  return fold(a) === fold(b);
}

export function merge(local: Reading | null, model: ModelReading, input: ReadInput, latencyMs: number): Reading {
  const a = model.answer;
  const modelType = a.document.type !== 'unknown' && getEntry(a.document.type) ? a.document.type : null;
  const modelConf = cap(a.document.confidence, MODEL_CONFIDENCE_CAP);
  const hardEvidence = local !== null && Object.values(local.fields).some((f) => f.origin && HARD.has(f.origin));

  // The type.
  let document: Reading['document'] = local?.document ?? null;
  if (modelType) {
    if (document && document.type === modelType) document = { ...document, confidence: Math.max(document.confidence, modelConf) };
    else if (!document || (!hardEvidence && modelConf > document.confidence)) {
      const entry = getEntry(modelType)!;
      document = { type: modelType, confidence: modelConf, side: null, country: entry.countries.length === 1 && entry.countries[0] !== '*' ? entry.countries[0] : null, basis: 'model' };
    }
  }
  if (document) {
    const entry = getEntry(document.type);
    const side = document.side ?? (entry && isTwoSided(entry) ? a.document.side : null);
    document = { ...document, side, country: document.country ?? (a.document.country && /^[A-Z]{3}$/.test(a.document.country) ? a.document.country : null) };
  }

  // Candidates: both readers' guesses, the best confidence of each type, the decided type first.
  const best = new Map<string, number>();
  const add = (type: string, c: number) => {
    if (type !== 'unknown' && getEntry(type)) best.set(type, Math.max(best.get(type) ?? 0, c));
  };
  for (const c of local?.candidates ?? []) add(c.type, c.confidence);
  if (modelType) add(modelType, modelConf);
  for (const c of a.document.alternatives) add(c.type, cap(c.confidence, MODEL_CONFIDENCE_CAP));
  if (document) best.set(document.type, document.confidence);
  const candidates = [...best.entries()]
    .map(([type, confidence]) => ({ type, confidence }))
    .sort((x, y) => (x.type === document?.type ? -1 : y.type === document?.type ? 1 : y.confidence - x.confidence))
    .slice(0, 3);

  // The fields.
  const fields: Record<string, ReadField> = {};
  if (input.kind === 'analysis' && input.extract !== false) {
    const entry = document ? getEntry(document.type) : undefined;
    const wanted =
      typeof input.extract === 'object'
        ? Object.keys((input.extract as { properties?: Record<string, unknown> }).properties ?? {})
        : entry && document && document.confidence >= 0.3
          ? [...entry.fields]
          : [];
    for (const name of wanted) {
      const l = local?.fields[name];
      const lv = l && l.value !== null && l.value !== undefined ? l : null;
      const m = a.fields[name];
      const mv = m && m.value !== null ? m : null;
      const fromModel = (f: NonNullable<typeof mv>): ReadField => ({
        value: f.value,
        confidence: cap(f.confidence, MODEL_CONFIDENCE_CAP),
        source: f.bbox ? { page: f.page ?? 1, bbox: f.bbox } : null,
        origin: 'model',
      });
      if (lv && lv.origin && HARD.has(lv.origin)) {
        fields[name] = mv
          ? { ...lv, confidence: sameValue(lv.value, mv.value) ? lv.confidence : Math.min(lv.confidence, DISAGREEMENT_CAP), visual: { value: mv.value, confidence: cap(mv.confidence, MODEL_CONFIDENCE_CAP) } }
          : lv;
      } else if (lv && mv) {
        const mf = fromModel(mv);
        if (sameValue(lv.value, mv.value)) fields[name] = { ...lv, confidence: Math.max(lv.confidence, mf.confidence), source: lv.source ?? mf.source };
        else {
          const chosen = lv.confidence >= mf.confidence ? lv : mf;
          fields[name] = { ...chosen, confidence: Math.min(chosen.confidence, DISAGREEMENT_CAP) };
        }
      } else if (lv) fields[name] = lv;
      else if (mv) fields[name] = fromModel(mv);
      else fields[name] = { value: null, confidence: 0, source: null };
    }
  }

  // Warnings: measured ones, plus the model's where it can tell.
  const warnings = new Set<Warning>(local?.warnings ?? []);
  const q = a.quality;
  if (q.blurry) warnings.add('blurry');
  if (q.glare) warnings.add('glare');
  if (q.cropped) warnings.add('cropped');
  if (q.screen_photo) warnings.add('screen_photo_suspected');
  if (q.photocopy) warnings.add('photocopy_suspected');
  // On PDFs, editing is judged from the file itself (signature and metadata checks), not from a picture of it.
  if (q.edited && input.mime !== 'application/pdf') warnings.add('edited_suspected');
  if (q.multiple_documents) warnings.add('multiple_documents');
  const entry = document ? getEntry(document.type) : undefined;
  if (entry && document && isTwoSided(entry) && (document.side === 'front' || document.side === 'back') && input.pages < 2) warnings.add('side_missing');
  if (entry && a.language && /^[a-z]{2}$/.test(a.language) && languageMismatch(entry, { language: { code: a.language, share: 1 } } as TextClassification)) warnings.add('language_mismatch');

  return {
    document,
    candidates,
    fields,
    warnings: WARNING_ORDER.filter((w) => warnings.has(w)),
    visual: { signed: a.visual.signed, stamped: a.visual.stamped },
    mode: model.mode,
    providers: [...(local?.providers ?? []), ...model.providers],
    latencyMs,
    failure: null,
    // An embedded e-invoice's amounts stay with the reading: the model reads no structure to replace them with.
    ...(local?.invoice ? { invoice: local.invoice } : {}),
  };
}
