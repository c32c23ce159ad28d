// The lifecycle chunk's side of one page view (push.js's second stage, runtime/chunks/lifecycle.ts): what only
// some views need, started by the core (api.ts) with the core's services: the subscriber lifecycle with its
// prompts and opt-in paths, the segment calls, the custom data refresh, the tracking consent's sync and the shop.
import type { RuntimeServices } from './services.ts';
import type { Notify } from './lifecycle.ts';
import { byVisitor, startLifecycle } from './lifecycle.ts';
import { syncAction } from './sync.ts';
import { refreshVisitorData } from './tags.ts';
import { addSubscriberToSegment, removeSubscriberFromSegment } from './segment-api.ts';
import { startShop } from './shop.ts';
import { guard } from './guard.ts';

type SegmentCall = (name: string, callback?: (result: boolean | -1) => void) => Promise<boolean | -1>;

/** What the core's API calls once the chunk runs; `_` members, so the build shortens their names. */
export interface LifecycleRuntime {
  /** Settles when this page view's sync is done. */
  _ready: Promise<void>;
  _capable: boolean;
  /** `event`: the API call's event, when it was the one being dispatched at the call (window.event); see byVisitor. */
  _triggerOptIn(event: Event | undefined): Promise<void>;
  _triggerOptOut(): unknown;
  /** The prompt's trigger fired (watched by the core). */
  _fire(): void;
  _addToSegment: SegmentCall;
  _removeFromSegment: SegmentCall;
  /** The tracking consent changed for a subscriber: the provider hears it (http-sync). */
  _syncConsent(): Promise<boolean>;
}

/** `coreTriggers`: the core watches the trigger events (and calls `_fire`); otherwise the lifecycle does. */
export function startLifecycleRuntime(services: RuntimeServices, notify: Notify, coreTriggers: boolean): LifecycleRuntime {
  const lifecycle = startLifecycle(services, notify, coreTriggers);
  const segmentCall =
    (fn: typeof addSubscriberToSegment): SegmentCall =>
    (name, callback) =>
      fn(services, name, callback).catch(() => false);
  if (PK_FEATURES.shop) guard(startShop)(services);
  if (PK_FEATURES.customDimensions || PK_FEATURES.userProperties)
    void lifecycle._ready.then(() => refreshVisitorData(services, lifecycle._browser));
  return {
    _ready: lifecycle._ready,
    _capable: lifecycle._capable,
    _triggerOptIn: (event) => lifecycle._triggerOptIn(byVisitor(event)),
    _triggerOptOut: lifecycle._triggerOptOut,
    _fire: lifecycle._fire,
    _addToSegment: segmentCall(addSubscriberToSegment),
    _removeFromSegment: segmentCall(removeSubscriberFromSegment),
    _syncConsent: () => syncAction(services, lifecycle._browser, 'http-sync'),
  };
}
