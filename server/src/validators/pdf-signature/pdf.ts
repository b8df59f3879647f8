// Minimal, defensive PDF object reader for signature verification.
// It reads raw bytes: objects, cross-reference tables and streams, object streams
// and incremental revisions. It never throws on malformed input from the public
// helpers that take a "safe" path; internal helpers throw PdfError, caught by callers.
import { inflateSync } from 'node:zlib';

export class PdfError extends Error {}

function inflate(data: Uint8Array, maxOutputLength: number, partial: boolean): Buffer {
  return inflateSync(data, partial ? { maxOutputLength, finishFlush: 2 /* Z_SYNC_FLUSH */ } : { maxOutputLength });
}

const isTooLarge = (err: unknown) => (err as { code?: string })?.code === 'ERR_BUFFER_TOO_LARGE';

export type PdfName = { t: 'name'; v: string };
export type PdfString = { t: 'str'; v: Uint8Array; hex: boolean; start: number; end: number };
export type PdfRef = { t: 'ref'; num: number; gen: number };
export type PdfDict = { t: 'dict'; m: Map<string, PdfValue>; start: number; end: number };
export type PdfStream = { t: 'stream'; dict: PdfDict; dataStart: number; dataEnd: number };
export type PdfKeyword = { t: 'kw'; v: string };
export type PdfValue =
  | null
  | boolean
  | number
  | PdfName
  | PdfString
  | PdfRef
  | PdfDict
  | PdfStream
  | PdfKeyword
  | PdfValue[];

const WS = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WS[c] = 1;
const DELIM = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIM[c.charCodeAt(0)] = 1;

export function latin1(bytes: Uint8Array, start = 0, end = bytes.length): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, end - start)).toString('latin1');
}

export function isDict(v: PdfValue | undefined): v is PdfDict {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.t === 'dict';
}
export function isStream(v: PdfValue | undefined): v is PdfStream {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.t === 'stream';
}
export function isRef(v: PdfValue | undefined): v is PdfRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.t === 'ref';
}
export function isName(v: PdfValue | undefined, name?: string): v is PdfName {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.t === 'name' && (name === undefined || v.v === name);
}
export function isString(v: PdfValue | undefined): v is PdfString {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.t === 'str';
}
/** Dictionary of a dict or of a stream. */
export function dictOf(v: PdfValue | undefined): PdfDict | null {
  if (isDict(v)) return v;
  if (isStream(v)) return v.dict;
  return null;
}

/** Tokenizer/parser over a byte array. */
export class Lexer {
  buf: Uint8Array;
  pos: number;
  constructor(buf: Uint8Array, pos: number) {
    this.buf = buf;
    this.pos = pos;
  }

  skipWs(): void {
    const b = this.buf;
    while (this.pos < b.length) {
      const c = b[this.pos];
      if (WS[c]) this.pos++;
      else if (c === 0x25 /* % */) {
        while (this.pos < b.length && b[this.pos] !== 10 && b[this.pos] !== 13) this.pos++;
      } else break;
    }
  }

