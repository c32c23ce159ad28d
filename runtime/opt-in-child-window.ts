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
import { BLOCKED, CANCELLED, SAFARI_ERROR } from './messages.ts';
import { DB_STATUS, DO_NOT_TRACK, OPT_OUT, STATUS, SUBSCRIBER_ID, SUBSCRIBER_SECRET, SUBSCRIPTION_ID, UUID_DAYS } from './storage-keys.ts';

/** The fields the child window posts to its opener (spec section 7); the stored values go under their storage keys. */
export interface ChildWindowMessage {
  [SUBSCRIBER_ID]?: string;
  /** The subscriber's secret (push-kit's addition), kept beside the id. */
  [SUBSCRIBER_SECRET]?: string;
  [SUBSCRIPTION_ID]?: string;
  [DO_NOT_TRACK]?: string;
  is_new_user?: boolean;
  subscribedToWebPush?: boolean;
  is_blocked_user?: boolean;
  safariOptInFailed?: boolean;
  [OPT_OUT]?: boolean;
}

export function childWindowOptInPath(services: RuntimeServices, browser: BrowserName, outcome: OptInOutcome): OptInPath {
  const { local } = services;

  /** Takes over what the child window learned: opt-out flag, consent, subscriber id, and reports the outcome. */
  const apply = (message: ChildWindowMessage): void => {
    const consent = message[DO_NOT_TRACK];
    if (message[OPT_OUT]) services.cookies.set(OPT_OUT, '1', UUID_DAYS);
    if (consent === '0' || consent === '1') storeConsent(services, consent === '0');
    const subscriberId = valid(message[SUBSCRIBER_ID], BROWSER_ID_PATTERN);
    if (message.subscribedToWebPush && subscriberId) {
      local.set(SUBSCRIBER_ID, subscriberId);
      local.set(SUBSCRIBER_SECRET, valid(message[SUBSCRIBER_SECRET], BROWSER_ID_PATTERN) || '');
      local.set(STATUS, 'subscribed');
      local.set(DB_STATUS, 'true');
      outcome.succeed();
    } else if (message.safariOptInFailed) outcome.blocked(SAFARI_ERROR);
    else if (message.is_blocked_user) outcome.blocked(BLOCKED);
    else if (!message[OPT_OUT]) outcome.fail(CANCELLED);
  };

  const open = (uuid: string, action: string, isApiCall: boolean): void => {
    const url = new URL(services.site.childWindowUrl, location.href);
    url.searchParams.set('uuid', uuid);
    url.searchParams.set('action', action);
    if (isApiCall) url.searchParams.set('isAPIcall', 'true');
    // Only the provider's origin may answer: a message from any other origin is ignored.
    const listener = (event: MessageEvent): void => {
      if (event.origin !== url.origin || !event.data || typeof event.data !== 'object') return;
      removeEventListener('message', listener);
      apply(event.data as ChildWindowMessage);
    };
    addEventListener('message', listener);
    // A blocked popup (window.open answers null) is a closed prompt (CANCELLED), not a wait forever.
    if (window.open(url.href, 'pushkit', 'width=520,height=600') === null) listener({ origin: url.origin, data: {} } as MessageEvent);
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

    // The subscription lives on the provider's origin: only the child window can remove it.
    _unsubscribe() {},

    _triggerOptOut: (uuid) => open(uuid, 'triggerOptOut', true),
  };
}
