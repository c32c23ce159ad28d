// Issue 6's full loop: subscribe on the example site, send a campaign from the provider, the message reaches
// the subscription's (fake, HTTPS) push service encrypted for that subscription, is delivered to the service
// worker (CDP) and shown. The subscription comes from a page-level seam (docs/testing.md): a real Chromium
// subscription's private key cannot be read, so the test keeps the key pair and points the endpoint at the
// local fake push service.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, getCampaign } from '../../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import { closePushConnections } from '../../server/push/send.ts';
import type { VapidKeyPair } from '../../server/push/vapid-keys.ts';
import {
  createSubscriberKeys,
  decryptPushBody,
  startFakePushService,
  verifyVapidAuthorization,
  type FakePushService,
} from '../support/fake-push-service.ts';
import { allStarted, borrowChromium, type TestBrowser } from '../support/browser.ts';
import { deliverPush } from '../support/worker.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { subscribeThroughApi } from '../support/subscribe.ts';
import { CLICK_PARAM, type DeclarativePushMessage } from '../../contract/push-payload.ts';

let stack: Stack;
let browser: TestBrowser;
let pushService: FakePushService;
const subscriberKeys = createSubscriberKeys();

beforeAll(async () => {
  pushService = await startFakePushService();
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startStack({ pushServices: [pushService.origin] }).then((started) => (stack = started)),
    borrowChromium().then((started) => (browser = started)),
  ]);
});
afterAll(async () => {
  await closePushConnections();
  await browser?.close();
  await pushService?.close();
  await stack?.close();
});

/** Replaces PushManager's subscribe / getSubscription / permissionState in the page by a subscription the test holds. */
function pushSeam({ endpoint, p256dh, auth }: { endpoint: string; p256dh: string; auth: string }): void {
  const bytes = (base64url: string) =>
    Uint8Array.from(atob(base64url.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)).buffer;
  let current: PushSubscription | null = null;
  const make = (): PushSubscription => {
    const subscription = Object.create(PushSubscription.prototype) as PushSubscription;
    const json = { endpoint, expirationTime: null, keys: { p256dh, auth } };
    Object.defineProperties(subscription, {
      endpoint: { value: endpoint },
      expirationTime: { value: null },
      options: { value: { userVisibleOnly: true, applicationServerKey: null } },
      getKey: { value: (name: 'p256dh' | 'auth') => bytes(name === 'p256dh' ? p256dh : auth) },
      toJSON: { value: () => json },
      unsubscribe: {
        value: async () => {
          current = null;
          return true;
        },
      },
    });
    return subscription;
  };
  PushManager.prototype.subscribe = async function () {
    current ??= make();
    return current;
  };
  PushManager.prototype.getSubscription = async function () {
    return current;
  };
  PushManager.prototype.permissionState = async function () {
    return Notification.permission === 'default' ? 'prompt' : Notification.permission;
  };
}

describe('subscribe, send, deliver, show', () => {
  it('a campaign sent by the provider is received encrypted, delivered to the worker and shown', async () => {
    const endpoint = `${pushService.origin}/push/e2e-subscriber`;
    await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
    const page = await browser.context.newPage();
    await page.addInitScript(pushSeam, { endpoint, p256dh: subscriberKeys.p256dh, auth: subscriberKeys.auth });
    await page.goto(`${stack.siteUrl}/`);
    const { subscriberId } = await subscribeThroughApi(page);
    const stored = await stack.db.query<{ endpoint: string }>('SELECT endpoint FROM subscribers WHERE id = $1', [subscriberId]);
    expect(stored.rows[0]?.endpoint).toBe(endpoint);

    const keys = JSON.parse(await readFile('examples/calligraphy-site/demo-vapid-key.json', 'utf8')) as VapidKeyPair;
    const { campaignId, recipients } = await createCampaign(stack.db, stack.site, {
      title: 'New Calligraphy submissions',
      body: 'Three new pieces are in.',
      url: `${stack.siteUrl}/submissions.html`,
      ttl: 3600,
      urgency: 'normal',
    });
    expect(recipients).toBe(1);
    const counts = await sendCampaign(stack.db, stack.site, campaignId, keys, {
      ca: pushService.ca,
      pushServices: pushService.pushServices,
    });
    expect(counts.delivered).toBe(1);

    const request = pushService.requests.find((entry) => entry.path === '/push/e2e-subscriber')!;
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    verifyVapidAuthorization(request.headers.authorization as string, stack.config.vapidPublicKey as string);
    const payload = decryptPushBody(request.body, subscriberKeys).toString('utf8');
    // The declarative push message (Safari 18.4+ shows it without the worker); the landing URL carries the
    // delivery's click token.
    const message = JSON.parse(payload) as DeclarativePushMessage;
    const navigate = message.notification.navigate;
    const click = new URL(navigate).searchParams.get(CLICK_PARAM)!;
    expect(message).toEqual({
      web_push: 8030,
      notification: {
        title: 'New Calligraphy submissions',
        body: 'Three new pieces are in.',
        navigate: `${stack.siteUrl}/submissions.html?utm_source=push-kit&utm_medium=push&utm_campaign=${campaignId}&${CLICK_PARAM}=${click}`,
        tag: `pushkit-campaign-${campaignId}`,
        data: { campaignId, click },
      },
      mutable: true,
    });

    // A push delivered to a worker that is still installing is dropped: wait until sw.js is activated.
    await page.evaluate(async () => {
      const worker = (await navigator.serviceWorker.ready).active!;
      if (worker.state !== 'activated')
        await new Promise((resolve) => worker.addEventListener('statechange', () => worker.state === 'activated' && resolve(undefined)));
    });
    // deliverPush repeats a delivery Chromium dropped (a fresh profile's first CDP push is sometimes never dispatched).
    await deliverPush(browser.context, page, stack.siteUrl, `${stack.siteUrl}/`, payload);

    await expect
      .poll(
        () =>
          page.evaluate(async () => {
            const registration = await navigator.serviceWorker.ready;
            return (await registration.getNotifications()).map((notification) => ({
              title: notification.title,
              body: notification.body,
              url: (notification.data as { url?: string } | null)?.url,
            }));
          }),
        { timeout: 10_000 },
      )
      .toEqual([{ title: 'New Calligraphy submissions', body: 'Three new pieces are in.', url: navigate }]);

    // A repeated delivery replaces the notification (same campaign tag) and the campaign counts its subscriber once.
    await expect.poll(async () => (await getCampaign(stack.db, stack.site.hash, campaignId))?.shown, { timeout: 10_000 }).toBe(1);

    // A browser that shows the message itself opens `navigate` with no worker: push.js on the landing page
    // reports the click and takes the token out of the address bar; the UTM parameters stay for the site's analytics.
    expect((await getCampaign(stack.db, stack.site.hash, campaignId))?.clicked).toBe(0);
    const landing = await browser.context.newPage();
    await landing.goto(navigate);
    await expect
      .poll(() => landing.url(), { timeout: 10_000 })
      .toBe(`${stack.siteUrl}/submissions.html?utm_source=push-kit&utm_medium=push&utm_campaign=${campaignId}`);
    await expect.poll(async () => (await getCampaign(stack.db, stack.site.hash, campaignId))?.clicked, { timeout: 10_000 }).toBe(1);
    await landing.close();
  });
});
