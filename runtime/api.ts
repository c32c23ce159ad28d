// The public API behind `window.pushkit` (spec section 7) for one page view, as push.js's core runs it on every
// view: the stored state, the update decision (view-decision.ts), the page's callbacks, the segment conditions
// and the trigger listeners. What only some views need is in the lifecycle chunk (chunks/lifecycle.ts), loaded
// after the page's load on a view that needs it: the view's decision, an API call that acts, a fired trigger, a
// segment join, shop work. Without a load, the calls that act wait for it.
import type { CoreSiteModule } from './site-module.ts';
import type { OptInResult } from './messages.ts';
import type { CallbackKind, Readiness } from './lifecycle.ts';
import type { LifecycleRuntime } from './lifecycle-runtime.ts';
import type { LifecycleChunk } from './chunks/lifecycle.ts';
import { createServices } from './create-services.ts';
import { chunkGet, once } from './chunk-loader.ts';
import { afterLoad } from './after-load.ts';
import { answer, guard, logSwallowed } from './guard.ts';
import { decideView, type ViewDecision } from './view-decision.ts';
import { Product } from '../contract/shop-events.ts';
import { startSegments } from './segments.ts';
import { createTagger } from './tags.ts';
import { watchTriggers } from './triggers.ts';
import { LandingParam } from '../contract/push-payload.ts';
import { Key, UUID_DAYS } from './storage-keys.ts';
import { shopEventsAllowed, storeConsent } from './tracking-consent.ts';
import { dropCookies, readCookies } from './storage.ts';

type Listener = (...args: never[]) => void;
type SegmentCallback = (result: boolean | -1) => void;

export interface PushkitApi {
  push(call: unknown): void;
  tag(key: string, value: string): void;
  addToSegment: (name: string, callback?: SegmentCallback) => Promise<boolean | -1>;
  addSubscriberToSegment: (name: string, callback?: SegmentCallback) => Promise<boolean | -1>;
  removeSubscriberFromSegment: (name: string, callback?: SegmentCallback) => Promise<boolean | -1>;
  /** Offers the opt-in; `event`, the visitor's click or key press being handled, also reaches an opted-out visitor. */
  triggerOptIn(event?: Event): void;
  /** Makes `element` the page's opt-in button: its clicks call triggerOptIn with the click. */
  optInButton(element: EventTarget): void;
  triggerOptOut(): void;
  getSubscriberId(callback?: (subscriberId: string | undefined) => void): string | undefined;
  isOptedOut(callback?: (optedOut: boolean) => void): boolean;
  setTrackingConsent(allowed: boolean | number): void;
  subscriptionSuccessCallback(fn: (subscriberId: string | undefined, result: OptInResult) => void): void;
  subscriptionFailureCallback(fn: (result: OptInResult) => void): void;
  optInShownCallback(fn: () => void): void;
  /** Pending JSONP callbacks (see transport.ts); not underscored, the build mangles such names. */
  cb?: unknown;
  /** Settles when this page view's sync is done (for tests and the page's own sequencing). */
  ready: Promise<void>;
  /** The push service's readiness (spec section 4). */
  readiness: Readiness;
}

