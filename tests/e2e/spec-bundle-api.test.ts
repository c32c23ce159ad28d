// Issue 18: rules of the spec that unit tests proved on the runtime modules in happy-dom, proven here through the
// built push.js of the calligraphy site in Debian's Chromium (real pushManager.subscribe() with the fake GCM
// check-in) against the real provider: the public API of section 7, "Invalid Subscriber Id" before any
// subscription, the visitor uuid cookie's 10000 days, IndexedDB "pushkit" version 1, the segment name rules of
// section 5 (and removal's length rule only for a non-empty name), a failed segment-add call resolving false
// (section 8), and the tracking consent key. One visitor, in order.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscribeThroughApi } from '../support/subscribe.ts';
import { startStack, type Stack } from '../support/stack.ts';
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

interface View {
  page: Page;
  /** Requests to the provider (fetch, image beacons), in order: path and query. */
  calls: URL[];
}

async function view(): Promise<View> {
  const page = await context.newPage();
  const calls: URL[] = [];
  // the cookie strings the page writes for the visitor uuid, with their attributes
  await page.addInitScript(() => {
    const uuidCookies: string[] = [];
    (window as unknown as { uuidCookies: string[] }).uuidCookies = uuidCookies;
    const property = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie')!;
    Object.defineProperty(document, 'cookie', {
      configurable: true,
      get: () => property.get!.call(document),
      set: (value: string) => {
        if (value.startsWith('_wingify_pc_uuid=')) uuidCookies.push(value);
        property.set!.call(document, value);
      },
    });
  });
  // a call queued before push.js loads runs as soon as the API exists: it reads the readiness then
  await page.addInitScript(() => {
    const host = window as unknown as { pushkit: unknown[] | { readiness: string }; readinessAtStart?: string };
    host.pushkit = [['getSubscriberId', () => (host.readinessAtStart = (host.pushkit as { readiness: string }).readiness)]];
  });
  page.on('request', (request) => {
    if (request.url().startsWith(stack.providerUrl)) calls.push(new URL(request.url()));
  });
  await page.goto(`${stack.siteUrl}/`);
  await page.waitForFunction(() => !Array.isArray((window as unknown as { pushkit?: unknown }).pushkit));
  await page.evaluate(() => (window as unknown as { pushkit: { ready: Promise<void> } }).pushkit.ready);
  return { page, calls };
}

type SegmentCall = 'addToSegment' | 'addSubscriberToSegment' | 'removeSubscriberFromSegment';
/** What the page's callback hears from a segment call of the public API. */
const segmentCall = (page: Page, method: SegmentCall, name: string) =>
  page.evaluate(
    ([method, name]) =>
      new Promise<unknown>((resolve) => {
        const api = (window as unknown as { pushkit: Record<string, (name: string, callback: (result: unknown) => void) => void> }).pushkit;
        api[method]!(name, resolve);
      }),
    [method, name] as const,
  );
const segmentCalls = (calls: URL[]) => calls.filter((call) => call.pathname === '/as' || call.pathname === '/c.gif');
const settle = (page: Page) => page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));

const SPEC_API = [
  'tag',
  'addToSegment',
  'addSubscriberToSegment',
  'removeSubscriberFromSegment',
  'triggerOptIn',
  'triggerOptOut',
  'getSubscriberId',
  'isOptedOut',
  'setTrackingConsent',
];

