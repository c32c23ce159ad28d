// What this browser offers for subscribing (spec section 1) and which opt-in path it takes: read once by the core
// (view-decision.ts, to decide whether the view needs the lifecycle chunk) and once by the chunk's lifecycle.
import type { CoreSiteModule } from './site-module.ts';
import { detectSupport, SAFARI, unsupported, type BrowserSupport } from './browser-support.ts';
import { safariPushOf, type SafariPush } from './opt-in-safari.ts';

export interface ViewSupport {
  support_: BrowserSupport;
  safariPush_: SafariPush | undefined;
  /** Safari's legacy push is the way of subscribing. */
  onSafari_: boolean;
  /** A plain-http site whose page cannot register a worker: the provider's child window subscribes. */
  viaChildWindow_: boolean;
  /** This browser can subscribe (no failure reason, a push interface). */
  pushCapable_: boolean;
}

export function viewSupport(site: CoreSiteModule): ViewSupport {
  const safariPush = PK_FEATURES.safari ? safariPushOf() : undefined;
  const pushManager = 'PushManager' in window;
  const support = detectSupport(navigator.userAgent, safariPush, site, {
    pushManager_: pushManager,
    touch_: PK_FEATURES.iosHomeScreen && navigator.maxTouchPoints > 1,
    standalone_:
      PK_FEATURES.iosHomeScreen &&
      ((navigator as { standalone?: boolean }).standalone === true || matchMedia('(display-mode: standalone)').matches),
  });
  // Standard Web Push whenever Safari offers it; the legacy interface only without it, or for a visitor who
  // already subscribed through it (so an upgrade to Safari 16 keeps existing subscribers).
  const onSafari =
    PK_FEATURES.safari &&
    support.browser_ === SAFARI &&
    !!safariPush &&
    (!pushManager || safariPush.permission(site.safariWebsitePushId!).permission === 'granted');
  const viaChildWindow = PK_FEATURES.childWindow && !onSafari && !('serviceWorker' in navigator);
  return {
    support_: support,
    safariPush_: safariPush,
    onSafari_: onSafari,
    viaChildWindow_: viaChildWindow,
    pushCapable_:
      !support.failure_ && (onSafari || viaChildWindow || ('serviceWorker' in navigator && pushManager && 'Notification' in window)),
  };
}

/**
 * `pushCapable_` of viewSupport for a build without Safari's legacy push, home-screen apps and the child window
 * (PK_FEATURES.safari, iosHomeScreen, childWindow off): push.js's core reads only this of such a view.
 */
export const standardPushCapable = (site: CoreSiteModule): boolean => {
  const pushManager = 'PushManager' in window;
  return !unsupported(navigator.userAgent, site, pushManager) && 'serviceWorker' in navigator && pushManager && 'Notification' in window;
};
