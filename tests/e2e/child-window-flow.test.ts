// The child-window flow of an http site (spec sections 2 and 7), end to end in Debian's Chromium: the example
// site on a plain-http origin (calligraphy.test, mapped to 127.0.0.1, so not a secure context: no service
// worker there) opens the provider's child window on another origin (localhost); the visitor subscribes in
// it with a real pushManager.subscribe() (fake GCM check-in), the provider stores the subscriber, and the
// opener takes the section 7 message. Messages from any other origin are ignored by the opener, and the
// child posts only to the site's configured origin. One visitor, in order.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';

const SITE_HOST = 'calligraphy.test';
const EVIL_HOST = 'evil.test';

let stack: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;
let childWindowUrl: URL;
/** The child window the site opened, answered by the second test. */
let popup: Page;

interface Received {
  origin: string;
  data: Record<string, unknown>;
}

/** Every message a page receives, recorded before any page script runs. */
const RECORD_MESSAGES = `window.__received = []; addEventListener('message', (event) => window.__received.push({ origin: event.origin, data: event.data }));`;
const received = (page: Page): Promise<Received[]> => page.evaluate(() => (window as unknown as { __received: Received[] }).__received);

beforeAll(async () => {
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startStack({ siteHost: SITE_HOST, overrides: { triggers: { when: 'delay', delaySeconds: 1 } } }).then((started) => (stack = started)),
    // SITE_HOST and EVIL_HOST are on this machine: browser.ts maps every *.test name to 127.0.0.1
    borrowChromiumWithGcm().then((started) => ({ gcm, browser } = started)),
  ]);
  await browser.context.addInitScript(RECORD_MESSAGES);
  childWindowUrl = new URL(`${stack.providerUrl}/sites/${stack.config.hash}/child-window.html`);
  // The permission belongs to the child window's origin: the provider's.
  await browser.context.grantPermissions(['notifications'], { origin: stack.providerUrl });
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

