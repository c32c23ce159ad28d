// Issue 18: section 8's transport failures through the built push.js in Debian's Chromium (a real
// pushManager.subscribe() with the fake GCM check-in) against the real provider: a page with neither fetch nor
// XMLHttpRequest ("No Transport exists") and a sync reply that does not call the JSONP callback are sync
// errors: the failure callback hears ERROR, the db status is false, the ids are kept, and the next view
// (with a working transport) sends insert-failed, which the provider stores.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stack } from '../support/stack.ts';
import { startVisitorBrowser, type VisitorBrowser } from '../support/visitor-browser.ts';

let visitor: VisitorBrowser;
let stack: Stack;
let context: BrowserContext;

beforeAll(async () => {
  visitor = await startVisitorBrowser({ grant: true });
  ({ stack, context } = visitor);
});
afterAll(async () => {
  await visitor?.close();
});

/** A new visitor: no cookies, no stored state, no push subscription. */
async function newVisitor(): Promise<void> {
  await context.clearCookies();
  const blank = await context.newPage();
  await blank.goto(`${stack.siteUrl}/favicon.ico`);
  await blank.evaluate(async () => {
    localStorage.clear();
    const registration = await navigator.serviceWorker.getRegistration('/');
    await (await registration?.pushManager.getSubscription())?.unsubscribe();
  });
  await blank.close();
}

/** Opens the site with callbacks queued, asks to subscribe, and resolves what the callbacks heard. */
async function subscribeOn(page: Page): Promise<unknown[]> {
  await page.addInitScript(() => {
    const heard: unknown[] = [];
    (window as unknown as { heard: unknown[] }).heard = heard;
    (window as unknown as { pushkit: unknown[] }).pushkit = [
      ['subscriptionSuccessCallback', (id: string, result: { status: string }) => heard.push(['success', result.status])],
      ['subscriptionFailureCallback', (result: { status: string }) => heard.push(['failure', result.status])],
    ];
  });
  await page.goto(`${stack.siteUrl}/`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { triggerOptIn(): void } }).pushkit.triggerOptIn());
  await page.waitForFunction(() => (window as unknown as { heard: unknown[] }).heard.length > 0, undefined, { timeout: 20_000 });
  return page.evaluate(() => (window as unknown as { heard: unknown[] }).heard);
}

const stored = (page: Page, key: string) => page.evaluate((key) => localStorage.getItem(key), key);

/** What push.js logs at debug level (the errors it swallows rather than throw into the page). */
function debugLog(page: Page): string[] {
  const lines: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'debug') lines.push(message.text());
  });
  return lines;
}

/** The next view, with a working transport: what it sends to the sync endpoint. */
async function nextViewSync(): Promise<string | null> {
  const page = await context.newPage();
  const sync = page.waitForRequest((request) => request.url().endsWith('/syncSubscriptionAction.php'), { timeout: 10_000 });
  await page.goto(`${stack.siteUrl}/`);
  const action = new URLSearchParams((await sync).postData() ?? '').get('action');
  await page.waitForResponse((response) => response.url().endsWith('/syncSubscriptionAction.php'));
  await page.close();
  return action;
}

describe('transport failures of section 8, through the built push.js', () => {
  it('no fetch and no XMLHttpRequest ("No Transport exists"): a sync error, nothing reaches the provider, the next view sends insert-failed', async () => {
    await newVisitor();
    const page = await context.newPage();
    const toProvider: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(stack.providerUrl)) toProvider.push(request.url());
    });
    await page.addInitScript(() => {
      delete (window as Partial<typeof window>).fetch;
      delete (window as Partial<typeof window>).XMLHttpRequest;
    });
    const logged = debugLog(page);
    expect(await subscribeOn(page)).toEqual([['failure', 'ERROR']]);
    expect(logged.join('\n')).toContain('No Transport exists');
    expect(toProvider).toEqual([]);
    expect(await stored(page, 'wingify_push_db_status')).toBe('false');
    expect(await stored(page, 'wingify_push_subscription_endpoint')).toMatch(/^https:\/\//);
    await page.close();
    expect(await nextViewSync()).toBe('insert-failed');
  });

  it('a sync reply that does not call the JSONP callback is a sync error; the next view sends insert-failed', async () => {
    await newVisitor();
    const page = await context.newPage();
    await page.route('**/syncSubscriptionAction.php', (route) =>
      route.fulfill({ contentType: 'application/json', body: JSON.stringify({ status: 'success', subscriberId: 'forged-1' }) }),
    );
    const logged = debugLog(page);
    expect(await subscribeOn(page)).toEqual([['failure', 'ERROR']]);
    expect(logged.join('\n')).toContain('jsonp callback was not called');
    expect(await stored(page, 'wingify_push_db_status')).toBe('false');
    expect(await stored(page, 'wingify_push_subscriber_id')).not.toBe('forged-1');
    await page.close();
    expect(await nextViewSync()).toBe('insert-failed');
    const { rows } = await stack.db.query<{ count: string }>(`SELECT count(*) AS count FROM subscribers WHERE status = 'subscribed'`);
    expect(Number(rows[0]!.count)).toBeGreaterThanOrEqual(1);
  });
});
