// The owner API under /api/v1/sites/:name/, for the site owner's own tools and the owner dashboard:
// subscribers (paged, searched, counted, exported, deleted), overview figures, segments and their members,
// custom dimensions and campaigns. Every call under /:name/ needs the site's owner key, checked by one hook
// (ownerSiteHook) for all of them.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CONDITION_MAX_LENGTH, formatConditionError } from '../../contract/conditions.ts';
import { compileCondition } from '../../compiler/segment-condition.ts';
import {
  cancelCampaign,
  createCampaign,
  DEFAULT_CONVERSION_WINDOW_HOURS,
  getCampaign,
  listCampaigns,
} from '../campaigns/campaign-store.ts';
import { ownedSite, ownerSiteHook } from './owner-auth.ts';
import { conditionCheckRoute } from '../segments/condition-check-route.ts';
import { ownerAutomationRoutes } from '../automations/routes.ts';
import { siteSummary, sitesOpenedBy } from './owner-sites.ts';
import { audienceSize } from '../campaigns/audience.ts';
import { siteStats } from '../stats/site-stats.ts';
import { daysQuery, parseParams, segmentIdParam, subscriberIdParam, text } from './params.ts';
import { RequestError } from './reply.ts';
import {
  AUDIENCE_REPLY,
  DELETED_REPLY,
  MEMBER_ADDED_REPLY,
  MEMBER_REMOVED_REPLY,
  SITES_REPLY,
  SUBSCRIBER_COUNT_REPLY,
} from './owner-api-replies.ts';
import {
  addMembership,
  createSegment,
  deleteSegment,
  isMember,
  listSegments,
  removeMembership,
  segmentExists,
} from '../segments/segment-store.ts';
import {
  countSubscribers,
  deleteSubscriber,
  exportSubscriber,
  listSubscribers,
  setDimensions,
  subscriberExists,
} from '../subscribers/subscriber-records.ts';
import type { RouteContext } from './route-context.ts';
import { campaignInputSchema } from '../../contract/campaign-input.ts';
import { CAMPAIGN_ID_PATTERN, SEGMENT_ID_RULE } from '../../contract/ids.ts';
import {
  PAGE_MAX,
  SEGMENT_NAME_MAX_LENGTH,
  SUBSCRIBER_SEARCH_MAX_LENGTH,
  SUBSCRIBER_STATUSES,
  type AudienceReply,
  type CampaignCreatedReply,
  type CampaignReply,
  type CampaignCancelledReply,
  type CampaignsReply,
  type DeletedReply,
  type DimensionsReply,
  type MemberAddedReply,
  type MemberRemovedReply,
  type Segment,
  type SegmentCreatedReply,
  type SegmentsReply,
  type SitesReply,
  type StatsReply,
  type SubscriberCountsReply,
  type SubscriberExportFile,
  type SubscriberPageReply,
  type SubscriberReply,
} from '../../contract/owner-api.ts';

const pageSchema = z.object({
  limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1).max(PAGE_MAX).default(100),
  offset: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0).default(0),
});

const emptyIsAbsent = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const subscriberListSchema = pageSchema.extend({
  status: emptyIsAbsent(z.enum(SUBSCRIBER_STATUSES, { error: `must be one of ${SUBSCRIBER_STATUSES.join(', ')}` })),
  search: emptyIsAbsent(
    z
      .string({ error: 'must be a single text value' })
      .max(SUBSCRIBER_SEARCH_MAX_LENGTH, `must be at most ${SUBSCRIBER_SEARCH_MAX_LENGTH} characters`),
  ),
  segment: emptyIsAbsent(segmentIdParam),
  order: z.enum(['oldest', 'newest'], { error: 'must be oldest or newest' }).default('oldest'),
});

const statsSchema = z.object({ days: daysQuery });

const audienceSchema = z
  .object({ segment: emptyIsAbsent(segmentIdParam), subscriberId: emptyIsAbsent(subscriberIdParam) })
  .refine((query) => !(query.segment && query.subscriberId), { message: 'give a segment or a subscriberId, not both', path: ['segment'] });

