// Issue 29's silent move: a visitor subscribed by another service's script on this origin (key A, that service's
// worker at the site's scope) whose site now runs push-kit (current key B, A imported as legacy). The first view
// moves the subscription to B without asking: the same subscriber when the previous script left the spec's
// storage keys, a new one when it left none; the next campaign is signed with B. The subscriptions come from a
// page-level seam (docs/testing.md) that binds each subscription to its key as a browser does: a subscribe with
// another key than the current subscription's fails until that one is unsubscribed. The fake push service
// refuses a push whose VAPID JWT is not the key the subscription was made with.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../server/campaigns/campaign-store.ts';
import { sendCampaign } from '../../server/campaigns/campaign-sender.ts';
import { importSubscribers } from '../../server/import/index.ts';
import { addLegacyVapidKey, currentVapidKeyId, vapidKeyId } from '../../server/keys/index.ts';
import { PushServiceAllowlist } from '../../server/push/push-services.ts';
import { closePushConnections } from '../../server/push/send.ts';
import { generateVapidKeyPair, type VapidKeyPair } from '../../server/push/vapid-keys.ts';
import { createSubscriberKeys, decryptPushBody, startFakePushService, type FakePushService } from '../support/fake-push-service.ts';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { deliverPush } from '../support/worker.ts';
import { startStack, type Stack } from '../support/stack.ts';

const OLD_WORKER = '/previous-service-sw.js';
const STORE = '__fake_push_subscription';
const FCM = 'https://jmt17.google.com';

let stack: Stack;
let browser: TestBrowser;
let pushService: FakePushService;
let gcm: FakeGcm;
let keyB: VapidKeyPair;
const keyA = generateVapidKeyPair();
const subscriberKeys = createSubscriberKeys();

/**
 * The page-level seam: PushManager's subscribe / getSubscription with a subscription kept in localStorage (one per
 * origin, as a registration has one), bound to its applicationServerKey, on the fake push service at
 * `/push/<key>/<id>`. `window.__asked` counts permission prompts; a subscribe refused for want of a gesture logs so;
 * `?real-push` in the page's URL leaves Chromium's own Push API (fake GCM) in place.
 */
function pushSeam({ origin, p256dh, auth, store }: { origin: string; p256dh: string; auth: string; store: string }): void {
  if (location.search.includes('real-push')) return;
  const bytes = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const text = (key: ArrayBuffer | ArrayBufferView) =>
    btoa(
      String.fromCharCode(
        ...new Uint8Array(ArrayBuffer.isView(key) ? key.buffer.slice(key.byteOffset, key.byteOffset + key.byteLength) : key),
      ),
    )
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const read = (): { endpoint: string; key: string } | null => JSON.parse(localStorage.getItem(store) ?? 'null');
  const make = ({ endpoint, key }: { endpoint: string; key: string }): PushSubscription => {
    const subscription = Object.create(PushSubscription.prototype) as PushSubscription;
    const json = { endpoint, expirationTime: null, keys: { p256dh, auth } };
    Object.defineProperties(subscription, {
      endpoint: { value: endpoint },
      expirationTime: { value: null },
      options: { value: { userVisibleOnly: true, applicationServerKey: bytes(key).buffer } },
      getKey: { value: (name: string) => bytes(name === 'p256dh' ? p256dh : auth).buffer },
      toJSON: { value: () => json },
      unsubscribe: {
        value: async () => {
          localStorage.removeItem(store);
          return true;
        },
      },
    });
    return subscription;
  };
  Object.assign(window, { __asked: 0 });
  const request = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = ((...args: Parameters<typeof Notification.requestPermission>) => {
    (window as unknown as { __asked: number }).__asked += 1;
    return request(...args);
  }) as typeof Notification.requestPermission;
  PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
    // a browser that lets a page subscribe only within a user gesture, when the test asks for one
    if (localStorage.getItem(`${store}_gesture`) && !navigator.userActivation.isActive) {
      console.info('seam: subscribe refused without a gesture');
      throw new DOMException('Push notification prompting can only be done from a user gesture.', 'NotAllowedError');
    }
    const key = text(options!.applicationServerKey as ArrayBuffer);
    const current = read();
    if (current && current.key !== key)
      throw new DOMException('A subscription with a different application server key already exists.', 'InvalidStateError');
    const subscription = current ?? { endpoint: `${origin}/push/${key}/${crypto.randomUUID()}`, key };
    localStorage.setItem(store, JSON.stringify(subscription));
    return make(subscription);
  };
  PushManager.prototype.getSubscription = async function () {
    const current = read();
    return current && make(current);
  };
}

const clearOrigin = (page: Page) =>
  page.evaluate(async () => {
    localStorage.clear();
    for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
  });

