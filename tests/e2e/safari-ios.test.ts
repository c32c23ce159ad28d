// Safari and iOS through the built push.js in Chromium, with the browser's user agent and features emulated
// per page (CDP user-agent override, page-level stubs of window.safari, PushManager and navigator.standalone):
// - Safari with PushManager (16+) subscribes with standard Web Push against the real provider, even where the
//   legacy window.safari interface also exists;
// - Safari with only window.safari asks the site's own push package service (safariWebServiceUrl) and the
//   device token reaches the provider;
// - iOS (issue 20): Safari's tab shows the "Add to Home Screen" instructions of an iOS-enabled build and nothing
//   in a default build; the installed app (standalone) subscribes on a click, asking permission in the gesture.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEXTS } from '../../config/default-texts.ts';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { sharedFakeGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStacks, type Stack } from '../support/stack.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';

const SAFARI_15 = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Safari/605.1.15';
const SAFARI_17 = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
// The installed web app's user agent has no Version/ or Safari/ token.
const IPHONE_APP = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
const WEBSITE_PUSH_ID = 'web.test.calligraphy';
const WEB_SERVICE_URL = 'https://push-packages.calligraphy.test/safari';
const DEVICE_TOKEN = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90';

let ios: Stack;
let plain: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;

beforeAll(async () => {
  gcm = await sharedFakeGcm();
  const triggers = { when: 'delay', delaySeconds: 1 };
  // the two sites (each its own build and origin) on one provider
  [[ios, plain], browser] = await Promise.all([
    startStacks([
      {
        overrides: {
          safariWebsitePushId: WEBSITE_PUSH_ID,
          safariWebServiceUrl: WEB_SERVICE_URL,
          iosHomeScreen: { enabled: true },
          pageClickTrackingConcent: false,
          triggers,
        },
      },
      { overrides: { pageClickTrackingConcent: false, triggers } },
    ]) as Promise<[Stack, Stack]>,
    borrowChromium(gcm.chromiumArgs),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await Promise.all([ios?.close(), plain?.close()]);
});

/** A page whose browser claims `userAgent`; `init` runs before the page's own scripts. */
async function pageAs(userAgent: string, init?: () => void): Promise<Page> {
  const page = await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Emulation.setUserAgentOverride', { userAgent });
  if (init) await page.addInitScript(init);
  return page;
}

/** Forgets everything the site's origin holds (storage, cookies, worker and its push subscription). */
async function resetOrigin(stack: Stack): Promise<void> {
  const page = await browser.context.newPage();
  await page.goto(`${stack.siteUrl}/styles.css`);
  await page.evaluate(async () => {
    localStorage.clear();
    for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
  });
  await page.close();
  await browser.context.clearCookies();
  await browser.context.clearPermissions();
}

/** Safari's legacy interface, recording what push.js asks; it answers `answer` after `afterMs`. */
function installLegacySafari(
  this: void,
  options: { withoutPushManager: boolean; answer: { permission: string; deviceToken?: string }; afterMs: number },
) {
  const win = window as unknown as Record<string, unknown>;
  if (options.withoutPushManager) delete win.PushManager;
  const state = { permission: 'default', deviceToken: null as string | null };
  const requests: unknown[] = [];
  win.safariRequests = requests;
  win.safari = {
    pushNotification: {
      permission: () => ({ ...state }),
      requestPermission(url: string, websitePushId: string, userInfo: object, callback: (result: object) => void) {
        requests.push({ url, websitePushId, userInfo });
        setTimeout(() => {
          Object.assign(state, options.answer);
          callback({ ...state });
        }, options.afterMs);
      },
    },
  };
}

/** Opens the stack's home page, calls triggerOptIn and waits past the 1 s delay trigger: how many prompts show. */
async function promptsAfterTriggers(page: Page, stack: Stack): Promise<number> {
  await page.goto(`${stack.siteUrl}/`);
  await page.evaluate(async () => {
    const api = (window as unknown as { pushkit: { ready: Promise<void>; triggerOptIn(): void } }).pushkit;
    await api.ready;
    api.triggerOptIn();
  });
  await page.waitForTimeout(1500);
  return page.locator('#pushkit-prompts [data-pk]:visible').count();
}

const GRANT = { permission: 'granted', deviceToken: DEVICE_TOKEN };

function recordSyncs(page: Page): URLSearchParams[] {
  const bodies: URLSearchParams[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/syncSubscriptionAction.php')) bodies.push(new URLSearchParams(request.postData() ?? ''));
  });
  return bodies;
}

async function storedSubscribers(stack: Stack) {
  const { rows } = await stack.db.query<{ id: string; browser_type: string; subscription_id: string; endpoint: string | null }>(
    "SELECT id, browser_type, subscription_id, endpoint FROM subscribers WHERE site_hash = $1 AND status = 'subscribed' ORDER BY created_at",
    [stack.config.hash],
  );
  return rows;
}

describe('Safari', () => {
  it('without PushManager, the legacy window.safari flow asks safariWebServiceUrl with the website push id; the device token is stored', async () => {
    await resetOrigin(ios);
    const page = await pageAs(SAFARI_15);
    await page.addInitScript(installLegacySafari, { withoutPushManager: true, answer: GRANT, afterMs: 600 });
    const syncs = recordSyncs(page);
    await page.goto(`${ios.siteUrl}/`);

    const outcome = await subscribeThroughApi(page);

    expect(outcome.result).toEqual({ status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' });
    const uuid = await page.evaluate(() => /_wingify_pc_uuid=([^;]+)/.exec(document.cookie)?.[1]);
    expect(await page.evaluate(() => (window as unknown as { safariRequests: unknown[] }).safariRequests)).toEqual([
      { url: WEB_SERVICE_URL, websitePushId: WEBSITE_PUSH_ID, userInfo: { hash: ios.config.hash, uuid } },
    ]);
    const insert = syncs.find((body) => body.get('action') === 'insert');
    expect([insert?.get('browserType'), insert?.get('subscriptionId'), insert?.get('websitePushId')]).toEqual([
      'safari',
      DEVICE_TOKEN,
      WEBSITE_PUSH_ID,
    ]);
    expect((await storedSubscribers(ios)).filter((row) => row.subscription_id === DEVICE_TOKEN)).toEqual([
      { id: outcome.subscriberId, browser_type: 'safari', subscription_id: DEVICE_TOKEN, endpoint: null },
    ]);
    await page.close();
  });

  it('legacy Safari denying within 500 ms failed to show its prompt: SAFARI-ERROR, the do-not-show flag, no insert', async () => {
    await resetOrigin(ios);
    const page = await pageAs(SAFARI_15);
    await page.addInitScript(installLegacySafari, { withoutPushManager: true, answer: { permission: 'denied' }, afterMs: 10 });
    const syncs = recordSyncs(page);
    await page.goto(`${ios.siteUrl}/`);

    // status and message exactly (the helper rejects with "STATUS: message", which page.evaluate prefixes)
    await expect(subscribeThroughApi(page)).rejects.toThrow(/\bError: SAFARI-ERROR: Opt In Failed To Display in Safari\.(\n|$)/);
    expect(await page.evaluate(() => localStorage.getItem('wingify_push_subscription_status'))).toBe('blocked');
    expect(Number(await page.evaluate(() => localStorage.getItem('wingify_push_do_not_show_notification_popup')))).toBeGreaterThan(
      Date.now(),
    );
    expect(syncs.filter((body) => body.get('action') === 'insert')).toEqual([]);
    await page.close();
  });

  it('with PushManager (Safari 16+), standard Web Push subscribes against the provider, even beside window.safari', async () => {
    await resetOrigin(ios);
    await browser.context.grantPermissions(['notifications'], { origin: ios.siteUrl });
    const page = await pageAs(SAFARI_17);
    await page.addInitScript(installLegacySafari, { withoutPushManager: false, answer: GRANT, afterMs: 600 });
    const syncs = recordSyncs(page);
    await page.goto(`${ios.siteUrl}/`);

    const outcome = await subscribeThroughApi(page);

    expect(outcome.result.status).toBe('SUBSCRIBED');
    expect(await page.evaluate(() => (window as unknown as { safariRequests: unknown[] }).safariRequests)).toEqual([]);
    const insert = syncs.find((body) => body.get('action') === 'insert');
    expect(insert?.get('browserType')).toBe('safari');
    const endpoint = (JSON.parse(insert?.get('subscription') ?? '{}') as { endpoint?: string }).endpoint;
    expect(endpoint).toMatch(/^https:\/\/jmt17\.google\.com\/fcm\/send\//);
    expect((await storedSubscribers(ios)).find((row) => row.id === outcome.subscriberId)).toMatchObject({
      browser_type: 'safari',
      endpoint,
    });
    await page.close();
  });
});

describe('iOS home-screen web apps', () => {
  it('the manifest of an iOS-enabled build has what installation needs', async () => {
    const manifest = (await (await fetch(`${ios.siteUrl}/manifest.json`)).json()) as Record<string, unknown>;
    expect(manifest).toMatchObject({ display: 'standalone', start_url: '/', id: '/', name: 'Calligraphy Submissions' });
    expect(manifest.icons).toEqual([
      { src: `${ios.siteUrl}/icon.png`, sizes: '192x192' },
      { src: `${ios.siteUrl}/icon.png`, sizes: '512x512' },
    ]);
    const page = await (await fetch(`${ios.siteUrl}/`)).text();
    expect(page).toContain('<link rel="manifest" href="/manifest.json">');
    expect(page).toContain(`<link rel="apple-touch-icon" href="${ios.siteUrl}/icon.png">`);
    expect(await (await fetch(`${plain.siteUrl}/`)).text()).not.toContain('apple-touch-icon');
  });

  it("Safari's tab on iOS shows the Add to Home Screen instructions on the trigger, asks nothing, and closing keeps them away", async () => {
    await resetOrigin(ios);
    const page = await pageAs(IPHONE_SAFARI);
    const syncs = recordSyncs(page);
    await page.goto(`${ios.siteUrl}/`);

    const instructions = page.locator('[data-pk="homeScreen"]');
    await expect.poll(() => instructions.isVisible()).toBe(true);
    expect(await instructions.locator('.pk-text').textContent()).toBe(DEFAULT_TEXTS.iosHomeScreen);
    expect(await page.locator('[data-pk="chicklet"]').isVisible()).toBe(false);
    expect(await page.evaluate(() => Notification.permission)).toBe('default');

    await instructions.locator('[data-pk-action="close"]').click();
    expect(await instructions.isVisible()).toBe(false);
    expect(Number(await page.evaluate(() => localStorage.getItem('wingify_push_do_not_show_notification_popup')))).toBeGreaterThan(
      Date.now(),
    );
    expect(syncs).toEqual([]);
    await page.close();
  });

  it('legacy Safari (window.safari, no PushManager) on a site without a website push id is offered nothing and asked nothing', async () => {
    await resetOrigin(plain);
    const page = await pageAs(SAFARI_15);
    await page.addInitScript(installLegacySafari, { withoutPushManager: true, answer: GRANT, afterMs: 0 });
    const syncs = recordSyncs(page);
    expect(await promptsAfterTriggers(page, plain)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { safariRequests: unknown[] }).safariRequests)).toEqual([]);
    expect(syncs).toEqual([]);
    await page.close();
  });

  it('Safari with neither PushManager nor window.safari (its push interface absent) is offered nothing: readiness failed', async () => {
    await resetOrigin(ios);
    const page = await pageAs(SAFARI_15);
    await page.addInitScript(() => {
      delete (window as unknown as Record<string, unknown>).PushManager;
    });
    expect(await promptsAfterTriggers(page, ios)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pushkit: { readiness: string } }).pushkit.readiness)).toBe('failed');
    await page.close();
  });

  it('a default build (iosHomeScreen off) shows iOS nothing and carries none of it', async () => {
    await resetOrigin(plain);
    const page = await pageAs(IPHONE_SAFARI);
    expect(await promptsAfterTriggers(page, plain)).toBe(0);
    // push.js and its chunks beside it: all a page can load
    const pushJs = async (stack: Stack) => {
      const files = (await readdir(stack.site.builtDir)).filter((file) => /^push(\.[\w.]+)?\.js$/.test(file));
      return (await Promise.all(files.map((file) => readFile(join(stack.site.builtDir, file), 'utf8')))).join('\n');
    };
    expect(await pushJs(plain)).not.toContain('homeScreen');
    expect(await pushJs(ios)).toContain('homeScreen');
    await page.close();

    // On a desktop browser the same build's prompts hold the prompt elements alone (no stray text): chicklet,
    // context box, already subscribed, blocked, subscribe failed, mobile box.
    const desktop = await browser.context.newPage();
    await desktop.goto(`${plain.siteUrl}/`);
    await desktop.locator('[data-pk="chicklet"]').waitFor({ state: 'visible' });
    expect(await desktop.evaluate(() => [...document.getElementById('pushkit-prompts')!.childNodes].map((node) => node.nodeName))).toEqual([
      'DIV',
      'DIV',
      'DIV',
      'DIV',
      'DIV',
      'DIV',
    ]);
    await desktop.close();
  });

  it('inside the installed app (standalone), a click on Yes asks permission in that gesture and subscribes', async () => {
    await resetOrigin(ios);
    await browser.context.grantPermissions(['notifications'], { origin: ios.siteUrl });
    const page = await pageAs(IPHONE_APP, () => {
      Object.defineProperty(Navigator.prototype, 'standalone', { get: () => true, configurable: true });
      // The permission reads "default" until asked (iOS asks once, in a gesture); each ask records whether the
      // page had a user activation at that moment.
      let asked = false;
      const asks: boolean[] = [];
      (window as unknown as { asks: boolean[] }).asks = asks;
      Object.defineProperty(Notification, 'permission', { get: () => (asked ? 'granted' : 'default'), configurable: true });
      const ask = Notification.requestPermission.bind(Notification);
      Notification.requestPermission = ((callback?: NotificationPermissionCallback) => {
        asked = true;
        asks.push(navigator.userActivation.isActive);
        return ask(callback);
      }) as typeof Notification.requestPermission;
    });
    const syncs = recordSyncs(page);
    await page.goto(`${ios.siteUrl}/`);
    const outcome = page.evaluate(
      () =>
        new Promise<[string, { status: string }]>((resolve, reject) => {
          const queue = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
          queue.push(['subscriptionSuccessCallback', (id: string, result: { status: string }) => resolve([id, result])]);
          queue.push(['subscriptionFailureCallback', (result: { status: string }) => reject(new Error(result.status))]);
        }),
    );

    const yes = page.locator('[data-pk-action="yes"]:visible').first();
    await yes.waitFor({ state: 'visible' });
    expect(await page.evaluate(() => (window as unknown as { asks: boolean[] }).asks)).toEqual([]);
    await yes.click();

    const [subscriberId, result] = await outcome;
    expect(result.status).toBe('SUBSCRIBED');
    expect(await page.evaluate(() => (window as unknown as { asks: boolean[] }).asks)).toEqual([true]);
    expect(syncs.find((body) => body.get('action') === 'insert')?.get('browserType')).toBe('safari');
    expect((await storedSubscribers(ios)).find((row) => row.id === subscriberId)?.endpoint).toMatch(/^https:\/\/jmt17\.google\.com\//);
    expect(await page.locator('[data-pk="homeScreen"]').isVisible()).toBe(false);
    await page.close();
  });
});