const segmentBodySchema = z.strictObject({
  sid: z.union([z.int().positive().transform(String), segmentIdParam], { error: SEGMENT_ID_RULE }),
  name: text(SEGMENT_NAME_MAX_LENGTH).min(1, 'must not be empty').optional(),
  condition: z
    .string({ error: 'must be text' })
    .max(CONDITION_MAX_LENGTH, `must be at most ${CONDITION_MAX_LENGTH} characters`)
    .optional()
    .superRefine((source, ctx) => {
      if (source === undefined || source.trim() === '') return;
      const compiled = compileCondition(source, 'page');
      if (!compiled.ok) ctx.addIssue({ code: 'custom', message: formatConditionError(compiled.error) });
    }),
});

const dimensionsSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'dimension names are 1 to 64 letters, digits, "_" or "-"'),
  z.union([text(256), z.number(), z.boolean(), z.null()]),
);

export async function ownerApi(app: FastifyInstance, context: RouteContext): Promise<void> {
  const { db, registry } = context;
  // The sites this key opens (the dashboard's sign-in and site switcher); 401 when it opens none.
  app.get('/api/v1/sites', { schema: { response: SITES_REPLY } }, async (request): Promise<SitesReply> => {
    const opened = await sitesOpenedBy(db, request, registry.sites);
    return { status: 'success', sites: opened.map(siteSummary) };
  });

  await app.register(ownerSiteRoutes, context);
}

