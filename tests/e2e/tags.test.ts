// Issue 4's custom tags in Chromium: `tag(key, value)` calls are batched and sent 50 ms after the last one
// (one /tags request for several calls), and a batch still waiting when the visitor leaves the page goes out
// with navigator.sendBeacon on page hide. The built push.js on the example site, a real subscription (fake
// GCM check-in) and the real provider, whose stored tags the tests read. Page clocks are Playwright's fake
// clock, so the 50 ms are measured exactly rather than raced.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagsOf } from '../../server/subscribers/subscriber-records.ts';
import { borrowChromium, type TestBrowser } from '../support/browser.ts';
import { sharedFakeGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';

let stack: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;
let subscriberId = '';

interface TagRequest {
  method: string;
  tags: Record<string, string>;
  subscriberId: string | null;
}
/** The /tags requests Playwright reports, in order (a beacon sent while a page unloads is not among them). */
const tagRequests: TagRequest[] = [];

beforeAll(async () => {
  gcm = await sharedFakeGcm();
  [stack, browser] = await Promise.all([
    startStack({ overrides: { segmentations: [], isShopifyConnectedAccount: false, pageClickTrackingConcent: false } }),
    borrowChromium(gcm.chromiumArgs),
  ]);
  await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
  browser.context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== stack.providerUrl || url.pathname !== '/tags') return;
    tagRequests.push({
      method: request.method(),
      tags: JSON.parse(url.searchParams.get('tags') ?? '{}') as Record<string, string>,
      subscriberId: url.searchParams.get('subscriberId'),
    });
  });
  const page = await browser.context.newPage();
  await page.goto(`${stack.siteUrl}/`);
  subscriberId = (await subscribeThroughApi(page)).subscriberId;
  await page.close();
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

/** A page view of the subscriber with the page's clock paused once push.js is ready. */
async function pausedView(path: string, initScript?: () => void): Promise<Page> {
  const page = await browser.context.newPage();
  if (initScript) await page.addInitScript(initScript);
  await page.clock.install();
  await page.goto(`${stack.siteUrl}${path}`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  await page.clock.pauseAt(Date.now() + 60_000);
  return page;
}

const tag = (page: Page, key: string, value: string) =>
  page.evaluate(
    ([k, v]) => (window as unknown as { pushkit: { tag(key: string, value: string): void } }).pushkit.tag(k!, v!),
    [key, value],
  );

describe('tags', () => {
  it('several tag() calls less than 50 ms apart make one request, sent 50 ms after the last; the provider stores every tag', async () => {
    const page = await pausedView('/');
    tagRequests.length = 0;
    await tag(page, 'plan', 'gold');
    await page.clock.runFor(30);
    await tag(page, 'nib', 'oblique');
    await tag(page, 'ink', 'iron gall');
    await page.clock.runFor(40);
    await tag(page, 'plan', 'platinum');
    await page.clock.runFor(49);
    await page.waitForTimeout(300);
    expect(tagRequests).toEqual([]);

    await page.clock.runFor(1);
    await expect.poll(() => tagRequests.length).toBe(1);
    expect(tagRequests[0]).toEqual({ method: 'GET', subscriberId, tags: { plan: 'platinum', nib: 'oblique', ink: 'iron gall' } });
    await expect.poll(() => tagsOf(stack.db, subscriberId)).toEqual({ ink: 'iron gall', nib: 'oblique', plan: 'platinum' });

    await page.clock.runFor(100);
    await tag(page, 'nib', 'pointed');
    await page.clock.runFor(50);
    await expect.poll(() => tagRequests.length).toBe(2);
    expect(tagRequests[1]!.tags).toEqual({ nib: 'pointed' });
    await page.waitForTimeout(300);
    expect(tagRequests).toHaveLength(2);
    await page.close();
  });

  it('a tag set right before leaving the page is sent with sendBeacon on page hide, and the provider stores it', async () => {
    const page = await pausedView('/', () => {
      // A spy that keeps the URLs in sessionStorage (it survives the navigation) and still sends the beacon.
      const send = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        sessionStorage.setItem(
          'beacons',
          JSON.stringify([...(JSON.parse(sessionStorage.getItem('beacons') ?? '[]') as string[]), String(url)]),
        );
        return send(url, data);
      };
    });
    tagRequests.length = 0;
    await tag(page, 'last-page', 'home');
    await tag(page, 'ink', 'sumi');
    // The page's clock is paused: the 50 ms debounce never ends, only the page hide can send the batch.
    await page.goto(`${stack.siteUrl}/submissions.html`);
    const beacons = (JSON.parse((await page.evaluate(() => sessionStorage.getItem('beacons'))) ?? '[]') as string[]).map(
      (url) => new URL(url),
    );
    expect(beacons.map((url) => url.origin + url.pathname)).toEqual([`${stack.providerUrl}/tags`]);
    expect(beacons[0]!.searchParams.get('subscriberId')).toBe(subscriberId);
    expect(JSON.parse(beacons[0]!.searchParams.get('tags')!)).toEqual({ 'last-page': 'home', ink: 'sumi' });
    await expect.poll(() => tagsOf(stack.db, subscriberId)).toMatchObject({ 'last-page': 'home', ink: 'sumi' });
    // The debounce timer never sent it: no GET went out before the page left.
    expect(tagRequests.filter((request) => request.method === 'GET')).toEqual([]);
    await page.close();
  });

  it('tags are kept in the browser for segment conditions, and a visitor without a subscriber id sends none', async () => {
    const page = await pausedView('/');
    expect(JSON.parse((await page.evaluate(() => localStorage.getItem('pushkit_tags')))!)).toMatchObject({
      plan: 'platinum',
      nib: 'pointed',
      'last-page': 'home',
    });
    await page.evaluate(() => localStorage.removeItem('wingify_push_subscriber_id'));
    tagRequests.length = 0;
    await tag(page, 'anonymous', 'yes');
    await page.clock.runFor(100);
    await page.waitForTimeout(300);
    expect(tagRequests).toEqual([]);
    await page.close();
  });
});
