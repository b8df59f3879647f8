/**
 * A Mistral call past COTEJO_MISTRAL_TIMEOUT_MS ends, whatever the garbage collector does meanwhile.
 *
 * The SDK's own time-out is an `AbortSignal.timeout()` on the request it builds, and each try sends a clone of that
 * request. Node's fetch (undici) links a clone's signal to the original's through weak references, so once a garbage
 * collection runs during the call, the time-out can no longer reach the clone: the call waits for the server forever
 * (nodejs/undici#4068, nodejs/node#55428). CI met it as an analysis that completed on an answer held 30 s past its
 * time-out (stop 24). These tests force collections while a call waits on a server that never answers in time.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMistralClient, ProviderError } from '../../server/src/providers/mistral/client.ts';
import { type FakeMistral, startFakeMistral } from '../support/fake-mistral.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Runs `work` while collecting garbage every 20 ms. */
async function underGc<T>(work: Promise<T>): Promise<T> {
  const timer = setInterval(() => gc(), 20);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

const schema = { type: 'object', additionalProperties: false, required: ['ok'], properties: { ok: { type: 'boolean' } } };
const chat = { system: 'x', content: [{ type: 'text' as const, text: 'hello' }], schemaName: 'answer', schema };

describe('Mistral calls past their time-out', () => {
  let fake: FakeMistral;
  beforeAll(async () => {
    fake = await startFakeMistral();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    fake.faults.length = 0;
    fake.onChat = () => ({ ok: true });
  });

  const client = (retryMs: number) =>
    createMistralClient({ apiKey: fake.apiKey, baseUrl: fake.url, ocrModel: 'mistral-ocr-4-0', chatModel: 'mistral-small-2603', timeoutMs: 1_000, retryMs, concurrency: 2 });

  it('a call the server holds ends as a transient failure soon after the time-out, with collections running', async () => {
    for (let i = 0; i < 4; i++) fake.faults.push({ delayMs: 60_000 });
    const started = performance.now();
    const err = await underGc(client(0).chatJson(chat).then(() => null, (e: unknown) => e));
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe('transient');
    // One second allowed; a loaded machine may add a few more, never the minute the server holds the call.
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(15_000);
  }, 30_000);

  it('the time-out is per call: a held call is cut, the retry within the budget gets the answer', async () => {
    fake.faults.push({ delayMs: 60_000 });
    const from = fake.requests.length;
    const got = await underGc(client(20_000).chatJson(chat));
    expect(got.answer).toEqual({ ok: true });
    expect(fake.requests.length - from).toBe(2);
  }, 30_000);

  it('OCR calls are bounded the same way', async () => {
    fake.faults.push({ delayMs: 60_000 });
    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const err = await underGc(client(0).ocr({ kind: 'image', dataUri: png }).then(() => null, (e: unknown) => e));
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe('transient');
  }, 30_000);
});
