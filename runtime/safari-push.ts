// Safari's legacy push (spec sections 1 and 4): window.safari.pushNotification with the site's website
// push id; the device token stands for the subscription id.
import type { RuntimeServices } from './services.ts';
import type { OptInOutcome } from './opt-in-outcome.ts';
import { BROWSER_BLOCK_MS } from './push-subscription.ts';
import { SAFARI_ERROR, BLOCKED, CANCELLED } from './messages.ts';
import { syncAction } from './sync.ts';

interface SafariPermission {
  permission: string;
  deviceToken?: string | null;
}

export interface SafariPush {
  permission(websitePushId: string): SafariPermission;
  requestPermission(url: string, websitePushId: string, userInfo: object, callback: (result: SafariPermission) => void): void;
}

export const safariPushOf = (): SafariPush | undefined =>
  (window as unknown as { safari?: { pushNotification?: SafariPush } }).safari?.pushNotification;

export function safariPermission(push: SafariPush, websitePushId: string): SafariPermission {
  return push.permission(websitePushId);
}

/** Asks Safari; a denial within 500 ms means Safari failed to show its prompt (SAFARI-ERROR). */
export function safariOptIn(services: RuntimeServices, push: SafariPush, uuid: string, outcome: OptInOutcome): Promise<void> {
  const { site } = services;
  return new Promise((resolve) => {
    const askedAt = Date.now();
    push.requestPermission(site.serverSyncUrl + '/safari', site.safariWebsitePushId!, { hash: site.hash, uuid }, (result) => {
      resolve(
        (async () => {
          if (result.permission === 'granted' && result.deviceToken) {
            if (await syncAction(services, 'safari', 'insert', { subscriptionId: result.deviceToken, endpoint: '' })) outcome.succeed();
          } else if (result.permission === 'denied') outcome.blocked(Date.now() - askedAt < BROWSER_BLOCK_MS ? SAFARI_ERROR : BLOCKED);
          else outcome.fail(CANCELLED);
        })(),
      );
    });
  });
}
