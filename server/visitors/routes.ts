// The services calls of spec section 7 about one visitor: segment adds (/as, c.gif), custom tags (/tags),
// user properties (/dyn), custom dimensions and the page-click tracking consent. Each names a subscriber and
// must show its secret (subscriber-proof.ts); with no Origin header (JSONP, image beacons) the secret is the
// only proof there is.
import { ServerError } from '../errors.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { TRANSPARENT_GIF } from './beacon-gif.ts';
import {
  browserParam,
  optionalText,
  parseParams,
  segmentIdParam,
  siteHash,
  subscriberIdParam,
  subscriberSecretParam,
  text,
} from '../http/params.ts';
import { requireProvenSubscriber } from '../subscribers/index.ts';
import { checkCallback, sendReply } from '../http/reply.ts';
import { requireOrigin } from '../http/site-access.ts';
import { addMembershipTo, removeMembership, segmentsOfSubscriber } from '../segments/index.ts';
import { segmentForVisitor, VISITOR_SEGMENTS_PER_SITE } from './visitor-segments.ts';
import { dimensionValues, setTags, tagsOf } from '../subscribers/index.ts';
import type { RouteContext } from '../http/route-context.ts';
import {
  SEGMENT_BEACON_ACTIONS,
  type AddToSegmentQuery,
  type SegmentBeaconQuery,
  type StoredReply,
  type SubscriberAttributesQuery,
  type SubscriberAttributesReply,
  type TagsQuery,
  type TrackingConsentQuery,
  type TrackingConsentReply,
  type UserPropertiesQuery,
  type UserPropertiesReply,
} from '../../contract/visitor-calls.ts';
import { DIMENSION_NAME_PATTERN, MAX_DIMENSIONS } from '../../contract/ids.ts';

const MAX_LIST = 100;
const TAG_KEY = /^[A-Za-z0-9_. -]{1,64}$/;

const jsonText = <T extends z.ZodType>(schema: T, rule: string) =>
  text(8192).transform((value, ctx): z.output<T> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({ code: 'custom', message: rule });
      return z.NEVER;
    }
    return result.data;
  });

const tagsSchema = z.object({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  tags: jsonText(
    z
      .record(z.string().regex(TAG_KEY), z.union([text(256), z.number().finite(), z.boolean(), z.null()]))
      .refine((tags) => Object.keys(tags).length >= 1 && Object.keys(tags).length <= 50),
    'must be a JSON object of 1 to 50 tags: keys of 1 to 64 letters, digits, " ", ".", "_" or "-"; values text (at most 256 characters, no NUL characters), numbers, booleans or null',
  ),
  callback: z.string().optional(),
} satisfies Record<keyof TagsQuery, z.ZodType>);

const addToSegmentSchema = z.object({
  id: segmentIdParam,
  customer_hash: siteHash,
  subscriber_list: z
    .array(subscriberIdParam)
    .min(1, 'must name at least one subscriber')
    .max(MAX_LIST, `must name at most ${MAX_LIST} subscribers`),
  subscriberSecret: z.array(subscriberSecretParam).max(MAX_LIST).optional(),
  customTag: optionalText(text(64, /^[A-Za-z0-9_. -]+$/, 'must be at most 64 letters, digits, " ", ".", "_" or "-"')),
  callback: z.string().optional(),
} satisfies Record<
  Exclude<keyof AddToSegmentQuery, 'subscriber_list[]' | 'subscriberSecret[]'> | 'subscriber_list' | 'subscriberSecret',
  z.ZodType
>);

const dynSchema = z.object({
  hash: siteHash,
  subscriberId: optionalText(subscriberIdParam),
  subscriberSecret: optionalText(subscriberSecretParam),
  callback: z.string().optional(),
} satisfies Record<keyof UserPropertiesQuery, z.ZodType>);

const dimensionList = text(2048).transform((value, ctx) => {
  let names: unknown;
  if (value.trim().startsWith('[')) {
    try {
      names = JSON.parse(value);
    } catch {
      names = undefined;
    }
  } else {
    names = value
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  }
  const result = z.array(z.string().regex(DIMENSION_NAME_PATTERN)).min(1).max(MAX_DIMENSIONS).safeParse(names);
  if (!result.success) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be 1 to 50 dimension names (letters, digits, "_" or "-"), comma-separated or a JSON array',
    });
    return z.NEVER;
  }
  return [...new Set(result.data)];
});

const attributesSchema = z.object({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  customDimensions: dimensionList,
  browser: optionalText(browserParam),
  callback: z.string().optional(),
} satisfies Record<keyof SubscriberAttributesQuery, z.ZodType>);

const consentSchema = z.object({
  customerHash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  browser: optionalText(browserParam),
  callback: z.string().optional(),
} satisfies Record<keyof TrackingConsentQuery, z.ZodType>);

const beaconSchema = z.object({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  subscriptionId: optionalText(text(1024)),
  segment: segmentIdParam,
  action: z.enum(SEGMENT_BEACON_ACTIONS, { error: 'must be add-segment or remove-segment' }),
  _: z.string().optional(),
} satisfies Record<keyof SegmentBeaconQuery, z.ZodType>);

