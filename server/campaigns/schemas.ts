// The owner API's campaign routes: what they take and what they answer (route-schemas.ts). The body of a new
// campaign is contract/campaign-input.ts's schema, which `push-kit send` and the dashboard check with too.
import { z } from 'zod';
import {
  CAMPAIGN_LIST_STATUSES,
  CAMPAIGN_SEARCH_MAX_LENGTH,
  type CampaignBreakdownRow,
  type CampaignFigures,
  type CampaignResent,
  type CampaignTimePoint,
} from '../../contract/campaign-report.ts';
import { optionalText, pageQuery, segmentIdParam, SITE_PARAMS, subscriberIdParam, text } from '../http/params.ts';
import { currencyAmount, failureGroup, isoTime } from '../http/reply-schemas.ts';
import { fieldsOf, successReply } from '../http/route-schemas.ts';
import { CAMPAIGN_ID_PATTERN } from '../../contract/ids.ts';
import { AUDIENCE_ID_PATTERN, AUDIENCE_ID_RULE } from '../../contract/audiences.ts';
import { URGENCIES } from '../../contract/urgency.ts';
import { DELIVER_AT_OPTIONS } from '../../contract/campaign-limits.ts';
import type { CampaignBestHourFigures, CampaignGroupFigures } from '../../contract/owner-api.ts';
import {
  AB_WINNER_NOTES,
  CAMPAIGN_STATUSES,
  type Campaign,
  type CampaignAction,
  type CampaignCounts,
  type CampaignLanguageFigures,
  type CampaignVariantFigures,
} from '../../contract/owner-api.ts';

export const campaignParams = SITE_PARAMS.extend({ id: z.string().regex(CAMPAIGN_ID_PATTERN, 'must be a campaign id (digits)') });

export const audienceQuery = z
  .object({
    segment: optionalText(segmentIdParam),
    subscriberId: optionalText(subscriberIdParam),
    audience: optionalText(text(40, AUDIENCE_ID_PATTERN, AUDIENCE_ID_RULE)),
  })
  .refine((query) => !(query.segment && query.subscriberId), { message: 'give a segment or a subscriberId, not both', path: ['segment'] })
  .refine((query) => !(query.audience && (query.segment || query.subscriberId)), {
    message: 'give an audience, a segment or a subscriberId, only one',
    path: ['audience'],
  });

export const campaignCounts = fieldsOf<CampaignCounts>()({
  recipients: z.int(),
  sent: z.int(),
  pending: z.int(),
  delivered: z.int(),
  failed: z.int(),
  expired: z.int(),
  capped: z.int(),
  dropped: z.int(),
  shown: z.int(),
  clicked: z.int(),
  closed: z.int(),
  reportsWithToken: z.int(),
  reportsWithEndpoint: z.int(),
  clickRate: z.number().nullable(),
  conversions: z.int(),
  revenue: z.array(currencyAmount),
});

const action = z.object(fieldsOf<CampaignAction>()({ action: z.string(), title: z.string(), url: z.string().optional() }));

const languageTexts = z.record(z.string(), z.object({ title: z.string(), body: z.string() }));

const groupFigures = z.object(
  fieldsOf<CampaignGroupFigures>()({ recipients: z.int(), delivered: z.int(), clicked: z.int(), clickRate: z.number().nullable() }),
);
const bestHourFigures = z.object(
  fieldsOf<CampaignBestHourFigures>()({ holdoutShare: z.number(), bestHour: groupFigures, holdout: groupFigures }),
);

const languageFigures = z.object(
  fieldsOf<CampaignLanguageFigures>()({ language: z.string(), recipients: z.int(), delivered: z.int(), clicked: z.int() }),
);

const variantFigures = z.object(
  fieldsOf<CampaignVariantFigures>()({
    variant: z.int(),
    title: z.string().nullable(),
    body: z.string().nullable(),
    texts: languageTexts.nullable(),
    url: z.string().nullable(),
    icon: z.string().nullable(),
    image: z.string().nullable(),
    recipients: z.int(),
    delivered: z.int(),
    clicked: z.int(),
    clickRate: z.number().nullable(),
    revenue: z.array(currencyAmount),
  }),
);

