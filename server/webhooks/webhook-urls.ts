// Where webhooks may go. An endpoint URL is the owner's, but the provider is the one that posts to it: without
// rules an owner key would make the provider POST to its own machine, its database or the LAN (SSRF). So a URL
// must be https; http only to this machine's loopback with the provider's --allow-http-webhooks (a receiver under
// development); and no URL may reach a private, loopback or link-local address (push services' rule, the same
// check: server/push/push-services.ts) unless its origin is listed (--webhook-private-origins, a receiver on the
// LAN). The address is checked when the endpoint is added and again on every connection (the lookup the
// connection itself uses), so a name that resolves to a public address when added and to a private one later
// (DNS rebinding) gets nothing.
import { lookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isPrivateAddress } from '../push/push-services.ts';
import { ServerError } from '../errors.ts';
import { WEBHOOK_URL_MAX_LENGTH } from '../../contract/webhook-events.ts';

export const WEBHOOK_PRIVATE_ORIGINS_ENV = 'PUSHKIT_WEBHOOK_PRIVATE_ORIGINS';
export const ALLOW_HTTP_WEBHOOKS_ENV = 'PUSHKIT_ALLOW_HTTP_WEBHOOKS';

export interface WebhookUrlPolicy {
  /** http:// to a loopback address (127.0.0.0/8, ::1, localhost) is allowed (`--allow-http-webhooks`). */
  allowHttpLoopback: boolean;
  /** Origins whose names may resolve to private addresses (`--webhook-private-origins`). */
  privateOrigins: ReadonlySet<string>;
}

export interface WebhookUrlSettings {
  allowHttp?: boolean;
  /** Comma-separated origins, or a list of them. */
  privateOrigins?: string | readonly string[];
}

/** The policy of the provider's settings; an absent setting is read from the environment. */
export function webhookUrlPolicy(settings: WebhookUrlSettings = {}, env: NodeJS.ProcessEnv = process.env): WebhookUrlPolicy {
  const setting = settings.privateOrigins ?? env[WEBHOOK_PRIVATE_ORIGINS_ENV] ?? '';
  const entries = (typeof setting === 'string' ? setting.split(',') : setting).map((entry) => entry.trim()).filter(Boolean);
  const origins = new Set<string>();
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ServerError('E_WEBHOOK_SETTING', { entry });
    }
    if (!['https:', 'http:'].includes(url.protocol) || url.pathname !== '/' || url.username || url.search || url.hash) {
      throw new ServerError('E_WEBHOOK_SETTING', { entry });
    }
    origins.add(url.origin);
  }
  const allowHttp = settings.allowHttp ?? ['1', 'true'].includes(env[ALLOW_HTTP_WEBHOOKS_ENV] ?? '');
  return { allowHttpLoopback: allowHttp, privateOrigins: origins };
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

function isLoopbackAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  return (isIP(mapped) === 4 && mapped.startsWith('127.')) || mapped === '::1';
}

/** Which addresses a connection to this URL may reach: any (a listed origin), loopback only (http), or public only. */
export type AddressRule = 'any' | 'loopback' | 'public';

export function addressRuleOf(url: URL, policy: WebhookUrlPolicy): AddressRule {
  if (policy.privateOrigins.has(url.origin)) return 'any';
  return url.protocol === 'http:' ? 'loopback' : 'public';
}

function addressAllowed(address: string, rule: AddressRule): boolean {
  if (rule === 'any') return true;
  return rule === 'loopback' ? isLoopbackAddress(address) : !isPrivateAddress(address);
}

const refusal = (host: string, address: string, rule: AddressRule) =>
  rule === 'loopback'
    ? `${host} resolves to ${address}: http webhooks may only go to this machine's loopback`
    : `${host} resolves to ${address}, a private address: list its origin in --webhook-private-origins to allow it`;

/** What is wrong with a webhook URL before any name is looked up; undefined when nothing is. */
export function webhookUrlProblem(value: string, policy: WebhookUrlPolicy): string | undefined {
  if (value.length > WEBHOOK_URL_MAX_LENGTH) return `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password (the signature proves the sender)';
  const host = hostOf(url);
  if (url.protocol === 'http:') {
    if (!policy.allowHttpLoopback) return 'must be https (http only to this machine, when the provider runs with --allow-http-webhooks)';
    if (!isLoopbackAddress(host) && !isLocalhostName(host)) {
      return 'must be https: http is allowed only to a loopback address (127.0.0.1, [::1], localhost)';
    }
    return undefined;
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  const rule = addressRuleOf(url, policy);
  if (rule === 'public' && ((isIP(host) && isPrivateAddress(host)) || isLocalhostName(host))) {
    return `${host} is a private address: list its origin in --webhook-private-origins to allow it`;
  }
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that fails when any address of the name is one the rule refuses: the connection's own lookup. */
export function guardedLookup(rule: AddressRule) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find(({ address }) => !addressAllowed(address, rule));
      if (refused) return callback(Object.assign(new Error(refusal(hostname, refused.address, rule)), { code: 'EWEBHOOKADDRESS' }), []);
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** The refusal of a URL whose host is an address literal the rule refuses (never looked up), else undefined. */
export function literalAddressProblem(url: URL, rule: AddressRule): string | undefined {
  const host = hostOf(url);
  if (!isIP(host) || addressAllowed(host, rule)) return undefined;
  return refusal(host, host, rule);
}

const LOOKUP_TIMEOUT_MS = 3000;

/**
 * Refuses (E_WEBHOOK_URL, naming `param`) a URL the policy does not allow, its name looked up now: a name that
 * does not resolve is let through (sending checks again, on every connection).
 */
export async function requireWebhookUrl(value: string, policy: WebhookUrlPolicy, param = 'url'): Promise<string> {
  const problem = webhookUrlProblem(value, policy);
  if (problem) throw new ServerError('E_WEBHOOK_URL', { param, problem });
  const url = new URL(value);
  const rule = addressRuleOf(url, policy);
  const literal = literalAddressProblem(url, rule);
  if (literal) throw new ServerError('E_WEBHOOK_URL', { param, problem: literal });
  if (rule === 'any' || isIP(hostOf(url))) return url.href;
  const found = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), LOOKUP_TIMEOUT_MS);
    guardedLookup(rule)(hostOf(url), { all: true }, (error) => {
      clearTimeout(timer);
      resolve(error && (error as NodeJS.ErrnoException).code === 'EWEBHOOKADDRESS' ? error.message : undefined);
    });
  });
  if (found) throw new ServerError('E_WEBHOOK_URL', { param, problem: found });
  return url.href;
}
