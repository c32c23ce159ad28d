// The owner API under /api/v1/ (same origin as the dashboard; the site's owner key in the Authorization
// header): every request and reply the provider's routes give, the dashboard reads and `push-kit send` reads.
// Types, the status list and the requests' limits only. A refused call answers `FailureReply` with a 4xx status.
import type { CampaignAction } from './campaign-input.ts';
import type { Urgency } from './urgency.ts';
import type { LanguageTexts } from './languages.ts';
import type { CurrencyAmount } from './shop-order.ts';
import type { DeliveryFailureGroup, LastDeliveryFailure } from './delivery-failures.ts';
import type { DeliverAt } from './campaign-limits.ts';
export type { DeliveryFailureGroup, LastDeliveryFailure } from './delivery-failures.ts';
export type { CampaignAction, CampaignRequest } from './campaign-input.ts';

/** The most rows one page of subscribers or campaigns holds. */
export const PAGE_MAX = 1000;
export const SUBSCRIBER_SEARCH_MAX_LENGTH = 200;
export const SEGMENT_NAME_MAX_LENGTH = 100;

export type SuccessReply<T = object> = { status: 'success' } & T;
export interface FailureReply {
  status: 'failure';
  message: string;
}

/** What the dashboard shows of a site: never its key, nothing the site's own pages do not show already. */
export interface SiteSummary {
  name: string;
  hash: string;
  companyName: string;
  origin: string;
  iconUrl: string | null;
}

export const SUBSCRIBER_STATUSES = ['subscribed', 'unsubscribed', 'blocked', 'expired'] as const;
export type SubscriberStatus = (typeof SUBSCRIBER_STATUSES)[number];

export interface Subscriber {
  id: string;
  uuid: string | null;
  status: SubscriberStatus;
  subscriptionId: string | null;
  endpoint: string | null;
  browserType: string | null;
  language: string | null;
  timezone: string | null;
  /** The person's id at the service the subscriber was imported from (`external_id`), or null. */
  externalId: string | null;
  timezoneOffset: number | null;
  pageClickTrackingPermission: number | null;
  origin: string | null;
  subscriptionPageUrl: string | null;
  createdAt: string;
  updatedAt: string;
  lastSyncAt: string | null;
}

export interface SubscriberListItem extends Subscriber {
  segments: string[];
  tags: Record<string, string>;
}

/** GET sites/:name/subscribers */
export interface SubscriberListQuery {
  limit?: number;
  offset?: number;
  search?: string;
  status?: SubscriberStatus;
  /** Only members of the segment with this sid. */
  segment?: string;
  /** By subscription time: oldest first (the default) or newest first; or last seen, most recently first. */
  order?: SubscriberOrder;
}

export const SUBSCRIBER_ORDERS = ['oldest', 'newest', 'lastSeen'] as const;
export type SubscriberOrder = (typeof SUBSCRIBER_ORDERS)[number];

export interface SubscriberPage {
  total: number;
  limit: number;
  offset: number;
  subscribers: SubscriberListItem[];
}

export interface SubscriberCounts {
  count: number;
  byStatus: Record<SubscriberStatus, number>;
}

/** Everything stored about one subscriber (a privacy access request). */
export interface SubscriberExport {
  subscriber: Subscriber & { subscription: unknown; p256dh: string | null; auth: string | null };
  tags: Record<string, string>;
  dimensions: Record<string, string>;
  segments: string[];
  events: { kind: string; campaignId: string | null; detail: unknown; at: string }[];
  deliveries: { campaignId: string; status: string; attempts: number; updatedAt: string }[];
  /** Notifications the push service took for them (delivered): not the failed, expired or still pending ones. */
  received: number;
  /** Its failed and expired deliveries by reason, and the last of them (null when none failed). */
  failures: DeliveryFailureGroup[];
  lastFailure: LastDeliveryFailure | null;
}

/** GET sites/:name/subscribers/:id/export: a file to hand over (not wrapped in a success reply). */
export type SubscriberExportFile = { site: string; exportedAt: string } & SubscriberExport;

/** PUT sites/:name/subscribers/:id/dimensions */
export type DimensionsRequest = Record<string, string | number | boolean | null>;

export interface DayCount {
  /** A day of the time zone asked for (UTC by default), YYYY-MM-DD. */
  date: string;
  /** Subscribers stored now who subscribed that day. */
  new: number;
  /** Subscribers stored now who had subscribed by the end of that day. */
  total: number;
}

export interface ValueCount {
  value: string;
  count: number;
}

