// Which browsers can subscribe (spec section 1): version minimums read from the user agent, Safari by its
// push interface (standard Web Push, or the legacy window.safari one), iOS never, unless the site enables
// home-screen web apps (iosHomeScreen): then iOS/iPadOS 16.4+ subscribes inside the installed app, and Safari's
// tab is offered the "Add to Home Screen" instructions.
//
// `detectSupport` names the browser by a code, an index into BROWSER_NAMES: the core only compares codes, and the
// names (the sync's browserType) are read where they are sent, in the lifecycle chunk and the child window.
export const BROWSER_NAMES = ['other', 'safari', 'edge', 'opera', 'uc', 'samsung', 'firefox', 'chrome'] as const;
export type BrowserName = (typeof BROWSER_NAMES)[number];
/** An index into BROWSER_NAMES. */
export type BrowserCode = number;
const OTHER = 0;
export const SAFARI = 1;

// Why a browser cannot subscribe, as codes: the reasons are internal (nothing shows or sends them; the visitor
// sees section 2's unsupported message), and the core only needs to know that there is one.
/** The browser or its version cannot subscribe. */
export const NOT_SUPPORTED = 1;
/** Safari's legacy push without a website push id in the config. */
export const NO_SAFARI_PUSH_ID = 2;
/** Edge without a VAPID key. */
export const NO_EDGE_VAPID_KEY = 3;
export type FailureReason = typeof NOT_SUPPORTED | typeof NO_SAFARI_PUSH_ID | typeof NO_EDGE_VAPID_KEY;

/** A reason's text (spec section 1's internal failure reasons): the lifecycle chunk logs it, the core never reads it. */
export const failureText = (reason: FailureReason): string =>
  reason === NO_EDGE_VAPID_KEY
    ? 'missing vapid key in Edge'
    : PK_FEATURES.safari && reason === NO_SAFARI_PUSH_ID
      ? 'missing Safari website push id'
      : 'browser not supported';

export interface BrowserSupport {
  browser_: BrowserCode;
  version_: number;
  mobile_: boolean;
  /** Why this visitor cannot subscribe; undefined when it can. */
  failure_?: FailureReason;
  /** Safari on iOS/iPadOS 16.4+ outside a home-screen app: it could subscribe once the site is added there. */
  homeScreen_?: boolean;
}

/** What the page offers beyond the user agent: the Push API, a touch screen (iPadOS claims to be a Mac) and standalone display. */
export interface PushEnvironment {
  pushManager_: boolean;
  touch_: boolean;
  standalone_: boolean;
}

// The engines, checked in order (Edge, Opera, UC and Samsung all also claim to be Chrome): the n-th alternative of
// VERSIONS reads the version of browser code n + 1 (EDGE, opera, uc, samsung, firefox, chrome), the leftmost
// `<product>/<digits>` of its products, and MINIMUMS[n - 1] holds its desktop and mobile minimums. One expression, not
// one per engine: V8 compiles an expression on its first use, and six cost a first visit 0.1 ms more (issue 34).
const EDGE = 2;
const VERSIONS =
  /^(?=[^]*?Edg(?:e|A|iOS)?\/(\d+))|^(?=[^]*?(?:OPR|Opera)\/(\d+))|^(?=[^]*?UCBrowser\/(\d+))|^(?=[^]*?SamsungBrowser\/(\d+))|^(?=[^]*?Firefox\/(\d+))|^(?=[^]*?Chrom(?:e|ium)\/(\d+))/;
const MINIMUMS = [
  [17, Infinity],
  [42, 39],
  [Infinity, 4],
  [Infinity, 9],
  [44, 48],
  [42, 42],
];

/** The engine the user agent names: its alternative n of VERSIONS (0 for none) and the version it reads. */
function engineOf(userAgent: string): [number, number] {
  const match = VERSIONS.exec(userAgent) || [];
  // the match itself is empty (a lookahead) and one group holds digits
  const n = match.findIndex(Boolean);
  return [Math.max(n, 0), Number(match[n])];
}

