// The service worker handlers (worker/push-handlers.ts) on a fake ServiceWorkerGlobalScope.
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clickTarget, installPushHandlers } from '../../worker/push-handlers.ts';
import { installLifecycle, maySkipWaiting } from '../../worker/lifecycle.ts';
import { readSubscription, saveSubscription } from '../../runtime/subscription-db.ts';
import type { WorkerSiteModule } from '../../runtime/site-module.ts';

const site: WorkerSiteModule = {
  hash: 'calligraphy-test-01',
  origin: 'https://calligraphy.test',
  serverSyncUrl: 'https://sync.test',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
  swScope: '/',
  iconUrl: 'https://calligraphy.test/icon.png',
  companyName: 'Calligraphy',
  notificationClickOrigins: ['https://shop.calligraphy.test'],
};

function fakeWorker(browserType?: string, workerSite: WorkerSiteModule = site) {
  const target = new EventTarget();
  const shown: { title: string; options: NotificationOptions }[] = [];
  const opened: string[] = [];
  const focused: string[] = [];
  const posts: { url: string; init: RequestInit }[] = [];
  const windows = [{ url: 'https://calligraphy.test/gallery', focus: async () => void focused.push('https://calligraphy.test/gallery') }];
  const renewed = {
    endpoint: 'https://fcm.googleapis.com/fcm/send/token-renewed',
    toJSON: () => ({ endpoint: 'https://fcm.googleapis.com/fcm/send/token-renewed', keys: { p256dh: 'p256', auth: 'auth' } }),
  };
  const badges: number[] = [];
  const scope = Object.assign(target, {
    navigator: { setAppBadge: async (contents: number) => void badges.push(contents) },
    registration: {
      showNotification: async (title: string, options: NotificationOptions) => void shown.push({ title, options }),
      pushManager: {
        getSubscription: async () => ({ endpoint: 'https://fcm.googleapis.com/fcm/send/token-1' }),
        subscribe: vi.fn(async () => renewed),
      },
    },
    clients: {
      matchAll: async () => windows,
      openWindow: async (url: string) => void opened.push(url),
      claim: vi.fn(),
    },
    skipWaiting: vi.fn(),
  });
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      posts.push({ url, init });
      return new Response('{"status":"success"}');
    }),
  );
  const installed = installPushHandlers(scope as unknown as ServiceWorkerGlobalScope, workerSite, browserType);
  const dispatch = async (type: string, fields: Record<string, unknown>): Promise<void> => {
    const pending: Promise<unknown>[] = [];
    const event = Object.assign(new Event(type), { waitUntil: (promise: Promise<unknown>) => pending.push(promise), ...fields });
    target.dispatchEvent(event);
    await Promise.all(pending);
  };
  const pushData = (value: unknown) => ({
    data: { json: () => (typeof value === 'string' ? JSON.parse(value) : value), text: () => String(value) },
  });
  return { scope, shown, opened, focused, posts, badges, dispatch, pushData, installed };
}

const notification = (data: unknown) => ({ data, close: vi.fn() });

beforeEach(async () => {
  await saveSubscription(undefined);
});
afterEach(() => vi.unstubAllGlobals());