/** GET sites/:name/stats?days=&zone= (days of that IANA time zone: the owner's display zone; UTC when left out) */
export interface SiteStats {
  total: number;
  byStatus: Record<SubscriberStatus, number>;
  days: DayCount[];
  /** Active subscribers by browser, most first; the rest beyond the top few summed as "other". */
  browsers: ValueCount[];
  languages: ValueCount[];
  /** Visitors who refused the notification permission in the window (`block` events, spec section 4). */
  blocks: number;
  /** The site's notifications (campaigns and automated messages) on each day of the window. */
  notifications: NotificationDay[];
}

/** One day (of the zone asked for) of a site's notifications: delivered by the push service, reported shown and clicked, converted. */
export interface NotificationDay {
  date: string;
  delivered: number;
  shown: number;
  clicked: number;
  /** Shop orders that day within the conversion window after one of the subscriber's clicks. */
  conversions: number;
}

/** GET sites/:name/audience: how many a campaign to a segment, one subscriber or everyone would reach. */
export interface AudienceQuery {
  segment?: string;
  subscriberId?: string;
  /** An audience's id (contract/audiences.ts): those its rule matches now. */
  audience?: string;
}

export interface Segment {
  sid: string;
  name: string;
  members: number;
  /** Of the members, those a campaign to the segment reaches now: subscribed, with a push endpoint. */
  reachable: number;
  /** The condition expression the owner gave (docs/conditions.md), or null. */
  condition: string | null;
  /** The segment's condition in the site config (segmentations), or null. */
  configCondition: string | null;
  /** null for a segment of the site config no visitor has joined yet. */
  createdAt: string | null;
}

/** POST sites/:name/segments */
export interface SegmentRequest {
  sid: string | number;
  name?: string;
  condition?: string;
}

/**
 * scheduled: waiting for its send time (or its subscribers' local time); cancelled: stopped before it all went;
 * waiting_for_key: the site's VAPID key cannot sign, nothing goes until the key file is fixed.
 */
