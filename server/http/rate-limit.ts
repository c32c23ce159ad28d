// Request limits over fixed windows, kept in the process's memory: each serve process limits what it receives.
// A caller over a limit gets 429 with Retry-After and nothing is stored.
// Fair by construction: every address (an IPv6 client by its /64, see client-address.ts) has its own budget of
// requests, and the per-site budget counts only the calls that write (COSTLY_ROUTES). When a site's budget is
// spent, only the addresses that spent more than their fair share of it are refused, so a flood from some
// addresses never locks the other visitors of the site out (issue 17, item 5).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServerError, type ErrorDetails } from '../errors.ts';
import { clientAddressKey } from './client-address.ts';

import type { SiteRegistry } from './site-access.ts';

export interface RateLimitOptions {
  /** Length of one window in milliseconds. */
  windowMs: number;
  /** Requests one client address (an IPv6 /64) may make per window. */
  perIp: number;
  /** Costly (writing) public requests one site may receive per window before its heavy callers are refused. */
  perSite: number;
  /** Costly requests per window one address may always make to a site, even when the site's budget is spent. */
  fairShare?: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { windowMs: 10_000, perIp: 600, perSite: 20_000, fairShare: 20 };
const DEFAULT_FAIR_SHARE = 20;

/** Public calls that write rows for a site; reads (/dyn, the child window files) count only per address. */
const COSTLY_ROUTES = new Set([
  'POST /syncSubscriptionAction.php',
  'GET /as',
  'GET /tags',
  'POST /tags',
  'GET /c.gif',
  'POST /notificationEvent',
  'POST /api/v1/shopify/orders',
  'POST /api/v1/shopify/cart',
  'POST /api/v1/shopify/view',
]);

type RateLimitCode = 'E_RATE_LIMIT_IP' | 'E_RATE_LIMIT_SITE';

export class RateLimitError<C extends RateLimitCode = RateLimitCode> extends ServerError<C> {
  override name = 'RateLimitError';

  constructor(
    readonly retryAfterSeconds: number,
    code: C,
    ...details: ErrorDetails<C>
  ) {
    super(code, ...details);
  }
}

export function registerRateLimit(app: FastifyInstance, registry: SiteRegistry, options: RateLimitOptions): void {
  const fairShare = options.fairShare ?? DEFAULT_FAIR_SHARE;
  let windowStart = Date.now();
  let perAddress = new Map<string, number>();
  let perSite = new Map<string, number>();
  let perSiteAddress = new Map<string, number>();

  const count = (counts: Map<string, number>, key: string) => {
    const value = (counts.get(key) ?? 0) + 1;
    counts.set(key, value);
    return value;
  };

  const check = (request: FastifyRequest): void => {
    const now = Date.now();
    if (now - windowStart >= options.windowMs) {
      windowStart = now;
      perAddress = new Map();
      perSite = new Map();
      perSiteAddress = new Map();
    }
    const retryAfter = Math.max(1, Math.ceil((windowStart + options.windowMs - now) / 1000));
    const address = clientAddressKey(request.ip);
    if (count(perAddress, address) > options.perIp) {
      throw new RateLimitError(retryAfter, 'E_RATE_LIMIT_IP', { limit: options.perIp, seconds: options.windowMs / 1000, ip: address });
    }
    if (!COSTLY_ROUTES.has(`${request.method} ${request.routeOptions.url}`)) return;
    const site = registry.siteOf(request);
    if (!site) return;
    const siteCount = count(perSite, site.hash);
    const addressCount = count(perSiteAddress, `${site.hash} ${address}`);
    if (siteCount > options.perSite && addressCount > fairShare) {
      throw new RateLimitError(retryAfter, 'E_RATE_LIMIT_SITE', {
        limit: options.perSite,
        seconds: options.windowMs / 1000,
        hash: site.hash,
      });
    }
  };

  // preValidation: the body is parsed by then, so a form POST's site hash is known, and a request the route's
  // schemas would refuse is counted too. A callback hook, not an async one: no promise on every public request.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      check(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });
}
