// The owner API's subscriber routes: what they take and what they answer (route-schemas.ts).
import { z } from 'zod';
import {
  countQuery,
  daysQuery,
  optionalText,
  pageQuery,
  segmentIdParam,
  SITE_PARAMS,
  subscriberIdParam,
  text,
  zoneQuery,
} from '../http/params.ts';
import { byStatus, failureGroup, isoTime, lastFailure, subscriberStatus } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { AT_RISK_DELIVERIES_DEFAULT, AT_RISK_DELIVERIES_MAX } from './subscriber-health.ts';
import {
  SUBSCRIBER_SEARCH_MAX_LENGTH,
  SUBSCRIBER_ORDERS,
  SUBSCRIBER_STATUSES,
  type Subscriber,
  type SubscriberExport,
  type SubscriberListItem,
} from '../../contract/owner-api.ts';
import type { SubscriberHealth } from '../../contract/automations.ts';

export const subscriberParams = SITE_PARAMS.extend({ id: subscriberIdParam });

export const subscriberListQuery = pageQuery.extend({
  status: optionalText(z.enum(SUBSCRIBER_STATUSES, { error: `must be one of ${SUBSCRIBER_STATUSES.join(', ')}` })),
  search: optionalText(
    z
      .string({ error: 'must be a single text value' })
      .max(SUBSCRIBER_SEARCH_MAX_LENGTH, `must be at most ${SUBSCRIBER_SEARCH_MAX_LENGTH} characters`),
  ),
  segment: optionalText(segmentIdParam),
  order: z.enum(SUBSCRIBER_ORDERS, { error: 'must be oldest or newest (by subscription) or lastSeen' }).default('oldest'),
});

export const dimensionsBody = z.record(
  z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'dimension names are 1 to 64 letters, digits, "_" or "-"'),
  z.union([text(256), z.number(), z.boolean(), z.null()]),
);

export const healthQuery = z.object({
  days: daysQuery,
  zone: zoneQuery,
  deliveries: countQuery(AT_RISK_DELIVERIES_MAX, AT_RISK_DELIVERIES_DEFAULT),
});

const subscriberFields = fieldsOf<Subscriber>()({
  id: z.string(),
  uuid: z.string().nullable(),
  status: subscriberStatus,
  subscriptionId: z.string().nullable(),
  endpoint: z.string().nullable(),
  browserType: z.string().nullable(),
  language: z.string().nullable(),
  timezone: z.string().nullable(),
  externalId: z.string().nullable(),
  timezoneOffset: z.number().nullable(),
  pageClickTrackingPermission: z.number().nullable(),
  origin: z.string().nullable(),
  subscriptionPageUrl: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
  lastSyncAt: isoTime.nullable(),
});

const listItem = z.object(
  fieldsOf<SubscriberListItem>()({ ...subscriberFields, segments: z.array(z.string()), tags: z.record(z.string(), z.string()) }),
);

export const SUBSCRIBER_PAGE_REPLY = successReply({ total: z.int(), limit: z.int(), offset: z.int(), subscribers: z.array(listItem) });

export const SUBSCRIBER_COUNT_REPLY = successReply({ count: z.int(), byStatus });

export const subscriberExport = fieldsOf<SubscriberExport>()({
  subscriber: z.object({
    ...subscriberFields,
    subscription: z.unknown(),
    p256dh: z.string().nullable(),
    auth: z.string().nullable(),
  }),
  tags: z.record(z.string(), z.string()),
  dimensions: z.record(z.string(), z.string()),
  segments: z.array(z.string()),
  events: z.array(z.object({ kind: z.string(), campaignId: z.string().nullable(), detail: z.unknown(), at: isoTime })),
  deliveries: z.array(z.object({ campaignId: z.string(), status: z.string(), attempts: z.int(), updatedAt: isoTime })),
  received: z.int(),
  failures: z.array(failureGroup),
  lastFailure: lastFailure.nullable(),
});

export const SUBSCRIBER_REPLY = successReply(subscriberExport);

export const SUBSCRIBER_HEALTH_REPLY = successReply(
  fieldsOf<SubscriberHealth>()({
    atRisk: z.int(),
    deliveries: z.int(),
    expired: z.array(z.object({ date: z.string(), count: z.int() })),
    expiredTotal: z.int(),
  }),
);
