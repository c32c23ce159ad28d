// The owner API of a site's feeds, inside the owner scope (ownerSiteHook has checked the member's role):
//   GET    /api/v1/sites/:name/feeds        the feeds, each with its last poll and error   (viewer)
//   POST   /api/v1/sites/:name/feeds        add one: url, segment, intervalMinutes, mode   (editor)
//   DELETE /api/v1/sites/:name/feeds/:id    remove it and the items it has seen            (editor)
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { addSiteFeed, removeSiteFeed, siteFeeds } from './owner-feeds.ts';
import { feedBody, feedParams, FEED_REMOVED_REPLY, FEED_REPLY, FEEDS_REPLY } from './schemas.ts';
import type { FeedUrlPolicy } from './feed-urls.ts';

/** The routes, checking feed URLs by the provider's `policy`. */
export function feedRoutes(policy: FeedUrlPolicy): FastifyPluginAsync<RouteContext> {
  return async (fastify: FastifyInstance, { db, clock }: RouteContext) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const base = '/api/v1/sites/:name/feeds';

    app.get(base, { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, response: { 200: FEEDS_REPLY } } }, async (request) => ({
      status: 'success' as const,
      feeds: await siteFeeds(db, ownedSite(request)),
    }));

    app.post(
      base,
      { config: { role: 'editor', audit: 'feed.create' }, schema: { params: SITE_PARAMS, body: feedBody, response: { 201: FEED_REPLY } } },
      async (request, reply) => {
        const feed = await addSiteFeed(db, ownedSite(request), request.body, policy, clock());
        return reply.code(201).send({ status: 'success', feed });
      },
    );

    app.delete(
      `${base}/:id`,
      { config: { role: 'editor', audit: 'feed.remove' }, schema: { params: feedParams, response: { 200: FEED_REMOVED_REPLY } } },
      async (request) => {
        await removeSiteFeed(db, ownedSite(request), request.params.id);
        return { status: 'success' as const, feedId: request.params.id, removed: true as const };
      },
    );
  };
}
