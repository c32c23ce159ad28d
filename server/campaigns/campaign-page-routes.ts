// The owner API of a campaign's page (the dashboard's Campaigns screen), inside the owner scope:
//   GET  /api/v1/sites/:name/campaigns/:id/figures      over time, by browser, by A/B variant
//   GET  /api/v1/sites/:name/campaigns/:id/results.csv  its results as CSV, streamed
//   POST /api/v1/sites/:name/campaigns/:id/resend       a new campaign to those it was delivered to who did not click
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { campaignCsv } from './campaign-csv.ts';
import { campaignFigures } from './campaign-figures.ts';
import { siteCampaign } from './owner-campaigns.ts';
import { resendToNonClickers } from './resend.ts';
import { CAMPAIGN_FIGURES_REPLY, CAMPAIGN_RESENT_REPLY, campaignParams } from './schemas.ts';

export async function campaignPageRoutes(fastify: FastifyInstance, { db, campaigns }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/v1/sites/:name/campaigns/:id/figures',
    { config: { role: 'viewer' }, schema: { params: campaignParams, response: { 200: CAMPAIGN_FIGURES_REPLY } } },
    async (request) => {
      const campaign = await siteCampaign(db, ownedSite(request), request.params.id);
      return { status: 'success' as const, ...(await campaignFigures(db, campaign.campaignId)) };
    },
  );

  app.get(
    '/api/v1/sites/:name/campaigns/:id/results.csv',
    { config: { role: 'viewer' }, schema: { params: campaignParams } },
    async (request, reply) => {
      const campaign = await siteCampaign(db, ownedSite(request), request.params.id);
      const figures = await campaignFigures(db, campaign.campaignId);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="campaign-${campaign.campaignId}.csv"`)
        .send(Readable.from(campaignCsv(campaign, figures)));
    },
  );

  app.post(
    '/api/v1/sites/:name/campaigns/:id/resend',
    {
      config: { role: 'editor', audit: 'campaign.resend' },
      schema: { params: campaignParams, response: { 201: CAMPAIGN_RESENT_REPLY } },
    },
    async (request, reply) => {
      const site = ownedSite(request);
      const resent = await resendToNonClickers(db, site, request.params.id);
      campaigns?.enqueue(site.hash, resent.campaignId);
      return reply.code(201).send({ status: 'success', ...resent });
    },
  );
}
