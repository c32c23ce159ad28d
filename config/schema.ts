// The one source of truth for a site config: types (z.infer), defaults and the exported JSON Schema.
// Field names of spec section 3 ("Configuration fields read") are kept as the spec spells them,
// `pageClickTrackingConcent` included. URL patterns, conditions and the trigger expression are compiled
// after the schema, once (compile-expressions.ts): their compiled forms are what the build writes.
import { z } from 'zod';
import { isP256PublicKey } from './vapid-key.ts';
import { DEFAULT_TEXTS } from './default-texts.ts';
import {
  DIMENSION_NAME_PATTERN,
  DIMENSION_NAME_RULE,
  MAX_DIMENSIONS,
  SEGMENT_ID_OR_NUMBER_RULE,
  SEGMENT_ID_PATTERN,
} from '../contract/ids.ts';
import {
  AUTOMATION_DAYS_MAX,
  AUTOMATION_DEFAULTS,
  AUTOMATION_DELAY_MAX_MINUTES,
  CONVERSION_WINDOW_MAX_HOURS,
  type AutomationKind,
} from '../contract/automations.ts';
import {
  CAMPAIGN_BODY_MAX_LENGTH,
  CAMPAIGN_TITLE_MAX_LENGTH,
  THROTTLE_PER_MINUTE_MAX,
  THROTTLE_PER_MINUTE_MIN,
  TIME_OF_DAY_PATTERN,
} from '../contract/campaign-limits.ts';
import { feedInputSchema, FEEDS_MAX } from '../contract/feeds.ts';
import { configMessage } from './errors.ts';
import { isAcceptedVapidSubject } from './vapid-subject.ts';
import { isLocalHost } from '../compiler/features.ts';
import { CSS_COLOR_RULE, isCssColor } from './css-color.ts';

/** The first character a URL or path may not hold (space, control character, lone surrogate), as "U+XXXX at character N". */
function badUrlCharacter(value: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  const at = value.search(/[\s\u0000-\u001f\u007f-\u009f]|[\uD800-\uDFFF]/u);
  return at < 0 ? undefined : `U+${value.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')} at character ${at + 1}`;
}

/** URLs are copied into HTML attributes, JSON and code as written: no spaces or control characters. */
const noUrlWhitespace = (value: string) => badUrlCharacter(value) === undefined;
const URL_WHITESPACE_RULE = {
  error: (issue: { input: unknown }) => `must not contain spaces or control characters (found ${badUrlCharacter(String(issue.input))})`,
};

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
  .refine((value) => !URL.canParse(value) || noUrlWhitespace(value), URL_WHITESPACE_RULE)
  .describe('An absolute http or https URL.');

/** An origin (scheme, host and port), read as `new URL(value).origin`. */
const originOnly = httpUrl
  .refine((value) => !URL.canParse(value) || new URL(value).origin === value.replace(/\/$/, ''), {
    message: 'must be an origin only (scheme, host and port), with no path, query or fragment',
  })
  .transform((value) => (URL.canParse(value) ? new URL(value).origin : value));

/**
 * Text shown to visitors (prompts, child window, manifest). The HTML parser drops NUL and rewrites carriage returns,
 * and a lone surrogate cannot be written as UTF-8, so such text could not appear as configured: it is refused.
 */
function displayText(min: number, max: number) {
  const bounded = min > 0 ? z.string().min(min).max(max) : z.string().max(max);
  return bounded.superRefine((value, ctx) => {
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    const control = value.search(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    if (control >= 0) {
      const code = value.charCodeAt(control).toString(16).toUpperCase().padStart(4, '0');
      ctx.addIssue({
        code: 'custom',
        message: `must not contain control characters other than tab and newline (found U+${code} at character ${control + 1})`,
      });
    }
    const surrogate = value.search(/[\uD800-\uDFFF]/u);
    if (surrogate >= 0)
      ctx.addIssue({ code: 'custom', message: `must be valid Unicode text (a lone surrogate at character ${surrogate + 1})` });
  });
}

/** The provider's URLs the site's pages call (fetch, script, image). */
export const MIXED_CONTENT_FIELDS = ['serverSyncUrl', 'servicesServerURL'] as const;

/** Whether a page of `origin` calling `url` is blocked as mixed content: an https page, an http URL not on this machine. */
export function isMixedContent(origin: string, url: string): boolean {
  if (!URL.canParse(origin) || !URL.canParse(url)) return false;
  const target = new URL(url);
  return new URL(origin).protocol === 'https:' && target.protocol === 'http:' && !isLocalHost(target.hostname);
}

/** A path on the site's own origin, or an absolute URL; the runtime resolves it against the page. */
const sitePath = z
  .string()
  .min(1, 'must not be empty')
  .refine((value) => (value.startsWith('/') && !/^\/[/\\]/.test(value)) || /^https?:\/\//.test(value), {
    message: 'must start with "/" (not "//", which names another host) or be an absolute http(s) URL',
  })
  .refine(noUrlWhitespace, URL_WHITESPACE_RULE);

