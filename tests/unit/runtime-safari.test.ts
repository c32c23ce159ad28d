// @vitest-environment happy-dom
// Safari's push flow (spec sections 1, 4 and 8): window.safari.pushNotification with the website push id,
// the device token synced as the subscription id, and SAFARI-ERROR when Safari fails to show its prompt.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { site } from '../fixtures/site-module.ts';
import { startRuntime } from '../../runtime/api.ts';
import { inlineChunk } from '../support/inline-chunk.ts';
import type { OptInResult } from '../../runtime/messages.ts';
import { installBrowser, resetPage, settle } from '../support/runtime-test-browser.ts';

const SAFARI_UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Safari/605.1.15';
const WEBSITE_PUSH_ID = 'web.example.calligraphy';
const safariSite = { ...site, safariWebsitePushId: WEBSITE_PUSH_ID, safariWebServiceUrl: 'https://calligraphy.test/safari-push' };

interface SafariAnswer {
  permission: 'granted' | 'denied' | 'default';
  deviceToken?: string;
  afterMs: number;
}

function installSafari(initial: { permission: string; deviceToken?: string | null }, answer?: SafariAnswer) {
  const state = { ...initial };
  const requests: { url: string; websitePushId: string; userInfo: object }[] = [];
  const pushNotification = {
    permission: vi.fn((id: string) => (id === WEBSITE_PUSH_ID ? { ...state } : { permission: 'default', deviceToken: null })),
    requestPermission: vi.fn((url: string, websitePushId: string, userInfo: object, callback: (result: object) => void) => {
      requests.push({ url, websitePushId, userInfo });
      setTimeout(() => {
        if (answer) Object.assign(state, { permission: answer.permission, deviceToken: answer.deviceToken ?? null });
        callback({ ...state });
      }, answer?.afterMs ?? 0);
    }),
  };
  vi.stubGlobal('safari', { pushNotification });
  return { state, requests, pushNotification };
}

async function optIn() {
  const api = startRuntime(safariSite, inlineChunk);
  const results: { success?: [string | undefined, OptInResult]; failure?: OptInResult } = {};
  api.subscriptionSuccessCallback((id, result) => (results.success = [id, result]));
  api.subscriptionFailureCallback((result) => (results.failure = result));
  await api.ready;
  api.triggerOptIn();
  await settle();
  document.querySelector<HTMLElement>('#pushkit-prompts [data-pk]:not([hidden]) [data-pk-action="yes"]')?.click();
  return results;
}

