// Issue 18 (items 1, 3, 4, 5, 6 and the silent cases of docs/spec-silent-cases.md "Sync and prompts") and issue
// 20's pushsubscriptionchange: the built push.js and sw.js of a calligraphy site with custom dimensions, user
// properties, a delay of 0 and a segment on the scroll event, in Debian's Chromium with a real
// pushManager.subscribe() (fake GCM check-in), against the real provider. The tests share one profile and run
// in order, as one visitor would: refused, then allowed, subscribed, renewed.
import { createServer, type AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStarted, type TestBrowser } from '../support/browser.ts';
import { borrowChromiumWithGcm, type FakeGcm } from '../support/fake-gcm.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { deliverPush } from '../support/worker.ts';
import { ensureOwnerKey, rotateOwnerKey } from '../../server/http/owner-keys.ts';
import { setDimensions, setTags } from '../../server/subscribers/subscriber-records.ts';

let stack: Stack;
let gcm: FakeGcm;
let context: BrowserContext;
let browser: TestBrowser;
let ownerKey: string;

beforeAll(async () => {
  // the provider and Chromium start side by side; whatever started is closed in afterAll
  await allStarted([
    startStack({
      overrides: {
        customDimensions: ['tier', 'city'],
        refreshUserProperties: true,
        // the segment condition names scroll, the trigger does not: the scroll event still needs its threshold
        triggers: { when: 'delay', delaySeconds: 0, scroll: { percent: 50 } },
        segmentations: [
          { sid: 'scrolled', ss: 'event.scroll', vn: 1 },
          { sid: 'new-subscribers', ss: 'event.subscribe', vn: 1 },
        ],
      },
    }).then((started) => (stack = started)),
    borrowChromiumWithGcm().then((started) => ({ gcm, browser } = started)),
  ]);
  context = browser.context;
  await ensureOwnerKey(stack.db, stack.site);
  ownerKey = await rotateOwnerKey(stack.db, stack.site);
});
afterAll(async () => {
  await browser?.close();
  await gcm?.close();
  await stack?.close();
});

interface View {
  page: Page;
  requests: { url: URL; body: URLSearchParams }[];
  /** Bodies of the provider's replies to the sync, in order. */
  syncReplies: string[];
  /** What the page's callbacks heard, in order: ['shown'], ['success', id, status], ['failure', status]. */
  heard(): Promise<unknown[][]>;
}

/** Opens `path` with the page's callbacks queued before push.js loads, and waits until its view's sync is done. */
async function view(path = '/'): Promise<View> {
  const page = await context.newPage();
  const requests: View['requests'] = [];
  const syncReplies: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(stack.providerUrl))
      requests.push({ url: new URL(request.url()), body: new URLSearchParams(request.postData() ?? '') });
  });
  page.on('response', (response) => {
    // a reply whose page closed before its body was read has no body to give: the cases that read replies wait
    // for them, so only an unhandled rejection (which fails the whole run) would come of it
    if (response.url().endsWith('/syncSubscriptionAction.php'))
      response.text().then(
        (text) => syncReplies.push(text),
        () => undefined,
      );
  });
  await page.addInitScript(() => {
    const heard: unknown[][] = [];
    (window as unknown as { heard: unknown[][] }).heard = heard;
    (window as unknown as { pushkit: unknown[] }).pushkit = [
      ['optInShownCallback', () => heard.push(['shown', performance.now()])],
      ['subscriptionSuccessCallback', (id: string, result: { status: string }) => heard.push(['success', id, result.status])],
      ['subscriptionFailureCallback', (result: { status: string }) => heard.push(['failure', result.status])],
    ];
  });
  await page.goto(stack.siteUrl + path);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  return { page, requests, syncReplies, heard: () => page.evaluate(() => (window as unknown as { heard: unknown[][] }).heard) };
}

