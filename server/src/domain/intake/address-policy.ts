/**
 * Which IP addresses `file_url` may reach: public unicast only. Ranges come from ipaddr.js
 * (its IANA special-purpose tables); IPv6 forms that embed an IPv4 address (IPv4-mapped,
 * IPv4-compatible in both its dotted and hex forms, SIIT-translated `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4) are judged by
 * the IPv4 address inside.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Cloud instance metadata endpoints (AWS, GCP, Azure, OpenStack; AWS IPv6; Alibaba). Already inside blocked ranges; listed for clarity. */
export const METADATA_ADDRESSES: readonly string[] = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];

export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js range name (`unicast`, `loopback`, `private`, `linkLocal`, ...) or `invalid`, `metadata`. */
  range: string;
}

const SIIT = ipaddr.IPv6.parse('::ffff:0:0:0'); // ::ffff:0:0/96, RFC 2765 "IPv4-translated"
const NAT64 = ipaddr.IPv6.parse('64:ff9b::');

function judgeV4(addr: ipaddr.IPv4): AddressVerdict {
  const text = addr.toString();
  if (METADATA_ADDRESSES.includes(text)) return { allowed: false, range: 'metadata' };
  const range = addr.range();
  return { allowed: range === 'unicast', range };
}

function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = addr.range();
  const bytes = addr.toByteArray();
  if (range === 'ipv4Mapped') return addr.toIPv4Address(); // ::ffff:a.b.c.d (ipaddr also files ::a.b.c.d here)
  if (addr.match(SIIT, 96) || addr.match(NAT64, 96)) return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6)); // 2002:AABB:CCDD::/48
  return null;
}

/** Classifies an IP address (v4 or v6, with or without brackets or a zone). */
export function judgeAddress(address: string): AddressVerdict {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone); // a zone only exists on link-local addresses; judged without it
  if (isIP(text) === 0 || !ipaddr.isValid(text)) return { allowed: false, range: 'invalid' };
  const addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv4') return judgeV4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  if (METADATA_ADDRESSES.includes(v6.toString())) return { allowed: false, range: 'metadata' };
  const inner = embeddedV4(v6);
  if (inner) {
    const v = judgeV4(inner);
    return { allowed: v.allowed, range: `${v6.range()}(${v.range})` };
  }
  const range = v6.range();
  // IPv4-compatible ::a.b.c.d (::/96, deprecated by RFC 4291): ipaddr.js files the dotted form as ipv4Mapped but the
  // hex form the URL parser writes (`[::127.0.0.1]` becomes `[::7f00:1]`) as unicast. Judged by the IPv4 inside.
  if (range === 'unicast' && v6.toByteArray().slice(0, 12).every((b) => b === 0)) {
    const v = judgeV4(new ipaddr.IPv4(v6.toByteArray().slice(12, 16)));
    return { allowed: v.allowed, range: `ipv4Compatible(${v.range})` };
  }
  // Global unicast is 2000::/3 (RFC 4291, IANA): everything else ipaddr.js calls `unicast` (`1::1`, `4000::1`,
  // `::1:7f00:1`) is unassigned, and no public host lives there. Teredo (2001::/32) hides its IPv4 server and client;
  // `reserved` includes documentation space.
  if (range === 'unicast' && (v6.toByteArray()[0] & 0xe0) !== 0x20) return { allowed: false, range: 'unassigned' };
  return { allowed: range === 'unicast', range };
}

export function isPublicAddress(address: string): boolean {
  return judgeAddress(address).allowed;
}
