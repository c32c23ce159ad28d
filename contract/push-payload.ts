// The JSON payload of a push message, as the provider sends it and the service worker reads it.
//
// The provider sends a declarative push message (Push API, "declarative push message"; Safari 18.4+ shows
// it without running a service worker): `web_push` is 8030, `notification` carries the title and the page a
// click opens (`navigate`), and `mutable` asks the browser to run the worker's push event anyway, which
// push-kit needs to report the notification shown. push-kit's workers turn the same JSON into
// showNotification where the browser does not handle it (Chromium, Firefox, older Safari).
//
// The worker reads every field defensively: a payload from an older provider (the flat LegacyPushPayload,
// possibly still queued at a push service) or from another sender may lack any of them.

/** The value of `web_push` that marks a declarative push message (the Push API names RFC 8030). */
export const DECLARATIVE_PUSH_MAGIC = 8030;

/**
 * The query parameter on a notification's landing URL that names the delivery it came from, so a click the
 * browser handles without the worker is still counted: push.js reports it and removes it from the address.
 */
export enum LandingParam {
  CLICK = 'pushkit_click',
}
/** The same name for the provider and tests; push.js reads `LandingParam.CLICK`, which esbuild writes in place. */
export const CLICK_PARAM = LandingParam.CLICK;

/** A button on a declarative notification: `navigate` is the page it opens. */
export interface DeclarativePushAction {
  action: string;
  title: string;
  navigate: string;
  icon?: string;
}

/** What push-kit puts in `notification.data`: the worker reports shown/clicked/closed with it. */
export interface PushNotificationData {
  campaignId?: string | number;
  /** The delivery's click token (the CLICK_PARAM value), which proves the report is for this delivery. */
  click?: string;
}

export interface DeclarativePushMessage {
  web_push: typeof DECLARATIVE_PUSH_MAGIC;
  notification: {
    title: string;
    /** The page a click opens; required by the Push API. */
    navigate: string;
    body?: string;
    icon?: string;
    image?: string;
    badge?: string;
    tag?: string;
    lang?: string;
    dir?: 'auto' | 'ltr' | 'rtl';
    silent?: boolean;
    renotify?: boolean;
    requireInteraction?: boolean;
    actions?: DeclarativePushAction[];
    data?: PushNotificationData;
  };
  /** The number the app badge shows (Badging API); absent leaves the badge alone. */
  app_badge?: number;
  /** True: the browser dispatches the push event to the worker even when it handles the message itself. */
  mutable?: boolean;
}

export interface LegacyPushAction {
  action: string;
  title: string;
  icon?: string;
  /** The page the button opens; the campaign's url when absent. */
  url?: string;
}

/** The flat payload providers sent before declarative messages; workers still read it. */
export interface LegacyPushPayload {
  title?: string;
  body?: string;
  icon?: string;
  image?: string;
  badge?: string;
  url?: string;
  actions?: LegacyPushAction[];
  tag?: string;
  requireInteraction?: boolean;
  campaignId?: string | number;
}
