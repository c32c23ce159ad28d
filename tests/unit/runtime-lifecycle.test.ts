// @vitest-environment happy-dom
// The subscriber lifecycle of a page view (spec sections 4, 7 and 8) through the public API.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { site } from '../fixtures/site-module.ts';
import { startRuntime } from '../../runtime/api.ts';
import { inlineChunk, microtasks } from '../support/inline-chunk.ts';
import type { OptInResult } from '../../runtime/messages.ts';
import { CHROME_UA, installBrowser, ISSUED_SECRET, resetPage, settle } from '../support/runtime-test-browser.ts';

const SYNC_FIELDS = [
  'hash',
  'subscription',
  'subscriberId',
  'previousSubscriptionId',
  'subscriptionId',
  'subscriptionEndPoint',
  'action',
  'origin',
  'firefoxEncryptionKey',
  'browserType',
  'userLanguage',
  'userTimezoneOffset',
  'userTimezone',
  'websitePushId',
  'vapidPublicKey',
  'subscriptionDomainUrl',
  'serviceWorkerPath',
  'subscriptionPageUrl',
  'pageClickTrackingPermission',
  'gcmSenderId',
];

/** Stored state of a visitor whose subscription the provider already has. */
function storeSyncedVisitor(overrides: Record<string, string> = {}): void {
  const values: Record<string, string> = {
    wingify_push_subscriber_id: 'sub-1',
    pushkit_subscriber_secret: 'stored-secret-of-sub-1',
    wingify_push_subscription_id: 'token-old',
    wingify_push_subscription_endpoint: 'https://fcm.googleapis.com/fcm/send/token-old',
    wingify_push_subscription_status: 'subscribed',
    wingify_push_db_status: 'true',
    wingify_push_subscriber_lang: navigator.language,
    pshcrw_v_k: site.vapidPublicKey,
    wingify_donot_track_actions: '0',
    ...overrides,
  };
  for (const [key, value] of Object.entries(values)) localStorage.setItem(key, value);
}

/** Clicks a button of the prompt on screen (the fixture site has the branding modal, so that is the soft prompt). */
function clickShown(action: 'yes' | 'no' | 'close'): void {
  const button = document.querySelector<HTMLElement>(`#pushkit-prompts [data-pk]:not([hidden]) [data-pk-action="${action}"]`);
  if (!button) throw new Error('no prompt on screen with a ' + action + ' button');
  button.click();
}

/**
 * Starts the runtime and subscribes through the API, clicking Yes on the soft prompt. The view's own prompt trigger
 * is off: 5 s in (a loaded machine's view may last that long), it offers again and subscribes a granted visitor.
 */
async function optInThroughApi() {
  const api = startRuntime({ ...site, triggers: { ...site.triggers, anyOf: [] } }, inlineChunk);
  const results: { success?: [string | undefined, OptInResult]; failure?: OptInResult; shown: number } = { shown: 0 };
  api.subscriptionSuccessCallback((id, result) => (results.success = [id, result]));
  api.subscriptionFailureCallback((result) => (results.failure = result));
  api.optInShownCallback(() => results.shown++);
  api.triggerOptIn();
  await settle();
  clickShown('yes');
  await settle(40);
  return { api, results };
}

