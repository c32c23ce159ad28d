// The form body of POST /syncSubscriptionAction.php (contract/sync.ts), checked field by field.
import { z } from 'zod';
import { SYNC_ACTIONS, type SyncForm } from '../../contract/sync.ts';
import {
  browserParam,
  flagText,
  httpUrlParam,
  integerText,
  optionalField,
  siteHash,
  subscriberIdParam,
  subscriberSecretParam,
  text,
  withoutEmptyFields,
} from '../http/params.ts';

const base64url = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[A-Za-z0-9_=+/-]+$/, 'must be base64');

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
  userLanguage: optionalField(text(35, /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en-US')),
  userTimezoneOffset: optionalField(integerText(-1440, 1440)),
  userTimezone: optionalField(text(64, /^[A-Za-z0-9_+\-/]+$/, 'must be a time zone name such as Europe/Paris')),
  websitePushId: optionalField(text(128, /^web(\.[A-Za-z0-9-]+)+$/, 'must look like web.com.example')),
  vapidPublicKey: optionalField(base64url(128)),
  subscriptionDomainUrl: optionalField(httpUrlParam(1024)),
  serviceWorkerPath: optionalField(text(1024)),
  subscriptionPageUrl: optionalField(httpUrlParam(2048)),
  pageClickTrackingPermission: optionalField(flagText),
  gcmSenderId: optionalField(text(32, /^\d+$/, 'must be numeric')),
  callback: z.string().optional(),
} satisfies Record<keyof SyncForm, z.ZodType>;

export const syncPayloadSchema = withoutEmptyFields(
  fields,
  z.object(fields).superRefine((payload, ctx) => {
    // What each action needs besides the hash (the checks runSyncAction would otherwise answer with a failure):
    // refused here with a 400 before anything is looked up.
    const required = (parameter: string, message = 'is required') => ctx.addIssue({ code: 'custom', path: [parameter], message });
    const subscription = Boolean(payload.subscription?.endpoint || payload.subscriptionEndPoint || payload.subscriptionId);
    switch (payload.action) {
      case 'update-google-registration-id':
        if (!payload.previousSubscriptionId) return required('previousSubscriptionId');
      // falls through: the new registration is needed too
      case 'insert':
      case 'insert-failed':
      case 'update':
        if (!subscription) required('subscription', 'an endpoint or a subscriptionId is required');
        return;
      case 'http-sync':
      case 'unsubscribe-ui':
      case 'unsubscribe-native':
        if (!payload.subscriberId && !subscription) required('subscriberId', 'a subscriberId, subscriptionId or subscription is required');
        return;
      case 'block':
        if (!payload.uuid && !payload.subscriberId) required('uuid', 'a uuid or subscriberId is required');
        return;
      case 'get-subscriberid-from-server':
        if (!payload.uuid && !subscription) required('uuid', 'a uuid, subscriptionId or subscription is required');
        return;
      case 'update-subscriberId':
        if (!payload.previousSubscriberId) required('previousSubscriberId');
        else if (!payload.subscriberId) required('subscriberId');
        return;
    }
  }),
);

export type SyncPayload = z.output<typeof syncPayloadSchema>;
