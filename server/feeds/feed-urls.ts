// Where feeds may be fetched from. A feed URL is the owner's, but the provider is the one that fetches it:
// without rules an owner key would make the provider read its own machine, its database or the LAN (SSRF). So a
// feed URL must be https and may not reach a private, loopback or link-local address (push services' rule, the
// same check: server/push/push-services.ts), unless its host is listed (`--allow-feed-hosts`, a feed on the LAN
// or a local test server), which then may also be http. The address is checked when the feed is added and again
// on every connection (the lookup the connection itself uses), so DNS rebinding gets nothing.
import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../push/push-services.ts';
import { ServerError } from '../errors.ts';
import { FEED_URL_MAX_LENGTH } from '../../contract/feeds.ts';

export const ALLOW_FEED_HOSTS_ENV = 'PUSHKIT_ALLOW_FEED_HOSTS';

export interface FeedUrlPolicy {
  /** Hosts (`name` or `name:port`) whose feeds may be http and resolve to private addresses. */
  allowedHosts: ReadonlySet<string>;
}

/** The policy of `--allow-feed-hosts` (comma-separated or a list); absent: PUSHKIT_ALLOW_FEED_HOSTS. */
export function feedUrlPolicy(setting?: string | readonly string[], env: NodeJS.ProcessEnv = process.env): FeedUrlPolicy {
  const value = setting ?? env[ALLOW_FEED_HOSTS_ENV] ?? '';
  const entries = (typeof value === 'string' ? value.split(',') : value).map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  for (const entry of entries) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(entry)) throw new ServerError('E_FEED_SETTING', { entry });
  }
  return { allowedHosts: new Set(entries) };
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

/** Whether the URL's host is listed (by name, or name and port). */
export function isListedHost(url: URL, policy: FeedUrlPolicy): boolean {
  return policy.allowedHosts.has(url.hostname.toLowerCase()) || policy.allowedHosts.has(url.host.toLowerCase());
}

const privateRefusal = (host: string, address: string) =>
  `${host} ${host === address ? 'is' : `resolves to ${address},`} a private address: list it in --allow-feed-hosts to allow it`;

/** What is wrong with a feed URL before any name is looked up; undefined when nothing is. */
export function feedUrlProblem(value: string, policy: FeedUrlPolicy): string | undefined {
  if (value.length > FEED_URL_MAX_LENGTH) return `must be at most ${FEED_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  const listed = isListedHost(url, policy);
  if (url.protocol !== 'https:' && !(listed && url.protocol === 'http:')) {
    return 'must be an https URL (http only for a host listed in --allow-feed-hosts)';
  }
  const host = hostOf(url);
  if (!listed && ((isIP(host) && isPrivateAddress(host)) || host === 'localhost' || host.endsWith('.localhost'))) {
    return privateRefusal(host, host);
  }
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that fails when any address of the name is private: the connection's own lookup. */
export function publicOnlyLookup(hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find(({ address }) => isPrivateAddress(address));
    if (refused) return callback(Object.assign(new Error(privateRefusal(hostname, refused.address)), { code: 'EFEEDADDRESS' }), []);
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

/** Refuses (E_FEED_URL) a URL the policy does not allow; resolves with it normalised. */
export function requireFeedUrl(value: string, policy: FeedUrlPolicy): string {
  const problem = feedUrlProblem(value, policy);
  if (problem) throw new ServerError('E_FEED_URL', { param: 'url', problem });
  return new URL(value).href;
}
