/**
 * Decompression bombs in PDFs, refused at intake before pdf.js (or anything else) decodes the file.
 *
 * pdf.js inflates a stream into one growing buffer and has no output limit, so a 1 MiB PDF whose page content or
 * metadata inflates to 1 GiB would take gigabytes and tens of seconds wherever it is opened. Here every stream of the
 * file is measured, never materialised: its filters run as counting decoders (zlib in the thread pool for Flate, so
 * the event loop keeps serving others), and the file is refused with 422 `unreadable_pdf` as soon as one stream passes
 * its limit (MAX_PDF_STREAM_INFLATED_BYTES, or for an image what its pixels need) or all of them MAX_PDF_INFLATED_BYTES,
 * or an image declares more pixels than any image upload may have. Streams found by a linear scan for `N G obj` headers, so a broken cross-reference table hides
 * nothing; object streams hold no streams (PDF 32000-1, 7.5.7).
 */
import zlib from 'node:zlib';
import { ApiError } from '../../errors.ts';
import { isDict, isName, isRef, isStream, objHeaders, PdfDocument, type PdfDict, type PdfValue } from '../../validators/pdf-signature/pdf.ts';

/**
 * One stream that is not an image, decoded (page content, fonts, metadata): real ones are kilobytes to a few MiB.
 * An image stream may decode to what its declared pixels need (+1 MiB), up to MAX_PDF_IMAGE_STREAM_BYTES.
 */
export const MAX_PDF_STREAM_INFLATED_BYTES = 32 * 1024 * 1024;
/** An image stream, decoded: a 600 dpi A4 page in RGB is 100 MB (a scan is usually JPEG, not inflated at all). */
export const MAX_PDF_IMAGE_STREAM_BYTES = 128 * 1024 * 1024;
/**
 * A whole document, decoded. Photographic content inflates at most a few times its size, so a 20 MB file holds far
 * less than this; only synthetic content (blank pages, a bomb) comes near it. Measuring it takes well under a second.
 */
export const MAX_PDF_INFLATED_BYTES = 256 * 1024 * 1024;
/** An image XObject: the same pixel limit as an image upload (16383 × 16383). */
export const MAX_PDF_IMAGE_PIXELS = 0x3fff * 0x3fff;
/** Streams this small are inflated synchronously (at most ~1 MiB out): cheaper than a trip to the thread pool. */
const SYNC_INFLATE_INPUT_BYTES = 1024;

const bomb = (detail: string): ApiError => new ApiError(422, 'unreadable_pdf', `No se puede leer el PDF: ${detail}.`);

class Budget {
  total = 0;
  readonly perStream: number;
  readonly perDocument: number;
  constructor(perStream = MAX_PDF_STREAM_INFLATED_BYTES, perDocument = MAX_PDF_INFLATED_BYTES) {
    this.perStream = perStream;
    this.perDocument = perDocument;
  }
  /** Bytes one stream may still produce (`own`: what the stream itself may need, an image's declared pixels). */
  streamLimit(own: number): number {
    return Math.min(own, this.perDocument - this.total);
  }
  spend(n: number): void {
    this.total += n;
  }
}

export interface PdfGuardLimits {
  perStream?: number;
  perDocument?: number;
}

/** Measures every stream of the PDF; throws 422 `unreadable_pdf` for a decompression bomb. Returns the bytes decoded. */
export async function assertNoPdfBomb(bytes: Uint8Array, limits: PdfGuardLimits = {}): Promise<number> {
  const budget = new Budget(limits.perStream, limits.perDocument);
  const doc = new PdfDocument(bytes);
  const seen = new Set<number>();
  for (const h of objHeaders(bytes)) {
    let value: PdfValue;
    try {
      value = doc.readIndirectAt(h.at).value;
    } catch {
      continue; // not an object after all, or damaged: pdf.js decides whether the file is readable
    }
    if (!isStream(value) || seen.has(value.dataStart)) continue;
    seen.add(value.dataStart);
    const dict = value.dict;
    const own = imageBytes(doc, dict, budget.perStream) ?? budget.perStream;
    const filters = listOf(resolve(doc, dict.m.get('Filter')));
    const params = listOf(resolve(doc, dict.m.get('DecodeParms') ?? dict.m.get('DP')));
    const limit = budget.streamLimit(own);
    const produced = await measure(bytes.subarray(value.dataStart, value.dataEnd), filters, params, limit);
    if (produced > limit) {
      throw bomb(
        limit < own
          ? `sus flujos comprimidos se expanden a más de ${mib(budget.perDocument)} MiB en total`
          : `un flujo comprimido se expande a más de ${mib(own)} MiB`,
      );
    }
    budget.spend(produced);
  }
  return budget.total;
}

