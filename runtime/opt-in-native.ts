// Opt-in through the browser's own Push API (spec section 4): the permission prompt with the context box,
// the site's service worker and pushManager.subscribe, and the renewal of a lost subscription.
import type { RuntimeServices } from './services.ts';
import type { BrowserName } from './browser-support.ts';
import type { OptInOutcome } from './opt-in-outcome.ts';
import type { OptInPath } from './opt-in-path.ts';
import type { Prompts } from './prompts.ts';
import type { CurrentSubscription, StoredState } from './sync.ts';
import { activeRegistration, askPermission, describeSubscription, subscribePush } from './push-subscription.ts';
import { subscriptionIdOf, syncAction, syncSubscription, syncWithoutPermission } from './sync.ts';
import { BLOCKED, CANCELLED, NOT_SUBSCRIBED, SYNC_ERROR } from './messages.ts';
import { Key } from './storage-keys.ts';
import { guard, logSwallowed } from './guard.ts';
import { urlBase64ToBytes } from './base64url.ts';
import { incognitoRefusal } from './private-window.ts';

const notificationPermission = (): NotificationPermission | 'unsupported' =>
  'Notification' in window ? Notification.permission : 'unsupported';

/** The push subscription of the worker registered for `scope`, if any. */
async function currentSubscription(scope: string): Promise<PushSubscription | null | undefined> {
  const registration = 'serviceWorker' in navigator && (await navigator.serviceWorker.getRegistration(scope));
  return registration ? registration.pushManager.getSubscription() : undefined;
}

/**
 * Brings the provider up to date with the subscription this origin's worker (`services.site_.swScope`) holds:
 * unsubscribe-native when the permission is gone, a silent renewal of a lost subscription, then the update
 * decision. True when the visitor is subscribed. The child window runs it for its own origin too.
 */
export async function syncBrowserSubscription(services: RuntimeServices, browser: BrowserName, stored: StoredState): Promise<boolean> {
  const { site_: site, local_: local } = services;
  const granted = notificationPermission();
  if (granted !== 'granted') {
    await syncWithoutPermission(services, browser, stored, granted);
    return false;
  }
  let subscription = await currentSubscription(site.swScope);
  const storedKey = local.get(Key.VAPID_KEY);
  // The silent move (docs/migrating.md): a subscription made with another key (another service's script on this
  // origin, or before a rotation; without options' key, a sender-id one, the key stored at its sync) is replaced
  // by one with the site's key, the same subscriber (update-google-registration-id) or, with none stored, a new one.
  const key = subscription && subscription.options && subscription.options.applicationServerKey;
  const moving = key
    ? String(new Uint8Array(key)) !== String(urlBase64ToBytes(site.vapidPublicKey))
    : subscription && storedKey && storedKey !== site.vapidPublicKey;
  if (moving) {
    // Named as the previous registration, an imported subscriber keeps its record when its subscription moves.
    if (!stored.subscriptionId) local.set(Key.SUBSCRIPTION_ID, subscriptionIdOf(subscription!.endpoint));
    await subscription!.unsubscribe();
    subscription = null;
  }
  if (!subscription && !moving && stored.status !== 'subscribed' && !stored.subscriberId) return false;
  const renew = async (): Promise<unknown> => {
    // Granted but the subscription is gone (expired, or moving): renew it without asking.
    const current = describeSubscription(
      subscription || (await subscribePush(site, local, await activeRegistration(site, browser === 'firefox'))),
    );
    return moving && !stored.subscriberId
      ? syncAction(services, browser, 'insert', current)
      : syncSubscription(services, browser, stored, current);
  };
  // A browser that lets a page subscribe only within a user gesture renews on the visitor's next click, unasked (on
  // a later view too: the old subscription is gone by then).
  await renew().catch(() => addEventListener('click', guard(renew), { once: true }));
  return true;
}

export function nativeOptInPath(services: RuntimeServices, browser: BrowserName, outcome: OptInOutcome, prompts: Prompts): OptInPath {
  const { site_: site, local_: local } = services;
  const firefox = browser === 'firefox';
  return {
    _permission: notificationPermission,

    _sync: (stored) => syncBrowserSubscription(services, browser, stored),

    async _subscribe() {
      const before = Notification.permission;
      if (before === 'default') prompts.show_('context');
      const answer = before === 'granted' ? before : await askPermission();
      prompts.hide_('context');
      // A denial the browser keeps is tried too: Chromium's incognito denies by itself, and only its refusal of the
      // subscription tells it from the visitor's block (docs/spec-silent-cases.md). A denial within 500 ms is a block.
      if (answer !== 'granted' && Notification.permission !== 'denied')
        return answer === 'denied' ? outcome.blocked_(BLOCKED) : outcome.fail_(CANCELLED);
      let current: CurrentSubscription;
      try {
        current = describeSubscription(await subscribePush(site, local, await activeRegistration(site, firefox)));
      } catch (error) {
        logSwallowed(error);
        return answer === 'denied' && !incognitoRefusal(error) ? outcome.blocked_(BLOCKED) : outcome.fail_(NOT_SUBSCRIBED);
      }
      if (await syncAction(services, browser, 'insert', current)) outcome.succeed_();
      else outcome.fail_(SYNC_ERROR);
    },

    // triggerOptIn while denied: the blocked copy, unless incognito denied it ("Could Not Subscribe.")
    async _unblock() {
      try {
        await subscribePush(site, local, await activeRegistration(site, firefox));
      } catch (error) {
        if (incognitoRefusal(error)) outcome.fail_(NOT_SUBSCRIBED);
        else prompts.show_('blocked');
      }
    },

    async _unsubscribe() {
      const subscription = await currentSubscription(site.swScope);
      if (subscription) await subscription.unsubscribe();
    },
  };
}
