// Issue 27: IPv6 ranges that carry or reach an IPv4 address (NAT64, IPv4-compatible, IPv4-mapped and
// -translated, 6to4, Teredo) are never a push service's address, so the sender refuses them like 10.0.0.0/8.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../server/push/push-services.ts';

describe('isPrivateAddress: IPv6 forms of an IPv4 address', () => {
  it.each([
    ['NAT64 well-known prefix', ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::808:808']],
    ['NAT64 local-use prefix', ['64:ff9b:1::1', '64:ff9b:1:ffff::c0a8:101']],
    ['IPv4-compatible', ['::127.0.0.1', '::10.0.0.1', '::8.8.8.8', '::7f00:1']],
    ['IPv4-mapped, dotted and hex', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '0:0:0:0:0:ffff:192.168.0.1']],
    ['IPv4-translated', ['::ffff:0:127.0.0.1', '::ffff:0:808:808']],
    ['6to4', ['2002:7f00:1::1', '2002:c0a8:101::1', '2002:808:808::1']],
    ['Teredo', ['2001:0:4136:e378:8000:63bf:3fff:fdd2']],
  ])('%s is refused', (_range, addresses) => {
    for (const address of addresses) expect(isPrivateAddress(address), address).toBe(true);
  });

  it('public addresses, and a mapped public IPv4, still pass', () => {
    for (const address of ['2a00:1450:4007:80e::200a', '2606:4700::6810:84e5', '::ffff:8.8.8.8', '::ffff:808:808', '8.8.8.8']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});