  /** Parses one PDF value; `n g R` references are recognised. */
  parse(depth = 0): PdfValue {
    if (depth > 200) throw new PdfError('nesting too deep');
    this.skipWs();
    const b = this.buf;
    if (this.pos >= b.length) throw new PdfError('unexpected end of data');
    const c = b[this.pos];
    if (c === 0x2f /* / */) return this.parseName();
    if (c === 0x28 /* ( */) return this.parseLiteralString();
    if (c === 0x3c /* < */) {
      if (b[this.pos + 1] === 0x3c) return this.parseDict(depth);
      return this.parseHexString();
    }
    if (c === 0x5b /* [ */) {
      this.pos++;
      const arr: PdfValue[] = [];
      for (;;) {
        this.skipWs();
        if (this.pos >= b.length) throw new PdfError('unterminated array');
        if (b[this.pos] === 0x5d) {
          this.pos++;
          return arr;
        }
        arr.push(this.parse(depth + 1));
      }
    }
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      const n = this.parseNumber();
      // reference lookahead: int int R
      if (Number.isInteger(n) && n >= 0) {
        const save = this.pos;
        this.skipWs();
        const d = b[this.pos];
        if (d >= 0x30 && d <= 0x39) {
          const g = this.parseNumber();
          this.skipWs();
          if (Number.isInteger(g) && b[this.pos] === 0x52 /* R */ && (this.pos + 1 >= b.length || WS[b[this.pos + 1]] || DELIM[b[this.pos + 1]])) {
            this.pos++;
            return { t: 'ref', num: n, gen: g };
          }
        }
        this.pos = save;
      }
      return n;
    }
    if (DELIM[c]) {
      this.pos++;
      throw new PdfError(`unexpected delimiter ${String.fromCharCode(c)}`);
    }
    const word = this.readRegular();
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    return { t: 'kw', v: word };
  }

  readRegular(): string {
    const b = this.buf;
    const s = this.pos;
    while (this.pos < b.length && !WS[b[this.pos]] && !DELIM[b[this.pos]]) this.pos++;
    if (this.pos === s) {
      this.pos++;
      throw new PdfError('empty token');
    }
    return latin1(b, s, this.pos);
  }

  parseNumber(): number {
    const b = this.buf;
    const s = this.pos;
    if (b[this.pos] === 0x2b || b[this.pos] === 0x2d) this.pos++;
    while (this.pos < b.length && ((b[this.pos] >= 0x30 && b[this.pos] <= 0x39) || b[this.pos] === 0x2e)) this.pos++;
    const n = Number(latin1(b, s, this.pos));
    if (!Number.isFinite(n)) return 0;
    return n;
  }

  parseName(): PdfName {
    const b = this.buf;
    this.pos++;
    let s = '';
    while (this.pos < b.length && !WS[b[this.pos]] && !DELIM[b[this.pos]]) {
      const c = b[this.pos];
      if (c === 0x23 && this.pos + 2 < b.length) {
        const h = parseInt(latin1(b, this.pos + 1, this.pos + 3), 16);
        if (!Number.isNaN(h)) {
          s += String.fromCharCode(h);
          this.pos += 3;
          continue;
        }
      }
      s += String.fromCharCode(c);
      this.pos++;
    }
    return { t: 'name', v: s };
  }

  parseLiteralString(): PdfString {
    const b = this.buf;
    const start = this.pos;
    this.pos++;
    const out: number[] = [];
    let depth = 1;
    while (this.pos < b.length) {
      const c = b[this.pos++];
      if (c === 0x5c /* \ */) {
        const d = b[this.pos++];
        if (d === undefined) break;
        const map: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
        if (map[d] !== undefined) out.push(map[d]);
        else if (d >= 0x30 && d <= 0x37) {
          let v = d - 0x30;
          for (let i = 0; i < 2 && b[this.pos] >= 0x30 && b[this.pos] <= 0x37; i++) v = v * 8 + (b[this.pos++] - 0x30);
          out.push(v & 0xff);
        } else if (d === 13) {
          if (b[this.pos] === 10) this.pos++;
        } else if (d !== 10) out.push(d);
      } else if (c === 0x28) {
        depth++;
        out.push(c);
      } else if (c === 0x29) {
        depth--;
        if (depth === 0) return { t: 'str', v: Uint8Array.from(out), hex: false, start, end: this.pos };
        out.push(c);
      } else out.push(c);
    }
    throw new PdfError('unterminated string');
  }

  parseHexString(): PdfString {
    const b = this.buf;
    const start = this.pos;
    this.pos++;
    const end = b.indexOf(0x3e, this.pos);
    if (end < 0) throw new PdfError('unterminated hex string');
    const hex = latin1(b, this.pos, end).replace(/[^0-9a-fA-F]/g, '');
    this.pos = end + 1;
    const padded = hex.length % 2 ? hex + '0' : hex;
    return { t: 'str', v: new Uint8Array(Buffer.from(padded, 'hex')), hex: true, start, end: this.pos };
  }

  parseDict(depth: number): PdfDict {
    const b = this.buf;
    const start = this.pos;
    this.pos += 2;
    const m = new Map<string, PdfValue>();
    for (;;) {
      this.skipWs();
      if (this.pos >= b.length) throw new PdfError('unterminated dictionary');
      if (b[this.pos] === 0x3e && b[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return { t: 'dict', m, start, end: this.pos };
      }
      const k = this.parse(depth + 1);
      if (!isName(k)) throw new PdfError('dictionary key is not a name');
      const v = this.parse(depth + 1);
      m.set(k.v, v);
    }
  }
}


