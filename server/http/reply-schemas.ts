// Reply schemas more than one capability answers with (route-schemas.ts writes every reply through its schema).
import { z } from 'zod';
import { fieldsOf, successReply } from './route-schemas.ts';
import { SUBSCRIBER_STATUSES, type DeliveryFailureGroup, type LastDeliveryFailure, type SiteSummary } from '../../contract/owner-api.ts';

export const subscriberStatus = z.enum(SUBSCRIBER_STATUSES);
/** A count for each subscriber status. */
export const byStatus = z.object(
  Object.fromEntries(SUBSCRIBER_STATUSES.map((status) => [status, z.int()])) as Record<(typeof SUBSCRIBER_STATUSES)[number], z.ZodInt>,
);
export const isoTime = z.string();
export const STORED_REPLY = successReply({});
/** `{status: "failure", message, code}`: every refusal (reply.ts). */
export const FAILURE_REPLY = z.object({ status: z.literal('failure'), message: z.string(), code: z.string() });
export const DELETED_REPLY = successReply({ deleted: z.string() });

const siteSummary = z.object(
  fieldsOf<SiteSummary>()({
    name: z.string(),
    hash: z.string(),
    companyName: z.string(),
    origin: z.string(),
    iconUrl: z.string().nullable(),
  }),
);
export const SITES_REPLY = successReply({ sites: z.array(siteSummary) });

/** Failed and expired deliveries by reason (a campaign's, an automation's, a subscriber's) and a subscriber's last one. */
export const failureGroup = z.object(
  fieldsOf<DeliveryFailureGroup>()({
    status: z.int().nullable(),
    reason: z.string(),
    host: z.string().nullable(),
    count: z.int(),
    docsUrl: z.string().nullable(),
  }),
);

/** Revenue in one currency (a campaign's, a variant's, an automation's): contract/shop-order.ts. */
export const currencyAmount = z.object({ currency: z.string(), amount: z.number() });

export const lastFailure = z.object(
  fieldsOf<LastDeliveryFailure>()({
    campaignId: z.string(),
    outcome: z.enum(['failed', 'expired']),
    status: z.int().nullable(),
    reason: z.string(),
    host: z.string().nullable(),
    attempts: z.int(),
    at: isoTime,
    docsUrl: z.string().nullable(),
  }),
);
