// Every state of the child window (spec section 2) in Debian's Chromium, on the provider's origin as an http
// site's visitor sees it: the texts word for word, the pictures, the steps, and a screenshot of each state in
// tests/artifacts/child-window/. One visitor, in order: subscribe, already subscribed, triggerOptOut,
// unsubscribe, opt-out, blocked; then an unsupported browser and an incognito window. A screen that says "You can
// close this window" stays open (the clock is moved a minute past the 500 ms close of a finished subscribe).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, CHROMIUM_PATH, OFFLINE_FLAGS, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';

const ARTIFACTS = join(process.cwd(), 'tests/artifacts/child-window');
const COMPANY = 'Calligraphy Submissions';
const VIEWPORT = { width: 520, height: 640 };

let stack: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;
let childUrl: string;
/** The off-the-record Chromium of the incognito cases, launched by the first of them; each case has contexts of its own. */
let incognito: Browser | undefined;
const incognitoChromium = async () =>
  (incognito ??= await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: OFFLINE_FLAGS }));

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startStack().then((started) => (stack = started)),
    borrowChromiumWithGcm({ viewport: VIEWPORT }).then((started) => ({ gcm, browser } = started)),
  ]);
  // window.close() is recorded instead, so a finished state stays on screen and the close is observable.
  await browser.context.addInitScript(() => {
    window.close = () => void (document.documentElement.dataset.closeRequested = String(performance.now()));
  });
  childUrl = `${stack.providerUrl}/sites/${stack.config.hash}/child-window.html`;
  // Time flows as usual; a test moves it on (runFor) to see past the child window's 500 ms close.
  await browser.context.clock.install();
});
afterAll(async () => {
  await incognito?.close();
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

/** Holds the page's sync calls until `release` (continue) or `fail` (abort) is called. */
async function holdSync(page: Page): Promise<{ held: Promise<void>; release(): void; fail(): void }> {
  let settle: (how: 'continue' | 'abort') => void = () => {};
  const decided = new Promise<'continue' | 'abort'>((resolve) => (settle = resolve));
  let seen: () => void = () => {};
  const held = new Promise<void>((resolve) => (seen = resolve));
  await page.route('**/syncSubscriptionAction.php*', async (route: Route) => {
    seen();
    const how = await decided;
    await (how === 'continue' ? route.continue() : route.abort('connectionrefused'));
  });
  return { held, release: () => settle('continue'), fail: () => settle('abort') };
}

const text = (page: Page): Promise<string | null> => page.locator('#pc-text').textContent();
const visible = (page: Page, selector: string): Promise<boolean> => page.locator(selector).isVisible();
const closeRequested = (page: Page): Promise<boolean> => page.evaluate(() => !!document.documentElement.dataset.closeRequested);

/** A screen that tells the visitor "You can close this window" stays: a minute later nothing asked to close it. */
async function staysOpen(page: Page): Promise<void> {
  await page.clock.runFor(60_000);
  expect(await closeRequested(page)).toBe(false);
}

async function open(query: string, page?: Page): Promise<Page> {
  const target = page ?? (await browser.context.newPage());
  await target.goto(`${childUrl}?${query}`);
  return target;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true, animations: 'disabled' });
}

async function showsText(page: Page, expected: string): Promise<void> {
  await expect.poll(() => text(page), { timeout: 10_000 }).toBe(expected);
  expect(await visible(page, '#pc-spinner')).toBe(false);
}

