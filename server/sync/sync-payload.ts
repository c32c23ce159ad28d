// The form body of POST /syncSubscriptionAction.php (contract/sync.ts), checked field by field.
import { z } from 'zod';
import { SYNC_ACTIONS, type SyncForm } from '../../contract/sync.ts';
import {
  PLACEHOLDER_SUBSCRIBER_ID,
  SITE_HASH_MAX_LENGTH,
  SITE_HASH_PATTERN,
  SUBSCRIBER_ID_MAX_LENGTH,
  SUBSCRIBER_ID_PATTERN,
  SUBSCRIBER_SECRET_PATTERN,
} from '../../contract/ids.ts';
import { withFastPath } from '../http/route-schemas.ts';
import {
  BROWSER_PATTERN,
  browserParam,
  flagText,
  httpUrlParam,
  integerText,
  isOptionalField,
  optionalField,
  siteHash,
  subscriberIdParam,
  subscriberSecretParam,
  text,
  withoutEmptyFields,
} from '../http/params.ts';

const BASE64 = /^[A-Za-z0-9_=+/-]+$/;
const LANGUAGE_PATTERN = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
const TIMEZONE_PATTERN = /^[A-Za-z0-9_+\-/]+$/;
const WEBSITE_PUSH_ID_PATTERN = /^web(\.[A-Za-z0-9-]+)+$/;
const DIGITS = /^\d+$/;

const base64url = (max: number) => z.string().max(max).regex(BASE64, 'must be base64');

const pushSubscription = z.object({
  endpoint: httpUrlParam(1024).optional(),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: base64url(128), auth: base64url(64) }).optional(),
});