const campaign = z.object(
  fieldsOf<Campaign>()({
    ...campaignCounts,
    campaignId: z.string(),
    title: z.string(),
    body: z.string(),
    url: z.string().nullable(),
    icon: z.string().nullable(),
    image: z.string().nullable(),
    actions: z.array(action),
    texts: languageTexts,
    byLanguage: z.array(languageFigures).optional(),
    variants: z.array(variantFigures),
    failures: z.array(failureGroup),
    winnerAt: isoTime.nullable(),
    winnerVariant: z.int().nullable(),
    winnerAfterMinutes: z.int().nullable(),
    testDeliveredAt: isoTime.nullable(),
    winnerNote: z.enum(AB_WINNER_NOTES).nullable(),
    resendOf: z.string().nullable(),
    prunedAfterDays: z.int().nullable().optional(),
    topic: z.string().nullable(),
    appBadge: z.int().nullable(),
    segment: z.string().nullable(),
    audience: z.string().nullable().optional(),
    subscriberId: z.string().nullable(),
    ttl: z.int(),
    urgency: z.enum(URGENCIES),
    status: z.enum(CAMPAIGN_STATUSES),
    sendAt: isoTime.nullable(),
    localTime: z.string().nullable(),
    nextDueAt: isoTime.nullable(),
    createdAt: isoTime,
    completedAt: isoTime.nullable(),
    throttlePerMinute: z.int().nullable(),
    deliverAt: z.enum(DELIVER_AT_OPTIONS).nullable(),
    estimatedFinishAt: isoTime.nullable(),
    bestHour: bestHourFigures.optional(),
  }),
);

export const CAMPAIGN_CREATED_REPLY = successReply({ campaignId: z.string(), recipients: z.int() });
export const CAMPAIGNS_REPLY = successReply({ campaigns: z.array(campaign), total: z.int(), limit: z.int(), offset: z.int() });
export const CAMPAIGN_REPLY = successReply({ campaign });
export const CAMPAIGN_CANCELLED_REPLY = successReply({ campaignId: z.string(), cancelled: z.int() });
export const AUDIENCE_REPLY = successReply({ recipients: z.int() });

/** GET .../campaigns: a page of the list, filtered (contract/campaign-report.ts). */
export const campaignListQuery = pageQuery.extend({
  status: optionalText(z.enum(CAMPAIGN_LIST_STATUSES, { error: `must be one of ${CAMPAIGN_LIST_STATUSES.join(', ')}` })),
  q: optionalText(z.string().max(CAMPAIGN_SEARCH_MAX_LENGTH, `must be at most ${CAMPAIGN_SEARCH_MAX_LENGTH} characters`)),
  order: optionalText(z.enum(['newest', 'oldest'], { error: 'must be newest or oldest' })),
});

const breakdownRow = z.object(
  fieldsOf<CampaignBreakdownRow>()({
    key: z.string(),
    recipients: z.int(),
    sent: z.int(),
    delivered: z.int(),
    shown: z.int(),
    clicked: z.int(),
  }),
);
const timePoint = z.object(fieldsOf<CampaignTimePoint>()({ at: isoTime, delivered: z.int(), shown: z.int(), clicked: z.int() }));

export const CAMPAIGN_FIGURES_REPLY = successReply(
  fieldsOf<CampaignFigures>()({
    step: z.enum(['hour', 'day']),
    timeline: z.array(timePoint),
    byBrowser: z.array(breakdownRow),
    byVariant: z.array(breakdownRow),
  }),
);
export const CAMPAIGN_RESENT_REPLY = successReply(
  fieldsOf<CampaignResent>()({ campaignId: z.string(), recipients: z.int(), resendOf: z.string() }),
);
