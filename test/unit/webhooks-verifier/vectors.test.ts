// Every Standard Webhooks vector of ../shared/testdata/webhooks (known answers and verify cases) against
// @cotejo/webhooks. The file is read at test time by path, never copied.
import { afterAll, describe, expect, it } from 'vitest';
import { sign, verify, WebhookVerificationError, type WebhookVerificationReason } from '../../../webhooks-verifier/src/index.ts';
import { readVectors, VECTORS_FILE } from './helpers.ts';

const vectors = readVectors();
let passed = 0;

/** The vectors' free-text `expected_error` to our reason code. */
function reasonFor(expectedError: string): WebhookVerificationReason {
  const table: Array<[RegExp, WebhookVerificationReason]> = [
    [/^missing required header/, 'missing_header'],
    [/^invalid timestamp/, 'invalid_timestamp'],
    [/^timestamp too old/, 'timestamp_too_old'],
    [/^timestamp too new/, 'timestamp_too_new'],
    [/^no matching signature/, 'invalid_signature'],
    [/^EmptyWebhookSecretError/, 'invalid_secret'],
  ];
  const hit = table.find(([re]) => re.test(expectedError));
  if (!hit) throw new Error(`unmapped expected_error: ${expectedError}`);
  return hit[1];
}

describe(`Standard Webhooks vectors (${VECTORS_FILE})`, () => {
  it('has vectors of both kinds', () => {
    expect(vectors.known_answer.length).toBeGreaterThan(0);
    expect(vectors.verify_cases.length).toBeGreaterThan(0);
  });

  describe('known answers: sign gives the published signature, verify accepts it', () => {
    for (const v of vectors.known_answer) {
      it(`${v.msg_id}`, async () => {
        expect(await sign(v.secret, { id: v.msg_id, timestamp: v.timestamp, body: v.payload })).toBe(v.expected_signature);
        const headers = { 'webhook-id': v.msg_id, 'webhook-timestamp': String(v.timestamp), 'webhook-signature': v.expected_signature };
        await expect(verify(v.secret, headers, v.payload, { now: v.timestamp })).resolves.toEqual(JSON.parse(v.payload));
        passed++;
      });
    }
  });

  describe('verify cases', () => {
    for (const c of vectors.verify_cases) {
      it(c.name, async () => {
        const result = verify(c.secret, c.headers, c.body, { now: c.now });
        if (c.expected_valid === true) {
          await expect(result).resolves.toEqual(JSON.parse(c.body));
        } else if (c.expected_valid === false) {
          const error = await result.then(() => null, (e: unknown) => e);
          expect(error, 'should be rejected').toBeInstanceOf(WebhookVerificationError);
          expect((error as WebhookVerificationError).reason).toBe(reasonFor(c.expected_error!));
        } else {
          // Undecided by the references (svix-* branded headers). Cotejo sends webhook-* only: we read only those.
          expect(Object.keys(c.headers).every((h) => h.startsWith('svix-')), 'only the svix-branded case is undecided').toBe(true);
          const error = await result.then(() => null, (e: unknown) => e);
          expect((error as WebhookVerificationError).reason).toBe('missing_header');
        }
        passed++;
      });
    }
  });

  afterAll(() => {
    const total = vectors.known_answer.length + vectors.verify_cases.length;
    console.log(
      `webhook vectors: ${passed}/${total} passed (${vectors.known_answer.length} known answers, ${vectors.verify_cases.length} verify cases)`,
    );
  });
});
