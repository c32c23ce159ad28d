/// <reference lib="webworker" />
// The push service worker's handlers: push, notificationclick, notificationclose, message and
// pushsubscriptionchange. sw.js, sw-firefox.js and the importable push-kit-sw.js (for a site that has its own
// worker and pulls ours in with importScripts) all install them. They touch no lifecycle: no clients.claim(),
// no skipWaiting(), no reload; that is sw.js's business alone (lifecycle.ts), never the host worker's.
import type { WorkerSiteModule } from '../runtime/site-module.ts';
import { readSubscription, saveSubscription } from '../runtime/subscription-db.ts';
import { SUBSCRIPTION_MESSAGE } from '../contract/worker-message.ts';
import type { NotificationEvent, NotificationEventReport } from '../contract/notification-event.ts';
import {
  DECLARATIVE_PUSH_MAGIC,
  type DeclarativePushMessage,
  type LegacyPushPayload,
  type PushNotificationData,
} from '../contract/push-payload.ts';
import type { SyncForm } from '../contract/sync.ts';
import { urlBase64ToBytes } from '../runtime/base64url.ts';

interface NotificationData extends PushNotificationData {
  url?: string;
  actionUrls?: Record<string, string>;
}

/** The payload of a push message; text that is not JSON becomes the body, so nothing is ever shown empty. */
export function readPayload(data: { json(): unknown; text(): string } | null | undefined): PushMessage {
  if (!data) return {};
  try {
    const payload = data.json();
    return payload && typeof payload === 'object' ? (payload as PushMessage) : { body: String(payload) };
  } catch {
    return { body: data.text() };
  }
}

type PushMessage = Partial<DeclarativePushMessage> & LegacyPushPayload;

/** A declarative message read as the flat fields the worker shows; a legacy payload as it is. */
function flatten(
  payload: PushMessage,
): LegacyPushPayload & { data?: PushNotificationData; silent?: unknown; renotify?: unknown; lang?: unknown; dir?: unknown } {
  const notification = payload.notification;
  if (payload.web_push !== DECLARATIVE_PUSH_MAGIC || !notification || typeof notification !== 'object') return payload;
  const data = notification.data && typeof notification.data === 'object' ? notification.data : {};
  return {
    ...notification,
    url: notification.navigate,
    actions: Array.isArray(notification.actions)
      ? notification.actions.map((action) => ({ action: action?.action, title: action?.title, icon: action?.icon, url: action?.navigate }))
      : undefined,
    campaignId: data.campaignId,
    data,
  };
}

/** The title and options of the notification for a payload; a missing title falls back to the company name. */
export function notificationFor(
  payload: PushMessage,
  site: WorkerSiteModule,
): { title: string; options: NotificationOptions & Record<string, unknown> } {
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value : undefined);
  const flat = flatten(payload);
  const actions = Array.isArray(flat.actions) ? flat.actions.filter((action) => text(action?.action) && text(action?.title)) : [];
  const click = text(flat.data?.click);
  const data: NotificationData = {
    url: text(flat.url),
    campaignId: flat.campaignId,
    ...(click ? { click } : {}),
    actionUrls: Object.fromEntries(actions.filter((action) => text(action.url)).map((action) => [action.action, action.url!])),
  };
  return {
    title: text(flat.title) ?? (text(site.companyName) || new URL(site.origin).host),
    options: {
      body: text(flat.body) ?? '',
      icon: text(flat.icon) ?? site.iconUrl,
      image: text(flat.image),
      badge: text(flat.badge),
      // A campaign's copy sent twice (a sender killed before it saved the push service's answer) replaces the
      // first on the device instead of showing the message again.
      tag:
        text(flat.tag) ?? (flat.campaignId === undefined || flat.campaignId === null ? undefined : `pushkit-campaign-${flat.campaignId}`),
      requireInteraction: flat.requireInteraction === true,
      ...(flat.silent === true ? { silent: true } : {}),
      ...(flat.renotify === true && text(flat.tag) ? { renotify: true } : {}),
      ...(text(flat.lang) ? { lang: flat.lang as string } : {}),
      ...(flat.dir === 'ltr' || flat.dir === 'rtl' ? { dir: flat.dir } : {}),
      actions: actions.map(({ action, title, icon }) => ({ action, title, icon })),
      data,
    },
  };
}