const urlPattern = z.string().min(1, 'a URL pattern must not be empty');

/** A condition (docs/conditions.md). */
const conditionString = z.string().min(1);

const segmentId = z.union([z.int().positive(SEGMENT_ID_OR_NUMBER_RULE), z.string().regex(SEGMENT_ID_PATTERN, SEGMENT_ID_OR_NUMBER_RULE)], {
  error: SEGMENT_ID_OR_NUMBER_RULE,
});
const zeroOrOne = z.union([z.literal(0), z.literal(1)], { error: 'must be 0 or 1' });

export const segmentationSchema = z
  .strictObject({
    sid: segmentId.describe('Segment id.'),
    ss: conditionString.describe('Condition expression; a visitor for whom it holds joins the segment.'),
    vn: z.int().nonnegative().default(1).describe('Version: a change re-evaluates the segment for every visitor.'),
  })
  .describe('A segment entry of spec section 3: sid, ss, vn.');

export const clickSegmentationSchema = z.strictObject({
  sid: segmentId,
  selector: z.string().min(1).describe('CSS selector of the elements whose click adds the visitor.'),
  vn: z.int().nonnegative().default(1),
});

export const shopifySegmentationSchema = z.strictObject({
  sid: segmentId,
  event: z.enum(['add_cart', 'order']).describe('The shop event that adds the visitor.'),
  ss: conditionString.optional().describe('Optional condition on the event data, e.g. `cTotal > 50`.'),
  vn: z.int().nonnegative().default(1),
});

/**
 * Spec section 5: click and shop segmentation configs may be arrays or JSON strings; invalid JSON becomes an
 * empty list. The invalid-JSON case is reported as a build warning by the loader, not as an error.
 */
function arrayOrJsonString<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return [];
    }
  }, z.array(item).default([]));
}

const cssColor = z.string().refine(isCssColor, CSS_COLOR_RULE);

const colorsSchema = z
  .strictObject({
    background: cssColor.optional().describe('Background of the prompts (chicklet, boxes, branding modal).'),
    text: cssColor.optional().describe('Text of the prompts, their close button and branding line.'),
    yesBackground: cssColor.optional().describe('Background (and border) of the Yes button.'),
    yesText: cssColor.optional().describe('Text of the Yes button.'),
    noBackground: cssColor.optional().describe('Background of the No button.'),
    noText: cssColor.optional().describe('Text (and border) of the No button.'),
  })
  .describe(
    "Colours of the host-page prompts and the child window, compiled into their stylesheets: #rgb, #rrggbb (or with alpha), rgb(), rgba(), hsl(), hsla() or a colour name; an unset one keeps push-kit's.",
  );

const styleSchema = z
  .strictObject({
    iconUrl: httpUrl.optional().describe('Icon shown in the prompts, the child window and notifications.'),
    brandingType: z
      .enum(['default', 'custom', 'none'])
      .default('default')
      .describe("Branding in the prompt footer: push-kit's, brandingText, or none."),
    brandingText: displayText(0, 120).default('Powered by push-kit'),
    isMobileEnabled: z.boolean().default(false).describe('Show the mobile box (with a close button) on phones.'),
    allowTextChildWindow: displayText(1, 40).default('Allow'),
    offerTextChildWindow: displayText(1, 300).default(DEFAULT_TEXTS.offer),
    colors: colorsSchema.optional(),
  })
  .describe('Prompt styling, spec section 3.');

const iosHomeScreenSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'true: in Safari on iOS/iPadOS 16.4+ outside a home-screen app, show the instructions instead of refusing; inside the installed app, opt in with standard Web Push. false (default): iOS is unsupported, as the spec says.',
      ),
    instructions: displayText(1, 600).default(DEFAULT_TEXTS.iosHomeScreen).describe('The "Add to Home Screen" instructions.'),
  })
  .describe('iOS and iPadOS home-screen web apps (Web Push since iOS 16.4).');

