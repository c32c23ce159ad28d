// Every name this browser stores under: the localStorage keys, cookies and query parameters of spec
// section 3 exactly as the spec names them, push-kit's own `pushkit_` keys, and the IndexedDB database that
// push.js, the child window and the service workers share.
import type { SegmentId } from './site-module.ts';

/**
 * The stored names as enum members, which esbuild writes in place as literals at each use (a module's `const`
 * strings stay shared variables, about 60 B gzip more in push.js's core). The texts are the spec's.
 */
export enum Key {
  SUBSCRIBER_ID = 'wingify_push_subscriber_id',
  SUBSCRIPTION_ID = 'wingify_push_subscription_id',
  ENDPOINT = 'wingify_push_subscription_endpoint',
  STATUS = 'wingify_push_subscription_status',
  DB_STATUS = 'wingify_push_db_status',
  LANGUAGE = 'wingify_push_subscriber_lang',
  DO_NOT_SHOW = 'wingify_push_do_not_show_notification_popup',
  DO_NOT_TRACK = 'wingify_donot_track_actions',
  OPT_OUT = 'pushkit_opt_out',
  /** The secret the provider issued with the subscriber id: the proof, sent with each call about this subscriber. */
  SUBSCRIBER_SECRET = 'pushkit_subscriber_secret',
  VAPID_KEY = 'pshcrw_v_k',
  GCM_ID = 'wingify_push_gcm_id',
  UPDATE_SUBSCRIBER_ID = 'pshcrw_update_subId',
  UUID_COOKIE = '_wingify_pc_uuid',
  /** Prefix of the data of the last shop event: `wingifyEcomData-add_cart`, `wingifyEcomData-order`. */
  ECOM_DATA = 'wingifyEcomData-',
  /** Tag values set on this browser (a JSON object), for segment conditions. */
  TAGS = 'pushkit_tags',
  /** Number of browser sessions seen (localStorage). */
  VISITS = 'pushkit_visits',
  /** Start time of this browser session (session cookie). */
  SESSION_START = 'pushkit_session_start',
  /** The custom dimensions and user properties were read this session (session cookie). */
  REFRESHED = 'pushkit_refreshed',
  /** When a cart-add form was posted this session (session cookie). */
  CART_POSTED = 'pushkit_cart_posted',
  /** The local indexed database (spec section 3): named for the product, version 1, one store, one record. */
  DB_NAME = 'pushkit',
  DB_STORE = 'subscriptionInfo',
  DB_RECORD = 'subscription',
}

/** The local indexed database's version (spec section 3). */
export const DB_VERSION = 1;

/** Segment marker: holds the segment version the visitor was added for. */
export const segmentMarkerKey = (sid: SegmentId): string => 'wingifySegment-' + sid;
/** A click-segment add not yet confirmed, retried on the next view. */
export const retrySegmentKey = (sid: SegmentId): string => 'wingifyRetrySegment-' + sid;
/** A custom dimension value. */
export const dimensionKey = (dimension: string): string => '_vwo_cd_' + dimension;
/** A persisted opt-in trigger event. */
export const triggerEventKey = (kind: string): string => 'pushkit_event_' + kind;

/** Subscriber identifier lifetime (spec section 9). */
export const UUID_DAYS = 10000;
/** How long a refused prompt stays hidden (the config's doNotShowDays, 7 by default); the spec only says the expiry is in days. */
export const DO_NOT_SHOW_DAYS = PK_CONSTANTS.doNotShowDays;
