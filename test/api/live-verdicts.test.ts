/**
 * What a live verdict may conclude from the local readers' reading (#27), through HTTP on real images:
 * - a check digit misread with low confidence (a hand-held UK specimen passport, a thumb over the last character of
 *   the zone) is not evidence of forgery: `review`, with a `low_confidence` reason naming the characters, no error,
 *   and no failed check;
 * - a check digit read with confidence that disagrees (the ICAO specimen passport with one digit of its document
 *   number replaced by a glyph cut from the same zone, made at test time by bench/lib/forge-mrz.ts) is: `invalid`,
 *   and the reason names the field, the printed and the computed digit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgedPassportFixture } from '../../bench/lib/forge-mrz.ts';
import type { CreatedAccount } from '../../server/src/domain/accounts.ts';
import { newLiveAccount } from '../support/live-account.ts';
import { DATABASES, startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';

const DEV = path.resolve(import.meta.dirname, '../../../shared/testdata/documents-dev');
// Tune split: "hand-held photo of an open passport, slight perspective, thumb partly covering the last MRZ character".
const THUMB = 'mrz/zerox__0040.png';

interface Reason { code: string; severity: string; message: string }

let forged: Buffer;
beforeAll(async () => {
  forged = (await forgedPassportFixture()).bytes;
}, 60_000);

describe.each(DATABASES)('live verdicts on real images on %s', (kind) => {
  let app: TestApp;
  let acc: CreatedAccount;

  beforeAll(async () => {
    app = await startTestApp(kind);
    acc = await newLiveAccount(app, 10);
  }, 60_000);
  afterAll(() => app?.close());

  const analyze = async (bytes: Buffer, name: string, options: Record<string, unknown>) => {
    const res = await app.request('POST', '/v1/analyze', { key: acc.keys.live, body: form({ bytes, name }, [['options', JSON.stringify(options)]]) });
    expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
    expect(res.body.status).toBe('completed');
    return res.body;
  };

  it('a check digit misread with low confidence: review with low_confidence, no error, no failed check', async () => {
    const a = await analyze(fs.readFileSync(path.join(DEV, THUMB)), 'passport.png', { expect: ['passport', 'gb_passport'], checks: { not_expired: false }, language: 'en' });
    expect(a.document.type).toMatch(/passport/);
    const reasons = a.verdict.reasons as Reason[];
    expect(reasons.filter((r) => r.severity === 'error'), JSON.stringify(reasons)).toEqual([]);
    expect(a.verdict.status).toBe('review');
    const unsure = reasons.find((r) => r.code === 'low_confidence' && r.message.startsWith('Could not check the MRZ check digits'));
    expect(unsure, JSON.stringify(reasons)).toBeTruthy();
    expect(unsure!.severity).toBe('warning');
    expect((a.checks as Array<{ code: string; passed: boolean }>).filter((c) => !c.passed)).toEqual([]);
    // It names the characters and how sure they were.
    expect(unsure!.message).toMatch(/the characters "[0-9A-Z<]+" \(the MRZ\) were read with low confidence \(0\.[0-7]\d\)/);
    expect(a.fields.mrz.validated).toBeNull();
  });

  it('a check digit read with confidence that disagrees: invalid, the reason names the field and both digits', async () => {
    const a = await analyze(forged, 'passport.png', { expect: 'passport', checks: { not_expired: false }, language: 'en' });
    expect(a.document.type).toBe('passport');
    expect(a.fields.mrz.value.split('\n')[1].slice(0, 9)).not.toBe('L898902C3');
    expect(a.verdict.status).toBe('invalid');
    const check = (a.checks as Array<{ code: string; passed: boolean; message: string }>).find((c) => c.code === 'mrz_checksums')!;
    expect(check.passed).toBe(false);
    expect(check.message).toMatch(/^An MRZ check digit is wrong: document number "L898902C\d": printed \d, computed \d;/);
    expect(a.verdict.reasons).toContainEqual({ code: 'mrz_checksums', severity: 'error', message: check.message });
    expect(a.fields.mrz.validated).toBe(false);
  });
});