describe('push', () => {
  it('shows the payload as a notification and reports shown', async () => {
    const worker = fakeWorker();
    await worker.dispatch(
      'push',
      worker.pushData({
        title: 'New submission',
        body: 'A new Calligraphy submission',
        image: 'https://cdn.test/i.png',
        badge: 'https://cdn.test/b.png',
        url: '/submissions/7',
        tag: 'sub-7',
        requireInteraction: true,
        campaignId: 12,
        actions: [{ action: 'view', title: 'View', url: '/submissions/7?from=action' }],
      }),
    );
    expect(worker.shown).toHaveLength(1);
    expect(worker.shown[0]!.title).toBe('New submission');
    expect(worker.shown[0]!.options).toMatchObject({
      body: 'A new Calligraphy submission',
      icon: site.iconUrl,
      image: 'https://cdn.test/i.png',
      badge: 'https://cdn.test/b.png',
      tag: 'sub-7',
      requireInteraction: true,
      actions: [{ action: 'view', title: 'View' }],
      data: { url: '/submissions/7', campaignId: 12 },
    });
    expect(worker.posts).toHaveLength(1);
    expect(worker.posts[0]!.url).toBe('https://sync.test/notificationEvent');
    expect(JSON.parse(String(worker.posts[0]!.init.body))).toEqual({
      hash: site.hash,
      campaignId: 12,
      endpoint: 'https://fcm.googleapis.com/fcm/send/token-1',
      event: 'shown',
    });
  });

  it('tags a campaign message by its campaign, so a second copy replaces the first; a payload tag wins', async () => {
    const worker = fakeWorker();
    await worker.dispatch('push', worker.pushData({ title: 'Sale', campaignId: 31 }));
    await worker.dispatch('push', worker.pushData({ title: 'Sale', campaignId: 31 }));
    await worker.dispatch('push', worker.pushData({ title: 'Hello' }));
    expect(worker.shown.map((shown) => shown.options.tag)).toEqual(['pushkit-campaign-31', 'pushkit-campaign-31', undefined]);
  });

  it.each([
    ['an empty payload', null],
    ['a payload without a title', { body: '' }],
    ['a blank title', { title: '   ', body: '  ' }],
    ['a title that is not text', { title: 42, body: ['x'] }],
    ['text that is not JSON', 'plain words'],
    ['JSON that is not an object', 'null'],
  ])('never shows an empty notification: %s', async (_, value) => {
    const worker = fakeWorker();
    await worker.dispatch('push', value === null ? { data: null } : worker.pushData(value));
    expect(worker.shown).toHaveLength(1);
    expect(worker.shown[0]!.title).toBe('Calligraphy');
    expect(worker.shown[0]!.options.icon).toBe(site.iconUrl);
    expect(worker.posts).toEqual([]);
  });

  it('a notification the browser refuses is shown again as text, never not at all (no silent push)', async () => {
    const worker = fakeWorker();
    const show = worker.scope.registration.showNotification;
    worker.scope.registration.showNotification = async (title: string, options: NotificationOptions) => {
      if ((options as { image?: string }).image) throw new TypeError('image: not supported');
      return show(title, options);
    };
    await worker.dispatch(
      'push',
      worker.pushData({ title: 'Cart', body: 'Ink', image: 'https://cdn.test/i.png', tag: 't', campaignId: 5 }),
    );
    expect(worker.shown).toHaveLength(1);
    expect(worker.shown[0]).toMatchObject({
      title: 'Cart',
      options: { body: 'Ink', icon: site.iconUrl, tag: 't', data: { campaignId: 5 } },
    });
    expect(JSON.parse(String(worker.posts[0]!.init.body))).toMatchObject({ campaignId: 5, event: 'shown' });
  });

  it('keeps the text of a payload that is not JSON as the body', async () => {
    const worker = fakeWorker();
    await worker.dispatch('push', worker.pushData('plain words'));
    expect(worker.shown[0]!.options.body).toBe('plain words');
  });

  it('drops actions without an action id or a title', async () => {
    const worker = fakeWorker();
    await worker.dispatch(
      'push',
      worker.pushData({ title: 'T', actions: [{ action: 'ok', title: 'OK' }, { action: '', title: 'No id' }, { action: 'x' }, null] }),
    );
    expect((worker.shown[0]!.options as { actions?: unknown }).actions).toEqual([{ action: 'ok', title: 'OK', icon: undefined }]);
  });

  const declarative = {
    web_push: 8030,
    notification: {
      title: 'Spring class',
      navigate: 'https://calligraphy.test/classes?pushkit_click=41.AAAAAAAAAAAAAAAAAAAAAA',
      body: 'Seats are open',
      icon: 'https://cdn.test/icon.png',
      image: 'https://cdn.test/wide.png',
      tag: 'pushkit-campaign-41',
      lang: 'en',
      dir: 'ltr',
      actions: [{ action: 'shop', title: 'Shop', navigate: 'https://shop.calligraphy.test/cart?pushkit_click=41.AAAAAAAAAAAAAAAAAAAAAA' }],
      data: { campaignId: '41', click: '41.AAAAAAAAAAAAAAAAAAAAAA' },
    },
    app_badge: 4,
    mutable: true,
  };

  it('shows a declarative message where the browser does not, sets its badge and reports shown with its click token', async () => {
    const worker = fakeWorker();
    await worker.dispatch('push', worker.pushData(declarative));
    expect(worker.shown).toHaveLength(1);
    expect(worker.shown[0]!.title).toBe('Spring class');
    expect(worker.shown[0]!.options).toMatchObject({
      body: 'Seats are open',
      icon: 'https://cdn.test/icon.png',
      image: 'https://cdn.test/wide.png',
      tag: 'pushkit-campaign-41',
      lang: 'en',
      dir: 'ltr',
      actions: [{ action: 'shop', title: 'Shop' }],
      data: {
        url: declarative.notification.navigate,
        campaignId: '41',
        click: '41.AAAAAAAAAAAAAAAAAAAAAA',
        actionUrls: { shop: declarative.notification.actions[0]!.navigate },
      },
    });
    expect(worker.badges).toEqual([4]);
    expect(JSON.parse(String(worker.posts[0]!.init.body))).toEqual({
      hash: site.hash,
      campaignId: '41',
      endpoint: 'https://fcm.googleapis.com/fcm/send/token-1',
      click: '41.AAAAAAAAAAAAAAAAAAAAAA',
      event: 'shown',
    });
  });

  it('only reports a declarative message the browser already shows (its push event carries the notification)', async () => {
    const worker = fakeWorker();
    await worker.dispatch('push', { ...worker.pushData(declarative), notification: { data: declarative.notification.data } });
    expect(worker.shown).toEqual([]);
    expect(worker.badges).toEqual([]);
    expect(JSON.parse(String(worker.posts[0]!.init.body))).toMatchObject({
      campaignId: '41',
      click: '41.AAAAAAAAAAAAAAAAAAAAAA',
      event: 'shown',
    });
  });

  it('never shows an empty notification for a declarative message without a notification', async () => {
    const worker = fakeWorker();
    await worker.dispatch('push', worker.pushData({ web_push: 8030, notification: 'title' }));
    expect(worker.shown[0]!.title).toBe('Calligraphy');
  });

  it('installs its handlers once, so importing the worker part twice shows one notification', async () => {
    const worker = fakeWorker();
    expect(worker.installed).toBe(true);
    expect(installPushHandlers(worker.scope as unknown as ServiceWorkerGlobalScope, site)).toBe(false);
    await worker.dispatch('push', worker.pushData({ title: 'Once' }));
    expect(worker.shown.map((entry) => entry.title)).toEqual(['Once']);
  });
});

