// Opt-in through Safari's legacy push (spec sections 1 and 4), for Safari without the standard Push API:
// window.safari.pushNotification with the site's website push id gives the permission and the device token,
// which stands for the subscription id. Safari fetches the push package from the site's own web service
// (safariWebServiceUrl, Apple's protocol), which the provider does not serve (README, "Safari").
import type { RuntimeServices } from './services.ts';
import type { OptInOutcome } from './opt-in-outcome.ts';
import type { OptInPath } from './opt-in-path.ts';
import { BROWSER_BLOCK_MS } from './push-subscription.ts';
import { BLOCKED, CANCELLED, SAFARI_ERROR, SYNC_ERROR } from './messages.ts';
import { syncAction, syncSubscription, syncWithoutPermission } from './sync.ts';

interface SafariPermission {
  permission: string;
  deviceToken?: string | null;
}

export interface SafariPush {
  permission(websitePushId: string): SafariPermission;
  requestPermission(url: string, websitePushId: string, userInfo: object, callback: (result: SafariPermission) => void): void;
}

export const safariPushOf = (): SafariPush | undefined => {
  // not `?.`: esbuild writes it out for es2017 at twice the length
  const safari = (window as unknown as { safari?: { pushNotification?: SafariPush } }).safari;
  return safari && safari.pushNotification;
};

export function safariOptInPath(services: RuntimeServices, push: SafariPush, outcome: OptInOutcome): OptInPath {
  const { site_: site } = services;
  const websitePushId = site.safariWebsitePushId!;
  const permission = (): NotificationPermission => {
    const answer = push.permission(websitePushId).permission;
    return answer === 'granted' || answer === 'denied' ? answer : 'default';
  };

  return {
    _permission: permission,

    async _sync(stored) {
      const granted = permission();
      if (granted !== 'granted') {
        await syncWithoutPermission(services, 'safari', stored, granted);
        return false;
      }
      const deviceToken = push.permission(websitePushId).deviceToken;
      if (!deviceToken) return false;
      await syncSubscription(services, 'safari', stored, { subscriptionId: deviceToken, endpoint: '' });
      return true;
    },

    /** Asks Safari; a denial within 500 ms means Safari failed to show its prompt (SAFARI-ERROR). */
    async _subscribe(uuid) {
      const askedAt = Date.now();
      const result = await new Promise<SafariPermission>((resolve) =>
        push.requestPermission(site.safariWebServiceUrl!, websitePushId, { hash: site.hash, uuid }, resolve),
      );
      if (result.permission === 'granted' && result.deviceToken) {
        if (await syncAction(services, 'safari', 'insert', { subscriptionId: result.deviceToken, endpoint: '' })) outcome.succeed_();
        else outcome.fail_(SYNC_ERROR);
      } else if (result.permission === 'denied') outcome.blocked_(Date.now() - askedAt < BROWSER_BLOCK_MS ? SAFARI_ERROR : BLOCKED);
      else outcome.fail_(CANCELLED);
    },

    // Safari keeps its subscription on opt-out: the provider forgets the subscriber (unsubscribe-ui).
    _unsubscribe() {},
  };
}