const stored = (page: Page, key: string) => page.evaluate((key) => localStorage.getItem(key), key);

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function subscriberRow(id: string) {
  const { rows } = await stack.db.query<{ endpoint: string; subscription_id: string; status: string }>(
    'SELECT endpoint, subscription_id, status FROM subscribers WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

let subscriberId = '';

const memberOf = async (sid: string): Promise<boolean> =>
  (
    await stack.db.query(
      `SELECT 1 FROM segment_memberships m JOIN segments s ON s.id = m.segment_id WHERE s.sid = $1 AND m.subscriber_id = $2`,
      [sid, subscriberId],
    )
  ).rows.length === 1;

describe('sync and prompts, through the built push.js against the provider', () => {
  it('delaySeconds 0 shows the offer at once; a refusal is a block event the provider stores and counts for the owner', async () => {
    const page = await view();
    await page.page.locator('[data-pk-action="yes"]:visible').first().click();
    const heard = await poll(page.heard, (list) => list.some(([kind]) => kind === 'failure'), 'the failure callback');
    // the 5 s default would show it 5 s after the view's sync, so later than 5 s after navigation: 0 is no delay
    expect(heard[0]![0]).toBe('shown');
    expect(heard[0]![1] as number).toBeLessThan(5000);
    expect(heard).toContainEqual(['failure', 'BLOCKED']);
    const blocks = await poll(
      async () => (await stack.db.query<{ detail: { uuid: string } }>(`SELECT detail FROM events WHERE kind = 'block'`)).rows,
      (rows) => rows.length > 0,
      'the block event',
    );
    expect(blocks).toHaveLength(1);
    const block = page.requests.find((request) => request.body.get('action') === 'block')!;
    expect(block.body.get('browserType')).toBe('chrome');
    expect(block.body.get('hash')).toBe(stack.config.hash);
    expect(blocks[0]!.detail.uuid).toBe(await page.page.evaluate(() => /_wingify_pc_uuid=([^;]+)/.exec(document.cookie)?.[1]));
    const reply = await stack.app.inject({
      url: `/api/v1/sites/${stack.site.name}/stats?days=7`,
      headers: { authorization: `Bearer ${ownerKey}` },
    });
    expect(reply.json()).toMatchObject({ status: 'success', blocks: 1 });
    await page.page.close();
  });

  it('granted without a subscription: subscribed on the trigger with no offer; the JSONP sync reply is read (no script runs it)', async () => {
    await context.grantPermissions(['notifications'], { origin: stack.siteUrl });
    const setup = await context.newPage();
    await setup.goto(stack.siteUrl + '/favicon.ico');
    await setup.evaluate(() => localStorage.clear());
    await setup.close();

    const page = await view();
    const heard = await poll(page.heard, (list) => list.length > 0, 'the success callback');
    expect(heard.map(([kind]) => kind)).toEqual(['success']);
    expect(heard[0]![2]).toBe('SUBSCRIBED');
    subscriberId = heard[0]![1] as string;
    const insert = page.requests.find((request) => request.body.get('action') === 'insert')!;
    expect(insert.body.get('callback')).toBe('pushkit.cb');
    // the consent checkbox is on the offer this visitor never saw: no consent assumed
    expect(insert.body.get('pageClickTrackingPermission')).toBe('0');
    expect(await stored(page.page, 'wingify_donot_track_actions')).toBe('1');
    expect(page.syncReplies[0]).toMatch(/^\/\*\*\/ pushkit\.cb\(\{"status":"success","subscriberId":"[\w-]+"/);
    expect(await stored(page.page, 'wingify_push_subscriber_id')).toBe(subscriberId);
    expect((await subscriberRow(subscriberId)).status).toBe('subscribed');
    // the subscribe trigger event: the segment whose condition names it is joined as the visitor subscribes
    await poll(
      () => memberOf('new-subscribers'),
      (member) => member,
      'the new-subscribers membership',
    );
    expect(await memberOf('scrolled')).toBe(false);
    await page.page.close();
  });

  it('custom dimensions and user properties: read once per browser session into _vwo_cd_{dimension} and the local tags', async () => {
    await setDimensions(stack.db, subscriberId, { tier: 'gold' });
    await setTags(stack.db, subscriberId, { plan: 'pro', city: 'Kyoto' });
    await context.clearCookies({ name: 'pushkit_refreshed' });
    const first = await view();
    await poll(
      () => stored(first.page, '_vwo_cd_city'),
      (value) => value !== null,
      'the dimensions',
    );
    expect(await stored(first.page, '_vwo_cd_tier')).toBe('gold');
    expect(await stored(first.page, '_vwo_cd_city')).toBe('Kyoto');
    await poll(
      () => stored(first.page, 'pushkit_tags'),
      (value) => value !== null,
      'the user properties',
    );
    expect(JSON.parse((await stored(first.page, 'pushkit_tags'))!)).toEqual({ plan: 'pro', city: 'Kyoto' });
    const attributes = first.requests.find((request) => request.url.pathname === '/getSubscriberAttributes.php')!;
    expect(Object.fromEntries(attributes.url.searchParams)).toEqual({
      hash: stack.config.hash,
      subscriberId,
      subscriberSecret: await stored(first.page, 'pushkit_subscriber_secret'),
      customDimensions: 'tier,city',
      browser: 'chrome',
    });
    const dyn = first.requests.find((request) => request.url.pathname === '/dyn')!;
    expect(dyn.url.searchParams.get('hash')).toBe(stack.config.hash);
    expect(dyn.url.searchParams.get('callback')).toBe('pushkit.cb');
    await first.page.close();

    const again = await view();
    await again.page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(again.requests.filter((request) => ['/dyn', '/getSubscriberAttributes.php'].includes(request.url.pathname))).toEqual([]);
    await again.page.close();
  });

  it('a subscriber who scrolls joins the segment whose condition names the scroll event', async () => {
    const page = await view();
    await page.page.evaluate(() => {
      document.body.style.minHeight = '5000px';
      scrollTo(0, document.documentElement.scrollHeight);
    });
    await poll(
      () => memberOf('scrolled'),
      (member) => member,
      'the scrolled membership',
    );
    await page.page.close();
  });

  it('"Invalid Subscriber Id": -1, undefined, null, 0, empty or edited stored ids give -1 and no call; the provider refuses them', async () => {
    const page = await view();
    const results = await page.page.evaluate(async () => {
      const api = (window as unknown as { pushkit: { addSubscriberToSegment(name: string): Promise<unknown> } }).pushkit;
      const real = localStorage.getItem('wingify_push_subscriber_id')!;
      const out: Record<string, unknown> = {};
      for (const form of ['-1', 'undefined', 'null', '0', '', ' ', 'a b', 'NaN']) {
        localStorage.setItem('wingify_push_subscriber_id', form);
        out[form] = await api.addSubscriberToSegment('vip');
      }
      localStorage.setItem('wingify_push_subscriber_id', real);
      return out;
    });
    expect(Object.values(results)).toEqual(Array(8).fill(-1));
    expect(page.requests.filter((request) => request.url.pathname === '/as' || request.url.pathname === '/c.gif')).toEqual([]);
    for (const form of ['-1', 'undefined', 'null']) {
      const reply = await fetch(`${stack.providerUrl}/as?id=vip&customer_hash=${stack.config.hash}&subscriber_list[]=${form}`);
      expect(reply.status).toBe(400);
      expect(((await reply.json()) as { message: string }).message).toContain('Invalid Subscriber Id');
    }
    await page.page.close();
  });

  it('an endpoint-only change (same subscription id) sends update-google-registration-id with the previous id, and the provider takes it', async () => {
    const row = await subscriberRow(subscriberId);
    const old = row.endpoint.replace(/^https:\/\/[^/]+/, 'https://fcm.googleapis.com');
    await stack.db.query('UPDATE subscribers SET endpoint = $2 WHERE id = $1', [subscriberId, old]);
    const setup = await context.newPage();
    await setup.goto(stack.siteUrl + '/favicon.ico');
    await setup.evaluate((old) => localStorage.setItem('wingify_push_subscription_endpoint', old), old);
    await setup.close();

    const page = await view();
    const move = page.requests.find((request) => request.body.get('action') === 'update-google-registration-id')!;
    expect(move.body.get('previousSubscriptionId')).toBe(row.subscription_id);
    expect(move.body.get('subscriptionId')).toBe(row.subscription_id);
    expect(await stored(page.page, 'wingify_push_db_status')).toBe('true');
    expect((await subscriberRow(subscriberId)).endpoint).toBe(row.endpoint);
    await page.page.close();
  });

  it('pushsubscriptionchange in the real worker: a new subscription with the site key, stored on the provider for the same subscriber', async () => {
    const before = await subscriberRow(subscriberId);
    const page = await view();
    const worker = await poll(
      async () => context.serviceWorkers().find((candidate) => candidate.url() === `${stack.siteUrl}/sw.js`),
      (found) => found !== undefined,
      'the service worker',
    );
    // The push service dropped the subscription and the browser tells the worker. Chromium has no CDP method
    // for this event, so it is dispatched in the worker by script (the worker's real handler runs; only
    // waitUntil is refused to a synthetic event).
    await worker!.evaluate(async () => {
      const scope = self as unknown as ServiceWorkerGlobalScope;
      await (await scope.registration.pushManager.getSubscription())?.unsubscribe();
      scope.dispatchEvent(new ExtendableEvent('pushsubscriptionchange'));
    });
    const after = await poll(
      () => subscriberRow(subscriberId),
      (row) => row.endpoint !== before.endpoint,
      'the renewed endpoint',
    );
    const current = await page.page.evaluate(
      async () => (await (await navigator.serviceWorker.ready).pushManager.getSubscription())?.endpoint,
    );
    expect(after.endpoint).toBe(current);
    expect(after.subscription_id).toBe(current!.slice(current!.lastIndexOf('/') + 1));
    // re-subscribed with the site's VAPID key
    const key = await page.page.evaluate(async () => {
      const subscription = await (await navigator.serviceWorker.ready).pushManager.getSubscription();
      const serverKey = subscription?.options.applicationServerKey;
      return serverKey ? Array.from(new Uint8Array(serverKey)) : null;
    });
    expect(key).toEqual(Array.from(Buffer.from(String(stack.config.vapidPublicKey), 'base64url')));
    expect(after.status).toBe('subscribed');
    await page.page.close();
  });

  it('a renewal that cannot reach the provider is kept, with a background sync registered, and lands with the next push or sync', async () => {
    const page = await view();
    const worker = context.serviceWorkers().find((candidate) => candidate.url() === `${stack.siteUrl}/sw.js`)!;
    const server = stack.app.server;
    const { port, address } = server.address() as AddressInfo;

    /** The browser renews the subscription while the provider's port drops every connection; resolves once it was tried. */
    const renewWhileDown = async (): Promise<void> => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      let attempts = 0;
      const refusing = createServer((socket) => {
        attempts += 1;
        socket.destroy();
      });
      await new Promise<void>((resolve) => refusing.listen(port, address, resolve));
      try {
        await worker.evaluate(async () => {
          const scope = self as unknown as ServiceWorkerGlobalScope;
          await (await scope.registration.pushManager.getSubscription())?.unsubscribe();
          scope.dispatchEvent(new ExtendableEvent('pushsubscriptionchange'));
        });
        await poll(
          async () => attempts,
          (count) => count > 0,
          'the renewal attempt',
        );
      } finally {
        await new Promise((resolve) => refusing.close(resolve));
        await new Promise<void>((resolve) => server.listen(port, address, resolve));
      }
    };
    const currentEndpoint = () =>
      page.page.evaluate(async () => (await (await navigator.serviceWorker.ready).pushManager.getSubscription())?.endpoint);

    // the background sync registrations the worker asks for, recorded on their way to the browser
    await worker.evaluate(() => {
      const scope = self as unknown as { syncTags: string[]; registration: { sync: { register(tag: string): Promise<void> } } };
      const manager = scope.registration.sync;
      const register = manager.register.bind(manager);
      scope.syncTags = [];
      manager.register = (tag) => {
        scope.syncTags.push(tag);
        return register(tag);
      };
    });

    // by the next push
    const before = await subscriberRow(subscriberId);
    await renewWhileDown();
    // the provider was down: it still has the old endpoint; the worker asked for a background sync to retry
    expect((await subscriberRow(subscriberId)).endpoint).toBe(before.endpoint);
    await poll(
      () => worker.evaluate(() => (self as unknown as { syncTags: string[] }).syncTags),
      (tags) => tags.includes('pushkit-renewal'),
      'the background sync registration',
    );
    await deliverPush(context, page.page, stack.siteUrl, `${stack.siteUrl}/`, JSON.stringify({ title: 'New submission' }));
    const afterPush = await poll(
      () => subscriberRow(subscriberId),
      (row) => row.endpoint !== before.endpoint,
      'the renewal after the push',
    );
    expect(afterPush.endpoint).toBe(await currentEndpoint());

    // by the background sync (the browser's retry when it is online again)
    await renewWhileDown();
    expect((await subscriberRow(subscriberId)).endpoint).toBe(afterPush.endpoint);
    await worker.evaluate(() => {
      const sync = Object.assign(new ExtendableEvent('sync'), { tag: 'pushkit-renewal' });
      self.dispatchEvent(sync);
    });
    const afterSync = await poll(
      () => subscriberRow(subscriberId),
      (row) => row.endpoint !== afterPush.endpoint,
      'the renewal after the background sync',
    );
    expect(afterSync.endpoint).toBe(await currentEndpoint());
    await page.page.close();
  });
});
