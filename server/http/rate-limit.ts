// Per-IP and per-site request limits over fixed windows, kept in the process's memory: each serve process
// limits what it receives. A caller over a limit gets 429 with Retry-After and nothing is stored.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ErrorDetails } from '../errors.ts';
import { RequestError } from './reply.ts';
import type { SiteRegistry } from './site-access.ts';

export interface RateLimitOptions {
  /** Length of one window in milliseconds. */
  windowMs: number;
  /** Requests one client address may make per window. */
  perIp: number;
  /** Public requests one site may receive per window, from all its visitors together. */
  perSite: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { windowMs: 10_000, perIp: 600, perSite: 20_000 };

type RateLimitCode = 'E_RATE_LIMIT_IP' | 'E_RATE_LIMIT_SITE';

export class RateLimitError<C extends RateLimitCode = RateLimitCode> extends RequestError<C> {
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
  let windowStart = Date.now();
  let perIp = new Map<string, number>();
  let perSite = new Map<string, number>();

  const count = (counts: Map<string, number>, key: string) => {
    const value = (counts.get(key) ?? 0) + 1;
    counts.set(key, value);
    return value;
  };

  const check = (request: FastifyRequest): void => {
    const now = Date.now();
    if (now - windowStart >= options.windowMs) {
      windowStart = now;
      perIp = new Map();
      perSite = new Map();
    }
    const retryAfter = Math.max(1, Math.ceil((windowStart + options.windowMs - now) / 1000));
    if (count(perIp, request.ip) > options.perIp) {
      throw new RateLimitError(retryAfter, 'E_RATE_LIMIT_IP', { limit: options.perIp, seconds: options.windowMs / 1000, ip: request.ip });
    }
    if (request.url.startsWith('/api/v1/sites/')) return;
    const site = registry.siteOf(request);
    if (site && count(perSite, site.hash) > options.perSite) {
      throw new RateLimitError(retryAfter, 'E_RATE_LIMIT_SITE', {
        limit: options.perSite,
        seconds: options.windowMs / 1000,
        hash: site.hash,
      });
    }
  };

  // preHandler: the body is parsed by then, so a form POST's site hash is known
  app.addHook('preHandler', async (request) => check(request));
}