/** `subscription` is the browser's PushSubscription as JSON text. */
const subscriptionJson = text(4096).transform((value, ctx) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be the PushSubscription as JSON' });
    return z.NEVER;
  }
  const result = pushSubscription.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || 'value'} ${issue.message}` });
    return z.NEVER;
  }
  return result.data;
});

/** The form's fields; an empty value counts as absent (spec section 3). */
const fields = {
  hash: siteHash,
  action: z.enum(SYNC_ACTIONS, { error: `must be one of ${SYNC_ACTIONS.join(', ')}` }),
  subscription: optionalField(subscriptionJson),
  subscriberId: optionalField(subscriberIdParam),
  subscriberSecret: optionalField(subscriberSecretParam),
  previousSubscriberId: optionalField(subscriberIdParam),
  uuid: optionalField(subscriberIdParam),
  previousSubscriptionId: optionalField(text(1024)),
  subscriptionId: optionalField(text(1024)),
  subscriptionEndPoint: optionalField(httpUrlParam(1024)),
  origin: optionalField(httpUrlParam(256)),
  firefoxEncryptionKey: optionalField(base64url(256)),
  browserType: optionalField(browserParam),
  userLanguage: optionalField(text(35, LANGUAGE_PATTERN, 'must be a language tag such as en-US')),
  userTimezoneOffset: optionalField(integerText(-1440, 1440)),
  userTimezone: optionalField(text(64, TIMEZONE_PATTERN, 'must be a time zone name such as Europe/Paris')),
  websitePushId: optionalField(text(128, WEBSITE_PUSH_ID_PATTERN, 'must look like web.com.example')),
  vapidPublicKey: optionalField(base64url(128)),
  subscriptionDomainUrl: optionalField(httpUrlParam(1024)),
  serviceWorkerPath: optionalField(text(1024)),
  subscriptionPageUrl: optionalField(httpUrlParam(2048)),
  pageClickTrackingPermission: optionalField(flagText),
  gcmSenderId: optionalField(text(32, DIGITS, 'must be numeric')),
  callback: z.string().optional(),
} satisfies Record<keyof SyncForm, z.ZodType>;

/** What an action needs besides the hash, as [parameter, message] when it is missing (the checks runSyncAction would otherwise answer with a failure). */
function missingRequirement(payload: z.output<z.ZodObject<typeof fields>>): [parameter: string, message: string] | undefined {
  const subscription = Boolean(payload.subscription?.endpoint || payload.subscriptionEndPoint || payload.subscriptionId);
  switch (payload.action) {
    case 'update-google-registration-id':
      if (!payload.previousSubscriptionId) return ['previousSubscriptionId', 'is required'];
    // falls through: the new registration is needed too
    case 'insert':
    case 'insert-failed':
    case 'update':
      return subscription ? undefined : ['subscription', 'an endpoint or a subscriptionId is required'];
    case 'http-sync':
    case 'unsubscribe-ui':
    case 'unsubscribe-native':
      return payload.subscriberId || subscription
        ? undefined
        : ['subscriberId', 'a subscriberId, subscriptionId or subscription is required'];
    case 'block':
      return payload.uuid || payload.subscriberId ? undefined : ['uuid', 'a uuid or subscriberId is required'];
    case 'get-subscriberid-from-server':
      return payload.uuid || subscription ? undefined : ['uuid', 'a uuid, subscriptionId or subscription is required'];
    case 'update-subscriberId':
      if (!payload.previousSubscriberId) return ['previousSubscriberId', 'is required'];
      return payload.subscriberId ? undefined : ['subscriberId', 'is required'];
  }
}

const schema = withoutEmptyFields(
  fields,
  z.object(fields).superRefine((payload, ctx) => {
    // refused here with a 400 before anything is looked up
    const missing = missingRequirement(payload);
    if (missing) ctx.addIssue({ code: 'custom', path: [missing[0]], message: missing[1] });
  }),
);

export type SyncPayload = z.output<typeof schema>;

// The fast path: every sync parses this form (25 fields), and zod's generic parse was the largest part of a sync's CPU
// in the provider (bench/README.md, sync endpoint, round ten: ~20 µs of ~150 µs a request, 8 of its 31 KB allocated).
// It only ever accepts: a form it is not sure of (any rule broken, a surrogate anywhere, a value that is not text) goes
// to the zod schema above, which gives the same value or the error naming the parameter. What it accepts, zod accepts
// with the same value (tests/unit/sync-form.test.ts compares the two over thousands of forms).
const NO = Symbol('not sure');
type Fast = (value: string) => unknown;
/** Any UTF-16 surrogate: such text goes to zod, which tells a lone one from a pair. */
const SURROGATE = /[\uD800-\uDFFF]/;
const fastText =
  (max: number, pattern?: RegExp): Fast =>
  (value) =>
    value.length <= max && !value.includes('\u0000') && !SURROGATE.test(value) && (!pattern || pattern.test(value)) ? value : NO;
/** An absolute http(s) URL: as httpUrlParam, written the way it parses (a scheme in other case or a leading space goes to zod). */
const fastUrl = (max: number): Fast => {
  const plain = fastText(max);
  return (value) =>
    plain(value) !== NO && (value.startsWith('https://') || value.startsWith('http://')) && URL.canParse(value) ? value : NO;
};
const fastBase64 =
  (max: number): Fast =>
  (value) =>
    value.length <= max && BASE64.test(value) ? value : NO;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const endpointUrl = fastUrl(1024);
const p256dh = fastBase64(128);
const auth = fastBase64(64);
const subscriptionText = fastText(4096);
const fastSubscription: Fast = (value) => {
  if (subscriptionText(value) === NO) return NO;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return NO;
  }
  if (!isRecord(parsed)) return NO;
  const out: { endpoint?: string; expirationTime?: number | null; keys?: { p256dh: string; auth: string } } = {};
  const { endpoint, expirationTime, keys } = parsed;
  if (endpoint !== undefined) {
    if (typeof endpoint !== 'string' || endpointUrl(endpoint) === NO) return NO;
    out.endpoint = endpoint;
  }
  if (expirationTime !== undefined) {
    if (expirationTime !== null && !(typeof expirationTime === 'number' && Number.isFinite(expirationTime))) return NO;
    out.expirationTime = expirationTime;
  }
  if (keys !== undefined) {
    if (!isRecord(keys) || typeof keys.p256dh !== 'string' || typeof keys.auth !== 'string') return NO;
    if (p256dh(keys.p256dh) === NO || auth(keys.auth) === NO) return NO;
    out.keys = { p256dh: keys.p256dh, auth: keys.auth };
  }
  return out;
};
const subscriberId = (
  (check: Fast): Fast =>
  (value) =>
    PLACEHOLDER_SUBSCRIBER_ID.test(value) ? NO : check(value)
)(fastText(SUBSCRIBER_ID_MAX_LENGTH, SUBSCRIBER_ID_PATTERN));
const anyText = fastText(1024);
const INTEGER = /^-?\d+$/;

/** Each field's fast check, in the order of `fields` (zod's output order); an empty value of an optional field is absent. */
const fastFields = {
  hash: fastText(SITE_HASH_MAX_LENGTH, SITE_HASH_PATTERN),
  action: (value) => ((SYNC_ACTIONS as readonly string[]).includes(value) ? value : NO),
  subscription: fastSubscription,
  subscriberId,
  subscriberSecret: fastText(43, SUBSCRIBER_SECRET_PATTERN),
  previousSubscriberId: subscriberId,
  uuid: subscriberId,
  previousSubscriptionId: anyText,
  subscriptionId: anyText,
  subscriptionEndPoint: fastUrl(1024),
  origin: fastUrl(256),
  firefoxEncryptionKey: fastBase64(256),
  browserType: fastText(32, BROWSER_PATTERN),
  userLanguage: fastText(35, LANGUAGE_PATTERN),
  userTimezoneOffset: (value) => {
    if (value.length > 12 || !INTEGER.test(value)) return NO;
    const offset = Number(value);
    return offset >= -1440 && offset <= 1440 ? offset : NO;
  },
  userTimezone: fastText(64, TIMEZONE_PATTERN),
  websitePushId: fastText(128, WEBSITE_PUSH_ID_PATTERN),
  vapidPublicKey: fastBase64(128),
  subscriptionDomainUrl: fastUrl(1024),
  serviceWorkerPath: anyText,
  subscriptionPageUrl: fastUrl(2048),
  pageClickTrackingPermission: (value) => (value === '1' || value === 'true' ? true : value === '0' || value === 'false' ? false : NO),
  gcmSenderId: fastText(32, DIGITS),
  callback: (value) => value,
} satisfies Record<keyof SyncForm, Fast>;
const FAST_FIELDS = Object.keys(fields).map((key) => [key, fastFields[key as keyof SyncForm]] as const);
const EMPTY_MEANS_ABSENT = new Set(Object.keys(fields).filter((key) => isOptionalField(fields[key as keyof SyncForm])));

/** The form as zod would give it, or undefined when the fast path is not sure (then zod decides). */
export function parseSyncFormFast(input: unknown): SyncPayload | undefined {
  if (!isRecord(input)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, check] of FAST_FIELDS) {
    const value = input[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') return undefined;
    if (value === '' && EMPTY_MEANS_ABSENT.has(key)) continue;
    const parsed = check(value);
    if (parsed === NO) return undefined;
    out[key] = parsed;
  }
  if (out.hash === undefined || out.action === undefined) return undefined;
  const payload = out as SyncPayload;
  return missingRequirement(payload) ? undefined : payload;
}

/** The sync form's schema, with the fast path above in front of it (server/http/route-schemas.ts). */
export const syncPayloadSchema = withFastPath(schema, parseSyncFormFast);
