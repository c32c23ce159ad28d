// Opt-in on plain-http sites (spec sections 2 and 7): the page cannot subscribe on its own origin, so a popup
// on the provider's origin (the child window) asks, subscribes and posts the outcome back; only messages
// from that origin are accepted. Its answer, kept as the stored status, is what counts on this page.
import type { RuntimeServices } from './services.ts';
import type { BrowserName } from './browser-support.ts';
import type { OptInOutcome } from './opt-in-outcome.ts';
import type { OptInPath } from './opt-in-path.ts';
import { valid } from './create-services.ts';
import { BROWSER_ID_PATTERN } from '../contract/ids.ts';
import { storeConsent } from './tracking-consent.ts';
import { readState, syncAction } from './sync.ts';
import { BLOCKED, CANCELLED, NOT_SUBSCRIBED, SAFARI_ERROR, SYNC_ERROR } from './messages.ts';
import { Key } from './storage-keys.ts';

/** The fields the child window posts to its opener (spec section 7); the stored values go under their storage keys. */
export interface ChildWindowMessage {
  [Key.SUBSCRIBER_ID]?: string;
  /** The subscriber's secret (push-kit's addition), kept beside the id. */
  [Key.SUBSCRIBER_SECRET]?: string;
  [Key.SUBSCRIPTION_ID]?: string;
  [Key.DO_NOT_TRACK]?: string;
  is_new_user?: boolean;
  subscribedToWebPush?: boolean;
  is_blocked_user?: boolean;
  safariOptInFailed?: boolean;
  [Key.OPT_OUT]?: boolean;
  /** push-kit's addition: why a subscribe failed, so the page hears "Could Not Subscribe." or a sync error, not a close. */
  pushkit_failure?: 'subscribe' | 'sync';
}

/** Why the page opened the child window: its `action`, and the opt-out flag. */
type ChildWindowAction = 'subscribe' | 'unblock' | 'triggerOptOut' | 'unsubscribe';

export function childWindowOptInPath(services: RuntimeServices, browser: BrowserName, outcome: OptInOutcome): OptInPath {
  const { local_: local } = services;
  let listening: ((event: MessageEvent) => void) | undefined;

  /** Takes over what the child window learned (consent, subscriber id and secret) and reports the outcome. */
  const apply = (message: ChildWindowMessage, action: ChildWindowAction): void => {
    const consent = message[Key.DO_NOT_TRACK];
    if (consent === '0' || consent === '1') storeConsent(services, consent === '0');
    const subscriberId = valid(message[Key.SUBSCRIBER_ID], BROWSER_ID_PATTERN);
    if (message.subscribedToWebPush && subscriberId) {
      local.set(Key.SUBSCRIBER_ID, subscriberId);
      local.set(Key.SUBSCRIBER_SECRET, valid(message[Key.SUBSCRIBER_SECRET], BROWSER_ID_PATTERN) || '');
      local.set(Key.STATUS, 'subscribed');
      local.set(Key.DB_STATUS, 'true');
      return outcome.succeed_();
    }
    if (!subscriberId) {
      // The child window's origin holds no subscriber (unsubscribed, opted out, blocked there): nor does the page.
      local.remove(Key.SUBSCRIBER_ID);
      local.remove(Key.SUBSCRIBER_SECRET);
      if (message.is_blocked_user) local.set(Key.STATUS, 'blocked');
      else if (readState(services).status === 'subscribed') local.set(Key.STATUS, 'unsubscribed');
    }
    // Only an opt-in that the page asked for ends in the page's callbacks.
    if (action !== 'subscribe' && action !== 'unblock') return;
    if (message.safariOptInFailed) outcome.blocked_(SAFARI_ERROR);
    else if (message.is_blocked_user) outcome.blocked_(BLOCKED);
    else
      outcome.fail_(message.pushkit_failure === 'subscribe' ? NOT_SUBSCRIBED : message.pushkit_failure === 'sync' ? SYNC_ERROR : CANCELLED);
  };

  const open = (uuid: string, action: ChildWindowAction, isApiCall: boolean, optOut?: boolean): void => {
    const url = new URL(services.site_.childWindowUrl, location.href);
    url.searchParams.set('uuid', uuid);
    url.searchParams.set('action', action);
    if (isApiCall) url.searchParams.set('isAPIcall', 'true');
    // The consent the visitor gave on this page is the one the child window's sync reports.
    url.searchParams.set('shouldTrackData', String(services.trackingAllowed_()));
    if (optOut) url.searchParams.set(Key.OPT_OUT, '1');
    // Only the provider's origin may answer: a message from any other origin is ignored. The window may answer
    // more than once (a denial, then the visitor unblocks and subscribes); the last window opened is listened to.
    if (listening) removeEventListener('message', listening);
    listening = (event: MessageEvent): void => {
      if (event.origin === url.origin && event.data && typeof event.data === 'object') apply(event.data as ChildWindowMessage, action);
    };
    addEventListener('message', listening);
    // A blocked popup (window.open answers null) is a closed prompt (CANCELLED), not a wait forever.
    if (window.open(url.href, 'pushkit', 'width=520,height=600') === null && (action === 'subscribe' || action === 'unblock')) {
      apply({ [Key.SUBSCRIBER_ID]: services.subscriberId_() }, action);
    }
  };

  return {
    // A plain-http page reads 'denied' for its own origin; the child window's answer is kept as the status.
    _permission() {
      const { status } = readState(services);
      return status === 'blocked' ? 'denied' : status === 'subscribed' ? 'granted' : 'default';
    },

    async _sync(stored) {
      if (stored.status === 'subscribed' && !stored.subscriberId) await syncAction(services, browser, 'get-subscriberid-from-server');
      return readState(services).status === 'subscribed';
    },

    _subscribe: (uuid, isApiCall) => open(uuid, 'subscribe', isApiCall),

    // The block lives on the child window's origin: its unblock instructions are there.
    _unblock: (uuid) => open(uuid, 'unblock', true),

    // The subscription lives on the child window's origin: only the child window can remove it, on the visitor's
    // click there. The page's own unsubscribe-ui (lifecycle.ts) stops the sending meanwhile.
    _unsubscribe(uuid) {
      if (services.subscriberId_() || readState(services).status === 'subscribed') open(uuid, 'unsubscribe', false, true);
    },

    _triggerOptOut: (uuid) => open(uuid, 'triggerOptOut', true),
  };
}
