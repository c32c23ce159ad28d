// Which site a request is for, and whether its Origin may call it. A browser request carries the Origin of
// the page that made it; only the site's configured origin, or its child window's (its `childWindowOrigin`,
// else the provider's own pages), may call a site. Requests without an Origin (JSONP scripts, image beacons)
// are allowed.
import { ServerError } from '../errors.ts';
import type { FastifyRequest } from 'fastify';

import type { HostedSite } from '../sites.ts';

/** The parameter names the calls of spec section 7 use for the site hash. */
const HASH_PARAMETERS = ['hash', 'customer_hash', 'customerHash'] as const;

export class SiteRegistry {
  private readonly byHash = new Map<string, HostedSite>();
  private readonly byName = new Map<string, HostedSite>();
  private readonly origins = new Set<string>();
  private readonly childWindowOrigins = new Map<string, HostedSite>();

  constructor(readonly sites: HostedSite[]) {
    for (const site of sites) {
      this.byHash.set(site.hash, site);
      this.byName.set(site.name, site);
      this.origins.add(site.config.origin);
      const childWindowOrigin = site.config.childWindowOrigin;
      if (childWindowOrigin) {
        this.origins.add(childWindowOrigin);
        this.childWindowOrigins.set(childWindowOrigin, site);
      }
    }
  }

  /** The site whose own child window origin the request was sent to (by its Host), if any. */
  childWindowSiteOf(request: FastifyRequest): HostedSite | null {
    for (const [origin, site] of this.childWindowOrigins) if (isOwnOrigin(request, origin)) return site;
    return null;
  }

  byHashOrNull(hash: string): HostedSite | null {
    return this.byHash.get(hash) ?? null;
  }

  /** The site, or a 404 naming the parameter that carried the unknown hash. */
  require(hash: string, parameter: string): HostedSite {
    const site = this.byHash.get(hash);
    if (!site) throw new ServerError('E_SITE_UNKNOWN', { param: parameter });
    return site;
  }

  byNameOrNull(name: string): HostedSite | null {
    return this.byName.get(name) ?? null;
  }

  isSiteOrigin(origin: string): boolean {
    return this.origins.has(origin);
  }

  /** The site a public request names, wherever it names it. */
  siteOf(request: FastifyRequest): HostedSite | null {
    for (const source of [request.params, request.query, request.body]) {
      if (!source || typeof source !== 'object') continue;
      for (const parameter of HASH_PARAMETERS) {
        const value = (source as Record<string, unknown>)[parameter];
        if (typeof value === 'string') return this.byHash.get(value) ?? null;
      }
    }
    return null;
  }
}

/**
 * Whether the request was sent to this origin's host (a page of the provider's own, such as the child window):
 * same host and port, whatever scheme a TLS proxy in front changed.
 */
export function isOwnOrigin(request: FastifyRequest, origin: string): boolean {
  try {
    const host = request.host;
    if (!host) return false;
    const parsed = new URL(origin);
    return parsed.host === new URL(`${parsed.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

export function originAllowed(request: FastifyRequest, site: HostedSite): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (origin === site.config.origin) return true;
  // A site with a child window origin of its own is called from there only, never from the shared provider pages.
  const { childWindowOrigin } = site.config;
  return childWindowOrigin ? origin === childWindowOrigin : isOwnOrigin(request, origin);
}

/** Refuses (403, nothing stored) a browser request from an origin other than the site's. */
export function requireOrigin(request: FastifyRequest, site: HostedSite): void {
  if (!originAllowed(request, site)) {
    throw new ServerError('E_ORIGIN_FORBIDDEN', {
      origin: String(request.headers.origin),
      hash: site.hash,
      siteOrigin: site.config.origin,
    });
  }
}

/**
 * The path a request is routed by: the matched route's pattern (`/api/v1/sites/:name/subscribers`), or for a
 * preflight (answered by the catch-all OPTIONS route of cors.ts) the path decoded as the router decodes it, so
 * `/api/v1/%73ites/...` counts as the owner API it reaches.
 */
function routedPath(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route && route !== '*' && !route.endsWith('/*')) return route;
  const raw = request.url.split('?')[0]!;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The owner API is called with a key, never from a site's pages: no CORS at all. */
function isOwnerApi(path: string): boolean {
  return path === '/api/v1/sites' || path.startsWith('/api/v1/sites/');
}

/** The origin CORS lets read a request's reply (cors.ts): the request's own when allowed, else false (no CORS headers). */
export function corsOrigin(registry: SiteRegistry) {
  return (request: FastifyRequest): string | false => {
    const origin = request.headers.origin;
    if (!origin) return false;
    if (isOwnerApi(routedPath(request))) return false;
    const site = registry.siteOf(request);
    const allowed = site ? originAllowed(request, site) : registry.isSiteOrigin(origin) || isOwnOrigin(request, origin);
    return allowed ? origin : false;
  };
}
