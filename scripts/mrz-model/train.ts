// Builds server/src/providers/local/mrz/model.json: the MRZ glyph classifier, trained on synthetic lines only.
//
// Usage (from the repository root, node_modules/.bin on PATH; never run in CI or at start-up):
//   node scripts/mrz-model/train.ts [--images 2400] [--epochs 10] [--hidden 128] [--seed 1] [--out model.json]
//
// Inputs: fonts installed by Debian packages (training machine only):
//   fonts-ocr-b          /usr/share/fonts/opentype/ocr-b/OCRB.otf, OCRBS.otf   (public domain / permissive, see PROVENANCE.md)
//   fonts-dejavu-core    DejaVuSansMono{,-Bold}.ttf (Bitstream Vera licence) } a quarter of the lines, so that MRZs printed
//   fonts-noto-mono      NotoSansMono-Regular.ttf (SIL OFL 1.1)               } in a look-alike monospace face still read
// (Liberation Mono is deliberately not used: its Debian package is GPL-2 with a font exception plus an EULA.)
// Nothing else: no photo of a real document is used (the PassportEye specimens are the evaluation set).
//
// Each synthetic image holds three random MRZ-like lines (30/36/44 characters, filler runs) drawn with
// @napi-rs/canvas at a random size (cap height 4.5-40 px), slight rotation, paper/ink levels, a faint guilloche
// background, bold/thin strokes, then blur, noise and JPEG compression (sharp). Cells are cut with the reader's own
// lineFeatures() on the known geometry plus jitter (pitch, offset, cap height, angle), as the reader's grid fit would.
import { createCanvas, GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { b64, classify, type ModelFile, type Mlp } from '../../server/src/providers/local/mrz/classify.ts';
import { ALPHABET, FH, FW, lineFeatures, NFEAT, type LineGeom } from '../../server/src/providers/local/mrz/features.ts';
import type { Grey } from '../../server/src/providers/local/mrz/image.ts';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const IMAGES = arg('images', 2400);
const EPOCHS = arg('epochs', 10);
const HIDDEN = arg('hidden', 128);
const SEED = arg('seed', 1);
const outArg = process.argv.indexOf('--out');
const OUT = outArg > 0 ? process.argv[outArg + 1] : join(import.meta.dirname, '../../server/src/providers/local/mrz/model.json');

// ---------------------------------------------------------------- deterministic randomness
let state = SEED >>> 0 || 1;
function rnd(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const uni = (a: number, b: number) => a + (b - a) * rnd();
const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
function gauss(): number {
  return Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
}

// ---------------------------------------------------------------- fonts
interface Face { family: string; weight: number; file: string }
const FACES: Face[] = [
  { family: 'OCRB', weight: 0.6, file: '/usr/share/fonts/opentype/ocr-b/OCRB.otf' },
  { family: 'OCRBS', weight: 0.15, file: '/usr/share/fonts/opentype/ocr-b/OCRBS.otf' },
  { family: 'DejaVuMono', weight: 0.1, file: '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf' },
  { family: 'DejaVuMonoBold', weight: 0.05, file: '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf' },
  { family: 'NotoMono', weight: 0.1, file: '/usr/share/fonts/truetype/noto/NotoSansMono-Regular.ttf' },
];
for (const f of FACES) if (!GlobalFonts.registerFromPath(f.file, f.family)) throw new Error(`font missing: ${f.file} (apt-get install fonts-ocr-b fonts-dejavu-core fonts-noto-mono)`);
function pickFace(): Face {
  let r = rnd() * FACES.reduce((s, f) => s + f.weight, 0);
  for (const f of FACES) if ((r -= f.weight) <= 0) return f;
  return FACES[0];
}

// ---------------------------------------------------------------- synthetic lines
function randomLine(n: number): string {
  let s = '';
  while (s.length < n) {
    const r = rnd();
    if (r < 0.12) s += '<'.repeat(1 + Math.floor(rnd() * 8));
    else if (r < 0.4) s += String(Math.floor(rnd() * 10));
    else s += ALPHABET[Math.floor(rnd() * 37)];
  }
  return s.slice(0, n);
}

interface Sample { x: Float32Array; y: number }

function drawBackground(ctx: SKRSContext2D, w: number, h: number, paper: number): void {
  const g = ctx.createLinearGradient(0, 0, w, h);
  const p2 = Math.max(120, Math.min(255, paper + uni(-40, 20)));
  g.addColorStop(0, `rgb(${paper},${paper},${paper})`);
  g.addColorStop(1, `rgb(${p2},${p2},${p2})`);
  ctx.fillStyle = g;
  ctx.fillRect(0, 0, w, h);
  if (rnd() < 0.6) {
    // faint guilloche-like curves
    const n = 3 + Math.floor(rnd() * 10);
    for (let i = 0; i < n; i++) {
      const c = Math.max(0, paper - uni(10, 60));
      ctx.strokeStyle = `rgb(${c},${c},${c})`;
      ctx.lineWidth = uni(0.3, 1.5);
      ctx.beginPath();
      const a = uni(5, 40);
      const f = uni(0.005, 0.05);
      const y0 = uni(0, h);
      const ph = uni(0, 6);
      for (let x = 0; x <= w; x += 3) ctx.lineTo(x, y0 + a * Math.sin(x * f + ph));
      ctx.stroke();
    }
  }
}

function blur(img: Grey, sigma: number): void {
  if (sigma < 0.3) return;
  const r = Math.ceil(sigma * 2.5);
  const k: number[] = [];
  let z = 0;
  for (let i = -r; i <= r; i++) {
    const v = Math.exp((-i * i) / (2 * sigma * sigma));
    k.push(v);
    z += v;
  }
  for (let i = 0; i < k.length; i++) k[i] /= z;
  const { w, h, d } = img;
  const t = new Float32Array(d.length);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let i = -r; i <= r; i++) s += k[i + r] * d[y * w + Math.min(w - 1, Math.max(0, x + i))];
      t[y * w + x] = s;
    }
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let i = -r; i <= r; i++) s += k[i + r] * t[Math.min(h - 1, Math.max(0, y + i)) * w + x];
      d[y * w + x] = s;
    }
}

