// Issue 2's end-to-end slice: the built calligraphy bundle on the example site, in Debian's Chromium with a
// real pushManager.subscribe() (fake GCM check-in), subscribes and the provider stores the subscriber.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';

let stack: Stack;
let gcm: FakeGcm;
let browser: TestBrowser;

beforeAll(async () => {
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startStack().then((started) => (stack = started)),
    borrowChromiumWithGcm().then((started) => ({ gcm, browser } = started)),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

describe('subscribing on the example site', () => {
  it('asks for permission, subscribes with the site VAPID key and the provider stores the subscriber', async () => {
    await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
    const page = await browser.context.newPage();
    const syncBodies: URLSearchParams[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/syncSubscriptionAction.php')) syncBodies.push(new URLSearchParams(request.postData() ?? ''));
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto(`${stack.siteUrl}/`);
    const outcome = await subscribeThroughApi(page);

    expect(outcome.result).toEqual({ status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' });
    const insert = syncBodies.find((body) => body.get('action') === 'insert');
    expect(insert?.get('hash')).toBe(stack.config.hash);
    expect(insert?.get('vapidPublicKey')).toBe(stack.config.vapidPublicKey);
    const subscription = JSON.parse(insert?.get('subscription') ?? '{}') as { endpoint: string; keys: { p256dh: string; auth: string } };
    expect(subscription.endpoint).toMatch(/^https:\/\/jmt17\.google\.com\/fcm\/send\//);

    const { rows } = await stack.db.query<{ id: string; status: string; endpoint: string; p256dh: string }>(
      'SELECT id, status, endpoint, p256dh FROM subscribers WHERE site_hash = $1',
      [stack.config.hash],
    );
    expect(rows).toEqual([
      { id: outcome.subscriberId, status: 'subscribed', endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh },
    ]);
    expect(await page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id'))).toBe(outcome.subscriberId);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
