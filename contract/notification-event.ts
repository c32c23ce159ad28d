// POST /notificationEvent: the service worker reports what became of a campaign's notification. The body is
// JSON (a navigator.sendBeacon body arrives as text/plain and is read the same way).

export const NOTIFICATION_EVENTS = ['shown', 'clicked', 'closed'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export interface NotificationEventReport {
  hash: string;
  campaignId?: string | number;
  /** The subscription's endpoint, by which the provider finds the subscriber. */
  endpoint?: string;
  event: NotificationEvent;
  /**
   * The delivery's click token (the notification's data, or the landing URL's CLICK_PARAM): the provider then
   * counts the event for the delivery's subscriber and campaign, once each, and campaignId may be left out.
   */
  click?: string;
}
