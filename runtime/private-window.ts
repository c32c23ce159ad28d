// Private windows (spec section 2, "Incognito or private mode"), told apart without asking the visitor anything:
// - Firefox's private windows have no service workers (every Firefox from 44 has them otherwise);
// - Chromium's incognito refuses every push subscription with an AbortError ("Registration failed - permission
//   denied"), where a permission the visitor blocked is refused with a NotAllowedError; its permission prompt is
//   answered "denied" by the browser itself, which then reads "denied" for the rest of the session.
// The storage-quota heuristic (an incognito quota bounded by memory) no longer works: Chromium reports the same
// static quota in both modes (measured in Chromium 156; see docs/spec-silent-cases.md), so it is not used.
import type { BrowserName } from './browser-support.ts';

/** Firefox without service workers: a private window. */
export const firefoxPrivate = (browser: BrowserName, serviceWorker: boolean): boolean => browser === 'firefox' && !serviceWorker;

/** Whether a refused push subscription is incognito's refusal rather than a block. */
export const incognitoRefusal = (error: unknown): boolean =>
  !!error && (error as Error).name === 'AbortError' && /permission denied/i.test((error as Error).message);

/**
 * Whether a notification permission that reads "denied" was denied by incognito: a subscribe attempt on
 * `registration` names it. It never prompts (the permission is denied already); it is not called otherwise.
 */
export async function deniedByIncognito(registration: () => Promise<ServiceWorkerRegistration>, key: Uint8Array): Promise<boolean> {
  if (Notification.permission !== 'denied') return false;
  try {
    await (await registration()).pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key as BufferSource });
    return false;
  } catch (error) {
    return incognitoRefusal(error);
  }
}