const textsSchema = z
  .strictObject({
    contextBox: displayText(1, 400).default(DEFAULT_TEXTS.contextBox),
    offer: displayText(1, 300).default(DEFAULT_TEXTS.offer),
    alreadySubscribed: displayText(1, 400).default(DEFAULT_TEXTS.alreadySubscribed),
    blocked: displayText(1, 600).default(DEFAULT_TEXTS.blocked),
    yesButton: displayText(1, 40).default('Yes'),
    noButton: displayText(1, 40).default('No'),
    subscribeFailed: displayText(1, 300)
      .default(DEFAULT_TEXTS.subscribeFailed)
      .describe("Shown on the page when subscribing fails after the visitor's Yes (the push service or the provider refused)."),
  })
  .describe('Texts shown on the host page; spec section 2 gives the defaults.');

const triggersSchema = z
  .strictObject({
    when: z.string().min(1).default('delay').describe('Trigger expression over event names; every and/or is read as or (spec section 5).'),
    delaySeconds: z.number().min(0).max(3600).default(5).describe('The delay event: 5 s after load by default.'),
    clickSelector: z.string().min(1).optional().describe('Elements whose click fires the click event.'),
    mousedownSelector: z.string().min(1).optional(),
    intervalSeconds: z.int().positive().optional().describe('The interval event fires after this many 1 s ticks.'),
    scroll: z
      .strictObject({
        percent: z.number().min(0).max(100).optional(),
        pixelsFromTop: z.int().nonnegative().optional(),
        pixelsFromBottom: z.int().nonnegative().optional(),
      })
      .optional(),
    persist: z
      .enum(['page', 'session', 'always'])
      .default('page')
      .describe('How long a fired event is remembered: this page view, the browser session, or longer.'),
  })
  .describe('When the opt-in prompt shows (spec section 4, trigger events).');

/** The defaults of one automation (contract/automations.ts); the owner API changes them per site. */
function automationSchema(kind: AutomationKind, description: string) {
  const defaults = AUTOMATION_DEFAULTS[kind];
  return z
    .strictObject({
      enabled: z.boolean().default(defaults.enabled).describe('false: nothing is scheduled or sent (paused).'),
      delayMinutes: z.int().min(0).max(AUTOMATION_DELAY_MAX_MINUTES).default(defaults.delayMinutes),
      title: displayText(1, CAMPAIGN_TITLE_MAX_LENGTH).default(defaults.title),
      body: displayText(1, CAMPAIGN_BODY_MAX_LENGTH).default(defaults.body),
      url: httpUrl.optional().describe('The page a click opens; the site when absent.'),
      conversionWindowHours: z
        .int()
        .min(1)
        .max(CONVERSION_WINDOW_MAX_HOURS)
        .default(defaults.conversionWindowHours)
        .describe('An order this many hours at most after a click counts as a conversion.'),
      days: z
        .int()
        .min(1)
        .max(AUTOMATION_DAYS_MAX)
        .default(defaults.days)
        .describe('priceDrop and backInStock: views or carts this many days back count; winBack: days without a visit or click.'),
    })
    .prefault({})
    .describe(description);
}

const automationsSchema = z
  .strictObject({
    welcome: automationSchema('welcome', 'A welcome message delayMinutes after a subscribe.'),
    abandonedCart: automationSchema(
      'abandonedCart',
      'One reminder delayMinutes after an add-to-cart that no order follows; title and body may name {product} and {price}.',
    ),
    browseAbandonment: automationSchema(
      'browseAbandonment',
      'One reminder delayMinutes after a product view that no add-to-cart or order follows, once per product; {product}, {price}, {url}.',
    ),
    priceDrop: automationSchema(
      'priceDrop',
      "To subscribers who viewed or carted a product within days, when the shop's product update lowers its price; {product}, {price}, {oldPrice}, {url}.",
    ),
    backInStock: automationSchema(
      'backInStock',
      "To subscribers who viewed or carted a product within days, when the shop's product update puts it back in stock; {product}, {price}, {url}.",
    ),
    winBack: automationSchema('winBack', 'Once to each subscriber with no visit and no click for days.'),
  })
  .describe("Messages the provider sends by itself (docs/automations.md): the site's defaults, changed per site through the owner API.");

