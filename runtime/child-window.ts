// Script of the provider's child-window page (spec section 2), used by plain-http sites: it subscribes on
// the provider's origin and posts the outcome (spec section 7 fields) to the opener at the site's origin only.
// Anyone can send a visitor to this page with a link, so nothing the link chooses (subscribe, unsubscribe,
// opt out, the uuid link, the consent) happens before the visitor clicks; the one exception is the spec's API
// call (isAPIcall) while the permission is already granted, which subscribes to this site only. On load it
// syncs what its origin truly holds (the update decision, as push.js does on every https view).
import { site } from 'pushkit:site';
import type { ChildWindowMessage } from './opt-in-child-window.ts';
import type { SiteModule } from './site-module.ts';
import { createServices } from './create-services.ts';
import { transport } from './transport.ts';
import { BROWSER_NAMES, detectSupport } from './browser-support.ts';
import { activeRegistration, askPermission, describeSubscription, subscribePush } from './push-subscription.ts';
import { syncBrowserSubscription } from './opt-in-native.ts';
import { readState, syncAction } from './sync.ts';
import { visitorUuid } from './visitor-id.ts';
import { storeConsent } from './tracking-consent.ts';
import { childWindowTexts } from './child-window-texts.ts';
import { deniedByIncognito, firefoxPrivate, incognitoRefusal } from './private-window.ts';
import { Key, UUID_DAYS } from './storage-keys.ts';
import { guard, logSwallowed } from './guard.ts';

const CLOSE_AFTER_MS = 500;

/**
 * The page lives on the provider's origin at /sites/<hash>/child-window.html, so its push worker is the one the
 * provider serves beside it (/sites/<hash>/sw.js), scoped to that folder: the site's own swPath and scope
 * name files on the site's origin, which this page cannot register.
 */
function childWindowSite(base: string): SiteModule {
  const folder = new URL('./', base).pathname;
  return { ...site, swPath: folder + 'sw.js', firefoxSwPath: folder + 'sw-firefox.js', swScope: folder };
}

