// Debian's Chromium driven by playwright-core, with a persistent profile (the Push API refuses in
// incognito-like contexts) and the offline launch flags of docs/testing.md.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Playwright's own `--disable-features` (playwright-core 1.65's chromiumSwitches.ts): Chromium reads only the last
// such flag, so ours repeats them.
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

export const OFFLINE_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Headless Chromium 156 loads the address bar's suggestion popups (WebUI pages in a renderer of their own) for
  // every window, though no test has an address bar: 1-2.5 CPU-s a browser.
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, 'WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'].join(',')}`,
  // The sites a test serves as plain http under a name (calligraphy.test, consent.test, <name>.test of
  // http-sites-stack.ts) are on this machine. One rule for every browser, not one per file: a file that maps its own
  // names borrows the browser the file before it handed on instead of launching one of its own.
  '--host-resolver-rules=MAP *.test 127.0.0.1',
];

export interface TestBrowser {
  context: BrowserContext;
  profileDir: string;
  close(): Promise<void>;
}

/** The persistent context's options (viewport, locale, time zone...); `env` is added to this process's. */
export type ChromiumOptions = Omit<
  NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>,
  'executablePath' | 'headless' | 'args' | 'env'
> & { env?: Record<string, string> };

const DEFAULT_VIEWPORT = { width: 1280, height: 800 };

export async function launchPersistentChromium(extraArgs: string[] = [], options: ChromiumOptions = {}): Promise<TestBrowser> {
  const profileDir = await mkdtemp(join(process.env.PUSHKIT_E2E_PROFILES ?? tmpdir(), 'push-kit-chromium-'));
  const { env, ...contextOptions } = options;
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...OFFLINE_FLAGS, ...extraArgs],
    viewport: DEFAULT_VIEWPORT,
    ...contextOptions,
    env: env ? ({ ...process.env, ...env } as Record<string, string>) : undefined,
  });
  return {
    context,
    profileDir,
    async close() {
      await context.close().catch(() => {});
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits for every start (a provider, Chromium...) begun side by side, then throws the first failure: each start
 * assigns what it started, and one still under way when another failed would otherwise escape afterAll's close.
 */
export async function allStarted(starts: Promise<unknown>[]): Promise<void> {
  for (const result of await Promise.allSettled(starts)) if (result.status === 'rejected') throw result.reason;
}

interface Kept {
  key: string;
  browser: TestBrowser;
  /** Origins the borrower's pages and workers asked for: their storage is cleared when it is handed back. */
  origins: Set<string>;
  /** Set by what cannot be undone (an init script, a route, fake timers...): the browser is closed, not kept. */
  tainted: boolean;
}

/** Free browsers of this worker, by launch flags and options, the most recently returned last. */
const keptBrowsers: Kept[] = [];
const KEEP_AT_MOST = 4;
const UNDOABLE_ONLY_BY_CLOSING = [
  'addInitScript',
  'exposeBinding',
  'exposeFunction',
  'route',
  'routeFromHAR',
  'routeWebSocket',
  'setExtraHTTPHeaders',
  'setGeolocation',
  'setHTTPCredentials',
  'setOffline',
] as const;
const CLOCK_METHODS = ['install', 'fastForward', 'pauseAt', 'resume', 'runFor', 'setFixedTime', 'setSystemTime'] as const;
const FILE_LISTENED_EVENTS = [
  'request',
  'response',
  'requestfailed',
  'requestfinished',
  'console',
  'weberror',
  'dialog',
  'serviceworker',
] as const;

/**
 * A Chromium like `launchPersistentChromium`'s, handed on between the end-to-end files of one test worker: launching
 * one costs about 2.8 s of CPU, a handed-on one about 0.5 s. A browser handed back is kept while it is as good as new:
 * its pages closed but one blank page, cookies, permissions and HTTP cache cleared, and every origin it was used on cleared of storage,
 * service workers and push subscriptions (a new file's servers listen on new ports, so new origins). One whose state
 * cannot be cleared (an init script, a route, an exposed binding, fake timers, emulated network or place) is closed
 * instead.
 */
export async function borrowChromium(extraArgs: string[] = [], options: ChromiumOptions = {}): Promise<TestBrowser> {
  // the default viewport named or not, the same browser (prompts' desktop one is the plain one)
  const key = JSON.stringify([extraArgs, { viewport: DEFAULT_VIEWPORT, ...options }]);
  let place = -1;
  keptBrowsers.forEach((kept, index) => {
    if (kept.key === key) place = index;
  });
  const kept: Kept =
    place === -1
      ? { key, browser: await launchPersistentChromium(extraArgs, options), origins: new Set(), tainted: false }
      : keptBrowsers.splice(place, 1)[0]!;
  const context = kept.browser.context;
  const noteOrigin = (url: string) => {
    if (/^https?:/.test(url)) kept.origins.add(new URL(url).origin);
  };
  context.on('request', (request) => noteOrigin(request.url()));
  context.on('serviceworker', (worker) => noteOrigin(worker.url()));
  const taint = (target: object, method: string) => {
    const original = (target as Record<string, (...args: unknown[]) => unknown>)[method]!.bind(target);
    (target as Record<string, unknown>)[method] = (...args: unknown[]) => {
      kept.tainted = true;
      return original(...args);
    };
  };
  for (const method of UNDOABLE_ONLY_BY_CLOSING) taint(context, method);
  // page.clock is the context's: fake timers, once installed, stay for every later page
  for (const method of CLOCK_METHODS) taint(context.clock, method);
  let handedBack = false;
  return {
    context,
    profileDir: kept.browser.profileDir,
    async close() {
      if (handedBack) return;
      handedBack = true;
      for (const method of UNDOABLE_ONLY_BY_CLOSING) delete (context as unknown as Record<string, unknown>)[method];
      for (const method of CLOCK_METHODS) delete (context.clock as unknown as Record<string, unknown>)[method];
      if (kept.tainted || !(await clearForNextBorrower(kept).catch(() => false))) {
        await kept.browser.close();
        return;
      }
      keptBrowsers.push(kept);
      while (keptBrowsers.length > KEEP_AT_MOST) await keptBrowsers.shift()!.browser.close();
    },
  };
}

async function clearForNextBorrower(kept: Kept): Promise<boolean> {
  const { context } = kept.browser;
  for (const event of FILE_LISTENED_EVENTS) context.removeAllListeners(event);
  context.removeAllListeners('page');
  // as a launch leaves it: one blank page (through which the browser is cleared)
  const [blank = await context.newPage(), ...others] = context.pages();
  for (const page of others) await page.close();
  await blank.goto('about:blank');
  const cdp = await context.newCDPSession(blank);
  for (const origin of kept.origins) await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
  await cdp.send('Network.clearBrowserCache');
  await cdp.detach();
  await context.clearCookies();
  await context.clearPermissions();
  kept.origins.clear();
  return context.pages().length === 1;
}
