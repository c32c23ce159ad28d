// Which proxies in front of the provider are trusted to say who the client is (X-Forwarded-For), in fastify's
// terms (its `trustProxy` option): true trusts every hop (only when nothing but the proxy can reach the
// provider), a list of addresses or CIDR ranges trusts those proxies. A hop count is refused: this fastify
// trusts no one for a number (it cannot check the peer), which would silently turn the setting off. Without
// it the provider sees every visitor behind nginx or a load balancer as the proxy's one address, so the
// per-address limits would treat all of them as one client.
import { BlockList, isIP } from 'node:net';

export type TrustProxy = boolean | string;

/** Ranges proxy-addr (fastify's) knows by name. */
const PROXY_ADDR_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The `--trust-proxy` / PUSHKIT_TRUST_PROXY value: `true`, `false` or `127.0.0.1,10.0.0.0/8` (or loopback, linklocal, uniquelocal); null when it is none of them. */
export function parseTrustProxy(value: string): TrustProxy | null {
  const text = value.trim();
  if (text === 'true') return true;
  if (text === 'false') return false;
  const entries = text.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (PROXY_ADDR_NAMES.has(entry)) return true;
    const [address = '', bits, ...rest] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || rest.length > 0) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
  });
  return valid ? entries.join(',') : null;
}

/** The ranges behind proxy-addr's names. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** Whether a connection's peer address is a proxy `trustProxy` trusts (as fastify would take its X-Forwarded-For). */
export function isTrustedProxy(trustProxy: TrustProxy | undefined): (ip: string) => boolean {
  if (trustProxy === true) return () => true;
  if (!trustProxy) return () => false;
  const trusted = new BlockList();
  for (const entry of trustProxy.split(',').flatMap((name) => NAMED_RANGES[name.trim()] ?? [name.trim()])) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(bits), family);
  }
  return (ip) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
    const address = mapped ?? ip;
    return trusted.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}