describe('notificationclick', () => {
  it.each([
    ['a same-origin path', { url: '/submissions/7', campaignId: '5' }, '', 'https://calligraphy.test/submissions/7'],
    ['the URL of the clicked action', { url: '/a', campaignId: '5', actionUrls: { view: '/b' } }, 'view', 'https://calligraphy.test/b'],
    [
      'a configured other origin',
      { url: 'https://shop.calligraphy.test/cart?x=1', campaignId: '5' },
      '',
      'https://shop.calligraphy.test/cart?x=1',
    ],
    ['another origin, refused for the site', { url: 'https://evil.test/phish', campaignId: '5' }, '', 'https://calligraphy.test/'],
    [
      'a look-alike of a configured origin, refused',
      { url: 'https://shop.calligraphy.test.evil.test/', campaignId: '5' },
      '',
      'https://calligraphy.test/',
    ],
    [
      'an action URL on another origin, refused',
      { url: '/a', campaignId: '5', actionUrls: { view: 'https://evil.test/' } },
      'view',
      'https://calligraphy.test/',
    ],
    ['javascript:, refused for the site', { url: 'javascript:alert(1)', campaignId: '5' }, '', 'https://calligraphy.test/'],
    ['data:, refused for the site', { url: 'data:text/html,<script>alert(1)</script>', campaignId: '5' }, '', 'https://calligraphy.test/'],
    ['protocol-relative //evil.test, refused', { url: '//evil.test/x', campaignId: '5' }, '', 'https://calligraphy.test/'],
  ])('opens %s and reports clicked', async (_, data, action, expected) => {
    const worker = fakeWorker();
    const shownNotification = notification(data);
    await worker.dispatch('notificationclick', { notification: shownNotification, action });
    expect(shownNotification.close).toHaveBeenCalled();
    expect(worker.opened).toEqual([expected]);
    expect(JSON.parse(String(worker.posts[0]!.init.body))).toMatchObject({ event: 'clicked', campaignId: '5', hash: site.hash });
    expect(worker.scope.clients.claim).not.toHaveBeenCalled();
    expect(worker.scope.skipWaiting).not.toHaveBeenCalled();
  });

  it('falls back to the home page, not the worker scope, when the worker has a narrower scope', () => {
    const scoped = { ...site, swScope: '/push/' };
    expect(clickTarget({ url: 'https://evil.test/' }, '', scoped)).toBe('https://calligraphy.test/');
    expect(clickTarget(undefined, '', scoped)).toBe('https://calligraphy.test/');
    expect(clickTarget({ url: '/gallery' }, '', scoped)).toBe('https://calligraphy.test/gallery');
  });

  it('does not report a click on a notification without a campaign', async () => {
    const worker = fakeWorker();
    await worker.dispatch('notificationclick', { notification: notification({ url: '/gallery/new' }), action: '' });
    expect(worker.opened).toEqual(['https://calligraphy.test/gallery/new']);
    expect(worker.posts).toEqual([]);
  });

  it('focuses a window already on the URL instead of opening another', async () => {
    const worker = fakeWorker();
    await worker.dispatch('notificationclick', { notification: notification({ url: '/gallery' }), action: '' });
    expect(worker.focused).toEqual(['https://calligraphy.test/gallery']);
    expect(worker.opened).toEqual([]);
  });
});

