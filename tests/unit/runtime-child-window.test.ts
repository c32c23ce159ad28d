// @vitest-environment happy-dom
// The child-window page script (spec sections 2 and 7): its messages and what it posts to the opener.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { site } from '../fixtures/site-module.ts';
import { runChildWindow } from '../../runtime/child-window.ts';
import { firefoxPrivate, incognitoRefusal } from '../../runtime/private-window.ts';
import { installBrowser, resetPage, settle } from '../support/runtime-test-browser.ts';

const PAGE = `<div id="pc-spinner"></div><section id="pc-text"></section><ol id="pc-steps" hidden></ol>
<div id="pc-buttons" hidden><button id="pc-no">No</button><button id="pc-allow">Allow</button></div>`;

const INCOGNITO =
  "You seem to be browsing in Incognito/Private mode. The website can't get your permission to opt-in to push notifications in the Incognito/Private mode. Please switch to normal mode and try again.";
let posted: [Record<string, unknown>, string][];
const text = () => document.getElementById('pc-text')!.textContent;

/** A subscriber this origin synced: its subscription token-1, in the browser's language. */
function storeSyncedSubscriber(): void {
  localStorage.setItem('wingify_push_subscriber_id', 'sub-1');
  localStorage.setItem('pushkit_subscriber_secret', 'secret-of-sub-1');
  localStorage.setItem('wingify_push_subscription_id', 'token-1');
  localStorage.setItem('wingify_push_subscription_endpoint', 'https://fcm.googleapis.com/fcm/send/token-1');
  localStorage.setItem('wingify_push_subscription_status', 'subscribed');
  localStorage.setItem('wingify_push_db_status', 'true');
  localStorage.setItem('wingify_push_subscriber_lang', navigator.language);
}

function openChildWindow(query: string): void {
  resetPage('/child-window.html?' + query);
  document.body.innerHTML = PAGE;
  posted = [];
  vi.stubGlobal('opener', { postMessage: (message: Record<string, unknown>, origin: string) => posted.push([message, origin]) });
  vi.stubGlobal('close', vi.fn());
}

beforeEach(() => openChildWindow('uuid=visitor-1&action=subscribe'));
afterEach(() => vi.unstubAllGlobals());

