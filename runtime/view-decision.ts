// The core's decision for one page view: whether the view needs the lifecycle chunk now (a sync, a uuid link, an
// opt-out, the consent or the custom data to read, Safari's legacy push, the child window), only when the
// prompt's trigger fires, or not at all (an in-sync subscriber's view: the update decision of spec section 4
// from stored state and the worker's subscription, no request, no chunk). The chunk re-runs the same checks
// (lifecycle.ts) and acts on them; these must never say "nothing to do" where the lifecycle would do something.
import type { CoreServices } from './services.ts';
import { coreSupport, standardPushCapable, type CoreSupport } from './view-support.ts';
import { valid } from './create-services.ts';
import { BROWSER_ID_PATTERN } from '../contract/ids.ts';
import { inSync } from './sync.ts';
import { Key } from './storage-keys.ts';

export interface ViewDecision {
  /** The view needs the lifecycle chunk now. */
  _full: boolean;
  /** The prompt is armed: the chunk is needed once the trigger fires. */
  _offer: boolean;
  /** This browser can subscribe (the API's readiness). */
  _canPush: boolean;
}

// The permission and the worker's subscription are asked from these small functions, not from decideView: under an
// attached DevTools session each call records its caller's position, and V8 re-parses (and recompiles) the calling
// function for it ("source positions", bench/README.md), which for decideView costs 0.3 ms or more of a first visit.
const permissionStatus = (): Promise<PermissionStatus> => navigator.permissions.query({ name: 'notifications' });
const subscriptionOf = (scope: string): Promise<PushSubscription | null | undefined> =>
  navigator.serviceWorker.getRegistration(scope).then((registration) => registration && registration.pushManager.getSubscription());

/** `search`: the page's query, '' where the URL has none. */
export async function decideView(services: CoreServices, search: URLSearchParams | ''): Promise<ViewDecision> {
  const { site_: site, local_: local, cookies_: cookies } = services;
  // Where an opt-in path other than standard Web Push may be taken (Safari's legacy push, a home-screen app, the
  // child window), what the core needs of it; the browser's name and version are the chunk's (the flags are written
  // out each time, so esbuild drops the unused side; `view` is set and read only behind them: esbuild keeps an unused local's value).
  let view!: CoreSupport;
  const capable =
    PK_FEATURES.safari || PK_FEATURES.iosHomeScreen || PK_FEATURES.childWindow
      ? (view = coreSupport(site)).capable_
      : standardPushCapable(site);
  const full: ViewDecision = { _full: true, _offer: false, _canPush: capable };
  // Uuid handling (visitor-id.ts) is the chunk's: adopting one from the URL, a link, and a new visitor's uuid, made
  // where the chunk first runs for the visitor (the sync, a link and the child window are what read it), not on a
  // view that only arms the prompt (a first visit's crypto and cookie write, 0.4 ms of its main thread; issue 34).
  const fromUrl = valid(search && search.get('uuid'), BROWSER_ID_PATTERN);
  if (
    (fromUrl && fromUrl !== valid(cookies.get(Key.UUID_COOKIE), BROWSER_ID_PATTERN)) ||
    local.get(Key.UPDATE_SUBSCRIBER_ID) ||
    (search && search.has(Key.OPT_OUT))
  )
    return full;
  const subscriberId = services.subscriberId_();
  if (services.optedOut_()) return subscriberId ? full : { _full: false, _offer: false, _canPush: capable };
  // read only where an offer depends on it (an in-sync subscriber's view compiles no URL pattern)
  const hidden = (): boolean => Number(local.get(Key.DO_NOT_SHOW)) > Date.now() || !site.urlQualifies(location.href);
  if (!capable) return { _full: false, _offer: PK_FEATURES.iosHomeScreen && !!view.homeScreen_ && !hidden(), _canPush: false };
  if (
    (PK_FEATURES.trackingConsent && subscriberId && !/^[01]$/.test(local.get(Key.DO_NOT_TRACK) || '')) ||
    ((PK_FEATURES.customDimensions || PK_FEATURES.userProperties) && subscriberId && !services.session_.get(Key.REFRESHED)) ||
    ((PK_FEATURES.safari || PK_FEATURES.childWindow) && view.chunk_)
  )
    return full;
  // the Permissions API answers without a synchronous call to the browser process (Notification.permission's)
  let permission: string;
  try {
    permission = (await permissionStatus()).state;
  } catch {
    permission = Notification.permission;
  }
  let subscribed = false;
  if (permission === 'granted') {
    const subscription = await subscriptionOf(site.swScope);
    if (subscription) {
      // The silent move (opt-in-native.ts): a subscription made with another key than the site's.
      const key = subscription.options && subscription.options.applicationServerKey;
      const storedKey = local.get(Key.VAPID_KEY);
      // compared by the key's first 15 bytes (SiteModule vapidKeyHead): 120 bits no other key shares
      const moving = key
        ? btoa(String.fromCharCode(...new Uint8Array(key).slice(0, 15)))
            .replace(/\+/g, '-')
            .replace(/\//g, '_') !== site.vapidKeyHead
        : storedKey && storedKey.slice(0, 20) !== site.vapidKeyHead;
      if (moving || !inSync(services, subscription.endpoint)) return full;
      subscribed = true;
    }
  }
  // a subscriber, or a visitor whose last sync stored a subscription, without one now: the chunk syncs
  if (!subscribed && (subscriberId || local.get(Key.STATUS) === 'subscribed')) return full;
  return { _full: false, _offer: !subscribed && permission !== 'denied' && !hidden(), _canPush: true };
}