beforeEach(() => resetPage());
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('Safari push (spec sections 1 and 4)', () => {
  it('asks Safari with the website push id and syncs the device token as an insert: SUBSCRIBED', async () => {
    const browser = installBrowser({ userAgent: SAFARI_UA, serviceWorker: false, pushManager: false });
    const safari = installSafari({ permission: 'default' }, { permission: 'granted', deviceToken: 'DEVICE-TOKEN-1', afterMs: 800 });
    const results = await optIn();
    await vi.waitFor(() => expect(results.success).toBeDefined(), { timeout: 3000 });
    expect(safari.requests[0]).toMatchObject({
      url: 'https://calligraphy.test/safari-push',
      websitePushId: WEBSITE_PUSH_ID,
      userInfo: { hash: site.hash },
    });
    expect(results.success).toEqual(['sub-1', { status: 'SUBSCRIBED', message: 'User has subscribed to push notifications.' }]);
    const [insert] = browser.syncCalls();
    expect(insert?.form.get('action')).toBe('insert');
    expect(insert?.form.get('subscriptionId')).toBe('DEVICE-TOKEN-1');
    expect(insert?.form.get('browserType')).toBe('safari');
    expect(insert?.form.get('websitePushId')).toBe(WEBSITE_PUSH_ID);
    expect(localStorage.getItem('wingify_push_subscription_status')).toBe('subscribed');
  });

  it('a denial after the prompt was on screen is BLOCKED with the do-not-show flag', async () => {
    installBrowser({ userAgent: SAFARI_UA, serviceWorker: false, pushManager: false });
    installSafari({ permission: 'default' }, { permission: 'denied', afterMs: 700 });
    const results = await optIn();
    await vi.waitFor(() => expect(results.failure).toBeDefined(), { timeout: 3000 });
    expect(results.failure).toEqual({ status: 'BLOCKED', message: 'User has blocked push notifications.' });
    expect(Number(localStorage.getItem('wingify_push_do_not_show_notification_popup'))).toBeGreaterThan(Date.now());
  });

  it('a denial within 500 ms means Safari failed to show its prompt: SAFARI-ERROR', async () => {
    installBrowser({ userAgent: SAFARI_UA, serviceWorker: false, pushManager: false });
    installSafari({ permission: 'default' }, { permission: 'denied', afterMs: 10 });
    const results = await optIn();
    await vi.waitFor(() => expect(results.failure).toBeDefined(), { timeout: 3000 });
    expect(results.failure).toEqual({ status: 'SAFARI-ERROR', message: 'Opt In Failed To Display in Safari.' });
  });

  it('a granted visitor whose device token is already synced makes no sync call on a later view', async () => {
    localStorage.setItem('wingify_push_subscriber_id', 'sub-1');
    localStorage.setItem('pushkit_subscriber_secret', 'stored-secret-of-sub-1');
    localStorage.setItem('wingify_push_subscription_id', 'DEVICE-TOKEN-1');
    localStorage.setItem('wingify_push_subscription_endpoint', '');
    localStorage.setItem('wingify_push_subscription_status', 'subscribed');
    localStorage.setItem('wingify_push_db_status', 'true');
    localStorage.setItem('wingify_push_subscriber_lang', navigator.language);
    localStorage.setItem('wingify_donot_track_actions', '0');
    const browser = installBrowser({ userAgent: SAFARI_UA, serviceWorker: false, pushManager: false });
    installSafari({ permission: 'granted', deviceToken: 'DEVICE-TOKEN-1' });
    await startRuntime(safariSite, inlineChunk).ready;
    await settle();
    expect(browser.syncCalls()).toEqual([]);
  });

  it('a legacy subscriber whose Safari gained the Push API (16+) stays on the legacy path: no unsubscribe-native, no new prompt', async () => {
    localStorage.setItem('wingify_push_subscriber_id', 'sub-1');
    localStorage.setItem('pushkit_subscriber_secret', 'stored-secret-of-sub-1');
    localStorage.setItem('wingify_push_subscription_id', 'DEVICE-TOKEN-1');
    localStorage.setItem('wingify_push_subscription_endpoint', '');
    localStorage.setItem('wingify_push_subscription_status', 'subscribed');
    localStorage.setItem('wingify_push_db_status', 'true');
    localStorage.setItem('wingify_push_subscriber_lang', navigator.language);
    localStorage.setItem('wingify_donot_track_actions', '0');
    const browser = installBrowser({ userAgent: SAFARI_UA.replace('Version/15.6', 'Version/17.4') });
    installSafari({ permission: 'granted', deviceToken: 'DEVICE-TOKEN-1' });
    const api = startRuntime(safariSite, inlineChunk);
    await api.ready;
    api.triggerOptIn();
    await settle();
    expect(browser.syncCalls()).toEqual([]);
    expect(browser.requestPermission).not.toHaveBeenCalled();
    expect(document.querySelector('#pushkit-prompts [data-pk="subscribed"]:not([hidden])')).not.toBeNull();
  });

  it('Safari without a website push id is not offered the prompt (missing Safari website push id)', async () => {
    installBrowser({ userAgent: SAFARI_UA, serviceWorker: false, pushManager: false });
    const safari = installSafari({ permission: 'default' });
    const api = startRuntime(site, inlineChunk);
    await api.ready;
    api.triggerOptIn();
    await settle();
    expect(safari.pushNotification.requestPermission).not.toHaveBeenCalled();
    expect(document.querySelector('#pushkit-prompts [data-pk]:not([hidden])')).toBeNull();
  });
});

describe('visitor uuid cookie (spec sections 3 and 9)', () => {
  it('lives 10000 days', async () => {
    installBrowser();
    const written: string[] = [];
    const descriptor = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie')!;
    vi.spyOn(document, 'cookie', 'set').mockImplementation((value: string) => {
      written.push(value);
      descriptor.set!.call(document, value);
    });
    // the uuid is made where the lifecycle chunk first runs (an API call that acts, here)
    const api = startRuntime(site, inlineChunk);
    await api.ready;
    api.triggerOptIn();
    await settle();
    const uuidCookie = written.find((cookie) => cookie.startsWith('_wingify_pc_uuid='));
    expect(uuidCookie).toBeDefined();
    // max-age in seconds: 10000 days
    expect(/;max-age=(\d+)/.exec(uuidCookie!)![1]).toBe(String(10_000 * 86_400));
  });
});