export const siteConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    hash: z
      .string()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be 8 to 64 letters, digits, "_" or "-"')
      .describe('The site key the provider knows the site by.'),
    companyName: displayText(1, 80),
    origin: httpUrl
      .refine((value) => !URL.canParse(value) || new URL(value).origin === value.replace(/\/$/, ''), {
        message: 'must be an origin only (scheme, host and port), with no path, query or fragment',
      })
      .transform((value) => (URL.canParse(value) ? new URL(value).origin : value))
      .describe("The site's origin, e.g. https://example.com. http origins get the child window."),
    serverSyncUrl: httpUrl.describe('Base URL of the sync server (syncSubscriptionAction.php, c.gif, ...).'),
    servicesServerURL: httpUrl.optional().describe('Base URL of the services server (/as, /dyn); serverSyncUrl when absent.'),
    childWindowOrigin: originOnly
      .optional()
      .describe(
        "Origin of this http site's child window, its own (e.g. https://calligraphy.push.example.com, a host name routed to the provider), so no browser state crosses sites; serverSyncUrl's origin, shared by every site on the provider, when absent.",
      ),
    cdnUrl: httpUrl
      .refine((value) => !URL.canParse(value) || new URL(value).protocol === 'https:' || isLocalHost(new URL(value).hostname), {
        message: 'must be an https URL (http only for localhost)',
      })
      .refine((value) => !URL.canParse(value) || (!new URL(value).search && !new URL(value).hash && !value.includes('#')), {
        message: 'must have no query or fragment',
      })
      .refine((value) => !/\.js$/i.test(URL.canParse(value) ? new URL(value).pathname : value), {
        message: 'must be the folder where push.js is served, not the file (the snippet adds /push.js)',
      })
      .optional()
      .describe(
        "The folder URL where this site's push.js (and the chunks beside it) is served, e.g. https://cdn.example.com/calligraphy; the snippet loads {cdnUrl}/push.js. The site's own /push.js when absent. The service workers and the manifest stay on the site's origin.",
      ),
    manifestUrl: sitePath.default('/manifest.json'),
    swPath: sitePath.default('/sw.js'),
    firefoxSwPath: sitePath.default('/sw-firefox.js'),
    swScope: z
      .string()
      .startsWith('/')
      .refine(noUrlWhitespace, URL_WHITESPACE_RULE)
      .default('/')
      .describe('Scope of the push service worker.'),
    notificationClickOrigins: z
      .array(originOnly)
      .default([])
      .describe("Origins besides the site's own that a notification click may open; any other URL opens the site."),
    conversionWindowHours: z
      .int()
      .min(1)
      .max(720)
      .default(72)
      .describe("Hours after a subscriber's click on a campaign in which a shop order of theirs counts as that campaign's conversion."),
    utm: z
      .boolean()
      .optional()
      .describe(
        'false: landing URLs of campaigns and automations get no utm_source=push-kit&utm_medium=push&utm_campaign=<id> (added when absent or true, unless the URL has a utm_ parameter).',
      ),
    campaignGuardrails: z
      .strictObject({
        quietHours: z
          .strictObject({
            start: z.string().regex(TIME_OF_DAY_PATTERN, 'must be a time of day such as 21:00 (24-hour HH:MM)'),
            end: z.string().regex(TIME_OF_DAY_PATTERN, 'must be a time of day such as 08:00 (24-hour HH:MM)'),
          })
          .optional()
          .describe(
            "Hours of the subscriber's own clock when no campaign is shown: a message waits until they end, or is dropped when its TTL runs out first.",
          ),
        frequencyCap: z
          .strictObject({
            max: z.int().min(1).max(1000),
            per: z.enum(['day', 'week']),
          })
          .optional()
          .describe(
            'At most `max` notifications per subscriber per day or week (the last 24 hours or 7 days); past it a subscriber is skipped and counted.',
          ),
      })
      .default({})
      .describe('Limits on sending campaigns to each subscriber.'),
    campaigns: z
      .strictObject({
        throttlePerMinute: z
          .int()
          .min(THROTTLE_PER_MINUTE_MIN)
          .max(THROTTLE_PER_MINUTE_MAX)
          .optional()
          .describe(
            "Deliveries per minute at most of each campaign that names no throttlePerMinute of its own, across every provider on the database: the site's servers get the clicks spread out.",
          ),
      })
      .default({})
      .describe("The site's campaign defaults (docs/campaigns.md)."),
    feeds: z
      .array(
        feedInputSchema.extend({
          url: httpUrl.describe(
            'The RSS or Atom feed: https, or http and a private address only for a host the provider lists in --allow-feed-hosts.',
          ),
        }),
      )
      .max(FEEDS_MAX)
      .default([])
      .superRefine((feeds, ctx) => {
        const seen = new Set<string>();
        feeds.forEach((feed, index) => {
          const url = URL.canParse(feed.url) ? new URL(feed.url).href : feed.url;
          if (seen.has(url)) ctx.addIssue({ code: 'custom', path: [index, 'url'], message: 'is listed twice' });
          seen.add(url);
        });
      })
      .describe(
        'RSS/Atom feeds the provider polls, sending each new item (docs/feeds.md): created or updated by URL when the provider starts, stopped when removed from the list; the owner API cannot remove them.',
      ),
    vapidPublicKey: z
      .string()
      .refine(isP256PublicKey, { message: configMessage('E_VAPID_KEY'), params: { code: 'E_VAPID_KEY' } })
      .describe("The site's VAPID public key (RFC 8292), url-safe base64."),
    vapidSubject: z
      .string()
      .refine(isAcceptedVapidSubject, { message: configMessage('E_VAPID_SUBJECT'), params: { code: 'E_VAPID_SUBJECT' } })
      .optional()
      .describe(
        "The sender's contact in every push (RFC 8292 `sub`): a mailto: address or an https URL at a public host name, as Apple's push service requires. The site's https origin when absent.",
      ),
    safariWebsitePushId: z
      .string()
      .regex(/^web(\.[A-Za-z0-9-]+)+$/, 'must look like web.com.example')
      .optional()
      .describe(
        "Safari's website push id (web.com.example), for Safari's legacy push only (macOS Safari before 16, no Push API); newer Safari uses standard Web Push.",
      ),
    safariWebServiceUrl: httpUrl
      .refine((value) => !URL.canParse(value) || new URL(value).protocol === 'https:', {
        message: 'must be an https URL (Apple requires it)',
      })
      .optional()
      .describe(
        "Required with safariWebsitePushId: the webServiceURL of Safari's legacy push, where the site serves Apple's push package service (POST {url}/v2/pushPackages/{websitePushId}, /v2/devices/..., /v2/log). The push-kit provider does not serve it.",
      ),
    gcmSenderId: z.string().regex(/^\d+$/, 'must be numeric').optional().describe('Written to manifest.json.'),
    segmentations: z.array(segmentationSchema).default([]),
    clickSegmentations: arrayOrJsonString(clickSegmentationSchema),
    shopifySegmentations: arrayOrJsonString(shopifySegmentationSchema),
    isShopifyConnectedAccount: z.boolean().default(false),
    includeUrls: z.array(urlPattern).default(['*']).describe('URL patterns where the prompt shows (default: all).'),
    excludeUrls: z.array(urlPattern).default([]).describe('URL patterns where it never shows (default: none).'),
    doNotShowDays: z
      .int()
      .min(0)
      .max(3650)
      .default(7)
      .describe(
        'Days the prompt stays hidden after the visitor answers No (or closes the home-screen instructions); 0 offers it again on the next view.',
      ),
    pcBranding: zeroOrOne.default(0).describe('1 shows the branding modal box.'),
    isNativeOptin: zeroOrOne.default(1).describe('0 never shows the branding modal box.'),
    style: styleSchema.prefault({}),
    texts: textsSchema.prefault({}),
    triggers: triggersSchema.prefault({}),
    iosHomeScreen: iosHomeScreenSchema.prefault({}),
    customDimensions: z
      .array(z.string().regex(DIMENSION_NAME_PATTERN, DIMENSION_NAME_RULE))
      .max(MAX_DIMENSIONS)
      .default([])
      .describe(
        "Custom dimensions (spec section 3): once per browser session a subscriber's values are read from getSubscriberAttributes.php and stored as _vwo_cd_{dimension}.",
      ),
    refreshUserProperties: z
      .boolean()
      .default(false)
      .describe("true: once per browser session a subscriber's user properties are refreshed from /dyn (its tags on the provider)."),
    isInactive: z.boolean().default(false).describe('true: push.js loads and does nothing.'),
    pageClickTrackingConcent: z
      .boolean()
      .default(false)
      .describe('true: visitors are asked for page-click tracking consent with a checkbox.'),
    automations: automationsSchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.safariWebsitePushId && !config.safariWebServiceUrl)
      ctx.addIssue({
        code: 'custom',
        path: ['safariWebServiceUrl'],
        message: configMessage('E_SAFARI_WEB_SERVICE_URL'),
        params: { code: 'E_SAFARI_WEB_SERVICE_URL' },
      });
    for (const field of MIXED_CONTENT_FIELDS) {
      const url = config[field];
      if (url !== undefined && isMixedContent(config.origin, url))
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: configMessage('E_MIXED_CONTENT', { origin: config.origin }),
          params: { code: 'E_MIXED_CONTENT' },
        });
    }
    if (config.iosHomeScreen.enabled && !config.style.iconUrl)
      ctx.addIssue({
        code: 'custom',
        path: ['style', 'iconUrl'],
        message: configMessage('E_IOS_ICON'),
        params: { code: 'E_IOS_ICON' },
      });
  })
  .describe('A push-kit site config.');

export type SiteConfigInput = z.input<typeof siteConfigSchema>;
export type SiteConfig = z.output<typeof siteConfigSchema>;
