// GET /api/v1/sites/:name/stats?days=N&zone=Z: the owner dashboard's overview figures, per day of Z (the owner's
// display zone; UTC when left out), inside the owner scope
// (ownerSiteHook has checked the site's key).
import type { FastifyInstance } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { conversionWindowOf } from '../campaigns/index.ts';
import { STATS_REPLY, statsQuery } from './schemas.ts';
import { siteStats } from './site-stats.ts';

export async function statsRoutes(fastify: FastifyInstance, { db }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/v1/sites/:name/stats',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, querystring: statsQuery, response: { 200: STATS_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      const windowHours = conversionWindowOf(site.config);
      return { status: 'success' as const, ...(await siteStats(db, site.hash, request.query.days, windowHours, request.query.zone)) };
    },
  );
}
