/**
 * File type detection from content only (magic numbers), never from the name or the declared
 * media type. Only the five types the service accepts are recognised; anything else is `null`.
 *
 * Hand-written rather than `file-type`: that package is async-only (tokenizer based), looks at
 * the ISO-BMFF major brand only (so it misses `heim`/`heis` and HEIC files whose HEVC brand is
 * only listed as compatible, and calls some AVIF files HEIF) and only accepts `%PDF` at offset 0.
 * For five fixed signatures the checks below are shorter than the adaptation code would be.
 * Decodability is checked afterwards by `inspectFile` with real decoders.
 */

export type AcceptedMime = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic' | 'application/pdf';

export interface DetectedFileType {
  mime: AcceptedMime;
  ext: string;
}

export const ACCEPTED_MIME_TYPES: readonly AcceptedMime[] = ['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'application/pdf'];

/** PDF readers accept a `%PDF-` header that starts anywhere in the first 1024 bytes (Acrobat implementation note). */
export const PDF_HEADER_SEARCH_BYTES = 1024;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

/** ISO-BMFF brands of HEVC-coded HEIF (HEIC) images and sequences. */
const HEVC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis']);
/** Generic HEIF brands: HEIC only when no AV1 (AVIF) brand says otherwise. */
const GENERIC_HEIF_BRANDS = new Set(['mif1', 'msf1']);
const AVIF_BRANDS = new Set(['avif', 'avis']);

function startsWith(bytes: Uint8Array, sig: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (bytes[offset + i] !== sig[i]) return false;
  return true;
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/** The brands of a leading ISO-BMFF `ftyp` box: major brand first, then the compatible ones. */
function ftypBrands(bytes: Uint8Array): string[] | null {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== 'ftyp') return null;
  const size = ((bytes[0] << 24) >>> 0) + (bytes[1] << 16) + (bytes[2] << 8) + bytes[3];
  // size 1 (64-bit size) and 0 (to end of file) are not used for `ftyp` in practice.
  if (size < 16 || size > 4096) return null;
  const end = Math.min(size, bytes.length);
  const brands = [ascii(bytes, 8, 12)];
  for (let off = 16; off + 4 <= end; off += 4) brands.push(ascii(bytes, off, off + 4));
  return brands;
}

function isHeic(bytes: Uint8Array): boolean {
  const brands = ftypBrands(bytes);
  if (!brands) return false;
  const [major, ...compatible] = brands;
  if (HEVC_BRANDS.has(major)) return true;
  if (GENERIC_HEIF_BRANDS.has(major)) {
    if (compatible.some((b) => HEVC_BRANDS.has(b))) return true;
    // A generic HEIF container that declares AV1 content is AVIF, which is not accepted.
    return !compatible.some((b) => AVIF_BRANDS.has(b));
  }
  return false;
}

function hasPdfHeader(bytes: Uint8Array): boolean {
  const last = Math.min(bytes.length - PDF_MAGIC.length, PDF_HEADER_SEARCH_BYTES - 1);
  for (let i = 0; i <= last; i++) {
    if (bytes[i] === 0x25 && startsWith(bytes, PDF_MAGIC, i)) return true;
  }
  return false;
}

/** Detects one of the accepted types from the content. `null` when it is none of them. */
export function detectFileType(bytes: Uint8Array): DetectedFileType | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { mime: 'image/jpeg', ext: 'jpg' };
  if (startsWith(bytes, PNG_SIGNATURE)) return { mime: 'image/png', ext: 'png' };
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return { mime: 'image/webp', ext: 'webp' };
  if (isHeic(bytes)) return { mime: 'image/heic', ext: 'heic' };
  if (hasPdfHeader(bytes)) return { mime: 'application/pdf', ext: 'pdf' };
  return null;
}
