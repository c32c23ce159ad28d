// The owner API of a site's campaigns, inside the owner scope (ownerSiteHook has checked the site's key):
//   POST /api/v1/sites/:name/campaigns              create (now, at a time, at each subscriber's local time, A/B)
//   GET  /api/v1/sites/:name/campaigns              newest first, with figures
//   GET  /api/v1/sites/:name/campaigns/:id          one, with figures (and its variants')
//   POST /api/v1/sites/:name/campaigns/:id/cancel   withdraws what has not gone
//   GET  /api/v1/sites/:name/audience               how many a campaign to all, a segment or a subscriber reaches
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ownedSite } from '../http/owner-auth.ts';
import { optionalText, pageQuery, parseParams, segmentIdParam, subscriberIdParam } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import { AUDIENCE_REPLY } from '../http/owner-api-replies.ts';
import { requireSegment } from '../segments/index.ts';
import { requireSubscriber } from '../subscribers/index.ts';
import { audienceSize } from './audience.ts';
import { cancelSiteCampaign, createSiteCampaign, siteCampaign, siteCampaigns } from './owner-campaigns.ts';
import { campaignInputSchema } from '../../contract/campaign-input.ts';
import { CAMPAIGN_ID_PATTERN } from '../../contract/ids.ts';
import type {
  AudienceReply,
  CampaignCancelledReply,
  CampaignCreatedReply,
  CampaignReply,
  CampaignsReply,
} from '../../contract/owner-api.ts';

const audienceSchema = z
  .object({ segment: optionalText(segmentIdParam), subscriberId: optionalText(subscriberIdParam) })
  .refine((query) => !(query.segment && query.subscriberId), { message: 'give a segment or a subscriberId, not both', path: ['segment'] });

const campaignParams = z.object({ id: z.string().regex(CAMPAIGN_ID_PATTERN, 'must be a campaign id (digits)') });

export async function campaignRoutes(app: FastifyInstance, { db, campaigns }: RouteContext): Promise<void> {
  const campaignOf = (request: FastifyRequest) => parseParams(campaignParams, request.params).id;

  app.post('/api/v1/sites/:name/campaigns', async (request, reply) => {
    const site = ownedSite(request);
    const body = parseParams(campaignInputSchema, request.body, 'body');
    const created = await createSiteCampaign(db, site, body, campaigns?.now());
    // A scheduled campaign is started by the provider's scheduler when its first delivery comes due.
    if (body.sendAt === undefined && body.localTime === undefined) campaigns?.enqueue(site.hash, created.campaignId);
    const createdReply: CampaignCreatedReply = { status: 'success', ...created };
    return reply.code(201).send(createdReply);
  });

  app.get('/api/v1/sites/:name/campaigns', async (request): Promise<CampaignsReply> => {
    const page = parseParams(pageQuery, request.query);
    return { status: 'success', campaigns: await siteCampaigns(db, ownedSite(request), page) };
  });

  app.post('/api/v1/sites/:name/campaigns/:id/cancel', async (request): Promise<CampaignCancelledReply> => {
    const site = ownedSite(request);
    const id = campaignOf(request);
    return { status: 'success', campaignId: id, cancelled: await cancelSiteCampaign(db, site, id) };
  });

  app.get('/api/v1/sites/:name/campaigns/:id', async (request): Promise<CampaignReply> => {
    const site = ownedSite(request);
    return { status: 'success', campaign: await siteCampaign(db, site, campaignOf(request)) };
  });

  app.get('/api/v1/sites/:name/audience', { schema: { response: AUDIENCE_REPLY } }, async (request): Promise<AudienceReply> => {
    const site = ownedSite(request);
    const audience = parseParams(audienceSchema, request.query);
    if (audience.segment) await requireSegment(db, site, audience.segment, 'segment');
    if (audience.subscriberId) await requireSubscriber(db, site, audience.subscriberId, 'subscriberId');
    return { status: 'success', recipients: await audienceSize(db, site.hash, audience) };
  });
}
