// Issue 9: the built calligraphy push.js on hostile or broken host pages, in Debian's Chromium with a real
// pushManager.subscribe() (fake GCM) against the real provider. In every case the host page's own button
// keeps working, no error reaches window.onerror or unhandledrejection, push.js adds no global but `pushkit`,
// and where the browser lets anything be stored the visitor's state is there for the next view.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runtimeReady, startHostileHarness, verdict, type HostileHarness, type View } from '../fixtures/e2e/hostile-site.ts';

let harness: HostileHarness;
let open: HostileHarness['open'];
let subscribe: HostileHarness['subscribe'];
let expectHostUnharmed: HostileHarness['expectHostUnharmed'];
let subscriberRows: HostileHarness['subscriberRows'];

beforeAll(async () => {
  harness = await startHostileHarness();
  ({ open, subscribe, expectHostUnharmed, subscriberRows } = harness);
});
afterAll(() => harness?.close());
beforeEach(() => harness.forgetVisitor());
afterEach(async () => {
  for (const page of harness.browser.context.pages()) await page.close();
});

/**
 * The harness grants the permission up front, and a visitor who granted it is subscribed without the soft
 * prompt; a test about the prompt itself runs with the permission not yet given, and gives it in `body`'s end.
 */
async function withPermissionUnasked<T>(body: () => Promise<T>): Promise<T> {
  await harness.browser.context.clearPermissions();
  try {
    return await body();
  } finally {
    await harness.browser.context.grantPermissions(['notifications'], { origin: harness.site.url });
  }
}

const storedSubscriberId = (page: Page) => page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id'));

