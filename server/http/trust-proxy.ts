// Which proxies in front of the provider are trusted to say who the client is (X-Forwarded-For), in fastify's
// terms (its `trustProxy` option): true trusts every hop (only when nothing but the proxy can reach the
// provider), a list of addresses or CIDR ranges trusts those proxies. A hop count is refused: this fastify
// trusts no one for a number (it cannot check the peer), which would silently turn the setting off. Without
// it the provider sees every visitor behind nginx or a load balancer as the proxy's one address, so the
// per-address limits would treat all of them as one client.
import { isIP } from 'node:net';

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
