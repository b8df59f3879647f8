/**
 * A reading with both a zone and a printed face (a PDF of two scanned pages, made at test time): the zone's values
 * are kept, and the printed face's values of the same fields become their visual reading (`ReadField.visual`), what
 * `mrz_matches_visual` compares. Here the face is another person's (the French CNI specimen beside the ICAO
 * specimen passport), so every compared field disagrees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../server/src/logger.ts';
import { createLocalProvider } from '../../../server/src/providers/local/index.ts';
import { terminateOcr } from '../../../server/src/providers/local/ocr.ts';

const SHARED = path.resolve(import.meta.dirname, '../../../../shared/testdata');
const CNI_FRONT = path.join(SHARED, 'documents-dev/id-fronts/kby-ai__3.jpg');
const PASSPORT = path.join(SHARED, 'documents/id-images/PassportEye/tests-data/passport-td3.jpg');

async function twoPages(first: string, second: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const f of [first, second]) {
    const img = await doc.embedJpg(fs.readFileSync(f));
    doc.addPage([img.width, img.height]).drawImage(img, { x: 0, y: 0, width: img.width, height: img.height });
  }
  return doc.save();
}

afterAll(() => terminateOcr());

describe('the printed face beside a zone', () => {
  it('is the visual reading of the fields the zone carries; the zone values are never overwritten', async () => {
    const provider = createLocalProvider({ readers: new Set(['mrz', 'pdf417', 'text', 'ocr']), ocrLanguages: ['eng', 'spa', 'fra', 'por'], concurrency: 1, logger: createLogger('silent') })!;
    const r = await provider.read({
      bytes: await twoPages(CNI_FRONT, PASSPORT), filename: 'both.pdf', mime: 'application/pdf', pages: 2, kind: 'analysis', expect: null,
      extract: true, language: 'en', holder: null, referenceDate: '2010-01-01', precise_bboxes: false,
    });
    expect(r.document).toMatchObject({ type: 'passport', basis: 'zone' });
    expect(r.fields.document_number).toMatchObject({ value: 'L898902C3', origin: 'mrz', visual: { value: 'D2H6862M2' } });
    expect(r.fields.birth_date).toMatchObject({ value: '1974-08-12', origin: 'mrz', visual: { value: '1990-07-13' } });
    expect(r.fields.first_name.value).toBe('ANNA MARIA');
    for (const f of Object.values(r.fields)) if (f.visual) expect(f.visual.confidence).toBeLessThan(1);
  }, 120_000);
});
