// What makes a campaign: the owner API's POST /api/v1/sites/:name/campaigns body and `push-kit send`'s
// options, checked by this one schema, which applies the defaults (TTL, urgency). zod is browser-safe, but
// runtime/ and worker/ never import this (it would put zod in push.js).
import { z } from 'zod';
import {
  CAMPAIGN_ACTION_NAME_PATTERN,
  CAMPAIGN_ACTION_TITLE_MAX_LENGTH,
  CAMPAIGN_ACTIONS_MAX,
  CAMPAIGN_APP_BADGE_MAX,
  CAMPAIGN_BODY_MAX_LENGTH,
  CAMPAIGN_TITLE_MAX_LENGTH,
  CAMPAIGN_TOPIC_PATTERN,
  CAMPAIGN_URL_MAX_LENGTH,
  TIME_OF_DAY_PATTERN,
  DEFAULT_TTL_SECONDS,
  MAX_TTL_SECONDS,
  DELIVER_AT_OPTIONS,
  THROTTLE_PER_MINUTE_MAX,
  THROTTLE_PER_MINUTE_MIN,
} from './campaign-limits.ts';
import { segmentIdParam, subscriberIdParam, text } from './text-fields.ts';
import { DEFAULT_URGENCY, URGENCIES } from './urgency.ts';
import { AUDIENCE_ID_PATTERN, AUDIENCE_ID_RULE } from './audiences.ts';
import { LANGUAGE_TAG_PATTERN, LANGUAGE_TAG_RULE, LANGUAGES_MAX } from './languages.ts';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).max(CAMPAIGN_URL_MAX_LENGTH);

/**
 * Texts per language tag beside the default title and body (contract/languages.ts): `{"de": {"title", "body"}}`.
 * Each subscriber gets the best match of their stored language; the automation input shares this schema.
 */
export const languageTextsSchema = z
  .record(
    z.string().regex(LANGUAGE_TAG_PATTERN, LANGUAGE_TAG_RULE),
    z.strictObject(
      {
        title: text(CAMPAIGN_TITLE_MAX_LENGTH).trim().min(1, 'must not be empty'),
        body: text(CAMPAIGN_BODY_MAX_LENGTH).trim().min(1, 'must not be empty'),
      },
      { error: 'must be { title, body }' },
    ),
    {
      error: (issue) =>
        issue.code === 'invalid_key'
          ? LANGUAGE_TAG_RULE
          : 'must be an object of language tag to { title, body }, such as {"de": {"title": "...", "body": "..."}}',
    },
  )
  .refine((texts) => Object.keys(texts).length <= LANGUAGES_MAX, `at most ${LANGUAGES_MAX} languages`)
  .refine(
    (texts) => new Set(Object.keys(texts).map((tag) => tag.toLowerCase())).size === Object.keys(texts).length,
    'language tags must differ (case aside)',
  );

/** A button on the notification (the worker opens `url` when it is clicked, else the campaign's url). */
const campaignActionSchema = z.strictObject({
  action: z.string().regex(CAMPAIGN_ACTION_NAME_PATTERN, 'must be 1 to 32 letters, digits, "_" or "-"'),
  title: text(CAMPAIGN_ACTION_TITLE_MAX_LENGTH).min(1, 'must not be empty'),
  url: httpUrl.optional(),
});

/** One variant of an A/B test: what it changes of the campaign (title, body, icon, image, URL). */
const campaignVariantSchema = z.strictObject({
  title: text(CAMPAIGN_TITLE_MAX_LENGTH).min(1, 'must not be empty').optional(),
  body: text(CAMPAIGN_BODY_MAX_LENGTH).min(1, 'must not be empty').optional(),
  url: httpUrl.optional(),
  icon: httpUrl.optional(),
  image: httpUrl.optional(),
  /** The variant's texts per language (the campaign's when absent). */
  texts: languageTextsSchema.optional(),
});