describe('the public API and stored state, through the built push.js', () => {
  it('window.pushkit has the API of spec section 7; before a subscription a segment add is -1 and calls nothing', async () => {
    const { page, calls } = await view();
    const api = await page.evaluate(() => {
      const pushkit = (window as unknown as { pushkit: Record<string, unknown> }).pushkit;
      return Object.fromEntries(Object.keys(pushkit).map((key) => [key, typeof pushkit[key]]));
    });
    for (const name of SPEC_API) expect(api[name], name).toBe('function');
    expect(api.push, 'calls queued before and after load').toBe('function');
    // push service readiness (section 4): uninitialized until the view's work is done, then ready in Chromium
    expect(await page.evaluate(() => (window as unknown as { readinessAtStart?: string }).readinessAtStart)).toBe('uninitialized');
    expect(api.readiness).toBe('string');
    expect(await page.evaluate(() => (window as unknown as { pushkit: { readiness: string } }).pushkit.readiness)).toBe('ready');

    // subscription status (section 4): empty for a visitor who never subscribed nor refused
    expect(await page.evaluate(() => localStorage.getItem('wingify_push_subscription_status') ?? '')).toBe('');
    expect(await segmentCall(page, 'addToSegment', 'news')).toBe(-1);
    expect(await segmentCall(page, 'removeSubscriberFromSegment', 'news')).toBe(-1);
    await settle(page);
    expect(segmentCalls(calls)).toEqual([]);

    // the visitor uuid cookie is written to live 10000 days (section 9); Chromium keeps a cookie at most 400 days
    const written = await page.evaluate(() => (window as unknown as { uuidCookies: string[] }).uuidCookies);
    expect(written).toHaveLength(1);
    expect(/;max-age=(\d+)/i.exec(written[0]!)![1]).toBe(String(10_000 * 86_400));
    const uuid = (await context.cookies(stack.siteUrl)).find((cookie) => cookie.name === '_wingify_pc_uuid')!;
    expect(written[0]).toContain(`_wingify_pc_uuid=${uuid.value};`);
    expect(uuid.expires * 1000).toBeGreaterThan(Date.now() + 399 * 86_400_000);
    // calligraphy's segment condition reads the path only: no visit is counted, so no session cookie is written
    expect((await context.cookies(stack.siteUrl)).map((cookie) => cookie.name)).not.toContain('pushkit_session_start');
    await page.close();
  });

  it('subscribed: IndexedDB "pushkit" version 1 holds the subscription; segment names follow section 5', async () => {
    const { page, calls } = await view();
    const { subscriberId } = await subscribeThroughApi(page);
    expect(subscriberId).toMatch(/^[\w-]+$/);

    // push.js hands the subscription to its worker, which keeps it in IndexedDB (spec section 3)
    const readDatabase = () =>
      page.evaluate(async () => {
        const list = await indexedDB.databases();
        if (!list.some((entry) => entry.name === 'pushkit')) return { list, record: undefined, shape: undefined };
        const record = await new Promise<Record<string, unknown> | undefined>((resolve, reject) => {
          const open = indexedDB.open('pushkit');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const request = open.result.transaction('subscriptionInfo').objectStore('subscriptionInfo').get('subscription');
            request.onsuccess = () => {
              open.result.close();
              resolve(request.result as Record<string, unknown> | undefined);
            };
            request.onerror = () => reject(request.error);
          };
        });
        const shape = await new Promise<{ stores: string[]; keyPath: unknown }>((resolve, reject) => {
          const open = indexedDB.open('pushkit');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const stores = [...open.result.objectStoreNames];
            const keyPath = stores.length ? open.result.transaction(stores[0]!).objectStore(stores[0]!).keyPath : null;
            open.result.close();
            resolve({ stores, keyPath });
          };
        });
        return { list, record, shape };
      });
    await expect.poll(async () => (await readDatabase()).record !== undefined, { timeout: 10_000 }).toBe(true);
    const database = await readDatabase();
    expect(database.list).toContainEqual({ name: 'pushkit', version: 1 });
    // one store of subscription info, keyed by identifier
    expect(database.shape).toEqual({ stores: ['subscriptionInfo'], keyPath: 'identifier' });
    const record = database.record as { identifier: string; subscriptionString: string; timestamp: number };
    // its fields: identifier (the key, with value subscription), subscriptionString and timestamp
    expect(Object.keys(record).sort()).toEqual(['identifier', 'subscriptionString', 'timestamp']);
    expect(record.identifier).toBe('subscription');
    expect(JSON.parse(record.subscriptionString).endpoint).toMatch(/^https?:\/\//);
    expect(typeof record.timestamp).toBe('number');

    // letters, digits, "_" and "-", fewer than 30 characters: a name of 29 is added, one of 30 is refused
    const longest = `news_${'a'.repeat(24)}`;
    expect(longest).toHaveLength(29);
    expect(await segmentCall(page, 'addToSegment', longest)).toBe(true);
    expect(await segmentCall(page, 'addSubscriberToSegment', 'spring-2026')).toBe(true);
    const added = segmentCalls(calls)
      .filter((call) => call.pathname === '/as')
      .map((call) => call.searchParams.get('id'));
    expect(added).toEqual([longest, 'spring-2026']);
    // section 7: /as with id, customer_hash, subscriber_list[] and customTag; the c.gif add-segment beacon with hash,
    // subscriberId, subscriptionId, segment and action (and push-kit's subscriberSecret on both)
    const ownSecret = await page.evaluate(() => localStorage.getItem('pushkit_subscriber_secret'));
    const subscriptionId = await page.evaluate(() => localStorage.getItem('wingify_push_subscription_id'));
    const asCall = segmentCalls(calls).find((call) => call.pathname === '/as' && call.searchParams.get('id') === 'spring-2026')!;
    expect(Object.fromEntries(asCall.searchParams)).toEqual({
      id: 'spring-2026',
      customer_hash: stack.config.hash,
      'subscriber_list[]': subscriberId,
      'subscriberSecret[]': ownSecret,
      customTag: 'spring-2026',
    });
    const addBeacon = segmentCalls(calls).find((call) => call.pathname === '/c.gif' && call.searchParams.get('segment') === 'spring-2026')!;
    expect(Object.fromEntries(addBeacon.searchParams)).toEqual({
      hash: stack.config.hash,
      subscriberId,
      subscriberSecret: ownSecret,
      subscriptionId,
      segment: 'spring-2026',
      action: 'add-segment',
    });
    const { rows } = await stack.db.query<{ sid: string }>(
      `SELECT s.sid FROM segment_memberships m JOIN segments s ON s.id = m.segment_id WHERE m.subscriber_id = $1 ORDER BY s.sid`,
      [subscriberId],
    );
    expect(rows.map((row) => row.sid)).toEqual(expect.arrayContaining([longest, 'spring-2026']));

    const before = segmentCalls(calls).length;
    for (const name of [`${longest}a`, 'a b', 'a.b', "a'b", 'café', '']) {
      expect(await segmentCall(page, 'addToSegment', name), JSON.stringify(name)).toBe(false);
    }
    // removal checks the name only when one is given
    expect(await segmentCall(page, 'removeSubscriberFromSegment', `${longest}a`)).toBe(false);
    await settle(page);
    expect(segmentCalls(calls).slice(before)).toEqual([]);
    expect(await segmentCall(page, 'removeSubscriberFromSegment', '')).toBe(true);
    expect(await segmentCall(page, 'removeSubscriberFromSegment', 'spring-2026')).toBe(true);
    await settle(page);
    const removals = segmentCalls(calls)
      .slice(before)
      .map((call) => [call.pathname, call.searchParams.get('action'), call.searchParams.get('segment')]);
    expect(removals).toEqual([
      ['/c.gif', 'remove-segment', ''],
      ['/c.gif', 'remove-segment', 'spring-2026'],
    ]);
    expect(Object.fromEntries(segmentCalls(calls).at(-1)!.searchParams)).toEqual({
      hash: stack.config.hash,
      subscriberId,
      subscriberSecret: ownSecret,
      subscriptionId,
      segment: 'spring-2026',
      action: 'remove-segment',
    });

    // a segment-add call that fails resolves false (section 8): /as unreachable (its c.gif beacon still went), or
    // the provider refusing an edited secret, which joins nothing
    await page.route('**/as?*', (route) => route.abort('connectionrefused'));
    expect(await segmentCall(page, 'addSubscriberToSegment', 'unreachable')).toBe(false);
    await page.unroute('**/as?*');
    const secret = await page.evaluate(() => localStorage.getItem('pushkit_subscriber_secret'));
    await page.evaluate(() => localStorage.setItem('pushkit_subscriber_secret', 'edited-secret'));
    expect(await segmentCall(page, 'addSubscriberToSegment', 'refused')).toBe(false);
    await page.evaluate((secret) => localStorage.setItem('pushkit_subscriber_secret', secret!), secret);
    const { rows: memberships } = await stack.db.query<{ sid: string }>(
      `SELECT s.sid FROM segment_memberships m JOIN segments s ON s.id = m.segment_id WHERE m.subscriber_id = $1`,
      [subscriberId],
    );
    expect(memberships.map((row) => row.sid)).not.toEqual(expect.arrayContaining(['refused']));
    expect(await segmentCall(page, 'addSubscriberToSegment', 'reachable-again')).toBe(true);

    // tracking consent (section 3): 1 is "do not track", 0 is "track"
    await page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(false),
    );
    expect(await page.evaluate(() => localStorage.getItem('wingify_donot_track_actions'))).toBe('1');
    await page.evaluate(() =>
      (window as unknown as { pushkit: { setTrackingConsent(allowed: boolean): void } }).pushkit.setTrackingConsent(true),
    );
    expect(await page.evaluate(() => localStorage.getItem('wingify_donot_track_actions'))).toBe('0');
    await page.close();
  });

  it("a site's own swPath, firefoxSwPath, manifestUrl and servicesServerURL: push.js registers, links and calls them", async () => {
    const custom = await startStack({
      overrides: ({ providerPort }) => ({
        swPath: '/push-sw.js?v=2',
        firefoxSwPath: '/push-sw-firefox.js',
        manifestUrl: '/push-manifest.json',
        servicesServerURL: `http://127.0.0.1:${providerPort}`,
      }),
    });
    const port = new URL(custom.providerUrl).port;
    try {
      await context.grantPermissions(['notifications'], { origin: custom.siteUrl });
      const visit = async (userAgent?: string) => {
        const page = await context.newPage();
        if (userAgent) await (await context.newCDPSession(page)).send('Emulation.setUserAgentOverride', { userAgent });
        const syncs: URLSearchParams[] = [];
        const segmentAdds: URL[] = [];
        page.on('request', (request) => {
          if (request.url().endsWith('/syncSubscriptionAction.php')) syncs.push(new URLSearchParams(request.postData() ?? ''));
          if (new URL(request.url()).pathname === '/as') segmentAdds.push(new URL(request.url()));
        });
        await page.goto(`${custom.siteUrl}/`);
        const { subscriberId } = await subscribeThroughApi(page);
        const script = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/'))?.active?.scriptURL);
        return { page, syncs, segmentAdds, subscriberId, script };
      };

      const chrome = await visit();
      expect(chrome.script).toBe(`${custom.siteUrl}/push-sw.js?v=2`);
      expect(await chrome.page.locator('link[rel="manifest"]').getAttribute('href')).toBe('/push-manifest.json');
      const insert = chrome.syncs.find((sync) => sync.get('action') === 'insert')!;
      expect(insert.get('serviceWorkerPath')).toBe('/push-sw.js?v=2');
      expect(await segmentCall(chrome.page, 'addSubscriberToSegment', 'own-services')).toBe(true);
      expect(chrome.segmentAdds.map((call) => call.origin)).toEqual([`http://127.0.0.1:${port}`]);
      // a new visitor in Firefox: its own worker
      await chrome.page.evaluate(async () => {
        localStorage.clear();
        for (const registration of await navigator.serviceWorker.getRegistrations()) await registration.unregister();
      });
      await chrome.page.close();
      await context.clearCookies();

      const firefox = await visit('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0');
      expect(firefox.script).toBe(`${custom.siteUrl}/push-sw-firefox.js`);
      const firefoxInsert = firefox.syncs.find((sync) => sync.get('action') === 'insert')!;
      expect(firefoxInsert.get('serviceWorkerPath')).toBe('/push-sw-firefox.js');
      expect(firefoxInsert.get('browserType')).toBe('firefox');
      expect(firefoxInsert.get('firefoxEncryptionKey')).toMatch(/^[\w-]{80,}$/);
      await firefox.page.close();
    } finally {
      await custom.close();
    }
  });
});
