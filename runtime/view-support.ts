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

/** A home-screen web app: iOS's `navigator.standalone`, or the standard display mode. */
const standalone = (): boolean =>
  (navigator as { standalone?: boolean }).standalone === true || matchMedia('(display-mode: standalone)').matches;

/** iOS or iPadOS (which claims to be a Mac, with a touch screen), where home-screen apps are enabled. */
const appleMobile = (userAgent: string): boolean =>
  PK_FEATURES.iosHomeScreen && (/iPhone|iPad|iPod/.test(userAgent) || (navigator.maxTouchPoints > 1 && /Macintosh/.test(userAgent)));

export function viewSupport(site: CoreSiteModule): ViewSupport {
  const safariPush = PK_FEATURES.safari ? safariPushOf() : undefined;
  const pushManager = 'PushManager' in window;
  const support = detectSupport(navigator.userAgent, safariPush, site, {
    pushManager_: pushManager,
    touch_: PK_FEATURES.iosHomeScreen && navigator.maxTouchPoints > 1,
    standalone_: PK_FEATURES.iosHomeScreen && standalone(),
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

/** What push.js's core reads of a view's support where Safari's legacy push, home-screen apps or the child window are built in. */
export interface CoreSupport {
  /** This browser can subscribe: viewSupport's pushCapable_. */
  capable_: boolean;
  /** The way of subscribing is Safari's legacy push or the child window: the lifecycle chunk's, on every view. */
  chunk_?: boolean;
  /**
   * Safari's tab on iOS, which viewSupport's support_.homeScreen_ may offer the home-screen instructions: the core arms
   * the trigger, and the chunk's lifecycle offers them only where support_.homeScreen_ holds (16.4+, Safari's own tab).
   */
  homeScreen_?: boolean;
}

/**
 * viewSupport for push.js's core, without the browser's name and version (the chunk's): the user agent's minimums
 * as `unsupported` reads them, iOS by its home-screen app, Safari's iOS tab without its version, and Safari's legacy
 * push and the child window only as far as the view is handed to the chunk. tests/unit/runtime-browser-support.test.ts
 * checks that the two agree.
 */
export function coreSupport(site: CoreSiteModule): CoreSupport {
  const userAgent = navigator.userAgent;
  const pushManager = 'PushManager' in window;
  const worker = 'serviceWorker' in navigator;
  // iOS exposes the Push API only inside a home-screen web app (16.4+), which is then Safari as detectSupport names it
  const ios = appleMobile(userAgent);
  if (ios) {
    const app = standalone();
    // Safari's tab may be offered the home-screen instructions: the chunk reads its version (16.4+, not Edge's or
    // Opera's tab) once the trigger fires, and offers nothing otherwise
    if (!app || !pushManager) return { capable_: false, homeScreen_: !app && /Version\/.*Safari\//.test(userAgent) };
  }
  const safariPush = PK_FEATURES.safari && safariPushOf();
  if (PK_FEATURES.safari && safariPush && (!pushManager || safariPush.permission(site.safariWebsitePushId!).permission === 'granted'))
    return { capable_: true, chunk_: true };
  const supported = ios || !unsupported(userAgent, site, pushManager);
  if (PK_FEATURES.childWindow && !worker) return { capable_: supported, chunk_: supported };
  return { capable_: supported && worker && pushManager && 'Notification' in window };
}
