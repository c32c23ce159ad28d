// The owner API under /api/v1/sites: `GET /api/v1/sites` (the sites a key opens, for the dashboard's sign-in and
// site switcher), and every capability's routes under /api/v1/sites/:name/ in one scope whose preHandler
// (ownerSiteHook) checks the site's owner key before any of them runs.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ownerSiteHook } from './owner-auth.ts';
import { siteSummary, sitesOpenedBy } from './owner-sites.ts';
import { SITES_REPLY } from './reply-schemas.ts';
import type { RouteContext } from './route-context.ts';
import type { SitesReply } from '../../contract/owner-api.ts';

export interface OwnerApiOptions extends RouteContext {
  /** Each capability's owner routes (a fastify plugin each), registered inside the owner key's scope. */
  siteRoutes: FastifyPluginAsync<RouteContext>[];
}

export async function ownerApi(app: FastifyInstance, { siteRoutes, ...context }: OwnerApiOptions): Promise<void> {
  const { db, registry, providerToken } = context;
  // 401 when the key opens no site.
  app.get('/api/v1/sites', { schema: { response: { 200: SITES_REPLY } } }, async (request): Promise<SitesReply> => {
    const opened = await sitesOpenedBy(db, request, registry.sites, providerToken);
    return { status: 'success', sites: opened.map(siteSummary) };
  });

  // A plugin of its own, so that the key check stays inside it.
  await app.register(async (scope) => {
    scope.addHook('preValidation', ownerSiteHook(context));
    for (const routes of siteRoutes) await scope.register(routes, context);
  });
}
