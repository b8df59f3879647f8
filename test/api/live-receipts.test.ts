/**
 * Live mode reads a till receipt photo through HTTP, on both databases: a scanned Malaysian receipt from the `tune`
 * split of documents-dev (SROIE) is a receipt type (not an invoice), with its grand total (after rounding, proven
 * by cash - change) and its date as ground-truth.json gives them, read by the local readers only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../server/src/domain/accounts.ts';
import { newLiveAccount } from '../support/live-account.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';

const DEV = path.resolve(import.meta.dirname, '../../../shared/testdata/documents-dev');
const RECEIPT = 'receipts/SROIE__001.jpg';
const truth = (JSON.parse(fs.readFileSync(path.join(DEV, 'ground-truth.json'), 'utf8')) as Array<{ path: string; split: string; expected: Record<string, string> }>).find(
  (t) => t.path === RECEIPT,
)!;

describe.each(DATABASES)('live mode reads a till receipt photo on %s', (kind) => {
  let app: TestApp;
  let acc: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp(kind);
    acc = await newLiveAccount(app, 5);
  }, 60_000);
  afterAll(() => app?.close());

  it('a receipt type with its total and date, from the local readers', async () => {
    expect(truth.split).toBe('tune');
    const res = await app.request('POST', '/v1/analyze', {
      key: acc.keys.live,
      body: form({ bytes: fs.readFileSync(path.join(DEV, RECEIPT)), name: path.basename(RECEIPT) }, [['options', JSON.stringify({})]]),
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    const a = res.body;
    expect(a.status).toBe('completed');
    expect(['payment_receipt', 'es_simplified_invoice']).toContain(a.document.type);
    expect(a.document.confidence).toBeGreaterThanOrEqual(0.5);
    expect(a.fields.amount.value).toBeCloseTo(Number(truth.expected.total), 2);
    expect(a.fields.amount.source.bbox).toHaveLength(4);
    expect(a.fields.payment_date.value).toBe(truth.expected.date);
    expect(a.warnings).not.toContain('multiple_documents');
    for (const p of a.processing.providers) expect(p).toMatchObject({ region: 'local', role: 'local' });
    expect(a.processing.providers.map((p: { name: string }) => p.name)).toContain('local-ocr');
  }, 60_000);
});
