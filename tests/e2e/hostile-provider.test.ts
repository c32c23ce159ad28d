// Issue 9: the built calligraphy push.js in Chromium when the provider is slow, never answers, or fails (5xx,
// a body that is not JSON, a failure reply, connection refused). The host page keeps working while push.js
// waits, nothing escapes to window.onerror, and the visitor's state survives to the next view, which retries
// until the provider has the subscriber.
import type { Page, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runtimeReady, startHostileHarness, type HostileHarness } from '../fixtures/e2e/hostile-site.ts';

let harness: HostileHarness;

beforeAll(async () => {
  harness = await startHostileHarness();
});
afterAll(() => harness?.close());
beforeEach(() => harness.forgetVisitor());
afterEach(async () => {
  for (const page of harness.browser.context.pages()) await page.close();
});

const SYNC = '**/syncSubscriptionAction.php';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stored = (page: Page) =>
  page.evaluate(() => ({
    subscriberId: localStorage.getItem('wingify_push_subscriber_id'),
    dbStatus: localStorage.getItem('wingify_push_db_status'),
    subscriptionId: localStorage.getItem('wingify_push_subscription_id'),
    endpoint: localStorage.getItem('wingify_push_subscription_endpoint'),
  }));

/** Asks through the API and waits for the first callback; returns a reader of the callbacks the page has received so far. */
async function optIn(page: Page): Promise<() => Promise<string[]>> {
  const key = 'push-kit hostile callbacks';
  await page.evaluate((recordKey) => {
    const received: string[] = [];
    Object.defineProperty(window, Symbol.for(recordKey), { value: received });
    const api = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
    api.push(['subscriptionSuccessCallback', (_id: string, result: { status: string }) => received.push(result.status)]);
    api.push(['subscriptionFailureCallback', (result: { status: string }) => received.push(result.status)]);
    api.push(['triggerOptIn']);
  }, key);
  // the harness grants the permission up front, so push.js subscribes without the soft prompt
  await page.waitForFunction((recordKey) => (window as unknown as Record<symbol, string[]>)[Symbol.for(recordKey)]!.length > 0, key, {
    timeout: 10_000,
  });
  return () => page.evaluate((recordKey) => (window as unknown as Record<symbol, string[]>)[Symbol.for(recordKey)]!, key);
}

describe('push.js against a slow or failing provider (Chromium)', () => {
  it('a provider that answers after 3 s: the page loads and works meanwhile, the visitor is subscribed once it answers', async () => {
    const delays: number[] = [];
    const slow = async (route: Route): Promise<void> => {
      const started = Date.now();
      await sleep(3000);
      delays.push(Date.now() - started);
      await route.continue().catch(() => undefined);
    };
    const view = await harness.open('/page.html', undefined, (page) => page.route(SYNC, slow));
    await runtimeReady(view.page);
    // the page's load has ended while no reply of the provider has come (not a time limit: a loaded machine is slow)
    const loadEnded = await view.page.evaluate(
      () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
    );
    expect(loadEnded).toBeGreaterThan(0);
    expect(delays).toEqual([]);

    const startedAt = Date.now();
    const outcome = harness.subscribe(view.page);
    await view.page.waitForRequest((request) => request.url().endsWith('/syncSubscriptionAction.php'), { timeout: 8000 });
    // While the sync waits on the provider, the page is the host's.
    await harness.expectHostUnharmed(view);
    await harness.expectHostUnharmed(view);
    expect((await outcome).result.status).toBe('SUBSCRIBED');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(3000);
    expect(delays).toHaveLength(1);
    expect(await harness.subscriberRows(view.page)).toEqual([{ id: (await stored(view.page)).subscriberId, status: 'subscribed' }]);
    await view.page.close();

    const next = await harness.open('/page.html');
    await runtimeReady(next.page);
    expect(next.syncActions).toEqual([]);
  });

  it('a provider that never answers: the page keeps working, and the next view sends the unfinished sync again', async () => {
    const first = await harness.open('/page.html');
    await runtimeReady(first.page);
    expect((await harness.subscribe(first.page)).result.status).toBe('SUBSCRIBED');
    const subscriberId = (await stored(first.page)).subscriberId;
    await first.page.evaluate(() => localStorage.setItem('wingify_push_subscriber_lang', 'xx'));
    await first.page.close();

    const hanging = await harness.open('/page.html', undefined, (page) => page.route(SYNC, () => new Promise<void>(() => undefined)));
    // the sync may leave before goto resolves (push.js is async): read the requests the view recorded from its start
    await expect.poll(() => hanging.syncActions, { timeout: 8000 }).toEqual(['http-sync']);
    await hanging.page.waitForTimeout(300);
    await harness.expectHostUnharmed(hanging);
    expect(await stored(hanging.page)).toMatchObject({ subscriberId, dbStatus: 'true' });
    await hanging.page.close();

    const next = await harness.open('/page.html');
    await runtimeReady(next.page);
    expect(next.syncActions).toEqual(['http-sync']);
    expect(await stored(next.page)).toMatchObject({ subscriberId, dbStatus: 'true' });
    await harness.expectHostUnharmed(next);
  });

  it('a failing provider (500, 503, HTML instead of JSON, a failure reply, connection refused): state kept, each next view retries with insert-failed, the last one lands', async () => {
    const failures: [string, (route: Route) => Promise<void>][] = [
      [
        '500',
        (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"status":"failure","message":"internal error"}' }),
      ],
      [
        '503',
        (route) =>
          route.fulfill({ status: 503, headers: { 'retry-after': '30' }, contentType: 'text/plain', body: 'database unavailable' }),
      ],
      ['html', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<html><body>Bad gateway</body></html>' })],
      [
        'failure reply',
        (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"status":"failure","message":"try later"}' }),
      ],
      ['refused', (route) => route.abort('connectionrefused')],
    ];
    const [, firstFailure] = failures[0]!;
    const first = await harness.open('/page.html', undefined, (page) => page.route(SYNC, firstFailure));
    await runtimeReady(first.page);
    const callbacks = await optIn(first.page);
    await first.page.waitForFunction(() => localStorage.getItem('wingify_push_db_status') === 'false', undefined, { timeout: 10_000 });
    // the failure callback hears the sync error (docs/spec-silent-cases.md, "Sync and prompts")
    expect(await callbacks()).toEqual(['ERROR']);
    expect(first.syncActions).toEqual(['insert']);
    const kept = await stored(first.page);
    expect(kept).toMatchObject({ subscriberId: null, dbStatus: 'false' });
    expect(kept.endpoint).toMatch(/^https:\/\//);
    await harness.expectHostUnharmed(first);
    expect(await harness.subscriberRows(first.page)).toEqual([]);
    await first.page.close();

    for (const [name, failure] of failures.slice(1)) {
      const view = await harness.open('/page.html', undefined, (page) => page.route(SYNC, failure));
      await runtimeReady(view.page);
      expect(view.syncActions, name).toEqual(['insert-failed']);
      expect(await stored(view.page), name).toEqual(kept);
      await harness.expectHostUnharmed(view);
      await view.page.close();
    }

    const back = await harness.open('/page.html');
    await runtimeReady(back.page);
    expect(back.syncActions).toEqual(['insert-failed']);
    const now = await stored(back.page);
    expect(now).toMatchObject({ dbStatus: 'true', subscriptionId: kept.subscriptionId, endpoint: kept.endpoint });
    expect(await harness.subscriberRows(back.page)).toEqual([{ id: now.subscriberId, status: 'subscribed' }]);
    await harness.expectHostUnharmed(back);
  });
});
