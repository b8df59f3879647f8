/**
 * The glyph classifier: a one-hidden-layer perceptron over the FW x FH cell features, 37 classes (0-9, A-Z, `<`).
 * Weights are in model.json next to this file (built by scripts/mrz-model/train.ts from OCR-B renders; see
 * PROVENANCE.md). Loaded once, lazily; the forward pass is pure and synchronous, so concurrent reads share it.
 */
import { readFileSync } from 'node:fs';
import { ALPHABET, NFEAT } from './features.ts';

export interface Mlp {
  nin: number;
  nh: number;
  nout: number;
  w1: Float32Array; // nh x nin
  b1: Float32Array;
  w2: Float32Array; // nout x nh
  b2: Float32Array;
}

export interface ModelFile {
  format: 'cotejo-mrz-mlp';
  version: number;
  alphabet: string;
  fw: number;
  fh: number;
  nin: number;
  nh: number;
  nout: number;
  /** Base64 little-endian float32 arrays. */
  w1: string;
  b1: string;
  w2: string;
  b2: string;
  trained: Record<string, unknown>;
}

function f32(b64: string): Float32Array {
  const buf = Buffer.from(b64, 'base64');
  const out = new Float32Array(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

export function b64(a: Float32Array): string {
  const buf = Buffer.alloc(a.length * 4);
  for (let i = 0; i < a.length; i++) buf.writeFloatLE(a[i], i * 4);
  return buf.toString('base64');
}

export function modelFromFile(m: ModelFile): Mlp {
  if (m.format !== 'cotejo-mrz-mlp' || m.alphabet !== ALPHABET || m.nin !== NFEAT) throw new Error('mrz model: incompatible model file');
  return { nin: m.nin, nh: m.nh, nout: m.nout, w1: f32(m.w1), b1: f32(m.b1), w2: f32(m.w2), b2: f32(m.b2) };
}

let cached: Mlp | null = null;

/** The shipped model, loaded on first use. */
export function model(): Mlp {
  if (!cached) {
    const file = JSON.parse(readFileSync(new URL('./model.json', import.meta.url), 'utf8')) as ModelFile;
    cached = modelFromFile(file);
  }
  return cached;
}

/** Class probabilities (softmax) for one cell; `hidden` may be passed to avoid an allocation. */
export function classify(m: Mlp, x: Float32Array, hidden = new Float32Array(m.nh)): Float32Array {
  const { nin, nh, nout, w1, b1, w2, b2 } = m;
  for (let h = 0; h < nh; h++) {
    let s = b1[h];
    const o = h * nin;
    for (let i = 0; i < nin; i++) s += w1[o + i] * x[i];
    hidden[h] = s > 0 ? s : 0;
  }
  const out = new Float32Array(nout);
  let max = -Infinity;
  for (let c = 0; c < nout; c++) {
    let s = b2[c];
    const o = c * nh;
    for (let h = 0; h < nh; h++) s += w2[o + h] * hidden[h];
    out[c] = s;
    if (s > max) max = s;
  }
  let z = 0;
  for (let c = 0; c < nout; c++) {
    out[c] = Math.exp(out[c] - max);
    z += out[c];
  }
  for (let c = 0; c < nout; c++) out[c] /= z;
  return out;
}