/**
 * Whether detectSupport names a failure, for a build without Safari's legacy push and home-screen apps (their
 * `safariPush` is undefined and `env` has no touch screen nor standalone display): push.js's core asks only this,
 * and leaves the browser's name and version to the chunk. tests/unit/runtime-browser-support.test.ts checks that
 * the two agree.
 */
export function unsupported(userAgent: string, site: { vapidKeyHead: string }, pushManager: boolean): boolean {
  if (/iPhone|iPad|iPod/.test(userAgent)) return true;
  const mobile = /Mobi|Android/i.test(userAgent);
  const [n, version] = engineOf(userAgent);
  if (n) return version < MINIMUMS[n - 1]![mobile ? 1 : 0]! || (n + 1 === EDGE && !site.vapidKeyHead);
  return !(pushManager && /Safari\//.test(userAgent));
}

/**
 * On iOS/iPadOS (home-screen apps enabled): Safari's tab, not the installed app, on 16.4 or later, which can install
 * the site as a home-screen app: its major version; otherwise 0.
 */
export function homeScreenTab(userAgent: string, standalone: boolean): number {
  const [, major, minor] = /OS (\d+)_(\d+)/.exec(userAgent) || /Version\/(\d+)\.(\d+)/.exec(userAgent) || [];
  return !standalone &&
    /Version\/.*Safari\//.test(userAgent) &&
    !/(Cr|Fx|Edg|OP)iOS/.test(userAgent) &&
    Number(major) * 100 + Number(minor) >= 1604
    ? Number(major)
    : 0;
}

export function detectSupport(
  userAgent: string,
  safariPush: unknown,
  site: { safariWebsitePushId?: string; vapidKeyHead: string },
  env: PushEnvironment,
): BrowserSupport {
  const mobile = /Mobi|Android/i.test(userAgent);
  if (/iPhone|iPad|iPod/.test(userAgent) || (PK_FEATURES.iosHomeScreen && env.touch_ && /Macintosh/.test(userAgent))) {
    if (PK_FEATURES.iosHomeScreen) {
      // iOS exposes the Push API only inside a home-screen web app (16.4+); its Safari tab can only install one.
      if (env.standalone_ && env.pushManager_) return { browser_: SAFARI, version_: 16, mobile_: true };
      const major = homeScreenTab(userAgent, env.standalone_);
      if (major) return { browser_: SAFARI, version_: major, mobile_: true, failure_: NOT_SUPPORTED, homeScreen_: true };
    }
    return { browser_: OTHER, version_: 0, mobile_: true, failure_: NOT_SUPPORTED };
  }
  const [n, version] = engineOf(userAgent);
  if (n) {
    const failure =
      version < MINIMUMS[n - 1]![mobile ? 1 : 0]! ? NOT_SUPPORTED : n + 1 === EDGE && !site.vapidKeyHead ? NO_EDGE_VAPID_KEY : undefined;
    return { browser_: n + 1, version_: version, mobile_: mobile, failure_: failure };
  }
  // Safari 16+ (macOS 13+) has the standard Push API; older Safari only the legacy window.safari interface, which a
  // build without a website push id never passes, so that branch goes with the feature.
  if (/Safari\//.test(userAgent)) {
    const version = Number((/Version\/(\d+)/.exec(userAgent) || [])[1] || 0);
    if (env.pushManager_) return { browser_: SAFARI, version_: version, mobile_: mobile };
    if (PK_FEATURES.safari && safariPush)
      return { browser_: SAFARI, version_: version, mobile_: mobile, failure_: site.safariWebsitePushId ? undefined : NO_SAFARI_PUSH_ID };
  }
  return { browser_: OTHER, version_: 0, mobile_: mobile, failure_: NOT_SUPPORTED };
}
