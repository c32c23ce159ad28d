// The services calls of spec section 7 about one visitor, as push.js makes them and the provider answers
// them: segment adds (/as, c.gif), custom tags (/tags), user properties (/dyn), custom dimensions
// (getSubscriberAttributes.php) and the page-click tracking consent. Types and constants only. Every call
// may name a JSONP `callback`; a refused call answers `{status: "failure", message}` with a 4xx. Each call
// that names a subscriber adds `subscriberSecret`, the secret the provider issued to that subscriber's browser
// (contract/sync.ts); without it, or with another, the provider answers 403.

/** GET {services server}/as: adds subscribers to the segment `id`. */
export type AddToSegmentQuery = {
  id: string;
  customer_hash: string;
  /** One subscriber id, or several (`subscriber_list[]=a&subscriber_list[]=b`). */
  'subscriber_list[]': string | string[];
  /** One secret per listed subscriber, in the same order. */
  'subscriberSecret[]': string | string[];
  customTag?: string;
  callback?: string;
};

/** GET {sync server}/c.gif: the beacon of addSubscriberToSegment and removeSubscriberFromSegment. */
export const SEGMENT_BEACON_ACTIONS = ['add-segment', 'remove-segment'] as const;
export type SegmentBeaconAction = (typeof SEGMENT_BEACON_ACTIONS)[number];
export type SegmentBeaconQuery = {
  hash: string;
  subscriberId: string;
  subscriberSecret: string;
  subscriptionId?: string;
  segment: string;
  action: SegmentBeaconAction;
  /** A cache buster. */
  _?: string;
};

/** GET (or, from navigator.sendBeacon, POST) {services server}/tags: stores custom tags. */
export type TagsQuery = {
  hash: string;
  subscriberId: string;
  subscriberSecret: string;
  /** A JSON object of tag keys and values. */
  tags: string;
  callback?: string;
};

/** GET {services server}/dyn (JSONP): the visitor's user properties. */
export type UserPropertiesQuery = { hash: string; subscriberId?: string; subscriberSecret?: string; callback?: string };
export type UserPropertiesReply = { status: 'success'; tags: Record<string, string>; segments: string[] };

/** GET {sync server}/getSubscriberAttributes.php: custom dimension values. */
export type SubscriberAttributesQuery = {
  hash: string;
  subscriberId: string;
  subscriberSecret: string;
  /** Dimension names, comma-separated or a JSON array. */
  customDimensions: string;
  browser?: string;
  callback?: string;
};
export type SubscriberAttributesReply = { status: 'success'; result: Record<string, string> };

/** GET {sync server}/getSubscriptionClickTrackingPermissionDetails.php: the stored tracking consent. */
export type TrackingConsentQuery = {
  customerHash: string;
  subscriberId: string;
  subscriberSecret: string;
  browser?: string;
  callback?: string;
};
/** 1: the subscriber allowed page-click tracking; 0 or null: not. */
export type TrackingConsentReply = { status: 'success'; pageClickTrackingPermission: number | null };

/** The reply of the calls that only store: /as and /tags. */
export type StoredReply = { status: 'success' };
