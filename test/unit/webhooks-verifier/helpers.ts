/** Shared helpers of the @cotejo/webhooks tests. Vectors are read at test time from ../shared/testdata (never copied). */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { WebhookVerificationError, type WebhookVerificationReason } from '../../../webhooks-verifier/src/index.ts';

export const VECTORS_FILE = path.resolve(import.meta.dirname, '../../../../shared/testdata/webhooks/standard-webhooks-vectors.json');

export interface KnownAnswer {
  secret: string;
  msg_id: string;
  timestamp: number;
  payload: string;
  expected_signature: string;
}

export interface VerifyCase {
  name: string;
  secret: string;
  now: number;
  body: string;
  headers: Record<string, string>;
  /** null: the reference libraries disagree (svix-branded headers); we decide. */
  expected_valid: boolean | null;
  expected_error?: string;
}

export function readVectors(): { known_answer: KnownAnswer[]; verify_cases: VerifyCase[] } {
  return JSON.parse(fs.readFileSync(VECTORS_FILE, 'utf8'));
}

/** A random `whsec_` secret (24 bytes, like the dashboard's). */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return 'whsec_' + Buffer.from(bytes).toString('base64');
}

export async function expectRejected(promise: Promise<unknown>, reason: WebhookVerificationReason): Promise<void> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a WebhookVerificationError with reason ${reason}, but verify accepted`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  expect((error as WebhookVerificationError).reason).toBe(reason);
}