/** `name[]=a&name[]=b` or `name=a&name=b`, one value or many: the subscriber list of /as and its secrets. */
function listParam(query: Record<string, unknown>, name: string): unknown {
  const value = query[name + '[]'] ?? query[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

export async function visitorDataRoutes(app: FastifyInstance, { db, registry }: RouteContext): Promise<void> {
  app.get('/as', async (request, reply) => {
    checkCallback(request);
    const query = request.query as Record<string, unknown>;
    const params = parseParams(
      addToSegmentSchema,
      { ...query, subscriber_list: listParam(query, 'subscriber_list'), subscriberSecret: listParam(query, 'subscriberSecret') },
      'query',
    );
    const site = registry.require(params.customer_hash, 'customer_hash');
    requireOrigin(request, site);
    // Each listed subscriber is proven by the secret at the same place in subscriberSecret[].
    for (const [index, id] of params.subscriber_list.entries()) {
      await requireProvenSubscriber(db, site, id, params.subscriberSecret?.[index], 'subscriber_list');
    }
    await db.transaction(async (tx) => {
      const segmentId = await segmentForVisitor(tx, site, params.id);
      if (segmentId === null)
        throw new ServerError('E_SEGMENT_NOT_DEFINED', { param: 'id', sid: params.id, limit: VISITOR_SEGMENTS_PER_SITE });
      for (const id of params.subscriber_list) {
        await addMembershipTo(tx, segmentId, id, 'as', params.customTag);
        await tx.query('INSERT INTO events (site_hash, subscriber_id, kind, detail) VALUES ($1, $2, $3, $4)', [
          site.hash,
          id,
          'segment-add',
          JSON.stringify({ segment: params.id, customTag: params.customTag ?? null }),
        ]);
      }
    });
    return sendReply(request, reply, { status: 'success' } satisfies StoredReply);
  });

  // GET from the debounced batch; POST (parameters in the query, body ignored) from navigator.sendBeacon when
  // the page hides, so tags set just before leaving are not lost.
  const storeTags = async (request: FastifyRequest, reply: FastifyReply) => {
    checkCallback(request);
    const params = parseParams(tagsSchema, request.query, 'query');
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    const tags = Object.fromEntries(Object.entries(params.tags).map(([key, value]) => [key, value === null ? null : String(value)]));
    await setTags(db, params.subscriberId, tags);
    return sendReply(request, reply, { status: 'success' } satisfies StoredReply);
  };
  app.get('/tags', storeTags);
  app.post('/tags', storeTags);

  app.get('/dyn', async (request, reply) => {
    checkCallback(request);
    const params = parseParams(dynSchema, request.query, 'query');
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    if (!params.subscriberId) return sendReply(request, reply, { status: 'success', tags: {}, segments: [] } satisfies UserPropertiesReply);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    return sendReply(request, reply, {
      status: 'success',
      tags: await tagsOf(db, params.subscriberId),
      segments: await segmentsOfSubscriber(db, params.subscriberId),
    } satisfies UserPropertiesReply);
  });

  app.get('/getSubscriberAttributes.php', async (request, reply) => {
    checkCallback(request);
    const params = parseParams(attributesSchema, request.query, 'query');
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    return sendReply(request, reply, {
      status: 'success',
      result: await dimensionValues(db, params.subscriberId, params.customDimensions),
    } satisfies SubscriberAttributesReply);
  });

  app.get('/getSubscriptionClickTrackingPermissionDetails.php', async (request, reply) => {
    checkCallback(request);
    const params = parseParams(consentSchema, request.query, 'query');
    const site = registry.require(params.customerHash, 'customerHash');
    requireOrigin(request, site);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    const { rows } = await db.query<{ page_click_tracking_permission: number | null }>(
      'SELECT page_click_tracking_permission FROM subscribers WHERE site_hash = $1 AND id = $2',
      [site.hash, params.subscriberId],
    );
    if (!rows[0]) throw new ServerError('E_SUBSCRIBER_UNKNOWN', { param: 'subscriberId', id: params.subscriberId });
    return sendReply(request, reply, {
      status: 'success',
      pageClickTrackingPermission: rows[0].page_click_tracking_permission,
    } satisfies TrackingConsentReply);
  });

  app.get('/c.gif', async (request, reply) => {
    const params = parseParams(beaconSchema, request.query, 'query');
    const site = registry.require(params.hash, 'hash');
    requireOrigin(request, site);
    await requireProvenSubscriber(db, site, params.subscriberId, params.subscriberSecret, 'subscriberId');
    await db.transaction(async (tx) => {
      if (params.action === 'add-segment') {
        const segmentId = await segmentForVisitor(tx, site, params.segment);
        if (segmentId === null) {
          throw new ServerError('E_SEGMENT_NOT_DEFINED', { param: 'segment', sid: params.segment, limit: VISITOR_SEGMENTS_PER_SITE });
        }
        await addMembershipTo(tx, segmentId, params.subscriberId, 'click');
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