/** `load`: the lifecycle chunk (push.js loads its file; unit tests hand the module in). */
export function startRuntime(site: CoreSiteModule, load: () => Promise<LifecycleChunk>): PushkitApi {
  const chunk = once(load);
  /** Fetches the chunk when the page is idle after its load, so a prompt or a click does not wait for it. */
  const prefetch = (): void =>
    void afterLoad().then(() => (window.requestIdleCallback || setTimeout)(() => void chunk().catch(logSwallowed)));
  const services = createServices(site, chunkGet(chunk));
  // the page's query, read once (none made for a URL without one: the page's first URLSearchParams costs 0.2-0.3 ms)
  const search = location.search && new URLSearchParams(location.search);
  // a landing page opened from a notification the browser showed itself: the chunk reports the click
  if (search && search.has(LandingParam.CLICK)) void chunk().then((c) => c._landing(), logSwallowed);
  const callbacks: Record<CallbackKind, Listener[]> = { success: [], failure: [], shown: [] };
  const notify = (kind: CallbackKind, ...args: unknown[]): void =>
    callbacks[kind].forEach((fn) => guard(fn as (...a: unknown[]) => void)(...args));
  /** Whether the core watches the trigger events (then the chunk's lifecycle does not). */
  let coreTriggers = false;
  let runtime: Promise<LifecycleRuntime> | undefined;
  const takeOver = (): Promise<LifecycleRuntime> => (runtime = runtime || chunk().then((c) => c._start(services, notify, coreTriggers)));
  /** An API call that acts: run by the chunk's runtime; a chunk that cannot load is logged, never thrown. */
  const via = (use: (runtime: LifecycleRuntime) => unknown): void => void takeOver().then(use).catch(logSwallowed);
  const segmentCall =
    (use: (runtime: LifecycleRuntime) => LifecycleRuntime['_addToSegment']) =>
    (name: string, callback?: SegmentCallback): Promise<boolean | -1> =>
      takeOver().then(
        (r) => use(r)(name, callback),
        () => answer(false, callback),
      );
  const register = (kind: CallbackKind) => (fn: unknown) => typeof fn === 'function' && void callbacks[kind].push(fn as Listener);
  const addSegment = segmentCall((r) => r._addToSegment);
  // `ready` is set below, before push.js hands the API to the page (the queued calls run after this returns)
  const api = {
    push: guard((call: unknown) => {
      // `ready` is a promise, not called (the test below); a name that is not a string names nothing of the API
      if (!Array.isArray(call) || call[0] === 'push') return;
      const fn = (api as unknown as Record<string, unknown>)[call[0]];
      if (typeof fn === 'function') (fn as (...args: unknown[]) => unknown)(...call.slice(1));
    }),
    // In the core: a tag is stored and batched at the call, and a batch still waiting when the page hides goes out
    // with sendBeacon, chunk or not (the batch's own request loads the chunk's transport). `tag` reads no `this`.
    tag: guard(createTagger(services).tag),
    addToSegment: addSegment,
    addSubscriberToSegment: addSegment,
    removeSubscriberFromSegment: segmentCall((r) => r._removeFromSegment),
    triggerOptIn: (event) => {
      // read now: the event is the one being dispatched only during the call
      const dispatched = event === window.event ? event : undefined;
      via((r) => r._triggerOptIn(dispatched));
    },
    // the chunk is fetched ahead: a browser keeps the click's activation for a short time only (Safari's shortest);
    // not for a subscriber whose view the core found in sync (such a view fetches nothing; a click still loads it)
    optInButton: guard((element: EventTarget) => {
      element.addEventListener('click', api.triggerOptIn);
      void api.ready.then(() => services.subscriberId_() || prefetch());
    }),
    triggerOptOut: (): void => {
      // The opt-out holds at once (isOptedOut right after), as the page's own code may read it; the child window
      // asks the visitor first, on its own origin.
      if (!(PK_FEATURES.childWindow && !('serviceWorker' in navigator)) && !services.optedOut_())
        services.cookies_.set(Key.OPT_OUT, '1', UUID_DAYS);
      via((r) => r._triggerOptOut());
    },
    getSubscriberId: (callback) => answer(services.subscriberId_(), callback),
    isOptedOut: (callback) => answer(services.optedOut_(), callback),
    setTrackingConsent: guard((allowed: boolean | number) => {
      const before = services.trackingAllowed_();
      storeConsent(services, !!allowed);
      if (before !== !!allowed && services.subscriberId_()) via((r) => r._syncConsent());
    }),
    subscriptionSuccessCallback: register('success'),
    subscriptionFailureCallback: register('failure'),
    optInShownCallback: register('shown'),
    readiness: 'uninitialized',
  } satisfies Omit<PushkitApi, 'ready'> as PushkitApi;

  // The cookies are read once, from a microtask (storage.ts readCookies); the segment conditions, the shop's check and
  // the view's decision run once they are in.
  const cookiesRead = readCookies();
  const startView = async (): Promise<boolean> => {
    await cookiesRead;
    // a segment join is the chunk's (and its request): fetched only for a subscriber whose condition holds
    if (PK_FEATURES.segments || PK_FEATURES.clickSegments)
      guard(startSegments)(services, (sid, vn) =>
        chunk().then(
          (c) => c._join(services, sid, vn),
          () => false,
        ),
      );
    if (PK_FEATURES.shop && shopEventsAllowed(services)) {
      // A shop page with work for the chunk (shop.ts, which checks the consent and the opt-out again): a product page,
      // a cart-add post to read back, an order page.
      void afterLoad().then(() => {
        services.loadedAt_ = Date.now();
        if (
          document.querySelector(Product.SELECTOR) ||
          services.session_.get(Key.CART_POSTED) ||
          /checkouts\/[^/?#]+/.test(location.pathname)
        )
          takeOver().catch(logSwallowed);
      });
      // A cart-add post is kept for the chunk's shop (the post leaves the page), which records it too once it runs;
      // not once the visitor has opted out or withdrawn consent on this page (the mark is a cookie the shop receives).
      document.addEventListener(
        'submit',
        (event) => {
          const form = event.target as HTMLFormElement;
          if (!shopEventsAllowed(services) || !form.getAttribute || !String(form.getAttribute('action')).includes('/cart/add')) return;
          const field = form.elements.namedItem('id') as HTMLInputElement | null;
          const variant = field && field.value && field.value.slice(0, 64);
          services.session_.set(Key.CART_POSTED, Date.now() + (variant ? ' ' + variant : ''));
          void takeOver().catch(logSwallowed);
        },
        true,
      );
    }
    let decision: ViewDecision | undefined;
    try {
      decision = await decideView(services, search);
    } catch (error) {
      // the chunk's lifecycle reads the same state again, and its sync reports what failed
      logSwallowed(error);
    }
    if (runtime || !decision || decision._full) {
      // Handed over: the chunk's start reads the cookies the core read (with every write since), not
      // document.cookie (a synchronous call to the browser process, and V8 re-parsing the stack under it);
      // they are dropped once its start is done.
      const started = await takeOver();
      await started._ready;
      return started._capable;
    }
    if (decision._offer) {
      coreTriggers = true;
      watchTriggers(site.triggers, () => void takeOver().then((r) => r._fire(), logSwallowed), services);
      // armed: fetched when the page is idle after its load, so the prompt shows without waiting for it
      prefetch();
    } else if (decision._canPush) watchTriggers(site.triggers, undefined, services);
    return decision._canPush;
  };
  api.ready = startView()
    .then((capable) => void (api.readiness = capable ? 'ready' : 'failed'), logSwallowed)
    .then(dropCookies);
  return api;
}
