// The owner API of a site's subscribers, inside the owner scope (ownerSiteHook has checked the site's key):
//   GET    /api/v1/sites/:name/subscribers              paged, filtered by status, search or segment
//   GET    /api/v1/sites/:name/subscribers/count        by status
//   GET    /api/v1/sites/:name/subscribers/:id          one record
//   GET    /api/v1/sites/:name/subscribers/:id/export   everything stored, as a file (a privacy access request)
//   DELETE /api/v1/sites/:name/subscribers/:id          erased with what refers to them
//   PUT    /api/v1/sites/:name/subscribers/:id/dimensions
//   GET    /api/v1/sites/:name/subscriber-health        subscribers at risk and expiries per day (of ?zone=)
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ownedSite } from '../http/owner-auth.ts';
import { SITE_PARAMS } from '../http/params.ts';
import { DELETED_REPLY, STORED_REPLY } from '../http/reply-schemas.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { requireSegment } from '../segments/index.ts';
import { requireSubscriber } from './require-subscriber.ts';
import {
  dimensionsBody,
  healthQuery,
  SUBSCRIBER_COUNT_REPLY,
  SUBSCRIBER_HEALTH_REPLY,
  SUBSCRIBER_PAGE_REPLY,
  SUBSCRIBER_REPLY,
  subscriberListQuery,
  subscriberParams,
} from './schemas.ts';
import { countSubscribers, listSubscribers, setDimensions } from './subscriber-records.ts';
import { eraseSubscriber, subscriberRecord } from './owner-subscribers.ts';
import { subscriberHealth } from './subscriber-health.ts';
import { subscriberCsv } from './subscriber-csv.ts';
import type { SubscriberExportFile } from '../../contract/owner-api.ts';

export async function subscriberRoutes(fastify: FastifyInstance, { db }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/v1/sites/:name/subscribers',
    {
      config: { role: 'editor' },
      schema: { params: SITE_PARAMS, querystring: subscriberListQuery, response: { 200: SUBSCRIBER_PAGE_REPLY } },
    },
    async (request) => {
      const site = ownedSite(request);
      const query = request.query;
      if (query.segment) await requireSegment(db, site, query.segment, 'segment');
      const page = await listSubscribers(db, site.hash, query);
      return { status: 'success' as const, total: page.total, limit: query.limit, offset: query.offset, subscribers: page.subscribers };
    },
  );

  // The list as filtered on screen, as CSV (streamed): an export of personal data, so the owner's.
  app.get(
    '/api/v1/sites/:name/subscribers.csv',
    {
      config: { role: 'owner', audit: 'subscribers.export' },
      schema: { params: SITE_PARAMS, querystring: subscriberListQuery.omit({ limit: true, offset: true }) },
    },
    async (request, reply) => {
      const site = ownedSite(request);
      if (request.query.segment) await requireSegment(db, site, request.query.segment, 'segment');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="subscribers-${site.name}.csv"`)
        .header('cache-control', 'no-store')
        .send(Readable.from(subscriberCsv(db, site.hash, request.query)));
    },
  );

  app.get(
    '/api/v1/sites/:name/subscribers/count',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, response: { 200: SUBSCRIBER_COUNT_REPLY } } },
    async (request) => ({ status: 'success' as const, ...(await countSubscribers(db, ownedSite(request).hash)) }),
  );

  app.get(
    '/api/v1/sites/:name/subscribers/:id',
    { config: { role: 'editor' }, schema: { params: subscriberParams, response: { 200: SUBSCRIBER_REPLY } } },
    async (request) => {
      return { status: 'success' as const, ...(await subscriberRecord(db, ownedSite(request), request.params.id)) };
    },
  );

  // A privacy access request: everything stored about the subscriber, as a file to hand over (its shape is
  // SUBSCRIBER_REPLY's record beside the site and the time, written as it is stored).
  app.get(
    '/api/v1/sites/:name/subscribers/:id/export',
    { config: { role: 'owner', audit: 'subscriber.export' }, schema: { params: subscriberParams } },
    async (request, reply) => {
      const site = ownedSite(request);
      const { id } = request.params;
      const exported = await subscriberRecord(db, site, id);
      const file: SubscriberExportFile = { site: site.name, exportedAt: new Date().toISOString(), ...exported };
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="subscriber-${id.replace(/[^A-Za-z0-9_.-]/g, '_')}.json"`)
        .header('cache-control', 'no-store')
        .send(JSON.stringify(file, null, 2));
    },
  );

  app.delete(
    '/api/v1/sites/:name/subscribers/:id',
    { config: { role: 'owner', audit: 'subscriber.erase' }, schema: { params: subscriberParams, response: { 200: DELETED_REPLY } } },
    async (request) => {
      const { id } = request.params;
      await eraseSubscriber(db, ownedSite(request), id);
      return { status: 'success' as const, deleted: id };
    },
  );

  app.put(
    '/api/v1/sites/:name/subscribers/:id/dimensions',
    {
      config: { role: 'editor', audit: 'subscriber.dimensions' },
      schema: { params: subscriberParams, body: dimensionsBody, response: { 200: STORED_REPLY } },
    },
    async (request) => {
      const site = ownedSite(request);
      const { id } = request.params;
      await requireSubscriber(db, site, id, 'id');
      const dimensions = Object.entries(request.body).map(([key, value]) => [key, value === null ? null : String(value)]);
      await setDimensions(db, id, Object.fromEntries(dimensions));
      return { status: 'success' as const };
    },
  );

  app.get(
    '/api/v1/sites/:name/subscriber-health',
    { config: { role: 'viewer' }, schema: { params: SITE_PARAMS, querystring: healthQuery, response: { 200: SUBSCRIBER_HEALTH_REPLY } } },
    async (request) => {
      const query = request.query;
      return {
        status: 'success' as const,
        ...(await subscriberHealth(db, ownedSite(request).hash, query.days, query.deliveries, query.zone)),
      };
    },
  );
}
