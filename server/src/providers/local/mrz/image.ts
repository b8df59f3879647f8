/**
 * Small grey-image toolkit for the MRZ reader: plain typed arrays, no native code, so that the reader runs the same
 * in the server, the tests and the model-training script.
 */

/** A grey image, values 0 (black) .. 255 (white), row-major. */
export interface Grey {
  w: number;
  h: number;
  d: Float32Array;
}

export function greyFrom(buf: Uint8Array, w: number, h: number): Grey {
  const d = new Float32Array(w * h);
  for (let i = 0; i < d.length; i++) d[i] = buf[i];
  return { w, h, d };
}

/** Bilinear sample with edge clamping. */
export function sample(img: Grey, x: number, y: number): number {
  const { w, h, d } = img;
  if (x < 0) x = 0;
  else if (x > w - 1) x = w - 1;
  if (y < 0) y = 0;
  else if (y > h - 1) y = h - 1;
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const x1 = x0 + 1 < w ? x0 + 1 : x0;
  const y1 = y0 + 1 < h ? y0 + 1 : y0;
  const fx = x - x0;
  const fy = y - y0;
  const a = d[y0 * w + x0];
  const b = d[y0 * w + x1];
  const c = d[y1 * w + x0];
  const e = d[y1 * w + x1];
  return (a + (b - a) * fx) * (1 - fy) + (c + (e - c) * fx) * fy;
}

/** Resize: area averaging when shrinking, bilinear when enlarging. */
export function resize(img: Grey, nw: number, nh: number): Grey {
  const out = new Float32Array(nw * nh);
  const sx = img.w / nw;
  const sy = img.h / nh;
  if (sx <= 1 && sy <= 1) {
    for (let y = 0; y < nh; y++) {
      for (let x = 0; x < nw; x++) out[y * nw + x] = sample(img, (x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5);
    }
    return { w: nw, h: nh, d: out };
  }
  // Exact area average, separable: rows first, then columns (O(source pixels)).
  const tmp = new Float32Array(nw * img.h);
  areaPass(img.d, tmp, img.w, img.h, nw, true);
  areaPass(tmp, out, nw, img.h, nh, false);
  return { w: nw, h: nh, d: out };
}

/** One separable area-resampling pass, along rows (horizontal) or columns, from n source samples to m (m <= n). */
function areaPass(src: Float32Array, dst: Float32Array, w: number, h: number, m: number, horizontal: boolean): void {
  const n = horizontal ? w : h;
  const lines = horizontal ? h : w;
  const s = n / m;
  const outW = horizontal ? m : w;
  for (let line = 0; line < lines; line++) {
    for (let o = 0; o < m; o++) {
      const a = o * s;
      const b = a + s;
      let acc = 0;
      for (let i = Math.floor(a); i < b && i < n; i++) {
        const cover = Math.min(b, i + 1) - Math.max(a, i);
        if (cover <= 0) continue;
        acc += cover * (horizontal ? src[line * w + i] : src[i * w + line]);
      }
      if (horizontal) dst[line * outW + o] = acc / s;
      else dst[o * outW + line] = acc / s;
    }
  }
}

/**
 * 1-D running max or min over a window of k = 2r+1 (van Herk / Gil-Werman: O(1) per sample), edge values repeated.
 * The line is copied once into `pad` (its samples, strided in the source, then read contiguously).
 */
function runLine(src: Float32Array, dst: Float32Array, off: number, stride: number, n: number, r: number, max: boolean, pad: Float32Array, g: Float32Array, h: Float32Array): void {
  const k = 2 * r + 1;
  const m = n + 2 * r;
  const first = src[off];
  const last = src[off + (n - 1) * stride];
  for (let i = 0; i < r; i++) pad[i] = first;
  for (let i = 0, p = off; i < n; i++, p += stride) pad[r + i] = src[p];
  for (let i = r + n; i < m; i++) pad[i] = last;
  for (let b = 0; b < m; b += k) {
    const e = Math.min(m, b + k);
    let acc = pad[b];
    g[b] = acc;
    if (max) for (let i = b + 1; i < e; i++) g[i] = acc = pad[i] > acc ? pad[i] : acc;
    else for (let i = b + 1; i < e; i++) g[i] = acc = pad[i] < acc ? pad[i] : acc;
    acc = pad[e - 1];
    h[e - 1] = acc;
    if (max) for (let i = e - 2; i >= b; i--) h[i] = acc = pad[i] > acc ? pad[i] : acc;
    else for (let i = e - 2; i >= b; i--) h[i] = acc = pad[i] < acc ? pad[i] : acc;
  }
  const r2 = 2 * r;
  if (max) for (let i = 0, p = off; i < n; i++, p += stride) { const a = h[i], c = g[i + r2]; dst[p] = a > c ? a : c; }
  else for (let i = 0, p = off; i < n; i++, p += stride) { const a = h[i], c = g[i + r2]; dst[p] = a < c ? a : c; }
}

/** Separable max (dilate: grow bright) or min (erode) filter with a kx x ky rectangle (odd sizes). */
function rankFilter(src: Float32Array, w: number, h: number, kx: number, ky: number, max: boolean): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  const rx = kx >> 1;
  const ry = ky >> 1;
  const len = Math.max(w, h) + 2 * Math.max(rx, ry) + 1;
  const pad = new Float32Array(len);
  const g = new Float32Array(len);
  const hh = new Float32Array(len);
  if (rx > 0) for (let y = 0; y < h; y++) runLine(src, tmp, y * w, 1, w, rx, max, pad, g, hh);
  else tmp.set(src);
  if (ry > 0) for (let x = 0; x < w; x++) runLine(tmp, out, x, w, h, ry, max, pad, g, hh);
  else out.set(tmp);
  return out;
}