/** Offsets of `num gen obj` headers in [0, end), in file order (linear scan, no regex backtracking). */
export function objHeaders(buf: Uint8Array, end = buf.length): Array<{ at: number; num: number; gen: number }> {
  const out: Array<{ at: number; num: number; gen: number }> = [];
  const B = Buffer.from(buf.buffer, buf.byteOffset, end);
  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
  for (let i = B.indexOf('obj'); i >= 0; i = B.indexOf('obj', i + 3)) {
    const nx = buf[i + 3];
    if (i + 3 < end && nx !== undefined && !WS[nx] && !DELIM[nx]) continue;
    let p = i - 1;
    if (p < 0 || !WS[buf[p]]) continue;
    while (p >= 0 && WS[buf[p]]) p--;
    const genEnd = p + 1;
    while (p >= 0 && isDigit(buf[p]) && genEnd - p <= 10) p--;
    const genStart = p + 1;
    if (genStart === genEnd || p < 0 || !WS[buf[p]]) continue;
    while (p >= 0 && WS[buf[p]]) p--;
    const numEnd = p + 1;
    while (p >= 0 && isDigit(buf[p]) && numEnd - p <= 11) p--;
    const numStart = p + 1;
    if (numStart === numEnd || (p >= 0 && isDigit(buf[p]))) continue;
    out.push({ at: numStart, num: Number(latin1(buf, numStart, numEnd)), gen: Number(latin1(buf, genStart, genEnd)) });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Streams

function pngUnpredict(data: Uint8Array, columns: number, colors: number, bpc: number): Uint8Array {
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowLen = Math.ceil((columns * colors * bpc) / 8);
  const rows = Math.floor(data.length / (rowLen + 1));
  const out = new Uint8Array(rows * rowLen);
  let prev = new Uint8Array(rowLen);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLen + 1)];
    const row = data.subarray(r * (rowLen + 1) + 1, (r + 1) * (rowLen + 1));
    const cur = new Uint8Array(rowLen);
    for (let i = 0; i < rowLen; i++) {
      const left = i >= bpp ? cur[i - bpp] : 0;
      const up = prev[i];
      const ul = i >= bpp ? prev[i - bpp] : 0;
      let v = row[i];
      if (type === 1) v += left;
      else if (type === 2) v += up;
      else if (type === 3) v += (left + up) >> 1;
      else if (type === 4) {
        const p = left + up - ul;
        const pa = Math.abs(p - left), pb = Math.abs(p - up), pc = Math.abs(p - ul);
        v += pa <= pb && pa <= pc ? left : pb <= pc ? up : ul;
      }
      cur[i] = v & 0xff;
    }
    out.set(cur, r * rowLen);
    prev = cur;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Document model: revisions and cross-reference state

export type XrefEntry = { type: 0 } | { type: 1; offset: number; gen: number } | { type: 2; stm: number; idx: number };

export interface RevisionState {
  end: number;
  entries: Map<number, XrefEntry>;
  trailer: PdfDict | null;
}

/**
 * Most bytes one stream may inflate to, and all the streams of one document together. What this reader decodes
 * (cross-reference and object streams, XMP metadata, certificates) is small; a stream that inflates past the limit is
 * unreadable here (PdfError), found out after at most this much output, so a 1 MiB PDF whose /Metadata inflates to
 * 1 GiB costs ~16 MiB and a few milliseconds instead of gigabytes and tens of seconds.
 */
export const MAX_STREAM_BYTES = 16 * 1024 * 1024;
export const MAX_DOCUMENT_INFLATED_BYTES = 64 * 1024 * 1024;

export class PdfDocument {
  buf: Uint8Array;
  /** Inflated bytes still allowed for this document (MAX_DOCUMENT_INFLATED_BYTES at the start). */
  private inflateBudget = MAX_DOCUMENT_INFLATED_BYTES;
  /** Offsets just after each `%%EOF` marker (plus its end-of-line). */
  eofEnds: number[];
  private objCache = new Map<string, PdfValue>();
  private objStmCache = new Map<string, { offsets: Array<[number, number]>; data: Uint8Array; first: number }>();
  private stateCache = new Map<number, RevisionState>();

  constructor(buf: Uint8Array) {
    this.buf = buf;
    this.eofEnds = [];
    const needle = Buffer.from('%%EOF');
    const B = Buffer.from(buf.buffer, buf.byteOffset, buf.length);
    let i = B.indexOf(needle);
    while (i >= 0) {
      let e = i + 5;
      if (buf[e] === 13) e++;
      if (buf[e] === 10) e++;
      this.eofEnds.push(e);
      i = B.indexOf(needle, i + 5);
    }
  }

  /** Position of the `%%EOF` marker whose revision the offset `end` closes, or -1. */
  isRevisionEnd(end: number): boolean {
    // The signed range must end right after %%EOF, allowing its end-of-line.
    let p = end;
    let k = 0;
    while (p > 0 && k < 4 && (this.buf[p - 1] === 10 || this.buf[p - 1] === 13 || this.buf[p - 1] === 32)) {
      p--;
      k++;
    }
    return p >= 5 && latin1(this.buf, p - 5, p) === '%%EOF';
  }

  /** Decoded data of a stream (FlateDecode with predictors; other filters unsupported). */
  streamData(s: PdfStream, state?: RevisionState): Uint8Array {
    let data = this.buf.subarray(s.dataStart, s.dataEnd);
    let filters = s.dict.m.get('Filter');
    let params = s.dict.m.get('DecodeParms');
    if (state) {
      filters = this.resolve(filters ?? null, state);
      params = this.resolve(params ?? null, state);
    }
    const fl = filters == null ? [] : Array.isArray(filters) ? filters : [filters];
    const pl = params == null ? [] : Array.isArray(params) ? params : [params];
    fl.forEach((f, i) => {
      if (!isName(f)) throw new PdfError('bad filter');
      if (f.v === 'FlateDecode' || f.v === 'Fl') {
        data = this.inflateBounded(data);
        const p = dictOf(pl[i] ?? null);
        const pred = p ? p.m.get('Predictor') : undefined;
        if (typeof pred === 'number' && pred >= 10) {
          const num = (k: string, d: number) => {
            const v = p!.m.get(k);
            return typeof v === 'number' ? v : d;
          };
          data = pngUnpredict(data, num('Columns', 1), num('Colors', 1), num('BitsPerComponent', 8));
        } else if (typeof pred === 'number' && pred > 1) throw new PdfError('unsupported predictor');
      } else throw new PdfError(`unsupported filter ${f.v}`);
    });
    return data;
  }

  /** Inflates under the per-stream and per-document limits; past either, the stream is unreadable (PdfError). */
  private inflateBounded(data: Uint8Array): Uint8Array {
    const limit = Math.min(MAX_STREAM_BYTES, this.inflateBudget);
    // (zlib takes no limit of 0: a spent budget reads nothing more.)
    if (limit < 1) throw new PdfError('stream inflates past the limit');
    let out: Buffer;
    try {
      out = inflate(data, limit, false);
    } catch (err) {
      if (isTooLarge(err)) throw new PdfError('stream inflates past the limit');
      // A stream cut short (no final block): what it holds, still under the limit.
      try {
        out = inflate(data, limit, true);
      } catch (again) {
        throw new PdfError(isTooLarge(again) ? 'stream inflates past the limit' : 'stream does not inflate');
      }
    }
    this.inflateBudget -= out.length;
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  }

  /** Reads `num gen obj ... endobj` at an offset. */
  readIndirectAt(offset: number, expectNum?: number, state?: RevisionState): { num: number; gen: number; value: PdfValue } {
    const key = `o${offset}`;
    const lx = new Lexer(this.buf, offset);
    lx.skipWs();
    const num = lx.parseNumber();
    lx.skipWs();
    const gen = lx.parseNumber();
    lx.skipWs();
    const kw = lx.readRegular();
    if (kw !== 'obj') throw new PdfError(`no object at offset ${offset}`);
    if (expectNum !== undefined && num !== expectNum) throw new PdfError(`object ${expectNum} expected at ${offset}, found ${num}`);
    const cached = this.objCache.get(key);
    if (cached !== undefined) return { num, gen, value: cached };
    let value = lx.parse();
    const after = lx.pos;
    lx.skipWs();
    if (isDict(value) && latin1(this.buf, lx.pos, lx.pos + 6) === 'stream') {
      let p = lx.pos + 6;
      if (this.buf[p] === 13) p++;
      if (this.buf[p] === 10) p++;
      let len = value.m.get('Length');
      if (isRef(len) && state) {
        try {
          len = this.getObject(len.num, state);
        } catch {
          len = undefined;
        }
      }
      let end = -1;
      if (typeof len === 'number' && len >= 0 && p + len <= this.buf.length) {
        const tail = latin1(this.buf, p + len, Math.min(this.buf.length, p + len + 20));
        if (/^\s*endstream/.test(tail)) end = p + len;
      }
      if (end < 0) {
        const B = Buffer.from(this.buf.buffer, this.buf.byteOffset, this.buf.length);
        const e = B.indexOf('endstream', p);
        if (e < 0) throw new PdfError('unterminated stream');
        end = e;
        if (this.buf[end - 1] === 10) end--;
        if (this.buf[end - 1] === 13) end--;
      }
      value = { t: 'stream', dict: value, dataStart: p, dataEnd: end };
    } else lx.pos = after;
    this.objCache.set(key, value);
    return { num, gen, value };
  }

  private headerCache: Array<{ at: number; num: number; gen: number }> | null = null;
  headers(): Array<{ at: number; num: number; gen: number }> {
    this.headerCache ??= objHeaders(this.buf);
    return this.headerCache;
  }

  private findObjectByScan(num: number, before: number): number {
    let last = -1;
    for (const h of this.headers()) {
      if (h.at >= before) break;
      if (h.num === num) last = h.at;
    }
    return last;
  }

  /** Gets an object as of a revision state. Returns null for free / missing objects. */
  getObject(num: number, state: RevisionState, depth = 0): PdfValue {
    const e = state.entries.get(num);
    if (!e || e.type === 0) return null;
    if (e.type === 1) {
      try {
        return this.readIndirectAt(e.offset, num, state).value;
      } catch {
        // broken xref offset: fall back to the last definition before the revision end
        const off = this.findObjectByScan(num, state.end);
        if (off < 0) return null;
        return this.readIndirectAt(off, num, state).value;
      }
    }
    if (depth > 5) throw new PdfError('object stream recursion');
    const stmEntry = state.entries.get(e.stm);
    const key = `${e.stm}@${stmEntry && stmEntry.type === 1 ? stmEntry.offset : 'x'}`;
    let os = this.objStmCache.get(key);
    if (!os) {
      const stm = this.getObject(e.stm, state, depth + 1);
      if (!isStream(stm)) throw new PdfError(`object stream ${e.stm} missing`);
      const data = this.streamData(stm, state);
      const n = stm.dict.m.get('N');
      const first = stm.dict.m.get('First');
      if (typeof n !== 'number' || typeof first !== 'number') throw new PdfError('bad object stream');
      const lx = new Lexer(data, 0);
      const offsets: Array<[number, number]> = [];
      for (let i = 0; i < n; i++) {
        lx.skipWs();
        const on = lx.parseNumber();
        lx.skipWs();
        const oo = lx.parseNumber();
        offsets.push([on, oo]);
      }
      os = { offsets, data, first };
      this.objStmCache.set(key, os);
    }
    const entry = os.offsets[e.idx] && os.offsets[e.idx][0] === num ? os.offsets[e.idx] : os.offsets.find((o) => o[0] === num);
    if (!entry) return null;
    return new Lexer(os.data, os.first + entry[1]).parse();
  }

  resolve(v: PdfValue | undefined, state: RevisionState, depth = 0): PdfValue {
    let cur: PdfValue = v === undefined ? null : v;
    while (isRef(cur) && depth < 20) {
      cur = this.getObject(cur.num, state);
      depth++;
    }
    return cur;
  }

  /** Cross-reference state of the revision that ends at `end` (exclusive byte offset). */
  stateAt(end: number): RevisionState {
    const cached = this.stateCache.get(end);
    if (cached) return cached;
    let state: RevisionState | null = null;
    try {
      state = this.stateFromXref(end);
    } catch {
      state = null;
    }
    if (!state || !state.trailer || !state.trailer.m.get('Root')) state = this.stateFromScan(end);
    this.stateCache.set(end, state);
    return state;
  }

  private stateFromXref(end: number): RevisionState {
    const B = Buffer.from(this.buf.buffer, this.buf.byteOffset, end);
    const sx = B.lastIndexOf('startxref');
    if (sx < 0) throw new PdfError('no startxref');
    const lx = new Lexer(this.buf, sx + 9);
    lx.skipWs();
    let off = lx.parseNumber();
    const state: RevisionState = { end, entries: new Map(), trailer: null };
    const seen = new Set<number>();
    while (off >= 0 && off < end && !seen.has(off)) {
      seen.add(off);
      const trailer = this.readXrefSection(off, state, end);
      if (!state.trailer) state.trailer = trailer;
      const xs = trailer.m.get('XRefStm');
      if (typeof xs === 'number' && !seen.has(xs)) {
        seen.add(xs);
        try {
          this.readXrefSection(xs, state, end);
        } catch {
          /* ignore broken hybrid section */
        }
      }
      const prev = trailer.m.get('Prev');
      off = typeof prev === 'number' ? prev : -1;
    }
    return state;
  }

  private readXrefSection(off: number, state: RevisionState, end: number): PdfDict {
    let lx = new Lexer(this.buf, off);
    lx.skipWs();
    // tolerate offsets that are off by a few bytes
    if (latin1(this.buf, lx.pos, lx.pos + 4) !== 'xref' && !/^\d+\s+\d+\s+obj/.test(latin1(this.buf, lx.pos, lx.pos + 30))) {
      const win = latin1(this.buf, Math.max(0, off - 20), Math.min(end, off + 20));
      const k = win.indexOf('xref');
      if (k < 0) throw new PdfError('xref not found');
      lx = new Lexer(this.buf, Math.max(0, off - 20) + k);
    }
    if (latin1(this.buf, lx.pos, lx.pos + 4) === 'xref') {
      lx.pos += 4;
      for (;;) {
        lx.skipWs();
        if (latin1(this.buf, lx.pos, lx.pos + 7) === 'trailer') {
          lx.pos += 7;
          const t = lx.parse();
          if (!isDict(t)) throw new PdfError('bad trailer');
          return t;
        }
        const start = lx.parseNumber();
        lx.skipWs();
        const count = lx.parseNumber();
        if (!Number.isInteger(start) || !Number.isInteger(count) || count < 0 || count > 10_000_000) throw new PdfError('bad xref subsection');
        for (let i = 0; i < count; i++) {
          lx.skipWs();
          const o = lx.parseNumber();
          lx.skipWs();
          const g = lx.parseNumber();
          lx.skipWs();
          const ty = this.buf[lx.pos++];
          const num = start + i;
          if (state.entries.has(num)) continue;
          if (ty === 0x6e /* n */) state.entries.set(num, { type: 1, offset: o, gen: g });
          else if (ty === 0x66 /* f */) state.entries.set(num, { type: 0 });
          else throw new PdfError('bad xref entry');
        }
      }
    }
    // cross-reference stream
    const { value } = this.readIndirectAt(lx.pos);
    if (!isStream(value) || !isName(value.dict.m.get('Type'), 'XRef')) throw new PdfError('not an xref stream');
    const d = value.dict.m;
    const w = d.get('W');
    const size = d.get('Size');
    if (!Array.isArray(w) || w.length < 3 || typeof size !== 'number') throw new PdfError('bad xref stream');
    const ws = w.map((x) => (typeof x === 'number' ? x : 0));
    const idx = d.get('Index');
    const index = Array.isArray(idx) ? idx.map((x) => (typeof x === 'number' ? x : 0)) : [0, size];
    const data = this.streamData(value);
    const rowLen = ws[0] + ws[1] + ws[2];
    let p = 0;
    const field = (n: number, def: number) => {
      if (n === 0) return def;
      let v = 0;
      for (let i = 0; i < n; i++) v = v * 256 + data[p++];
      return v;
    };
    for (let s = 0; s + 1 < index.length; s += 2) {
      for (let i = 0; i < index[s + 1]; i++) {
        if (p + rowLen > data.length) break;
        const ty = field(ws[0], 1);
        const f2 = field(ws[1], 0);
        const f3 = field(ws[2], 0);
        const num = index[s] + i;
        if (state.entries.has(num)) continue;
        if (ty === 0) state.entries.set(num, { type: 0 });
        else if (ty === 1) state.entries.set(num, { type: 1, offset: f2, gen: f3 });
        else if (ty === 2) state.entries.set(num, { type: 2, stm: f2, idx: f3 });
      }
    }
    return value.dict;
  }

  /** Fallback when cross-reference data is unusable: scan for `n g obj` headers. */
  private stateFromScan(end: number): RevisionState {
    const state: RevisionState = { end, entries: new Map(), trailer: null };
    let skipUntil = -1;
    const objStms: number[] = [];
    for (const h of this.headers()) {
      const at = h.at;
      if (at >= end) break;
      if (at < skipUntil) continue;
      const num = h.num;
      state.entries.set(num, { type: 1, offset: at, gen: h.gen });
      try {
        const { value } = this.readIndirectAt(at, num);
        if (isStream(value)) {
          skipUntil = value.dataEnd;
          const ty = value.dict.m.get('Type');
          if (isName(ty, 'ObjStm')) objStms.push(num);
          if (isName(ty, 'XRef')) state.trailer = value.dict;
        }
      } catch {
        /* ignore */
      }
    }
    for (const sn of objStms) {
      try {
        const stm = this.getObject(sn, state);
        if (!isStream(stm)) continue;
        const data = this.streamData(stm, state);
        const n = stm.dict.m.get('N');
        const lx = new Lexer(data, 0);
        for (let i = 0; typeof n === 'number' && i < n; i++) {
          lx.skipWs();
          const on = lx.parseNumber();
          lx.skipWs();
          lx.parseNumber();
          const prev = state.entries.get(on);
          const se = state.entries.get(sn);
          const stmOff = se && se.type === 1 ? se.offset : 0;
          if (!prev || prev.type !== 1 || prev.offset < stmOff) state.entries.set(on, { type: 2, stm: sn, idx: i });
        }
      } catch {
        /* ignore */
      }
    }
    const t = Buffer.from(this.buf.buffer, this.buf.byteOffset, end).lastIndexOf('trailer');
    if (t >= 0) {
      try {
        const lx = new Lexer(this.buf, t + 7);
        const v = lx.parse();
        if (isDict(v)) state.trailer = v;
      } catch {
        /* ignore */
      }
    }
    return state;
  }
}

/** Structural equality of two PDF values (references compared by number). */
export function pdfEqual(doc: PdfDocument, a: PdfValue, b: PdfValue, ignoreKeys?: Set<string>): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => pdfEqual(doc, x, b[i]));
  }
  if (a.t !== b.t) return false;
  switch (a.t) {
    case 'name':
    case 'kw':
      return a.v === (b as PdfName).v;
    case 'ref':
      return a.num === (b as PdfRef).num && a.gen === (b as PdfRef).gen;
    case 'str':
      return Buffer.compare(Buffer.from(a.v), Buffer.from((b as PdfString).v)) === 0;
    case 'dict': {
      const bm = (b as PdfDict).m;
      const keys = new Set([...a.m.keys(), ...bm.keys()]);
      for (const k of keys) {
        if (ignoreKeys && ignoreKeys.has(k)) continue;
        if (!pdfEqual(doc, a.m.get(k) ?? null, bm.get(k) ?? null)) return false;
      }
      return true;
    }
    case 'stream': {
      const bs = b as PdfStream;
      if (!pdfEqual(doc, a.dict, bs.dict, new Set([...(ignoreKeys ?? []), 'Length']))) return false;
      const da = doc.buf.subarray(a.dataStart, a.dataEnd);
      const db = doc.buf.subarray(bs.dataStart, bs.dataEnd);
      return Buffer.compare(Buffer.from(da), Buffer.from(db)) === 0;
    }
  }
  return false;
}

