// One way of subscribing this browser, chosen once per page view by the lifecycle (lifecycle.ts): the
// browser's Push API (opt-in-native.ts), Safari's legacy push (opt-in-safari.ts) or, on plain-http sites, the
// provider's child window (opt-in-child-window.ts). Types only. The members start with `_` so the build
// shortens their names.
import type { StoredState } from './sync.ts';

export interface OptInPath {
  /** The notification permission as this path knows it; 'unsupported' without the Notification API. */
  _permission(): NotificationPermission | 'unsupported';
  /** Brings the provider up to date with this browser's subscription; true when the visitor is subscribed. */
  _sync(stored: StoredState): Promise<boolean>;
  /** Asks the visitor and subscribes; the opt-in outcome reports how it ended. */
  _subscribe(uuid: string, isApiCall: boolean): Promise<void> | void;
  /** On opt-out, removes the browser's push subscription (Safari's stays; the child window asks the visitor). */
  _unsubscribe(uuid: string): Promise<void> | void;
  /** The API's triggerOptIn for a blocked visitor when this path shows the unblock instructions itself. */
  _unblock?(uuid: string): void;
  /** The API's triggerOptOut when this path handles it itself; without it, the page opts out at once. */
  _triggerOptOut?(uuid: string): void;
}
