// The browser side of subscribing (spec section 4): the permission prompt, the service worker and
// pushManager.subscribe with the site's VAPID key, and the one retry with the manifest's sender id.
import type { SiteModule } from './site-module.ts';
import type { KeyValueStore } from './services.ts';
import type { CurrentSubscription } from './sync.ts';
import { subscriptionIdOf } from './sync.ts';
import { Key } from './storage-keys.ts';
import { urlBase64ToBytes } from './base64url.ts';

const MANIFEST_TIMEOUT_MS = 2000;
/** A prompt closed this soon after it was shown was closed by the browser, not the visitor. */
export const BROWSER_BLOCK_MS = 500;

/** Asks the browser; a `default` answer within 500 ms of asking means the browser blocked the prompt. */
export async function askPermission(): Promise<NotificationPermission> {
  const askedAt = Date.now();
  const result = await new Promise<NotificationPermission>((resolve) => {
    // Old browsers only take a callback, new ones only return a promise.
    const promise = Notification.requestPermission(resolve);
    if (promise) promise.then(resolve, () => resolve('default'));
  });
  return result === 'default' && Date.now() - askedAt < BROWSER_BLOCK_MS ? 'denied' : result;
}

const workerPath = (site: SiteModule, firefox: boolean): string => (firefox ? site.firefoxSwPath : site.swPath);

/** The site's registration once its worker is active (pushManager.subscribe needs an active worker). */
export async function activeRegistration(site: SiteModule, firefox: boolean): Promise<ServiceWorkerRegistration> {
  const registration = await navigator.serviceWorker.register(workerPath(site, firefox), { scope: site.swScope });
  const worker = registration.installing || registration.waiting;
  if (!registration.active && worker) {
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (worker.state === 'activated' || worker.state === 'redundant') resolve();
      };
      worker.addEventListener('statechange', check);
      check();
    });
  }
  return registration;
}

/** The numeric gcm_sender_id of the site's manifest, or undefined (missing, not numeric, slower than 2 s). */
async function manifestSenderId(manifestUrl: string): Promise<string | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const manifest = (await Promise.race([
      fetch(manifestUrl).then((response) => response.json()),
      // a bare rejection: the catch below reads no reason
      new Promise((_, reject) => (timer = setTimeout(reject, MANIFEST_TIMEOUT_MS))),
    ])) as { gcm_sender_id?: unknown } | null;
    const id = String((manifest && manifest.gcm_sender_id) || '');
    return /^\d+$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

const ensureManifestLink = (href: string): void => {
  if (document.querySelector('link[rel="manifest"]')) return;
  const link = document.createElement('link');
  link.rel = 'manifest';
  link.href = href;
  document.head.appendChild(link);
};

export function describeSubscription(subscription: PushSubscription): CurrentSubscription {
  const json = subscription.toJSON() as CurrentSubscription['subscription'];
  return { subscriptionId: subscriptionIdOf(subscription.endpoint), endpoint: subscription.endpoint, subscription: json };
}

/** Subscribes with the VAPID key; when that fails, retries once with the manifest's sender id. */
export async function subscribePush(
  site: SiteModule,
  local: KeyValueStore,
  registration: ServiceWorkerRegistration,
): Promise<PushSubscription> {
  try {
    return await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: urlBase64ToBytes(site.vapidPublicKey) as BufferSource,
    });
  } catch (error) {
    const senderId = site.vapidPublicKey ? await manifestSenderId(site.manifestUrl) : undefined;
    if (!senderId) throw error;
    local.set(Key.GCM_ID, senderId);
    ensureManifestLink(site.manifestUrl);
    return registration.pushManager.subscribe({ userVisibleOnly: true });
  }
}