beforeEach(() => resetPage());
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('subscribing (spec section 4 "Result of a subscribe attempt")', () => {
  it('granted: subscribes with the VAPID key, sends insert with every payload field and reports SUBSCRIBED', async () => {
    const browser = installBrowser({ answer: 'granted' });
    const { results } = await optInThroughApi();
    expect(results.shown).toBe(1);
    expect(results.success).toEqual(['sub-1', { status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' }]);
    expect(browser.register).toHaveBeenCalledWith('/sw.js', { scope: '/' });
    expect(browser.subscribeCalls[0]?.userVisibleOnly).toBe(true);
    expect(Array.from(browser.subscribeCalls[0]?.applicationServerKey as Uint8Array)).toHaveLength(65);
    const [insert] = browser.syncCalls();
    expect(insert?.method).toBe('POST');
    expect([...insert!.form.keys()]).toEqual(expect.arrayContaining(SYNC_FIELDS));
    expect(insert!.form.get('action')).toBe('insert');
    expect(insert!.form.get('hash')).toBe(site.hash);
    expect(JSON.parse(insert!.form.get('subscription')!)).toMatchObject({ endpoint: 'https://fcm.googleapis.com/fcm/send/token-new' });
    expect(insert!.form.get('subscriptionId')).toBe('token-new');
    expect(insert!.form.get('browserType')).toBe('chrome');
    expect(insert!.form.get('userTimezoneOffset')).toBe(String(new Date().getTimezoneOffset()));
    expect(localStorage.getItem('wingify_push_subscriber_id')).toBe('sub-1');
    expect(localStorage.getItem('wingify_push_subscription_status')).toBe('subscribed');
    expect(localStorage.getItem('wingify_push_db_status')).toBe('true');
    expect(browser.posted).toContainEqual({
      pushkitSubscription: expect.objectContaining({ endpoint: 'https://fcm.googleapis.com/fcm/send/token-new' }),
    });
  });

  it('shows the context box while the browser asks, and hides it after', async () => {
    let contextVisible = false;
    const browser = installBrowser({ answer: 'granted' });
    browser.requestPermission.mockImplementationOnce(async () => {
      contextVisible = !document.querySelector<HTMLElement>('[data-pk="context"]')!.hidden;
      browser.state.permission = 'granted';
      return 'granted';
    });
    await optInThroughApi();
    expect(contextVisible).toBe(true);
    expect(document.querySelector<HTMLElement>('[data-pk="context"]')!.hidden).toBe(true);
  });

  it('denied: BLOCKED, the do-not-show flag with an expiry, status blocked', async () => {
    installBrowser({ answer: 'denied' });
    const { results } = await optInThroughApi();
    expect(results.failure).toEqual({ status: 'BLOCKED', message: 'User has blocked push notifications.' });
    expect(Number(localStorage.getItem('wingify_push_do_not_show_notification_popup'))).toBeGreaterThan(Date.now());
    expect(localStorage.getItem('wingify_push_subscription_status')).toBe('blocked');
  });

  it('closed after 500 ms: CANCELLED "User has closed the notifications opt-in."', async () => {
    installBrowser({ answer: 'default', answerAfterMs: 550 });
    const api = startRuntime(site, inlineChunk);
    let failure: OptInResult | undefined;
    api.subscriptionFailureCallback((result) => (failure = result));
    api.triggerOptIn();
    await settle();
    clickShown('yes');
    // 550 ms of the default 1 s go to the prompt's answer: a loaded machine needs more for the rest
    await vi.waitFor(() => expect(failure).toEqual({ status: 'CANCELLED', message: 'User has closed the notifications opt-in.' }), {
      timeout: 30_000,
    });
  });

  it('closed within 500 ms of display counts as blocked by the browser', async () => {
    installBrowser({ answer: 'default' });
    const { results } = await optInThroughApi();
    expect(results.failure).toEqual({ status: 'BLOCKED', message: 'User has blocked push notifications.' });
  });

  it('subscribe failure with a vapid key: one retry with the numeric gcm_sender_id of the manifest', async () => {
    const browser = installBrowser({
      answer: 'granted',
      subscribeFailures: 1,
      replies: { '/manifest.json': { gcm_sender_id: '103953800507' } },
    });
    const { results } = await optInThroughApi();
    expect(browser.subscribeCalls).toHaveLength(2);
    expect(browser.subscribeCalls[1]).toEqual({ userVisibleOnly: true });
    expect(localStorage.getItem('wingify_push_gcm_id')).toBe('103953800507');
    expect(document.querySelector('link[rel="manifest"]')?.getAttribute('href')).toBe('/manifest.json');
    expect(browser.syncCalls()[0]!.form.get('gcmSenderId')).toBe('103953800507');
    expect(results.success?.[1].status).toBe('SUBSCRIBED');
  });

  it.each([
    ['a missing manifest', undefined],
    ['an empty manifest', {}],
    ['a non-numeric sender id', { gcm_sender_id: 'abc' }],
  ])('subscribe failure with %s: CANCELLED "Could Not Subscribe."', async (_, manifest) => {
    const browser = installBrowser({ answer: 'granted', subscribeFailures: 2, replies: manifest ? { '/manifest.json': manifest } : {} });
    const { results } = await optInThroughApi();
    expect(results.failure).toEqual({ status: 'CANCELLED', message: 'Could Not Subscribe.' });
    expect(browser.subscribeCalls).toHaveLength(1);
    expect(browser.syncCalls()).toHaveLength(0);
  });

  it('a failed retry is CANCELLED "Could Not Subscribe."', async () => {
    const browser = installBrowser({ answer: 'granted', subscribeFailures: 2, replies: { '/manifest.json': { gcm_sender_id: '42' } } });
    const { results } = await optInThroughApi();
    expect(browser.subscribeCalls).toHaveLength(2);
    expect(results.failure).toEqual({ status: 'CANCELLED', message: 'Could Not Subscribe.' });
  });

  it('a sync error leaves db status false, keeps the ids, and the next view sends insert-failed', async () => {
    const browser = installBrowser({ answer: 'granted', replies: { '/syncSubscriptionAction.php': new TypeError('Failed to fetch') } });
    const { results } = await optInThroughApi();
    expect(results.success).toBeUndefined();
    expect(localStorage.getItem('wingify_push_db_status')).toBe('false');
    expect(localStorage.getItem('wingify_push_subscription_id')).toBe('token-new');
    browser.state.replies['/syncSubscriptionAction.php'] = { status: 'success', subscriberId: 'sub-9' };
    await startRuntime(site, inlineChunk).ready;
    expect(browser.syncCalls().at(-1)!.form.get('action')).toBe('insert-failed');
    expect(localStorage.getItem('wingify_push_subscriber_id')).toBe('sub-9');
    expect(localStorage.getItem('wingify_push_db_status')).toBe('true');
  });

  it('a failure reply is an error too', async () => {
    installBrowser({ answer: 'granted', replies: { '/syncSubscriptionAction.php': { status: 'failure', message: 'nope' } } });
    await optInThroughApi();
    expect(localStorage.getItem('wingify_push_db_status')).toBe('false');
    expect(localStorage.getItem('wingify_push_subscriber_id')).toBeNull();
  });
});

describe('page views (spec section 4 "Update decision")', () => {
  it('a subscriber already in sync makes no sync call: only the user-properties refresh of an everything-on build', async () => {
    storeSyncedVisitor();
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    await startRuntime(site, inlineChunk).ready;
    await settle();
    // every flag is on here (vitest.config.ts), refreshUserProperties's among them; a site without it makes no
    // call at all (E/spec-bundle-state, the built push.js)
    expect(browser.fetchCalls.map((call) => new URL(call.url).pathname)).toEqual(['/dyn']);
  });

  it('language changed: http-sync', async () => {
    storeSyncedVisitor({ wingify_push_subscriber_lang: 'fr-FR' });
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    await startRuntime(site, inlineChunk).ready;
    expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['http-sync']);
    expect(localStorage.getItem('wingify_push_subscriber_lang')).toBe(navigator.language);
  });

  it('registration id changed: update-google-registration-id with the previous id', async () => {
    storeSyncedVisitor();
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-2' });
    await startRuntime(site, inlineChunk).ready;
    const [call] = browser.syncCalls();
    expect(call!.form.get('action')).toBe('update-google-registration-id');
    expect(call!.form.get('previousSubscriptionId')).toBe('token-old');
    expect(call!.form.get('subscriptionId')).toBe('token-2');
    expect(localStorage.getItem('wingify_push_subscription_id')).toBe('token-2');
  });

  it('a new VAPID key: the old subscription is replaced and synced as a moved registration', async () => {
    storeSyncedVisitor({ pshcrw_v_k: 'an-old-key' });
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    await startRuntime(site, inlineChunk).ready;
    expect(browser.subscribeCalls).toHaveLength(1);
    expect(browser.syncCalls()[0]!.form.get('action')).toBe('update-google-registration-id');
    expect(localStorage.getItem('pshcrw_v_k')).toBe(site.vapidPublicKey);
  });

  it.each(['denied', 'default'] as const)(
    'permission turned %s behind our back: unsubscribe-native, stored data cleared',
    async (permission) => {
      storeSyncedVisitor();
      const browser = installBrowser({ permission, existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
      await startRuntime(site, inlineChunk).ready;
      expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['unsubscribe-native']);
      expect(browser.syncCalls()[0]!.form.get('subscriberId')).toBe('sub-1');
      expect(localStorage.getItem('wingify_push_subscriber_id')).toBeNull();
      expect(localStorage.getItem('wingify_push_subscription_id')).toBeNull();
      expect(localStorage.getItem('wingify_push_subscription_status')).toBe(permission === 'denied' ? 'blocked' : 'unsubscribed');
    },
  );

  it("a view reads document.cookie once: the chunk that starts on it reads the core's snapshot", async () => {
    storeSyncedVisitor({ wingify_push_subscriber_lang: 'fr-FR' });
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    document.cookie = '_wingify_pc_uuid=uuid-of-this-visitor;path=/';
    let owner = Object.getPrototypeOf(document) as object;
    while (!Object.getOwnPropertyDescriptor(owner, 'cookie')) owner = Object.getPrototypeOf(owner) as object;
    const cookie = Object.getOwnPropertyDescriptor(owner, 'cookie')!;
    let reads = 0;
    Object.defineProperty(document, 'cookie', {
      configurable: true,
      get: () => (reads++, cookie.get!.call(document)),
      set: (value: string) => cookie.set!.call(document, value),
    });
    try {
      // a page's first start: fresh modules (storage.ts keeps the snapshot per page; earlier tests' starts dropped it)
      vi.resetModules();
      const fresh = await import('../../runtime/api.ts');
      const { inlineChunk: freshChunk } = await import('../support/inline-chunk.ts');
      await fresh.startRuntime(site, freshChunk).ready;
      expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['http-sync']);
      expect(browser.syncCalls()[0]!.form.get('uuid')).toBe('uuid-of-this-visitor');
      expect(reads).toBe(1);
    } finally {
      delete (document as { cookie?: unknown }).cookie;
      document.cookie = '_wingify_pc_uuid=;max-age=0;path=/';
    }
  });

  it('edited or corrupted stored values count as absent', async () => {
    storeSyncedVisitor({
      wingify_push_subscriber_id: '<img onerror=x>',
      wingify_push_db_status: 'maybe',
      wingify_push_subscription_status: '{',
    });
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    const api = startRuntime(site, inlineChunk);
    await api.ready;
    expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['insert']);
    expect(browser.syncCalls()[0]!.form.get('subscriberId')).toBe('');
    expect(api.getSubscriberId()).toBe('sub-1');
  });

  it('storage that throws never reaches the page', async () => {
    const throwing = () => {
      throw new DOMException('blocked', 'SecurityError');
    };
    vi.stubGlobal('localStorage', { getItem: throwing, setItem: throwing, removeItem: throwing, clear: throwing });
    installBrowser({ answer: 'granted' });
    const { results } = await optInThroughApi();
    expect(results.success?.[1].status).toBe('SUBSCRIBED');
  });
});

describe('the opt-in prompt', () => {
  it('shows the branding modal 5 s after load on a qualifying page; No fades it out and stores the do-not-show flag', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    installBrowser();
    const api = startRuntime(site, inlineChunk);
    let shown = 0;
    api.optInShownCallback(() => shown++);
    await api.ready;
    expect(document.querySelector('#pushkit-prompts [data-pk]:not([hidden])')).toBeNull();
    vi.advanceTimersByTime(4999);
    await microtasks();
    expect(shown).toBe(0);
    vi.advanceTimersByTime(1);
    // the trigger hands over to the lifecycle chunk, already loaded: promise steps, no timer
    await microtasks();
    expect(shown).toBe(1);
    const modal = document.querySelector<HTMLElement>('[data-pk="modal"]')!;
    expect(modal.hidden).toBe(false);
    // The prompt CSS is applied once: as a constructed stylesheet, or a <style> element where those are missing.
    const adopted = document.adoptedStyleSheets.filter((sheet) => [...sheet.cssRules].some((rule) => rule.cssText.includes('.pk-')));
    expect(adopted.length + document.querySelectorAll('#pushkit-prompts style').length).toBe(1);
    clickShown('no');
    expect(modal.style.opacity).toBe('0');
    vi.advanceTimersByTime(499);
    expect(modal.hidden).toBe(false);
    vi.advanceTimersByTime(1);
    expect(modal.hidden).toBe(true);
    expect(Number(localStorage.getItem('wingify_push_do_not_show_notification_popup'))).toBeGreaterThan(Date.now());
  });

  it('a visitor who granted permission but holds no subscription is subscribed on the trigger, without the offer ("granted: the subscription is created")', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const browser = installBrowser({ permission: 'granted' });
    const api = startRuntime(site, inlineChunk);
    let shown = 0;
    api.optInShownCallback(() => shown++);
    await api.ready;
    vi.advanceTimersByTime(5000);
    vi.useRealTimers();
    await settle(40);
    expect(shown).toBe(0);
    expect(browser.requestPermission).not.toHaveBeenCalled();
    expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['insert']);
  });

  it('a visitor who blocked notifications is never offered the prompt', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    installBrowser({ permission: 'denied' });
    const api = startRuntime(site, inlineChunk);
    let shown = 0;
    api.optInShownCallback(() => shown++);
    await api.ready;
    vi.advanceTimersByTime(10_000);
    expect(shown).toBe(0);
  });

  it('moves focus into the modal and back; Escape closes it', async () => {
    installBrowser();
    const outside = document.createElement('button');
    document.body.appendChild(outside);
    outside.focus();
    const api = startRuntime(site, inlineChunk);
    api.triggerOptIn();
    await settle();
    const modal = document.querySelector<HTMLElement>('[data-pk="modal"]')!;
    expect(document.activeElement).toBe(modal.querySelector('[data-pk-action="yes"]'));
    modal.querySelector('[data-pk-action="yes"]')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(modal.style.opacity).toBe('0');
    expect(document.activeElement).toBe(outside);
  });

  it.each([
    ['a page that does not qualify', '/no-prompt'],
    ['a visitor who refused it earlier', '/'],
  ])('is not shown on %s', async (label, path) => {
    resetPage(path);
    if (label.includes('refused')) localStorage.setItem('wingify_push_do_not_show_notification_popup', String(Date.now() + 864e5));
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    installBrowser();
    const api = startRuntime(site, inlineChunk);
    let shown = 0;
    api.optInShownCallback(() => shown++);
    await api.ready;
    vi.advanceTimersByTime(10_000);
    expect(shown).toBe(0);
  });

  it('the consent checkbox decides wingify_donot_track_actions', async () => {
    installBrowser({ answer: 'granted' });
    const api = startRuntime(site, inlineChunk);
    api.triggerOptIn();
    await settle();
    const modal = document.querySelector<HTMLElement>('[data-pk="modal"]')!;
    modal.querySelector('.pk-modal')!.insertAdjacentHTML('afterbegin', '<input type="checkbox" data-pk-consent checked>');
    clickShown('yes');
    await settle(40);
    expect(localStorage.getItem('wingify_donot_track_actions')).toBe('0');
  });

  it('triggerOptIn shows the already-subscribed box to a subscriber and the blocked box after a block', async () => {
    storeSyncedVisitor();
    installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    const api = startRuntime(site, inlineChunk);
    api.triggerOptIn();
    await settle();
    expect(document.querySelector<HTMLElement>('[data-pk="subscribed"]')!.hidden).toBe(false);
    document.querySelector<HTMLElement>('[data-pk="subscribed"] [data-pk-action="close"]')!.click();
    expect(document.querySelector<HTMLElement>('[data-pk="subscribed"]')!.hidden).toBe(true);

    resetPage();
    installBrowser({ permission: 'denied' });
    const blockedApi = startRuntime(site, inlineChunk);
    blockedApi.triggerOptIn();
    await settle();
    expect(document.querySelectorAll<HTMLElement>('[data-pk="blocked"]')[0]!.hidden).toBe(false);
  });
});