it('notificationclose reports closed', async () => {
  const worker = fakeWorker();
  await worker.dispatch('notificationclose', { notification: notification({ campaignId: 9 }) });
  expect(JSON.parse(String(worker.posts[0]!.init.body))).toMatchObject({ event: 'closed', campaignId: 9 });
});

it('keeps the subscription the page posts in IndexedDB', async () => {
  const worker = fakeWorker();
  await worker.dispatch('message', { data: { pushkitSubscription: { endpoint: 'https://push.test/send/abc', keys: { auth: 'a' } } } });
  await expect(readSubscription()).resolves.toEqual({ endpoint: 'https://push.test/send/abc', keys: { auth: 'a' } });
  await worker.dispatch('message', { data: { pushkitSubscription: null } });
  await expect(readSubscription()).resolves.toBeUndefined();
});

describe('pushsubscriptionchange', () => {
  it('re-subscribes with the site key and posts update-google-registration-id with the previous id', async () => {
    await saveSubscription({ endpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    const worker = fakeWorker('firefox');
    worker.scope.registration.pushManager.getSubscription = async () => null as never;
    await worker.dispatch('pushsubscriptionchange', {});
    const init = worker.scope.registration.pushManager.subscribe.mock.calls[0] as unknown as [PushSubscriptionOptionsInit];
    expect(init[0].userVisibleOnly).toBe(true);
    expect(new Uint8Array(init[0].applicationServerKey as Uint8Array)).toHaveLength(65);
    const post = worker.posts[0]!;
    expect(post.url).toBe('https://sync.test/syncSubscriptionAction.php');
    const form = post.init.body as URLSearchParams;
    expect(form.get('action')).toBe('update-google-registration-id');
    expect(form.get('previousSubscriptionId')).toBe('token-old');
    expect(form.get('subscriptionId')).toBe('token-renewed');
    expect(form.get('browserType')).toBe('firefox');
    expect(form.get('firefoxEncryptionKey')).toBe('p256');
    expect(form.get('hash')).toBe(site.hash);
    await expect(readSubscription()).resolves.toMatchObject({ endpoint: 'https://fcm.googleapis.com/fcm/send/token-renewed' });
  });
});

describe('sw.js lifecycle', () => {
  const own = 'https://calligraphy.test/sw.js';
  it.each([
    ['no active worker yet (first install)', undefined, true],
    ['an older sw.js', 'https://calligraphy.test/sw.js', true],
    ['an older sw.js with another query', 'https://calligraphy.test/sw.js?v=2', true],
    ["the site's own worker at the same scope", 'https://calligraphy.test/service-worker.js', false],
    ['a worker of another origin', 'https://cdn.test/sw.js', false],
    ['a broken URL', 'not a url', false],
  ])('skips waiting over %s: %s', (_, active, expected) => {
    expect(maySkipWaiting(active, own)).toBe(expected);
  });

  it.each([
    [undefined, 1],
    ['https://calligraphy.test/other-sw.js', 0],
  ])('install with the active worker %s calls skipWaiting %d time(s) and never claims', async (active, calls) => {
    const target = new EventTarget();
    const scope = Object.assign(target, {
      location: { href: own },
      registration: { active: active ? { scriptURL: active } : null },
      skipWaiting: vi.fn(async () => undefined),
      clients: { claim: vi.fn() },
    });
    installLifecycle(scope as unknown as ServiceWorkerGlobalScope);
    const pending: Promise<unknown>[] = [];
    target.dispatchEvent(Object.assign(new Event('install'), { waitUntil: (promise: Promise<unknown>) => pending.push(promise) }));
    target.dispatchEvent(Object.assign(new Event('activate'), { waitUntil: (promise: Promise<unknown>) => pending.push(promise) }));
    await Promise.all(pending);
    expect(scope.skipWaiting).toHaveBeenCalledTimes(calls);
    expect(scope.clients.claim).not.toHaveBeenCalled();
  });
});
