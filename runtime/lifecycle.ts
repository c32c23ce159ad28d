// The subscriber lifecycle of one page view (spec section 4): opt-out and uuid first, then the sync of an
// existing subscription, then the opt-in prompt on its trigger. The way of subscribing (opt-in-path.ts) is
// chosen once here; the public API (api.ts) drives the rest.
import type { RuntimeServices } from './services.ts';
import { BROWSER_NAMES, failureText, type BrowserName } from './browser-support.ts';
import type { OptInResult } from './messages.ts';
import type { OptInOutcome } from './opt-in-outcome.ts';
import type { OptInPath } from './opt-in-path.ts';
import type { PromptAction, PromptKind } from './prompts.ts';
import { viewSupport } from './view-support.ts';
import { createPrompts } from './prompts.ts';
import { readState, reportBlock, syncAction } from './sync.ts';
import { visitorUuid } from './visitor-id.ts';
import { fetchConsent, storeConsent } from './tracking-consent.ts';
import { nativeOptInPath } from './opt-in-native.ts';
import { safariOptInPath } from './opt-in-safari.ts';
import { childWindowOptInPath } from './opt-in-child-window.ts';
import { guard, logSwallowed } from './guard.ts';
import { ALREADY_OPTED_OUT_TEXT, CANCELLED, OPTED_OUT_TEXT, SUBSCRIBED } from './messages.ts';
import { DO_NOT_SHOW_DAYS, Key, UUID_DAYS } from './storage-keys.ts';
import { watchTriggers } from './triggers.ts';

/** The page's callbacks, by kind: success (subscriberId, result), failure (result), shown (). */
export type CallbackKind = 'success' | 'failure' | 'shown';
export type Notify = (kind: CallbackKind, ...args: unknown[]) => void;

/**
 * Push service readiness (spec section 4): `uninitialized` until the page view's work is done, then `ready` where
 * this browser can subscribe, or `failed` where it cannot (an internal failure reason, or no push interface).
 */
export type Readiness = 'uninitialized' | 'ready' | 'failed';

/** What the public API drives; `_` members, so the build shortens their names. */
export interface Lifecycle {
  _browser: BrowserName;
  /** Settles when this page view's sync is done. */
  _ready: Promise<void>;
  /** Whether this browser can subscribe (no internal failure reason, a push interface). */
  _capable: boolean;
  /**
   * The API's triggerOptIn: the subscribed or blocked copy, or the opt-in prompt. `byVisitor`: the call came from
   * the visitor's own click or key press (byVisitor below), which lets an opted-out visitor see the prompt again.
   */
  _triggerOptIn(byVisitor: boolean): Promise<void>;
  /** The prompt's trigger fired (watched by the core): offers the prompt when this view offers it. */
  _fire(): void;
  /** The API's triggerOptOut. */
  _triggerOptOut(): unknown;
}

/**
 * `coreTriggers`: the core (push.ts) already watches the trigger events and calls `_fire` when the prompt's
 * trigger fires; without it, this view watches them itself.
 */
