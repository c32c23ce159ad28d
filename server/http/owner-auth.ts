// `Authorization: Bearer <key>` of the owner API, checked against the site's stored key hash. The owner API's
// site routes share one preValidation hook (ownerSiteHook): it finds the site the path names and checks the key
// once, before the route's schemas look at anything, and the handlers read the site with ownedSite(request). Not
// onRequest, so the rate limit (a preValidation hook of the root) counts a wrong key before the database is asked.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ServerError } from '../errors.ts';
import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { isOwnerKey } from './owner-keys.ts';
import { parseParams, SITE_PARAMS } from './params.ts';

import type { HostedSite } from '../sites.ts';
import type { RouteContext } from './route-context.ts';

function bearerKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(header.trim()) : null;
  if (!match) throw new ServerError('E_OWNER_KEY_MISSING');
  return match[1]!;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Whether `key` is the token of the provider file (server/provider-file.ts), which opens every hosted site. */
function isProviderToken(key: string, token: string | undefined): boolean {
  return token !== undefined && timingSafeEqual(sha256(key), sha256(token));
}

/** Throws E_OWNER_KEY unless the request's bearer is the site's owner key or this run's provider-file token. */
export async function requireOwner(db: Queryable, request: FastifyRequest, site: HostedSite, providerToken?: string): Promise<void> {
  const key = bearerKey(request);
  if (isProviderToken(key, providerToken)) return;
  if (!(await isOwnerKey(db, site, key))) throw new ServerError('E_OWNER_KEY', { site: site.name });
}

const ownedSites = new WeakMap<FastifyRequest, HostedSite>();

/**
 * The hook of the routes under `/:name`: the named site opened by the request's key (401). A name no site
 * has is answered exactly like a wrong key, so a caller without a key cannot tell which sites are hosted.
 */
export function ownerSiteHook({ db, registry, providerToken }: RouteContext): preValidationAsyncHookHandler {
  return async (request) => {
    const { name } = parseParams(SITE_PARAMS, request.params);
    const site = registry.byNameOrNull(name);
    if (!site) {
      // the same lookup a wrong key costs (no site has the empty hash), so timing does not tell them apart either
      await isOwnerKey(db, { hash: '' }, bearerKey(request));
      throw new ServerError('E_OWNER_KEY', { site: name });
    }
    await requireOwner(db, request, site, providerToken);
    ownedSites.set(request, site);
  };
}

/** The site ownerSiteHook opened for this request. */
export function ownedSite(request: FastifyRequest): HostedSite {
  const site = ownedSites.get(request);
  if (!site) throw new Error(`${request.url}: an owner route outside the scope of ownerSiteHook`);
  return site;
}