export const CAMPAIGN_STATUSES = ['pending', 'scheduled', 'sending', 'done', 'cancelled', 'waiting_for_key'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** Why an A/B test had no winner: a variant delivered to nobody, or no click at all. */
export const AB_WINNER_NOTES = ['too-few-deliveries', 'too-few-clicks'] as const;
export type AbWinnerNote = (typeof AB_WINNER_NOTES)[number];

export interface CampaignCounts {
  recipients: number;
  /** Every delivery the sender has finished with, whatever the push service answered. */
  sent: number;
  pending: number;
  delivered: number;
  failed: number;
  expired: number;
  /** Skipped: the subscriber had reached the site's frequency cap. */
  capped: number;
  /** Dropped: the subscriber's quiet hours outlasted the TTL. */
  dropped: number;
  shown: number;
  clicked: number;
  closed: number;
  /** The reports behind shown, clicked and closed that carried the delivery's click token ... */
  reportsWithToken: number;
  /** ... and those that proved the subscriber by its push subscription alone (a message without a token). */
  reportsWithEndpoint: number;
  /** clicked / delivered, or null before anything was delivered. */
  clickRate: number | null;
  /**
   * Shop orders of subscribers who clicked, within the site's conversionWindowHours after their click (of clicks
   * already pruned, as counted with the window in force at their prune: docs/automations.md#revenue).
   */
  conversions: number;
  /** Those orders' totals summed per currency (contract/shop-order.ts). */
  revenue: CurrencyAmount[];
}

export interface Campaign extends CampaignCounts {
  campaignId: string;
  title: string;
  body: string;
  url: string | null;
  icon: string | null;
  image: string | null;
  actions: CampaignAction[];
  /** Texts per language tag beside title and body ({} when none): docs/languages.md. */
  texts: LanguageTexts;
  /**
   * GET .../campaigns/:id only, for a campaign with texts per language: its figures by the language each
   * subscriber got ("default": the default title and body).
   */
  byLanguage?: CampaignLanguageFigures[];
  /** An A/B test's variants with their figures ([] for a campaign without a test). */
  variants: CampaignVariantFigures[];
  /** Its failed and expired deliveries grouped by the push service's status, reason and host, most first. */
  failures: DeliveryFailureGroup[];
  /**
   * When the winner goes to the rest (ISO), and which variant won (null until then). Until the test share has
   * been delivered (testDeliveredAt null) winnerAt is only the earliest it may go: the winner clock
   * (winnerAfterMinutes) starts when the test share has gone.
   */
  winnerAt: string | null;
  winnerVariant: number | null;
  winnerAfterMinutes: number | null;
  testDeliveredAt: string | null;
  /** Why an A/B test had no winner (its first variant went to the rest), or null. */
  winnerNote: AbWinnerNote | null;
  /** The campaign this one sent again to those who did not click, or null. */
  resendOf: string | null;
  /**
   * Days after it was done that the campaign's delivery rows were pruned (its figures stay; what needs a row per
   * subscriber, such as sending again to non-clickers, says "details pruned after N days"), or null.
   */
  prunedAfterDays?: number | null;
  /** The Topic header the campaign was sent with, when the owner chose one. */
  topic: string | null;
  /** The app badge number the campaign sets, or null. */
  appBadge: number | null;
  segment: string | null;
  /** The audience (docs/audiences.md) it was sent to, by id, or null. */
  audience?: string | null;
  subscriberId: string | null;
  ttl: number;
  urgency: Urgency;
  status: CampaignStatus;
  /** The send time asked for (ISO), or null for at once. */
  sendAt: string | null;
  /** The subscriber-local time of day asked for ("HH:MM"), or null. */
  localTime: string | null;
  /** When the earliest delivery still waiting is due (ISO), or null when none waits. */
  nextDueAt: string | null;
  createdAt: string;
  completedAt: string | null;
  /** Its send rate in deliveries per minute (its own, else the site's default when created), or null for no limit. */
  throttlePerMinute: number | null;
  /** "best-hour": each subscriber at the hour they click most (docs/campaigns.md), or null. */
  deliverAt: DeliverAt | null;
  /** When what waits should have gone (ISO): by its rate from its next slot, or its last due time; null when done. */
  estimatedFinishAt: string | null;
  /** GET .../campaigns/:id only, for a best-hour campaign: the best-hour group against the held-out share sent at once. */
  bestHour?: CampaignBestHourFigures;
}

/** One group of a best-hour campaign: its recipients, delivered, clicked (once each), clicked / delivered. */
export interface CampaignGroupFigures {
  recipients: number;
  delivered: number;
  clicked: number;
  clickRate: number | null;
}

export interface CampaignBestHourFigures {
  /** The share of the audience held out and sent at once. */
  holdoutShare: number;
  bestHour: CampaignGroupFigures;
  holdout: CampaignGroupFigures;
}

/** One variant of an A/B test and its figures (its test share only). */
/** A campaign's figures in one of its languages. */
export interface CampaignLanguageFigures {
  /** A key of its texts, or "default". */
  language: string;
  recipients: number;
  delivered: number;
  /** Subscribers who clicked (once each). */
  clicked: number;
}

export interface CampaignVariantFigures {
  variant: number;
  title: string | null;
  body: string | null;
  /** The variant's texts per language; null: the campaign's. */
  texts: LanguageTexts | null;
  url: string | null;
  icon: string | null;
  image: string | null;
  recipients: number;
  delivered: number;
  clicked: number;
  clickRate: number | null;
  /** The revenue of its test share's conversions, per currency. */
  revenue: CurrencyAmount[];
}

export interface CreatedCampaign {
  campaignId: string;
  recipients: number;
}

/** The replies, call by call (paths under /api/v1/). */
export type SitesReply = SuccessReply<{ sites: SiteSummary[] }>;
export type SubscriberPageReply = SuccessReply<SubscriberPage>;
export type StatsReply = SuccessReply<SiteStats>;
export type AudienceReply = SuccessReply<{ recipients: number }>;
export type SubscriberCountsReply = SuccessReply<SubscriberCounts>;
export type SubscriberReply = SuccessReply<SubscriberExport>;
export type DeletedReply = SuccessReply<{ deleted: string }>;
export type DimensionsReply = SuccessReply;
export type SegmentsReply = SuccessReply<{ segments: Segment[] }>;
export type SegmentCreatedReply = SuccessReply<Pick<Segment, 'sid' | 'name' | 'condition'>>;
export type MemberAddedReply = SuccessReply<{ sid: string; subscriberId: string; added: boolean }>;
export type MemberRemovedReply = SuccessReply<{ sid: string; subscriberId: string; removed: true }>;
export type CampaignCreatedReply = SuccessReply<CreatedCampaign>;
export type CampaignsReply = SuccessReply<{ campaigns: Campaign[] }>;
export type CampaignReply = SuccessReply<{ campaign: Campaign }>;
export type CampaignCancelledReply = SuccessReply<{ campaignId: string; cancelled: number }>;
