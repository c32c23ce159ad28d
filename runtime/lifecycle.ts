// The subscriber lifecycle of one page view (spec section 4): opt-out and uuid first, then the sync of an
// existing subscription, then the opt-in prompt on its trigger; and the public API behind `window.pushkit`.
import type { SiteModule } from './site-module.ts';
import type { RuntimeServices } from './services.ts';
import type { OptInResult } from './messages.ts';
import type { OptInOutcome } from './opt-in-outcome.ts';
import type { PromptAction, PromptKind } from './prompts.ts';
import { createServices } from './create-services.ts';
import { detectSupport } from './browser-support.ts';
import { createPrompts } from './prompts.ts';
import { activeRegistration, askPermission, describeSubscription, subscribePush } from './push-subscription.ts';
import { currentLanguage, decideUpdate, readState, syncAction } from './sync.ts';
import type { CurrentSubscription } from './sync.ts';
import { visitorUuid } from './visitor-id.ts';
import { fetchConsent, storeConsent } from './tracking-consent.ts';
import { applyChildWindowMessage, openChildWindow } from './child-window-opener.ts';
import { safariOptIn, safariPermission, safariPushOf } from './safari-push.ts';
import { ALREADY_OPTED_OUT_TEXT, BLOCKED, CANCELLED, NOT_SUBSCRIBED, OPTED_OUT_TEXT, SUBSCRIBED } from './messages.ts';
import { DO_NOT_SHOW, DO_NOT_SHOW_DAYS, OPT_OUT, STATUS, UUID_DAYS, VAPID_KEY } from './storage-keys.ts';
import { watchTriggers } from './triggers.ts';
import { createTagger } from './tags.ts';
import { addSubscriberToSegment, addToSegment, removeSubscriberFromSegment } from './segment-api.ts';
import { startSegments } from './segments.ts';
import { startShop } from './shop.ts';

type Listener = (...args: never[]) => void;

export interface PushkitApi {
  push(call: unknown): void;
  tag(key: string, value: string): void;
  addToSegment: (name: string, callback?: (result: boolean | -1) => void) => Promise<boolean | -1>;
  addSubscriberToSegment: (name: string, callback?: (result: boolean | -1) => void) => Promise<boolean | -1>;
  removeSubscriberFromSegment: (name: string, callback?: (result: boolean | -1) => void) => Promise<boolean | -1>;
  triggerOptIn(): void;
  triggerOptOut(): void;
  getSubscriberId(callback?: (subscriberId: string | undefined) => void): string | undefined;
  isOptedOut(callback?: (optedOut: boolean) => void): boolean;
  setTrackingConsent(allowed: boolean | number): void;
  subscriptionSuccessCallback(fn: (subscriberId: string | undefined, result: OptInResult) => void): void;
  subscriptionFailureCallback(fn: (result: OptInResult) => void): void;
  optInShownCallback(fn: () => void): void;
  /** Pending JSONP callbacks (see transport.ts); not underscored, the build mangles such names. */
  cb?: unknown;
  /** Settles when this page view's sync is done (for tests and the page's own sequencing). */
  ready: Promise<void>;
}

/** Runs `fn`, swallowing anything it throws: nothing of ours may break the host page. */
const guard =
  <A extends unknown[]>(fn: (...args: A) => unknown) =>
  (...args: A): void => {
    try {
      const result = fn(...args);
      if (result instanceof Promise) result.catch((error: unknown) => console.debug('pushkit', error));
    } catch (error) {
      console.debug('pushkit', error);
    }
  };

export function doNotShowActive(services: RuntimeServices): boolean {
  return Number(services.local.get(DO_NOT_SHOW)) > Date.now();
}

