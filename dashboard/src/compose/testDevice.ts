// This dashboard tab as a test device (docs/dashboard.md#test-sends). The dashboard is served by the provider, so
// the subscription is made on the provider's origin, not the site's: a service worker of its own
// (/dashboard/test-device-sw.js, which only shows what it is sent) registered at a scope per site,
// /dashboard/test-device/<site>/ (a scope controls no dashboard page, and each site's subscription carries that
// site's VAPID key, since one registration holds one subscription with one key). The provider stores it as the
// member's test device: never a subscriber, in no figure.
import type { SiteApi } from '../api.ts';

const WORKER = '/dashboard/test-device-sw.js';
export const testDeviceScope = (site: string) => `/dashboard/test-device/${encodeURIComponent(site)}/`;

const bytesOf = (base64url: string) => {
  const text = atob(
    base64url
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(base64url.length / 4) * 4, '='),
  );
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
};

const sameKey = (key: ArrayBuffer | null | undefined, base64url: string) => {
  if (!key) return true;
  const a = new Uint8Array(key);
  const b = bytesOf(base64url);
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
};

/** "Chrome on macOS": how the list of test devices names this browser. */
export function browserLabel(agent = navigator.userAgent): string {
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /Firefox\//.test(agent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(agent)
        ? 'Chrome'
        : 'A browser';
  const system = /Android/.test(agent)
    ? 'Android'
    : /Windows/.test(agent)
      ? 'Windows'
      : /Mac OS X/.test(agent)
        ? 'macOS'
        : /Linux/.test(agent)
          ? 'Linux'
          : 'another system';
  return `${browser} on ${system}`;
}

/** The registration once its worker is active (a new one installs first). */
async function activated(registration: ServiceWorkerRegistration): Promise<ServiceWorkerRegistration> {
  const worker = registration.installing ?? registration.waiting;
  if (registration.active && !worker) return registration;
  await new Promise<void>((resolve, reject) => {
    const onChange = () => {
      if (worker!.state === 'activated') resolve();
      else if (worker!.state === 'redundant') reject(new Error('The test device worker could not be installed.'));
    };
    worker!.addEventListener('statechange', onChange);
    onChange();
  });
  return registration;
}

/** Subscribes this tab for the site (asking the permission first) and registers it; returns its device id. */
export async function registerTestDevice(api: SiteApi, site: string): Promise<string> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) {
    throw new Error('This browser cannot receive push messages here (no service worker or Push API on this page).');
  }
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new Error(
      permission === 'denied'
        ? 'Notifications are blocked for this dashboard: allow them in the browser’s site settings, then try again.'
        : 'Notifications were not allowed: answer Allow to receive the test.',
    );
  }
  const { vapidPublicKey } = await api.testDevices();
  const registration = await activated(await navigator.serviceWorker.register(WORKER, { scope: testDeviceScope(site) }));
  let subscription = await registration.pushManager.getSubscription();
  // a subscription made with the site's key of before a rotation would be refused: make it again
  if (subscription && !sameKey(subscription.options?.applicationServerKey, vapidPublicKey)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOf(vapidPublicKey) });
  const json = subscription.toJSON();
  const device = await api.addTestDevice({
    endpoint: json.endpoint ?? subscription.endpoint,
    keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
    label: browserLabel(),
  });
  return device.deviceId;
}
