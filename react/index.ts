'use client';
// `push-kit/react`: the site's push.js in a React app. <PushKit /> adds its script tag once per page (a
// module-level loader keyed by the script's URL: StrictMode's double effects, several mounts and client
// navigation find it already there), and usePushKit() reads the runtime's state through useSyncExternalStore and
// wraps its public API (README "In the browser"). Nothing here touches `window` or `document` at import or while
// rendering, so server rendering (Next.js app router) sees 'loading' and renders the same markup as the client's
// first pass. push.js itself has no React: this module only talks to `window.pushkit`.
import { useEffect, useSyncExternalStore } from 'react';
import type { PushkitApi } from '../runtime/api.ts';

export type { PushkitApi } from '../runtime/api.ts';

/**
 * `loading` until push.js has loaded and finished the page view's work; then `ready` where this browser can
 * subscribe, `unsupported` where it cannot (the runtime's `failed` readiness: old browser, iOS outside a
 * home-screen app), or `failed` when push.js did not load or did not start (network error, wrong URL, the first
 * page matched `excludeUrls`).
 */
export type PushKitReadiness = 'loading' | 'ready' | 'unsupported' | 'failed';

export interface PushKitState {
  readiness: PushKitReadiness;
  /** The subscriber id this browser has (it appears when a subscribe succeeds). */
  subscriberId: string | undefined;
  /** The visitor opted out (only their own click on an opt-in element brings the prompt back). */
  optedOut: boolean;
}

/** A React click (or key) event, or the DOM event itself. */
export type VisitorEvent = Event | { nativeEvent: Event };

export interface UsePushKit extends PushKitState {
  /**
   * Offers the opt-in. Call it from the visitor's click handler with the event (`onClick={(e) => optIn(e)}`):
   * the runtime re-prompts an opted-out visitor only for a trusted click or Enter / Space being handled.
   */
  optIn(event?: VisitorEvent): void;
  optOut(): void;
  tag(key: string, value: string): void;
  /** Resolves true when added, false when not, -1 when this browser has no subscriber id yet. */
  addToSegment(name: string): Promise<boolean | -1>;
}

export interface PushKitProps {
  /** The URL of the site's push.js (`https://www.example.com/push.js`). */
  src?: string;
  /** The site's origin where push.js is served at the root: `{siteUrl}/push.js`. */
  siteUrl?: string;
  /** The config's `cdnUrl`: `{cdnUrl}/push.js`. */
  cdnUrl?: string;
}

type Host = { pushkit?: PushkitApi | unknown[] };

const SERVER_STATE: PushKitState = { readiness: 'loading', subscriberId: undefined, optedOut: false };
let state: PushKitState = SERVER_STATE;
const listeners = new Set<() => void>();
/**
 * The push.js URL this page loads, once: a page has one `window.pushkit`, so a later <PushKit> with another URL
 * is ignored (with a console warning).
 */
let requested: string | undefined;

function update(next: Partial<PushKitState>): void {
  const merged = { ...state, ...next };
  if (merged.readiness === state.readiness && merged.subscriberId === state.subscriberId && merged.optedOut === state.optedOut) return;
  state = merged;
  listeners.forEach((listener) => listener());
}

/** The API object once push.js replaced the queue; undefined before (or where it never will). */
function loadedApi(): PushkitApi | undefined {
  const api = (window as Host).pushkit;
  return api && !Array.isArray(api) ? (api as PushkitApi) : undefined;
}

/** Calls `name` on the API, or queues it (`pushkit.push`) until push.js loads. */
function call(name: string, ...args: unknown[]): void {
  const host = window as Host;
  const target = (host.pushkit ||= []) as { push(call: unknown): void };
  target.push([name, ...args]);
}

function readApi(api: PushkitApi): void {
  void api.ready.then(() =>
    update({
      readiness: api.readiness === 'ready' ? 'ready' : 'unsupported',
      subscriberId: api.getSubscriberId(),
      optedOut: api.isOptedOut(),
    }),
  );
}

export function pushJsUrl({ src, siteUrl, cdnUrl }: PushKitProps): string {
  const base = siteUrl ?? cdnUrl;
  const url = src ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/push.js`);
  if (!url) throw new Error("<PushKit>: give src (the URL of the site's push.js), siteUrl or cdnUrl");
  return url;
}

/** Adds push.js to the page unless it is there (from this module, the page's own snippet or another copy). */
function load(src: string): void {
  const url = new URL(src, document.baseURI).href;
  if (requested !== undefined) {
    if (requested !== url) console.warn(`<PushKit>: this page already loads ${requested}; ${url} is not loaded`);
    return;
  }
  requested = url;
  // before the script runs: its success callback reports the subscriber id to the hook
  call('subscriptionSuccessCallback', (subscriberId: string | undefined) => update({ subscriberId, optedOut: false }));
  const api = loadedApi();
  if (api) return readApi(api);
  const started = () => {
    const loaded = loadedApi();
    if (loaded) readApi(loaded);
    else update({ readiness: 'failed' });
  };
  const existing = Array.from(document.scripts).find((script) => script.src === url);
  if (existing) {
    existing.addEventListener('load', started);
    existing.addEventListener('error', () => update({ readiness: 'failed' }));
    return;
  }
  const script = document.createElement('script');
  script.async = true;
  script.src = url;
  script.addEventListener('load', started);
  script.addEventListener('error', () => update({ readiness: 'failed' }));
  document.head.appendChild(script);
}

/** Loads the site's push.js once per page; renders nothing. Place it once, in the root layout. */
export function PushKit(props: PushKitProps): null {
  const src = pushJsUrl(props);
  useEffect(() => load(src), [src]);
  return null;
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

const actions: Omit<UsePushKit, keyof PushKitState> = {
  optIn(event) {
    const native = event && 'nativeEvent' in event ? event.nativeEvent : event;
    // Synchronously, inside the visitor's handler: the runtime compares the event with the one being dispatched.
    call('triggerOptIn', native);
  },
  optOut() {
    call('triggerOptOut');
    // the runtime sets its opt-out cookie at once (a queued call is read when push.js is ready)
    const api = loadedApi();
    if (api) update({ optedOut: api.isOptedOut() });
  },
  tag: (key, value) => call('tag', key, value),
  addToSegment: (name) => new Promise((resolve) => call('addToSegment', name, resolve)),
};

/** The push service's state on this page and the calls of push.js's API; 'loading' on the server. */
export function usePushKit(): UsePushKit {
  const current = useSyncExternalStore(
    subscribe,
    () => state,
    () => SERVER_STATE,
  );
  return { ...current, ...actions };
}
