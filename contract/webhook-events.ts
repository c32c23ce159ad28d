// Webhooks (docs/webhooks.md): the events a site's owner may subscribe an endpoint to, the JSON each request
// carries, and the owner API's requests and replies over endpoints and their delivery log. Every request is one
// event, signed as the Standard Webhooks specification says (headers webhook-id, webhook-timestamp,
// webhook-signature); its body is `WebhookPayload`: `{type, timestamp, data}`.

export const WEBHOOK_EVENT_TYPES = [
  'subscriber.created',
  'subscriber.updated',
  'subscriber.unsubscribed',
  'subscriber.expired',
  'subscriber.blocked',
  'notification.delivered',
  'notification.failed',
  'notification.shown',
  'notification.clicked',
  'notification.closed',
  'conversion',
  'campaign.completed',
  'automation.sent',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A subscriber as its events show it (subscriber.created, .updated, .unsubscribed, .expired). */
export interface WebhookSubscriber {
  subscriberId: string;
  status: 'subscribed' | 'unsubscribed' | 'blocked' | 'expired';
  browserType: string | null;
  language: string | null;
  timezone: string | null;
  /** The page's origin the subscriber subscribed on. */
  origin: string | null;
  createdAt: string;
}

/** subscriber.blocked: a visitor refused permission; the subscriber only when its browser proved it. */
export interface WebhookBlocked {
  subscriberId: string | null;
  browserType: string | null;
}

/** notification.*: one delivery of a campaign or an automated message to one subscriber. */
export interface WebhookNotification {
  campaignId: string;
  subscriberId: string;
  /** The automation (welcome, abandonedCart) of an automated message; null for a campaign. */
  automation: string | null;
}

/** notification.failed: why the push service refused it, or the network error (at most 256 bytes). */
export interface WebhookNotificationFailed extends WebhookNotification {
  reason: string | null;
}

/** conversion: a shop order of a subscriber within the site's conversion window after a notification click. */
export interface WebhookConversion {
  orderId: string;
  subscriberId: string;
  /** The clicked campaign (the latest click within the window). */
  campaignId: string;
  automation: string | null;
  clickedAt: string;
  total: number | null;
}

/** campaign.completed: a campaign has nothing left pending; its delivery figures. */
export interface WebhookCampaignCompleted {
  campaignId: string;
  title: string;
  recipients: number;
  delivered: number;
  failed: number;
  expired: number;
  completedAt: string;
}

/** automation.sent: an automated message the push service took. */
export interface WebhookAutomationSent {
  automation: string;
  campaignId: string;
  subscriberId: string;
}

export interface WebhookEventData {
  'subscriber.created': WebhookSubscriber;
  'subscriber.updated': WebhookSubscriber;
  'subscriber.unsubscribed': WebhookSubscriber;
  'subscriber.expired': WebhookSubscriber;
  'subscriber.blocked': WebhookBlocked;
  'notification.delivered': WebhookNotification;
  'notification.failed': WebhookNotificationFailed;
  'notification.shown': WebhookNotification;
  'notification.clicked': WebhookNotification;
  'notification.closed': WebhookNotification;
  conversion: WebhookConversion;
  'campaign.completed': WebhookCampaignCompleted;
  'automation.sent': WebhookAutomationSent;
}

/** The body of one webhook request. `timestamp`: when the event happened (ISO 8601). */
export type WebhookPayload = {
  [T in WebhookEventType]: { type: T; timestamp: string; data: WebhookEventData[T] };
}[WebhookEventType];

/** The signature headers (Standard Webhooks). */
export const WEBHOOK_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;
/** A signing secret: `whsec_` and the base64 of its key's bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The longest endpoint URL, description, and the most endpoints per site. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;
export const WEBHOOK_ENDPOINTS_MAX = 20;
/** Hours a rotated-out secret still signs, beside the new one, unless the rotation says otherwise. */
export const WEBHOOK_ROTATION_OVERLAP_HOURS = 24;

// The owner API: /api/v1/sites/:name/webhooks...

export interface WebhookEndpoint {
  endpointId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  /** enabled, or disabled (by the owner, or by the provider after an event failed for its whole retry window). */
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  disabledAt: string | null;
  /** Events waiting to be sent (or retried) to it. */
  pending: number;
  createdAt: string;
  /** Until when the secret before the last rotation still signs too; null when only one secret signs. */
  previousSecretExpiresAt: string | null;
}

/** POST webhooks */
export interface WebhookEndpointRequest {
  url: string;
  events: WebhookEventType[];
  description?: string;
}

/** PATCH webhooks/:id: change its events or description, or enable (again) / disable it. */
export interface WebhookEndpointUpdate {
  events?: WebhookEventType[];
  description?: string;
  enabled?: boolean;
}

/** POST webhooks/:id/rotate-secret */
export interface WebhookRotateRequest {
  /** Hours the old secret keeps signing beside the new one (0 to 168); default WEBHOOK_ROTATION_OVERLAP_HOURS. */
  overlapHours?: number;
}

/** One attempt to send one event, as the endpoint's delivery log shows it. */
export interface WebhookAttempt {
  attemptId: string;
  /** The event's webhook-id (`msg_...`): replay names it. */
  messageId: string;
  type: WebhookEventType;
  attemptedAt: string;
  /** The endpoint's HTTP status; null when no answer came (the error says why). */
  statusCode: number | null;
  outcome: 'delivered' | 'retrying' | 'failed';
  latencyMs: number;
  /** The first bytes of the answer's body (at most 256), or the network error. */
  response: string;
}

/** One event to one endpoint: where it stands. */
export interface WebhookMessage {
  messageId: string;
  type: WebhookEventType;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
}

export type WebhookEndpointsReply = { status: 'success'; endpoints: WebhookEndpoint[] };
/** The secret is in this reply only: it is shown once. */
export type WebhookEndpointCreatedReply = { status: 'success'; endpoint: WebhookEndpoint; secret: string };
export type WebhookEndpointReply = { status: 'success'; endpoint: WebhookEndpoint };
export type WebhookSecretRotatedReply = { status: 'success'; endpoint: WebhookEndpoint; secret: string };
export type WebhookEndpointRemovedReply = { status: 'success'; endpointId: string; removed: true };
export type WebhookLogReply = { status: 'success'; attempts: WebhookAttempt[]; messages: WebhookMessage[] };
export type WebhookReplayedReply = { status: 'success'; messageId: string; endpointId: string };