describe('opt-out (spec sections 2 and 4)', () => {
  it('pushkit_opt_out: alert, cookie flag, unsubscribe-ui, browser subscription removed; a second time "already"', async () => {
    resetPage('/?pushkit_opt_out=1');
    storeSyncedVisitor();
    const alert = vi.fn();
    vi.stubGlobal('alert', alert);
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    const api = startRuntime(site, inlineChunk);
    await api.ready;
    expect(alert).toHaveBeenCalledWith('You have successfully opted out of the product for this website');
    expect(document.cookie).toContain('pushkit_opt_out=1');
    expect(api.isOptedOut()).toBe(true);
    expect(browser.state.subscription?.unsubscribed).toBe(true);
    expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['unsubscribe-ui']);
    expect(localStorage.getItem('wingify_push_subscriber_id')).toBeNull();
    expect(localStorage.getItem('wingify_push_subscription_status')).toBe('unsubscribed');

    await startRuntime(site, inlineChunk).ready;
    expect(alert).toHaveBeenLastCalledWith('You are already opted out of the product for this website');
  });

  it('an opted-out visitor gets no prompt, even through triggerOptIn', async () => {
    document.cookie = 'pushkit_opt_out=1;path=/';
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    installBrowser();
    const api = startRuntime(site, inlineChunk);
    let shown = 0;
    api.optInShownCallback(() => shown++);
    await api.ready;
    api.triggerOptIn();
    vi.advanceTimersByTime(10_000);
    vi.useRealTimers();
    await settle();
    expect(shown).toBe(0);
  });

  it('triggerOptOut unsubscribes without an alert', async () => {
    storeSyncedVisitor();
    const alert = vi.fn();
    vi.stubGlobal('alert', alert);
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    const api = startRuntime(site, inlineChunk);
    await api.ready;
    api.triggerOptOut();
    await settle();
    expect(alert).not.toHaveBeenCalled();
    expect(api.isOptedOut()).toBe(true);
    expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['unsubscribe-ui']);
  });
});