/** Decodes a PDF text string (UTF-16BE with BOM, UTF-8 with BOM, else PDFDocEncoding ~ latin1). */
export function textOf(v: PdfValue | undefined): string | null {
  if (!isString(v)) return null;
  const b = v.v;
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) {
    let out = '';
    for (let i = 2; i + 1 < b.length; i += 2) out += String.fromCharCode((b[i] << 8) | b[i + 1]);
    return out;
  }
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return Buffer.from(b.subarray(3)).toString('utf8');
  return latin1(b);
}

/** Parses a PDF date string `D:YYYYMMDDHHmmSSOHH'mm'`. */
export function parsePdfDate(s: string | null): Date | null {
  if (!s) return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*([Zz+-])?\s*(\d{2})?'?(\d{2})?'?/.exec(s.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, se] = [m[1], m[2] ?? '01', m[3] ?? '01', m[4] ?? '00', m[5] ?? '00', m[6] ?? '00'].map(Number);
  let t = Date.UTC(y, mo - 1, d, h, mi, se);
  if (m[7] === '+' || m[7] === '-') {
    const off = (Number(m[8] ?? 0) * 60 + Number(m[9] ?? 0)) * 60_000;
    t += m[7] === '+' ? -off : off;
  }
  return Number.isNaN(t) ? null : new Date(t);
}
