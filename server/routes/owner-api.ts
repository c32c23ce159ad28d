// The owner API under /api/v1/sites/:name/, for the site owner's own tools: subscribers (list, count,
// export, delete), segments, custom dimensions and campaigns. Every call needs the site's owner key.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { createCampaign, getCampaign, listCampaigns, URGENCIES } from '../campaigns.ts';
import { requireOwner } from '../owner-auth.ts';
import { parseParams, segmentIdParam, subscriberIdParam } from '../params.ts';
import { RequestError } from '../reply.ts';
import { createSegment, deleteSegment, listSegments } from '../segments.ts';
import type { HostedSite } from '../sites.ts';
import {
  countSubscribers,
  deleteSubscriber,
  exportSubscriber,
  listSubscribers,
  setDimensions,
  SUBSCRIBER_STATUSES,
  subscriberExists,
} from '../subscriber-records.ts';
import type { RouteContext } from './context.ts';

const MAX_PAGE = 1000;

const pageSchema = z.object({
  limit: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(1).max(MAX_PAGE).default(100),
  offset: z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0).default(0),
});

const subscriberListSchema = pageSchema.extend({
  status: z.enum(SUBSCRIBER_STATUSES, { error: `must be one of ${SUBSCRIBER_STATUSES.join(', ')}` }).optional(),
  search: z.string().min(1).max(200).optional(),
});

const segmentBodySchema = z.strictObject({
  sid: z.union([z.int().positive().transform(String), segmentIdParam], { error: 'must be 1 to 29 letters, digits, "_" or "-"' }),
  name: z.string().min(1).max(100).optional(),
});

const campaignBodySchema = z
  .strictObject({
    title: z.string().min(1, 'must not be empty').max(200),
    body: z.string().min(1, 'must not be empty').max(1000),
    url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048).optional(),
    icon: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(2048).optional(),
    segment: z.union([z.int().positive().transform(String), segmentIdParam], { error: 'must be a segment id' }).optional(),
    subscriberId: subscriberIdParam.optional(),
    ttl: z.int().min(0).max(2_419_200).default(86_400),
    urgency: z.enum(URGENCIES, { error: `must be one of ${URGENCIES.join(', ')}` }).default('normal'),
  })
  .refine((body) => !(body.segment && body.subscriberId), { message: 'give a segment or a subscriberId, not both', path: ['segment'] });

const dimensionsSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'dimension names are 1 to 64 letters, digits, "_" or "-"'),
  z.union([z.string().max(256), z.number(), z.boolean(), z.null()]),
);

const nameParams = z.object({ name: z.string() });

export function registerOwnerApi(app: FastifyInstance, { db, registry, campaigns }: RouteContext): void {
  const siteOf = async (request: FastifyRequest): Promise<HostedSite> => {
    const { name } = parseParams(nameParams, request.params);
    const site = registry.byNameOrNull(name);
    if (!site) throw new RequestError(404, `name: no hosted site named ${name}`);
    await requireOwner(db, request, site);
    return site;
  };
  const subscriberOf = (request: FastifyRequest) => parseParams(z.object({ id: subscriberIdParam }), request.params).id;

  app.get('/api/v1/sites/:name/subscribers', async (request) => {
    const site = await siteOf(request);
    const query = parseParams(subscriberListSchema, request.query);
    const page = await listSubscribers(db, site.hash, query);
    return { status: 'success', total: page.total, limit: query.limit, offset: query.offset, subscribers: page.subscribers };
  });

  app.get('/api/v1/sites/:name/subscribers/count', async (request) => {
    const site = await siteOf(request);
    return { status: 'success', ...(await countSubscribers(db, site.hash)) };
  });

  app.get('/api/v1/sites/:name/subscribers/:id', async (request) => {
    const site = await siteOf(request);
    const id = subscriberOf(request);
    const exported = await exportSubscriber(db, site.hash, id);
    if (!exported) throw new RequestError(404, `id: no subscriber ${id} on site ${site.name}`);
    return { status: 'success', ...exported };
  });

  app.delete('/api/v1/sites/:name/subscribers/:id', async (request) => {
    const site = await siteOf(request);
    const id = subscriberOf(request);
    if (!(await deleteSubscriber(db, site.hash, id))) throw new RequestError(404, `id: no subscriber ${id} on site ${site.name}`);
    return { status: 'success', deleted: id };
  });

  app.put('/api/v1/sites/:name/subscribers/:id/dimensions', async (request) => {
    const site = await siteOf(request);
    const id = subscriberOf(request);
    const dimensions = parseParams(dimensionsSchema, request.body);
    if (!(await subscriberExists(db, site.hash, id))) throw new RequestError(404, `id: no subscriber ${id} on site ${site.name}`);
    await setDimensions(db, id, Object.fromEntries(Object.entries(dimensions).map(([key, value]) => [key, value === null ? null : String(value)])));
    return { status: 'success' };
  });

  app.get('/api/v1/sites/:name/segments', async (request) => {
    const site = await siteOf(request);
    return { status: 'success', segments: await listSegments(db, site.hash) };
  });

  app.post('/api/v1/sites/:name/segments', async (request, reply) => {
    const site = await siteOf(request);
    const body = parseParams(segmentBodySchema, request.body);
    if (!(await createSegment(db, site.hash, body.sid, body.name ?? body.sid))) {
      throw new RequestError(409, `sid: segment ${body.sid} exists already`);
    }
    return reply.code(201).send({ status: 'success', sid: body.sid, name: body.name ?? body.sid });
  });

  app.delete('/api/v1/sites/:name/segments/:sid', async (request) => {
    const site = await siteOf(request);
    const { sid } = parseParams(z.object({ sid: segmentIdParam }), request.params);
    if (!(await deleteSegment(db, site.hash, sid))) throw new RequestError(404, `sid: no segment ${sid} on site ${site.name}`);
    return { status: 'success', deleted: sid };
  });

  app.post('/api/v1/sites/:name/campaigns', async (request, reply) => {
    const site = await siteOf(request);
    const body = parseParams(campaignBodySchema, request.body);
    if (body.subscriberId && !(await subscriberExists(db, site.hash, body.subscriberId))) {
      throw new RequestError(404, `subscriberId: no subscriber ${body.subscriberId} on site ${site.name}`);
    }
    if (body.segment) {
      const segment = await db.query('SELECT 1 FROM segments WHERE site_hash = $1 AND sid = $2', [site.hash, body.segment]);
      if (segment.rows.length === 0) throw new RequestError(404, `segment: no segment ${body.segment} on site ${site.name}`);
    }
    const created = await createCampaign(db, site, body);
    campaigns?.enqueue(site.hash, created.campaignId);
    return reply.code(201).send({ status: 'success', ...created });
  });

  app.get('/api/v1/sites/:name/campaigns', async (request) => {
    const site = await siteOf(request);
    const page = parseParams(pageSchema, request.query);
    return { status: 'success', campaigns: await listCampaigns(db, site.hash, page.limit, page.offset) };
  });

  app.get('/api/v1/sites/:name/campaigns/:id', async (request) => {
    const site = await siteOf(request);
    const { id } = parseParams(z.object({ id: z.string().regex(/^\d{1,18}$/, 'must be a campaign id (digits)') }), request.params);
    const campaign = await getCampaign(db, site.hash, id);
    if (!campaign) throw new RequestError(404, `id: no campaign ${id} on site ${site.name}`);
    return { status: 'success', campaign };
  });
}