/**
 * What the previous service's script did on an earlier view: its worker, a subscription with key A, maybe the spec's
 * keys (not the stored VAPID key `pshcrw_v_k`: the move reads the subscription's own key).
 */
async function subscribeWithPreviousService(page: Page, storage?: { subscriberId: string }): Promise<string> {
  await page.goto(`${stack.siteUrl}/previous-service/`);
  await clearOrigin(page);
  return page.evaluate(
    async ({ worker, key, storage }) => {
      await navigator.serviceWorker.register(worker, { scope: '/' });
      const bytes = Uint8Array.from(atob(key.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const subscription = await (
        await navigator.serviceWorker.ready
      ).pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes });
      if (storage) {
        localStorage.setItem('wingify_push_subscriber_id', storage.subscriberId);
        localStorage.setItem('wingify_push_subscription_id', subscription.endpoint.slice(subscription.endpoint.lastIndexOf('/') + 1));
        localStorage.setItem('wingify_push_subscription_endpoint', subscription.endpoint);
        localStorage.setItem('wingify_push_subscription_status', 'subscribed');
        localStorage.setItem('wingify_push_db_status', 'true');
      }
      return subscription.endpoint;
    },
    { worker: OLD_WORKER, key: keyA.publicKey, storage },
  );
}

const keyOfEndpoint = (endpoint: string) => new URL(endpoint).pathname.split('/')[2];

beforeAll(async () => {
  // a push is accepted only with the VAPID key its subscription was made with (the endpoint path names it here)
  pushService = await startFakePushService({ subscriptionKey: (path) => path.split('/')[2] });
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    // Chromium's own subscriptions (the worker's move) are on FCM's endpoint
    startStack({ pushServices: [pushService.origin, FCM] }).then((started) => (stack = started)),
    borrowChromiumWithGcm().then((started) => ({ gcm, browser } = started)),
  ]);
  keyB = JSON.parse(await readFile('examples/calligraphy-site/demo-vapid-key.json', 'utf8')) as VapidKeyPair;
  expect(stack.config.vapidPublicKey).toBe(keyB.publicKey);
  await addLegacyVapidKey(dirname(stack.site.file), stack.site, keyA);
  // the previous service: its page (no push.js) and its worker, served at the site's origin
  await browser.context.route(`${stack.siteUrl}${OLD_WORKER}`, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: "self.addEventListener('push', () => {});" }),
  );
  await browser.context.route(`${stack.siteUrl}/previous-service/`, (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Previous service</title>' }),
  );
  await browser.context.addInitScript(pushSeam, {
    origin: pushService.origin,
    p256dh: subscriberKeys.p256dh,
    auth: subscriberKeys.auth,
    store: STORE,
  });
  await browser.context.grantPermissions(['notifications'], { origin: stack.siteUrl });
});
afterAll(async () => {
  await closePushConnections();
  await browser?.close();
  await pushService?.close();
  await gcm?.close();
  await stack?.close();
});

async function syncsOf(page: Page): Promise<URLSearchParams[]> {
  const bodies: URLSearchParams[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/syncSubscriptionAction.php')) bodies.push(new URLSearchParams(request.postData() ?? ''));
  });
  return bodies;
}