describe('the subscriber secret (proof of this browser)', () => {
  it('the secret of the insert reply is kept beside the subscriber id and sent with the next sync', async () => {
    const browser = installBrowser({ answer: 'granted' });
    await optInThroughApi();
    expect(localStorage.getItem('pushkit_subscriber_secret')).toBe(ISSUED_SECRET);
    localStorage.setItem('wingify_push_subscriber_lang', 'xx');
    await startRuntime(site, inlineChunk).ready;
    const sync = browser.syncCalls().at(-1)!;
    expect(sync.form.get('action')).toBe('http-sync');
    expect(sync.form.get('subscriberSecret')).toBe(ISSUED_SECRET);
  });

  it('a subscriber synced before secrets existed syncs once, proving its subscription, and keeps the secret it gets', async () => {
    storeSyncedVisitor({ pushkit_subscriber_secret: '' });
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    await startRuntime(site, inlineChunk).ready;
    const [sync] = browser.syncCalls();
    expect(sync!.form.get('action')).toBe('http-sync');
    expect(sync!.form.get('subscriberId')).toBe('sub-1');
    expect(sync!.form.get('subscriptionEndPoint')).toBe('https://fcm.googleapis.com/fcm/send/token-old');
    expect(localStorage.getItem('pushkit_subscriber_secret')).toBe(ISSUED_SECRET);
    await startRuntime(site, inlineChunk).ready;
    expect(browser.syncCalls()).toHaveLength(1);
  });

  it('unsubscribing forgets the secret with the subscriber id', async () => {
    storeSyncedVisitor();
    installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    const api = startRuntime(site, inlineChunk);
    await api.ready;
    api.triggerOptOut();
    await settle();
    expect(localStorage.getItem('wingify_push_subscriber_id')).toBeNull();
    expect(localStorage.getItem('pushkit_subscriber_secret')).toBeNull();
  });
});

