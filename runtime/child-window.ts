// Script of the provider's child-window page (spec section 2), used by plain-http sites: it subscribes on
// the provider's origin and posts the outcome (spec section 7 fields) to the opener at the site's origin only.
// Anyone can send a visitor to this page with a link, so nothing here changes the subscriber (subscribe,
// unsubscribe, opt out, the uuid link, the consent) before the visitor clicks; the one exception is the
// spec's API call (isAPIcall) while the permission is already granted, which subscribes to this site only.
import { site } from 'pushkit:site';
import type { ChildWindowMessage } from './opt-in-child-window.ts';
import type { SiteModule } from './site-module.ts';
import { createServices } from './create-services.ts';
import { detectSupport } from './browser-support.ts';
import { activeRegistration, askPermission, describeSubscription, subscribePush } from './push-subscription.ts';
import { readState, syncAction } from './sync.ts';
import { visitorUuid } from './visitor-id.ts';
import { storeConsent } from './tracking-consent.ts';
import { childWindowTexts } from './child-window-texts.ts';
import {
  DO_NOT_TRACK,
  OPT_OUT,
  STATUS,
  SUBSCRIBER_ID,
  SUBSCRIBER_SECRET,
  SUBSCRIPTION_ID,
  UUID_COOKIE,
  UUID_DAYS,
} from './storage-keys.ts';
import { logSwallowed } from './guard.ts';

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
  const services = createServices(site);
  const params = new URLSearchParams(location.search);
  const texts = childWindowTexts(site.companyName);
  const support = detectSupport(navigator.userAgent, undefined, site, {
    pushManager: 'PushManager' in window,
    touch: false,
    standalone: false,
  });
  const workerSite = childWindowSite(location.href);
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
      [SUBSCRIBER_ID]: services.subscriberId() ?? '',
      // The opener keeps the secret beside the id: its calls about the subscriber need it.
      [SUBSCRIBER_SECRET]: services.secret(),
      [SUBSCRIPTION_ID]: services.local.get(SUBSCRIPTION_ID) ?? '',
      [STATUS]: readState(services).status,
      [DO_NOT_TRACK]: services.local.get(DO_NOT_TRACK) ?? '',
      [UUID_COOKIE]: services.cookies.get(UUID_COOKIE) ?? '',
      is_new_user: false,
      subscribedToWebPush: false,
      is_blocked_user: false,
      safariOptInFailed: false,
      [OPT_OUT]: services.optedOut(),
      ...fields,
    };
    // The target origin makes the browser drop the message unless the opener is still on the site's origin.
    window.opener?.postMessage(message, new URL(site.origin).origin);
  };
  const finish = (fields: ChildWindowMessage): void => {
    post(fields);
    setTimeout(() => window.close(), CLOSE_AFTER_MS);
  };

  /** Runs `act` when the visitor clicks the confirm button, labelled `button`, under `question`; No closes. */
  const afterClick = (question: string, button: string, act: () => Promise<void>): void => {
    say(question);
    const allow = element('pc-allow');
    if (allow) allow.textContent = button;
    show('pc-buttons', true);
    allow?.addEventListener('click', () => {
      show('pc-buttons', false);
      act().catch(logSwallowed);
    });
    element('pc-no')?.addEventListener('click', () => finish({}));
  };
  /** What the opener handed over: its uuid (linked to this subscriber) and its consent. Only when the visitor acts. */
  const adoptOpener = async (): Promise<void> => {
    await visitorUuid(services, browser, location.search);
    const shouldTrack = params.get('shouldTrackData');
    if (shouldTrack === 'true' || shouldTrack === 'false') storeConsent(services, shouldTrack === 'true');
  };

  const action = params.get('action') || 'subscribe';
  const browser = support.browser;

  if (params.has(OPT_OUT)) {
    return afterClick(texts.confirmOptOut, texts.optOutButton, async () => {
      await adoptOpener();
      say(texts.optingOut);
      try {
        const already = services.optedOut();
        services.cookies.set(OPT_OUT, '1', UUID_DAYS);
        const subscription = await (await navigator.serviceWorker?.getRegistration(workerSite.swScope))?.pushManager.getSubscription();
        await subscription?.unsubscribe();
        if (services.subscriberId() && !(await syncAction(services, browser, 'unsubscribe-ui'))) throw new Error('unsubscribe-ui failed');
        say(already ? texts.alreadyOptedOut : texts.optedOut);
        finish({ [OPT_OUT]: true });
      } catch (error) {
        logSwallowed(error);
        say(texts.optOutFailed);
      }
    });
  }
  if (support.failure || !('serviceWorker' in navigator) || !('PushManager' in window)) return say(texts.unsupported);

  const registration = await navigator.serviceWorker.getRegistration(workerSite.swScope);
  const existing = await registration?.pushManager.getSubscription();
  const permission = Notification.permission;

  if (action === 'triggerOptOut') {
    return existing && permission === 'granted' ? say(texts.optOutSubscribed, 'pc-lock') : say(texts.optOutNotSubscribed);
  }
  if (action === 'unsubscribe') {
    return afterClick(texts.confirmUnsubscribe, texts.unsubscribeButton, async () => {
      await adoptOpener();
      say(texts.unsubscribing);
      await existing?.unsubscribe();
      if (services.subscriberId()) await syncAction(services, browser, 'unsubscribe-ui');
      say(texts.unsubscribed);
      finish({});
    });
  }
  if (permission === 'denied') {
    say(texts.blocked, 'pc-unblock');
    return post({ is_blocked_user: true });
  }
  if (existing && permission === 'granted' && services.subscriberId()) {
    say(texts.alreadySubscribed);
    return finish({ subscribedToWebPush: true });
  }

  const subscribe = async (): Promise<void> => {
    show('pc-buttons', false);
    show('pc-spinner', true);
    step(2);
    await adoptOpener();
    const answer = permission === 'granted' ? permission : await askPermission();
    if (answer === 'denied') {
      say(texts.blocked, 'pc-unblock');
      show('pc-steps', false);
      return finish({ is_blocked_user: true });
    }
    if (answer !== 'granted') return finish({});
    step(3);
    try {
      const current = describeSubscription(
        await subscribePush(workerSite, services.local, await activeRegistration(workerSite, browser === 'firefox')),
      );
      const synced = await syncAction(services, browser, 'insert', current);
      show('pc-spinner', false);
      finish({ subscribedToWebPush: synced, is_new_user: synced });
    } catch (error) {
      // Chromium refuses push registrations in incognito windows ("Registration failed - permission denied").
      say(/permission denied/i.test(String(error)) ? texts.incognito : texts.unsupported);
      show('pc-steps', false);
      post({});
    }
  };
  if (params.get('isAPIcall') === 'true' && permission === 'granted') return subscribe();
  say('');
  step(1);
  show('pc-steps', true);
  show('pc-buttons', true);
  element('pc-allow')?.addEventListener('click', () => void subscribe().catch(logSwallowed));
  element('pc-no')?.addEventListener('click', () => finish({}));
}

if (typeof document !== 'undefined' && document.getElementById('pc-text')) {
  runChildWindow().catch(logSwallowed);
}
