// Which browsers can subscribe (spec section 1): version minimums read from the user agent, Safari by its
// push interface, iOS never.
export type BrowserName = 'chrome' | 'firefox' | 'opera' | 'edge' | 'uc' | 'samsung' | 'safari' | 'other';

export const NOT_SUPPORTED = 'browser not supported';
export const NO_SAFARI_PUSH_ID = 'missing Safari website push id';
export const NO_EDGE_VAPID_KEY = 'missing vapid key in Edge';

export interface BrowserSupport {
  browser: BrowserName;
  version: number;
  mobile: boolean;
  /** Why this visitor cannot subscribe; undefined when it can. */
  failure?: string;
}

// Checked in order: Edge, Opera, UC and Samsung all also claim to be Chrome.
const ENGINES: [BrowserName, RegExp, number, number][] = [
  ['edge', /Edg(?:e|A|iOS)?\/(\d+)/, 17, Infinity],
  ['opera', /(?:OPR|Opera)\/(\d+)/, 42, 39],
  ['uc', /UCBrowser\/(\d+)/, Infinity, 4],
  ['samsung', /SamsungBrowser\/(\d+)/, Infinity, 9],
  ['firefox', /Firefox\/(\d+)/, 44, 48],
  ['chrome', /Chrom(?:e|ium)\/(\d+)/, 42, 42],
];

export function detectSupport(
  userAgent: string,
  safariPush: unknown,
  site: { safariWebsitePushId?: string; vapidPublicKey: string },
): BrowserSupport {
  const mobile = /Mobi|Android/i.test(userAgent);
  if (/iPhone|iPad|iPod/.test(userAgent)) return { browser: 'other', version: 0, mobile: true, failure: NOT_SUPPORTED };
  for (const [browser, pattern, desktopMinimum, mobileMinimum] of ENGINES) {
    const match = pattern.exec(userAgent);
    if (!match) continue;
    const version = Number(match[1]);
    const failure =
      version < (mobile ? mobileMinimum : desktopMinimum)
        ? NOT_SUPPORTED
        : browser === 'edge' && !site.vapidPublicKey
          ? NO_EDGE_VAPID_KEY
          : undefined;
    return { browser, version, mobile, failure };
  }
  // A build without Safari push never passes its interface, so the branch goes with the feature.
  if (PK_FEATURES.safari && /Safari\//.test(userAgent) && safariPush) {
    const version = Number(/Version\/(\d+)/.exec(userAgent)?.[1] ?? 0);
    return { browser: 'safari', version, mobile, failure: site.safariWebsitePushId ? undefined : NO_SAFARI_PUSH_ID };
  }
  return { browser: 'other', version: 0, mobile, failure: NOT_SUPPORTED };
}
