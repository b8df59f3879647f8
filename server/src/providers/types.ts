import type { components } from '../../../generated/api.d.ts';
import type { Language } from '../catalogue/index.ts';
import type { InvoiceInput } from '../validators/invoice.ts';

export type Warning = components['schemas']['Warning'];
export type HolderCheck = components['schemas']['HolderCheck'];

/** What a reader gets: the real file and the caller's intent. */
export interface ReadInput {
  bytes: Uint8Array;
  /** The uploaded file name (test mode picks its scenario from it). */
  filename: string;
  mime: 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic' | 'application/pdf';
  pages: number;
  kind: 'analysis' | 'classification';
  /** Normalised expected type ids, or null without `expect`. */
  expect: string[] | null;
  /** true: the type's fields; false: none; object: a JSON Schema whose properties are the fields wanted. */
  extract: boolean | Record<string, unknown>;
  language: Language;
  /** The caller's `checks.holder`, when given (test mode simulates the holder it expects, unless told otherwise). */
  holder: HolderCheck | null;
  /** `checks.reference_date` or today (UTC), `YYYY-MM-DD`: what "valid today" means for simulated dates. */
  referenceDate: string;
  precise_bboxes: boolean;
}

export interface ReadField {
  value: unknown;
  confidence: number;
  /** 1-based page and a normalised [x0, y0, x1, y1] box, or null. */
  source: { page: number; bbox: [number, number, number, number] | null } | null;
  /**
   * Where a live reading took the value from. A value read from the MRZ (or the barcode) is not a reading of the
   * visual zone: comparing the zone with itself proves nothing, so `mrz_matches_visual` (`aamva_matches_visual`)
   * only compares the fields read elsewhere. Not part of the API.
   */
  origin?: 'mrz' | 'barcode' | 'xml' | 'text' | 'ocr' | 'model';
  /**
   * The printed face's reading of a field whose value comes from the MRZ or the barcode (an AI model read the face):
   * what `mrz_matches_visual` / `aamva_matches_visual` compare with the zone. Not part of the API.
   */
  visual?: { value: unknown; confidence: number };
  /**
   * Per-character confidence (0..1) of a string `value`, aligned with its characters (for `mrz`, the lines joined by
   * `\n`, whose entries are 1). Lets a check-digit failure on characters read unsure become `low_confidence` instead
   * of an error (docs/validators.md). Absent: every character has the field's `confidence`. Not part of the API.
   */
  chars?: number[];
}

export type TypeBasis = 'zone' | 'barcode' | 'xml' | 'text' | 'model' | 'simulated';

export interface Reading {
  /** The detected document, or null when nothing recognisable was found. */
  document: {
    type: string;
    confidence: number;
    side: 'front' | 'back' | 'both' | null;
    country: string | null;
    /**
     * What decided the type: a machine-readable zone, a barcode or an embedded invoice XML (`zone`, `barcode`, `xml`:
     * decisive evidence), the text rules (`text`), an AI model (`model`), or test mode's deliberate simulation
     * (`simulated`). A `type_mismatch` is an error only on decisive evidence (docs/live-mode.md, "How the type is
     * decided"). Absent: not decisive. Not part of the API.
     */
    basis?: TypeBasis;
  } | null;
  /** Best guesses, most likely first (classification candidates); includes `document.type` first when set. */
  candidates: Array<{ type: string; confidence: number }>;
  /** Extracted fields by catalogue field name (empty with `extract: false` or for classifications). */
  fields: Record<string, ReadField>;
  /** Quality warnings (hints, not proof). */
  warnings: Warning[];
  /** What the reader saw on the document's face. */
  visual: { signed: boolean | null; stamped: boolean | null };
  /** How the reading was produced (becomes `processing`). */
  mode: 'vlm' | 'ocr+llm';
  providers: Array<{ name: string; region: 'eu' | 'us' | 'local'; role: 'ocr' | 'llm' | 'local'; model?: string }>;
  /** Simulated or measured processing time; beyond the 30 s synchronous wait the request answers 202. */
  latencyMs: number;
  /** Set when the document could not be processed: the analysis becomes `failed` (not charged). */
  failure: { code: string; message: string } | null;
  /**
   * Every amount of an invoice in its EN 16931 structure, when a reader had it whole (an embedded CII/UBL invoice):
   * what `invoice_totals` checks instead of the flat fields (lines, allowances and charges, VAT breakdown, prepaid,
   * rounding, due). Not part of the API.
   */
  invoice?: InvoiceInput;
}

/** `sovereign`: only providers headquartered and operated in the EU, plus local readers; `standard`: may also use US-headquartered cloud providers, processing in EU regions. */
export type ProcessingProfile = 'sovereign' | 'standard';
export const PROCESSING_PROFILES: readonly ProcessingProfile[] = ['sovereign', 'standard'];

export interface Provider {
  readonly name: string;
  /** A simulated reader (test mode): its reading reports a latency instead of taking it. */
  readonly simulated?: boolean;
  /**
   * The `processing` profiles this reader can honour; a request for another gets 422 `processing_unavailable`.
   * Absent: both (readers on the service's own machines, and EU providers, honour `sovereign` and, a fortiori,
   * `standard`); a composition that needs a US-headquartered provider serves only `standard`.
   */
  readonly profiles?: readonly ProcessingProfile[];
  read(input: ReadInput): Promise<Reading>;
}

/** The profiles a reader serves. */
export function profilesServed(provider: Provider): readonly ProcessingProfile[] {
  return provider.profiles ?? PROCESSING_PROFILES;
}