/** Black top-hat: closing minus image; bright where dark details narrower than the kernel are. */
export function blackTopHat(img: Grey, k: number): Float32Array {
  const closed = rankFilter(rankFilter(img.d, img.w, img.h, k, k, true), img.w, img.h, k, k, false);
  const out = new Float32Array(img.d.length);
  for (let i = 0; i < out.length; i++) out[i] = closed[i] - img.d[i];
  return out;
}

/** Grey opening along rows (erode then dilate with a 1 x k line): what survives is horizontally long. */
export function openRows(src: Float32Array, w: number, h: number, k: number): Float32Array {
  return rankFilter(rankFilter(src, w, h, k, 1, false), w, h, k, 1, true);
}

/** Binary closing of a 0/1 mask with a kx x ky rectangle. */
export function closeMask(mask: Uint8Array, w: number, h: number, kx: number, ky: number): Uint8Array {
  const f = new Float32Array(mask.length);
  for (let i = 0; i < f.length; i++) f[i] = mask[i];
  const c = rankFilter(rankFilter(f, w, h, kx, ky, true), w, h, kx, ky, false);
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < out.length; i++) out[i] = c[i] > 0.5 ? 1 : 0;
  return out;
}

/** Binary opening (erode then dilate). */
export function openMask(mask: Uint8Array, w: number, h: number, kx: number, ky: number): Uint8Array {
  const f = new Float32Array(mask.length);
  for (let i = 0; i < f.length; i++) f[i] = mask[i];
  const c = rankFilter(rankFilter(f, w, h, kx, ky, false), w, h, kx, ky, true);
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < out.length; i++) out[i] = c[i] > 0.5 ? 1 : 0;
  return out;
}

/** Otsu threshold over values in [0, 255]. */
export function otsu(values: Float32Array): number {
  const hist = new Float64Array(256);
  for (let i = 0; i < values.length; i++) hist[Math.max(0, Math.min(255, Math.round(values[i])))]++;
  const total = values.length;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i];
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let thr = 0;
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t];
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > best) {
      best = between;
      thr = t;
    }
  }
  return thr;
}

/** Percentiles `ps` (0..1, nearest rank) of `values`, from one sort of a copy; 0 for no values. */
export function percentiles(values: ArrayLike<number>, ...ps: number[]): number[] {
  const a = Float32Array.from(values).sort();
  return ps.map((p) => (a.length === 0 ? 0 : a[Math.min(a.length - 1, Math.max(0, Math.round((a.length - 1) * p)))]));
}

/** A connected component with its second moments. */
export interface Component {
  n: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  cx: number;
  cy: number;
  /** Unit vector of the major axis. */
  ux: number;
  uy: number;
  /** Extent along the major axis and across it (pixels). */
  length: number;
  thickness: number;
  /** Offsets along the major axis of the first and last pixel, relative to the centroid. */
  a0: number;
  a1: number;
}