describe('child window states', () => {
  it('subscribe: the three steps with Allow and No, the branded footer, the title', async () => {
    const page = await open('action=subscribe');
    await page.locator('#pc-allow').waitFor({ state: 'visible' });
    expect(await page.title()).toBe(`Subscribe to notifications from ${COMPANY}`);
    expect(await page.locator('.pc-company').textContent()).toBe(COMPANY);
    expect(await page.locator('.pc-step').allTextContents()).toEqual([
      'This site wants to notify you when it gets new Calligraphy submissions.',
      'Click "Allow" below, then "Allow" in the box your browser shows.',
      "That's it: this window closes by itself.",
    ]);
    expect(await page.locator('.pc-step[aria-current="step"]').getAttribute('data-step')).toBe('1');
    expect(await page.locator('#pc-allow').textContent()).toBe('Allow');
    expect(await page.locator('#pc-no').textContent()).toBe('No');
    expect(await page.locator('.pc-footer').textContent()).toBe('Powered by push-kit');
    expect(await visible(page, '#pc-spinner')).toBe(false);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.pc-window')!).backgroundColor)).toBe('rgb(255, 255, 255)');
    await shoot(page, 'subscribe-1-steps');

    await page.locator('#pc-no').click();
    await expect.poll(() => closeRequested(page)).toBe(true);
    await page.close();
  });

  it('subscribe: Allow shows the spinner on step 3 while subscribing, then closes', async () => {
    await browser.context.grantPermissions(['notifications'], { origin: stack.providerUrl });
    const page = await browser.context.newPage();
    const sync = await holdSync(page);
    await open('action=subscribe', page);
    await page.locator('#pc-allow').click();
    await sync.held;
    expect(await visible(page, '#pc-spinner')).toBe(true);
    expect(await visible(page, '#pc-buttons')).toBe(false);
    expect(await page.locator('.pc-step[aria-current="step"]').getAttribute('data-step')).toBe('3');
    await shoot(page, 'subscribe-2-subscribing');
    sync.release();
    await expect.poll(() => closeRequested(page), { timeout: 10_000 }).toBe(true);
    expect(await visible(page, '#pc-spinner')).toBe(false);
    await shoot(page, 'subscribe-3-done');
    await page.close();
  });

  it('already subscribed', async () => {
    const page = await open('action=subscribe');
    await showsText(page, `You seem to have already been subscribed to push notifications from ${COMPANY}. You can close this window.`);
    await staysOpen(page);
    await shoot(page, 'already-subscribed');
    await page.close();
  });

  it('triggerOptOut while subscribed: the lock-icon picture', async () => {
    const page = await open('action=triggerOptOut');
    await showsText(page, `To unsubscribe from ${COMPANY}, click the lock icon next to the address bar and set Notifications to Block.`);
    expect(await visible(page, '#pc-lock')).toBe(true);
    expect(await visible(page, '#pc-unblock')).toBe(false);
    await shoot(page, 'trigger-opt-out-subscribed');
    await page.close();
  });

  it('unsubscribe: "Please wait", then "You have been unsubscribed"; a failed one says "Something went wrong while opting out"', async () => {
    // spec section 8, "Unsubscribe problem": the browser fails to remove the subscription; the window says so and
    // stays open, and nothing changed
    const failing = await browser.context.newPage();
    await failing.addInitScript(() => {
      PushSubscription.prototype.unsubscribe = () => Promise.reject(new DOMException('Unsubscription failed', 'AbortError'));
    });
    await open('action=unsubscribe', failing);
    await showsText(failing, `Unsubscribe from push notifications from ${COMPANY}?`);
    await failing.locator('#pc-allow').click();
    await showsText(failing, 'Something went wrong while opting out');
    expect(await closeRequested(failing)).toBe(false);
    await failing.close();

    const page = await browser.context.newPage();
    const sync = await holdSync(page);
    await open('action=unsubscribe', page);
    // A link alone changes nothing: the visitor confirms with a click.
    await showsText(page, `Unsubscribe from push notifications from ${COMPANY}?`);
    await page.locator('#pc-allow').click();
    await sync.held;
    expect(await text(page)).toBe(`Please wait unsubscribing you from ${COMPANY}`);
    await shoot(page, 'unsubscribe-1-wait');
    sync.release();
    await showsText(page, `You have been unsubscribed from ${COMPANY}. You can close this window.`);
    await staysOpen(page);
    await shoot(page, 'unsubscribe-2-done');
    await page.close();
  });

  it('triggerOptOut while not subscribed', async () => {
    const page = await open('action=triggerOptOut');
    await showsText(page, `You don't seem to have push notifications enabled from ${COMPANY}. You can close this window.`);
    expect(await visible(page, '#pc-lock')).toBe(false);
    await staysOpen(page);
    await shoot(page, 'trigger-opt-out-not-subscribed');
    await page.close();
  });

  it('opt-out: in progress, failed, done, already', async () => {
    const again = await open('action=subscribe&isAPIcall=true');
    await expect.poll(() => closeRequested(again), { timeout: 10_000 }).toBe(true);
    await again.close();

    const page = await browser.context.newPage();
    const sync = await holdSync(page);
    await open('pushkit_opt_out=1', page);
    await showsText(page, `Opt out of the product for ${COMPANY}?`);
    await page.locator('#pc-allow').click();
    await sync.held;
    expect(await text(page)).toBe(`You are being opted out of the product for ${COMPANY}`);
    await shoot(page, 'opt-out-1-in-progress');
    sync.fail();
    await showsText(page, 'Something went wrong while opting out');
    expect(await closeRequested(page)).toBe(false);
    await shoot(page, 'opt-out-2-failed');
    await page.close();

    await browser.context.clearCookies();
    const done = await open('pushkit_opt_out=1');
    await done.locator('#pc-allow').click();
    await showsText(done, 'You have successfully opted out of the product for this website');
    await staysOpen(done);
    await shoot(done, 'opt-out-3-done');
    await done.close();

    const already = await open('pushkit_opt_out=1');
    await already.locator('#pc-allow').click();
    await showsText(already, 'You are already opted out of the product for this website');
    await staysOpen(already);
    await shoot(already, 'opt-out-4-already');
    await already.close();
    await browser.context.clearCookies();
  });

  it('blocked: the unblock picture and the blocked text, for subscribe and unblock', async () => {
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Browser.setPermission', { permission: { name: 'notifications' }, setting: 'denied', origin: stack.providerUrl });
    for (const action of ['subscribe', 'unblock']) {
      await open(`action=${action}`, page);
      await showsText(
        page,
        `You have previously blocked or denied notifications from ${COMPANY}. To subscribe, allow notifications for this site in your browser's site settings, then try again.`,
      );
      expect(await visible(page, '#pc-unblock')).toBe(true);
      expect(await visible(page, '#pc-buttons')).toBe(false);
      const box = await page.locator('#pc-unblock svg').boundingBox();
      expect(box!.width).toBeGreaterThan(300);
      expect(box!.x + box!.width).toBeLessThanOrEqual(VIEWPORT.width);
      await shoot(page, `blocked-${action}`);
    }
    await page.close();
  });

  it('an unsupported browser (Chrome 40)', async () => {
    const page = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Emulation.setUserAgentOverride', {
      userAgent: 'Mozilla/5.0 (Windows NT 6.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/40.0.2214.85 Safari/537.36',
    });
    await open('action=subscribe', page);
    await showsText(page, 'Push notifications are not enabled for this browser. Please use Chrome 42 or above, or Firefox 44 or above.');
    await shoot(page, 'unsupported-browser');
    await page.close();
  });

  it('an incognito window: the Incognito/Private mode message, never the blocked picture', async () => {
    // A Playwright context of its own is an off-the-record (incognito) profile in Chromium: its permission prompt
    // is denied by the browser itself after a second or two, and push subscriptions are refused even when granted.
    const INCOGNITO =
      "You seem to be browsing in Incognito/Private mode. The website can't get your permission to opt-in to push notifications in the Incognito/Private mode. Please switch to normal mode and try again.";
    const asked = await (await incognitoChromium()).newContext({ viewport: VIEWPORT });
    const granted = await (await incognitoChromium()).newContext({ viewport: VIEWPORT });
    try {
      await granted.grantPermissions(['notifications'], { origin: stack.providerUrl });
      for (const context of [asked, granted]) {
        const page = await context.newPage();
        await page.goto(`${childUrl}?action=subscribe`);
        await page.locator('#pc-allow').click();
        await showsText(page, INCOGNITO);
        expect(await visible(page, '#pc-steps')).toBe(false);
        expect(await visible(page, '#pc-unblock')).toBe(false);
        if (context === granted) continue;
        await shoot(page, 'incognito');
        // the browser's denial holds for the session: the next visit says so at once, without a click
        await page.reload();
        await showsText(page, INCOGNITO);
        expect(await visible(page, '#pc-buttons')).toBe(false);
        expect(await visible(page, '#pc-unblock')).toBe(false);
      }
    } finally {
      await asked.close();
      await granted.close();
    }
  });

  it('an incognito window on an https site\'s own page: "Could Not Subscribe.", no block recorded, and never the blocked copy', async () => {
    // The calligraphy site runs on localhost (a secure context): push.js subscribes on the page itself.
    const context = await (await incognitoChromium()).newContext();
    try {
      const page = await context.newPage();
      const syncs: (string | null)[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/syncSubscriptionAction.php')) syncs.push(new URLSearchParams(request.postData() ?? '').get('action'));
      });
      await page.addInitScript(() => {
        const failures: unknown[] = [];
        (window as unknown as { failures: unknown[]; pushkit: unknown[] }).failures = failures;
        (window as unknown as { pushkit: unknown[] }).pushkit = [
          ['subscriptionFailureCallback', (result: unknown) => failures.push(result)],
        ];
      });
      await page.goto(`${stack.siteUrl}/`);
      await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
      const failures = () => page.evaluate(() => (window as unknown as { failures: unknown[] }).failures);
      const triggerOptIn = () => page.evaluate(() => (window as unknown as { pushkit: { triggerOptIn(): void } }).pushkit.triggerOptIn());
      await triggerOptIn();
      // the visitor says Yes; Chromium denies the permission by itself a second or two later
      await page.locator('[data-pk-action="yes"]:visible').first().click();
      const couldNotSubscribe = { status: 'CANCELLED', message: 'Could Not Subscribe.' };
      await expect.poll(failures, { timeout: 10_000 }).toEqual([couldNotSubscribe]);
      expect(await page.evaluate(() => localStorage.getItem('wingify_push_subscription_status'))).not.toBe('blocked');
      expect(syncs).not.toContain('block');
      // the permission reads "denied" for the rest of the session: a later triggerOptIn says the same, no blocked copy
      await triggerOptIn();
      await expect.poll(failures, { timeout: 10_000 }).toEqual([couldNotSubscribe, couldNotSubscribe]);
      expect(await page.locator('[data-pk="blocked"]').isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });
});