describe('uuid handling (spec section 4)', () => {
  it('creates the visitor uuid cookie when there is none, once the chunk runs; a view that only arms the prompt writes none', async () => {
    installBrowser();
    const api = startRuntime(site, inlineChunk);
    await api.ready;
    // nothing on such a view reads the uuid (the sync, a uuid link and the child window are the chunk's)
    expect(document.cookie).not.toContain('_wingify_pc_uuid');
    api.triggerOptIn();
    await settle();
    expect(document.cookie).toMatch(/_wingify_pc_uuid=[\w-]{20,}/);
  });

  it('adopts a uuid from the URL and links it with update-subscriberId; a failed link is stored and retried', async () => {
    resetPage('/?uuid=visitor-42');
    storeSyncedVisitor();
    const browser = installBrowser({
      permission: 'granted',
      existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old',
      replies: { '/syncSubscriptionAction.php': new TypeError('Failed to fetch') },
    });
    await startRuntime(site, inlineChunk).ready;
    expect(document.cookie).toContain('_wingify_pc_uuid=visitor-42');
    const [link] = browser.syncCalls();
    expect(Object.fromEntries(link!.form)).toEqual({
      hash: site.hash,
      browserType: 'chrome',
      previousSubscriberId: 'sub-1',
      subscriberId: 'visitor-42',
      subscriberSecret: 'stored-secret-of-sub-1',
      action: 'update-subscriberId',
    });
    expect(JSON.parse(localStorage.getItem('pshcrw_update_subId')!)).toEqual({ previousSubscriberId: 'sub-1', subscriberId: 'visitor-42' });

    history.replaceState(null, '', '/');
    browser.state.replies['/syncSubscriptionAction.php'] = { status: 'success', subscriberId: 'sub-1' };
    await startRuntime(site, inlineChunk).ready;
    expect(browser.syncCalls().at(-1)!.form.get('action')).toBe('update-subscriberId');
    expect(localStorage.getItem('pshcrw_update_subId')).toBeNull();
  });
});