async function syntheticImage(): Promise<Sample[]> {
  const face = pickFace();
  const cap = Math.exp(uni(Math.log(4.5), Math.log(40)));
  const probe = createCanvas(10, 10).getContext('2d');
  probe.font = `100px ${face.family}`;
  const capPer100 = probe.measureText('H').actualBoundingBoxAscent;
  const fontPx = (cap / capPer100) * 100;
  probe.font = `${fontPx}px ${face.family}`;
  const adv = probe.measureText('<').width;
  const n = pick([30, 36, 44]);
  const spacing = cap * uni(1.45, 2.1);
  const margin = Math.ceil(cap * 2.5);
  const w = Math.ceil(n * adv + 2 * margin);
  const h = Math.ceil(3 * spacing + 2 * margin);
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  const paper = Math.round(uni(150, 255));
  drawBackground(ctx, w, h, paper);
  const angle = uni(-2, 2) * (Math.PI / 180);
  const ink = Math.round(Math.max(0, Math.min(paper - 60, uni(0, 100))));
  ctx.translate(w / 2, h / 2);
  ctx.rotate(angle);
  ctx.translate(-w / 2, -h / 2);
  ctx.font = `${fontPx}px ${face.family}`;
  ctx.fillStyle = `rgb(${ink},${ink},${ink})`;
  ctx.strokeStyle = ctx.fillStyle;
  const bold = rnd() < 0.3 ? uni(0.02, 0.09) * fontPx : 0;
  const lines: string[] = [];
  const baselines: number[] = [];
  const x0 = margin;
  for (let l = 0; l < 3; l++) {
    const text = randomLine(n);
    lines.push(text);
    const base = margin + cap + l * spacing;
    baselines.push(base);
    for (let k = 0; k < n; k++) {
      // draw per character on the grid (monospace faces agree, this keeps the pitch exact)
      const cw = probe.measureText(text[k]).width;
      const x = x0 + k * adv + (adv - cw) / 2;
      ctx.fillText(text[k], x, base);
      if (bold) {
        ctx.lineWidth = bold;
        ctx.strokeText(text[k], x, base);
      }
    }
  }
  const rgba = ctx.getImageData(0, 0, w, h).data;
  const img: Grey = { w, h, d: new Float32Array(w * h) };
  for (let i = 0; i < w * h; i++) img.d[i] = 0.299 * rgba[i * 4] + 0.587 * rgba[i * 4 + 1] + 0.114 * rgba[i * 4 + 2];
  blur(img, rnd() < 0.7 ? uni(0, 0.22) * cap : 0);
  const noise = rnd() < 0.7 ? uni(0, 14) : 0;
  if (noise) for (let i = 0; i < img.d.length; i++) img.d[i] = Math.max(0, Math.min(255, img.d[i] + noise * gauss()));
  if (rnd() < 0.6) {
    const raw = Buffer.alloc(w * h);
    for (let i = 0; i < raw.length; i++) raw[i] = Math.max(0, Math.min(255, Math.round(img.d[i])));
    const jpg = await sharp(raw, { raw: { width: w, height: h, channels: 1 } }).jpeg({ quality: Math.round(uni(15, 90)) }).toBuffer();
    const back = await sharp(jpg).greyscale().raw().toBuffer();
    for (let i = 0; i < img.d.length; i++) img.d[i] = back[i];
  }
  // Cells with the reader's own sampler, on the known geometry plus grid-fit-like jitter.
  const out: Sample[] = [];
  const ux = Math.cos(angle);
  const uy = Math.sin(angle);
  const rot = (x: number, y: number) => {
    const dx = x - w / 2;
    const dy = y - h / 2;
    return [w / 2 + dx * ux - dy * uy, h / 2 + dx * uy + dy * ux];
  };
  for (let l = 0; l < 3; l++) {
    const pitch = adv * (1 + 0.006 * gauss());
    const capJ = cap * (1 + 0.08 * gauss());
    const cy = baselines[l] - cap / 2 + 0.07 * cap * gauss();
    const sx = x0 + 0.1 * adv * gauss();
    const [ox, oy] = rot(sx, cy);
    const a2 = angle + 0.004 * gauss();
    const g: LineGeom = { ox, oy, ux: Math.cos(a2), uy: Math.sin(a2), vx: -Math.sin(a2), vy: Math.cos(a2), pitch, cap: capJ, n };
    const feats = lineFeatures(img, g);
    for (let k = 0; k < n; k++) out.push({ x: feats[k], y: ALPHABET.indexOf(lines[l][k]) });
  }
  return out;
}

