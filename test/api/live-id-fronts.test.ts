/**
 * Live mode reads the printed face of an ID card without a zone or barcode (issue #28), through HTTP on both
 * databases: a Tennessee driver licence from the tune split of ../shared/testdata/documents-dev/id-fronts/ is the
 * US driver's licence it was expected to be, of the state of Tennessee, with its number and birth date read from
 * the printed face (month first), each with its box and confidence.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../server/src/domain/accounts.ts';
import { newLiveAccount } from '../support/live-account.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';

const LICENCE = path.resolve(import.meta.dirname, '../../../shared/testdata/documents-dev/id-fronts/zerox__0023.png');
describe.each(DATABASES)('the printed face of an ID card on %s', (kind) => {
  let app: TestApp;
  let acc: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp(kind);
    acc = await newLiveAccount(app, 5);
  }, 60_000);
  afterAll(() => app?.close());

  it('a US licence front: its type and state, its number and birth date with boxes, no barcode check', async () => {
    const res = await app.request('POST', '/v1/analyze', {
      key: acc.keys.live,
      body: form({ bytes: fs.readFileSync(LICENCE), name: 'licence.png' }, [['options', JSON.stringify({ expect: 'us_drivers_license' })]]),
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const a = res.body;
    expect(a).toMatchObject({ status: 'completed', livemode: true, document: { type: 'us_drivers_license', country: 'USA', side: 'front' } });
    expect(a.document.confidence).toBeGreaterThanOrEqual(0.7);
    expect(a.fields.document_number).toMatchObject({ value: '123456789' });
    expect(a.fields.birth_date).toMatchObject({ value: '1974-02-11' });
    expect(a.fields.region.value).toBe('TN');
    for (const name of ['document_number', 'birth_date', 'region']) {
      const f = a.fields[name];
      expect(f.confidence).toBeGreaterThan(0);
      expect(f.confidence).toBeLessThan(1);
      expect(f.source.page).toBe(1);
      const [x0, y0, x1, y1] = f.source.bbox;
      expect(x1).toBeGreaterThan(x0);
      expect(y1).toBeGreaterThan(y0);
    }
    // The type read is the one expected; nothing compares a barcode the front does not carry.
    const codes = a.checks.map((c: { code: string }) => c.code);
    expect(codes).not.toContain('aamva_matches_visual');
    expect(JSON.stringify(a.verdict.reasons ?? [])).not.toContain('type_mismatch');
    expect(a.processing.providers.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['local-ocr', 'local-rules']));
    // Read by both OCR engines (tesseract and PP-OCR), combined: the number both read alike is sure.
    expect(a.processing.providers.filter((p: { name: string }) => p.name === 'local-ocr')).toHaveLength(2);
    expect(a.fields.document_number.confidence).toBeGreaterThanOrEqual(0.8);
  }, 60_000);

});