describe('tracking consent', () => {
  it('setTrackingConsent stores 1 for do not track and 0 for track', () => {
    installBrowser();
    const api = startRuntime(site, inlineChunk);
    api.setTrackingConsent(false);
    expect(localStorage.getItem('wingify_donot_track_actions')).toBe('1');
    api.setTrackingConsent(true);
    expect(localStorage.getItem('wingify_donot_track_actions')).toBe('0');
  });

  it('fetches the server consent once for a subscriber without a local value', async () => {
    storeSyncedVisitor();
    localStorage.removeItem('wingify_donot_track_actions');
    const browser = installBrowser({
      permission: 'granted',
      existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old',
      replies: { '/getSubscriptionClickTrackingPermissionDetails.php': { status: 'success', pageClickTrackingPermission: 1 } },
    });
    await startRuntime(site, inlineChunk).ready;
    const [call] = browser.fetchCalls;
    expect(call!.url).toContain('/getSubscriptionClickTrackingPermissionDetails.php');
    expect(Object.fromEntries(call!.form)).toEqual({
      customerHash: site.hash,
      subscriberId: 'sub-1',
      subscriberSecret: 'stored-secret-of-sub-1',
      browser: 'chrome',
    });
    expect(localStorage.getItem('wingify_donot_track_actions')).toBe('0');
  });
});

