// The service worker handlers (worker/push-handlers.ts) on a fake ServiceWorkerGlobalScope.
import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installPushHandlers } from '../../worker/push-handlers.ts';
import { readSubscription, saveSubscription } from '../../runtime/subscription-db.ts';
import type { WorkerSiteModule } from '../../runtime/site-module.ts';

const site: WorkerSiteModule = {
  hash: 'calligraphy-test-01',
  origin: 'https://calligraphy.test',
  serverSyncUrl: 'https://sync.test',
  vapidPublicKey: 'BFKo5GIcLCMs9Ae8SgHreENPXXc1TSr_3fP5G6HQ7x7tlImTblyxQQD0AU3FnojCAJlGd0DkVT5Syn7ENsGpq1s',
  swScope: '/',
  iconUrl: 'https://calligraphy.test/icon.png',
};

function fakeWorker(browserType?: string) {
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
  const scope = Object.assign(target, {
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
  vi.stubGlobal('fetch', vi.fn(async (url: string, init: RequestInit) => {
    posts.push({ url, init });
    return new Response('{"status":"success"}');
  }));
  installPushHandlers(scope as unknown as ServiceWorkerGlobalScope, site, browserType);
  const dispatch = async (type: string, fields: Record<string, unknown>): Promise<void> => {
    const pending: Promise<unknown>[] = [];
    const event = Object.assign(new Event(type), { waitUntil: (promise: Promise<unknown>) => pending.push(promise), ...fields });
    target.dispatchEvent(event);
    await Promise.all(pending);
  };
  const pushData = (value: unknown) => ({
    data: { json: () => (typeof value === 'string' ? JSON.parse(value) : value), text: () => String(value) },
  });
  return { scope, shown, opened, focused, posts, dispatch, pushData };
}

const notification = (data: unknown) => ({ data, close: vi.fn() });

beforeEach(async () => {
  await saveSubscription(undefined);
});
afterEach(() => vi.unstubAllGlobals());

describe('push', () => {
  it('shows the payload as a notification and reports shown', async () => {
    const worker = fakeWorker();
    await worker.dispatch('push', worker.pushData({
      title: 'New submission', body: 'A new Calligraphy submission', image: 'https://cdn.test/i.png', badge: 'https://cdn.test/b.png',
      url: '/submissions/7', tag: 'sub-7', requireInteraction: true, campaignId: 12,
      actions: [{ action: 'view', title: 'View', url: '/submissions/7?from=action' }],
    }));
    expect(worker.shown).toHaveLength(1);
    expect(worker.shown[0]!.title).toBe('New submission');
    expect(worker.shown[0]!.options).toMatchObject({
      body: 'A new Calligraphy submission', icon: site.iconUrl, image: 'https://cdn.test/i.png', badge: 'https://cdn.test/b.png', tag: 'sub-7',
      requireInteraction: true, actions: [{ action: 'view', title: 'View' }], data: { url: '/submissions/7', campaignId: 12 },
    });
    expect(worker.posts).toHaveLength(1);
    expect(worker.posts[0]!.url).toBe('https://sync.test/notificationEvent');
    expect(JSON.parse(String(worker.posts[0]!.init.body))).toEqual({ hash: site.hash, campaignId: 12, endpoint: 'https://fcm.googleapis.com/fcm/send/token-1', event: 'shown' });
  });

  it.each([
    ['an empty payload', null],
    ['a payload without a title', { body: '' }],
    ['text that is not JSON', 'plain words'],
  ])('never shows an empty notification: %s', async (_, value) => {
    const worker = fakeWorker();
    await worker.dispatch('push', value === null ? { data: null } : worker.pushData(value));
    expect(worker.shown).toHaveLength(1);
    expect(worker.shown[0]!.title).toBe('calligraphy.test');
    expect(worker.posts).toEqual([]);
  });
});

describe('notificationclick', () => {
  it.each([
    ['a same-origin path', { url: '/submissions/7', campaignId: '5' }, '', 'https://calligraphy.test/submissions/7'],
    ['the URL of the clicked action', { url: '/a', campaignId: '5', actionUrls: { view: '/b' } }, 'view', 'https://calligraphy.test/b'],
    ['another origin, refused for the site', { url: 'https://evil.test/phish', campaignId: '5' }, '', 'https://calligraphy.test/'],
    ['javascript:, refused for the site', { url: 'javascript:alert(1)', campaignId: '5' }, '', 'https://calligraphy.test/'],
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
