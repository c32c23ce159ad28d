// The key a client is counted under: an IPv4 address as it is, an IPv6 address by its /64 network, since one
// subscriber line or host is usually given a whole /64 and could otherwise pick a fresh address per request.
import { isIPv6 } from 'node:net';

/** `198.51.100.7`, `2001:db8:1:2::/64`; an IPv4-mapped IPv6 address (`::ffff:198.51.100.7`) is its IPv4 address. */
export function clientAddressKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = ip.toLowerCase().split('%')[0]!.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = ip.includes('::') ? (tail ? tail.split(':') : []) : [];
  // an embedded IPv4 tail (::1.2.3.4) takes two groups; only the first four groups matter here
  const tailLength = tailGroups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const groups = ip.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailLength).fill('0'), ...tailGroups]
    : headGroups;
  const prefix = groups.slice(0, 4).map((group) => (group.includes('.') ? '0' : group.replace(/^0+(?=.)/, '')));
  return `${prefix.join(':')}::/64`;
}
