// verify / sign behaviour: one test per failure, each breaking exactly one thing of an otherwise valid delivery,
// plus rotation, header shapes, body shapes and the tolerance option.
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  sign,
  verify,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookHeaders,
} from '../../../webhooks-verifier/src/index.ts';
import { expectRejected } from './helpers.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const NOW = 1_741_947_671; // 2025-03-14T10:21:11Z
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const EVENT = {
  type: 'credits.low',
  created_at: '2025-03-14T10:21:11Z',
  data: { object: 'balance', credits_available: 4.5, free_tier_remaining: 0, credits_spendable: 4.5, threshold: 5 },
} as const;
/** Pretty-printed on purpose: the signature covers these exact bytes, not a re-serialisation. */
const BODY = JSON.stringify(EVENT, null, 2);

async function delivery(overrides: { secret?: string; id?: string; timestamp?: number; body?: string | Uint8Array } = {}) {
  const id = overrides.id ?? ID;
  const timestamp = overrides.timestamp ?? NOW;
  const body = overrides.body ?? BODY;
  const signature = await sign(overrides.secret ?? SECRET, { id, timestamp, body });
  return {
    headers: { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature } as Record<string, string>,
    body,
  };
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...headers };
  delete copy[name];
  return copy;
}

describe('verify: the valid delivery every failure test starts from', () => {
  it('returns the parsed, typed event', async () => {
    const { headers, body } = await delivery();
    const event: WebhookEvent = await verify(SECRET, headers, body, { now: NOW });
    expect(event).toEqual(EVENT);
    // The union narrows on `type` (compile-time check; runs as plain assertions).
    if (event.type === 'credits.low') {
      const low: WebhookEventOf<'credits.low'> = event;
      expect(low.data.threshold).toBe(5);
    } else {
      expect.unreachable();
    }
  });

  it('sign returns v1,<base64 of 32 bytes>', async () => {
    const { headers } = await delivery();
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('uses the real clock when `now` is not given, and accepts `now` as a Date', async () => {
    const current = Math.floor(Date.now() / 1000);
    const fresh = await delivery({ timestamp: current });
    await expect(verify(SECRET, fresh.headers, fresh.body)).resolves.toEqual(EVENT);
    const old = await delivery();
    await expectRejected(verify(SECRET, old.headers, old.body), 'timestamp_too_old');
    await expect(verify(SECRET, old.headers, old.body, { now: new Date(NOW * 1000 + 999) })).resolves.toEqual(EVENT);
  });
});

describe('verify: one failure each', () => {
  it('missing webhook-id', async () => {
    const { headers, body } = await delivery();
    await expectRejected(verify(SECRET, without(headers, 'webhook-id'), body, { now: NOW }), 'missing_header');
  });

  it('missing webhook-timestamp', async () => {
    const { headers, body } = await delivery();
    await expectRejected(verify(SECRET, without(headers, 'webhook-timestamp'), body, { now: NOW }), 'missing_header');
  });

  it('missing webhook-signature', async () => {
    const { headers, body } = await delivery();
    await expectRejected(verify(SECRET, without(headers, 'webhook-signature'), body, { now: NOW }), 'missing_header');
  });

  it('an empty header counts as missing', async () => {
    const { headers, body } = await delivery();
    await expectRejected(verify(SECRET, { ...headers, 'webhook-id': '' }, body, { now: NOW }), 'missing_header');
  });

  it('the missing header is named in the message', async () => {
    const { headers, body } = await delivery();
    const error = await verify(SECRET, without(headers, 'webhook-timestamp'), body, { now: NOW }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('WebhookVerificationError');
    expect((error as Error).message).toContain('webhook-timestamp');
  });

  it('timestamp not a Unix time in seconds', async () => {
    const { headers, body } = await delivery();
    for (const bad of ['hello', '1741947671.0', '-1741947671', '1e9', ' 1741947671', '2025-03-14T10:21:11Z']) {
      await expectRejected(verify(SECRET, { ...headers, 'webhook-timestamp': bad }, body, { now: NOW }), 'invalid_timestamp');
    }
  });

  it('stale timestamp (signed correctly, 301 s old)', async () => {
    const { headers, body } = await delivery({ timestamp: NOW - 301 });
    await expectRejected(verify(SECRET, headers, body, { now: NOW }), 'timestamp_too_old');
  });

  it('future timestamp (signed correctly, 301 s ahead)', async () => {
    const { headers, body } = await delivery({ timestamp: NOW + 301 });
    await expectRejected(verify(SECRET, headers, body, { now: NOW }), 'timestamp_too_new');
  });

  it('wrong signature (one base64 character changed)', async () => {
    const { headers, body } = await delivery();
    const signature = headers['webhook-signature'];
    const last = signature.at(-2) === 'A' ? 'B' : 'A';
    const wrong = signature.slice(0, -2) + last + '=';
    await expectRejected(verify(SECRET, { ...headers, 'webhook-signature': wrong }, body, { now: NOW }), 'invalid_signature');
  });

  it('signature made with another secret', async () => {
    const { headers, body } = await delivery({ secret: OTHER_SECRET });
    await expectRejected(verify(SECRET, headers, body, { now: NOW }), 'invalid_signature');
  });

  it('body tampered by one byte', async () => {
    const bytes = new TextEncoder().encode(BODY);
    const { headers } = await delivery({ body: bytes });
    const tampered = bytes.slice();
    tampered[tampered.length - 3] ^= 0x01;
    await expectRejected(verify(SECRET, headers, tampered, { now: NOW }), 'invalid_signature');
    await expect(verify(SECRET, headers, bytes, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('the body is not re-serialised: the compact form of the same JSON does not verify', async () => {
    const { headers } = await delivery();
    await expectRejected(verify(SECRET, headers, JSON.stringify(EVENT), { now: NOW }), 'invalid_signature');
  });

  it('non-JSON body with a valid signature', async () => {
    const { headers, body } = await delivery({ body: 'not json {' });
    await expectRejected(verify(SECRET, headers, body, { now: NOW }), 'invalid_body');
  });

  it('JSON that is not an object, or not UTF-8, with a valid signature', async () => {
    for (const notAnEvent of ['[1,2]', 'null', '"credits.low"', '42']) {
      const { headers, body } = await delivery({ body: notAnEvent });
      await expectRejected(verify(SECRET, headers, body, { now: NOW }), 'invalid_body');
    }
    const latin1 = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xf1, 0x22, 0x7d]); // {"a":"ñ"} in Latin-1
    const { headers } = await delivery({ body: latin1 });
    await expectRejected(verify(SECRET, headers, latin1, { now: NOW }), 'invalid_body');
  });

  it('the body is parsed only after the signature: a bad signature on a non-JSON body is invalid_signature', async () => {
    const { headers } = await delivery();
    await expectRejected(verify(SECRET, headers, 'not json {', { now: NOW }), 'invalid_signature');
  });

  it('bad secret encoding', async () => {
    const { headers, body } = await delivery();
    for (const bad of ['whsec_not base64!', 'whsec_', '', 'sk_live_0123456789abcdef', 'whsec_MfKQ9r8G-KYqrTwj_UPD8', 'whsec_A', 'whsec_AAA=A']) {
      await expectRejected(verify(bad, headers, body, { now: NOW }), 'invalid_secret');
    }
    await expectRejected(verify(undefined as unknown as string, headers, body, { now: NOW }), 'invalid_secret');
  });
});

describe('verify: accepted variations', () => {
  it('secret rotation: several v1 entries, the second one matches', async () => {
    const { headers, body } = await delivery();
    const old = (await delivery({ secret: OTHER_SECRET })).headers['webhook-signature'];
    const rotated = { ...headers, 'webhook-signature': `${old} ${headers['webhook-signature']}` };
    await expect(verify(SECRET, rotated, body, { now: NOW })).resolves.toEqual(EVENT);
    await expect(verify(OTHER_SECRET, rotated, body, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('other signature versions are ignored, even with a matching value', async () => {
    const { headers, body } = await delivery();
    const value = headers['webhook-signature'].slice('v1,'.length);
    await expectRejected(verify(SECRET, { ...headers, 'webhook-signature': `v1a,${value} v2,${value}` }, body, { now: NOW }), 'invalid_signature');
    await expect(verify(SECRET, { ...headers, 'webhook-signature': `v1a,${value} v1,${value}` }, body, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('secret with or without the whsec_ prefix', async () => {
    const { headers, body } = await delivery();
    await expect(verify(SECRET.slice('whsec_'.length), headers, body, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('header names in any case', async () => {
    const { headers, body } = await delivery();
    const mixed = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
      'Webhook-Signature': headers['webhook-signature'],
    };
    await expect(verify(SECRET, mixed, body, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('a Headers instance', async () => {
    const { headers, body } = await delivery();
    const fetchHeaders = new Headers({ 'Content-Type': 'application/json', ...headers });
    await expect(verify(SECRET, fetchHeaders, body, { now: NOW })).resolves.toEqual(EVENT);
    await expectRejected(verify(SECRET, new Headers(without(headers, 'webhook-id')), body, { now: NOW }), 'missing_header');
  });

  it("Node's IncomingHttpHeaders, with an array value", async () => {
    const { headers, body } = await delivery();
    const old = (await delivery({ secret: OTHER_SECRET })).headers['webhook-signature'];
    const incoming: IncomingHttpHeaders = {
      'content-type': 'application/json',
      'webhook-id': headers['webhook-id'],
      'webhook-timestamp': headers['webhook-timestamp'],
      'webhook-signature': [old, headers['webhook-signature']] as unknown as string,
    };
    const shape: WebhookHeaders = incoming;
    await expect(verify(SECRET, shape, body, { now: NOW })).resolves.toEqual(EVENT);
  });

  it('Uint8Array, Buffer, ArrayBuffer and a view into a larger buffer', async () => {
    const { headers } = await delivery();
    const bytes = new TextEncoder().encode(BODY);
    const padded = new Uint8Array(bytes.length + 10);
    padded.set(bytes, 5);
    for (const body of [bytes, Buffer.from(BODY), bytes.buffer, padded.subarray(5, 5 + bytes.length)]) {
      await expect(verify(SECRET, headers, body, { now: NOW })).resolves.toEqual(EVENT);
    }
  });

  it('a multi-byte UTF-8 body, as a string or as bytes', async () => {
    const text = JSON.stringify({ type: 'test', created_at: '2025-03-14T10:21:11Z', data: { note: 'ñandú ✓ 😀' } });
    const { headers } = await delivery({ body: text });
    await expect(verify(SECRET, headers, text, { now: NOW })).resolves.toEqual(JSON.parse(text));
    await expect(verify(SECRET, headers, new TextEncoder().encode(text), { now: NOW })).resolves.toEqual(JSON.parse(text));
  });
});

describe('verify: tolerance', () => {
  it('300 s by default, inclusive, both ways', async () => {
    for (const timestamp of [NOW - 300, NOW + 300]) {
      const { headers, body } = await delivery({ timestamp });
      await expect(verify(SECRET, headers, body, { now: NOW })).resolves.toEqual(EVENT);
    }
  });

  it('the tolerance option narrows and widens the window', async () => {
    const past11 = await delivery({ timestamp: NOW - 11 });
    const past10 = await delivery({ timestamp: NOW - 10 });
    const ahead11 = await delivery({ timestamp: NOW + 11 });
    await expect(verify(SECRET, past10.headers, past10.body, { now: NOW, tolerance: 10 })).resolves.toEqual(EVENT);
    await expectRejected(verify(SECRET, past11.headers, past11.body, { now: NOW, tolerance: 10 }), 'timestamp_too_old');
    await expectRejected(verify(SECRET, ahead11.headers, ahead11.body, { now: NOW, tolerance: 10 }), 'timestamp_too_new');

    const past400 = await delivery({ timestamp: NOW - 400 });
    await expectRejected(verify(SECRET, past400.headers, past400.body, { now: NOW }), 'timestamp_too_old');
    await expect(verify(SECRET, past400.headers, past400.body, { now: NOW, tolerance: 600 })).resolves.toEqual(EVENT);

    const exact = await delivery();
    await expect(verify(SECRET, exact.headers, exact.body, { now: NOW, tolerance: 0 })).resolves.toEqual(EVENT);
  });
});

describe('programming errors are TypeErrors, not verification failures', () => {
  it('a body already parsed by a JSON middleware', async () => {
    const { headers } = await delivery();
    await expect(verify(SECRET, headers, EVENT as unknown as string, { now: NOW })).rejects.toThrow(TypeError);
  });

  it('invalid options', async () => {
    const { headers, body } = await delivery();
    await expect(verify(SECRET, headers, body, { tolerance: -1 })).rejects.toThrow(TypeError);
    await expect(verify(SECRET, headers, body, { tolerance: Number.NaN })).rejects.toThrow(TypeError);
    await expect(verify(SECRET, headers, body, { now: new Date('nope') })).rejects.toThrow(TypeError);
    await expect(verify(SECRET, headers, body, { now: NOW + 0.5 })).rejects.toThrow(TypeError);
    await expect(verify(SECRET, null as unknown as Headers, body)).rejects.toThrow(TypeError);
  });

  it('WebhookVerificationError is only for deliveries', () => {
    const error = new WebhookVerificationError('invalid_body', 'x');
    expect(error).toBeInstanceOf(Error);
    expect(error.reason).toBe('invalid_body');
  });
});
