// GET /api/v1/sites/:name/stats?days=N: the owner dashboard's overview figures, inside the owner scope
// (ownerSiteHook has checked the site's key).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ownedSite } from '../http/owner-auth.ts';
import { daysQuery, parseParams } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import { DEFAULT_CONVERSION_WINDOW_HOURS } from '../campaigns/index.ts';
import { siteStats } from './site-stats.ts';
import type { StatsReply } from '../../contract/owner-api.ts';

const statsSchema = z.object({ days: daysQuery });

export async function statsRoutes(app: FastifyInstance, { db }: RouteContext): Promise<void> {
  app.get('/api/v1/sites/:name/stats', async (request): Promise<StatsReply> => {
    const site = ownedSite(request);
    const { days } = parseParams(statsSchema, request.query);
    return {
      status: 'success',
      ...(await siteStats(db, site.hash, days, site.config.conversionWindowHours ?? DEFAULT_CONVERSION_WINDOW_HOURS)),
    };
  });
}