// ---------------------------------------------------------------- training (Adam, softmax cross-entropy)
function train(data: Sample[], valid: Sample[]): Mlp {
  const nin = NFEAT;
  const nh = HIDDEN;
  const nout = ALPHABET.length;
  const m: Mlp = { nin, nh, nout, w1: new Float32Array(nh * nin), b1: new Float32Array(nh), w2: new Float32Array(nout * nh), b2: new Float32Array(nout) };
  const s1 = Math.sqrt(2 / nin);
  const s2 = Math.sqrt(2 / nh);
  for (let i = 0; i < m.w1.length; i++) m.w1[i] = gauss() * s1;
  for (let i = 0; i < m.w2.length; i++) m.w2[i] = gauss() * s2;
  const params = [m.w1, m.b1, m.w2, m.b2];
  const grads = params.map((p) => new Float32Array(p.length));
  const mom = params.map((p) => new Float32Array(p.length));
  const vel = params.map((p) => new Float32Array(p.length));
  const B = 64;
  const b1 = 0.9;
  const b2 = 0.999;
  let step = 0;
  const hidden = new Float32Array(nh);
  const dh = new Float32Array(nh);
  const order = data.map((_, i) => i);
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    const lr = 0.002 * Math.pow(0.7, epoch);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    let loss = 0;
    for (let b0 = 0; b0 < order.length; b0 += B) {
      for (const g of grads) g.fill(0);
      const end = Math.min(order.length, b0 + B);
      for (let t = b0; t < end; t++) {
        const { x, y } = data[order[t]];
        const p = classify(m, x, hidden);
        loss -= Math.log(p[y] + 1e-9);
        p[y] -= 1;
        dh.fill(0);
        for (let c = 0; c < nout; c++) {
          const e = p[c];
          grads[3][c] += e;
          const o = c * nh;
          for (let hh = 0; hh < nh; hh++) {
            grads[2][o + hh] += e * hidden[hh];
            dh[hh] += e * m.w2[o + hh];
          }
        }
        for (let hh = 0; hh < nh; hh++) {
          if (hidden[hh] <= 0) continue;
          const e = dh[hh];
          grads[1][hh] += e;
          const o = hh * nin;
          const g1 = grads[0];
          for (let i = 0; i < nin; i++) g1[o + i] += e * x[i];
        }
      }
      step++;
      const n = end - b0;
      const c1 = 1 - Math.pow(b1, step);
      const c2 = 1 - Math.pow(b2, step);
      for (let q = 0; q < params.length; q++) {
        const P = params[q];
        const G = grads[q];
        const M = mom[q];
        const V = vel[q];
        for (let i = 0; i < P.length; i++) {
          const g = G[i] / n + (q === 0 || q === 2 ? 1e-5 * P[i] : 0);
          M[i] = b1 * M[i] + (1 - b1) * g;
          V[i] = b2 * V[i] + (1 - b2) * g * g;
          P[i] -= (lr * (M[i] / c1)) / (Math.sqrt(V[i] / c2) + 1e-8);
        }
      }
    }
    let ok = 0;
    for (const s of valid) {
      const p = classify(m, s.x, hidden);
      let best = 0;
      for (let c = 1; c < nout; c++) if (p[c] > p[best]) best = c;
      if (best === s.y) ok++;
    }
    console.error(`epoch ${epoch + 1}/${EPOCHS}: loss ${(loss / order.length).toFixed(4)}, held-out synthetic accuracy ${((100 * ok) / valid.length).toFixed(2)} %`);
  }
  return m;
}