export async function runChildWindow(): Promise<void> {
  const workerSite = childWindowSite(location.href);
  // Built on the worker's folder, so the subscription handed to the worker (which keeps it in IndexedDB)
  // reaches the registration that exists here, and the sync names the worker that holds the subscription.
  const services = Object.assign(createServices(workerSite, transport.get_), transport);
  const params = new URLSearchParams(location.search);
  const texts = childWindowTexts(site.companyName);
  const support = detectSupport(navigator.userAgent, undefined, site, {
    pushManager_: 'PushManager' in window,
    touch_: false,
    standalone_: false,
  });
  const browser = BROWSER_NAMES[support.browser_]!;
  const element = (id: string): HTMLElement | null => document.getElementById(id);
  const show = (id: string, visible: boolean): void => {
    const target = element(id);
    if (target) target.hidden = !visible;
  };
  /** Replaces the spinner with a message, and with one of the two pictures (unblock, lock icon) or none. */
  const say = (text: string, figure?: 'pc-unblock' | 'pc-lock'): void => {
    show('pc-spinner', false);
    show('pc-unblock', figure === 'pc-unblock');
    show('pc-lock', figure === 'pc-lock');
    const box = element('pc-text');
    if (box) box.textContent = text;
  };
  const step = (current: number): void => {
    document.querySelectorAll('.pc-step').forEach((item, index) => {
      if (index + 1 === current) item.setAttribute('aria-current', 'step');
      else item.removeAttribute('aria-current');
    });
  };
  const post = (fields: ChildWindowMessage): void => {
    const message = {
      [Key.SUBSCRIBER_ID]: services.subscriberId_() ?? '',
      // The opener keeps the secret beside the id: its calls about the subscriber need it.
      [Key.SUBSCRIBER_SECRET]: services.secret_(),
      [Key.SUBSCRIPTION_ID]: services.local_.get(Key.SUBSCRIPTION_ID) ?? '',
      [Key.STATUS]: readState(services).status,
      [Key.DO_NOT_TRACK]: services.local_.get(Key.DO_NOT_TRACK) ?? '',
      [Key.UUID_COOKIE]: services.cookies_.get(Key.UUID_COOKIE) ?? '',
      is_new_user: false,
      subscribedToWebPush: false,
      is_blocked_user: false,
      safariOptInFailed: false,
      [Key.OPT_OUT]: services.optedOut_(),
      ...fields,
    };
    // The target origin makes the browser drop the message unless the opener is still on the site's origin.
    window.opener?.postMessage(message, new URL(site.origin).origin);
  };
  /**
   * Posts, then closes the window 500 ms later: only after a screen the visitor need not read (a subscribe that
   * succeeded, No). A screen that says "You can close this window" stays until the visitor closes it.
   */
  const finish = (fields: ChildWindowMessage): void => {
    post(fields);
    setTimeout(() => window.close(), CLOSE_AFTER_MS);
  };
  /** Shows the confirm button, labelled `button`; `act` runs on its click, No closes the window. */
  const buttons = (button: string, act: () => Promise<void>): void => {
    const allow = element('pc-allow');
    const no = element('pc-no');
    if (allow) {
      allow.textContent = button;
      allow.onclick = () => {
        show('pc-buttons', false);
        act().catch(logSwallowed);
      };
    }
    if (no) no.onclick = () => finish({});
    show('pc-buttons', true);
  };
  /** Runs `act` when the visitor clicks the confirm button, labelled `button`, under `question`. */
  const afterClick = (question: string, button: string, act: () => Promise<void>): void => {
    say(question);
    buttons(button, act);
  };
  /** What the opener handed over: its uuid (linked to this subscriber) and its consent. Only when the visitor acts. */
  const adoptOpener = async (): Promise<void> => {
    await visitorUuid(services, browser, location.search);
    const shouldTrack = params.get('shouldTrackData');
    if (shouldTrack === 'true' || shouldTrack === 'false') storeConsent(services, shouldTrack === 'true');
  };
  const allowLabel = element('pc-allow')?.textContent ?? '';
  const registration = (): Promise<ServiceWorkerRegistration | undefined> => navigator.serviceWorker.getRegistration(workerSite.swScope);
  const held = async (): Promise<PushSubscription | null | undefined> => (await registration())?.pushManager.getSubscription();

  if (params.has(Key.OPT_OUT)) {
    return afterClick(texts.confirmOptOut, texts.optOutButton, async () => {
      await adoptOpener();
      say(texts.optingOut);
      try {
        const already = services.optedOut_();
        services.cookies_.set(Key.OPT_OUT, '1', UUID_DAYS);
        await ('serviceWorker' in navigator ? await held() : undefined)?.unsubscribe();
        if (services.subscriberId_() && !(await syncAction(services, browser, 'unsubscribe-ui'))) throw new Error('unsubscribe-ui failed');
        say(already ? texts.alreadyOptedOut : texts.optedOut);
        post({ [Key.OPT_OUT]: true });
      } catch (error) {
        logSwallowed(error);
        say(texts.optOutFailed);
      }
    });
  }
  /** The spec's Incognito/Private mode text; the page hears "Could Not Subscribe.", not a block. */
  const incognito = (): void => {
    say(texts.incognito);
    show('pc-steps', false);
    show('pc-buttons', false);
    post({ pushkit_failure: 'subscribe' });
  };
  if (firefoxPrivate(browser, 'serviceWorker' in navigator)) return incognito();
  if (support.failure_ || !('serviceWorker' in navigator) || !('PushManager' in window)) return say(texts.unsupported);

  /** This origin's subscription as it is (the permission the visitor gave or took back here, the browser's language). */
  const syncHere = (): Promise<boolean> => syncBrowserSubscription(services, browser, readState(services)).catch(() => false);
  /** Calls `react` (the last one given) whenever the visitor changes this origin's notification permission. */
  let reaction: (() => void) | undefined;
  const onPermissionChange = (react: () => void): void => {
    if (!reaction) {
      navigator.permissions?.query({ name: 'notifications' }).then((status) => {
        status.onchange = () => guard(reaction!)();
      }, logSwallowed);
    }
    reaction = react;
  };
  await syncHere();
  const existing = await held();
  const permission = Notification.permission;
  const action = params.get('action') || 'subscribe';

  /** The three steps with Allow; subscribing needs the visitor's click, or the API call with the permission granted. */
  const offer = (): void => {
    say('');
    step(1);
    show('pc-steps', true);
    buttons(allowLabel, subscribe);
  };
  /** The unblock picture stays until the visitor closes the window; unblocking here brings back the offer. */
  const blocked = (): void => {
    say(texts.blocked, 'pc-unblock');
    show('pc-steps', false);
    show('pc-buttons', false);
    post({ is_blocked_user: true });
    onPermissionChange(() => Notification.permission !== 'denied' && offer());
  };
  /** A denied permission: incognito's own (its text), or the visitor's block (the unblock picture). */
  const denied = async (): Promise<void> => ((await deniedByIncognito(workerSite, browser === 'firefox')) ? incognito() : blocked());
  const subscribe = async (): Promise<void> => {
    show('pc-buttons', false);
    show('pc-spinner', true);
    step(2);
    await adoptOpener();
    const answer = Notification.permission === 'granted' ? 'granted' : await askPermission();
    if (answer === 'denied') return denied();
    if (answer !== 'granted') return finish({});
    step(3);
    // which part failed, for the opener: the browser's subscription, or the provider's insert
    let failure: 'subscribe' | 'sync' = 'subscribe';
    try {
      const current = describeSubscription(
        await subscribePush(workerSite, services.local_, await activeRegistration(workerSite, browser === 'firefox')),
      );
      failure = 'sync';
      if (!(await syncAction(services, browser, 'insert', current))) throw new Error('insert failed');
      // Subscribing is the visitor's own opt-in: an opt-out kept on this origin no longer holds.
      services.cookies_.remove(Key.OPT_OUT);
      show('pc-spinner', false);
      finish({ subscribedToWebPush: true, is_new_user: true });
    } catch (error) {
      // Chromium's incognito refuses push registrations even with the permission granted.
      if (incognitoRefusal(error)) return incognito();
      say(texts.notSubscribed);
      show('pc-steps', false);
      post({ pushkit_failure: failure });
    }
  };

  if (action === 'triggerOptOut') {
    if (!existing || permission !== 'granted') return say(texts.optOutNotSubscribed);
    say(texts.optOutSubscribed, 'pc-lock');
    // The visitor follows the picture and blocks (or resets) the permission: the provider hears it at once.
    return onPermissionChange(() => {
      if (Notification.permission === 'granted') return;
      void syncHere().then(() => {
        say(texts.unsubscribed);
        post({ is_blocked_user: Notification.permission === 'denied' });
      });
    });
  }
  if (action === 'unsubscribe') {
    return afterClick(texts.confirmUnsubscribe, texts.unsubscribeButton, async () => {
      await adoptOpener();
      say(texts.unsubscribing);
      try {
        await existing?.unsubscribe();
        if (services.subscriberId_() && !(await syncAction(services, browser, 'unsubscribe-ui'))) throw new Error('unsubscribe-ui failed');
      } catch (error) {
        // spec section 8, "Unsubscribe problem"
        logSwallowed(error);
        return say(texts.optOutFailed);
      }
      say(texts.unsubscribed);
      post({});
    });
  }
  // subscribe and unblock: the unblock picture while blocked, otherwise the offer (or "already subscribed").
  if (permission === 'denied') return denied();
  if (existing && permission === 'granted' && services.subscriberId_()) {
    say(texts.alreadySubscribed);
    return post({ subscribedToWebPush: true });
  }
  if (params.get('isAPIcall') === 'true' && permission === 'granted') return subscribe();
  offer();
}

if (typeof document !== 'undefined' && document.getElementById('pc-text')) {
  runChildWindow().catch(logSwallowed);
}
