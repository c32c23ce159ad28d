// The limits and defaults of a campaign, written once: the campaign input schema (campaign-input.ts) applies
// them, the dashboard's compose form shows them without carrying zod. Constants only.

export const CAMPAIGN_TITLE_MAX_LENGTH = 200;
export const CAMPAIGN_BODY_MAX_LENGTH = 1000;
export const CAMPAIGN_URL_MAX_LENGTH = 2048;
/** Browsers show no more buttons than this. */
export const CAMPAIGN_ACTIONS_MAX = 2;
export const CAMPAIGN_ACTION_TITLE_MAX_LENGTH = 40;
/** The largest app badge number a campaign may set (a database integer; platforms show far less). */
export const CAMPAIGN_APP_BADGE_MAX = 2_147_483_647;
export const CAMPAIGN_ACTION_NAME_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** Seconds a push service keeps the message for an offline browser (RFC 8030 TTL): one day unless asked. */
export const DEFAULT_TTL_SECONDS = 86_400;
/** Four weeks: the most push services keep a message. */
export const MAX_TTL_SECONDS = 2_419_200;

/** A time of day, 24-hour "HH:MM": a campaign's localTime, a site's quiet hours. */
export const TIME_OF_DAY_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$/;
/** A campaign's Topic header (RFC 8030 section 5.4): at most 32 characters of the URL-safe base64 alphabet. */
export const CAMPAIGN_TOPIC_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** A campaign's send rate (deliveries per minute, across every provider on the database): its bounds. */
export const THROTTLE_PER_MINUTE_MIN = 1;
export const THROTTLE_PER_MINUTE_MAX = 1_000_000;
/** How a campaign may be timed per subscriber: `best-hour`, each at the hour of day they click most. */
export const DELIVER_AT_OPTIONS = ['best-hour'] as const;
export type DeliverAt = (typeof DELIVER_AT_OPTIONS)[number];
/** The share of a best-hour campaign's audience sent at once, to compare against (A/B-style), unless asked. */
export const DEFAULT_BEST_HOUR_HOLDOUT = 0.1;
/** Days of clicks a subscriber's (and the site's) best hour is read from. */
export const BEST_HOUR_LOOKBACK_DAYS = 90;