/**
 * The page a click opens: the payload's (or the action's) URL when it is on the site's origin or one of the
 * configured notificationClickOrigins, else the site's home page. Anything else (another origin, javascript:,
 * data:, not a URL) opens the home page: a notification must not send the site's subscribers somewhere the
 * site did not choose.
 */
export function clickTarget(data: NotificationData | undefined, action: string, site: WorkerSiteModule): string {
  const home = new URL('/', site.origin);
  const wanted = (action && data?.actionUrls?.[action]) || data?.url;
  if (typeof wanted !== 'string' || !wanted) return home.href;
  try {
    const url = new URL(wanted, home);
    if (url.origin === home.origin || (site.notificationClickOrigins ?? []).includes(url.origin)) return url.href;
  } catch {
    // Not a URL: open the site instead.
  }
  return home.href;
}

const INSTALLED = Symbol.for('pushkit.pushHandlers');
export const RENEWAL_SYNC_TAG = 'pushkit-renewal';

/** `waitUntil`, which a synthetic event (dispatched by a script, not the browser) refuses; the work runs anyway. */
function extend(event: ExtendableEvent, work: Promise<unknown>): void {
  try {
    event.waitUntil(work);
  } catch {
    // not dispatched by the browser: nothing to extend
  }
}

const idOf = (url: string): string => decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));

/**
 * The renewal of a subscription the browser changed: `(subscribe, renewed?)` resolves true once the provider
 * stores the browser's current subscription in place of the one IndexedDB keeps (the last the provider had).
 * With `subscribe` (pushsubscriptionchange) a lost subscription is replaced with one for the site's VAPID key;
 * otherwise (a push, a background sync) only a change not yet told is sent again. A failure registers a
 * background sync, where the browser has it; the page's next sync moves the registration too.
 */
function renewalOf(scope: ServiceWorkerGlobalScope, site: WorkerSiteModule, browserType: string) {
  return async (subscribe: boolean, renewed?: PushSubscription | null): Promise<boolean> => {
    try {
      const known = await readSubscription();
      const manager = scope.registration.pushManager;
      const applicationServerKey = urlBase64ToBytes(site.vapidPublicKey);
      const subscribeWithKey = () =>
        manager.subscribe({ userVisibleOnly: true, applicationServerKey: applicationServerKey as BufferSource });
      let current = renewed ?? (await manager.getSubscription()) ?? (subscribe ? await subscribeWithKey() : null);
      let previous = known?.endpoint;
      // The silent move (docs/migrating.md): a subscription made with another key (the previous service's script,
      // or before a rotation) is replaced by one with the site's key, reported as the same subscriber's move.
      const key = current?.options?.applicationServerKey;
      if (current && key && String(new Uint8Array(key)) !== String(applicationServerKey)) {
        previous = current.endpoint;
        await current.unsubscribe();
        current = await subscribeWithKey();
      }
      if (!previous || !current || current.endpoint === previous) return true;
      const json = current.toJSON() as { endpoint: string; keys?: Record<string, string> };
      const form = new URLSearchParams({
        hash: site.hash,
        action: 'update-google-registration-id',
        subscription: JSON.stringify(json),
        subscriptionId: idOf(current.endpoint),
        previousSubscriptionId: idOf(previous),
        subscriptionEndPoint: current.endpoint,
        vapidPublicKey: site.vapidPublicKey,
        browserType,
        firefoxEncryptionKey: browserType === 'firefox' ? (json.keys?.p256dh ?? '') : '',
        origin: site.origin,
      } satisfies SyncForm);
      const response = await fetch(site.serverSyncUrl + '/syncSubscriptionAction.php', { method: 'POST', body: form });
      // a refusal (4xx) will not change by asking again: the page's next sync takes over
      if (response.status >= 500) throw new Error('renewal failed: HTTP ' + response.status);
      await saveSubscription({ endpoint: json.endpoint, keys: json.keys });
      return true;
    } catch {
      const sync = (scope.registration as ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }).sync;
      await sync?.register(RENEWAL_SYNC_TAG).catch(() => undefined);
      return false;
    }
  };
}