const t0 = Date.now();
const all: Sample[] = [];
for (let i = 0; i < IMAGES; i++) {
  all.push(...(await syntheticImage()));
  if ((i + 1) % 200 === 0) console.error(`rendered ${i + 1}/${IMAGES} images, ${all.length} cells, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
const nValid = Math.floor(all.length * 0.05);
const valid = all.slice(0, nValid);
const data = all.slice(nValid);
const m = train(data, valid);
let ok = 0;
const hidden = new Float32Array(m.nh);
for (const s of valid) {
  const p = classify(m, s.x, hidden);
  let best = 0;
  for (let c = 1; c < m.nout; c++) if (p[c] > p[best]) best = c;
  if (best === s.y) ok++;
}
const file: ModelFile = {
  format: 'cotejo-mrz-mlp',
  version: 1,
  alphabet: ALPHABET,
  fw: FW,
  fh: FH,
  nin: m.nin,
  nh: m.nh,
  nout: m.nout,
  w1: b64(m.w1),
  b1: b64(m.b1),
  w2: b64(m.w2),
  b2: b64(m.b2),
  trained: {
    script: 'scripts/mrz-model/train.ts',
    args: { images: IMAGES, epochs: EPOCHS, hidden: HIDDEN, seed: SEED },
    fonts: FACES.map((f) => `${f.family} ${f.file} (weight ${f.weight})`),
    cells: data.length,
    heldOutSyntheticAccuracy: Number((ok / valid.length).toFixed(4)),
    seconds: Math.round((Date.now() - t0) / 1000),
  },
};
writeFileSync(OUT, JSON.stringify(file) + '\n');
console.error(`wrote ${OUT} (${(JSON.stringify(file).length / 1024).toFixed(0)} KiB) in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