describe('custom dimensions (getSubscriberAttributes.php)', () => {
  // Before, `browser` said firefox for Firefox and chrome for everything else (issue 28).
  it.each([
    ['chrome', CHROME_UA],
    ['firefox', 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'],
    ['edge', CHROME_UA + ' Edg/120.0.0.0'],
    ['opera', CHROME_UA + ' OPR/106.0.0.0'],
    [
      'samsung',
      'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
    ],
    [
      'uc',
      'Mozilla/5.0 (Linux; U; Android 13; en-US; V2111) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.58 UCBrowser/13.6.2.1316 Mobile Safari/537.36',
    ],
    ['safari', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15'],
  ])('names the browser family the runtime detected: %s', async (family, userAgent) => {
    storeSyncedVisitor();
    const browser = installBrowser({ userAgent, permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-old' });
    // the chunk's own site module carries customDimensions; here the core's hands it over (tests/support/inline-chunk.ts)
    const withDimensions: typeof site = { ...site, customDimensions: ['tier'] };
    await startRuntime(withDimensions, inlineChunk).ready;
    await settle();
    const call = browser.fetchCalls.find((fetched) => fetched.url.includes('/getSubscriberAttributes.php'));
    expect(call?.form.get('browser')).toBe(family);
    expect(call?.form.get('customDimensions')).toBe('tier');
  });
});

describe('http sites through the child window', () => {
  it('opens the child window and accepts the outcome only from its origin', async () => {
    const open = vi.fn();
    vi.stubGlobal('open', open);
    installBrowser({ serviceWorker: false });
    const api = startRuntime(site, inlineChunk);
    let success: unknown;
    api.subscriptionSuccessCallback((id) => (success = id));
    api.triggerOptIn();
    await settle();
    clickShown('yes');
    await settle();
    const url = new URL(open.mock.calls[0]![0] as string);
    expect(url.origin + url.pathname).toBe(site.childWindowUrl);
    expect(url.searchParams.get('action')).toBe('subscribe');
    expect(url.searchParams.get('uuid')).toMatch(/^[\w-]+$/);
    const message = { subscribedToWebPush: true, wingify_push_subscriber_id: 'sub-7', pushkit_subscriber_secret: 'secret-of-sub-7' };
    window.dispatchEvent(new MessageEvent('message', { origin: 'https://evil.test', data: message }));
    expect(success).toBeUndefined();
    window.dispatchEvent(new MessageEvent('message', { origin: 'https://sync.test', data: message }));
    expect(success).toBe('sub-7');
    expect(localStorage.getItem('wingify_push_subscription_status')).toBe('subscribed');
    expect(localStorage.getItem('pushkit_subscriber_secret')).toBe('secret-of-sub-7');
  });

  it('a subscriber without a stored id asks the server: get-subscriberid-from-server', async () => {
    localStorage.setItem('wingify_push_subscription_status', 'subscribed');
    const browser = installBrowser({
      serviceWorker: false,
      replies: { '/syncSubscriptionAction.php': { status: 'success', subscriberId: 'sub-5' } },
    });
    await startRuntime(site, inlineChunk).ready;
    expect(browser.syncCalls()[0]!.form.get('action')).toBe('get-subscriberid-from-server');
    expect(browser.syncCalls()[0]!.form.get('uuid')).toMatch(/^[\w-]+$/);
    expect(localStorage.getItem('wingify_push_subscriber_id')).toBe('sub-5');
  });
});
