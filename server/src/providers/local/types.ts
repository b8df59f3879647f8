/**
 * Shared shapes of the local readers (live mode, `sovereign` profile, offline). Each reader lives in its own
 * module under providers/local/ and speaks only these types; providers/local/index.ts composes them.
 */

/** A box normalised to the page: [x0, y0, x1, y1] in 0..1, origin top-left. */
export type Box = [number, number, number, number];

/**
 * One page as pixels, ready for the readers: 8-bit grey, EXIF/HEIF orientation applied, downscaled so that the
 * longer side is at most `MAX_READ_SIDE`. Photos have one page; a scanned PDF has one per rendered page.
 */
export interface PageImage {
  /** 1-based page number in the original file. */
  page: number;
  width: number;
  height: number;
  /** Raw 8-bit grey pixels, row-major, `width * height` bytes. */
  grey: Buffer;
  /** Raw 8-bit RGB pixels, row-major, `width * height * 3` bytes (colour signals: photocopy, glare). */
  rgb: Buffer;
  /** Size of this image relative to the decoded original (1 = not downscaled). */
  scale: number;
  /** Width and height of the original before downscaling (low-resolution warnings speak of the original). */
  originalWidth: number;
  originalHeight: number;
}

/** The longer side of a PageImage, in pixels. */
export const MAX_READ_SIDE = 3000;

/** A line of text with its box: from a PDF text layer (confidence 1) or from page OCR. */
export interface TextLine {
  page: number;
  text: string;
  bbox: Box;
  /** 0..1; 1 for a digital text layer. */
  confidence: number;
  /** Words with their own boxes when known (OCR gives them; the PDF text layer gives its text runs). */
  words?: Array<{ text: string; bbox: Box; confidence: number }>;
}

/** What an MRZ reader found on one page image. */
export interface MrzReading {
  format: 'TD1' | 'TD2' | 'TD3' | 'MRVA' | 'MRVB' | 'FRENCH_NATIONAL_ID';
  /** The zone's lines after check-digit repair, each of the format's length, characters A-Z 0-9 `<`. */
  lines: string[];
  /** Every check digit of the format passes. */
  valid: boolean;
  /** Characters changed by the repair (0 when the OCR read it right). */
  repaired: number;
  /**
   * Per line, per character: 0..1, how sure the character finally kept is: its probability among the characters the
   * position allows, or, for a character covered by a check digit that passes (repaired or read so), given that the
   * field agrees with its check digit (mrz/decode.ts checkedConfidence). A character read confidently but contradicting
   * its check digit keeps a high value.
   */
  charConfidence: number[][];
  /** The whole zone, normalised to the page image. */
  bbox: Box;
  /** One box per line. */
  lineBoxes: Box[];
  /** The zone touches (or is cut by) the edge of the image. */
  touchesEdge: boolean;
  /** Further plausible MRZ zones seen on the same image (two documents in one photo). */
  otherZones: number;
  /** Rotation applied to read it, degrees clockwise (0, 90, 180, 270, plus small deskew). */
  rotation: number;
}
