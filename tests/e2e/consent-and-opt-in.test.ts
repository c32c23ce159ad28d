// Issue 28: consent only from the visitor's own answer, an opt-out that an unrelated click does not undo, and a
// failed subscribe that says so. The built push.js on the example site in Debian's Chromium (a real
// pushManager.subscribe() through the fake GCM check-in), the real provider and, for the plain-http site, the real
// child window on its own origin; three sites on one provider.
// - Page-click tracking consent: for every prompt that subscribes (chicklet, mobile box, branding modal, the child
//   window's) the insert's pageClickTrackingPermission (and the child window's shouldTrackData) is what the visitor
//   ticked: ticked 1, unticked 0, never asked 0.
// - An opted-out visitor whose permission is still granted: an unrelated click followed by the page's own
//   triggerOptIn() lifts nothing; a click on the element wired with pushkit.optInButton shows the prompt, and Yes
//   subscribes.
// - A subscribe that fails after Yes (the push service refuses, the provider's insert fails) shows the site's
//   texts.subscribeFailed.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStacks, type Stack } from '../support/stack.ts';

const ANDROID_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36';
const FAILED_TEXT = 'Sorry, that did not work: the notifications could not be turned on. Please try again later.';
// no automatic prompt: each test offers through the API or the opt-in button
const NO_AUTO_PROMPT = { when: 'delay', delaySeconds: 3600 };
const PLAIN_HOST = 'consent.test';

let gcm: FakeGcm;
let browser: TestBrowser;
let context: BrowserContext;
/** https (localhost) site: chicklet on a desktop, mobile box on a phone; its own subscribeFailed text. */
let native: Stack;
/** The same with the branding modal (pcBranding 1). */
let modal: Stack;
/** Plain-http site: opt-in through the child window on `childOrigin`. */
let plain: Stack;
let childOrigin: string;
/** Every sync the browser sent: the origin of the page that sent it and the form. */
const syncs: { from: string; form: URLSearchParams }[] = [];

beforeAll(async () => {
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    (
      startStacks([
        { overrides: { triggers: NO_AUTO_PROMPT, texts: { subscribeFailed: FAILED_TEXT } } },
        { overrides: { triggers: NO_AUTO_PROMPT, pcBranding: 1, isNativeOptin: 1 } },
        {
          siteHost: PLAIN_HOST,
          overrides: ({ providerPort }) => ({ triggers: NO_AUTO_PROMPT, childWindowOrigin: `http://consent.localhost:${providerPort}` }),
        },
      ]) as Promise<[Stack, Stack, Stack]>
    ).then((started) => ([native, modal, plain] = started)),
    // PLAIN_HOST is on this machine: browser.ts maps every *.test name to 127.0.0.1
    borrowChromiumWithGcm().then((started) => ({ gcm, browser } = started)),
  ]);
  childOrigin = String(plain.config.childWindowOrigin);
  context = browser.context;
  context.on('request', (request) => {
    if (!request.url().endsWith('/syncSubscriptionAction.php')) return;
    let from = 'worker';
    try {
      from = new URL(request.frame().url()).origin;
    } catch {
      // a service worker's request has no frame
    }
    syncs.push({ from, form: new URLSearchParams(request.postData() ?? '') });
  });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await Promise.all([native?.close(), modal?.close(), plain?.close()]);
});

/** A visitor new to these origins: no cookies, storage, push subscription or notification permission. */
async function newVisitor(...origins: string[]): Promise<void> {
  await context.clearCookies();
  await context.clearPermissions();
  const blank = await context.newPage();
  for (const origin of origins) {
    await blank.goto(`${origin}/favicon.ico`);
    await blank.evaluate(async () => {
      localStorage.clear();
      // a plain-http origin has no service workers (not a secure context)
      for (const registration of navigator.serviceWorker ? await navigator.serviceWorker.getRegistrations() : [])
        await (await registration.pushManager.getSubscription())?.unsubscribe();
    });
  }
  await blank.close();
}