const mib = (n: number): number => Math.round(n / (1024 * 1024));

function listOf(v: PdfValue | undefined): PdfValue[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** Where each object number was last defined, by the linear scan (the cross-reference table may be what is broken). */
const lastDefinitions = new WeakMap<PdfDocument, Map<number, number>>();

/** An indirect value, one level only; undefined when it cannot be found. */
function resolve(doc: PdfDocument, v: PdfValue | undefined): PdfValue | undefined {
  if (!isRef(v)) return v;
  let index = lastDefinitions.get(doc);
  if (!index) {
    index = new Map(doc.headers().map((h) => [h.num, h.at]));
    lastDefinitions.set(doc, index);
  }
  const at = index.get(v.num);
  if (at === undefined) return undefined;
  try {
    const found = doc.readIndirectAt(at).value;
    return isRef(found) ? undefined : found;
  } catch {
    return undefined;
  }
}

/**
 * For an image XObject, the bytes its declared pixels decode to (+1 MiB of slack, at most MAX_PDF_IMAGE_STREAM_BYTES);
 * undefined for any other stream. More pixels than an image upload may have is a bomb at once.
 */
function imageBytes(doc: PdfDocument, dict: PdfDict, floor: number): number | undefined {
  if (!isName(resolve(doc, dict.m.get('Subtype')), 'Image')) return undefined;
  const w = resolve(doc, dict.m.get('Width') ?? dict.m.get('W'));
  const h = resolve(doc, dict.m.get('Height') ?? dict.m.get('H'));
  if (typeof w !== 'number' || typeof h !== 'number' || w <= 0 || h <= 0) return undefined;
  if (w * h > MAX_PDF_IMAGE_PIXELS) throw bomb(`contiene una imagen de ${w}×${h} píxeles, más de las admitidas`);
  // Up to 4 components of 16 bits: what any colour space and depth may need.
  return Math.max(floor, Math.min(MAX_PDF_IMAGE_STREAM_BYTES, w * h * 8 + 1024 * 1024));
}

/**
 * Bytes the filter chain produces, counted; stops a little past `limit` (the caller only needs to know it passed).
 * Filters before the last are decoded for real, each under `limit` (they feed the next one); image codecs end the
 * chain (their size is bounded by the image's pixels); an unknown filter or broken data ends the count there.
 */
async function measure(data: Uint8Array, filters: PdfValue[], params: PdfValue[], limit: number): Promise<number> {
  let current = data;
  for (let i = 0; i < filters.length; i++) {
    const f = filters[i];
    if (!isName(f)) return current.length;
    const last = i === filters.length - 1;
    const p = isDict(params[i]) ? (params[i] as PdfDict) : undefined;
    switch (f.v) {
      case 'FlateDecode':
      case 'Fl':
        if (last) return countInflate(current, limit);
        current = inflateBounded(current, limit);
        break;
      case 'LZWDecode':
      case 'LZW': {
        const early = p?.m.get('EarlyChange');
        const out = lzw(current, limit, last, early === 0 ? 0 : 1);
        if (last || out.bytes === null) return out.count;
        current = out.bytes;
        break;
      }
      case 'RunLengthDecode':
      case 'RL': {
        const out = runLength(current, limit, last);
        if (last || out.bytes === null) return out.count;
        current = out.bytes;
        break;
      }
      case 'ASCIIHexDecode':
      case 'AHx':
        current = asciiHex(current);
        break;
      case 'ASCII85Decode':
      case 'A85':
        current = ascii85(current);
        break;
      default:
        // DCT, JPX, JBIG2, CCITT (images: bounded by their pixels), Crypt, or unknown.
        return current.length;
    }
    if (current.length > limit) return current.length;
  }
  return current.length;
}

/** Counts what a Flate stream inflates to, without keeping it: sync for tiny inputs, else a zlib stream in the pool. */
function countInflate(data: Uint8Array, limit: number): Promise<number> | number {
  if (data.length <= SYNC_INFLATE_INPUT_BYTES) {
    try {
      return zlib.inflateSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).length;
    } catch {
      return 0; // broken data: nothing this guard needs to count
    }
  }
  return new Promise((resolve) => {
    let count = 0;
    let done = false;
    const inflater = zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH, chunkSize: 1024 * 1024 });
    const finish = () => {
      if (done) return;
      done = true;
      inflater.destroy();
      resolve(count);
    };
    inflater.on('data', (chunk: Buffer) => {
      count += chunk.length;
      if (count > limit) finish();
    });
    inflater.on('end', finish);
    inflater.on('error', finish);
    inflater.end(data);
  });
}

