// The sites one member key opens: the owner dashboard signs in with a key and offers a switcher between the
// sites it opens (a server hosting several sites holds one key per site and member).
import { ServerError } from '../errors.ts';
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { requireMember } from './owner-auth.ts';

import type { HostedSite } from '../sites.ts';
import type { SiteSummary } from '../../contract/owner-api.ts';

export async function sitesOpenedBy(
  db: Queryable,
  request: FastifyRequest,
  sites: readonly HostedSite[],
  providerToken?: string,
): Promise<HostedSite[]> {
  const opened: HostedSite[] = [];
  for (const site of sites) {
    try {
      await requireMember(db, request, site, providerToken);
      opened.push(site);
    } catch (error) {
      // A missing or malformed header is the same answer for every site: give it as requireMember words it.
      if (!(error instanceof ServerError) || !request.headers.authorization) throw error;
    }
  }
  if (opened.length === 0) throw new ServerError('E_OWNER_KEY_NO_SITE');
  return opened;
}

/** What the dashboard shows of a site: never its key, nothing the site's own pages do not show already. */
export function siteSummary(site: HostedSite): SiteSummary {
  return {
    name: site.name,
    hash: site.hash,
    companyName: site.config.companyName,
    origin: site.config.origin,
    iconUrl: site.config.style?.iconUrl ?? null,
  };
}
