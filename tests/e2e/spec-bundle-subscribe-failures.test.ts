// Issue 18: how the built push.js fails to subscribe (spec sections 4, 5, 8 and 9), in Debian's Chromium against
// the real provider. Every pushManager.subscribe() is refused as Chromium reports a push service error (the page
// seam of TESTING.md: offline, Chromium's own registration never settles), and each call's options are kept. The
// manifest the retry reads is answered by the test: a numeric gcm_sender_id (one retry, without the key), a
// non-numeric one (no retry), or no answer at all (the 2 s timeout). Headless Chromium shows no permission
// prompt, so the two "closed" cases stand the browser's prompt in with a Notification.requestPermission that
// answers "default" (a close) after a chosen time.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stack } from '../support/stack.ts';
import { startVisitorBrowser, type VisitorBrowser } from '../support/visitor-browser.ts';

let visitor: VisitorBrowser;
let stack: Stack;
let context: BrowserContext;

beforeAll(async () => {
  // no push service at all: every subscribe is refused at the page (below)
  visitor = await startVisitorBrowser({ push: false });
  ({ stack, context } = visitor);
});
afterAll(async () => {
  await visitor?.close();
});

interface Attempt {
  page: Page;
  failure: { status: string; message: string };
  /** Each pushManager.subscribe() call: whether it carried a key, and the key's bytes. */
  subscribeCalls: { key: number[] | null }[];
  /** When the manifest was asked for and when the failure callback heard, in page time (ms). */
  manifestAt: number | null;
  failedAt: number;
}

/** One new visitor's attempt through triggerOptIn, and what the failure callback hears. */
async function attempt(options: { manifest?: 'numeric' | 'letters' | 'never'; closeAfterMs?: number }): Promise<Attempt> {
  // a new visitor each time: no cookies, no stored state
  await context.clearCookies();
  const blank = await context.newPage();
  await blank.goto(`${stack.siteUrl}/favicon.ico`);
  await blank.evaluate(() => localStorage.clear());
  await blank.close();
  await context.clearPermissions();
  if (options.closeAfterMs === undefined) await context.grantPermissions(['notifications'], { origin: stack.siteUrl });
  const page = await context.newPage();
  await page.addInitScript((closeAfterMs) => {
    const calls: { key: number[] | null }[] = [];
    const record = window as unknown as { subscribeCalls: typeof calls; manifestAt: number | null; failedAt: number; failure: unknown };
    record.subscribeCalls = calls;
    record.manifestAt = null;
    // the push service refuses every registration, as Chromium reports it
    PushManager.prototype.subscribe = function (options?: PushSubscriptionOptionsInit) {
      const key = options?.applicationServerKey;
      calls.push({ key: key ? Array.from(new Uint8Array(key as ArrayBuffer)) : null });
      return Promise.reject(new DOMException('Registration failed - push service error', 'AbortError'));
    };
    if (closeAfterMs !== null) {
      Object.defineProperty(Notification, 'permission', { configurable: true, get: () => 'default' });
      Notification.requestPermission = () =>
        new Promise<NotificationPermission>((resolve) => setTimeout(() => resolve('default'), closeAfterMs));
    }
    (window as unknown as { pushkit: unknown[] }).pushkit = [
      [
        'subscriptionFailureCallback',
        (result: unknown) => {
          record.failure = result;
          record.failedAt = performance.now();
        },
      ],
    ];
  }, options.closeAfterMs ?? null);
  await page.route('**/manifest.json', async (route) => {
    await page.evaluate(() => ((window as unknown as { manifestAt: number }).manifestAt = performance.now())).catch(() => undefined);
    if (options.manifest === 'never') return; // never answered
    const senderId = options.manifest === 'letters' ? 'not-a-number' : '103953800507';
    await route.fulfill({ contentType: 'application/json', body: JSON.stringify({ name: 'Calligraphy', gcm_sender_id: senderId }) });
  });
  await page.goto(`${stack.siteUrl}/`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { triggerOptIn(): void } }).pushkit.triggerOptIn());
  // a visitor who granted the permission earlier is subscribed without the offer; otherwise Yes on it
  if (options.closeAfterMs !== undefined) await page.locator('[data-pk-action="yes"]:visible').first().click({ timeout: 5000 });
  await page.waitForFunction(() => (window as unknown as { failure?: unknown }).failure, undefined, { timeout: 15_000 });
  const seen = await page.evaluate(() => {
    const record = window as unknown as Omit<Attempt, 'page'>;
    return { failure: record.failure, subscribeCalls: record.subscribeCalls, manifestAt: record.manifestAt, failedAt: record.failedAt };
  });
  return { page, ...seen };
}

/** The config's VAPID public key as the bytes the browser is given (url-safe base64, section 5). */
const vapidBytes = () => Array.from(Buffer.from(String(stack.config.vapidPublicKey), 'base64url'));

describe('failing to subscribe, through the built push.js', () => {
  it('a push service error: one retry without the key when the manifest has a numeric gcm_sender_id, then "Could Not Subscribe."', async () => {
    const { page, failure, subscribeCalls } = await attempt({ manifest: 'numeric' });
    expect(failure).toEqual({ status: 'CANCELLED', message: 'Could Not Subscribe.' });
    // the first call carries the config's key, converted from url-safe base64 to its 65 bytes
    expect(subscribeCalls).toHaveLength(2);
    expect(subscribeCalls[0]!.key).toEqual(vapidBytes());
    expect(subscribeCalls[0]!.key).toHaveLength(65);
    expect(subscribeCalls[1]!.key).toBeNull();
    expect(await page.evaluate(() => localStorage.getItem('wingify_push_gcm_id'))).toBe('103953800507');
    expect(await page.locator('link[rel="manifest"]').count()).toBe(1);
    await page.close();
  });

  it('a sender id that is not numeric: no retry, "Could Not Subscribe."', async () => {
    const { page, failure, subscribeCalls } = await attempt({ manifest: 'letters' });
    expect(failure).toEqual({ status: 'CANCELLED', message: 'Could Not Subscribe.' });
    expect(subscribeCalls).toHaveLength(1);
    expect(await page.evaluate(() => localStorage.getItem('wingify_push_gcm_id'))).toBeNull();
    await page.close();
  });

  it('a manifest that never answers is given up after 2 s: "Could Not Subscribe."', async () => {
    const { page, failure, subscribeCalls, manifestAt, failedAt } = await attempt({ manifest: 'never' });
    expect(failure).toEqual({ status: 'CANCELLED', message: 'Could Not Subscribe.' });
    expect(subscribeCalls).toHaveLength(1);
    expect(manifestAt).not.toBeNull();
    expect(failedAt - manifestAt!).toBeGreaterThanOrEqual(1900);
    expect(failedAt - manifestAt!).toBeLessThan(6000);
    await page.close();
  });

  it('the permission prompt closed after 500 ms is CANCELLED; closed sooner, the browser blocked it: BLOCKED', async () => {
    const closed = await attempt({ closeAfterMs: 900 });
    expect(closed.failure).toEqual({ status: 'CANCELLED', message: 'User has closed the notifications opt-in.' });
    expect(closed.subscribeCalls).toHaveLength(0);
    await closed.page.close();
    const blocked = await attempt({ closeAfterMs: 50 });
    expect(blocked.failure).toEqual({ status: 'BLOCKED', message: 'User has blocked push notifications.' });
    expect(blocked.subscribeCalls).toHaveLength(0);
    await blocked.page.close();
  });
});
