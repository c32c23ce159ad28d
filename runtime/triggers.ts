// Opt-in trigger events (spec section 4). Each kind's code sits behind its build-time flag, so a site whose
// trigger expression does not name a kind gets none of its code.
import { onMatch } from './closest.ts';
import type { TriggerConfig } from './site-module.ts';
import type { CoreServices } from './services.ts';
import { triggerEventKey } from './storage-keys.ts';
import { afterLoad } from './after-load.ts';

// The distances and times below are written as literals (esbuild keeps a module's constants as variables): the
// leaveIntent's threshold 2 px and delay 1 s, the interval's period 1 s (the scroll tolerance, 2 px, is the compiler's).

/**
 * Calls `fire` once, when any event of `triggers.anyOf` happens (or happened in an earlier view, per
 * `triggers.persist`). Nothing fires after an opt-out. Without `fire` (a subscriber's view) the events of
 * `triggers.anyOf` and `triggers.watch` are still emitted, for segment conditions.
 *
 * leaveIntent: the pointer leaves the document (a mouseout whose relatedTarget is null) at most 2 pixels from the
 * top edge, towards the tabs and address bar; exits in the first 1 s of the view are ignored, so a pointer that was
 * up there at load does not count. The delay, the interval and that first second count from the view's start
 * (services.startedAt_), not from this call.
 * scroll: `triggers.scrolled`, compiled from the config's percent of the scrollable distance or pixels from the top
 * or from the bottom, each within 2 px (compiler/site-module.ts scrolledSource).
 */
export function watchTriggers(triggers: TriggerConfig, fire: (() => void) | undefined, services: CoreServices): void {
  if (services.optedOut_()) return;
  const kinds = fire ? triggers.anyOf.concat(triggers.watch) : triggers.watch;
  const store = PK_FEATURES.triggerPersist
    ? triggers.persist === 'always'
      ? services.local_
      : triggers.persist === 'session'
        ? services.session_
        : undefined
    : undefined;
  let fired = false;
  const fireOnce = (): void => {
    if (fired || !fire || services.optedOut_()) return;
    fired = true;
    fire();
  };
  /** An event this module observes: on the services' bus, like those other modules emit (subscribe, ecom.*). */
  const happened = (kind: string): void => services.emit_(kind);
  const has = (kind: string): boolean => kinds.includes(kind);

  if (PK_FEATURES.triggerPersist && fire && store && triggers.anyOf.some((kind) => store.get(triggerEventKey(kind)))) {
    setTimeout(fireOnce);
    return;
  }
  // Every event of the bus, observed here or emitted elsewhere, fires the trigger when the expression names it (a view
  // without `fire` observes only the events of `triggers.watch`, which the expression does not name).
  if (fire)
    services.on_('', (kind) => {
      if (!triggers.anyOf.includes(kind)) return;
      if (PK_FEATURES.triggerPersist && store) store.set(triggerEventKey(kind), '1');
      fireOnce();
    });

  // 0 is no delay; the compiler always writes delayMs (5 s by default). Counted from the view's start: the chunk's
  // lifecycle, which watches on a view it starts, may begin long after it.
  if (has('delay')) setTimeout(() => happened('delay'), services.startedAt_ + triggers.delayMs - Date.now());

  // after the page's load, or at once (from a microtask) when it is over
  if (PK_FEATURES.triggerLoad && has('load')) void afterLoad().then(() => happened('load'));

  if (PK_FEATURES.triggerClick && has('click')) onMatch('click', triggers.clickSelector, () => happened('click'));
  if (PK_FEATURES.triggerMousedown && has('mousedown')) onMatch('mousedown', triggers.mousedownSelector, () => happened('mousedown'));

  // intervalTicks periods of 1 s, timed as one, from the view's start
  if (PK_FEATURES.triggerInterval && has('interval'))
    setTimeout(() => happened('interval'), services.startedAt_ + (triggers.intervalTicks || 1) * 1000 - Date.now());

  if (PK_FEATURES.triggerLeaveIntent && has('leaveIntent'))
    document.addEventListener('mouseout', (event) => {
      if (!event.relatedTarget && event.clientY <= 2 && Date.now() - services.startedAt_ >= 1000) happened('leaveIntent');
    });

  if (PK_FEATURES.triggerScroll && has('scroll') && triggers.scrolled) {
    const { scrolled } = triggers;
    const check = (): void => {
      if (scrolled(scrollY, document.documentElement.scrollHeight - innerHeight)) {
        removeEventListener('scroll', check);
        happened('scroll');
      }
    };
    addEventListener('scroll', check, { passive: true });
  }
}