export function startLifecycle(services: RuntimeServices, notify: Notify, coreTriggers?: boolean): Lifecycle {
  const { site_: site, local_: local } = services;
  const {
    support_: support,
    safariPush_: safariPush,
    onSafari_: onSafari,
    viaChildWindow_: viaChildWindow,
    pushCapable_: pushCapable,
  } = viewSupport(site);
  const browser = BROWSER_NAMES[support.browser_]!;
  let uuid = '';
  let busy = false;
  let apiCall = false;

  const fail = (result: OptInResult): void => notify('failure', result);
  const setDoNotShow = (): void => local.set(Key.DO_NOT_SHOW, String(Date.now() + DO_NOT_SHOW_DAYS * 864e5));
  const doNotShowActive = (): boolean => Number(local.get(Key.DO_NOT_SHOW)) > Date.now();
  const outcome: OptInOutcome = {
    succeed_() {
      // Only the visitor's own Yes reaches a subscribe while opted out (see _triggerOptIn): it replaces the opt-out.
      services.cookies_.remove(Key.OPT_OUT);
      services.emit_('subscribe');
      notify('success', services.subscriberId_(), SUBSCRIBED);
    },
    fail_(result) {
      // The visitor said Yes and nothing came of it (the push service or the provider refused): say so.
      if (result !== CANCELLED) prompts.show_('failed');
      fail(result);
    },
    blocked_(result) {
      services.emit_('block');
      void reportBlock(services, browser);
      setDoNotShow();
      local.set(Key.STATUS, 'blocked');
      fail(result);
    },
  };

  const optInNow = async (isApiCall: boolean): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      await path._subscribe(uuid, isApiCall);
    } finally {
      busy = false;
    }
  };
  const onPromptAction = (kind: PromptKind, action: PromptAction, consent?: boolean): void => {
    prompts.hide_(kind);
    if (consent !== undefined) storeConsent(services, consent);
    // Closed instructions stay away like a refused prompt: installing the app is the visitor's call.
    if (PK_FEATURES.iosHomeScreen && kind === 'homeScreen') return setDoNotShow();
    if (kind !== 'chicklet' && kind !== 'modal' && kind !== 'mobile') return;
    if (action === 'yes') guard(optInNow)(apiCall);
    else setDoNotShow();
  };
  const prompts = createPrompts(site.prompts, onPromptAction);
  // Chosen once per page view; in a build without Safari or the child window, the feature constants fold
  // this to the native path and the other two are not bundled.
  const path: OptInPath =
    PK_FEATURES.safari && onSafari
      ? safariOptInPath(services, safariPush!, outcome)
      : PK_FEATURES.childWindow && viaChildWindow
        ? childWindowOptInPath(services, browser, outcome)
        : nativeOptInPath(services, browser, outcome, prompts);

  /**
   * Shows the soft prompt (branding modal, mobile box or chicklet); without markup, asks at once. A visitor who
   * already granted the permission is not asked again ("granted: the subscription is created"), unless `ask`
   * (an opted-out visitor is never subscribed again without the prompt).
   */
  const offer = (isApiCall: boolean, ask?: boolean): void => {
    apiCall = isApiCall;
    if (!ask && path._permission() === 'granted') {
      // the consent checkbox is on the offer: a visitor who never saw it has not consented (kept, so the next view
      // need not ask the provider)
      if (PK_FEATURES.trackingConsent && !local.get(Key.DO_NOT_TRACK)) storeConsent(services, false);
      return void optInNow(isApiCall);
    }
    const kind: PromptKind = PK_FEATURES.brandingModal ? 'modal' : PK_FEATURES.mobileBox && support.mobile_ ? 'mobile' : 'chicklet';
    if (prompts.show_(kind)) notify('shown');
    else void optInNow(isApiCall);
  };

  async function optOut(alerting: boolean): Promise<void> {
    const already = services.optedOut_();
    if (!already) services.cookies_.set(Key.OPT_OUT, '1', UUID_DAYS);
    for (const kind of ['chicklet', 'modal', 'mobile', 'context'] as const) prompts.hide_(kind);
    if (alerting) alert(already ? ALREADY_OPTED_OUT_TEXT : OPTED_OUT_TEXT);
    await path._unsubscribe(uuid);
    if (services.subscriberId_()) await syncAction(services, browser, 'unsubscribe-ui');
  }

  /** What the prompt's trigger does on this view, once the view's work decided it (nothing: undefined). */
  let fire: (() => void) | undefined;

  async function startView(): Promise<void> {
    uuid = await visitorUuid(services, browser, location.search);
    if (new URLSearchParams(location.search).has(Key.OPT_OUT)) return optOut(true);
    if (services.optedOut_()) {
      if (services.subscriberId_()) await syncAction(services, browser, 'unsubscribe-ui');
      return;
    }
    if (!pushCapable) {
      // the internal reason, for the site's developer (debug level, as the errors push.js swallows)
      if (support.failure_) logSwallowed(failureText(support.failure_));
      if (PK_FEATURES.iosHomeScreen && support.homeScreen_ && !doNotShowActive() && site.urlQualifies(location.href)) {
        fire = () => void prompts.show_('homeScreen');
        if (!coreTriggers) watchTriggers(site.triggers, fire, services);
      }
      return;
    }
    // The provider keeps the consent of a subscriber this browser lost it for: read first, so the sync sends it.
    if (PK_FEATURES.trackingConsent) await fetchConsent(services, browser);
    let subscribed = false;
    try {
      subscribed = await path._sync(readState(services));
    } catch (error) {
      logSwallowed(error);
    }
    const offering = !subscribed && path._permission() !== 'denied' && !doNotShowActive() && site.urlQualifies(location.href);
    if (offering) fire = guard(() => path._permission() !== 'denied' && readState(services).status !== 'subscribed' && offer(false));
    // A subscriber's views watch the trigger events too, for the segment conditions that name them.
    if (!coreTriggers) watchTriggers(site.triggers, fire, services);
  }

  const ready = startView().catch(logSwallowed);
  return {
    _browser: browser,
    _ready: ready,
    _capable: pushCapable,
    async _triggerOptIn(fromVisitor) {
      await ready;
      const optedOut = services.optedOut_();
      if (optedOut && !fromVisitor) return;
      if (PK_FEATURES.iosHomeScreen && support.homeScreen_) prompts.show_('homeScreen');
      if (!pushCapable) return;
      const permission = path._permission();
      if (permission === 'denied') {
        if (path._unblock) path._unblock(uuid);
        else prompts.show_('blocked');
      } else if (permission === 'granted' && readState(services).status === 'subscribed') prompts.show_('subscribed');
      else offer(true, optedOut);
    },
    _fire: () => void ready.then(() => fire && fire()),
    _triggerOptOut: () => (path._triggerOptOut ? path._triggerOptOut(uuid) : optOut(false)),
  };
}

/**
 * An opted-out visitor is offered the prompt again only from the visitor's own click (or Enter / Space) on the
 * page's opt-in element, as it happens: a trusted event (not made by script) that is the one being dispatched
 * (window.event), not one kept from an earlier, unrelated click. Transient activation (navigator.userActivation)
 * would not do: it lasts seconds after any click. The opt-out ends only when that prompt's Yes subscribes
 * (outcome.succeed_). Whether it is the one being dispatched is read at the call, before the lifecycle chunk loads
 * (push.js's core hands over only such an event, api.ts); the rest here, in the chunk.
 */
export const byVisitor = (event?: Event): boolean =>
  !!event && event.isTrusted && (event.type === 'click' || /^(Enter| )$/.test((event as KeyboardEvent).key));
