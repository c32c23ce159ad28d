// The key a client is rate limited under, and the --trust-proxy values the provider accepts.
import { describe, expect, it } from 'vitest';
import { clientAddressKey } from '../../server/http/client-address.ts';
import { parseTrustProxy } from '../../server/http/trust-proxy.ts';

describe('clientAddressKey', () => {
  it('keeps an IPv4 address, and reads an IPv4-mapped IPv6 address as IPv4', () => {
    expect(clientAddressKey('198.51.100.7')).toBe('198.51.100.7');
    expect(clientAddressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('groups IPv6 addresses by their /64, however they are written', () => {
    expect(clientAddressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:0DB8:0001:0002:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientAddressKey('2001:db8:1:3::1')).not.toBe(clientAddressKey('2001:db8:1:2::1'));
  });
});

describe('parseTrustProxy', () => {
  it('accepts true, false, addresses, CIDR ranges and proxy-addr names', () => {
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('127.0.0.1, 10.0.0.0/8,::1,fd00::/8')).toBe('127.0.0.1,10.0.0.0/8,::1,fd00::/8');
    expect(parseTrustProxy('loopback')).toBe('loopback');
  });

  it('refuses a hop count (fastify would trust no one) and anything not an address', () => {
    expect(parseTrustProxy('1')).toBeNull();
    expect(parseTrustProxy('nginx')).toBeNull();
    expect(parseTrustProxy('10.0.0.0/33')).toBeNull();
    expect(parseTrustProxy('')).toBeNull();
  });
});