export function startRuntime(site: SiteModule): PushkitApi {
  const services = createServices(site);
  const { local, cookies } = services;
  const safariPush = PK_FEATURES.safari ? safariPushOf() : undefined;
  const support = detectSupport(navigator.userAgent, safariPush, site);
  const browser = support.browser;
  const firefox = browser === 'firefox';
  const onSafari = PK_FEATURES.safari && browser === 'safari' && !!safariPush;
  const viaChildWindow = PK_FEATURES.childWindow && !onSafari && !('serviceWorker' in navigator);
  const pushCapable =
    !support.failure &&
    (onSafari || viaChildWindow || ('serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window));
  const listeners = { success: [] as Listener[], failure: [] as Listener[], shown: [] as Listener[] };
  const notify = (list: Listener[], ...args: unknown[]): void => list.forEach((fn) => guard(fn as (...a: unknown[]) => void)(...args));
  let uuid = '';
  let busy = false;

  const fail = (result: OptInResult): void => notify(listeners.failure, result);
  const setDoNotShow = (): void => local.set(DO_NOT_SHOW, String(Date.now() + DO_NOT_SHOW_DAYS * 864e5));
  const outcome: OptInOutcome = {
    succeed() {
      services.emit('subscribe');
      notify(listeners.success, services.subscriberId(), SUBSCRIBED);
    },
    fail,
    blocked(result) {
      services.emit('block');
      setDoNotShow();
      local.set(STATUS, 'blocked');
      fail(result);
    },
  };
  const permissionNow = (): NotificationPermission | 'unsupported' => {
    // A plain-http page reads 'denied' for its own origin; what counts is the child window's answer, kept as the status.
    if (PK_FEATURES.childWindow && viaChildWindow) {
      const status = readState(services).status;
      return status === 'blocked' ? 'denied' : status === 'subscribed' ? 'granted' : 'default';
    }
    if (PK_FEATURES.safari && onSafari) {
      const permission = safariPermission(safariPush!, site.safariWebsitePushId!).permission;
      return permission === 'granted' || permission === 'denied' ? permission : 'default';
    }
    return 'Notification' in window ? Notification.permission : 'unsupported';
  };
  const registration = async (): Promise<ServiceWorkerRegistration | undefined> =>
    'serviceWorker' in navigator ? navigator.serviceWorker.getRegistration(site.swScope) : undefined;

  async function nativeOptIn(): Promise<void> {
    if (PK_FEATURES.safari && onSafari) return safariOptIn(services, safariPush!, uuid, outcome);
    const before = Notification.permission;
    if (before === 'default') prompts.show('context');
    const permission = before === 'granted' ? before : await askPermission();
    prompts.hide('context');
    if (permission === 'denied') return outcome.blocked(BLOCKED);
    if (permission !== 'granted') return fail(CANCELLED);
    let current: CurrentSubscription;
    try {
      current = describeSubscription(await subscribePush(site, local, await activeRegistration(site, firefox)));
    } catch (error) {
      console.debug('pushkit', error);
      return fail(NOT_SUBSCRIBED);
    }
    if (await syncAction(services, browser, 'insert', current)) outcome.succeed();
  }

  const optInNow = async (isApiCall: boolean): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      if (PK_FEATURES.childWindow && viaChildWindow)
        openChildWindow(site, uuid, 'subscribe', isApiCall, (message) => applyChildWindowMessage(services, message, outcome));
      else await nativeOptIn();
    } finally {
      busy = false;
    }
  };

  let apiCall = false;
  const onPromptAction = (kind: PromptKind, action: PromptAction, consent?: boolean): void => {
    prompts.hide(kind);
    if (consent !== undefined) storeConsent(services, consent);
    if (kind !== 'chicklet' && kind !== 'modal' && kind !== 'mobile') return;
    if (action === 'yes') guard(optInNow)(apiCall);
    else setDoNotShow();
  };
  const prompts = createPrompts(site.prompts, onPromptAction);

  /** Shows the soft prompt (branding modal, mobile box or chicklet); without markup, asks at once. */
  const offer = (isApiCall: boolean): void => {
    apiCall = isApiCall;
    const kind: PromptKind =
      PK_FEATURES.brandingModal && site.prompts.brandingModal
        ? 'modal'
        : PK_FEATURES.mobileBox && support.mobile && site.prompts.mobileBox
          ? 'mobile'
          : 'chicklet';
    if (prompts.show(kind)) notify(listeners.shown);
    else void optInNow(isApiCall);
  };

  async function unsubscribeBrowser(): Promise<void> {
    const subscription = await (await registration())?.pushManager.getSubscription();
    await subscription?.unsubscribe();
  }

  async function optOut(alerting: boolean): Promise<void> {
    const already = services.optedOut();
    if (!already) cookies.set(OPT_OUT, '1', UUID_DAYS);
    for (const kind of ['chicklet', 'modal', 'mobile', 'context'] as const) prompts.hide(kind);
    if (alerting) alert(already ? ALREADY_OPTED_OUT_TEXT : OPTED_OUT_TEXT);
    if (!(PK_FEATURES.childWindow && viaChildWindow) && !(PK_FEATURES.safari && onSafari)) await unsubscribeBrowser();
    if (services.subscriberId()) await syncAction(services, browser, 'unsubscribe-ui');
  }

  /** Brings the provider up to date with this browser's subscription; true when the visitor is subscribed. */
  async function syncView(): Promise<boolean> {
    const stored = readState(services);
    if (PK_FEATURES.childWindow && viaChildWindow) {
      if (stored.status === 'subscribed' && !stored.subscriberId) await syncAction(services, browser, 'get-subscriberid-from-server');
      return readState(services).status === 'subscribed';
    }
    const permission = permissionNow();
    if (permission !== 'granted') {
      if (stored.subscriberId || stored.status === 'subscribed') {
        await syncAction(services, browser, 'unsubscribe-native');
        if (permission === 'denied') local.set(STATUS, 'blocked');
      }
      return false;
    }
    if (PK_FEATURES.safari && onSafari) {
      const deviceToken = safariPermission(safariPush!, site.safariWebsitePushId!).deviceToken;
      if (!deviceToken) return false;
      const current = { subscriptionId: deviceToken, endpoint: '' };
      const action = decideUpdate(stored, current, currentLanguage());
      if (action !== 'already-updated') await syncAction(services, browser, action, current);
      return true;
    }
    let subscription = await (await registration())?.pushManager.getSubscription();
    const storedKey = local.get(VAPID_KEY);
    if (subscription && storedKey && storedKey !== site.vapidPublicKey) {
      await subscription.unsubscribe();
      subscription = null;
    }
    if (!subscription) {
      if (stored.status !== 'subscribed' && !stored.subscriberId) return false;
      // Granted but the subscription is gone (expired, or a new VAPID key): renew it without asking.
      subscription = await subscribePush(site, local, await activeRegistration(site, firefox));
    }
    const current = describeSubscription(subscription);
    const action = decideUpdate(stored, current, currentLanguage());
    if (action !== 'already-updated') await syncAction(services, browser, action, current);
    return true;
  }

  async function startView(): Promise<void> {
    uuid = await visitorUuid(services, browser, location.search);
    if (new URLSearchParams(location.search).has(OPT_OUT)) return optOut(true);
    if (services.optedOut()) {
      if (services.subscriberId()) await syncAction(services, browser, 'unsubscribe-ui');
      return;
    }
    if (!pushCapable) return;
    let subscribed = false;
    try {
      subscribed = await syncView();
    } catch (error) {
      console.debug('pushkit', error);
    }
    if (PK_FEATURES.trackingConsent) await fetchConsent(services, browser);
    if (!subscribed && permissionNow() !== 'denied' && !doNotShowActive(services) && site.urlQualifies(location.href)) {
      watchTriggers(
        site.triggers,
        guard(() => permissionNow() !== 'denied' && offer(false)),
        services,
      );
    }
  }

  const ready = startView().catch((error: unknown) => console.debug('pushkit', error));

  const tagger = createTagger(services);
  const api: PushkitApi = {
    push: guard((call: unknown) => {
      if (!Array.isArray(call) || typeof call[0] !== 'string' || call[0] === 'push' || call[0] === 'ready') return;
      const fn = (api as unknown as Record<string, unknown>)[call[0]];
      if (typeof fn === 'function') (fn as (...args: unknown[]) => unknown)(...call.slice(1));
    }),
    tag: guard((key: string, value: string) => tagger.tag(key, value)),
    addToSegment: (name, callback) => addToSegment(services, name, callback).catch(() => false),
    addSubscriberToSegment: (name, callback) => addSubscriberToSegment(services, name, callback).catch(() => false),
    removeSubscriberFromSegment: (name, callback) => removeSubscriberFromSegment(services, name, callback).catch(() => false),
    triggerOptIn: guard(async () => {
      await ready;
      if (services.optedOut() || !pushCapable) return;
      const permission = permissionNow();
      if (permission === 'denied') prompts.show('blocked');
      else if (permission === 'granted' && readState(services).status === 'subscribed') prompts.show('subscribed');
      else offer(true);
    }),
    triggerOptOut: guard(() =>
      PK_FEATURES.childWindow && viaChildWindow
        ? openChildWindow(site, uuid, 'triggerOptOut', true, (message) => applyChildWindowMessage(services, message, outcome))
        : optOut(false),
    ),
    getSubscriberId(callback) {
      const id = services.subscriberId();
      if (callback) guard(callback)(id);
      return id;
    },
    isOptedOut(callback) {
      const optedOut = services.optedOut();
      if (callback) guard(callback)(optedOut);
      return optedOut;
    },
    setTrackingConsent: guard((allowed: boolean | number) => {
      const before = services.trackingAllowed();
      storeConsent(services, !!allowed);
      if (before !== !!allowed && services.subscriberId()) return syncAction(services, browser, 'http-sync');
    }),
    subscriptionSuccessCallback: (fn) => typeof fn === 'function' && void listeners.success.push(fn as Listener),
    subscriptionFailureCallback: (fn) => typeof fn === 'function' && void listeners.failure.push(fn as Listener),
    optInShownCallback: (fn) => typeof fn === 'function' && void listeners.shown.push(fn as Listener),
    ready,
  };
  if (PK_FEATURES.segments || PK_FEATURES.clickSegments) guard(startSegments)(services);
  if (PK_FEATURES.shop) guard(startShop)(services);
  return api;
}