function inflateBounded(data: Uint8Array, limit: number): Uint8Array {
  try {
    return zlib.inflateSync(data, { maxOutputLength: Math.max(1, limit), finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return new Uint8Array(limit + 1);
    return new Uint8Array(0);
  }
}

/** Bytes of an intermediate stage, grown as needed (never past the stream's limit, which ends the count first). */
class ByteSink {
  private buf = new Uint8Array(4096);
  length = 0;
  push(b: number): void {
    if (this.length === this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.length++] = b;
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** LZW (PDF 32000-1, 7.4.4), counting; the bytes too unless `countOnly`. */
function lzw(data: Uint8Array, limit: number, countOnly: boolean, earlyChange: number): { count: number; bytes: Uint8Array | null } {
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Int32Array(4096);
  for (let i = 0; i < 256; i++) {
    prefix[i] = -1;
    suffix[i] = i;
    length[i] = 1;
  }
  const out = countOnly ? null : new ByteSink();
  const stack = new Uint8Array(4097);
  let next = 258;
  let width = 9;
  let prev = -1;
  let count = 0;
  let bitBuf = 0;
  let bits = 0;
  for (let pos = 0; pos < data.length || bits >= width; ) {
    while (bits < width && pos < data.length) {
      bitBuf = ((bitBuf << 8) | data[pos++]) >>> 0;
      bits += 8;
    }
    if (bits < width) break;
    const code = (bitBuf >>> (bits - width)) & ((1 << width) - 1);
    bits -= width;
    bitBuf &= (1 << bits) - 1;
    if (code === 256) {
      next = 258;
      width = 9;
      prev = -1;
      continue;
    }
    if (code === 257) break;
    let entry: number;
    if (code < next) entry = code;
    else if (code === next && prev >= 0) entry = prev;
    else break; // broken data
    // Emit the string of `entry` (plus, for the KwKwK case, its first byte again).
    let n = 0;
    for (let c = entry; c >= 0 && n < 4096; c = prefix[c]) stack[n++] = suffix[c];
    const first = stack[n - 1];
    const len = n + (code === next ? 1 : 0);
    count += len;
    if (out) {
      for (let k = n - 1; k >= 0; k--) out.push(stack[k]);
      if (code === next) out.push(first);
    }
    if (count > limit) return { count, bytes: null };
    if (prev >= 0 && next < 4096) {
      prefix[next] = prev;
      suffix[next] = first;
      length[next] = length[prev] + 1;
      next++;
    }
    prev = code;
    if (next + earlyChange >= 1 << width && width < 12) width++;
  }
  return { count, bytes: out ? out.bytes() : null };
}

/** RunLengthDecode, counting; the bytes too when not `countOnly`. */
function runLength(data: Uint8Array, limit: number, countOnly: boolean): { count: number; bytes: Uint8Array | null } {
  let count = 0;
  const out = countOnly ? null : new ByteSink();
  for (let i = 0; i < data.length; ) {
    const n = data[i++];
    if (n === 128) break;
    if (n < 128) {
      const run = Math.min(n + 1, data.length - i);
      if (out) for (let k = 0; k < run; k++) out.push(data[i + k]);
      i += run;
      count += run;
    } else {
      const run = 257 - n;
      if (i >= data.length) break;
      if (out) for (let k = 0; k < run; k++) out.push(data[i]);
      i++;
      count += run;
    }
    if (count > limit) return { count, bytes: null };
  }
  return { count, bytes: out ? out.bytes() : null };
}

function asciiHex(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / 2));
  let n = 0;
  let hi = -1;
  for (const c of data) {
    if (c === 0x3e) break; // '>'
    const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1;
    if (v < 0) continue;
    if (hi < 0) hi = v;
    else {
      out[n++] = (hi << 4) | v;
      hi = -1;
    }
  }
  if (hi >= 0) out[n++] = hi << 4;
  return out.subarray(0, n);
}

function ascii85(data: Uint8Array): Uint8Array {
  const out = new ByteSink();
  let group = 0;
  let k = 0;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (c === 0x7e) break; // '~>'
    if (c === 0x7a && k === 0) {
      for (let j = 0; j < 4; j++) out.push(0); // 'z': four zero bytes
      continue;
    }
    if (c < 0x21 || c > 0x75) continue;
    group = group * 85 + (c - 0x21);
    if (++k === 5) {
      for (let j = 3; j >= 0; j--) out.push(Math.floor(group / 2 ** (8 * j)) & 0xff);
      group = 0;
      k = 0;
    }
  }
  if (k > 1) {
    for (let j = k; j < 5; j++) group = group * 85 + 84;
    for (let j = 0; j < k - 1; j++) out.push(Math.floor(group / 2 ** (8 * (3 - j))) & 0xff);
  }
  return out.bytes();
}
