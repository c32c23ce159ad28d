// Subscription sync with the provider (spec sections 3, 4 and 7): the update decision, the form payload
// and the outcome rules.
import type { CoreServices, RuntimeServices } from './services.ts';
import type { BrowserName } from './browser-support.ts';
import { valid } from './create-services.ts';
import { BROWSER_ID_PATTERN } from '../contract/ids.ts';
import { SUBSCRIPTION_MESSAGE } from '../contract/worker-message.ts';
import type { SubscriptionMessage } from '../contract/worker-message.ts';
import type { SyncAction, SyncForm } from '../contract/sync.ts';
import { Key } from './storage-keys.ts';
import { logSwallowed } from './guard.ts';
import { JSONP_CALLBACK } from './transport.ts';

export type SubscriptionStatus = '' | 'subscribed' | 'unsubscribed' | 'blocked';

/** What this browser last synced, as stored (section 3). */
export interface StoredState {
  subscriberId?: string;
  /** The subscriber's secret; a subscriber synced before secrets existed has none until its next sync. */
  secret_?: string;
  subscriptionId?: string;
  endpoint?: string;
  status: SubscriptionStatus;
  /** undefined: never synced; false: the last sync failed. */
  dbStatus_?: boolean;
  language_?: string;
}

/** The browser's current push subscription; `subscription` is the PushSubscription as JSON. */
export interface CurrentSubscription {
  subscriptionId: string;
  endpoint: string;
  subscription?: { endpoint?: string; keys?: Record<string, string> };
}

const LANGUAGE_PATTERN = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
const URL_PATTERN = /^https?:\/\/\S+$/;

export function readState(services: CoreServices): StoredState {
  const { local_: local } = services;
  const status = local.get(Key.STATUS);
  const dbStatus = local.get(Key.DB_STATUS);
  return {
    subscriberId: services.subscriberId_(),
    secret_: services.secret_(),
    subscriptionId: services.subscriptionId_(),
    endpoint: valid(local.get(Key.ENDPOINT), URL_PATTERN),
    status: status === 'subscribed' || status === 'unsubscribed' || status === 'blocked' ? status : '',
    dbStatus_: dbStatus === 'true' ? true : dbStatus === 'false' ? false : undefined,
    language_: valid(local.get(Key.LANGUAGE), LANGUAGE_PATTERN),
  };
}

export const currentLanguage = (): string => navigator.language || '';

/**
 * The update decision of spec section 4, its five steps in order; a subscriber without a secret (synced
 * before secrets existed) syncs too, proving its subscription, and gets one.
 */
export function decideUpdate(
  stored: StoredState,
  current: Pick<CurrentSubscription, 'subscriptionId' | 'endpoint'>,
  language: string,
): SyncAction | 'already-updated' {
  if (stored.dbStatus_ === false) return 'insert-failed';
  if (stored.subscriptionId === current.subscriptionId && !stored.subscriberId) return 'insert';
  if (stored.subscriptionId !== current.subscriptionId || (stored.endpoint || '') !== current.endpoint) {
    return stored.subscriptionId ? 'update-google-registration-id' : 'update';
  }
  if (stored.language_ !== language || (stored.subscriberId && !stored.secret_)) return 'http-sync';
  return 'already-updated';
}

/**
 * decideUpdate's "already-updated" for the browser's subscription at `endpoint`, read straight from storage: push.js's
 * core decides an in-sync view with it and carries neither readState nor the action names (the chunk's lifecycle
 * decides which action). tests/unit/runtime-sync-decision.test.ts checks that the two agree.
 */
export const inSync = (services: CoreServices, endpoint: string): boolean =>
  services.local_.get(Key.DB_STATUS) !== 'false' &&
  !!services.subscriberId_() &&
  !!services.secret_() &&
  services.subscriptionId_() === subscriptionIdOf(endpoint) &&
  // readState's URL_PATTERN check left out: the browser's endpoint is an https URL, so a stored value equal to it passes
  services.local_.get(Key.ENDPOINT) === endpoint &&
  valid(services.local_.get(Key.LANGUAGE), LANGUAGE_PATTERN) === currentLanguage();

/** The push service's registration id: the last path segment of the endpoint. */
export const subscriptionIdOf = (endpoint: string): string => decodeURIComponent(endpoint.slice(endpoint.lastIndexOf('/') + 1));

function syncPayload(services: RuntimeServices, browser: BrowserName, action: SyncAction, current?: CurrentSubscription): SyncForm {
  const { site_: site, local_: local } = services;
  const stored = readState(services);
  const { subscriptionId, endpoint, subscription } = current || ({} as Partial<CurrentSubscription>);
  const firefox = browser === 'firefox';
  let timezone = '';
  try {
    timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    // Old browsers without time zone names: the offset is still sent.
  }
  return {
    hash: site.hash,
    subscription: subscription ? JSON.stringify(subscription) : '',
    subscriberId: stored.subscriberId || '',
    subscriberSecret: stored.secret_,
    // "with a previous id" (spec section 4): the stored one, also when only the endpoint changed
    previousSubscriptionId:
      (action === 'update-google-registration-id' || stored.subscriptionId !== subscriptionId ? stored.subscriptionId : '') || '',
    subscriptionId: subscriptionId || stored.subscriptionId || '',
    subscriptionEndPoint: endpoint || stored.endpoint || '',
    action,
    origin: location.origin,
    firefoxEncryptionKey: (firefox && subscription && subscription.keys && subscription.keys.p256dh) || '',
    browserType: browser,
    userLanguage: currentLanguage(),
    userTimezoneOffset: new Date().getTimezoneOffset(),
    userTimezone: timezone || '',
    websitePushId: site.safariWebsitePushId || '',
    vapidPublicKey: site.vapidPublicKey,
    subscriptionDomainUrl: location.origin,
    serviceWorkerPath: firefox ? site.firefoxSwPath : site.swPath,
    subscriptionPageUrl: location.href,
    pageClickTrackingPermission: services.trackingAllowed_() ? '1' : '0',
    gcmSenderId: valid(local.get(Key.GCM_ID), /^\d{1,32}$/) || '',
    uuid: valid(services.cookies_.get(Key.UUID_COOKIE), BROWSER_ID_PATTERN) || '',
    // the spec's "jsonp reply", read as text by transport.ts, never run
    callback: JSONP_CALLBACK,
  };
}