/** Everything about one site, in a plugin of its own so that its key check stays inside. */
async function ownerSiteRoutes(app: FastifyInstance, context: RouteContext): Promise<void> {
  const { db, campaigns } = context;
  app.addHook('preHandler', ownerSiteHook(context));
  conditionCheckRoute(app);
  await app.register(ownerAutomationRoutes, context);
  const subscriberOf = (request: FastifyRequest) => parseParams(z.object({ id: subscriberIdParam }), request.params).id;

  app.get('/api/v1/sites/:name/subscribers', async (request): Promise<SubscriberPageReply> => {
    const site = ownedSite(request);
    const query = parseParams(subscriberListSchema, request.query);
    if (query.segment && !(await segmentExists(db, site.hash, query.segment))) {
      throw new RequestError('E_SEGMENT_UNKNOWN', { param: 'segment', sid: query.segment, site: site.name });
    }
    const page = await listSubscribers(db, site.hash, query);
    return { status: 'success', total: page.total, limit: query.limit, offset: query.offset, subscribers: page.subscribers };
  });

  app.get('/api/v1/sites/:name/stats', async (request): Promise<StatsReply> => {
    const site = ownedSite(request);
    const { days } = parseParams(statsSchema, request.query);
    return {
      status: 'success',
      ...(await siteStats(db, site.hash, days, site.config.conversionWindowHours ?? DEFAULT_CONVERSION_WINDOW_HOURS)),
    };
  });

  app.get('/api/v1/sites/:name/audience', { schema: { response: AUDIENCE_REPLY } }, async (request): Promise<AudienceReply> => {
    const site = ownedSite(request);
    const audience = parseParams(audienceSchema, request.query);
    if (audience.segment && !(await segmentExists(db, site.hash, audience.segment))) {
      throw new RequestError('E_SEGMENT_UNKNOWN', { param: 'segment', sid: audience.segment, site: site.name });
    }
    if (audience.subscriberId && !(await subscriberExists(db, site.hash, audience.subscriberId))) {
      throw new RequestError('E_SUBSCRIBER_UNKNOWN', { param: 'subscriberId', id: audience.subscriberId, site: site.name });
    }
    return { status: 'success', recipients: await audienceSize(db, site.hash, audience) };
  });

  app.get(
    '/api/v1/sites/:name/subscribers/count',
    { schema: { response: SUBSCRIBER_COUNT_REPLY } },
    async (request): Promise<SubscriberCountsReply> => {
      const site = ownedSite(request);
      return { status: 'success', ...(await countSubscribers(db, site.hash)) };
    },
  );

  app.get('/api/v1/sites/:name/subscribers/:id', async (request): Promise<SubscriberReply> => {
    const site = ownedSite(request);
    const id = subscriberOf(request);
    const exported = await exportSubscriber(db, site.hash, id);
    if (!exported) throw new RequestError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
    return { status: 'success', ...exported };
  });

  // A privacy access request: everything stored about the subscriber, as a file to hand over.
  app.get('/api/v1/sites/:name/subscribers/:id/export', async (request, reply) => {
    const site = ownedSite(request);
    const id = subscriberOf(request);
    const exported = await exportSubscriber(db, site.hash, id);
    if (!exported) throw new RequestError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
    const file: SubscriberExportFile = { site: site.name, exportedAt: new Date().toISOString(), ...exported };
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="subscriber-${id.replace(/[^A-Za-z0-9_.-]/g, '_')}.json"`)
      .header('cache-control', 'no-store')
      .send(JSON.stringify(file, null, 2));
  });

  app.delete('/api/v1/sites/:name/subscribers/:id', { schema: { response: DELETED_REPLY } }, async (request): Promise<DeletedReply> => {
    const site = ownedSite(request);
    const id = subscriberOf(request);
    if (!(await deleteSubscriber(db, site.hash, id))) throw new RequestError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
    return { status: 'success', deleted: id };
  });

  app.put('/api/v1/sites/:name/subscribers/:id/dimensions', async (request): Promise<DimensionsReply> => {
    const site = ownedSite(request);
    const id = subscriberOf(request);
    const dimensions = parseParams(dimensionsSchema, request.body, 'body');
    if (!(await subscriberExists(db, site.hash, id))) throw new RequestError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
    await setDimensions(
      db,
      id,
      Object.fromEntries(Object.entries(dimensions).map(([key, value]) => [key, value === null ? null : String(value)])),
    );
    return { status: 'success' };
  });

  app.get('/api/v1/sites/:name/segments', async (request): Promise<SegmentsReply> => {
    const site = ownedSite(request);
    const stored = await listSegments(db, site.hash);
    // Segments of the site config join visitors in push.js; listed even before their first member.
    const inConfig = new Map(site.config.segmentations.map((entry) => [String(entry.sid), entry.ss]));
    const segments: Segment[] = stored.map((segment) => ({
      ...segment,
      configCondition: inConfig.get(segment.sid) ?? null,
    }));
    for (const [sid, ss] of inConfig) {
      if (!segments.some((segment) => segment.sid === sid))
        segments.push({ sid, name: sid, members: 0, condition: null, createdAt: null, configCondition: ss });
    }
    segments.sort((a, b) => (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : 0));
    return { status: 'success', segments };
  });

  app.post('/api/v1/sites/:name/segments', async (request, reply) => {
    const site = ownedSite(request);
    const body = parseParams(segmentBodySchema, request.body, 'body');
    const condition = body.condition?.trim() ? body.condition.trim() : undefined;
    if (!(await createSegment(db, site.hash, body.sid, body.name ?? body.sid, condition))) {
      throw new RequestError('E_SEGMENT_EXISTS', { sid: body.sid });
    }
    const created: SegmentCreatedReply = { status: 'success', sid: body.sid, name: body.name ?? body.sid, condition: condition ?? null };
    return reply.code(201).send(created);
  });

  const memberParams = z.object({ sid: segmentIdParam, id: subscriberIdParam });
  const memberOf = async (request: FastifyRequest) => {
    const site = ownedSite(request);
    const { sid, id } = parseParams(memberParams, request.params);
    if (!(await segmentExists(db, site.hash, sid)))
      throw new RequestError('E_SEGMENT_UNKNOWN', { param: 'sid', sid: sid, site: site.name });
    if (!(await subscriberExists(db, site.hash, id))) throw new RequestError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
    return { site, sid, id };
  };

  app.put(
    '/api/v1/sites/:name/segments/:sid/members/:id',
    { schema: { response: MEMBER_ADDED_REPLY } },
    async (request): Promise<MemberAddedReply> => {
      const { site, sid, id } = await memberOf(request);
      const already = await isMember(db, site.hash, sid, id);
      if (!already) await addMembership(db, site.hash, sid, id, 'owner');
      return { status: 'success', sid, subscriberId: id, added: !already };
    },
  );

  app.delete(
    '/api/v1/sites/:name/segments/:sid/members/:id',
    { schema: { response: MEMBER_REMOVED_REPLY } },
    async (request): Promise<MemberRemovedReply> => {
      const { site, sid, id } = await memberOf(request);
      if (!(await removeMembership(db, site.hash, sid, id))) throw new RequestError('E_MEMBER_UNKNOWN', { id, sid });
      return { status: 'success', sid, subscriberId: id, removed: true };
    },
  );

  app.delete('/api/v1/sites/:name/segments/:sid', { schema: { response: DELETED_REPLY } }, async (request): Promise<DeletedReply> => {
    const site = ownedSite(request);
    const { sid } = parseParams(z.object({ sid: segmentIdParam }), request.params);
    if (!(await deleteSegment(db, site.hash, sid)))
      throw new RequestError('E_SEGMENT_UNKNOWN', { param: 'sid', sid: sid, site: site.name });
    return { status: 'success', deleted: sid };
  });

  app.post('/api/v1/sites/:name/campaigns', async (request, reply) => {
    const site = ownedSite(request);
    const body = parseParams(campaignInputSchema, request.body, 'body');
    if (body.subscriberId && !(await subscriberExists(db, site.hash, body.subscriberId))) {
      throw new RequestError('E_SUBSCRIBER_UNKNOWN', { param: 'subscriberId', id: body.subscriberId, site: site.name });
    }
    if (body.segment) {
      const segment = await db.query('SELECT 1 FROM segments WHERE site_hash = $1 AND sid = $2', [site.hash, body.segment]);
      if (segment.rows.length === 0) throw new RequestError('E_SEGMENT_UNKNOWN', { param: 'segment', sid: body.segment, site: site.name });
    }
    const created = await createCampaign(db, site, body, campaigns?.now());
    // A scheduled campaign is started by the provider's scheduler when its first delivery comes due.
    if (body.sendAt === undefined && body.localTime === undefined) campaigns?.enqueue(site.hash, created.campaignId);
    const createdReply: CampaignCreatedReply = { status: 'success', ...created };
    return reply.code(201).send(createdReply);
  });

  app.get('/api/v1/sites/:name/campaigns', async (request): Promise<CampaignsReply> => {
    const site = ownedSite(request);
    const page = parseParams(pageSchema, request.query);
    return { status: 'success', campaigns: await listCampaigns(db, site.hash, page.limit, page.offset, site.config.conversionWindowHours) };
  });

  app.post('/api/v1/sites/:name/campaigns/:id/cancel', async (request): Promise<CampaignCancelledReply> => {
    const site = ownedSite(request);
    const { id } = parseParams(z.object({ id: z.string().regex(CAMPAIGN_ID_PATTERN, 'must be a campaign id (digits)') }), request.params);
    const cancelled = await cancelCampaign(db, site.hash, id);
    if (cancelled === null) {
      const campaign = await getCampaign(db, site.hash, id);
      if (!campaign) throw new RequestError('E_CAMPAIGN_UNKNOWN', { param: 'id', id, site: site.name });
      throw new RequestError('E_CAMPAIGN_NOT_CANCELLABLE', { id, status: campaign.status });
    }
    return { status: 'success', campaignId: id, cancelled };
  });

  app.get('/api/v1/sites/:name/campaigns/:id', async (request): Promise<CampaignReply> => {
    const site = ownedSite(request);
    const { id } = parseParams(z.object({ id: z.string().regex(CAMPAIGN_ID_PATTERN, 'must be a campaign id (digits)') }), request.params);
    const campaign = await getCampaign(db, site.hash, id, site.config.conversionWindowHours);
    if (!campaign) throw new RequestError('E_CAMPAIGN_UNKNOWN', { param: 'id', id, site: site.name });
    return { status: 'success', campaign };
  });
}
