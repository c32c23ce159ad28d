// The public API behind `window.pushkit` (spec section 7) for one page view: it starts the lifecycle and the
// feature modules, and keeps the page's callbacks.
import type { SiteModule } from './site-module.ts';
import type { OptInResult } from './messages.ts';
import type { CallbackKind, Readiness } from './lifecycle.ts';
import { createServices } from './create-services.ts';
import { startLifecycle } from './lifecycle.ts';
import { answer, guard } from './guard.ts';
import { syncAction } from './sync.ts';
import { storeConsent } from './tracking-consent.ts';
import { createTagger, refreshVisitorData } from './tags.ts';
import { addSubscriberToSegment, removeSubscriberFromSegment } from './segment-api.ts';
import { startSegments } from './segments.ts';
import { startShop } from './shop.ts';
import { reportLandingClick } from './landing-click.ts';

type Listener = (...args: never[]) => void;

export interface PushkitApi {
  push(call: unknown): void;
  tag(key: string, value: string): void;
  addToSegment: (name: string, callback?: (result: boolean | -1) => void) => Promise<boolean | -1>;
  addSubscriberToSegment: (name: string, callback?: (result: boolean | -1) => void) => Promise<boolean | -1>;
  removeSubscriberFromSegment: (name: string, callback?: (result: boolean | -1) => void) => Promise<boolean | -1>;
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

export function startRuntime(site: SiteModule): PushkitApi {
  guard(reportLandingClick)(site);
  const services = createServices(site);
  const callbacks: Record<CallbackKind, Listener[]> = { success: [], failure: [], shown: [] };
  const lifecycle = startLifecycle(services, (kind, ...args) =>
    callbacks[kind].forEach((fn) => guard(fn as (...a: unknown[]) => void)(...args)),
  );
  const register = (kind: CallbackKind) => (fn: unknown) => typeof fn === 'function' && void callbacks[kind].push(fn as Listener);
  const segmentCall =
    (fn: typeof addSubscriberToSegment) =>
    (name: string, callback?: (result: boolean | -1) => void): Promise<boolean | -1> =>
      fn(services, name, callback).catch(() => false);
  const addSegment = segmentCall(addSubscriberToSegment);
  const tagger = createTagger(services);
  const api: PushkitApi = {
    push: guard((call: unknown) => {
      if (!Array.isArray(call) || typeof call[0] !== 'string' || call[0] === 'push' || call[0] === 'ready') return;
      const fn = (api as unknown as Record<string, unknown>)[call[0]];
      if (typeof fn === 'function') (fn as (...args: unknown[]) => unknown)(...call.slice(1));
    }),
    tag: guard((key: string, value: string) => tagger.tag(key, value)),
    addToSegment: addSegment,
    addSubscriberToSegment: addSegment,
    removeSubscriberFromSegment: segmentCall(removeSubscriberFromSegment),
    triggerOptIn: guard(lifecycle._triggerOptIn),
    optInButton: guard((element: EventTarget) => element.addEventListener('click', api.triggerOptIn)),
    triggerOptOut: guard(lifecycle._triggerOptOut),
    getSubscriberId: (callback) => answer(services.subscriberId_(), callback),
    isOptedOut: (callback) => answer(services.optedOut_(), callback),
    setTrackingConsent: guard((allowed: boolean | number) => {
      const before = services.trackingAllowed_();
      storeConsent(services, !!allowed);
      if (before !== !!allowed && services.subscriberId_()) return syncAction(services, lifecycle._browser, 'http-sync');
    }),
    subscriptionSuccessCallback: register('success'),
    subscriptionFailureCallback: register('failure'),
    optInShownCallback: register('shown'),
    ready: lifecycle._ready,
    readiness: 'uninitialized',
  };
  void lifecycle._ready.then(() => (api.readiness = lifecycle._capable ? 'ready' : 'failed'));
  if (PK_FEATURES.segments || PK_FEATURES.clickSegments) guard(startSegments)(services);
  if (PK_FEATURES.shop) guard(startShop)(services);
  if (PK_FEATURES.customDimensions || PK_FEATURES.userProperties)
    void lifecycle._ready.then(() => refreshVisitorData(services, lifecycle._browser));
  return api;
}
