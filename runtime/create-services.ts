// The RuntimeServices of the lifecycle core: browser storage, transport, an event bus and the visitor's
// stored identity, read with validation so edited or corrupted values count as absent.
import type { CoreSiteModule } from './site-module.ts';
import type { CoreServices, RuntimeServices } from './services.ts';
import { cookieStore, localStore } from './storage.ts';
import { Key } from './storage-keys.ts';
import { BROWSER_ID_PATTERN, PLACEHOLDER_SUBSCRIBER_ID } from '../contract/ids.ts';
import { guard } from './guard.ts';

const SUBSCRIPTION_ID_PATTERN = /^[\w:.%~-]{1,1024}$/;

/** `value` when it matches `pattern`, otherwise undefined (an edited or corrupted value). */
export const valid = (value: string | null | undefined, pattern: RegExp): string | undefined =>
  value != null && pattern.test(value) ? value : undefined;

/** The transport functions (transport.ts, carried by the lifecycle chunk). */
export type Transport = Pick<RuntimeServices, 'get_' | 'jsonp_' | 'postForm_' | 'beacon_'>;

/** `get_`: the core's, which loads the lifecycle chunk for its request. `site`: the core's copy, or a whole SiteModule. */
export function createServices<S extends CoreSiteModule>(site: S, get: RuntimeServices['get_']): CoreServices & { site_: S } {
  const listeners: Record<string, Array<(event: string) => void>> = {};
  const local = localStore;
  return {
    site_: site,
    subscriberId_: () => {
      const id = valid(local.get(Key.SUBSCRIBER_ID), BROWSER_ID_PATTERN);
      return id && !PLACEHOLDER_SUBSCRIBER_ID.test(id) ? id : undefined;
    },
    secret_: () => valid(local.get(Key.SUBSCRIBER_SECRET), BROWSER_ID_PATTERN) || '',
    subscriptionId_: () => valid(local.get(Key.SUBSCRIPTION_ID), SUBSCRIPTION_ID_PATTERN),
    // A site that asks (pageClickTrackingConcent) tracks only a visitor who ticked the box ('0'): one never asked
    // is not tracked. A site that does not ask tracks unless told not to (setTrackingConsent(false)).
    trackingAllowed_: () => (PK_FEATURES.trackingConsent ? local.get(Key.DO_NOT_TRACK) === '0' : local.get(Key.DO_NOT_TRACK) !== '1'),
    optedOut_: () => cookieStore.get(Key.OPT_OUT) === '1',
    local_: local,
    // set with a key and a value: a session cookie
    session_: cookieStore,
    cookies_: cookieStore,
    emit_(event) {
      // a copy: a listener may add listeners
      for (const listener of (listeners[event] || []).concat(listeners[''] || [])) guard(listener)(event);
    },
    on_(event, listener) {
      (listeners[event] = listeners[event] || []).push(listener);
    },
    get_: get,
    startedAt_: Date.now(),
  };
}
