import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it, vi } from 'vitest';
import { newWebhookSecret } from '../../../server/src/domain/webhook-endpoints.ts';
import { secretKey, sign, webhookHeaders } from '../../../server/src/webhooks/signature.ts';

describe('webhook signature (Standard Webhooks)', () => {
  it('matches the Standard Webhooks reference vector', () => {
    // From the standard-webhooks reference libraries' tests.
    const sig = sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('keys with the base64-decoded bytes after whsec_', () => {
    const secret = newWebhookSecret();
    expect(secretKey(secret)).toEqual(Buffer.from(secret.slice('whsec_'.length), 'base64'));
    expect(secretKey(secret)).toHaveLength(24);
  });

  it('produces headers both reference verifiers accept, and reject once anything changes', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'analysis.completed', created_at: '2026-01-15T10:00:00.000Z', data: { id: 'an_1', name: 'Añá €' } });
    const headers = webhookHeaders(secret, 'msg_01TEST', new Date(), body);
    expect(headers).toMatchObject({ 'webhook-id': 'msg_01TEST', 'content-type': 'application/json', 'user-agent': 'Cotejo-Webhooks/1.0' });
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new StandardWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new SvixWebhook(secret).verify(body, headers)).not.toThrow();
    expect(() => new StandardWebhook(secret).verify(body.replace('an_1', 'an_2'), headers)).toThrow();
    expect(() => new StandardWebhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new SvixWebhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow();
  });

  it('signs with the send time: a timestamp outside the verifiers\' 300 s tolerance is refused', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders(secret, 'msg_01OLD', new Date(Date.now() - 301_000), '{}');
    expect(() => new StandardWebhook(secret).verify('{}', headers)).toThrow(/too old/);
    vi.useFakeTimers({ toFake: ['Date'], now: Number(headers['webhook-timestamp']) * 1000 });
    try {
      expect(() => new StandardWebhook(secret).verify('{}', headers)).not.toThrow();
    } finally {
      vi.useRealTimers();
    }
  });
});
