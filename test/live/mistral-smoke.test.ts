/**
 * Smoke test against Mistral's real API. It runs only when MISTRAL_API_KEY is in the environment (never in CI, which
 * has no key and no route to Mistral); docs/live-mode.md says how an operator runs it:
 *
 *   MISTRAL_API_KEY=... npx vitest run test/live/mistral-smoke.test.ts
 *
 * It reads the ICAO specimen passport in both modes through the real app (embedded database) with the configuration the
 * environment gives (models, base URL, time-outs), and checks what must hold whatever the model: a completed
 * analysis, Mistral listed in `processing`, the zone's values kept, and the printed face read and compared with them.
 * Each run costs a few Mistral calls (about a cent).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config.ts';
import { addCredits, type CreatedAccount } from '../../server/src/domain/accounts.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { form } from '../support/files.ts';

const PASSPORT = fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/testdata/documents/id-images/PassportEye/tests-data/passport-td3.jpg'));
const enabled = Boolean(process.env.MISTRAL_API_KEY);

describe.skipIf(!enabled)('Mistral, the real API (MISTRAL_API_KEY set)', () => {
  let app: TestApp;
  let acc: CreatedAccount;
  beforeAll(async () => {
    app = await startTestApp('pglite', { config: { mistral: loadConfig(process.env).mistral, liveReaders: new Set(['mrz', 'pdf417', 'text'] as const) } });
    acc = await app.newAccount({ rateLimitPerSecond: 100 });
    await addCredits(app.services.db, app.clock, acc.account, 10);
  }, 60_000);
  afterAll(() => app?.close());

  for (const precise of [false, true]) {
    it(`reads the specimen passport in ${precise ? 'ocr+llm' : 'vlm'} mode`, async () => {
      const res = await app.request('POST', '/v1/analyze', {
        key: acc.keys.live,
        body: form({ bytes: PASSPORT, name: 'passport.jpg' }, [['options', JSON.stringify({ expect: 'passport', precise_bboxes: precise, checks: { reference_date: '2010-01-01' } })]]),
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 800)).toBe(200);
      const a = res.body;
      expect(a.status, JSON.stringify(a.error)).toBe('completed');
      expect(a.processing.mode).toBe(precise ? 'ocr+llm' : 'vlm');
      expect(a.processing.providers.map((p: { name: string }) => p.name)).toContain('mistral');
      expect(a.document.type).toBe('passport');
      expect(a.fields.last_name.value).toBe('ERIKSSON');
      expect(a.checks.map((c: { code: string }) => c.code)).toContain('mrz_matches_visual');
      console.log(`mistral smoke (${a.processing.mode}):`, JSON.stringify({ verdict: a.verdict.status, checks: a.checks.map((c: { code: string; passed: boolean }) => `${c.code}:${c.passed}`), birth_place: a.fields.birth_place }));
    }, 120_000);
  }
});
