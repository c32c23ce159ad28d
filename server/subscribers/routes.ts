// The owner API of a site's subscribers, inside the owner scope (ownerSiteHook has checked the site's key):
//   GET    /api/v1/sites/:name/subscribers              paged, filtered by status, search or segment
//   GET    /api/v1/sites/:name/subscribers/count        by status
//   GET    /api/v1/sites/:name/subscribers/:id          one record
//   GET    /api/v1/sites/:name/subscribers/:id/export   everything stored, as a file (a privacy access request)
//   DELETE /api/v1/sites/:name/subscribers/:id          erased with what refers to them
//   PUT    /api/v1/sites/:name/subscribers/:id/dimensions
//   GET    /api/v1/sites/:name/subscriber-health        subscribers at risk and expiries per day
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ownedSite } from '../http/owner-auth.ts';
import { countQuery, daysQuery, optionalText, pageQuery, parseParams, segmentIdParam, subscriberIdParam, text } from '../http/params.ts';
import type { RouteContext } from '../http/route-context.ts';
import { requireSegment } from '../segments/index.ts';
import { ServerError } from '../errors.ts';
import { requireSubscriber } from './require-subscriber.ts';
import { countSubscribers, deleteSubscriber, exportSubscriber, listSubscribers, setDimensions } from './subscriber-records.ts';
import { subscriberHealth, AT_RISK_DELIVERIES_DEFAULT, AT_RISK_DELIVERIES_MAX } from './subscriber-health.ts';
import { DELETED_REPLY, SUBSCRIBER_COUNT_REPLY } from '../http/owner-api-replies.ts';
import {
  SUBSCRIBER_SEARCH_MAX_LENGTH,
  SUBSCRIBER_STATUSES,
  type DeletedReply,
  type DimensionsReply,
  type SubscriberCountsReply,
  type SubscriberExportFile,
  type SubscriberPageReply,
  type SubscriberReply,
} from '../../contract/owner-api.ts';
import type { SubscriberHealthReply } from '../../contract/automations.ts';

const subscriberListSchema = pageQuery.extend({
  status: optionalText(z.enum(SUBSCRIBER_STATUSES, { error: `must be one of ${SUBSCRIBER_STATUSES.join(', ')}` })),
  search: optionalText(
    z
      .string({ error: 'must be a single text value' })
      .max(SUBSCRIBER_SEARCH_MAX_LENGTH, `must be at most ${SUBSCRIBER_SEARCH_MAX_LENGTH} characters`),
  ),
  segment: optionalText(segmentIdParam),
  order: z.enum(['oldest', 'newest'], { error: 'must be oldest or newest' }).default('oldest'),
});

const dimensionsSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'dimension names are 1 to 64 letters, digits, "_" or "-"'),
  z.union([text(256), z.number(), z.boolean(), z.null()]),
);

const healthSchema = z.object({
  days: daysQuery,
  deliveries: countQuery(AT_RISK_DELIVERIES_MAX, AT_RISK_DELIVERIES_DEFAULT),
});

const subscriberOf = (request: FastifyRequest) => parseParams(z.object({ id: subscriberIdParam }), request.params).id;

export async function subscriberRoutes(app: FastifyInstance, { db }: RouteContext): Promise<void> {
  app.get('/api/v1/sites/:name/subscribers', async (request): Promise<SubscriberPageReply> => {
    const site = ownedSite(request);
    const query = parseParams(subscriberListSchema, request.query);
    if (query.segment) await requireSegment(db, site, query.segment, 'segment');
    const page = await listSubscribers(db, site.hash, query);
    return { status: 'success', total: page.total, limit: query.limit, offset: query.offset, subscribers: page.subscribers };
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
    if (!exported) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
    return { status: 'success', ...exported };
  });

  // A privacy access request: everything stored about the subscriber, as a file to hand over.
  app.get('/api/v1/sites/:name/subscribers/:id/export', async (request, reply) => {
    const site = ownedSite(request);
    const id = subscriberOf(request);
    const exported = await exportSubscriber(db, site.hash, id);
    if (!exported) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
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
    if (!(await deleteSubscriber(db, site.hash, id))) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param: 'id', id, site: site.name });
    return { status: 'success', deleted: id };
  });

  app.put('/api/v1/sites/:name/subscribers/:id/dimensions', async (request): Promise<DimensionsReply> => {
    const site = ownedSite(request);
    const id = subscriberOf(request);
    const dimensions = parseParams(dimensionsSchema, request.body, 'body');
    await requireSubscriber(db, site, id, 'id');
    await setDimensions(
      db,
      id,
      Object.fromEntries(Object.entries(dimensions).map(([key, value]) => [key, value === null ? null : String(value)])),
    );
    return { status: 'success' };
  });

  app.get('/api/v1/sites/:name/subscriber-health', async (request): Promise<SubscriberHealthReply> => {
    const site = ownedSite(request);
    const query = parseParams(healthSchema, request.query);
    return { status: 'success', ...(await subscriberHealth(db, site.hash, query.days, query.deliveries)) };
  });
}
