// The services calls about one visitor: what they take and what they answer (route-schemas.ts). The queries are
// those of contract/visitor-calls.ts, field for field; a JSONP `callback` is kept for the reply.
import { z } from 'zod';
import { browserParam, optionalText, segmentIdParam, siteHash, subscriberIdParam, subscriberSecretParam, text } from '../http/params.ts';
import { successReply } from '../http/route-schemas.ts';
import {
  SEGMENT_BEACON_ACTIONS,
  type AddToSegmentQuery,
  type SegmentBeaconQuery,
  type SubscriberAttributesQuery,
  type TagsQuery,
  type TrackingConsentQuery,
  type UserPropertiesQuery,
} from '../../contract/visitor-calls.ts';
import { DIMENSION_NAME_PATTERN, MAX_DIMENSIONS, TAG_KEY_PATTERN, TAG_VALUE_MAX_LENGTH } from '../../contract/ids.ts';

const MAX_LIST = 100;

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

export const tagsSchema = z.object({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  tags: jsonText(
    z
      .record(z.string().regex(TAG_KEY_PATTERN), z.union([text(TAG_VALUE_MAX_LENGTH), z.number().finite(), z.boolean(), z.null()]))
      .refine((tags) => Object.keys(tags).length >= 1 && Object.keys(tags).length <= 50),
    'must be a JSON object of 1 to 50 tags: keys of 1 to 64 letters, digits, " ", ".", "_" or "-"; values text (at most 256 characters, no NUL characters), numbers, booleans or null',
  ),
  callback: z.string().optional(),
} satisfies Record<keyof TagsQuery, z.ZodType>);

export const addToSegmentSchema = z.object({
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

export const dynSchema = z.object({
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

export const attributesSchema = z.object({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  customDimensions: dimensionList,
  browser: optionalText(browserParam),
  callback: z.string().optional(),
} satisfies Record<keyof SubscriberAttributesQuery, z.ZodType>);

export const consentSchema = z.object({
  customerHash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  browser: optionalText(browserParam),
  callback: z.string().optional(),
} satisfies Record<keyof TrackingConsentQuery, z.ZodType>);

export const beaconSchema = z.object({
  hash: siteHash,
  subscriberId: subscriberIdParam,
  subscriberSecret: optionalText(subscriberSecretParam),
  subscriptionId: optionalText(text(1024)),
  segment: segmentIdParam,
  action: z.enum(SEGMENT_BEACON_ACTIONS, { error: 'must be add-segment or remove-segment' }),
  _: z.string().optional(),
} satisfies Record<keyof SegmentBeaconQuery, z.ZodType>);

export const USER_PROPERTIES_REPLY = successReply({ tags: z.record(z.string(), z.string()), segments: z.array(z.string()) });
export const ATTRIBUTES_REPLY = successReply({ result: z.record(z.string(), z.string()) });
export const CONSENT_REPLY = successReply({ pageClickTrackingPermission: z.number().nullable() });
