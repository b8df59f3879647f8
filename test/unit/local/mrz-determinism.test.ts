/**
 * The MRZ reader gives the same reading of the same pixels every time, however warm the engine is. On Node 24.21
 * (V8 13.6) an object literal returned by the grid fit was, once optimised, sometimes overwritten by the next
 * call's values, so a passport that read perfectly on a cold process read as nothing a few documents later
 * (server/src/providers/local/mrz/lines.ts, FittedLine). This drives the reader through the same mix of images
 * many times in one process, so that its functions are optimised while it runs, and wants one answer each time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { prepareZXingModule as prepareWriter, writeBarcode } from 'zxing-wasm/writer';
import { readJson } from '../validators/testdata.ts';
import { decodeImage } from '../../../server/src/providers/local/image.ts';
import { readMrz } from '../../../server/src/providers/local/mrz/index.ts';
import { frenchZone, renderIdCard } from './support-mrz.ts';

const DOCS = path.resolve(import.meta.dirname, '../../../../shared/testdata/documents/id-images');
const LINES = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];

describe('the MRZ reader, warm', () => {
  it('reads the same passport identically, photo after photo, upright and turned, between other documents', async () => {
    const upright = new Uint8Array(fs.readFileSync(path.join(DOCS, 'PassportEye/tests-data/passport-td3.jpg')));
    const turned = new Uint8Array(await sharp(upright).rotate(90).jpeg({ quality: 92 }).toBuffer());
    // The back of a US licence: a barcode and no zone, but rows of marks the reader must look at and turn down.
    const wasm = fs.readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/writer/zxing_writer.wasm'));
    await prepareWriter({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer }, fireImmediately: true });
    const sample = readJson<Array<{ id: string; raw: string }>>('aamva/aamva-standard-samples.json').find((s) => s.id === 'aamva-v10-sample')!.raw;
    const png = Buffer.from(await (await writeBarcode(sample, { format: 'PDF417', scale: 3 })).image!.arrayBuffer());
    const meta = await sharp(png).metadata();
    const card = await sharp({ create: { width: meta.width! + 300, height: meta.height! + 240, channels: 3, background: { r: 205, g: 200, b: 190 } } })
      .composite([{ input: png, left: 150, top: 120 }])
      .jpeg({ quality: 88 })
      .toBuffer();
    const pages = await Promise.all([turned, new Uint8Array(card), upright].map((b) => decodeImage(b, 'image/jpeg')));
    const misses: string[] = [];
    for (let round = 0; round < 12; round++) {
      for (const [i, page] of pages.entries()) {
        const r = await readMrz(page);
        if (i === 1) {
          if (r !== null) misses.push(`round ${round}: a zone on the licence's back`);
        } else if (JSON.stringify(r?.lines) !== JSON.stringify(LINES)) {
          misses.push(`round ${round}, ${i === 0 ? 'turned' : 'upright'}: ${r?.lines.join('|') ?? 'nothing'}`);
        }
      }
    }
    expect(misses).toEqual([]);
  }, 120_000);

  it('reads the French 1988 card of the HTTP test identically, warm, between a passport and its forged twin', async () => {
    // test/api/live-mode-french-id.test.ts once read this card as nothing on its second database pass (a warm reader);
    // here the same photo and its forged twin are read again and again between other zones, as a busy server would
    const zone = frenchZone({ surname: 'MARTIN', given: 'SOPHIE ANNE', issue: '0511', dept: '692', seq: '00318', birth: '830417', sex: 'F', admin: '690032' });
    const forged = [zone[0], zone[1].slice(0, 27) + '830418' + zone[1].slice(33)];
    const printed = ['Nom: MARTIN', 'Prénom(s): SOPHIE, ANNE', 'Sexe: F   Né(e) le: 17.04.1983'];
    const photos = await Promise.all([zone, forged].map((lines) => renderIdCard({ lines, printed, margin: 0.2, angle: 4, jpegQuality: 80 })));
    const passport = new Uint8Array(fs.readFileSync(path.join(DOCS, 'PassportEye/tests-data/passport-td3.jpg')));
    const pages = await Promise.all([new Uint8Array(photos[0]), passport, new Uint8Array(photos[1])].map((b) => decodeImage(b, 'image/jpeg')));
    const want = [zone, LINES, forged];
    const misses: string[] = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, page] of pages.entries()) {
        const r = await readMrz(page);
        if (JSON.stringify(r?.lines) !== JSON.stringify(want[i])) misses.push(`round ${round}, image ${i}: ${r?.lines.join('|') ?? 'nothing'}`);
      }
    }
    expect(misses).toEqual([]);
  }, 120_000);
});