const grant = (origin: string): Promise<void> => context.grantPermissions(['notifications'], { origin });

/**
 * A view of the site's home page that records its callbacks. The browser's own permission prompt is answered
 * "Allow" by the visitor (the grant happens when the page asks, as a visitor's click on Allow would).
 */
async function view(siteUrl: string, options: { mobile?: boolean; init?: () => void } = {}): Promise<Page> {
  const page = await context.newPage();
  if (options.mobile) await (await context.newCDPSession(page)).send('Emulation.setUserAgentOverride', { userAgent: ANDROID_UA });
  await page.exposeFunction('pkAllow', () => grant(siteUrl));
  await page.addInitScript(() => {
    const outcome: unknown[] = [];
    const host = window as unknown as { outcome: unknown[]; pushkit: unknown[]; pkAllow(): Promise<void> };
    host.outcome = outcome;
    host.pushkit = [
      ['subscriptionSuccessCallback', (id: string, result: unknown) => outcome.push(['success', id, result])],
      ['subscriptionFailureCallback', (result: unknown) => outcome.push(['failure', result])],
      ['optInShownCallback', () => outcome.push(['shown'])],
    ];
    Notification.requestPermission = () => host.pkAllow().then(() => 'granted' as NotificationPermission);
  });
  if (options.init) await page.addInitScript(options.init);
  await page.goto(`${siteUrl}/`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  return page;
}

type Api = { triggerOptIn(event?: Event): void; triggerOptOut(): void; isOptedOut(): boolean; ready: Promise<void> };
const triggerOptIn = (page: Page): Promise<void> => page.evaluate(() => (window as unknown as { pushkit: Api }).pushkit.triggerOptIn());
const optedOut = (page: Page): Promise<boolean> => page.evaluate(() => (window as unknown as { pushkit: Api }).pushkit.isOptedOut());
const outcome = (page: Page): Promise<unknown[]> => page.evaluate(() => (window as unknown as { outcome: unknown[] }).outcome);
const success = [['shown'], ['success', expect.any(String), expect.objectContaining({ status: 'SUBSCRIBED' })]];

/** The one insert sent since `from` (an index into `syncs`). */
async function insertSince(from: number): Promise<URLSearchParams> {
  await expect.poll(() => syncs.slice(from).filter((sync) => sync.form.get('action') === 'insert').length, { timeout: 15_000 }).toBe(1);
  return syncs.slice(from).find((sync) => sync.form.get('action') === 'insert')!.form;
}

async function storedPermission(stack: Stack, subscriberId: string): Promise<number | null | undefined> {
  const { rows } = await stack.db.query<{ page_click_tracking_permission: number | null }>(
    'SELECT page_click_tracking_permission FROM subscribers WHERE site_hash = $1 AND id = $2',
    [stack.config.hash, subscriberId],
  );
  return rows[0]?.page_click_tracking_permission;
}

describe('page-click tracking consent is what the visitor ticked', () => {
  it.each([
    ['chicklet', true],
    ['chicklet', false],
    ['mobile', true],
    ['mobile', false],
    ['modal', true],
    ['modal', false],
  ] as const)('the %s, box ticked: %s', async (kind, ticked) => {
    const stack = kind === 'modal' ? modal : native;
    await newVisitor(stack.siteUrl);
    const page = await view(stack.siteUrl, { mobile: kind === 'mobile' });
    await triggerOptIn(page);
    const prompt = page.locator(`[data-pk="${kind}"]`);
    await prompt.waitFor({ state: 'visible' });
    const box = prompt.locator('input[data-pk-consent]');
    expect(await box.isChecked()).toBe(false);
    if (ticked) await box.check();
    const from = syncs.length;
    await prompt.locator('[data-pk-action="yes"]').click();
    await expect.poll(() => outcome(page), { timeout: 15_000 }).toEqual(success);
    const insert = await insertSince(from);
    expect(insert.get('pageClickTrackingPermission')).toBe(ticked ? '1' : '0');
    expect(await storedPermission(stack, ((await outcome(page))[1] as [string, string])[1])).toBe(ticked ? 1 : 0);
    expect(await page.evaluate(() => localStorage.getItem('wingify_donot_track_actions'))).toBe(ticked ? '0' : '1');
    await page.close();
  });

  it('never asked (the permission was already granted, so no prompt shows): 0', async () => {
    await newVisitor(native.siteUrl);
    await grant(native.siteUrl);
    const page = await view(native.siteUrl);
    const from = syncs.length;
    await triggerOptIn(page);
    await expect
      .poll(() => outcome(page), { timeout: 15_000 })
      .toEqual([['success', expect.any(String), expect.objectContaining({ status: 'SUBSCRIBED' })]]);
    expect((await insertSince(from)).get('pageClickTrackingPermission')).toBe('0');
    await page.close();
  });

  it.each([
    ['chicklet', true],
    ['chicklet', false],
    ['mobile', true],
    ['mobile', false],
  ] as const)('plain http, the %s then the child window, box ticked: %s', async (kind, ticked) => {
    await newVisitor(plain.siteUrl, childOrigin);
    await grant(childOrigin);
    const page = await view(plain.siteUrl, { mobile: kind === 'mobile' });
    await triggerOptIn(page);
    const prompt = page.locator(`[data-pk="${kind}"]`);
    await prompt.waitFor({ state: 'visible' });
    const box = prompt.locator('input[data-pk-consent]');
    expect(await box.isChecked()).toBe(false);
    if (ticked) await box.check();
    const from = syncs.length;
    const [popup] = await Promise.all([context.waitForEvent('page'), prompt.locator('[data-pk-action="yes"]').click()]);
    expect(new URL(popup.url()).origin).toBe(childOrigin);
    expect(new URL(popup.url()).searchParams.get('shouldTrackData')).toBe(String(ticked));
    // triggerOptIn is an API call (isAPIcall): with the permission granted there, the child window subscribes at once
    await expect.poll(() => outcome(page), { timeout: 15_000 }).toEqual(success);
    const insert = await insertSince(from);
    expect(syncs.slice(from).find((sync) => sync.form.get('action') === 'insert')!.from).toBe(childOrigin);
    expect(insert.get('pageClickTrackingPermission')).toBe(ticked ? '1' : '0');
    expect(await storedPermission(plain, ((await outcome(page))[1] as [string, string])[1])).toBe(ticked ? 1 : 0);
    await page.close();
  });

  it('plain http, the child window opened by a link (never asked on the page): 0', async () => {
    await newVisitor(plain.siteUrl, childOrigin);
    await grant(childOrigin);
    const popup = await context.newPage();
    await popup.goto(`${childOrigin}/sites/${plain.config.hash}/child-window.html?action=subscribe`);
    const from = syncs.length;
    await popup.locator('#pc-allow').click();
    expect((await insertSince(from)).get('pageClickTrackingPermission')).toBe('0');
    await popup.close().catch(() => undefined);
  });
});

describe("an opt-out holds until the visitor's own click on the opt-in element", () => {
  it('an unrelated click then triggerOptIn() lifts nothing; the optInButton element shows the prompt (No keeps the opt-out), and Yes subscribes', async () => {
    await newVisitor(native.siteUrl);
    await grant(native.siteUrl);
    const first = await view(native.siteUrl);
    await triggerOptIn(first);
    await expect.poll(() => outcome(first), { timeout: 15_000 }).toHaveLength(1);
    await first.evaluate(() => (window as unknown as { pushkit: Api }).pushkit.triggerOptOut());
    await expect.poll(() => syncs.at(-1)?.form.get('action')).toBe('unsubscribe-ui');
    expect(await optedOut(first)).toBe(true);
    await first.close();

    const from = syncs.length;
    // The page's own add-to-cart button, which keeps the click it handled.
    const page = await view(native.siteUrl, {
      init: () =>
        addEventListener('DOMContentLoaded', () => {
          const button = document.createElement('button');
          button.id = 'add-to-cart';
          button.textContent = 'Add to cart';
          button.addEventListener('click', (event) => ((window as unknown as { kept: Event }).kept = event));
          document.querySelector('main')!.append(button);
        }),
    });
    await page.locator('#add-to-cart').click();
    // Within the click's transient activation: the page's call without the click, with the kept click, and a
    // script's click on the opt-in button (not trusted).
    const after = await page.evaluate(async () => {
      const api = (window as unknown as { pushkit: Api }).pushkit;
      const active = navigator.userActivation.isActive;
      api.triggerOptIn();
      api.triggerOptIn((window as unknown as { kept: Event }).kept);
      document.getElementById('subscribe-button')!.click();
      await api.ready;
      await new Promise((resolve) => setTimeout(resolve));
      const shown = [...document.querySelectorAll<HTMLElement>('#pushkit-prompts [data-pk]')].filter((prompt) => !prompt.hidden);
      return { active, optedOut: api.isOptedOut(), shown: shown.map((prompt) => prompt.dataset.pk) };
    });
    expect(after).toEqual({ active: true, optedOut: true, shown: [] });
    expect(await outcome(page)).toEqual([]);

    // The page's own keydown handler passing the key press: the prompt; No keeps the opt-out.
    await page.evaluate(() =>
      document
        .getElementById('add-to-cart')!
        .addEventListener('keydown', (event) => (window as unknown as { pushkit: Api }).pushkit.triggerOptIn(event)),
    );
    await page.locator('#add-to-cart').press('Enter');
    const chicklet = page.locator('[data-pk="chicklet"]');
    await chicklet.waitFor({ state: 'visible' });
    await chicklet.locator('[data-pk-action="no"]').click();
    expect(await optedOut(page)).toBe(true);

    // The element site.js made the opt-in button (pushkit.optInButton): the prompt, though the permission is granted.
    await page.locator('#subscribe-button').click();
    await chicklet.waitFor({ state: 'visible' });
    expect(await optedOut(page)).toBe(true);
    await chicklet.locator('[data-pk-action="yes"]').click();
    await expect.poll(() => outcome(page), { timeout: 15_000 }).toEqual([['shown'], ...success]);
    expect(await optedOut(page)).toBe(false);
    expect(syncs.slice(from).map((sync) => sync.form.get('action'))).toEqual(['insert']);
    await page.close();
  });
});

describe('a subscribe that fails after Yes says so', () => {
  it.each([
    ['the push service refuses', { status: 'CANCELLED', message: 'Could Not Subscribe.' }],
    ["the provider's insert fails", { status: 'ERROR', message: 'Could not save the subscription.' }],
  ] as const)('%s: the texts.subscribeFailed notice, closable', async (label, failure) => {
    await newVisitor(native.siteUrl);
    const refuse = label.includes('push service');
    const page = await view(native.siteUrl, {
      init: refuse
        ? () => {
            PushManager.prototype.subscribe = () =>
              Promise.reject(new DOMException('Registration failed - push service error', 'AbortError'));
          }
        : undefined,
    });
    if (!refuse) await page.route('**/syncSubscriptionAction.php', (route) => route.fulfill({ status: 500, body: 'down' }));
    await triggerOptIn(page);
    await page.locator('[data-pk="chicklet"] [data-pk-action="yes"]').click();
    const notice = page.locator('[data-pk="failed"]');
    await notice.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await notice.locator('.pk-text').textContent()).toBe(FAILED_TEXT);
    expect(await page.locator('[data-pk="chicklet"]').isVisible()).toBe(false);
    expect(await outcome(page)).toEqual([['shown'], ['failure', failure]]);
    await notice.locator('[data-pk-action="close"]').click();
    expect(await notice.isVisible()).toBe(false);
    await page.close();
  });
});