describe('push.js on hostile host pages (Chromium)', () => {
  it('the test instrument itself sees an escaped error, an unhandled rejection and a new global', async () => {
    const view = await open('/page.html', () => {
      setTimeout(() => {
        (window as unknown as { leaked: number }).leaked = 1;
        void Promise.reject(new Error('rejected on purpose'));
        throw new Error('thrown on purpose');
      }, 0);
    });
    await runtimeReady(view.page);
    await view.page.waitForTimeout(50);
    const found = await verdict(view.page);
    expect(found.errors).toEqual(['error: Uncaught Error: thrown on purpose', 'unhandledrejection: Error: rejected on purpose']);
    expect(found.addedGlobals.sort()).toEqual(['leaked', 'pushkit']);
  });

  it('a plain host page: push.js adds only `pushkit`, the page keeps working, a visitor subscribes', async () => {
    const view = await open('/page.html');
    await runtimeReady(view.page);
    const outcome = await subscribe(view.page);
    expect(outcome.result.status).toBe('SUBSCRIBED');
    expect(view.syncActions).toEqual(['insert']);
    await expectHostUnharmed(view);
  });

  it('cookies that throw on read and write: the visitor still subscribes and the next view finds the stored subscriber', async () => {
    const blockCookies = (): void => {
      Object.defineProperty(Document.prototype, 'cookie', {
        configurable: true,
        get() {
          throw new DOMException('The operation is insecure.', 'SecurityError');
        },
        set() {
          throw new DOMException('The operation is insecure.', 'SecurityError');
        },
      });
    };
    const first = await open('/page.html', blockCookies);
    await runtimeReady(first.page);
    const outcome = await subscribe(first.page);
    expect(outcome.result.status).toBe('SUBSCRIBED');
    expect(await first.page.evaluate(() => (window as unknown as { pushkit: { isOptedOut(): boolean } }).pushkit.isOptedOut())).toBe(false);
    await expectHostUnharmed(first);

    const next = await open('/page.html', blockCookies);
    await runtimeReady(next.page);
    expect(next.syncActions).toEqual([]);
    expect(
      await next.page.evaluate(() => (window as unknown as { pushkit: { getSubscriberId(): string } }).pushkit.getSubscriberId()),
    ).toBe(outcome.subscriberId);
    await expectHostUnharmed(next);
  });

  it('localStorage and sessionStorage full (QuotaExceededError on every write): subscribing works and the next view finds the same subscriber on the provider', async () => {
    const fullStorage = (): void => {
      Storage.prototype.setItem = function () {
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      };
    };
    const first = await open('/page.html', fullStorage);
    await runtimeReady(first.page);
    const outcome = await subscribe(first.page);
    expect(outcome.result.status).toBe('SUBSCRIBED');
    expect(first.syncActions).toEqual(['insert']);
    await expectHostUnharmed(first);
    const [row] = await subscriberRows(first.page);

    // Nothing could be stored, so the next view syncs again; the provider matches the endpoint, no duplicate.
    const next = await open('/page.html', fullStorage);
    await runtimeReady(next.page);
    expect(next.syncActions).toEqual(['update']);
    expect(await subscriberRows(next.page)).toEqual([row]);
    await expectHostUnharmed(next);
  });

  it('IndexedDB that cannot be opened (as in Safari private windows) and an origin with no storage quota: subscribing works, state kept', async () => {
    const cdp = await harness.browser.context.newCDPSession(await harness.browser.context.newPage());
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: harness.site.url, quotaSize: 0 });
    const noIndexedDb = (): void => {
      IDBFactory.prototype.open = function () {
        throw new DOMException('A mutation operation was attempted on a database that did not allow mutations.', 'InvalidStateError');
      };
    };
    const first = await open('/page.html', noIndexedDb);
    await runtimeReady(first.page);
    const outcome = await subscribe(first.page);
    expect(outcome.result.status).toBe('SUBSCRIBED');
    await expectHostUnharmed(first);

    const next = await open('/page.html', noIndexedDb);
    await runtimeReady(next.page);
    expect(next.syncActions).toEqual([]);
    expect(await storedSubscriberId(next.page)).toBe(outcome.subscriberId);
    await expectHostUnharmed(next);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: harness.site.url });
  });

  it('no service worker support, or no Push API: push.js stays quiet, the API answers, nothing is offered', async () => {
    const variants: (() => void)[] = [
      () => void delete (Navigator.prototype as unknown as { serviceWorker?: unknown }).serviceWorker,
      () => void delete (window as unknown as { PushManager?: unknown }).PushManager,
      () => void delete (window as unknown as { Notification?: unknown }).Notification,
    ];
    for (const variant of variants) {
      const view = await open('/page.html', variant);
      await runtimeReady(view.page);
      const answers = await view.page.evaluate(() => {
        const api = (window as unknown as { pushkit: { getSubscriberId(): unknown; isOptedOut(): boolean; push(call: unknown[]): void } })
          .pushkit;
        api.push(['triggerOptIn']);
        api.push(['tag', 'colour', 'red']);
        api.push(['setTrackingConsent', true]);
        return { subscriberId: api.getSubscriberId() ?? null, optedOut: api.isOptedOut() };
      });
      await view.page.waitForTimeout(100);
      expect(answers).toEqual({ subscriberId: null, optedOut: false });
      expect(await view.page.locator('[data-pk]:visible').count()).toBe(0);
      expect(view.syncActions).toEqual([]);
      await expectHostUnharmed(view);
      await view.page.close();
    }
  });

  it('a page whose own unrelated `window.pushkit` object exists: push.js leaves it alone and does nothing', async () => {
    const view = await open('/predefined-object.html');
    await view.page.waitForLoadState('load');
    await view.page.waitForTimeout(100);
    const host = await view.page.evaluate(() => {
      const own = (window as unknown as { pushkit: { name: string; calls: unknown[]; push(call: unknown): number } }).pushkit;
      return { name: own.name, keys: Object.keys(own), pushed: own.push(['still mine']) };
    });
    expect(host).toEqual({ name: 'host analytics', keys: ['name', 'calls', 'push'], pushed: 1 });
    expect(await view.page.locator('#pushkit-prompts').count()).toBe(0);
    expect(view.syncActions).toEqual([]);
    await expectHostUnharmed(view);
  });

  it('a page with its own queue stub holding good and garbage calls: the good ones run, the garbage is ignored', async () => {
    const view = await withPermissionUnasked(async () => {
      const unasked = await open('/predefined-queue.html');
      await runtimeReady(unasked.page);
      await unasked.page.evaluate(() => (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit.push(['triggerOptIn']));
      await unasked.page.locator('[data-pk="chicklet"]').waitFor({ state: 'visible' });
      return unasked;
    });
    expect(await view.page.getAttribute('html', 'data-shown')).toBe('yes');
    expect(await view.page.evaluate(() => JSON.parse(localStorage.getItem('pushkit_tags') ?? '{}') as unknown)).toEqual({ colour: 'blue' });
    await expectHostUnharmed(view);
  });

  it('a page that overrides fetch, XMLHttpRequest, JSON.stringify and Array.prototype: a broken fetch fails quietly and keeps state; a wrapped one subscribes', async () => {
    const brokenFetch = (): void => {
      window.fetch = () => {
        throw new TypeError('fetch is disabled on this page');
      };
    };
    const broken = await open('/page.html', brokenFetch);
    await runtimeReady(broken.page);
    const outcome = broken.page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const api = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
          api.push(['subscriptionSuccessCallback', () => resolve('success')]);
          api.push(['subscriptionFailureCallback', () => resolve('failure')]);
          api.push(['triggerOptIn']);
          setTimeout(() => resolve('no callback'), 6000);
        }),
    );
    // permission granted: triggerOptIn subscribes without the soft prompt
    await broken.page.waitForFunction(() => localStorage.getItem('wingify_push_db_status') === 'false', undefined, { timeout: 8000 });
    expect(await broken.page.evaluate(() => localStorage.getItem('wingify_push_subscription_endpoint'))).toMatch(/^https:\/\//);
    await expectHostUnharmed(broken);
    void outcome.catch(() => undefined);

    const hostileButWorking = (): void => {
      const originalFetch = window.fetch;
      const calls: string[] = [];
      window.fetch = function (input: RequestInfo | URL, init?: RequestInit) {
        calls.push(String(input));
        return originalFetch.call(window, input, init);
      };
      window.XMLHttpRequest = function () {
        throw new Error('XMLHttpRequest is disabled on this page');
      } as unknown as typeof XMLHttpRequest;
      const stringify = JSON.stringify;
      JSON.stringify = function (value: unknown, replacer?: never, space?: string | number) {
        return stringify.call(JSON, value, replacer, space);
      };
      // What Prototype.js and MooTools did to every page that used them.
      Object.defineProperty(Array.prototype, 'toJSON', {
        value: function (this: unknown[]) {
          return '[' + this.join(', ') + ']';
        },
        writable: true,
        configurable: true,
      });
      (Array.prototype as unknown as { each: unknown }).each = function () {};
      (Object.prototype as unknown as { extended: unknown }).extended = true;
      Array.from = function (item: unknown) {
        return Array.isArray(item) ? item : [item];
      } as typeof Array.from;
    };
    const next = await open('/page.html', hostileButWorking);
    await runtimeReady(next.page);
    expect(next.syncActions).toEqual(['insert-failed']);
    const subscriberId = await storedSubscriberId(next.page);
    expect(subscriberId).toMatch(/^[\w-]+$/);
    expect(await subscriberRows(next.page)).toEqual([{ id: subscriberId, status: 'subscribed' }]);
    await expectHostUnharmed(next);
  });

  it('the script loaded twice (snippet pasted twice and one more script tag): one runtime, one prompt, one insert', async () => {
    const view = await open('/twice.html');
    await runtimeReady(view.page);
    expect(
      await view.page.evaluate(() => performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('/push.js')).length),
    ).toBeGreaterThanOrEqual(1);
    const outcome = await withPermissionUnasked(async () => {
      const subscribed = view.page.evaluate(
        () =>
          new Promise<string>((resolve) => {
            const api = (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit;
            api.push(['subscriptionSuccessCallback', (_id: string, result: { status: string }) => resolve(result.status)]);
            api.push(['subscriptionFailureCallback', (result: { status: string }) => resolve(result.status)]);
            api.push(['triggerOptIn']);
          }),
      );
      await view.page.locator('[data-pk="chicklet"]').waitFor({ state: 'visible' });
      await harness.browser.context.grantPermissions(['notifications'], { origin: harness.site.url });
      await view.page.locator('[data-pk-action="yes"]:visible').first().click();
      return subscribed;
    });
    expect(outcome).toBe('SUBSCRIBED');
    expect(await view.page.locator('#pushkit-prompts').count()).toBe(1);
    expect(view.syncActions).toEqual(['insert']);
    await expectHostUnharmed(view);
  });

  it('SECURITY.md states the sha256 of the inline stub the build emits in snippet.html', async () => {
    const snippet = await readFile(join(harness.site.bundleDir, 'snippet.html'), 'utf8');
    const inline = [...snippet.matchAll(/<script>([^<]*)<\/script>/g)].map((match) => match[1]!);
    expect(inline).toEqual(['window.pushkit=window.pushkit||[];']);
    const hash = createHash('sha256').update(inline[0]!).digest('base64');
    expect(await securityMdScriptHash()).toBe(`sha256-${hash}`);
  });

  it('a strict Content-Security-Policy as SECURITY.md states it: no violation, the prompt is styled, the visitor subscribes', async () => {
    // no provider origin: push.js reads the JSONP replies (the sync) as text, never as script
    harness.site.pageHeaders = { 'content-security-policy': strictPolicy(`'self' '${await securityMdScriptHash()}'`) };
    try {
      const view = await open('/page.html');
      await runtimeReady(view.page);
      const outcome = await subscribe(view.page);
      expect(outcome.result.status).toBe('SUBSCRIBED');
      await view.page.evaluate(() => (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit.push(['triggerOptIn']));
      const notice = view.page.locator('[data-pk="subscribed"]');
      await notice.waitFor({ state: 'visible' });
      expect(await notice.evaluate((element) => getComputedStyle(element).position)).toBe('fixed');
      await expectPolicyKept(view);
    } finally {
      harness.site.pageHeaders = {};
    }
  });

  it("a policy of nonces only (no 'self'), push.js in a folder of its own with a query: the chunk comes from that folder with the nonce, the visitor subscribes", async () => {
    // a script element push.js adds without the page's nonce would be refused
    harness.site.pageHeaders = { 'content-security-policy': strictPolicy("'nonce-pk-nonce'") };
    try {
      const chunks: string[] = [];
      const view = await open('/nonce-folder.html', undefined, async (page) => {
        page.on('request', (request) => /push\.lifecycle\./.test(request.url()) && chunks.push(request.url()));
      });
      await runtimeReady(view.page);
      const outcome = await subscribe(view.page);
      expect(outcome.result.status).toBe('SUBSCRIBED');
      expect(chunks).toEqual([expect.stringMatching(new RegExp(`^${harness.site.url}/lib/v2/push\\.lifecycle\\.[0-9a-f]{10}\\.js$`))]);
      await expectPolicyKept(view);
    } finally {
      harness.site.pageHeaders = {};
    }
  });

  it('a page without stack traces (`Error.stackTraceLimit = 0`), or whose `Error.prepareStackTrace` throws: the chunk comes from the folder the config names, the visitor subscribes, nothing escapes', async () => {
    // push.js reads its folder from an Error's stack; without one, the config's (no cdnUrl: the site's root, as the
    // snippet loads push.js), not /lib/v2/ where this page loads it from
    const fromConfig = new RegExp(`^${harness.site.url}/push\\.lifecycle\\.[0-9a-f]{10}\\.js$`);
    const chunks: string[] = [];
    const watchChunks = async (page: Page) =>
      page.on('request', (request) => /push\.lifecycle\./.test(request.url()) && chunks.push(request.url()));
    const first = await open('/nonce-folder.html', () => void (Error.stackTraceLimit = 0), watchChunks);
    await runtimeReady(first.page);
    const outcome = await subscribe(first.page);
    expect(outcome.result.status).toBe('SUBSCRIBED');
    expect(chunks).toEqual([expect.stringMatching(fromConfig)]);
    await expectHostUnharmed(first);

    // a subscriber's view loads the chunk for an opt-in call: the notice that the visitor is subscribed
    const throwingHook = (): void => {
      (Error as unknown as { prepareStackTrace: () => never }).prepareStackTrace = () => {
        throw new TypeError('the page formats no stack');
      };
    };
    const next = await open('/nonce-folder.html', throwingHook, watchChunks);
    await runtimeReady(next.page);
    await next.page.evaluate(() => (window as unknown as { pushkit: { push(call: unknown[]): void } }).pushkit.push(['triggerOptIn']));
    await next.page.locator('[data-pk="subscribed"]').waitFor({ state: 'visible' });
    expect(chunks).toEqual([expect.stringMatching(fromConfig), expect.stringMatching(fromConfig)]);
    await expectHostUnharmed(next);
  });
});

/** No violation of the page's policy reported or logged, and the host page unharmed; closes the view. */
async function expectPolicyKept(view: View): Promise<void> {
  expect((await verdict(view.page)).violations).toEqual([]);
  expect(view.consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  await expectHostUnharmed(view);
  await view.page.close();
}

/** SECURITY.md's policy for push.js, with `scriptSrc` as its script-src. */
function strictPolicy(scriptSrc: string): string {
  const provider = harness.stack.providerUrl;
  return [
    "default-src 'none'",
    `script-src ${scriptSrc}`,
    `connect-src ${provider}`,
    `img-src 'self' ${provider}`,
    "style-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
  ].join('; ');
}

async function securityMdScriptHash(): Promise<string> {
  const text = await readFile(new URL('../../SECURITY.md', import.meta.url), 'utf8');
  const hashes = [...text.matchAll(/'(sha256-[A-Za-z0-9+/]+=*)'/g)].map((match) => match[1]!);
  expect(new Set(hashes).size).toBe(1);
  return hashes[0]!;
}
