// The services calls of spec section 7 about one visitor: segment adds (/as, c.gif), custom tags (/tags),
// user properties (/dyn), custom dimensions and the page-click tracking consent. Each names a subscriber and
// must show its secret (subscriber-proof.ts); with no Origin header (JSONP, image beacons) the secret is the
// only proof there is.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import { checkCallbackHook, sendReply } from '../http/reply.ts';
import { STORED_REPLY } from '../http/reply-schemas.ts';
import type { RouteContext } from '../http/route-context.ts';
import type { ZodTypeProvider } from '../http/route-schemas.ts';
import { requireOrigin } from '../http/site-access.ts';
import { addMembershipTo, removeMembership, segmentsOfSubscriber } from '../segments/index.ts';
import { dimensionValues, requireProvenSubscriber, setTags, tagsOf } from '../subscribers/index.ts';
import { TRANSPARENT_GIF } from './beacon-gif.ts';
import {
  addToSegmentSchema,
  ATTRIBUTES_REPLY,
  attributesSchema,
  beaconSchema,
  CONSENT_REPLY,
  consentSchema,
  dynSchema,
  tagsSchema,
  USER_PROPERTIES_REPLY,
} from './schemas.ts';
import { segmentForVisitor } from './visitor-segments.ts';
import { clientAddressKey } from '../http/client-address.ts';

/** `name[]=a&name[]=b` or `name=a&name=b`, one value or many: the subscriber list of /as and its secrets. */
function listParam(query: Record<string, unknown>, name: string): unknown {
  const value = query[name + '[]'] ?? query[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Reads /as's lists either way before its schema checks them. */
async function readLists(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown>;
  request.query = {
    ...query,
    subscriber_list: listParam(query, 'subscriber_list'),
    subscriberSecret: listParam(query, 'subscriberSecret'),
  };
}

const jsonp = { preValidation: checkCallbackHook };

export async function visitorDataRoutes(fastify: FastifyInstance, { db, registry }: RouteContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/as',
    { preValidation: [checkCallbackHook, readLists], schema: { querystring: addToSegmentSchema, response: { 200: STORED_REPLY } } },
    async (request, reply) => {
      const params = request.query;
      const site = registry.require(params.customer_hash, 'customer_hash');
      requireOrigin(request, site);
      // Each listed subscriber is proven by the secret at the same place in subscriberSecret[]; one listed twice is
      // one member, written once.
      const listed = new Map<string, string | undefined>();
      for (const [index, id] of params.subscriber_list.entries()) {
        if (!listed.has(id)) listed.set(id, params.subscriberSecret?.[index]);
      }
      for (const [id, secret] of listed) await requireProvenSubscriber(db, site, id, secret, 'subscriber_list');
      const creator = { subscriberId: params.subscriber_list[0]!, address: clientAddressKey(request.ip) };
      await db.transaction(async (tx) => {
        const segment = await segmentForVisitor(tx, site, params.id, creator);
        if ('bound' in segment) throw new ServerError('E_SEGMENT_NOT_DEFINED', { param: 'id', sid: params.id, ...segment.bound });
        for (const id of listed.keys()) {
          await addMembershipTo(tx, segment.id, id, 'as', params.customTag);
          await tx.query('INSERT INTO events (site_hash, subscriber_id, kind, detail) VALUES ($1, $2, $3, $4)', [
            site.hash,
            id,
            'segment-add',
            JSON.stringify({ segment: params.id, customTag: params.customTag ?? null }),
          ]);
        }
      });
      return sendReply(request, reply, { status: 'success' });
    },
  );

  // GET from the debounced batch; POST (parameters in the query, body ignored) from navigator.sendBeacon when
  // the page hides, so tags set just before leaving are not lost.
  const tagsRoute = { ...jsonp, schema: { querystring: tagsSchema, response: { 200: STORED_REPLY } } };
  const storeTags = async (request: FastifyRequest<{ Querystring: z.output<typeof tagsSchema> }>, reply: FastifyReply) => {
    const params = request.query;
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    const tags = Object.fromEntries(Object.entries(params.tags).map(([key, value]) => [key, value === null ? null : String(value)]));
    await setTags(db, params.subscriberId, tags);
    return sendReply(request, reply, { status: 'success' });
  };
  app.get('/tags', tagsRoute, storeTags);
  app.post('/tags', tagsRoute, storeTags);

  app.get('/dyn', { ...jsonp, schema: { querystring: dynSchema, response: { 200: USER_PROPERTIES_REPLY } } }, async (request, reply) => {
    const params = request.query;
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    if (!params.subscriberId) return sendReply(request, reply, { status: 'success', tags: {}, segments: [] });
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    return sendReply(request, reply, {
      status: 'success',
      tags: await tagsOf(db, params.subscriberId),
      segments: await segmentsOfSubscriber(db, params.subscriberId),
    });
  });

  app.get(
    '/getSubscriberAttributes.php',
    { ...jsonp, schema: { querystring: attributesSchema, response: { 200: ATTRIBUTES_REPLY } } },
    async (request, reply) => {
      const params = request.query;
      const site = registry.require(params.hash, 'hash');
      requireOrigin(request, site);
      await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
      return sendReply(request, reply, {
        status: 'success',
        result: await dimensionValues(db, params.subscriberId, params.customDimensions),
      });
    },
  );

  app.get(
    '/getSubscriptionClickTrackingPermissionDetails.php',
    { ...jsonp, schema: { querystring: consentSchema, response: { 200: CONSENT_REPLY } } },
    async (request, reply) => {
      const params = request.query;
      const site = registry.require(params.customerHash, 'customerHash');
      requireOrigin(request, site);
      await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
      const { rows } = await db.query<{ page_click_tracking_permission: number | null }>(
        'SELECT page_click_tracking_permission FROM subscribers WHERE site_hash = $1 AND id = $2',
        [site.hash, params.subscriberId],
      );
      if (!rows[0]) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param: 'subscriberId', id: params.subscriberId });
      return sendReply(request, reply, { status: 'success', pageClickTrackingPermission: rows[0].page_click_tracking_permission });
    },
  );

  // An image beacon: the reply is a 1x1 GIF, whatever happened (a failure is the catalogue's JSON, which an
  // <img> ignores).
  app.get('/c.gif', { schema: { querystring: beaconSchema } }, async (request, reply) => {
    const params = request.query;
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    await db.transaction(async (tx) => {
      if (params.action === 'add-segment') {
        const segment = await segmentForVisitor(tx, site, params.segment, {
          subscriberId: params.subscriberId,
          address: clientAddressKey(request.ip),
        });
        if ('bound' in segment) throw new ServerError('E_SEGMENT_NOT_DEFINED', { param: 'segment', sid: params.segment, ...segment.bound });
        await addMembershipTo(tx, segment.id, params.subscriberId, 'click');
      } else await removeMembership(tx, site.hash, params.segment, params.subscriberId);
      await tx.query('INSERT INTO events (site_hash, subscriber_id, kind, detail) VALUES ($1, $2, $3, $4)', [
        site.hash,
        params.subscriberId,
        params.action === 'add-segment' ? 'segment-add' : 'segment-remove',
        JSON.stringify({ segment: params.segment, subscriptionId: params.subscriptionId ?? null }),
      ]);
    });
    return reply.type('image/gif').header('cache-control', 'no-store').send(TRANSPARENT_GIF);
  });
}