export const campaignInputSchema = z
  .strictObject({
    title: text(CAMPAIGN_TITLE_MAX_LENGTH).min(1, 'must not be empty'),
    body: text(CAMPAIGN_BODY_MAX_LENGTH).min(1, 'must not be empty'),
    /** Texts per language tag: each subscriber gets the best match of their language, else title and body. */
    texts: languageTextsSchema.optional(),
    url: httpUrl.optional(),
    icon: httpUrl.optional(),
    /** A large picture shown in the notification. */
    image: httpUrl.optional(),
    actions: z
      .array(campaignActionSchema, { error: 'must be a list of { action, title, url? }' })
      .max(CAMPAIGN_ACTIONS_MAX, `at most ${CAMPAIGN_ACTIONS_MAX} buttons (browsers show no more)`)
      .refine((actions) => new Set(actions.map((action) => action.action)).size === actions.length, 'action names must differ')
      .optional(),
    /** The number the site's app badge shows (declarative push `app_badge`); absent leaves the badge alone. */
    appBadge: z
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(CAMPAIGN_APP_BADGE_MAX, `must be at most ${CAMPAIGN_APP_BADGE_MAX}`)
      .optional(),
    /** Only subscribers in the segment with this sid. */
    segment: z.union([z.int().positive().transform(String), segmentIdParam], { error: 'must be a segment id' }).optional(),
    /** Only this subscriber. */
    subscriberId: subscriberIdParam.optional(),
    /** Only the subscribers the audience with this id matches when the campaign is created (docs/audiences.md). */
    audience: text(40, AUDIENCE_ID_PATTERN, AUDIENCE_ID_RULE).optional(),
    /** Seconds the push service keeps the message for an offline browser (RFC 8030 TTL). */
    ttl: z.int().min(0).max(MAX_TTL_SECONDS).default(DEFAULT_TTL_SECONDS),
    /** The Topic header: a newer message with the same topic replaces an undelivered older one at the push service. */
    topic: z
      .string('must be text')
      .regex(CAMPAIGN_TOPIC_PATTERN, 'must be 1 to 32 letters, digits, "_" or "-" (RFC 8030 topic)')
      .optional(),
    urgency: z.enum(URGENCIES, { error: `must be one of ${URGENCIES.join(', ')}` }).default(DEFAULT_URGENCY),
    /** When to send (an ISO 8601 time with its offset, e.g. 2026-12-01T09:00:00Z); now when absent. */
    sendAt: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 time with its offset, such as 2026-12-01T09:00:00Z' })
      .refine((value) => Date.parse(value) <= Date.parse('2100-01-01T00:00:00Z'), 'must be before 2100')
      .optional(),
    /** Send when each subscriber's own clock first shows this time ("HH:MM", 24 h) at or after sendAt (or now). */
    localTime: z
      .string('must be a time of day such as 09:30')
      .regex(TIME_OF_DAY_PATTERN, 'must be a time of day such as 09:30 (24-hour HH:MM)')
      .optional(),
    /** An A/B test: 2 to 4 variants, sent to testFraction of the audience split evenly; the rest gets the winner. */
    variants: z
      .array(campaignVariantSchema, { error: 'must be a list of { title?, body?, url?, icon?, image?, texts? }' })
      .min(2, 'an A/B test needs 2 to 4 variants')
      .max(4, 'an A/B test needs 2 to 4 variants')
      .optional(),
    /** The share of the audience the variants go to (the rest waits for the winner). */
    testFraction: z.number('must be a number').min(0.05, 'must be 0.05 or more').max(0.95, 'must be 0.95 or less').optional(),
    /** Minutes after the test goes out when the variant with the best click rate goes to the rest. */
    winnerAfterMinutes: z
      .int('must be a whole number of minutes')
      .min(5, 'must be 5 or more')
      .max(10_080, 'must be 10080 (a week) or less')
      .optional(),
    /** Deliveries per minute at most, across every provider on the database; absent: the site's default, else no limit. */
    throttlePerMinute: z
      .int('must be a whole number of deliveries per minute')
      .min(THROTTLE_PER_MINUTE_MIN, `must be ${THROTTLE_PER_MINUTE_MIN} or more`)
      .max(THROTTLE_PER_MINUTE_MAX, `must be ${THROTTLE_PER_MINUTE_MAX} or less`)
      .optional(),
    /** best-hour: each subscriber at the hour of day they clicked most (their clock), else the site's, within 24 h. */
    deliverAt: z
      .enum(DELIVER_AT_OPTIONS, { error: `must be ${DELIVER_AT_OPTIONS.map((option) => `"${option}"`).join(' or ')}` })
      .optional(),
    /** With deliverAt best-hour: the share of the audience sent at once, whose clicks the rest is compared with. */
    bestHourHoldout: z.number('must be a number').min(0, 'must be 0 or more').max(0.5, 'must be 0.5 or less').optional(),
  })
  .refine((body) => !(body.segment && body.subscriberId), { message: 'give a segment or a subscriberId, not both', path: ['segment'] })
  .refine((body) => !(body.audience && (body.segment || body.subscriberId)), {
    message: 'give an audience, a segment or a subscriberId, only one',
    path: ['audience'],
  })
  .refine((body) => !body.variants || (body.testFraction !== undefined && body.winnerAfterMinutes !== undefined), {
    message: 'an A/B test needs testFraction and winnerAfterMinutes',
    path: ['variants'],
  })
  .refine((body) => !body.variants || body.localTime === undefined, {
    message: 'an A/B test cannot go at a local time',
    path: ['variants'],
  })
  .refine((body) => body.deliverAt === undefined || (body.localTime === undefined && body.variants === undefined), {
    message: "best-hour delivery picks each subscriber's time itself: not with localTime or an A/B test",
    path: ['deliverAt'],
  })
  .refine((body) => body.bestHourHoldout === undefined || body.deliverAt === 'best-hour', {
    message: 'goes with deliverAt "best-hour"',
    path: ['bestHourHoldout'],
  });

/** The body a caller sends: TTL and urgency may be left out. */
export type CampaignRequest = z.input<typeof campaignInputSchema>;
/** A checked campaign, defaults applied: what the store creates. */
export type CampaignInput = z.output<typeof campaignInputSchema>;
export type CampaignAction = NonNullable<CampaignInput['actions']>[number];
