// Opt-in for plain-http sites through the provider's child window (spec sections 2 and 7): a popup on the
// provider's origin subscribes and posts the outcome back; only messages from that origin are accepted.
import type { SiteModule } from './site-module.ts';
import type { RuntimeServices } from './services.ts';
import type { OptInOutcome } from './opt-in-outcome.ts';
import { SUBSCRIBER_ID_PATTERN, valid } from './create-services.ts';
import { storeConsent } from './tracking-consent.ts';
import { BLOCKED, CANCELLED, SAFARI_ERROR } from './messages.ts';
import { DB_STATUS, DO_NOT_TRACK, OPT_OUT, STATUS, SUBSCRIBER_ID, SUBSCRIPTION_ID, UUID_DAYS } from './storage-keys.ts';

/** The fields the child window posts to its opener (spec section 7); the stored values go under their storage keys. */
export interface ChildWindowMessage {
  [SUBSCRIBER_ID]?: string;
  [SUBSCRIPTION_ID]?: string;
  [DO_NOT_TRACK]?: string;
  is_new_user?: boolean;
  subscribedToWebPush?: boolean;
  is_blocked_user?: boolean;
  safariOptInFailed?: boolean;
  [OPT_OUT]?: boolean;
}

export function openChildWindow(
  site: SiteModule,
  uuid: string,
  action: string,
  isApiCall: boolean,
  onMessage: (message: ChildWindowMessage) => void,
): void {
  const url = new URL(site.childWindowUrl, location.href);
  url.searchParams.set('uuid', uuid);
  url.searchParams.set('action', action);
  if (isApiCall) url.searchParams.set('isAPIcall', 'true');
  // Only the provider's origin may answer: a message from any other origin is ignored.
  const listener = (event: MessageEvent): void => {
    if (event.origin !== url.origin || !event.data || typeof event.data !== 'object') return;
    removeEventListener('message', listener);
    onMessage(event.data as ChildWindowMessage);
  };
  addEventListener('message', listener);
  // A blocked popup (window.open answers null) is a closed prompt (CANCELLED), not a wait forever.
  if (window.open(url.href, 'pushkit', 'width=520,height=600') === null) listener({ origin: url.origin, data: {} } as MessageEvent);
}

/** Takes over what the child window learned: opt-out flag, consent, subscriber id, and reports the outcome. */
export function applyChildWindowMessage(services: RuntimeServices, message: ChildWindowMessage, outcome: OptInOutcome): void {
  const { local } = services;
  const consent = message[DO_NOT_TRACK];
  if (message[OPT_OUT]) services.cookies.set(OPT_OUT, '1', UUID_DAYS);
  if (consent === '0' || consent === '1') storeConsent(services, consent === '0');
  const subscriberId = valid(message[SUBSCRIBER_ID], SUBSCRIBER_ID_PATTERN);
  if (message.subscribedToWebPush && subscriberId) {
    local.set(SUBSCRIBER_ID, subscriberId);
    local.set(STATUS, 'subscribed');
    local.set(DB_STATUS, 'true');
    outcome.succeed();
  } else if (message.safariOptInFailed) outcome.blocked(SAFARI_ERROR);
  else if (message.is_blocked_user) outcome.blocked(BLOCKED);
  else if (!message[OPT_OUT]) outcome.fail(CANCELLED);
}
