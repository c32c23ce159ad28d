// Issue 17, item 6, in Debian's Chromium: two plain-http sites on one provider, each with its child window on
// an origin of its own (`childWindowOrigin`). Browser state of one site's child window (a denied permission,
// the opt-out cookie, the stored subscriber id) never shows in the other's, and each site's child window flow
// still subscribes. With the shared provider origin of before, site A's block showed on site B.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startHttpSitesStack, type HttpSite, type HttpSitesStack } from '../support/http-sites-stack.ts';

const COMPANY = 'Calligraphy Submissions';
const BLOCKED_TEXT = `You have previously blocked or denied notifications from ${COMPANY}. To subscribe, allow notifications for this site in your browser's site settings, then try again.`;

let stack: HttpSitesStack;
let gcm: FakeGcm;
let browser: TestBrowser;
let siteA: HttpSite;
let siteB: HttpSite;

beforeAll(async () => {
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startHttpSitesStack(['alpha', 'beta'], { triggers: { when: 'delay', delaySeconds: 1 } }).then((started) => (stack = started)),
    borrowChromiumWithGcm().then((started) => ({ gcm, browser } = started)),
  ]);
  [siteA, siteB] = stack.sites as [HttpSite, HttpSite];
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

/** Opens the site's page, records its opt-in outcome, and clicks Yes on the chicklet: the child window it opens. */
async function openChildWindowFrom(site: HttpSite): Promise<{ page: Page; popup: Page }> {
  const page = await browser.context.newPage();
  await page.goto(`${site.siteUrl}/`);
  await page.evaluate(() => {
    const queue = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
    const log: unknown[] = [];
    (window as unknown as { __outcome: unknown[] }).__outcome = log;
    queue.push(['subscriptionSuccessCallback', (id: string, result: unknown) => log.push(['success', id, result])]);
    queue.push(['subscriptionFailureCallback', (result: unknown) => log.push(['failure', result])]);
  });
  const chicklet = page.locator('[data-pk="chicklet"]');
  await chicklet.waitFor({ state: 'visible' });
  const [popup] = await Promise.all([browser.context.waitForEvent('page'), chicklet.locator('[data-pk-action="yes"]').click()]);
  await popup.waitForLoadState();
  expect(new URL(popup.url()).origin).toBe(site.childWindowOrigin);
  return { page, popup };
}

const outcome = (page: Page) => page.evaluate(() => (window as unknown as { __outcome: unknown[] }).__outcome);

/** document.cookie and the stored subscriber id on an origin, read from a page of the provider there. */
async function stateOn(origin: string): Promise<{ cookie: string; subscriberId: string | null }> {
  const page = await browser.context.newPage();
  await page.goto(`${origin}/health`);
  const state = await page.evaluate(() => ({ cookie: document.cookie, subscriberId: localStorage.getItem('wingify_push_subscriber_id') }));
  await page.close();
  return state;
}

describe('two http sites, each child window on its own origin', () => {
  it("a block on site A's child window origin does not show on site B, whose child window still subscribes", async () => {
    await browser.context.grantPermissions(['notifications'], { origin: siteB.childWindowOrigin });
    const setup = await browser.context.newPage();
    const cdp = await browser.context.newCDPSession(setup);
    // the override lasts as long as the CDP session: the page that holds it stays open for the whole file
    await cdp.send('Browser.setPermission', { permission: { name: 'notifications' }, setting: 'denied', origin: siteA.childWindowOrigin });

    const a = await openChildWindowFrom(siteA);
    await expect.poll(() => a.popup.locator('#pc-text').textContent()).toBe(BLOCKED_TEXT);
    await expect.poll(() => outcome(a.page)).toEqual([['failure', { status: 'BLOCKED', message: 'User has blocked push notifications.' }]]);

    const b = await openChildWindowFrom(siteB);
    await expect.poll(() => b.popup.locator('#pc-allow').isVisible()).toBe(true);
    const closed = b.popup.waitForEvent('close', { timeout: 15_000 });
    await b.popup.locator('#pc-allow').click();
    await closed;
    await expect
      .poll(() => outcome(b.page))
      .toEqual([['success', expect.any(String), { status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' }]]);
    const [[, subscriberId]] = (await outcome(b.page)) as [[string, string]];
    const { rows } = await stack.provider.db.query<{ site_hash: string; id: string }>('SELECT site_hash, id FROM subscribers');
    expect(rows).toEqual([{ site_hash: siteB.hash, id: subscriberId }]);

    // B's subscriber id lives on B's child window origin only
    expect((await stateOn(siteB.childWindowOrigin)).subscriberId).toBe(subscriberId);
    expect((await stateOn(siteA.childWindowOrigin)).subscriberId).toBeNull();
    await Promise.all([a.page.close(), a.popup.close()]);
    await b.page.close();
  });

  it("an opt-out in site A's child window leaves site B's visitor opted in", async () => {
    const optOut = await browser.context.newPage();
    await optOut.goto(`${siteA.childWindowOrigin}/sites/${siteA.hash}/child-window.html?pushkit_opt_out=1`);
    // the child window opts out only on the visitor's click (SECURITY.md, proof of the subscriber's browser)
    await optOut.locator('#pc-allow').click();
    await expect
      .poll(() => optOut.locator('#pc-text').textContent())
      .toBe('You have successfully opted out of the product for this website');
    await optOut.close();
    expect((await stateOn(siteA.childWindowOrigin)).cookie).toContain('pushkit_opt_out=1');
    expect((await stateOn(siteB.childWindowOrigin)).cookie).not.toContain('pushkit_opt_out');

    // B's child window, opened again by its site, still finds its visitor subscribed (not opted out)
    const page = await browser.context.newPage();
    await page.goto(`${siteB.siteUrl}/`);
    const [popup] = await Promise.all([
      browser.context.waitForEvent('page'),
      page.evaluate(
        (href) => void window.open(href, 'pushkit'),
        `${siteB.childWindowOrigin}/sites/${siteB.hash}/child-window.html?action=subscribe`,
      ),
    ]);
    await expect
      .poll(() => popup.locator('#pc-text').textContent())
      .toBe(`You seem to have already been subscribed to push notifications from ${COMPANY}. You can close this window.`);
    await page.close();
  });
});
