// Opt-in for plain-http sites through the provider's child window (spec sections 2 and 7): a popup on the
// provider's origin subscribes and posts the outcome back; only messages from that origin are accepted.
import type { SiteModule } from './site-module.ts';

/** The fields the child window posts to its opener (spec section 7). */
export interface ChildWindowMessage {
  wingify_push_subscriber_id?: string;
  wingify_push_subscription_id?: string;
  wingify_donot_track_actions?: string;
  is_new_user?: boolean;
  subscribedToWebPush?: boolean;
  is_blocked_user?: boolean;
  safariOptInFailed?: boolean;
  pushkit_opt_out?: boolean;
}

export function openChildWindow(site: SiteModule, uuid: string, action: string, isApiCall: boolean, onMessage: (message: ChildWindowMessage) => void): void {
  const url = new URL(site.childWindowUrl, location.href);
  url.searchParams.set('uuid', uuid);
  url.searchParams.set('action', action);
  if (isApiCall) url.searchParams.set('isAPIcall', 'true');
  const listener = (event: MessageEvent): void => {
    if (event.origin !== url.origin || !event.data || typeof event.data !== 'object') return;
    removeEventListener('message', listener);
    onMessage(event.data as ChildWindowMessage);
  };
  addEventListener('message', listener);
  window.open(url.href, 'pushkit', 'width=520,height=480');
}
