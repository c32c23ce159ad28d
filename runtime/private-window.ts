// Private windows (spec section 2, "Incognito or private mode"), told apart without asking the visitor anything:
// - Firefox's private windows have no service workers (every Firefox from 44 has them otherwise);
// - Chromium's incognito refuses every push subscription with an AbortError ("Registration failed - permission
//   denied"), where a permission the visitor blocked is refused with a NotAllowedError; its permission prompt is
//   answered "denied" by the browser itself, which then reads "denied" for the rest of the session.
// The storage-quota heuristic (an incognito quota bounded by memory) no longer works: Chromium reports the same
// static quota in both modes (measured in Chromium 156; see docs/spec-silent-cases.md), so it is not used.
import type { BrowserName } from './browser-support.ts';
import type { SiteModule } from './site-module.ts';
import { activeRegistration } from './push-subscription.ts';
import { urlBase64ToBytes } from './base64url.ts';

/** Firefox without service workers: a private window. */
export const firefoxPrivate = (browser: BrowserName, serviceWorker: boolean): boolean => browser === 'firefox' && !serviceWorker;

/** Whether a refused push subscription is incognito's refusal ("AbortError: ... permission denied") rather than a block. */
export const incognitoRefusal = (error: unknown): boolean => /^AbortError.*denied/.test(error as string);

/**
 * Whether a notification permission that reads "denied" was denied by incognito: a subscribe attempt with the
 * site's worker and VAPID key names it. It cannot prompt: it is made only while the permission is denied. (The
 * host page's opt-in, runtime/opt-in-native.ts, makes the same attempt through its own subscribe path.)
 */
export const deniedByIncognito = (site: SiteModule, firefox: boolean): false | Promise<boolean> =>
  Notification.permission === 'denied' &&
  activeRegistration(site, firefox)
    .then((registration) =>
      registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: urlBase64ToBytes(site.vapidPublicKey) as BufferSource,
      }),
    )
    .then(() => false, incognitoRefusal);