/**
 * Adds the push handlers to a worker scope, once: a second call (push-kit-sw.js imported twice, or imported
 * into sw.js) adds nothing, so a push never shows two notifications. Returns whether it installed them.
 */
export function installPushHandlers(scope: ServiceWorkerGlobalScope, site: WorkerSiteModule, browserType = 'chrome'): boolean {
  const marked = scope as unknown as Record<symbol, true | undefined>;
  if (marked[INSTALLED]) return false;
  marked[INSTALLED] = true;
  const endpoint = async (): Promise<string | undefined> => (await scope.registration.pushManager.getSubscription())?.endpoint;

  const report = async (event: NotificationEvent, data: NotificationData | undefined): Promise<void> => {
    if (data?.campaignId === undefined || data.campaignId === null) return;
    try {
      await fetch(site.serverSyncUrl + '/notificationEvent', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          hash: site.hash,
          campaignId: data.campaignId,
          endpoint: await endpoint(),
          ...(data.click ? { click: data.click } : {}),
          event,
        } satisfies NotificationEventReport),
      });
    } catch {
      // The report is best effort; the notification itself already happened.
    }
  };

  scope.addEventListener('push', (event) => {
    const payload = readPayload(event.data);
    // A browser that handles declarative messages itself shows the notification (and sets the badge) unless
    // the worker shows another: the worker only reports it.
    const native = (event as PushEvent & { notification?: Notification | null }).notification;
    if (native) {
      event.waitUntil(Promise.all([report('shown', native.data as NotificationData | undefined), renewal(false)]));
      return;
    }
    const { title, options } = notificationFor(payload, site);
    const badge = payload.web_push === DECLARATIVE_PUSH_MAGIC ? payload.app_badge : undefined;
    const badging = scope.navigator as (WorkerNavigator & { setAppBadge?(contents?: number): Promise<void> }) | undefined;
    // Every push shows a notification: one the browser refuses (an image or an action it cannot take) is shown
    // again as text, since a push that shows nothing is what makes Safari revoke the site's permission.
    const shown = scope.registration
      .showNotification(title, options)
      .catch(() =>
        scope.registration.showNotification(title, { body: options.body, icon: site.iconUrl, tag: options.tag, data: options.data }),
      );
    event.waitUntil(
      Promise.all([
        shown.then(() => report('shown', options.data as NotificationData)),
        typeof badge === 'number' && badging?.setAppBadge ? badging.setAppBadge(badge).catch(() => undefined) : undefined,
        renewal(false),
      ]),
    );
  });

  scope.addEventListener('notificationclick', (event) => {
    const data = event.notification.data as NotificationData | undefined;
    event.notification.close();
    const url = clickTarget(data, event.action, site);
    event.waitUntil(
      (async () => {
        const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
        const open = windows.find((client) => client.url === url);
        await (open ? open.focus() : scope.clients.openWindow(url));
        await report('clicked', data);
      })(),
    );
  });

  scope.addEventListener('notificationclose', (event) => {
    event.waitUntil(report('closed', event.notification.data as NotificationData | undefined));
  });

  scope.addEventListener('message', (event) => {
    const message = event.data as Record<string, unknown> | null;
    if (!message || typeof message !== 'object' || !(SUBSCRIPTION_MESSAGE in message)) return;
    const subscription = message[SUBSCRIPTION_MESSAGE] as { endpoint?: unknown } | null;
    event.waitUntil(saveSubscription(typeof subscription?.endpoint === 'string' ? (subscription as { endpoint: string }) : undefined));
  });

  const renewal = renewalOf(scope, site, browserType);
  // The browser renewed (or dropped) the subscription: subscribe again with the site's key and move the
  // subscriber's registration on the provider (update-google-registration-id). Until the provider has it,
  // IndexedDB keeps the old one, so each later push and background sync tries again.
  scope.addEventListener('pushsubscriptionchange', (event) => {
    const change = event as ExtendableEvent & { newSubscription?: PushSubscription | null };
    extend(change, renewal(true, change.newSubscription));
  });
  scope.addEventListener('sync', (event) => {
    const sync = event as ExtendableEvent & { tag?: string };
    if (sync.tag === RENEWAL_SYNC_TAG)
      extend(
        sync,
        renewal(false).then((landed) => landed || Promise.reject(new Error('renewal not landed'))),
      );
  });
  return true;
}