describe('the silent move to the site key', () => {
  it("moves a subscriber of the previous service (the spec's storage keys) to key B: same subscriber, no prompt, B signs", async () => {
    // the previous service's subscriber, imported with its key A
    const page = await browser.context.newPage();
    const oldEndpoint = await subscribeWithPreviousService(page, { subscriberId: crypto.randomUUID() });
    const legacyId = vapidKeyId(keyA.publicKey);
    const report = await importSubscribers(
      stack.db,
      (async function* () {
        yield (
          JSON.stringify({
            endpoint: oldEndpoint,
            keys: { p256dh: subscriberKeys.p256dh, auth: subscriberKeys.auth },
            tags: { plan: 'gold' },
          }) + '\n'
        );
      })(),
      { site: stack.site, pushServices: pushService.pushServices, vapidKeyId: legacyId },
    );
    expect(report).toMatchObject({ imported: 1 });
    const imported = await stack.db.query<{ id: string; vapid_key_id: string }>(
      'SELECT id, vapid_key_id FROM subscribers WHERE site_hash = $1 AND endpoint = $2',
      [stack.config.hash, oldEndpoint],
    );
    expect(imported.rows).toEqual([{ id: expect.any(String), vapid_key_id: legacyId }]);
    const subscriberId = imported.rows[0]!.id;

    const syncs = await syncsOf(page);
    await page.goto(`${stack.siteUrl}/`);
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id')), { timeout: 10_000 })
      .toBe(subscriberId);
    const moved = await page.evaluate((store) => JSON.parse(localStorage.getItem(store)!) as { endpoint: string }, STORE);
    expect(keyOfEndpoint(moved.endpoint)).toBe(keyB.publicKey);
    expect(syncs.map((body) => body.get('action'))).toEqual(['update-google-registration-id']);
    expect(syncs[0]!.get('previousSubscriptionId')).toBe(oldEndpoint.slice(oldEndpoint.lastIndexOf('/') + 1));
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    expect(await page.locator('[data-pk-action="yes"]:visible').count()).toBe(0);

    const { rows } = await stack.db.query<{ id: string; endpoint: string; vapid_key_id: string; status: string }>(
      'SELECT id, endpoint, vapid_key_id, status FROM subscribers WHERE site_hash = $1 AND status = $2',
      [stack.config.hash, 'subscribed'],
    );
    expect(rows).toEqual([
      { id: subscriberId, endpoint: moved.endpoint, vapid_key_id: currentVapidKeyId(stack.site), status: 'subscribed' },
    ]);
    const tags = await stack.db.query('SELECT key, value FROM subscriber_tags WHERE subscriber_id = $1', [subscriberId]);
    expect(tags.rows).toEqual([{ key: 'plan', value: 'gold' }]);
    // push-kit's worker took the registration over from the previous service's
    expect(
      await page.evaluate(async () => {
        const registration = await navigator.serviceWorker.getRegistration('/');
        return new URL((registration!.installing ?? registration!.waiting ?? registration!.active)!.scriptURL).pathname;
      }),
    ).toBe(stack.site.config.swPath);

    // the next campaign reaches the moved subscription, signed with B (the fake push service refuses any other key)
    const { campaignId } = await createCampaign(stack.db, stack.site, {
      title: 'Moved in',
      body: 'Same subscriber.',
      ttl: 60,
      urgency: 'normal',
    });
    const counts = await sendCampaign(
      stack.db,
      stack.site,
      campaignId,
      {
        currentId: currentVapidKeyId(stack.site),
        pairs: new Map([
          [currentVapidKeyId(stack.site), keyB],
          [legacyId, keyA],
        ]),
        problems: new Map(),
      },
      { ca: pushService.ca, pushServices: pushService.pushServices },
    );
    expect(counts.delivered).toBe(1);
    const push = pushService.requests.find((request) => request.path === new URL(moved.endpoint).pathname)!;
    expect(push.vapidRefused).toBeUndefined();
    expect(JSON.parse(decryptPushBody(push.body, subscriberKeys).toString('utf8'))).toMatchObject({ notification: { title: 'Moved in' } });
    await clearOrigin(page);
    await page.close();
  });

  it('inserts a visitor subscribed by a foreign script without push-kit storage as a new subscriber on key B, no prompt', async () => {
    const page = await browser.context.newPage();
    await subscribeWithPreviousService(page);
    const syncs = await syncsOf(page);
    await page.goto(`${stack.siteUrl}/`);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id')), { timeout: 10_000 }).toBeTruthy();
    const moved = await page.evaluate((store) => JSON.parse(localStorage.getItem(store)!) as { endpoint: string }, STORE);
    expect(keyOfEndpoint(moved.endpoint)).toBe(keyB.publicKey);
    expect(syncs.map((body) => body.get('action'))).toEqual(['insert']);
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    const subscriberId = await page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id'));
    const { rows } = await stack.db.query<{ endpoint: string; vapid_key_id: string; status: string }>(
      'SELECT endpoint, vapid_key_id, status FROM subscribers WHERE id = $1',
      [subscriberId],
    );
    expect(rows).toEqual([{ endpoint: moved.endpoint, vapid_key_id: currentVapidKeyId(stack.site), status: 'subscribed' }]);
    await clearOrigin(page);
    await page.close();
  });

  it("keeps an imported subscriber whose browser has no push-kit storage (OneSignal's case): same id, tags, a secret", async () => {
    const page = await browser.context.newPage();
    const oldEndpoint = await subscribeWithPreviousService(page);
    const report = await importSubscribers(
      stack.db,
      (async function* () {
        yield (
          JSON.stringify({
            endpoint: oldEndpoint,
            keys: { p256dh: subscriberKeys.p256dh, auth: subscriberKeys.auth },
            tags: { plan: 'pro' },
          }) + '\n'
        );
      })(),
      { site: stack.site, pushServices: pushService.pushServices, vapidKeyId: vapidKeyId(keyA.publicKey) },
    );
    expect(report).toMatchObject({ imported: 1 });
    const imported = await stack.db.query<{ id: string }>('SELECT id FROM subscribers WHERE site_hash = $1 AND endpoint = $2', [
      stack.config.hash,
      oldEndpoint,
    ]);
    const subscriberId = imported.rows[0]!.id;
    const syncs = await syncsOf(page);
    await page.goto(`${stack.siteUrl}/`);
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id')), { timeout: 10_000 })
      .toBe(subscriberId);
    expect(syncs.map((body) => body.get('previousSubscriptionId'))).toEqual([oldEndpoint.slice(oldEndpoint.lastIndexOf('/') + 1)]);
    expect(await page.evaluate(() => localStorage.getItem('pushkit_subscriber_secret'))).toBeTruthy();
    const moved = await page.evaluate((store) => JSON.parse(localStorage.getItem(store)!) as { endpoint: string }, STORE);
    const { rows } = await stack.db.query<{ id: string; vapid_key_id: string }>(
      'SELECT id, vapid_key_id FROM subscribers WHERE site_hash = $1 AND endpoint = $2',
      [stack.config.hash, moved.endpoint],
    );
    expect(rows).toEqual([{ id: subscriberId, vapid_key_id: currentVapidKeyId(stack.site) }]);
    const tags = await stack.db.query('SELECT key, value FROM subscriber_tags WHERE subscriber_id = $1', [subscriberId]);
    expect(tags.rows).toEqual([{ key: 'plan', value: 'pro' }]);
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    await clearOrigin(page);
    await page.close();
  });

  it('waits for the next click where a page may subscribe only within a user gesture, still without a prompt', async () => {
    const page = await browser.context.newPage();
    await subscribeWithPreviousService(page);
    await page.evaluate((store) => localStorage.setItem(`${store}_gesture`, '1'), STORE);
    const syncs = await syncsOf(page);
    // no page.evaluate until then: Playwright runs it as a user gesture
    const refused = page.waitForEvent('console', {
      predicate: (message) => message.text() === 'seam: subscribe refused without a gesture',
    });
    await page.goto(`${stack.siteUrl}/`);
    await refused;
    expect(syncs).toEqual([]);
    // the refusal is followed by a look for a sender id in the manifest (a request) before the click is awaited: a
    // click in that window is not the "next" one, so the visitor's click is repeated until one subscribes
    await expect
      .poll(
        async () => {
          await page.locator('h1').click();
          return page.evaluate(() => localStorage.getItem('wingify_push_subscriber_id'));
        },
        { timeout: 10_000 },
      )
      .toBeTruthy();
    const moved = await page.evaluate((store) => JSON.parse(localStorage.getItem(store)!) as { endpoint: string }, STORE);
    expect(keyOfEndpoint(moved.endpoint)).toBe(keyB.publicKey);
    expect(syncs.map((body) => body.get('action'))).toEqual(['insert']);
    expect(await page.evaluate(() => (window as unknown as { __asked: number }).__asked)).toBe(0);
    await clearOrigin(page);
    await page.close();
  });

  it("moves the worker's subscription on its next push and reports it as the same subscriber's move", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${stack.siteUrl}/previous-service/?real-push`);
    await clearOrigin(page);
    // push-kit's worker at the scope, holding a (real Chromium) subscription made with key A
    const oldSubscription = await page.evaluate(
      async ({ worker, key }) => {
        await navigator.serviceWorker.register(worker, { scope: '/' });
        const bytes = Uint8Array.from(atob(key.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
        const registration = await navigator.serviceWorker.ready;
        return (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes })).toJSON();
      },
      { worker: stack.site.config.swPath, key: keyA.publicKey },
    );
    const legacyId = vapidKeyId(keyA.publicKey);
    await importSubscribers(
      stack.db,
      (async function* () {
        yield JSON.stringify(oldSubscription) + '\n';
      })(),
      { site: stack.site, pushServices: PushServiceAllowlist.fromSetting([FCM]), vapidKeyId: legacyId },
    );
    const imported = await stack.db.query<{ id: string }>('SELECT id FROM subscribers WHERE endpoint = $1', [oldSubscription.endpoint]);
    const subscriberId = imported.rows[0]!.id;

    await deliverPush(browser.context, page, stack.siteUrl, `${stack.siteUrl}/`, JSON.stringify({ title: 'Still here' }));
    const row = () =>
      stack.db
        .query<{ endpoint: string; vapid_key_id: string }>('SELECT endpoint, vapid_key_id FROM subscribers WHERE id = $1', [subscriberId])
        .then(({ rows }) => rows[0]);
    await expect
      .poll(row, { timeout: 15_000 })
      .toEqual({ endpoint: expect.not.stringMatching(oldSubscription.endpoint!), vapid_key_id: currentVapidKeyId(stack.site) });
    const now = await page.evaluate(async () => {
      const subscription = await (await navigator.serviceWorker.ready).pushManager.getSubscription();
      const key = new Uint8Array(subscription!.options.applicationServerKey!);
      return {
        endpoint: subscription!.endpoint,
        key: btoa(String.fromCharCode(...key))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, ''),
      };
    });
    expect(now.key).toBe(keyB.publicKey);
    expect((await row())!.endpoint).toBe(now.endpoint);
    await clearOrigin(page);
    await page.close();
  });
});
