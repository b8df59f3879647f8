import { describe, expect, it } from 'vitest';
import { isPublicAddress, judgeAddress } from '../../../server/src/domain/intake/address-policy.ts';

describe('judgeAddress: only public unicast is reachable', () => {
  it.each([
    '8.8.8.8',
    '93.184.215.14',
    '2606:4700:4700::1111',
    '2a00:1450:4003:80e::200e',
    '::ffff:8.8.8.8', // IPv4-mapped public
    '64:ff9b::808:808', // NAT64 of a public address
    '2002:808:808::1', // 6to4 of a public address
  ])('%s is allowed', (address) => {
    expect(judgeAddress(address)).toMatchObject({ allowed: true });
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.1.1', 'linkLocal'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['239.1.2.3', 'multicast'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'teredo'],
    ['100::1', 'discard'],
    ['::ffff:127.0.0.1', 'ipv4Mapped(loopback)'],
    ['::ffff:7f00:1', 'ipv4Mapped(loopback)'],
    ['::ffff:169.254.169.254', 'ipv4Mapped(metadata)'],
    ['::ffff:10.0.0.1', 'ipv4Mapped(private)'],
    // IPv4-compatible (::/96, deprecated by RFC 4291): the URL parser writes `[::127.0.0.1]` as `[::7f00:1]`.
    ['::7f00:1', 'ipv4Compatible(loopback)'],
    ['[::7f00:1]', 'ipv4Compatible(loopback)'],
    ['::a9fe:a9fe', 'ipv4Compatible(metadata)'],
    ['::a00:1', 'ipv4Compatible(private)'],
    ['::ffff:0:127.0.0.1', 'rfc6145(loopback)'], // SIIT "IPv4-translated"
    ['64:ff9b::127.0.0.1', 'rfc6052(loopback)'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052(metadata)'],
    ['2002:7f00:1::', '6to4(loopback)'],
    ['2002:a00:1::', '6to4(private)'],
    ['[::1]', 'loopback'],
    // Outside 2000::/3, the only IPv6 space assigned for global unicast.
    ['4000::1', 'unassigned'],
    ['1::1', 'unassigned'],
    ['::1:7f00:1', 'unassigned'],
    ['::ffff:1:7f00:1', 'unassigned'],
    ['not-an-ip', 'invalid'],
    ['', 'invalid'],
    ['1.2.3', 'invalid'],
  ])('%s is refused (%s)', (address, range) => {
    expect(judgeAddress(address)).toEqual({ allowed: false, range });
    expect(isPublicAddress(address)).toBe(false);
  });
});
