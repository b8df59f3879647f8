import crypto from 'node:crypto';

/** What a signed URL grants: one export or one original, until a time. */
export interface SignedGrant {
  kind: 'export' | 'file';
  /** `exp_...` for an export, `an_...` for an original. */
  id: string;
  /** Unix seconds. */
  expires: number;
}

/**
 * Opaque, tamper-proof tokens for GET /v1/files/{token}: base64url(JSON payload) + "." + base64url(HMAC-SHA256).
 * No key is needed to use one; changing any byte invalidates it; it stops working at `expires`.
 */
export class UrlSigner {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = crypto.createHash('sha256').update(`cotejo-signed-urls:${secret}`).digest();
  }

  sign(grant: SignedGrant): string {
    const payload = Buffer.from(JSON.stringify({ k: grant.kind, i: grant.id, e: grant.expires })).toString('base64url');
    const mac = crypto.createHmac('sha256', this.key).update(payload).digest('base64url');
    return `${payload}.${mac}`;
  }

  /** The grant, or null when the token is malformed, forged or expired at `now`. */
  verify(token: string, now: Date): SignedGrant | null {
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = crypto.createHmac('sha256', this.key).update(payload).digest();
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return null;
    try {
      const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k: string; i: string; e: number };
      if ((p.k !== 'export' && p.k !== 'file') || typeof p.i !== 'string' || typeof p.e !== 'number') return null;
      if (p.e * 1000 <= now.getTime()) return null;
      return { kind: p.k, id: p.i, expires: p.e };
    } catch {
      return null;
    }
  }
}