/** Hands the subscription (or its removal) to the worker, which keeps it in IndexedDB. */
function tellWorker(scope: string, subscription: SubscriptionMessage[typeof SUBSCRIPTION_MESSAGE]): void {
  navigator.serviceWorker?.getRegistration(scope).then(
    (registration) => registration && registration.active && registration.active.postMessage({ [SUBSCRIPTION_MESSAGE]: subscription }),
    () => undefined,
  );
}

export const syncUrl = (services: RuntimeServices): string => services.site_.serverSyncUrl + '/syncSubscriptionAction.php';

const clearSubscriber = (services: RuntimeServices): void => {
  for (const key of [Key.SUBSCRIBER_ID, Key.SUBSCRIBER_SECRET, Key.SUBSCRIPTION_ID, Key.ENDPOINT, Key.LANGUAGE, Key.VAPID_KEY])
    services.local_.remove(key);
  tellWorker(services.site_.swScope, null);
};

/**
 * Sends one sync action and applies the outcome rules: on success the subscriber id is stored, the db status
 * becomes true and the status subscribed (or unsubscribed, with the stored data cleared); on error the db
 * status becomes false. The subscription id and endpoint are saved either way, except on unsubscribe.
 */
export async function syncAction(
  services: RuntimeServices,
  browser: BrowserName,
  action: SyncAction,
  current?: CurrentSubscription,
): Promise<boolean> {
  const { local_: local } = services;
  const unsubscribing = action === 'unsubscribe-ui' || action === 'unsubscribe-native';
  let ok = false;
  try {
    const reply = (await services.postForm_(syncUrl(services), syncPayload(services, browser, action, current))) as Partial<
      Record<'status' | 'subscriberId' | 'subscriberSecret', unknown>
    > | null;
    const subscriberId = valid(reply && typeof reply.subscriberId === 'string' ? reply.subscriberId : undefined, BROWSER_ID_PATTERN);
    if (!reply || reply.status !== 'success' || (!unsubscribing && !subscriberId)) throw new Error('sync ' + action + ' failed');
    ok = true;
    local.set(Key.DB_STATUS, 'true');
    if (unsubscribing) {
      clearSubscriber(services);
      local.set(Key.STATUS, 'unsubscribed');
    } else {
      local.set(Key.SUBSCRIBER_ID, subscriberId!);
      const secret = valid(reply.subscriberSecret as string, BROWSER_ID_PATTERN);
      if (secret) local.set(Key.SUBSCRIBER_SECRET, secret);
      local.set(Key.STATUS, 'subscribed');
      local.set(Key.LANGUAGE, currentLanguage());
    }
  } catch (error) {
    logSwallowed(error);
    local.set(Key.DB_STATUS, 'false');
  }
  if (!unsubscribing && current) {
    local.set(Key.SUBSCRIPTION_ID, current.subscriptionId);
    local.set(Key.ENDPOINT, current.endpoint);
    local.set(Key.VAPID_KEY, services.site_.vapidPublicKey);
    if (current.subscription && current.subscription.endpoint)
      tellWorker(services.site_.swScope, current.subscription as { endpoint: string });
  }
  return ok;
}

/** "A block event is tracked" (spec section 4): push-kit's `block` action tells the provider. */
export const reportBlock = (services: RuntimeServices, browser: BrowserName): Promise<unknown> =>
  services.postForm_(syncUrl(services), syncPayload(services, browser, 'block')).catch(logSwallowed);

/**
 * The permission is no longer granted (denied or reset in the browser): a synced subscriber is dropped on the
 * provider (unsubscribe-native), and a denial is kept as status blocked.
 */
export async function syncWithoutPermission(
  services: RuntimeServices,
  browser: BrowserName,
  stored: StoredState,
  permission: NotificationPermission | 'unsupported',
): Promise<void> {
  if (stored.subscriberId || stored.status === 'subscribed') {
    await syncAction(services, browser, 'unsubscribe-native');
    if (permission === 'denied') services.local_.set(Key.STATUS, 'blocked');
  }
}

/** Sends the update decision's action for the browser's current subscription, unless it is already updated. */
export async function syncSubscription(
  services: RuntimeServices,
  browser: BrowserName,
  stored: StoredState,
  current: CurrentSubscription,
): Promise<void> {
  const action = decideUpdate(stored, current, currentLanguage());
  if (action !== 'already-updated') await syncAction(services, browser, action, current);
}