describe('child window of an http site', () => {
  let page: Page;
  const pageErrors: string[] = [];

  it('the site is plain http: no service worker, so push.js offers the chicklet and Yes opens the child window', async () => {
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${stack.siteUrl}/`);
    expect(await page.evaluate(() => ({ secure: isSecureContext, worker: 'serviceWorker' in navigator }))).toEqual({
      secure: false,
      worker: false,
    });
    await page.evaluate(() => {
      const queue = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
      const log: unknown[] = [];
      (window as unknown as { __outcome: unknown[] }).__outcome = log;
      queue.push(['subscriptionSuccessCallback', (id: string, result: unknown) => log.push(['success', id, result])]);
      queue.push(['subscriptionFailureCallback', (result: unknown) => log.push(['failure', result])]);
    });
    const chicklet = page.locator('[data-pk="chicklet"]');
    await chicklet.waitFor({ state: 'visible' });
    [popup] = await Promise.all([browser.context.waitForEvent('page'), chicklet.locator('[data-pk-action="yes"]').click()]);
    await popup.waitForLoadState();
    const opened = new URL(popup.url());
    expect(opened.origin + opened.pathname).toBe(childWindowUrl.href);
    expect(opened.searchParams.get('action')).toBe('subscribe');
    expect(opened.searchParams.get('uuid')).toMatch(/^[\w-]{8,}$/);
    expect(await popup.title()).toBe('Subscribe to notifications from Calligraphy Submissions');
    await expect.poll(() => popup.locator('#pc-allow').isVisible()).toBe(true);
    expect(await popup.locator('#pc-allow').textContent()).toBe('Allow');
    expect(await popup.locator('#pc-no').textContent()).toBe('No');

    // Before the visitor answers, a page on another origin that holds a reference to the opener forges the
    // child window's success message: the opener must ignore it.
    const [evil] = await Promise.all([
      browser.context.waitForEvent('page'),
      page.evaluate((url) => void window.open(url, 'evil'), `http://${EVIL_HOST}:${new URL(stack.siteUrl).port}/submissions.html`),
    ]);
    await evil.waitForLoadState();
    await evil.evaluate(() =>
      window.opener.postMessage({ subscribedToWebPush: true, wingify_push_subscriber_id: 'forged-subscriber-1', is_new_user: true }, '*'),
    );
    await expect
      .poll(async () => (await received(page)).some((message) => message.data.wingify_push_subscriber_id === 'forged-subscriber-1'))
      .toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __outcome: unknown[] }).__outcome)).toEqual([]);
    expect(await page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id'))).toBeNull();
    await evil.close();
  });

  it('Allow subscribes in the child window, the provider stores the subscriber and the opener gets the section 7 message', async () => {
    const closed = popup.waitForEvent('close', { timeout: 15_000 });
    await popup.locator('#pc-allow').click();
    await closed;

    await expect.poll(() => page.evaluate(() => (window as unknown as { __outcome: unknown[] }).__outcome.length)).toBe(1);
    const outcome = (await page.evaluate(() => (window as unknown as { __outcome: unknown[][] }).__outcome)) as [string, string, unknown][];
    const [kind, subscriberId, result] = outcome[0]!;
    expect(kind).toBe('success');
    expect(result).toEqual({ status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' });

    const fromChild = (await received(page)).filter((message) => message.origin === new URL(stack.providerUrl).origin);
    expect(fromChild).toHaveLength(1);
    const uuid = await page.evaluate(() => /(?:^|; )_wingify_pc_uuid=([^;]+)/.exec(document.cookie)?.[1]);
    expect(fromChild[0]!.data).toEqual({
      wingify_push_subscriber_id: subscriberId,
      pushkit_subscriber_secret: expect.stringMatching(/^[\w-]{43}$/),
      wingify_push_subscription_id: expect.stringMatching(/^[\w:-]+$/),
      wingify_push_subscription_status: 'subscribed',
      wingify_donot_track_actions: expect.stringMatching(/^[01]?$/),
      _wingify_pc_uuid: uuid,
      is_new_user: true,
      subscribedToWebPush: true,
      is_blocked_user: false,
      safariOptInFailed: false,
      pushkit_opt_out: false,
    });

    const { rows } = await stack.db.query<{ id: string; status: string; endpoint: string }>(
      'SELECT id, status, endpoint FROM subscribers WHERE site_hash = $1',
      [stack.config.hash],
    );
    expect(rows).toEqual([
      { id: subscriberId, status: 'subscribed', endpoint: expect.stringMatching(/^https:\/\/jmt17\.google\.com\/fcm\/send\//) },
    ]);
    // The opener keeps the secret the child window handed over, beside the subscriber id.
    expect(await page.evaluate(() => localStorage.getItem('pushkit_subscriber_secret'))).toBe(
      (fromChild[0]!.data as Record<string, unknown>).pushkit_subscriber_secret,
    );
    expect(
      await page.evaluate(() => [
        localStorage.getItem('wingify_push_subscriber_id'),
        localStorage.getItem('wingify_push_subscription_status'),
      ]),
    ).toEqual([subscriberId, 'subscribed']);

    // The subscription's worker lives on the provider's origin, beside the child window, scoped to its folder.
    const provider = await browser.context.newPage();
    await provider.goto(`${stack.providerUrl}/health`);
    const scope = `${stack.providerUrl}/sites/${stack.config.hash}/`;
    expect(
      await provider.evaluate(async (scopeUrl) => {
        const registration = await navigator.serviceWorker.getRegistration(scopeUrl);
        const subscription = await registration?.pushManager.getSubscription();
        return { scope: registration?.scope, script: registration?.active?.scriptURL, subscribed: !!subscription };
      }, scope),
    ).toEqual({ scope, script: `${scope}sw.js`, subscribed: true });
    await provider.close();
    expect(pageErrors).toEqual([]);
  });

  it("the child window posts only to the site's configured origin: an opener on another origin gets nothing", async () => {
    const evil = await browser.context.newPage();
    await evil.goto(`http://${EVIL_HOST}:${new URL(stack.siteUrl).port}/submissions.html`);
    const url = new URL(childWindowUrl);
    url.searchParams.set('uuid', (await page.evaluate(() => /(?:^|; )_wingify_pc_uuid=([^;]+)/.exec(document.cookie)?.[1]))!);
    url.searchParams.set('action', 'subscribe');
    const [child] = await Promise.all([
      browser.context.waitForEvent('page'),
      evil.evaluate((href) => void window.open(href, 'child'), url.href),
    ]);
    // Already subscribed: the child window says so and posts its message (to the site's origin).
    await expect
      .poll(() => child.locator('#pc-text').textContent())
      .toBe('You seem to have already been subscribed to push notifications from Calligraphy Submissions. You can close this window.');
    await child.close();
    await evil.waitForTimeout(300);
    expect((await received(evil)).filter((message) => message.origin === new URL(stack.providerUrl).origin)).toEqual([]);

    // The same page opened by the site itself does receive it: the drop above is the target origin at work.
    const [again] = await Promise.all([
      browser.context.waitForEvent('page'),
      page.evaluate((href) => void window.open(href, 'child'), url.href),
    ]);
    await expect
      .poll(async () => (await received(page)).filter((message) => message.origin === new URL(stack.providerUrl).origin).length)
      .toBe(2);
    await again.close();
    await evil.close();
  });

  it('the child window loads its stylesheet from /http-v4/css/pc-iframe.css; "You can close this window" stays, No closes 500 ms after', async () => {
    // Playwright's clock, paused: the close timer runs only as far as the test moves it.
    await browser.context.clock.install();
    await page.clock.pauseAt(Date.now() + 3_600_000);
    const url = new URL(childWindowUrl);
    url.searchParams.set('uuid', (await page.evaluate(() => /(?:^|; )_wingify_pc_uuid=([^;]+)/.exec(document.cookie)?.[1]))!);
    url.searchParams.set('action', 'subscribe');
    const before = (await received(page)).length;
    const [child] = await Promise.all([
      browser.context.waitForEvent('page'),
      page.evaluate((href) => void window.open(href, 'child'), url.href),
    ]);
    let closed = false;
    child.on('close', () => (closed = true));
    await child.waitForLoadState();
    expect(
      await child.evaluate(() => [...document.styleSheets].map((sheet) => ({ href: sheet.href, rules: sheet.cssRules.length > 0 }))),
    ).toEqual([{ href: `${stack.providerUrl}/http-v4/css/pc-iframe.css`, rules: true }]);
    // already subscribed: the message reaches the opener; the text tells the visitor to close the window, so it stays
    await expect.poll(async () => (await received(page)).length).toBe(before + 1);
    await page.clock.runFor(60_000);
    expect(closed).toBe(false);
    expect(await child.locator('#pc-text').textContent()).toContain('You can close this window.');
    await child.close();

    // a screen with nothing to read (No, on the unsubscribe question) closes 500 ms after
    url.searchParams.set('action', 'unsubscribe');
    const [question] = await Promise.all([
      browser.context.waitForEvent('page'),
      page.evaluate((href) => void window.open(href, 'child'), url.href),
    ]);
    closed = false;
    question.on('close', () => (closed = true));
    await question.locator('#pc-no').click();
    await expect.poll(async () => (await received(page)).length).toBe(before + 2);
    await page.clock.runFor(499);
    await page.waitForTimeout(200);
    expect(closed).toBe(false);
    const closing = question.waitForEvent('close');
    await page.clock.runFor(1);
    await closing;
  });
});
