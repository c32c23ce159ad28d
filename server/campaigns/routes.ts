// The owner API of a site's campaigns, inside the owner scope (ownerSiteHook has checked the site's key):
//   POST /api/v1/sites/:name/campaigns              create (now, at a time, at each subscriber's local time, A/B)
//   GET  /api/v1/sites/:name/campaigns              newest first (or oldest), with figures: a page, filtered by status and words
//   GET  /api/v1/sites/:name/campaigns/:id          one, with figures (and its variants')
//   POST /api/v1/sites/:name/campaigns/:id/cancel   withdraws what has not gone
//   GET  /api/v1/sites/:name/audience               how many a campaign to all, a segment or a subscriber reaches
import type { FastifyInstance } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { requireSegment } from '../segments/index.ts';
import { requireAudience } from '../audiences/index.ts';
import { requireSubscriber } from '../subscribers/index.ts';
import { audienceSize } from './audience.ts';
import { cancelSiteCampaign, createSiteCampaign, siteCampaign } from './owner-campaigns.ts';
import { campaignPageRoutes } from './campaign-page-routes.ts';
import { siteCampaignPage } from './campaign-page.ts';
import {
  AUDIENCE_REPLY,
  audienceQuery,
  CAMPAIGN_CANCELLED_REPLY,
  CAMPAIGN_CREATED_REPLY,
  CAMPAIGN_REPLY,
  campaignListQuery,
  campaignParams,
  CAMPAIGNS_REPLY,
} from './schemas.ts';
import { campaignInputSchema } from '../../contract/campaign-input.ts';

export async function campaignRoutes(fastify: FastifyInstance, context: RouteContext): Promise<void> {
  const { db, campaigns } = context;
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  await campaignPageRoutes(fastify, context);

  app.post(
    '/api/v1/sites/:name/campaigns',
    {
      config: { role: 'editor', audit: 'campaign.create' },
      schema: { params: SITE_PARAMS, body: campaignInputSchema, response: { 201: CAMPAIGN_CREATED_REPLY } },
    },
    async (request, reply) => {
      const site = ownedSite(request);
      const body = request.body;
      const created = await createSiteCampaign(db, site, body, campaigns?.now());
      // A scheduled campaign is started by the provider's scheduler when its first delivery comes due.
      if (body.sendAt === undefined && body.localTime === undefined) campaigns?.enqueue(site.hash, created.campaignId);
      return reply.code(201).send({ status: 'success', ...created });
    },
  );

  app.get(
    '/api/v1/sites/:name/campaigns',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, querystring: campaignListQuery, response: { 200: CAMPAIGNS_REPLY } } },
    async (request) => ({
      status: 'success' as const,
      ...(await siteCampaignPage(db, ownedSite(request), request.query, campaigns?.now())),
    }),
  );

  app.post(
    '/api/v1/sites/:name/campaigns/:id/cancel',
    {
      config: { role: 'editor', audit: 'campaign.cancel' },
      schema: { params: campaignParams, response: { 200: CAMPAIGN_CANCELLED_REPLY } },
    },
    async (request) => {
      const { id } = request.params;
      return { status: 'success' as const, campaignId: id, cancelled: await cancelSiteCampaign(db, ownedSite(request), id) };
    },
  );

  app.get(
    '/api/v1/sites/:name/campaigns/:id',
    { config: { role: 'viewer' }, schema: { params: campaignParams, response: { 200: CAMPAIGN_REPLY } } },
    async (request) => ({
      status: 'success' as const,
      campaign: await siteCampaign(db, ownedSite(request), request.params.id, campaigns?.now()),
    }),
  );

  app.get(
    '/api/v1/sites/:name/audience',
    { config: { role: 'editor' }, schema: { params: SITE_PARAMS, querystring: audienceQuery, response: { 200: AUDIENCE_REPLY } } },
    async (request) => {
      const site = ownedSite(request);
      const audience = request.query;
      if (audience.segment) await requireSegment(db, site, audience.segment, 'segment');
      if (audience.audience) await requireAudience(db, site, audience.audience, 'audience');
      if (audience.subscriberId) await requireSubscriber(db, site, audience.subscriberId, 'subscriberId');
      return { status: 'success' as const, recipients: await audienceSize(db, site.hash, audience) };
    },
  );
}