describe('child window', () => {
  it('subscribes on Allow, posts the outcome to the site origin only and closes 500 ms later', async () => {
    openChildWindow('uuid=visitor-1&action=subscribe&shouldTrackData=true');
    const browser = installBrowser({
      answer: 'granted',
      replies: { '/syncSubscriptionAction.php': { status: 'success', subscriberId: 'sub-3', subscriberSecret: 'secret-of-sub-3' } },
    });
    await runChildWindow();
    expect(document.getElementById('pc-buttons')!.hidden).toBe(false);
    document.getElementById('pc-allow')!.click();
    await settle(40);
    expect(browser.syncCalls()[0]!.form.get('action')).toBe('insert');
    expect(browser.syncCalls()[0]!.form.get('uuid')).toBe('visitor-1');
    expect(posted).toHaveLength(1);
    const [message, origin] = posted[0]!;
    expect(origin).toBe(new URL(site.origin).origin);
    expect(message).toMatchObject({
      wingify_push_subscriber_id: 'sub-3',
      pushkit_subscriber_secret: 'secret-of-sub-3',
      wingify_push_subscription_id: 'token-new',
      wingify_push_subscription_status: 'subscribed',
      wingify_donot_track_actions: '0',
      _wingify_pc_uuid: 'visitor-1',
      is_new_user: true,
      subscribedToWebPush: true,
      is_blocked_user: false,
      safariOptInFailed: false,
      pushkit_opt_out: false,
    });
    await vi.waitFor(() => expect(window.close).toHaveBeenCalled(), { timeout: 1000 });
  });

  it('denied: the blocked text and is_blocked_user', async () => {
    installBrowser({ answer: 'denied' });
    await runChildWindow();
    document.getElementById('pc-allow')!.click();
    await settle(40);
    expect(text()).toContain('previously blocked or denied notifications from Calligraphy');
    expect(posted[0]![0]).toMatchObject({ is_blocked_user: true, subscribedToWebPush: false });
  });

  it('incognito: the Incognito/Private mode message when the subscription is refused with the permission granted', async () => {
    installBrowser({ answer: 'granted' });
    const subscribe = vi.fn(async () => {
      throw new DOMException('Registration failed - permission denied', 'AbortError');
    });
    const registration = await navigator.serviceWorker.register('/sw.js');
    registration.pushManager.subscribe = subscribe as never;
    await runChildWindow();
    document.getElementById('pc-allow')!.click();
    await settle(40);
    expect(text()).toBe(INCOGNITO);
  });

  it('incognito, Chromium: the permission the browser denied by itself gives the incognito text, a block the picture', async () => {
    for (const [refusal, expected] of [
      [new DOMException('Registration failed - permission denied', 'AbortError'), INCOGNITO],
      [new DOMException('Registration failed - permission denied', 'NotAllowedError'), 'previously blocked or denied'],
    ] as const) {
      openChildWindow('uuid=visitor-1&action=subscribe');
      const browser = installBrowser({ answer: 'denied' });
      (await navigator.serviceWorker.register('/sw.js')).pushManager.subscribe = vi.fn(() => Promise.reject(refusal));
      await runChildWindow();
      document.getElementById('pc-allow')!.click();
      await settle(40);
      expect(text()).toContain(expected);
      expect(posted.at(-1)![0]).toMatchObject(
        expected === INCOGNITO ? { pushkit_failure: 'subscribe', is_blocked_user: false } : { is_blocked_user: true },
      );
      expect(browser.requestPermission).toHaveBeenCalledTimes(1);
    }
  });

  it('incognito, Firefox: a private window (no service workers) gets the incognito text, not "use Chrome 42"', async () => {
    installBrowser({ serviceWorker: false, userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' });
    await runChildWindow();
    expect(text()).toBe(INCOGNITO);
    expect(document.getElementById('pc-buttons')!.hidden).toBe(true);
  });

  it('incognito decisions: Firefox without service workers; AbortError "permission denied" only', () => {
    expect(firefoxPrivate('firefox', false)).toBe(true);
    expect(firefoxPrivate('firefox', true)).toBe(false);
    expect(firefoxPrivate('chrome', false)).toBe(false);
    expect(incognitoRefusal(new DOMException('Registration failed - permission denied', 'AbortError'))).toBe(true);
    expect(incognitoRefusal(new DOMException('Registration failed - permission denied', 'NotAllowedError'))).toBe(false);
    expect(incognitoRefusal(new DOMException('Registration failed - missing applicationServerKey', 'AbortError'))).toBe(false);
    expect(incognitoRefusal(undefined)).toBe(false);
  });

  it('already subscribed', async () => {
    localStorage.setItem('wingify_push_subscriber_id', 'sub-1');
    installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-1' });
    await runChildWindow();
    expect(text()).toBe('You seem to have already been subscribed to push notifications from Calligraphy. You can close this window.');
    expect(posted[0]![0]).toMatchObject({ subscribedToWebPush: true, wingify_push_subscriber_id: 'sub-1' });
  });

  it('triggerOptOut while not subscribed', async () => {
    openChildWindow('uuid=visitor-1&action=triggerOptOut');
    installBrowser();
    await runChildWindow();
    expect(text()).toBe("You don't seem to have push notifications enabled from Calligraphy. You can close this window.");
  });

  it('triggerOptOut while subscribed asks to use the lock icon', async () => {
    openChildWindow('uuid=visitor-1&action=triggerOptOut');
    installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-1' });
    await runChildWindow();
    expect(text()).toContain('click the lock icon');
  });

  it('unsubscribe or opt-out from a link alone changes nothing: no sync call, the subscription kept, until a click', async () => {
    for (const query of ['uuid=attacker-uuid&action=unsubscribe', 'uuid=attacker-uuid&pushkit_opt_out=1']) {
      openChildWindow(query);
      storeSyncedSubscriber();
      const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-1' });
      await runChildWindow();
      await settle();
      expect(browser.syncCalls()).toEqual([]);
      expect(browser.state.subscription!.unsubscribed).toBeFalsy();
      expect(document.cookie).not.toContain('pushkit_opt_out=1');
      expect(document.cookie).not.toContain('attacker-uuid');
      expect(document.getElementById('pc-buttons')!.hidden).toBe(false);
      document.getElementById('pc-no')!.click();
      await settle();
      expect(browser.syncCalls()).toEqual([]);
    }
  });

  it('unsubscribe: on the click, waits, then confirms', async () => {
    openChildWindow('uuid=visitor-1&action=unsubscribe');
    storeSyncedSubscriber();
    const browser = installBrowser({ permission: 'granted', existingEndpoint: 'https://fcm.googleapis.com/fcm/send/token-1' });
    const seen: string[] = [];
    new MutationObserver(() => seen.push(text() ?? '')).observe(document.getElementById('pc-text')!, {
      childList: true,
      characterData: true,
      subtree: true,
    });
    await runChildWindow();
    expect(text()).toBe('Unsubscribe from push notifications from Calligraphy?');
    expect(document.getElementById('pc-allow')!.textContent).toBe('Unsubscribe');
    document.getElementById('pc-allow')!.click();
    await settle();
    expect(seen).toContain('Please wait unsubscribing you from Calligraphy');
    expect(text()).toBe('You have been unsubscribed from Calligraphy. You can close this window.');
    expect(browser.syncCalls().map((call) => call.form.get('action'))).toEqual(['update-subscriberId', 'unsubscribe-ui']);
    expect(browser.syncCalls().map((call) => call.form.get('subscriberSecret'))).toEqual(['secret-of-sub-1', 'secret-of-sub-1']);
    expect(browser.state.subscription!.unsubscribed).toBe(true);
  });

  it.each([
    ['first time', false, 'You have successfully opted out of the product for this website'],
    ['again', true, 'You are already opted out of the product for this website'],
  ])('opt-out %s', async (_, already, expected) => {
    openChildWindow('uuid=visitor-1&pushkit_opt_out=1');
    if (already) document.cookie = 'pushkit_opt_out=1;path=/';
    installBrowser();
    await runChildWindow();
    expect(text()).toBe('Opt out of the product for Calligraphy?');
    document.getElementById('pc-allow')!.click();
    await settle();
    expect(text()).toBe(expected);
    expect(posted[0]![0]).toMatchObject({ pushkit_opt_out: true });
  });

  it('opt-out that fails to unsubscribe: "Something went wrong while opting out"', async () => {
    openChildWindow('uuid=visitor-1&pushkit_opt_out=1');
    localStorage.setItem('wingify_push_subscriber_id', 'sub-1');
    installBrowser({ replies: { '/syncSubscriptionAction.php': new TypeError('Failed to fetch') } });
    await runChildWindow();
    document.getElementById('pc-allow')!.click();
    await settle();
    expect(text()).toBe('Something went wrong while opting out');
  });

  it('an unsupported browser gets the unsupported message', async () => {
    installBrowser({ userAgent: 'Mozilla/5.0 (Windows NT 6.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/40.0 Safari/537.36' });
    await runChildWindow();
    expect(text()).toBe('Push notifications are not enabled for this browser. Please use Chrome 42 or above, or Firefox 44 or above.');
  });
});
