// Certificates from PEM or DER bytes: the trust store (index.ts) and the EU trusted lists (trusted-lists.ts) both read
// them, so they live apart from either (neither imports the other for it).
import * as pkijs from 'pkijs';
import { latin1 } from './pdf.ts';

function pemBlocks(text: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const re = /-----BEGIN (?:TRUSTED )?CERTIFICATE-----([\s\S]*?)-----END (?:TRUSTED )?CERTIFICATE-----/g;
  for (const m of text.matchAll(re)) out.push(new Uint8Array(Buffer.from(m[1].replace(/\s+/g, ''), 'base64')));
  return out;
}

/** Parses certificates from PEM (one or many blocks) or DER bytes. Invalid blocks are skipped. */
export function parseCertificates(bytes: Uint8Array): pkijs.Certificate[] {
  const text = latin1(bytes, 0, Math.min(bytes.length, 1 << 22));
  const ders = text.includes('-----BEGIN') ? pemBlocks(text) : [bytes];
  const out: pkijs.Certificate[] = [];
  for (const der of ders) {
    try {
      out.push(pkijs.Certificate.fromBER(new Uint8Array(der) as Uint8Array<ArrayBuffer>));
    } catch {
      /* skip unparsable */
    }
  }
  return out;
}
