// Browser support of spec section 1: the minimums by user agent, Safari by its push interface, iOS never.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  BROWSER_NAMES,
  detectSupport as detectCode,
  failureText,
  type FailureReason,
  NO_EDGE_VAPID_KEY,
  NO_SAFARI_PUSH_ID,
  NOT_SUPPORTED,
  unsupported,
} from '../../runtime/browser-support.ts';
import { coreSupport, viewSupport } from '../../runtime/view-support.ts';
import { site as coreSite } from '../fixtures/site-module.ts';

/** detectSupport with the browser's name in place of its code (BROWSER_NAMES, as the chunk reads it). */
const detectSupport = (...args: Parameters<typeof detectCode>) => {
  const support = detectCode(...args);
  return { ...support, browser_: BROWSER_NAMES[support.browser_] };
};

const site = { vapidKeyHead: 'key', safariWebsitePushId: 'web.test.calligraphy' };
/** A browser without the Push API, a touch screen or standalone display. */
const bare = { pushManager_: false, touch_: false, standalone_: false };
const desktop = (product: string) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) ${product}`;
const android = (product: string) =>
  `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) ${product} Mobile Safari/537.36`;

describe('browser support', () => {
  it.each([
    ['Chrome 42', desktop('Chrome/42.0.2311.90 Safari/537.36'), 'chrome', undefined],
    ['Chrome 41', desktop('Chrome/41.0.2272.118 Safari/537.36'), 'chrome', NOT_SUPPORTED],
    ['Firefox 44 desktop', 'Mozilla/5.0 (Windows NT 10.0; rv:44.0) Gecko/20100101 Firefox/44.0', 'firefox', undefined],
    ['Firefox 43 desktop', 'Mozilla/5.0 (Windows NT 10.0; rv:43.0) Gecko/20100101 Firefox/43.0', 'firefox', NOT_SUPPORTED],
    ['Firefox 48 mobile', 'Mozilla/5.0 (Android 9; Mobile; rv:48.0) Gecko/48.0 Firefox/48.0', 'firefox', undefined],
    ['Firefox 47 mobile', 'Mozilla/5.0 (Android 9; Mobile; rv:47.0) Gecko/47.0 Firefox/47.0', 'firefox', NOT_SUPPORTED],
    ['Opera 42 desktop', desktop('Chrome/55.0 Safari/537.36 OPR/42.0.2393.94'), 'opera', undefined],
    ['Opera 41 desktop', desktop('Chrome/54.0 Safari/537.36 OPR/41.0'), 'opera', NOT_SUPPORTED],
    ['Opera 39 mobile', android('Chrome/52.0 OPR/39.0'), 'opera', undefined],
    ['Opera 38 mobile', android('Chrome/51.0 OPR/38.0'), 'opera', NOT_SUPPORTED],
    ['Edge 17 desktop', desktop('Chrome/64.0 Safari/537.36 Edge/17.17134'), 'edge', undefined],
    ['Edge 16 desktop', desktop('Chrome/58.0 Safari/537.36 Edge/16.16299'), 'edge', NOT_SUPPORTED],
    ['UC 4 mobile', android('Chrome/57.0 UCBrowser/4.0.1'), 'uc', undefined],
    ['UC 3 mobile', android('Chrome/57.0 UCBrowser/3.9'), 'uc', NOT_SUPPORTED],
    ['UC on desktop', desktop('Chrome/57.0 UCBrowser/7.0 Safari/537.36'), 'uc', NOT_SUPPORTED],
    ['Samsung 9 mobile', android('SamsungBrowser/9.2 Chrome/67.0'), 'samsung', undefined],
    ['Samsung 8 mobile', android('SamsungBrowser/8.2 Chrome/63.0'), 'samsung', NOT_SUPPORTED],
  ])('%s', (_, userAgent, browser, failure_) => {
    expect(detectSupport(userAgent, undefined, site, bare)).toMatchObject({ browser_: browser, failure_ });
  });

  it('iOS is never supported, whatever the browser', () => {
    const ios =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 Mobile/15E148 Safari/604.1';
    expect(detectSupport(ios, {}, site, bare).failure_).toBe(NOT_SUPPORTED);
    expect(detectSupport(ios.replace('CriOS/120.0', 'Version/16.0 Chrome/120.0'), {}, site, bare).failure_).toBe(NOT_SUPPORTED);
  });

  it('Safari is supported when window.safari.pushNotification exists and a website push id is set', () => {
    const safari = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.1 Safari/605.1.15';
    expect(detectSupport(safari, {}, site, bare)).toMatchObject({ browser_: 'safari', version_: 15, failure_: undefined });
    expect(detectSupport(safari, undefined, site, bare).failure_).toBe(NOT_SUPPORTED);
    expect(detectSupport(safari, {}, { vapidKeyHead: 'key' }, bare).failure_).toBe(NO_SAFARI_PUSH_ID);
  });

  it('Safari with the Push API (16+) is supported with standard Web Push, with or without a website push id', () => {
    const safari = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
    const env = { pushManager_: true, touch_: false, standalone_: false };
    expect(detectSupport(safari, undefined, { vapidKeyHead: 'key' }, env)).toEqual({ browser_: 'safari', version_: 17, mobile_: false });
    expect(detectSupport(safari, {}, site, env).failure_).toBeUndefined();
  });

  it.each([
    [
      'Safari tab on iOS 16.4',
      'iPhone OS 16_4',
      'Version/16.4 Mobile/15E148 Safari/604.1',
      {},
      { homeScreen_: true, failure_: NOT_SUPPORTED },
    ],
    [
      'Safari tab on iOS 16.3',
      'iPhone OS 16_3',
      'Version/16.3 Mobile/15E148 Safari/604.1',
      {},
      { browser_: 'other', failure_: NOT_SUPPORTED },
    ],
    ['Chrome on iOS 17', 'iPhone OS 17_0', 'CriOS/120.0 Mobile/15E148 Safari/604.1', {}, { browser_: 'other', failure_: NOT_SUPPORTED }],
    [
      'the installed app',
      'iPhone OS 17_0',
      'Mobile/15E148',
      { standalone_: true, pushManager_: true },
      { browser_: 'safari', mobile_: true },
    ],
    [
      'an installed app without the Push API (before 16.4)',
      'iPhone OS 16_3',
      'Mobile/15E148',
      { standalone_: true },
      { failure_: NOT_SUPPORTED },
    ],
    [
      'iPadOS Safari claiming to be a Mac',
      'Macintosh; Intel Mac OS X 10_15_7',
      'Version/17.0 Safari/605.1.15',
      { touch_: true },
      { homeScreen_: true },
    ],
  ])('iOS home-screen apps (iosHomeScreen on): %s', (_, os, product, env, expected) => {
    const userAgent = `Mozilla/5.0 (${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ${product}`;
    expect(detectSupport(userAgent, undefined, site, { ...bare, ...env })).toMatchObject(expected);
  });

  it('names the engine and version as one expression per engine did: the first engine in order, its leftmost version', () => {
    const engines = [
      /Edg(?:e|A|iOS)?\/(\d+)/,
      /(?:OPR|Opera)\/(\d+)/,
      /UCBrowser\/(\d+)/,
      /SamsungBrowser\/(\d+)/,
      /Firefox\/(\d+)/,
      /Chrom(?:e|ium)\/(\d+)/,
    ];
    const userAgents = [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      'Ubuntu Chromium/37.0.2062.94 Chrome/38.0.2062.94 Safari/537.36',
      'Chrome/ Chrome/x Chrome/50.1',
      'Chrome/0 Firefox/',
      'EdgA/45.0 Edg/80.0 Edge/18.1 Chrome/90',
      'Edge/ Edg/79 xEdgiOS/12',
      'Opera/9.80 (Windows NT 6.1) Presto/2.12.388 Version/12.16',
      'Chrome/60 OPR/ Opera OPR/42.1',
      'Firefox Firefox/ /44 Firefox/0044 SamsungBrowser/7',
      'UCBrowser/4.0 Chrome/57 Firefox/50',
      'Chrome/99999999999999999999',
      'line\nbreak Chrome/70',
      'Lynx/2.8.9rel.1',
      '',
    ];
    for (const userAgent of userAgents) {
      const index = engines.findIndex((engine) => engine.test(userAgent));
      const expected = index < 0 ? 0 : [index + 2, Number(engines[index]!.exec(userAgent)![1])];
      const { browser_, version_ } = detectCode(userAgent, undefined, site, bare);
      expect([userAgent, browser_ > 1 ? [browser_, version_] : 0]).toEqual([userAgent, expected]);
    }
  });

  it('Edge without a vapid key cannot subscribe', () => {
    expect(detectSupport(desktop('Chrome/120.0 Safari/537.36 Edg/120.0'), undefined, { vapidKeyHead: '' }, bare).failure_).toBe(
      NO_EDGE_VAPID_KEY,
    );
  });

  it("push.js core's check (a build without Safari's legacy push and home-screen apps) agrees with detectSupport", () => {
    const userAgents = [
      desktop('Chrome/42.0 Safari/537.36'),
      desktop('Chrome/41.0 Safari/537.36'),
      'Mozilla/5.0 (Windows NT 10.0; rv:43.0) Gecko/20100101 Firefox/43.0',
      'Mozilla/5.0 (Android 9; Mobile; rv:47.0) Gecko/47.0 Firefox/47.0',
      'Mozilla/5.0 (Android 9; Mobile; rv:48.0) Gecko/48.0 Firefox/48.0',
      desktop('Chrome/54.0 Safari/537.36 OPR/41.0'),
      android('Chrome/52.0 OPR/39.0'),
      desktop('Chrome/120.0 Safari/537.36 Edg/120.0'),
      desktop('Chrome/58.0 Safari/537.36 Edge/16.16299'),
      android('Chrome/57.0 UCBrowser/4.0.1'),
      desktop('Chrome/57.0 UCBrowser/7.0 Safari/537.36'),
      android('SamsungBrowser/8.2 Chrome/63.0'),
      android('SamsungBrowser/9.2 Chrome/67.0'),
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 Mobile/15E148',
      'Lynx/2.8.9rel.1',
    ];
    for (const userAgent of userAgents)
      for (const pushManager_ of [true, false])
        for (const vapidKeyHead of ['key', '']) {
          const failure = detectCode(userAgent, undefined, { vapidKeyHead }, { ...bare, pushManager_ }).failure_;
          expect([userAgent, pushManager_, vapidKeyHead, unsupported(userAgent, { vapidKeyHead }, pushManager_)]).toEqual([
            userAgent,
            pushManager_,
            vapidKeyHead,
            failure !== undefined,
          ]);
        }
  });

  it('the three internal failure reasons: truthy codes (a reason means the view cannot subscribe) and their texts', () => {
    const reasons = [NOT_SUPPORTED, NO_SAFARI_PUSH_ID, NO_EDGE_VAPID_KEY];
    expect(reasons.every(Boolean)).toBe(true);
    expect(reasons.map((reason) => failureText(reason as FailureReason))).toEqual([
      'browser not supported',
      'missing Safari website push id',
      'missing vapid key in Edge',
    ]);
  });
});

describe("push.js core's view of the browser (coreSupport) against the chunk's (viewSupport)", () => {
  afterEach(() => vi.unstubAllGlobals());

  const mac = (product: string) => `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) ${product}`;
  const iphone = (os: string, product: string) =>
    `Mozilla/5.0 (iPhone; CPU iPhone OS ${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) ${product}`;
  const userAgents = [
    desktop('Chrome/120.0 Safari/537.36'),
    desktop('Chrome/41.0 Safari/537.36'),
    android('Chrome/52.0 OPR/39.0'),
    desktop('Chrome/120.0 Safari/537.36 Edg/120.0'),
    'Mozilla/5.0 (Windows NT 10.0; rv:43.0) Gecko/20100101 Firefox/43.0',
    mac('Version/15.6 Safari/605.1.15'),
    mac('Version/17.4 Safari/605.1.15'),
    iphone('17_4', 'Version/17.4 Mobile/15E148 Safari/604.1'),
    iphone('16_3', 'Version/16.3 Mobile/15E148 Safari/604.1'),
    iphone('17_4', 'Mobile/15E148'),
    iphone('17_0', 'CriOS/120.0 Mobile/15E148 Safari/604.1'),
    iphone('17_0', 'Version/17.0 EdgiOS/120.0 Mobile/15E148 Safari/604.1'),
    'Lynx/2.8.9rel.1',
  ];

  it('agrees on every mix of user agent, Push API, worker, touch screen, standalone display and Safari legacy permission', () => {
    const site = { ...coreSite, safariWebsitePushId: 'web.test.calligraphy', vapidKeyHead: 'key' };
    let mixes = 0;
    const homeScreen = new Set<string>();
    for (const userAgent of userAgents)
      for (const pushManager of [true, false])
        for (const worker of [true, false])
          for (const touch of [0, 5])
            for (const standalone of [true, false])
              // window.safari.pushNotification is Safari's on macOS only
              for (const legacy of /Macintosh/.test(userAgent) && !touch ? [undefined, 'default', 'granted'] : [undefined]) {
                const win: Record<string, unknown> = { matchMedia: () => ({ matches: false }), Notification: {} };
                if (pushManager) win.PushManager = {};
                if (legacy) win.safari = { pushNotification: { permission: () => ({ permission: legacy }) } };
                const nav: Record<string, unknown> = { userAgent, maxTouchPoints: touch, standalone };
                if (worker) nav.serviceWorker = {};
                vi.stubGlobal('window', win);
                vi.stubGlobal('navigator', nav);
                vi.stubGlobal('matchMedia', win.matchMedia);
                const view = viewSupport(site);
                const core = coreSupport(site);
                const mix = [userAgent, pushManager, worker, touch, standalone, legacy];
                expect([mix, core.capable_]).toEqual([mix, view.pushCapable_]);
                expect([mix, !!core.chunk_]).toEqual([mix, view.pushCapable_ && (view.onSafari_ || view.viaChildWindow_)]);
                // the core arms the trigger wherever the chunk may offer the home-screen instructions (it then decides)
                if (view.support_.homeScreen_) expect([mix, core.homeScreen_]).toEqual([mix, true]);
                if (core.homeScreen_) homeScreen.add(userAgent);
                mixes++;
              }
    expect(mixes).toBeGreaterThan(200);
    // Safari's tabs on iOS and on iPadOS (a Mac with a touch screen) only: never Chrome's or Firefox's on iOS
    expect([...homeScreen]).toEqual([
      mac('Version/15.6 Safari/605.1.15'),
      mac('Version/17.4 Safari/605.1.15'),
      iphone('17_4', 'Version/17.4 Mobile/15E148 Safari/604.1'),
      iphone('16_3', 'Version/16.3 Mobile/15E148 Safari/604.1'),
      iphone('17_0', 'Version/17.0 EdgiOS/120.0 Mobile/15E148 Safari/604.1'),
    ]);
  });
});