/** 8-connected components of a 0/1 mask, with orientation from second moments. */
export function components(mask: Uint8Array, w: number, h: number, minPixels: number): Component[] {
  const label = new Int32Array(w * h);
  const out: Component[] = [];
  const stack: number[] = [];
  const pix: number[] = [];
  let next = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || label[start]) continue;
    next++;
    label[start] = next;
    stack.push(start);
    pix.length = 0;
    while (stack.length) {
      const p = stack.pop()!;
      pix.push(p);
      const x = p % w;
      const y = (p - x) / w;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (mask[q] && !label[q]) {
            label[q] = next;
            stack.push(q);
          }
        }
      }
    }
    if (pix.length < minPixels) continue;
    let sx = 0;
    let sy = 0;
    let x0 = w;
    let y0 = h;
    let x1 = 0;
    let y1 = 0;
    for (const p of pix) {
      const x = p % w;
      const y = (p - x) / w;
      sx += x;
      sy += y;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    const cx = sx / pix.length;
    const cy = sy / pix.length;
    let sxx = 0;
    let syy = 0;
    let sxy = 0;
    for (const p of pix) {
      const x = (p % w) - cx;
      const y = Math.floor(p / w) - cy;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
    }
    const theta = 0.5 * Math.atan2(2 * sxy, sxx - syy);
    const ux = Math.cos(theta);
    const uy = Math.sin(theta);
    let a0 = Infinity;
    let a1 = -Infinity;
    let b0 = Infinity;
    let b1 = -Infinity;
    for (const p of pix) {
      const x = (p % w) - cx;
      const y = Math.floor(p / w) - cy;
      const a = x * ux + y * uy;
      const b = -x * uy + y * ux;
      if (a < a0) a0 = a;
      if (a > a1) a1 = a;
      if (b < b0) b0 = b;
      if (b > b1) b1 = b;
    }
    const length = a1 - a0 + 1;
    out.push({ n: pix.length, x0, y0, x1, y1, cx, cy, ux, uy, length, thickness: Math.max(1, pix.length / length), a0, a1 });
  }
  return out;
}

/**
 * A cleaner copy of a photo for a second search when the first found no zone, or null when it would be the same image:
 * - colour: the brightest of the three channels per pixel (the zone's ink is black in every channel; a violet
 *   ultraviolet frame, a red highlighter or a yellow light over the page is bright in one of them);
 * - contrast: stretched so that the 1st and 99th percentiles span 0..255 (a worn or washed-out capture);
 * - noise: when neighbouring pixels differ by more than 3 % of that range (a high-ISO capture in the dark), a 3 x 3
 *   mean.
 * Same size as the grey image: the geometry read on it is valid on the original.
 */
export function cleanedCopy(grey: Grey, rgb?: Uint8Array): Grey | null {
  const n = grey.w * grey.h;
  let d = grey.d;
  let changed = false;
  if (rgb && rgb.length === 3 * n) {
    // the channels' spread where it is largest decides: most photos are grey enough that the max is the grey
    let spread = 0;
    let count = 0;
    for (let i = 0; i < n; i += 5) {
      const r = rgb[3 * i];
      const g = rgb[3 * i + 1];
      const b = rgb[3 * i + 2];
      spread += Math.max(r, g, b) - Math.min(r, g, b);
      count++;
    }
    if (spread / count >= COLOUR_SPREAD) {
      d = new Float32Array(n);
      for (let i = 0; i < n; i++) d[i] = Math.max(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
      changed = true;
    }
  }
  const hist = new Uint32Array(256);
  for (let i = 0; i < n; i += 3) hist[Math.max(0, Math.min(255, Math.round(d[i])))]++;
  const total = Math.ceil(n / 3);
  const at = (q: number) => {
    let acc = 0;
    for (let v = 0; v < 256; v++) if ((acc += hist[v]) >= q * total) return v;
    return 255;
  };
  const lo = at(0.01);
  const hi = at(0.99);
  if (hi <= lo) return null;
  // noise: median absolute difference of horizontal neighbours, against the range
  const diffs = new Uint32Array(256);
  let m = 0;
  for (let i = 0; i + 1 < n; i += 7) {
    if ((i + 1) % grey.w === 0) continue;
    diffs[Math.min(255, Math.round(Math.abs(d[i + 1] - d[i])))]++;
    m++;
  }
  let acc = 0;
  let mad = 0;
  for (let v = 0; v < 256; v++) if ((acc += diffs[v]) >= m / 2) {
    mad = v;
    break;
  }
  const noisy = mad >= NOISE_SHARE * (hi - lo);
  const stretch = hi - lo < STRETCH_BELOW;
  if (!changed && !noisy && !stretch) return null;
  const k = stretch ? 255 / (hi - lo) : 1;
  const off = stretch ? lo : 0;
  const out = new Float32Array(n);
  const { w, h } = grey;
  if (noisy) {
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let s = 0;
        let c = 0;
        for (let yy = Math.max(0, y - 1); yy <= Math.min(h - 1, y + 1); yy++) {
          for (let xx = Math.max(0, x - 1); xx <= Math.min(w - 1, x + 1); xx++) {
            s += d[yy * w + xx];
            c++;
          }
        }
        out[y * w + x] = Math.max(0, Math.min(255, (s / c - off) * k));
      }
    }
  } else {
    for (let i = 0; i < n; i++) out[i] = Math.max(0, Math.min(255, (d[i] - off) * k));
  }
  return { w, h, d: out };
}

/** Mean spread between a pixel's brightest and darkest channel from which a photo counts as tinted. */
const COLOUR_SPREAD = 20;
/** Median neighbour difference, as a share of the 1-99 % range, from which a photo counts as noisy. */
const NOISE_SHARE = 0.03;
/** Range (1st to 99th percentile) under which the copy is stretched. */
const STRETCH_BELOW = 90;
