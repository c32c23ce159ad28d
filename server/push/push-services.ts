// The push services the provider may post to. A subscription's endpoint is a URL the browser hands over,
// so without a list anyone could make the provider POST to any host and port (issue 17, SSRF). By default
// only the browsers' own push services are allowed; `PUSHKIT_PUSH_SERVICES` (or `--push-services`) replaces
// the list. An origin listed explicitly there may also resolve to a loopback or private address (a local push
// service in tests, a relay on the LAN); every other endpoint that resolves to one is refused when sending.
import { BlockList, isIP } from 'node:net';
import { ServerError } from '../errors.ts';

/**
 * The browsers' push services. Chromium builds without Google API keys (Debian's among them) subscribe at
 * `https://jmt17.google.com/fcm/send/...`: an FCM host like fcm.googleapis.com, listed by its exact origin.
 */
export const KNOWN_PUSH_SERVICES: readonly string[] = [
  'https://fcm.googleapis.com',
  'https://android.googleapis.com',
  'https://jmt17.google.com',
  'https://updates.push.services.mozilla.com',
  'https://*.notify.windows.com',
  'https://web.push.apple.com',
];

export const PUSH_SERVICES_ENV = 'PUSHKIT_PUSH_SERVICES';

/** Addresses a push service on the internet never has: loopback, private, link-local, and the like. */
const PRIVATE_ADDRESSES = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE_ADDRESSES.addSubnet(network, prefix, 'ipv4');
}
// An IPv6 form of an IPv4 address reaches that address (or a gateway's network) without being one: the
// IPv4-compatible ::/96 (also :: and ::1), IPv4-translated, NAT64, 6to4 and Teredo are refused whole; an
// IPv4-mapped ::ffff:0:0/96 is judged by its IPv4 (BlockList reads the dotted and the hex form alike).
for (const [network, prefix] of [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_ADDRESSES.addSubnet(network, prefix, 'ipv6');
}

/** Loopback, private, link-local, shared, multicast, unspecified, or an IPv6 form of IPv4 (mapped ones as their IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE_ADDRESSES.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE_ADDRESSES.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const WILDCARD = 'https://*.';

/** `https://host[:port]` of a setting's entry (`https://*.host` for a wildcard), or null when it is not one. */
function normalisedOrigin(entry: string): string | null {
  const wildcard = entry.toLowerCase().startsWith(WILDCARD);
  let url: URL;
  try {
    url = new URL(wildcard ? `https://${entry.slice(WILDCARD.length)}` : entry);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
  return wildcard ? `${WILDCARD}${url.host}` : url.origin;
}

export class PushServiceAllowlist {
  private readonly exact = new Set<string>();
  /** `{suffix: '.notify.windows.com', port: ''}` for `https://*.notify.windows.com`. */
  private readonly suffixes: { suffix: string; port: string }[] = [];

  private constructor(
    origins: readonly string[],
    /** Whether these origins were named by the operator, so they may live on private addresses. */
    private readonly privateAddresses: boolean,
  ) {
    for (const origin of origins) {
      if (origin.startsWith(WILDCARD)) {
        const url = new URL(`https://${origin.slice(WILDCARD.length)}`);
        this.suffixes.push({ suffix: `.${url.hostname}`, port: url.port });
      } else {
        this.exact.add(origin);
      }
    }
  }

  static readonly known = new PushServiceAllowlist(KNOWN_PUSH_SERVICES, false);

  /**
   * The list a setting names (comma-separated origins, or a list of them); empty or absent: the known push
   * services. Its exact origins may resolve to private addresses unless `privateAddresses` is false.
   */
  static fromSetting(setting: string | readonly string[] | undefined, { privateAddresses = true } = {}): PushServiceAllowlist {
    const entries = (typeof setting === 'string' ? setting.split(',') : (setting ?? [])).map((entry) => entry.trim()).filter(Boolean);
    if (entries.length === 0) return PushServiceAllowlist.known;
    return new PushServiceAllowlist(
      entries.map((entry) => {
        const origin = normalisedOrigin(entry);
        if (!origin) throw new ServerError('E_PUSH_SERVICES_SETTING', { entry });
        return origin;
      }),
      privateAddresses,
    );
  }

  /** The list of the `PUSHKIT_PUSH_SERVICES` environment variable, else the known push services. */
  static fromEnvironment(env: NodeJS.ProcessEnv = process.env): PushServiceAllowlist {
    return PushServiceAllowlist.fromSetting(env[PUSH_SERVICES_ENV]);
  }

  /** Whether the provider may post to this endpoint (an https URL on a listed origin). */
  allows(endpoint: string): boolean {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      return false;
    }
    return this.allowsUrl(url);
  }

  /** allows() of an endpoint already parsed (the sender parses each endpoint once). */
  allowsUrl(url: URL): boolean {
    if (url.protocol !== 'https:' || url.username || url.password) return false;
    if (this.exact.has(url.origin)) return true;
    return this.suffixes.some(
      ({ suffix, port }) => url.hostname.endsWith(suffix) && url.hostname.length > suffix.length && url.port === port,
    );
  }

  /** Whether the endpoint's origin was named explicitly (not by wildcard), so it may resolve to a private address. */
  allowsPrivateAddress(url: URL): boolean {
    return this.privateAddresses && this.exact.has(url.origin);
  }
}

/** The push services a setting names (throws E_PUSH_SERVICES_SETTING naming the entry at fault); absent: the environment's. */
export function allowedPushServices(setting: string | readonly string[] | undefined): PushServiceAllowlist {
  return setting === undefined ? PushServiceAllowlist.fromEnvironment() : PushServiceAllowlist.fromSetting(setting);
}
