/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>` with the base64-decoded secret after `whsec_`,
 * sent as `v1,<base64>`.
 */
import crypto from 'node:crypto';

const PREFIX = 'whsec_';

/** The HMAC key of an endpoint secret: the bytes the base64 after `whsec_` encodes. */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

/** The `webhook-signature` value for one message: `v1,<base64 HMAC-SHA256>`. */
export function sign(secret: string, msgId: string, timestampSeconds: number, body: string | Uint8Array): string {
  const mac = crypto.createHmac('sha256', secretKey(secret));
  mac.update(`${msgId}.${timestampSeconds}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The signed headers of one attempt (the timestamp is the attempt's send time, in Unix seconds). */
export function webhookHeaders(secret: string, msgId: string, sentAt: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(sentAt.getTime() / 1000);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, msgId, timestamp, body),
    'content-type': 'application/json',
    'user-agent': 'Cotejo-Webhooks/1.0',
  };
}
