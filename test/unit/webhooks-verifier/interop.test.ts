// Round trips with the reference implementations: the `standardwebhooks` npm library and `svix` (their Webhook
// classes). Our sign verifies with theirs; theirs verifies with ours. Both verify against the real clock.
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { sign, verify } from '../../../webhooks-verifier/src/index.ts';
import { randomSecret } from './helpers.ts';

const libraries = [
  { name: 'standardwebhooks', make: (secret: string) => new StandardWebhook(secret) },
  { name: 'svix', make: (secret: string) => new SvixWebhook(secret) },
];

const event = {
  type: 'analysis.completed',
  created_at: '2025-03-14T10:21:11Z',
  data: { id: 'an_01JPB4X9R2C8H5M7P3Q6S9T1VZ', object: 'analysis', note: 'ñandú ✓ 😀' },
};
// Not a canonical serialisation on purpose: spaces and key order must survive, bytes are what is signed.
const bodies = {
  compact: JSON.stringify(event),
  pretty: JSON.stringify(event, null, 2) + '\n',
};

describe.each(libraries)('interop with $name', ({ make }) => {
  for (const [kind, body] of Object.entries(bodies)) {
    it(`our sign verifies with theirs (${kind} body)`, async () => {
      const secret = randomSecret();
      const id = `msg_${crypto.randomUUID().replaceAll('-', '')}`;
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = await sign(secret, { id, timestamp, body });
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
      expect(() => make(secret).verify(body, headers)).not.toThrow();
      expect(() => make(secret).verify(body + ' ', headers), 'their verify is not vacuous').toThrow();
      // Their own signature for the same message is byte-identical.
      expect(make(secret).sign(id, new Date(timestamp * 1000), body)).toBe(signature);
    });

    it(`their sign verifies with ours (${kind} body, string and Buffer)`, async () => {
      const secret = randomSecret();
      const id = `msg_${crypto.randomUUID().replaceAll('-', '')}`;
      const now = new Date();
      const signature = make(secret).sign(id, now, body);
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      };
      await expect(verify(secret, headers, body)).resolves.toEqual(event);
      await expect(verify(secret, headers, Buffer.from(body, 'utf8'))).resolves.toEqual(event);
    });
  }

  it('their secret without the whsec_ prefix works with ours, and the other way round', async () => {
    const secret = randomSecret();
    const bare = secret.slice('whsec_'.length);
    const id = 'msg_rawsecret';
    const timestamp = Math.floor(Date.now() / 1000);
    const body = bodies.compact;
    const theirs = make(bare).sign(id, new Date(timestamp * 1000), body);
    expect(await sign(secret, { id, timestamp, body })).toBe(theirs);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': theirs };
    await expect(verify(bare, headers, body)).resolves.toEqual(event);
  });
});
